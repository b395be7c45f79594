/* proto/threadx.h: live reader of a ThreadX event trace buffer ("TXTB"), sans I/O.
 *
 * Driven by the plan/ingest loop of proto/reader.h: plan says what to read, the caller reads
 * it, ingest emits records. Attach reads the 48-byte control header and the registry, then
 * publishes the history oldest first (none with start_at_now); each poll reads the slots
 * written since the last one and the anchor slot that proves them intact. Laps become gap
 * records (exact when known, else labelled), header changes reset records; patchable entries
 * are held one poll and re-read. Why this never publishes a stale slot: proto/README-threadx.md.
 *
 * Memory: buffers are allocated when a header is accepted, bounded by max_buffer_bytes;
 * nothing is allocated per event.
 */
#ifndef TT_THREADX_H
#define TT_THREADX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "record.h"

#define TT_THREADX_ID 0x54585442u /* "TXTB" */
#define TT_THREADX_HEADER_SIZE 48u
#define TT_THREADX_ENTRY_SIZE 32u

enum tt_threadx_rc {
	TT_THREADX_DONE = 0, /* the poll cycle is over: wait for the next tick */
	TT_THREADX_MORE = 1, /* call plan again now */
};

struct tt_threadx_config {
	uint64_t header_addr;      /* target address of the control header (required) */
	bool start_at_now;         /* skip the history present at attach */
	uint64_t tick_hz;          /* time stamp rate; 0 = unknown (no ns) */
	uint64_t time_wrap;        /* modulus of the time source; 0 = timer mask + 1 */
	int time_dir;              /* 0 = detect, 1 = counts up, -1 = counts down */
	unsigned hold_window;      /* newest slots that may still be patched; 0 = default 2 */
	unsigned header_every;     /* full header re-check every N polls; 0 = default 16 */
	unsigned registry_every;   /* registry re-read every N polls; 0 = only when needed */
	size_t max_buffer_bytes;   /* refuse larger buffers; 0 = default 64 MiB */
	unsigned sync_chunk;       /* slots per chunk of a full read; 0 = default 64 (2 KiB) */
	bool static_image;         /* memory never changes (a file): trust the slot at current and
	                            * hold nothing; set by tt_threadx_decode_image */
	bool oldest_when_still;    /* at attach, also publish the slot at current (the oldest entry)
	                            * when it reads the same before and after a read of current that
	                            * has not moved: a file that is not being written. Not for live
	                            * targets: a writer halted inside an insert looks the same */
	bool since_enable;         /* the header appeared while we watched (tracing was off): every
	                            * event since tx_trace_enable is promised, so the first full
	                            * read reports what was overwritten before it as a gap */
	bool ptr_ranges;           /* the caller reads TT_RANGE_TO_PTR ranges (plan.h): a busy
	                            * poll is one plan, current and the entries it says are new
	                            * and the anchor */
	bool host_clock_unrelated; /* the memory is a file (snapshots, a capture): the host's clock
	                            * says nothing of the target's (loss estimates ignore it) */
	uint64_t since_enable_ns;  /* with since_enable: host time (the clock of
	                            * tt_threadx_set_host_time) when the last read that saw tracing
	                            * off was sent; what the first read finds overwritten was written after
	                            * it (the window of its estimate); 0 unknown */
};

/* Counters for metrics and adaptive polling. Monotonic unless noted. */
struct tt_threadx_stats {
	uint64_t polls;
	uint64_t bytes_planned;    /* probe bytes requested */
	uint64_t events;           /* events emitted */
	uint64_t gaps;             /* gap records emitted */
	uint64_t lost;             /* sum of gap counts */
	uint64_t resets;
	uint64_t rereads;          /* bytes re-read for held (patchable) entries */
	uint64_t syncs;            /* full reads completed (attach, laps, resets) */
	uint64_t sync_failed;      /* full-read attempts that proved nothing (writer too fast) */
	uint64_t history_skipped;  /* attach history overwritten during the first full read before
	                            * it was copied (never promised, so no gap record) */
	uint32_t last_new;         /* not monotonic: entries found new in the last poll */
	uint32_t capacity;         /* not monotonic: entries in the buffer (N), 0 before attach */
	uint32_t held;             /* not monotonic: entries read but held back (hold policy) */
};

struct tt_threadx; /* opaque */

/* Allocates a reader. Returns 0 or -errno (-EINVAL: bad config). *out: caller frees with
 * tt_threadx_free. cfg is copied. */
int tt_threadx_new(const struct tt_threadx_config *cfg, struct tt_threadx **out);
void tt_threadx_free(struct tt_threadx *rd);

/* Fills *plan with the ranges to read next (plan->n >= 1). Buffers point into the reader. */
void tt_threadx_plan(struct tt_threadx *rd, struct tt_plan *plan);

/* All ranges of the last plan were read. Emits records through cb. Returns TT_THREADX_DONE,
 * TT_THREADX_MORE, or a negative error (-EPROTO: not a valid trace buffer / inconsistent data,
 * -EFBIG: buffer larger than max_buffer_bytes, -ENOMEM); after an error the reader restarts from
 * the header on the next plan, and tt_threadx_error() tells exactly what was wrong. */
int tt_threadx_ingest(struct tt_threadx *rd, tt_emit_cb cb, void *arg);

/* The probe could not read the last plan. The reader will restart this poll cycle; if the
 * failure lasted long enough for entries to be overwritten, the next successful poll reports
 * the loss as a gap. */
void tt_threadx_read_failed(struct tt_threadx *rd, int err);

/* Ask for a registry re-read at the next poll. */
void tt_threadx_refresh_registry(struct tt_threadx *rd);

/* The host's monotonic clock (ns, nonzero) when the reads of the last plan completed; call before
 * each tt_threadx_ingest. With tick_hz, the time between the polls that published two events
 * decides how many wraps of a narrow time source lay between them (a gap, a quiet spell), and
 * so the time across a lap that estimates how many events it took. Called before
 * tt_threadx_plan too (the time now): a poll that starts within TT_TX_AHEAD_NS of the last
 * poll's reads skips its read of current (threadx_int.h). Never called: stamps are unwrapped
 * from their own deltas only, and every poll reads current first. */
void tt_threadx_set_host_time(struct tt_threadx *rd, uint64_t ns);

/* A registry object as last read (deleted objects keep their name). */
struct tt_threadx_object {
	uint32_t ptr;
	uint8_t type;       /* see tt_threadx_object_type_name */
	bool deleted;       /* registry "available" flag set */
	int32_t prio;       /* threads: priority at registration, else -1 */
	uint32_t param1, param2;
	uint8_t reserved[2]; /* the entry's two reserved bytes as written */
	const char *name;   /* borrowed until the next ingest; sanitised, NUL-terminated */
};

/* Looks ptr up in the cached registry. Returns 0 or -ENOENT. */
int tt_threadx_object(const struct tt_threadx *rd, uint32_t ptr, struct tt_threadx_object *obj);

/* What the accepted control header says (what a TraceX file of this trace keeps). */
struct tt_threadx_header_info {
	uint32_t timer_mask;
	uint32_t name_size;        /* bytes per registry name */
	uint32_t registry_entries;
	uint32_t entries;          /* event slots */
};
/* Returns 0, or -ENOENT before a header is accepted. */
int tt_threadx_header_info(const struct tt_threadx *rd, struct tt_threadx_header_info *out);
/* Registry entry i (0 .. registry_entries - 1) as last read, free ones included (type 0).
 * Returns 0 or -ENOENT. */
int tt_threadx_registry_at(const struct tt_threadx *rd, uint32_t i, struct tt_threadx_object *obj);

/* A precise, human readable reason for the last error ("" when none). Borrowed. */
const char *tt_threadx_error(const struct tt_threadx *rd);

const struct tt_threadx_stats *tt_threadx_stats(const struct tt_threadx *rd);

/* Decode a whole static image (a TraceX file or a RAM dump) whose first byte is at target
 * address base: validates the header, emits every entry oldest first (TraceX rules: start at
 * current, skip never-used slots). header_offset is where the header is within the image
 * (0 for .trx). Returns 0 or a negative error with *err set to a static or image-independent
 * message written into errbuf. */
int tt_threadx_decode_image(const uint8_t *img, size_t len, uint64_t base, size_t header_offset,
			    const struct tt_threadx_config *cfg, tt_emit_cb cb, void *arg,
			    char *errbuf, size_t errlen);

/* tt_threadx_decode_image, then done (when not NULL) with the reader as the image left it (its
 * registry: tt_threadx_registry_at) before it is freed, when the decode succeeded. */
int tt_threadx_image_run(const uint8_t *img, size_t len, uint64_t base, size_t header_offset,
			 const struct tt_threadx_config *cfg, tt_emit_cb cb, void *arg,
			 void (*done)(const struct tt_threadx *rd, void *darg), void *darg,
			 char *errbuf, size_t errlen);
/* Where a whole image's header is: cfg_address (0: the image's first byte, a .trx) within the
 * image at *base (0: the .trx header's own base field): 0 with *offset set, or -EPROTO with a
 * message when the header lies outside the image. */
int tt_threadx_image_locate(const uint8_t *img, size_t len, uint64_t *base, uint64_t cfg_address,
			    size_t *offset, char *err, size_t errlen);

/* Name of a thread state (info 2 of events 1/2), or NULL. */
const char *tt_threadx_state_name(uint32_t state);
/* Name of a registry object type, or NULL. */
const char *tt_threadx_object_type_name(uint32_t type);

/* The target address a .trx image (a file starting with the header) was taken from, as its
 * header says, or 0 when the first len bytes do not say. */
uint64_t tt_threadx_file_base(const uint8_t *head, size_t len);

/* This format's reader (proto/reader.h): for features of ThreadX's own tools (.trx export). */
struct tt_reader_ops;
extern const struct tt_reader_ops tt_threadx_reader;
/* What the live analysis needs of ThreadX events (analysis_ops.h; threadx_analysis.c). */
struct tt_analysis_ops;
extern const struct tt_analysis_ops tt_threadx_analysis;

#endif
