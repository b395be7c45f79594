/* probe/image.h: memory images in Intel HEX and Motorola S-record form (internal to probe/).
 *
 * Pure code (no I/O): detection by content, parsing into sorted non-overlapping segments, and
 * copying target ranges out. Input is untrusted: every error names the line and what is wrong.
 */
#ifndef TT_IMAGE_H
#define TT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

enum tt_image_format { TT_IMAGE_RAW = 0, TT_IMAGE_IHEX, TT_IMAGE_SREC };

struct tt_image_seg {
	uint64_t addr;
	size_t len;
	uint8_t *data; /* owned */
};

struct tt_image {
	struct tt_image_seg *seg; /* sorted by addr, neither overlapping nor touching */
	size_t nseg;
};

/* Format of a file whose first bytes are head[0..n): text whose first line is a well-formed
 * looking HEX (':' + hex digits) or SREC ('S' digit + hex digits) record, else raw. */
enum tt_image_format tt_image_detect(const char *head, size_t n);

/* Parses text[0..n) of the given format into img (initially zeroed; tt_image_free after, even
 * on error). 0, -EPROTO (malformed: err says "line N: what"), -ENOMEM. */
int tt_image_parse(enum tt_image_format fmt, const char *text, size_t n, struct tt_image *img,
		   char *err, size_t errlen);
void tt_image_free(struct tt_image *img);

/* Copies [addr, addr+len) into dst. 0, or -EFAULT with err saying which part is missing. */
int tt_image_copy(const struct tt_image *img, uint64_t addr, uint32_t len, uint8_t *dst,
		  char *err, size_t errlen);

/* Formats "address 0x.. (+len) is outside the image [lo,hi)" into err; returns -EFAULT. */
int tt_image_outside(char *err, size_t errlen, uint64_t addr, uint32_t len, uint64_t lo,
		     uint64_t hi);

#endif
