/* daemon/trigger_sample.c: a target's live analysis (analysis/analysis.h) as the sample the
 * statistics conditions read (trigger.h struct tt_trig_sample): tracetapd takes one per target
 * about once a second while such a condition is configured. The stack bytes free are the
 * analysis' own measure (bytes below the lowest traced stack pointer, as in /metrics).
 */
#include "trigger.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../analysis/analysis.h"

#define SAMPLE_THREADS 256
#define SAMPLE_INV 64 /* the newest inversions (the analysis keeps 64 by default) */

struct collect {
	struct tt_trig_thread_sample th[SAMPLE_THREADS];
	char names[SAMPLE_THREADS][48]; /* the analysis lends its names for one call only */
	size_t n;
	struct tt_trig_inv_sample inv[SAMPLE_INV];
};

/* The newest SAMPLE_INV inversions into c->inv, oldest first; their count. */
static size_t inversions(struct collect *c, const struct tt_analysis *a)
{
	static const uint8_t state[] = { [TT_AN_INV_OPEN] = TT_TRIG_INV_OPEN,
		[TT_AN_INV_CLOSED] = TT_TRIG_INV_CLOSED, [TT_AN_INV_CUT] = TT_TRIG_INV_CUT };
	uint64_t k = tt_analysis_ninversions(a), from = k > SAMPLE_INV ? k - SAMPLE_INV : 0;
	struct tt_analysis_inversion v;
	size_t n = 0;

	for (uint64_t i = from; n < SAMPLE_INV && tt_analysis_inversion_at(a, i, &v) == 0; i++)
		c->inv[n++] = (struct tt_trig_inv_sample){
			.number = v.number, .deterministic = v.deterministic,
			.state = v.state < sizeof(state) ? state[v.state] : TT_TRIG_INV_CUT,
			.blocked = v.blocked, .owner = v.owner, .mutex = v.mutex,
			.start_seq = v.start_seq, .end_seq = v.end_seq, .ticks = v.ticks };
	return n;
}

static void one_thread(void *arg, unsigned i, const struct tt_analysis_thread *t)
{
	struct collect *c = arg;
	struct tt_trig_thread_sample *s;

	(void)i;
	if (c->n == SAMPLE_THREADS)
		return;
	s = &c->th[c->n];
	snprintf(c->names[c->n], sizeof(c->names[0]), "%s", t->name ? t->name : "");
	s->name = t->name ? c->names[c->n] : NULL;
	s->id = t->id;
	s->ticks = t->ticks;
	s->events = t->events;
	s->stack_free = -1;
	s->stack_painted = false;
	if (t->have_sp && t->stack_size) {
		uint64_t fr = t->lowest_sp < t->stack_start ? 0 : t->lowest_sp - t->stack_start;
		s->stack_free = (int64_t)(fr < t->stack_size ? fr : t->stack_size);
	}
	/* the painted mark is the deepest use: it wins unless the traced one is lower (a stack
	 * pointer below the painted mark: the scan has not seen that use yet) */
	if (t->painted_given && t->painted == TT_PAINT_OK &&
	    (s->stack_free < 0 || (int64_t)t->painted_free <= s->stack_free)) {
		s->stack_free = t->painted_free;
		s->stack_painted = true;
	}
	c->n++;
}

void tt_trig_sample_analysis(struct tt_trig *t, struct tt_hub *hub, const struct tt_analysis *a)
{
	static struct collect c; /* one loop thread; too large for its stack */
	struct tt_analysis_totals tot;
	struct tt_trig_sample s = { .call_name = "" };
	char call[64] = "";

	if (!a)
		return;
	tt_analysis_totals(a, &tot);
	s.span_ticks = tot.span_ticks;
	s.inversions = tot.inversions;
	s.bad_inversions = tot.bad_inversions;
	struct tt_analysis_irq irq;
	for (unsigned i = 0; tt_analysis_irq_at(a, i, &irq) == 0; i++)
		if (irq.max > s.irq_max) {
			s.irq_max = irq.max;
			s.irq_nr = irq.irq;
		}
	struct tt_analysis_call cl;
	for (unsigned i = 0; tt_analysis_call_at(a, i, &cl) == 0; i++)
		if (cl.max > s.call_max) {
			s.call_max = cl.max;
			snprintf(call, sizeof(call), "%s", cl.name ? cl.name : "");
		}
	s.call_name = call;
	s.ninv = inversions(&c, a);
	s.inv = c.inv;
	c.n = 0;
	tt_analysis_each_thread(a, one_thread, &c);
	s.threads = c.th;
	s.nthreads = c.n;
	tt_trig_stats(t, hub, &s);
}
