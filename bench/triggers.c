/* bench/triggers.c: tt-bench-triggers, what the trigger engine costs per record.
 *
 * The daemon's record path is tt_hub_publish then, when a trigger is configured,
 * tt_trig_record (daemon/tracetapd.c on_record). This times that path over the same records
 * (tests/server/synth.c: the ThreadX-like workload, user events, a gap every 1000) three ways:
 * the hub alone (the daemon before triggers), the engine with no trigger (the daemon now, as
 * shipped), and the engine with 10 triggers of every record and state condition kind, none of
 * which fires (firing is rare by design; its cost is the alert and the capture, not the
 * matching). The statistics conditions (stack, inversion, cpu, irq, syscall, silent) cost
 * nothing per record: they are matched on a sample of the live analysis once a second per
 * target (tt_trig_sample_analysis), and the analysis runs for /api/stats anyway. The time
 * is this thread's CPU time, best of 7 interleaved passes, so other load on the machine counts
 * little.
 * usage: tt-bench-triggers [RECORDS]   (default 2000000)
 * Prints: triggers n=0|none|10 records=N ns_per_record=X   and the differences.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "hub.h"
#include "../tests/server/synth.h"
#include "trigger.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const ten[] = {
	"t0: USER_EVENT id=0x1000 info1>=4000000000",
	"t1: USER_EVENT info2=77 info3>1000000",
	"t2: THREAD_RESUME thread=nobody",
	"t3: * text~\"stack overflow\"",
	"t4: QUEUE_SEND prio>200",
	"t5: 70000",
	"t6: gap lost>=1000000000",
	"t7: reset; target=other",
	"t8: halt",
	"t9: NOTE_DUMP_PRINTF text~assert",
};

/* ns per record of publishing n records with engine t (NULL: the hub alone), one pass. */
static double run(uv_loop_t *loop, struct tt_trig *t, size_t n)
{
	struct tt_hub_config hc = { .target = "bench", .history = 100000 };
	struct tt_hub *h;
	struct synth s = { 0 };

	if (tt_hub_new(&hc, &h) < 0)
		exit(1);
	double t0 = cpu_now();
	for (size_t i = 0; i < n; i++) {
		const struct tt_record *r = synth_next(&s);
		uint64_t seq = tt_hub_publish(h, r);
		if (t && tt_trig_active(t))
			tt_trig_record(t, h, seq, r);
	}
	double ns = (cpu_now() - t0) * 1e9 / (double)n;
	tt_hub_free(h);
	uv_update_time(loop);
	return ns;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 2000000;
	uv_loop_t loop;
	struct tt_trig_set none, set;
	struct tt_trig *t0, *t10;
	char err[512];

	uv_loop_init(&loop);
	tt_trig_set_init(&none);
	tt_trig_set_init(&set);
	for (size_t i = 0; i < sizeof(ten) / sizeof(ten[0]); i++) {
		struct tt_trig_def d;
		if (tt_trig_parse(ten[i], &d, err, sizeof(err)) < 0 ||
		    tt_trig_set_add(&set, &d, err, sizeof(err)) < 0) {
			fprintf(stderr, "tt-bench-triggers: %s\n", err);
			return 1;
		}
	}
	if (tt_trig_new(&loop, &none, NULL, NULL, &t0) < 0 ||
	    tt_trig_new(&loop, &set, NULL, NULL, &t10) < 0)
		return 1;
	/* interleaved passes, best of each: drift of the machine hits all three alike */
	double hub = 1e9, zero = 1e9, with10 = 1e9, hub_worst = 0;
	run(&loop, NULL, n / 4); /* warm-up */
	for (int pass = 0; pass < 7; pass++) {
		double a = run(&loop, NULL, n), b = run(&loop, t0, n), c = run(&loop, t10, n);
		hub = a < hub ? a : hub;
		hub_worst = a > hub_worst ? a : hub_worst;
		zero = b < zero ? b : zero;
		with10 = c < with10 ? c : with10;
	}
	printf("triggers n=none records=%zu ns_per_record=%.1f (the hub alone; its passes spread "
	       "over %.1f ns: differences below that are noise)\n", n, hub, hub_worst - hub);
	printf("triggers n=0 records=%zu ns_per_record=%.1f (engine, no trigger: %+.1f ns)\n", n,
	       zero, zero - hub);
	printf("triggers n=10 records=%zu ns_per_record=%.1f (10 triggers: %+.1f ns per record, "
	       "%.1f ns per trigger)\n", n, with10, with10 - hub, (with10 - hub) / 10);
	tt_trig_stop(t0);
	tt_trig_stop(t10);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	return 0;
}
