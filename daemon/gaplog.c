/* daemon/gaplog.c: gap records to log lines, rate-limited per target (see gaplog.h). */
#include "gaplog.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "log.h"

void tt_gaplog_add(struct tt_gaplog *l, const char *name, const struct tt_gap *gap,
		   uint64_t now_ms)
{
	if (l->logged_at && now_ms - l->logged_at < TT_GAPLOG_WINDOW_MS) {
		l->gaps++;
		if (gap->exact)
			l->exact += gap->lost;
		else
			l->estimated += gap->lost;
		if (!gap->exact && gap->basis == NULL)
			l->floors++;
		l->last_reason = gap->reason;
		return;
	}
	tt_gaplog_tick(l, name, now_ms, 1);
	if (gap->exact)
		tt_log(TT_LOG_WARNING, "target %s: %" PRIu64 " events lost (%s; exact)", name,
		       gap->lost, gap->reason);
	else if (gap->basis && gap->upper == TT_GAP_NO_UPPER)
		tt_log(TT_LOG_WARNING, "target %s: about %" PRIu64 " events lost, at least %" PRIu64
		       " (%s; estimated from %s)", name, gap->lost, gap->lower, gap->reason,
		       gap->basis);
	else if (gap->basis && gap->upper)
		tt_log(TT_LOG_WARNING, "target %s: about %" PRIu64 " events lost, %" PRIu64 " to %"
		       PRIu64 " (%s; estimated from %s)", name, gap->lost, gap->lower, gap->upper,
		       gap->reason, gap->basis);
	else if (gap->basis)
		tt_log(TT_LOG_WARNING, "target %s: about %" PRIu64 " events lost (%s; estimated "
		       "from %s)", name, gap->lost, gap->reason, gap->basis);
	else
		tt_log(TT_LOG_WARNING, "target %s: at least %" PRIu64 " events lost (%s)", name,
		       gap->lost, gap->reason);
	l->logged_at = now_ms ? now_ms : 1;
}

void tt_gaplog_tick(struct tt_gaplog *l, const char *name, uint64_t now_ms, int force)
{
	char est[96] = "", floors[64] = "";

	if (l->gaps == 0 || (!force && now_ms - l->logged_at < TT_GAPLOG_WINDOW_MS))
		return;
	if (l->floors)
		snprintf(floors, sizeof(floors), ", %" PRIu64 " of them a lower bound only", l->floors);
	if (l->estimated)
		snprintf(est, sizeof(est), ", about %" PRIu64 " estimated%s", l->estimated, floors);
	tt_log(TT_LOG_WARNING, "target %s: %" PRIu64 " more gap%s in %.1f s: %" PRIu64
	       " events lost exactly%s (the last: %s)", name, l->gaps, l->gaps == 1 ? "" : "s",
	       (double)(now_ms - l->logged_at) / 1000.0, l->exact, est, l->last_reason);
	*l = (struct tt_gaplog){ .logged_at = now_ms ? now_ms : 1 };
}
