/* analysis/analysis_states.c: time per thread per scheduling state, for formats that trace each
 * thread's state changes (TT_AN_STATE, analysis_ops.h: QNX's THREAD_<STATE> events).
 *
 * A thread's state is known from its first state event on: the time from one state event of a
 * thread to its next goes to the state the first named, by the events' own time stamps (every
 * core on the target's one clock; a later event stamped before the state began adds nothing).
 * A gap or a reset makes every state unknown again: the time across it is no state's. The
 * state a thread is in now is reported with the time it entered it; its open interval is
 * counted when it ends. Tables are allocated at creation (thread slots x states), none for a
 * format without states.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis_int.h"

int tt_an_states_new(struct tt_analysis *a)
{
	unsigned n = a->ops ? a->ops->nstates : 0;

	if (!n || !a->ops->state_names)
		return 0;
	if (n > 64)
		return -EINVAL;
	a->nstates = n;
	a->state_ticks = calloc((size_t)a->thread_slots * n, sizeof(*a->state_ticks));
	a->state_ns = calloc((size_t)a->thread_slots * n, sizeof(*a->state_ns));
	return a->state_ticks && a->state_ns ? 0 : -ENOMEM;
}

void tt_an_states_free(struct tt_analysis *a)
{
	free(a->state_ticks);
	free(a->state_ns);
}

size_t tt_an_states_memory(const struct tt_analysis *a)
{
	return 2 * (size_t)a->thread_slots * a->nstates * sizeof(uint64_t);
}

void tt_an_states_event(struct tt_analysis *a, const struct tt_event *ev,
			const struct tt_an_class *c)
{
	struct an_thread *t;
	size_t k;

	if (!(c->flags & TT_AN_STATE) || !a->nstates ||
	    !(t = tt_an_thread_get(a, c->state_thread)))
		return;
	k = (size_t)(t - a->threads) * a->nstates + t->state;
	if (t->state != AN_STATE_NONE) {
		if (ev->time > t->state_since)
			a->state_ticks[k] += ev->time - t->state_since;
		if (ev->has_ns && t->state_has_ns && ev->ns > t->state_since_ns)
			a->state_ns[k] += ev->ns - t->state_since_ns;
	}
	t->state = c->state < a->nstates ? (uint8_t)c->state : AN_STATE_NONE;
	t->state_since = ev->time;
	t->state_since_ns = ev->ns;
	t->state_has_ns = ev->has_ns;
}

void tt_an_states_break(struct tt_analysis *a)
{
	if (!a->nstates)
		return;
	for (unsigned i = 0; i < a->thread_slots; i++)
		a->threads[i].state = AN_STATE_NONE;
}

/* ,"states":{"NAME":{"ticks":T[,"ns":N]},...} (states with time), ,"state":"NAME","state_since":T
 * (the state it is in now), for a format with states. */
void tt_an_states_json(const struct tt_analysis *a, const struct an_thread *t,
		       struct tt_an_out *o)
{
	size_t base = (size_t)(t - a->threads) * a->nstates;
	bool first = true;

	if (!a->nstates)
		return;
	tt_an_put(o, ",\"states\":{");
	for (unsigned s = 0; s < a->nstates; s++) {
		if (!a->state_ticks[base + s] && !a->state_ns[base + s])
			continue;
		tt_an_put(o, "%s\"%s\":{\"ticks\":%" PRIu64, first ? "" : ",",
			  a->ops->state_names[s], a->state_ticks[base + s]);
		if (a->t.has_ns)
			tt_an_put(o, ",\"ns\":%" PRIu64, a->state_ns[base + s]);
		tt_an_put(o, "}");
		first = false;
	}
	tt_an_put(o, "}");
	if (t->state != AN_STATE_NONE)
		tt_an_put(o, ",\"state\":\"%s\",\"state_since\":%" PRIu64,
			  a->ops->state_names[t->state], t->state_since);
	else
		tt_an_put(o, ",\"state\":null");
}

/* TraceX has no such section: "Thread States", a line per thread with time in a state, its
 * states by time (ticks and the share of the thread's timed states). */
void tt_an_states_text(const struct tt_analysis *a, const struct an_thread *const *th, unsigned n,
		       struct tt_an_out *o)
{
	if (!a->nstates)
		return;
	tt_an_put(o, "************** Thread States ********************************\n"
		     "   Name                              State             Ticks   Share\n\n");
	for (unsigned i = 0; i < n; i++) {
		size_t base = (size_t)(th[i] - a->threads) * a->nstates;
		uint64_t sum = 0;
		bool first = true;

		for (unsigned s = 0; s < a->nstates; s++)
			sum += a->state_ticks[base + s];
		if (!sum)
			continue;
		for (unsigned s = 0; s < a->nstates; s++) {
			uint64_t v = a->state_ticks[base + s];
			char id[16];
			if (!v)
				continue;
			snprintf(id, sizeof(id), "0x%08" PRIx32, th[i]->id);
			tt_an_put(o, "   %-32.32s  %-12s %10" PRIu64 "  %5.1f%%\n",
				  first ? (th[i]->name[0] ? th[i]->name : id) : "",
				  a->ops->state_names[s], v, 100.0 * (double)v / (double)sum);
			first = false;
		}
	}
	tt_an_put(o, "\n\n");
}
