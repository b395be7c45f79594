/* daemon/hub_hole.c: the seqs of a hub that no record has (hub_int.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "hub_int.h"

/* ---- holes: seqs no record has (tt_hub_publish_at skipped them) ----
 * They take no slot: a record's slot is its rank (records up to and including it) modulo
 * nslots. Lookups are for recent records mostly: those after the last hole cost no search. */

/* The last hole starting at or before seq, or -1. */
static ssize_t hole_at_or_before(const struct tt_hub *h, uint64_t seq)
{
	size_t lo = 0, hi = h->nholes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (h->holes[mid].from <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ssize_t)lo - 1;
}

/* How many seqs in [1, seq] are holes. */
uint64_t hub_holes_upto(const struct tt_hub *h, uint64_t seq)
{
	const struct hole *x;
	ssize_t i;

	if (!h->nholes)
		return seq >= h->fold_to ? h->fold_sum : seq < h->fold_sum ? seq : h->fold_sum;
	x = &h->holes[h->nholes - 1];
	if (seq >= x->to)
		return x->before + (x->to - x->from + 1);
	if ((i = hole_at_or_before(h, seq)) < 0) /* past the folded ones: at most fold_sum */
		return seq >= h->fold_to ? h->fold_sum : seq < h->fold_sum ? seq : h->fold_sum;
	x = &h->holes[i];
	return x->before + ((seq < x->to ? seq : x->to) - x->from + 1);
}

/* seq, or the seq after the hole seq falls in. */
uint64_t hub_skip_hole(const struct tt_hub *h, uint64_t seq)
{
	ssize_t i;

	if (!h->nholes || seq > h->holes[h->nholes - 1].to)
		return seq;
	i = hole_at_or_before(h, seq);
	return i >= 0 && seq <= h->holes[i].to ? h->holes[i].to + 1 : seq;
}

/* Records in [from, to]. */
uint64_t hub_records_in(const struct tt_hub *h, uint64_t from, uint64_t to)
{
	return hub_rank(h, to) - hub_rank(h, from - 1);
}

/* Seqs [from, to] (from = last + 1) get no record: remembered, so that ranks and counts leave
 * them out. */
int hub_add_hole(struct tt_hub *h, uint64_t from, uint64_t to)
{
	uint64_t before = hub_holes_upto(h, from);
	size_t k = 0;

	/* Bounded: a hole needs a record after it, so at most nslots + 1 are in history. */
	while (h->nholes >= MAX_HOLES && k < h->nholes &&
	       (!h->oldest || h->holes[k].to < h->oldest))
		k++;
	if (k) {
		h->fold_to = h->holes[k - 1].to;
		h->fold_sum = h->holes[k - 1].before + (h->fold_to - h->holes[k - 1].from + 1);
		h->nholes -= k;
		memmove(h->holes, h->holes + k, h->nholes * sizeof(*h->holes));
	}
	if (h->nholes % 64 == 0) {
		struct hole *n = realloc(h->holes, (h->nholes + 64) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		h->holes = n;
	}
	tt_hub_flush(h); /* frames are built from flushed + 1 to last: not across a new hole */
	h->holes[h->nholes++] = (struct hole){ from, to, before };
	h->last = h->flushed = to; /* nothing to send for a hole */
	return 0;
}
