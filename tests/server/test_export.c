/* tests/server/test_export.c: exports from a hub's history.
 *
 * The stream is authentic: a ThreadX buffer written by tests/fw/txwriter (ThreadX's exact
 * store order) is decoded by the real reader (tt_threadx_decode_image) and published into a
 * hub. Then: the .trx export decodes back, through the same reader, to the same events (every
 * field except seq/target/addr/time, which depend on the daemon and the file layout); the
 * Perfetto export parses and has the documented structure (process/thread names, running
 * slices from context switches, instants, gap counter); jsonl is the wire bytes; ftrace has a
 * line per record.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>

#include "../../proto/json.h"
#include "../../proto/threadx.h"
#include "export.h"
#include "hub.h"
#include "synth.h"
#include "txwriter.h"

#define MEM_BASE 0x20000000u
#define MEM_SIZE (256u * 1024u)
#define GAP_AFTER 1000 /* the hub's history has a gap record after this many events */

struct recs {
	char **json; /* encoded without target, seq = position */
	size_t n, cap;
	struct tt_hub *hub;
};

static void keep(void *arg, const struct tt_record *rec)
{
	struct recs *r = arg;
	char buf[TT_JSON_MAX_RECORD];
	int n = tt_json_record(buf, sizeof(buf), rec, NULL, r->n + 1);

	REQUIRE(n > 0);
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->json = realloc(r->json, r->cap * sizeof(char *));
		REQUIRE(r->json);
	}
	r->json[r->n++] = strndup(buf, (size_t)n);
	if (r->hub)
		REQUIRE(tt_hub_publish(r->hub, rec));
	if (r->hub && r->n == GAP_AFTER) { /* the hub's history: a gap after this event */
		struct tt_record gap = { .kind = TT_REC_GAP, .u.gap = { 3, true, "lapped" } };
		REQUIRE(tt_hub_publish(r->hub, &gap));
	}
}

static void build_image(uint8_t *mem, uint32_t *hdr)
{
	static struct txw w;
	const uint32_t thr[3] = { 0x20030000u, 0x20030100u, 0x20030200u };
	const char *names[3] = { "producer", "consumer", "idle thread" };
	const uint32_t queue = 0x20031000u, sem = 0x20031100u;

	txw_init(&w, mem, MEM_BASE, MEM_SIZE, false);
	*hdr = MEM_BASE + 0x1000;
	REQUIRE(txw_enable(&w, *hdr, 64 * 1024, 16) == 0);
	for (int i = 0; i < 3; i++)
		txw_register(&w, thr[i], 1, names[i], 0x20040000u + 0x1000u * (uint32_t)i, 1024,
			     (uint32_t)(4 + i));
	txw_register(&w, queue, 3, "work_q", 16, 4, 0);
	txw_register(&w, sem, 4, "done_sem", 0, 0, 0);
	for (uint32_t k = 0; k < 2500; k++) { /* wraps the 64 KiB buffer (2022 slots) */
		uint32_t cur = thr[k % 3], nxt = thr[(k + 1) % 3];
		uint32_t pw = txw_prio_word(4 + k % 3, 4 + k % 3);
		switch (k % 6) {
		case 0: txw_insert(&w, cur, pw, 1, nxt, 0, 0x20043f00u, nxt, NULL); break;
		case 1: txw_insert(&w, cur, pw, 2, cur, 5, 0x20043f00u, nxt, NULL); break;
		case 2: txw_insert(&w, cur, pw, 69, queue, 0x20050000u, 0, k % 4, NULL); break;
		case 3: txw_insert(&w, cur, pw, 83, sem, 0xFFFFFFFFu, 1, 0x20043e00u, NULL); break;
		case 4: txw_insert(&w, TXW_ISR_THREAD, cur, 3, 0x20043d00u, 15, 0, 0, NULL); break;
		default: txw_insert(&w, cur, pw, 4096 + k % 5, k, k * 2, k * 3, k * 4, NULL); break;
		}
	}
}

static int add_rec(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)seq;
	int rc = tt_export_record(arg, json, len);
	REQUIRE(rc == 0 || rc == -EINVAL);
	return 0;
}

static struct synth_buf export_hub(struct tt_hub *h, enum tt_export_format fmt, uint64_t *written)
{
	struct synth_buf b = { 0 };
	struct tt_export *e;

	REQUIRE(tt_export_new(fmt, synth_buf_put, &b, &e) == 0);
	REQUIRE(tt_hub_history_foreach(h, add_rec, e) == 0);
	REQUIRE(tt_export_finish(e) == 0);
	*written = tt_export_written(e);
	tt_export_free(e);
	return b;
}

/* The same event? Everything but what depends on the daemon/file layout. */
static void same_event(const char *a, const char *b)
{
	static const char *const skip[] = { "seq", "target", "addr", "time", "ns" };

	REQUIRE(synth_json_same(a, b, skip, sizeof(skip) / sizeof(skip[0])));
}

/* One record with fields longer than any line (the wire is another program's): ftrace cuts
 * them and keeps one whole line, Perfetto writes the event whole. */
static void test_long_fields(void)
{
	static char json[16384], name[3001], key[3001], text[6001];
	struct synth_buf ft = { 0 }, pf = { 0 };
	struct tt_export *e;
	cJSON *j, *ev;
	bool found = false;

	memset(name, 'N', sizeof(name) - 1);
	memset(key, 'K', sizeof(key) - 1);
	memset(text, 'T', sizeof(text) - 1);
	int n = snprintf(json, sizeof(json), "{\"type\":\"event\",\"seq\":1,\"time\":5,\"name\":\"%s\","
			 "\"ctx\":\"isr\",\"args\":{\"%s\":1e300,\"text\":\"%s\"}}", name, key, text);
	REQUIRE(n > 0 && (size_t)n < sizeof(json));

	REQUIRE(tt_export_new(TT_EXPORT_FTRACE, synth_buf_put, &ft, &e) == 0);
	REQUIRE(tt_export_record(e, json, (size_t)n) == 0);
	REQUIRE(tt_export_finish(e) == 0);
	tt_export_free(e);
	const char *line = ft.p, *nl;
	while (line[0] == '#') /* the header */
		line = strchr(line, '\n') + 1;
	nl = strchr(line, '\n');
	REQUIRE(nl && nl[1] == 0 && nl - line < 2048 && !memchr(line, 0, (size_t)(nl - line)));
	REQUIRE(strstr(line, ": NNNN") && strstr(line, " KKKK"));

	REQUIRE(tt_export_new(TT_EXPORT_PERFETTO, synth_buf_put, &pf, &e) == 0);
	REQUIRE(tt_export_record(e, json, (size_t)n) == 0);
	REQUIRE(tt_export_finish(e) == 0);
	tt_export_free(e);
	j = cJSON_Parse(pf.p);
	REQUIRE(j);
	cJSON_ArrayForEach(ev, cJSON_GetObjectItem(j, "traceEvents")) {
		const cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "args"), "args");
		const cJSON *t = cJSON_GetObjectItem(a, "text");
		found |= cJSON_IsString(t) && strlen(t->valuestring) == sizeof(text) - 1;
	}
	REQUIRE(found);
	cJSON_Delete(j);
	printf("long fields: ftrace one line of %zu bytes, perfetto event whole (%zu bytes)\n",
	       (size_t)(nl - line) + 1, pf.len);
	free(ft.p);
	free(pf.p);
}

int main(void)
{
	uint8_t *mem = calloc(1, MEM_SIZE);
	uint32_t hdr;
	char err[256];
	struct tt_hub_config hc = { .target = "board1", .format = "threadx", .history = 100000 };
	struct recs orig = { 0 }, back = { 0 };
	uint64_t written;

	build_image(mem, &hdr);
	REQUIRE(tt_hub_new(&hc, &orig.hub) == 0);
	struct tt_threadx_config tc = { .header_addr = hdr };
	int rc = tt_threadx_decode_image(mem, MEM_SIZE, MEM_BASE, hdr - MEM_BASE, &tc, keep,
					 &orig, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "decode: %s\n", err);
	REQUIRE(rc == 0 && orig.n == 2022);

	/* trx round trip: the gap record (3 lost, exact) is a marker entry between the events
	 * around it: user event 65535 in the initialization context at the previous event's time,
	 * info 1 = 3, info 2 = 1 (exact) */
	struct synth_buf trx = export_hub(orig.hub, TT_EXPORT_TRX, &written);
	REQUIRE(written == orig.n + 1);
	struct tt_threadx_config tc2 = { .header_addr = 0x10000000u };
	rc = tt_threadx_decode_image((uint8_t *)trx.p, trx.len, 0x10000000u, 0, &tc2, keep, &back,
				     err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "decode .trx: %s\n", err);
	REQUIRE(rc == 0);
	REQUIRE(back.n == orig.n + 1);
	for (size_t i = 0; i < orig.n; i++)
		same_event(orig.json[i], back.json[i < GAP_AFTER ? i : i + 1]);
	cJSON *mark = cJSON_Parse(back.json[GAP_AFTER]), *prev = cJSON_Parse(orig.json[GAP_AFTER - 1]);
	const cJSON *raw = cJSON_GetObjectItem(mark, "raw");
	REQUIRE(mark && prev && cJSON_GetArraySize(raw) == 8);
	const double mk[8] = { 0xF0F0F0F0u, 0, 65535, cJSON_GetArrayItem(cJSON_GetObjectItem(prev,
				 "raw"), 3)->valuedouble, 3, 1, 0, 0 };
	for (int i = 0; i < 8; i++)
		REQUIRE(cJSON_GetArrayItem(raw, i)->valuedouble == mk[i]);
	cJSON_Delete(mark);
	cJSON_Delete(prev);
	uint64_t lost = 0;
	REQUIRE(tt_export_trx_count_gaps((const uint8_t *)trx.p, trx.len, &lost) == 1 && lost == 3);
	printf("trx: %zu events written, decoded back identical, the gap a user event 65535 between "
	       "events %d and %d (%zu bytes)\n", orig.n, GAP_AFTER, GAP_AFTER + 1, trx.len);

	/* perfetto structure */
	struct synth_buf pf = export_hub(orig.hub, TT_EXPORT_PERFETTO, &written);
	cJSON *j = cJSON_Parse(pf.p), *ev;
	REQUIRE(j && cJSON_IsArray(cJSON_GetObjectItem(j, "traceEvents")));
	REQUIRE(cJSON_GetObjectItem(j, "metadata"));
	unsigned slices = 0, instants = 0, counters = 0, tnames = 0, pnames = 0;
	bool consumer_named = false;
	cJSON_ArrayForEach(ev, cJSON_GetObjectItem(j, "traceEvents")) {
		const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring;
		REQUIRE(cJSON_IsNumber(cJSON_GetObjectItem(ev, "pid")));
		if (!strcmp(ph, "X")) {
			slices++;
			REQUIRE(cJSON_GetObjectItem(ev, "dur")->valuedouble >= 0);
			REQUIRE(cJSON_IsNumber(cJSON_GetObjectItem(ev, "tid")));
		} else if (!strcmp(ph, "i")) {
			instants++;
			REQUIRE(cJSON_IsNumber(cJSON_GetObjectItem(ev, "ts")));
		} else if (!strcmp(ph, "C")) {
			counters++;
		} else if (!strcmp(ph, "M")) {
			const char *n = cJSON_GetObjectItem(ev, "name")->valuestring;
			const char *v = cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "args"),
							    "name")->valuestring;
			tnames += !strcmp(n, "thread_name");
			pnames += !strcmp(n, "process_name");
			consumer_named |= !strcmp(v, "consumer");
		}
	}
	REQUIRE(pnames == 1 && tnames >= 4 && consumer_named);
	REQUIRE(instants == orig.n + 1); /* every event + the gap */
	REQUIRE(counters == 1);
	REQUIRE(slices > 100); /* context switches became running slices */
	printf("perfetto: %u slices, %u instants, %u counters, %u thread names\n", slices,
	       instants, counters, tnames);
	cJSON_Delete(j);

	/* jsonl: the wire bytes, one per line */
	struct synth_buf jl = export_hub(orig.hub, TT_EXPORT_JSONL, &written);
	REQUIRE(written == orig.n + 1);
	REQUIRE(!strncmp(jl.p, "{\"type\":\"event\",\"target\":\"board1\",\"seq\":1,", 42));
	/* ftrace: header + one line per record */
	struct synth_buf ft = export_hub(orig.hub, TT_EXPORT_FTRACE, &written);
	size_t lines = 0;
	for (size_t i = 0; i < ft.len; i++)
		lines += ft.p[i] == '\n';
	REQUIRE(written == orig.n + 1 && lines == written + 6);
	/* a small pid per thread (not its address), the name as comm */
	REQUIRE(!strstr(ft.p, "-0x2003") && strstr(ft.p, "QUEUE_SEND: queue=work_q"));
	const char *cons = strstr(ft.p, " consumer-");
	REQUIRE(cons && atoi(cons + 10) >= 1 && atoi(cons + 10) < 16);
	char want[32];
	snprintf(want, sizeof(want), " consumer-%d ", atoi(cons + 10));
	for (const char *q = ft.p; (q = strstr(q, " consumer-")); q++) /* the same pid always */
		REQUIRE(!strncmp(q, want, strlen(want)));

	for (size_t i = 0; i < orig.n; i++)
		free(orig.json[i]);
	for (size_t i = 0; i < back.n; i++)
		free(back.json[i]);
	free(orig.json);
	free(back.json);
	free(trx.p);
	free(pf.p);
	free(jl.p);
	free(ft.p);
	tt_hub_free(orig.hub);
	free(mem);
	test_long_fields();
	printf("export: ok\n");
	return tt_test_done();
}
