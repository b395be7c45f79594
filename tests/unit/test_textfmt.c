/* tests/unit/test_textfmt.c: the terminal's text rule (client/textfmt.h): a string from a
 * target, a file or a daemon never puts a control character on the terminal, and a record line
 * with such names carries none either. Expected strings written by hand. */
#include <string.h>

#include "../tt_test.h"
#include "textfmt.h"
#include "../../proto/json.h"
#include "../../proto/reader.h"

/* the QNX traceprinter lines of a little-endian QNX 6 source */
static const struct tt_native_ctx qnx6 = { false, 6 };

static void test_clean(void)
{
	static const struct {
		const char *in;
		size_t max;
		const char *out;
	} cases[] = {
		{ "\x1b]0;owned\x07", 64, "\\x1b]0;owned\\x07" }, /* OSC title, BEL */
		{ "a\nb\tc\x7f", 64, "a\\nb\\tc\\x7f" },
		{ "\xc2\x9b" "31m", 64, "\\u009b31m" },            /* 8-bit CSI */
		{ "Caf\xe9", 64, "Caf\xef\xbf\xbd" },              /* not UTF-8 */
		{ "Gr\xc3\xbc\xc3\x9f", 64, "Gr\xc3\xbc\xc3\x9f" }, /* valid: kept */
		{ "ab\xc3\xa9", 3, "ab" },                         /* cut between characters */
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(tt_textfmt_clean(buf, sizeof(buf), cases[i].in, cases[i].max), cases[i].out);
	CHECK_STR(tt_textfmt_clean(buf, 4, "\x1b\x1b", 64), ""); /* an escape is never cut in half */
	CHECK_STR(tt_textfmt_clean(buf, 6, "\x1b\x1b", 64), "\\x1b");
	CHECK_STR(tt_textfmt_clean(buf, sizeof(buf), NULL, 64), "");
}

static void test_record_line(void)
{
	static const char bad[] = "\x1b[2J\x07\xc2\x9b";
	struct tt_record r = { .kind = TT_REC_EVENT };
	struct tt_textfmt tf = { .color = 0, .target = bad, .width = 0 }; /* no colour: no ESC at all */
	char line[4096];

	r.u.ev = (struct tt_event){ .name = bad, .ctx = TT_CTX_THREAD, .thread_name = bad, .prio = -1,
				    .core = -1, .threshold = -1, .nargs = 1 };
	r.u.ev.args[0] = (struct tt_arg){ .name = bad, .kind = TT_ARG_OBJ, .text = bad };
	for (int wide = 0; wide < 2; wide++) {
		tf.width = wide ? 0 : 80;
		int n = tt_textfmt_record(&tf, line, sizeof(line), &r, 1);
		CHECK(n > 0);
		CHECK(n > 0 && !memchr(line, '\x1b', (size_t)n) && !memchr(line, '\x07', (size_t)n) &&
		      !memmem(line, (size_t)n, "\xc2\x9b", 2));
		CHECK(n > 0 && memmem(line, (size_t)n, "\\x1b[2J\\x07\\u009b", 15) != NULL);
	}
	r = (struct tt_record){ .kind = TT_REC_RESET };
	r.u.reset.reason = bad;
	int n = tt_textfmt_record(&tf, line, sizeof(line), &r, 2);
	CHECK(n > 0 && !memchr(line, '\x1b', (size_t)n) && strstr(line, "\\x1b[2J"));
	r = (struct tt_record){ .kind = TT_REC_GAP };
	r.u.gap = (struct tt_gap){ .lost = 3, .exact = false, .reason = bad, .basis = bad };
	n = tt_textfmt_record(&tf, line, sizeof(line), &r, 3);
	CHECK(n > 0 && !memchr(line, '\x1b', (size_t)n) && strstr(line, "\\x1b[2J"));
	n = tt_textfmt_native(line, sizeof(line), &r, tt_reader_find("qnx"), &qnx6);
	CHECK(n > 0 && memchr(line, '\x1b', (size_t)n) == NULL);
}

/* A column cut (the thread, the target) falls between characters: a name of 25 bytes that
 * are not UTF-8 (each shown as U+FFFD, three bytes) in the 16- and 22-column thread column and
 * a narrow target column stays valid UTF-8 (the fuzzer found a byte cut). */
static void test_column_cut(void)
{
	static const char name[] = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
				   "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffmain";
	struct tt_record r = { .kind = TT_REC_EVENT };
	char line[4096];

	r.u.ev = (struct tt_event){ .name = "ISR_ENTER", .ctx = TT_CTX_THREAD, .thread_name = name,
				    .prio = 4, .core = -1, .threshold = -1 };
	for (int width = 0; width <= 80; width += 80) {
		struct tt_textfmt tf = { .target = name, .width = width, .target_width = 5 };
		int n = tt_textfmt_record(&tf, line, sizeof(line), &r, 7);
		CHECK(n > 0);
		for (int i = 0; i < n;) {
			int k = tt_json_utf8_len(line + i, (size_t)(n - i));
			CHECK_MSG(k > 0, "width %d: byte %d of the line is not UTF-8: %s", width, i, line);
			if (k <= 0)
				break;
			i += k;
		}
	}
}

/* Fitting text to columns: cut between characters, the ellipsis in the last column. */
static void test_cell(void)
{
	char buf[64];

	CHECK_STR(tt_textfmt_cell(buf, sizeof(buf), "board1", 8, true, true), "board1  ");
	CHECK_STR(tt_textfmt_cell(buf, sizeof(buf), "board1", 8, true, false), "board1");
	CHECK_STR(tt_textfmt_cell(buf, sizeof(buf), "lab/bench0/t00", 8, true, true),
		  "lab/ben\xe2\x80\xa6");
	CHECK_STR(tt_textfmt_cell(buf, sizeof(buf), "lab/bench0/t00", 8, false, true), "lab/benc");
	CHECK_STR(tt_textfmt_cell(buf, sizeof(buf), "Gr\xc3\xbc\xc3\x9f Gott", 3, false, false),
		  "Gr\xc3\xbc");
	CHECK_STR(tt_textfmt_cell(buf, sizeof(buf), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 2,
				  true, true), "\xef\xbf\xbd\xe2\x80\xa6");
	CHECK_STR(tt_textfmt_cell(buf, 5, "abcdefgh", 8, false, true), "abcd"); /* cut to cap */
}

int main(void)
{
	test_cell();
	test_column_cut();
	test_clean();
	test_record_line();
	return tt_test_done();
}
