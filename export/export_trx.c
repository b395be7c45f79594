/* export/export_trx.c: a TraceX file rebuilt from the raw words (see export.h). The header and
 * the registry come first in the file, so the raw words (32 bytes per event) and the names
 * seen are kept until finish. A .trx is TraceX's file of ThreadX's own trace buffer, so this is
 * the one place outside proto/ that reads ThreadX's header (proto/threadx.h): the source's
 * registry and timer mask, when the source is ThreadX's reader. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "../proto/reader.h"
#include "../proto/threadx.h"
#include "export_int.h"

static void src_clear(struct tt_export *e)
{
	for (size_t i = 0; i < e->trx.nsrc; i++)
		free(e->trx.src[i].name);
	free(e->trx.src);
	e->trx.src = NULL;
	e->trx.nsrc = 0;
	e->trx.have_src = false;
}

static int set_threadx(struct tt_export *e, const struct tt_threadx *rd)
{
	struct tt_threadx_header_info hi;
	struct tt_threadx_object o;

	if (tt_threadx_header_info(rd, &hi) < 0)
		return -ENOENT;
	if (e->ops != &tt_export_trx) /* only a .trx has a header and a registry to keep */
		return 0;
	src_clear(e);
	e->trx.src = calloc(hi.registry_entries ? hi.registry_entries : 1, sizeof(*e->trx.src));
	if (!e->trx.src)
		return -ENOMEM;
	for (uint32_t i = 0; i < hi.registry_entries; i++) {
		struct src_obj *s = &e->trx.src[e->trx.nsrc];
		if (tt_threadx_registry_at(rd, i, &o) < 0)
			break;
		*s = (struct src_obj){ .avail = o.deleted, .type = o.type, .ptr = o.ptr,
				       .p1 = o.param1, .p2 = o.param2,
				       .reserved = { o.reserved[0], o.reserved[1] },
				       .name = strdup(o.name ? o.name : "") };
		if (!s->name)
			return -ENOMEM;
		e->trx.nsrc++;
	}
	e->trx.have_src = true;
	e->trx.src_mask = hi.timer_mask;
	e->trx.src_name_size = hi.name_size < 4 ? 4 : hi.name_size > TRX_NAME_MAX ? TRX_NAME_MAX :
			   hi.name_size;
	return 0;
}

static void skip_record(void *arg, const struct tt_record *rec)
{
	(void)arg;
	(void)rec;
}

int tt_export_set_source(struct tt_export *e, const struct tt_reader_ops *r, const void *rd)
{
	return r == &tt_threadx_reader ? set_threadx(e, rd) : 0;
}

int tt_export_set_source_image(struct tt_export *e, const struct tt_reader_ops *fmt,
			       const uint8_t *img, size_t len, uint64_t base, uint64_t header_addr)
{
	struct tt_threadx_config c = { .static_image = true };
	struct tt_threadx *rd;
	struct tt_plan p;
	int rc;

	if (fmt != &tt_threadx_reader)
		return 0;
	if (!header_addr && !base) /* a .trx: its header says where it was */
		base = tt_threadx_file_base(img, len);
	c.header_addr = header_addr ? header_addr : base;
	if ((rc = tt_threadx_new(&c, &rd)) < 0)
		return rc;
	do { /* one cycle of the reader over the image: header, registry, entries */
		tt_threadx_plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++) {
			const struct tt_range *r = &p.r[i];
			if (r->addr < base || r->addr - base > len || len - (r->addr - base) < r->len) {
				rc = -ERANGE;
				goto out;
			}
			memcpy(r->dst, img + (r->addr - base), r->len);
		}
		rc = tt_threadx_ingest(rd, skip_record, NULL);
	} while (rc == TT_THREADX_MORE);
	if (rc >= 0)
		rc = set_threadx(e, rd);
out:
	tt_threadx_free(rd);
	return rc;
}

static int trx_append(struct tt_export *e, const uint32_t w[8])
{
	if (e->trx.nent == e->trx.capent) {
		size_t ncap = e->trx.capent ? e->trx.capent * 2 : 1024;
		uint32_t *n = realloc(e->trx.words, ncap * 32);
		if (!n)
			return -ENOMEM;
		e->trx.words = n;
		e->trx.capent = ncap;
	}
	memcpy(e->trx.words + e->trx.nent * 8, w, 32);
	e->trx.nent++;
	e->trx.ts_last = w[3];
	return 0;
}

/* A gap or reset record as a marker entry (export.h). */
static int trx_marker(struct tt_export *e, const cJSON *rec, bool gap)
{
	double lost = gap ? num(rec, "lost", 0) : 0;
	const cJSON *exact = cJSON_GetObjectItemCaseSensitive(rec, "exact");
	uint32_t w[8] = { 0xF0F0F0F0u, 0, gap ? TT_TRX_GAP_EVENT : TT_TRX_RESET_EVENT,
			  e->trx.ts_last, lost >= 4294967295.0 ? 0xFFFFFFFFu : tt_json_u32(lost),
			  gap && cJSON_IsTrue(exact) ? 1 : 0, 0, 0 };
	int rc = trx_append(e, w);

	if (rc == 0 && gap) {
		e->trx.marks++;
		e->trx.marked_lost += w[4];
	}
	return rc;
}

static int trx_record(struct tt_export *e, const cJSON *rec, const char *type)
{
	uint32_t w[8];

	if (!strcmp(type, "gap") || !strcmp(type, "reset"))
		return trx_marker(e, rec, !strcmp(type, "gap"));
	if (strcmp(type, "event") || raw_words(rec, w) != 8 || w[0] == 0)
		return -EINVAL;
	tt_export_learn(e, rec, w, 8);
	uint32_t ts = tt_json_u32(num(rec, "ts", w[3]));
	if (ts > e->trx.ts_max)
		e->trx.ts_max = ts;
	e->trx.ts_masked |= ts != w[3];
	return trx_append(e, w);
}

uint64_t tt_export_trx_gaps(const struct tt_export *e, uint64_t *lost)
{
	*lost = e->ops == &tt_export_trx ? e->trx.marked_lost : 0;
	return e->ops == &tt_export_trx ? e->trx.marks : 0;
}

const char *tt_export_trx_note(char *buf, size_t cap, uint64_t gaps, uint64_t lost)
{
	if (!gaps)
		snprintf(buf, cap, "%s", "");
	else
		snprintf(buf, cap, "; %" PRIu64 " gap%s marked as TraceX user event %u (%" PRIu64
			 " events lost, in info 1)", gaps, gaps == 1 ? "" : "s", TT_TRX_GAP_EVENT, lost);
	return buf;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t tt_export_trx_count_gaps(const uint8_t *img, size_t len, uint64_t *lost)
{
	uint64_t n = 0;

	*lost = 0;
	if (len < 48 || rd32(img) != 0x54585442u)
		return 0;
	uint32_t base = rd32(img + 8), start = rd32(img + 24), end = rd32(img + 28);
	if (start < base || end < start || end - base > len)
		return 0;
	for (uint32_t a = start - base; a + 32 <= end - base; a += 32)
		if (rd32(img + a) == 0xF0F0F0F0u && rd32(img + a + 8) == TT_TRX_GAP_EVENT) {
			n++;
			*lost += rd32(img + a + 16);
		}
	return n;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The timer mask when the source's header is not known: the stamps' own width (a raw time word
 * with bits the masked stamp has not was masked by the target's header: the smallest all-ones
 * mask that holds every stamp), else all 32 bits. */
static uint32_t trx_mask(const struct tt_export *e)
{
	uint32_t m = 0xFFFFFFFFu;

	if (e->trx.have_src)
		return e->trx.src_mask;
	if (e->trx.ts_masked)
		for (m = 1; m < e->trx.ts_max && m != 0xFFFFFFFFu; m = m << 1 | 1)
			;
	return m;
}

/* One registry entry of the .trx. */
static void trx_obj(uint8_t *r, uint8_t avail, uint8_t type, const uint8_t res[2], uint32_t ptr,
		    uint32_t p1, uint32_t p2, const char *name, size_t name_size)
{
	r[0] = avail;
	r[1] = type;
	r[2] = res[0];
	r[3] = res[1];
	le32(r + 4, ptr);
	le32(r + 8, p1);
	le32(r + 12, p2);
	memcpy(r + 16, name, strnlen(name, name_size - 1));
}

static bool src_has(const struct tt_export *e, uint32_t ptr)
{
	for (size_t i = 0; i < e->trx.nsrc; i++)
		if (e->trx.src[i].type && e->trx.src[i].ptr == ptr)
			return true;
	return false;
}

static int trx_finish(struct tt_export *e)
{
	static const uint8_t nores[2];
	size_t name_size = e->trx.have_src ? e->trx.src_name_size : TRX_NAME_SIZE;
	size_t nlearn = 0;

	for (size_t i = 0; i < e->nobjs; i++)
		nlearn += !src_has(e, e->objs[i].ptr);
	size_t nreg = e->trx.nsrc + nlearn ? e->trx.nsrc + nlearn : 1, regsz = 16 + name_size;
	size_t nent = e->trx.nent ? e->trx.nent : 1;
	size_t len = 48 + nreg * regsz + nent * 32;
	uint8_t *img = calloc(1, len);
	uint32_t reg = TRX_BASE + 48, ent = reg + (uint32_t)(nreg * regsz);

	if (!img)
		return -ENOMEM;
	le32(img + 0, 0x54585442u);
	le32(img + 4, trx_mask(e));
	le32(img + 8, TRX_BASE);
	le32(img + 12, reg);
	img[18] = (uint8_t)name_size; /* u16 at 18, little-endian; 16 is reserved (0) */
	img[19] = (uint8_t)(name_size >> 8);
	le32(img + 20, ent);
	le32(img + 24, ent);
	le32(img + 28, ent + (uint32_t)(nent * 32));
	le32(img + 32, ent); /* current = the oldest entry (entries are in order) */
	le32(img + 36, 0xAAAAAAAAu);
	le32(img + 40, 0xBBBBBBBBu);
	le32(img + 44, 0xCCCCCCCCu);
	/* the source's registry as it was, then names seen in events that it no longer holds */
	size_t k = 0;
	for (size_t i = 0; i < e->trx.nsrc; i++, k++) {
		const struct src_obj *s = &e->trx.src[i];
		trx_obj(img + 48 + k * regsz, s->avail, s->type, s->reserved, s->ptr, s->p1, s->p2,
			s->name, name_size);
	}
	for (size_t i = 0; i < e->nobjs; i++)
		if (!src_has(e, e->objs[i].ptr))
			trx_obj(img + 48 + k++ * regsz, 0, e->objs[i].type, nores, e->objs[i].ptr, 0,
				0, e->objs[i].name, name_size);
	if (!k)
		img[48] = 1; /* one free slot */
	for (size_t i = 0; i < e->trx.nent * 8; i++)
		le32(img + (ent - TRX_BASE) + i * 4, e->trx.words[i]);
	put(e, img, len);
	free(img);
	return e->err;
}

static void trx_free(struct tt_export *e)
{
	src_clear(e);
	free(e->trx.words);
}

const struct tt_export_ops tt_export_trx = {
	.name = "trx", .content_type = "application/octet-stream", .ext = ".trx",
	.record = trx_record, .finish = trx_finish, .free = trx_free,
};
