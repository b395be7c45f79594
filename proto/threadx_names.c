/* proto/threadx_names.c: which registry entry names an event: the one in place when the event
 * was written.
 *
 * ThreadX rewrites a registry entry in place when an object is created at an address the
 * registry already holds (a thread deleted and created again), so the registry the reader reads
 * after a create event already names the new object. Events written before that create belong
 * to the old one: they are named by the registry as read before (kept across one re-read), and
 * by nothing when that is not known (the first registry read, a static image: the old name was
 * never seen). An object created more than once in one batch had incarnations between its creates
 * that no registry read saw: those events carry no name rather than a wrong one.
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

/* The object a create event registers (info 1), or 0 when w is not a create event. */
static uint32_t tt_tx_created(const uint32_t w[8])
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

void tt_tx_names_batch(struct tt_threadx *rd, uint32_t first, uint32_t count)
{
	uint32_t w[8];
	rd->nren = 0;
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
}

void tt_tx_names_step(struct tt_threadx *rd, const uint32_t w[8])
{
	uint32_t ptr = tt_tx_created(w);
	struct tt_txren *r = ptr ? tt_tx_ren_find(rd, ptr) : NULL;
	if (r != NULL && r->seen < r->creates)
		r->seen++;
}

const struct tt_txobj *tt_tx_name_lookup(const struct tt_threadx *rd, uint32_t ptr)
{
	const struct tt_txren *r = tt_tx_ren_find(rd, ptr);
	if (r == NULL || r->seen == r->creates)
		return tt_tx_lookup(rd, ptr);
	if (r->seen > 0)
		return NULL; /* an incarnation between two creates: never read */
	return tt_tx_lookup_in(rd->objs_prev, rd->objidx_prev, rd->nidx_prev, ptr);
}
