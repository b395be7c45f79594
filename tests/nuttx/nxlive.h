/* tests/nuttx/nxlive.h: driving the live reader over an nxw target in tests: every record
 * written is numbered by its time stamp (tw), the reader's records are logged (lg), and
 * check_sequence proves them against what was written. */
#ifndef NXLIVE_H
#define NXLIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nxtest.h"

#define BASE 0x20000000u

/* The reader's records (nxlog_cb), and the times of every record written, in order (strictly
 * increasing): seq = index. */
extern struct nxlog lg;
extern uint64_t *tw;
extern size_t ntw, captw;

/* Run before every chunk a cycle reads (the writer going on meanwhile). */
typedef void (*hook_fn)(struct nxw *w, void *ctx);

/* Writes record i (nxw_any), its time into tw; commit: store the head too. */
void write_one(struct nxw *w, uint32_t i, bool commit);
void write_n(struct nxw *w, unsigned n);
/* The seq of the record written at time t, or -1. */
long seq_of(uint64_t t);
/* A pseudo-random number below n, from rnd_state (a test may seed it). */
extern uint32_t rnd_state;
uint32_t rnd(uint32_t n);
/* Range i of plan p read as a probe reads it (a TT_RANGE_TO_PTR range: up to its pointer),
 * hook as in cycle: 0, or -1 when it is outside RAM. */
int read_range(struct nxw *w, const struct tt_plan *p, unsigned i, hook_fn hook, void *ctx);
/* One poll cycle; hook (may be NULL) runs before every chunk of every range; cycle_plan is the
 * number of the cycle's plan being read (0: the control words' read, 1: the read after it). */
extern unsigned cycle_plan;
int cycle(struct tt_nuttx *rd, struct nxw *w, hook_fn hook, void *ctx);
/* A reader of w's ring (at_now: skip what is there). */
struct tt_nuttx *reader(struct nxw *w, bool at_now);
/* Whether check_sequence holds estimates to 25% of the truth (default true). */
extern bool est_within_25;
/* Checks lg against tw: events in order, each once, missing ones inside gaps whose range holds
 * them. Returns the events. */
size_t check_sequence(bool allow_resets);
/* Empties lg and tw. */
void reset_log(void);

#endif
