/* tests/unit/test_threadx_live.c: the ThreadX reader against a writer that stores entries in
 * ThreadX's exact order: attach/history, polls across the wrap, laps (exact and lower-bound
 * gap counts), resets, torn slots, slots overwritten during a read, back-patched entries. */
#include <errno.h>
#include <stdlib.h>

#include "../tt_test.h"
#include "txtest.h"
#include "../../proto/threadx_int.h" /* TT_TX_AHEAD_NS */

#define BUF (TXT_BASE + 0x1000)

static uint32_t buf_size(uint32_t nent, uint32_t nreg)
{
	return 48 + nreg * 48 + nent * 32;
}

static void setup(struct txt *t, uint32_t nent, const struct tt_threadx_config *cfg)
{
	txt_init(t, false);
	CHECK_EQ(txw_enable(&t->w, BUF, buf_size(nent, 4), 4), 0);
	CHECK_EQ(t->w.nent, nent);
	txt_reader(t, cfg);
}

/* Every user-event seq follows the previous one, with exact gaps accounted for exactly and
 * inexact gaps as lower bounds; nothing is duplicated or stale. */
static void check_stream(const struct txt_log *l, uint32_t first_seq, uint32_t last_seq)
{
	uint64_t prev = (uint64_t)first_seq - 1, lost = 0;
	bool have_gap = false, exact = true;
	for (size_t i = 0; i < l->n; i++) {
		const struct txt_rec *r = &l->v[i];
		if (r->kind == TT_REC_GAP) {
			have_gap = true;
			lost += r->lost;
			exact = exact && r->exact;
			continue;
		}
		if (r->kind != TT_REC_EVENT || r->ev.id != TXT_USER)
			continue;
		uint64_t s = r->raw[4];
		if (!have_gap)
			CHECK_EQ(s, prev + 1);
		else if (exact)
			CHECK_EQ(s, prev + 1 + lost);
		else
			CHECK(s >= prev + 1 + lost);
		prev = s;
		have_gap = false;
		lost = 0;
		exact = true;
	}
	CHECK_EQ(prev, last_seq);
}

static void test_attach_partial_and_poll(void)
{
	struct txt t;
	setup(&t, 16, NULL);
	for (uint32_t s = 1; s <= 5; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	/* history: the two RUNNING events of tx_trace_enable, then 1..5 */
	CHECK_EQ(t.log.n, 7);
	CHECK_STR(t.log.v[0].name, "RUNNING");
	CHECK_EQ(t.log.v[0].ev.ctx, TT_CTX_INIT);
	CHECK_STR(t.log.v[1].name, "RUNNING");
	CHECK(txt_seq_range(&t.log, 1, 5));
	CHECK_EQ(tt_threadx_stats(t.rd)->capacity, 16);
	/* the first idle poll: current (4), then the anchor re-read (32); after a poll that found
	 * nothing, current alone (4), and every 4th the anchor (32) + current (4) */
	txt_log_clear(&t.log);
	static const unsigned idle_bytes[] = { 36, 4, 4, 36, 4, 4, 4, 36 };
	for (unsigned i = 0; i < sizeof(idle_bytes) / sizeof(idle_bytes[0]); i++) {
		uint64_t before = tt_threadx_stats(t.rd)->bytes_planned;
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
		CHECK_EQ(tt_threadx_stats(t.rd)->bytes_planned - before, idle_bytes[i]);
	}
	CHECK_EQ(t.log.n, 0);
	/* 12 more: the poll reads across the end of the ring (two ranges) */
	for (uint32_t s = 6; s <= 17; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 6, 17));
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 0);
	CHECK_EQ(tt_threadx_stats(t.rd)->last_new, 12);
	txt_free(&t);
}

static void test_attach_empty_and_start_at_now(void)
{
	struct txt t;
	setup(&t, 8, NULL);
	/* an "empty" buffer: only never-used slots (wipe the two RUNNING events) */
	for (uint32_t a = t.w.ent_start; a < t.w.ent_end; a += 32)
		txw_store32(&t.w, a, 0);
	txw_store32(&t.w, t.w.hdr + 32, t.w.ent_start);
	t.w.cur = t.w.ent_start;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 0);
	txt_user(&t, 1);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 1, 1));
	/* a lap of an empty-at-attach buffer is seen through the never-used anchor slot */
	txt_log_clear(&t.log);
	for (uint32_t s = 2; s <= 2 + 8 * 3; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 1);
	check_stream(&t.log, 2, 26);
	txt_free(&t);

	struct tt_threadx_config cfg = { .start_at_now = true };
	setup(&t, 16, &cfg);
	for (uint32_t s = 1; s <= 5; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 0);
	txt_user(&t, 6);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 6, 6));
	txt_free(&t);
}

static void test_attach_wrapped_and_torn(void)
{
	struct txt t;
	setup(&t, 16, NULL);
	for (uint32_t s = 1; s <= 40; s++)
		txt_user(&t, s);
	/* 42 events written; the ring holds the last 16 (seq 25..40); the oldest, at current,
	 * may be mid-rewrite in a live target and is never published */
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 26, 40));
	CHECK_EQ(t.log.n, 15);
	txt_free(&t);

	/* a writer half way through storing an entry at current: thread and priority words new,
	 * the rest stale */
	setup(&t, 16, NULL);
	for (uint32_t s = 1; s <= 40; s++)
		txt_user(&t, s);
	txw_store32(&t.w, t.w.cur + 0, 0x4444);
	txw_store32(&t.w, t.w.cur + 4, txw_prio_word(9, 9));
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 26, 40));
	for (size_t i = 0; i < t.log.n; i++)
		CHECK(t.log.v[i].ev.thread != 0x4444);
	/* steady state: N-1 new entries make the read include the slot at current (the anchor);
	 * tear it: the anchor is then untrustworthy, the N-1 new ones are still all published */
	txt_log_clear(&t.log);
	txw_store32(&t.w, t.w.cur + 0, 0x1000); /* finish the store as the writer would */
	for (uint32_t s = 41; s <= 55; s++)
		txt_user(&t, s);
	txw_store32(&t.w, t.w.cur + 0, 0x4444);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	check_stream(&t.log, 41, 55);
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 0); /* counter time stamps prove nothing was lost */
	txt_free(&t);
}

/* Lapped by `buffers` whole buffers (+3) between two polls, counter time stamps: exact count. */
static void lap(uint32_t buffers)
{
	struct txt t;
	setup(&t, 16, NULL);
	uint32_t s = 1;
	for (; s <= 10; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	uint32_t last = s + buffers * 16 + 3;
	for (; s <= last; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
	CHECK(g != NULL);
	if (g) {
		CHECK_STR(g->reason, "lapped");
		CHECK(g->exact);
		uint32_t firstseq = 0;
		txt_seqs(&t.log, &firstseq, 1);
		CHECK_EQ(g->lost, firstseq - 10 - 1);
		CHECK_EQ(g->lost, buffers * 16 + 4 - 15); /* written - emitted */
		/* the gap comes first, then the buffer's entries oldest-first */
		CHECK(&t.log.v[0] == g);
	}
	check_stream(&t.log, 11, last);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 15);
	CHECK_EQ(tt_threadx_stats(t.rd)->gaps, 1);
	/* and the reader carries on normally */
	txt_log_clear(&t.log);
	txt_user(&t, last + 1);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, last + 1, last + 1));
	txt_free(&t);
}

static uint32_t irregular_clock(void *arg)
{
	uint32_t *c = arg;
	*c += 17 + (*c % 7);
	return *c;
}

static void test_laps(void)
{
	lap(1);
	lap(10);
	/* irregular clock */
	struct txt t;
	uint32_t clk = 0;
	setup(&t, 16, NULL);
	t.w.time_mode = TXW_TIME_CALLBACK;
	t.w.now = irregular_clock;
	t.w.now_arg = &clk;
	for (uint32_t s = 1; s <= 10; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	for (uint32_t buffers = 1; buffers <= 10; buffers += 9) {
		txt_log_clear(&t.log);
		uint32_t firstseq = 0;
		static uint32_t next = 11;
		uint32_t last = next + buffers * 16 + 3;
		for (uint32_t s = next; s <= last; s++)
			txt_user(&t, s);
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
		const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
		CHECK(g != NULL);
		txt_seqs(&t.log, &firstseq, 1);
		if (g) {
			uint64_t truth = firstseq - next;
			CHECK_EQ(g->exact, false);
			CHECK(g->lost <= truth);
			CHECK_EQ((truth - g->lost) % 16, 0);
			if (buffers == 1)
				CHECK_EQ(g->lost, truth); /* one lap: the bound is the count */
		}
		check_stream(&t.log, next, last);
		next = last + 1;
	}
	txt_free(&t);
}

static void test_resets(void)
{
	struct txt t;
	/* re-enable: thread pointers cleared under the anchor */
	setup(&t, 16, NULL);
	for (uint32_t s = 1; s <= 8; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	CHECK_EQ(txw_enable(&t.w, BUF, buf_size(16, 4), 4), 0);
	for (uint32_t s = 100; s <= 102; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.v[0].kind, TT_REC_RESET);
	CHECK_SUBSTR(t.log.v[0].reason, "re-enabled");
	CHECK_EQ(t.log.n, 1 + 2 + 3);
	CHECK_STR(t.log.v[1].name, "RUNNING");
	CHECK(txt_seq_range(&t.log, 100, 102));
	CHECK_EQ(tt_threadx_stats(t.rd)->resets, 1);

	/* re-enable whose new entries overwrite the anchor slot: looks like a lap until the full
	 * read finds never-used slots */
	txt_log_clear(&t.log);
	CHECK_EQ(txw_enable(&t.w, BUF, buf_size(16, 4), 4), 0);
	for (uint32_t s = 200; s <= 206; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.v[0].kind, TT_REC_RESET);
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 0);
	CHECK(txt_seq_range(&t.log, 200, 206));
	txt_free(&t);

	/* header changed (seen by the periodic full-header read) */
	struct tt_threadx_config cfg = { .header_every = 1 };
	setup(&t, 16, &cfg);
	txt_user(&t, 1);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	CHECK_EQ(txw_enable(&t.w, BUF, buf_size(20, 2), 2), 0);
	txt_user(&t, 2);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.v[0].kind, TT_REC_RESET);
	CHECK_STR(t.log.v[0].reason, "header changed");
	CHECK(txt_seq_range(&t.log, 2, 2));
	CHECK_EQ(tt_threadx_stats(t.rd)->capacity, 20);

	/* id gone: a reset, then errors naming the id until tracing is back */
	txt_log_clear(&t.log);
	txw_store32(&t.w, BUF, 0);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 1);
	CHECK_STR(t.log.v[0].reason, "trace id gone");
	CHECK_EQ(txt_cycle(&t), -EPROTO);
	CHECK_SUBSTR(tt_threadx_error(t.rd), "id 0x00000000 is not 0x54585442");
	txt_log_clear(&t.log);
	CHECK_EQ(txw_enable(&t.w, BUF, buf_size(16, 4), 4), 0);
	txt_user(&t, 3);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 3);
	CHECK(txt_seq_range(&t.log, 3, 3));
	CHECK_STR(tt_threadx_error(t.rd), "");

	/* garbage in the current pointer while polling: an error, then recovery */
	txt_log_clear(&t.log);
	txw_store32(&t.w, BUF + 32, t.w.ent_start + 4);
	struct tt_threadx_config c2 = { .header_every = 100 };
	txt_reader(&t, &c2);
	txw_store32(&t.w, BUF + 32, t.w.cur);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	txw_store32(&t.w, BUF + 32, t.w.ent_end + 64);
	CHECK_EQ(txt_cycle(&t), -EPROTO);
	CHECK_SUBSTR(tt_threadx_error(t.rd), "current pointer");
	txw_store32(&t.w, BUF + 32, t.w.cur);
	txt_user(&t, 4);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 4, 4));
	CHECK_EQ(txt_count(&t.log, TT_REC_RESET), 0);
	txt_free(&t);
}

/* The test probe plays the writer during a read: just before the anchor re-read (the 32-byte
 * range before the final 4-byte current read of a poll), insert `during` events. */
static uint32_t during, during_seq;
static void write_during_read(struct txt *t, unsigned i, const struct tt_plan *p)
{
	/* a poll's entry read [slots][anchor]: before its last range, the anchor */
	bool entries = p->r[0].len > 32 || (p->n == 3 && p->r[1].kind == TT_RANGE_TO_PTR);
	if (p->n >= 2 && i == p->n - 1 && p->r[i].len == 32 && entries && during) {
		for (uint32_t k = 0; k < during; k++)
			txt_user(t, during_seq++);
		during = 0;
	}
}

/* Between the two ranges of a wrapped read the writer overwrites what the second range will
 * return: those slots must not be published as old entries. */
static void write_between_ranges(struct txt *t, unsigned i, const struct tt_plan *p)
{
	if (i == 1 && p->n == 3 && during) { /* [slots][slots][anchor] */
		for (uint32_t k = 0; k < during; k++)
			txt_user(t, during_seq++);
		during = 0;
	}
}

static void test_overwritten_during_read(void)
{
	struct txt t;
	setup(&t, 16, NULL);
	for (uint32_t s = 1; s <= 3; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	for (uint32_t s = 4; s <= 13; s++)
		txt_user(&t, s);
	/* 10 new slots are read, then 8 events are written before the anchor is re-read: the
	 * writer reached the anchor, so the copy may hold overwritten slots: a full read follows in
	 * the same cycle; seq 4..6 are gone (6 sat at current: possibly torn), counted exactly */
	t.hook = write_during_read;
	during = 8;
	during_seq = 14;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
	CHECK(g != NULL);
	if (g) {
		CHECK_STR(g->reason, "overwritten during read");
		CHECK_EQ(g->lost, 3);
		CHECK(g->exact);
		CHECK(g == &t.log.v[0]);
	}
	CHECK(txt_seq_range(&t.log, 7, 21));
	txt_log_clear(&t.log);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 0);

	for (uint32_t s = 22; s <= 31; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 22, 31));
	txt_log_clear(&t.log);
	during_seq = 32;

	/* writer runs between the two ranges of a wrapped read */
	txt_log_clear(&t.log);
	for (uint32_t s = 32; s <= 36; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	for (uint32_t s = 37; s <= 50; s++) /* slots 6..15 and 0..3: two ranges */
		txt_user(&t, s);
	t.hook = write_between_ranges;
	during = 6;
	during_seq = 51;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(during, 0);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	check_stream(&t.log, 32, 56);
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 1);
	for (size_t i = 0; i < t.log.n; i++) /* no seq twice */
		for (size_t j = i + 1; j < t.log.n; j++)
			if (t.log.v[i].kind == TT_REC_EVENT && t.log.v[j].kind == TT_REC_EVENT)
				CHECK(t.log.v[i].raw[4] != t.log.v[j].raw[4]);
	txt_free(&t);
}

static void test_patched_entries(void)
{
	struct txt t;
	setup(&t, 32, NULL);
	txw_register(&t.w, 0x1000, 1, "main", 0, 0, 5);
	txw_register(&t.w, 0x2000, 1, "worker", 0, 0, 6);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	/* resume with next_thread not known yet, patched after commit as ThreadX does */
	txt_user(&t, 1);
	uint32_t ts = 0;
	uint32_t e = txw_insert(&t.w, 0x1000, txw_prio_word(5, 5), 1, 0x2000, 3, 0x20001000, 0, &ts);
	txt_user(&t, 2);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 1); /* seq 1; the resume and everything after it are held */
	CHECK(txt_seq_range(&t.log, 1, 1));
	CHECK_EQ(tt_threadx_stats(t.rd)->held, 2); /* the poller may read again soon for them */
	CHECK(txw_patch(&t.w, e, 4, 0x2000, ts));
	txt_log_clear(&t.log);
	uint64_t rr = tt_threadx_stats(t.rd)->rereads;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(tt_threadx_stats(t.rd)->rereads - rr, 2 * 32);
	CHECK_EQ(tt_threadx_stats(t.rd)->held, 0);
	CHECK_EQ(t.log.n, 2);
	CHECK_STR(t.log.v[0].name, "THREAD_RESUME");
	CHECK_EQ(t.log.v[0].ev.args[3].value, 0x2000);
	CHECK_STR(t.log.v[0].arg_text[3], "worker");
	CHECK_STR(t.log.v[0].arg_name[3], "next_thread");
	CHECK(txt_seq_range(&t.log, 2, 2));
	/* held once only: an idle target still publishes a held entry on the next poll */
	txt_log_clear(&t.log);
	e = txw_insert(&t.w, 0x1000, txw_prio_word(5, 5), 20, 0x3000, 0, 64, 0, &ts);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 0);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 1);
	CHECK_STR(t.log.v[0].name, "BYTE_ALLOCATE");
	/* a patchable event older than the hold window is published at once */
	txt_log_clear(&t.log);
	txw_insert(&t.w, 0x1000, txw_prio_word(5, 5), 2, 0x1000, 3, 0, 0, NULL);
	for (uint32_t s = 3; s <= 12; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 11);
	CHECK_STR(t.log.v[0].name, "THREAD_SUSPEND");
	txt_free(&t);
}

/* Measures the hold policy's cost on a context-switch-heavy workload: one resume every 4 events,
 * 8 events per poll. Prints bytes per poll (for proto/README-threadx.md) and checks bounds. */
static void hold_cost(unsigned window)
{
	struct txt t;
	struct tt_threadx_config cfg = { .hold_window = window };
	setup(&t, 256, &cfg);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	uint32_t seq = 1;
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	uint64_t b0 = st->bytes_planned, p0 = st->polls;
	for (int poll = 0; poll < 200; poll++) {
		for (int k = 0; k < 8; k++) {
			if (k % 4 == 1)
				txw_insert(&t.w, 0x1000, txw_prio_word(5, 5), 1, 0x1000, 0, 0, 0x1000, NULL);
			else
				txt_user(&t, seq++);
		}
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	}
	uint64_t polls = st->polls - p0;
	printf("hold_window %u: %.1f bytes re-read per poll (%.1f%% of %.1f bytes/poll) at 8 events/poll\n",
	       window, (double)st->rereads / (double)polls,
	       100.0 * (double)st->rereads / (double)(st->bytes_planned - b0),
	       (double)(st->bytes_planned - b0) / (double)polls);
	CHECK(window < 4 || st->rereads > 0);
	CHECK(st->rereads / polls <= 8 * 32);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE); /* publishes what the last poll held */
	CHECK(txt_seq_range(&t.log, 1, seq - 1));
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 200 * 8 + 2);
	txt_free(&t);
}

static void test_hold_cost(void)
{
	for (unsigned w = 1; w <= 8; w *= 2)
		hold_cost(w);
}

/* The writer runs a random number of events before every range of every plan (sometimes
 * several buffers' worth): over many polls the published stream must have no duplicate and no
 * stale entry, and with counter time stamps every gap must be exact. */
static uint32_t rnd_state = 12345, rnd_seq;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static void random_writer(struct txt *t, unsigned i, const struct tt_plan *p)
{
	(void)i;
	(void)p;
	uint32_t r = rnd() % 100, n = r < 60 ? rnd() % 4 : r < 90 ? rnd() % 20 : rnd() % 70;
	for (uint32_t k = 0; k < n; k++)
		txt_user(t, rnd_seq++);
}

static void test_random_interleaving(void)
{
	struct txt t;
	setup(&t, 16, NULL);
	rnd_seq = 1;
	t.hook = random_writer;
	for (int poll = 0; poll < 3000; poll++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	t.hook = NULL;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	/* the attach history starts wherever the buffer did; a gap before it is the lower bound of
	 * what attach attempts the writer defeated saw written (N-1 each), not part of the stream */
	size_t i0 = 0;
	uint64_t lead = 0;
	while (i0 < t.log.n && t.log.v[i0].kind == TT_REC_GAP) {
		CHECK(!t.log.v[i0].exact);
		lead += t.log.v[i0++].lost;
	}
	const struct txt_log view = { t.log.v + i0, t.log.n - i0, 0 };
	uint32_t firstseq = 0;
	txt_seqs(&view, &firstseq, 1);
	CHECK(firstseq >= lead);
	check_stream(&view, firstseq, rnd_seq - 1);
	for (size_t i = 0; i < view.n; i++)
		if (view.v[i].kind == TT_REC_GAP)
			CHECK(view.v[i].exact);
	CHECK_EQ(txt_count(&t.log, TT_REC_RESET), 0);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	printf("random writer: %u events written, %llu published, %llu lost in %llu gaps\n",
	       rnd_seq - 1, (unsigned long long)st->events, (unsigned long long)st->lost,
	       (unsigned long long)st->gaps);
	CHECK_EQ(txt_count(&view, TT_REC_EVENT) - (view.v[0].kind == TT_REC_EVENT &&
		 view.v[0].ev.id == 6 ? 2 : 0) + st->lost - lead, rnd_seq - firstseq);
	txt_free(&t);
}

/* A poll's entry read ends at the anchor; an idle poll reads current alone (every 4th the anchor
 * and current) and a poll within TT_TX_AHEAD_NS of one that read current last starts from it:
 * the plans per cycle, and the same exact stream with a writer in every read. */
static unsigned plans;
static bool ahead_writes;
static void count_plans(struct txt *t, unsigned i, const struct tt_plan *p)
{
	if (i == 0)
		plans++;
	(void)p;
	/* mostly a few events per range read, now and then a lap of the 64-slot buffer */
	for (uint32_t k = !ahead_writes ? 0 : rnd() % 100 < 2 ? 70 : rnd() % 8; k > 0; k--)
		txt_user(t, rnd_seq++);
}

/* A whole lap of the 64-slot buffer before an idle poll's current read (alone, or after the
 * anchor): current is back where it was. */
static unsigned lap_plan_n;
static void lap_before_current(struct txt *t, unsigned i, const struct tt_plan *p)
{
	if (lap_plan_n && p->n == lap_plan_n && i == p->n - 1) {
		for (uint32_t k = 0; k < 64; k++)
			txt_user(t, rnd_seq++);
		lap_plan_n = 0;
	}
}

static unsigned cycle_at(struct txt *t, uint64_t ns)
{
	plans = 0;
	tt_threadx_set_host_time(t->rd, ns);
	CHECK_EQ(txt_cycle(t), TT_THREADX_DONE);
	return plans;
}

static void test_cur_ahead(void)
{
	struct txt t;
	const uint64_t ms = 1000000;
	/* a poll that reads current and then entries: one plan when the reader reads them as
	 * one (TXT_PTR_RANGES, txtest.c), else two */
	const unsigned two = getenv("TXT_PTR_RANGES") ? 1 : 2;
	setup(&t, 64, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE); /* attach: the two RUNNING events */
	txt_user(&t, 1);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE); /* its thread is not in the registry: noted */
	t.hook = count_plans;
	for (uint32_t i = 2; i <= 3; i++)
		txt_user(&t, i);
	CHECK_EQ(cycle_at(&t, 1000 * ms), two); /* no poll before this one read current */
	for (uint32_t i = 4; i <= 8; i++)
		txt_user(&t, i);
	/* back to back after a poll with entries: that poll ended at its anchor, not at current,
	 * so current is read afresh */
	CHECK_EQ(cycle_at(&t, 1001 * ms), two);
	for (uint32_t i = 9; i <= 10; i++)
		txt_user(&t, i);
	CHECK_EQ(cycle_at(&t, 1004 * ms), two);
	/* nothing new: current, then the anchor; then current alone, the whole poll */
	CHECK_EQ(cycle_at(&t, 1005 * ms), two);
	CHECK_EQ(cycle_at(&t, 1010 * ms), 1);
	/* an idle poll read current last: a poll within TT_TX_AHEAD_NS of it starts from that
	 * current and reads the entries at once, one later reads it afresh */
	txt_user(&t, 11);
	CHECK_EQ(cycle_at(&t, 1010 * ms + TT_TX_AHEAD_NS), 1);
	CHECK_EQ(t.log.n > 0 ? t.log.v[t.log.n - 1].raw[4] : 0, 10); /* 11 after that current */
	CHECK_EQ(cycle_at(&t, 1010 * ms + 2 * TT_TX_AHEAD_NS + 1), 2);
	CHECK(txt_seq_range(&t.log, 1, 11));
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 0);
	/* no host time (tracetap decode, a reader that never gets one): current first, always */
	tt_threadx_set_host_time(t.rd, 0);
	plans = 0;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(plans, two);
	/* a whole lap while idle, before current is read alone or after the anchor: that poll
	 * publishes nothing (current is where it was); an anchored idle poll at most
	 * TT_TX_IDLE_ANCHOR polls later finds the anchor rewritten and counts the loss */
	rnd_seq = 12;
	for (unsigned n = 1; n <= 2; n++) {
		uint32_t from = rnd_seq;
		for (unsigned k = 0; k < 2; k++)
			cycle_at(&t, (1030 + k) * ms); /* idle polls */
		txt_log_clear(&t.log);
		t.hook = lap_before_current;
		lap_plan_n = n;
		for (unsigned k = 0; k < 2 * TT_TX_IDLE_ANCHOR && lap_plan_n; k++)
			cycle_at(&t, (1040 + 5 * k) * ms);
		CHECK_EQ(rnd_seq, from + 64);
		CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 0);
		t.hook = count_plans;
		for (unsigned k = 0; k < TT_TX_IDLE_ANCHOR + 1; k++)
			cycle_at(&t, (1100 + 5 * k) * ms);
		check_stream(&t.log, from, rnd_seq - 1);
		CHECK_MSG(txt_count(&t.log, TT_REC_GAP) >= 1, "a lap before a read of %u went unnoticed", n);
	}
	txt_free(&t);

	/* a writer active during every read, polls 0.5 ms apart: the stream stays exact (gaps
	 * counted exactly; a lap or an overwritten anchor means a full read) */
	setup(&t, 64, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_user(&t, 0);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	rnd_seq = 1;
	t.hook = count_plans;
	ahead_writes = true;
	unsigned single = 0, n = 3000;
	for (unsigned poll = 0; poll < n; poll++)
		single += cycle_at(&t, 2000 * ms + poll * ms / 2) == 1;
	ahead_writes = false;
	cycle_at(&t, 4000 * ms);
	cycle_at(&t, 4000 * ms + ms / 2);
	check_stream(&t.log, 1, rnd_seq - 1);
	for (size_t i = 0; i < t.log.n; i++)
		if (t.log.v[i].kind == TT_REC_GAP)
			CHECK(t.log.v[i].exact);
	CHECK_EQ(txt_count(&t.log, TT_REC_RESET), 0);
	printf("current ahead: %u of %u polls were one plan; %u events written, %zu gaps\n", single,
	       n, rnd_seq - 1, txt_count(&t.log, TT_REC_GAP));
	txt_free(&t);
}

int main(void)
{
	test_attach_partial_and_poll();
	test_attach_empty_and_start_at_now();
	test_attach_wrapped_and_torn();
	test_laps();
	test_resets();
	test_overwritten_during_read();
	test_patched_entries();
	test_hold_cost();
	test_random_interleaving();
	test_cur_ahead();
	return tt_test_done();
}
