/* proto/nuttx.c: the NuttX noteram live reader (plan/ingest), image decoding, and the "nuttx"
 * entry of reader.h.
 *
 * Owns the cycle: control words -> new bytes + anchor + control words, or a full read of
 * [tail, head) (attach, laps, resets, after a bad record). Policy and proofs: README-nuttx.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nuttx_int.h"
#include "reader.h"

#define SYNC_RETRIES 8

enum nx_step { ST_CTL, ST_DATA, ST_CLEARCHK, ST_SYNC, ST_PIDHASH, ST_SLOTS, ST_TCBS,
	       ST_TASKNAME };
#define NAME_FAILS_MAX 3 /* failed lookup reads in a row before names are turned off */

enum nx_why { WHY_ATTACH, WHY_LAP, WHY_RESET, WHY_ERROR };

struct tt_nuttx {
	struct tt_nuttx_config cfg;
	struct nx_dec d;
	struct tt_nuttx_stats st;
	char err[256];
	enum nx_step step;
	enum nx_why why;         /* of the next sync */
	bool need_sync;          /* the next poll is a full read (why says why) */
	const char *gap_reason;  /* WHY_LAP/WHY_ERROR: reason of the gap record */
	bool gap_known_loss;     /* the tail passed our position: something is lost */
	unsigned sync_tries;
	bool attached;
	bool overflowed;         /* ni_overwrite 2 seen and reported */
	bool full_at_check;      /* ST_CLEARCHK: the ring was full when the tail passed us */
	uint64_t buf_addr;
	uint32_t size;
	uint32_t pos;            /* ring offset of the next unread byte */
	uint32_t h1, t1;         /* control words at the start of this poll */
	uint32_t nnew;           /* bytes planned in ST_DATA / ST_SYNC */
	uint32_t anchor_off;     /* ring offset of the anchor (last published record header) */
	bool anchor_is_record;
	uint8_t anchor[NX_MAX_REC], anchor_now[NX_MAX_REC];
	uint8_t ctl[256], ctl2[256];
	uint8_t *ring;           /* size bytes: the new bytes, linear */
	uint64_t rate_bytes, rate_time; /* notes published lately: their bytes, their time span */
	uint8_t *ring_alloc;
	char **sysnames;         /* owned copy of the layout's syscall names (one allocation) */
	/* task names from the target: ST_PIDHASH (g_pidhash, g_npidhash) -> ST_SLOTS (the hash
	 * slots of the pids) -> ST_TCBS (tcb->pid, tcb->name), after a poll that named pids */
	unsigned name_fails;     /* lookups whose reads failed, in a row */
	bool names_off;          /* turned off for that: not said yet */
	unsigned nm_n;           /* pids in this round */
	int32_t nm_pid[NX_WANT];
	uint64_t nm_table;       /* g_pidhash's value */
	uint32_t nm_mask;        /* g_npidhash - 1 */
	uint8_t nm_hash[8], nm_count[4], nm_slot[NX_WANT][8], nm_tpid[NX_WANT][4];
	char nm_name[NX_WANT][NX_NAME_MAX];
	const char *nm_found[NX_WANT]; /* names from the TCBs (into nm_name), NULL: none */
	uint8_t nm_cache[16 + 4096];   /* g_note_taskname: head, tail, buffer */
};

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

/* Cyclic distance from a to b in a ring of size n. */
static uint32_t dist(uint32_t a, uint32_t b, uint32_t n)
{
	return b >= a ? b - a : b + n - a;
}

/* Syscall names for the decoder: borrowed from lo (copy == NULL), or copied into *copy (one
 * allocation: the pointers, then the strings). 0 or -ENOMEM. */
static int use_syscalls(struct nx_dec *d, const struct tt_nuttx_layout *lo, char ***copy)
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
	if (use_syscalls(&rd->d, &cfg->layout, &rd->sysnames) < 0) {
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

static void add_range(struct tt_nuttx *rd, struct tt_plan *p, uint64_t addr, uint32_t len,
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

	add_range(rd, p, rd->buf_addr + off, first, dst);
	add_range(rd, p, rd->buf_addr, len - first, dst + first);
}

/* ---- task names from the target ---- */

static uint64_t nm_tcb(const struct tt_nuttx *rd, unsigned i)
{
	return nx_get(&rd->d.lay, rd->nm_slot[i], rd->d.lay.ptr);
}

static unsigned nm_name_len(const struct tt_nuttx_layout *lo)
{
	unsigned n = lo->tcb_name_size;

	return n < NX_NAME_MAX ? n : NX_NAME_MAX;
}

static unsigned nm_pid_size(const struct tt_nuttx_layout *lo)
{
	return lo->tcb_pid_size ? lo->tcb_pid_size : 4;
}

static void plan_names(struct tt_nuttx *rd, struct tt_plan *p)
{
	const struct tt_nuttx_layout *lo = &rd->cfg.layout;
	unsigned ptr = rd->d.lay.ptr;

	for (unsigned i = 0; i < rd->nm_n; i++) {
		uint64_t tcb = nm_tcb(rd, i);
		if (rd->step == ST_SLOTS) {
			uint32_t slot = (uint32_t)rd->nm_pid[i] & rd->nm_mask;
			add_range(rd, p, rd->nm_table + (uint64_t)slot * ptr, ptr, rd->nm_slot[i]);
		} else if (rd->step == ST_TCBS && tcb) {
			add_range(rd, p, tcb + lo->tcb_off_pid, nm_pid_size(lo), rd->nm_tpid[i]);
			add_range(rd, p, tcb + lo->tcb_off_name, nm_name_len(lo),
				  (uint8_t *)rd->nm_name[i]);
		}
	}
	if (rd->step == ST_PIDHASH) {
		add_range(rd, p, lo->pidhash_addr, ptr, rd->nm_hash);
		add_range(rd, p, lo->npidhash_addr, 4, rd->nm_count);
	}
	if (rd->step == ST_TASKNAME)
		add_range(rd, p, lo->taskname_addr, 2 * ptr + lo->taskname_size, rd->nm_cache);
}

void tt_nuttx_plan(struct tt_nuttx *rd, struct tt_plan *p)
{
	const struct nx_lay *l = &rd->d.lay;
	uint64_t ctl = rd->cfg.driver_addr + l->ctl_lo;

	p->n = 0;
	switch (rd->step) {
	case ST_CTL:
		add_range(rd, p, ctl, l->ctl_len, rd->ctl);
		break;
	case ST_DATA:
	case ST_CLEARCHK: /* [pos, head) or [pos, tail), then the anchor, then the control words */
		add_ring(rd, p, rd->pos, rd->nnew, rd->ring);
		add_ring(rd, p, rd->anchor_off, l->hdr, rd->anchor_now);
		add_range(rd, p, ctl, l->ctl_len, rd->ctl2);
		break;
	case ST_SYNC:
		add_ring(rd, p, rd->t1, rd->nnew, rd->ring);
		/* the bytes before head: the anchor when the ring holds no record */
		add_ring(rd, p, (rd->h1 + rd->size - l->hdr % rd->size) % rd->size, l->hdr,
			 rd->anchor_now);
		add_range(rd, p, ctl, l->ctl_len, rd->ctl2);
		break;
	case ST_PIDHASH:
	case ST_SLOTS:
	case ST_TCBS:
	case ST_TASKNAME:
		plan_names(rd, p);
		break;
	}
}

struct ctlw {
	uint64_t buf, size;
	uint32_t head, tail, overwrite;
};

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

static void emit_gap(struct tt_nuttx *rd, struct emitter *e, uint64_t lost, bool exact,
		     const char *basis, const char *reason)
{
	struct tt_record rec = { .kind = TT_REC_GAP };

	rec.u.gap = (struct tt_gap){ .lost = lost, .exact = exact, .basis = basis,
				     .reason = reason };
	rd->st.gaps++;
	rd->st.lost += lost;
	rd->d.after_gap = true;
	e->cb(e->arg, &rec);
}

static void start_sync(struct tt_nuttx *rd, enum nx_why why, const char *reason)
{
	rd->why = why;
	rd->gap_reason = reason;
	rd->need_sync = true;
	rd->step = ST_SYNC;
	rd->nnew = dist(rd->t1, rd->h1, rd->size);
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
	rd->st.capacity = rd->size / 16;
	return 0;
}

static int ingest_ctl(struct tt_nuttx *rd, struct emitter *e)
{
	struct ctlw w;
	int rc = parse_ctl(rd, rd->ctl, &w);
	uint32_t used, free_bytes;

	rd->st.polls++;
	rd->st.last_new = 0;
	if (rc < 0)
		return rc;
	rd->h1 = w.head;
	rd->t1 = w.tail;
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
	used = dist(w.tail, w.head, rd->size);
	if (dist(w.tail, rd->pos, rd->size) > used) {
		/* The tail passed our position: a lap, or NOTERAM_CLEAR (tail = head: `trace
		 * start`) with the notes written since our last poll still in [pos, tail). The
		 * anchor tells (ingest_clearchk). A ring that is full (free space < one aligned
		 * record, plus the record being copied) can be either; one with more room was
		 * cleared or re-initialised. */
		free_bytes = rd->size - used;
		rd->full_at_check = free_bytes <= 2 * NX_MAX_REC + rd->d.lay.align;
		rd->nnew = dist(rd->pos, w.tail, rd->size);
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
	if (w.head == rd->pos)
		return TT_NUTTX_DONE;
	rd->nnew = dist(rd->pos, w.head, rd->size);
	rd->step = ST_DATA;
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

/* Time from raw time a to raw time b (32-bit clocks: modulo 2^32). */
static uint64_t time_diff(const struct nx_dec *d, uint64_t a, uint64_t b)
{
	if (d->lay.time_size == 4 && !d->lay.off_nsec)
		return (uint32_t)(b - a);
	return b > a ? b - a : 0;
}

static void publish(struct tt_nuttx *rd, struct emitter *e, uint32_t ring_off, uint32_t from,
		    uint32_t n, bool quiet)
{
	uint32_t o = from, bytes = 0;
	/* the note rate for lap estimates: bytes and time of notes published without a gap
	 * between them (the first note after a gap or reset starts the span) */
	bool cont = rd->d.have_time && !rd->d.after_gap;
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
		o += step;
	}
	if (bytes && !quiet) {
		rd->rate_bytes += bytes;
		rd->rate_time += time_diff(&rd->d, t0, rd->d.last_raw);
		while (rd->rate_bytes > 4ull * rd->size) { /* a window of a few rings */
			rd->rate_bytes /= 2;
			rd->rate_time /= 2;
		}
	}
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
	publish(rd, e, rd->pos, 0, rd->nnew, false);
	set_anchor(rd, rd->pos + last, rd->ring + last, true);
	rd->pos = (rd->pos + rd->nnew) % rd->size;
	return TT_NUTTX_DONE;
}


#define NX_ESTIMATE_BASIS "ring position and mean note size; laps from the time stamps and " \
			  "the note rate"

/* The best estimate of the notes lost in a lap: the bytes written between our position and the
 * first note kept are known modulo the ring size (bytes_min + k * size); how many whole rings
 * (k) the time between the last note published and the first kept one held follows from the
 * rate at which the notes kept were written (bytes per time unit); the bytes become notes by the
 * mean size of the notes kept. 0 when the time stamps cannot tell (fewer than two notes kept, or
 * times that do not move forward). The copy holds the notes kept at [from, last]. */
static uint64_t lap_estimate(const struct tt_nuttx *rd, uint32_t bytes_min, uint32_t from,
			     uint32_t last, uint32_t nrec)
{
	const struct nx_dec *d = &rd->d;

	if (!d->have_time || nrec < 2 || last <= from)
		return 0;
	uint64_t t_first = nx_rec_time(d, rd->ring + from), t_last = nx_rec_time(d, rd->ring + last);
	uint64_t span = time_diff(d, t_first, t_last), gap = time_diff(d, d->last_raw, t_first);
	uint64_t kept = (uint64_t)(last - from), k = 0;

	if (!span || !gap)
		return 0;
	/* bytes written in the gap at the rate of the notes kept (last - from bytes in span) and
	 * of those published before the gap */
	__extension__ typedef unsigned __int128 u128;
	u128 est = ((u128)kept + rd->rate_bytes) * gap / (span + rd->rate_time);
	if (est > bytes_min)
		k = (uint64_t)((est - bytes_min + rd->size / 2) / rd->size);
	if (rd->gap_known_loss && !bytes_min && !k)
		k = 1; /* the tail went a whole ring round */
	u128 lost_bytes = (u128)bytes_min + (u128)k * rd->size;
	u128 total = kept + nx_alignup(rd->ring[last], d->lay.align); /* nrec notes' bytes */
	uint64_t lost = (uint64_t)((lost_bytes * nrec + total / 2) / total);
	return lost ? lost : 1;
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
		if (have && time_diff(&rd->d, t, tn) == 0)
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
	return TT_NUTTX_MORE;
}

/* The gap before the first record published by a sync after a lap or a bad record: exact from
 * a constant-step clock, else the estimate above (labelled), else a lower bound. */
static void sync_gap(struct tt_nuttx *rd, struct emitter *e, uint32_t start, uint32_t from,
		     uint32_t last, uint32_t nrec)
{
	uint32_t bytes = dist(rd->pos, start, rd->size);
	uint64_t lb = (bytes + NX_MAX_REC - 1) / NX_MAX_REC, est;
	int64_t byt = -1;

	if (rd->gap_known_loss && !lb)
		lb = rd->size / NX_MAX_REC; /* the tail went a whole ring round */
	if (nrec)
		byt = nx_count_by_time(&rd->d, nx_rec_time(&rd->d, rd->ring + from));
	if (byt >= 0 && (uint64_t)byt >= lb) {
		if (byt)
			emit_gap(rd, e, (uint64_t)byt, true, NULL, rd->gap_reason);
		return;
	}
	if (rd->why == WHY_LAP && (est = lap_estimate(rd, bytes, from, last, nrec)) != 0) {
		emit_gap(rd, e, est > lb ? est : lb, false, NX_ESTIMATE_BASIS, rd->gap_reason);
		return;
	}
	if (rd->why == WHY_ERROR && !lb)
		lb = 1; /* the bad record itself */
	emit_gap(rd, e, lb, false, NULL, rd->gap_reason);
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
	from = dist(rd->t1, w.tail, rd->size);
	if (from > end) {
		if (++rd->sync_tries >= SYNC_RETRIES)
			return fail(rd, -EPROTO, "the target laps its %u-byte noteram ring faster "
				    "than it can be read (%u full reads in a row overtaken)",
				    rd->size, rd->sync_tries);
		return TT_NUTTX_MORE;
	}
	n = walk(rd, rd->t1, from, end, &bad, &last);
	if (n < 0) {
		rd->st.bad_records++; /* need_sync stays: the next poll reads it all again */
		return n;
	}
	rd->sync_tries = 0;
	uint32_t start = (rd->t1 + from) % rd->size;
	if (rd->why == WHY_ERROR)
		from = skip_published(rd, from, end, &start);
	if ((rd->why == WHY_LAP || rd->why == WHY_ERROR) && rd->gap_reason)
		sync_gap(rd, e, start, from, last, (uint32_t)n);
	bool quiet = rd->why == WHY_ATTACH && rd->cfg.start_at_now;
	publish(rd, e, rd->t1, from, end, quiet);
	if (quiet)
		rd->st.last_new = 0;
	if (from < end)
		set_anchor(rd, rd->t1 + last, rd->ring + last, true);
	else
		set_anchor(rd, rd->h1 + rd->size - l->hdr % rd->size, rd->anchor_now, false);
	rd->pos = rd->h1;
	rd->why = WHY_ATTACH;
	rd->need_sync = false;
	rd->gap_reason = NULL;
	rd->gap_known_loss = false;
	return TT_NUTTX_DONE;
}

/* After a poll whose records named pids with no name known: look them up in the target. */
static int names_start(struct tt_nuttx *rd)
{
	if (!rd->d.want_names || !rd->d.nwant)
		return TT_NUTTX_DONE;
	rd->nm_n = rd->d.nwant;
	memcpy(rd->nm_pid, rd->d.want, rd->nm_n * sizeof(rd->nm_pid[0]));
	memset(rd->nm_found, 0, sizeof(rd->nm_found));
	rd->d.nwant = 0;
	/* the TCBs first; only NuttX's own cache when the layout has no task table */
	rd->step = rd->cfg.layout.pidhash_addr ? ST_PIDHASH : ST_TASKNAME;
	return TT_NUTTX_MORE;
}

/* Ends the lookup round: names[i] for the pids of this round (NULL: no name there). */
static int names_done(struct tt_nuttx *rd, const char *const *names)
{
	for (unsigned i = 0; i < rd->nm_n; i++)
		nx_set_name(&rd->d, rd->nm_pid[i], names ? names[i] : NULL);
	rd->step = ST_CTL;
	return TT_NUTTX_DONE;
}

/* g_pidhash and g_npidhash as read: a table, and a power of two up to 65536 slots. Else the
 * scheduler has not started yet, or those are not the variables (wrong addresses). */
static bool pidhash_ok(uint64_t table, uint64_t n)
{
	return table && n && n <= 65536 && !(n & (n - 1));
}

static int ingest_pidhash(struct tt_nuttx *rd)
{
	uint64_t n = nx_get(&rd->d.lay, rd->nm_count, 4);

	rd->name_fails = 0;
	rd->nm_table = nx_get(&rd->d.lay, rd->nm_hash, rd->d.lay.ptr);
	if (!pidhash_ok(rd->nm_table, n)) {
		if (!rd->cfg.layout.taskname_addr)
			return names_done(rd, NULL);
		rd->step = ST_TASKNAME; /* no task table (yet): NuttX's own cache */
		return TT_NUTTX_MORE;
	}
	rd->nm_mask = (uint32_t)n - 1;
	rd->step = ST_SLOTS;
	return TT_NUTTX_MORE;
}

static int ingest_tcbs(struct tt_nuttx *rd);

static int ingest_slots(struct tt_nuttx *rd)
{
	for (unsigned i = 0; i < rd->nm_n; i++)
		if (nm_tcb(rd, i)) {
			rd->step = ST_TCBS;
			return TT_NUTTX_MORE;
		}
	return ingest_tcbs(rd); /* the tasks exited: NuttX's cache, if it has one */
}

/* A TCB's name[] as read (at most NX_NAME_MAX bytes): printable text up to its NUL or the end,
 * else NULL (empty, or not a name: the slot held something else). */
static const char *tcb_name(char *s, unsigned len)
{
	unsigned n = 0;

	if (!len)
		return NULL;
	while (n < len && s[n])
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e)
			return NULL;
		else
			n++;
	if (n == len)
		n = len - 1; /* longer than the cache keeps: cut */
	s[n] = 0;
	return n ? s : NULL;
}

/* The name of the TCB whose pid (as read at tpid) is pid, from its name[] as read at name; NULL
 * when the TCB is another task's (ours exited and the slot was reused) or the name is not one. */
static const char *tcb_match(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			     const uint8_t *tpid, char *name, int32_t pid)
{
	if (nx_pid(l, tpid, nm_pid_size(lo)) != pid)
		return NULL;
	return tcb_name(name, nm_name_len(lo));
}

/* NuttX's task name cache as read (c: head, tail, then lo->taskname_size bytes of entries
 * {pid, size, name}), searched from the tail as NuttX's note_find_taskname does: pid's name
 * into out (NX_NAME_MAX bytes), or NULL. Every index and size is checked: a cache that does
 * not hold together gives no name. */
static const char *cache_name(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			      const uint8_t *c, int32_t pid, char *out)
{
	const uint8_t *buf = c + 2 * l->ptr;
	uint64_t n = lo->taskname_size, head = nx_get(l, c, l->ptr), at = nx_get(l, c + l->ptr, l->ptr);
	unsigned ps = nm_pid_size(lo);

	if (head >= n || at >= n)
		return NULL;
	for (uint64_t steps = 0; at != head && steps < n; steps++) {
		if (at + ps + 1 > n)
			return NULL;
		unsigned size = buf[at + ps];
		if (size < ps + 2 || at + size > n)
			return NULL;
		if (nx_pid(l, buf + at, ps) == pid) {
			unsigned len = size - ps - 1 < NX_NAME_MAX ? size - ps - 1 : NX_NAME_MAX;
			memcpy(out, buf + at + ps + 1, len);
			return tcb_name(out, len);
		}
		at = (at + size) % n;
	}
	return NULL;
}

static int ingest_tcbs(struct tt_nuttx *rd)
{
	bool missing = false;

	for (unsigned i = 0; i < rd->nm_n; i++) {
		rd->nm_found[i] = NULL;
		if (nm_tcb(rd, i))
			rd->nm_found[i] = tcb_match(&rd->d.lay, &rd->cfg.layout, rd->nm_tpid[i],
						    rd->nm_name[i], rd->nm_pid[i]);
		missing |= !rd->nm_found[i];
	}
	if (missing && rd->cfg.layout.taskname_addr) { /* exited tasks: NuttX's own cache */
		rd->step = ST_TASKNAME;
		return TT_NUTTX_MORE;
	}
	return names_done(rd, rd->nm_found);
}

static int ingest_taskname(struct tt_nuttx *rd)
{
	for (unsigned i = 0; i < rd->nm_n; i++)
		if (!rd->nm_found[i])
			rd->nm_found[i] = cache_name(&rd->d.lay, &rd->cfg.layout, rd->nm_cache,
						     rd->nm_pid[i], rd->nm_name[i]);
	return names_done(rd, rd->nm_found);
}

int tt_nuttx_ingest(struct tt_nuttx *rd, tt_emit_cb cb, void *arg)
{
	struct emitter e = { rd, cb, arg };
	int rc;

	rd->err[0] = 0;
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
	case ST_PIDHASH: return ingest_pidhash(rd);
	case ST_SLOTS: return ingest_slots(rd);
	case ST_TCBS: return ingest_tcbs(rd);
	case ST_TASKNAME: return ingest_taskname(rd);
	default: return -EINVAL;
	}
	return rc == TT_NUTTX_DONE ? names_start(rd) : rc;
}

/* ---- images ---- */

static int decode_stream(struct nx_dec *d, const uint8_t *img, size_t len, uint64_t base,
			 tt_emit_cb cb, void *arg, char *err, size_t errlen)
{
	char why[160];
	size_t o = 0;

	while (o < len && img[o]) {
		if (nx_rec_check(&d->lay, img + o, len - o, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "bad note at file offset %zu: %s", o, why);
			/* the file ends inside a whole-looking note: cut short, not garbage */
			return img[o] > len - o && img[o] >= d->lay.hdr ? -ENODATA : -EPROTO;
		}
		nx_emit_record(d, img + o, base ? base + o : 0, cb, arg);
		/* Records back to back as NuttX's binary read mode returns them (noteram_get: one
		 * note of nc_length bytes per read, no padding: `trace dump -b`), or padded to the
		 * ring alignment: the padded position is taken only when the packed one cannot
		 * start a record (a length byte below the header size) and the padded one can. */
		size_t packed = o + img[o], padded = o + nx_alignup(img[o], d->lay.align);
		o = packed;
		if (padded != packed && packed < len && img[packed] < d->lay.hdr && padded < len &&
		    img[padded] >= d->lay.hdr)
			o = padded;
	}
	return 0;
}

/* ---- task names in an image ---- */

/* [addr, addr + n) of an image that starts at target address base, or NULL when not inside. */
static const uint8_t *img_at(const uint8_t *img, size_t len, uint64_t base, uint64_t addr,
			     size_t n)
{
	if (addr < base || addr - base > len || len - (addr - base) < n)
		return NULL;
	return img + (addr - base);
}

/* The live lookup's rules on an image that holds the TCBs (a whole-RAM dump): pid's name into
 * out (NX_NAME_MAX bytes), or NULL. */
static const char *img_name(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			    const uint8_t *img, size_t len, uint64_t base, int32_t pid, char *out)
{
	const uint8_t *h = img_at(img, len, base, lo->pidhash_addr, l->ptr);
	const uint8_t *c = img_at(img, len, base, lo->npidhash_addr, 4);
	uint64_t table = h ? nx_get(l, h, l->ptr) : 0, n = c ? nx_get(l, c, 4) : 0;
	bool ok = pidhash_ok(table, n);
	const uint8_t *s = ok ? img_at(img, len, base, table + ((uint32_t)pid & (n - 1)) * l->ptr,
				       l->ptr) : NULL;
	uint64_t tcb = s ? nx_get(l, s, l->ptr) : 0;
	const uint8_t *tp = tcb ? img_at(img, len, base, tcb + lo->tcb_off_pid, nm_pid_size(lo))
				: NULL;
	const uint8_t *tn = tcb ? img_at(img, len, base, tcb + lo->tcb_off_name, nm_name_len(lo))
				: NULL;
	const char *name = NULL;

	if (tp && tn) {
		memcpy(out, tn, nm_name_len(lo));
		name = tcb_match(l, lo, tp, out, pid);
	}
	const uint8_t *cache = lo->taskname_addr ? img_at(img, len, base, lo->taskname_addr,
							  2u * l->ptr + lo->taskname_size) : NULL;
	return name ? name : cache ? cache_name(l, lo, cache, pid, out) : NULL;
}

/* The control words of the driver at driver_addr, inside the image (checked by the caller). */
static void img_ctl(const struct nx_lay *l, const uint8_t *img, size_t len, uint64_t base,
		    uint64_t driver_addr, struct ctlw *w)
{
	const uint8_t *c = img + (driver_addr - base);

	(void)len;
	w->buf = l->bytes ? driver_addr + l->off_buffer : nx_get(l, c + l->off_buffer, l->ptr);
	w->size = l->bytes ? l->bufsize : nx_get(l, c + l->off_bufsize, l->ptr);
	w->head = (uint32_t)nx_get(l, c + l->off_head, 4);
	w->tail = (uint32_t)nx_get(l, c + l->off_tail, 4);
}

static bool img_driver_inside(const struct nx_lay *l, size_t len, uint64_t base,
			      uint64_t driver_addr)
{
	return driver_addr >= base && driver_addr - base <= len &&
	       len - (driver_addr - base) >= (uint64_t)l->ctl_lo + l->ctl_len;
}

static bool img_ring_inside(const struct nx_lay *l, size_t len, uint64_t base,
			    const struct ctlw *w)
{
	return w->size >= 2u * l->hdr && w->size <= UINT32_MAX / 2 && w->buf >= base &&
	       w->buf - base <= len && len - (w->buf - base) >= w->size;
}

bool tt_nuttx_image_holds_ring(const uint8_t *img, size_t len, uint64_t base,
			       uint64_t driver_addr, const struct tt_nuttx_layout *lo)
{
	struct nx_lay l;
	struct ctlw w;
	const char *why;

	if (nx_lay_resolve(lo, &l, &why) < 0 || !img_driver_inside(&l, len, base, driver_addr))
		return false;
	img_ctl(&l, img, len, base, driver_addr, &w);
	return img_ring_inside(&l, len, base, &w) && w.head < w.size && w.tail < w.size;
}

int tt_nuttx_decode_image(const uint8_t *img, size_t len, uint64_t base, uint64_t driver_addr,
			  const struct tt_nuttx_layout *lo, uint64_t tick_hz, tt_emit_cb cb,
			  void *arg, char *err, size_t errlen)
{
	struct nx_dec d;
	const struct nx_lay *l = &d.lay;
	const char *why = NULL;
	uint8_t rec[NX_MAX_REC];
	char msg[160];

	memset(&d, 0, sizeof(d));
	if (tt_nuttx_layout_check(lo, &why) < 0 || nx_lay_resolve(lo, &d.lay, &why) < 0) {
		snprintf(err, errlen, "NuttX layout: %s", why);
		return -EINVAL;
	}
	d.tick_hz = tick_hz;
	use_syscalls(&d, lo, NULL);
	nx_dec_reset(&d);
	if (!driver_addr)
		return decode_stream(&d, img, len, base, cb, arg, err, errlen);
	if (!img_driver_inside(l, len, base, driver_addr)) {
		snprintf(err, errlen, "g_noteram_driver at 0x%llx is outside the image [0x%llx, "
			 "0x%llx)", (unsigned long long)driver_addr, (unsigned long long)base,
			 (unsigned long long)(base + len));
		return -EPROTO;
	}
	struct ctlw w;
	img_ctl(l, img, len, base, driver_addr, &w);
	uint64_t buf = w.buf, size = w.size;
	uint32_t head = w.head, tail = w.tail;
	if (!img_ring_inside(l, len, base, &w)) {
		snprintf(err, errlen, "noteram ring at 0x%llx (ni_bufsize %llu) is not inside the "
			 "image [0x%llx, 0x%llx) (wrong --address, --base or layout?)",
			 (unsigned long long)buf, (unsigned long long)size,
			 (unsigned long long)base, (unsigned long long)(base + len));
		return -EPROTO;
	}
	if (head >= size || tail >= size) {
		snprintf(err, errlen, "noteram ni_head %u / ni_tail %u outside the %llu-byte ring "
			 "(wrong layout offsets?)", head, tail, (unsigned long long)size);
		return -EPROTO;
	}
	const uint8_t *ring = img + (buf - base);
	uint32_t n = (uint32_t)size, off = tail, left = dist(tail, head, n);
	while (left) {
		uint32_t avail = left < NX_MAX_REC ? left : NX_MAX_REC;
		for (uint32_t i = 0; i < avail; i++)
			rec[i] = ring[(off + i) % n];
		if (nx_rec_check(l, rec, avail, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "bad note at 0x%llx (ring offset %u): %s",
				 (unsigned long long)(buf + off), off, msg);
			return -EPROTO;
		}
		int32_t pid = nx_rec_pid(l, rec);
		char name[NX_NAME_MAX];
		if ((lo->pidhash_addr || lo->taskname_addr) && !nx_name_known(&d, pid))
			nx_set_name(&d, pid, img_name(l, lo, img, len, base, pid, name));
		nx_emit_record(&d, rec, buf + off, cb, arg);
		uint32_t step = nx_alignup(rec[0], l->align);
		if (step > left)
			break;
		left -= step;
		off = (off + step) % n;
	}
	return 0;
}

/* ---- reader.h glue: format_cfg is a struct tt_nuttx_layout, or NULL for the default ---- */

static const struct tt_nuttx_layout *layout_of(const struct tt_reader_config *cfg,
					       struct tt_nuttx_layout *def)
{
	if (cfg->format_cfg)
		return cfg->format_cfg;
	tt_nuttx_layout_default(def, 4);
	return def;
}

static int nr_create(const struct tt_reader_config *cfg, void **out)
{
	struct tt_nuttx_layout def;
	struct tt_nuttx_config c = {
		.driver_addr = cfg->address,
		.layout = *layout_of(cfg, &def),
		.start_at_now = cfg->start_at_now,
		.tick_hz = cfg->tick_hz,
	};
	return tt_nuttx_new(&c, (struct tt_nuttx **)out, NULL);
}

static void nr_destroy(void *rd)
{
	tt_nuttx_free(rd);
}

static void nr_plan(void *rd, struct tt_plan *plan)
{
	tt_nuttx_plan(rd, plan);
}

static int nr_ingest(void *rd, tt_emit_cb cb, void *arg)
{
	return tt_nuttx_ingest(rd, cb, arg);
}

static void nr_read_failed(void *rd, int err)
{
	tt_nuttx_read_failed(rd, err);
}

static const char *nr_error(const void *rd)
{
	return tt_nuttx_error(rd);
}

static void nr_stats(const void *rd, struct tt_reader_stats *out)
{
	const struct tt_nuttx_stats *s = tt_nuttx_stats(rd);

	*out = (struct tt_reader_stats){
		.polls = s->polls, .bytes_planned = s->bytes_planned, .events = s->events,
		.gaps = s->gaps, .lost = s->lost, .resets = s->resets, .last_new = s->last_new,
		.capacity = s->capacity,
	};
}

static int nr_decode_image(const uint8_t *img, size_t len, uint64_t base,
			   const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
			   size_t errlen)
{
	struct tt_nuttx_layout def;

	return tt_nuttx_decode_image(img, len, base, cfg->address, layout_of(cfg, &def),
				     cfg->tick_hz, cb, arg, err, errlen);
}

static int nr_cfg_check(const void *cfg, const char **why)
{
	return tt_nuttx_layout_check(cfg, why);
}

static void nr_cfg_init(void *cfg)
{
	tt_nuttx_layout_default(cfg, 4);
}

const struct tt_reader_ops tt_nuttx_reader = {
	.name = "nuttx",
	.elf_symbol = "g_noteram_driver", /* before 12.4: tt_nuttx_elf_symbol() */
	.elf_symbol_is_pointer = false,
	.create = nr_create,
	.destroy = nr_destroy,
	.plan = nr_plan,
	.ingest = nr_ingest,
	.read_failed = nr_read_failed,
	.error = nr_error,
	.stats = nr_stats,
	.decode_image = nr_decode_image,
	.cfg_size = sizeof(struct tt_nuttx_layout),
	.cfg_init = nr_cfg_init,
	.cfg_set = tt_nuttx_layout_set,
	.cfg_check = nr_cfg_check,
	.cfg_help = TT_NUTTX_LAYOUT_HELP,
};
