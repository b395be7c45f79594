/* tests/nuttx/nxlive.c: see nxlive.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "nxlive.h"

struct nxlog lg;

/* Times of every record written, in order (strictly increasing): seq = index. */
uint64_t *tw;
size_t ntw, captw;


void write_one(struct nxw *w, uint32_t i, bool commit)
{
	uint8_t rec[256];
	uint64_t t = w->time;
	unsigned len = nxw_any(w, rec, i);

	if (ntw == captw) {
		captw = captw ? 2 * captw : 1024;
		tw = realloc(tw, captw * sizeof(*tw));
		if (!tw)
			abort();
	}
	tw[ntw++] = t;
	if (nxw_begin(w, rec, len) && commit)
		nxw_commit(w);	/* mode 0/2 stores nothing when full: the record is lost */
}

void write_n(struct nxw *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		write_one(w, (uint32_t)ntw, true);
}

long seq_of(uint64_t t)
{
	size_t lo = 0, hi = ntw;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (tw[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ntw && tw[lo] == t ? (long)lo : -1;
}

uint32_t rnd_state = 1;
uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

unsigned cycle_plan;

/* len bytes at addr into dst as a probe reads them: aligned 32-bit words whole, in chunks that
 * end on word boundaries, the writer (hook) running between any two. 0 or -1 (outside RAM). */
static int read_piece(struct nxw *w, uint64_t addr, uint8_t *dst, uint32_t len, hook_fn hook,
		      void *ctx)
{
	uint32_t done = 0;
	while (done < len) {
		uint32_t c = len - done;
		if (hook) {
			uint64_t a = addr + done;
			uint32_t room = (uint32_t)(4 - a % 4) + 4 * rnd(c / 4 + 1);
			c = room < c ? room : c;
			hook(w, ctx);
		}
		if (nxw_read(w, addr + done, dst + done, c) < 0)
			return -1;
		done += c;
	}
	return 0;
}

int read_range(struct nxw *w, const struct tt_plan *p, unsigned i, hook_fn hook, void *ctx)
{
	const struct tt_range *r = &p->r[i];
	uint32_t start, n, a;
	if (r->kind == TT_RANGE_FIXED)
		return read_piece(w, r->addr, r->dst, r->len, hook, ctx);
	/* a ring up to a pointer read earlier in the plan: its one or two pieces */
	CHECK(tt_range_ptr_valid(p, i));
	n = tt_range_ptr_span(r, p->r[r->ptr_range].dst + r->ptr_off, &start);
	a = n < r->len - start ? n : r->len - start;
	if (read_piece(w, r->addr + start, r->dst + (r->dst_linear ? 0 : start), a, hook, ctx) < 0)
		return -1;
	return read_piece(w, r->addr, r->dst + (r->dst_linear ? a : 0), n - a, hook, ctx);
}

int cycle(struct tt_nuttx *rd, struct nxw *w, hook_fn hook, void *ctx)
{
	for (int guard = 0; guard < 100; guard++) {
		struct tt_plan p;
		int rc;

		cycle_plan = (unsigned)guard;

		tt_nuttx_plan(rd, &p);
		CHECK(p.n >= 1 && p.n <= TT_PLAN_MAX);
		for (unsigned i = 0; i < p.n; i++)
			CHECK_EQ(read_range(w, &p, i, hook, ctx), 0);
		rc = tt_nuttx_ingest(rd, nxlog_cb, &lg);
		if (rc != TT_NUTTX_MORE)
			return rc;
	}
	CHECK(!"cycle did not end");
	return -1;
}

struct tt_nuttx *reader(struct nxw *w, bool at_now)
{
	struct tt_nuttx_config c = { .driver_addr = w->drv, .layout = w->lo,
				     .start_at_now = at_now };
	/* the suites run again with NX_PTR_RANGES=1: busy polls then one read */
	c.ptr_ranges = getenv("NX_PTR_RANGES") != NULL;
	struct tt_nuttx *rd = NULL;
	const char *why = NULL;

	CHECK_EQ(tt_nuttx_new(&c, &rd, &why), 0);
	return rd;
}

/* Whether check_sequence holds estimates to 25% of the truth (not where the writer paused with
 * its clock running: the time stamps then say more time than notes; the range must hold). */
bool est_within_25 = true;

/* Checks lg against tw: events in order, each once, missing ones inside gaps. Returns events. */
size_t check_sequence(bool allow_resets)
{
	long next = -1;
	uint64_t gap_lost = 0, gap_lower = 0, gap_upper = 0;
	bool gap = false, gap_exact = true, gap_est = false;
	size_t events = 0;

	for (size_t i = 0; i < lg.n; i++) {
		const struct nxrec *r = &lg.r[i];
		if (r->kind == TT_REC_GAP) {
			gap = true;
			gap_lost += r->lost;
			gap_exact = gap_exact && r->exact;
			gap_est = gap_est || (!r->exact && r->basis[0]);
			if (!r->exact && r->upper) {
				CHECK_MSG(r->lower <= r->lost && r->lost <= r->upper,
					  "gap %zu: estimate %llu outside [%llu, %llu]", i,
					  (unsigned long long)r->lost, (unsigned long long)r->lower,
					  (unsigned long long)r->upper);
				gap_lower += r->lower;
				gap_upper = gap_upper == UINT64_MAX || r->upper == UINT64_MAX
						    ? UINT64_MAX : gap_upper + r->upper;
			} else {
				gap_lower += r->lost;
				gap_upper = r->exact && gap_upper != UINT64_MAX ? gap_upper + r->lost
										: UINT64_MAX;
			}
			continue;
		}
		if (r->kind == TT_REC_RESET) {
			CHECK(allow_resets);
			next = -1;
			continue;
		}
		long s = seq_of(r->ts ? r->time : r->time);
		CHECK(s >= 0);
		if (next >= 0) {
			if (s < next) {
				FAIL("record %zu: seq %ld after %ld (duplicate or out of "
					"order)", i, s, next - 1);
			} else if (s > next) {
				long missing = s - next;
				if (gap && ((uint64_t)missing < gap_lower ||
					    (uint64_t)missing > gap_upper))
					FAIL("record %zu: %ld missing, outside the range [%llu, %llu] "
					     "(reported %llu)", i, missing,
					     (unsigned long long)gap_lower,
					     (unsigned long long)gap_upper,
					     (unsigned long long)gap_lost);
				if (!gap) {
					FAIL("record %zu: %ld records missing without a "
						"gap", i, missing);
				} else if (gap_exact && (uint64_t)missing != gap_lost) {
					FAIL("record %zu: exact gap of %llu but %ld "
						"missing", i, (unsigned long long)gap_lost, missing);
				} else if (gap_est && est_within_25 && (gap_lost * 4 < (uint64_t)missing * 3 ||
						       gap_lost * 4 > (uint64_t)missing * 5) &&
					   (gap_lost > (uint64_t)missing + 2 ||
					    gap_lost + 2 < (uint64_t)missing)) {
					/* an estimate: within 25%; for a few notes the sizes of
					 * the lost ones, not the rate, decide: within 2 */
					FAIL("record %zu: estimate %llu not within 25%% "
						"of %ld missing", i, (unsigned long long)gap_lost,
						missing);
				} else if (!gap_exact && !gap_est && gap_lost > (uint64_t)missing) {
					FAIL("record %zu: gap lower bound %llu > %ld "
						"missing", i, (unsigned long long)gap_lost, missing);
				}
			} else if (gap && gap_lost && gap_exact) {
				FAIL("record %zu: exact gap of %llu but none missing", i,
					(unsigned long long)gap_lost);
			}
		}
		next = s + 1;
		gap = false;
		gap_lost = 0;
		gap_lower = 0;
		gap_upper = 0;
		gap_exact = true;
		gap_est = false;
		events++;
	}
	return events;
}

void reset_log(void)
{
	nxlog_clear(&lg);
	ntw = 0;
}

