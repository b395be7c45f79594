/* daemon/pace.h: the poll interval policy of a live target (used by daemon/target.c). */
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
