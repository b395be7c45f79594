/* proto/record.h: the records every trace reader emits.
 *
 * A reader (ThreadX, NuttX, QNX) turns target bytes into a stream of records: decoded events,
 * gap records (events lost: exactly counted, or an estimate or a lower bound with the range the
 * evidence allows) and reset records (the
 * target rebooted, re-enabled tracing or moved its buffer). Records are handed to a callback and
 * are only valid during that call: every pointer inside is borrowed from the reader.
 */
#ifndef TT_RECORD_H
#define TT_RECORD_H

#include <stdbool.h>
#include <stdint.h>

enum tt_rec_kind {
	TT_REC_EVENT = 1,
	TT_REC_GAP,
	TT_REC_RESET,
};

/* Execution context an event was written from. */
enum tt_ctx {
	TT_CTX_THREAD = 0,
	TT_CTX_ISR,
	TT_CTX_INIT,
	TT_CTX_UNKNOWN,
};

/* Who ran on the CPU from the previous event up to this one (derived by the reader where the
 * format allows it; proto/README-threadx.md "Who runs"). */
enum tt_run {
	TT_RUN_NONE = 0, /* not derived / not known (first event, after a gap or reset) */
	TT_RUN_THREAD,   /* run_thread ran */
	TT_RUN_ISR,      /* interrupt handlers */
	TT_RUN_IDLE,     /* no thread: the scheduler idled */
	TT_RUN_INIT,     /* initialisation, before the scheduler started */
};

/* How an argument is rendered. */
enum tt_arg_kind {
	TT_ARG_UINT = 0, /* plain number */
	TT_ARG_HEX,      /* number best shown in hex (addresses without an object, flags) */
	TT_ARG_OBJ,      /* object pointer: text = object name when known, else NULL */
	TT_ARG_ENUM,     /* value with a symbolic name in text (thread state, ...) */
};

struct tt_arg {
	const char *name; /* snake_case argument name, static */
	const char *text; /* borrowed: resolved object / enum name, or NULL */
	uint32_t value;
	uint8_t kind; /* enum tt_arg_kind */
};

#define TT_MAX_ARGS 7

struct tt_event {
	uint32_t id;          /* event id, core bits removed */
	const char *name;     /* static: "THREAD_RESUME", "USER_EVENT", "UNKNOWN" */
	uint8_t ctx;          /* enum tt_ctx */
	int16_t core;         /* SMP core, -1 when the format/build has none */
	uint32_t thread;      /* running thread (object pointer / pid), 0 when none */
	const char *thread_name; /* borrowed, NULL when unknown */
	int32_t prio;         /* priority, -1 when not applicable */
	int32_t threshold;    /* preemption threshold, -1 when not applicable */
	uint32_t interrupted; /* ISR context: the interrupted thread pointer, else 0 */
	const char *interrupted_name; /* borrowed, NULL when unknown */
	uint32_t ts_raw;      /* time stamp as written (masked) */
	uint64_t time;        /* unwrapped 64-bit time in ticks, monotonic */
	uint64_t ns;          /* nanoseconds since the first event seen, valid if has_ns */
	bool has_ns;
	uint64_t addr;        /* target address of the entry, 0 when not from memory */
	uint8_t nargs;
	struct tt_arg args[TT_MAX_ARGS];
	uint8_t nraw;
	const uint32_t *raw;  /* borrowed: the entry's words as the target wrote them (host order) */
	uint8_t run;          /* enum tt_run: who ran from the previous event up to this one */
	uint32_t run_thread;  /* TT_RUN_THREAD: that thread's pointer */
	const char *run_name; /* TT_RUN_THREAD: its registry name (borrowed), NULL when unknown */
};

struct tt_gap {
	uint64_t lost;      /* events lost: exact when exact, else an estimate (see basis) */
	bool exact;
	const char *basis;  /* static, when !exact: what the estimate rests on ("time stamps and
			     * event rate"); NULL: lost is only known not to be lower */
	const char *reason; /* static: "lapped", "overwritten during read", "read failed", ... */
	/* when !exact and upper != 0: the range the evidence allows, lower <= lost <= upper (upper
	 * TT_GAP_NO_UPPER: nothing caps it); upper == 0: the reader states no range */
	uint64_t lower;
	uint64_t upper;
};

#define TT_GAP_NO_UPPER UINT64_MAX

struct tt_reset {
	const char *reason; /* static or borrowed: "header changed", "tracing re-enabled", ... */
};

struct tt_record {
	enum tt_rec_kind kind;
	union {
		struct tt_event ev;
		struct tt_gap gap;
		struct tt_reset reset;
	} u;
};

/* Called once per record, in order. rec and everything it points to is borrowed for the call. */
typedef void (*tt_emit_cb)(void *arg, const struct tt_record *rec);

#endif
