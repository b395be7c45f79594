/* proto/analysis_ops.h: what a format tells the live analysis (analysis/) about its events.
 *
 * The analysis is format-neutral: it sees records (record.h) and asks the format, through these
 * ops (a reader's tt_reader_ops.analysis), what an event means: a suspension, a resumption, an
 * interrupt's entry or exit, a time slice, a mutex taken or released, the stack pointer it
 * carries, and which of the format's own counters it adds to (ThreadX: FileX and NetX
 * statistics as TraceX counts them). The threads a target registered (names, priorities, stack
 * bounds) come from the reader's state (live) or from an image (offline). A format without
 * these ops is analysed from the records alone (execution profile, services). A format whose
 * RTOS paints its stacks says with what (stack_fill), so the daemon can read the true stack
 * high-water marks from target RAM (stackscan.h).
 */
#ifndef TT_ANALYSIS_OPS_H
#define TT_ANALYSIS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct tt_reader_config;

/* What an event means (tt_an_class.flags). */
enum tt_an_flag {
	TT_AN_SUSPEND = 1u << 0,    /* a thread stopped being ready (obj: that thread) */
	TT_AN_RESUME = 1u << 1,     /* a thread became ready (obj: that thread) */
	TT_AN_ISR_ENTER = 1u << 2,  /* an interrupt handler started */
	TT_AN_ISR_EXIT = 1u << 3,   /* an interrupt handler ended */
	TT_AN_TIME_SLICE = 1u << 4, /* the scheduler's time slice expired */
	TT_AN_MUTEX_GET = 1u << 5,  /* obj: the mutex; other: its owner when the caller is about
				       to block on it (0: no owner, or the caller owns it) */
	TT_AN_MUTEX_PUT = 1u << 6,  /* obj: the mutex; TT_AN_RELEASE when this put frees it */
	TT_AN_RELEASE = 1u << 7,
	TT_AN_SP = 1u << 8,         /* sp: the running thread's stack pointer at the event */
	TT_AN_SWITCH = 1u << 9,     /* the CPU switches to thread `other` here (formats that
				       trace switches rather than the reader deriving `run`) */
	TT_AN_CALL_ENTER = 1u << 10, /* the event's thread enters system call obj (label: its
					name) */
	TT_AN_CALL_LEAVE = 1u << 11, /* ... and leaves it */
	TT_AN_IRQ = 1u << 12,       /* with TT_AN_ISR_ENTER / TT_AN_ISR_EXIT: obj is the
				       interrupt's number */
	TT_AN_STATE = 1u << 13,     /* thread state_thread enters scheduling state `state` (an
				       index of tt_analysis_ops.state_names), or leaves every
				       state (TT_AN_STATE_NONE: it was destroyed) */
	TT_AN_PREEMPTED = 1u << 14, /* the event's thread stops running but stays ready (formats
				       that trace switches: a preemption, not a suspension) */
	TT_AN_THREAD_START = 1u << 15, /* the event's thread starts life here */
	TT_AN_THREAD_STOP = 1u << 16,  /* ... and ends it */
};

#define TT_AN_STATE_NONE UINT32_MAX

#define TT_AN_MAX_COUNTS 2

struct tt_an_class {
	uint32_t flags;
	uint32_t obj, other;
	uint64_t sp;
	uint32_t state_thread, state; /* TT_AN_STATE */
	const char *label; /* TT_AN_CALL_*: the call's name, borrowed for the call (or NULL) */
	uint8_t ncount; /* format counters this event adds to: counters[idx] += add */
	struct {
		uint16_t idx;
		uint32_t add;
	} count[TT_AN_MAX_COUNTS];
};

/* One of a format's own counters, shown in section / group / label order (TraceX's layout). */
struct tt_an_counter {
	const char *key;     /* snake_case, for JSON and metrics */
	const char *section; /* "FileX Performance Statistics" */
	const char *group;   /* "Media Statistics" */
	const char *label;   /* "Opens" */
};

/* A thread the target registered. name is borrowed for the call. */
struct tt_an_thread {
	uint32_t id;
	const char *name;
	int32_t prio;         /* -1: unknown */
	uint64_t stack_start; /* lowest address of the stack; 0 with stack_size 0: unknown */
	uint32_t stack_size;  /* bytes */
};

typedef void (*tt_an_thread_cb)(void *arg, const struct tt_an_thread *t);

struct tt_analysis_ops {
	/* lower priority numbers are more urgent (ThreadX: 0 is the highest) */
	bool prio_low_is_urgent;
	/* the format traces its switches (TT_AN_SWITCH, per core): who ran follows from them, per
	 * core, rather than from each event's run field */
	bool traces_switches;
	/* what ev means; out is zeroed by the caller */
	void (*classify)(const struct tt_event *ev, struct tt_an_class *out);
	/* every tt_an_flag classify can set: what the format traces at all, so a figure it cannot
	 * have (a QNX thread's resumptions) is reported as absent rather than as 0 */
	uint32_t flags;
	const struct tt_an_counter *counters; /* ncounters entries, in display order */
	unsigned ncounters;
	/* The scheduling states TT_AN_STATE names (nstates, at most 64; 0: the format traces no
	 * thread states): time per thread per state. */
	const char *const *state_names;
	unsigned nstates;
	/* The threads a live reader (the rd of tt_reader_ops.create) knows now: cb per thread.
	 * 0, or -ENOENT before it attached. NULL: the format registers no threads. */
	int (*threads)(const void *rd, tt_an_thread_cb cb, void *arg);
	/* The same for a whole image, as decode_image reads it: 0 or a negative error. */
	int (*image_threads)(const uint8_t *img, size_t len, uint64_t base,
			     const struct tt_reader_config *cfg, tt_an_thread_cb cb, void *arg);
	/* The fill the RTOS paints each thread's stack with at its creation, as a little-endian
	 * target word, for the high-water marks read from RAM (stackscan.h), for a reader
	 * configured with format_cfg (tt_reader_config.format_cfg: the fill may depend on the
	 * target's architecture): 0 with *fill, or -ENOENT when this target's fill is not known
	 * (or its stacks' bounds are not). NULL: the format paints no stacks. */
	int (*stack_fill)(const void *format_cfg, uint32_t *fill);
};

#endif
