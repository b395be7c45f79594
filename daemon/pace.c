/* daemon/pace.c: the poll interval policy (see pace.h).
 *
 * Without a latency bound the interval adapts so that one poll sees a small part of the
 * buffer: halved when a poll found more than a quarter of it new, grown slowly (up to max_ms)
 * while it finds almost nothing. With a latency bound L (--latency, "latency_ms"), an event
 * written just after a poll read the current pointer waits one interval and then one poll
 * cycle before it is published, so the interval is capped at L minus the measured duration of
 * the last poll cycle (the round trips of the link), and never below min_ms.
 *
 * Entries a reader holds back (ThreadX's patched entries, proto/README-threadx.md) are published
 * by the next poll that reads them again: with a latency bound that poll starts at once, not an
 * interval later, which would double their latency (on a ThreadX target the rewrite follows
 * within the same kernel call).
 */
#include "pace.h"

unsigned tt_pace_next(const struct tt_pace_in *in)
{
	unsigned iv = in->interval_ms;
	unsigned max = in->max_ms;

	if (in->fill > 0.25)
		iv /= 2;
	else if (in->fill < 0.05)
		iv = iv + iv / 2 + 1;
	if (in->latency_ms) {
		/* the part of the bound the link's round trips leave for waiting */
		double room = (double)in->latency_ms - in->poll_ms;
		unsigned cap = room > 0 ? (unsigned)room : 0;
		if (cap < max)
			max = cap;
	}
	if (iv > max)
		iv = max;
	if (iv < in->min_ms)
		iv = in->min_ms;
	return iv;
}

bool tt_pace_early(const struct tt_pace_in *in)
{
	return in->latency_ms && in->held && !in->repoll;
}
