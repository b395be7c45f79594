/* probe/image.c: Intel HEX and Motorola S-record images (see image.h).
 *
 * Records are collected in file order, then sorted by address (a later record wins where two
 * overlap) and merged into segments so a read is a lookup and a memcpy.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexdigit.h"
#include "image.h"

struct chunk {
	uint64_t addr;
	size_t len, off, order;
};

struct collect {
	struct chunk *c;
	size_t n, cap;
	uint8_t *data;
	size_t dlen, dcap;
};

static int is_hex_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tt_hexdigit(s[i]) < 0)
			return 0;
	return n > 0;
}

enum tt_image_format tt_image_detect(const char *head, size_t n)
{
	size_t e = 0;

	while (e < n && head[e] != '\n')
		e++;
	while (e > 0 && (head[e - 1] == '\r' || head[e - 1] == ' '))
		e--;
	if (e >= 11 && head[0] == ':' && is_hex_line(head + 1, e - 1))
		return TT_IMAGE_IHEX;
	if (e >= 10 && head[0] == 'S' && head[1] >= '0' && head[1] <= '9' &&
	    is_hex_line(head + 2, e - 2))
		return TT_IMAGE_SREC;
	return TT_IMAGE_RAW;
}

static int perr(char *err, size_t errlen, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int perr(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(err, errlen, "line %u: ", line);

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < errlen)
		vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* Decodes the hex digits s[0..n) of one record into out (at most 260 bytes). */
static int decode(const char *s, size_t n, uint8_t *out, size_t *olen, unsigned line,
		  size_t col0, char *err, size_t errlen)
{
	if (n % 2)
		return perr(err, errlen, line, "odd length (%zu hex digits)", n);
	if (n / 2 > 260)
		return perr(err, errlen, line, "record too long (%zu bytes)", n / 2);
	for (size_t i = 0; i < n; i++) {
		if (tt_hexdigit(s[i]) < 0) {
			unsigned char c = (unsigned char)s[i];
			return perr(err, errlen, line, "non-hex character 0x%02x at column %zu", c,
				    col0 + i + 1);
		}
	}
	for (size_t i = 0; i < n / 2; i++)
		out[i] = (uint8_t)(tt_hexdigit(s[2 * i]) << 4 | tt_hexdigit(s[2 * i + 1]));
	*olen = n / 2;
	return 0;
}

static int add_chunk(struct collect *col, uint64_t addr, const uint8_t *d, size_t len)
{
	if (len == 0)
		return 0;
	if (col->n == col->cap) {
		size_t cap = col->cap ? 2 * col->cap : 64;
		struct chunk *c = realloc(col->c, cap * sizeof(*c));
		if (c == NULL)
			return -ENOMEM;
		col->c = c;
		col->cap = cap;
	}
	if (col->dlen + len > col->dcap) {
		size_t cap = col->dcap ? 2 * col->dcap : 4096;
		while (cap < col->dlen + len)
			cap *= 2;
		uint8_t *nd = realloc(col->data, cap);
		if (nd == NULL)
			return -ENOMEM;
		col->data = nd;
		col->dcap = cap;
	}
	memcpy(col->data + col->dlen, d, len);
	col->c[col->n] = (struct chunk){ addr, len, col->dlen, col->n };
	col->n++;
	col->dlen += len;
	return 0;
}

/* One Intel HEX record b[0..n). *base: the extended segment/linear address; *eof set by 01. */
static int ihex_record(struct collect *col, const uint8_t *b, size_t n, uint64_t *base,
		       int *eof, unsigned line, char *err, size_t errlen)
{
	uint8_t sum = 0;

	if (n < 5 || (size_t)b[0] + 5 != n)
		return perr(err, errlen, line, "length mismatch (count byte says %u data bytes, "
			    "record has %zu)", n ? b[0] : 0, n >= 5 ? n - 5 : 0);
	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + b[i]);
	if (sum != 0)
		return perr(err, errlen, line, "bad checksum 0x%02x (expected 0x%02x)", b[n - 1],
			    (uint8_t)(b[n - 1] - sum));
	switch (b[3]) {
	case 0x00:
		return add_chunk(col, *base + ((unsigned)b[1] << 8 | b[2]), b + 4, b[0]);
	case 0x01:
		*eof = 1;
		return 0;
	case 0x02:
	case 0x04:
		if (b[0] != 2)
			return perr(err, errlen, line, "record type %02x needs 2 data bytes, has %u",
				    b[3], b[0]);
		*base = (uint64_t)((unsigned)b[4] << 8 | b[5]) << (b[3] == 0x02 ? 4 : 16);
		return 0;
	case 0x03:
	case 0x05:
		return 0; /* start address: not memory */
	default:
		return perr(err, errlen, line, "bad record type %02x (Intel HEX has 00-05)", b[3]);
	}
}

static int srec_record(struct collect *col, char type, const uint8_t *b, size_t n, unsigned line,
		       char *err, size_t errlen)
{
	static const int alen[10] = { 2, 2, 3, 4, -1, 2, 3, 4, 3, 2 };
	uint8_t sum = 0;
	uint64_t addr = 0;
	int al;

	if (type < '0' || type > '9' || alen[type - '0'] < 0)
		return perr(err, errlen, line, "bad record type S%c", type);
	al = alen[type - '0'];
	if (n < 2 || (size_t)b[0] + 1 != n)
		return perr(err, errlen, line, "length mismatch (count byte says %u bytes, record "
			    "has %zu)", n ? b[0] : 0, n ? n - 1 : 0);
	if (n < (size_t)al + 2)
		return perr(err, errlen, line, "record too short for a %d-byte address", al);
	for (size_t i = 0; i + 1 < n; i++)
		sum = (uint8_t)(sum + b[i]);
	sum = (uint8_t)~sum;
	if (sum != b[n - 1])
		return perr(err, errlen, line, "bad checksum 0x%02x (expected 0x%02x)", b[n - 1],
			    sum);
	for (int i = 0; i < al; i++)
		addr = addr << 8 | b[1 + i];
	if (type >= '1' && type <= '3')
		return add_chunk(col, addr, b + 1 + al, n - 2 - (size_t)al);
	return 0;
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : (x->order > y->order);
}

/* Sorted chunks -> merged segments (later records overwrite earlier ones where they overlap). */
static int build_segments(struct collect *col, struct tt_image *img)
{
	qsort(col->c, col->n, sizeof(col->c[0]), chunk_cmp);
	for (size_t i = 0; i < col->n; i++) {
		const struct chunk *c = &col->c[i];
		struct tt_image_seg *s = img->nseg ? &img->seg[img->nseg - 1] : NULL;

		if (s == NULL || c->addr > s->addr + s->len) {
			struct tt_image_seg *ns = realloc(img->seg, (img->nseg + 1) * sizeof(*ns));
			if (ns == NULL)
				return -ENOMEM;
			img->seg = ns;
			s = &img->seg[img->nseg++];
			*s = (struct tt_image_seg){ c->addr, 0, NULL };
		}
		uint64_t end = c->addr + c->len;
		if (end > s->addr + s->len) {
			uint8_t *nd = realloc(s->data, end - s->addr);
			if (nd == NULL)
				return -ENOMEM;
			s->data = nd;
			s->len = end - s->addr;
		}
		memcpy(s->data + (c->addr - s->addr), col->data + c->off, c->len);
	}
	return 0;
}

int tt_image_parse(enum tt_image_format fmt, const char *text, size_t n, struct tt_image *img,
		   char *err, size_t errlen)
{
	struct collect col = { 0 };
	uint8_t rec[262];
	uint64_t base = 0;
	unsigned line = 0;
	int eof = 0, r = 0;

	for (size_t pos = 0; pos < n && !eof && r == 0;) {
		const char *s = text + pos;
		size_t e = 0, rl;

		while (pos + e < n && s[e] != '\n')
			e++;
		pos += e + 1;
		line++;
		while (e > 0 && (s[e - 1] == '\r' || s[e - 1] == ' ' || s[e - 1] == '\t'))
			e--;
		if (e == 0)
			continue;
		if (fmt == TT_IMAGE_IHEX) {
			if (s[0] != ':')
				r = perr(err, errlen, line, "record does not start with ':'");
			else if ((r = decode(s + 1, e - 1, rec, &rl, line, 1, err, errlen)) == 0)
				r = ihex_record(&col, rec, rl, &base, &eof, line, err, errlen);
		} else {
			if (s[0] != 'S' || e < 2)
				r = perr(err, errlen, line, "record does not start with 'S' and a type");
			else if ((r = decode(s + 2, e - 2, rec, &rl, line, 2, err, errlen)) == 0)
				r = srec_record(&col, s[1], rec, rl, line, err, errlen);
		}
	}
	if (r == 0 && col.n == 0)
		r = perr(err, errlen, line, "no data records");
	if (r == 0 && (r = build_segments(&col, img)) == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(col.c);
	free(col.data);
	return r;
}

void tt_image_free(struct tt_image *img)
{
	for (size_t i = 0; i < img->nseg; i++)
		free(img->seg[i].data);
	free(img->seg);
	img->seg = NULL;
	img->nseg = 0;
}

int tt_image_outside(char *err, size_t errlen, uint64_t addr, uint32_t len, uint64_t lo,
		     uint64_t hi)
{
	snprintf(err, errlen, "address 0x%" PRIx64 " (+%" PRIu32 ") is outside the image "
		 "[0x%" PRIx64 ",0x%" PRIx64 ")", addr, len, lo, hi);
	return -EFAULT;
}

int tt_image_copy(const struct tt_image *img, uint64_t addr, uint32_t len, uint8_t *dst,
		  char *err, size_t errlen)
{
	uint64_t lo, hi;

	for (size_t i = 0; i < img->nseg; i++) {
		const struct tt_image_seg *s = &img->seg[i];
		if (addr >= s->addr && addr - s->addr <= s->len && len <= s->len - (addr - s->addr)) {
			memcpy(dst, s->data + (addr - s->addr), len);
			return 0;
		}
	}
	lo = img->nseg ? img->seg[0].addr : 0;
	hi = img->nseg ? img->seg[img->nseg - 1].addr + img->seg[img->nseg - 1].len : 0;
	if (addr < lo || addr + len > hi)
		return tt_image_outside(err, errlen, addr, len, lo, hi);
	snprintf(err, errlen, "address 0x%" PRIx64 " (+%" PRIu32 ") is not all in the image: it "
		 "has %zu segments in [0x%" PRIx64 ",0x%" PRIx64 ") with holes", addr, len,
		 img->nseg, lo, hi);
	return -EFAULT;
}
