/* tests/unit/txtest.h: shared fixtures for the ThreadX reader tests.
 *
 * A simulated target RAM written by tests/fw/txwriter, a "test probe" that fills a reader's plan
 * from that RAM (optionally calling a hook before each range so a test can play the writer in
 * the middle of a read), and a recorder that deep-copies every emitted record.
 */
#ifndef TT_TXTEST_H
#define TT_TXTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "threadx.h"
#include "txwriter.h"

#define TXT_BASE 0x20000000u
#define TXT_MEM (1u << 20)
#define TXT_USER 4096u /* user event id carrying a sequence number in info 1 */

struct txt_rec {
	int kind;
	struct tt_event ev; /* pointers inside are replaced by the copies below */
	char name[48], thread_name[48], interrupted_name[48], run_name[48];
	char arg_name[TT_MAX_ARGS][32], arg_text[TT_MAX_ARGS][48];
	bool arg_has_text[TT_MAX_ARGS];
	uint32_t raw[8];
	uint64_t lost;
	bool exact;
	char reason[80];
	char basis[64]; /* gap: "" when none */
	uint64_t lower, upper; /* gap: the range stated (upper 0: none) */
};

struct txt_log {
	struct txt_rec *v;
	size_t n, cap;
};

struct txt {
	uint8_t *mem;
	struct txw w;
	struct tt_threadx *rd;
	struct txt_log log;
	/* called before range i of every plan is copied */
	void (*hook)(struct txt *t, unsigned i, const struct tt_plan *p);
	void *hook_arg;
};

/* Target RAM and a writer (buffer not enabled yet). */
void txt_init(struct txt *t, bool big_endian);
void txt_free(struct txt *t);
/* A reader on header address hdr with cfg (header_addr is filled in). */
void txt_reader(struct txt *t, const struct tt_threadx_config *cfg);
/* One poll cycle (plan/copy/ingest until DONE or an error). Returns the last ingest rc. */
int txt_cycle(struct txt *t);
void txt_log_cb(void *arg, const struct tt_record *rec);
void txt_log_clear(struct txt_log *l);

/* A user event whose info 1 is seq, from thread 0x1000 (prio 5). */
uint32_t txt_user(struct txt *t, uint32_t seq);
/* Counts of kinds in the log; seqs of user events in order into out (returns count). */
size_t txt_count(const struct txt_log *l, int kind);
size_t txt_seqs(const struct txt_log *l, uint32_t *out, size_t max);
/* True when user event seqs in the log are exactly from..to (inclusive), in order. */
bool txt_seq_range(const struct txt_log *l, uint32_t from, uint32_t to);
const struct txt_rec *txt_first(const struct txt_log *l, int kind);

#endif
