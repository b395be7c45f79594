/* analysis/analysis_report.c: the analysis as JSON (proto/PROTOCOL.md "stats") and as text laid
 * out like TraceX's text export ("save as text") sections, and the accessors for metrics. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "json.h"

void tt_an_put(struct tt_an_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->pos < o->len ? o->buf + o->pos : NULL,
		      o->pos < o->len ? o->len - o->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->pos += (size_t)n;
}

size_t tt_an_done(struct tt_an_out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = 0;
	return o->pos;
}

/* s as a JSON string literal, or null. */
static void put_str(struct tt_an_out *o, const char *s)
{
	char tmp[AN_NAME * 6 + 8];
	int n;

	if (!s || !*s) {
		tt_an_put(o, "null");
		return;
	}
	n = tt_json_string(tmp, sizeof(tmp), s, AN_NAME);
	tt_an_put(o, "%.*s", n > 0 ? n : 2, n > 0 ? tmp : "\"\"");
}

static int cmp_thread(const void *x, const void *y)
{
	const struct an_thread *a = *(const struct an_thread *const *)x;
	const struct an_thread *b = *(const struct an_thread *const *)y;

	if (a->reg_order != b->reg_order)
		return a->reg_order < b->reg_order ? -1 : 1;
	return a->seen_order < b->seen_order ? -1 : a->seen_order > b->seen_order;
}

/* The threads in display order (registry order, then first seen): caller frees; NULL when
 * there is none or no memory (*n = 0). */
static const struct an_thread **sorted_threads(const struct tt_analysis *a, unsigned *n)
{
	const struct an_thread **v = a->nthreads ? malloc(a->nthreads * sizeof(*v)) : NULL;

	*n = 0;
	if (!v)
		return NULL;
	for (unsigned i = 0; i < a->thread_slots; i++)
		if (a->threads[i].used)
			v[(*n)++] = &a->threads[i];
	qsort(v, *n, sizeof(*v), cmp_thread);
	return v;
}

/* The services in TraceX's order: first seen, then its exchange sort by count, descending
 * (not stable: the order of equal counts is TraceX's too). Caller frees. */
static const struct an_service **sorted_services(const struct tt_analysis *a)
{
	const struct an_service **v = a->nservices ? calloc(a->nservices, sizeof(*v)) : NULL;

	if (!v)
		return NULL;
	for (unsigned i = 0; i < a->service_slots; i++)
		if (a->services[i].used)
			v[a->services[i].order] = &a->services[i];
	for (unsigned i = 0; i < a->nservices; i++)
		for (unsigned j = i + 1; j < a->nservices; j++)
			if (v[i]->count < v[j]->count) {
				const struct an_service *t = v[i];
				v[i] = v[j];
				v[j] = t;
			}
	return v;
}

/* Bytes of stack never reached below the lowest traced stack pointer (TraceX's "Minimum"):
 * the stack size when no pointer was seen inside it. */
static uint64_t stack_free(const struct an_thread *t)
{
	uint64_t f;

	if (!t->have_sp || !t->stack_size)
		return t->stack_size;
	f = t->min_sp < t->stack_start ? 0 : t->min_sp - t->stack_start;
	return f < t->stack_size ? f : t->stack_size;
}

/* The figure read from RAM, when the daemon gave one: its own source label, and what kept it
 * from a number (no fill pattern, unreadable) said as such. */
static const char *painted_state(enum tt_stack_paint st)
{
	switch (st) {
	case TT_PAINT_OK: return "painted";
	case TT_PAINT_ABSENT: return "no fill pattern";
	case TT_PAINT_UNREADABLE: return "unreadable";
	default: return "scanning";
	}
}

static void json_painted(struct tt_an_out *o, const struct an_thread *t)
{
	if (!t->painted_given)
		return;
	tt_an_put(o, ",\"painted\":{\"source\":\"painted stack\",\"state\":\"%s\"",
		  painted_state(t->painted));
	if (t->painted == TT_PAINT_OK)
		tt_an_put(o, ",\"free\":%" PRIu32 ",\"used\":%" PRIu32 ",\"overflow\":%s",
			  t->painted_free, t->painted_used, t->painted_overflow ? "true" : "false");
	tt_an_put(o, "}");
}

static void json_thread(struct tt_an_out *o, const struct tt_analysis *a,
			const struct an_thread *t, bool has_ns)
{
	tt_an_put(o, "{\"id\":%" PRIu32 ",\"name\":", t->id);
	put_str(o, t->name);
	tt_an_put(o, ",\"priority\":%" PRId32 ",\"ticks\":%" PRIu64, t->prio, t->ticks);
	if (has_ns)
		tt_an_put(o, ",\"cpu_ns\":%" PRIu64, t->ns);
	tt_an_put(o, ",\"context_switches\":%" PRIu64 ",\"preemptions\":%" PRIu64
	       ",\"suspensions\":%" PRIu64 ",\"resumptions\":%" PRIu64 ",\"events\":%" PRIu64
	       ",\"inversions\":%" PRIu64, t->switches, t->preempted, t->suspensions,
	    t->resumptions, t->events, t->inversions);
	if (t->stack_size || t->have_sp) {
		/* a format whose events carry no stack pointer (NuttX) gives bounds, no traced
		 * figure: "registry", and no min_free (the whole stack would be a number beyond
		 * the evidence) */
		bool traced = t->have_sp || (a->ops && (a->ops->flags & TT_AN_SP));
		tt_an_put(o, ",\"stack\":{\"source\":\"%s\"",
			  traced ? "traced stack pointer" : "registry");
		if (t->stack_size)
			tt_an_put(o, ",\"start\":%" PRIu64 ",\"size\":%" PRIu32, t->stack_start,
			    t->stack_size);
		if (t->have_sp)
			tt_an_put(o, ",\"lowest_sp\":%" PRIu64 ",\"event\":%" PRIu64, t->min_sp,
			    t->min_sp_event);
		if (t->stack_size && traced)
			tt_an_put(o, ",\"min_free\":%" PRIu64, stack_free(t));
		json_painted(o, t);
		tt_an_put(o, "}");
	}
	if (t->born || t->died) {
		tt_an_put(o, ",\"life\":{");
		if (t->born)
			tt_an_put(o, "\"start\":%" PRIu64 "%s", t->born_time, t->died ? "," : "");
		if (t->died)
			tt_an_put(o, "\"stop\":%" PRIu64, t->died_time);
		if (t->born && t->died && t->died_time >= t->born_time)
			tt_an_put(o, ",\"ticks\":%" PRIu64, t->died_time - t->born_time);
		tt_an_put(o, "}");
	}
	tt_an_states_json(a, t, o);
	tt_an_put(o, "}");
}

static const char *const inv_state[] = { [TT_AN_INV_OPEN] = "open",
	[TT_AN_INV_CLOSED] = "closed", [TT_AN_INV_CUT] = "cut" };

static void json_tail(const struct tt_analysis *a, struct tt_an_out *o)
{
	const struct an_service **sv = sorted_services(a);
	uint64_t k = tt_analysis_ninversions(a);

	tt_an_put(o, "],\"services\":[");
	for (unsigned i = 0; sv && i < a->nservices; i++) {
		tt_an_put(o, "%s{\"id\":%" PRIu32 ",\"name\":", i ? "," : "", sv[i]->id);
		put_str(o, sv[i]->name);
		tt_an_put(o, ",\"count\":%" PRIu64 "}", sv[i]->count);
	}
	free(sv);
	tt_an_put(o, "]");
	tt_an_tservices_json(a, o);
	tt_an_calls_json(a, o);
	tt_an_put(o, ",\"counters\":{");
	for (unsigned i = 0; a->ops && i < a->ops->ncounters; i++)
		tt_an_put(o, "%s\"%s\":%" PRIu64, i ? "," : "", a->ops->counters[i].key, a->counters[i]);
	tt_an_put(o, "},\"inversions\":[");
	struct tt_analysis_inversion v;
	for (uint64_t i = 0; tt_analysis_inversion_at(a, i, &v) == 0; i++) {
		tt_an_put(o, "%s{\"deterministic\":%s,\"state\":\"%s\",\"mutex\":%" PRIu32
		       ",\"blocked\":%" PRIu32 ",\"blocked_priority\":%" PRId32 ",\"owner\":%" PRIu32
		       ",\"owner_priority\":%" PRId32 ",\"start_event\":%" PRIu64
		       ",\"start_seq\":%" PRIu64 ",\"start_time\":%" PRIu64,
		    i ? "," : "", v.deterministic ? "true" : "false", inv_state[v.state], v.mutex,
		    v.blocked, v.blocked_prio, v.owner, v.owner_prio, v.start_event, v.start_seq,
		    v.start_time);
		if (v.state == TT_AN_INV_CLOSED)
			tt_an_put(o, ",\"end_event\":%" PRIu64 ",\"end_seq\":%" PRIu64
			       ",\"end_time\":%" PRIu64, v.end_event, v.end_seq, v.end_time);
		tt_an_put(o, ",\"duration_ticks\":%" PRIu64, v.ticks);
		if (v.has_ns)
			tt_an_put(o, ",\"duration_ns\":%" PRIu64, v.ns);
		tt_an_put(o, "}");
	}
	tt_an_put(o, "],\"overflow\":{\"threads\":%" PRIu64 ",\"services\":%" PRIu64
	       ",\"inversions\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"irqs\":%" PRIu64
	       ",\"thread_services\":%" PRIu64 "}}",
	    a->t.overflow_threads, a->t.overflow_services, a->ninv - k, a->t.overflow_calls,
	    a->t.overflow_irqs, a->t.overflow_thread_services);
}

/* "has": the figures the format can give at all (the flags its classify can set); the others
 * are 0 because the format does not trace them, not because nothing happened. */
static void json_has(struct tt_an_out *o, const struct tt_analysis_ops *ops)
{
	uint32_t f = ops ? ops->flags : 0;
	bool derived = ops && !ops->traces_switches; /* preemptions by TraceX's next-context rules */
	const struct { bool on; const char *key; } has[] = {
		{ f & TT_AN_SUSPEND, "suspensions" },
		{ f & TT_AN_RESUME, "resumptions" },
		{ (derived && (f & (TT_AN_RESUME | TT_AN_TIME_SLICE))) || (f & TT_AN_PREEMPTED),
		  "preemptions" },
		{ derived && (f & TT_AN_TIME_SLICE), "time_slices" },
		{ f & TT_AN_MUTEX_GET, "inversions" },
		{ f & TT_AN_SP, "stack" },
		{ f & TT_AN_IRQ, "irqs" },
		{ f & TT_AN_CALL_ENTER, "calls" },
		{ f & TT_AN_STATE, "states" },
		{ f & TT_AN_THREAD_START, "life" },
	};
	bool first = true;

	tt_an_put(o, ",\"has\":[");
	for (size_t i = 0; i < sizeof(has) / sizeof(has[0]); i++)
		if (has[i].on) {
			tt_an_put(o, "%s\"%s\"", first ? "" : ",", has[i].key);
			first = false;
		}
	tt_an_put(o, "]");
}

size_t tt_analysis_json(const struct tt_analysis *a, char *buf, size_t len)
{
	struct tt_an_out o = { buf, len, 0 };
	const struct tt_analysis_totals *t = &a->t;
	unsigned n;
	const struct an_thread **th = sorted_threads(a, &n);

	tt_an_put(&o, "{\"events\":%" PRIu64 ",\"gaps\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"epochs\":%" PRIu64 ",\"span_ticks\":%" PRIu64,
	    t->events, t->gaps, t->lost, t->epochs, t->span_ticks);
	json_has(&o, a->ops);
	tt_an_put(&o, ",\"epoch_start\":{\"events\":%" PRIu64 ",\"gaps\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"span_ticks\":%" PRIu64 ",\"context_switches\":%" PRIu64
		",\"interrupts\":%" PRIu64 "}",
	    a->epoch_start.events, a->epoch_start.gaps, a->epoch_start.lost,
	    a->epoch_start.span_ticks, a->epoch_start.context_switches, a->epoch_start.interrupts);
	tt_an_put(&o, ",\"performance\":{\"context_switches\":%" PRIu64 ",\"preemptions\":%" PRIu64
		",\"time_slices\":%" PRIu64 ",\"suspensions\":%" PRIu64 ",\"resumptions\":%" PRIu64
		",\"interrupts\":%" PRIu64 ",\"nested_interrupts\":%" PRIu64
		",\"priority_inversions\":%" PRIu64 ",\"nondeterministic_inversions\":%" PRIu64 "}",
	    t->context_switches, t->preemptions, t->time_slices, t->suspensions, t->resumptions,
	    t->interrupts, t->nested_interrupts, t->inversions, t->bad_inversions);
	tt_an_put(&o, ",\"execution\":{\"interrupt_ticks\":%" PRIu64 ",\"idle_ticks\":%" PRIu64
		",\"init_ticks\":%" PRIu64 ",\"unknown_ticks\":%" PRIu64
		",\"other_threads_ticks\":%" PRIu64,
	    t->isr_ticks, t->idle_ticks, t->init_ticks, t->unknown_ticks, t->other_ticks);
	if (t->has_ns)
		tt_an_put(&o, ",\"interrupt_ns\":%" PRIu64 ",\"idle_ns\":%" PRIu64, t->isr_ns, t->idle_ns);
	tt_an_put(&o, "}");
	if (a->have_scan)
		tt_an_put(&o, ",\"stack_scan\":{\"budget_bytes_per_s\":%" PRIu32 ",\"bytes\":%" PRIu64
			  ",\"bytes_per_s\":%.1f,\"threads\":%u,\"threads_not_scanned\":%u}",
			  a->scan.budget, a->scan.bytes, a->scan.bytes_per_s, a->scan.threads,
			  a->scan.threads_over);
	tt_an_series_json(a, &o);
	tt_an_put(&o, ",\"threads\":[");
	for (unsigned i = 0; i < n; i++) {
		tt_an_put(&o, i ? "," : "");
		json_thread(&o, a, th[i], t->has_ns);
	}
	free(th);
	json_tail(a, &o);
	return tt_an_done(&o);
}

unsigned tt_analysis_nthreads(const struct tt_analysis *a)
{
	return a->nthreads;
}

static void public_thread(const struct an_thread *t, struct tt_analysis_thread *out)
{
	*out = (struct tt_analysis_thread){
		.id = t->id, .name = t->name[0] ? t->name : NULL, .prio = t->prio,
		.ticks = t->ticks, .ns = t->ns, .context_switches = t->switches,
		.preemptions = t->preempted, .suspensions = t->suspensions,
		.resumptions = t->resumptions, .events = t->events, .inversions = t->inversions,
		.stack_size = t->stack_size, .stack_start = t->stack_start, .have_sp = t->have_sp,
		.lowest_sp = t->min_sp, .lowest_sp_event = t->min_sp_event,
		.painted_given = t->painted_given, .painted = t->painted, .painted_free = t->painted_free,
		.painted_used = t->painted_used, .painted_overflow = t->painted_overflow,
	};
}

int tt_analysis_thread_at(const struct tt_analysis *a, unsigned i, struct tt_analysis_thread *out)
{
	unsigned n;
	const struct an_thread **v = sorted_threads(a, &n);
	const struct an_thread *t = v && i < n ? v[i] : NULL;

	if (t)
		public_thread(t, out);
	free(v);
	return t ? 0 : -ENOENT;
}

void tt_analysis_each_thread(const struct tt_analysis *a,
			     void (*cb)(void *arg, unsigned i, const struct tt_analysis_thread *t),
			     void *arg)
{
	unsigned n;
	const struct an_thread **v = sorted_threads(a, &n);
	struct tt_analysis_thread t;

	for (unsigned i = 0; i < n; i++) {
		public_thread(v[i], &t);
		cb(arg, i, &t);
	}
	free(v);
}

uint64_t tt_analysis_counter(const struct tt_analysis *a, unsigned i)
{
	return a->ops && i < a->ops->ncounters ? a->counters[i] : 0;
}

int tt_analysis_service_at(const struct tt_analysis *a, unsigned i, uint32_t *id,
			   const char **name, uint64_t *count)
{
	const struct an_service **v = sorted_services(a);
	int rc = -ENOENT;

	if (v && i < a->nservices) {
		*id = v[i]->id;
		*name = v[i]->name;
		*count = v[i]->count;
		rc = 0;
	}
	free(v);
	return rc;
}

/* ---- text, laid out like TraceX's text export ---------------------------------------------- */

#define STARS "**************"

/* TraceX's percentage column: "<1%" for a nonzero share under one percent, else the whole
 * percent, two digits. */
static void put_share(struct tt_an_out *o, uint64_t ticks, uint64_t span)
{
	if (ticks && ticks * 100 < span)
		tt_an_put(o, "        <1%%");
	else
		tt_an_put(o, "        %02" PRIu64 "%%", span ? ticks * 100 / span : 0);
}

static void text_execution(struct tt_an_out *o, const struct tt_analysis *a,
			   const struct an_thread **th, unsigned n)
{
	const struct tt_analysis_totals *t = &a->t;

	tt_an_put(o, STARS " Thread Execution *****************************\n"
	       "   Total Ticks      Percentage          Name\n\n");
	for (unsigned i = 0; i < n; i++) {
		tt_an_put(o, " %020" PRIu64, th[i]->ticks);
		put_share(o, th[i]->ticks, t->span_ticks);
		if (th[i]->name[0])
			tt_an_put(o, "  %s\n", th[i]->name);
		else
			tt_an_put(o, "  0x%08" PRIx32 "\n", th[i]->id);
	}
	tt_an_put(o, " %020" PRIu64, t->idle_ticks);
	put_share(o, t->idle_ticks, t->span_ticks);
	tt_an_put(o, "  Idle System\n %020" PRIu64, t->isr_ticks);
	put_share(o, t->isr_ticks, t->span_ticks);
	tt_an_put(o, "  Interrupt\n");
	if (t->init_ticks) {
		tt_an_put(o, " %020" PRIu64, t->init_ticks);
		put_share(o, t->init_ticks, t->span_ticks);
		tt_an_put(o, "  Initialization\n");
	}
	if (t->other_ticks) {
		tt_an_put(o, " %020" PRIu64, t->other_ticks);
		put_share(o, t->other_ticks, t->span_ticks);
		tt_an_put(o, "  Other threads (beyond the table)\n");
	}
	if (t->unknown_ticks) {
		tt_an_put(o, " %020" PRIu64, t->unknown_ticks);
		put_share(o, t->unknown_ticks, t->span_ticks);
		tt_an_put(o, "  Unknown (across gaps, or no rule says who ran)\n");
	}
	tt_an_put(o, "\n\n");
}

/* The high-water marks read from RAM (beyond TraceX: its Minimum above is from traced stack
 * pointers), where the daemon gave them. */
static void text_painted(struct tt_an_out *o, const struct an_thread **th, unsigned n)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++)
		any |= th[i]->painted_given;
	if (!any)
		return;
	tt_an_put(o, STARS " Thread Stack High-Water (painted stack, read from RAM) **\n"
	       "   Stack Size\tUsed      Free            Name\n\n");
	for (unsigned i = 0; i < n; i++) {
		const struct an_thread *t = th[i];
		if (!t->painted_given)
			continue;
		tt_an_put(o, " %8" PRIu32, t->stack_size);
		if (t->painted == TT_PAINT_OK)
			tt_an_put(o, "     %8" PRIu32 "  %8" PRIu32 "%s", t->painted_used,
				  t->painted_free, t->painted_overflow ? " (fill gone to the start)" : "");
		else
			tt_an_put(o, "     %-18s", painted_state(t->painted));
		tt_an_put(o, "     %s\n", t->name[0] ? t->name : "?");
	}
	tt_an_put(o, "\n\n");
}

static void text_stack(struct tt_an_out *o, const struct an_thread **th, unsigned n)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++)
		any |= th[i]->stack_size || th[i]->have_sp;
	if (!any)
		return; /* the format tells no stack: absent, not zero */
	tt_an_put(o, STARS " Thread Stack Usage ***************************\n"
	       "   Stack Size\tMinimum   Event ID        Name\n\n");
	for (unsigned i = 0; i < n; i++) {
		const struct an_thread *t = th[i];
		uint64_t f = stack_free(t);
		if (t->stack_size)
			tt_an_put(o, " %8" PRIu32, t->stack_size);
		else
			tt_an_put(o, " %8s", "?");
		if (!t->have_sp || (t->stack_size && f == t->stack_size))
			tt_an_put(o, "          ---       ---");
		else if (t->stack_size)
			tt_an_put(o, "     %8" PRIu64 "  %8" PRIu64, f, t->min_sp_event);
		else
			tt_an_put(o, "   sp %08" PRIx64 "  %8" PRIu64, t->min_sp, t->min_sp_event);
		tt_an_put(o, "     %s\n", t->name[0] ? t->name : "?");
	}
	tt_an_put(o, "\n\n");
	text_painted(o, th, n);
}

static void text_counters(struct tt_an_out *o, const struct tt_analysis *a)
{
	const char *section = NULL, *group = NULL;

	for (unsigned i = 0; a->ops && i < a->ops->ncounters; i++) {
		const struct tt_an_counter *c = &a->ops->counters[i];
		if (!section || strcmp(section, c->section)) {
			tt_an_put(o, "%s" STARS " %s *****************************\n\n",
			    section ? "\n\n" : "", c->section);
			section = c->section;
			group = NULL;
		}
		if (!group || strcmp(group, c->group)) {
			tt_an_put(o, "%s%s:\n", group ? "\n" : "", c->group);
			group = c->group;
		}
		tt_an_put(o, "  %s:%*s%" PRIu64 "\n", c->label, (int)(27 - strlen(c->label)), "",
		    a->counters[i]);
	}
	if (section)
		tt_an_put(o, "\n\n");
}

/* The system-wide table's name of event id ("" when it has none). */
static const char *service_name(const struct tt_analysis *a, uint32_t id)
{
	unsigned slots = a->service_slots, i = tt_an_first(tt_an_hash(id), slots);

	for (unsigned n = 0; n < slots && a->services[i].used; n++, i = tt_an_next(i, slots))
		if (a->services[i].id == id)
			return a->services[i].name;
	return "";
}

static void text_services(struct tt_an_out *o, const struct tt_analysis *a)
{
	const struct an_service **sv = sorted_services(a);

	tt_an_put(o, STARS " Popular Services *****************************\n"
	       "   Service ID        Count \n\n");
	for (unsigned i = 0; sv && i < a->nservices; i++)
		tt_an_put(o, "%-26s(%5" PRIu32 ")        %8" PRIu64 "\n",
		    sv[i]->name[0] ? sv[i]->name : "?", sv[i]->id, sv[i]->count);
	free(sv);
	tt_an_put(o, "\n\n");
}

/* Each kept inversion: its events, how long it lasted (open: so far, ">="; cut by a gap or
 * reset: at least, ">="). */
static void text_inversions(struct tt_an_out *o, const struct tt_analysis *a)
{
	uint64_t k = tt_analysis_ninversions(a);
	struct tt_analysis_inversion v;

	tt_an_put(o, STARS " Priority Inversions *****************************\n"
	       "   Start Event   End Event      Duration (ticks)   Kind                Blocked   "
	       "Owner     Mutex\n\n");
	for (uint64_t i = 0; tt_analysis_inversion_at(a, i, &v) == 0; i++) {
		tt_an_put(o, "   %11" PRIu64 "   ", v.start_event);
		if (v.state == TT_AN_INV_CLOSED)
			tt_an_put(o, "%9" PRIu64 "   %19" PRIu64, v.end_event, v.ticks);
		else
			tt_an_put(o, "%9s   >=%17" PRIu64, inv_state[v.state], v.ticks);
		tt_an_put(o, "   %-18s  %08" PRIx32 "  %08" PRIx32 "  %08" PRIx32 "\n",
		    v.deterministic ? "deterministic" : "non-deterministic", v.blocked, v.owner,
		    v.mutex);
	}
	if (a->ninv > k)
		tt_an_put(o, "   (%" PRIu64 " older inversions not kept)\n", a->ninv - k);
	tt_an_put(o, "\n\n");
}

size_t tt_analysis_text(const struct tt_analysis *a, char *buf, size_t len)
{
	struct tt_an_out o = { buf, len, 0 };
	const struct tt_analysis_totals *t = &a->t;
	unsigned n;
	const struct an_thread **th = sorted_threads(a, &n);

	tt_an_put(&o, STARS " Stream *****************************************\n\n"
		"Events:              %" PRIu64 "\nGaps:                %" PRIu64
		"\nEvents Lost:         %" PRIu64 "\nEpochs:              %" PRIu64
		"\nTotal Ticks:         %" PRIu64 "\n\n\n",
	    t->events, t->gaps, t->lost, t->epochs, t->span_ticks);
	tt_an_put(&o, STARS " Performance Statistics ***********************\n\n"
		"Context Switches:    %" PRIu64 "\nThread Preemptions:  %" PRIu64
		"\nTime Slices:         %" PRIu64 "\nThread Suspensions:  %" PRIu64
		"\nThread Resumptions:  %" PRIu64 "\nInterrupts:          %" PRIu64
		"\nNested Interrupts:   %" PRIu64 "\nPriority Inversions: %" PRIu64 "/%" PRIu64
		"\n\n\n",
	    t->context_switches, t->preemptions, t->time_slices, t->suspensions, t->resumptions,
	    t->interrupts, t->nested_interrupts, t->inversions, t->bad_inversions);
	text_execution(&o, a, th, n);
	text_stack(&o, th, n);
	tt_an_states_text(a, th, n, &o);
	free(th);
	text_counters(&o, a);
	text_services(&o, a);
	tt_an_tservices_text(a, &o, service_name);
	tt_an_calls_text(a, &o);
	text_inversions(&o, a);
	return tt_an_done(&o);
}
