/* tests/fuzz/fuzz_image.c: the memory image readers of probe/image.c (Intel HEX, S-record,
 * detection by content) and the trace file detectors of reader.h (.trx, .kev), on untrusted
 * files: what `tracetap decode` and the file probe do with a file.
 *
 * The input is a file. It is detected and parsed as its detected format, then as HEX and as
 * S-record whatever it looks like; every segment is copied out whole and across its ends; the
 * lowest segment's bytes go through the trace format detectors and, when one matches, that
 * format's image decoder (a .trx in HEX form).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "image.h"
#include "reader.h"

static void fz_segments(const struct tt_image *img)
{
	static uint8_t dst[1 << 16];
	char err[256];

	for (size_t i = 0; i < img->nseg; i++) {
		const struct tt_image_seg *s = &img->seg[i];
		uint32_t len = s->len < sizeof(dst) ? (uint32_t)s->len : sizeof(dst);
		tt_image_copy(img, s->addr, len, dst, err, sizeof(err));
		tt_image_copy(img, s->addr ? s->addr - 1 : 0, 2, dst, err, sizeof(err));
		tt_image_copy(img, s->addr + s->len - 1, 2, dst, err, sizeof(err));
	}
	if (img->nseg) {
		const struct tt_image_seg *s = &img->seg[0];
		const struct tt_reader_ops *ops = tt_reader_detect(s->data, s->len);
		struct tt_reader_config cfg = { .tick_hz = 1000 };
		if (ops)
			ops->decode_image(s->data, s->len, s->addr, &cfg, fz_record, NULL, err,
					  sizeof(err));
	}
}

static void fz_parse(enum tt_image_format fmt, const char *text, size_t n)
{
	struct tt_image img;
	char err[256];

	memset(&img, 0, sizeof(img));
	if (tt_image_parse(fmt, text, n, &img, err, sizeof(err)) == 0)
		fz_segments(&img);
	else if (!memchr(err, '\0', sizeof(err)))
		abort(); /* an error message must be a string */
	tt_image_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	enum tt_image_format fmt = tt_image_detect(text, size);

	if (fmt != TT_IMAGE_RAW)
		fz_parse(fmt, text, size);
	fz_parse(fmt == TT_IMAGE_IHEX ? TT_IMAGE_SREC : TT_IMAGE_IHEX, text, size);
	if (fmt == TT_IMAGE_RAW)
		fz_parse(TT_IMAGE_SREC, text, size);
	(void)tt_reader_detect(data, size);
	return 0;
}
