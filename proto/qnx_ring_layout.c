/* proto/qnx_ring_layout.c: the layout of QNX's kernel trace buffers (`tracebuf_t`, QNX 6.4's
 * sys/trace.h, kept by later releases) and its `--format-opt` keys. Where each header field is
 * follows from the target's pointer size: { baseaddr, next } pointers, then four 32-bit words
 * (flags, num_events, seq_buff_num, ls13_rb_num), a 4-byte intrspin, then { begin_ptr, tail_ptr }
 * pointers aligned to their size, reserved[31], the whole aligned to the pointer size: 160 bytes
 * with 4-byte pointers, 184 with 8-byte ones.
 */
#include "qnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_MAX_BUF_SIZE (1u << 20)

void tt_qnx_layout_geom(const struct tt_qnx_layout *lo, struct tt_qnx_geom *g)
{
	uint32_t p = lo->ptr_size == 8 ? 8 : 4;
	uint32_t begin = (2 * p + 5 * 4 + p - 1) / p * p; /* after base, next, 4 words, spin */
	uint32_t natural = (begin + 2 * p + 31 * 4 + p - 1) / p * p;

	*g = (struct tt_qnx_geom){
		.off_base = 0, .off_next = p, .off_flags = 2 * p, .off_num = 2 * p + 4,
		.off_seq = 2 * p + 8, .off_ls13 = 2 * p + 12, .off_begin = begin,
		.off_tail = begin + p, .ptr_size = p, .read_size = begin + p,
	};
	g->header_size = lo->header_size ? lo->header_size : natural;
	g->slots = lo->buf_size > g->header_size ? (lo->buf_size - g->header_size) / 16 : 0;
	g->hand_on = lo->hand_on ? lo->hand_on
				 : g->slots > TT_QNX_BUFEMPTY ? g->slots - TT_QNX_BUFEMPTY : g->slots;
}

void tt_qnx_layout_default(struct tt_qnx_layout *lo)
{
	*lo = (struct tt_qnx_layout){ .buf_size = 16384, .ptr_size = 4, .ver_major = 7 };
}

int tt_qnx_layout_set(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		unsigned long min, max;
	} keys[] = {
		{ "nbufs", 2, TT_QNX_RING_MAX_BUFS }, { "buf_size", 64, RING_MAX_BUF_SIZE },
		{ "header_size", 0, RING_MAX_BUF_SIZE }, { "hand_on", 1, RING_MAX_BUF_SIZE / 16 },
		{ "version", 6, 8 },
	};
	struct tt_qnx_layout *lo = cfg;
	unsigned long v;
	char *end;

	if (!strcmp(key, "endian") || !strcmp(key, "pointer")) {
		bool e = key[0] == 'e';
		if (e ? strcmp(value, "little") && strcmp(value, "big")
		      : strcmp(value, "32") && strcmp(value, "64")) {
			snprintf(err, errlen, "qnx option %s='%s': expected %s", key, value,
				 e ? "little or big" : "32 or 64");
			return -EINVAL;
		}
		if (e)
			lo->big_endian = value[0] == 'b';
		else
			lo->ptr_size = value[0] == '6' ? 8 : 4;
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].key))
			continue;
		errno = 0;
		v = strtoul(value, &end, 0);
		if (!*value || *value == '-' || errno || *end || v < keys[i].min || v > keys[i].max) {
			snprintf(err, errlen, "qnx option %s='%s': expected a number from %lu to %lu",
				 key, value, keys[i].min, keys[i].max);
			return -EINVAL;
		}
		uint32_t *f[] = { &lo->nbufs, &lo->buf_size, &lo->header_size, &lo->hand_on,
				  &lo->ver_major };
		*f[i] = (uint32_t)v;
		return 0;
	}
	snprintf(err, errlen, "qnx has no option '%s' (options: pointer, buf_size, header_size, "
		 "hand_on, nbufs, endian, version)", key);
	return -EINVAL;
}

int tt_qnx_layout_check(const struct tt_qnx_layout *lo, const char **why)
{
	struct tt_qnx_geom g;

	tt_qnx_layout_geom(lo, &g);
	if (lo->nbufs == 1 || lo->nbufs > TT_QNX_RING_MAX_BUFS)
		*why = "qnx layout: nbufs must be 2 to 1024 (or 0: from the next links)";
	else if (lo->ptr_size != 4 && lo->ptr_size != 8)
		*why = "qnx layout: pointer must be 32 or 64";
	else if (lo->buf_size > RING_MAX_BUF_SIZE || (lo->buf_size & 3))
		*why = "qnx layout: buf_size must be a multiple of 4, at most 1 MiB";
	else if ((g.header_size & 3) || g.header_size < g.read_size)
		*why = "qnx layout: header_size must be a multiple of 4 that holds the header's "
		       "fields up to begin_ptr";
	else if (g.slots < 4)
		*why = "qnx layout: header_size leaves room for fewer than 4 events in buf_size";
	else if (g.hand_on > g.slots)
		*why = "qnx layout: hand_on is more than the slots of a buffer";
	else
		return 0;
	return -EINVAL;
}
