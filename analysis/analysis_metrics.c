/* analysis/analysis_metrics.c: the analysis as Prometheus text (/metrics): system families
 * per target, thread families per thread with bounded label cardinality. */
#include <inttypes.h>
#include <stdio.h>

#include "analysis_int.h"

/* s as a Prometheus label value (backslash, quote and newline escaped), at most 64 bytes. */
static void put_label(struct tt_an_out *o, const char *s)
{
	for (size_t i = 0; s[i] && i < 64; i++) {
		if (s[i] == '\\' || s[i] == '"')
			tt_an_put(o, "\\%c", s[i]);
		else if (s[i] == '\n')
			tt_an_put(o, "\\n");
		else
			tt_an_put(o, "%c", s[i]);
	}
}

enum { M_CPU_S, M_CPU_TICKS, M_SWITCH, M_PREEMPT, M_INV, M_STACK, M_NTHREAD };

static const struct {
	const char *name, *help, *type;
} thread_m[M_NTHREAD] = {
	[M_CPU_S] = { "tracetap_thread_cpu_seconds_total",
		      "Time the thread ran (the target's time stamps at its tick rate)", "counter" },
	[M_CPU_TICKS] = { "tracetap_thread_cpu_ticks_total",
			  "Time the thread ran, in time stamp ticks", "counter" },
	[M_SWITCH] = { "tracetap_thread_context_switches_total",
		       "Context switches to the thread", "counter" },
	[M_PREEMPT] = { "tracetap_thread_preemptions_total", "Times the thread was preempted",
			"counter" },
	[M_INV] = { "tracetap_thread_priority_inversions_total",
		    "Priority inversions the thread was blocked in", "counter" },
	[M_STACK] = { "tracetap_thread_stack_free_bytes",
		      "Stack bytes never used: below the lowest stack pointer seen in traced events "
		      "(source=traced_stack_pointer), or the fill left from the stack start, read "
		      "from RAM (source=painted)", "gauge" },
};

static uint64_t thread_value(int m, const struct tt_analysis_thread *t)
{
	switch (m) {
	case M_CPU_TICKS: return t->ticks;
	case M_SWITCH: return t->context_switches;
	case M_PREEMPT: return t->preemptions;
	default: return t->inversions;
	}
}

static void thread_line(struct tt_an_out *o, int m, const char *target, const char *thread,
			uint32_t id, double v, bool other, bool painted)
{
	tt_an_put(o, "%s{target=\"", thread_m[m].name);
	put_label(o, target);
	tt_an_put(o, "\",thread=\"");
	put_label(o, thread);
	if (other)
		tt_an_put(o, "\"} %.15g\n", v);
	else
		tt_an_put(o, "\",id=\"0x%08" PRIx32 "\"%s} %.15g\n", id,
		    m != M_STACK ? "" : painted ? ",source=\"painted\"" :
		    ",source=\"traced_stack_pointer\"", v);
}

struct family {
	struct tt_an_out *o;
	int m;
	const char *target;
	double other;
	bool any_other;
	bool painted; /* M_STACK: the figures read from RAM (only where they are numbers) */
};

/* One thread's line of a family: up to the bound, the rest summed as "(other)". */
static void family_thread(void *arg, unsigned i, const struct tt_analysis_thread *t)
{
	struct family *f = arg;
	double v;
	char idname[16];

	if (f->m == M_STACK && f->painted) {
		if (!t->painted_given || t->painted != TT_PAINT_OK)
			return;
		v = t->painted_free;
	} else if (f->m == M_STACK) {
		if (!t->have_sp || !t->stack_size)
			return;
		uint64_t fr = t->lowest_sp < t->stack_start ? 0 : t->lowest_sp - t->stack_start;
		v = (double)(fr < t->stack_size ? fr : t->stack_size);
	} else {
		v = f->m == M_CPU_S ? (double)t->ns / 1e9 : (double)thread_value(f->m, t);
	}
	if (i >= TT_ANALYSIS_METRIC_THREADS) {
		if (f->m != M_STACK) {
			f->other += v;
			f->any_other = true;
		}
		return;
	}
	snprintf(idname, sizeof(idname), "0x%08" PRIx32, t->id);
	thread_line(f->o, f->m, f->target, t->name ? t->name : idname, t->id, v, false, f->painted);
}

/* One family's lines for one target. */
static void thread_family(struct tt_an_out *o, int m, const char *target, const struct tt_analysis *an)
{
	struct tt_analysis_totals tot;
	struct family f = { o, m, target, 0, false, false };

	tt_analysis_totals(an, &tot);
	if ((m == M_CPU_S && !tot.has_ns) || (m == M_CPU_TICKS && tot.has_ns))
		return;
	tt_analysis_each_thread(an, family_thread, &f);
	if (f.any_other)
		thread_line(o, m, target, "(other)", 0, f.other, true, false);
	if (m == M_STACK) {
		f.painted = true;
		tt_analysis_each_thread(an, family_thread, &f);
	}
}

static void system_lines(struct tt_an_out *o, const char *const *names,
			 const struct tt_analysis *const *an, size_t n)
{
	static const char *const fam[][3] = {
		{ "tracetap_interrupts_total", "Interrupts (TraceX's count)", "counter" },
		{ "tracetap_nested_interrupts_total", "Interrupts entered while another ran",
		  "counter" },
		{ "tracetap_context_switches_total", "Context switches", "counter" },
		{ "tracetap_priority_inversions_total",
		  "Priority inversions (kind: deterministic or nondeterministic)", "counter" },
		{ "tracetap_unknown_ticks_total",
		  "Time no one can be given: intervals across gaps, in time stamp ticks", "counter" },
	};

	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		tt_an_put(o, "# HELP %s %s\n# TYPE %s %s\n", fam[k][0], fam[k][1], fam[k][0], fam[k][2]);
		for (size_t i = 0; i < n; i++) {
			struct tt_analysis_totals t;
			if (!an[i])
				continue;
			tt_analysis_totals(an[i], &t);
			tt_an_put(o, "%s{target=\"", fam[k][0]);
			put_label(o, names[i]);
			if (k == 3)
				tt_an_put(o, "\",kind=\"deterministic\"} %" PRIu64 "\n%s{target=\"",
				    t.inversions, fam[k][0]);
			if (k == 3)
				put_label(o, names[i]);
			tt_an_put(o, "%s} %" PRIu64 "\n", k == 3 ? "\",kind=\"nondeterministic\"" : "\"",
			    k == 0 ? t.interrupts : k == 1 ? t.nested_interrupts :
			    k == 2 ? t.context_switches : k == 3 ? t.bad_inversions :
			    t.unknown_ticks);
		}
	}
}

size_t tt_analysis_metrics(const char *const *names, const struct tt_analysis *const *an,
			   size_t n, char *buf, size_t len)
{
	struct tt_an_out o = { buf, len, 0 };

	system_lines(&o, names, an, n);
	for (int m = 0; m < M_NTHREAD; m++) {
		tt_an_put(&o, "# HELP %s %s\n# TYPE %s %s\n", thread_m[m].name, thread_m[m].help,
			  thread_m[m].name, thread_m[m].type);
		for (size_t i = 0; i < n; i++)
			if (an[i])
				thread_family(&o, m, names[i], an[i]);
	}
	return tt_an_done(&o);
}
