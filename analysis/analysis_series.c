/* analysis/analysis_series.c: CPU load over time, for the dashboard's stacked chart: the newest
 * series_buckets buckets of bucket_ns each (target time, from the records' nanoseconds), each
 * with the nanoseconds every tracked thread ran in it (the first AN_SERIES_THREADS threads seen
 * running, in that order), the other threads together, interrupts, idle, and the time no one
 * can be given. A bounded ring: older buckets fall out; an interval longer than the ring keeps
 * only its newest part. Records without nanoseconds (no tick rate) make no series. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

int tt_an_series_new(struct tt_analysis *a)
{
	struct an_series *s = &a->series;

	s->bucket_ns = a->lim.bucket_ns;
	s->nbuckets = a->lim.series_buckets;
	s->rows = calloc(s->nbuckets, sizeof(*s->rows));
	return s->rows ? 0 : -1;
}

/* The column of thread id (a tracked one, tracked from now on when there is room, or other). */
int tt_an_series_col(struct tt_analysis *a, uint32_t id)
{
	struct an_series *s = &a->series;

	for (unsigned i = 0; i < s->nids; i++)
		if (s->ids[i] == id)
			return (int)i;
	if (s->nids < AN_SERIES_THREADS) {
		s->ids[s->nids] = id;
		return (int)s->nids++;
	}
	return AN_COL_OTHER;
}

/* The row of bucket b, the ring moved on to it when it is newer; NULL when it already fell out. */
static uint32_t *row(struct an_series *s, uint64_t b)
{
	if (!s->have || b > s->head) {
		uint64_t from = s->have ? s->head + 1 : b;
		if (b - from >= s->nbuckets)
			from = b - s->nbuckets + 1;
		for (uint64_t k = from; k <= b; k++)
			memset(s->rows[k % s->nbuckets], 0, sizeof(s->rows[0]));
		s->head = b;
		s->have = true;
	}
	if (s->head - b >= s->nbuckets)
		return NULL;
	return s->rows[b % s->nbuckets];
}

void tt_an_series_add(struct tt_analysis *a, uint64_t from, uint64_t to, int col)
{
	struct an_series *s = &a->series;
	uint64_t span = (uint64_t)s->nbuckets * s->bucket_ns;

	if (to <= from)
		return;
	if (to - from > span)
		from = to - span; /* what the ring can hold of it */
	while (from < to) {
		uint64_t b = from / s->bucket_ns, end = (b + 1) * s->bucket_ns;
		uint32_t *r = row(s, b);
		if (end > to)
			end = to;
		if (r)
			r[col] += (uint32_t)(end - from);
		from = end;
	}
}

void tt_an_series_reset(struct tt_analysis *a)
{
	a->series.have = false;
}

void tt_an_series_json(const struct tt_analysis *a, struct tt_an_out *o)
{
	const struct an_series *s = &a->series;

	if (!s->have) {
		tt_an_put(o, ",\"series\":null");
		return;
	}
	uint64_t first = s->head + 1 >= s->nbuckets ? s->head + 1 - s->nbuckets : 0;
	tt_an_put(o, ",\"series\":{\"bucket_ns\":%" PRIu64 ",\"first_bucket\":%" PRIu64
		  ",\"threads\":[", s->bucket_ns, first);
	for (unsigned i = 0; i < s->nids; i++)
		tt_an_put(o, "%s%" PRIu32, i ? "," : "", s->ids[i]);
	tt_an_put(o, "],\"columns\":\"threads..., other, interrupt, idle, unknown\",\"rows\":[");
	for (uint64_t b = first; b <= s->head; b++) {
		const uint32_t *r = s->rows[b % s->nbuckets];
		tt_an_put(o, "%s[", b > first ? "," : "");
		for (unsigned i = 0; i < s->nids; i++)
			tt_an_put(o, "%" PRIu32 ",", r[i]);
		tt_an_put(o, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 "]", r[AN_COL_OTHER],
			  r[AN_COL_ISR], r[AN_COL_IDLE], r[AN_COL_UNKNOWN]);
	}
	tt_an_put(o, "]}");
}
