/* proto/plan.h: the read plan a sans-I/O reader hands to whoever owns the probe.
 *
 * A reader alternates plan ("read these target ranges, into these buffers") and ingest ("the
 * buffers are filled"). Destination buffers belong to the reader; the probe writes exactly len
 * bytes into each dst, in the order given, and reads them in that order (later ranges are used to
 * re-check what earlier ones saw, so order matters).
 */
#ifndef TT_PLAN_H
#define TT_PLAN_H

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

struct tt_range {
	uint64_t addr;
	uint32_t len;
	uint8_t *dst; /* borrowed from the reader; valid until the next plan/ingest call */
};

struct tt_plan {
	unsigned n;
	struct tt_range r[TT_PLAN_MAX];
};

#endif
