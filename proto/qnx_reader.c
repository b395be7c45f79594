/* proto/qnx_reader.c: the QNX reader behind the generic interface of reader.h: `.kev` files,
 * and the kernel's ring of trace buffers in target memory (live, or a RAM image with --address),
 * with the ring layout of format_cfg (struct tt_qnx_layout; README-qnx.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qnx.h"
#include "reader.h"

static const struct tt_qnx_layout *layout_of(const struct tt_reader_config *cfg,
					     struct tt_qnx_layout *def)
{
	if (cfg->format_cfg)
		return cfg->format_cfg;
	tt_qnx_layout_default(def);
	return def;
}

/* A live QNX reader: the kernel's ring in target memory, or a .kev file followed while it is
 * written (cfg->stream). */
struct qr {
	struct tt_qnx_ring *ring;
	struct tt_qnx_kev *kev;
};

static int qr_create(const struct tt_reader_config *cfg, void **out)
{
	struct tt_qnx_layout def;
	struct qr *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return -ENOMEM;
	if (cfg->stream)
		rc = tt_qnx_kev_new(cfg->stream, cfg->tick_hz, &q->kev);
	else
		rc = tt_qnx_ring_new(layout_of(cfg, &def), cfg->address, cfg->start_at_now,
				     cfg->tick_hz, &q->ring, NULL);
	if (rc < 0) {
		free(q);
		return rc;
	}
	*out = q;
	return 0;
}

static void qr_destroy(void *rd)
{
	struct qr *q = rd;

	tt_qnx_ring_free(q->ring);
	tt_qnx_kev_free(q->kev);
	free(q);
}

static void qr_plan(void *rd, struct tt_plan *plan)
{
	struct qr *q = rd;

	if (q->kev)
		tt_qnx_kev_plan(q->kev, plan);
	else
		tt_qnx_ring_plan(q->ring, plan);
}

static int qr_ingest(void *rd, tt_emit_cb cb, void *arg)
{
	struct qr *q = rd;

	return q->kev ? tt_qnx_kev_ingest(q->kev, cb, arg) : tt_qnx_ring_ingest(q->ring, cb, arg);
}

static void qr_read_failed(void *rd, int err)
{
	struct qr *q = rd;

	if (q->kev)
		tt_qnx_kev_read_failed(q->kev, err);
	else
		tt_qnx_ring_read_failed(q->ring, err);
}

static const char *qr_error(const void *rd)
{
	const struct qr *q = rd;

	return q->kev ? tt_qnx_kev_error(q->kev) : tt_qnx_ring_error(q->ring);
}

static void qr_stats(const void *rd, struct tt_reader_stats *out)
{
	const struct qr *q = rd;

	if (q->kev)
		tt_qnx_kev_stats(q->kev, out);
	else
		tt_qnx_ring_stats(q->ring, out);
}

static const uint8_t *qr_stream_header(void *rd, size_t *len)
{
	struct qr *q = rd;

	*len = 0;
	return q->kev ? tt_qnx_kev_new_header(q->kev, len) : NULL;
}

static void qr_finish(void *rd, tt_emit_cb cb, void *arg)
{
	struct qr *q = rd;

	if (q->kev)
		tt_qnx_kev_finish(q->kev, cb, arg);
	else
		tt_qnx_ring_finish(q->ring, cb, arg);
}

/* traceprinter's lines of a ring image: the layout's byte order and release */
static void qr_native_ctx(const void *cfg, struct tt_native_ctx *ctx)
{
	const struct tt_qnx_layout *lo = cfg;

	ctx->big_endian = lo && lo->big_endian;
	ctx->release = lo ? lo->ver_major : 0;
}

/* kev:PATH takes the QNX format and nothing that locates a buffer in target memory. */
static int qr_stream_check(const char *spec, const char *format, bool locating, char *err,
			   size_t errlen)
{
	const char *path = strchr(spec, ':');

	if (!path || !path[1]) {
		snprintf(err, errlen, "kev: needs a path (kev:/path/to/trace.kev)");
		return -EINVAL;
	}
	if (format && strcmp(format, "qnx")) {
		snprintf(err, errlen, "%s: a .kev file is QNX's format, not %s", spec, format);
		return -EINVAL;
	}
	if (locating) {
		snprintf(err, errlen, "%s: a .kev file carries its own header: --address, "
			 "--pointer, --elf, --start-at-now and --format-opt do not apply", spec);
		return -EINVAL;
	}
	return 0;
}

/* A RAM image holding the ring at cfg->address: one poll cycle of the live reader over it. */
static int ring_image(const uint8_t *img, size_t len, uint64_t base,
		      const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
		      size_t errlen)
{
	struct tt_qnx_layout def;
	const struct tt_qnx_layout *lo = layout_of(cfg, &def);
	struct tt_qnx_ring *r;
	const char *why = "out of memory";
	struct tt_plan p;
	int rc = tt_qnx_ring_new(lo, cfg->address, false, cfg->tick_hz, &r, &why);

	if (rc < 0) {
		snprintf(err, errlen, "%s", why);
		return rc;
	}
	/* Two poll cycles: the first follows the links, scans and reads every buffer; the
	 * second takes the last counted slot once it reads the same (the kernel counts an event
	 * before writing it). A cycle moves through at most nbufs + 1 buffers: 4 steps per
	 * buffer bound it. */
	unsigned cycles = 0;
	for (unsigned steps = 0; steps < 8 * TT_QNX_RING_MAX_BUFS + 64; steps++) {
		tt_qnx_ring_plan(r, &p);
		for (unsigned i = 0; i < p.n; i++) {
			if (p.r[i].addr < base || p.r[i].addr - base > len ||
			    len - (p.r[i].addr - base) < p.r[i].len) {
				snprintf(err, errlen, "qnx ring: [0x%llx, +%u) is outside the image "
					 "[0x%llx, 0x%llx) (wrong --address, --base or buf_size?)",
					 (unsigned long long)p.r[i].addr, p.r[i].len,
					 (unsigned long long)base, (unsigned long long)(base + len));
				tt_qnx_ring_free(r);
				return -EPROTO;
			}
			memcpy(p.r[i].dst, img + (p.r[i].addr - base), p.r[i].len);
		}
		rc = tt_qnx_ring_ingest(r, cb, arg);
		if (rc == TT_READER_MORE || (rc == TT_READER_DONE && ++cycles < 2))
			continue;
		if (rc < 0)
			snprintf(err, errlen, "%s", tt_qnx_ring_error(r));
		else
			tt_qnx_ring_finish(r, cb, arg);
		break;
	}
	tt_qnx_ring_free(r);
	return rc < 0 ? rc : 0;
}

/* A .kev file starts with its attribute header. */
static bool qnx_detect(const uint8_t *head, size_t len)
{
	static const char magic[] = "TRACE_HEADER_BEGIN::";
	return len >= sizeof(magic) - 1 && !memcmp(head, magic, sizeof(magic) - 1);
}

/* A .kev file (cfg->address 0: base is not used, a .kev carries no target addresses), or a RAM
 * image of the ring at cfg->address. --tick-hz overrides the file's TRACE_CYCLES_PER_SEC. */
static int qnx_decode_image(const uint8_t *img, size_t len, uint64_t base,
			    const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
			    size_t errlen)
{
	if (cfg->address && qnx_detect(img, len)) {
		snprintf(err, errlen, "--address does not apply to QNX .kev files (the events "
			 "follow the file's own header; --address is for RAM images of the ring)");
		return -EINVAL;
	}
	if (cfg->address)
		return ring_image(img, len, base, cfg, cb, arg, err, errlen);
	return tt_qnx_decode_file(img, len, cfg->tick_hz, cb, arg, NULL, err, errlen);
}

static void qr_cfg_init(void *cfg)
{
	tt_qnx_layout_default(cfg);
}

static int qr_cfg_check(const void *cfg, const char **why)
{
	return tt_qnx_layout_check(cfg, why);
}

const struct tt_reader_ops tt_qnx_reader = {
	.name = "qnx",
	.no_address_hint = "give --address, the first buffer of the kernel's trace ring (a .kev "
			   "file is followed by `tracetap decode --follow`)",
	.stream_scheme = "kev",
	.stream_check = qr_stream_check,
	.stream_header = qr_stream_header,
	.finish = qr_finish,
	.create = qr_create,
	.destroy = qr_destroy,
	.plan = qr_plan,
	.ingest = qr_ingest,
	.read_failed = qr_read_failed,
	.error = qr_error,
	.stats = qr_stats,
	.detect = qnx_detect,
	.decode_image = qnx_decode_image,
	.cfg_size = sizeof(struct tt_qnx_layout),
	.cfg_init = qr_cfg_init,
	.cfg_set = tt_qnx_layout_set,
	.cfg_check = qr_cfg_check,
	.cfg_help = TT_QNX_LAYOUT_HELP,
	.native_line = tt_qnx_tp_line,
	.native_header = tt_qnx_tp_header,
	.native_ctx = qr_native_ctx,
	.analysis = &tt_qnx_analysis,
};
