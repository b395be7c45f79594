/* proto/threadx_names.c: which registry entry names an event: the one in place when the event
 * was written.
 *
 * ThreadX rewrites a registry entry in place when an object is created at an address the
 * registry already holds (a thread deleted and created again), so the registry the reader reads
 * after a create event already names the new object. Events written before that create belong
 * to the old one: they are named by the registry as read before (kept across one re-read), and
 * by nothing when that is not known (the first registry read, a static image: the old name was
 * never seen). An object created more than once in one batch had incarnations between its creates
 * that no registry read saw: those events carry no name rather than a wrong one. The registry
 * re-read comes after the batch's slots were read: an object deleted and created again in
 * between has its entry rewritten by a later incarnation than the batch's last, so the slots
 * written since are read too (tt_tx_names_peek): an object created there is left unnamed after
 * its last create in the batch, and before its first create in the next batch. After a gap the
 * registry read before names nothing of the batch (a create may have been lost in the gap).
 */
#include <string.h>

#include "threadx_int.h"

void tt_tx_names_keep(struct tt_threadx *rd, bool keep)
{
	if (!keep) {
		rd->nidx_prev = 0;
		return;
	}
	struct tt_txobj *o = rd->objs;
	uint32_t *i = rd->objidx;
	char *n = rd->names;
	rd->objs = rd->objs_prev;
	rd->objidx = rd->objidx_prev;
	rd->names = rd->names_prev;
	rd->objs_prev = o;
	rd->objidx_prev = i;
	rd->names_prev = n;
	rd->nidx_prev = rd->nidx;
	rd->nidx = 0;
}

uint32_t tt_tx_created(const uint32_t w[8])
{
	const struct tt_txev *d = tt_txev_find(w[2] & 0xFFFFFFu);
	return d != NULL && (d->flags & TT_TXF_CREATE) ? w[4] : 0;
}

static struct tt_txren *tt_tx_ren_find(const struct tt_threadx *rd, uint32_t ptr)
{
	for (unsigned i = 0; i < rd->nren; i++)
		if (rd->ren[i].ptr == ptr)
			return (struct tt_txren *)&rd->ren[i];
	return NULL;
}

void tt_tx_names_batch(struct tt_threadx *rd, uint32_t first, uint32_t count, bool gap)
{
	uint32_t w[8];
	rd->nren = 0;
	rd->ren_gap = gap;
	for (uint32_t i = 0; i < count; i++) {
		tt_tx_slot_words(rd, (first + i) % rd->lay.nent, w);
		uint32_t ptr = w[0] != 0 ? tt_tx_created(w) : 0;
		if (ptr == 0)
			continue;
		struct tt_txren *r = tt_tx_ren_find(rd, ptr);
		if (r == NULL && rd->nren < TT_TX_REN_MAX) {
			r = &rd->ren[rd->nren++];
			*r = (struct tt_txren){ .ptr = ptr };
		}
		/* beyond TT_TX_REN_MAX objects the registry as read names them all */
		if (r != NULL)
			r->creates++;
	}
	for (int pass = 0; pass < 2; pass++) {
		const uint32_t *v = pass ? rd->stale : rd->later;
		for (unsigned i = 0; i < (pass ? rd->nstale : rd->nlater); i++) {
			struct tt_txren *r = tt_tx_ren_find(rd, v[i]);
			if (r == NULL && rd->nren < TT_TX_REN_MAX) {
				r = &rd->ren[rd->nren++];
				*r = (struct tt_txren){ .ptr = v[i] };
			}
			if (r != NULL && pass)
				r->prev_stale = true;
			else if (r != NULL)
				r->later = true;
		}
	}
}

static void tt_tx_later_scan(struct tt_threadx *rd, uint32_t from, uint32_t count)
{
	uint32_t w[8];
	for (uint32_t i = 0; i < count && rd->nlater < TT_TX_REN_MAX; i++) {
		tt_tx_slot_words(rd, (from + i) % rd->lay.nent, w);
		uint32_t ptr = w[0] != 0 ? tt_tx_created(w) : 0;
		if (ptr != 0)
			rd->later[rd->nlater++] = ptr;
	}
}

void tt_tx_names_peek(struct tt_threadx *rd, uint32_t from, uint32_t count, uint32_t first,
		      uint32_t n)
{
	rd->nlater = 0;
	tt_tx_later_scan(rd, from, count);
	if ((from + count) % rd->lay.nent == first % rd->lay.nent)
		tt_tx_later_scan(rd, first, n);
}

void tt_tx_names_done(struct tt_threadx *rd)
{
	memcpy(rd->stale, rd->later, rd->nlater * sizeof(rd->later[0]));
	rd->nstale = rd->nlater;
	rd->nlater = 0;
}

void tt_tx_names_step(struct tt_threadx *rd, const uint32_t w[8])
{
	uint32_t ptr = tt_tx_created(w);
	struct tt_txren *r = ptr ? tt_tx_ren_find(rd, ptr) : NULL;
	if (r != NULL && r->seen < r->creates)
		r->seen++;
}

/* The registry read before the batch names ptr's incarnation at the batch's start, unless
 * events were lost in between (a create among them). */
static const struct tt_txobj *tt_tx_lookup_prev(const struct tt_threadx *rd, uint32_t ptr)
{
	return rd->ren_gap ? NULL : tt_tx_lookup_in(rd->objs_prev, rd->objidx_prev, rd->nidx_prev, ptr);
}

const struct tt_txobj *tt_tx_name_lookup(const struct tt_threadx *rd, uint32_t ptr)
{
	const struct tt_txren *r = tt_tx_ren_find(rd, ptr);
	if (r == NULL)
		return tt_tx_lookup(rd, ptr);
	if (r->seen == r->creates && r->later) /* the registry names a later incarnation */
		return r->creates > 0 || r->prev_stale ? NULL : tt_tx_lookup_prev(rd, ptr);
	if (r->seen == r->creates && (r->creates > 0 || !r->prev_stale))
		return tt_tx_lookup(rd, ptr);
	if (r->seen > 0 || r->prev_stale)
		return NULL; /* an incarnation no registry read saw */
	return tt_tx_lookup_prev(rd, ptr);
}
