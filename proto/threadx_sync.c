/* proto/threadx_sync.c: the ThreadX live reader's full read (attach, lap recovery, after a
 * reset), newest-first in chunks proven by re-reading the newest slot X (threadx.c runs the
 * cycle and the polls; the reasoning is in proto/README-threadx.md, "Full read").
 */
#include <errno.h>
#include <string.h>

#include "threadx_int.h"

/* ---- full read (sync) --------------------------------------------------------------------- */

/* The full read at attach, after a lap and after a reset. The writer fills slots oldest-first
 * from the current pointer; the copy goes the other way, newest-first from the slot before it, in
 * chunks, each followed by a read of current (see proto/README-threadx.md, "Full read"):
 *
 *   plan 0 (TT_TXS_SYNC)        [cur c0]                         top = c0 - 1 (slot X)
 *   plan 1 (TT_TXS_SYNC_READ)   [X][cur R][chunk][cur][chunk][cur][X]
 *   plan k                      [chunk][cur][chunk][cur][chunk][cur][X]
 *
 * R is the reference: with e(s) = (s - R) mod N, slot s (e >= 1) holds the event it held when R
 * was read until the writer has advanced e(s) slots past R. X read before R and again at the end
 * of every plan, unchanged, proves the writer did not rewrite X in between, so its advance since
 * R was at most e(X) < N when the last current of the plan was read: each current read in that
 * plan gives the advance a exactly, no wrap ambiguity, and a chunk's slots with e > a (a read
 * after the chunk) are intact. A changed X leaves the plan unproven: the plans before it stand. */

static uint32_t tt_tx_sync_chunk(const struct tt_threadx *rd)
{
	return rd->cfg.sync_chunk ? rd->cfg.sync_chunk : TT_TX_CHUNK;
}

/* A full-read attempt proved nothing: publish nothing, try again next cycle. busy: the attempt
 * failed because the writer reached X (current at X, or X rewritten): it completed at least N-1
 * events between the attempt's first current read (c0, X = c0 - 1) and its last read of X. */
static int tt_tx_sync_fail(struct tt_threadx *rd, bool busy)
{
	rd->st.sync_failed++;
	if (busy && rd->sync_busy < UINT32_MAX)
		rd->sync_busy++;
	rd->state = TT_TXS_POLL_CUR;
	return TT_THREADX_DONE;
}

/* A static image (a file): current, every entry, current; the slot at current is trusted. */
static int tt_tx_ingest_static(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	uint32_t c0;
	if (tt_tx_cur_index(rd, rd->curbuf, &c0) < 0)
		return -EPROTO;
	memset(&rd->pend, 0, sizeof(rd->pend));
	rd->pend.first = c0;
	rd->pend.count = rd->lay.nent;
	tt_tx_set_anchor(rd, (int64_t)c0 + rd->lay.nent, 0);
	rd->synced_once = true;
	rd->why = TT_TXY_ATTACH;
	rd->st.syncs++;
	rd->st.last_new = rd->pend.count;
	return tt_tx_finish(rd, cb, arg);
}

/* A poll found its anchor rewritten: with current c read after the anchor, a writer that went
 * far enough past c_new to reach the slots of that poll overtook the copy (LOST), else it
 * lapped before the poll (LAP). Only the gap's reason depends on it. */
void tt_tx_why(struct tt_threadx *rd, uint32_t c)
{
	uint32_t d = tt_tx_ring(rd, (int64_t)c - rd->c_new);
	rd->why = (uint64_t)d + rd->why_r + 1 > rd->lay.nent ? TT_TXY_LOST : TT_TXY_LAP;
	rd->why_r = 0;
}

/* The plan [cur c0] was read: start a full read below it. */
int tt_tx_ingest_sync(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	uint32_t c0;
	if (rd->cfg.static_image)
		return tt_tx_ingest_static(rd, cb, arg);
	if (tt_tx_cur_index(rd, rd->curbuf, &c0) < 0)
		return -EPROTO;
	if (rd->why_r && rd->why == TT_TXY_LAP)
		tt_tx_why(rd, c0);
	memset(&rd->sy, 0, sizeof(rd->sy));
	rd->sy.top = tt_tx_ring(rd, (int64_t)c0 - 1);
	rd->sy.now = rd->cfg.start_at_now && !rd->synced_once && rd->why == TT_TXY_ATTACH;
	rd->sy.first = true;
	rd->sy.limit = rd->lay.nent - 1;
	rd->state = TT_TXS_SYNC_READ;
	return TT_THREADX_MORE;
}

static void tt_tx_words(const struct tt_threadx *rd, const uint8_t *p, uint32_t w[8])
{
	for (int i = 0; i < 8; i++)
		w[i] = tt_tx_ld32(rd, p + 4 * i);
}

/* Slots [top - depth + 1, top] are proven intact: publish them (the gap first after a lap). */
static int tt_tx_sync_publish(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	struct tt_txsync_rd *sy = &rd->sy;
	const uint32_t n = rd->lay.nent;
	const uint32_t count = sy->depth, first = tt_tx_ring(rd, (int64_t)sy->top - count + 1);
	/* slots of the snapshot at R not published: e in [0, m); none when the read stopped at a
	 * never-used slot (everything older is never-used too) */
	const uint32_t m = sy->stop_empty ? 0 : sy->ex - count + 1;
	const uint64_t busy = (uint64_t)(n - 1) * rd->sync_busy;
	uint32_t w[8];
	if (rd->cfg.oldest_when_still && rd->why == TT_TXY_ATTACH && m == 1 && !sy->oldest_tried) {
		/* every slot but the one at R is proven: try that one too (tt_tx_ingest_oldest) */
		sy->oldest_tried = true;
		rd->state = TT_TXS_OLDEST;
		return TT_THREADX_MORE;
	}
	/* belt and braces: a constant-step counter must agree that these are consecutive events */
	if (!tt_tx_counter_consistent(rd, first, count))
		return tt_tx_sync_fail(rd, false);
	memset(&rd->pend, 0, sizeof(rd->pend));
	if (rd->why == TT_TXY_LAP || rd->why == TT_TXY_LOST) {
		/* a lap leaves no never-used slot behind; tx_trace_enable does */
		for (uint32_t i = 0; i < count; i++) {
			tt_tx_slot_words(rd, tt_tx_ring(rd, (int64_t)first + i), w);
			if (w[0] == 0) {
				tt_tx_emit_reset(rd, "tracing re-enabled (thread pointers cleared)", cb,
						 arg);
				rd->state = TT_TXS_HEADER;
				return TT_THREADX_MORE;
			}
		}
		/* the writer started rewriting the old anchor slot A = nxt-1, so at least N-1 events
		 * completed after it by the time R was read: M = q if q = N-1 else q + N (plus whole
		 * buffers), q = (R - A - 1) mod N. Of these, e in [m, e(X)] are published now and
		 * e in (e(X), N-1] (written between c0 and R) by the next poll: lost >= M - N + m */
		uint64_t q = tt_tx_ring(rd, (int64_t)sy->ref - rd->nxt);
		uint64_t mm = q == n - 1 ? q : q + n;
		/* failed attempts since the lap each saw N-1 more events complete: M >= that too */
		if (mm < busy)
			mm += (busy - mm + n - 1) / n * n;
		uint64_t lb = mm - n + m;
		tt_tx_gap_count(rd, lb, first, count,
				rd->why == TT_TXY_LAP ? "lapped" : "overwritten during read");
	} else {
		/* attach or after a reset: the events completed during failed attempts (N-1 each,
		 * in disjoint intervals) are lost but for the ones this read publishes */
		uint64_t lb = busy > count ? busy - count : 0;
		/* after tx_trace_enable the used slots are [0, R) until the ring wraps (e >= N - R):
		 * of the unread e in [1, m) at least those are events */
		uint64_t used = n - sy->ref;
		if (rd->why == TT_TXY_RESET && m > used && sy->ref > 0 && m - used > lb)
			lb = m - used;
		if (lb > 0)
			tt_tx_pend_bound(rd, lb, "overwritten during read");
		if (rd->why == TT_TXY_ATTACH && rd->cfg.since_enable && !rd->synced_once)
			tt_tx_enable_gap(rd, first, count, sy->stop_empty);
		else if (rd->why == TT_TXY_ATTACH && m > 1)
			rd->st.history_skipped += m - 1; /* attach: history never promised */
	}
	rd->sync_busy = 0;
	rd->host_proven = rd->host_now;
	uint32_t emit = tt_tx_hold_from(rd, first, count, 1);
	rd->pend.first = first;
	rd->pend.count = emit;
	tt_tx_set_anchor(rd, (int64_t)first + emit, count - emit);
	rd->synced_once = true;
	rd->why = TT_TXY_ATTACH;
	rd->st.syncs++;
	rd->st.last_new = rd->pend.count;
	return tt_tx_finish(rd, cb, arg);
}

/* The plan [slot R][current][slot R] was read (oldest_when_still, at attach, with every other
 * slot proven): the writer starts each entry at current, so a current still at R between two
 * equal reads of a used slot R says nothing was being written there: it is the oldest event. */
int tt_tx_ingest_oldest(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	struct tt_txsync_rd *sy = &rd->sy;
	const uint8_t *slot = rd->entbuf + (size_t)sy->ref * TT_THREADX_ENTRY_SIZE;
	uint32_t c, w[8];
	if (tt_tx_cur_index(rd, sy->oldcur, &c) < 0)
		return -EPROTO;
	tt_tx_slot_words(rd, sy->ref, w);
	if (c == sy->ref && w[0] != 0 && !memcmp(slot, sy->old1, TT_THREADX_ENTRY_SIZE))
		sy->depth++;
	return tt_tx_sync_publish(rd, cb, arg);
}

/* A full-read plan was read (see the comment at the top of this section). */
int tt_tx_ingest_sync_read(struct tt_threadx *rd, tt_emit_cb cb, void *arg)
{
	struct tt_txsync_rd *sy = &rd->sy;
	uint32_t w[8], x0[8], x1[8];
	if (sy->now) {
		/* start_at_now: the slot before c0 is the anchor; nothing before it is published */
		tt_tx_set_anchor(rd, (int64_t)sy->top + 1, 0);
		rd->synced_once = true;
		rd->st.syncs++;
		rd->st.last_new = 0;
		rd->state = TT_TXS_POLL_CUR;
		return TT_THREADX_DONE;
	}
	if (sy->first) {
		uint32_t r;
		if (tt_tx_cur_index(rd, sy->refbuf, &r) < 0)
			return -EPROTO;
		sy->first = false;
		sy->ref = r;
		sy->ex = tt_tx_ring(rd, (int64_t)sy->top - r);
		if (sy->ex == 0)
			return tt_tx_sync_fail(rd, true); /* the writer is at X: nothing provable */
		if (sy->limit > sy->ex)
			sy->limit = sy->ex;
	}
	tt_tx_words(rd, sy->x0, x0);
	tt_tx_words(rd, sy->x1, x1);
	bool proven = tt_tx_same_entry(x0, x1), back = false;
	uint32_t adv = sy->adv, depth = sy->depth;
	bool stop = false, empty = false;
	for (unsigned k = 0; proven && !stop && k < sy->nch; k++) {
		uint32_t c;
		if (tt_tx_cur_index(rd, sy->curs[k], &c) < 0)
			return -EPROTO;
		uint32_t a = tt_tx_ring(rd, (int64_t)c - sy->ref);
		if (a < adv || a >= sy->ex) {
			/* backwards (a reset?), or at X (X's check missed a store in progress) */
			proven = false;
			back = a < adv;
			break;
		}
		adv = a;
		uint32_t lim = sy->ex - adv, end = sy->ch_d[k] + sy->ch_len[k];
		if (end > lim) {
			end = lim > sy->ch_d[k] ? lim : sy->ch_d[k];
			stop = true; /* the writer met the copy */
		}
		depth = end;
		if (depth > 0) {
			tt_tx_slot_words(rd, tt_tx_ring(rd, (int64_t)sy->top - depth + 1), w);
			if (w[0] == 0)
				stop = empty = true; /* never-used: everything older is never-used */
		}
	}
	if (proven) {
		sy->depth = depth;
		sy->adv = adv;
		sy->stop_empty = empty;
		if (sy->ex - adv < sy->limit)
			sy->limit = sy->ex - adv;
		if (!stop && sy->depth < sy->limit)
			return TT_THREADX_MORE;
	}
	if (sy->depth == 0)
		return tt_tx_sync_fail(rd, !back);
	return tt_tx_sync_publish(rd, cb, arg);
}

/* The next full-read plan: [X][cur R] in the first one, then chunks newest-first from the first
 * unproven depth, each one address range (a chunk stops at ring index 0) and followed by current,
 * then X again. */
void tt_tx_plan_sync_read(struct tt_threadx *rd, struct tt_plan *p)
{
	struct tt_txsync_rd *sy = &rd->sy;
	const struct tt_txlayout *l = &rd->lay;
	const uint64_t cur_addr = rd->cfg.header_addr + TT_TX_CUR_OFF;
	const uint64_t xaddr = l->ent_start + (uint64_t)sy->top * TT_THREADX_ENTRY_SIZE;
	if (sy->now) {
		tt_tx_add(p, xaddr, TT_THREADX_ENTRY_SIZE,
			  rd->entbuf + (size_t)sy->top * TT_THREADX_ENTRY_SIZE);
		return;
	}
	unsigned maxch = (TT_PLAN_MAX - 1 - (sy->first ? 2 : 0)) / 2;
	if (maxch > TT_TX_SYNC_CHUNKS)
		maxch = TT_TX_SYNC_CHUNKS;
	if (sy->first) {
		tt_tx_add(p, xaddr, TT_THREADX_ENTRY_SIZE, sy->x0);
		tt_tx_add(p, cur_addr, 4, sy->refbuf);
	}
	uint32_t d = sy->depth;
	sy->nch = 0;
	while (sy->nch < maxch && d < sy->limit) {
		uint32_t s = tt_tx_ring(rd, (int64_t)sy->top - d); /* newest slot of the chunk */
		uint32_t len = tt_tx_sync_chunk(rd);
		if (len > sy->limit - d)
			len = sy->limit - d;
		if (len > s + 1)
			len = s + 1;
		uint32_t lo = s + 1 - len;
		tt_tx_add(p, l->ent_start + (uint64_t)lo * TT_THREADX_ENTRY_SIZE,
			  len * TT_THREADX_ENTRY_SIZE, rd->entbuf + (size_t)lo * TT_THREADX_ENTRY_SIZE);
		tt_tx_add(p, cur_addr, 4, sy->curs[sy->nch]);
		sy->ch_d[sy->nch] = d;
		sy->ch_len[sy->nch] = len;
		sy->nch++;
		d += len;
	}
	tt_tx_add(p, xaddr, TT_THREADX_ENTRY_SIZE, sy->x1);
}
