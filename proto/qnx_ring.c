/* proto/qnx_ring.c: live reader of a ring of QNX kernel trace buffers in target memory, sans
 * I/O (plan -> caller reads -> ingest, as proto/reader.h).
 *
 * The ring: nbufs buffers of buf_size bytes back to back; each has a header (num_events, seq)
 * and then 16-byte events. The writer fills one buffer at a time: event bytes, then num_events
 * + 1; to hand on to the next buffer it sets that buffer's num_events to 0 and then its seq to
 * the previous seq + 1, and only then writes events. So a (seq, num_events) pair is read seq
 * first: a num_events read after seq s is s's count, or 0 (s's buffer being taken over), or
 * the count of a later generation, which a later read of seq shows.
 *
 * A poll reads the next buffer's seq, then the current buffer's seq and num_events (12 bytes
 * when idle); new events [done, num_events) are then read, followed by the current seq again:
 * unchanged means the writer did not start over in this buffer while we read (tear/lap check),
 * and that num_events was this buffer's (a writer starting it over between our seq and
 * num_events reads has already set num_events to 0 and then the new seq). When the writer
 * moved on (the next seq is ours + 1, read before our num_events, so that count is final) the
 * reader moves on too, after that same seq re-read even when no event is left to read. A seq that moved ahead of ours means the writer lapped us:
 * every header is scanned, an intact buffer is taken up and a gap record counts what was lost: the unread rest of our buffer and every buffer skipped, each counted full (a buffer is
 * handed on only when full: the layout's rule). After a lap, reading starts at most half a ring
 * behind the writer (its oldest buffer is the next it overwrites). A seq that went backwards, or a num_events that
 * keeps going backwards, is a restart: a reset record, then the oldest buffer of the new run.
 */
#include "qnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

#define RING_MAX_BUFS 4096u
#define RING_MAX_BUF_SIZE (1u << 20)
#define SCAN_PER_STEP (TT_PLAN_MAX / 2) /* buffers whose (seq, num) one scan step reads */

enum step { ST_SCAN, ST_HEAD, ST_EVENTS };

struct tt_qnx_ring {
	struct tt_qnx_layout lo;
	uint64_t addr;
	uint32_t cap; /* events per buffer */
	bool start_at_now;
	uint64_t tick_hz;
	enum step step;
	bool synced;    /* position below is valid */
	bool attached;  /* synced at least once */
	uint32_t idx, seq, done; /* buffer being read, its expected seq, events consumed */
	/* what to report once the scan found where the writer is */
	bool lapped;
	uint32_t lap_seq, lap_done;
	const char *reset_reason;
	/* scan */
	uint32_t scan_next;
	uint8_t (*scan_seq)[4], (*scan_num)[4];
	/* head step: next seq, current seq, current num */
	uint8_t hb[3][4];
	unsigned backwards; /* polls in a row where num_events < done */
	/* events step */
	uint32_t rd_n;
	bool next_started;
	uint8_t seq2[4];
	uint8_t *evbuf;
	/* per cycle */
	bool in_cycle;
	unsigned advances;
	uint64_t cycle_events;
	struct tt_reader_stats st;
	char err[256];
	struct tt_qnx q;
};

void tt_qnx_layout_default(struct tt_qnx_layout *lo)
{
	*lo = (struct tt_qnx_layout){
		.nbufs = 32, .buf_size = 16384, .header_size = 64, .off_num = 4, .off_seq = 8,
		.ver_major = 7,
	};
}

int tt_qnx_layout_set(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		unsigned long min, max;
	} keys[] = {
		{ "nbufs", 2, RING_MAX_BUFS }, { "buf_size", 32, RING_MAX_BUF_SIZE },
		{ "header_size", 8, RING_MAX_BUF_SIZE - 16 }, { "off_num", 0, RING_MAX_BUF_SIZE },
		{ "off_seq", 0, RING_MAX_BUF_SIZE }, { "version", 6, 8 },
	};
	struct tt_qnx_layout *lo = cfg;
	unsigned long v;
	char *end;

	if (!strcmp(key, "endian")) {
		if (strcmp(value, "little") && strcmp(value, "big")) {
			snprintf(err, errlen, "qnx option endian='%s': expected little or big", value);
			return -EINVAL;
		}
		lo->big_endian = value[0] == 'b';
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].key))
			continue;
		errno = 0;
		v = strtoul(value, &end, 0);
		if (!*value || *value == '-' || errno || *end || v < keys[i].min || v > keys[i].max) {
			snprintf(err, errlen, "qnx option %s='%s': expected a number from %lu to %lu",
				 key, value, keys[i].min, keys[i].max);
			return -EINVAL;
		}
		uint32_t *f[] = { &lo->nbufs, &lo->buf_size, &lo->header_size, &lo->off_num,
				  &lo->off_seq, &lo->ver_major };
		*f[i] = (uint32_t)v;
		return 0;
	}
	snprintf(err, errlen, "qnx has no option '%s' (options: nbufs, buf_size, header_size, "
		 "off_num, off_seq, endian, version)", key);
	return -EINVAL;
}

int tt_qnx_layout_check(const struct tt_qnx_layout *lo, const char **why)
{
	if (lo->nbufs < 2 || lo->nbufs > RING_MAX_BUFS)
		*why = "qnx layout: nbufs must be 2 to 4096";
	else if (lo->buf_size > RING_MAX_BUF_SIZE || (lo->buf_size & 3))
		*why = "qnx layout: buf_size must be a multiple of 4, at most 1 MiB";
	else if (lo->header_size & 3)
		*why = "qnx layout: header_size must be a multiple of 4";
	else if (lo->header_size + 4 * TT_QNX_EVENT_SIZE > lo->buf_size)
		*why = "qnx layout: header_size leaves room for fewer than 4 events in buf_size";
	else if ((lo->off_num & 3) || (lo->off_seq & 3) || lo->off_num + 4 > lo->header_size ||
		 lo->off_seq + 4 > lo->header_size)
		*why = "qnx layout: off_num and off_seq must be 4-aligned words inside header_size";
	else if (lo->off_num == lo->off_seq)
		*why = "qnx layout: off_num and off_seq are the same word";
	else
		return 0;
	return -EINVAL;
}

static uint32_t get32(const struct tt_qnx_ring *r, const uint8_t *p)
{
	return r->lo.big_endian
		       ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		       : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t buf_addr(const struct tt_qnx_ring *r, uint32_t idx)
{
	return r->addr + (uint64_t)idx * r->lo.buf_size;
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
	if (!addr || addr + (uint64_t)lo->nbufs * lo->buf_size < addr) {
		if (why)
			*why = "qnx ring: give the address of its first buffer (--address)";
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->lo = *lo;
	r->addr = addr;
	r->cap = (lo->buf_size - lo->header_size) / TT_QNX_EVENT_SIZE;
	r->start_at_now = start_at_now;
	r->tick_hz = tick_hz;
	r->scan_seq = calloc(lo->nbufs, 4);
	r->scan_num = calloc(lo->nbufs, 4);
	r->evbuf = malloc((size_t)r->cap * TT_QNX_EVENT_SIZE);
	if (!r->scan_seq || !r->scan_num || !r->evbuf) {
		tt_qnx_ring_free(r);
		return -ENOMEM;
	}
	r->st.capacity = lo->nbufs * r->cap;
	decoder_init(r);
	*out = r;
	return 0;
}

void tt_qnx_ring_free(struct tt_qnx_ring *r)
{
	if (!r)
		return;
	free(r->scan_seq);
	free(r->scan_num);
	free(r->evbuf);
	free(r);
}

static void add(struct tt_plan *p, uint64_t addr, uint32_t len, uint8_t *dst)
{
	p->r[p->n++] = (struct tt_range){ .addr = addr, .len = len, .dst = dst };
}

void tt_qnx_ring_plan(struct tt_qnx_ring *r, struct tt_plan *p)
{
	p->n = 0;
	if (!r->in_cycle) {
		r->in_cycle = true;
		r->advances = 0;
		r->cycle_events = 0;
		r->st.polls++;
	}
	switch (r->step) {
	case ST_SCAN:
		for (uint32_t i = r->scan_next; i < r->lo.nbufs && i < r->scan_next + SCAN_PER_STEP;
		     i++) {
			add(p, buf_addr(r, i) + r->lo.off_seq, 4, r->scan_seq[i]);
			add(p, buf_addr(r, i) + r->lo.off_num, 4, r->scan_num[i]);
		}
		break;
	case ST_HEAD: {
		uint32_t next = (r->idx + 1) % r->lo.nbufs;
		add(p, buf_addr(r, next) + r->lo.off_seq, 4, r->hb[0]);
		add(p, buf_addr(r, r->idx) + r->lo.off_seq, 4, r->hb[1]);
		add(p, buf_addr(r, r->idx) + r->lo.off_num, 4, r->hb[2]);
		break;
	}
	case ST_EVENTS:
		if (r->rd_n)
			add(p, buf_addr(r, r->idx) + r->lo.header_size +
				       (uint64_t)r->done * TT_QNX_EVENT_SIZE,
			    r->rd_n * TT_QNX_EVENT_SIZE, r->evbuf);
		add(p, buf_addr(r, r->idx) + r->lo.off_seq, 4, r->seq2);
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

static int fail(struct tt_qnx_ring *r, int rc)
{
	r->in_cycle = false;
	return rc;
}

/* The position is lost (lapped, an error, a restart): scan every header next. */
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

static void emit_gap(struct tt_qnx_ring *r, uint64_t lost, const char *reason, tt_emit_cb cb,
		     void *arg)
{
	struct tt_record rec = { .kind = TT_REC_GAP };

	tt_qnx_finish(&r->q, cb, arg); /* combine events cut by the gap, flagged incomplete */
	rec.u.gap.lost = lost;
	rec.u.gap.exact = true;
	rec.u.gap.reason = reason;
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

/* Every header is read: find the writer (the newest buffer) and the oldest buffer of its run. */
static int scan_done(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	const uint32_t n = r->lo.nbufs;
	bool any = false;
	uint32_t ref = 0, w = 0;
	int32_t best = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t num = get32(r, r->scan_num[i]), s = get32(r, r->scan_seq[i]);
		if (num > r->cap) {
			snprintf(r->err, sizeof(r->err), "qnx ring: buffer %u at 0x%llx says "
				 "num_events %u, more than the %u events a %u-byte buffer holds "
				 "(wrong --address or layout options?)", i,
				 (unsigned long long)buf_addr(r, i), num, r->cap, r->lo.buf_size);
			rescan(r, true);
			return fail(r, -EPROTO);
		}
		if (!num)
			continue;
		if (!any || (int32_t)(s - ref) > best) {
			if (!any)
				ref = s;
			best = (int32_t)(s - ref);
			w = i;
		}
		any = true;
	}
	if (!any) { /* nothing written yet (or a restart cleared the ring): look again later */
		r->scan_next = 0;
		return cycle_done(r);
	}
	uint32_t S = get32(r, r->scan_seq[w]), k;
	for (k = 1; k < n; k++) {
		uint32_t j = (w + n - k) % n;
		if (!get32(r, r->scan_num[j]) || get32(r, r->scan_seq[j]) != S - k)
			break;
	}
	uint32_t O = S - (k - 1), oidx = (w + n - (k - 1)) % n;

	r->synced = true;
	r->step = ST_HEAD;
	r->backwards = 0;
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
			uint64_t lost = (uint64_t)(r->cap - r->lap_done) +
					(uint64_t)(O - E - 1) * r->cap;
			if (lost)
				emit_gap(r, lost, "kernel buffers overwritten before they were read",
					 cb, arg);
			r->idx = oidx, r->seq = O, r->done = 0;
		} else if ((int32_t)(S - E) >= 0) {
			/* our buffer is still there (an error interrupted us): go on from it */
			r->idx = (w + n - (S - E)) % n, r->seq = E, r->done = r->lap_done;
		} else {
			emit_reset(r, "buffer sequence went backwards: tracing restarted", cb, arg);
			r->idx = oidx, r->seq = O, r->done = 0;
		}
	} else if (!r->attached && r->start_at_now) {
		r->idx = w, r->seq = S, r->done = get32(r, r->scan_num[w]);
	} else {
		r->idx = oidx, r->seq = O, r->done = 0;
	}
	r->attached = true;
	return TT_READER_MORE;
}

/* The writer moved on from our buffer and we have all of it. */
static int advance(struct tt_qnx_ring *r)
{
	r->idx = (r->idx + 1) % r->lo.nbufs;
	r->seq++;
	r->done = 0;
	r->step = ST_HEAD;
	/* a writer as fast as the link could keep one cycle going for ever */
	if (++r->advances > r->lo.nbufs)
		return cycle_done(r);
	return TT_READER_MORE;
}

int tt_qnx_ring_ingest(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg)
{
	switch (r->step) {
	case ST_SCAN: {
		r->scan_next = r->scan_next + SCAN_PER_STEP < r->lo.nbufs
				       ? r->scan_next + SCAN_PER_STEP : r->lo.nbufs;
		if (r->scan_next < r->lo.nbufs)
			return TT_READER_MORE;
		return scan_done(r, cb, arg);
	}
	case ST_HEAD: {
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
		if (cn > r->cap) {
			snprintf(r->err, sizeof(r->err), "qnx ring: buffer %u at 0x%llx (seq %u) says "
				 "num_events %u, more than the %u events it holds (wrong layout "
				 "options?)", r->idx, (unsigned long long)buf_addr(r, r->idx), cs, cn,
				 r->cap);
			rescan(r, true);
			return fail(r, -EPROTO);
		}
		if (cn < r->done) {
			/* the writer is starting this buffer over; a count that stays lower than
			 * what was read is a restart that reused the same sequence number */
			if (++r->backwards < 3)
				return cycle_done(r);
			r->reset_reason = "num_events went backwards: tracing restarted";
			rescan(r, false);
			return TT_READER_MORE;
		}
		r->backwards = 0;
		r->next_started = xs == r->seq + 1;
		if (r->next_started && !cn)
			return cycle_done(r); /* the writer is taking this buffer over: look again */
		if (cn > r->done || r->next_started) {
			/* cs was read before cn: cn is this buffer's count if the seq is still
			 * ours after it (and after the events) */
			r->rd_n = cn - r->done;
			r->step = ST_EVENTS;
			return TT_READER_MORE;
		}
		return cycle_done(r);
	}
	case ST_EVENTS:
		if (get32(r, r->seq2) != r->seq) { /* started over while we read: torn */
			rescan(r, true);
			return TT_READER_MORE;
		}
		tt_qnx_feed(&r->q, r->evbuf, r->rd_n, cb, arg);
		r->done += r->rd_n;
		r->cycle_events += r->rd_n;
		r->st.events += r->rd_n;
		r->step = ST_HEAD;
		if (r->next_started)
			return advance(r);
		return cycle_done(r);
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
	else
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
