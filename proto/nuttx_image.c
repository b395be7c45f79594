/* proto/nuttx_image.c: NuttX notes in a file: a RAM image holding g_noteram_driver and its ring
 * (tail to head, tasks named from the TCBs or NuttX's name cache when the image holds them), or
 * a record stream (`trace dump -b`: the notes back to back); and the "nuttx" entry of reader.h.
 * README-nuttx.md, "Images".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nuttx_int.h"
#include "reader.h"

/* A stream has no magic number: beyond each record's length, what only a NuttX stream holds
 * (a pid that is not negative, and, on one CPU with a time that does not wrap, times that never
 * go back; note types of the release: see decode_stream) tells it from other bytes. 0, or
 * -EPROTO with why. */
static int stream_plausible(const struct nx_dec *d, const uint8_t *p, bool *have_time,
			    uint64_t *last, char *why, size_t wl)
{
	const struct nx_lay *l = &d->lay;
	uint64_t t = nx_rec_time(d, p);

	if (nx_rec_pid(l, p) < 0) {
		snprintf(why, wl, "pid %d is negative", (int)nx_rec_pid(l, p));
		return -EPROTO;
	}
	if (!l->smp && (l->time_size == 8 || l->off_nsec) && *have_time && t < *last) {
		snprintf(why, wl, "time %llu is before the previous note's %llu (notes are in time "
			 "order)", (unsigned long long)t, (unsigned long long)*last);
		return -EPROTO;
	}
	*have_time = true;
	*last = t;
	return 0;
}

static int decode_stream(struct nx_dec *d, const uint8_t *img, size_t len, uint64_t base,
			 tt_emit_cb cb, void *arg, char *err, size_t errlen)
{
	char why[160];
	size_t o = 0, notes = 0, unknown = 0, first_unknown = 0;
	bool have_time = false;
	uint64_t last = 0;

	while (o < len && img[o]) {
		if (nx_rec_check(&d->lay, img + o, len - o, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "bad note at file offset %zu: %s", o, why);
			/* the file ends inside a whole-looking note: cut short, not garbage */
			return img[o] > len - o && img[o] >= d->lay.hdr ? -ENODATA : -EPROTO;
		}
		if (stream_plausible(d, img + o, &have_time, &last, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "bad note at file offset %zu: %s", o, why);
			return -EPROTO;
		}
		notes++;
		if (!tt_nuttx_type_name(d->lay.release, img[o + 1]) && !unknown++)
			first_unknown = o;
		nx_emit_record(d, img + o, base ? base + o : 0, cb, arg);
		/* Records back to back as NuttX's binary read mode returns them (noteram_get: one
		 * note of nc_length bytes per read, no padding: `trace dump -b`), or padded to the
		 * ring alignment: the padded position is taken only when the packed one cannot
		 * start a record (a length byte below the header size) and the padded one can. */
		size_t packed = o + img[o], padded = o + nx_alignup(img[o], d->lay.align);
		o = packed;
		if (padded != packed && packed < len && img[packed] < d->lay.hdr && padded < len &&
		    img[padded] >= d->lay.hdr)
			o = padded;
	}
	/* the notes end at the file's end or at a zero length byte: zeros after it are padding,
	 * anything else means the bytes were never a stream of notes */
	for (size_t z = o; z < len; z++)
		if (img[z]) {
			snprintf(err, errlen, "the notes end at file offset %zu (a zero length byte) "
				 "but byte %zu is 0x%02x, not padding", o, z, img[z]);
			return -EPROTO;
		}
	/* a note type the release does not have now and then (a newer driver) is shown as
	 * UNKNOWN; a stream of them is not NuttX's (random bytes: 7 in 8) */
	if (unknown * 4 > notes) {
		snprintf(err, errlen, "%zu of %zu notes have a type NuttX %u.%u does not have (the "
			 "first at file offset %zu: type %u; another release: --format-opt release=)",
			 unknown, notes, d->lay.release / 100, d->lay.release % 100, first_unknown,
			 img[first_unknown + 1]);
		return -EPROTO;
	}
	return 0;
}

/* The control words of the driver at driver_addr, inside the image (checked by the caller). */
static void img_ctl(const struct nx_lay *l, const uint8_t *img, size_t len, uint64_t base,
		    uint64_t driver_addr, struct ctlw *w)
{
	const uint8_t *c = img + (driver_addr - base);

	(void)len;
	w->buf = l->bytes ? driver_addr + l->off_buffer : nx_get(l, c + l->off_buffer, l->ptr);
	w->size = l->bytes ? l->bufsize : nx_get(l, c + l->off_bufsize, l->ptr);
	w->head = (uint32_t)nx_get(l, c + l->off_head, 4);
	w->tail = (uint32_t)nx_get(l, c + l->off_tail, 4);
}

static bool img_driver_inside(const struct nx_lay *l, size_t len, uint64_t base,
			      uint64_t driver_addr)
{
	return driver_addr >= base && driver_addr - base <= len &&
	       len - (driver_addr - base) >= (uint64_t)l->ctl_lo + l->ctl_len;
}

static bool img_ring_inside(const struct nx_lay *l, size_t len, uint64_t base,
			    const struct ctlw *w)
{
	return w->size >= 2u * l->hdr && w->size <= UINT32_MAX / 2 && w->buf >= base &&
	       w->buf - base <= len && len - (w->buf - base) >= w->size;
}

bool tt_nuttx_image_holds_ring(const uint8_t *img, size_t len, uint64_t base,
			       uint64_t driver_addr, const struct tt_nuttx_layout *lo)
{
	struct nx_lay l;
	struct ctlw w;
	const char *why;

	if (nx_lay_resolve(lo, &l, &why) < 0 || !img_driver_inside(&l, len, base, driver_addr))
		return false;
	img_ctl(&l, img, len, base, driver_addr, &w);
	return img_ring_inside(&l, len, base, &w) && w.head < w.size && w.tail < w.size;
}

int tt_nuttx_decode_image(const uint8_t *img, size_t len, uint64_t base, uint64_t driver_addr,
			  const struct tt_nuttx_layout *lo, uint64_t tick_hz, tt_emit_cb cb,
			  void *arg, char *err, size_t errlen)
{
	struct nx_dec d;
	const struct nx_lay *l = &d.lay;
	const char *why = NULL;
	uint8_t rec[NX_MAX_REC];
	char msg[160];

	memset(&d, 0, sizeof(d));
	if (tt_nuttx_layout_check(lo, &why) < 0 || nx_lay_resolve(lo, &d.lay, &why) < 0) {
		snprintf(err, errlen, "NuttX layout: %s", why);
		return -EINVAL;
	}
	d.tick_hz = tick_hz;
	nx_use_syscalls(&d, lo, NULL);
	nx_dec_reset(&d);
	if (!driver_addr)
		return decode_stream(&d, img, len, base, cb, arg, err, errlen);
	if (!img_driver_inside(l, len, base, driver_addr)) {
		snprintf(err, errlen, "g_noteram_driver at 0x%llx is outside the image [0x%llx, "
			 "0x%llx)", (unsigned long long)driver_addr, (unsigned long long)base,
			 (unsigned long long)(base + len));
		return -EPROTO;
	}
	struct ctlw w;
	img_ctl(l, img, len, base, driver_addr, &w);
	uint64_t buf = w.buf, size = w.size;
	uint32_t head = w.head, tail = w.tail;
	if (!img_ring_inside(l, len, base, &w)) {
		snprintf(err, errlen, "noteram ring at 0x%llx (ni_bufsize %llu) is not inside the "
			 "image [0x%llx, 0x%llx) (wrong --address, --base or layout?)",
			 (unsigned long long)buf, (unsigned long long)size,
			 (unsigned long long)base, (unsigned long long)(base + len));
		return -EPROTO;
	}
	if (head >= size || tail >= size) {
		snprintf(err, errlen, "noteram ni_head %u / ni_tail %u outside the %llu-byte ring "
			 "(wrong layout offsets?)", head, tail, (unsigned long long)size);
		return -EPROTO;
	}
	const uint8_t *ring = img + (buf - base);
	uint32_t n = (uint32_t)size, off = tail, left = nx_dist(tail, head, n);
	while (left) {
		uint32_t avail = left < NX_MAX_REC ? left : NX_MAX_REC;
		for (uint32_t i = 0; i < avail; i++)
			rec[i] = ring[(off + i) % n];
		if (nx_rec_check(l, rec, avail, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "bad note at 0x%llx (ring offset %u): %s",
				 (unsigned long long)(buf + off), off, msg);
			return -EPROTO;
		}
		int32_t pid = nx_rec_pid(l, rec);
		char name[NX_NAME_MAX];
		if ((lo->pidhash_addr || lo->taskname_addr) && !nx_name_known(&d, pid))
			nx_set_name(&d, pid, nx_img_name(l, lo, img, len, base, pid, name));
		nx_emit_record(&d, rec, buf + off, cb, arg);
		uint32_t step = nx_alignup(rec[0], l->align);
		if (step > left)
			break;
		left -= step;
		off = (off + step) % n;
	}
	return 0;
}

/* ---- reader.h glue: format_cfg is a struct tt_nuttx_layout, or NULL for the default ---- */

static const struct tt_nuttx_layout *layout_of(const struct tt_reader_config *cfg,
					       struct tt_nuttx_layout *def)
{
	if (cfg->format_cfg)
		return cfg->format_cfg;
	tt_nuttx_layout_default(def, 4);
	return def;
}

static int nr_create(const struct tt_reader_config *cfg, void **out)
{
	struct tt_nuttx_layout def;
	struct tt_nuttx_config c = {
		.driver_addr = cfg->address,
		.layout = *layout_of(cfg, &def),
		.start_at_now = cfg->start_at_now,
		.tick_hz = cfg->tick_hz,
		.host_clock_unrelated = cfg->file_source,
		.ptr_ranges = cfg->ptr_ranges,
	};
	return tt_nuttx_new(&c, (struct tt_nuttx **)out, NULL);
}

static void nr_set_host_time(void *rd, uint64_t ns)
{
	tt_nuttx_set_host_time(rd, ns);
}

static void nr_destroy(void *rd)
{
	tt_nuttx_free(rd);
}

static void nr_plan(void *rd, struct tt_plan *plan)
{
	tt_nuttx_plan(rd, plan);
}

static int nr_ingest(void *rd, tt_emit_cb cb, void *arg)
{
	return tt_nuttx_ingest(rd, cb, arg);
}

static void nr_read_failed(void *rd, int err)
{
	tt_nuttx_read_failed(rd, err);
}

static const char *nr_error(const void *rd)
{
	return tt_nuttx_error(rd);
}

static void nr_stats(const void *rd, struct tt_reader_stats *out)
{
	const struct tt_nuttx_stats *s = tt_nuttx_stats(rd);

	*out = (struct tt_reader_stats){
		.polls = s->polls, .bytes_planned = s->bytes_planned, .events = s->events,
		.gaps = s->gaps, .lost = s->lost, .resets = s->resets, .last_new = s->last_new,
		.capacity = s->capacity,
	};
}

static int nr_decode_image(const uint8_t *img, size_t len, uint64_t base,
			   const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
			   size_t errlen)
{
	struct tt_nuttx_layout def;

	return tt_nuttx_decode_image(img, len, base, cfg->address, layout_of(cfg, &def),
				     cfg->tick_hz, cb, arg, err, errlen);
}

static int nr_cfg_check(const void *cfg, const char **why)
{
	return tt_nuttx_layout_check(cfg, why);
}

static void nr_cfg_init(void *cfg)
{
	tt_nuttx_layout_default(cfg, 4);
}

static const char *nr_elf_symbol(const void *cfg)
{
	return tt_nuttx_elf_symbol(cfg);
}

static bool nr_image_holds(const uint8_t *img, size_t len, uint64_t base, uint64_t addr,
			   const void *cfg)
{
	return tt_nuttx_image_holds_ring(img, len, base, addr, cfg);
}

static void nr_cfg_describe(const void *cfg, const char *source, char *buf, size_t len)
{
	const struct tt_nuttx_layout *lo = cfg;
	int n = snprintf(buf, len, "NuttX layout%s%s: release family %u, %u-bit, %s%s, header %u "
			 "bytes, ni_buffer/bufsize/head/tail at %u/%u/%u/%u", source ? " from " : "",
			 source ? source : "", lo->release, lo->ptr_size * 8u,
			 lo->big_endian ? "big-endian" : "little-endian", lo->smp ? ", SMP" : "",
			 lo->header_size, lo->off_buffer, lo->off_bufsize, lo->off_head,
			 lo->off_tail);

	if (lo->pidhash_addr && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "\nNuttX task names from the target: g_pidhash "
			 "at 0x%llx, g_npidhash at 0x%llx, tcb_s pid at %u, name[%u] at %u",
			 (unsigned long long)lo->pidhash_addr,
			 (unsigned long long)lo->npidhash_addr, lo->tcb_off_pid, lo->tcb_name_size,
			 lo->tcb_off_name);
	n = (int)strlen(buf);
	if (lo->pidhash_addr && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "\nNuttX painted stacks: %s",
			 !lo->tcb_off_stack_base || !lo->tcb_off_stack_size
			 ? "none (no stack_base_ptr / adj_stack_size in the layout)"
			 : !lo->stack_color ? "none (STACK_COLOR not known for this architecture: "
					      "give stack_color)" : "");
	n = (int)strlen(buf);
	if (lo->pidhash_addr && lo->tcb_off_stack_base && lo->tcb_off_stack_size &&
	    lo->stack_color && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "tcb_s stack_base_ptr at %u, adj_stack_size at "
			 "%u, colour 0x%08x", lo->tcb_off_stack_base, lo->tcb_off_stack_size,
			 (unsigned)lo->stack_color);
}

const struct tt_reader_ops tt_nuttx_reader = {
	.name = "nuttx",
	.elf_symbol = "g_noteram_driver",
	.elf_symbol_is_pointer = false,
	.elf_symbol_for = nr_elf_symbol,
	.image_holds = nr_image_holds,
	.cfg_describe = nr_cfg_describe,
	.create = nr_create,
	.destroy = nr_destroy,
	.plan = nr_plan,
	.ingest = nr_ingest,
	.set_host_time = nr_set_host_time,
	.read_failed = nr_read_failed,
	.error = nr_error,
	.stats = nr_stats,
	.decode_image = nr_decode_image,
	.cfg_size = sizeof(struct tt_nuttx_layout),
	.cfg_init = nr_cfg_init,
	.cfg_set = tt_nuttx_layout_set,
	.cfg_check = nr_cfg_check,
	.cfg_help = TT_NUTTX_LAYOUT_HELP,
	.cfg_from_fw = tt_nuttx_cfg_from_fw,
	.cfg_free = tt_nuttx_cfg_free,
	.layout_write = tt_nuttx_layout_write,
	.layout_load = tt_nuttx_layout_load,
	.analysis = &tt_nuttx_analysis,
};
