/* tests/server/test_hub.c: the hub without any network: seq numbering, history, resume
 * exactly-once, history gaps, slow-client skip-ahead with exact ranges, filters, pause. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "../../proto/json.h"
#include "hub.h"
#include "synth.h"

#define MAXSEQ 200000

struct sink {
	unsigned char seen[MAXSEQ]; /* times each seq was accounted for (record or gap) */
	uint64_t last;              /* highest seq accounted so far (order check) */
	unsigned records, frames, status;
	unsigned slow_gaps, history_gaps, pause_gaps;
	uint64_t slow_lost;
	unsigned wakes;
	char last_name[64];
	uint64_t hole_from, hole_to; /* seqs with no record (tt_hub_publish_at): not lost */
};

static void account(struct sink *s, uint64_t from, uint64_t to)
{
	REQUIRE(to < MAXSEQ && from <= to);
	REQUIRE(from > s->last); /* in order, never twice */
	for (uint64_t q = from; q <= to; q++)
		s->seen[q]++;
	s->last = to;
}

static void take(struct sink *s, const struct tt_frame *f)
{
	cJSON *m = cJSON_ParseWithLength(f->data, f->len);
	if (!m)
		fprintf(stderr, "bad frame: %.*s\n", (int)f->len, f->data);
	REQUIRE(m);
	const char *type = cJSON_GetObjectItem(m, "type")->valuestring;
	s->frames++;
	if (!strcmp(type, "events")) {
		cJSON *recs = cJSON_GetObjectItem(m, "records"), *r;
		uint64_t first = (uint64_t)cJSON_GetObjectItem(m, "first")->valuedouble;
		uint64_t last = (uint64_t)cJSON_GetObjectItem(m, "last")->valuedouble;
		REQUIRE(cJSON_GetArraySize(recs) > 0);
		REQUIRE((uint64_t)cJSON_GetArrayItem(recs, 0)->child->next->next->valuedouble == first);
		cJSON_ArrayForEach(r, recs) {
			uint64_t seq = (uint64_t)cJSON_GetObjectItem(r, "seq")->valuedouble;
			cJSON *name = cJSON_GetObjectItem(r, "name");
			account(s, seq, seq);
			s->records++;
			if (name)
				snprintf(s->last_name, sizeof(s->last_name), "%s", name->valuestring);
			REQUIRE(!strcmp(cJSON_GetObjectItem(r, "target")->valuestring, "board1"));
		}
		REQUIRE(s->last == last);
	} else if (!strcmp(type, "gap")) {
		uint64_t from = (uint64_t)cJSON_GetObjectItem(m, "from")->valuedouble;
		uint64_t to = (uint64_t)cJSON_GetObjectItem(m, "to")->valuedouble;
		const char *reason = cJSON_GetObjectItem(m, "reason")->valuestring;
		uint64_t a = from > s->hole_from ? from : s->hole_from;
		uint64_t b = to < s->hole_to ? to : s->hole_to;
		uint64_t lost = to - from + 1 - (s->hole_from && a <= b ? b - a + 1 : 0);
		REQUIRE((uint64_t)cJSON_GetObjectItem(m, "lost")->valuedouble == lost);
		REQUIRE(lost > 0); /* a range of holes only is no loss: never reported */
		account(s, from, to);
		if (!strcmp(reason, "slow client")) {
			s->slow_gaps++;
			s->slow_lost += lost;
		} else if (!strcmp(reason, "history")) {
			s->history_gaps++;
		} else {
			REQUIRE(!strcmp(reason, "paused"));
			s->pause_gaps++;
		}
	} else {
		REQUIRE(!strcmp(type, "status"));
		s->status++;
	}
	cJSON_Delete(m);
}

static void drain(struct tt_hub_client *c, struct sink *s, unsigned max)
{
	struct tt_frame *f;

	while (max-- && (f = tt_hub_client_peek(c))) {
		take(s, f);
		tt_hub_client_pop(c);
	}
}

/* Every seq in [from, to] accounted exactly once. */
static void check_once(const struct sink *s, uint64_t from, uint64_t to)
{
	for (uint64_t q = from; q <= to; q++) {
		if (s->seen[q] != 1) {
			fprintf(stderr, "seq %" PRIu64 " seen %u times\n", q, s->seen[q]);
			REQUIRE(s->seen[q] == 1);
		}
	}
}

static void wake(struct tt_hub_client *c, void *arg)
{
	(void)c;
	((struct sink *)arg)->wakes++;
}

static struct tt_hub *mkhub(size_t history, size_t batch, size_t client_frames)
{
	struct tt_hub_config cfg = { .target = "board1", .format = "threadx", .probe = "file:x",
				     .history = history, .batch_records = batch,
				     .batch_bytes = 1 << 20,
				     .client_frames = client_frames };
	struct tt_hub *h;
	REQUIRE(tt_hub_new(&cfg, &h) == 0);
	return h;
}

static void publish(struct tt_hub *h, struct synth *src, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		REQUIRE(tt_hub_publish(h, synth_next(src)) != 0);
}

static void test_seq_and_batching(void)
{
	struct tt_hub *h = mkhub(1000, 64, 64);
	struct synth src = { 0 };
	struct sink *s = calloc(1, sizeof(*s));
	struct tt_hub_client *c;
	struct tt_hub_stats st;

	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	tt_hub_client_start(c, TT_HUB_LIVE, 0);
	publish(h, &src, 10);
	REQUIRE(tt_hub_client_peek(c) == NULL); /* batched until flush */
	tt_hub_flush(h);
	REQUIRE(s->wakes == 1);
	drain(c, s, 100);
	REQUIRE(s->frames == 1 && s->records == 10);
	publish(h, &src, 200); /* batches of 64 flush themselves */
	tt_hub_flush(h);
	drain(c, s, 100);
	REQUIRE(s->records == 210 && s->frames == 1 + 4);
	check_once(s, 1, 210);
	tt_hub_get_stats(h, &st);
	REQUIRE(st.last_seq == 210 && st.oldest_seq == 1 && st.history_records == 210);
	tt_hub_client_free(c);
	tt_hub_free(h);
	free(s);
}

static void test_history_and_resume(void)
{
	struct tt_hub *h = mkhub(100, 16, 64);
	struct synth src = { 0 };
	struct tt_hub_stats st;
	struct tt_hub_client *c;
	struct sink *s = calloc(1, sizeof(*s));

	publish(h, &src, 250);
	tt_hub_flush(h);
	tt_hub_get_stats(h, &st);
	REQUIRE(st.oldest_seq == 151 && st.last_seq == 250 && st.history_records == 100);

	/* Resume within history: exactly the missed records, then live. */
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	s->last = 199;
	tt_hub_client_start(c, TT_HUB_RESUME, 199);
	REQUIRE(s->wakes == 1);
	publish(h, &src, 5); /* live records while catching up: not duplicated */
	tt_hub_flush(h);
	drain(c, s, 1000);
	check_once(s, 200, 255);
	REQUIRE(s->history_gaps == 0 && s->records == 56);
	tt_hub_client_free(c);

	/* Resume from before the history: a history gap for exactly what is gone. */
	memset(s, 0, sizeof(*s));
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	s->last = 100;
	tt_hub_client_start(c, TT_HUB_RESUME, 100);
	drain(c, s, 1000);
	check_once(s, 101, 255);
	REQUIRE(s->history_gaps == 1 && s->records == 100); /* 156..255 */

	/* History overrun while catching up: the client reads one frame, the writer evicts the
	 * rest of what it has not read yet. */
	memset(s, 0, sizeof(*s));
	s->last = 155;
	tt_hub_client_start(c, TT_HUB_RESUME, 155); /* already got up to 255: nothing repeats */
	publish(h, &src, 10);
	tt_hub_flush(h);
	drain(c, s, 1000);
	check_once(s, 256, 265);
	REQUIRE(s->records == 10);
	tt_hub_client_free(c);

	memset(s, 0, sizeof(*s));
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	s->last = 170;
	tt_hub_client_start(c, TT_HUB_RESUME, 170); /* oldest is 166 now */
	drain(c, s, 1);                              /* 171..186 */
	publish(h, &src, 150);                       /* evicts up to 315 */
	tt_hub_flush(h);
	drain(c, s, 1000);
	check_once(s, 171, 415);
	REQUIRE(s->history_gaps == 1);
	tt_hub_get_stats(h, &st);
	REQUIRE(st.history_gaps >= 2);

	/* Newest N. */
	tt_hub_client_free(c);
	memset(s, 0, sizeof(*s));
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	s->last = 404;
	tt_hub_client_start(c, TT_HUB_NEWEST, 11);
	drain(c, s, 1000);
	REQUIRE(s->records == 11);
	check_once(s, 405, 415);

	/* A resume seq from a previous daemon run (beyond last): everything held, gap before. */
	tt_hub_client_free(c);
	memset(s, 0, sizeof(*s));
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	tt_hub_client_start(c, TT_HUB_RESUME, 1000000);
	drain(c, s, 1000);
	check_once(s, 1, 415);
	REQUIRE(s->history_gaps == 1 && s->records == 100);
	tt_hub_client_free(c);
	tt_hub_free(h);
	free(s);
}

static void test_slow_client(void)
{
	struct tt_hub *h = mkhub(100000, 100, 8);
	struct synth src = { 0 };
	struct tt_hub_client *fast, *slow;
	struct sink *sf = calloc(1, sizeof(*sf)), *ss = calloc(1, sizeof(*ss));
	size_t frames, bytes;
	struct tt_hub_stats st;

	REQUIRE(tt_hub_client_new(h, wake, sf, &fast) == 0);
	REQUIRE(tt_hub_client_new(h, wake, ss, &slow) == 0);
	tt_hub_client_start(fast, TT_HUB_LIVE, 0);
	tt_hub_client_start(slow, TT_HUB_LIVE, 0);
	for (int round = 0; round < 50; round++) {
		publish(h, &src, 100);
		tt_hub_flush(h);
		tt_hub_status_changed(h);
		drain(fast, sf, 1000);
		tt_hub_client_queued(slow, &frames, &bytes);
		REQUIRE(frames <= 8 + 2); /* bounded: events + one gap + one status */
		if (round == 20)
			drain(slow, ss, 3); /* reads a little, then stalls again */
	}
	check_once(sf, 1, 5000);
	REQUIRE(sf->records == 5000 && sf->slow_gaps == 0);
	REQUIRE(sf->status == 50);
	drain(slow, ss, 1000);
	check_once(ss, 1, 5000); /* every seq: a record or inside a slow-client gap, once */
	REQUIRE(ss->slow_gaps >= 1 && ss->slow_lost > 0);
	REQUIRE(ss->records + ss->slow_lost == 5000);
	REQUIRE(ss->status <= 3); /* status messages replace each other while queued */
	tt_hub_get_stats(h, &st);
	REQUIRE(st.slow_lost >= ss->slow_lost);
	printf("slow client: %u records, %u gap messages, %" PRIu64 " skipped\n", ss->records,
	       ss->slow_gaps, ss->slow_lost);
	tt_hub_client_free(fast);
	tt_hub_client_free(slow);
	tt_hub_free(h);
	free(sf);
	free(ss);
}

static unsigned count_filtered(struct tt_hub *h, const struct tt_hub_filter *flt, uint64_t n,
			       const char *expect_name)
{
	struct tt_hub_client *c;
	struct sink *s = calloc(1, sizeof(*s));
	unsigned r;

	REQUIRE(tt_hub_client_new(h, NULL, NULL, &c) == 0);
	REQUIRE(tt_hub_client_set_filter(c, flt) == 0);
	tt_hub_client_start(c, TT_HUB_NEWEST, n);
	s->last = 0;
	while (tt_hub_client_peek(c)) { /* records skip seqs: account by hand */
		struct tt_frame *f = tt_hub_client_peek(c);
		cJSON *m = cJSON_ParseWithLength(f->data, f->len), *rec;
		REQUIRE(m);
		cJSON_ArrayForEach(rec, cJSON_GetObjectItem(m, "records")) {
			const char *type = cJSON_GetObjectItem(rec, "type")->valuestring;
			s->records++;
			if (expect_name && !strcmp(type, "event"))
				REQUIRE(!strcmp(cJSON_GetObjectItem(rec, "name")->valuestring,
					      expect_name));
		}
		cJSON_Delete(m);
		tt_hub_client_pop(c);
	}
	r = s->records;
	tt_hub_client_free(c);
	free(s);
	return r;
}

static void test_filters(void)
{
	struct tt_hub *h = mkhub(100000, 1000, 64);
	struct synth src = { 0 };
	unsigned resumes = 0, user = 0, producer = 0, gaps = 0, workq = 0;

	for (unsigned i = 0; i < 3000; i++) {
		const struct tt_record *r = synth_next(&src);
		if (r->kind == TT_REC_GAP) {
			gaps++;
		} else {
			const struct tt_event *ev = &r->u.ev;
			resumes += ev->id == 1;
			user += ev->id >= 4096;
			producer += ev->ctx == TT_CTX_THREAD && ev->thread == synth_threads[0];
			workq += ev->id == 80;
		}
		tt_hub_publish(h, r);
	}
	tt_hub_flush(h);
	REQUIRE(gaps == 3);
	const char *resume[] = { "THREAD_RESUME" };
	struct tt_hub_filter f1 = { .names = resume, .nnames = 1 };
	REQUIRE(count_filtered(h, &f1, 3000, "THREAD_RESUME") == resumes + gaps);
	uint32_t ids[] = { 4096, 4097, 4098, 4099 };
	struct tt_hub_filter f2 = { .ids = ids, .nids = 4 };
	REQUIRE(count_filtered(h, &f2, 3000, "USER_EVENT") == user + gaps);
	const char *thr[] = { "producer" };
	struct tt_hub_filter f3 = { .threads = thr, .nthreads = 1 };
	REQUIRE(count_filtered(h, &f3, 3000, NULL) == producer + gaps);
	const char *thr2[] = { "0x20000500" };
	struct tt_hub_filter f3b = { .threads = thr2, .nthreads = 1 };
	REQUIRE(count_filtered(h, &f3b, 3000, NULL) == producer + gaps);
	struct tt_hub_filter f4 = { .text = "work_q" };
	REQUIRE(count_filtered(h, &f4, 3000, "QUEUE_SEND") == workq + gaps);
	/* Both criteria must match. */
	struct tt_hub_filter f5 = { .names = resume, .nnames = 1, .text = "QUEUE" };
	REQUIRE(count_filtered(h, &f5, 3000, NULL) == gaps);

	/* Live filtered delivery. */
	struct tt_hub_client *c;
	REQUIRE(tt_hub_client_new(h, NULL, NULL, &c) == 0);
	REQUIRE(tt_hub_client_set_filter(c, &f2) == 0);
	tt_hub_client_start(c, TT_HUB_LIVE, 0);
	publish(h, &src, 700);
	tt_hub_flush(h);
	unsigned n = 0;
	for (struct tt_frame *f; (f = tt_hub_client_peek(c)); tt_hub_client_pop(c)) {
		REQUIRE(memmem(f->data, f->len, "USER_EVENT", 10));
		REQUIRE(!memmem(f->data, f->len, "THREAD_RESUME", 13));
		n++;
	}
	REQUIRE(n == 1);
	tt_hub_client_free(c);
	tt_hub_free(h);
}

static void test_pause(void)
{
	struct tt_hub *h = mkhub(1000, 100, 64);
	struct synth src = { 0 };
	struct tt_hub_client *c;
	struct sink *s = calloc(1, sizeof(*s));

	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	tt_hub_client_start(c, TT_HUB_LIVE, 0);
	publish(h, &src, 10);
	tt_hub_flush(h);
	tt_hub_client_pause(c);
	publish(h, &src, 10);
	tt_hub_flush(h);
	tt_hub_status_changed(h); /* status still flows while paused */
	drain(c, s, 100);
	REQUIRE(s->records == 10 && s->status == 1);
	tt_hub_client_resume_live(c);
	publish(h, &src, 10);
	tt_hub_flush(h);
	drain(c, s, 100);
	check_once(s, 1, 30);
	REQUIRE(s->pause_gaps == 1 && s->records == 20);
	tt_hub_client_free(c);
	tt_hub_free(h);
	free(s);
}

/* A remote target's numbering: a gap record at 11 stands for 11..50, the next record is 51. */
static struct tt_hub *hole_hub(size_t history, uint64_t next, struct sink *s)
{
	struct tt_hub *h = mkhub(history, 16, 8);
	struct synth src = { 0 };
	struct tt_record gap = { .kind = TT_REC_GAP };

	gap.u.gap.lost = next - 11;
	gap.u.gap.exact = true;
	gap.u.gap.reason = "lost between the publisher and the broker";
	for (unsigned i = 0; i < 10; i++)
		REQUIRE(tt_hub_publish(h, synth_event(&src, i)) == i + 1);
	REQUIRE(tt_hub_publish_at(h, &gap, 11) == 11);
	REQUIRE(tt_hub_publish_at(h, synth_event(&src, 0), next) == next);
	REQUIRE(tt_hub_publish_at(h, synth_event(&src, 0), next) == 0); /* not above the last */
	for (uint64_t q = next + 1; q <= next + 99; q++)
		REQUIRE(tt_hub_publish(h, synth_event(&src, (unsigned)q)) == q);
	tt_hub_flush(h);
	s->hole_from = 12;
	s->hole_to = next - 1;
	return h;
}

/* A client started with how/arg on h: what it receives. */
static struct sink *hole_client(struct tt_hub *h, enum tt_hub_start how, uint64_t arg,
				uint64_t next)
{
	struct sink *s = calloc(1, sizeof(*s));
	struct tt_hub_client *c;

	s->hole_from = 12;
	s->hole_to = next - 1;
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	tt_hub_client_start(c, how, arg);
	drain(c, s, 100000);
	tt_hub_client_free(c);
	return s;
}

static int count_rec(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)seq, (void)json, (void)len;
	(*(unsigned *)arg)++;
	return 0;
}

static void expect_held(struct tt_hub *h, uint64_t last, uint64_t oldest, size_t records)
{
	struct tt_hub_stats st;

	tt_hub_get_stats(h, &st);
	REQUIRE(st.last_seq == last && st.oldest_seq == oldest && st.history_records == records);
}

/* A client started with how/arg gets `gaps` history gaps (take checks their lost), `records`
 * records, among them seq `seen` (0: no check). */
static void expect_client(struct tt_hub *h, enum tt_hub_start how, uint64_t arg, uint64_t next,
			  unsigned gaps, unsigned records, uint64_t seen)
{
	struct sink *s = hole_client(h, how, arg, next);

	if (s->history_gaps != gaps || s->records != records || (seen && s->seen[seen] != 1))
		fprintf(stderr, "start %d after %" PRIu64 ": %u gaps, %u records\n", (int)how, arg,
			s->history_gaps, s->records);
	REQUIRE(s->history_gaps == gaps && s->records == records && (!seen || s->seen[seen] == 1));
	free(s);
}

/* Held whole: the hole is never sent, counted or reported; a slow client skipped across it
 * is told of the records only. */
static void test_hole_held(void)
{
	struct sink *live = calloc(1, sizeof(*live));
	struct tt_hub *h = hole_hub(1000, 51, live);
	struct tt_hub_client *c;
	struct tt_hub_stats st;
	struct synth src = { 0 };
	struct tt_record gap = { .kind = TT_REC_GAP };
	unsigned n = 0;

	expect_held(h, 150, 1, 111);
	REQUIRE(tt_hub_history_foreach(h, count_rec, &n) == 0 && n == 111);
	n = 0;
	REQUIRE(tt_hub_history_range(h, 1, 12, count_rec, &n, NULL) == 52 && n == 12);
	expect_client(h, TT_HUB_RESUME, 0, 51, 0, 111, 11);
	expect_client(h, TT_HUB_RESUME, 11, 51, 0, 100, 51); /* after the gap record */
	expect_client(h, TT_HUB_RESUME, 50, 51, 0, 100, 51); /* from inside the hole */
	expect_client(h, TT_HUB_NEWEST, 101, 51, 0, 101, 11);
	REQUIRE(tt_hub_client_new(h, wake, live, &c) == 0);
	tt_hub_client_start(c, TT_HUB_LIVE, 0);
	gap.u.gap.exact = true, gap.u.gap.lost = 100, gap.u.gap.reason = "x";
	REQUIRE(tt_hub_publish_at(h, &gap, 151) == 151);
	REQUIRE(tt_hub_publish_at(h, synth_event(&src, 0), 251) == 251);
	live->hole_from = 152, live->hole_to = 250;
	for (unsigned i = 0; i < 2000; i++)
		tt_hub_publish(h, synth_event(&src, i));
	tt_hub_flush(h);
	drain(c, live, 100000);
	tt_hub_get_stats(h, &st);
	REQUIRE(live->slow_gaps > 0 && live->slow_lost == st.slow_lost && live->last == 2251);
	REQUIRE(live->records + live->slow_lost == 2002);
	tt_hub_client_free(c);
	tt_hub_free(h);
	free(live);
}

/* A hole takes no room in history, eviction steps over it (the oldest seq held is a record),
 * a history gap counts records only, resuming after an evicted hole is no loss. */
static void test_hole_evicted(void)
{
	struct sink *live = calloc(1, sizeof(*live));
	struct synth src = { 0 };
	struct tt_hub *h = mkhub(64, 16, 8);

	for (unsigned i = 1; i <= 11; i++)
		REQUIRE(tt_hub_publish(h, synth_event(&src, i)) == i);
	REQUIRE(tt_hub_publish_at(h, synth_event(&src, 0), 51) == 51);
	for (unsigned i = 52; i <= 103; i++) /* 1..11 and 51..103 fill the 64 slots */
		REQUIRE(tt_hub_publish(h, synth_event(&src, i)) == i);
	expect_held(h, 103, 1, 64);
	REQUIRE(tt_hub_publish(h, synth_event(&src, 0)) == 104); /* evicts 1 */
	expect_held(h, 104, 2, 64);
	for (unsigned i = 105; i <= 114; i++) /* evicts 2..11 */
		REQUIRE(tt_hub_publish(h, synth_event(&src, i)) == i);
	expect_held(h, 114, 51, 64);
	tt_hub_flush(h);
	expect_client(h, TT_HUB_RESUME, 11, 51, 0, 64, 51);
	expect_client(h, TT_HUB_RESUME, 5, 51, 1, 64, 6); /* 6..11 lost: lost = 6 */
	tt_hub_free(h);

	h = hole_hub(64, 51, live);
	expect_held(h, 150, 87, 64);
	expect_client(h, TT_HUB_RESUME, 0, 51, 1, 64, 86); /* lost = 86 - the hole's 39 */
	tt_hub_free(h);

	h = hole_hub(128, 150011, live); /* longer than the history: evicts nothing */
	expect_held(h, 150110, 1, 111);
	expect_client(h, TT_HUB_RESUME, 0, 150011, 0, 111, 150110);
	expect_client(h, TT_HUB_RESUME, 11, 150011, 0, 100, 150011);
	expect_client(h, TT_HUB_NEWEST, 105, 150011, 0, 105, 7);
	tt_hub_free(h);
	free(live);
}

/* More holes than are kept one by one (65536): those before the history are folded; the
 * records held and the holes among them still count exactly. */
static void test_hole_fold(void)
{
	struct synth src = { 0 };
	struct tt_hub *h = mkhub(64, 16, 8);
	unsigned n = 0;

	for (uint64_t q = 1; q < 2 * 70000; q += 2)
		REQUIRE(tt_hub_publish_at(h, synth_event(&src, 0), q) == q);
	tt_hub_flush(h);
	expect_held(h, 139999, 139999 - 2 * 63, 64);
	REQUIRE(tt_hub_history_range(h, 1, 1000, count_rec, &n, NULL) == 140000 && n == 64);
	struct sink *s = calloc(1, sizeof(*s));
	struct tt_hub_client *c;
	REQUIRE(tt_hub_client_new(h, wake, s, &c) == 0);
	tt_hub_client_start(c, TT_HUB_RESUME, 139999 - 2 * 10);
	drain(c, s, 1000);
	REQUIRE(s->records == 10 && s->frames == 1 && s->history_gaps == 0);
	tt_hub_client_free(c);
	free(s);
	tt_hub_free(h);
}

/* A target's name goes whole into every record: one the wire cannot carry makes no hub. */
static void test_name_bounds(void)
{
	char name[TT_JSON_MAX_NAME + 2];
	struct tt_hub_config cfg = { .target = name, .format = "threadx" };
	struct tt_hub *h;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	REQUIRE(tt_hub_new(&cfg, &h) == -ENAMETOOLONG);
	name[TT_JSON_MAX_NAME] = 0;
	REQUIRE(tt_hub_new(&cfg, &h) == 0);
	REQUIRE(!strcmp(tt_hub_target(h), name));
	tt_hub_free(h);
}

static int count_cb(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)seq;
	(void)json;
	(void)len;
	++*(unsigned *)arg;
	return 0;
}

/* What a broker sends the hub: a seq at the ceiling, beyond it, and names that die with their
 * message. The hub refuses seqs over TT_HUB_SEQ_MAX (seq + 1 can never wrap), a client resuming
 * or exporting from there ends, and the names a filter compares are the hub's own copies. */
static void test_hostile_origin(void)
{
	struct tt_hub *h = mkhub(1000, 100, 64);
	struct tt_record ev = { .kind = TT_REC_EVENT };
	char name[32];
	struct tt_hub_client *c;
	unsigned n = 0, visited = 0;

	snprintf(name, sizeof(name), "REMOTE_NAME");
	ev.u.ev.name = name;
	ev.u.ev.id = 7;
	REQUIRE(tt_hub_publish_at(h, &ev, 5) == 5);
	memset(name, 'x', sizeof(name) - 1); /* the message that held it is gone */
	REQUIRE(tt_hub_publish_at(h, &ev, UINT64_MAX) == 0);
	REQUIRE(tt_hub_publish_at(h, &ev, TT_HUB_SEQ_MAX + 1) == 0);
	snprintf(name, sizeof(name), "OTHER");
	REQUIRE(tt_hub_publish_at(h, &ev, TT_HUB_SEQ_MAX) == TT_HUB_SEQ_MAX);
	REQUIRE(tt_hub_publish(h, &ev) == 0); /* nothing past the ceiling */
	tt_hub_flush(h);
	const char *want[] = { "REMOTE_NAME" };
	struct tt_hub_filter f = { .names = want, .nnames = 1 };
	REQUIRE(tt_hub_client_new(h, NULL, NULL, &c) == 0);
	REQUIRE(tt_hub_client_set_filter(c, &f) == 0);
	tt_hub_client_start(c, TT_HUB_RESUME, 0);
	for (struct tt_frame *fr; (fr = tt_hub_client_peek(c)) && n < 10; tt_hub_client_pop(c))
		n += memmem(fr->data, fr->len, "REMOTE_NAME", 11) != NULL;
	REQUIRE(n == 1);
	REQUIRE(!tt_hub_client_peek(c));
	tt_hub_client_free(c);
	REQUIRE(tt_hub_history_range(h, 1, SIZE_MAX, count_cb, &visited, NULL) ==
		TT_HUB_SEQ_MAX + 1);
	REQUIRE(visited == 2);
	tt_hub_free(h);
}

int main(void)
{
	test_hostile_origin();
	test_name_bounds();
	test_seq_and_batching();
	test_history_and_resume();
	test_slow_client();
	test_filters();
	test_pause();
	test_hole_held();
	test_hole_evicted();
	test_hole_fold();
	printf("hub: ok\n");
	return tt_test_done();
}
