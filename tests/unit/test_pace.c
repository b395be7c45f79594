/* tests/unit/test_pace.c: the poll interval policy (daemon/pace.c): the adaptive rule without a
 * latency bound, the bound minus the last poll's duration as the ceiling with one, and the early
 * poll after entries were held back. */
#include "../../daemon/pace.h"
#include "../tt_test.h"

int main(void)
{
	struct tt_pace_in in = { .interval_ms = 4, .min_ms = 1, .max_ms = 50 };

	/* idle: 4 -> 7 -> 11 -> ... up to max */
	for (int i = 0; i < 20; i++)
		in.interval_ms = tt_pace_next(&in);
	CHECK_EQ(in.interval_ms, 50);
	in.fill = 0.5; /* more than a quarter of the buffer new: halved */
	CHECK_EQ(tt_pace_next(&in), 25);

	/* a latency bound of 10 ms with 3-ms polls: never more than 7 */
	in.fill = 0;
	in.latency_ms = 10;
	in.poll_ms = 3;
	for (int i = 0; i < 20; i++) {
		in.interval_ms = tt_pace_next(&in);
		CHECK_MSG(in.interval_ms <= 7, "interval %u", in.interval_ms);
	}
	CHECK_EQ(in.interval_ms, 7);
	/* a poll as long as the bound: back to back, at poll_min */
	in.poll_ms = 12;
	CHECK_EQ(tt_pace_next(&in), 1);
	in.min_ms = 2;
	CHECK_EQ(tt_pace_next(&in), 2);
	/* a bound above max changes nothing */
	in.latency_ms = 200;
	in.poll_ms = 1;
	in.min_ms = 1;
	for (int i = 0; i < 20; i++)
		in.interval_ms = tt_pace_next(&in);
	CHECK_EQ(in.interval_ms, 50);

	/* held entries: with a bound the next poll starts at once, but not twice in a row */
	struct tt_pace_in h = { .interval_ms = 7, .min_ms = 1, .max_ms = 50, .held = 2 };
	CHECK(!tt_pace_early(&h)); /* no bound: the interval as it is */
	h.latency_ms = 10;
	CHECK(tt_pace_early(&h));
	h.repoll = true;
	CHECK(!tt_pace_early(&h));
	h.repoll = false;
	h.held = 0;
	CHECK(!tt_pace_early(&h));
	return tt_test_done();
}
