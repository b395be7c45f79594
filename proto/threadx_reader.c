/* proto/threadx_reader.c: the ThreadX reader behind the generic interface of reader.h. */
#include <errno.h>
#include <stdio.h>

#include "reader.h"
#include "threadx.h"

static int tx_create(const struct tt_reader_config *cfg, void **out)
{
	struct tt_threadx_config c = {
		.header_addr = cfg->address,
		.start_at_now = cfg->start_at_now,
		.tick_hz = cfg->tick_hz,
		.time_wrap = cfg->time_wrap,
		.time_dir = cfg->time_dir,
		.oldest_when_still = cfg->file_source,
		.host_clock_unrelated = cfg->file_source,
		.since_enable = cfg->since_enable,
		.since_enable_ns = cfg->since_enable_ns,
		.ptr_ranges = cfg->ptr_ranges,
	};
	return tt_threadx_new(&c, (struct tt_threadx **)out);
}

static void tx_destroy(void *rd)
{
	tt_threadx_free(rd);
}

static void tx_plan(void *rd, struct tt_plan *plan)
{
	tt_threadx_plan(rd, plan);
}

static int tx_ingest(void *rd, tt_emit_cb cb, void *arg)
{
	return tt_threadx_ingest(rd, cb, arg);
}

static void tx_read_failed(void *rd, int err)
{
	tt_threadx_read_failed(rd, err);
}

static void tx_set_host_time(void *rd, uint64_t ns)
{
	tt_threadx_set_host_time(rd, ns);
}

static const char *tx_error(const void *rd)
{
	return tt_threadx_error(rd);
}

static void tx_stats(const void *rd, struct tt_reader_stats *out)
{
	const struct tt_threadx_stats *s = tt_threadx_stats(rd);

	*out = (struct tt_reader_stats){
		.polls = s->polls, .bytes_planned = s->bytes_planned, .events = s->events,
		.gaps = s->gaps, .lost = s->lost, .resets = s->resets, .last_new = s->last_new,
		.capacity = s->capacity, .skipped = s->history_skipped, .held = s->held,
	};
}

static uint32_t word_at(const uint8_t *p, int be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* A .trx starts with the header, whose base field is the address it was at. */
uint64_t tt_threadx_file_base(const uint8_t *head, size_t len)
{
	return len >= 12 ? word_at(head + 8, word_at(head, 1) == TT_THREADX_ID) : 0;
}

/* Without an address the header is the image's first byte (a .trx); without a base, the
 * header's own base field says where the image lived in target memory. */
int tt_threadx_image_locate(const uint8_t *img, size_t len, uint64_t *base, uint64_t cfg_address,
			    size_t *offset, char *err, size_t errlen)
{
	uint64_t hdr = cfg_address;

	if (!hdr && !*base)
		*base = tt_threadx_file_base(img, len);
	if (!hdr)
		hdr = *base;
	if (hdr < *base || hdr - *base >= len) {
		snprintf(err, errlen, "ThreadX header address 0x%llx is outside the image "
			 "[0x%llx, 0x%llx)", (unsigned long long)hdr, (unsigned long long)*base,
			 (unsigned long long)(*base + len));
		return -EPROTO;
	}
	*offset = (size_t)(hdr - *base);
	return 0;
}

static int tx_decode_image(const uint8_t *img, size_t len, uint64_t base,
			   const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
			   size_t errlen)
{
	struct tt_threadx_config c = {
		.tick_hz = cfg->tick_hz,
		.time_wrap = cfg->time_wrap,
		.time_dir = cfg->time_dir,
	};
	size_t off;
	int rc = tt_threadx_image_locate(img, len, &base, cfg->address, &off, err, errlen);

	return rc < 0 ? rc : tt_threadx_decode_image(img, len, base, off, &c, cb, arg, err, errlen);
}

static bool tx_detect(const uint8_t *head, size_t len)
{
	return len >= TT_THREADX_HEADER_SIZE &&
	       (word_at(head, 0) == TT_THREADX_ID || word_at(head, 1) == TT_THREADX_ID);
}

const struct tt_reader_ops tt_threadx_reader = {
	.name = "threadx",
	.elf_symbol = "_tx_trace_header_ptr",
	.elf_symbol_is_pointer = true,
	.create = tx_create,
	.destroy = tx_destroy,
	.plan = tx_plan,
	.ingest = tx_ingest,
	.read_failed = tx_read_failed,
	.error = tx_error,
	.stats = tx_stats,
	.set_host_time = tx_set_host_time,
	.detect = tx_detect,
	.file_base = tt_threadx_file_base,
	.decode_image = tx_decode_image,
	.analysis = &tt_threadx_analysis,
};
