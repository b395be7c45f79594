/* tests/server/test_export_tracex.c: the exports of TraceX's own sample (../shared/fixtures/
 * tracex/demo_threadx.trx), against what TraceX says about it (demo_threadx.txt).
 *
 * The daemon's path: the live reader over the file's bytes (as `tracetapd --probe file:` runs
 * it), records published into a hub, exported from its history.
 *  - Perfetto: the running slices per thread add up to TraceX's Thread Execution totals (read
 *    from TraceX's text), "Interrupt" to the ISR track, and no event written from a thread lies
 *    outside a running slice of that thread.
 *  - .trx: the round trip (file -> reader -> hub -> trx export -> reader) gives the same events
 *    (every field but seq and addr: times included), the header's timer mask (0x0000FFFF) and
 *    the whole registry (all 15 objects with their parameters).
 * TT_FIXTURES names the fixtures folder (default <source root>/../shared/fixtures); without it
 * the test is skipped (exit 77).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../proto/json.h"
#include "../../proto/threadx.h"
#include "export.h"
#include "hub.h"
#include "synth.h"
#include "../tt_test.h"
#include "../unit/tracex_text.h"

struct recs {
	struct tt_hub *hub;  /* publish into it, or NULL */
	char **json;         /* encoded without target, seq = position */
	size_t n;
};

static void keep(void *arg, const struct tt_record *rec)
{
	struct recs *r = arg;
	char buf[TT_JSON_MAX_RECORD];
	int n = tt_json_record(buf, sizeof(buf), rec, NULL, r->n + 1);

	CHECK(n > 0);
	r->json = realloc(r->json, (r->n + 1) * sizeof(char *));
	r->json[r->n++] = strndup(buf, (size_t)n);
	if (r->hub)
		CHECK(tt_hub_publish(r->hub, rec));
}

/* The live reader over a static image whose first byte (the header) is at target address base:
 * one poll cycle, as the daemon's file probe drives it. */
static struct tt_threadx *read_image(const uint8_t *img, size_t len, uint32_t base,
				     struct recs *out)
{
	struct tt_threadx_config c = { .header_addr = base, .static_image = true };
	struct tt_threadx *rd;
	struct tt_plan p;
	int rc;

	CHECK(tt_threadx_new(&c, &rd) == 0);
	do {
		tt_threadx_plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++) {
			CHECK(p.r[i].addr >= base && p.r[i].addr - base + p.r[i].len <= len);
			memcpy(p.r[i].dst, img + (p.r[i].addr - base), p.r[i].len);
		}
		rc = tt_threadx_ingest(rd, keep, out);
	} while (rc == TT_THREADX_MORE);
	CHECK(rc == TT_THREADX_DONE);
	if (rc != TT_THREADX_DONE)
		fprintf(stderr, "reader: %s\n", tt_threadx_error(rd));
	return rd;
}

static int add_rec(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)seq;
	CHECK(tt_export_record(arg, json, len) == 0);
	return 0;
}

/* src: the live reader's view of the source; img: the source image (the offline path) */
static struct synth_buf export_hub(struct tt_hub *h, enum tt_export_format fmt,
			     const struct tt_threadx *src, const uint8_t *img, size_t len)
{
	struct synth_buf b = { 0 };
	struct tt_export *e;

	CHECK(tt_export_new(fmt, synth_buf_put, &b, &e) == 0);
	if (src)
		CHECK(tt_export_set_source(e, &tt_threadx_reader, src) == 0);
	if (img) {
		uint32_t base = (uint32_t)img[8] | (uint32_t)img[9] << 8 | (uint32_t)img[10] << 16 |
				(uint32_t)img[11] << 24;
		CHECK(tt_export_set_source_image(e, &tt_threadx_reader, img, len, base, 0) == 0);
		CHECK(tt_export_set_source_image(e, &tt_threadx_reader, img, 100, base, 0) < 0); /* cut: refused */
	}
	CHECK(tt_hub_history_foreach(h, add_rec, e) == 0);
	CHECK(tt_export_finish(e) == 0);
	tt_export_free(e);
	return b;
}

static void check_perfetto(const char *pf, const char *txt, uint64_t span)
{
	cJSON *j = cJSON_Parse(pf), *ev, *ev2;
	struct { double tid; char name[40]; double run; } th[32];
	size_t nth = 0, inside = 0, thread_events = 0;
	double isr = 0, all = 0;

	CHECK(j != NULL);
	cJSON *list = cJSON_GetObjectItem(j, "traceEvents");
	cJSON_ArrayForEach(ev, list) {
		const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring;
		cJSON *args = cJSON_GetObjectItem(ev, "args");
		if (!strcmp(ph, "M") && !strcmp(cJSON_GetObjectItem(ev, "name")->valuestring,
						"thread_name") && nth < 32) {
			th[nth].tid = cJSON_GetObjectItem(ev, "tid")->valuedouble;
			snprintf(th[nth].name, sizeof(th[nth].name), "%s",
				 cJSON_GetObjectItem(args, "name")->valuestring);
			th[nth++].run = 0;
		}
	}
	cJSON_ArrayForEach(ev, list) {
		const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring;
		if (strcmp(ph, "X"))
			continue;
		double tid = cJSON_GetObjectItem(ev, "tid")->valuedouble;
		double dur = cJSON_GetObjectItem(ev, "dur")->valuedouble;
		all += dur;
		if (tid == 0)
			isr += dur;
		for (size_t i = 0; i < nth; i++)
			if (th[i].tid == tid)
				th[i].run += dur;
	}
	/* every thread TraceX lists, by name */
	size_t named = 0;
	for (size_t i = 0; i < nth; i++) {
		if (th[i].tid == 0)
			continue;
		double want = tracex_total(txt, th[i].name);
		CHECK_MSG(want >= 0, "TraceX has no total for '%s'", th[i].name);
		CHECK_MSG(fabs(th[i].run - want) < 0.5, "%s: %.0f ticks running in the Perfetto "
			  "export, TraceX: %.0f", th[i].name, th[i].run, want);
		named += want > 0;
	}
	CHECK(named == 7); /* the threads that ran */
	CHECK_MSG(fabs(isr - tracex_total(txt, "Interrupt")) < 0.5, "ISR %.0f", isr);
	CHECK(tracex_total(txt, "Idle System") == 0);
	CHECK_MSG(fabs(all - (double)span) < 0.5, "slices cover %.0f of %" PRIu64, all, span);
	/* no event written from a thread outside a running slice of its own thread */
	cJSON_ArrayForEach(ev, list) {
		if (strcmp(cJSON_GetObjectItem(ev, "ph")->valuestring, "i"))
			continue;
		double tid = cJSON_GetObjectItem(ev, "tid")->valuedouble;
		double ts = cJSON_GetObjectItem(ev, "ts")->valuedouble;
		if (tid == 0)
			continue;
		thread_events++;
		bool in = false;
		cJSON_ArrayForEach(ev2, list) {
			if (strcmp(cJSON_GetObjectItem(ev2, "ph")->valuestring, "X") ||
			    cJSON_GetObjectItem(ev2, "tid")->valuedouble != tid)
				continue;
			double s = cJSON_GetObjectItem(ev2, "ts")->valuedouble;
			double d = cJSON_GetObjectItem(ev2, "dur")->valuedouble;
			if (ts >= s && ts <= s + d) {
				in = true;
				break;
			}
		}
		CHECK_MSG(in, "event at %.0f on thread %.0f outside its running slices", ts, tid);
		inside += in;
	}
	CHECK(thread_events == 966); /* TraceX's per-thread Total Events add up to 966 */
	CHECK(inside == thread_events);
	printf("perfetto: %zu thread names, %zu of %zu thread events inside their thread's slices\n",
	       nth, inside, thread_events);
	cJSON_Delete(j);
}

static void same_event(const char *a, const char *b)
{
	static const char *const skip[] = { "seq", "addr" };

	CHECK(synth_json_same(a, b, skip, sizeof(skip) / sizeof(skip[0])));
}

static void check_trx(const struct tt_threadx *src, const struct recs *orig, const struct synth_buf *trx,
		      bool whole_registry)
{
	struct recs back = { 0 };
	struct tt_threadx_header_info a, b;
	struct tt_threadx_object oa, ob;
	struct tt_threadx *rd = read_image((const uint8_t *)trx->p, trx->len, 0x10000000u, &back);

	CHECK(tt_threadx_header_info(src, &a) == 0 && tt_threadx_header_info(rd, &b) == 0);
	CHECK_EQ(a.timer_mask, 0xFFFF);
	CHECK_EQ(b.timer_mask, a.timer_mask);
	CHECK_EQ(b.name_size, a.name_size);
	size_t used = 0;
	if (whole_registry)
		CHECK_EQ(b.registry_entries, a.registry_entries);
	for (uint32_t i = 0; whole_registry && i < a.registry_entries; i++) {
		CHECK(tt_threadx_registry_at(src, i, &oa) == 0 && tt_threadx_registry_at(rd, i, &ob) == 0);
		CHECK_EQ(ob.ptr, oa.ptr);
		CHECK_EQ(ob.type, oa.type);
		CHECK_EQ(ob.deleted, oa.deleted);
		CHECK_EQ(ob.prio, oa.prio);
		CHECK_EQ(ob.param1, oa.param1);
		CHECK_EQ(ob.param2, oa.param2);
		CHECK(!strcmp(ob.name, oa.name));
		used += oa.type != 0;
	}
	CHECK_EQ(used, whole_registry ? 15 : 0);
	CHECK_EQ(back.n, orig->n);
	for (size_t i = 0; i < orig->n && i < back.n; i++)
		same_event(orig->json[i], back.json[i]);
	printf("trx%s: %zu events, %zu registry objects compared, mask 0x%" PRIx32 "\n",
	       whole_registry ? "" : " (no source)", back.n, used, b.timer_mask);
	for (size_t i = 0; i < back.n; i++)
		free(back.json[i]);
	free(back.json);
	tt_threadx_free(rd);
}

int main(void)
{
	uint8_t *img;
	char *txt;
	size_t len;

	if (tracex_sample(&img, &len, &txt) < 0)
		return 77;
	uint32_t base = (uint32_t)img[8] | (uint32_t)img[9] << 8 | (uint32_t)img[10] << 16 |
			(uint32_t)img[11] << 24;
	struct tt_hub_config hc = { .target = "demo", .format = "threadx", .history = 100000 };
	struct recs orig = { 0 };
	CHECK(tt_hub_new(&hc, &orig.hub) == 0);
	struct tt_threadx *src = read_image(img, len, base, &orig);
	CHECK_EQ(orig.n, 974);

	cJSON *first = cJSON_Parse(orig.json[0]), *last = cJSON_Parse(orig.json[orig.n - 1]);
	uint64_t span = (uint64_t)(cJSON_GetObjectItem(last, "time")->valuedouble -
				   cJSON_GetObjectItem(first, "time")->valuedouble);
	CHECK_EQ(span, 156206); /* TraceX's Max Relative Ticks */
	cJSON_Delete(first);
	cJSON_Delete(last);

	struct synth_buf pf = export_hub(orig.hub, TT_EXPORT_PERFETTO, NULL, NULL, 0);
	check_perfetto(pf.p, txt, span);
	/* the daemon hands the source's reader to every export of a ThreadX target: a format
	 * without a registry comes out the same with it */
	struct synth_buf pf2 = export_hub(orig.hub, TT_EXPORT_PERFETTO, src, img, len);
	CHECK(pf2.len == pf.len && !memcmp(pf2.p, pf.p, pf.len));
	free(pf2.p);
	struct synth_buf trx = export_hub(orig.hub, TT_EXPORT_TRX, src, NULL, 0);
	check_trx(src, &orig, &trx, true);
	/* offline (tracetap decode FILE --to trx): the same from the source image */
	struct synth_buf trx3 = export_hub(orig.hub, TT_EXPORT_TRX, NULL, img, len);
	check_trx(src, &orig, &trx3, true);
	free(trx3.p);
	/* without the source's reader (a stream from the network): the mask from the stamps' own
	 * width, the objects the events name; the events still come back the same */
	struct synth_buf trx2 = export_hub(orig.hub, TT_EXPORT_TRX, NULL, NULL, 0);
	check_trx(src, &orig, &trx2, false);
	free(trx2.p);

	for (size_t i = 0; i < orig.n; i++)
		free(orig.json[i]);
	free(orig.json);
	free(pf.p);
	free(trx.p);
	free(txt);
	free(img);
	tt_threadx_free(src);
	tt_hub_free(orig.hub);
	return tt_test_done();
}
