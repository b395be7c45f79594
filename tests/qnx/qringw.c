/* tests/qnx/qringw.c: the QNX trace-buffer ring writer (qringw.h). */
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

static uint8_t *buf(const struct qrw *w, uint32_t idx)
{
	return w->ring + (uint64_t)idx * w->lo.buf_size;
}

static void raw_event(struct qrw *w, uint32_t header, uint32_t ts, uint32_t d1, uint32_t d2)
{
	uint8_t *b = buf(w, w->idx);
	uint8_t *e = b + w->lo.header_size + (uint64_t)w->num * TT_QNX_EVENT_SIZE;

	put32(w, e, header);
	put32(w, e + 4, ts);
	put32(w, e + 8, d1);
	put32(w, e + 12, d2);
	w->num++;
	w->events++;
	store32(w, b + w->lo.off_num, w->num);
}

/* Hands on to buffer idx with seq: num_events 0, then seq, then BUFFER and TIME. */
static void start_buffer(struct qrw *w, uint32_t idx, uint32_t seq)
{
	uint8_t *b = buf(w, idx);
	uint64_t t;

	w->idx = idx;
	w->seq = seq;
	w->num = 0;
	store32(w, b + w->lo.off_num, 0);
	store32(w, b + w->lo.off_seq, seq);
	w->buffers++;
	t = w->now(w->now_arg);
	raw_event(w, QRW_HDR(TT_QNX_C_CONTROL, 2, 0), (uint32_t)t, seq, 0);
	t = w->now(w->now_arg);
	raw_event(w, QRW_HDR(TT_QNX_C_CONTROL, 1, 0), (uint32_t)t, (uint32_t)(t >> 32),
		  (uint32_t)t);
}

void qrw_init(struct qrw *w, uint8_t *ring, const struct tt_qnx_layout *lo, uint32_t first_seq,
	      uint64_t (*now)(void *), void *now_arg)
{
	memset(w, 0, sizeof(*w));
	w->ring = ring;
	w->lo = *lo;
	w->cap = (lo->buf_size - lo->header_size) / TT_QNX_EVENT_SIZE;
	w->now = now;
	w->now_arg = now_arg;
	w->seq = first_seq;
}

void qrw_event(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2)
{
	if (!w->started) {
		w->started = true;
		start_buffer(w, 0, w->seq);
	} else if (w->num == w->cap) {
		start_buffer(w, (w->idx + 1) % w->lo.nbufs, w->seq + 1);
	}
	raw_event(w, header, (uint32_t)w->now(w->now_arg), d1, d2);
}

void qrw_restart(struct qrw *w, uint32_t first_seq)
{
	for (uint32_t i = 0; i < w->lo.nbufs; i++) {
		store32(w, buf(w, i) + w->lo.off_num, 0);
		store32(w, buf(w, i) + w->lo.off_seq, 0);
	}
	w->started = false;
	w->seq = first_seq;
}
