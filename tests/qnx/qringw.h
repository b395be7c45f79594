/* tests/qnx/qringw.h: a writer of the QNX kernel trace-buffer ring in the layout of
 * proto/qnx.h's struct tt_qnx_layout (this project's assumption, proto/README-qnx.md), for the
 * simulated target's workload (fw_qnx.c) and the reader's unit tests.
 *
 * Store order (what the reader relies on): an event's 16 bytes, then num_events + 1; a full
 * buffer hands on to the next one in the ring: its num_events = 0, then its seq = previous + 1,
 * then CONTROL/BUFFER (data[1] = seq) and CONTROL/TIME (msb, lsb of the time) as its first two
 * events. Words in the layout's byte order; stores to the header are release stores.
 */
#ifndef TT_QRINGW_H
#define TT_QRINGW_H

#include <stdbool.h>
#include <stdint.h>

#include "qnx.h"

struct qrw {
	uint8_t *ring; /* the ring's first byte (its target address is not needed) */
	struct tt_qnx_layout lo;
	uint32_t cap;          /* events per buffer */
	uint32_t idx, seq;     /* buffer being filled and its seq */
	uint32_t num;          /* its events so far */
	bool started;
	uint64_t events;       /* 16-byte events written */
	uint64_t buffers;      /* buffers started */
	/* the time of the next event: a 64-bit cycle count (fw_qnx: a clock or a counter) */
	uint64_t (*now)(void *arg);
	void *now_arg;
};

/* ring: nbufs * buf_size bytes; zeroed by the caller (an empty ring). first_seq: the seq of the
 * first buffer filled (buffer 0). */
void qrw_init(struct qrw *w, uint8_t *ring, const struct tt_qnx_layout *lo, uint32_t first_seq,
	      uint64_t (*now)(void *), void *now_arg);
/* One simple event (header as written: class, event, CPU), stamped with now(). */
void qrw_event(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2);
/* Tracing restarted (a target reset): every header cleared, buffer 0 with first_seq next. */
void qrw_restart(struct qrw *w, uint32_t first_seq);

#define QRW_HDR(cls, ev, cpu) ((uint32_t)(cpu) << 24 | (uint32_t)(cls) << 10 | (uint32_t)(ev))

#endif
