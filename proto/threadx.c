/* proto/threadx.c: the ThreadX live reader's plan/ingest state machine.
 *
 * Owns what to read and when it is safe to publish: header validation (threadx_header.c), the
 * registry read, the full read ("sync": attach, lap recovery, after a reset; newest-first in
 * chunks, each followed by a read of current, proven by re-reading the newest slot X: see the
 * section below), steady-state polls (current, then the new slots and the anchor; one plan where
 * the caller reads TT_RANGE_TO_PTR ranges), lap and reset detection, and the hold policy for
 * back-patched entries. Meaning of the bytes lives in threadx_decode.c. The reasoning and the
 * measured costs are in proto/README-threadx.md.
 *
 * Ring arithmetic: slots are indices 0..N-1; c is the writer's current index (the oldest slot and
 * the next one written). Current alone is known only modulo N: whether the writer went round is
 * decided by re-reading a slot it would have had to rewrite (the anchor in a poll, X in a full
 * read), never by pointer arithmetic.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadx_int.h"

/* ---- lifecycle ---------------------------------------------------------------------------- */

int tt_threadx_new(const struct tt_threadx_config *cfg, struct tt_threadx **out)
{
	*out = NULL;
	if (cfg == NULL || cfg->header_addr > 0xFFFFFFFFu - TT_THREADX_HEADER_SIZE ||
	    cfg->time_dir < -1 || cfg->time_dir > 1)
		return -EINVAL;
	struct tt_threadx *rd = calloc(1, sizeof(*rd));
	if (rd == NULL)
		return -ENOMEM;
	rd->cfg = *cfg;
	if (rd->cfg.hold_window == 0)
		rd->cfg.hold_window = 2; /* see README-threadx.md, "the hold policy" */
	if (rd->cfg.header_every == 0)
		rd->cfg.header_every = 16;
	if (rd->cfg.max_buffer_bytes == 0)
		rd->cfg.max_buffer_bytes = (size_t)64 << 20;
	rd->state = TT_TXS_HEADER;
	rd->why = TT_TXY_ATTACH;
	*out = rd;
	return 0;
}

void tt_tx_free_bufs(struct tt_threadx *rd)
{
	free(rd->regbuf);
	free(rd->regraw);
	free(rd->regstamp);
	free(rd->objs);
	free(rd->objidx);
	free(rd->names);
	free(rd->entbuf);
	free(rd->objs_prev);
	free(rd->objidx_prev);
	free(rd->names_prev);
	rd->regbuf = NULL;
	rd->regraw = NULL;
	rd->regstamp = NULL;
	rd->nparse = 0;
	rd->objs = NULL;
	rd->objidx = NULL;
	rd->names = NULL;
	rd->entbuf = NULL;
	rd->objs_prev = NULL;
	rd->objidx_prev = NULL;
	rd->names_prev = NULL;
	rd->nidx = 0;
	rd->nidx_prev = 0;
	rd->attached = false;
}

void tt_threadx_free(struct tt_threadx *rd)
{
	if (rd == NULL)
		return;
	tt_tx_free_bufs(rd);
	free(rd);
}

const char *tt_threadx_error(const struct tt_threadx *rd)
{
	return rd->err;
}

const struct tt_threadx_stats *tt_threadx_stats(const struct tt_threadx *rd)
{
	return &rd->st;
}

void tt_threadx_refresh_registry(struct tt_threadx *rd)
{
	rd->reg_wanted = true;
}

void tt_threadx_set_host_time(struct tt_threadx *rd, uint64_t ns)
{
	rd->host_now = ns;
}

int tt_threadx_object(const struct tt_threadx *rd, uint32_t ptr, struct tt_threadx_object *obj)
{
	const struct tt_txobj *o = rd->attached ? tt_tx_lookup(rd, ptr) : NULL;
	if (o == NULL)
		return -ENOENT;
	tt_tx_obj_public(o, obj);
	return 0;
}

void tt_threadx_read_failed(struct tt_threadx *rd, int err)
{
	(void)err;
	/* a failed read may hide a reboot: re-check the whole header when reads work again */
	rd->force_header = true;
	if (rd->state == TT_TXS_POLL_ENT)
		rd->state = TT_TXS_POLL_CUR;
	else if (rd->state == TT_TXS_SYNC_READ || rd->state == TT_TXS_OLDEST)
		rd->state = TT_TXS_SYNC; /* the full read starts over */
}

/* ---- emitting ----------------------------------------------------------------------------- */

static bool tt_tx_patchable(uint32_t id)
{
	const struct tt_txev *d = tt_txev_find(id & 0xFFFFFFu);
	return d != NULL && (d->flags & (TT_TXF_PATCH2 | TT_TXF_PATCH4));
}

/* The hold policy: among count slots from first, the offset of the first slot to hold back (the
 * first patchable event within the newest hold_window slots, never before min_off); count when
 * nothing is held. Everything from that slot on is held, so order is kept. */
uint32_t tt_tx_hold_from(const struct tt_threadx *rd, uint32_t first, uint32_t count,
				uint32_t min_off)
{
	uint32_t w[8];
	if (rd->cfg.static_image)
		return count;
	uint32_t off = count > rd->cfg.hold_window ? count - rd->cfg.hold_window : 0;
	for (off = off < min_off ? min_off : off; off < count; off++) {
		tt_tx_slot_words(rd, tt_tx_ring(rd, (int64_t)first + off), w);
		if (w[0] != 0 && tt_tx_patchable(w[2]))
			return off;
	}
	return count;
}

static void tt_tx_emit_pending(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	struct tt_txpend *p = &rd->pend;
	struct tt_record rec;
	uint32_t w[8];
	if (p->gap) {
		rec.kind = TT_REC_GAP;
		rec.u.gap = (struct tt_gap){ .lost = p->lost, .exact = p->exact,
					     .basis = p->exact ? NULL : p->basis, .reason = p->reason,
					     .lower = p->exact ? 0 : p->lower,
					     .upper = p->exact ? 0 : p->upper };
		cb(arg, &rec);
		rd->st.gaps++;
		rd->st.lost += p->lost;
		tt_tx_time_gap(rd, p->lost, p->exact);
	}
	tt_tx_time_prescan(rd, p->first, p->count);
	tt_tx_time_batch(rd, p->first, p->count);
	tt_tx_names_batch(rd, p->first, p->count, p->gap);
	uint64_t events0 = rd->st.events;
	for (uint32_t i = 0; i < p->count; i++) {
		uint32_t slot = tt_tx_ring(rd, (int64_t)p->first + i);
		tt_tx_slot_words(rd, slot, w);
		if (w[0] == 0)
			continue; /* never used */
		tt_tx_names_step(rd, w);
		rec.kind = TT_REC_EVENT;
		tt_tx_decode(rd, slot, w, &rec.u.ev);
		cb(arg, &rec);
		rd->st.events++;
	}
	tt_tx_clock_note(rd, p->gap, (uint32_t)(rd->st.events - events0));
	tt_tx_names_done(rd);
	memset(p, 0, sizeof(*p));
}

/* The batch in rd->pend is decided: re-read the registry first if it cannot name something the
 * batch references, then emit. A registry read at attach or after a reset came before the
 * batch's slots were read (early): an object created among them after it has the older
 * incarnation's name there, so the registry is read again after the batch as after any poll. */
int tt_tx_finish(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	bool need = rd->reg_wanted;
	bool early = rd->reg_fresh && rd->reg_early && !rd->cfg.static_image;
	bool stale = !rd->reg_fresh || early;
	uint32_t w[8];
	for (uint32_t i = 0; !need && stale && i < rd->pend.count; i++) {
		tt_tx_slot_words(rd, tt_tx_ring(rd, (int64_t)rd->pend.first + i), w);
		need = w[0] != 0 && (early ? tt_tx_created(w) != 0 : tt_tx_needs_registry(rd, w));
	}
	if (need && stale && rd->lay.nreg > 0) {
		rd->pend.active = true;
		rd->state = TT_TXS_REGISTRY;
		return TT_THREADX_MORE;
	}
	rd->reg_wanted = false;
	rd->reg_early = false;
	tt_tx_emit_pending(rd, cb, arg);
	rd->state = TT_TXS_POLL_CUR;
	return TT_THREADX_DONE;
}

void tt_tx_add(struct tt_plan *p, uint64_t addr, uint32_t len, uint8_t *dst)
{
	p->r[p->n++] = (struct tt_range){ .addr = addr, .len = len, .dst = dst };
}

/* Slots [from, from + k) in one or two ranges (k < N). */
static void tt_tx_add_slots(struct tt_threadx *rd, struct tt_plan *plan, uint32_t from, uint32_t k)
{
	const struct tt_txlayout *l = &rd->lay;
	uint32_t a = k < l->nent - from ? k : l->nent - from;
	if (a > 0)
		tt_tx_add(plan, l->ent_start + (uint64_t)from * TT_THREADX_ENTRY_SIZE,
			  a * TT_THREADX_ENTRY_SIZE, rd->entbuf + (size_t)from * TT_THREADX_ENTRY_SIZE);
	if (a < k)
		tt_tx_add(plan, l->ent_start, (k - a) * TT_THREADX_ENTRY_SIZE, rd->entbuf);
}

/* The slots written after a pending batch and before its registry re-read ([nxt, current read
 * after the registry)) were read: which objects they create (threadx_names.c). */
static int tt_tx_ingest_regpeek(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	tt_tx_names_peek(rd, rd->nxt, rd->r, rd->pend.first, rd->pend.count);
	tt_tx_note_missing(rd, rd->pend.first, rd->pend.count);
	return tt_tx_finish(rd, cb, arg);
}

static int tt_tx_ingest_registry(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	uint32_t c;
	/* an early registry names no incarnation of the batch for sure: no older registry */
	tt_tx_names_keep(rd, rd->pend.active && !rd->reg_early);
	if (rd->pend.active)
		rd->reg_early = false;
	tt_tx_registry_parse(rd);
	rd->reg_fresh = true;
	rd->reg_wanted = false;
	rd->nlater = 0;
	if (rd->pend.active && tt_tx_cur_index(rd, rd->curbuf3, &c) == 0 && c != rd->nxt) {
		/* never over the batch's own slots: a writer that far has lapped it (the next
		 * poll says so) and tt_tx_names_peek takes every object as created again */
		uint32_t room = rd->lay.nent - tt_tx_ring(rd, (int64_t)rd->nxt - rd->pend.first);
		rd->r = tt_tx_ring(rd, (int64_t)c - rd->nxt);
		rd->r = rd->r < room ? rd->r : room;
		rd->state = TT_TXS_REGPEEK;
		return TT_THREADX_MORE;
	}
	if (rd->pend.active) {
		tt_tx_note_missing(rd, rd->pend.first, rd->pend.count);
		return tt_tx_finish(rd, cb, arg);
	}
	rd->state = TT_TXS_SYNC;
	return TT_THREADX_MORE;
}

void tt_tx_set_anchor(struct tt_threadx *rd, uint32_t nxt, uint32_t held)
{
	rd->ahead_ok = false;
	rd->was_idle = false;
	rd->idle_n = 0;
	rd->nxt = tt_tx_ring(rd, nxt);
	tt_tx_slot_words(rd, tt_tx_ring(rd, (int64_t)rd->nxt - 1), rd->anchor);
	rd->anchor_ok = true;
	rd->held = held;
	rd->st.held = held;
}


/* The anchor is the same entry when thread, id, time stamp and the never-patched info 1 and
 * info 3 match (patches only touch info 2 and info 4, and never the time stamp). */
bool tt_tx_same_entry(const uint32_t a[8], const uint32_t b[8])
{
	return a[0] == b[0] && a[2] == b[2] && a[3] == b[3] && a[4] == b[4] && a[6] == b[6];
}

static int tt_tx_ingest_poll_ent(struct tt_threadx *rd, tt_emit_cb cb, void *arg);
static int tt_tx_ingest_one_read(struct tt_threadx *rd, uint32_t c, tt_emit_cb cb, void *arg);

/* An idle poll read current alone and it has not moved: nothing to publish, and nothing proven
 * either (a whole lap leaves current where it was), so the anchor and host_proven stay as they
 * are; the next anchored idle poll, or the next entry read, compares the anchor. */
static int tt_tx_idle_done(struct tt_threadx *rd, uint32_t c, tt_emit_cb cb, void *arg)
{
	memset(&rd->pend, 0, sizeof(rd->pend));
	rd->pend.first = rd->nxt;
	rd->st.last_new = 0;
	rd->ahead = c;
	rd->ahead_ns = rd->host_now;
	rd->ahead_ok = rd->host_now != 0;
	rd->idle_n++;
	return tt_tx_finish(rd, cb, arg);
}

/* A one-read poll's plan [current c][slots from nxt up to c][anchor] was read: the slots the
 * probe read (tt_range_ptr_span, the same rule as the probe's; fewer than up to c when over
 * TT_TX_PTR_MAX) are the poll's new ones, proven by the anchor read after them as in a poll of
 * two reads. When some were left, c is where the next poll may start from (ahead). */
static int tt_tx_ingest_one_read(struct tt_threadx *rd, uint32_t c, tt_emit_cb cb, void *arg)
{
	uint32_t start, k = tt_range_ptr_span(&rd->ring, rd->curbuf, &start) /
			    TT_THREADX_ENTRY_SIZE;
	bool part = k < tt_tx_ring(rd, (int64_t)c - rd->nxt);
	int rc;
	rd->st.bytes_planned += (uint64_t)k * TT_THREADX_ENTRY_SIZE;
	rd->st.rereads += (uint64_t)(rd->held < k ? rd->held : k) * TT_THREADX_ENTRY_SIZE;
	rd->c_new = tt_tx_ring(rd, (int64_t)rd->nxt + k);
	rd->s0 = tt_tx_ring(rd, (int64_t)rd->nxt - 1);
	rd->r = k + 1;
	rd->with_cur = false;
	rd->state = TT_TXS_POLL_ENT;
	rc = tt_tx_ingest_poll_ent(rd, cb, arg);
	if (part && rd->anchor_ok && rd->state == TT_TXS_POLL_CUR) {
		rd->ahead = c; /* read before the slots: the next poll reads on from there */
		rd->ahead_ns = rd->host_plan;
		rd->ahead_ok = rd->host_plan != 0;
	}
	return rc;
}

static int tt_tx_ingest_poll_cur(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	uint32_t c;
	rd->reg_fresh = false;
	if (rd->use_ahead) {
		c = rd->c_new;
	} else if (rd->cur_full) {
		struct tt_txlayout l;
		uint32_t id = (uint32_t)rd->hdrbuf[0] | (uint32_t)rd->hdrbuf[1] << 8 |
			      (uint32_t)rd->hdrbuf[2] << 16 | (uint32_t)rd->hdrbuf[3] << 24;
		if (id != TT_THREADX_ID && __builtin_bswap32(id) != TT_THREADX_ID) {
			tt_tx_emit_reset(rd, "trace id gone", cb, arg);
			rd->attached = false;
			rd->state = TT_TXS_HEADER;
			return TT_THREADX_DONE;
		}
		int rc = tt_tx_header_parse(rd, &l);
		if (rc < 0 || !tt_tx_layout_same(&rd->lay, &l)) {
			tt_tx_emit_reset(rd, "header changed", cb, arg);
			rd->attached = rc < 0 ? false : rd->attached;
			if (rc < 0) {
				rd->state = TT_TXS_HEADER;
				return rc;
			}
			return tt_tx_ingest_header(rd);
		}
		rd->force_header = false;
		c = (l.cur - l.ent_start) / TT_THREADX_ENTRY_SIZE;
	} else if (tt_tx_cur_index(rd, rd->idle_plan ? rd->curbuf2 : rd->curbuf, &c) < 0) {
		return -EPROTO; /* an idle poll reads [anchor][current] only: current is curbuf2 */
	}
	rd->err[0] = 0;
	rd->st.polls++;
	rd->poll_no++;
	if (rd->cfg.registry_every && rd->poll_no % rd->cfg.registry_every == 0)
		rd->reg_wanted = true;
	if (!rd->anchor_ok) {
		rd->state = TT_TXS_SYNC;
		return TT_THREADX_MORE;
	}
	if (rd->idle_cur && c == rd->nxt)
		return tt_tx_idle_done(rd, c, cb, arg);
	if (rd->one_read)
		return tt_tx_ingest_one_read(rd, c, cb, arg);
	rd->c_new = c;
	rd->state = TT_TXS_POLL_ENT;
	/* the entries are read already, or there are none (an idle poll: the anchor, then current;
	 * new entries are read next, with the anchor again after them) */
	if (rd->use_ahead || (rd->idle_plan && c == rd->nxt))
		return tt_tx_ingest_poll_ent(rd, cb, arg);
	return TT_THREADX_MORE;
}


/* The plan was [new slots][anchor] (and current after them in an idle poll's). The writer can
 * only reach a new slot by first rewriting the anchor (the slot before them in ring order), so
 * an anchor read last and found unchanged proves every new slot was read intact and that no lap
 * happened since the last poll, however far the writer went. A changed anchor sends us to a full
 * read (sync); current, read after it (the sync's first read, or this plan's), tells a lap
 * before this poll from a writer that overtook the copy. */
static int tt_tx_ingest_poll_ent(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	const uint32_t r = rd->r, s0 = rd->s0;
	uint32_t c2 = 0, w[8];
	if (rd->with_cur && tt_tx_cur_index(rd, rd->curbuf2, &c2) < 0)
		return -EPROTO;
	tt_tx_slot_words(rd, s0, w);
	if (!tt_tx_same_entry(w, rd->anchor)) {
		if (rd->anchor[0] != 0 && w[0] == 0) {
			tt_tx_emit_reset(rd, "tracing re-enabled (thread pointers cleared)", cb, arg);
			rd->state = TT_TXS_HEADER;
			return TT_THREADX_MORE;
		}
		rd->why = TT_TXY_LAP;
		rd->why_r = r; /* LAP or LOST: tt_tx_why, from current read after the anchor */
		if (rd->with_cur)
			tt_tx_why(rd, c2);
		rd->anchor_ok = false;
		rd->state = TT_TXS_SYNC;
		return TT_THREADX_MORE;
	}
	uint32_t first = tt_tx_ring(rd, (int64_t)s0 + 1), count = r - 1;
	for (uint32_t i = 0; i < count; i++) {
		tt_tx_slot_words(rd, tt_tx_ring(rd, (int64_t)first + i), w);
		if (w[0] == 0) {
			/* current moved back over never-used slots: tx_trace_enable ran again */
			tt_tx_emit_reset(rd, "tracing re-enabled (thread pointers cleared)", cb, arg);
			rd->state = TT_TXS_HEADER;
			return TT_THREADX_MORE;
		}
	}
	memset(&rd->pend, 0, sizeof(rd->pend));
	/* slots already held once (the first `held` new ones) are published now */
	uint32_t emit = tt_tx_hold_from(rd, first, count, rd->held < count ? rd->held : count);
	rd->st.last_new = count > rd->held ? count - rd->held : 0;
	rd->pend.first = first;
	rd->pend.count = emit;
	uint32_t idle_n = rd->idle_n;
	tt_tx_set_anchor(rd, first + emit, count - emit);
	rd->ahead = c2;
	rd->host_proven = rd->host_plan; /* the anchor was read in this plan */
	rd->ahead_ns = rd->host_plan;
	rd->ahead_ok = rd->with_cur && rd->host_plan != 0; /* c2: current read after it */
	rd->was_idle = count == 0;
	rd->idle_n = count == 0 ? idle_n + 1 : 0;
	return tt_tx_finish(rd, cb, arg);
}

/* ---- plan / ingest ------------------------------------------------------------------------ */


/* The entry read of a poll from current c_new: the new slots [nxt, c_new) (zero, one or two
 * ranges), then the anchor nxt-1 (read last: see tt_tx_ingest_poll_ent), then, when with_cur,
 * current (an idle poll's, whose current tells whether anything was written; a poll with
 * entries publishes them once the anchor is read: one read, one round trip, less). */
static void tt_tx_plan_poll_ent(struct tt_threadx *rd, struct tt_plan *plan, bool with_cur)
{
	const struct tt_txlayout *l = &rd->lay;
	uint32_t k = tt_tx_ring(rd, (int64_t)rd->c_new - rd->nxt);
	rd->s0 = tt_tx_ring(rd, (int64_t)rd->nxt - 1);
	rd->r = k + 1;
	tt_tx_add_slots(rd, plan, rd->nxt, k);
	tt_tx_add(plan, l->ent_start + (uint64_t)rd->s0 * TT_THREADX_ENTRY_SIZE,
		  TT_THREADX_ENTRY_SIZE, rd->entbuf + (size_t)rd->s0 * TT_THREADX_ENTRY_SIZE);
	rd->with_cur = with_cur;
	if (with_cur)
		tt_tx_add(plan, rd->cfg.header_addr + TT_TX_CUR_OFF, 4, rd->curbuf2);
	rd->st.rereads += (uint64_t)(rd->held < k ? rd->held : k) * TT_THREADX_ENTRY_SIZE;
}

/* After [current] (range 0): the slots from nxt up to it, mirrored into entbuf, then the
 * anchor nxt-1 (tt_tx_ingest_one_read). */
static void tt_tx_plan_one_read(struct tt_threadx *rd, struct tt_plan *plan)
{
	const struct tt_txlayout *l = &rd->lay;
	uint32_t s0 = tt_tx_ring(rd, (int64_t)rd->nxt - 1);
	rd->ring = (struct tt_range){
		.addr = l->ent_start, .len = l->nent * TT_THREADX_ENTRY_SIZE, .dst = rd->entbuf,
		.kind = TT_RANGE_TO_PTR, .ptr_range = 0, .ptr_off = 0, .ptr_big = l->big,
		.ptr_base = l->ent_start, .align = TT_THREADX_ENTRY_SIZE,
		.from = rd->nxt * TT_THREADX_ENTRY_SIZE, .max = TT_TX_PTR_MAX,
	};
	plan->r[plan->n++] = rd->ring;
	tt_tx_add(plan, l->ent_start + (uint64_t)s0 * TT_THREADX_ENTRY_SIZE, TT_THREADX_ENTRY_SIZE,
		  rd->entbuf + (size_t)s0 * TT_THREADX_ENTRY_SIZE);
}

void tt_threadx_plan(struct tt_threadx *rd, struct tt_plan *plan)
{
	const struct tt_txlayout *l = &rd->lay;
	const uint64_t cur_addr = rd->cfg.header_addr + TT_TX_CUR_OFF;
	plan->n = 0;
	rd->host_plan = rd->host_now;
	switch (rd->state) {
	case TT_TXS_HEADER:
		tt_tx_add(plan, rd->cfg.header_addr, TT_THREADX_HEADER_SIZE, rd->hdrbuf);
		break;
	case TT_TXS_REGISTRY:
		tt_tx_add(plan, l->reg_start, l->nreg * (16 + l->name_size), rd->regbuf);
		if (rd->pend.active) /* what was written since the batch (tt_tx_ingest_regpeek) */
			tt_tx_add(plan, cur_addr, 4, rd->curbuf3);
		break;
	case TT_TXS_REGPEEK:
		tt_tx_add_slots(rd, plan, rd->nxt, rd->r);
		break;
	case TT_TXS_SYNC:
		rd->host_cur = rd->host_now; /* the full read reaches the current read here */
		tt_tx_add(plan, cur_addr, 4, rd->curbuf);
		if (rd->cfg.static_image) {
			tt_tx_add(plan, l->ent_start, l->nent * TT_THREADX_ENTRY_SIZE, rd->entbuf);
			tt_tx_add(plan, cur_addr, 4, rd->curbuf2);
		}
		break;
	case TT_TXS_SYNC_READ:
		tt_tx_plan_sync_read(rd, plan);
		break;
	case TT_TXS_OLDEST: {
		uint64_t at = l->ent_start + (uint64_t)rd->sy.ref * TT_THREADX_ENTRY_SIZE;
		tt_tx_add(plan, at, TT_THREADX_ENTRY_SIZE,
			  rd->entbuf + (size_t)rd->sy.ref * TT_THREADX_ENTRY_SIZE);
		tt_tx_add(plan, cur_addr, 4, rd->sy.oldcur);
		tt_tx_add(plan, at, TT_THREADX_ENTRY_SIZE, rd->sy.old1);
		break;
	}
	case TT_TXS_POLL_CUR:
		rd->one_read = false;
		rd->host_cur = rd->host_now;
		rd->cur_full = rd->force_header ||
			       rd->poll_no % rd->cfg.header_every == rd->cfg.header_every - 1;
		rd->use_ahead = !rd->cur_full && rd->ahead_ok && rd->host_now >= rd->ahead_ns &&
				rd->host_now - rd->ahead_ns <= TT_TX_AHEAD_NS;
		rd->ahead_ok = false;
		rd->idle_plan = false;
		/* idle: current alone, the anchor with it every TT_TX_IDLE_ANCHOR-th poll */
		rd->idle_cur = !rd->use_ahead && rd->was_idle && rd->anchor_ok &&
			       rd->idle_n % TT_TX_IDLE_ANCHOR != TT_TX_IDLE_ANCHOR - 1;
		if (rd->use_ahead) {
			rd->c_new = rd->ahead;
			rd->host_cur = rd->ahead_ns;
			tt_tx_plan_poll_ent(rd, plan, false);
		} else if (rd->cur_full) {
			tt_tx_add(plan, rd->cfg.header_addr, TT_THREADX_HEADER_SIZE, rd->hdrbuf);
		} else {
			rd->idle_plan = rd->was_idle && rd->anchor_ok && !rd->idle_cur;
			rd->one_read = !rd->idle_plan && !rd->idle_cur && rd->anchor_ok &&
				       rd->cfg.ptr_ranges;
			if (rd->idle_plan) { /* no new slot expected: [anchor][current] only */
				rd->c_new = rd->nxt;
				tt_tx_plan_poll_ent(rd, plan, true);
			} else {
				tt_tx_add(plan, cur_addr, 4, rd->curbuf);
				if (rd->one_read)
					tt_tx_plan_one_read(rd, plan);
			}
		}
		break;
	case TT_TXS_POLL_ENT:
		tt_tx_plan_poll_ent(rd, plan, false);
		break;
	}
	for (unsigned i = 0; i < plan->n; i++) /* a ring's: the bytes it read (one_read) */
		rd->st.bytes_planned += plan->r[i].kind == TT_RANGE_FIXED ? plan->r[i].len : 0;
}

int tt_threadx_ingest(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	switch (rd->state) {
	case TT_TXS_HEADER:
		return tt_tx_ingest_header(rd);
	case TT_TXS_REGISTRY:
		return tt_tx_ingest_registry(rd, cb, arg);
	case TT_TXS_REGPEEK:
		return tt_tx_ingest_regpeek(rd, cb, arg);
	case TT_TXS_SYNC:
		return tt_tx_ingest_sync(rd, cb, arg);
	case TT_TXS_SYNC_READ:
		return tt_tx_ingest_sync_read(rd, cb, arg);
	case TT_TXS_POLL_CUR:
		return tt_tx_ingest_poll_cur(rd, cb, arg);
	case TT_TXS_POLL_ENT:
		return tt_tx_ingest_poll_ent(rd, cb, arg);
	case TT_TXS_OLDEST:
		return tt_tx_ingest_oldest(rd, cb, arg);
	}
	return -EINVAL;
}
