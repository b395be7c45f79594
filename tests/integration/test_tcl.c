/* tests/integration/test_tcl.c: the OpenOCD TCL RPC parser on canned replies, garbage
 * included, and the read planner (runs, widths, chunks, scatter). */
#include <errno.h>

#include "../../probe/tcl.h"
#include "ttest.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_msg(void)
{
	struct tt_tcl_msg m;

	REQUIRE_EQ(tt_tcl_parse_msg(S("@7 0 3"), &m), 0);
	REQUIRE(m.kind == TT_TCL_REPLY && m.seq == 7 && m.code == 0 && m.blen == 1 && m.body[0] == '3');
	REQUIRE_EQ(tt_tcl_parse_msg(S("@9 0 "), &m), 0);
	REQUIRE(m.seq == 9 && m.blen == 0);
	REQUIRE_EQ(tt_tcl_parse_msg(S("@8 1 invalid command name \"read_memory\""), &m), 0);
	REQUIRE(m.code == 1 && m.blen == 34);
	REQUIRE_EQ(tt_tcl_parse_msg(S("@12 -1 x"), &m), 0);
	REQUIRE(m.code == -1);
	REQUIRE_EQ(tt_tcl_parse_msg(S("type target_event halted"), &m), 0);
	REQUIRE(m.kind == TT_TCL_NOTIFY && m.blen == 19);
	/* garbage */
	REQUIRE_EQ(tt_tcl_parse_msg(S("HTTP/1.1 400 Bad Request"), &m), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_msg(S("@7 0"), &m), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_msg(S("@ 0 x"), &m), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_msg(S("@7 x y"), &m), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_msg(S("@99999999999 0 x"), &m), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_msg(S(""), &m), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_msg(S("0 {0x1 0x2}"), &m), -EPROTO);
}

static void test_words(void)
{
	uint8_t b[16];
	char err[200];

	REQUIRE_EQ(tt_tcl_parse_words(S("0x12345678 0x0 0xFFFFFFFF"), 32, 3, b, err, sizeof(err)), 0);
	REQUIRE(b[0] == 0x78 && b[3] == 0x12 && b[4] == 0 && b[8] == 0xff && b[11] == 0xff);
	REQUIRE_EQ(tt_tcl_parse_words(S("0xa5 0x1 0x0"), 8, 3, b, err, sizeof(err)), 0);
	REQUIRE(b[0] == 0xa5 && b[1] == 1 && b[2] == 0);
	REQUIRE_EQ(tt_tcl_parse_words(S(" 0x1\t0x2 \n"), 8, 2, b, err, sizeof(err)), 0);
	/* wrong count */
	REQUIRE_EQ(tt_tcl_parse_words(S("0x1 0x2"), 32, 3, b, err, sizeof(err)), -EPROTO);
	REQUIRE_SUBSTR(err, "2 words where 3");
	REQUIRE_EQ(tt_tcl_parse_words(S("0x1 0x2 0x3"), 32, 2, b, err, sizeof(err)), -EPROTO);
	REQUIRE_SUBSTR(err, "more than the 2");
	/* not hex, no prefix, too wide, binary garbage (quoted) */
	REQUIRE_EQ(tt_tcl_parse_words(S("0x12zz"), 32, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE_SUBSTR(err, "\"0x12zz\"");
	REQUIRE_EQ(tt_tcl_parse_words(S("12"), 32, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_words(S("0x123"), 8, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE_SUBSTR(err, "8-bit");
	REQUIRE_EQ(tt_tcl_parse_words(S("0x123456789"), 32, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_words(S("0x"), 32, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE_EQ(tt_tcl_parse_words(S("\x01\xff\x1b[2J"), 32, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE_SUBSTR(err, "\\x01\\xff\\x1b[2J");
	REQUIRE_EQ(tt_tcl_parse_words(S(""), 32, 1, b, err, sizeof(err)), -EPROTO);
	/* a long garbage reply is quoted truncated */
	char big[3000];
	memset(big, 'A', sizeof(big));
	REQUIRE_EQ(tt_tcl_parse_words(big, sizeof(big), 32, 1, b, err, sizeof(err)), -EPROTO);
	REQUIRE(strlen(err) < 120);
	REQUIRE_SUBSTR(err, "...");
}

struct frames {
	int n;
	char last[64];
};

static int frame_cb(void *arg, const char *f, size_t n)
{
	struct frames *fr = arg;

	fr->n++;
	snprintf(fr->last, sizeof(fr->last), "%.*s", (int)n, f);
	return strncmp(f, "stop", 4) == 0 ? -ECONNRESET : 0;
}

static void test_framer(void)
{
	struct tt_tcl_rx rx = { .max = 100 };
	struct frames fr = { 0 };

	REQUIRE_EQ(tt_tcl_rx_push(&rx, S("@1 0 a"), frame_cb, &fr), 0);
	REQUIRE_EQ(fr.n, 0);
	REQUIRE_EQ(tt_tcl_rx_push(&rx, S("b\x1a@2 0 c\x1atype x"), frame_cb, &fr), 0);
	REQUIRE_EQ(fr.n, 2);
	REQUIRE(strcmp(fr.last, "@2 0 c") == 0);
	REQUIRE_EQ(tt_tcl_rx_push(&rx, S("\x1a"), frame_cb, &fr), 0);
	REQUIRE(strcmp(fr.last, "type x") == 0 && rx.len == 0);
	REQUIRE_EQ(tt_tcl_rx_push(&rx, S("stop\x1a@3 0 d\x1a"), frame_cb, &fr), -ECONNRESET);
	REQUIRE_EQ(fr.n, 4);
	tt_tcl_rx_reset(&rx);
	/* 101 bytes with no terminator: too much */
	char junk[101];
	memset(junk, 'x', sizeof(junk));
	REQUIRE_EQ(tt_tcl_rx_push(&rx, junk, 60, frame_cb, &fr), 0);
	REQUIRE_EQ(tt_tcl_rx_push(&rx, junk, 41, frame_cb, &fr), -EPROTO);
	tt_tcl_rx_free(&rx);
}

static void test_format(void)
{
	char out[256];
	uint8_t d[8] = { 0x11, 0x22, 0x33, 0x44, 0xff, 0, 0, 0x80 };

	REQUIRE_EQ(tt_tcl_format(out, sizeof(out), 5, "read_memory 0x20000000 32 4"), 93);
	REQUIRE(strcmp(out, "return -level 0 -code 6 [format \"@5 %d %s\" [catch {read_memory "
			  "0x20000000 32 4} tt_r] $tt_r]\x1a") == 0);
	REQUIRE_EQ(tt_tcl_format(out, 10, 5, "return 1"), -ENOSPC);
	REQUIRE(tt_tcl_format_write(out, sizeof(out), "write_memory", 0x20000004, 32, d, 8) > 0);
	REQUIRE(strcmp(out, "write_memory 0x20000004 32 {0x44332211 0x800000ff}") == 0);
	REQUIRE(tt_tcl_format_write(out, sizeof(out), "write_memory", 0x1, 8, d, 3) > 0);
	REQUIRE(strcmp(out, "write_memory 0x1 8 {0x11 0x22 0x33}") == 0);
	REQUIRE_EQ(tt_tcl_format_write(out, 30, "write_memory", 0x1, 32, d, 8), -ENOSPC);
}

static void test_plan(void)
{
	uint8_t a[16], b[16], c[16], src[64];
	struct tt_plan p = { 4, { { .addr = 0x100, .len = 8, .dst = a },
				  { .addr = 0x108, .len = 8, .dst = b },
				  { .addr = 0x100, .len = 4, .dst = c },
				  { .addr = 0x200, .len = 4, .dst = c } } };
	uint32_t len;
	unsigned w;

	/* adjacent upwards: merged; an overlapping re-check and a gap: not */
	REQUIRE_EQ(tt_tcl_run_end(&p, 0), 2);
	REQUIRE_EQ(tt_tcl_run_end(&p, 2), 3);
	REQUIRE_EQ(tt_tcl_run_end(&p, 3), 4);
	/* [0x1001, 0x2003): 3 bytes at width 8, words in 4 KiB chunks, a 3-byte tail */
	tt_tcl_next_op(0x1001, 0x2003, 4096, &len, &w);
	REQUIRE(len == 3 && w == 8);
	tt_tcl_next_op(0x1004, 0x2003, 4096, &len, &w);
	REQUIRE(len == 0xffc && w == 32);
	tt_tcl_next_op(0x1004, 0x9000, 4096, &len, &w);
	REQUIRE(len == 4096 && w == 32);
	tt_tcl_next_op(0x1004, 0x9000, 1001, &len, &w);
	REQUIRE(len == 1000 && w == 32);
	tt_tcl_next_op(0x2000, 0x2003, 4096, &len, &w);
	REQUIRE(len == 3 && w == 8);
	tt_tcl_next_op(0x2001, 0x2002, 4096, &len, &w);
	REQUIRE(len == 1 && w == 8);
	/* scatter bytes [0x104, 0x10c) into ranges 0 and 1 */
	for (int i = 0; i < 64; i++)
		src[i] = (uint8_t)i;
	memset(a, 0xee, sizeof(a));
	memset(b, 0xee, sizeof(b));
	tt_tcl_scatter(&p, 0, 2, 0x104, src, 8);
	REQUIRE(a[3] == 0xee && a[4] == 0 && a[7] == 3 && b[0] == 4 && b[3] == 7 && b[4] == 0xee);
}

/* Parses s as a whole reply holding one ring's results: 0 or -EPROTO; *all: every result
 * was taken. */
static int ring_reply(const char *s, const struct tt_range *r, uint32_t ptr, bool *all)
{
	uint8_t pb[4] = { (uint8_t)ptr, (uint8_t)(ptr >> 8), (uint8_t)(ptr >> 16),
			  (uint8_t)(ptr >> 24) };
	struct tt_tcl_segs g;
	char err[200];
	int rc;

	tt_tcl_segs_init(&g, s, strlen(s));
	rc = tt_tcl_parse_ring(&g, r, pb, 4096, err, sizeof(err));
	*all = g.done;
	return rc;
}

/* A TT_RANGE_TO_PTR range's reply (what tt_tcl_ring_proc returns): one result per read the
 * proc makes, as many as the pointer says, each of its width and count; anything else is
 * refused. */
static void test_ring(void)
{
	uint8_t dst[64], cur[4];
	struct tt_range r = { .addr = 0x1000, .len = 64, .dst = dst, .kind = TT_RANGE_TO_PTR,
			      .ptr_base = 0x1000, .align = 4, .from = 48, .max = 64 };
	struct tt_plan plan = { 2, { { .addr = 0x2000, .len = 4, .dst = cur }, r } };
	char out[256];
	bool all;

	/* pointer at offset 8, reading from 48: [48, 64) then [0, 8), mirrored */
	memset(dst, 0xee, sizeof(dst));
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4|0x5 0x6", &r, 0x1008, &all), 0);
	REQUIRE(all && dst[48] == 1 && dst[60] == 4 && dst[0] == 5 && dst[4] == 6 && dst[8] == 0xee &&
		dst[47] == 0xee);
	/* short: the second read's result missing; a word short; one result too many */
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4", &r, 0x1008, &all), -EPROTO);
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3|0x5 0x6", &r, 0x1008, &all), -EPROTO);
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4|0x5", &r, 0x1008, &all), -EPROTO);
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4|0x5 0x6|0x7", &r, 0x1008, &all), 0);
	REQUIRE(!all); /* the caller refuses what is left over */
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4|0x5 0x6 junk", &r, 0x1008, &all), -EPROTO);
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4|0x123456789 0x6", &r, 0x1008, &all), -EPROTO);
	/* a pointer outside the ring, misaligned, or at from: nothing read, one empty result */
	REQUIRE_EQ(ring_reply("", &r, 0x2000, &all), 0);
	REQUIRE(all);
	REQUIRE_EQ(ring_reply("0x1", &r, 0x2000, &all), -EPROTO);
	REQUIRE_EQ(ring_reply("", &r, 0x1002, &all), 0);
	REQUIRE_EQ(ring_reply("", &r, 0x0ffc, &all), 0);
	REQUIRE_EQ(ring_reply("", &r, 0x1030, &all), 0);
	REQUIRE_EQ(ring_reply("|", &r, 0x1030, &all), 0);
	REQUIRE(!all);
	/* at most max bytes */
	r.max = 8;
	REQUIRE_EQ(ring_reply("0x1 0x2", &r, 0x1008, &all), 0);
	REQUIRE(all);
	r.max = 64;
	/* big-endian pointer; bytes in reading order (dst_linear) */
	r.ptr_big = true;
	r.dst_linear = true;
	memset(dst, 0xee, sizeof(dst));
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3 0x4|0x5 0x6", &r, 0x08100000, &all), 0);
	REQUIRE(all && dst[0] == 1 && dst[12] == 4 && dst[16] == 5 && dst[20] == 6 && dst[24] == 0xee);
	/* an unaligned ring of bytes (align 1): width 8 up to a word, words, a byte tail */
	r = (struct tt_range){ .addr = 0x1001, .len = 16, .dst = dst, .kind = TT_RANGE_TO_PTR,
			       .align = 1, .from = 0, .max = 16, .dst_linear = true };
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3|0x44332211|0x5 0x6 0x7", &r, 10, &all), 0);
	REQUIRE(all && dst[0] == 1 && dst[3] == 0x11 && dst[6] == 0x44 && dst[9] == 7);
	REQUIRE_EQ(ring_reply("0x1 0x2 0x3|0x44332211 0x5|0x6 0x7", &r, 10, &all), -EPROTO);
	/* `poll`'s result: background polling on or off (OpenOCD 0.12's words) */
	REQUIRE(tt_tcl_polling_on(S("background polling: on\nTAP: x.cpu (enabled)\n")));
	REQUIRE(!tt_tcl_polling_on(S("background polling: off\nTAP: x.cpu (enabled)\n")));
	REQUIRE(!tt_tcl_polling_on(S("")));
	/* the command that asks for it */
	REQUIRE(tt_tcl_format_ring(out, sizeof(out), "read_memory", "[lindex $tt_0 0]", &r, 4096) > 0);
	REQUIRE(strcmp(out, "[tt_ring read_memory [lindex $tt_0 0] 0 0x0 0x1001 16 1 0 16 4096]") == 0);
	REQUIRE_EQ(tt_tcl_format_ring(out, 20, "read_memory", "0x1", &r, 4096), -ENOSPC);
	/* well formed: a fixed range before it holds the pointer */
	REQUIRE(tt_range_ptr_valid(&plan, 1));
	plan.r[1].ptr_off = 1;
	REQUIRE(!tt_range_ptr_valid(&plan, 1));
	plan.r[1].ptr_off = 0;
	plan.r[1].max = 6;
	REQUIRE(!tt_range_ptr_valid(&plan, 1));
	plan.r[1].max = 64;
	plan.r[1].from = 64;
	REQUIRE(!tt_range_ptr_valid(&plan, 1));
	plan.r[0] = plan.r[1];
	plan.r[0].from = 0;
	REQUIRE(!tt_range_ptr_valid(&plan, 0));
}

int main(void)
{
	test_msg();
	test_words();
	test_framer();
	test_format();
	test_plan();
	test_ring();
	printf("ok\n");
	return tt_test_done();
}
