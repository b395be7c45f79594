/* tests/unit/test_json.c: the record encoder (proto/json.c) against an independent parser
 * (cJSON): every kind of record parses back to the values that went in, strings with quotes,
 * backslashes and control bytes are escaped, numbers at every digit boundary are exact, and a
 * buffer that is too small is refused rather than cut. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../tt_test.h"
#include "json.h"

static cJSON *encode(const struct tt_record *r, const char *target, uint64_t seq)
{
	char buf[TT_JSON_MAX_RECORD];
	int n = tt_json_record(buf, sizeof(buf), r, target, seq);

	CHECK(n > 0);
	if (n <= 0)
		return NULL;
	cJSON *o = cJSON_ParseWithLength(buf, (size_t)n);
	if (!o)
		fprintf(stderr, "not JSON: %.*s\n", n, buf);
	CHECK(o != NULL);
	return o;
}

static double num(const cJSON *o, const char *k)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static const char *str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static void test_event(void)
{
	static const uint32_t raw[8] = { 0x20000500, 0x80080008, 1, 1733, 0x20000600, 5, 0, 0xFFFFFFFF };
	struct tt_record r = { .kind = TT_REC_EVENT };
	struct tt_event *ev = &r.u.ev;

	ev->id = 1;
	ev->name = "THREAD_RESUME";
	ev->ctx = TT_CTX_THREAD;
	ev->core = 0;
	ev->thread = 0x20000500;
	ev->thread_name = "pro\"du\\cer\n\x01";
	ev->prio = 8;
	ev->threshold = 8;
	ev->ts_raw = 1733;
	ev->time = UINT64_C(9007199254740991); /* 2^53 - 1: the largest exact JSON integer */
	ev->has_ns = true;
	ev->ns = 17330;
	ev->addr = 0x20001b40;
	ev->nargs = 4;
	ev->args[0] = (struct tt_arg){ .name = "thread", .kind = TT_ARG_OBJ, .value = 0x20000600, .text = "consumer" };
	ev->args[1] = (struct tt_arg){ .name = "previous_state", .kind = TT_ARG_ENUM, .value = 5, .text = "queue" };
	ev->args[2] = (struct tt_arg){ .name = "stack_ptr", .kind = TT_ARG_HEX, .value = 0x2000fc00 };
	ev->args[3] = (struct tt_arg){ .name = "next_thread", .kind = TT_ARG_OBJ, .value = 0xdeadbeef };
	ev->nraw = 8;
	ev->raw = raw;
	ev->run = TT_RUN_THREAD;
	ev->run_thread = 0x20000600;
	ev->run_name = "consumer";

	cJSON *o = encode(&r, "board1", 1042);
	if (!o)
		return;
	CHECK_STR(str(o, "type"), "event");
	CHECK_STR(str(o, "target"), "board1");
	CHECK_EQ(num(o, "seq"), 1042);
	CHECK_EQ(num(o, "id"), 1);
	CHECK_STR(str(o, "name"), "THREAD_RESUME");
	CHECK_STR(str(o, "ctx"), "thread");
	CHECK_STR(str(o, "thread"), "0x20000500");
	CHECK_STR(str(o, "thread_name"), "pro\"du\\cer\n\x01");
	CHECK_EQ(num(o, "prio"), 8);
	CHECK_EQ(num(o, "time"), 9007199254740991LL);
	CHECK_EQ(num(o, "ns"), 17330);
	CHECK_STR(str(o, "addr"), "0x20001b40");
	CHECK_EQ(num(o, "threshold"), 8);
	CHECK_STR(str(o, "run"), "thread");
	CHECK_STR(str(o, "run_thread"), "0x20000600");
	CHECK_STR(str(o, "run_name"), "consumer");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "args");
	CHECK_STR(str(args, "thread"), "consumer");
	CHECK_STR(str(args, "previous_state"), "queue");
	CHECK_STR(str(args, "stack_ptr"), "0x2000fc00");
	CHECK_STR(str(args, "next_thread"), "0xdeadbeef");
	const cJSON *jr = cJSON_GetObjectItemCaseSensitive(o, "raw");
	CHECK_EQ(cJSON_GetArraySize(jr), 8);
	for (int i = 0; i < 8; i++)
		CHECK_EQ((uint32_t)cJSON_GetArrayItem(jr, i)->valuedouble, raw[i]);
	cJSON_Delete(o);

	/* ISR context: no thread fields, the interrupted thread instead; no ns without a rate. */
	ev->ctx = TT_CTX_ISR;
	ev->interrupted = 0x20000500;
	ev->interrupted_name = "producer";
	ev->prio = ev->threshold = -1;
	ev->has_ns = false;
	ev->run = TT_RUN_ISR;
	o = encode(&r, NULL, 7);
	if (!o)
		return;
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "target"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "thread"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "prio"));
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "ns"));
	CHECK_STR(str(o, "ctx"), "isr");
	CHECK_STR(str(o, "interrupted_name"), "producer");
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "threshold")); /* none recorded: absent */
	CHECK_STR(str(o, "run"), "isr");
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "run_thread"));
	cJSON_Delete(o);
	/* nothing known about who ran: no run fields */
	ev->run = TT_RUN_NONE;
	o = encode(&r, NULL, 8);
	if (!o)
		return;
	CHECK(!cJSON_GetObjectItemCaseSensitive(o, "run"));
	cJSON_Delete(o);

	/* A 64-bit target's note (NuttX, up to 255 bytes): the whole address, every raw word,
	 * a printf text of 240 characters with its newline */
	static uint32_t raw64[64];
	char text[241];
	for (unsigned i = 0; i < 64; i++)
		raw64[i] = 0x1000u + i;
	memset(text, 'x', 239);
	text[239] = '\n';
	text[240] = 0;
	ev->ctx = TT_CTX_THREAD;
	ev->addr = UINT64_C(0x7fff4005d960);
	ev->nraw = 64;
	ev->raw = raw64;
	ev->nargs = 7;
	for (int i = 0; i < 7; i++)
		ev->args[i] = (struct tt_arg){ .name = i == 6 ? "text" : "a", .kind = TT_ARG_OBJ,
					       .text = text };
	o = encode(&r, NULL, 8);
	if (!o)
		return;
	CHECK_STR(str(o, "addr"), "0x00007fff4005d960");
	jr = cJSON_GetObjectItemCaseSensitive(o, "raw");
	CHECK_EQ(cJSON_GetArraySize(jr), 64);
	CHECK_EQ((uint32_t)cJSON_GetArrayItem(jr, 63)->valuedouble, 0x103fu);
	CHECK_STR(str(cJSON_GetObjectItemCaseSensitive(o, "args"), "text"), text);
	cJSON_Delete(o);
}

/* A gap's reason and basis are sentences: not cut at a name's 64 characters. */
static void test_long_reason(void)
{
	static const char reason[] = "noteram full, overwrite disabled (ni_overwrite 2): notes "
				     "dropped until NOTERAM_CLEAR";
	static const char basis[] = "ring size / mean note size per lap, time stamps either side "
				    "and the note rate";
	struct tt_record r = { .kind = TT_REC_GAP };
	char buf[TT_JSON_MAX_RECORD];

	r.u.gap = (struct tt_gap){ .lost = 12, .exact = false, .basis = basis, .reason = reason };
	int n = tt_json_record(buf, sizeof(buf), &r, NULL, 1);
	CHECK(n > 0);
	cJSON *o = cJSON_Parse(buf);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK_STR(str(o, "reason"), reason);
	CHECK_STR(str(o, "basis"), basis);
	cJSON_Delete(o);
}

static void test_numbers(void)
{
	static const uint64_t vals[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 4294967295u,
					 4294967296u, UINT64_C(9007199254740991) };
	char buf[256];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct tt_record r = { .kind = TT_REC_GAP };
		r.u.gap.lost = vals[i];
		r.u.gap.exact = i & 1;
		r.u.gap.reason = "lapped";
		int n = tt_json_record(buf, sizeof(buf), &r, NULL, vals[i]);
		CHECK(n > 0);
		char want[64];
		snprintf(want, sizeof(want), "\"lost\":%llu,", (unsigned long long)vals[i]);
		CHECK(n > 0 && strstr(buf, want) != NULL);
		snprintf(want, sizeof(want), "\"seq\":%llu,", (unsigned long long)vals[i]);
		CHECK(n > 0 && strstr(buf, want) != NULL);
	}
}

static void test_gap_reset_and_room(void)
{
	struct tt_record r = { .kind = TT_REC_RESET };
	char buf[128];

	r.u.reset.reason = "tracing re-enabled";
	cJSON *o = encode(&r, "t", 3);
	if (o) {
		CHECK_STR(str(o, "type"), "reset");
		CHECK_STR(str(o, "reason"), "tracing re-enabled");
		cJSON_Delete(o);
	}
	int full = tt_json_record(buf, sizeof(buf), &r, "t", 3);
	CHECK(full > 0);
	/* One byte short of the whole record: refused, never a truncated object. */
	for (int cap = 0; cap < full; cap++)
		CHECK_EQ(tt_json_record(buf, (size_t)cap, &r, "t", 3), -ENOSPC);
	CHECK_EQ(tt_json_record(buf, (size_t)full, &r, "t", 3), full);
	CHECK_EQ(tt_json_string(buf, 4, "abcd", 64), -ENOSPC);
	CHECK_EQ(tt_json_string(buf, sizeof(buf), "abcdef", 3), 5); /* "abc" */
}

/* The text rule: the JSON of any bytes is valid UTF-8 (expected strings written by hand). */
static void test_utf8(void)
{
	static const struct {
		const char *in;
		size_t max;
		const char *out;
	} cases[] = {
		{ "Caf\xe9", 64, "\"Caf\xef\xbf\xbd\"" },                  /* Latin-1 */
		{ "Gr\xc3\xbc\xc3\x9f", 64, "\"Gr\xc3\xbc\xc3\x9f\"" },    /* valid: kept */
		{ "ab\xc3\xa9", 3, "\"ab\"" },                       /* the cut inside a character */
		{ "ab\xe2\x9c\x93", 4, "\"ab\"" },
		{ "ab\xe2\x9c\x93", 5, "\"ab\xe2\x9c\x93\"" },
		{ "\xc0\xaf", 64, "\"\xef\xbf\xbd\xef\xbf\xbd\"" },        /* overlong '/' */
		{ "\xed\xa0\x80", 64, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* surrogate */
		{ "\xf4\x90\x80\x80", 64, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xf0\x9f\x98\x80", 64, "\"\xf0\x9f\x98\x80\"" },      /* U+1F600 */
		{ "a\xc3", 64, "\"a\xef\xbf\xbd\"" },                  /* cut short by the NUL */
		{ "\x1b[2J\xc2\x9b", 64, "\"\\u001b[2J\\u009b\"" },      /* C0 and C1 escaped */
		{ "\xc2\xa0", 64, "\"\xc2\xa0\"" },                    /* U+00A0 is no control */
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = tt_json_string(buf, sizeof(buf) - 1, cases[i].in, cases[i].max);
		CHECK(n > 0);
		buf[n > 0 ? n : 0] = 0;
		CHECK_STR(buf, cases[i].out);
	}
	CHECK_EQ(tt_json_utf8_len("\xc3\xa9", 1), -1);
	CHECK_EQ(tt_json_utf8_len("\xc3\xa9", 2), 2);
	CHECK_EQ(tt_json_utf8_len("\x80", 4), 0);
}

int main(void)
{
	test_utf8();
	test_long_reason();
	test_event();
	test_numbers();
	test_gap_reset_and_room();
	return tt_test_done();
}
