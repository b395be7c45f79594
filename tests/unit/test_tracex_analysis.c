/* tests/unit/test_tracex_analysis.c: `tracetap analyze`'s numbers (analysis/) on TraceX's own
 * sample against every number of TraceX's own text export of it (../shared/fixtures/tracex:
 * demo_threadx.trx, demo_threadx.txt, TraceX 6.2.1.0): Performance Statistics, Thread
 * Execution, Thread Stack Usage, FileX and NetX Performance Statistics, Popular Services (counts
 * and order) and the per-event Priority Inversion column. The expected numbers are parsed from
 * TraceX's text here, never produced by the code under test; any number that changes fails.
 *
 * Where TraceX is wrong, the test shows it from TraceX's own text and expects the right number
 * (proto/README-threadx.md "Analysis"):
 *  - Thread Preemptions: TraceX 5, tracetap 2. TraceX (tml_system_performance_statistics_get)
 *    takes the thread that runs after a THREAD_RESUME from the next context of the event
 *    *after* the resume, so a resumer that keeps running and then suspends (events 148 and
 *    965: the System Timer Thread resumes a thread, runs on, suspends at 149 and 966) counts as
 *    preempted; and a resume that is the trace's last event (973) has no next context, which
 *    TraceX compares as 0 with the running thread. Both rules are computed below from TraceX's
 *    own Next Context column: TraceX's gives its 5, the right one 2 (events 145 and 962: an
 *    interrupt resumes the System Timer Thread, which runs at the interrupt's exit).
 *
 * The fixtures folder comes from TT_FIXTURES (default <source root>/../shared/fixtures); without
 * it the test is skipped (exit 77, saying so).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "analysis.h"
#include "reader.h"
#include "threadx.h"
#include "tracex_text.h"

#define ISR 0xFFFFFFFFu
#define INIT 0xF0F0F0F0u
#define MAX_ROWS 2048


struct row {
	uint32_t id, ctx, next;
	unsigned inv, bad; /* the Priority Inversion column "a-b" */
};
static struct row rows[MAX_ROWS];
static size_t nrows;

/* The section of txt titled name: its first line after the title, or NULL. */
static const char *section(const char *txt, const char *name)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof(key), "* %s *", name);
	p = strstr(txt, key);
	return p ? strchr(p, '\n') : NULL;
}

/* The number after "label:" inside [from, the next section), or -1. */
static long long number(const char *from, const char *label)
{
	char key[64];
	const char *end = strstr(from + 1, "\n*"), *p;

	snprintf(key, sizeof(key), "\n%s:", label);
	p = strstr(from, key);
	if (!p || (end && p > end))
		return -1;
	return strtoll(p + strlen(key), NULL, 10);
}

/* A context in a row: "Interrupt", "Initialization", "Idle", or "NAME (XXXXXXXX)". The segment
 * [s, e) holds the context, priority and next context columns: which (first or last) token. */
static uint32_t ctx_token(const char *s, const char *e, bool last)
{
	uint32_t v = 0;
	bool found = false;

	for (const char *p = s; p < e; p++) {
		uint32_t c;
		bool hit = true;
		if (!strncmp(p, "Interrupt", 9))
			c = ISR;
		else if (!strncmp(p, "Initializ", 9))
			c = INIT;
		else if (!strncmp(p, "Idle", 4))
			c = 0;
		else if (*p == '(' && p + 10 <= e && p[9] == ')' &&
			 strspn(p + 1, "0123456789ABCDEF") >= 8)
			c = (uint32_t)strtoul(p + 1, NULL, 16);
		else
			hit = false;
		if (hit) {
			v = c;
			found = true;
			if (!last)
				return v;
		}
	}
	return found ? v : 0xDEADBEEFu;
}

static int parse_rows(const char *txt)
{
	const char *p = strstr(txt, "* Trace Events *");

	for (p = p ? strchr(p, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n')) {
		const char *l = p + 1, *eol = strchr(l, '\n'), *id = strstr(l, " ("), *i1;
		unsigned num;
		if (!eol)
			eol = l + strlen(l);
		i1 = strstr(l, "I1:");
		if (sscanf(l, "%u", &num) != 1 || !id || !i1 || i1 > eol)
			continue;
		if (num != nrows || nrows >= MAX_ROWS)
			return -1;
		struct row *r = &rows[nrows++];
		r->id = (uint32_t)strtoul(id + 2, NULL, 10);
		const char *cs = strchr(id, ')') + 1;
		r->ctx = ctx_token(cs, i1, false);
		r->next = ctx_token(cs, i1, true);
		/* I1..I4, the raw time stamp, then "a-b" */
		const char *q = strstr(i1, "I4:");
		unsigned i4, ts;
		if (!q || sscanf(q, "I4: %x %x %u-%u", &i4, &ts, &r->inv, &r->bad) != 4)
			return -1;
	}
	return nrows ? 0 : -1;
}

static bool is_thread(uint32_t c)
{
	return c != 0 && c != ISR && c != INIT;
}

/* Preemptions from TraceX's own Next Context column. tracex: its rule (the thread after a
 * resume is the first thread next context from the event after it on; none left: 0); else the
 * right one (from the resume's own next context on: a switch that a resumption or time slice
 * caused, once per switch). diff lists the resumes where the two disagree. */
static unsigned preemptions(bool tracex, unsigned *diff, unsigned *ndiff)
{
	uint32_t cur = 0;
	unsigned n = 0;
	bool pending = false;

	for (size_t i = 0; i < nrows; i++) {
		uint32_t nc = rows[i].next;
		if (tracex && rows[i].id == 1) {
			uint32_t la = 0;
			for (size_t j = i + 1; j < nrows && !is_thread(la); j++)
				la = rows[j].next;
			if (la != cur) {
				n++;
				if (diff)
					diff[(*ndiff)++] = (unsigned)i;
			}
			nc = la;
		} else if (!tracex) {
			if (rows[i].id == 1 || rows[i].id == 5)
				pending = true;
			if (is_thread(nc)) {
				if (pending && cur && nc != cur)
					n++;
				pending = false;
			}
		}
		if (is_thread(nc))
			cur = nc;
	}
	return n;
}

static void check_performance(const char *txt, const struct tt_analysis_totals *t)
{
	const char *s = section(txt, "Performance Statistics");
	unsigned diff[16], nd = 0, right, tx;
	long long pi_det = -1, pi_bad = -1;

	CHECK_MSG(s, "no Performance Statistics section");
	if (!s)
		return;
	CHECK_MSG(number(s, "Context Switches") == (long long)t->context_switches,
	      "context switches: TraceX %lld, tracetap %" PRIu64,
	      number(s, "Context Switches"), t->context_switches);
	CHECK_MSG(number(s, "Time Slices") == (long long)t->time_slices, "time slices");
	CHECK_MSG(number(s, "Thread Suspensions") == (long long)t->suspensions, "suspensions");
	CHECK_MSG(number(s, "Thread Resumptions") == (long long)t->resumptions, "resumptions");
	CHECK_MSG(number(s, "Interrupts") == (long long)t->interrupts, "interrupts");
	CHECK_MSG(number(s, "Nested Interrupts") == (long long)t->nested_interrupts, "nested");
	const char *pi = strstr(s, "Priority Inversions:");
	CHECK_MSG(pi && sscanf(pi, "Priority Inversions: %lld/%lld", &pi_det, &pi_bad) == 2,
	      "inversions line");
	CHECK_MSG(pi_det == (long long)t->inversions && pi_bad == (long long)t->bad_inversions,
	      "priority inversions: TraceX %lld/%lld, tracetap %" PRIu64 "/%" PRIu64, pi_det,
	      pi_bad, t->inversions, t->bad_inversions);
	/* the named difference: TraceX's rule reproduces its number, the right rule is ours */
	tx = preemptions(true, diff, &nd);
	right = preemptions(false, NULL, NULL);
	CHECK_MSG(number(s, "Thread Preemptions") == tx,
	      "TraceX's preemption rule gives %u, its text says %lld", tx,
	      number(s, "Thread Preemptions"));
	CHECK_MSG(t->preemptions == right && right == 2,
	      "preemptions: the right rule gives %u from TraceX's next contexts, tracetap %" PRIu64,
	      right, t->preemptions);
	printf("Thread Preemptions: TraceX %lld, tracetap %" PRIu64 " (TraceX counts resumes at",
	       number(s, "Thread Preemptions"), t->preemptions);
	for (unsigned i = 0; i < nd; i++)
		printf(" %u", diff[i]);
	printf("; right: 145 and 962)\n");
}

/* Thread Execution and Thread Stack Usage: every line, by thread name. */
static void check_threads(const char *txt, const struct tt_analysis *an,
			  const struct tt_analysis_totals *t)
{
	unsigned n = tt_analysis_nthreads(an), lines = 0;
	const char *ex = section(txt, "Thread Execution"), *st = section(txt, "Thread Stack Usage");

	CHECK_MSG(ex && st, "sections missing");
	if (!ex || !st)
		return;
	CHECK_MSG(tracex_total(txt, "Idle System") == (double)t->idle_ticks, "idle ticks");
	CHECK_MSG(tracex_total(txt, "Interrupt") == (double)t->isr_ticks, "interrupt ticks %" PRIu64,
	      t->isr_ticks);
	for (unsigned i = 0; i < n; i++) {
		struct tt_analysis_thread th;
		CHECK_MSG(tt_analysis_thread_at(an, i, &th) == 0 && th.name, "thread %u", i);
		CHECK_MSG(tracex_total(txt, th.name) == (double)th.ticks,
		      "%s: TraceX %.0f ticks, tracetap %" PRIu64, th.name,
		      tracex_total(txt, th.name), th.ticks);
		/* "  SIZE  MIN  EVENT  NAME" or "  SIZE  ---  ---  NAME" */
		const char *l = st;
		bool found = false;
		size_t nl = strlen(th.name);
		for (; l && l[1] && l[1] != '*'; l = strchr(l + 1, '\n')) {
			const char *e = strchr(l + 1, '\n');
			if (!e || (size_t)(e - l - 1) < nl || strncmp(e - nl, th.name, nl) ||
			    e[-(long)nl - 1] != ' ')
				continue;
			unsigned size, min, evn;
			uint64_t f = th.lowest_sp < th.stack_start ? 0 : th.lowest_sp - th.stack_start;
			found = true;
			lines++;
			if (sscanf(l + 1, " %u %u %u", &size, &min, &evn) == 3) {
				CHECK_MSG(th.have_sp && size == th.stack_size && min == f &&
				      evn == th.lowest_sp_event,
				      "%s stack: TraceX %u %u at %u, tracetap %u %" PRIu64 " at %" PRIu64,
				      th.name, size, min, evn, th.stack_size, f, th.lowest_sp_event);
			} else {
				CHECK_MSG(sscanf(l + 1, " %u ---", &size) == 1 && size == th.stack_size &&
				      (!th.have_sp || f >= size), "%s stack: TraceX ---", th.name);
			}
			break;
		}
		CHECK_MSG(found, "%s: not in TraceX's Thread Stack Usage", th.name);
	}
	CHECK_MSG(n == 9 && lines == 9, "threads: %u, stack lines matched %u (TraceX: 9)", n, lines);
}

/* FileX and NetX: every "Label: N" of each group, against the format's counter of that
 * section, group and label. */
static void check_counters(const char *txt, const struct tt_analysis *an)
{
	const struct tt_analysis_ops *ops = tt_threadx_reader.analysis;
	unsigned seen = 0;

	for (unsigned i = 0; i < ops->ncounters; i++) {
		const struct tt_an_counter *c = &ops->counters[i];
		const char *s = section(txt, c->section), *g;
		char key[64];
		long long v = -1;
		snprintf(key, sizeof(key), "\n%s:\n", c->group);
		g = s ? strstr(s, key) : NULL;
		if (g) {
			snprintf(key, sizeof(key), "\n  %s:", c->label);
			/* the label inside this group: before the blank line that ends it */
			const char *p = strstr(g + 1, key), *end = strstr(g + 1, "\n\n");
			if (p && (!end || p < end))
				v = strtoll(p + strlen(key), NULL, 10);
		}
		CHECK_MSG(v >= 0 && (uint64_t)v == tt_analysis_counter(an, i),
		      "%s / %s / %s: TraceX %lld, tracetap %" PRIu64, c->section, c->group,
		      c->label, v, tt_analysis_counter(an, i));
		seen += v >= 0;
	}
	CHECK_MSG(seen == 38, "counters found in TraceX's text: %u of 38", seen);
}

/* Popular Services: each line's id and count, in TraceX's order. */
static void check_services(const char *txt, const struct tt_analysis *an)
{
	const char *s = section(txt, "Popular Services");
	unsigned i = 0;

	for (const char *l = s ? strchr(s + 1, '\n') : NULL; l && l[1] && l[1] != '*';
	     l = strchr(l + 1, '\n')) {
		const char *par = strchr(l + 1, '(');
		unsigned id;
		unsigned long long cnt;
		uint32_t gid;
		uint64_t gcnt;
		const char *name;
		if (!par || par > strchr(l + 1, '\n') || sscanf(par, "( %u) %llu", &id, &cnt) != 2)
			continue;
		CHECK_MSG(tt_analysis_service_at(an, i, &gid, &name, &gcnt) == 0 && gid == id &&
		      gcnt == cnt, "service %u: TraceX id %u x %llu, tracetap id %" PRIu32 " x %"
		      PRIu64, i, id, cnt, gid, gcnt);
		i++;
	}
	uint32_t gid;
	uint64_t gcnt;
	const char *name;
	CHECK_MSG(i == 11 && tt_analysis_service_at(an, i, &gid, &name, &gcnt) == -ENOENT,
	      "services: TraceX lists %u, tracetap more or fewer", i);
}

/* Popular services per thread: TraceX's event rows counted here by (context thread, event id),
 * against tracetap's pairs (an interrupt's or initialisation's events count for no thread). */
static void check_thread_services(const struct tt_analysis *an)
{
	static struct pair { uint32_t th, id; uint64_t n; } want[MAX_ROWS];
	size_t nwant = 0, k;
	unsigned i;
	uint32_t th, id;
	uint64_t n;

	for (size_t r = 0; r < nrows; r++) {
		if (!is_thread(rows[r].ctx))
			continue;
		for (k = 0; k < nwant && !(want[k].th == rows[r].ctx && want[k].id == rows[r].id); k++)
			;
		if (k == nwant)
			want[nwant++] = (struct pair){ rows[r].ctx, rows[r].id, 0 };
		want[k].n++;
	}
	for (i = 0; tt_analysis_thread_service_at(an, i, &th, &id, &n) == 0; i++) {
		for (k = 0; k < nwant && !(want[k].th == th && want[k].id == id); k++)
			;
		CHECK_MSG(k < nwant && want[k].n == n, "thread 0x%08" PRIx32 " service %" PRIu32
			  ": tracetap %" PRIu64 ", TraceX's rows %" PRIu64, th, id, n,
			  k < nwant ? want[k].n : 0);
	}
	CHECK_MSG(i == nwant && nwant > 10, "(thread, service) pairs: TraceX's rows %zu, "
		  "tracetap %u", nwant, i);
}

int main(void)
{
	uint8_t *trx;
	size_t len;
	char *txt, err[256];
	struct tt_analysis *an;
	struct tt_analysis_totals t;
	const struct tt_reader_ops *r = &tt_threadx_reader;
	struct tt_reader_config cfg = { 0 };

	if (tracex_sample(&trx, &len, &txt) < 0)
		return 77;
	CHECK_MSG(parse_rows(txt) == 0 && nrows == 974, "TraceX's event rows: %zu", nrows);
	CHECK_MSG(r->analysis && tt_analysis_new(r->analysis, NULL, &an) == 0, "analysis");
	CHECK_MSG(r->decode_image(trx, len, 0, &cfg, tt_analysis_emit, an, err, sizeof(err)) == 0,
	      "decode: %s", err);
	CHECK_MSG(r->analysis->image_threads(trx, len, 0, &cfg, tt_analysis_thread_cb, an) == 0,
	      "registry");
	tt_analysis_totals(an, &t);
	CHECK_MSG(t.events == 974 && t.gaps == 0 && t.span_ticks == 156206,
	      "events %" PRIu64 ", span %" PRIu64, t.events, t.span_ticks);
	check_performance(txt, &t);
	check_threads(txt, an, &t);
	check_counters(txt, an);
	check_services(txt, an);
	check_thread_services(an);
	/* the Priority Inversion column: rows TraceX marks open an inversion (a-b: its end event,
	 * deterministic-non-deterministic); the sample has none, and neither may tracetap */
	unsigned marked = 0, bad = 0;
	for (size_t i = 0; i < nrows; i++) {
		marked += rows[i].inv != 0;
		bad += rows[i].bad != 0;
	}
	CHECK_MSG(marked == t.inversions && bad == t.bad_inversions,
	      "inversion column: TraceX marks %u/%u events, tracetap %" PRIu64 "/%" PRIu64, marked,
	      bad, t.inversions, t.bad_inversions);
	tt_analysis_free(an);
	free(trx);
	free(txt);
	return tt_test_done();
}
