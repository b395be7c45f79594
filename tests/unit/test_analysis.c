/* tests/unit/test_analysis.c: the analysis's live semantics (analysis/analysis.h) on a
 * hand-made record stream whose every figure is worked out here: time goes to whoever ran
 * (each event's run), a gap makes the interval across it unknown time (never a thread's) and
 * restarts the derivations, a reset starts a new epoch and keeps the totals, and the tables
 * are bounded (what does not fit is counted). No format ops: the records alone. Then ThreadX's
 * rules on hand-made entries: a priority inversion (a thread blocked on a mutex a less urgent
 * thread owns), made non-deterministic by a third thread of a priority between the two, with
 * the events that open and end it; and the same without the third thread. NuttX's rules: a
 * task switched out still ready to run is preempted, one that blocks is suspended, and a task's
 * life runs from its NOTE_START to its NOTE_STOP. What each format can give at all ("has").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "analysis.h"
#include "nuttx.h"
#include "qnx.h"
#include "threadx.h"

/* An event at time t from thread th (0: an interrupt) after which run/run_thread ran. */
static void ev(struct tt_analysis *a, uint32_t id, uint32_t th, uint64_t t, int run,
	       uint32_t run_thread)
{
	struct tt_record r = { .kind = TT_REC_EVENT };

	r.u.ev = (struct tt_event){ .id = id, .name = "E", .ctx = th ? TT_CTX_THREAD : TT_CTX_ISR,
				    .core = -1, .thread = th, .thread_name = th == 1 ? "one" : "two",
				    .prio = -1, .threshold = -1, .time = t, .run = (uint8_t)run,
				    .run_thread = run_thread };
	tt_analysis_record(a, &r);
}

static void gap(struct tt_analysis *a, uint64_t lost)
{
	struct tt_record r = { .kind = TT_REC_GAP };

	r.u.gap = (struct tt_gap){ .lost = lost, .exact = true, .reason = "lapped" };
	tt_analysis_record(a, &r);
}

static void reset(struct tt_analysis *a)
{
	struct tt_record r = { .kind = TT_REC_RESET };

	r.u.reset.reason = "header changed";
	tt_analysis_record(a, &r);
}

static uint64_t ticks_of(const struct tt_analysis *a, uint32_t id)
{
	struct tt_analysis_thread t;

	for (unsigned i = 0; tt_analysis_thread_at(a, i, &t) == 0; i++)
		if (t.id == id)
			return t.ticks;
	return UINT64_MAX;
}

#define L 0x1000u /* priority 20: owns the mutex */
#define H 0x2000u /* priority 5: blocks on it */
#define M 0x3000u /* priority 10: runs meanwhile */
#define Z 0x4000u /* priority 30: less urgent than the owner */
#define MUTEX 0x9000u

/* A ThreadX entry of thread th (priority prio): id and info words, as the reader gives it. */
static void tx(struct tt_analysis *a, uint32_t th, int prio, uint32_t id, uint32_t i1, uint32_t i3,
	       uint64_t t)
{
	uint32_t raw[8] = { th, (uint32_t)prio, id, (uint32_t)t, i1, 0, i3, 0 };
	struct tt_record r = { .kind = TT_REC_EVENT };

	r.u.ev = (struct tt_event){ .id = id, .name = "E", .ctx = TT_CTX_THREAD, .core = -1,
				    .thread = th, .prio = prio, .threshold = -1, .time = t,
				    .run = TT_RUN_THREAD, .run_thread = th, .nraw = 8, .raw = raw };
	tt_analysis_record(a, &r);
}

/* L takes the mutex, H blocks on it (52: MUTEX_GET, info 3 the owner), maybe M runs, L puts it
 * (57: MUTEX_PUT, info 3 the own count 1), H runs again: the inversion's end. */
static void inversion(uint32_t third, int third_prio, uint64_t *det, uint64_t *bad, char *json,
		      size_t cap)
{
	struct tt_analysis *a;
	struct tt_analysis_totals t;

	REQUIRE(tt_analysis_new(&tt_threadx_analysis, NULL, &a) == 0);
	tx(a, L, 20, 68, 0, 0, 10);           /* event 0: L runs */
	tx(a, H, 5, 68, 0, 0, 20);            /* event 1: H runs */
	tx(a, H, 5, 52, MUTEX, L, 30);        /* event 2: H blocks on L's mutex: opens */
	if (third)
		tx(a, third, third_prio, 68, 0, 0, 40); /* a third thread runs meanwhile */
	tx(a, L, 20, 57, MUTEX, 1, 50);       /* L releases it */
	tx(a, H, 5, 68, 0, 0, 60);            /* H runs: the end */
	tt_analysis_totals(a, &t);
	*det = t.inversions;
	*bad = t.bad_inversions;
	tt_analysis_json(a, json, cap);
	tt_analysis_free(a);
}

/* A NuttX note of task th on core 0 at t: NOTE_START (0), NOTE_STOP (1), NOTE_SUSPEND (2) with
 * its state's name, NOTE_RESUME (3). */
static void nx(struct tt_analysis *a, uint32_t id, uint32_t th, uint64_t t, const char *state)
{
	struct tt_record r = { .kind = TT_REC_EVENT };

	r.u.ev = (struct tt_event){ .id = id, .name = "N", .ctx = TT_CTX_THREAD, .core = 0,
				    .thread = th, .prio = 100, .threshold = -1, .time = t };
	if (state) {
		r.u.ev.nargs = 1;
		r.u.ev.args[0] = (struct tt_arg){ .name = "state", .text = state, .value = 2,
						  .kind = TT_ARG_ENUM };
	}
	tt_analysis_record(a, &r);
}

static void nuttx_rules(void)
{
	struct tt_analysis *a;
	struct tt_analysis_totals t;
	char json[4096];

	REQUIRE(tt_analysis_new(&tt_nuttx_analysis, NULL, &a) == 0);
	nx(a, 0, 7, 100, NULL);         /* task 7 starts */
	nx(a, 3, 7, 110, NULL);         /* and runs */
	nx(a, 2, 7, 150, "ready");      /* preempted */
	nx(a, 3, 8, 150, NULL);
	nx(a, 2, 8, 170, "wait_sem");   /* 8 blocks */
	nx(a, 3, 7, 170, NULL);
	nx(a, 2, 7, 200, "running");    /* preempted again (SMP: still running elsewhere) */
	nx(a, 3, 8, 200, NULL);
	nx(a, 2, 8, 230, "wait_sig");   /* 8 blocks */
	nx(a, 3, 7, 230, NULL);
	nx(a, 1, 7, 260, NULL);         /* 7 ends */
	tt_analysis_totals(a, &t);
	CHECK_EQ(t.preemptions, 2);
	CHECK_EQ(t.suspensions, 2);
	tt_analysis_json(a, json, sizeof(json));
	/* 7 ran 110-150, 170-200, 230-260 */
	CHECK(strstr(json, "\"id\":7,\"name\":null,\"priority\":100,\"ticks\":100,") != NULL);
	CHECK(strstr(json, "\"preemptions\":2,\"suspensions\":0,") != NULL);
	CHECK(strstr(json, "\"preemptions\":0,\"suspensions\":2,") != NULL);
	CHECK(strstr(json, "\"life\":{\"start\":100,\"stop\":260,\"ticks\":160}") != NULL);
	tt_analysis_free(a);
}

static struct tt_analysis_inversion inv_at(const struct tt_analysis *a, uint64_t i)
{
	struct tt_analysis_inversion v = { .state = 99 };

	CHECK_EQ(tt_analysis_inversion_at(a, i, &v), 0);
	return v;
}

/* How long an inversion lasts, by the events' time stamps: open (its age, to the newest event)
 * until TraceX's end, the blocked thread's first event after the release: its own suspension
 * right after it blocked (ThreadX writes one) does not end it. Events named by their record's
 * seq (the daemon's, here 100 on); a gap cuts the one open across it. */
static void inversion_durations(void)
{
	struct tt_analysis *a;
	struct tt_analysis_inversion v;
	char text[4096];

	REQUIRE(tt_analysis_new(&tt_threadx_analysis, NULL, &a) == 0);
	tx(a, L, 20, 68, 0, 0, 10);           /* seq 1: L runs */
	tx(a, H, 5, 68, 0, 0, 20);            /* seq 2: H runs */
	uint32_t raw[8] = { H, 5, 52, 30, MUTEX, 0, L, 0 };
	struct tt_record r = { .kind = TT_REC_EVENT };
	r.u.ev = (struct tt_event){ .id = 52, .name = "MUTEX_GET", .ctx = TT_CTX_THREAD,
				    .core = -1, .thread = H, .prio = 5, .threshold = -1,
				    .time = 30, .run = TT_RUN_THREAD, .run_thread = H, .nraw = 8,
				    .raw = raw };
	tt_analysis_record_seq(a, &r, 100);  /* H blocks on L's mutex: opens (seq 100) */
	CHECK_EQ(tt_analysis_ninversions(a), 1);
	v = inv_at(a, 0);
	CHECK(v.state == TT_AN_INV_OPEN && v.start_seq == 100 && v.start_time == 30 &&
	      v.ticks == 0 && v.number == 0);
	tx(a, H, 5, 2, H, 0, 31);             /* seq 101: H suspends (not its end) */
	tx(a, L, 20, 68, 0, 0, 500);          /* seq 102: L runs with the mutex */
	v = inv_at(a, 0);
	CHECK(v.state == TT_AN_INV_OPEN && v.ticks == 470); /* its age: 500 - 30 */
	tx(a, L, 20, 57, MUTEX, 1, 1000);     /* seq 103: L releases it */
	CHECK(inv_at(a, 0).state == TT_AN_INV_OPEN);
	tx(a, H, 5, 68, 0, 0, 1200);          /* seq 104: H runs: the end */
	v = inv_at(a, 0);
	CHECK(v.state == TT_AN_INV_CLOSED && v.deterministic && v.end_seq == 104 &&
	      v.end_time == 1200 && v.end_event == 6 && v.ticks == 1170);
	tx(a, H, 5, 68, 0, 0, 5000);          /* later events do not change a closed one */
	CHECK_EQ(inv_at(a, 0).ticks, 1170);
	/* a second one, cut by a gap: what was seen of it (a lower bound) */
	tx(a, H, 5, 52, MUTEX, L, 6000);      /* seq 106 */
	tx(a, L, 20, 68, 0, 0, 6400);         /* seq 107 */
	gap(a, 3);                            /* seq 108 */
	tx(a, H, 5, 68, 0, 0, 9000);          /* H's event after the gap: not its end */
	CHECK_EQ(tt_analysis_ninversions(a), 2);
	v = inv_at(a, 1);
	CHECK(v.state == TT_AN_INV_CUT && v.number == 1 && v.start_seq == 106 && v.ticks == 400);
	CHECK_EQ(tt_analysis_inversion_at(a, 2, &v), -ENOENT);
	tt_analysis_text(a, text, sizeof(text));
	CHECK_SUBSTR(text, "             2           6                  1170   deterministic");
	CHECK_SUBSTR(text, "             8         cut   >=              400   deterministic");
	tt_analysis_free(a);
}

/* /metrics of a target with 70 threads: 64 lines per thread family, the rest in one
 * thread="(other)" line that sums them (bounded label cardinality). */
static void metrics_bounded(void)
{
	struct tt_analysis *a;
	const struct tt_analysis *an[1];
	const char *names[1] = { "t\"1" };
	static char text[1 << 18];
	unsigned lines = 0, other = 0;

	REQUIRE(tt_analysis_new(NULL, &(struct tt_analysis_limits){ .max_threads = 100 }, &a) == 0);
	for (uint32_t i = 0; i < 70; i++)
		ev(a, 10, 1000 + i, 10 * i, i ? TT_RUN_THREAD : TT_RUN_NONE, 1000 + i - 1);
	an[0] = a;
	size_t n = tt_analysis_metrics(names, an, 1, text, sizeof(text));
	REQUIRE(n < sizeof(text));
	for (char *l = text; (l = strstr(l, "\ntracetap_thread_cpu_ticks_total{")) != NULL; l++) {
		lines++;
		other += !strncmp(strstr(l, "thread=") + 7, "\"(other)\"", 9);
	}
	CHECK_EQ(lines, TT_ANALYSIS_METRIC_THREADS + 1);
	CHECK_EQ(other, 1);
	/* the target's name is a label value: its quote escaped */
	CHECK_SUBSTR(text, "tracetap_interrupts_total{target=\"t\\\"1\"} 0\n");
	/* threads 64..68 ran 10 ticks each (thread 69 has not run yet) */
	CHECK_SUBSTR(text, "thread=\"(other)\"} 50\n");
	tt_analysis_free(a);
}

/* CPU load over time: 100 ns buckets, 4 kept; intervals split at bucket ends. */
static void series(void)
{
	struct tt_analysis *a;
	char json[8192];
	static const struct { uint64_t ns; int run; uint32_t th; } evs[] = {
		{ 0, TT_RUN_NONE, 0 }, { 150, TT_RUN_THREAD, 1 }, { 230, TT_RUN_ISR, 0 },
		{ 450, TT_RUN_THREAD, 2 },
	};

	REQUIRE(tt_analysis_new(NULL, &(struct tt_analysis_limits){ .series_buckets = 4,
								     .bucket_ns = 100 }, &a) == 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct tt_record r = { .kind = TT_REC_EVENT };
		r.u.ev = (struct tt_event){ .id = 1, .name = "E", .ctx = TT_CTX_THREAD, .core = -1,
					    .thread = 1, .prio = -1, .threshold = -1,
					    .time = evs[i].ns, .ns = evs[i].ns, .has_ns = true,
					    .run = (uint8_t)evs[i].run, .run_thread = evs[i].th };
		tt_analysis_record(a, &r);
	}
	tt_analysis_json(a, json, sizeof(json));
	/* buckets 0..4: thread 1 100 | 50 + interrupt 50 | interrupt 30 + thread 2 70 | thread 2
	 * 100 | thread 2 50; the ring keeps 1..4; columns: threads 1, 2, other, interrupt, idle,
	 * unknown */
	CHECK_SUBSTR(json, "\"series\":{\"bucket_ns\":100,\"first_bucket\":1,\"threads\":[1,2],");
	CHECK_SUBSTR(json, "\"rows\":[[50,0,0,50,0,0],[0,70,0,30,0,0],[0,100,0,0,0,0],"
			   "[0,50,0,0,0,0]]}");
	tt_analysis_free(a);
}

/* "has": the figures a format can give at all, from the flags its classify can set (written
 * out here from each format's events): QNX has no stacks, inversions, suspensions or
 * preemptions, NuttX its preemptions from its own notes; records alone have none of them. */
static void has(void)
{
	static const struct { const struct tt_analysis_ops *ops; const char *want; } c[] = {
		{ &tt_threadx_analysis, "\"has\":[\"suspensions\",\"resumptions\",\"preemptions\","
					"\"time_slices\",\"inversions\",\"stack\"]" },
		{ &tt_nuttx_analysis, "\"has\":[\"suspensions\",\"preemptions\",\"irqs\",\"calls\","
				      "\"life\"]" },
		{ &tt_qnx_analysis, "\"has\":[\"irqs\",\"calls\",\"states\"]" },
		{ NULL, "\"has\":[]" },
	};
	char json[8192];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct tt_analysis *a;
		REQUIRE(tt_analysis_new(c[i].ops, NULL, &a) == 0);
		tt_analysis_json(a, json, sizeof(json));
		CHECK_SUBSTR(json, c[i].want);
		tt_analysis_free(a);
	}
}

int main(void)
{
	struct tt_analysis *a;
	struct tt_analysis_totals t;
	char json[4096];

	REQUIRE(tt_analysis_new(NULL, &(struct tt_analysis_limits){ .max_threads = 2 }, &a) == 0);
	ev(a, 10, 1, 100, TT_RUN_NONE, 0);      /* first event: nothing before it */
	ev(a, 10, 1, 150, TT_RUN_THREAD, 1);    /* 50 to thread 1 */
	ev(a, 11, 0, 170, TT_RUN_THREAD, 1);    /* 20 to thread 1, then an interrupt */
	ev(a, 11, 2, 200, TT_RUN_ISR, 0);       /* 30 to the interrupt */
	gap(a, 7);
	ev(a, 10, 2, 1000, TT_RUN_THREAD, 2);   /* 800 across the gap: unknown, not thread 2's */
	ev(a, 10, 2, 1040, TT_RUN_THREAD, 2);   /* 40 to thread 2 */
	ev(a, 10, 2, 1045, TT_RUN_IDLE, 0);     /* 5 idle */
	tt_analysis_totals(a, &t);
	CHECK_EQ(t.events, 7);
	CHECK_EQ(t.gaps, 1);
	CHECK_EQ(t.lost, 7);
	CHECK_EQ(t.unknown_ticks, 800);
	CHECK_EQ(t.isr_ticks, 30);
	CHECK_EQ(t.idle_ticks, 5);
	CHECK_EQ(t.span_ticks, 945);
	CHECK_EQ(ticks_of(a, 1), 70);
	CHECK_EQ(ticks_of(a, 2), 40);
	CHECK_EQ(t.epochs, 1);

	/* a reset: a new epoch; nothing spans it, the totals so far stay */
	reset(a);
	ev(a, 12, 1, 5, TT_RUN_NONE, 0);
	ev(a, 12, 1, 25, TT_RUN_THREAD, 1);
	tt_analysis_totals(a, &t);
	CHECK_EQ(t.epochs, 2);
	CHECK_EQ(t.events, 9);
	CHECK_EQ(ticks_of(a, 1), 90);
	CHECK_EQ(t.unknown_ticks, 800);
	CHECK_EQ(t.span_ticks, 965);

	/* bounded: a third thread does not fit, and is counted */
	ev(a, 13, 3, 30, TT_RUN_THREAD, 3);
	tt_analysis_totals(a, &t);
	CHECK_EQ(tt_analysis_nthreads(a), 2);
	CHECK(t.overflow_threads >= 1);
	CHECK_EQ(t.other_ticks, 5);
	CHECK_EQ(t.unknown_ticks, 800);

	/* the JSON holds the same figures; snprintf-like length */
	size_t n = tt_analysis_json(a, json, sizeof(json));
	CHECK(n < sizeof(json) && strlen(json) == n);
	CHECK_SUBSTR(json, "\"unknown_ticks\":800");
	CHECK_SUBSTR(json, "\"epochs\":2");
	/* the earlier epoch's totals: 7 events, one gap of 7, 945 ticks */
	CHECK_SUBSTR(json, "\"epoch_start\":{\"events\":7,\"gaps\":1,\"lost\":7,"
			   "\"span_ticks\":945,");
	CHECK_SUBSTR(json, "\"name\":\"one\",\"priority\":-1,\"ticks\":90");
	CHECK_EQ(tt_analysis_json(a, json, 8), n);
	CHECK_EQ(strlen(json), 7);
	tt_analysis_free(a);

	metrics_bounded();
	nuttx_rules();
	series();
	inversion_durations();
	has();

	uint64_t det, bad;
	inversion(M, 10, &det, &bad, json, sizeof(json)); /* M: between 5 and 20 */
	CHECK_EQ(det, 1);
	CHECK_EQ(bad, 1);
	/* opened by event 2 (record 3, time 30), ended by H's event after M ran: 5 (6, 60) */
	CHECK_SUBSTR(json, "\"inversions\":[{\"deterministic\":false,\"state\":\"closed\","
			   "\"mutex\":36864,\"blocked\":8192,\"blocked_priority\":5,"
			   "\"owner\":4096,\"owner_priority\":20,\"start_event\":2,"
			   "\"start_seq\":3,\"start_time\":30,\"end_event\":5,\"end_seq\":6,"
			   "\"end_time\":60,\"duration_ticks\":30}]");
	inversion(0, 0, &det, &bad, json, sizeof(json));
	CHECK_EQ(det, 1);
	CHECK_EQ(bad, 0);
	CHECK_SUBSTR(json, "\"deterministic\":true,\"state\":\"closed\",\"mutex\":36864,"
			   "\"blocked\":8192,\"blocked_priority\":5,\"owner\":4096,"
			   "\"owner_priority\":20,\"start_event\":2,\"start_seq\":3,"
			   "\"start_time\":30,\"end_event\":4,\"end_seq\":5,\"end_time\":60,"
			   "\"duration_ticks\":30}");
	/* Where TraceX is wrong (proto/README-threadx.md "Analysis"): a thread less urgent than the
	 * owner (Z, 30) running while H waits does not prolong H's wait beyond the owner's doing;
	 * TraceX (tml_calculate_priority_inversions: any thread but the owner less urgent than the
	 * blocked one) counts 1 non-deterministic inversion here, tracetap 0. */
	inversion(Z, 30, &det, &bad, json, sizeof(json));
	CHECK_EQ(det, 1);
	CHECK_EQ(bad, 0);
	return tt_test_done();
}
