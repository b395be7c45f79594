/* proto/nuttx.c: the NuttX noteram live reader (plan/ingest).
 *
 * Owns the cycle: control words -> new bytes + anchor + control words, or a full read of
 * [tail, head) (attach, laps, resets, after a bad record); telling a lap from a clear; lost
 * counts. Task names from the target: nuttx_names.c; images and the "nuttx" entry of reader.h:
 * nuttx_image.c. Policy and proofs: README-nuttx.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nuttx_int.h"

#define SYNC_RETRIES 8

struct emitter {
	struct tt_nuttx *rd;
	tt_emit_cb cb;
	void *arg;
};

static void count_emit(void *arg, const struct tt_record *rec)
{
	struct emitter *e = arg;

	if (rec->kind == TT_REC_EVENT)
		e->rd->st.events++;
	e->cb(e->arg, rec);
}

static int fail(struct tt_nuttx *rd, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->err, sizeof(rd->err), fmt, ap);
	va_end(ap);
	rd->step = ST_CTL;
	return rc;
}

/* Syscall names for the decoder: borrowed from lo (copy == NULL), or copied into *copy (one
 * allocation: the pointers, then the strings). 0 or -ENOMEM. */
int nx_use_syscalls(struct nx_dec *d, const struct tt_nuttx_layout *lo, char ***copy)
{
	const struct tt_nuttx_syscalls *sc = lo->syscalls;
	size_t bytes = 0;
	char **v, *s;

	d->rodata = lo->rodata;
	d->sysnames = NULL;
	d->nsys = 0;
	if (!sc || !sc->names || !sc->n || lo->sys_reserved < 0 || lo->sys_reserved > 255)
		return 0;
	d->sys_reserved = lo->sys_reserved;
	d->nsys = sc->n;
	if (!copy) {
		d->sysnames = sc->names;
		return 0;
	}
	for (unsigned i = 0; i < sc->n; i++)
		bytes += sc->names[i] ? strlen(sc->names[i]) + 1 : 0;
	v = malloc(sc->n * sizeof(*v) + bytes);
	if (!v)
		return -ENOMEM;
	s = (char *)(v + sc->n);
	for (unsigned i = 0; i < sc->n; i++) {
		v[i] = NULL;
		if (sc->names[i]) {
			size_t n = strlen(sc->names[i]) + 1;
			v[i] = memcpy(s, sc->names[i], n);
			s += n;
		}
	}
	*copy = v;
	d->sysnames = (const char *const *)v;
	return 0;
}

int tt_nuttx_new(const struct tt_nuttx_config *cfg, struct tt_nuttx **out, const char **why)
{
	struct tt_nuttx *rd;
	const char *w = NULL;
	int rc;

	if (!why)
		why = &w;
	if (!cfg->driver_addr) {
		*why = "the address of g_noteram_driver is required";
		return -EINVAL;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->cfg = *cfg;
	if (!rd->cfg.max_buffer_bytes)
		rd->cfg.max_buffer_bytes = 16u << 20;
	rc = tt_nuttx_layout_check(&cfg->layout, why);
	if (rc == 0)
		rc = nx_lay_resolve(&cfg->layout, &rd->d.lay, why);
	if (rc < 0) {
		free(rd);
		return rc;
	}
	rd->d.want_names = cfg->layout.pidhash_addr || cfg->layout.taskname_addr;
	rd->d.tick_hz = cfg->tick_hz;
	rd->cfg.layout.syscalls = NULL; /* borrowed: only the copy is kept */
	if (nx_use_syscalls(&rd->d, &cfg->layout, &rd->sysnames) < 0) {
		free(rd);
		return -ENOMEM;
	}
	nx_dec_reset(&rd->d);
	*out = rd;
	return 0;
}

void tt_nuttx_free(struct tt_nuttx *rd)
{
	if (!rd)
		return;
	free(rd->ring_alloc);
	free(rd->sysnames);
	free(rd);
}

const char *tt_nuttx_error(const struct tt_nuttx *rd)
{
	return rd->err;
}

const struct tt_nuttx_stats *tt_nuttx_stats(const struct tt_nuttx *rd)
{
	return &rd->st;
}

void tt_nuttx_read_failed(struct tt_nuttx *rd, int err)
{
	if (rd->step >= ST_TK_HASH && rd->step <= ST_TK_TCBS)
		nx_tasks_failed(rd);
	if (rd->step >= ST_PIDHASH) { /* a name lookup: its pids stay unnamed */
		for (unsigned i = 0; i < rd->nm_n; i++)
			nx_set_name(&rd->d, rd->nm_pid[i], NULL);
		if (++rd->name_fails >= NAME_FAILS_MAX) {
			rd->d.want_names = false;
			rd->names_off = true; /* said by the next ingest */
		}
	}
	snprintf(rd->err, sizeof(rd->err), "target read failed (%s)", strerror(-err));
	rd->step = ST_CTL;
}

void nx_add_range(struct tt_nuttx *rd, struct tt_plan *p, uint64_t addr, uint32_t len,
		  uint8_t *dst)
{
	if (!len)
		return;
	p->r[p->n++] = (struct tt_range){ .addr = addr, .len = len, .dst = dst };
	rd->st.bytes_planned += len;
}

/* [off, off + len) of the ring into dst, as one or two ranges. */
static void add_ring(struct tt_nuttx *rd, struct tt_plan *p, uint32_t off, uint32_t len,
		     uint8_t *dst)
{
	uint32_t first = len < rd->size - off ? len : rd->size - off;

	nx_add_range(rd, p, rd->buf_addr + off, first, dst);
	nx_add_range(rd, p, rd->buf_addr, len - first, dst + first);
}

void tt_nuttx_plan(struct tt_nuttx *rd, struct tt_plan *p)
{
	const struct nx_lay *l = &rd->d.lay;
	uint64_t ctl = rd->cfg.driver_addr + l->ctl_lo;

	p->n = 0;
	rd->host_plan = rd->host_now;
	switch (rd->step) {
	case ST_CTL:
		nx_add_range(rd, p, ctl, l->ctl_len, rd->ctl);
		/* not while a batch waits in the ring copy for its names (a lookup failed: the
		 * next ingest publishes it unnamed; the ring read would overwrite it first) */
		rd->one_read = rd->cfg.ptr_ranges && rd->attached && !rd->need_sync &&
			       !rd->was_idle && !rd->pub_pending;
		if (rd->one_read) { /* ingest_ctl takes the bytes when they are [pos, head) */
			rd->one_ring = (struct tt_range){
				.addr = rd->buf_addr, .len = rd->size, .dst = rd->ring,
				.kind = TT_RANGE_TO_PTR, .ptr_range = 0,
				.ptr_off = l->off_head - l->ctl_lo, .ptr_big = l->be, .align = 1,
				.from = rd->pos, .max = rd->size < NX_PTR_MAX ? rd->size : NX_PTR_MAX,
				.dst_linear = true,
			};
			p->r[p->n++] = rd->one_ring;
			add_ring(rd, p, rd->anchor_off, l->hdr, rd->anchor_now);
			nx_add_range(rd, p, ctl, l->ctl_len, rd->ctl2);
		}
		break;
	case ST_DATA:
	case ST_CLEARCHK: /* [pos, head) or [pos, tail), then the anchor, then the control words */
		add_ring(rd, p, rd->pos, rd->nnew, rd->ring);
		add_ring(rd, p, rd->anchor_off, l->hdr, rd->anchor_now);
		nx_add_range(rd, p, ctl, l->ctl_len, rd->ctl2);
		break;
	case ST_SYNC:
		add_ring(rd, p, rd->t1, rd->nnew, rd->ring);
		/* the bytes before head: the anchor when the ring holds no record */
		add_ring(rd, p, (rd->h1 + rd->size - l->hdr % rd->size) % rd->size, l->hdr,
			 rd->anchor_now);
		nx_add_range(rd, p, ctl, l->ctl_len, rd->ctl2);
		break;
	case ST_PIDHASH:
	case ST_SLOTS:
	case ST_TCBS:
	case ST_TASKNAME:
		nx_names_plan(rd, p);
		break;
	case ST_TK_HASH:
	case ST_TK_SLOTS:
	case ST_TK_TCBS:
		nx_tasks_plan(rd, p);
		break;
	}
}

static int parse_ctl(struct tt_nuttx *rd, const uint8_t *c, struct ctlw *w)
{
	const struct nx_lay *l = &rd->d.lay;

	if (l->bytes) { /* before 12.4: the buffer is inside g_noteram_info */
		w->buf = rd->cfg.driver_addr + l->off_buffer;
		w->size = l->bufsize;
	} else {
		w->buf = nx_get(l, c + l->off_buffer - l->ctl_lo, l->ptr);
		w->size = nx_get(l, c + l->off_bufsize - l->ctl_lo, l->ptr);
	}
	w->head = (uint32_t)nx_get(l, c + l->off_head - l->ctl_lo, 4);
	w->tail = (uint32_t)nx_get(l, c + l->off_tail - l->ctl_lo, 4);
	w->overwrite = (uint32_t)nx_get(l, c + l->off_overwrite - l->ctl_lo, 4);
	if (w->size < 2u * l->hdr || !w->buf)
		return fail(rd, -EPROTO, "noteram at 0x%llx: ni_buffer 0x%llx, ni_bufsize %llu: "
			    "not a noteram ring (tracing not initialised, or wrong address/layout)",
			    (unsigned long long)rd->cfg.driver_addr, (unsigned long long)w->buf,
			    (unsigned long long)w->size);
	if (w->size > rd->cfg.max_buffer_bytes || w->size > UINT32_MAX / 2)
		return fail(rd, -EFBIG, "noteram ring of %llu bytes is larger than the %zu-byte "
			    "limit", (unsigned long long)w->size, rd->cfg.max_buffer_bytes);
	if (w->head >= w->size || w->tail >= w->size)
		return fail(rd, -EPROTO, "noteram ni_head %u / ni_tail %u outside the %llu-byte "
			    "ring (wrong layout offsets?)", w->head, w->tail,
			    (unsigned long long)w->size);
	return 0;
}

static void emit_reset(struct tt_nuttx *rd, struct emitter *e, const char *reason)
{
	struct tt_record rec = { .kind = TT_REC_RESET, .u.reset.reason = reason };

	rd->st.resets++;
	rd->d.after_gap = true;
	e->cb(e->arg, &rec);
}

static void emit_gap_rec(struct tt_nuttx *rd, struct emitter *e, const struct tt_gap *g)
{
	struct tt_record rec = { .kind = TT_REC_GAP, .u.gap = *g };

	rd->st.gaps++;
	rd->st.lost += g->lost;
	rd->d.after_gap = true;
	e->cb(e->arg, &rec);
}

/* A gap that is exact, or a lower bound (basis NULL) with nothing capping it. */
static void emit_gap(struct tt_nuttx *rd, struct emitter *e, uint64_t lost, bool exact,
		     const char *basis, const char *reason)
{
	struct tt_gap g = { .lost = lost, .exact = exact, .basis = basis, .reason = reason };

	if (!exact) {
		g.lower = lost;
		g.upper = TT_GAP_NO_UPPER;
	}
	emit_gap_rec(rd, e, &g);
}

static void start_sync(struct tt_nuttx *rd, enum nx_why why, const char *reason)
{
	rd->why = why;
	rd->gap_reason = reason;
	rd->need_sync = true;
	rd->step = ST_SYNC;
	rd->nnew = nx_dist(rd->t1, rd->h1, rd->size);
}

/* A new or moved ring: (re)allocate the copy buffer. */
static int attach(struct tt_nuttx *rd, const struct ctlw *w)
{
	uint8_t *m = malloc((size_t)w->size + 8);

	if (!m)
		return fail(rd, -ENOMEM, "out of memory for a %llu-byte ring copy",
			    (unsigned long long)w->size);
	free(rd->ring_alloc);
	rd->ring_alloc = rd->ring = m;
	rd->buf_addr = w->buf;
	rd->size = (uint32_t)w->size;
	rd->attached = true;
	rd->tk_due = nx_tasks_wanted(&rd->cfg.layout);
	rd->st.capacity = rd->size / 16;
	return 0;
}

static int ingest_data(struct tt_nuttx *rd, struct emitter *e);

static int ingest_ctl(struct tt_nuttx *rd, struct emitter *e)
{
	struct ctlw w;
	int rc = parse_ctl(rd, rd->ctl, &w);
	uint32_t used, free_bytes, one_from, one_n = 0;

	rd->st.polls++;
	rd->st.last_new = 0;
	rd->was_idle = false;
	if (rd->one_read) /* what the ring range read (its bytes are used only as [pos, head)) */
		rd->st.bytes_planned += one_n = tt_range_ptr_span(&rd->one_ring,
								  rd->ctl + rd->one_ring.ptr_off,
								  &one_from);
	if (rc < 0)
		return rc;
	rd->h1 = w.head;
	rd->t1 = w.tail;
	rd->host_head = rd->host_plan;
	if (!rd->attached || w.buf != rd->buf_addr || w.size != rd->size) {
		bool moved = rd->attached;
		if ((rc = attach(rd, &w)) < 0)
			return rc;
		if (moved) {
			emit_reset(rd, e, "noteram ring moved or resized (ni_buffer/ni_bufsize "
					  "changed)");
			nx_dec_reset(&rd->d);
			rd->rate_bytes = rd->rate_time = 0;
		}
		rd->sync_tries = 0;
		start_sync(rd, moved ? WHY_RESET : WHY_ATTACH, NULL);
		return TT_NUTTX_MORE;
	}
	if (rd->need_sync) {
		start_sync(rd, rd->why, rd->gap_reason);
		return TT_NUTTX_MORE;
	}
	used = nx_dist(w.tail, w.head, rd->size);
	if (nx_dist(w.tail, rd->pos, rd->size) > used) {
		/* The tail passed our position: a lap, or NOTERAM_CLEAR (tail = head: `trace
		 * start`) with the notes written since our last poll still in [pos, tail). The
		 * anchor tells (ingest_clearchk). A ring that is full (free space < one aligned
		 * record, plus the record being copied) can be either; one with more room was
		 * cleared or re-initialised. */
		free_bytes = rd->size - used;
		rd->full_at_check = free_bytes <= 2 * NX_MAX_REC + rd->d.lay.align;
		rd->nnew = nx_dist(rd->pos, w.tail, rd->size);
		rd->step = ST_CLEARCHK;
		return TT_NUTTX_MORE;
	}
	if (w.overwrite != NX_OVERWRITE_OVERFLOW) {
		rd->overflowed = false;
	} else if (w.head == rd->pos && !rd->overflowed) {
		/* Mode 0 stopped at a full ring: whatever the target traced since was dropped.
		 * Reported once everything stored is published; NOTERAM_CLEAR sets the mode back
		 * (tail = head, so reading simply goes on). */
		rd->overflowed = true;
		emit_gap(rd, e, 1, false, NULL, "noteram full, overwrite disabled (ni_overwrite 2): notes "
					   "dropped until NOTERAM_CLEAR");
		return TT_NUTTX_DONE;
	}
	if (w.head == rd->pos) {
		rd->host_proven = rd->host_plan; /* nothing new: the writer idles (or laps exactly) */
		rd->was_idle = true; /* the next poll reads the control words alone */
		return TT_NUTTX_DONE;
	}
	rd->nnew = nx_dist(rd->pos, w.head, rd->size);
	rd->step = ST_DATA;
	/* one read: [pos, head) of this head, the anchor and the control words after them, as a
	 * plan of ST_DATA reads them (else that plan, now) */
	if (rd->one_read && one_n == rd->nnew && w.buf == rd->buf_addr && w.size == rd->size)
		return ingest_data(rd, e);
	return TT_NUTTX_MORE;
}

/* Checks the chain of records in rd->ring[from, n): every record valid, the last one ending at
 * n. Returns the number of records, or -EPROTO with rd->err set and *bad = offset. */
static int walk(struct tt_nuttx *rd, uint32_t ring_off, uint32_t from, uint32_t n, uint32_t *bad,
		uint32_t *last)
{
	const struct nx_lay *l = &rd->d.lay;
	char why[160];
	uint32_t o = from;
	int count = 0;

	while (o < n) {
		if (nx_rec_check(l, rd->ring + o, n - o, why, sizeof(why)) < 0) {
			*bad = o;
			return fail(rd, -EPROTO, "bad note at 0x%llx (ring offset %u): %s",
				    (unsigned long long)(rd->buf_addr + (ring_off + o) % rd->size),
				    (ring_off + o) % rd->size, why);
		}
		*last = o;
		o += nx_alignup(rd->ring[o], l->align);
		count++;
	}
	return count;
}

static void set_anchor(struct tt_nuttx *rd, uint32_t ring_off, const uint8_t *bytes, bool rec)
{
	rd->anchor_off = ring_off % rd->size;
	memcpy(rd->anchor, bytes, rd->d.lay.hdr);
	rd->anchor_is_record = rec;
}


static void publish(struct tt_nuttx *rd, struct emitter *e, uint32_t ring_off, uint32_t from,
		    uint32_t n, bool quiet)
{
	uint32_t o = from, bytes = 0, nrec = 0, last = from;
	/* the note rate for lap estimates: bytes and time of notes published without a gap
	 * between them (the first note after a gap or reset starts the span) */
	bool cont = rd->d.have_time && !rd->d.after_gap, gap = rd->d.after_gap;
	uint64_t t0 = cont ? rd->d.last_raw : 0;

	while (o < n) {
		uint32_t at = (ring_off + o) % rd->size, step = nx_alignup(rd->ring[o],
									    rd->d.lay.align);
		if (!quiet)
			nx_emit_record(&rd->d, rd->ring + o, rd->buf_addr + at, count_emit, e);
		if (!cont) {
			t0 = nx_rec_time(&rd->d, rd->ring + o);
			cont = true;
		} else {
			bytes += step;
		}
		rd->st.last_new++;
		nrec++;
		last = o;
		o += step;
	}
	if (n > from && !quiet) {
		tt_loss_clock_note(&rd->clock, nx_host_at(rd), rd->d.time, gap);
		rd->host_last = rd->host_now; /* late: the time since it counts no wrap too many */
	}
	if (!quiet)
		rd->rate_before = 0;
	if (bytes && !quiet) {
		uint64_t span = nx_time_diff(&rd->d, t0, rd->d.last_raw);
		if (nrec > NX_PEAK_RUN && span)
			rd->rate_before = (double)bytes / (double)span;
		double run = nx_run_peak(rd, from, last);
		if (run > rd->peak)
			rd->peak = run;
		rd->rate_bytes += bytes;
		rd->rate_time += span;
		while (rd->rate_bytes > 4ull * rd->size) { /* a window of a few rings */
			rd->rate_bytes /= 2;
			rd->rate_time /= 2;
		}
	}
}

/* The notes in the copy [from, n) (ring offset ring_off) are checked: emit them once their
 * tasks' names were looked up in the target (tt_nuttx_ingest runs the lookup rounds, then
 * publish_pending), so no task the target names is emitted unnamed. Counted as new now. */
static void publish_named(struct tt_nuttx *rd, uint32_t ring_off, uint32_t from, uint32_t n)
{
	rd->pub_pending = true;
	rd->pub_off = ring_off;
	rd->pub_from = from;
	rd->pub_n = n;
	rd->pub_nlooked = 0;
	for (uint32_t o = from; o < n; o += nx_alignup(rd->ring[o], rd->d.lay.align))
		rd->st.last_new++;
}

static void publish_pending(struct tt_nuttx *rd, struct emitter *e)
{
	if (!rd->pub_pending)
		return;
	rd->pub_pending = false;
	uint32_t last_new = rd->st.last_new;
	publish(rd, e, rd->pub_off, rd->pub_from, rd->pub_n, false);
	rd->st.last_new = last_new; /* counted when the batch was read */
}

static bool pub_looked(const struct tt_nuttx *rd, int32_t pid)
{
	for (unsigned i = 0; i < rd->pub_nlooked; i++)
		if (rd->pub_looked[i] == pid)
			return true;
	return false;
}

/* Pids of the pending batch with no name known yet and not looked up for it (NX_WANT at most,
 * 64 per batch): into d->want. A NOTE_START (type 0 in every release) names its own task. */
static void want_pending(struct tt_nuttx *rd)
{
	const struct nx_lay *l = &rd->d.lay;
	const unsigned cap = sizeof(rd->pub_looked) / sizeof(rd->pub_looked[0]);

	for (uint32_t o = rd->pub_from; o < rd->pub_n; o += nx_alignup(rd->ring[o], l->align)) {
		int32_t pid = nx_rec_pid(l, rd->ring + o);
		if (!rd->d.want_names || rd->d.nwant == NX_WANT || rd->pub_nlooked == cap)
			return;
		if (rd->ring[o + 1] == 0 || nx_name_known(&rd->d, pid) || pub_looked(rd, pid))
			continue;
		nx_want_name(&rd->d, pid);
		rd->pub_looked[rd->pub_nlooked++] = pid;
	}
}

/* After a poll or a lookup round: the next round for the pending batch, or the batch itself,
 * then a round for pids its records still left unnamed. */
static int names_next(struct tt_nuttx *rd, struct emitter *e)
{
	if (rd->pub_pending) {
		want_pending(rd);
		if (rd->d.nwant)
			return nx_names_start(rd);
		publish_pending(rd, e);
	}
	int rc = nx_names_start(rd);
	if (rc != TT_NUTTX_DONE)
		return rc;
	if (rd->d.tasks_changed && nx_tasks_wanted(&rd->cfg.layout))
		rd->tk_due = true;
	rd->d.tasks_changed = false;
	return nx_tasks_start(rd);
}

static bool anchor_changed(const struct tt_nuttx *rd)
{
	return memcmp(rd->anchor, rd->anchor_now, rd->d.lay.hdr) != 0;
}

static int ingest_data(struct tt_nuttx *rd, struct emitter *e)
{
	struct ctlw w;
	uint32_t bad = 0, last = 0;
	int rc = parse_ctl(rd, rd->ctl2, &w), n;

	if (rc < 0)
		return rc;
	if (w.buf != rd->buf_addr || w.size != rd->size) {
		rd->step = ST_CTL;
		return TT_NUTTX_MORE; /* the next control read reports the reset */
	}
	rd->h1 = w.head;
	rd->t1 = w.tail;
	if (anchor_changed(rd)) {
		/* The writer reached the anchor's slot: it may have overwritten what we copied. */
		rd->host_head = rd->host_plan; /* the sync reads up to this read's head */
		rd->gap_known_loss = false;
		rd->sync_tries = 0;
		start_sync(rd, WHY_LAP, "lapped");
		return TT_NUTTX_MORE;
	}
	rd->step = ST_CTL;
	n = walk(rd, rd->pos, 0, rd->nnew, &bad, &last);
	if (n < 0) {
		publish(rd, e, rd->pos, 0, bad, false);
		rd->pos = (rd->pos + bad) % rd->size;
		rd->st.bad_records++;
		rd->why = WHY_ERROR;
		rd->gap_reason = "bad record";
		rd->need_sync = true;
		return n;
	}
	publish_named(rd, rd->pos, 0, rd->nnew);
	set_anchor(rd, rd->pos + last, rd->ring + last, true);
	rd->pos = (rd->pos + rd->nnew) % rd->size;
	rd->host_proven = rd->host_plan; /* the anchor was read in this plan */
	return TT_NUTTX_DONE;
}


/* The notes in the copy [0, n) (read from our position up to the tail) form a chain that ends
 * exactly at n, each newer than the one before and the first newer than the last published:
 * notes written after our last poll and before a clear. Stale bytes of an older lap or a
 * re-initialised ring do not. *last = offset of the last one. */
static bool pre_clear_chain(struct tt_nuttx *rd, uint32_t n, uint32_t *last)
{
	const struct nx_lay *l = &rd->d.lay;
	char why[160];
	uint64_t t = rd->d.last_raw;
	bool have = rd->d.have_time;

	for (uint32_t o = 0; o < n; o += nx_alignup(rd->ring[o], l->align)) {
		if (nx_rec_check(l, rd->ring + o, n - o, why, sizeof(why)) < 0)
			return false;
		uint64_t tn = nx_rec_time(&rd->d, rd->ring + o);
		if (have && nx_time_diff(&rd->d, t, tn) == 0)
			return false; /* not newer (32-bit clocks: modulo 2^32) */
		t = tn;
		have = true;
		*last = o;
	}
	return n > 0;
}

/* The tail passed our position (ingest_ctl); [pos, tail), the anchor and the control words were
 * read after it. An anchor rewritten means the writer came round to our position: a lap (and
 * if the ring is not full, a clear after it). An anchor intact means nothing we have not read
 * was overwritten: the ring was cleared (or re-initialised), and the notes between our position
 * and the tail, written before the clear, are delivered before the reset. */
static int ingest_clearchk(struct tt_nuttx *rd, struct emitter *e)
{
	struct ctlw w;
	uint32_t last = 0;
	int rc = parse_ctl(rd, rd->ctl2, &w);

	if (rc < 0)
		return rc;
	if (w.buf != rd->buf_addr || w.size != rd->size) {
		rd->step = ST_CTL;
		return TT_NUTTX_MORE; /* the next control read reports the reset */
	}
	rd->sync_tries = 0;
	if (anchor_changed(rd)) {
		if (!rd->full_at_check)
			emit_reset(rd, e, "noteram buffer cleared (the tail moved past the reader in a "
					  "ring that is not full), after a lap");
		rd->gap_known_loss = true;
		start_sync(rd, WHY_LAP, rd->full_at_check ? "lapped" : "lapped before the noteram "
				"buffer was cleared");
		return TT_NUTTX_MORE;
	}
	if (pre_clear_chain(rd, rd->nnew, &last)) {
		publish(rd, e, rd->pos, 0, rd->nnew, false);
		set_anchor(rd, rd->pos + last, rd->ring + last, true);
	}
	emit_reset(rd, e, "noteram buffer cleared or re-initialised (the tail moved past the "
			  "reader with nothing overwritten: NOTERAM_CLEAR, e.g. trace start)");
	start_sync(rd, WHY_RESET, NULL);
	/* every note since the clear is promised: the full read must start at this tail. Those
	 * the full read no longer finds were written after the clear, which came after the read
	 * before this one: host_proven stays that read's (the window of their estimate). */
	rd->clear_known = true;
	rd->clear_at = w.tail;
	return TT_NUTTX_MORE;
}

/* The gap before the first record published by a sync after a lap or a bad record: exact from
 * a constant-step clock, else the estimate above (labelled), else a lower bound. */
static void sync_gap(struct tt_nuttx *rd, struct emitter *e, uint32_t start, uint32_t from,
		     uint32_t last, uint32_t nrec)
{
	uint64_t bytes = nx_dist(rd->pos, start, rd->size);
	uint64_t lb = (bytes + NX_MAX_REC - 1) / NX_MAX_REC;
	int64_t byt = -1;

	if (rd->gap_known_loss && !bytes) {
		bytes = rd->size; /* the tail went a whole ring round */
		lb = rd->size / NX_MAX_REC;
	}
	if (rd->why == WHY_ERROR && !lb)
		lb = 1; /* the bad record itself */
	if (nrec)
		byt = nx_count_by_time(&rd->d, nx_rec_time(&rd->d, rd->ring + from));
	if (byt >= 0 && (uint64_t)byt >= lb) {
		if (byt)
			emit_gap(rd, e, (uint64_t)byt, true, NULL, rd->gap_reason);
		return;
	}
	struct tt_gap g = { .lost = lb, .lower = lb, .upper = TT_GAP_NO_UPPER,
			    .reason = rd->gap_reason };
	nx_lap_estimate(rd, bytes, from, last, nrec, &g);
	emit_gap_rec(rd, e, &g);
}

/* Raw time t is after the last published record's (32-bit clocks: modulo 2^32). */
static bool newer(const struct nx_dec *d, uint64_t t)
{
	if (!d->have_time)
		return true;
	if (d->lay.time_size == 4 && !d->lay.off_nsec)
		return (int32_t)(uint32_t)(t - d->last_raw) > 0;
	return t > d->last_raw;
}

/* After a bad record: resume at it if the chain from the tail still reaches its position and
 * the time stamps agree (the one before is not newer than what we published, it is); that
 * needs no gap. Else resume at the first record newer than the last published one, after a
 * gap. Returns the new start offset in the copy; *start becomes its ring offset. */
static uint32_t skip_published(struct tt_nuttx *rd, uint32_t from, uint32_t end, uint32_t *start)
{
	const struct nx_lay *l = &rd->d.lay;
	uint32_t o = from, prev = UINT32_MAX;

	while (o < end && (rd->t1 + o) % rd->size != rd->pos) {
		prev = o;
		o += nx_alignup(rd->ring[o], l->align);
	}
	if (o < end && newer(&rd->d, nx_rec_time(&rd->d, rd->ring + o)) &&
	    (prev == UINT32_MAX || !newer(&rd->d, nx_rec_time(&rd->d, rd->ring + prev)))) {
		rd->gap_reason = NULL;
	} else {
		for (o = from; o < end && !newer(&rd->d, nx_rec_time(&rd->d, rd->ring + o));)
			o += nx_alignup(rd->ring[o], l->align);
	}
	*start = (rd->t1 + o) % rd->size;
	return o;
}

static int ingest_sync(struct tt_nuttx *rd, struct emitter *e)
{
	const struct nx_lay *l = &rd->d.lay;
	struct ctlw w;
	uint32_t bad = 0, last = 0, from, end = rd->nnew;
	int rc = parse_ctl(rd, rd->ctl2, &w), n;

	if (rc < 0)
		return rc;
	if (w.buf != rd->buf_addr || w.size != rd->size) {
		rd->step = ST_CTL;
		return TT_NUTTX_MORE;
	}
	rd->step = ST_CTL;
	/* Records the writer dropped during the copy may be overwritten: start at the tail
	 * re-read after it (a record boundary), which must still be within what we copied. */
	from = nx_dist(rd->t1, w.tail, rd->size);
	if (from > end) {
		if (++rd->sync_tries >= SYNC_RETRIES)
			return fail(rd, -EPROTO, "the target laps its %u-byte noteram ring faster "
				    "than it can be read (%u full reads in a row overtaken)",
				    rd->size, rd->sync_tries);
		return TT_NUTTX_MORE;
	}
	n = walk(rd, rd->t1, from, end, &bad, &last);
	if (n < 0 && (w.head != rd->h1 || w.tail != rd->t1) && ++rd->sync_tries < SYNC_RETRIES) {
		/* The writer went on after the control words this read was planned from: round
		 * the ring (the new tail back inside the copy by the modulo) or on to a head past
		 * the old one (a fast writer that then stopped: `trace stop`). The chain from the
		 * new tail need not end at the old head; the copy is stale, not the ring bad: read
		 * it again from the control words as they are now. */
		rd->err[0] = 0;
		return TT_NUTTX_MORE;
	}
	if (n < 0) {
		rd->st.bad_records++; /* need_sync stays: the next poll reads it all again */
		return n;
	}
	rd->sync_tries = 0;
	uint32_t start = (rd->t1 + from) % rd->size;
	if (rd->why == WHY_ERROR)
		from = skip_published(rd, from, end, &start);
	if (rd->why == WHY_RESET && rd->clear_known && start != rd->clear_at) {
		/* notes written after the clear were dropped before this read: counted like a
		 * lap's from the tail at the clear */
		rd->pos = rd->clear_at;
		rd->gap_reason = "overwritten after the noteram buffer was cleared";
		sync_gap(rd, e, start, from, last, (uint32_t)n);
	} else if ((rd->why == WHY_LAP || rd->why == WHY_ERROR) && rd->gap_reason) {
		sync_gap(rd, e, start, from, last, (uint32_t)n);
	}
	rd->clear_known = false;
	bool quiet = rd->why == WHY_ATTACH && rd->cfg.start_at_now;
	if (quiet) {
		publish(rd, e, rd->t1, from, end, true);
		rd->st.last_new = 0;
	} else {
		publish_named(rd, rd->t1, from, end);
	}
	if (from < end)
		set_anchor(rd, rd->t1 + last, rd->ring + last, true);
	else
		set_anchor(rd, rd->h1 + rd->size - l->hdr % rd->size, rd->anchor_now, false);
	rd->pos = rd->h1;
	rd->host_proven = rd->host_plan;
	rd->why = WHY_ATTACH;
	rd->need_sync = false;
	rd->gap_reason = NULL;
	rd->gap_known_loss = false;
	return TT_NUTTX_DONE;
}

int tt_nuttx_ingest(struct tt_nuttx *rd, tt_emit_cb cb, void *arg)
{
	struct emitter e = { rd, cb, arg };
	int rc;

	rd->err[0] = 0;
	if (rd->pub_pending && rd->step < ST_PIDHASH)
		publish_pending(rd, &e); /* its lookup failed: unnamed rather than lost */
	if (rd->names_off) {
		rd->names_off = false;
		return fail(rd, -EPROTO, "task names from the target are off: %u lookups in a row could "
			    "not be read (g_pidhash at 0x%llx: a wrong address, or memory the probe "
			    "cannot read)", rd->name_fails,
			    (unsigned long long)rd->cfg.layout.pidhash_addr);
	}
	switch (rd->step) {
	case ST_CTL: rc = ingest_ctl(rd, &e); break;
	case ST_DATA: rc = ingest_data(rd, &e); break;
	case ST_CLEARCHK: rc = ingest_clearchk(rd, &e); break;
	case ST_SYNC: rc = ingest_sync(rd, &e); break;
	case ST_PIDHASH:
	case ST_SLOTS:
	case ST_TCBS:
	case ST_TASKNAME: rc = nx_names_ingest(rd); break;
	case ST_TK_HASH:
	case ST_TK_SLOTS:
	case ST_TK_TCBS: rc = nx_tasks_ingest(rd); break;
	default: return -EINVAL;
	}
	return rc == TT_NUTTX_DONE ? names_next(rd, &e) : rc;
}

void tt_nuttx_set_host_time(struct tt_nuttx *rd, uint64_t ns)
{
	rd->host_now = ns;
}
