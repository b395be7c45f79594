/* proto/plan.h: the read plan a sans-I/O reader hands to whoever owns the probe.
 *
 * A reader alternates plan ("read these target ranges, into these buffers") and ingest ("the
 * buffers are filled"). Destination buffers belong to the reader; the probe writes exactly len
 * bytes into each dst, in the order given, and reads them in that order (later ranges are used to
 * re-check what earlier ones saw, so order matters).
 */
#ifndef TT_PLAN_H
#define TT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#define TT_PLAN_MAX 8

/* A file read while it is being written (a `kev:PATH` source: byte i of the file at address i)
 * also answers a read of TT_PLAN_FILE_STAT_LEN bytes at TT_PLAN_FILE_STAT: the file's length,
 * then its generation, each a little-endian uint64. The generation changes when another file
 * (another inode) is at the path; both are 0 while there is no file. */
#define TT_PLAN_FILE_STAT UINT64_C(0xffffffffffffffe0)
#define TT_PLAN_FILE_STAT_LEN 16

/* Writes the answer at TT_PLAN_FILE_STAT (for the sources that give it). */
static inline void tt_plan_file_stat_put(uint8_t *dst, uint64_t length, uint64_t generation)
{
	for (unsigned b = 0; b < 8; b++) {
		dst[b] = (uint8_t)(length >> (8 * b));
		dst[8 + b] = (uint8_t)(generation >> (8 * b));
	}
}

/* A range is fixed (addr, len) or, with kind TT_RANGE_TO_PTR, the new bytes of a ring up to a
 * write pointer that an earlier range of the same plan read: [addr, addr + len) is the ring,
 * the pointer the 4-byte word at byte ptr_off of range ptr_range (fixed, earlier in the plan),
 * in the byte order ptr_big says. Its end offset e = pointer - ptr_base must lie in [0, len) and
 * be a multiple of align, else the range reads nothing; otherwise it reads the ring from offset
 * from up to e, going round at len (nothing when e == from), at most max bytes (a multiple of
 * align): tt_range_ptr_span says how many, from the pointer's bytes, for the reader and the
 * probe alike. A ring byte at offset o goes to dst[o] (a mirror of the ring, len bytes), or with
 * dst_linear to dst[k] for the k-th byte read. It lets a probe that can (OpenOCD: one TCL
 * command) read a pointer and what it points to without a round trip between them; every
 * probe reads them in plan order. A reader plans one only when told the caller resolves them
 * (tt_reader_config.ptr_ranges). */
enum tt_range_kind { TT_RANGE_FIXED = 0, TT_RANGE_TO_PTR };

struct tt_range {
	uint64_t addr;
	uint32_t len;
	uint8_t *dst; /* borrowed from the reader; valid until the next plan/ingest call */
	/* TT_RANGE_TO_PTR only (0 in a fixed range) */
	enum tt_range_kind kind;
	bool ptr_big, dst_linear;
	uint8_t ptr_range;
	uint32_t ptr_off, align, from, max;
	uint64_t ptr_base;
};

struct tt_plan {
	unsigned n;
	struct tt_range r[TT_PLAN_MAX];
};

/* The bytes a TT_RANGE_TO_PTR range r reads, ptr being the 4 bytes of its pointer as read (0:
 * none, the pointer being out of the ring or misaligned, or at from); *start gets the ring
 * offset of the first (from). The bytes go round the ring at most once: the result < len. */
static inline uint32_t tt_range_ptr_span(const struct tt_range *r, const uint8_t *ptr,
					 uint32_t *start)
{
	uint32_t v = r->ptr_big ? (uint32_t)ptr[0] << 24 | (uint32_t)ptr[1] << 16 |
					  (uint32_t)ptr[2] << 8 | ptr[3]
				: (uint32_t)ptr[3] << 24 | (uint32_t)ptr[2] << 16 |
					  (uint32_t)ptr[1] << 8 | ptr[0];
	uint64_t e = (uint64_t)v - r->ptr_base, n;

	*start = r->from;
	if (v < r->ptr_base || e >= r->len || r->align == 0 || e % r->align || r->from >= r->len)
		return 0;
	n = e >= r->from ? e - r->from : r->len - r->from + e;
	return (uint32_t)(n < r->max ? n : r->max);
}

/* Whether a TT_RANGE_TO_PTR range i of plan is well formed: its pointer inside a fixed range
 * before it, from inside the ring, align and max non-zero and max a multiple of align. */
static inline bool tt_range_ptr_valid(const struct tt_plan *plan, unsigned i)
{
	const struct tt_range *r = &plan->r[i];
	const struct tt_range *pr = &plan->r[r->ptr_range];

	return r->ptr_range < i && pr->kind == TT_RANGE_FIXED && r->ptr_off <= pr->len &&
	       pr->len - r->ptr_off >= 4 && r->from < r->len && r->align != 0 && r->max != 0 &&
	       r->max % r->align == 0;
}

#endif
