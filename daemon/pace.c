/* daemon/pace.c: the poll interval policy (see pace.h). */
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
