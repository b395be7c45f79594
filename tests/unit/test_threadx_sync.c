/* tests/unit/test_threadx_sync.c: the ThreadX reader's full read (attach, lap recovery) against a
 * writer that runs between the ranges of the reader's plans: slower than the copy (nothing lost),
 * faster than the copy (exact gaps, no mixed laps), lapping the whole buffer during the copy
 * (honest lower bounds, never a stale entry), start_at_now (40 bytes, nothing from before), and
 * random interleavings (events published + lost = events written). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "reader.h"
#include "txtest.h"

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

/* The writer: `per_range` events before every range while `on`, plus `burst` events once before
 * range `burst_range` of the plan numbered `burst_plan` (plans counted from when the burst was
 * armed). */
static struct {
	bool on;
	uint32_t per_range;
	uint32_t seq;
	uint32_t burst, burst_range;
	int burst_plan, plan_no;
	uint64_t written_during; /* events the hook wrote */
} wr;

static void writer_hook(struct txt *t, unsigned i, const struct tt_plan *p)
{
	(void)p;
	if (i == 0)
		wr.plan_no++;
	if (wr.burst && wr.plan_no == wr.burst_plan && i == wr.burst_range) {
		for (uint32_t k = 0; k < wr.burst; k++)
			txt_user(t, wr.seq++);
		wr.written_during += wr.burst;
		wr.burst = 0;
	}
	if (!wr.on)
		return;
	for (uint32_t k = 0; k < wr.per_range; k++)
		txt_user(t, wr.seq++);
	wr.written_during += wr.per_range;
}

static void write_n(struct txt *t, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		txt_user(t, wr.seq++);
}

struct verdict {
	uint64_t events, lost, gaps, inexact, lead, lead_inexact;
	uint32_t first, last;
};

/* Checks the user events of the log: strictly increasing seqs (no duplicate, no stale entry),
 * consecutive unless a gap comes between; exact gaps account for the difference exactly, inexact
 * ones are lower bounds short by whole buffers (nent); time is monotonic, and with a +1 counter
 * (counter = true) time differences equal seq differences wherever the gaps were exact. */
static struct verdict verify(const struct txt_log *l, uint32_t nent, bool counter)
{
	struct verdict v = { 0 };
	bool have = false, gap = false, exact = true;
	uint64_t lost = 0, prev = 0, prev_time = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct txt_rec *r = &l->v[i];
		if (r->kind == TT_REC_GAP && !have) {
			/* before the first event (at attach: what failed attempts saw written) */
			v.lead += r->lost;
			v.lead_inexact += !r->exact;
			continue;
		}
		if (r->kind == TT_REC_GAP) {
			gap = true;
			exact = exact && r->exact;
			lost += r->lost;
			v.lost += r->lost;
			v.gaps++;
			v.inexact += !r->exact;
			continue;
		}
		CHECK(r->kind != TT_REC_RESET);
		if (r->kind != TT_REC_EVENT || r->ev.id != TXT_USER)
			continue;
		uint64_t s = r->raw[4];
		if (!have) {
			v.first = (uint32_t)s;
		} else {
			CHECK(s > prev);
			CHECK(r->ev.time > prev_time);
			if (!gap) {
				CHECK_EQ(s, prev + 1);
			} else if (exact) {
				CHECK_EQ(s, prev + 1 + lost);
			} else {
				CHECK(s >= prev + 1 + lost);
				CHECK_EQ((s - prev - 1 - lost) % nent, 0);
			}
			if (counter && exact)
				CHECK_EQ(r->ev.time - prev_time, s - prev);
			CHECK(r->ev.time - prev_time < ((uint64_t)1 << 31));
		}
		have = true;
		prev = s;
		prev_time = r->ev.time;
		gap = false;
		exact = true;
		lost = 0;
		v.events++;
	}
	CHECK(!gap); /* a gap is always followed by the event it ends at */
	v.last = (uint32_t)prev;
	return v;
}

/* (1) A writer slower than the copy during the attach full read: no gap, every entry once, and
 * the entries written during the read are picked up by the next poll. */
static void test_slow_writer_attach(void)
{
	struct txt t;
	struct tt_threadx_config cfg = { .sync_chunk = 16 };
	setup(&t, 256, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 600); /* wrapped: the ring holds seq 345..600 */
	t.hook = writer_hook;
	wr.on = true;
	wr.per_range = 1; /* 1 event per range: 2 per 16-slot chunk */
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	CHECK_EQ(st->syncs, 1);
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 0);
	/* the writer started at the oldest slot (seq 345): it overwrote those it passed before the
	 * copy reached them; everything newer is published */
	uint32_t firstseq = 0;
	txt_seqs(&t.log, &firstseq, 1);
	CHECK(firstseq > 345);
	CHECK(firstseq - 345 <= wr.written_during + 1);
	CHECK_EQ(st->history_skipped + 5, firstseq - 346); /* 5: written before R was read */
	/* a few polls with the writer still running, then idle */
	for (int k = 0; k < 20; k++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	wr.on = false;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	struct verdict v = verify(&t.log, 256, true);
	CHECK_EQ(v.gaps, 0);
	CHECK_EQ(v.first, firstseq);
	CHECK_EQ(v.last, wr.seq - 1);
	CHECK_EQ(v.events, wr.seq - firstseq);
	CHECK_EQ(st->sync_failed, 0);
	txt_free(&t);

	/* the same at a rate well below the link with the default chunk: the whole history of a
	 * full buffer is published but for the slot the writer was about to rewrite (the oldest) */
	struct tt_threadx_config c2 = { 0 };
	setup(&t, 256, &c2);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 600);
	t.hook = writer_hook;
	wr.on = true;
	wr.per_range = 1;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	wr.on = false;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	v = verify(&t.log, 256, true);
	CHECK_EQ(v.gaps, 0);
	CHECK_EQ(v.last, wr.seq - 1);
	CHECK_EQ(v.events, wr.seq - v.first);
	txt_free(&t);
}

/* (2) A writer faster than the copy (1.5 chunks per range), at attach and through laps: every gap
 * exactly counted (counter time stamps), no duplicate, no mixed lap, time exact across gaps. */
static void test_fast_writer(void)
{
	struct txt t;
	struct tt_threadx_config cfg = { .sync_chunk = 16 };
	setup(&t, 256, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 300);
	t.hook = writer_hook;
	wr.on = true;
	wr.per_range = 24;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	CHECK_EQ(txt_count(&t.log, TT_REC_GAP), 0); /* attach: history, never a gap */
	CHECK(st->history_skipped > 0);
	CHECK(t.log.n > 0);
	for (int k = 0; k < 200; k++)
		CHECK(txt_cycle(&t) == TT_THREADX_DONE);
	wr.on = false;
	for (int k = 0; k < 3; k++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	struct verdict v = verify(&t.log, 256, true);
	CHECK(v.gaps > 0);
	CHECK_EQ(v.inexact, 0);
	CHECK_EQ(v.last, wr.seq - 1);
	CHECK_EQ(v.events + v.lost, (uint64_t)wr.seq - v.first);
	CHECK_EQ(st->lost, v.lost);
	printf("fast writer: %u written, %llu published, %llu lost in %llu gaps, %llu full reads, "
	       "%llu failed\n", wr.seq - 1, (unsigned long long)v.events,
	       (unsigned long long)v.lost, (unsigned long long)v.gaps,
	       (unsigned long long)st->syncs, (unsigned long long)st->sync_failed);
	txt_free(&t);

	/* one lap, then a full read that the writer overtakes: the gap is the lap plus the slots it
	 * overwrote before the copy reached them, exactly */
	setup(&t, 256, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 100);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	write_n(&t, 5);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE); /* learns the counter step */
	txt_log_clear(&t.log);
	write_n(&t, 256 + 40); /* lapped */
	t.hook = writer_hook;
	wr.on = true;
	wr.per_range = 24;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	wr.on = false;
	const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
	uint64_t glost = g ? g->lost : 0;
	CHECK(g != NULL);
	if (g) {
		CHECK(g->exact);
		CHECK(g == &t.log.v[0]);
	}
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	v = verify(&t.log, 256, true);
	CHECK_EQ(v.inexact, 0);
	CHECK_EQ(v.lead_inexact, 0);
	CHECK_EQ(v.lead, glost);
	CHECK_EQ(v.first, 106 + glost);
	CHECK_EQ(v.events + v.lost + v.lead, (uint64_t)wr.seq - 106);
	txt_free(&t);
}

static uint32_t irregular_clock(void *arg)
{
	uint32_t *c = arg;
	*c += 17 + (*c % 7);
	return *c;
}

/* (3) The writer laps the whole buffer several times during one full read: never a stale or
 * mixed entry; the gap is an honest lower bound (exact = false without a counter), short of the
 * truth by whole buffers; the first entry published afterwards is newer than all before. */
static void lap_during_sync(uint32_t burst, int burst_plan, uint32_t burst_range, bool counter)
{
	struct txt t;
	uint32_t clk = 0;
	struct tt_threadx_config cfg = { .sync_chunk = 8 };
	setup(&t, 64, &cfg);
	if (!counter) {
		t.w.time_mode = TXW_TIME_CALLBACK;
		t.w.now = irregular_clock;
		t.w.now_arg = &clk;
	}
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 30);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	write_n(&t, 3);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	uint32_t before = wr.seq - 1;
	write_n(&t, 64 + 10); /* lapped: the next poll sees a changed anchor */
	t.hook = writer_hook;
	wr.plan_no = 0;
	wr.burst = burst;
	wr.burst_plan = burst_plan;
	wr.burst_range = burst_range;
	for (int k = 0; k < 4; k++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(wr.burst, 0); /* the burst happened */
	write_n(&t, 5);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	struct verdict v = verify(&t.log, 64, counter);
	CHECK_EQ(v.last, wr.seq - 1);
	CHECK(v.gaps >= 1);
	if (!counter)
		CHECK(v.inexact >= 1);
	else
		CHECK_EQ(v.inexact, 0);
	/* everything published after the first gap is newer than everything before it */
	bool after = false;
	for (size_t i = 0; i < t.log.n; i++) {
		if (t.log.v[i].kind == TT_REC_GAP)
			after = true;
		else if (after && t.log.v[i].kind == TT_REC_EVENT && t.log.v[i].ev.id == TXT_USER)
			CHECK(t.log.v[i].raw[4] > before);
	}
	CHECK(v.events + v.lost <= (uint64_t)wr.seq - v.first);
	if (counter)
		CHECK_EQ(v.events + v.lost, (uint64_t)wr.seq - v.first);
	txt_free(&t);
}

static void test_lap_during_sync(void)
{
	/* plan 1 is the poll's [cur], plan 2 [new][anchor][cur], plan 3 the full read's [cur],
	 * plan 4 its first chunk plan [X][cur R][chunk][cur][chunk][cur][X] */
	for (int c = 0; c <= 1; c++) {
		lap_during_sync(3 * 64 + 5, 4, 3, c);  /* between the first chunk and its current */
		lap_during_sync(2 * 64, 4, 3, c);      /* whole buffers: current does not move */
		lap_during_sync(3 * 64 + 5, 4, 5, c);  /* before the second chunk's current */
		lap_during_sync(4 * 64 + 1, 4, 1, c);  /* between X and the reference current */
		lap_during_sync(5 * 64 + 7, 5, 1, c);  /* in the second chunk plan */
		lap_during_sync(64 - 1, 4, 6, c);      /* onto X itself, just before its re-read */
	}
}

/* A writer that laps the buffer between any two reads at attach: every attempt fails (nothing
 * provable is published); when it slows down, the attach publishes its history after a gap that
 * is a lower bound of what the failed attempts saw written (N-1 each). */
static void test_attach_overrun(void)
{
	struct txt t;
	struct tt_threadx_config cfg = { .sync_chunk = 8 };
	setup(&t, 64, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 100);
	uint32_t s0 = wr.seq;
	t.hook = writer_hook;
	wr.on = true;
	wr.per_range = 3 * 64 + 5;
	for (int k = 0; k < 6; k++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 0);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	CHECK(st->sync_failed >= 5);
	wr.on = false;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(t.log.n > 1);
	CHECK_EQ(t.log.v[0].kind, TT_REC_GAP);
	struct verdict v = verify(&t.log, 64, true);
	CHECK_EQ(v.lead_inexact, 1);
	CHECK(v.lead >= 63);
	CHECK(v.lead <= v.first - s0);
	CHECK_EQ(v.gaps, 0);
	CHECK_EQ(v.last, wr.seq - 1);
	txt_free(&t);
}

/* (4) start_at_now: the attach reads the header, the registry and then at most 40 bytes; only
 * entries written after attach are published. */
static void test_start_at_now(void)
{
	struct txt t;
	struct tt_threadx_config cfg = { .start_at_now = true };
	setup(&t, 2048, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 5000);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	CHECK(st->bytes_planned <= 48 + 4 * 48 + 40);
	printf("start_at_now attach: %llu bytes (header 48, registry 192)\n",
	       (unsigned long long)st->bytes_planned);
	CHECK_EQ(t.log.n, 0);
	write_n(&t, 7);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 5001, 5007));
	txt_free(&t);

	/* a writer running during the attach: nothing from before attach, nothing lost after */
	setup(&t, 64, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 100);
	t.hook = writer_hook;
	wr.on = true;
	wr.per_range = 3;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 0);
	for (int k = 0; k < 10; k++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	wr.on = false;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	struct verdict v = verify(&t.log, 64, true);
	CHECK(v.first > 100);
	CHECK_EQ(v.gaps, 0);
	CHECK_EQ(v.last, wr.seq - 1);
	txt_free(&t);
}

/* The log's first record: the gap before the first event, if any. */
static const struct txt_rec *lead_gap(const struct txt *t)
{
	return t->log.n > 0 && t->log.v[0].kind == TT_REC_GAP ? &t->log.v[0] : NULL;
}

/* (4b) since_enable: the reader was made while tracing was off, so every event since enabling is
 * promised. The writer fills the buffer (from slot 0, as tx_trace_enable leaves it) before the
 * first read: no wrap proves nothing lost; a wrap gives a gap before the first event (a lower
 * bound that is the true count for the first lap, short by whole buffers after more). Without
 * since_enable the same history is skipped without a gap, and counted. */
static void since_enable_run(uint32_t written, bool since, bool writer_on)
{
	struct txt t;
	struct tt_threadx_config cfg = { .since_enable = since, .sync_chunk = 16 };
	setup(&t, 256, &cfg);
	/* events the setup wrote before user seq 1 (the slots start at 0 after enabling) */
	const uint32_t before = (txw_load32(&t.w, t.w.hdr + 32) - t.w.ent_start) / 32;
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, written);
	t.hook = writer_hook;
	wr.on = writer_on;
	wr.per_range = 1;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	wr.on = false;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	struct verdict v = verify(&t.log, 256, true);
	const struct txt_rec *g = lead_gap(&t);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	CHECK_EQ(v.gaps, 0);
	CHECK_EQ(v.last, wr.seq - 1);
	if (written <= 256 && !writer_on) {
		/* never wrapped: everything since enabling is published, no gap */
		CHECK(g == NULL);
		CHECK_EQ(v.first, 1);
		CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), before + written);
	} else if (since) {
		CHECK(g != NULL);
		CHECK(!g->exact);
		CHECK_EQ(g->basis[0], '\0'); /* a lower bound, said so */
		CHECK_STR(g->reason, "overwritten before the first read");
		CHECK(g->lost <= before + v.first - 1);
		CHECK_EQ((before + v.first - 1 - g->lost) % 256, 0);
		if (before + written + wr.written_during < 2 * 256)
			CHECK_EQ(g->lost, before + v.first - 1); /* first lap: the bound is the count */
		CHECK_EQ(st->history_skipped, 0);
	} else {
		CHECK(g == NULL);
		if (writer_on)
			CHECK(st->history_skipped > 0);
	}
	/* the generic stat the daemon shows (status, /api/targets, /metrics) */
	struct tt_reader_stats rs;
	tt_threadx_reader.stats(t.rd, &rs);
	CHECK_EQ(rs.skipped, st->history_skipped);
	txt_free(&t);
}

static void test_since_enable(void)
{
	since_enable_run(200, true, false);  /* no wrap */
	since_enable_run(300, true, false);  /* one wrap, idle writer */
	since_enable_run(300, true, true);   /* one wrap, writer running during the read */
	since_enable_run(700, true, true);   /* laps: a lower bound short by whole buffers */
	since_enable_run(300, false, true);  /* plain attach: skipped, counted, no gap */
}

/* (5) Random interleavings, counter time source: over thousands of polls, events published +
 * exact losses = events written (from the first published one), no duplicate, no stale entry. */
static uint32_t rnd_state;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

static uint32_t rnd_scale;
static void random_hook(struct txt *t, unsigned i, const struct tt_plan *p)
{
	(void)i;
	(void)p;
	uint32_t r = rnd() % 100;
	uint32_t n = r < 50 ? rnd() % 3 : r < 85 ? rnd() % (rnd_scale + 1)
			     : r < 97 ? rnd() % (4 * rnd_scale + 1) : rnd() % (40 * rnd_scale + 1);
	write_n(t, n);
}

static void random_run(uint32_t nent, uint32_t chunk, uint32_t scale, uint32_t seed, int polls)
{
	struct txt t;
	struct tt_threadx_config cfg = { .sync_chunk = chunk };
	setup(&t, nent, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	rnd_state = seed;
	rnd_scale = scale;
	write_n(&t, 3 + rnd() % (3 * nent));
	/* the attach itself runs under the random writer too; exact counts need the counter step,
	 * learnt from two consecutive deltas: the inexact gaps allowed are those before that */
	t.hook = random_hook;
	for (int k = 0; k < polls; k++)
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	t.hook = NULL;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	struct verdict v = verify(&t.log, nent, true);
	if (getenv("TXDBG"))
		for (size_t i = 0; i < t.log.n; i++)
			if (t.log.v[i].kind == TT_REC_GAP && !t.log.v[i].exact)
				fprintf(stderr, "inexact gap at record %zu of %zu: lost %llu\n", i, t.log.n,
					(unsigned long long)t.log.v[i].lost);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	CHECK_EQ(v.last, wr.seq - 1);
	if (v.inexact == 0)
		CHECK_EQ(v.events + v.lost, (uint64_t)wr.seq - v.first);
	/* every gap after the counter step was learnt is exact */
	size_t events = 0;
	for (size_t i = 0; i < t.log.n; i++) {
		if (t.log.v[i].kind == TT_REC_EVENT)
			events++;
		else if (t.log.v[i].kind == TT_REC_GAP && events >= 3)
			CHECK(t.log.v[i].exact);
	}
	CHECK(v.inexact <= 1);
	printf("random N=%u chunk=%u scale=%u: %u written, %llu published, %llu lost in %llu gaps, "
	       "%llu full reads (%llu failed)\n", nent, chunk, scale, wr.seq - 1,
	       (unsigned long long)v.events, (unsigned long long)v.lost, (unsigned long long)v.gaps,
	       (unsigned long long)st->syncs, (unsigned long long)st->sync_failed);
	txt_free(&t);
}

static void test_random(void)
{
	random_run(16, 4, 4, 1, 3000);
	random_run(128, 8, 6, 2, 4000);
	random_run(128, 16, 30, 3, 3000);
	random_run(256, 64, 10, 4, 3000);
	random_run(61, 7, 20, 5, 3000);
}

/* The probe cost of a full read of an idle buffer: every slot once, plus 4 bytes per chunk and
 * 32 per plan (the X re-read), plus [X][cur] once and the leading [cur]. */
static void test_cost(void)
{
	struct txt t;
	setup(&t, 2020, NULL);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 5000);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);
	uint64_t sync = st->bytes_planned - 48 - 4 * 48;
	uint32_t chunks = (2019 + 63) / 64 + 1; /* one chunk splits at the end of the ring */
	printf("full read of 2020 entries: %llu bytes (entries alone: %u)\n",
	       (unsigned long long)sync, 2019 * 32);
	CHECK(sync <= 2019u * 32 + chunks * 4 + (chunks / 3 + 2) * 32 + 36 + 4);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 2019);
	txt_free(&t);
}

/* Before range 1 of plan 5 (the current read between the two reads of the oldest slot): the
 * writer has begun an entry there (its first word) and not finished it. */
static void torn_hook(struct txt *t, unsigned i, const struct tt_plan *p)
{
	(void)p;
	if (i == 0)
		wr.plan_no++;
	if (wr.plan_no == 5 && i == 1)
		txw_store32(&t->w, t->w.cur, 0x2000);
}

/* oldest_when_still (a file): at attach the slot at current, the oldest entry, is published too
 * when current stays put between two equal reads of it; a writer that starts an entry there
 * meanwhile leaves it out (it is then the newest, read by the next poll), never duplicated. */
static void test_oldest_when_still(void)
{
	struct tt_threadx_config cfg = { .oldest_when_still = true };
	struct txt t;
	setup(&t, 32, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 3 * 32 + 5); /* seqs 1..101: the buffer holds 70..101 */
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 32);
	CHECK(txt_seq_range(&t.log, 70, 101));
	CHECK_EQ(tt_threadx_stats(t.rd)->history_skipped, 0);
	txt_free(&t);

	/* the writer adds one event between the two reads of the oldest slot */
	setup(&t, 32, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 3 * 32 + 5);
	t.hook = writer_hook;
	wr.burst = 1;
	wr.burst_range = 1;
	wr.burst_plan = 5; /* header, registry, [cur], [X][R][chunk][cur][chunk][cur][X], OLDEST */
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(wr.written_during, 1);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 31);
	CHECK(txt_seq_range(&t.log, 71, 101));
	txt_log_clear(&t.log);
	t.hook = NULL;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 102, 102));
	txt_free(&t);

	/* ... or just before both: they agree, but current moved (the slot is the newest now) */
	setup(&t, 32, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 3 * 32 + 5);
	t.hook = writer_hook;
	wr.burst = 1;
	wr.burst_range = 0;
	wr.burst_plan = 5;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(wr.written_during, 1);
	CHECK(txt_seq_range(&t.log, 71, 101));
	txt_log_clear(&t.log);
	t.hook = NULL;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 102, 102));
	txt_free(&t);

	/* ... or is in the middle of writing it: current has not moved yet, the slot changed */
	setup(&t, 32, &cfg);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 3 * 32 + 5);
	t.hook = torn_hook;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 31);
	CHECK(txt_seq_range(&t.log, 71, 101));
	txt_free(&t);

	/* without it (a live target): the slot at current is never trusted at attach */
	setup(&t, 32, NULL);
	memset(&wr, 0, sizeof(wr));
	wr.seq = 1;
	write_n(&t, 3 * 32 + 5);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 71, 101));
	txt_free(&t);
}

int main(void)
{
	test_slow_writer_attach();
	test_fast_writer();
	test_lap_during_sync();
	test_attach_overrun();
	test_start_at_now();
	test_since_enable();
	test_oldest_when_still();
	test_random();
	test_cost();
	return tt_test_done();
}
