/* tests/unit/test_threadx_bad.c: malformed ThreadX images are refused with a message naming the
 * field, its address and value; nothing is read outside the image. */
#include <errno.h>
#include <stdlib.h>

#include "../tt_test.h"
#include "txtest.h"

#define BUF (TXT_BASE + 0x100)

static struct txt t;
static uint8_t *img;
static size_t img_len;

/* A fresh valid image: header at BUF, 4 registry entries, 16 slots, some events. */
static void fresh(void)
{
	memset(t.mem, 0, TXT_MEM);
	CHECK_EQ(txw_enable(&t.w, BUF, 48 + 4 * 48 + 16 * 32, 4), 0);
	for (uint32_t s = 1; s <= 5; s++)
		txt_user(&t, s);
	img = t.mem;
	img_len = t.w.ent_end - TXT_BASE;
}

static int decode(char *err, size_t cap, const struct tt_threadx_config *cfg)
{
	txt_log_clear(&t.log);
	return tt_threadx_decode_image(img, img_len, TXT_BASE, BUF - TXT_BASE, cfg, txt_log_cb,
				       &t.log, err, cap);
}

static void expect(int want_rc, const char *needle, const struct tt_threadx_config *cfg)
{
	char err[256] = "x";
	int rc = decode(err, sizeof(err), cfg);
	CHECK_EQ(rc, want_rc);
	CHECK_SUBSTR(err, needle);
	CHECK_EQ(t.log.n, 0);
	if (rc != want_rc || strstr(err, needle) == NULL)
		fprintf(stderr, "  (message was: %s)\n", err);
}

static void hdr(uint32_t off, uint32_t v)
{
	txw_store32(&t.w, BUF + off, v);
}

int main(void)
{
	txt_init(&t, false);
	char err[256];

	fresh();
	CHECK_EQ(decode(err, sizeof(err), NULL), 0);
	CHECK_EQ(t.log.n, 7);

	fresh();
	img_len = t.w.ent_end - TXT_BASE - 1;
	expect(-EPROTO, "truncated", NULL);
	img_len = 40;
	expect(-EPROTO, "image of 40 bytes ends before", NULL);

	fresh();
	hdr(0, 0x12345678);
	expect(-EPROTO, "ThreadX header at 0x20000100: id 0x12345678 is not 0x54585442", NULL);

	fresh();
	hdr(8, 0x30000000);
	expect(-EPROTO, "base address 0x30000000 is not the header address", NULL);

	fresh();
	hdr(12, BUF + 52);
	expect(-EPROTO, "registry start 0x20000134 is not base+48", NULL);

	fresh();
	hdr(20, 0x1000);
	expect(-EPROTO,
	       "ThreadX header at 0x20000100: registry end 0x1000 is before registry start 0x20000130",
	       NULL);

	fresh();
	hdr(20, t.w.reg_end - 8);
	expect(-EPROTO, "is not a multiple of the entry size 48", NULL);

	fresh();
	hdr(16, 0);
	expect(-EPROTO, "registry name size 0 is outside 2..256", NULL);
	fresh();
	hdr(16, 5000u << 16);
	expect(-EPROTO, "registry name size 5000 is outside 2..256", NULL);

	fresh();
	hdr(24, t.w.reg_end - 48);
	expect(-EPROTO, "entries start 0x200001c0 is before registry end 0x200001f0", NULL);

	fresh();
	hdr(28, t.w.ent_start + 16);
	expect(-EPROTO, "leaves no room for one 32-byte entry", NULL);

	/* pointers beyond the image: refused by bounds, never read */
	fresh();
	hdr(28, t.w.ent_end + 0x10000);
	hdr(32, t.w.ent_start);
	expect(-EPROTO, "truncated", NULL);
	fresh();
	hdr(28, 0xFFFFFFE0u);
	expect(-EFBIG, "exceeds the limit", NULL);

	fresh();
	hdr(32, t.w.ent_start + 4);
	expect(-EPROTO, "current pointer 0x200001f4 is not a 32-byte entry in entries "
			"[0x200001f0, 0x200003f0)", NULL);
	fresh();
	hdr(32, t.w.ent_end);
	expect(-EPROTO, "current pointer 0x200003f0", NULL);
	fresh();
	hdr(32, 0);
	expect(-EPROTO, "current pointer 0x00000000", NULL);

	fresh();
	struct tt_threadx_config small = { .max_buffer_bytes = 256 };
	expect(-EFBIG, "exceeds the limit of 256 bytes (max_buffer_bytes)", &small);

	/* the live reader reports the same message and recovers once the header is good */
	fresh();
	hdr(20, 0x1000);
	txt_reader(&t, NULL);
	CHECK_EQ(txt_cycle(&t), -EPROTO);
	CHECK_SUBSTR(tt_threadx_error(t.rd), "registry end 0x1000 is before registry start");
	CHECK_EQ(txt_cycle(&t), -EPROTO);
	hdr(20, t.w.reg_end);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 7);
	CHECK_STR(tt_threadx_error(t.rd), "");

	/* bad configs */
	struct tt_threadx *rd = NULL;
	struct tt_threadx_config bad = { .header_addr = 0xFFFFFFF0u };
	CHECK_EQ(tt_threadx_new(&bad, &rd), -EINVAL);
	CHECK(rd == NULL);
	bad.header_addr = 0x1000;
	bad.time_dir = 2;
	CHECK_EQ(tt_threadx_new(&bad, &rd), -EINVAL);

	txt_free(&t);
	return tt_test_done();
}
