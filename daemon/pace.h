/* daemon/pace.h: the poll interval policy of a live target (used by daemon/target.c).
 *
 * Without a latency bound the interval adapts so that one poll sees a small part of the
 * buffer: halved when a poll found more than a quarter of it new, grown slowly (up to max_ms)
 * while it finds almost nothing. With a latency bound L (--latency, "latency_ms"), an event
 * written just after a poll read the current pointer waits one interval and then one poll
 * cycle before it is published, so the interval is capped at L minus the measured duration of
 * the last poll cycle (the round trips of the link), and never below min_ms.
 */
#ifndef TT_DAEMON_PACE_H
#define TT_DAEMON_PACE_H

struct tt_pace_in {
	unsigned interval_ms; /* the interval in use */
	unsigned min_ms, max_ms;
	unsigned latency_ms;  /* latency bound, 0 = none */
	double fill;          /* new entries at the last poll / buffer capacity */
	double poll_ms;       /* duration of the last poll cycle */
};

/* The interval of the next poll cycle, in [min_ms, max_ms]. */
unsigned tt_pace_next(const struct tt_pace_in *in);

#endif
