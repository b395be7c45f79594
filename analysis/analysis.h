/* analysis/analysis.h: the live analysis of a record stream, sans-I/O like proto/.
 *
 * Records (proto/record.h) in, statistics out: the execution profile (ticks per thread,
 * interrupts, idle, initialisation, and time no one can account for), context switches,
 * preemptions, time slices, suspensions, resumptions, interrupts and nested interrupts, priority
 * inversions (deterministic and not) with the events that open and close each and how long each
 * lasted (or has lasted so far: its age, by the target's time stamps), the lowest stack
 * pointer each thread was seen with against its registered stack, how often each event id
 * (service) occurs, and the format's own counters (ThreadX: FileX and NetX). What an event means
 * is the format's to say (proto/analysis_ops.h, a reader's tt_reader_ops.analysis); the same
 * code runs live in tracetapd (one analysis per target) and offline in `tracetap analyze`.
 *
 * Live semantics: every total is since the analysis was created (attach). A gap record makes
 * the time from the last event before it to the first after it unknown: counted as such, never
 * given to a thread, and the derivations that need a continuous stream (current thread,
 * interrupt nesting, open inversion windows) start over. A reset record starts a new epoch: the
 * totals so far are kept, the continuity starts over, and `epochs` counts it.
 *
 * Memory: everything is allocated by tt_analysis_new, bounded by the limits (threads, services,
 * inversions kept); nothing is allocated per record. What does not fit is counted (overflow),
 * not dropped silently. No clock: time is the records' own. One thread.
 */
#ifndef TT_ANALYSIS_H
#define TT_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis_ops.h"
#include "record.h"
#include "stackscan.h"

struct tt_analysis; /* opaque */

struct tt_analysis_limits {
	unsigned max_threads;    /* 0: 256 */
	unsigned max_services;   /* distinct event ids; 0: 512 */
	unsigned max_inversions; /* the newest inversions kept with their events; 0: 64 */
	unsigned max_calls;      /* distinct (thread, system call) pairs; 0: 1024 */
	unsigned max_irqs;       /* distinct interrupt numbers; 0: 256 */
	unsigned max_thread_services; /* distinct (thread, event id) pairs; 0: 2048 */
	unsigned series_buckets; /* CPU load over time: buckets kept; 0: 600 */
	uint64_t bucket_ns;      /* ... each this long; 0: 100 ms (at most 4 s) */
};

/* ops: the format's (borrowed for the analysis's life; NULL: records alone); lim NULL: the
 * defaults. 0, -EINVAL or -ENOMEM. *out: caller frees with tt_analysis_free. */
int tt_analysis_new(const struct tt_analysis_ops *ops, const struct tt_analysis_limits *lim,
		    struct tt_analysis **out);
void tt_analysis_free(struct tt_analysis *a);

/* One record, in stream order. rec is borrowed for the call. */
void tt_analysis_record(struct tt_analysis *a, const struct tt_record *rec);
/* The same with the record's seq (the daemon's hub numbering), which the inversions name their
 * events by; tt_analysis_record numbers the records 1, 2, ... after the previous one's seq. */
void tt_analysis_record_seq(struct tt_analysis *a, const struct tt_record *rec, uint64_t seq);
/* tt_emit_cb form of tt_analysis_record (arg: the analysis). */
void tt_analysis_emit(void *arg, const struct tt_record *rec);

/* A thread the target registered (name, priority, stack bounds): added or updated; its
 * figures are kept. tt_an_thread_cb form: tt_analysis_thread_cb (arg: the analysis). */
void tt_analysis_thread(struct tt_analysis *a, const struct tt_an_thread *t);
void tt_analysis_thread_cb(void *arg, const struct tt_an_thread *t);

/* The whole analysis as one JSON object (schema: proto/PROTOCOL.md "stats"), or as text laid
 * out like TraceX's text export sections. Like snprintf: writes at most len bytes (NUL
 * included) and returns the length the whole needs. */
size_t tt_analysis_json(const struct tt_analysis *a, char *buf, size_t len);
size_t tt_analysis_text(const struct tt_analysis *a, char *buf, size_t len);

/* System totals (for metrics). */
struct tt_analysis_totals {
	uint64_t events, gaps, lost, epochs;
	uint64_t span_ticks; /* first to last event, summed over epochs */
	uint64_t isr_ticks, idle_ticks, init_ticks, unknown_ticks;
	uint64_t other_ticks; /* threads beyond max_threads */
	uint64_t isr_ns, idle_ns;
	bool has_ns;         /* the records carry nanoseconds: the _ns figures are valid */
	uint64_t context_switches, preemptions, time_slices, suspensions, resumptions;
	uint64_t interrupts, nested_interrupts, inversions, bad_inversions;
	uint64_t overflow_threads, overflow_services, overflow_calls, overflow_irqs;
	uint64_t overflow_thread_services;
};
void tt_analysis_totals(const struct tt_analysis *a, struct tt_analysis_totals *out);
/* Bytes the analysis holds (all of it allocated by tt_analysis_new: it never grows). */
size_t tt_analysis_memory(const struct tt_analysis *a);

/* One thread's figures (name borrowed until the next call into the analysis). */
struct tt_analysis_thread {
	uint32_t id;
	const char *name;          /* NULL when unknown */
	int32_t prio;              /* -1: unknown */
	uint64_t ticks, ns;        /* run time (ns valid with totals.has_ns) */
	uint64_t context_switches; /* switches to this thread */
	uint64_t preemptions;      /* times it was preempted */
	uint64_t suspensions, resumptions, events, inversions;
	uint32_t stack_size;       /* 0: not registered */
	uint64_t stack_start;
	bool have_sp;              /* a traced stack pointer was seen */
	uint64_t lowest_sp, lowest_sp_event;
	/* read from target RAM (tt_analysis_stack_painted), when painted_given */
	bool painted_given;
	enum tt_stack_paint painted;
	uint32_t painted_free, painted_used;
	bool painted_overflow;
};
unsigned tt_analysis_nthreads(const struct tt_analysis *a);
/* Thread i (0 .. nthreads - 1) in display order (registry order, then first seen): 0 or
 * -ENOENT. */
int tt_analysis_thread_at(const struct tt_analysis *a, unsigned i, struct tt_analysis_thread *out);
/* Every thread in display order, i counting from 0 (one sort, where tt_analysis_thread_at
 * sorts per call). t is borrowed for the call. */
void tt_analysis_each_thread(const struct tt_analysis *a,
			     void (*cb)(void *arg, unsigned i, const struct tt_analysis_thread *t),
			     void *arg);

/* A thread's stack high-water mark read from target RAM (proto/stackscan.h, by the daemon):
 * kept beside the traced figure, each labelled with its source. A thread not seen yet is added
 * (as by tt_analysis_thread, without a name). p borrowed for the call. */
void tt_analysis_stack_painted(struct tt_analysis *a, const struct tt_stack_painted *p);
/* Offline: the threads a whole image registered (the format's image_threads), and for a
 * format that paints its stacks, the high-water mark of each stack the image holds whole (a RAM
 * dump that covers them; a stack outside the image gets no painted figure). 0 or the format's
 * negative error (nothing of the image's threads is then certain). */
struct tt_reader_config;
int tt_analysis_image_threads(struct tt_analysis *a, const uint8_t *img, size_t len,
			      uint64_t base, const struct tt_reader_config *cfg);
/* What reading the stacks costs on the probe link: the budget (bytes/s, 0: reading is off) and
 * the bytes read so far and over the last seconds; shown as `stack_scan`. */
struct tt_analysis_scan_cost {
	uint32_t budget;
	uint64_t bytes;
	double bytes_per_s;
	unsigned threads, threads_over; /* stacks followed; beyond the scanner's bound */
};
void tt_analysis_scan_cost(struct tt_analysis *a, const struct tt_analysis_scan_cost *c);

/* System calls per thread (formats that trace them, as enter and leave): count, total and
 * longest time from enter to leave, in ticks; i in first-seen order. 0 or -ENOENT. */
struct tt_analysis_call {
	uint32_t thread, nr;
	const char *name; /* borrowed until the next call into the analysis; "" when unknown */
	uint64_t count, total, max;
};
int tt_analysis_call_at(const struct tt_analysis *a, unsigned i, struct tt_analysis_call *out);
/* Interrupts per number (formats that trace entry and exit): count, total and longest. */
struct tt_analysis_irq {
	uint32_t irq;
	uint64_t count, total, max;
};
int tt_analysis_irq_at(const struct tt_analysis *a, unsigned i, struct tt_analysis_irq *out);

/* A priority inversion (formats that classify mutex gets and puts): opened by the blocked
 * thread's mutex get (start_*), closed by TraceX's end (end_*): the blocked thread's first event
 * once its window ended (the owner released the mutex, or a thread of a priority between the
 * two ran: then it is non-deterministic). Events are named by their number in the analysis
 * (event), their record's seq and their time stamp. */
enum tt_analysis_inv_state {
	TT_AN_INV_OPEN = 0, /* its end not seen yet */
	TT_AN_INV_CLOSED,   /* end_* valid */
	TT_AN_INV_CUT,      /* a gap or reset came while it was open: its end is unknown */
};
struct tt_analysis_inversion {
	uint64_t number;      /* inversions counted from 0 since the analysis began */
	bool deterministic;
	uint8_t state;        /* enum tt_analysis_inv_state */
	uint32_t mutex, blocked, owner;
	int32_t blocked_prio, owner_prio;
	uint64_t start_event, start_seq, start_time, start_ns;
	uint64_t end_event, end_seq, end_time, end_ns; /* TT_AN_INV_CLOSED only */
	/* its duration in ticks (and ns with has_ns): closed, from start to end; open, its age:
	 * from start to the newest event analysed (the analysis has no clock: the target's time);
	 * cut, from start to the last event before the break (a lower bound) */
	uint64_t ticks, ns;
	bool has_ns;
};
/* Inversions kept (the newest, at most max_inversions). */
uint64_t tt_analysis_ninversions(const struct tt_analysis *a);
/* Kept inversion i, 0 the oldest kept: 0 or -ENOENT. */
int tt_analysis_inversion_at(const struct tt_analysis *a, uint64_t i,
			     struct tt_analysis_inversion *out);

/* The format's counter i (0 .. ops->ncounters - 1; 0 beyond). */
uint64_t tt_analysis_counter(const struct tt_analysis *a, unsigned i);
/* Service i in TraceX's popularity order (count, descending): 0 or -ENOENT. name: borrowed
 * until the next call into the analysis. */
int tt_analysis_service_at(const struct tt_analysis *a, unsigned i, uint32_t *id,
			   const char **name, uint64_t *count);
/* The i-th (thread, event id) pair of the per-thread services (by thread, then count, most
 * first): 0, or -ENOENT past the last. */
int tt_analysis_thread_service_at(const struct tt_analysis *a, unsigned i, uint32_t *thread,
				  uint32_t *id, uint64_t *count);

/* Per-thread lines at most per target in tt_analysis_metrics: the rest is summed into one line
 * with thread="(other)", so a target's label cardinality is bounded. */
#define TT_ANALYSIS_METRIC_THREADS 64

/* The Prometheus text of n analyses (names[i]: the target label; an[i] NULL: nothing), each
 * family's HELP and TYPE once: per target tracetap_interrupts_total,
 * tracetap_nested_interrupts_total, tracetap_context_switches_total,
 * tracetap_priority_inversions_total{kind}, tracetap_unknown_ticks_total; per thread
 * tracetap_thread_cpu_seconds_total (or _cpu_ticks_total without a tick rate),
 * tracetap_thread_context_switches_total, tracetap_thread_preemptions_total,
 * tracetap_thread_priority_inversions_total, tracetap_thread_stack_free_bytes (source=
 * "traced_stack_pointer", and source="painted" where read from RAM). Like snprintf. */
size_t tt_analysis_metrics(const char *const *names, const struct tt_analysis *const *an,
			   size_t n, char *buf, size_t len);

#endif
