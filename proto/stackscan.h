/* proto/stackscan.h: the true stack high-water mark of each thread, from target RAM.
 *
 * An RTOS that paints its stacks (ThreadX fills each stack with 0xEF bytes at creation; NuttX
 * with CONFIG_STACK_COLORATION) leaves the part a thread never used holding the fill. Stacks grow
 * down, from the end toward the start, so the untouched part is the run of fill words from the
 * start up: the first 32-bit word, going up from the (4-aligned) start, that is not the fill
 * marks the deepest use (ThreadX's _tx_thread_stack_analyze: its "first used word"). Bytes free
 * = that word's address - start; bytes used = end - that address.
 *
 * A sans-I/O state machine like a reader: plan ("read these ranges, at most this many bytes"),
 * the caller reads them, ingest. Per thread, a first scan reads the stack up from its start in
 * pieces until the first word that is not the fill; from then on only a window of words just
 * below that mark are read again: the mark only moves down, as ThreadX's highest-use pointer does
 * (a word of the used part that later holds the fill value by chance does not undo a use). A
 * thread registered with other bounds (the same control block, a new stack) starts over; one
 * created anew on the same stack keeps its old mark until a reset. A stack whose first word is not
 * the fill at the first look has no fill pattern (never painted, a fill this format does not
 * know, or already overflowed): it is said so, never given a number. A use deeper than the
 * window that leaves the words in between untouched is seen at the next first scan only (a
 * re-created thread, a reset).
 *
 * Memory: the struct is the whole state (caller-allocated, fixed size); nothing is allocated.
 * Words are read little-endian (the probe's target byte order).
 */
#ifndef TT_STACKSCAN_H
#define TT_STACKSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define TT_STACKSCAN_THREADS 64   /* stacks followed per target (more: counted, not scanned) */
#define TT_STACKSCAN_BUF 4096     /* most bytes one plan reads */
#define TT_STACKSCAN_WINDOW 256   /* bytes below the mark read again at each look */

enum tt_stack_paint {
	TT_PAINT_PENDING = 0, /* not looked at yet, or its first scan is under way */
	TT_PAINT_OK,          /* painted: `free` and `used` are the figures */
	TT_PAINT_ABSENT,      /* no fill pattern at its start at the first look */
	TT_PAINT_UNREADABLE,  /* the probe could not read it (the last try failed) */
};

/* One thread's figure. */
struct tt_stack_painted {
	uint32_t id;
	uint64_t start;
	uint32_t size;
	enum tt_stack_paint state;
	uint32_t free, used;  /* TT_PAINT_OK: free + used = size (from the 4-aligned start) */
	bool overflow;        /* TT_PAINT_OK: the fill is gone down to the start word */
	uint32_t scans;       /* first scans done (1 + times the thread was found created anew) */
};

struct tt_stackscan_thread {
	struct tt_stack_painted p;
	bool present;         /* in the last registry refresh */
	bool first_done;      /* the first scan found the mark (or the whole stack is fill) */
	uint64_t scanned;     /* first scan: bytes from the aligned start known to be fill */
	uint64_t mark;        /* first_done: address of the first word that is not the fill */
	uint32_t gen;         /* counts start-overs: a read planned before one is not used */
};

struct tt_stackscan {
	uint32_t fill;        /* the fill as a little-endian target word */
	unsigned n, next;     /* threads followed; where the next plan starts (round robin) */
	uint64_t overflow;    /* threads beyond TT_STACKSCAN_THREADS, not scanned */
	struct tt_stackscan_thread t[TT_STACKSCAN_THREADS];
	/* the pending plan: range i belongs to thread who[i], is a first-scan piece or a window */
	struct tt_plan plan;
	uint16_t who[TT_PLAN_MAX];
	uint32_t gen[TT_PLAN_MAX];
	bool window[TT_PLAN_MAX];
	uint8_t buf[TT_STACKSCAN_BUF];
};

/* Starts empty, for stacks painted with fill (e.g. 0xEFEFEFEF). */
void tt_stackscan_init(struct tt_stackscan *s, uint32_t fill);

/* A registry refresh: tt_stackscan_begin, then tt_stackscan_thread per thread the target
 * registered now. A thread whose bounds changed (the same control block, a new stack) starts
 * over; one with no stack (size < 8, start 0) is ignored. Threads missing from the refresh keep
 * their figure but are no longer read. */
void tt_stackscan_begin(struct tt_stackscan *s);
void tt_stackscan_thread(struct tt_stackscan *s, uint32_t id, uint64_t start, uint32_t size);

/* The target was reset: every stack is scanned anew. */
void tt_stackscan_restart(struct tt_stackscan *s);

/* Plans the next reads, at most budget bytes in all (first-scan pieces are cut to fit; a window
 * is read whole or not at all: a budget below TT_STACKSCAN_WINDOW may plan none), threads in
 * turn, from where the last plan stopped. Returns the bytes planned, 0 when nothing fits or nothing is
 * to be read. The plan's buffers are s's own. */
uint32_t tt_stackscan_plan(struct tt_stackscan *s, uint32_t budget, struct tt_plan *p);
/* The plan was read (status 0) or failed (< 0: a thread it covered that has no figure yet is
 * unreadable until a read of it succeeds; one with a figure keeps it). */
void tt_stackscan_ingest(struct tt_stackscan *s, int status);

/* Whether a first scan is under way (or due): a thread followed with no mark yet whose last
 * read did not fail. */
bool tt_stackscan_scanning(const struct tt_stackscan *s);
/* The stacks with something to read (a first scan or a window): a round's worth of turns. */
unsigned tt_stackscan_readable(const struct tt_stackscan *s);

/* Offline: the stacks of a RAM image (img, len bytes, its first byte at target address base).
 * tt_stackscan_image_thread follows a thread only when its whole stack lies in the image;
 * tt_stackscan_image then scans each to its figure (the first scans, read from the image). */
void tt_stackscan_image_thread(struct tt_stackscan *s, uint64_t base, size_t len, uint32_t id,
			       uint64_t start, uint32_t size);
void tt_stackscan_image(struct tt_stackscan *s, const uint8_t *img, size_t len, uint64_t base);

/* Thread i (0 .. s->n - 1) in the order first registered. 0 or -ENOENT. */
int tt_stackscan_at(const struct tt_stackscan *s, unsigned i, struct tt_stack_painted *out);

#endif
