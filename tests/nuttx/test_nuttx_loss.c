/* tests/nuttx/test_nuttx_loss.c: the NuttX reader's loss estimates with the host's clock given
 * (tt_nuttx_set_host_time), against the truth of every gap (the writer numbers every note by
 * its time stamp): laps under a target clock at 40% of the host's with the writer paused while
 * its clock runs (a descheduled sim), and a burst right after `trace start` (NOTERAM_CLEAR),
 * between two polls and during the full read after the clear, and a read torn by `trace stop`
 * under a fast writer. Every gap states a range that holds its truth and its estimate. The
 * reader's host clock moves with the writer's (as the daemon sets it before each step). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "nxlive.h"

/* The host's clock for the reader: host_num / host_den us per target tick (1 us nominal; the
 * target's clock slower than the host's when above 1) since host_t0, plus a 1 ms read latency. */
static uint64_t host_num = 1, host_den = 1, host_t0;

/* The host's clock for the reader now: at the writer's time (what the daemon gives before each
 * step of a cycle). */
static void host_now(struct tt_nuttx *rd, const struct nxw *w)
{
	tt_nuttx_set_host_time(rd, 1000000000ull + (w->time - host_t0) * 1000u * host_num /
					   host_den + 1000000);
}

static int cycle_hook_at_host(struct tt_nuttx *rd, struct nxw *w, hook_fn hook)
{
	host_now(rd, w);
	return cycle(rd, w, hook, rd);
}

static int cycle_at_host(struct tt_nuttx *rd, struct nxw *w)
{
	return cycle_hook_at_host(rd, w, NULL);
}

/* Prints every gap against its truth (check_sequence checks them all); with within > 0, checks
 * each estimate within that factor of its truth and its basis naming a burst. */
static void report_gaps_within(const char *what, unsigned within)
{
	long next = -1;
	const struct nxrec *g = NULL;

	for (size_t i = 0; i < lg.n; i++) {
		const struct nxrec *r = &lg.r[i];
		if (r->kind == TT_REC_GAP) {
			g = r;
			continue;
		}
		if (r->kind != TT_REC_EVENT)
			continue;
		long s = seq_of(r->time);
		if (g && next >= 0) {
			uint64_t t = (uint64_t)(s - next);
			printf("# %s: %s: reported %llu, true %ld, range [%llu, %llu]\n", what,
			       g->reason, (unsigned long long)g->lost, s - next,
			       (unsigned long long)g->lower, (unsigned long long)g->upper);
			CHECK_MSG(!within || (g->lost <= t * within && g->lost * within >= t &&
					      strstr(g->basis, "burst")),
				  "%s: reported %llu for %llu (%s)", what,
				  (unsigned long long)g->lost, (unsigned long long)t, g->basis);
		}
		g = NULL;
		next = s + 1;
	}
}

static void report_gaps(const char *what)
{
	report_gaps_within(what, 0);
}

/* check_sequence with every gap's truth in its range, the estimates not held to 25%. */
static void check_ranges(void)
{
	est_within_25 = false;
	check_sequence(false);
	est_within_25 = true;
}

/* A reader given the host's clock and the time stamps' tick rate (1 MHz: the writer's irregular
 * clock then writes a note every 2.5 ms on average). */
static struct tt_nuttx *reader_hz(struct nxw *w)
{
	struct tt_nuttx_config c = { .driver_addr = w->drv, .layout = w->lo, .tick_hz = 1000000u };
	struct tt_nuttx *rd = NULL;

	CHECK_EQ(tt_nuttx_new(&c, &rd, NULL), 0);
	return rd;
}

/* A ring of size bytes, a writer with an irregular clock running at den/num of the host's, a
 * reader given the host's clock, and 40 polls of 20 notes (the rate and the clock measured). */
static struct tt_nuttx *start_hz(struct nxw *w, uint32_t size, uint64_t num, uint64_t den)
{
	struct tt_nuttx *rd;

	reset_log();
	nxw_init(w, NULL, 16384, BASE, 0, 1024, size);
	w->step = 0;
	host_num = num;
	host_den = den;
	host_t0 = w->time;
	rd = reader_hz(w);
	for (int i = 0; i < 40; i++) {
		write_n(w, 20);
		CHECK_EQ(cycle_at_host(rd, w), TT_NUTTX_DONE);
	}
	return rd;
}

/* `trace stop`: 2 s of clock without a note, four polls seeing nothing new. */
static void stopped_polls(struct tt_nuttx *rd, struct nxw *w)
{
	for (int i = 0; i < 4; i++) {
		w->time += 500000u;
		CHECK_EQ(cycle_at_host(rd, w), TT_NUTTX_DONE);
	}
}

/* `trace stop` (2 s without a note, polls seeing nothing new), `trace start` (NOTERAM_CLEAR:
 * tail = head) and a burst of 6000 notes into a 2 KiB ring before the next poll: the gap counts
 * the burst within its range (before: the ring's bytes alone, the laps uncounted). */
static void test_start_burst(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	rd = start_hz(&w, 2048, 1, 1);
	stopped_polls(rd, &w);
	nxw_set_tail(&w, nxw_head(&w)); /* trace start */
	write_n(&w, 6000);
	CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	write_n(&w, 20);
	CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	report_gaps("burst after trace start");
	check_sequence(true);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 1);
	for (size_t i = 0; i < lg.n; i++)
		if (lg.r[i].kind == TT_REC_GAP)
			CHECK_MSG(lg.r[i].upper != 0 && lg.r[i].basis[0], "gap without a range or "
				  "basis: %llu (%s)", (unsigned long long)lg.r[i].lost, lg.r[i].reason);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* `trace stop` (polls that find nothing new), then 20 ms on `trace start` and a burst of 32,000
 * notes 1-5 ticks apart (about 800 times the pace before) into a 4 KiB ring, the reader polling
 * every 8,000 notes: the first gap came after a poll that saw the writer idle (the time across
 * it from the notes before the stop, the mean rate that of the writing before it: the mean's
 * reading and the burst's put it at 0.14 of its truth), the next ones inside the burst (the
 * batch before each as fast as the one after: a mean over the slow writing before put them at
 * 0.10-0.12). Each estimate within 3 times its truth. */
static void test_start_burst_after_idle(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	rd = start_hz(&w, 4096, 1, 1);
	stopped_polls(rd, &w);
	w.time += 20000u;
	nxw_set_tail(&w, nxw_head(&w)); /* trace start */
	w.div = 1000;
	for (int i = 0; i < 4; i++) {
		write_n(&w, 8000);
		CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	}
	w.div = 0;
	write_n(&w, 20);
	CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	report_gaps_within("burst after trace stop and start", 3);
	check_ranges();
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 4);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* The burst starts between the poll that saw `trace start`'s clear and the full read after it:
 * the notes since the clear that the read no longer finds are a gap (before: dropped silently,
 * the read just began at the new tail). */
static bool burst_done;

static void burst_after_reset(struct nxw *w, void *ctx)
{
	(void)ctx;
	if (burst_done || lg.n == 0 || lg.r[lg.n - 1].kind != TT_REC_RESET)
		return;
	burst_done = true;
	write_n(w, 3000);
}

static void test_start_burst_during_read(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	rd = start_hz(&w, 2048, 1, 1);
	write_n(&w, 3);
	nxw_set_tail(&w, nxw_head(&w)); /* trace start */
	write_n(&w, 2);
	burst_done = false;
	CHECK_EQ(cycle_hook_at_host(rd, &w, burst_after_reset), TT_NUTTX_DONE);
	CHECK(burst_done);
	write_n(&w, 20);
	CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	report_gaps("burst during the read after trace start");
	check_sequence(true);
	CHECK(tt_nuttx_stats(rd)->gaps == 1 && tt_nuttx_stats(rd)->resets == 1);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* Laps of every size under a target clock at 40% of the host's, with the writer paused (its
 * clock running, no notes: a descheduled sim) inside some gaps: every gap holds its truth and
 * its estimate in its range. */
static void test_laps_slow_clock(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	rd = start_hz(&w, 1024, 5, 2);
	for (unsigned k = 1; k <= 24; k++) {
		for (int i = 0; i < 5; i++) { /* polls that measure the clock */
			write_n(&w, 10);
			CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
		}
		write_n(&w, 20 * k);
		if (k % 3 == 0) { /* paused 50 ms with the clock running, then on */
			w.time += 50000;
			write_n(&w, 20 * k);
		}
		CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	}
	report_gaps("lap, clock at 40%");
	check_ranges();
	CHECK(tt_nuttx_stats(rd)->gaps >= 16);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* `trace stop` under a fast writer, between the reader's control read and its data read: the
 * writer writes torn_n notes (from half a ring to many laps) the moment the control words were
 * read, then stops for good (polls see nothing new). With torn_every, it also writes torn_every
 * notes before every chunk of that data read and stops half way through it. The read is torn,
 * not the ring corrupt: every cycle completes, and the notes lost are one gap whose range holds
 * its truth. */
static unsigned torn_n, torn_every, torn_chunks, torn_step, torn_sync;
static bool torn_done;

static void torn_hook(struct nxw *w, void *ctx)
{
	if (!torn_done && torn_sync && cycle_plan == 2) {
		/* the full read after the lap: planned from the control words of the read
		 * before, the writer goes on (torn_sync notes) and stops before it */
		write_n(w, torn_sync);
		host_now(ctx, w);
		torn_done = true;
		return;
	}
	if (torn_done || cycle_plan != 1 || (torn_sync && torn_chunks))
		return;
	uint64_t step = w->step;
	w->step = torn_step; /* the burst's pace: as before, or 10 us a note */
	if (torn_chunks++ == 0)
		write_n(w, torn_n);
	else if (torn_every)
		write_n(w, torn_every);
	w->step = step;
	host_now(ctx, w);
	if (!torn_sync && (!torn_every || torn_chunks >= 6))
		torn_done = true; /* trace stop */
}

static void test_torn_by_stop(void)
{
	static const unsigned sizes[] = { 30, 70, 160, 700, 5000 };

	for (unsigned k = 0; k < 6 * sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct nxw w;
		struct tt_nuttx *rd = start_hz(&w, 2048, 1, 1);
		char what[128];

		torn_n = sizes[k / 6];
		torn_every = k % 6 < 4 && k % 2 ? 9 : 0;
		torn_step = k % 6 >= 2 && k % 6 != 4 ? 10 : 0;
		/* the full read after the lap torn too: the writer went on for a lap and more
		 * after it was planned, and stopped before it (before: a bad note) */
		torn_sync = k % 6 >= 4 ? 1000 : 0;
		torn_chunks = 0;
		torn_done = false;
		write_n(&w, 7); /* new notes: the next cycle reads data after its control read */
		CHECK_EQ(cycle_hook_at_host(rd, &w, torn_hook), TT_NUTTX_DONE);
		CHECK(torn_chunks > 0);
		torn_done = true;
		stopped_polls(rd, &w); /* stopped for good */
		write_n(&w, 20); /* trace start again (no clear): the notes after the stop */
		CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
		snprintf(what, sizeof(what), "torn by trace stop, %u notes%s%s%s", torn_n,
			 torn_every ? " and more during the read" : "",
			 torn_sync ? " and 1000 before the full read" : "",
			 torn_step ? " 10 us apart" : "");
		report_gaps(what);
		check_ranges();
		CHECK_MSG(tt_nuttx_stats(rd)->bad_records == 0, "%s: %llu bad records", what,
			  (unsigned long long)tt_nuttx_stats(rd)->bad_records);
		tt_nuttx_free(rd);
		nxw_free(&w);
	}
}

/* A burst far faster than anything read before (notes 1-5 ticks apart where they were 1-5000),
 * after a quiet spell with the reader away (0.1 s of clock, no notes), then slower notes
 * again: the gap's range holds the burst (before: its upper bound came from the fastest poll
 * seen, 2.5 ms a note, and held 465 where 19,900 were lost), and its estimate, between the mean
 * rate's reading and the burst's, lies within a factor of 10 of it. kept: slow notes after the
 * burst. */
static void test_fast_burst(unsigned burst, unsigned kept)
{
	struct nxw w;
	struct tt_nuttx *rd = start_hz(&w, 4096, 1, 1);
	char what[96];

	w.time += 100000; /* quiet, the reader away */
	w.div = 1000;
	write_n(&w, burst);
	w.div = 0;
	write_n(&w, kept);
	CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	write_n(&w, 20);
	CHECK_EQ(cycle_at_host(rd, &w), TT_NUTTX_DONE);
	snprintf(what, sizeof(what), "burst of %u notes 1-5 ticks apart, %u slow after", burst, kept);
	report_gaps(what);
	/* the estimate between the mean rate's reading and the burst's, within a factor of 10 of
	 * the truth (before: the mean rate's alone, 60-570 times low), its basis saying so */
	for (size_t i = 0; i < lg.n; i++) {
		if (lg.r[i].kind != TT_REC_GAP)
			continue;
		const struct nxrec *g = &lg.r[i];
		CHECK_MSG(g->lost * 10 >= burst && g->lost <= burst * 10 && strstr(g->basis, "burst"),
			  "%s: reported %llu (%s)", what, (unsigned long long)g->lost, g->basis);
	}
	check_ranges();
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 1);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

int main(void)
{
	test_fast_burst(20000, 0);
	test_fast_burst(20000, 10);
	test_fast_burst(3000, 40);
	test_torn_by_stop();
	test_start_burst();
	test_start_burst_during_read();
	test_start_burst_after_idle();
	test_laps_slow_clock();
	free(lg.r);
	free(tw);
	return tt_test_done();
}
