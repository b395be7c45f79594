/* tests/integration/test_file.c: the file: backend (raw, Intel HEX, S-record, errors, a file
 * rewritten while followed), the kev: backend (a file followed while it is written) and the
 * request contracts probe.c enforces (-EBUSY, -EINVAL, callbacks never inside the call, cancel
 * on close, no leaked handles). */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "probe.h"
#include "ttest.h"

static uv_loop_t loop;
static char *dir;

struct req {
	int done, status, in_call;
	char err[256];
};

static void read_cb(struct tt_probe *p, int status, void *arg)
{
	struct req *r = arg;

	REQUIRE(!r->in_call);
	REQUIRE(!r->done);
	r->done = 1;
	r->status = status;
	snprintf(r->err, sizeof(r->err), "%s", tt_probe_error(p));
}

/* Reads plan synchronously (loop-wise) and returns the status. */
static int read_plan(struct tt_probe *p, struct tt_plan *plan, struct req *r)
{
	*r = (struct req){ .in_call = 1 };
	REQUIRE_EQ(tt_probe_read(p, plan, read_cb, r), 0);
	r->in_call = 0;
	tt_test_wait(&loop, &r->done, 5000, "file read");
	return r->status;
}

static int read1(struct tt_probe *p, uint64_t addr, uint32_t len, uint8_t *dst, struct req *r)
{
	struct tt_plan plan = { 1, { { .addr = addr, .len = len, .dst = dst } } };
	return read_plan(p, &plan, r);
}

static struct tt_probe *open_file(const char *path, uint64_t base)
{
	struct tt_probe_options opt = { .file_base = base };
	struct tt_probe *p;
	char err[256];
	char spec[600];

	snprintf(spec, sizeof(spec), "file:%s", path);
	REQUIRE_EQ(tt_probe_new(&loop, spec, &opt, &p, err, sizeof(err)), 0);
	return p;
}

static void closed_cb(struct tt_probe *p, void *arg)
{
	*(int *)arg = 1;
}

static void close_probe(struct tt_probe *p)
{
	int closed = 0;

	tt_probe_close(p, closed_cb, &closed);
	REQUIRE(!closed);
	tt_test_wait(&loop, &closed, 5000, "probe close");
}

static char *path_of(const char *name)
{
	static char buf[4][600];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, 600, "%s/%s", dir, name);
	return b;
}

static void test_raw(void)
{
	uint8_t img[1024], got[64], a[8], b[8];
	struct req r;
	char *path = path_of("ram.bin"), *tmp = path_of("ram.tmp");
	struct tt_probe *p;

	for (int i = 0; i < 1024; i++)
		img[i] = (uint8_t)(i * 7);
	tt_test_write_file(path, img, sizeof(img));
	p = open_file(path, 0x20000000);

	REQUIRE_EQ(read1(p, 0x20000010, 64, got, &r), 0);
	REQUIRE(memcmp(got, img + 16, 64) == 0);
	/* two ranges, in order */
	struct tt_plan plan = { 2, { { .addr = 0x20000000, .len = 8, .dst = a }, { .addr = 0x200003f8, .len = 8, .dst = b } } };
	REQUIRE_EQ(read_plan(p, &plan, &r), 0);
	REQUIRE(memcmp(a, img, 8) == 0 && memcmp(b, img + 1016, 8) == 0);
	REQUIRE_EQ(p->reads, 2);
	REQUIRE_EQ(p->bytes_read, 80);

	/* outside, below and across the end */
	REQUIRE_EQ(read1(p, 0x200003fc, 8, got, &r), -EFAULT);
	REQUIRE_SUBSTR(r.err, "file ");
	REQUIRE_SUBSTR(r.err, "ram.bin: address 0x200003fc (+8) is outside the image "
			 "[0x20000000,0x20000400)");
	REQUIRE_EQ(read1(p, 0x1fffffff, 2, got, &r), -EFAULT);
	REQUIRE_EQ(p->read_errors, 2);

	/* rewritten in place: the next read sees the new bytes */
	FILE *f = fopen(path, "r+b");
	REQUIRE(f != NULL);
	REQUIRE(fseek(f, 16, SEEK_SET) == 0);
	REQUIRE(fwrite("\xde\xad\xbe\xef", 1, 4, f) == 4);
	REQUIRE(fclose(f) == 0);
	REQUIRE_EQ(read1(p, 0x20000010, 4, got, &r), 0);
	REQUIRE(memcmp(got, "\xde\xad\xbe\xef", 4) == 0);

	/* replaced by rename, and grown: followed */
	uint8_t img2[2048];
	memset(img2, 0x5a, sizeof(img2));
	tt_test_write_file(tmp, img2, sizeof(img2));
	REQUIRE(rename(tmp, path) == 0);
	REQUIRE_EQ(read1(p, 0x200007f0, 16, got, &r), 0);
	REQUIRE(got[0] == 0x5a && got[15] == 0x5a);

	/* removed: an error naming the file; back: works again */
	REQUIRE(unlink(path) == 0);
	REQUIRE(read1(p, 0x20000000, 4, got, &r) < 0);
	REQUIRE_SUBSTR(r.err, "ram.bin");
	tt_test_write_file(path, img, sizeof(img));
	REQUIRE_EQ(read1(p, 0x20000000, 4, got, &r), 0);
	REQUIRE(memcmp(got, img, 4) == 0);
	close_probe(p);
}

/* Intel HEX writer for the test: 16-byte data records with extended linear address records. */
static void put_ihex_rec(FILE *f, unsigned type, unsigned addr, const uint8_t *d, unsigned n)
{
	unsigned sum = n + (addr >> 8 & 255) + (addr & 255) + type;

	fprintf(f, ":%02X%04X%02X", n, addr & 0xffff, type);
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "%02X", d[i]);
		sum += d[i];
	}
	fprintf(f, "%02X\r\n", (0x100 - (sum & 255)) & 255);
}

static void write_ihex(const char *path, uint32_t addr, const uint8_t *d, unsigned n)
{
	FILE *f = fopen(path, "w");
	uint32_t upper = ~0u;

	REQUIRE(f != NULL);
	for (unsigned o = 0; o < n; o += 16) {
		uint32_t a = addr + o;
		if (a >> 16 != upper) {
			uint8_t u[2] = { (uint8_t)(a >> 24), (uint8_t)(a >> 16) };
			put_ihex_rec(f, 4, 0, u, 2);
			upper = a >> 16;
		}
		put_ihex_rec(f, 0, a & 0xffff, d + o, n - o < 16 ? n - o : 16);
	}
	put_ihex_rec(f, 1, 0, NULL, 0);
	REQUIRE(fclose(f) == 0);
}

static void write_srec(const char *path, uint32_t addr, const uint8_t *d, unsigned n)
{
	FILE *f = fopen(path, "w");

	REQUIRE(f != NULL);
	fprintf(f, "S00600004844521B\n");
	for (unsigned o = 0; o < n; o += 16) {
		unsigned k = n - o < 16 ? n - o : 16, a = addr + o;
		unsigned sum = k + 5 + (a >> 24) + (a >> 16 & 255) + (a >> 8 & 255) + (a & 255);
		fprintf(f, "S3%02X%08X", k + 5, a);
		for (unsigned i = 0; i < k; i++) {
			fprintf(f, "%02X", d[o + i]);
			sum += d[o + i];
		}
		fprintf(f, "%02X\n", ~sum & 255);
	}
	fprintf(f, "S70500000000FA\n");
	REQUIRE(fclose(f) == 0);
}

static void test_text_image(int srec)
{
	uint8_t img[300], got[300];
	struct req r;
	char *path = path_of(srec ? "fw.s19" : "fw.hex"), *tmp = path_of("fw.tmp");
	struct tt_probe *p;

	for (int i = 0; i < 300; i++)
		img[i] = (uint8_t)(i ^ 0x3c);
	/* crosses a 64 KiB boundary: needs the extended linear address records */
	(srec ? write_srec : write_ihex)(path, 0x2000fff0, img, sizeof(img));
	p = open_file(path, 0);
	REQUIRE_EQ(read1(p, 0x2000fff0, 300, got, &r), 0);
	REQUIRE(memcmp(got, img, 300) == 0);
	REQUIRE_EQ(read1(p, 0x20010005, 7, got, &r), 0);
	REQUIRE(memcmp(got, img + 21, 7) == 0);
	REQUIRE_EQ(read1(p, 0x2001011a, 4, got, &r), -EFAULT);
	REQUIRE_SUBSTR(r.err, "address 0x2001011a (+4) is outside the image [0x2000fff0,0x2001011c)");

	/* a new version (rename, as a build does) is parsed again */
	img[0] = 0x99;
	(srec ? write_srec : write_ihex)(tmp, 0x2000fff0, img, 20);
	REQUIRE(rename(tmp, path) == 0);
	REQUIRE_EQ(read1(p, 0x2000fff0, 4, got, &r), 0);
	REQUIRE_EQ(got[0], 0x99);
	REQUIRE_EQ(read1(p, 0x2000fff0, 21, got, &r), -EFAULT);
	close_probe(p);
}

/* A malformed file: the read fails with -EPROTO and the message names file, line, problem. */
static void expect_malformed(const char *text, const char *what)
{
	char *path = path_of("bad.hex");
	uint8_t got[4];
	struct req r;
	struct tt_probe *p;

	tt_test_write_file(path, text, strlen(text));
	p = open_file(path, 0);
	REQUIRE_EQ(read1(p, 0, 4, got, &r), -EPROTO);
	REQUIRE_SUBSTR(r.err, "bad.hex: ");
	REQUIRE_SUBSTR(r.err, what);
	close_probe(p);
}

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* kev:PATH follows a file while it is written: length and generation at TT_PLAN_FILE_STAT, and
 * a read without it comes from the file whose length was last given, even when another file has
 * taken the path since (the next length and generation say so). */
static void test_kev_follow(void)
{
	char *path = path_of("grow.kev"), *tmp = path_of("grow.tmp");
	uint8_t st[TT_PLAN_FILE_STAT_LEN], got[8];
	struct tt_plan stat_plan = { 1, { { .addr = TT_PLAN_FILE_STAT, .len = TT_PLAN_FILE_STAT_LEN, .dst = st } } };
	struct tt_probe_options opt = { 0 };
	struct tt_probe *p;
	struct req r;
	char err[256], spec[600];

	snprintf(spec, sizeof(spec), "kev:%s", path);
	REQUIRE_EQ(tt_probe_new(&loop, spec, &opt, &p, err, sizeof(err)), 0);
	/* no file yet: length 0, generation 0, not an error */
	REQUIRE_EQ(read_plan(p, &stat_plan, &r), 0);
	REQUIRE_EQ(le64(st), 0);
	REQUIRE_EQ(le64(st + 8), 0);

	tt_test_write_file(path, "AAAAaaaa", 8);
	REQUIRE_EQ(read_plan(p, &stat_plan, &r), 0);
	REQUIRE_EQ(le64(st), 8);
	REQUIRE_EQ(le64(st + 8), 1);
	/* HEX-looking content is still raw: byte 0 at address 0 */
	FILE *f = fopen(path, "ab");
	REQUIRE(f != NULL);
	REQUIRE(fwrite(":1000", 1, 5, f) == 5);
	REQUIRE(fclose(f) == 0);
	REQUIRE_EQ(read1(p, 8, 5, got, &r), 0);
	REQUIRE(memcmp(got, ":1000", 5) == 0);

	/* another file at the path: bytes still from the first until the next length */
	tt_test_write_file(tmp, "BBBBbbbbBBBBbbbb", 16);
	REQUIRE(rename(tmp, path) == 0);
	REQUIRE_EQ(read1(p, 4, 4, got, &r), 0);
	REQUIRE(memcmp(got, "aaaa", 4) == 0);
	REQUIRE_EQ(read_plan(p, &stat_plan, &r), 0);
	REQUIRE_EQ(le64(st), 16);
	REQUIRE_EQ(le64(st + 8), 2);
	REQUIRE_EQ(read1(p, 4, 4, got, &r), 0);
	REQUIRE(memcmp(got, "bbbb", 4) == 0);
	/* past the end: -EFAULT naming the file (a file cut since its length was read) */
	REQUIRE_EQ(read1(p, 12, 8, got, &r), -EFAULT);
	REQUIRE_SUBSTR(r.err, "grow.kev: address 0xc (+8) is outside the image [0x0,0x10)");

	/* removed while open: still read until another file appears */
	REQUIRE(unlink(path) == 0);
	REQUIRE_EQ(read_plan(p, &stat_plan, &r), 0);
	REQUIRE_EQ(le64(st), 16);
	REQUIRE_EQ(le64(st + 8), 2);
	close_probe(p);
}

static void test_malformed(void)
{
	expect_malformed(":0400000001020304F2\n:0400040001020304EF\n:00000001FF\n",
			 "line 2: bad checksum 0xef (expected 0xee)");
	expect_malformed(":0400000001020304F2\n\n:020000070000F7\n", "line 3: bad record type 07");
	expect_malformed(":0400000001020304F2\n:040004000102030EE\n", "line 2: odd length");
	expect_malformed(":0400000001020304F2\n:0500040001020304EE\n", "line 2: length mismatch");
	expect_malformed(":0400000001020304F2\n:04000400010203G4EE\n", "line 2: non-hex character");
	expect_malformed(":0400000001020304F2\nhello\n", "line 2: record does not start with ':'");
	expect_malformed("S107000001020304EE\nS107000401020304F0\n",
			 "line 2: bad checksum 0xf0 (expected 0xea)");
	expect_malformed("S107000001020304EE\nS40500000000FA\n", "line 2: bad record type S4");
	expect_malformed("S107000001020304EE\nS10700040102030\n", "line 2: odd length");
}

static void test_contracts(void)
{
	uint8_t img[64] = { 1, 2, 3 }, got[8];
	char *path = path_of("c.bin");
	char err[256];
	struct req r1 = { 0 }, r2;
	struct tt_probe *p, *q;
	struct tt_plan plan = { 1, { { .addr = 0, .len = 4, .dst = got } } };
	int closed = 0;

	tt_test_write_file(path, img, sizeof(img));
	/* bad specs fail at once, with nothing to close */
	REQUIRE_EQ(tt_probe_new(&loop, "file:/nonexistent/x.bin", NULL, &q, err, sizeof(err)),
		  -ENOENT);
	REQUIRE_SUBSTR(err, "file /nonexistent/x.bin: cannot open: No such file or directory");
	REQUIRE_EQ(tt_probe_new(&loop, "jtag:1", NULL, &q, err, sizeof(err)), -EINVAL);
	REQUIRE_SUBSTR(err, "unknown probe \"jtag:1\"");
	REQUIRE_EQ(tt_probe_new(&loop, "file:", NULL, &q, err, sizeof(err)), -EINVAL);

	p = open_file(path, 0);
	REQUIRE_EQ(tt_probe_write(p, 0, img, 4, NULL, NULL), -ENOTSUP);
	struct tt_plan empty = { 0, { { .addr = 0, .len = 0, .dst = NULL } } };
	REQUIRE_EQ(tt_probe_read(p, &empty, read_cb, &r1), -EINVAL);
	struct tt_plan zero = { 1, { { .addr = 0, .len = 0, .dst = got } } };
	REQUIRE_EQ(tt_probe_read(p, &zero, read_cb, &r1), -EINVAL);
	struct tt_plan wrap = { 1, { { .addr = UINT64_MAX - 1, .len = 4, .dst = got } } };
	REQUIRE_EQ(tt_probe_read(p, &wrap, read_cb, &r1), -EINVAL);
	/* one request at a time */
	r1.in_call = 1;
	REQUIRE_EQ(tt_probe_read(p, &plan, read_cb, &r1), 0);
	REQUIRE_EQ(tt_probe_read(p, &plan, read_cb, &r2), -EBUSY);
	r1.in_call = 0;
	tt_test_wait(&loop, &r1.done, 5000, "read");
	REQUIRE(r1.status == 0 && got[2] == 3);
	/* close with a read pending: -ECANCELED, then close_cb */
	r1 = (struct req){ 0 };
	REQUIRE_EQ(tt_probe_read(p, &plan, read_cb, &r1), 0);
	tt_probe_close(p, closed_cb, &closed);
	REQUIRE(!r1.done && !closed);
	tt_test_wait(&loop, &closed, 5000, "close");
	REQUIRE_EQ(r1.done, 1);
	REQUIRE_EQ(r1.status, -ECANCELED);
}

/* A TT_RANGE_TO_PTR range on a probe that reads fixed ranges only (file:): probe.c reads the
 * plan in segments, the ring from the pointer the first segment read, round its end into a
 * mirror or from dst[0]; bytes_read counts what was read; a malformed range is refused. */
static void test_ptr_ranges(void)
{
	uint8_t img[256], ptr[4], ring[64], anchor[8];
	char *path = path_of("ring.bin");
	struct req r;
	struct tt_probe *p;
	struct tt_plan plan = { 3, { { .addr = 0x10, .len = 4, .dst = ptr },
				     { .addr = 0x40, .len = 64, .dst = ring, .kind = TT_RANGE_TO_PTR,
				       .ptr_range = 0, .ptr_base = 0x1000, .align = 8, .from = 48,
				       .max = 64 },
				     { .addr = 0x68, .len = 8, .dst = anchor } } };
	uint64_t b0;

	for (unsigned i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)i;
	memcpy(img + 0x10, "\x10\x10\x00\x00", 4); /* 0x1010: ring offset 16 */
	tt_test_write_file(path, img, sizeof(img));
	p = open_file(path, 0);
	memset(ring, 0xee, sizeof(ring));
	b0 = p->bytes_read;
	REQUIRE_EQ(read_plan(p, &plan, &r), 0);
	REQUIRE(memcmp(ring + 48, img + 0x40 + 48, 16) == 0 && memcmp(ring, img + 0x40, 16) == 0);
	REQUIRE(ring[16] == 0xee && ring[47] == 0xee);
	REQUIRE(memcmp(anchor, img + 0x68, 8) == 0);
	REQUIRE_EQ(p->bytes_read - b0, 4 + 32 + 8);
	/* bytes in reading order; at most max */
	plan.r[1].dst_linear = true;
	plan.r[1].max = 24;
	memset(ring, 0xee, sizeof(ring));
	REQUIRE_EQ(read_plan(p, &plan, &r), 0);
	REQUIRE(memcmp(ring, img + 0x40 + 48, 16) == 0 && memcmp(ring + 16, img + 0x40, 8) == 0);
	REQUIRE(ring[24] == 0xee);
	/* a pointer outside the ring or misaligned: nothing of it */
	memcpy(img + 0x10, "\x44\x10\x00\x00", 4);
	tt_test_write_file(path, img, sizeof(img));
	memset(ring, 0xee, sizeof(ring));
	b0 = p->bytes_read;
	REQUIRE_EQ(read_plan(p, &plan, &r), 0);
	REQUIRE(ring[0] == 0xee && ring[63] == 0xee);
	REQUIRE_EQ(p->bytes_read - b0, 4 + 8);
	/* malformed: the pointer not inside an earlier fixed range; max not a multiple of align */
	plan.r[1].ptr_off = 2;
	REQUIRE_EQ(tt_probe_read(p, &plan, read_cb, &r), -EINVAL);
	plan.r[1].ptr_off = 0;
	plan.r[1].max = 20;
	REQUIRE_EQ(tt_probe_read(p, &plan, read_cb, &r), -EINVAL);
	plan.r[1].max = 64;
	plan.r[1].kind = (enum tt_range_kind)7;
	REQUIRE_EQ(tt_probe_read(p, &plan, read_cb, &r), -EINVAL);
	close_probe(p);
}

int main(void)
{
	REQUIRE_EQ(uv_loop_init(&loop), 0);
	dir = tt_test_tmpdir();
	test_raw();
	test_text_image(0);
	test_text_image(1);
	test_malformed();
	test_kev_follow();
	test_contracts();
	test_ptr_ranges();
	tt_test_loop_done(&loop);
	tt_test_rmdir(dir);
	printf("ok\n");
	return tt_test_done();
}
