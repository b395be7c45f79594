/* proto/threadx_header.c: the ThreadX trace header (parse, validate, accept a layout, the
 * current pointer) and whole images decoded through the live reader (see threadx.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadx_int.h"

void tt_tx_err(struct tt_threadx *rd, const char *fmt, ...)
{
	int n = snprintf(rd->err, sizeof(rd->err), "ThreadX header at 0x%08" PRIx64 ": ",
			 rd->cfg.header_addr);
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(rd->err))
		vsnprintf(rd->err + n, sizeof(rd->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* ---- header ------------------------------------------------------------------------------- */

/* Parses and validates hdrbuf into *l. Returns 0, -EPROTO or -EFBIG with rd->err set. */
/* The header's words in the byte order its id is in (l zeroed first). */
static int header_read(struct tt_threadx *rd, struct tt_txlayout *l)
{
	const uint8_t *h = rd->hdrbuf;
	uint32_t le = (uint32_t)h[3] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[1] << 8 | h[0];

	memset(l, 0, sizeof(*l));
	if (le == TT_THREADX_ID) {
		l->big = false;
	} else if (__builtin_bswap32(le) == TT_THREADX_ID) {
		l->big = true;
	} else {
		tt_tx_err(rd, "id 0x%08" PRIx32 " is not 0x54585442 (\"TXTB\") in either byte order: "
			  "wrong address, or tracing not enabled yet", le);
		return -EPROTO;
	}
	bool was = rd->lay.big;
	rd->lay.big = l->big; /* tt_tx_ld32 reads the byte order from rd->lay */
	l->mask = tt_tx_ld32(rd, h + 4);
	l->base = tt_tx_ld32(rd, h + 8);
	l->reg_start = tt_tx_ld32(rd, h + 12);
	l->name_size = l->big ? (uint32_t)h[18] << 8 | h[19] : (uint32_t)h[19] << 8 | h[18];
	l->reg_end = tt_tx_ld32(rd, h + 20);
	l->ent_start = tt_tx_ld32(rd, h + 24);
	l->ent_end = tt_tx_ld32(rd, h + 28);
	l->cur = tt_tx_ld32(rd, h + TT_TX_CUR_OFF);
	rd->lay.big = was;
	return 0;
}

/* The registry: where the header says it is, names of a sane size, whole entries. */
static int header_check_registry(struct tt_threadx *rd, const struct tt_txlayout *l)
{
	const uint64_t at = rd->cfg.header_addr;

	if (l->base != at) {
		tt_tx_err(rd, "base address 0x%08" PRIx32 " is not the header address", l->base);
		return -EPROTO;
	}
	if ((uint64_t)l->reg_start != at + TT_THREADX_HEADER_SIZE) {
		tt_tx_err(rd, "registry start 0x%08" PRIx32 " is not base+48 (0x%08" PRIx64 ")",
			  l->reg_start, at + TT_THREADX_HEADER_SIZE);
		return -EPROTO;
	}
	if (l->name_size < 2 || l->name_size > 256) {
		tt_tx_err(rd, "registry name size %" PRIu32 " is outside 2..256", l->name_size);
		return -EPROTO;
	}
	if (l->reg_end < l->reg_start) {
		tt_tx_err(rd, "registry end 0x%" PRIx32 " is before registry start 0x%08" PRIx32,
			  l->reg_end, l->reg_start);
		return -EPROTO;
	}
	uint32_t esz = 16 + l->name_size;
	if ((l->reg_end - l->reg_start) % esz != 0) {
		tt_tx_err(rd, "registry size %" PRIu32 " (0x%08" PRIx32 "..0x%08" PRIx32 ") is not a "
			  "multiple of the entry size %" PRIu32, l->reg_end - l->reg_start,
			  l->reg_start, l->reg_end, esz);
		return -EPROTO;
	}
	return 0;
}

int tt_tx_header_parse(struct tt_threadx *rd, struct tt_txlayout *l)
{
	int rc = header_read(rd, l);

	if (rc < 0 || (rc = header_check_registry(rd, l)) < 0)
		return rc;
	if (l->ent_start < l->reg_end) {
		tt_tx_err(rd, "entries start 0x%08" PRIx32 " is before registry end 0x%08" PRIx32,
			  l->ent_start, l->reg_end);
		return -EPROTO;
	}
	if (l->ent_end < l->ent_start || l->ent_end - l->ent_start < TT_THREADX_ENTRY_SIZE) {
		tt_tx_err(rd, "entries end 0x%08" PRIx32 " leaves no room for one 32-byte entry after "
			  "entries start 0x%08" PRIx32, l->ent_end, l->ent_start);
		return -EPROTO;
	}
	l->nreg = (l->reg_end - l->reg_start) / (16 + l->name_size);
	l->nent = (l->ent_end - l->ent_start) / TT_THREADX_ENTRY_SIZE;
	uint64_t total = (uint64_t)l->ent_end - l->base;
	if (total > rd->cfg.max_buffer_bytes) {
		tt_tx_err(rd, "buffer of %" PRIu64 " bytes (to entries end 0x%08" PRIx32 ") exceeds the "
			  "limit of %zu bytes (max_buffer_bytes)", total, l->ent_end,
			  rd->cfg.max_buffer_bytes);
		return -EFBIG;
	}
	uint64_t used_end = (uint64_t)l->ent_start + (uint64_t)l->nent * TT_THREADX_ENTRY_SIZE;
	if (l->cur < l->ent_start || l->cur >= used_end ||
	    (l->cur - l->ent_start) % TT_THREADX_ENTRY_SIZE != 0) {
		tt_tx_err(rd, "current pointer 0x%08" PRIx32 " is not a 32-byte entry in entries "
			  "[0x%08" PRIx32 ", 0x%08" PRIx64 ")", l->cur, l->ent_start, used_end);
		return -EPROTO;
	}
	return 0;
}

bool tt_tx_layout_same(const struct tt_txlayout *a, const struct tt_txlayout *b)
{
	return a->big == b->big && a->mask == b->mask && a->base == b->base &&
	       a->reg_start == b->reg_start && a->reg_end == b->reg_end &&
	       a->ent_start == b->ent_start && a->ent_end == b->ent_end &&
	       a->name_size == b->name_size;
}

/* Accepts layout l: (re)allocates buffers sized from it. */
static int tt_tx_accept(struct tt_threadx *rd, const struct tt_txlayout *l)
{
	if (!rd->attached || !tt_tx_layout_same(&rd->lay, l)) {
		tt_tx_free_bufs(rd);
		size_t esz = 16 + l->name_size;
		rd->regbuf = malloc(l->nreg ? l->nreg * esz : 1);
		rd->regraw = calloc(l->nreg ? l->nreg : 1, esz);
		rd->regstamp = calloc(l->nreg ? l->nreg : 1, sizeof(*rd->regstamp));
		rd->objs = calloc(l->nreg ? l->nreg : 1, sizeof(*rd->objs));
		rd->objidx = calloc(l->nreg ? l->nreg : 1, sizeof(*rd->objidx));
		rd->names = calloc(l->nreg ? l->nreg : 1, l->name_size + 1);
		rd->entbuf = calloc(l->nent, TT_THREADX_ENTRY_SIZE);
		rd->objs_prev = calloc(l->nreg ? l->nreg : 1, sizeof(*rd->objs));
		rd->objidx_prev = calloc(l->nreg ? l->nreg : 1, sizeof(*rd->objidx));
		rd->names_prev = calloc(l->nreg ? l->nreg : 1, l->name_size + 1);
		if (!rd->regbuf || !rd->regraw || !rd->regstamp || !rd->objs || !rd->objidx || !rd->names || !rd->entbuf ||
		    !rd->objs_prev || !rd->objidx_prev || !rd->names_prev) {
			tt_tx_free_bufs(rd);
			snprintf(rd->err, sizeof(rd->err), "out of memory for a %" PRIu32 "-entry buffer",
				 l->nent);
			return -ENOMEM;
		}
	}
	rd->lay = *l;
	rd->attached = true;
	rd->st.capacity = l->nent;
	return 0;
}

/* Forget the cursor: the next cycle reads the header, the registry and the whole buffer. */
void tt_tx_emit_reset(struct tt_threadx *rd, const char *reason, tt_emit_cb cb, void *arg)
{
	struct tt_record rec = { .kind = TT_REC_RESET };
	rec.u.reset.reason = reason;
	cb(arg, &rec);
	rd->st.resets++;
	rd->anchor_ok = false;
	rd->held = 0;
	rd->st.held = 0;
	rd->pend.active = false;
	rd->why = TT_TXY_RESET;
	rd->sync_busy = 0;
	rd->nmissing = 0;
	rd->missing_next = 0;
}

int tt_tx_ingest_header(struct tt_threadx *rd)
{
	struct tt_txlayout l;
	int rc = tt_tx_header_parse(rd, &l);
	if (rc < 0)
		return rc;
	rc = tt_tx_accept(rd, &l);
	if (rc < 0)
		return rc;
	rd->err[0] = 0;
	tt_tx_time_reset(rd);
	rd->state = l.nreg ? TT_TXS_REGISTRY : TT_TXS_SYNC;
	rd->reg_fresh = true;
	rd->reg_early = true;
	return TT_THREADX_MORE;
}

/* Reads a current pointer word into a slot index. Returns 0 or -EPROTO with rd->err set. */
int tt_tx_cur_index(struct tt_threadx *rd, const uint8_t *buf, uint32_t *idx)
{
	uint32_t cur = tt_tx_ld32(rd, buf);
	const struct tt_txlayout *l = &rd->lay;
	uint64_t used_end = (uint64_t)l->ent_start + (uint64_t)l->nent * TT_THREADX_ENTRY_SIZE;
	if (cur < l->ent_start || cur >= used_end || (cur - l->ent_start) % TT_THREADX_ENTRY_SIZE) {
		tt_tx_err(rd, "current pointer 0x%08" PRIx32 " is not a 32-byte entry in entries "
			  "[0x%08" PRIx32 ", 0x%08" PRIx64 ")", cur, l->ent_start, used_end);
		rd->force_header = true;
		rd->state = TT_TXS_POLL_CUR;
		return -EPROTO;
	}
	*idx = (cur - l->ent_start) / TT_THREADX_ENTRY_SIZE;
	return 0;
}


/* ---- static images ------------------------------------------------------------------------ */

int tt_threadx_decode_image(const uint8_t *img, size_t len, uint64_t base, size_t header_offset,
			    const struct tt_threadx_config *cfg, tt_emit_cb cb, void *arg,
			    char *errbuf, size_t errlen)
{
	return tt_threadx_image_run(img, len, base, header_offset, cfg, cb, arg, NULL, NULL, errbuf,
				    errlen);
}

int tt_threadx_image_run(const uint8_t *img, size_t len, uint64_t base, size_t header_offset,
			 const struct tt_threadx_config *cfg, tt_emit_cb cb, void *arg,
			 void (*done)(const struct tt_threadx *rd, void *darg), void *darg,
			 char *errbuf, size_t errlen)
{
	struct tt_threadx_config c = cfg ? *cfg : (struct tt_threadx_config){ 0 };
	struct tt_threadx *rd;
	c.header_addr = base + header_offset;
	c.static_image = true;
	c.start_at_now = false;
	int rc = tt_threadx_new(&c, &rd);
	if (rc < 0) {
		snprintf(errbuf, errlen, "bad image base 0x%" PRIx64 " + header offset %zu", base,
			 header_offset);
		return rc;
	}
	/* header, registry, sync: a handful of steps; the bound only guards against a bug */
	for (int step = 0; step < 16; step++) {
		struct tt_plan p;
		tt_threadx_plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++) {
			uint64_t off = p.r[i].addr - base;
			if (p.r[i].addr < base || off > len || p.r[i].len > len - off) {
				snprintf(errbuf, errlen, "ThreadX header at 0x%08" PRIx64 ": image of %zu "
					 "bytes ends before bytes 0x%08" PRIx64 "..0x%08" PRIx64
					 " the header declares (truncated image?)", c.header_addr, len,
					 p.r[i].addr, p.r[i].addr + p.r[i].len);
				tt_threadx_free(rd);
				return -EPROTO;
			}
			memcpy(p.r[i].dst, img + off, p.r[i].len);
		}
		rc = tt_threadx_ingest(rd, cb, arg);
		if (rc < 0 || (rc == TT_THREADX_DONE && rd->state == TT_TXS_POLL_CUR)) {
			snprintf(errbuf, errlen, "%s", rc < 0 ? rd->err : "");
			if (rc >= 0 && done)
				done(rd, darg);
			tt_threadx_free(rd);
			return rc < 0 ? rc : 0;
		}
	}
	snprintf(errbuf, errlen, "ThreadX image did not settle (reader bug)");
	tt_threadx_free(rd);
	return -EPROTO;
}
