/* analysis/analysis_int.h: the analysis's state, shared by analysis.c (the record stream) and
 * analysis_report.c (JSON and text). Private to analysis/. */
#ifndef TT_ANALYSIS_INT_H
#define TT_ANALYSIS_INT_H

#include "analysis.h"

#define AN_NAME 48
#define AN_WINDOWS 16
#define AN_NO_ORDER UINT32_MAX
#define AN_CALL_NEST 8
#define AN_RECENT 64 /* entries of the direct-mapped caches (a power of two) */

/* Context values of the next-context rules: a thread's id, or one of these. */
#define AN_CTX_IDLE 0u
#define AN_CTX_ISR 0xFFFFFFFFu
#define AN_CTX_INIT 0xF0F0F0F0u

struct an_thread {
	uint32_t id;
	bool used;
	char name[AN_NAME];
	int32_t prio;       /* as last seen (an event's priority, else the registry's) */
	uint32_t reg_order; /* registry position, AN_NO_ORDER when not registered */
	uint32_t seen_order;
	uint64_t stack_start;
	uint32_t stack_size;
	uint64_t ticks, ns, switches, preempted, suspensions, resumptions, events, inversions;
	bool have_sp;
	uint64_t min_sp, min_sp_event;
	bool painted_given;          /* from RAM (tt_analysis_stack_painted): */
	enum tt_stack_paint painted;
	uint32_t painted_free, painted_used;
	bool painted_overflow;
	uint8_t call_depth; /* system calls entered and not left (calls nest: a call from a
			       call), the innermost last */
	uint32_t call_nr[AN_CALL_NEST];
	uint64_t call_start[AN_CALL_NEST];
	bool born, died;    /* TT_AN_THREAD_START / _STOP seen: at these times */
	uint64_t born_time, died_time;
	uint8_t state;      /* scheduling state now (analysis_states.c), AN_STATE_NONE: unknown */
	bool state_has_ns;
	uint64_t state_since, state_since_ns; /* when it entered it */
};

#define AN_STATE_NONE 0xFFu

struct an_tservice {
	bool used;
	uint32_t thread, id;
	uint64_t count;
};

struct an_call {
	bool used;
	uint32_t thread, nr, order;
	char name[32];
	uint64_t count, total, max;
};

struct an_irq {
	bool used;
	uint32_t irq, order;
	uint64_t count, total, max;
};

#define AN_IRQ_NEST 8
#define AN_SERIES_THREADS 8
enum { AN_COL_OTHER = AN_SERIES_THREADS, AN_COL_ISR, AN_COL_IDLE, AN_COL_UNKNOWN, AN_COLS };

/* CPU load over time (analysis_series.c): a ring of nbuckets rows, head the newest bucket. */
struct an_series {
	uint64_t bucket_ns, head;
	unsigned nbuckets, nids;
	bool have;
	uint32_t ids[AN_SERIES_THREADS];
	uint32_t (*rows)[AN_COLS]; /* nanoseconds per column */
};
#define AN_CORES 16 /* cores of formats that trace switches (more: folded onto these) */

/* One core of a format that traces its switches: who runs on it, its last event's time, the
 * interrupts open on it. */
struct an_core {
	bool have, known;  /* an event seen; sw_cur is who runs (a switch since the last break) */
	uint32_t sw_cur;
	uint64_t prev_time, prev_ns;
	uint64_t span, thread_ticks, isr_ticks, unknown_ticks; /* this core's share of the totals */
	unsigned irq_depth;
	struct { uint32_t irq; uint64_t start; } irq_stack[AN_IRQ_NEST];
};

struct an_service {
	uint32_t id;
	bool used;
	char name[40];    /* copied: a recording's records borrow theirs from its parser */
	uint64_t count;
	uint32_t order;   /* first seen */
};

/* An inversion found: the event that opened it (the blocked thread's mutex get) and the one
 * that closed it, TraceX's end: the blocked thread's first event once its window ended (the
 * owner released the mutex, or a thread of a priority between the two ran). open: its end not
 * seen yet; released: the window ended, the blocked thread's next event closes it; cut: the
 * stream broke (a gap, a reset) while it was open, its end is unknown (last_*: the last event
 * before the break). */
struct an_inversion {
	bool bad; /* non-deterministic: a thread of a priority between the two ran meanwhile */
	uint32_t mutex, blocked, owner;
	int32_t blocked_prio, owner_prio;
	uint64_t start_event, end_event;
	uint64_t start_seq, end_seq, start_time, end_time, last_time;
	uint64_t start_ns, end_ns, last_ns;
	bool start_has_ns, end_has_ns;
	bool end_known, closing, released, cut;
};

/* An open deterministic window: a thread blocked on a mutex a less urgent thread owns. */
struct an_window {
	bool open;
	uint32_t mutex, blocked, owner;
	int32_t blocked_prio, owner_prio;
	uint64_t start_event;
	uint64_t inv_seq; /* its entry in the inversion ring */
};

struct tt_analysis {
	const struct tt_analysis_ops *ops;
	struct tt_analysis_limits lim;
	struct an_thread *threads; /* open addressing, tt_an_slots(max_threads) slots */
	struct an_thread *last;    /* the last one looked up (runs of one thread's events) */
	unsigned thread_slots, nthreads, nreg;
	struct an_service *services;
	unsigned service_slots, nservices;
	/* the services and pairs counted last, direct-mapped by key: a hit costs no probe of the
	 * tables (which miss the cache at every event of a busy mix) */
	struct an_service *recent_service[AN_RECENT];
	struct an_tservice *tservices; /* open addressing, tt_an_slots(max_thread_services) slots */
	struct an_tservice *recent_tservice[AN_RECENT];
	unsigned tservice_slots, ntservices;
	uint64_t *counters;
	struct an_inversion *inv; /* ring of max_inversions */
	uint64_t ninv;            /* inversions ever recorded (the ring holds the newest) */
	uint64_t seq;             /* the current record's seq (tt_analysis_record_seq) */
	struct an_window win[AN_WINDOWS];
	unsigned nopen, nclosing; /* windows open, inversions waiting for their end event */
	struct an_call *calls;    /* open addressing, tt_an_slots(max_calls) slots */
	unsigned call_slots, ncalls;
	struct an_irq *irqs;      /* open addressing, tt_an_slots(max_irqs) slots */
	unsigned irq_slots, nirqs;
	struct an_core core[AN_CORES];
	struct an_series series;
	unsigned nstates;                   /* the format's states (0: none traced) */
	uint64_t *state_ticks, *state_ns;   /* [thread slot * nstates + state] */
	struct tt_analysis_totals t;
	struct tt_analysis_totals epoch_start; /* t when the current epoch began (a reset) */
	bool have_scan;                        /* scan: given by tt_analysis_scan_cost */
	struct tt_analysis_scan_cost scan;
	/* continuity (reset by gaps and resets) */
	bool have_prev, after_gap;
	uint64_t prev_time, prev_ns, first_time;
	bool prev_has_ns;
	uint32_t prev_ctx;  /* the previous event's context value */
	uint32_t cur;       /* the thread TraceX's rules take as running (0: none yet) */
	bool pending_preempt, pending_slice;
	unsigned isr_nest;
};

/* Open addressing: every table has a power of two of slots (tt_an_slots: at least twice its
 * limit), probed from tt_an_first of the key's hash on with tt_an_next. */
unsigned tt_an_slots(unsigned max);
static inline unsigned tt_an_first(uint32_t h, unsigned slots)
{
	return h & (slots - 1);
}
static inline unsigned tt_an_next(unsigned i, unsigned slots)
{
	return (i + 1) & (slots - 1);
}

struct an_thread *tt_an_thread_get(struct tt_analysis *a, uint32_t id);
/* The thread's entry, or NULL when it has none (nothing made). */
const struct an_thread *tt_an_thread_find(const struct tt_analysis *a, uint32_t id);
uint32_t tt_an_hash(uint32_t x);
struct tt_an_out;
/* analysis_calls.c: system calls and interrupts with durations. */
void tt_an_calls(struct tt_analysis *a, const struct tt_event *ev, const struct tt_an_class *c,
		 struct an_thread *t);
void tt_an_calls_break(struct tt_analysis *a, bool reset);
struct an_core *tt_an_core(struct tt_analysis *a, const struct tt_event *ev);
int tt_an_series_new(struct tt_analysis *a);
int tt_an_series_col(struct tt_analysis *a, uint32_t id);
void tt_an_series_add(struct tt_analysis *a, uint64_t from_ns, uint64_t to_ns, int col);
void tt_an_series_reset(struct tt_analysis *a);
void tt_an_series_json(const struct tt_analysis *a, struct tt_an_out *o);
void tt_an_calls_json(const struct tt_analysis *a, struct tt_an_out *o);
void tt_an_calls_text(const struct tt_analysis *a, struct tt_an_out *o);
/* analysis_tservices.c: services per thread. */
int tt_an_tservices_new(struct tt_analysis *a);
void tt_an_tservices_count(struct tt_analysis *a, uint32_t thread, uint32_t id);
void tt_an_tservices_json(const struct tt_analysis *a, struct tt_an_out *o);
void tt_an_tservices_text(const struct tt_analysis *a, struct tt_an_out *o,
			  const char *(*name_of)(const struct tt_analysis *a, uint32_t id));
/* analysis_states.c: time per thread per scheduling state. */
int tt_an_states_new(struct tt_analysis *a);
void tt_an_states_free(struct tt_analysis *a);
size_t tt_an_states_memory(const struct tt_analysis *a);
void tt_an_states_event(struct tt_analysis *a, const struct tt_event *ev,
			const struct tt_an_class *c);
void tt_an_states_break(struct tt_analysis *a);
void tt_an_states_json(const struct tt_analysis *a, const struct an_thread *t,
		       struct tt_an_out *o);
void tt_an_states_text(const struct tt_analysis *a, const struct an_thread *const *th, unsigned n,
		       struct tt_an_out *o);

/* snprintf-like output: what fits goes to buf, pos counts what the whole needs. */
struct tt_an_out {
	char *buf;
	size_t len, pos;
};
void tt_an_put(struct tt_an_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* NUL-terminates what fit; returns the whole length. */
size_t tt_an_done(struct tt_an_out *o);

#endif
