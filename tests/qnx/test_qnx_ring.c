/* tests/qnx/test_qnx_ring.c: the live reader of QNX's ring of kernel trace buffers
 * (proto/qnx_ring.c) against the ring writer (qringw: as QNX's kernel writes it) in one process:
 * the writer runs between polls and, in the torn cases, between the reads of one plan (as a
 * target runs while the probe reads), sometimes leaving an event counted but not written (as the
 * kernel between its count and its store). Every 16-byte event is stamped with its index (a
 * counter clock), so the records prove exactly what arrived: every index once and in order, no
 * stale slot taken, or inside a gap whose count is the indices missing (this writer hands every
 * buffer on at exactly hand_on events, so the count from the ring's num_events is the truth); a
 * reset only where the target rebooted. Both byte orders, 32- and 64-bit pointers, attach at
 * now, bad headers and layout options.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "qnx.h"
#include "qringw.h"
#include "reader.h"


#define ADDR 0x20001000u

struct sink {
	uint32_t slack;      /* 0: every gap's count must be the truth; else it may be off by this
				many events per kernel buffer in it (an SMP-like writer) */
	uint32_t hand_on;
	uint64_t off_max;    /* the largest |reported - true| seen */
	bool have_prev;
	uint64_t first, lost_before_first, prev, events, gaps, lost_pending, lost, resets, bad;
	uint64_t user_seq_last;
	char first_bad[200];
};

static void on_rec(void *arg, const struct tt_record *rec)
{
	struct sink *s = arg;

	if (rec->kind == TT_REC_GAP) {
		s->gaps++;
		s->lost += rec->u.gap.lost;
		s->lost_pending += rec->u.gap.lost;
		if (!rec->u.gap.exact && !rec->u.gap.basis && !s->bad++)
			snprintf(s->first_bad, sizeof(s->first_bad), "inexact gap without a basis");
		return;
	}
	if (rec->kind == TT_REC_RESET) {
		s->resets++;
		s->have_prev = false;
		s->lost_pending = 0;
		return;
	}
	uint64_t t = rec->u.ev.time;
	if (!s->events) {
		s->first = t;
		s->lost_before_first = s->lost;
	}
	uint64_t miss = s->have_prev && t > s->prev ? t - s->prev - 1 : 0;
	uint64_t off = miss > s->lost_pending ? miss - s->lost_pending : s->lost_pending - miss;
	if (s->have_prev && t > s->prev && off > s->off_max)
		s->off_max = off;
	if (s->have_prev &&
	    (t <= s->prev || off > (uint64_t)s->slack * (miss / (s->hand_on ? s->hand_on : 1) + 2)) &&
	    !s->bad++)
		snprintf(s->first_bad, sizeof(s->first_bad), "event %" PRIu64 " after %" PRIu64
			 " with %" PRIu64 " reported lost", t, s->prev, s->lost_pending);
	s->prev = t;
	s->have_prev = true;
	s->lost_pending = 0;
	s->events++;
}

struct world {
	uint8_t *ring;
	uint32_t nbufs;
	struct qrw w;
	struct tt_qnx_layout lo;
	unsigned seed;
	unsigned tear_pct;   /* chance (%) of the writer running between two ranges of a plan */
	uint32_t tear_max;   /* events it writes then, at most */
	unsigned count_pct;  /* chance (%) that it stops with its last event counted, unwritten */
	bool links_anywhere; /* garbage: a link may lead past the ring (read as zeros) */
};

static uint64_t counter(void *arg)
{
	return ((struct qrw *)arg)->events;
}

static uint32_t rnd(struct world *x)
{
	x->seed = x->seed * 1103515245u + 12345u;
	return x->seed >> 8;
}

static void write_n(struct world *x, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i + 1 == n && x->count_pct && rnd(x) % 100 < x->count_pct)
			qrw_count(&x->w, QRW_HDR(TT_QNX_C_USER, 7, 0), 0, 0);
		else
			qrw_event(&x->w, QRW_HDR(TT_QNX_C_USER, 7, 0), 0, 0);
	}
}

static void world_init(struct world *x, const struct tt_qnx_layout *lo, uint32_t nbufs,
		       unsigned seed)
{
	memset(x, 0, sizeof(*x));
	x->lo = *lo;
	x->nbufs = nbufs;
	x->seed = seed;
	x->ring = calloc(nbufs, lo->buf_size);
	qrw_init(&x->w, x->ring, lo, nbufs, ADDR, 1, counter, &x->w);
}

/* One poll cycle: plan, copy each range out of the ring (the writer may run in between),
 * ingest, until the reader says the cycle is over. Returns the last ingest's rc. */
static int poll(struct world *x, struct tt_qnx_ring *r, struct sink *s, unsigned *steps)
{
	struct tt_plan p;
	int rc;

	do {
		tt_qnx_ring_plan(r, &p);
		for (unsigned i = 0; i < p.n; i++) {
			uint64_t off = p.r[i].addr - ADDR, end = (uint64_t)x->nbufs * x->lo.buf_size;
			if (x->links_anywhere && p.r[i].addr >= ADDR && off >= end &&
			    off + p.r[i].len <= (uint64_t)TT_QNX_RING_MAX_BUFS * x->lo.buf_size) {
				memset(p.r[i].dst, 0, p.r[i].len); /* other memory, not the ring */
				continue;
			}
			if (p.r[i].addr < ADDR || off + p.r[i].len > end) {
				CHECK_MSG(0, "range 0x%" PRIx64 "+%u outside the ring", p.r[i].addr,
				      p.r[i].len);
				return -1;
			}
			memcpy(p.r[i].dst, x->ring + off, p.r[i].len);
			if (x->tear_pct && rnd(x) % 100 < x->tear_pct)
				write_n(x, rnd(x) % (x->tear_max + 1));
		}
		rc = tt_qnx_ring_ingest(r, on_rec, s);
		if (steps)
			++*steps;
	} while (rc == TT_READER_MORE);
	return rc;
}

/* The writer writes a random batch (up to max), the reader polls; rounds times; then a final
 * drain. nbufs: the ring the writer sets up (the reader finds it from the links). */
static void run(const char *name, const struct tt_qnx_layout *lo, uint32_t nbufs, unsigned seed,
		unsigned rounds, uint32_t max, unsigned tear_pct, uint32_t tear_max, bool expect_loss)
{
	struct world x;
	struct sink s = { 0 };
	struct tt_qnx_ring *r;
	const char *why = NULL;

	world_init(&x, lo, nbufs, seed);
	CHECK_MSG(tt_qnx_ring_new(lo, ADDR, false, 0, &r, &why) == 0, "%s: %s", name, why);
	if (!r)
		return;
	for (unsigned i = 0; i < rounds; i++) {
		x.count_pct = 30;
		write_n(&x, rnd(&x) % (max + 1));
		x.tear_pct = tear_pct;
		x.tear_max = tear_max;
		CHECK_MSG(poll(&x, r, &s, NULL) == TT_READER_DONE, "%s: poll %u: %s", name, i,
		      tt_qnx_ring_error(r));
	}
	x.tear_pct = 0;
	qrw_finish(&x.w);
	for (unsigned i = 0; i < 4; i++)
		poll(&x, r, &s, NULL);
	tt_qnx_ring_finish(r, on_rec, &s);
	CHECK_MSG(!s.bad, "%s: %s", name, s.first_bad);
	CHECK_MSG(s.have_prev && s.prev == x.w.events - 1, "%s: last event %" PRIu64 ", written %" PRIu64,
	      name, s.prev, x.w.events);
	/* from the first event read: what was overwritten before the first poll is not a gap;
	 * a gap before the first event counts events lost after the attach */
	CHECK_MSG(s.events + s.lost - s.lost_before_first == x.w.events - s.first, "%s: %" PRIu64 " events + %" PRIu64
	      " lost != %" PRIu64 " written from event %" PRIu64, name, s.events, s.lost,
	      x.w.events - s.first, s.first);
	CHECK_MSG(!s.resets, "%s: %" PRIu64 " resets", name, s.resets);
	if (expect_loss)
		CHECK_MSG(s.gaps > 0, "%s: no gap although the writer lapped the reader", name);
	else
		CHECK_MSG(!s.gaps, "%s: %" PRIu64 " gaps (%" PRIu64 " lost) without a lap", name, s.gaps,
		      s.lost);
	printf("%s: %" PRIu64 " events, %" PRIu64 " gaps, %" PRIu64 " lost\n", name, s.events,
	       s.gaps, s.lost);
	tt_qnx_ring_free(r);
	free(x.ring);
}

/* 4 buffers of 20 slots, handed on at 16 events. */
static void small(struct tt_qnx_layout *lo)
{
	tt_qnx_layout_default(lo);
	lo->buf_size = 160 + 20 * 16;
	lo->hand_on = 16;
}

/* The small ring of 4 buffers, empty, and a reader of it from the oldest buffer. */
static struct tt_qnx_ring *small_world(struct world *x, struct tt_qnx_layout *lo, unsigned seed)
{
	struct tt_qnx_ring *r = NULL;

	small(lo);
	world_init(x, lo, 4, seed);
	REQUIRE(tt_qnx_ring_new(lo, ADDR, false, 0, &r, NULL) == 0);
	return r;
}

/* A writer whose buffers take 0-3 events more after reaching hand_on (as other CPUs can before
 * the kernel hands on): a lapped reader's gaps are estimates from the num_events still in the
 * ring, each off by at most 3 events per buffer it spans, and no event is lost silently. */
static void test_smp_estimate(void)
{
	struct tt_qnx_layout lo;
	struct world x;
	struct sink s = { .slack = 3, .hand_on = 16 };
	struct tt_qnx_ring *r = small_world(&x, &lo, 16);
	uint64_t written = 0;

	x.w.smp_extra = 3;
	for (unsigned i = 0; i < 2000; i++) {
		write_n(&x, rnd(&x) % 121);
		poll(&x, r, &s, NULL);
	}
	poll(&x, r, &s, NULL);
	poll(&x, r, &s, NULL);
	written = x.w.events - s.first;
	CHECK_MSG(!s.bad && s.gaps > 100 && s.prev == x.w.events - 1, "smp: %s (%" PRIu64 " gaps)",
		  s.first_bad, s.gaps);
	printf("smp-like writer, lapped: %" PRIu64 " events, %" PRIu64 " gaps, %" PRIu64
	       " reported lost, %" PRIu64 " truly lost, worst gap off by %" PRIu64 "\n", s.events,
	       s.gaps, s.lost - s.lost_before_first, written - s.events, s.off_max);
	tt_qnx_ring_free(r);
	free(x.ring);
}

static void test_idle_cost(void)
{
	struct tt_qnx_layout lo;
	struct world x;
	struct sink s = { 0 };
	struct tt_qnx_ring *r;
	struct tt_reader_stats st;
	unsigned steps = 0;

	tt_qnx_layout_default(&lo);
	world_init(&x, &lo, 32, 1);
	tt_qnx_ring_new(&lo, ADDR, false, 0, &r, NULL);
	write_n(&x, 100);
	poll(&x, r, &s, NULL);
	/* 100 + BUFFER + TIME counted; the last counted slot waits for a second look */
	CHECK_MSG(s.events == 101, "first poll: %" PRIu64 " events (101 of 102)", s.events);
	tt_qnx_ring_stats(r, &st);
	uint64_t before = st.bytes_planned;
	poll(&x, r, &s, NULL);
	tt_qnx_ring_stats(r, &st);
	CHECK_MSG(s.events == 102 && st.bytes_planned - before == 12 + 16 + 4,
		  "second poll: %" PRIu64 " events, %" PRIu64 " bytes", s.events,
		  st.bytes_planned - before);
	before = st.bytes_planned;
	poll(&x, r, &s, &steps);
	tt_qnx_ring_stats(r, &st);
	CHECK_MSG(st.bytes_planned - before == 12 && steps == 1, "idle poll: %" PRIu64 " bytes in %u "
	      "steps (want 12 in 1)", st.bytes_planned - before, steps);
	write_n(&x, 5);
	before = st.bytes_planned;
	poll(&x, r, &s, NULL);
	tt_qnx_ring_stats(r, &st);
	CHECK_MSG(st.bytes_planned - before == 12 + 5 * 16 + 4, "poll with 5 new: %" PRIu64 " bytes",
	      st.bytes_planned - before);
	CHECK_MSG(st.last_new == 4, "last_new %u (the 5th waits)", st.last_new);
	tt_qnx_ring_free(r);
	free(x.ring);
}

/* The kernel counts an event before writing it: a slot counted but not written holds the
 * previous lap's event, and is never taken as this one; once written it is. */
static void test_stale_slot(void)
{
	struct tt_qnx_layout lo;
	struct world x;
	struct sink s = { 0 };
	struct tt_qnx_ring *r = small_world(&x, &lo, 6);

	write_n(&x, 70); /* more than a lap: every slot holds an old event */
	poll(&x, r, &s, NULL);
	poll(&x, r, &s, NULL);
	uint64_t got = s.events;
	CHECK_MSG(s.prev == x.w.events - 1, "caught up: last %" PRIu64 " of %" PRIu64, s.prev,
		  x.w.events);
	/* counted, slot still old (a new buffer: its BUFFER and TIME are written first) */
	qrw_count(&x.w, QRW_HDR(TT_QNX_C_USER, 7, 0), 0, 0);
	uint64_t written = x.w.events - 1;
	for (unsigned i = 0; i < 3; i++)
		poll(&x, r, &s, NULL);
	CHECK_MSG(s.prev == written - 1 && !s.bad, "stale slot: last %" PRIu64 " (want %" PRIu64
		  "): %s", s.prev, written - 1, s.first_bad);
	got = s.events;
	qrw_finish(&x.w);
	poll(&x, r, &s, NULL);
	poll(&x, r, &s, NULL);
	CHECK_MSG(s.events == got + 1 && s.prev == x.w.events - 1 && !s.bad,
		  "written slot: %" PRIu64 " events, last %" PRIu64 ": %s", s.events - got, s.prev,
		  s.first_bad);
	tt_qnx_ring_free(r);
	free(x.ring);
}

static void test_start_at_now(void)
{
	struct tt_qnx_layout lo;
	struct world x;
	struct sink s = { 0 };
	struct tt_qnx_ring *r;

	small(&lo);
	world_init(&x, &lo, 4, 2);
	write_n(&x, 40);
	tt_qnx_ring_new(&lo, ADDR, true, 0, &r, NULL);
	poll(&x, r, &s, NULL);
	CHECK_MSG(s.events == 0, "start_at_now: %" PRIu64 " old events emitted", s.events);
	uint64_t first = x.w.events;
	write_n(&x, 3);
	poll(&x, r, &s, NULL);
	poll(&x, r, &s, NULL);
	CHECK_MSG(s.events >= 3 && s.first == first && s.prev == x.w.events - 1 && !s.bad,
		  "start_at_now: %" PRIu64 " events, %" PRIu64 "..%" PRIu64 " (want %" PRIu64
		  "..): %s", s.events, s.first, s.prev, first, s.first_bad);
	tt_qnx_ring_free(r);
	free(x.ring);
}

static void test_restart(void)
{
	struct tt_qnx_layout lo;
	struct world x;
	struct sink s = { 0 };
	struct tt_qnx_ring *r = small_world(&x, &lo, 3);

	write_n(&x, 30); /* buffers 0 and 1 (seq 1, 2) */
	poll(&x, r, &s, NULL);
	poll(&x, r, &s, NULL);
	uint64_t before = s.events;
	qrw_restart(&x.w, 1); /* rebooted: buffer 0, seq 1 again */
	write_n(&x, 3);
	poll(&x, r, &s, NULL);
	poll(&x, r, &s, NULL);
	CHECK_MSG(s.resets == 1, "restart: %" PRIu64 " resets", s.resets);
	CHECK_MSG(s.events == before + 5, "restart: %" PRIu64 " events after the reset (want 5)",
	      s.events - before);
	CHECK_MSG(!s.bad, "restart: %s", s.first_bad);
	tt_qnx_ring_free(r);
	free(x.ring);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void test_bad(void)
{
	struct tt_qnx_layout lo;
	struct tt_qnx_geom g;
	struct world x;
	struct sink s = { 0 };
	struct tt_qnx_ring *r;
	const char *why = NULL;
	char err[256];

	small(&lo);
	tt_qnx_layout_geom(&lo, &g);
	world_init(&x, &lo, 4, 4);
	write_n(&x, 5);
	put32(x.ring + 2 * lo.buf_size + g.off_num, 1000); /* buffer 2: impossible count */
	tt_qnx_ring_new(&lo, ADDR, false, 0, &r, NULL);
	int rc = poll(&x, r, &s, NULL);
	CHECK_MSG(rc == -EPROTO, "bad num_events: rc %d", rc);
	CHECK_MSG(strstr(tt_qnx_ring_error(r), "buffer 2 at 0x200013c0 says ls13_rb_num 0x4000 "
		  "(want 0x4000) and num_events 1000 (at most 20 slots"), "message: %s",
		  tt_qnx_ring_error(r));
	put32(x.ring + 2 * lo.buf_size + g.off_num, 0);
	poll(&x, r, &s, NULL); /* the daemon keeps polling: fixed, it reads */
	rc = poll(&x, r, &s, NULL);
	CHECK_MSG(rc == TT_READER_DONE && s.events == 7, "after the fix: rc %d, %" PRIu64 " events", rc,
	      s.events);
	tt_qnx_ring_free(r);

	/* --address at the second buffer: not the first (its begin_ptr says where it is) */
	s = (struct sink){ 0 };
	tt_qnx_ring_new(&lo, ADDR + lo.buf_size, false, 0, &r, NULL);
	struct tt_plan p;
	tt_qnx_ring_plan(r, &p);
	CHECK(p.n == 1 && p.r[0].addr == ADDR + lo.buf_size);
	memcpy(p.r[0].dst, x.ring + lo.buf_size, p.r[0].len);
	CHECK_EQ(tt_qnx_ring_ingest(r, on_rec, &s), -EPROTO);
	CHECK_MSG(strstr(tt_qnx_ring_error(r), "the buffer at --address 0x200011e0 is not the "
		  "ring's first: its baseaddr is 0x20001000 but its begin_ptr 0x20001280 puts it "
		  "at 0x200011e0 (the first is at --address - 0x1e0"), "message: %s",
		  tt_qnx_ring_error(r));
	tt_qnx_ring_free(r);
	/* a link that leaves the ring: followed, and what is there is not a buffer of it */
	put32(x.ring + 3 * lo.buf_size + g.off_next, ADDR + 5 * lo.buf_size);
	x.links_anywhere = true;
	tt_qnx_ring_new(&lo, ADDR, false, 0, &r, NULL);
	rc = poll(&x, r, &s, NULL);
	CHECK_MSG(rc == -EPROTO && strstr(tt_qnx_ring_error(r), "buffer 4 at 0x20001960 (linked "
		  "from buffer 3) has baseaddr 0x0"), "open ring: rc %d: %s", rc,
		  tt_qnx_ring_error(r));
	x.links_anywhere = false;
	tt_qnx_ring_free(r);
	/* nbufs given: the links must agree */
	put32(x.ring + 3 * lo.buf_size + g.off_next, ADDR);
	lo.nbufs = 5;
	tt_qnx_ring_new(&lo, ADDR, false, 0, &r, NULL);
	rc = poll(&x, r, &s, NULL);
	CHECK_MSG(rc == -EPROTO && strstr(tt_qnx_ring_error(r), "close the ring after 4 buffers, "
		  "not the 5"), "nbufs: %s", tt_qnx_ring_error(r));
	tt_qnx_ring_free(r);
	free(x.ring);

	/* layouts and options */
	small(&lo);
	lo.header_size = lo.buf_size - 48;
	CHECK_MSG(tt_qnx_layout_check(&lo, &why) == -EINVAL && strstr(why, "fewer than 4 events"),
	      "header too big: %s", why);
	small(&lo);
	lo.header_size = 20;
	CHECK_MSG(tt_qnx_layout_check(&lo, &why) == -EINVAL && strstr(why, "up to begin_ptr"),
	      "header too small: %s", why);
	small(&lo);
	CHECK_MSG(tt_qnx_ring_new(&lo, 0, false, 0, &r, &why) == -EINVAL && strstr(why, "--address"),
	      "no address: %s", why);
	tt_qnx_layout_default(&lo);
	CHECK_MSG(tt_qnx_layout_set(&lo, "nbufs", "1", err, sizeof(err)) == -EINVAL &&
	      !strcmp(err, "qnx option nbufs='1': expected a number from 2 to 1024"), "%s", err);
	CHECK_MSG(tt_qnx_layout_set(&lo, "endian", "middle", err, sizeof(err)) == -EINVAL &&
	      strstr(err, "expected little or big"), "%s", err);
	CHECK_MSG(tt_qnx_layout_set(&lo, "pointer", "16", err, sizeof(err)) == -EINVAL &&
	      strstr(err, "expected 32 or 64"), "%s", err);
	CHECK_MSG(tt_qnx_layout_set(&lo, "off_num", "4", err, sizeof(err)) == -EINVAL &&
	      strstr(err, "qnx has no option 'off_num'"), "%s", err);
	CHECK_MSG(tt_qnx_layout_set(&lo, "buf_size", "0x2000", err, sizeof(err)) == 0 &&
	      lo.buf_size == 0x2000, "hex buf_size");
	CHECK_MSG(tt_qnx_layout_set(&lo, "endian", "big", err, sizeof(err)) == 0 && lo.big_endian,
	      "endian=big");
}

/* QNX's tracebuf_t: 160-byte header with 32-bit pointers (num_events at 12, seq at 16), 184 with
 * 64-bit ones (num_events at 20, seq at 24); 1014 and 1012 slots; hand-on at 714 and 712. */
static void test_geometry(void)
{
	struct tt_qnx_layout lo;
	struct tt_qnx_geom g;

	tt_qnx_layout_default(&lo);
	tt_qnx_layout_geom(&lo, &g);
	CHECK(g.header_size == 160 && g.off_next == 4 && g.off_flags == 8 && g.off_num == 12 &&
	      g.off_seq == 16 && g.off_ls13 == 20 && g.off_begin == 28 && g.off_tail == 32);
	CHECK(g.slots == 1014 && g.hand_on == 714 && lo.buf_size == 16384);
	lo.ptr_size = 8;
	tt_qnx_layout_geom(&lo, &g);
	CHECK(g.header_size == 184 && g.off_next == 8 && g.off_flags == 16 && g.off_num == 20 &&
	      g.off_seq == 24 && g.off_ls13 == 28 && g.off_begin == 40 && g.off_tail == 48);
	CHECK(g.slots == 1012 && g.hand_on == 712);
}

/* The generic reader interface over a RAM image (what `tracetap decode --address` runs). */
static void test_image(void)
{
	const struct tt_reader_ops *ops = tt_reader_find("qnx");
	struct tt_qnx_layout lo;
	struct world x;
	struct sink s = { 0 };
	char err[256] = "";

	small(&lo);
	lo.big_endian = true;
	world_init(&x, &lo, 4, 5);
	write_n(&x, 100); /* the ring holds the last 4 buffers */
	size_t len = 0x1000 + (size_t)4 * lo.buf_size;
	uint8_t *img = calloc(1, len);
	memcpy(img + 0x1000, x.ring, len - 0x1000);
	struct tt_reader_config cfg = { .address = ADDR, .format_cfg = &lo };
	int rc = ops->decode_image(img, len, ADDR - 0x1000, &cfg, on_rec, &s, err, sizeof(err));
	CHECK_MSG(rc == 0, "image: %s", err);
	CHECK_MSG(s.prev == x.w.events - 1 && !s.gaps && !s.bad && s.events >= 3 * 16,
	      "image: last %" PRIu64 ", %" PRIu64 " events: %s", s.prev, s.events, s.first_bad);
	rc = ops->decode_image(img, len - lo.buf_size, ADDR - 0x1000, &cfg, on_rec, &s, err, sizeof(err));
	CHECK_MSG(rc == -EPROTO && strstr(err, "is outside the image"), "short image: %s", err);
	free(img);
	free(x.ring);
}

/* Garbage target memory: random headers and events, rewritten between polls. The reader may
 * only answer DONE, MORE or -EPROTO with a message, never read outside the ring (poll() checks
 * every range), and every cycle ends. Run under ASan/UBSan by the sanitizer build. */
static void test_garbage(void)
{
	struct tt_qnx_layout lo;
	struct tt_qnx_geom g;
	struct world x;

	small(&lo);
	tt_qnx_layout_geom(&lo, &g);
	world_init(&x, &lo, 4, 77);
	x.links_anywhere = true; /* a garbled `next` is followed (then refused), within 1024 buffers */
	for (unsigned round = 0; round < 300; round++) {
		struct sink s = { 0 };
		struct tt_qnx_ring *r;
		size_t n = (size_t)4 * lo.buf_size;
		if (round % 3) { /* a sound ring with random counts, sequences and events */
			qrw_restart(&x.w, 1);
			for (size_t i = 0; i < 4; i++)
				for (size_t b = g.header_size; b < lo.buf_size; b++)
					x.ring[i * lo.buf_size + b] = (uint8_t)rnd(&x);
			for (uint32_t b = 0; b < 4; b++) {
				uint32_t num = rnd(&x) % 24, seq = 100 + b + rnd(&x) % 3;
				memcpy(x.ring + b * lo.buf_size + g.off_num, &num, 4);
				memcpy(x.ring + b * lo.buf_size + g.off_seq, &seq, 4);
			}
		} else {
			for (size_t i = 0; i < n; i++)
				x.ring[i] = (uint8_t)rnd(&x);
		}
		tt_qnx_ring_new(&lo, ADDR, round % 2, 1000, &r, NULL);
		for (unsigned cyc = 0; cyc < 8; cyc++) {
			unsigned steps = 0;
			int rc = poll(&x, r, &s, &steps);
			CHECK_MSG(rc == TT_READER_DONE || (rc == -EPROTO && tt_qnx_ring_error(r)[0]),
				  "garbage round %u: rc %d", round, rc);
			CHECK_MSG(steps < 4 * 4 + 16, "garbage round %u: %u steps in a cycle",
				  round, steps);
			for (unsigned k = 0; k < 16; k++)
				x.ring[rnd(&x) % n] = (uint8_t)rnd(&x);
		}
		tt_qnx_ring_free(r);
	}
	free(x.ring);
}

int main(void)
{
	struct tt_qnx_layout lo;

	tt_qnx_layout_default(&lo);
	run("QNX's layout, 32 buffers, lossless", &lo, 32, 11, 300, 700, 0, 0, false);
	small(&lo);
	run("small ring, lossless", &lo, 4, 12, 2000, 12, 0, 0, false);
	run("small ring, lapped", &lo, 4, 13, 2000, 120, 0, 0, true);
	run("small ring, torn reads", &lo, 4, 14, 3000, 20, 30, 60, true);
	lo.big_endian = true;
	lo.ptr_size = 8;
	lo.buf_size = 184 + 20 * 16;
	run("big-endian, 64-bit pointers, 3 buffers, torn", &lo, 3, 15, 3000, 30, 30, 50, true);
	test_geometry();
	test_idle_cost();
	test_stale_slot();
	test_smp_estimate();
	test_start_at_now();
	test_restart();
	test_bad();
	test_image();
	test_garbage();
	return tt_test_done();
}
