/* tests/qnx/qringw.c: the QNX kernel trace-buffer ring writer (qringw.h). */
#include "qringw.h"

#include <string.h>

static void put32(const struct qrw *w, uint8_t *p, uint32_t v)
{
	if (w->lo.big_endian)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4); /* the host is little-endian (x86, arm64 Linux) */
}

static void store32(const struct qrw *w, uint8_t *p, uint32_t v)
{
	if (w->lo.big_endian)
		v = __builtin_bswap32(v);
	__atomic_store_n((uint32_t *)(void *)p, v, __ATOMIC_RELEASE);
}

static void putptr(const struct qrw *w, uint8_t *p, uint64_t v)
{
	if (w->g.ptr_size == 4) {
		put32(w, p, (uint32_t)v);
		return;
	}
	put32(w, p + (w->lo.big_endian ? 0 : 4), (uint32_t)(v >> 32));
	put32(w, p + (w->lo.big_endian ? 4 : 0), (uint32_t)v);
}

static uint8_t *buf(const struct qrw *w, uint32_t idx)
{
	return w->ring + (uint64_t)idx * w->lo.buf_size;
}

static void setup(struct qrw *w, uint32_t first_seq)
{
	for (uint32_t i = 0; i < w->nbufs; i++) {
		uint8_t *b = buf(w, i);
		uint64_t v = w->vaddr + (uint64_t)i * w->lo.buf_size;
		memset(b, 0, w->g.header_size);
		putptr(w, b + w->g.off_base, w->vaddr);
		putptr(w, b + w->g.off_next, w->vaddr + (uint64_t)((i + 1) % w->nbufs) * w->lo.buf_size);
		put32(w, b + w->g.off_flags, TT_QNX_FLAG_RING);
		put32(w, b + w->g.off_ls13, i << 13);
		putptr(w, b + w->g.off_begin, v + w->g.header_size);
		putptr(w, b + w->g.off_tail, v + w->g.header_size);
	}
	w->idx = 0;
	w->num = 0;
	w->send = first_seq - 1;
	w->pending = NULL;
}

void qrw_init(struct qrw *w, uint8_t *ring, const struct tt_qnx_layout *lo, uint32_t nbufs,
	      uint64_t vaddr, uint32_t first_seq, uint64_t (*now)(void *), void *now_arg)
{
	memset(w, 0, sizeof(*w));
	w->ring = ring;
	w->lo = *lo;
	tt_qnx_layout_geom(lo, &w->g);
	w->nbufs = lo->nbufs ? lo->nbufs : nbufs;
	w->vaddr = vaddr;
	w->cap = w->g.slots;
	w->now = now;
	w->now_arg = now_arg;
	setup(w, first_seq);
}

/* num_events + 1 (and tail_ptr): the slot it counts, not written yet. */
static uint8_t *count(struct qrw *w)
{
	uint8_t *b = buf(w, w->idx);
	uint8_t *slot = b + w->g.header_size + (uint64_t)w->num * TT_QNX_EVENT_SIZE;

	store32(w, b + w->g.off_num, ++w->num);
	putptr(w, b + w->g.off_tail, w->vaddr + (uint64_t)w->idx * w->lo.buf_size +
				       w->g.header_size + (uint64_t)w->num * TT_QNX_EVENT_SIZE);
	w->events++;
	return slot;
}

static void write_slot(struct qrw *w, uint8_t *slot, const uint32_t v[4])
{
	for (int i = 0; i < 4; i++)
		put32(w, slot + 4 * i, v[i]);
}

void qrw_finish(struct qrw *w)
{
	if (!w->pending)
		return;
	write_slot(w, w->pending, w->pend);
	w->pending = NULL;
	uint32_t at = w->g.hand_on + (w->smp_extra ? w->seq * 7u % (w->smp_extra + 1) : 0);
	if (w->num >= (at < w->cap ? at : w->cap)) {
		/* hand on: the next buffer's num_events cleared */
		uint32_t next = (w->idx + 1) % w->nbufs;
		uint8_t *nb = buf(w, next);
		store32(w, nb + w->g.off_num, 0);
		putptr(w, nb + w->g.off_tail, w->vaddr + (uint64_t)next * w->lo.buf_size +
						w->g.header_size);
		w->idx = next;
		w->num = 0;
	}
}

static void event(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2, bool finish);

/* A buffer's first event: num_events = 1, then its seq, then CONTROL/BUFFER; then the time. */
static void start_buffer(struct qrw *w)
{
	uint64_t t = w->now(w->now_arg);
	uint8_t *slot = count(w);
	uint32_t v[4];

	w->seq = ++w->send;
	store32(w, buf(w, w->idx) + w->g.off_seq, w->seq);
	w->buffers++;
	v[0] = QRW_HDR(TT_QNX_C_CONTROL, 2, 0), v[1] = (uint32_t)t, v[2] = w->seq, v[3] = 0;
	write_slot(w, slot, v);
	t = w->now(w->now_arg);
	event(w, QRW_HDR(TT_QNX_C_CONTROL, 1, 0), (uint32_t)(t >> 32), (uint32_t)t, true);
}

static void event(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2, bool finish)
{
	qrw_finish(w);
	if (!w->num)
		start_buffer(w);
	uint32_t ts = (uint32_t)w->now(w->now_arg);
	w->pending = count(w);
	w->pend[0] = header, w->pend[1] = ts, w->pend[2] = d1, w->pend[3] = d2;
	if (finish)
		qrw_finish(w);
}

void qrw_event(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2)
{
	event(w, header, d1, d2, true);
}

void qrw_count(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2)
{
	event(w, header, d1, d2, false);
}

void qrw_restart(struct qrw *w, uint32_t first_seq)
{
	setup(w, first_seq);
}
