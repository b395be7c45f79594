/* daemon/trigger_stats.c: the statistics conditions (trigger.h): matched on samples of a
 * target's live analysis, not on records. Pure, like trigger_cond.c: a sample and the trigger's
 * remembered state in, whether it holds (and why, for the alert and the log) out.
 *
 * Each fires on a change, so a condition that stays true is not an alert a second: a stack
 * whose free bytes fell below N fires at each new low; an inversion, a longest interrupt or
 * system call at each new one; a CPU share at the end of each window over the share; a thread
 * once per silence (again only after it was heard from); an inversion longer than T once per
 * inversion, at the first sample where it is over T (its age while open, its duration once
 * closed, or what was seen of it before a gap cut it: a lower bound).
 */
#include "trigger.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool tt_trig_is_stat(const struct tt_trig_def *d)
{
	return d->kind >= TT_TRIG_STACK && d->kind < TT_TRIG_NKINDS;
}

static const struct tt_trig_pred *pred(const struct tt_trig_def *d, const char *field)
{
	for (size_t i = 0; i < d->npreds; i++)
		if (!strcmp(d->preds[i].field, field))
			return &d->preds[i];
	return NULL;
}

/* The sample's thread named by d's thread=NAME; NULL when absent (or no such predicate). */
static const struct tt_trig_thread_sample *thread_of(const struct tt_trig_def *d,
						     const struct tt_trig_sample *s)
{
	const struct tt_trig_pred *p = pred(d, "thread");

	for (size_t i = 0; p && i < s->nthreads; i++)
		if (s->threads[i].name && !strcmp(s->threads[i].name, p->str))
			return &s->threads[i];
	return NULL;
}

static bool stack(const struct tt_trig_def *d, const struct tt_trig_sample *s,
		  struct tt_trig_stat_state *st, char *why, size_t wl)
{
	uint64_t limit = pred(d, "free")->num;
	const struct tt_trig_thread_sample *one = thread_of(d, s), *low = NULL;

	if (pred(d, "thread") && !one)
		return false;
	for (size_t i = 0; i < (one ? 1 : s->nthreads); i++) {
		const struct tt_trig_thread_sample *t = one ? one : &s->threads[i];
		if (t->stack_free >= 0 && (uint64_t)t->stack_free < limit &&
		    (!low || t->stack_free < low->stack_free))
			low = t;
	}
	/* a new low (st->a: the lowest that fired, +1 so 0 means none yet) */
	if (!low || (st->a && (uint64_t)low->stack_free + 1 >= st->a))
		return false;
	st->a = (uint64_t)low->stack_free + 1;
	snprintf(why, wl, "thread %s: %" PRId64 " bytes of stack never used (below %" PRIu64
		 "; %s)", low->name ? low->name : "?", low->stack_free, limit,
		 low->stack_painted ? "painted stack" : "traced stack pointer");
	return true;
}

static bool cpu(const struct tt_trig_def *d, const struct tt_trig_sample *s, uint64_t now,
		struct tt_trig_stat_state *st, char *why, size_t wl)
{
	const struct tt_trig_pred *w = pred(d, "window");
	uint64_t window = w ? w->num : 5000, share = pred(d, "share")->num;
	const struct tt_trig_thread_sample *one = thread_of(d, s), *top = NULL;
	uint64_t busy = 0;

	if (pred(d, "thread") && !one)
		return false;
	/* without thread=: the busiest thread, from its ticks at the window's start (b) */
	for (size_t i = 0; i < s->nthreads; i++)
		if (!top || s->threads[i].ticks > top->ticks)
			top = &s->threads[i];
	const struct tt_trig_thread_sample *t = one ? one : top;
	if (!t)
		return false;
	if (!st->primed || t->ticks < st->b || s->span_ticks < st->a) { /* start (or a reset) */
		st->primed = true;
		st->ms = now;
		st->a = s->span_ticks;
		st->b = t->ticks;
		return false;
	}
	if (now - st->ms < window)
		return false;
	uint64_t span = s->span_ticks - st->a;
	busy = t->ticks - st->b;
	st->ms = now;
	st->a = s->span_ticks;
	st->b = t->ticks;
	if (!span || busy * 100 <= share * span)
		return false;
	snprintf(why, wl, "thread %s: %.1f%% of the CPU over %" PRIu64 " ms (above %" PRIu64 "%%)",
		 t->name ? t->name : "?", 100.0 * (double)busy / (double)span, window, share);
	return true;
}

static bool silent(const struct tt_trig_def *d, const struct tt_trig_sample *s, uint64_t now,
		   struct tt_trig_stat_state *st, char *why, size_t wl)
{
	const struct tt_trig_thread_sample *t = thread_of(d, s);
	uint64_t quiet = pred(d, "for")->num;

	if (!t)
		return false;
	if (!st->primed || t->events != st->a) { /* heard from: the silence starts now */
		st->primed = true;
		st->a = t->events;
		st->ms = now;
		st->b = 0;
		return false;
	}
	if (st->b || now - st->ms < quiet)
		return false;
	st->b = 1; /* once per silence */
	snprintf(why, wl, "thread %s: no event for %" PRIu64 " ms", t->name, now - st->ms);
	return true;
}

static const char *thread_name(const struct tt_trig_sample *s, uint32_t id)
{
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].id == id && s->threads[i].name)
			return s->threads[i].name;
	return "?";
}

static bool over(const struct tt_trig_inv_sample *v, uint64_t bound, bool bad)
{
	return v->ticks > bound && !(bad && v->deterministic);
}

/* inversion longer>T. st->a: every inversion numbered below it is settled (fired, or ended
 * within T, or no longer kept); st->mask bit i: inversion a + i fired (the kept ones span at
 * most 64 numbers past a: the sample's ring). */
static bool longer(const struct tt_trig_def *d, const struct tt_trig_sample *s,
		   struct tt_trig_stat_state *st, char *why, size_t wl)
{
	static const char *const how[] = { "open for", "lasted", "cut by a gap or reset after" };
	uint64_t bound = pred(d, "longer")->num, first = s->ninv ? s->inv[0].number : 0;
	const struct tt_trig_inv_sample *hit = NULL;
	bool bad = pred(d, "bad") != NULL;

	if (!st->primed) { /* a trigger added by a reload: the inversions from then on */
		st->primed = true;
		st->a = s->inversions;
		st->mask = 0;
	}
	for (size_t i = 0; i < s->ninv && !hit; i++) {
		const struct tt_trig_inv_sample *v = &s->inv[i];
		if (v->number < st->a || v->number - st->a >= 64 ||
		    (st->mask >> (v->number - st->a) & 1) || !over(v, bound, bad))
			continue;
		hit = v;
		st->mask |= 1ull << (v->number - st->a);
	}
	while (st->a < s->inversions) { /* settled ones leave the mask */
		const struct tt_trig_inv_sample *v =
			st->a >= first && st->a - first < s->ninv ? &s->inv[st->a - first] : NULL;
		if (v && !(st->mask & 1) && (v->state == TT_TRIG_INV_OPEN || over(v, bound, bad)))
			break; /* may still fire, or is about to */
		st->a++;
		st->mask >>= 1;
	}
	if (!hit)
		return false;
	snprintf(why, wl, "%sinversion %" PRIu64 ": thread %s (blocked at seq %" PRIu64 ") on "
		 "mutex 0x%" PRIx32 " of thread %s %s %" PRIu64 " ticks (longer than %" PRIu64 ")",
		 hit->deterministic ? "" : "non-deterministic ", hit->number,
		 thread_name(s, hit->blocked), hit->start_seq, hit->mutex, thread_name(s, hit->owner),
		 how[hit->state <= TT_TRIG_INV_CUT ? hit->state : TT_TRIG_INV_CUT], hit->ticks, bound);
	return true;
}

/* A counter or a longest time that went up (first sample: only remembered). */
static bool rose(uint64_t v, struct tt_trig_stat_state *st)
{
	bool up = st->primed && v > st->a;

	st->primed = true;
	st->a = v > st->a ? v : st->a;
	return up;
}

bool tt_trig_stat_match(const struct tt_trig_def *d, const struct tt_trig_sample *s,
			uint64_t now_ms, struct tt_trig_stat_state *st, char *why, size_t wl)
{
	switch (d->kind) {
	case TT_TRIG_STACK:
		return stack(d, s, st, why, wl);
	case TT_TRIG_CPU:
		return cpu(d, s, now_ms, st, why, wl);
	case TT_TRIG_SILENT:
		return silent(d, s, now_ms, st, why, wl);
	case TT_TRIG_INVERSION: {
		bool bad = pred(d, "bad") != NULL;
		if (pred(d, "longer"))
			return longer(d, s, st, why, wl);
		if (!rose(bad ? s->bad_inversions : s->inversions, st))
			return false;
		snprintf(why, wl, "%s priority inversion (%" PRIu64 " so far)",
			 bad ? "a non-deterministic" : "a", bad ? s->bad_inversions : s->inversions);
		return true;
	}
	case TT_TRIG_IRQ:
	case TT_TRIG_SYSCALL: {
		bool irq = d->kind == TT_TRIG_IRQ;
		uint64_t v = irq ? s->irq_max : s->call_max;
		if (!rose(v, st) || v <= pred(d, "max")->num) /* a new longest, over the bound */
			return false;
		if (irq)
			snprintf(why, wl, "interrupt %" PRIu32 " took %" PRIu64 " ticks", s->irq_nr, v);
		else
			snprintf(why, wl, "system call %s took %" PRIu64 " ticks",
				 s->call_name && *s->call_name ? s->call_name : "?", v);
		return true;
	}
	default:
		return false;
	}
}
