/* tests/qnx/qringw.h: a writer of QNX's ring of kernel trace buffers as QNX 6.4's kernel writes
 * it in ring mode (nano_trace.c, ker_trace.c; the layout of proto/qnx.h's struct
 * tt_qnx_layout), for the simulated target's workload (fw_qnx.c) and the reader's tests.
 *
 * Set up as the kernel allocates the ring: every header's baseaddr = the first buffer (as the
 * kernel sees it), next = the following buffer (the last: the first), flags = RING, ls13_rb_num
 * = index << 13, begin_ptr = tail_ptr = the first slot. An event: num_events + 1, then its slot
 * (counted before written; qrw_count leaves the write for qrw_finish, as a reader can catch the
 * kernel between the two). A buffer's first event: num_events = 1, then seq_buff_num = the next
 * sequence number, then CONTROL/BUFFER (data[1] = seq, data[2] = 0), then CONTROL/TIME. Once a
 * buffer holds hand_on events the next one is handed on: its num_events = 0 (its seq stays until
 * its first event). Words in the layout's byte order; header stores are release stores.
 */
#ifndef TT_QRINGW_H
#define TT_QRINGW_H

#include <stdbool.h>
#include <stdint.h>

#include "qnx.h"

struct qrw {
	uint8_t *ring;         /* the ring's first byte */
	struct tt_qnx_layout lo;
	struct tt_qnx_geom g;
	uint64_t vaddr;        /* the first buffer's address as the kernel sees it (baseaddr) */
	uint32_t nbufs;
	uint32_t cap;          /* slots per buffer */
	uint32_t idx, seq;     /* buffer being filled and its seq */
	uint32_t send;         /* the last sequence number given */
	uint32_t num;          /* its num_events */
	uint32_t smp_extra;    /* 0, or up to this many events more land in a buffer after it
				  reached hand_on (other CPUs before the hand-on), varying by seq */
	uint8_t *pending;      /* a slot counted but not written yet (qrw_count), or NULL */
	uint32_t pend[4];
	uint64_t events;       /* 16-byte events counted */
	uint64_t buffers;      /* buffers started */
	/* the time of the next event: a 64-bit cycle count (fw_qnx: a clock or a counter) */
	uint64_t (*now)(void *arg);
	void *now_arg;
};

/* ring: nbufs * buf_size bytes (nbufs from the layout, or this one when the layout's is 0),
 * set up here as the kernel does; vaddr: its address as the kernel sees it. first_seq: the seq
 * of the first buffer filled (buffer 0). */
void qrw_init(struct qrw *w, uint8_t *ring, const struct tt_qnx_layout *lo, uint32_t nbufs,
	      uint64_t vaddr, uint32_t first_seq, uint64_t (*now)(void *), void *now_arg);
/* One simple event (header as written: class, event, CPU), stamped with now(). */
void qrw_event(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2);
/* The same, counted in num_events but its slot not written until qrw_finish (or the next
 * qrw_event): the moment a live reader can see the previous lap's event there. */
void qrw_count(struct qrw *w, uint32_t header, uint32_t d1, uint32_t d2);
void qrw_finish(struct qrw *w);
/* The target rebooted: the ring set up again, buffer 0 with first_seq next. */
void qrw_restart(struct qrw *w, uint32_t first_seq);

#define QRW_HDR(cls, ev, cpu) ((uint32_t)(cpu) << 24 | (uint32_t)(cls) << 10 | (uint32_t)(ev))

#endif
