/* tests/nuttx/test_nuttx_bad.c: untrusted bytes. Garbage records (length 0, shorter than the
 * header, running past the head), control words outside the ring or the image, bad layouts:
 * precise errors, never an out-of-bounds read (run under ASan+UBSan); a live reader recovers
 * once the writer has overwritten a bad record; random memory never crashes either path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "nxtest.h"

#define BASE 0x20000000u

static struct nxlog lg;

static int decode(struct nxw *w, char *err, size_t errlen)
{
	nxlog_clear(&lg);
	err[0] = 0;
	return tt_nuttx_decode_image(w->ram, w->ram_len, w->base, w->drv, &w->lo, 0, nxlog_cb, &lg,
				     err, errlen);
}

static void fill(struct nxw *w, unsigned n)
{
	uint8_t rec[256];

	for (unsigned i = 0; i < n; i++)
		nxw_add(w, rec, nxw_any(w, rec, i));
}

static void test_image_errors(void)
{
	struct nxw w;
	char err[256];
	uint8_t *ring;

	nxw_init(&w, NULL, 8192, BASE, 0, 1024, 4096);
	ring = w.ram + 1024;
	fill(&w, 4);
	CHECK_EQ(decode(&w, err, sizeof(err)), 0);
	CHECK_EQ(lg.n, 4);
	uint32_t second = (ring[0] + 3u) / 4 * 4;

	uint8_t keep = ring[second];
	ring[second] = 0;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "length 0");
	CHECK_SUBSTR(err, "ring offset");
	CHECK_EQ(lg.n, 1); /* the record before it */
	ring[second] = 5;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "shorter than the 16-byte header");
	ring[second] = 250;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "runs past");
	ring[second] = keep;

	uint32_t h = nxw_head(&w);
	nxw_set_head(&w, 5000);
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "outside the 4096-byte ring");
	nxw_set_head(&w, h);
	nxw_set_tail(&w, 0xFFFFFFFFu);
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "ni_tail 4294967295");
	nxw_set_tail(&w, 0);

	nxw_put(&w, w.ram + w.lo.off_bufsize, 1u << 20, 4);
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "not inside the image");
	nxw_put(&w, w.ram + w.lo.off_bufsize, 0, 4);
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	nxw_put(&w, w.ram + w.lo.off_bufsize, 4096, 4);
	nxw_put(&w, w.ram + w.lo.off_buffer, 0x10000000, 4);
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "0x10000000");
	nxw_put(&w, w.ram + w.lo.off_buffer, BASE + 1024, 4);

	w.drv = BASE + 8190;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "g_noteram_driver at 0x20001ffe is outside the image");
	w.drv = BASE;

	/* bad layouts */
	struct tt_nuttx_layout lo = w.lo;
	lo.ptr_size = 2;
	CHECK_EQ(tt_nuttx_decode_image(w.ram, w.ram_len, BASE, BASE, &lo, 0, nxlog_cb, &lg, err,
				       sizeof(err)), -EINVAL);
	CHECK_SUBSTR(err, "pointer size");
	lo = w.lo;
	lo.release = 1203; /* g_noteram_info without its buffer size */
	CHECK_EQ(tt_nuttx_decode_image(w.ram, w.ram_len, BASE, BASE, &lo, 0, nxlog_cb, &lg, err,
				       sizeof(err)), -EINVAL);
	CHECK_SUBSTR(err, "CONFIG_DRIVER_NOTERAM_BUFSIZE");
	lo.bufsize = 4096;
	lo.pid_size = 3;
	CHECK_EQ(tt_nuttx_decode_image(w.ram, w.ram_len, BASE, BASE, &lo, 0, nxlog_cb, &lg, err,
				       sizeof(err)), -EINVAL);
	CHECK_SUBSTR(err, "pid_size");
	lo = w.lo;
	lo.off_tail = lo.off_head + 2;
	CHECK_EQ(tt_nuttx_decode_image(w.ram, w.ram_len, BASE, BASE, &lo, 0, nxlog_cb, &lg, err,
				       sizeof(err)), -EINVAL);
	CHECK_SUBSTR(err, "overlap");
	nxw_free(&w);
}

static int cycle(struct tt_nuttx *rd, struct nxw *w)
{
	for (int guard = 0; guard < 20; guard++) {
		struct tt_plan p;
		tt_nuttx_plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++)
			if (nxw_read(w, p.r[i].addr, p.r[i].dst, p.r[i].len) < 0) {
				tt_nuttx_read_failed(rd, -EIO);
				return -EIO;
			}
		int rc = tt_nuttx_ingest(rd, nxlog_cb, &lg);
		if (rc != TT_NUTTX_MORE)
			return rc;
	}
	return -1;
}

static void test_live_bad_record(void)
{
	struct nxw w;
	struct tt_nuttx *rd = NULL;
	uint8_t rec[256];

	nxw_init(&w, NULL, 8192, BASE, 0, 1024, 1024);
	struct tt_nuttx_config c = { .driver_addr = w.drv, .layout = w.lo };
	CHECK_EQ(tt_nuttx_new(&c, &rd, NULL), 0);
	fill(&w, 3);
	CHECK_EQ(cycle(rd, &w), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 3);
	/* two good records, then one whose length byte is corrupted to 0, then more */
	fill(&w, 2);
	uint32_t bad = nxw_head(&w);
	fill(&w, 3);
	uint8_t keep = w.ram[1024 + bad];
	w.ram[1024 + bad] = 0;
	CHECK_EQ(cycle(rd, &w), -EPROTO);
	CHECK_SUBSTR(tt_nuttx_error(rd), "length 0");
	CHECK_EQ(lg.n, 5);
	CHECK_EQ(tt_nuttx_stats(rd)->bad_records, 1);
	/* still there: the error repeats, nothing is published twice */
	CHECK_EQ(cycle(rd, &w), -EPROTO);
	CHECK_EQ(lg.n, 5);
	/* repaired in place (a transient bit error): published from there, once, no gap */
	w.ram[1024 + bad] = keep;
	CHECK_EQ(cycle(rd, &w), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 8);
	CHECK_EQ(lg.r[5].kind, TT_REC_EVENT);
	CHECK_EQ(lg.r[5].addr, BASE + 1024 + bad);
	/* corrupt again, then the writer laps the ring past it before the reader recovers (the
	 * length is restored first so that the writer's own noteram_remove can step over it) */
	fill(&w, 2);
	bad = nxw_head(&w);
	fill(&w, 2);
	keep = w.ram[1024 + bad];
	w.ram[1024 + bad] = 0;
	CHECK_EQ(cycle(rd, &w), -EPROTO);
	CHECK_EQ(lg.n, 10);
	w.ram[1024 + bad] = keep;
	for (int i = 0; i < 100; i++)
		nxw_add(&w, rec, nxw_simple(&w, rec, 3, 1, 1));
	CHECK_EQ(cycle(rd, &w), TT_NUTTX_DONE);
	CHECK_EQ(lg.r[10].kind, TT_REC_GAP);
	CHECK_STR(lg.r[10].reason, "bad record");
	/* the writer's clock is a constant-step counter: the count is exact */
	CHECK(lg.r[10].exact);
	CHECK_EQ(lg.r[10].lost, (lg.r[11].time - lg.r[9].time) / 1000 - 1);
	CHECK(lg.r[10].lost >= 1);
	CHECK_EQ(lg.r[lg.n - 1].kind, TT_REC_EVENT);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 1);
	/* the ring pointer set to garbage: an error naming the values, then recovery */
	nxw_put(&w, w.ram + w.lo.off_bufsize, 3, 4);
	CHECK_EQ(cycle(rd, &w), -EPROTO);
	CHECK_SUBSTR(tt_nuttx_error(rd), "ni_bufsize 3");
	nxw_put(&w, w.ram + w.lo.off_bufsize, 1024, 4);
	nxw_put(&w, w.ram + w.lo.off_head, 99999, 4);
	CHECK_EQ(cycle(rd, &w), -EPROTO);
	CHECK_SUBSTR(tt_nuttx_error(rd), "ni_head 99999");
	tt_nuttx_free(rd);
	nxw_free(&w);
}

static uint32_t rs = 7;
static uint32_t rnd(void)
{
	rs = rs * 1103515245u + 12345u;
	return rs >> 8;
}

/* Random memory: both paths run to an error or to the end, and stay in bounds. */
/* Before 12.4 (g_noteram_info, buffer inline, byte-array records): the same bad records and
 * control words give the same clear errors; an unknown type decodes as UNKNOWN with its raw
 * words; the inline buffer must fit in the image. */
static void test_image_errors_1203(void)
{
	struct tt_nuttx_layout lo;
	struct nxw w;
	char err[256];
	uint8_t *ring, rec[256];

	tt_nuttx_layout_default(&lo, 4);
	CHECK_EQ(tt_nuttx_layout_set(&lo, "release", "12.3", err, sizeof(err)), 0);
	lo.bufsize = 1024;
	nxw_init(&w, &lo, 4096, BASE, 0x100, 0x110, 1024);
	ring = w.ram + 0x110;
	w.drv = BASE + 0x100;
	fill(&w, 3);
	unsigned len = nxw_hdr(&w, rec, w.hdr + 3, 40, 7, 100, 0); /* no such type */
	nxw_add(&w, rec, len);
	CHECK_EQ(decode(&w, err, sizeof(err)), 0);
	CHECK_EQ(lg.n, 4);
	CHECK_STR(lg.r[3].name, "UNKNOWN");
	CHECK_EQ(lg.r[3].id, 40);
	CHECK(lg.r[3].nraw >= 3);
	uint32_t second = ring[0]; /* packed */
	uint8_t keep = ring[second];
	ring[second] = 0;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "length 0");
	CHECK_EQ(lg.n, 1);
	ring[second] = 10; /* u8 len, type, prio, pid[4], ticks[4]: 11 */
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "shorter than the 11-byte header");
	ring[second] = 250;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "runs past");
	ring[second] = keep;
	nxw_set_head(&w, 1024);
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "outside the 1024-byte ring");
	nxw_set_head(&w, 0);
	/* the inline buffer runs past the end of the image */
	w.lo.bufsize = 4096;
	CHECK_EQ(decode(&w, err, sizeof(err)), -EPROTO);
	CHECK_SUBSTR(err, "not inside the image");
	nxw_free(&w);
}

static void test_random_memory(void)
{
	char err[256];

	for (int iter = 0; iter < 3000; iter++) {
		struct tt_nuttx_layout lo;
		struct nxw w;
		tt_nuttx_layout_default(&lo, iter % 2 ? 8 : 4);
		lo.release = (uint16_t)(iter % 4 == 0 ? 1206 : iter % 4 == 1 ? 1210 : 1300);
		lo.smp = iter % 5 == 0;
		uint32_t size = 512 + rnd() % 1024;
		if (iter % 4 == 3) { /* 12.3: g_noteram_info at 240, its buffer inline at 256 */
			char e2[128];
			CHECK_EQ(tt_nuttx_layout_set(&lo, "release", "12.3", e2, sizeof(e2)), 0);
			lo.bufsize = size;
			lo.hires = iter % 8 == 3;
			nxw_init(&w, &lo, 2048, BASE, 240, 256, size);
		} else {
			nxw_init(&w, &lo, 2048, BASE, 0, 256, size);
		}
		fill(&w, rnd() % 60);
		/* corrupt some bytes of the ring and maybe the control words */
		for (int k = rnd() % 8; k > 0; k--)
			w.ram[256 + rnd() % (w.ram_len - 256)] = (uint8_t)rnd();
		if (iter % 4 == 0)
			w.ram[rnd() % 64] = (uint8_t)rnd();
		decode(&w, err, sizeof(err));

		struct tt_nuttx_config c = { .driver_addr = w.drv, .layout = w.lo };
		struct tt_nuttx *rd = NULL;
		CHECK_EQ(tt_nuttx_new(&c, &rd, NULL), 0);
		nxlog_clear(&lg);
		for (int poll = 0; poll < 6; poll++) {
			cycle(rd, &w);
			fill(&w, rnd() % 20);
			if (rnd() % 3 == 0)
				w.ram[256 + rnd() % (w.ram_len - 256)] = (uint8_t)rnd();
		}
		tt_nuttx_free(rd);
		nxw_free(&w);
	}
	/* the stream form on random bytes */
	for (int iter = 0; iter < 2000; iter++) {
		uint8_t img[300];
		struct tt_nuttx_layout lo;
		tt_nuttx_layout_default(&lo, 4);
		for (size_t i = 0; i < sizeof(img); i++)
			img[i] = (uint8_t)rnd();
		size_t len = rnd() % sizeof(img);
		tt_nuttx_decode_image(img, len, 0, 0, &lo, 0, nxlog_cb, &lg, err, sizeof(err));
		nxlog_clear(&lg);
	}
}

/* A stream of notes has no magic number: 64 KiB of random bytes decoded as one (what `tracetap
 * decode --format nuttx FILE` does) must be refused, not printed as notes (7% of such files were
 * taken before the stream's plausibility rules). */
static void test_random_stream_refused(void)
{
	static uint8_t img[65536];
	struct tt_nuttx_layout lo;
	char err[256];
	unsigned taken = 0;

	tt_nuttx_layout_default(&lo, 8);
	for (int iter = 0; iter < 300; iter++) {
		for (size_t i = 0; i < sizeof(img); i++)
			img[i] = (uint8_t)rnd();
		nxlog_clear(&lg);
		if (tt_nuttx_decode_image(img, sizeof(img), 0, 0, &lo, 0, nxlog_cb, &lg, err,
					  sizeof(err)) >= 0)
			taken++;
	}
	CHECK_MSG(taken == 0, "%u of 300 random 64 KiB files decoded as NuttX notes", taken);
	printf("random streams: 0 of 300 taken (%s)\n", err);
}

int main(void)
{
	test_random_stream_refused();
	test_image_errors();
	test_live_bad_record();
	test_image_errors_1203();
	test_random_memory();
	free(lg.r);
	return tt_test_done();
}
