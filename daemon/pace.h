/* daemon/pace.h: the poll interval policy of a live target (used by daemon/target.c). */
#ifndef TT_DAEMON_PACE_H
#define TT_DAEMON_PACE_H

#include <stdbool.h>

struct tt_pace_in {
	unsigned interval_ms; /* the interval in use */
	unsigned min_ms, max_ms;
	unsigned latency_ms;  /* latency bound, 0 = none */
	double fill;          /* new entries at the last poll / buffer capacity */
	double poll_ms;       /* duration of the last poll cycle */
	unsigned held;        /* entries the last poll read but held back (reader stats) */
	bool repoll;          /* the last poll cycle was itself an early one (tt_pace_early) */
};

/* The interval of the next poll cycle, in [min_ms, max_ms]. */
unsigned tt_pace_next(const struct tt_pace_in *in);
/* True when the next poll cycle starts at once instead of an interval after the last one's
 * start: with a latency bound, after a poll that held entries back, unless that poll was already
 * an early one (so a writer that keeps the newest entries patchable costs at most one extra
 * poll per interval). */
bool tt_pace_early(const struct tt_pace_in *in);

#endif
