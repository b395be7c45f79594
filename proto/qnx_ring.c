/* proto/qnx_ring.c: live reader of QNX's ring of kernel trace buffers in target memory, sans
 * I/O (plan -> caller reads -> ingest, as proto/reader.h). Layout: qnx_ring_layout.c.
 *
 * What the kernel does (QNX 6.4's nano_trace.c, ring mode), and what the reader relies on:
 * - A buffer's first event: num_events = 1, then seq_buff_num = the next sequence number, then
 *   the CONTROL/BUFFER slot (data[1] = seq). Every later event: num_events + 1, then its slot
 *   is written: an event is counted before it is written, so the last counted slot can still
 *   hold the previous lap's event. The buffer's spin lock orders the writers: once num_events
 *   is N, slots 0..N-2 are written.
 * - Once a buffer holds hand_on (714) events the kernel hands on: the next buffer's num_events
 *   = 0 (its seq stays the old one until its first event), then writing goes on there. A few
 *   more events can land in the old buffer before (other CPUs), never after: so when the next
 *   buffer's seq is ours + 1 our num_events is final.
 * The reader finds the buffers by their `next` links from --address (the first buffer: its
 * begin_ptr is baseaddr + header), checking every header (baseaddr, begin_ptr, ls13_rb_num,
 * num_events). A poll reads the next buffer's seq, then ours and our num_events (12 bytes when
 * idle), then the new slots and our seq again (unchanged: not overwritten while read). A slot is
 * taken when it is proven written: a later one is counted, or the writer moved on; the last
 * counted slot otherwise only when two polls read the same bytes there and they fit (slot 0:
 * CONTROL/BUFFER of our seq; later ones: not older than the slot before). A seq ahead of ours
 * (or our num_events cleared) means the writer lapped us: every header is read again, reading
 * goes on at the oldest buffer of the run (at most half a ring behind the writer), and a gap
 * counts the lost events from what the kernel recorded (README-qnx.md).
 */
#include "qnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

enum step { ST_LINKS, ST_SCAN, ST_HEAD, ST_EVENTS };

struct tt_qnx_ring {
	struct tt_qnx_layout lo;
	struct tt_qnx_geom g;
	uint64_t addr, vbase;  /* --address; the first buffer's address as the kernel sees it */
	uint32_t maxb, nb;     /* buffers the arrays hold; buffers found (0: links not followed) */
	uint64_t *baddr;       /* each buffer's target address */
	uint8_t *hdrs;         /* each buffer's header (g.read_size bytes) as last read */
	uint32_t link_next;    /* links: the buffer this step reads */
	bool start_at_now;
	uint64_t tick_hz;
	enum step step;
	bool synced, attached;
	uint32_t idx, seq, done; /* buffer being read, its seq, its slots taken */
	bool have_ts;            /* ts of the newest slot taken in this buffer */
	uint32_t last_ts;
	bool held;               /* the last counted slot as read at the previous poll */
	uint32_t held_idx;
	uint8_t held_ev[TT_QNX_EVENT_SIZE];
	/* what to report once the scan found where the writer is */
	bool lapped;
	uint32_t lap_seq, lap_done;
	const char *reset_reason;
	uint32_t scan_next;
	uint8_t hb[3][4];        /* head step: next seq, our seq, our num_events */
	uint32_t rd_n;
	bool next_started;
	uint8_t seq2[4];
	uint8_t *evbuf;
	bool in_cycle;
	unsigned advances;
	uint64_t cycle_events;
	struct tt_reader_stats st;
	char err[320];
	struct tt_qnx q;
};

static uint32_t get32(const struct tt_qnx_ring *r, const uint8_t *p)
{
	return r->lo.big_endian
		       ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		       : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t getptr(const struct tt_qnx_ring *r, const uint8_t *p)
{
	if (r->g.ptr_size == 4)
		return get32(r, p);
	uint64_t a = get32(r, p), b = get32(r, p + 4);
	return r->lo.big_endian ? a << 32 | b : b << 32 | a;
}

static const uint8_t *hdr(const struct tt_qnx_ring *r, uint32_t i)
{
	return r->hdrs + (size_t)i * r->g.read_size;
}

static uint32_t hnum(const struct tt_qnx_ring *r, uint32_t i)
{
	return get32(r, hdr(r, i) + r->g.off_num);
}

static uint32_t hseq(const struct tt_qnx_ring *r, uint32_t i)
{
	return get32(r, hdr(r, i) + r->g.off_seq);
}

static void decoder_init(struct tt_qnx_ring *r)
{
	struct tt_qnx_header h = { .big_endian = r->lo.big_endian, .os_major = r->lo.ver_major };

	tt_qnx_init(&r->q, &h, r->tick_hz);
	r->q.seq_external = true;
}

int tt_qnx_ring_new(const struct tt_qnx_layout *lo, uint64_t addr, bool start_at_now,
		    uint64_t tick_hz, struct tt_qnx_ring **out, const char **why)
{
	const char *w = NULL;
	struct tt_qnx_ring *r;

	*out = NULL;
	if (tt_qnx_layout_check(lo, &w) < 0) {
		if (why)
			*why = w;
		return -EINVAL;
	}
	if (!addr) {
		if (why)
			*why = "qnx ring: give the address of its first buffer (--address)";
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->lo = *lo;
	tt_qnx_layout_geom(lo, &r->g);
	r->addr = addr;
	r->maxb = lo->nbufs ? lo->nbufs : TT_QNX_RING_MAX_BUFS;
	r->start_at_now = start_at_now;
	r->tick_hz = tick_hz;
	r->baddr = calloc(r->maxb, sizeof(*r->baddr));
	r->hdrs = calloc(r->maxb, r->g.read_size);
	r->evbuf = malloc((size_t)r->g.slots * TT_QNX_EVENT_SIZE);
	if (!r->baddr || !r->hdrs || !r->evbuf) {
		tt_qnx_ring_free(r);
		return -ENOMEM;
	}
	r->baddr[0] = addr;
	decoder_init(r);
	*out = r;
	return 0;
}

void tt_qnx_ring_free(struct tt_qnx_ring *r)
{
	if (!r)
		return;
	free(r->baddr);
	free(r->hdrs);
	free(r->evbuf);
	free(r);
}

static void add(struct tt_plan *p, uint64_t addr, uint32_t len, uint8_t *dst)
{
	p->r[p->n++] = (struct tt_range){ .addr = addr, .len = len, .dst = dst };
}

void tt_qnx_ring_plan(struct tt_qnx_ring *r, struct tt_plan *p)
{
	const struct tt_qnx_geom *g = &r->g;

	p->n = 0;
	if (!r->in_cycle) {
		r->in_cycle = true;
		r->advances = 0;
		r->cycle_events = 0;
		r->st.polls++;
	}
	switch (r->step) {
	case ST_LINKS: /* one buffer a step, where the previous link said: nothing past the
			* ring is read, whatever memory follows it */
		add(p, r->baddr[r->link_next], g->read_size,
		    r->hdrs + (size_t)r->link_next * g->read_size);
		break;
	case ST_SCAN:
		for (uint32_t i = r->scan_next; i < r->nb && i < r->scan_next + TT_PLAN_MAX; i++)
			add(p, r->baddr[i], g->read_size, r->hdrs + (size_t)i * g->read_size);
		break;
	case ST_HEAD:
		add(p, r->baddr[(r->idx + 1) % r->nb] + g->off_seq, 4, r->hb[0]);
		add(p, r->baddr[r->idx] + g->off_seq, 4, r->hb[1]);
		add(p, r->baddr[r->idx] + g->off_num, 4, r->hb[2]);
		break;
	case ST_EVENTS:
		if (r->rd_n)
			add(p, r->baddr[r->idx] + g->header_size +
				       (uint64_t)r->done * TT_QNX_EVENT_SIZE,
			    r->rd_n * TT_QNX_EVENT_SIZE, r->evbuf);
		add(p, r->baddr[r->idx] + g->off_seq, 4, r->seq2);
		break;
	}
	for (unsigned i = 0; i < p->n; i++)
		r->st.bytes_planned += p->r[i].len;
}

static int cycle_done(struct tt_qnx_ring *r)
{
	r->in_cycle = false;
	r->st.last_new = (uint32_t)(r->cycle_events > UINT32_MAX ? UINT32_MAX : r->cycle_events);
	return TT_READER_DONE;
}

/* A header that cannot be the kernel's: the message, and the links are followed again. */
static int bad(struct tt_qnx_ring *r)
{
	r->in_cycle = false;
	if (r->synced && !r->lapped) {
		r->lapped = true;
		r->lap_seq = r->seq;
		r->lap_done = r->done;
	}
	r->synced = false;
	r->step = ST_LINKS;
	r->link_next = 0;
	r->nb = 0;
	r->baddr[0] = r->addr;
	return -EPROTO;
}

/* The position is lost (lapped, torn, a restart): every header is read again. */
static void rescan(struct tt_qnx_ring *r, bool lapped)
{
	if (lapped && r->synced && !r->lapped) {
		r->lapped = true;
		r->lap_seq = r->seq;
		r->lap_done = r->done;
	}
	r->synced = false;
	r->step = ST_SCAN;
	r->scan_next = 0;
}

#define ERR(r, ...) snprintf((r)->err, sizeof((r)->err), __VA_ARGS__)

/* Checks buffer i's header (read at baddr[i]) against what the kernel sets up: the same
 * baseaddr in every buffer, begin_ptr right after its own header, ls13_rb_num = i << 13, at
 * most `slots` events. Sets *next_off to where its `next` points, relative to the first buffer
 * (0: back to the first). 0, or -EPROTO with the message. */
static int check_header(struct tt_qnx_ring *r, uint32_t i, uint64_t *next_off)
{
	const struct tt_qnx_geom *g = &r->g;
	const uint8_t *h = hdr(r, i);
	uint64_t base = getptr(r, h + g->off_base), begin = getptr(r, h + g->off_begin);
	uint64_t next = getptr(r, h + g->off_next), a = r->baddr[i];
	uint32_t num = get32(r, h + g->off_num), ls13 = get32(r, h + g->off_ls13);

	if (i == 0) {
		if (!base || begin != base + g->header_size) {
			uint64_t self = begin - g->header_size;
			ERR(r, "qnx ring: the buffer at --address 0x%llx is not the ring's first: its "
			    "baseaddr is 0x%llx but its begin_ptr 0x%llx puts it at 0x%llx (the first "
			    "is at --address %s 0x%llx, if the layout options are right)",
			    (unsigned long long)a, (unsigned long long)base,
			    (unsigned long long)begin, (unsigned long long)self,
			    self >= base ? "-" : "+",
			    (unsigned long long)(self >= base ? self - base : base - self));
			return -EPROTO;
		}
		r->vbase = base;
	} else if (base != r->vbase || begin != r->vbase + (a - r->addr) + g->header_size) {
		ERR(r, "qnx ring: buffer %u at 0x%llx (linked from buffer %u) has baseaddr 0x%llx "
		    "and begin_ptr 0x%llx, not 0x%llx and 0x%llx: not a buffer of this ring "
		    "(wrong layout options?)", i, (unsigned long long)a, i - 1,
		    (unsigned long long)base, (unsigned long long)begin,
		    (unsigned long long)r->vbase,
		    (unsigned long long)(r->vbase + (a - r->addr) + g->header_size));
		return -EPROTO;
	}
	if (ls13 != i << 13 || num > g->slots) {
		ERR(r, "qnx ring: buffer %u at 0x%llx says ls13_rb_num 0x%x (want 0x%x) and "
		    "num_events %u (at most %u slots in a %u-byte buffer): wrong --address or "
		    "layout options?", i, (unsigned long long)a, ls13, i << 13, num, g->slots,
		    r->lo.buf_size);
		return -EPROTO;
	}
	*next_off = next - r->vbase;
	if (next != r->vbase && (next < r->vbase || *next_off % r->lo.buf_size ||
				 *next_off > (uint64_t)TT_QNX_RING_MAX_BUFS * r->lo.buf_size ||
				 *next_off < r->lo.buf_size)) {
		ERR(r, "qnx ring: buffer %u at 0x%llx links to 0x%llx, not a buffer of the ring "
		    "that starts at 0x%llx (the kernel allocates them back to back)", i, (unsigned long long)a, (unsigned long long)next,
		    (unsigned long long)r->vbase);
		return -EPROTO;
	}
	return 0;
}

static int scan_done(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg);

/* A step of following the links: the buffer read where the previous one's `next` said. */
static int links_ingest(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	uint32_t i = r->link_next;
	uint64_t off;

	if (check_header(r, i, &off) < 0)
		return bad(r);
	if (!off) { /* back at the first buffer: the ring is closed */
		if (r->lo.nbufs && i + 1 != r->lo.nbufs) {
			ERR(r, "qnx ring: the next links close the ring after %u buffers, not the "
			    "%u of the nbufs option", i + 1, r->lo.nbufs);
			return bad(r);
		}
		r->nb = i + 1;
		r->st.capacity = (uint64_t)r->nb * r->g.slots;
		return scan_done(r, cb, arg);
	}
	for (uint32_t j = 1; j <= i; j++)
		if (r->baddr[j] - r->addr == off) {
			ERR(r, "qnx ring: buffer %u at 0x%llx links back to buffer %u, not to the "
			    "first", i, (unsigned long long)r->baddr[i], j);
			return bad(r);
		}
	if (i + 1 == r->maxb) {
		ERR(r, "qnx ring: more than %u buffers linked from --address 0x%llx", r->maxb,
		    (unsigned long long)r->addr);
		return bad(r);
	}
	r->baddr[i + 1] = r->addr + off;
	r->link_next = i + 1;
	return TT_READER_MORE;
}

static void emit_gap(struct tt_qnx_ring *r, uint64_t lost, tt_emit_cb cb, void *arg)
{
	struct tt_record rec = { .kind = TT_REC_GAP };

	tt_qnx_finish(&r->q, cb, arg); /* combine events cut by the gap, flagged incomplete */
	rec.u.gap.lost = lost;
	rec.u.gap.exact = false;
	rec.u.gap.basis = "num_events of the kernel buffers still in the ring";
	rec.u.gap.reason = "kernel buffers overwritten before they were read";
	r->st.gaps++;
	r->st.lost += lost;
	cb(arg, &rec);
}

static void emit_reset(struct tt_qnx_ring *r, const char *reason, tt_emit_cb cb, void *arg)
{
	struct tt_record rec = { .kind = TT_REC_RESET };

	tt_qnx_finish(&r->q, cb, arg);
	rec.u.reset.reason = reason;
	r->st.resets++;
	cb(arg, &rec);
	decoder_init(r); /* a new run: time, names and threads start over */
}

/* Events lost from buffer seq E (lap_done of it read) up to, not including, buffer seq O, from
 * what the kernel recorded: a buffer of such a seq still in the ring with at least hand_on
 * events was handed on and counts its num_events (a lower count was read while it filled); any
 * other counts the mean num_events of the ring's handed-on buffers (hand_on when none). Always
 * an estimate: the headers are not read at one instant, and on SMP a few events can land in a
 * buffer after it reached hand_on (at most its slots). */
static void lap_loss(struct tt_qnx_ring *r, uint32_t E, uint32_t O, tt_emit_cb cb, void *arg)
{
	uint64_t known = 0, nknown = 0, full = 0, nfull = 0;

	for (uint32_t i = 0; i < r->nb; i++) {
		uint32_t num = hnum(r, i), d = hseq(r, i) - E;
		if (num < r->g.hand_on)
			continue;
		full += num;
		nfull++;
		if (d < O - E) {
			known += num;
			nknown++;
		}
	}
	uint64_t per = nfull ? (full + nfull / 2) / nfull : r->g.hand_on;
	uint64_t lost = known + (uint64_t)(O - E - nknown) * per;
	lost = lost > r->lap_done ? lost - r->lap_done : 0;
	if (lost)
		emit_gap(r, lost, cb, arg);
}

/* Every header is read: find the writer (the newest buffer) and the oldest buffer of its run. */
static int scan_done(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	const uint32_t n = r->nb;
	bool any = false;
	uint32_t ref = 0, w = 0;
	int32_t best = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = hseq(r, i);
		if (!hnum(r, i))
			continue;
		if (!any || (int32_t)(s - ref) > best) {
			if (!any)
				ref = s;
			best = (int32_t)(s - ref);
			w = i;
		}
		any = true;
	}
	if (!any) { /* nothing written yet (or the ring was cleared): look again later */
		r->scan_next = 0;
		return cycle_done(r);
	}
	uint32_t S = hseq(r, w), k;
	for (k = 1; k < n; k++) {
		uint32_t j = (w + n - k) % n;
		if (!hnum(r, j) || hseq(r, j) != S - k)
			break;
	}
	uint32_t O = S - (k - 1), oidx = (w + n - (k - 1)) % n;

	r->synced = true;
	r->step = ST_HEAD;
	r->held = false;
	r->have_ts = false;
	if (r->reset_reason) {
		emit_reset(r, r->reset_reason, cb, arg);
		r->reset_reason = NULL;
		r->lapped = false;
		r->idx = oidx, r->seq = O, r->done = 0;
	} else if (r->lapped) {
		uint32_t E = r->lap_seq;
		r->lapped = false;
		if ((int32_t)(O - E) > 0) {
			/* a writer that lapped us is faster than the link: its oldest buffer is
			 * the next it overwrites, so start half a ring behind it instead */
			uint32_t half = (n - 1) / 2;
			if ((int32_t)(S - half - O) > 0) {
				O = S - half;
				oidx = (w + n - half) % n;
			}
			lap_loss(r, E, O, cb, arg);
			r->idx = oidx, r->seq = O, r->done = 0;
		} else if ((int32_t)(S - E) >= 0) {
			/* our buffer is still there (an error interrupted us): go on from it */
			r->idx = (w + n - (S - E)) % n, r->seq = E, r->done = r->lap_done;
		} else {
			emit_reset(r, "buffer sequence went backwards: tracing restarted", cb, arg);
			r->idx = oidx, r->seq = O, r->done = 0;
		}
	} else if (!r->attached && r->start_at_now) {
		r->idx = w, r->seq = S, r->done = hnum(r, w);
	} else {
		r->idx = oidx, r->seq = O, r->done = 0;
	}
	r->attached = true;
	return TT_READER_MORE;
}

static int scan_ingest(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	uint32_t end = r->scan_next + TT_PLAN_MAX < r->nb ? r->scan_next + TT_PLAN_MAX : r->nb;

	for (uint32_t i = r->scan_next; i < end; i++) {
		uint64_t off;
		if (check_header(r, i, &off) < 0)
			return bad(r);
		if (r->baddr[(i + 1) % r->nb] - r->addr != off) {
			ERR(r, "qnx ring: buffer %u at 0x%llx now links to +0x%llx, not to buffer "
			    "%u: the ring changed", i, (unsigned long long)r->baddr[i],
			    (unsigned long long)off, (i + 1) % r->nb);
			return bad(r);
		}
	}
	r->scan_next = end;
	return end < r->nb ? TT_READER_MORE : scan_done(r, cb, arg);
}

/* The writer moved on from our buffer and we have all of it. */
static int advance(struct tt_qnx_ring *r)
{
	r->idx = (r->idx + 1) % r->nb;
	r->seq++;
	r->done = 0;
	r->held = false;
	r->have_ts = false;
	r->step = ST_HEAD;
	/* a writer as fast as the link could keep one cycle going for ever */
	if (++r->advances > r->nb)
		return cycle_done(r);
	return TT_READER_MORE;
}

static int head_ingest(struct tt_qnx_ring *r)
{
	uint32_t xs = get32(r, r->hb[0]), cs = get32(r, r->hb[1]), cn = get32(r, r->hb[2]);

	if (cs != r->seq) {
		if ((int32_t)(cs - r->seq) > 0) {
			rescan(r, true);
		} else {
			r->reset_reason = "buffer sequence went backwards: tracing restarted";
			rescan(r, false);
		}
		return TT_READER_MORE;
	}
	if (cn > r->g.slots) {
		ERR(r, "qnx ring: buffer %u at 0x%llx (seq %u) says num_events %u, more than its "
		    "%u slots (wrong layout options?)", r->idx,
		    (unsigned long long)r->baddr[r->idx], cs, cn, r->g.slots);
		rescan(r, true);
		r->in_cycle = false;
		return -EPROTO;
	}
	r->next_started = xs == r->seq + 1;
	if (cn < r->done || (!cn && r->next_started)) {
		/* cleared: the writer came round to this buffer again (or tracing restarted) */
		rescan(r, true);
		return TT_READER_MORE;
	}
	if (cn > r->done || r->next_started) {
		/* cs was read before cn: cn is this buffer's count if the seq is still ours
		 * after it (and after the events) */
		r->rd_n = cn - r->done;
		r->step = ST_EVENTS;
		return TT_READER_MORE;
	}
	return cycle_done(r);
}

/* Whether the last counted slot (index k, read twice alike) holds this generation's event:
 * slot 0 is CONTROL/BUFFER with our seq; a later one is not older than the slot before it (the
 * previous lap's events all are). */
static bool fits(const struct tt_qnx_ring *r, uint32_t k, const uint8_t *ev)
{
	if (!k)
		return (get32(r, ev) & 0xc0007fffu) == (TT_QNX_C_CONTROL << 10 | 2) &&
		       get32(r, ev + 8) == r->seq;
	return r->have_ts && (int32_t)(get32(r, ev + 4) - r->last_ts) >= 0;
}

static int events_ingest(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	if (get32(r, r->seq2) != r->seq) { /* started over while we read: torn */
		rescan(r, true);
		return TT_READER_MORE;
	}
	uint32_t take = r->rd_n;
	if (!r->next_started && take) {
		/* the last counted slot may not be written yet: proven by the next count, or
		 * by the same bytes at two polls that fit this buffer */
		uint32_t k = r->done + take - 1;
		const uint8_t *last = r->evbuf + (size_t)(take - 1) * TT_QNX_EVENT_SIZE;
		if (take > 1) {
			r->have_ts = true;
			r->last_ts = get32(r, last - TT_QNX_EVENT_SIZE + 4);
		}
		if (!(r->held && r->held_idx == k && !memcmp(r->held_ev, last, TT_QNX_EVENT_SIZE) &&
		      fits(r, k, last))) {
			r->held = true;
			r->held_idx = k;
			memcpy(r->held_ev, last, TT_QNX_EVENT_SIZE);
			take--;
		}
	}
	if (take) {
		tt_qnx_feed(&r->q, r->evbuf, take, cb, arg);
		r->have_ts = true;
		r->last_ts = get32(r, r->evbuf + (size_t)(take - 1) * TT_QNX_EVENT_SIZE + 4);
	}
	r->done += take;
	if (r->held && r->held_idx < r->done)
		r->held = false;
	r->cycle_events += take;
	r->st.events += take;
	r->step = ST_HEAD;
	if (r->next_started)
		return advance(r);
	return cycle_done(r);
}

int tt_qnx_ring_ingest(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	switch (r->step) {
	case ST_LINKS:
		return links_ingest(r, cb, arg);
	case ST_SCAN:
		return scan_ingest(r, cb, arg);
	case ST_HEAD:
		return head_ingest(r);
	case ST_EVENTS:
		return events_ingest(r, cb, arg);
	}
	return cycle_done(r);
}

void tt_qnx_ring_finish(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	tt_qnx_finish(&r->q, cb, arg);
}

void tt_qnx_ring_read_failed(struct tt_qnx_ring *r, int err)
{
	(void)err;
	r->in_cycle = false;
	if (r->step == ST_SCAN)
		r->scan_next = 0;
	else if (r->step != ST_LINKS)
		r->step = ST_HEAD;
}

const char *tt_qnx_ring_error(const struct tt_qnx_ring *r)
{
	return r->err[0] ? r->err : "qnx ring: error";
}

void tt_qnx_ring_stats(const struct tt_qnx_ring *r, struct tt_reader_stats *out)
{
	*out = r->st;
}
