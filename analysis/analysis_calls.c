/* analysis/analysis_calls.c: what formats that trace the scheduler and the kernel entries
 * directly give (NuttX's notes): the switches (who runs from here on), system calls per thread
 * and interrupts per number, each with its count, total and longest duration from entry to
 * exit. A call or interrupt whose entry came before a gap or reset is not measured (its entry
 * is forgotten); an exit without its entry is ignored. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "json.h"

static struct an_call *call_get(struct tt_analysis *a, uint32_t thread, uint32_t nr)
{
	unsigned slots = a->call_slots;
	unsigned i = tt_an_first(tt_an_hash(thread * 2654435761u ^ nr), slots);

	for (unsigned n = 0; n < slots; n++, i = tt_an_next(i, slots)) {
		struct an_call *c = &a->calls[i];
		if (c->used && c->thread == thread && c->nr == nr)
			return c;
		if (!c->used) {
			if (a->ncalls >= a->lim.max_calls)
				break;
			*c = (struct an_call){ .used = true, .thread = thread, .nr = nr,
					       .order = a->ncalls++ };
			return c;
		}
	}
	a->t.overflow_calls++;
	return NULL;
}

static struct an_irq *irq_get(struct tt_analysis *a, uint32_t irq)
{
	unsigned slots = a->irq_slots, i = tt_an_first(tt_an_hash(irq), slots);

	for (unsigned n = 0; n < slots; n++, i = tt_an_next(i, slots)) {
		struct an_irq *q = &a->irqs[i];
		if (q->used && q->irq == irq)
			return q;
		if (!q->used) {
			if (a->nirqs >= a->lim.max_irqs)
				break;
			*q = (struct an_irq){ .used = true, .irq = irq, .order = a->nirqs++ };
			return q;
		}
	}
	a->t.overflow_irqs++;
	return NULL;
}

static void add_duration(uint64_t *count, uint64_t *total, uint64_t *max, uint64_t d)
{
	(*count)++;
	*total += d;
	if (d > *max)
		*max = d;
}

struct an_core *tt_an_core(struct tt_analysis *a, const struct tt_event *ev)
{
	return &a->core[ev->core > 0 ? (unsigned)ev->core % AN_CORES : 0];
}

/* Interrupts nest per core: an exit closes the core's innermost open one. */
static void irq(struct tt_analysis *a, const struct tt_event *ev, const struct tt_an_class *c)
{
	struct an_core *co = tt_an_core(a, ev);

	if (c->flags & TT_AN_ISR_ENTER) {
		if (co->irq_depth < AN_IRQ_NEST) {
			co->irq_stack[co->irq_depth].irq = c->obj;
			co->irq_stack[co->irq_depth].start = ev->time;
		}
		co->irq_depth++;
		return;
	}
	if (!co->irq_depth)
		return;
	co->irq_depth--;
	if (co->irq_depth < AN_IRQ_NEST && co->irq_stack[co->irq_depth].irq == c->obj) {
		struct an_irq *q = irq_get(a, c->obj);
		uint64_t s = co->irq_stack[co->irq_depth].start;
		if (q)
			add_duration(&q->count, &q->total, &q->max, ev->time >= s ? ev->time - s : 0);
	}
}

void tt_an_calls(struct tt_analysis *a, const struct tt_event *ev, const struct tt_an_class *c,
		 struct an_thread *t)
{
	if (c->flags & TT_AN_SWITCH) {
		struct an_core *co = tt_an_core(a, ev);
		struct an_thread *n;
		if (!co->known || co->sw_cur != c->other) {
			a->t.context_switches++;
			if ((n = tt_an_thread_get(a, c->other)) != NULL)
				n->switches++;
		}
		co->sw_cur = c->other;
		co->known = true;
	}
	if ((c->flags & TT_AN_IRQ) && (c->flags & (TT_AN_ISR_ENTER | TT_AN_ISR_EXIT)))
		irq(a, ev, c);
	if (!t)
		return;
	if (c->flags & TT_AN_CALL_ENTER) {
		struct an_call *k = call_get(a, t->id, c->obj);
		if (k && c->label && !k->name[0])
			snprintf(k->name, sizeof(k->name), "%s", c->label);
		if (t->call_depth == AN_CALL_NEST) { /* deeper than kept: the outermost goes */
			memmove(t->call_nr, t->call_nr + 1, (AN_CALL_NEST - 1) * sizeof(t->call_nr[0]));
			memmove(t->call_start, t->call_start + 1,
				(AN_CALL_NEST - 1) * sizeof(t->call_start[0]));
			t->call_depth--;
		}
		t->call_nr[t->call_depth] = c->obj;
		t->call_start[t->call_depth++] = ev->time;
	} else if (c->flags & TT_AN_CALL_LEAVE) {
		/* the innermost open call of that number: the ones inside it never left */
		unsigned d = t->call_depth;
		while (d && t->call_nr[d - 1] != c->obj)
			d--;
		if (!d)
			return;
		struct an_call *k = call_get(a, t->id, c->obj);
		uint64_t s = t->call_start[d - 1];
		t->call_depth = (uint8_t)(d - 1);
		if (k)
			add_duration(&k->count, &k->total, &k->max, ev->time >= s ? ev->time - s : 0);
	}
}

/* A gap (the cores' time across it becomes unknown) or a reset (nothing spans it). */
void tt_an_calls_break(struct tt_analysis *a, bool reset)
{
	for (unsigned i = 0; i < AN_CORES; i++) {
		a->core[i].known = false;
		a->core[i].irq_depth = 0;
		if (reset)
			a->core[i].have = false;
	}
	for (unsigned i = 0; i < a->thread_slots; i++)
		a->threads[i].call_depth = 0;
}

int tt_analysis_call_at(const struct tt_analysis *a, unsigned i, struct tt_analysis_call *out)
{
	for (unsigned s = 0; i < a->ncalls && s < a->call_slots; s++) {
		const struct an_call *c = &a->calls[s];
		if (c->used && c->order == i) {
			*out = (struct tt_analysis_call){ .thread = c->thread, .nr = c->nr,
							  .name = c->name, .count = c->count,
							  .total = c->total, .max = c->max };
			return 0;
		}
	}
	return -ENOENT;
}

int tt_analysis_irq_at(const struct tt_analysis *a, unsigned i, struct tt_analysis_irq *out)
{
	for (unsigned s = 0; i < a->nirqs && s < a->irq_slots; s++) {
		const struct an_irq *q = &a->irqs[s];
		if (q->used && q->order == i) {
			*out = (struct tt_analysis_irq){ .irq = q->irq, .count = q->count,
							 .total = q->total, .max = q->max };
			return 0;
		}
	}
	return -ENOENT;
}

void tt_an_calls_json(const struct tt_analysis *a, struct tt_an_out *o)
{
	struct tt_analysis_call c;
	struct tt_analysis_irq q;

	tt_an_put(o, ",\"calls\":[");
	for (unsigned i = 0; tt_analysis_call_at(a, i, &c) == 0; i++) {
		char name[sizeof(((struct an_call *)0)->name) * 6 + 3];
		int n = tt_json_string(name, sizeof(name), c.name, sizeof(name));
		tt_an_put(o, "%s{\"thread\":%" PRIu32 ",\"nr\":%" PRIu32 ",\"name\":%.*s,\"count\":%"
			  PRIu64 ",\"total_ticks\":%" PRIu64 ",\"max_ticks\":%" PRIu64 "}",
			  i ? "," : "", c.thread, c.nr, n > 0 ? n : 2, n > 0 ? name : "\"\"",
			  c.count, c.total, c.max);
	}
	tt_an_put(o, "],\"cpus\":[");
	for (unsigned i = 0, n = 0; i < AN_CORES; i++) {
		const struct an_core *co = &a->core[i];
		if (!co->span && !co->have)
			continue;
		tt_an_put(o, "%s{\"cpu\":%u,\"span_ticks\":%" PRIu64 ",\"thread_ticks\":%" PRIu64
			  ",\"interrupt_ticks\":%" PRIu64 ",\"unknown_ticks\":%" PRIu64 "}",
			  n++ ? "," : "", i, co->span, co->thread_ticks, co->isr_ticks,
			  co->unknown_ticks);
	}
	tt_an_put(o, "],\"irqs\":[");
	for (unsigned i = 0; tt_analysis_irq_at(a, i, &q) == 0; i++)
		tt_an_put(o, "%s{\"irq\":%" PRIu32 ",\"count\":%" PRIu64 ",\"total_ticks\":%" PRIu64
			  ",\"max_ticks\":%" PRIu64 "}", i ? "," : "", q.irq, q.count, q.total,
			  q.max);
	tt_an_put(o, "]");
}

void tt_an_calls_text(const struct tt_analysis *a, struct tt_an_out *o)
{
	struct tt_analysis_call c;
	struct tt_analysis_irq q;

	bool cpus = false;

	for (unsigned i = 0; i < AN_CORES; i++)
		cpus |= a->core[i].span != 0;
	if (cpus) {
		tt_an_put(o, "************** CPUs *****************************\n"
			     "   CPU     Total Ticks    Thread Ticks Interrupt Ticks   Unknown Ticks\n\n");
		for (unsigned i = 0; i < AN_CORES; i++)
			if (a->core[i].span)
				tt_an_put(o, "   %3u  %14" PRIu64 "  %14" PRIu64 "  %14" PRIu64 "  %14" PRIu64
					  "\n", i, a->core[i].span, a->core[i].thread_ticks,
					  a->core[i].isr_ticks, a->core[i].unknown_ticks);
		tt_an_put(o, "\n\n");
	}
	if (a->ncalls) {
		tt_an_put(o, "************** System Calls *****************************\n"
			     "   Thread      Call                          Count     Total Ticks"
			     "       Max Ticks\n\n");
		for (unsigned i = 0; tt_analysis_call_at(a, i, &c) == 0; i++)
			tt_an_put(o, "   %08" PRIx32 "    %-24.24s (%3" PRIu32 ") %8" PRIu64 "  %14"
				  PRIu64 "  %14" PRIu64 "\n", c.thread, c.name[0] ? c.name : "?",
				  c.nr, c.count, c.total, c.max);
		tt_an_put(o, "\n\n");
	}
	if (a->nirqs) {
		tt_an_put(o, "************** Interrupts *****************************\n"
			     "   IRQ        Count     Total Ticks       Max Ticks\n\n");
		for (unsigned i = 0; tt_analysis_irq_at(a, i, &q) == 0; i++)
			tt_an_put(o, "   %5" PRIu32 " %10" PRIu64 "  %14" PRIu64 "  %14" PRIu64 "\n",
				  q.irq, q.count, q.total, q.max);
		tt_an_put(o, "\n\n");
	}
}
