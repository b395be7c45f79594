/* daemon/stackread.c: painted stacks read within a link budget (stackread.h). */
#include "stackread.h"

#include <errno.h>
#include <stdlib.h>

#define RATE_SPAN_MS 10000u /* bytes/s is measured over the last 10 to 20 seconds */

struct tt_stackread {
	struct tt_stackscan scan;
	uint32_t budget;    /* bytes/s */
	double tokens;      /* bytes the budget allows now */
	uint64_t last_ms;   /* when tokens were last filled */
	uint64_t bytes;     /* read for stacks, successful or not (they cost the link) */
	uint64_t rate_t0, rate_b0, rate_t1, rate_b1; /* two checkpoints for bytes/s */
	uint32_t pending;   /* bytes of the read under way */
	uint64_t round_ms;  /* when the windows were last read (a round: every stack's turn) */
	unsigned round_left; /* stacks whose turn is still to come in this round */
	struct tt_plan plan; /* the read under way */
	tt_stackread_cb cb;
	void *cb_arg;
};

static double bucket(const struct tt_stackread *sr)
{
	return sr->budget > TT_STACKSCAN_WINDOW ? sr->budget : TT_STACKSCAN_WINDOW;
}

int tt_stackread_new(uint32_t fill, uint32_t budget, uint64_t now_ms, struct tt_stackread **out)
{
	struct tt_stackread *sr = calloc(1, sizeof(*sr));

	if (!sr)
		return -ENOMEM;
	tt_stackscan_init(&sr->scan, fill);
	sr->budget = budget ? budget : 1;
	sr->last_ms = sr->rate_t0 = sr->rate_t1 = now_ms;
	*out = sr;
	return 0;
}

void tt_stackread_free(struct tt_stackread *sr)
{
	free(sr);
}

static void add_thread(void *arg, const struct tt_an_thread *t)
{
	tt_stackscan_thread(arg, t->id, t->stack_start, t->stack_size);
}

/* Whether a read is due at now_ms, and its plan in sr->plan. */
static bool plan(struct tt_stackread *sr, const struct tt_reader_ops *r, const void *rd,
		 uint64_t now_ms)
{
	double cap = bucket(sr);

	sr->tokens += (double)(now_ms - sr->last_ms) * sr->budget / 1000.0;
	sr->last_ms = now_ms;
	if (sr->tokens > cap)
		sr->tokens = cap;
	if (sr->tokens < TT_STACKSCAN_WINDOW || !rd || !r->analysis || !r->analysis->threads)
		return false;
	tt_stackscan_begin(&sr->scan);
	if (r->analysis->threads(rd, add_thread, &sr->scan) < 0)
		return false;
	if (!sr->round_left && !tt_stackscan_scanning(&sr->scan)) {
		if (now_ms - sr->round_ms < TT_STACK_RECHECK_MS)
			return false;
		sr->round_ms = now_ms; /* a new round of windows */
		sr->round_left = tt_stackscan_readable(&sr->scan);
	}
	sr->pending = tt_stackscan_plan(&sr->scan, (uint32_t)sr->tokens, &sr->plan);
	if (!sr->pending)
		return false;
	sr->round_left = sr->plan.n < sr->round_left ? sr->round_left - sr->plan.n : 0;
	sr->tokens -= sr->pending;
	return true;
}

/* The read completed, or failed (its bytes counted all the same: asked of the link). */
static void done(struct tt_stackread *sr, int status, uint64_t now_ms)
{
	sr->bytes += sr->pending;
	sr->pending = 0;
	tt_stackscan_ingest(&sr->scan, status);
	if (now_ms - sr->rate_t1 >= RATE_SPAN_MS) {
		sr->rate_t0 = sr->rate_t1;
		sr->rate_b0 = sr->rate_b1;
		sr->rate_t1 = now_ms;
		sr->rate_b1 = sr->bytes;
	}
}

static void on_read(struct tt_probe *p, int status, void *arg)
{
	struct tt_stackread *sr = arg;

	done(sr, status, uv_now(p->loop));
	sr->cb(sr->cb_arg);
}

bool tt_stackread_start(struct tt_stackread *sr, struct tt_probe *p, const struct tt_reader_ops *r,
			const void *rd, tt_stackread_cb cb, void *arg)
{
	uint64_t now = uv_now(p->loop);
	int rc;

	if (!plan(sr, r, rd, now))
		return false;
	sr->cb = cb;
	sr->cb_arg = arg;
	rc = tt_probe_read(p, &sr->plan, on_read, sr);
	if (rc < 0) {
		done(sr, rc, now);
		return false;
	}
	return true;
}

void tt_stackread_restart(struct tt_stackread *sr)
{
	tt_stackscan_restart(&sr->scan);
}

const struct tt_stackscan *tt_stackread_scan(const struct tt_stackread *sr)
{
	return &sr->scan;
}

void tt_stackread_cost(const struct tt_stackread *sr, uint64_t now_ms,
		       struct tt_analysis_scan_cost *out)
{
	*out = (struct tt_analysis_scan_cost){ .budget = sr->budget, .bytes = sr->bytes,
					       .threads = sr->scan.n,
					       .threads_over = (unsigned)sr->scan.overflow };
	if (now_ms > sr->rate_t0)
		out->bytes_per_s = (double)(sr->bytes - sr->rate_b0) * 1000.0 /
				   (double)(now_ms - sr->rate_t0);
}

uint64_t tt_stackread_bytes(const struct tt_stackread *sr)
{
	return sr->bytes;
}
