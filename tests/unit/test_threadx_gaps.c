/* tests/unit/test_threadx_gaps.c: what the ThreadX reader says about the time it did not see.
 *
 * A free-running time source (not a per-event counter) and the host's clock given to the reader
 * at each poll, both under the test's control, so every situation is forced: a writer that laps
 * the buffer several times between two polls (the loss is estimated from the time stamps and the
 * event rate, labelled as such, and must come out at the true count), a narrow (24-bit) time
 * stamp that wraps several times during a quiet spell or a lap (the host's clock between the polls
 * decides how many wraps) but not while the reader stalled and the writer went on, and a
 * per-event counter, whose losses stay exact. Every estimate states the range the evidence
 * allows and must hold the truth in it: a target clock that runs at a third of the host's (the
 * host's clock alone would add a wrap of a narrow time source, and with it hundreds of phantom
 * laps and event times a wrap late), and the first read after a late tx_trace_enable (estimated like a lap from the host's
 * clock since tracing was seen off, not a bare lower bound one buffer short). */
#include <stdio.h>
#include <stdlib.h>

#include "../tt_test.h"
#include "txtest.h"

#define BUF (TXT_BASE + 0x1000)
#define NENT 64u
#define HZ 25000000u /* 40 ns per tick */

/* The target's true clock (64-bit) and the step it advances by before each event. */
static uint64_t clk;
static uint64_t step_base;

static uint32_t now_cb(void *arg)
{
	(void)arg;
	/* not a constant step: a clock, not a per-event counter */
	clk += step_base + (clk / step_base) % 7 * (step_base / 50);
	return (uint32_t)clk;
}

/* Host ns per target tick: 40 when the target's clock keeps the nominal 25 MHz. */
static uint64_t host_per_tick = 1000000000ull / HZ;

/* The host's clock in step with the target's, plus the time a poll takes to get there. */
static uint64_t host_ns(void)
{
	return 1000000000ull + clk * host_per_tick + 3000000ull;
}

static void setup(struct txt *t, uint32_t mask, uint64_t step, const struct tt_threadx_config *cfg)
{
	clk = 0x100000;
	host_per_tick = 1000000000ull / HZ;
	step_base = step;
	txt_init(t, false);
	t->w.timer_mask = mask;
	t->w.time_mode = TXW_TIME_CALLBACK;
	t->w.now = now_cb;
	CHECK_EQ(txw_enable(&t->w, BUF, 48 + 4 * 48 + NENT * 32, 4), 0);
	CHECK_EQ(t->w.nent, NENT);
	txt_reader(t, cfg);
}

static int poll_at_host(struct txt *t)
{
	tt_threadx_set_host_time(t->rd, host_ns());
	return txt_cycle(t);
}

/* Writes events seq from..to, returning the true clock of each in at[] (index seq - from). */
static void write_seqs(struct txt *t, uint32_t from, uint32_t to, uint64_t *at)
{
	for (uint32_t s = from; s <= to; s++) {
		txt_user(t, s);
		if (at)
			at[s - from] = clk;
	}
}

static const struct txt_rec *find_seq(const struct txt_log *l, uint32_t seq)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == TT_REC_EVENT && l->v[i].ev.id == TXT_USER && l->v[i].raw[4] == seq)
			return &l->v[i];
	return NULL;
}

/* 32-bit clock; between two polls the writer laps the buffer 3 times and a bit: the ring alone
 * says N - 1 + a bit (a lower bound short by whole buffers); the time stamps and the rate say how
 * many buffers. */
static void test_laps_estimated(void)
{
	struct txt t;
	struct tt_threadx_config cfg = { .tick_hz = HZ };
	setup(&t, 0xFFFFFFFFu, 5000, &cfg);
	write_seqs(&t, 1, 40, NULL);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 1, 40));
	txt_log_clear(&t.log);
	uint32_t last = 40 + 3 * NENT + 20;
	write_seqs(&t, 41, last, NULL);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
	const struct txt_rec *f = txt_first(&t.log, TT_REC_EVENT);
	CHECK(g != NULL && f != NULL);
	if (g == NULL || f == NULL)
		exit(tt_test_done());
	uint64_t truth = f->raw[4] - 41;
	CHECK_STR(g->reason, "lapped");
	CHECK(!g->exact);
	CHECK_STR(g->basis, "time stamps and event rate");
	CHECK_MSG(g->lost == truth, "reported %llu, true %llu", (unsigned long long)g->lost,
		  (unsigned long long)truth);
	CHECK_EQ(find_seq(&t.log, last) != NULL, 1);
	txt_free(&t);
}

/* A per-event counter: the count is exact, not an estimate, however many laps. */
static void test_counter_stays_exact(void)
{
	struct txt t;
	txt_init(&t, false);
	CHECK_EQ(txw_enable(&t.w, BUF, 48 + 4 * 48 + NENT * 32, 4), 0);
	txt_reader(&t, NULL);
	write_seqs(&t, 1, 40, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	write_seqs(&t, 41, 40 + 4 * NENT + 7, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
	const struct txt_rec *f = txt_first(&t.log, TT_REC_EVENT);
	CHECK(g != NULL && f != NULL);
	if (g == NULL || f == NULL)
		exit(tt_test_done());
	CHECK(g->exact);
	CHECK_STR(g->basis, "");
	CHECK_EQ(g->lost, f->raw[4] - 41);
	txt_free(&t);
}

/* A record the test cannot go on without. */
static const struct txt_rec *need(const struct txt_rec *r)
{
	CHECK(r != NULL);
	if (r == NULL)
		exit(tt_test_done());
	return r;
}

/* A 24-bit time source at 25 MHz (a wrap every 0.67 s), events 1..10 published by one poll
 * (their true clocks in at[]): returns event 10 as published. */
static struct tt_event narrow_attach(struct txt *t, uint64_t at[10])
{
	struct tt_threadx_config cfg = { .tick_hz = HZ };
	setup(t, 0xFFFFFFu, 1000, &cfg);
	write_seqs(t, 1, 10, at);
	CHECK_EQ(poll_at_host(t), TT_THREADX_DONE);
	struct tt_event a = need(find_seq(&t->log, 10))->ev;
	txt_log_clear(&t->log);
	return a;
}

static void check_moved(const struct txt_rec *b, const struct tt_event *a, uint64_t truth)
{
	CHECK_MSG(b->ev.time - a->time == truth, "time moved %llu ticks, the target's %llu",
		  (unsigned long long)(b->ev.time - a->time), (unsigned long long)truth);
	CHECK_EQ(b->ev.ns - a->ns, truth * 40);
}

/* A quiet spell of 2.3 wraps between two polls: the host's clock says two whole wraps went by,
 * and the time goes on from there. */
static void test_quiet_spell_wraps(void)
{
	struct txt t;
	uint64_t at1[10], at2[3];
	struct tt_event a = narrow_attach(&t, at1);
	clk += (uint64_t)(2.3 * (1 << 24)); /* nothing written for 1.54 s */
	write_seqs(&t, 11, 13, at2);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	check_moved(need(find_seq(&t.log, 11)), &a, at2[0] - at1[9]);
	txt_free(&t);
}

/* The daemon stalls (no poll) for 2.3 wraps while the writer goes on writing slowly, 40 events
 * spread over the stall: the batch itself spans that time, so no wrap is added between it and
 * the event before (the host's clock alone, between the two polls, would say two). */
static void test_stall_no_wraps(void)
{
	struct txt t;
	uint64_t at1[10], at2[40];
	struct tt_event a = narrow_attach(&t, at1);
	step_base = (uint64_t)(2.3 * (1 << 24) / 40); /* 0.96 M ticks (38 ms) between events */
	write_seqs(&t, 11, 50, at2);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	CHECK(txt_seq_range(&t.log, 11, 50));
	check_moved(need(find_seq(&t.log, 11)), &a, at2[0] - at1[9]);
	check_moved(need(find_seq(&t.log, 50)), &a, at2[39] - at1[9]);
	txt_free(&t);
}

/* The daemon is stopped with a poll's reads under way (a read answered, not yet ingested) for 2.3
 * wraps: the data is from before the stall, only its ingest comes late. Nothing was written
 * meanwhile, so no wrap may be added between the events before and those of that read (before:
 * the ingest's host time said 2.3 wraps and two were added inside a batch with no gap). */
static uint64_t stall_ns;

static void late_ingest(struct txt *t, unsigned i, const struct tt_plan *p)
{
	(void)i;
	(void)p;
	tt_threadx_set_host_time(t->rd, host_ns() + stall_ns); /* as the daemon's, at ingest */
}

static void test_read_across_stall_no_wraps(void)
{
	struct txt t;
	uint64_t at1[10], at2[20];
	struct tt_event a = narrow_attach(&t, at1);
	write_seqs(&t, 11, 30, at2);
	stall_ns = (uint64_t)(2.3 * (1 << 24)) * host_per_tick;
	t.hook = late_ingest;
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	t.hook = NULL;
	CHECK(txt_seq_range(&t.log, 11, 30));
	CHECK_EQ(txt_first(&t.log, TT_REC_GAP) == NULL, 1);
	check_moved(need(find_seq(&t.log, 11)), &a, at2[0] - at1[9]);
	check_moved(need(find_seq(&t.log, 30)), &a, at2[19] - at1[9]);
	txt_free(&t);
}

/* The same 24-bit source while the writer laps the buffer: the gap hides wraps too. The
 * time after the gap and the estimate both need them. */
static void test_lap_wraps(void)
{
	struct txt t;
	uint64_t at[NENT * 6];
	struct tt_threadx_config cfg = { .tick_hz = HZ };
	setup(&t, 0xFFFFFFu, 60000, &cfg); /* 2.4 ms per event: a lap is 0.15 s = 0.23 wraps */
	write_seqs(&t, 1, 30, NULL);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	uint64_t ta = find_seq(&t.log, 30)->ev.time, ca = clk;
	txt_log_clear(&t.log);
	uint32_t last = 30 + 5 * NENT + 11; /* 5 laps: 1.2 wraps of the time stamp */
	write_seqs(&t, 31, last, at);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	const struct txt_rec *g = txt_first(&t.log, TT_REC_GAP);
	const struct txt_rec *f = txt_first(&t.log, TT_REC_EVENT);
	CHECK(g != NULL && f != NULL);
	if (g == NULL || f == NULL)
		exit(tt_test_done());
	CHECK(!g->exact);
	uint64_t truth = f->raw[4] - 31;
	CHECK_MSG(g->lost == truth, "reported %llu, true %llu", (unsigned long long)g->lost,
		  (unsigned long long)truth);
	CHECK_MSG(f->ev.time - ta == at[f->raw[4] - 31] - ca, "time moved %llu, the target's %llu",
		  (unsigned long long)(f->ev.time - ta),
		  (unsigned long long)(at[f->raw[4] - 31] - ca));
	txt_free(&t);
}

/* The range is stated and holds both the truth and the estimate. */
static void check_range(const struct txt_rec *g, uint64_t truth)
{
	printf("# %s: reported %llu, true %llu, range [%llu, %llu]\n", g->reason,
	       (unsigned long long)g->lost, (unsigned long long)truth, (unsigned long long)g->lower,
	       (unsigned long long)g->upper);
	CHECK(!g->exact);
	CHECK_MSG(g->upper != 0, "no range stated (reported %llu)", (unsigned long long)g->lost);
	CHECK_MSG(g->lower <= truth && truth <= g->upper, "true %llu outside [%llu, %llu]",
		  (unsigned long long)truth, (unsigned long long)g->lower,
		  (unsigned long long)g->upper);
	CHECK_MSG(g->lower <= g->lost && g->lost <= g->upper, "estimate %llu outside [%llu, %llu]",
		  (unsigned long long)g->lost, (unsigned long long)g->lower,
		  (unsigned long long)g->upper);
}

/* The target's clock runs at a third of the host's (an emulated CPU on a loaded host, a clock
 * slowed by a sleep mode) and its 24-bit time source wraps every 0.67 s of its own time. Polls
 * every 50 events measure that clock against the host's; then the writer laps the ring 150
 * times in 0.6 wraps of its clock, 1.8 wraps of the host's: no wrap is hidden in the gap, and
 * none may be added (a wrap at this rate is 15,800 events, 247 phantom laps). */
static void test_slow_clock_no_phantom_laps(void)
{
	struct txt t;
	struct tt_threadx_config cfg = { .tick_hz = HZ };
	setup(&t, 0xFFFFFFu, 1000, &cfg);
	host_per_tick = 3 * 1000000000ull / HZ;
	uint32_t s = 1;
	for (int i = 0; i < 16; i++, s += 50) {
		write_seqs(&t, s, s + 49, NULL);
		CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	}
	CHECK(txt_seq_range(&t.log, 1, s - 1));
	CHECK_EQ(txt_first(&t.log, TT_REC_GAP) == NULL, 1);
	uint64_t ta = need(find_seq(&t.log, s - 1))->ev.time, ca = clk;
	txt_log_clear(&t.log);
	uint32_t last = s + (uint32_t)(0.6 * (1 << 24) / 1060);
	static uint64_t at[(1 << 24) / 1000];
	write_seqs(&t, s, last, at);
	CHECK_EQ(poll_at_host(&t), TT_THREADX_DONE);
	const struct txt_rec *g = need(txt_first(&t.log, TT_REC_GAP));
	const struct txt_rec *f = need(txt_first(&t.log, TT_REC_EVENT));
	uint64_t truth = f->raw[4] - s;
	check_range(g, truth);
	CHECK_MSG(g->lost * 10 <= truth * 11 && g->lost * 10 >= truth * 9,
		  "reported %llu, true %llu", (unsigned long long)g->lost,
		  (unsigned long long)truth);
	/* and the time across the gap is the target's: 0.6 of a wrap, not a wrap more (the
	 * host's time at the nominal rate) nor none (more than half a wrap, dropped) */
	CHECK_MSG(f->ev.time - ta == at[f->raw[4] - s] - ca, "time moved %llu, the target's %llu",
		  (unsigned long long)(f->ev.time - ta),
		  (unsigned long long)(at[f->raw[4] - s] - ca));
	txt_free(&t);
}

/* The reader watched tracing off (the host's clock read then is given), tx_trace_enable ran
 * delay_ms later and the writer wrote events 1..last (1 ms apart) before the first read: its
 * gap, checked against the truth (printed) and its range, and the first event after it. */
static const struct txt_rec *late_enable(struct txt *t, unsigned delay_ms, uint32_t last,
					 uint64_t *truth)
{
	clk = 0x100000;
	step_base = 25000; /* 1 ms per event */
	host_per_tick = 1000000000ull / HZ;
	txt_init(t, false);
	t->w.timer_mask = 0xFFFFFFFFu;
	t->w.time_mode = TXW_TIME_CALLBACK;
	t->w.now = now_cb;
	uint64_t off = host_ns();
	clk += delay_ms * 1000000ull / 40;
	CHECK_EQ(txw_enable(&t->w, BUF, 48 + 4 * 48 + NENT * 32, 4), 0);
	struct tt_threadx_config cfg = { .tick_hz = HZ, .since_enable = true,
					 .since_enable_ns = off };
	txt_reader(t, &cfg);
	write_seqs(t, 1, last, NULL);
	CHECK_EQ(poll_at_host(t), TT_THREADX_DONE);
	const struct txt_rec *g = need(txt_first(&t->log, TT_REC_GAP));
	const struct txt_rec *f = need(txt_first(&t->log, TT_REC_EVENT));
	CHECK_STR(g->reason, "overwritten before the first read");
	CHECK(g->basis[0] != '\0');
	*truth = f->raw[4] - 1;
	check_range(g, *truth);
	CHECK(find_seq(&t->log, last) != NULL);
	return g;
}

/* 797 events and a ring's worth more, 5 ms after tracing was seen off: estimated like a lap's,
 * with a range that holds them (before: the slot index alone, a lower bound whole buffers
 * short). */
static void test_late_enable_estimated(void)
{
	struct txt t;
	uint64_t truth;
	late_enable(&t, 5, 797 + NENT, &truth);
	txt_free(&t);
}

/* Enabled 1 ms after tracing was seen off, 152 events: 88 lost (a lap and 24), and the start of
 * tracing taken at the middle of the host's window reads about a third of a lap above the 24 the
 * ring positions prove. The estimate is that reading, within a factor of 2 of the truth, not the
 * 24 that rounding to whole laps gave before (3.7 times low, the lower bound passed off as the
 * count). */
static void test_late_enable_between_laps(void)
{
	struct txt t;
	uint64_t truth;
	const struct txt_rec *g = late_enable(&t, 1, 152, &truth);
	CHECK_MSG(g->lost > g->lower && g->lost * 2 >= truth && g->lost <= truth * 2,
		  "reported %llu for %llu, lower %llu", (unsigned long long)g->lost,
		  (unsigned long long)truth, (unsigned long long)g->lower);
	txt_free(&t);
}

int main(void)
{
	test_laps_estimated();
	test_counter_stays_exact();
	test_slow_clock_no_phantom_laps();
	test_late_enable_estimated();
	test_late_enable_between_laps();
	test_quiet_spell_wraps();
	test_stall_no_wraps();
	test_read_across_stall_no_wraps();
	test_lap_wraps();
	return tt_test_done();
}
