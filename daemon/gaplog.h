/* daemon/gaplog.h: losses in the journal. A target's gap records, logged so that
 * `journalctl -u tracetapd` shows every loss without a line per gap: the first gap of a quiet
 * spell is a line of its own; gaps within the next TT_GAPLOG_WINDOW_MS are summed into one
 * line when the window has passed (on the next gap or tick), so a target lapped at every poll
 * writes one line per window, with the number of gaps and events in it.
 */
#ifndef TT_GAPLOG_H
#define TT_GAPLOG_H

#include <stdint.h>

#include "../proto/record.h"

#define TT_GAPLOG_WINDOW_MS 10000

struct tt_gaplog {
	uint64_t logged_at;     /* when the last line was written (0: never) */
	uint64_t gaps, exact, estimated; /* held back since then */
	uint64_t floors;        /* of `estimated`: counts only known not to be lower */
	const char *last_reason; /* static (a gap's reason) */
};

/* A gap of target `name` at now_ms (a monotonic clock): logged now, or held for the window's
 * line. `name` and `gap` are borrowed for the call. */
void tt_gaplog_add(struct tt_gaplog *l, const char *name, const struct tt_gap *gap,
		   uint64_t now_ms);
/* Writes the held gaps' line once the window has passed (force: now, e.g. when the target
 * stops). */
void tt_gaplog_tick(struct tt_gaplog *l, const char *name, uint64_t now_ms, int force);

#endif
