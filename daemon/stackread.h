/* daemon/stackread.h: reading the threads' painted stacks from target RAM within a link budget.
 *
 * The poller (target.c) owns one per target whose format paints its stacks
 * (tt_analysis_ops.stack_fill) and asks it, at the end of each poll cycle, whether a stack read
 * is due; the reads themselves follow proto/stackscan.h (first scans, then a window below each
 * high-water mark). The budget is a token bucket in bytes/s: it fills with time, holds at most
 * one second of budget (and never less than a window, so a window always fits), and a read is
 * started only when a window's worth is in it (fewer, larger reads: each costs a round trip), so
 * over any span the bytes read are at most budget * span + the bucket. Once every stack has its
 * mark, the windows are read again at most once a second (TT_STACK_RECHECK_MS): a budget larger
 * than the windows need is not spent. What it costs is counted
 * (bytes, and bytes/s over the last ten seconds). Single-threaded: the loop thread.
 */
#ifndef TT_STACKREAD_H
#define TT_STACKREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "../probe/probe.h"
#include "../proto/reader.h"
#include "../proto/stackscan.h"

#define TT_STACK_BUDGET_DEFAULT 512u /* bytes/s: ~1% of a slow (60 KiB/s) JTAG link */
#define TT_STACK_RECHECK_MS 1000u

struct tt_stackread;

/* fill: the format's (tt_analysis_ops.stack_fill); budget in bytes/s (> 0). 0 or -ENOMEM;
 * free with tt_stackread_free. */
int tt_stackread_new(uint32_t fill, uint32_t budget, uint64_t now_ms, struct tt_stackread **out);
void tt_stackread_free(struct tt_stackread *sr);

typedef void (*tt_stackread_cb)(void *arg);

/* The end of a poll cycle: the threads the reader r knows (rd its state) are taken as the
 * stacks to follow and, when a read is due, it is started on probe p (which must be idle):
 * true, and cb(arg) runs once it completed (never inside this call; its failure is the stack
 * figures', never the caller's); false: nothing was started. */
bool tt_stackread_start(struct tt_stackread *sr, struct tt_probe *p, const struct tt_reader_ops *r,
			const void *rd, tt_stackread_cb cb, void *arg);
/* The target was reset: every stack is scanned anew. */
void tt_stackread_restart(struct tt_stackread *sr);

/* The figures (borrowed until the next call into sr), and what reading them costs at now_ms. */
const struct tt_stackscan *tt_stackread_scan(const struct tt_stackread *sr);
void tt_stackread_cost(const struct tt_stackread *sr, uint64_t now_ms,
		       struct tt_analysis_scan_cost *out);
/* Bytes read for stacks so far. */
uint64_t tt_stackread_bytes(const struct tt_stackread *sr);

#endif
