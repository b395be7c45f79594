/* analysis/analysis.c: the record stream side of the analysis (analysis.h): execution profile,
 * the performance statistics, stack use, services, inversions, the format's counters.
 *
 * The rules are TraceX's (tml_library.cpp), evaluated one event late: who ran from event i to
 * event i+1 (TraceX's "next context" of event i) is the run field of event i+1 (the reader
 * derives it, proto/README-threadx.md "Who runs"), so each rule that needs the next context of
 * event i runs when event i+1 arrives. Where TraceX looks further ahead (the end of a priority
 * inversion: the blocked thread's next event), the analysis keeps the question open until the
 * answering event comes. Where TraceX counts wrongly, proto/README-threadx.md "Analysis" names
 * the place and both numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

uint32_t tt_an_hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	return x ^ (x >> 16);
}

unsigned tt_an_slots(unsigned max)
{
	unsigned n = 2;

	while (n < 2 * max) /* max is at most 2^20 */
		n *= 2;
	return n;
}

int tt_analysis_new(const struct tt_analysis_ops *ops, const struct tt_analysis_limits *lim,
		    struct tt_analysis **out)
{
	struct tt_analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->ops = ops;
	a->lim = lim ? *lim : (struct tt_analysis_limits){ 0 };
	if (!a->lim.max_threads)
		a->lim.max_threads = 256;
	if (!a->lim.max_services)
		a->lim.max_services = 512;
	if (!a->lim.max_inversions)
		a->lim.max_inversions = 64;
	if (!a->lim.max_calls)
		a->lim.max_calls = 1024;
	if (!a->lim.max_irqs)
		a->lim.max_irqs = 256;
	if (!a->lim.max_thread_services)
		a->lim.max_thread_services = 2048;
	if (!a->lim.series_buckets)
		a->lim.series_buckets = 600;
	if (!a->lim.bucket_ns)
		a->lim.bucket_ns = 100000000;
	if (a->lim.max_threads > (1u << 20) || a->lim.max_services > (1u << 20) ||
	    a->lim.max_inversions > (1u << 20) || a->lim.max_calls > (1u << 20) ||
	    a->lim.max_irqs > (1u << 20) || a->lim.max_thread_services > (1u << 20) ||
	    a->lim.series_buckets > (1u << 20) ||
	    a->lim.bucket_ns > 4000000000u) {
		free(a);
		return -EINVAL;
	}
	a->thread_slots = tt_an_slots(a->lim.max_threads);
	a->service_slots = tt_an_slots(a->lim.max_services);
	a->threads = calloc(a->thread_slots, sizeof(*a->threads));
	a->services = calloc(a->service_slots, sizeof(*a->services));
	a->counters = calloc(ops && ops->ncounters ? ops->ncounters : 1, sizeof(*a->counters));
	a->inv = calloc(a->lim.max_inversions, sizeof(*a->inv));
	a->call_slots = tt_an_slots(a->lim.max_calls);
	a->irq_slots = tt_an_slots(a->lim.max_irqs);
	a->calls = calloc(a->call_slots, sizeof(*a->calls));
	a->irqs = calloc(a->irq_slots, sizeof(*a->irqs));
	if (!a->threads || !a->services || !a->counters || !a->inv || !a->calls || !a->irqs ||
	    tt_an_series_new(a) < 0 || tt_an_states_new(a) < 0 || tt_an_tservices_new(a) < 0) {
		tt_analysis_free(a);
		return -ENOMEM;
	}
	a->t.epochs = 1;
	*out = a;
	return 0;
}

void tt_analysis_free(struct tt_analysis *a)
{
	if (!a)
		return;
	free(a->threads);
	free(a->services);
	free(a->counters);
	free(a->inv);
	free(a->calls);
	free(a->irqs);
	free(a->series.rows);
	free(a->tservices);
	tt_an_states_free(a);
	free(a);
}

/* id's slot: its entry, or the empty slot where it would go (the table has at least twice as
 * many slots as threads, so one is always empty). */
static struct an_thread *thread_slot(const struct tt_analysis *a, uint32_t id)
{
	unsigned slots = a->thread_slots, i = tt_an_first(tt_an_hash(id), slots);

	while (a->threads[i].used && a->threads[i].id != id)
		i = tt_an_next(i, slots);
	return &a->threads[i];
}

const struct an_thread *tt_an_thread_find(const struct tt_analysis *a, uint32_t id)
{
	const struct an_thread *t = thread_slot(a, id);

	return t->used ? t : NULL;
}

/* The thread's entry, made when new; NULL when the table is full (counted). */
struct an_thread *tt_an_thread_get(struct tt_analysis *a, uint32_t id)
{
	struct an_thread **recent = &a->recent_thread[(id ^ id >> 6 ^ id >> 12) & (AN_RECENT - 1)];
	struct an_thread *t;

	if (*recent && (*recent)->id == id)
		return *recent;
	t = thread_slot(a, id);
	if (!t->used) {
		if (a->nthreads >= a->lim.max_threads) {
			a->t.overflow_threads++;
			return NULL;
		}
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->id = id;
		t->prio = -1;
		t->reg_order = AN_NO_ORDER;
		t->state = AN_STATE_NONE;
		t->seen_order = a->nthreads++;
	}
	return *recent = t;
}

static void set_name(struct an_thread *t, const char *name)
{
	if (name && !t->name[0]) {
		size_t n = strnlen(name, AN_NAME - 1);
		memcpy(t->name, name, n);
		t->name[n] = 0;
	}
}

void tt_analysis_thread(struct tt_analysis *a, const struct tt_an_thread *r)
{
	struct an_thread *t = tt_an_thread_get(a, r->id);

	if (!t)
		return;
	if (r->name) {
		t->name[0] = 0;
		set_name(t, r->name);
	}
	if (t->prio < 0)
		t->prio = r->prio;
	t->stack_start = r->stack_start;
	t->stack_size = r->stack_size;
	if (t->reg_order == AN_NO_ORDER)
		t->reg_order = a->nreg++;
}

void tt_analysis_stack_painted(struct tt_analysis *a, const struct tt_stack_painted *p)
{
	struct an_thread *t = tt_an_thread_get(a, p->id);

	if (!t)
		return;
	if (!t->stack_size) { /* the scanner's bounds are the registry's */
		t->stack_start = p->start;
		t->stack_size = p->size;
	}
	t->painted_given = true;
	t->painted = p->state;
	t->painted_free = p->free;
	t->painted_used = p->used;
	t->painted_overflow = p->overflow;
}

void tt_analysis_scan_cost(struct tt_analysis *a, const struct tt_analysis_scan_cost *c)
{
	a->have_scan = true;
	a->scan = *c;
}

void tt_analysis_thread_cb(void *arg, const struct tt_an_thread *t)
{
	tt_analysis_thread(arg, t);
}

static void count_service(struct tt_analysis *a, const struct tt_event *ev)
{
	struct an_service **recent = &a->recent_service[ev->id & (AN_RECENT - 1)];
	unsigned slots = a->service_slots, i;

	if (*recent && (*recent)->id == ev->id) {
		(*recent)->count++;
		return;
	}
	i = tt_an_first(tt_an_hash(ev->id), slots);
	for (unsigned n = 0; n < slots; n++, i = tt_an_next(i, slots)) {
		struct an_service *s = &a->services[i];
		if (s->used && s->id == ev->id) {
			s->count++;
			*recent = s;
			return;
		}
		if (!s->used) {
			if (a->nservices >= a->lim.max_services)
				break;
			*s = (struct an_service){ .id = ev->id, .used = true, .count = 1,
						  .order = a->nservices++ };
			if (ev->name)
				snprintf(s->name, sizeof(s->name), "%s", ev->name);
			*recent = s;
			return;
		}
	}
	a->t.overflow_services++;
}

/* The stream's continuity ends (a gap, a reset): what needs consecutive events starts over. */
static void break_stream(struct tt_analysis *a)
{
	a->after_gap = a->have_prev;
	a->cur = 0;
	a->pending_preempt = a->pending_slice = false;
	a->isr_nest = 0;
	for (unsigned i = 0; i < AN_WINDOWS; i++)
		a->win[i].open = false;
	for (uint64_t k = 0; k < a->lim.max_inversions && k < a->ninv; k++) {
		struct an_inversion *v = &a->inv[k];
		if (!v->closing)
			continue;
		v->closing = false;
		v->cut = true; /* its end, if it came, was not seen */
		v->last_time = a->prev_time;
		v->last_ns = a->prev_ns;
	}
	a->nopen = a->nclosing = 0;
	tt_an_calls_break(a, false);
	tt_an_states_break(a);
}

static uint32_t run_ctx(const struct tt_event *ev)
{
	switch (ev->run) {
	case TT_RUN_THREAD:
		return ev->run_thread;
	case TT_RUN_ISR:
		return AN_CTX_ISR;
	case TT_RUN_INIT:
		return AN_CTX_INIT;
	default:
		return AN_CTX_IDLE;
	}
}

static uint32_t ev_ctx(const struct tt_event *ev)
{
	if (ev->ctx == TT_CTX_ISR)
		return AN_CTX_ISR;
	if (ev->ctx == TT_CTX_INIT)
		return AN_CTX_INIT;
	return ev->ctx == TT_CTX_THREAD ? ev->thread : AN_CTX_IDLE;
}

static bool is_thread(uint32_t c)
{
	return c != AN_CTX_IDLE && c != AN_CTX_ISR && c != AN_CTX_INIT;
}

/* Time from the previous event to ev, to whoever ran (ev->run); unknown after a gap. */
static void profile(struct tt_analysis *a, const struct tt_event *ev, bool known)
{
	uint64_t dt = ev->time >= a->prev_time ? ev->time - a->prev_time : 0;
	uint64_t dns = ev->has_ns && a->prev_has_ns && ev->ns >= a->prev_ns ? ev->ns - a->prev_ns : 0;
	struct an_thread *t;

	int col = AN_COL_UNKNOWN;

	a->t.span_ticks += dt;
	if (known && ev->run == TT_RUN_THREAD)
		col = tt_an_series_col(a, ev->run_thread);
	else if (known && ev->run == TT_RUN_ISR)
		col = AN_COL_ISR;
	else if (known && (ev->run == TT_RUN_IDLE || ev->run == TT_RUN_INIT))
		col = AN_COL_IDLE;
	if (ev->has_ns && a->prev_has_ns)
		tt_an_series_add(a, a->prev_ns, ev->ns, col);
	if (!known) {
		a->t.unknown_ticks += dt;
		return;
	}
	switch (ev->run) {
	case TT_RUN_THREAD:
		if ((t = tt_an_thread_get(a, ev->run_thread)) != NULL) {
			t->ticks += dt;
			t->ns += dns;
			set_name(t, ev->run_name);
		} else {
			a->t.other_ticks += dt;
		}
		break;
	case TT_RUN_ISR:
		a->t.isr_ticks += dt;
		a->t.isr_ns += dns;
		break;
	case TT_RUN_IDLE:
		a->t.idle_ticks += dt;
		a->t.idle_ns += dns;
		break;
	case TT_RUN_INIT:
		a->t.init_ticks += dt;
		break;
	default:
		a->t.unknown_ticks += dt;
		break;
	}
}

/* A format that traces its switches: the time from the previous event on ev's core to ev goes to
 * the interrupts when one is open on the core, else to whom the core's last switch named
 * (unknown before it, and across a gap). */
static void profile_core(struct tt_analysis *a, const struct tt_event *ev)
{
	struct an_core *co = tt_an_core(a, ev);
	struct an_thread *t;

	/* records of no context (QNX's control records, some stamped before the time base is
	 * known) and records stamped before the core's last one move no clock */
	if (ev->ctx == TT_CTX_UNKNOWN || (co->have && ev->time < co->prev_time))
		return;
	if (co->have) {
		uint64_t dt = ev->time >= co->prev_time ? ev->time - co->prev_time : 0;
		uint64_t dns = ev->has_ns && ev->ns >= co->prev_ns ? ev->ns - co->prev_ns : 0;
		a->t.span_ticks += dt;
		co->span += dt;
		if (ev->has_ns && ev->ns >= co->prev_ns)
			tt_an_series_add(a, co->prev_ns, ev->ns, co->irq_depth ? AN_COL_ISR :
					 !co->known ? AN_COL_UNKNOWN : tt_an_series_col(a, co->sw_cur));
		if (co->irq_depth)
			a->t.isr_ticks += dt, a->t.isr_ns += dns, co->isr_ticks += dt;
		else if (!co->known)
			a->t.unknown_ticks += dt, co->unknown_ticks += dt;
		else if ((t = tt_an_thread_get(a, co->sw_cur)) != NULL)
			t->ticks += dt, t->ns += dns, co->thread_ticks += dt;
		else
			a->t.other_ticks += dt, co->thread_ticks += dt;
	}
	co->have = true;
	co->prev_time = ev->time;
	co->prev_ns = ev->ns;
}

/* The previous event's next context nc is known: TraceX's context switch rule (a thread
 * context, or idle, other than the current thread), and a preemption when a resumption or time
 * slice since the last thread context is followed by another thread than the current one. */
static void next_context(struct tt_analysis *a, uint32_t nc)
{
	struct an_thread *t;

	if (!a->cur && a->prev_ctx != AN_CTX_ISR && a->prev_ctx != AN_CTX_INIT)
		a->cur = a->prev_ctx;
	if (a->cur && nc != AN_CTX_ISR && nc != AN_CTX_INIT && nc != a->cur) {
		a->t.context_switches++;
		if (is_thread(nc) && (t = tt_an_thread_get(a, nc)) != NULL)
			t->switches++;
	}
	if (!is_thread(nc))
		return;
	if (a->pending_preempt && a->cur && nc != a->cur) {
		a->t.preemptions++;
		if ((t = tt_an_thread_get(a, a->cur)) != NULL)
			t->preempted++;
		if (a->pending_slice)
			a->t.time_slices++;
	}
	a->pending_preempt = a->pending_slice = false;
	a->cur = nc;
}

/* TraceX's interrupt count: each ISR_ENTER (nested when one is in progress), and events from
 * an interrupt with none in progress (a port that does not trace ISR entry). */
static void interrupts(struct tt_analysis *a, uint32_t ctx, uint32_t flags)
{
	if (flags & TT_AN_ISR_ENTER) {
		a->t.interrupts++;
		if (a->isr_nest)
			a->t.nested_interrupts++;
		a->isr_nest++;
	} else if (flags & TT_AN_ISR_EXIT) {
		if (a->isr_nest)
			a->isr_nest--;
	} else if (ctx == AN_CTX_ISR && !a->isr_nest) {
		a->t.interrupts++;
	} else if (ctx != AN_CTX_ISR) {
		a->isr_nest = 0;
	}
}

/* p is more urgent than q. */
static bool urgent(const struct tt_analysis *a, int32_t p, int32_t q)
{
	return a->ops && a->ops->prio_low_is_urgent ? p < q : p > q;
}

static struct an_inversion *inv_add(struct tt_analysis *a, const struct an_window *w, bool bad,
				    const struct tt_event *ev)
{
	struct an_inversion *v = &a->inv[a->ninv % a->lim.max_inversions];

	if (a->ninv >= a->lim.max_inversions && v->closing)
		a->nclosing--; /* the ring forgets it before its end came */
	*v = (struct an_inversion){ .bad = bad, .mutex = w->mutex, .blocked = w->blocked,
				    .owner = w->owner, .blocked_prio = w->blocked_prio,
				    .owner_prio = w->owner_prio, .start_event = w->start_event,
				    .start_seq = a->seq, .start_time = ev->time, .start_ns = ev->ns,
				    .start_has_ns = ev->has_ns };
	a->ninv++;
	return v;
}

/* A thread blocks on a mutex a less urgent thread owns: a deterministic inversion opens (one
 * per mutex at a time, as TraceX counts). */
static void inv_open(struct tt_analysis *a, const struct tt_event *ev, const struct tt_an_class *c,
		     uint64_t n)
{
	struct an_thread *o = tt_an_thread_get(a, c->other), *b;
	struct an_window *w = NULL;

	if (!o || o->prio < 0 || ev->prio < 0 || !urgent(a, ev->prio, o->prio))
		return;
	for (unsigned i = 0; i < AN_WINDOWS; i++) {
		if (a->win[i].open && a->win[i].mutex == c->obj)
			return;
		if (!a->win[i].open && !w)
			w = &a->win[i];
	}
	if (!w)
		return;
	*w = (struct an_window){ .open = true, .mutex = c->obj, .blocked = ev->thread,
				 .owner = c->other, .blocked_prio = ev->prio,
				 .owner_prio = o->prio, .start_event = n };
	a->t.inversions++;
	a->nopen++;
	a->nclosing++;
	if ((b = tt_an_thread_get(a, ev->thread)) != NULL)
		b->inversions++;
	inv_add(a, w, false, ev)->closing = true;
	w->inv_seq = a->ninv - 1;
}

/* The inversion entry of window w, when the ring still holds it. */
static struct an_inversion *inv_of(struct tt_analysis *a, const struct an_window *w)
{
	return a->ninv - w->inv_seq <= a->lim.max_inversions ?
		       &a->inv[w->inv_seq % a->lim.max_inversions] : NULL;
}

/* TraceX's end of an inversion: the blocked thread's first event once its window ended (a
 * release, or a third thread ran). Entries waiting for this thread get this event. */
static void inv_ends(struct tt_analysis *a, const struct tt_event *ev, uint64_t n)
{
	uint64_t k = a->ninv < a->lim.max_inversions ? a->ninv : a->lim.max_inversions;

	for (uint64_t i = 0; i < k && a->nclosing; i++) {
		struct an_inversion *v = &a->inv[i];
		if (v->closing && v->released && v->blocked == ev->thread) {
			v->end_known = true;
			v->closing = false;
			v->end_event = n;
			v->end_seq = a->seq;
			v->end_time = ev->time;
			v->end_ns = ev->ns;
			v->end_has_ns = ev->has_ns;
			a->nclosing--;
		}
	}
}

/* Window w ended: its inversion closes at the blocked thread's next event. */
static void inv_released(struct tt_analysis *a, struct an_window *w, bool bad)
{
	struct an_inversion *v = inv_of(a, w);

	w->open = false;
	a->nopen--;
	if (v) {
		v->released = true;
		v->bad = v->bad || bad;
	}
}

static void an_inversions(struct tt_analysis *a, const struct tt_event *ev,
			 const struct tt_an_class *c, uint64_t n)
{
	inv_ends(a, ev, n);
	if ((c->flags & TT_AN_MUTEX_GET) && c->other) {
		inv_open(a, ev, c, n);
		return;
	}
	for (unsigned i = 0; i < AN_WINDOWS && a->nopen; i++) {
		struct an_window *w = &a->win[i];
		if (!w->open)
			continue;
		if ((c->flags & TT_AN_MUTEX_PUT) && (c->flags & TT_AN_RELEASE) &&
		    w->mutex == c->obj) {
			inv_released(a, w, false);
			continue;
		}
		/* a third thread, less urgent than the blocked one but more than the owner, runs
		 * while the window is open: non-deterministic (the first one per window) */
		if (ev->thread != w->owner && ev->thread != w->blocked && ev->prio >= 0 &&
		    urgent(a, w->blocked_prio, ev->prio) && urgent(a, ev->prio, w->owner_prio)) {
			a->t.bad_inversions++;
			inv_released(a, w, true);
		}
	}
}

static void stack(struct tt_analysis *a, const struct tt_event *ev, const struct tt_an_class *c,
		  uint64_t n)
{
	struct an_thread *t;

	if (!(c->flags & TT_AN_SP) || ev->ctx != TT_CTX_THREAD ||
	    !(t = tt_an_thread_get(a, ev->thread)))
		return;
	if (!t->have_sp || c->sp < t->min_sp) {
		t->have_sp = true;
		t->min_sp = c->sp;
		t->min_sp_event = n;
	}
}

static void event(struct tt_analysis *a, const struct tt_event *ev)
{
	struct tt_an_class c = { 0 };
	uint32_t ctx = ev_ctx(ev);
	uint64_t n = a->t.events++;
	struct an_thread *t = NULL;

	if (a->ops && a->ops->classify)
		a->ops->classify(ev, &c);
	if (a->ops && a->ops->traces_switches) {
		profile_core(a, ev);
	} else if (a->have_prev) {
		bool known = !a->after_gap && ev->run != TT_RUN_NONE;
		profile(a, ev, known);
		if (known)
			next_context(a, run_ctx(ev));
	}
	a->after_gap = false;
	if (ev->ctx == TT_CTX_THREAD && (t = tt_an_thread_get(a, ev->thread)) != NULL) {
		t->events++;
		set_name(t, ev->thread_name);
		if (ev->prio >= 0)
			t->prio = ev->prio;
	}
	interrupts(a, ctx, c.flags);
	if (c.flags & TT_AN_SUSPEND) {
		a->t.suspensions++;
		if (t)
			t->suspensions++;
	}
	if (c.flags & TT_AN_RESUME) {
		a->t.resumptions++;
		a->pending_preempt = true;
		if (t)
			t->resumptions++;
	}
	if (c.flags & TT_AN_TIME_SLICE)
		a->pending_preempt = a->pending_slice = true;
	if (c.flags & TT_AN_PREEMPTED) {
		a->t.preemptions++;
		if (t)
			t->preempted++;
	}
	if (t && (c.flags & TT_AN_THREAD_START)) {
		t->born = true, t->born_time = ev->time;
		t->died = false;
	}
	if (t && (c.flags & TT_AN_THREAD_STOP))
		t->died = true, t->died_time = ev->time;
	count_service(a, ev);
	if (t)
		tt_an_tservices_count(a, t->id, ev->id);
	stack(a, ev, &c, n);
	tt_an_calls(a, ev, &c, t);
	tt_an_states_event(a, ev, &c);
	if (ev->ctx == TT_CTX_THREAD)
		an_inversions(a, ev, &c, n);
	for (unsigned i = 0; i < c.ncount && a->ops; i++)
		if (c.count[i].idx < a->ops->ncounters)
			a->counters[c.count[i].idx] += c.count[i].add;
	a->have_prev = true;
	a->prev_time = ev->time;
	a->prev_ns = ev->ns;
	a->prev_has_ns = ev->has_ns;
	if (ev->has_ns)
		a->t.has_ns = true;
	a->prev_ctx = ctx;
}

void tt_analysis_record(struct tt_analysis *a, const struct tt_record *rec)
{
	tt_analysis_record_seq(a, rec, a->seq + 1);
}

void tt_analysis_record_seq(struct tt_analysis *a, const struct tt_record *rec, uint64_t seq)
{
	a->seq = seq;
	switch (rec->kind) {
	case TT_REC_EVENT:
		event(a, &rec->u.ev);
		break;
	case TT_REC_GAP:
		a->t.gaps++;
		a->t.lost += rec->u.gap.lost;
		break_stream(a);
		break;
	case TT_REC_RESET:
		if (a->have_prev || a->t.events) {
			a->t.epochs++;
			a->epoch_start = a->t; /* what the earlier epochs add up to */
		}
		break_stream(a);
		/* a new epoch's time starts over: nothing spans the reset */
		a->after_gap = false;
		a->have_prev = false;
		tt_an_calls_break(a, true);
		tt_an_series_reset(a);
		break;
	}
}

void tt_analysis_emit(void *arg, const struct tt_record *rec)
{
	tt_analysis_record(arg, rec);
}

void tt_analysis_totals(const struct tt_analysis *a, struct tt_analysis_totals *out)
{
	*out = a->t;
}

size_t tt_analysis_memory(const struct tt_analysis *a)
{
	return sizeof(*a) + a->thread_slots * sizeof(*a->threads) +
	       a->service_slots * sizeof(*a->services) +
	       (a->ops && a->ops->ncounters ? a->ops->ncounters : 1) * sizeof(*a->counters) +
	       a->lim.max_inversions * sizeof(*a->inv) + a->call_slots * sizeof(*a->calls) +
	       a->irq_slots * sizeof(*a->irqs) + a->series.nbuckets * sizeof(*a->series.rows) +
	       a->tservice_slots * sizeof(*a->tservices) + tt_an_states_memory(a);
}

uint64_t tt_analysis_ninversions(const struct tt_analysis *a)
{
	return a->ninv < a->lim.max_inversions ? a->ninv : a->lim.max_inversions;
}

static uint64_t diff(uint64_t to, uint64_t from)
{
	return to > from ? to - from : 0;
}

int tt_analysis_inversion_at(const struct tt_analysis *a, uint64_t i,
			     struct tt_analysis_inversion *out)
{
	uint64_t k = tt_analysis_ninversions(a), num = a->ninv - k + i;
	const struct an_inversion *v;

	if (i >= k)
		return -ENOENT;
	v = &a->inv[num % a->lim.max_inversions];
	*out = (struct tt_analysis_inversion){
		.number = num, .deterministic = !v->bad, .mutex = v->mutex,
		.blocked = v->blocked, .owner = v->owner, .blocked_prio = v->blocked_prio,
		.owner_prio = v->owner_prio, .start_event = v->start_event,
		.start_seq = v->start_seq, .start_time = v->start_time, .start_ns = v->start_ns };
	if (v->end_known) {
		out->state = TT_AN_INV_CLOSED;
		out->end_event = v->end_event;
		out->end_seq = v->end_seq;
		out->end_time = v->end_time;
		out->end_ns = v->end_ns;
		out->ticks = diff(v->end_time, v->start_time);
		out->has_ns = v->start_has_ns && v->end_has_ns;
		out->ns = diff(v->end_ns, v->start_ns);
	} else {
		/* open: its age by the newest event; cut: to the last event before the break */
		out->state = v->cut ? TT_AN_INV_CUT : TT_AN_INV_OPEN;
		out->ticks = diff(v->cut ? v->last_time : a->prev_time, v->start_time);
		out->has_ns = v->start_has_ns && (v->cut || a->prev_has_ns);
		out->ns = diff(v->cut ? v->last_ns : a->prev_ns, v->start_ns);
	}
	return 0;
}
