/* tests/unit/test_tracex_sample.c: TraceX's own sample trace, decoded by tracetap, against
 * TraceX's own text export of it (../shared/fixtures/tracex: demo_threadx.trx and
 * demo_threadx.txt, TraceX 6.2.1.0 "save as text"), event for event: ids, the eight raw words,
 * contexts and thread names, priority and preemption threshold, raw and relative times, the
 * entry addresses (the wrap point: the oldest entry first, then the ring's end back to its
 * start), object names in arguments, TraceX's next context (our `run` of the following event)
 * and its Thread Execution totals.
 *
 * Where TraceX's text shows something else than ThreadX wrote, the test compares what ThreadX
 * wrote and the difference is listed here, one by one:
 *  - Raw Time Stamp: TraceX prints the stamp masked with the header's timer mask (0x0000FFFF);
 *    ThreadX wrote the whole counter word (0xFE460834 for 0x0834): compared as ev.ts_raw (masked)
 *    and raw[3] & mask.
 *  - Context and next-context names are cut to 16 characters ("System Timer Thr"): compared as
 *    the first 16 characters of the registry name, and by address.
 *  - The Priority column of ISR events shows the raw priority word (hex), not a priority: no
 *    priority is decoded for them (prio -1).
 *  - Event names are TraceX's ("TX INTERNAL RESUME" for THREAD_RESUME): ids are compared.
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
#include "tracex_text.h"
#include "threadx.h"

#define MAX_EV 2048
#define MAX_OBJ 64

struct tx_row {          /* one row of TraceX's event list */
	uint64_t rel;
	uint32_t id;
	int ctx;             /* enum tt_ctx */
	uint32_t ctx_addr;
	char ctx_name[24];
	int prio, threshold; /* -1: none ('?') */
	int next_ctx;        /* enum tt_run */
	uint32_t next_addr;
	uint32_t info[4], ts, raw_event, raw_prio;
};

struct got {             /* one decoded event, deep-copied */
	struct tt_event ev;
	uint32_t raw[8];
	char thread_name[48], run_name[48];
	char arg_text[TT_MAX_ARGS][48];
	int nrec_before;     /* gap/reset records seen before it */
};

static struct tx_row rows[MAX_EV];
static size_t nrows;
static struct got got[MAX_EV];
static size_t ngot;
static int nother;
static struct { uint32_t addr; char name[40]; } objs[MAX_OBJ];
static size_t nobjs;
static uint32_t mask, buf_start, buf_end, buf_oldest;

/* "Interrupt", "Initialize", "Idle" or "NAME (XXXXXXXX)" at *p; advances *p past it. */
static int parse_ctx(const char **p, uint32_t *addr, char *name, size_t cap)
{
	const char *s = *p + strspn(*p, " ");
	*addr = 0;
	name[0] = 0;
	if (!strncmp(s, "Interrupt", 9)) {
		*p = s + 9;
		return TT_CTX_ISR;
	}
	if (!strncmp(s, "Initialize", 10)) {
		*p = s + 10;
		return TT_CTX_INIT;
	}
	if (!strncmp(s, "Idle", 4)) {
		*p = s + 4;
		return TT_CTX_UNKNOWN;
	}
	const char *par = strstr(s, " (");
	if (!par || par - s >= (long)cap)
		return -1;
	snprintf(name, cap, "%.*s", (int)(par - s), s);
	*addr = (uint32_t)strtoul(par + 2, NULL, 16);
	*p = strchr(par, ')') + 1;
	return TT_CTX_THREAD;
}

static int parse_row(const char *line, struct tx_row *r)
{
	unsigned num;
	unsigned long long rel;
	char name[8];
	const char *p = strstr(line, "I1:");
	uint32_t naddr;
	char nname[24];

	if (sscanf(line, "%u %llu", &num, &rel) != 2 || num != nrows || !p)
		return -1;
	r->rel = rel;
	if (sscanf(p, "I1: %x I2: %x I3: %x I4: %x %x %7s %x %x", &r->info[0], &r->info[1],
		   &r->info[2], &r->info[3], &r->ts, name, &r->raw_event, &r->raw_prio) != 8)
		return -1;
	const char *q = strchr(line, '(');
	if (!q || sscanf(q, "( %u)", &r->id) != 1)
		return -1;
	q = strchr(q, ')') + 1;
	r->ctx = parse_ctx(&q, &r->ctx_addr, r->ctx_name, sizeof(r->ctx_name));
	r->prio = r->threshold = -1;
	if (r->ctx == TT_CTX_THREAD) {
		char th[8];
		if (sscanf(q, " %d ( %7[^)])", &r->prio, th) != 2)
			return -1;
		r->threshold = th[0] == '?' ? -1 : atoi(th);
		q = strchr(q, ')') + 1;
	} else {
		q += strspn(q, " ");
		q += strcspn(q, " "); /* the raw priority word */
	}
	int n = parse_ctx(&q, &naddr, nname, sizeof(nname));
	r->next_ctx = n == TT_CTX_THREAD ? TT_RUN_THREAD : n == TT_CTX_ISR ? TT_RUN_ISR :
		      n == TT_CTX_INIT ? TT_RUN_INIT : n == TT_CTX_UNKNOWN ? TT_RUN_IDLE : -1;
	r->next_addr = naddr;
	return r->ctx < 0 || n < 0 ? -1 : 0;
}

static const char *known_types[] = { "THREAD", "BYTE POOL", "QUEUE", "SEMAPHORE", "EVENT FLAGS",
				     "MUTEX", "BLOCK POOL", "TIMER", NULL };

/* Header fields, the object table and the event rows. */
static int parse_text(char *txt)
{
	char *save = NULL;
	int section = 0;

	for (char *l = strtok_r(txt, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save)) {
		if (strstr(l, "Objects in Trace"))
			section = 1;
		else if (strstr(l, "Performance Statistics"))
			section = 0;
		else if (strstr(l, "Trace Events"))
			section = 2;
		sscanf(l, "Timer Mask: %x", &mask);
		sscanf(l, "Buffer Start: %x", &buf_start);
		sscanf(l, "Buffer End: %x", &buf_end);
		sscanf(l, "Buffer Oldest: %x", &buf_oldest);
		if (section == 1 && nobjs < MAX_OBJ) {
			char *end;
			uint32_t a = (uint32_t)strtoul(l, &end, 16);
			char *tail = strstr(l, "  00         00");
			if (end == l || !tail)
				continue;
			end += strspn(end, " ");
			for (int i = 0; known_types[i]; i++)
				if (!strncmp(end, known_types[i], strlen(known_types[i]))) {
					end += strlen(known_types[i]);
					end += strspn(end, " ");
					objs[nobjs].addr = a;
					while (tail > end && tail[-1] == ' ')
						tail--;
					snprintf(objs[nobjs].name, sizeof(objs[nobjs].name), "%.*s",
						 (int)(tail - end), end);
					nobjs++;
					break;
				}
		}
		if (section == 2 && l[strspn(l, " ")] >= '0' && l[strspn(l, " ")] <= '9') {
			if (nrows == MAX_EV || parse_row(l, &rows[nrows]) < 0) {
				fprintf(stderr, "cannot read TraceX row %zu: %s\n", nrows, l);
				return -1;
			}
			nrows++;
		}
	}
	return 0;
}

static void copy_str(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

static void on_record(void *arg, const struct tt_record *rec)
{
	(void)arg;
	if (rec->kind != TT_REC_EVENT) {
		nother++;
		return;
	}
	if (ngot == MAX_EV)
		return;
	struct got *g = &got[ngot++];
	g->ev = rec->u.ev;
	memcpy(g->raw, rec->u.ev.raw, sizeof(g->raw));
	copy_str(g->thread_name, sizeof(g->thread_name), rec->u.ev.thread_name);
	copy_str(g->run_name, sizeof(g->run_name), rec->u.ev.run_name);
	for (int i = 0; i < rec->u.ev.nargs; i++)
		copy_str(g->arg_text[i], sizeof(g->arg_text[i]), rec->u.ev.args[i].text);
	g->nrec_before = nother;
}

static const char *obj_name(uint32_t addr)
{
	for (size_t i = 0; i < nobjs; i++)
		if (objs[i].addr == addr)
			return objs[i].name;
	return NULL;
}

static void compare_events(void)
{
	uint64_t first = ngot ? got[0].ev.time : 0;
	int next_checked = 0, obj_checked = 0;

	CHECK_EQ(ngot, nrows);
	CHECK_EQ(nother, 0);
	for (size_t i = 0; i < ngot && i < nrows; i++) {
		const struct tt_event *e = &got[i].ev;
		const struct tx_row *r = &rows[i];
		const uint32_t *w = got[i].raw;
		int bad = tt_test_failures;
		/* the wrap point: TraceX starts at the oldest entry and wraps at the buffer end */
		uint32_t addr = buf_oldest + 32u * (uint32_t)i;
		if (addr >= buf_end)
			addr = buf_start + (addr - buf_end);
		CHECK_EQ(e->addr, addr);
		CHECK_EQ(e->id, r->id);
		CHECK_EQ(w[2], r->raw_event);
		CHECK_EQ(w[1], r->raw_prio);
		for (int k = 0; k < 4; k++)
			CHECK_EQ(w[4 + k], r->info[k]);
		CHECK_EQ(e->ts_raw, r->ts);
		CHECK_EQ(w[3] & mask, r->ts);
		CHECK_EQ(e->time - first, r->rel);
		CHECK_EQ(e->ctx, r->ctx);
		if (r->ctx == TT_CTX_THREAD) {
			CHECK_EQ(e->thread, r->ctx_addr);
			CHECK_EQ(w[0], r->ctx_addr);
			CHECK_MSG(!strncmp(got[i].thread_name, r->ctx_name, 16), "event %zu: '%s' "
				  "vs TraceX '%s'", i, got[i].thread_name, r->ctx_name);
			CHECK_EQ(e->prio, r->prio);
			CHECK_EQ(e->threshold, r->threshold);
		} else {
			CHECK_EQ(e->prio, -1);
			CHECK_EQ(e->threshold, -1);
		}
		/* object arguments named as TraceX's object table names them */
		for (int k = 0; k < e->nargs; k++) {
			const char *n = e->args[k].kind == TT_ARG_OBJ ? obj_name(e->args[k].value) : NULL;
			if (n) {
				CHECK_MSG(!strcmp(got[i].arg_text[k], n), "event %zu arg %d: '%s' vs "
					  "'%s'", i, k, got[i].arg_text[k], n);
				obj_checked++;
			}
		}
		/* TraceX's next context of event i is who ran from it to event i + 1 */
		if (i + 1 < ngot) {
			const struct tt_event *n = &got[i + 1].ev;
			CHECK_EQ(n->run, r->next_ctx);
			if (r->next_ctx == TT_RUN_THREAD)
				CHECK_EQ(n->run_thread, r->next_addr);
			next_checked++;
		}
		if (tt_test_failures > bad + 20) {
			fprintf(stderr, "stopping at event %zu\n", i);
			return;
		}
	}
	CHECK_EQ(ngot, 974);
	CHECK_EQ(next_checked, 973);
	CHECK(obj_checked > 900);
	CHECK_EQ(got[0].ev.run, TT_RUN_NONE); /* nothing before the first event */
}

/* TraceX's Thread Execution, from the `run` of each event: the ticks since the previous one. */
static void compare_totals(const char *txt)
{
	static const struct { const char *name; uint32_t ptr; int run; uint64_t ticks; } want[] = {
		{ "System Timer Thread", 0xEEA4, TT_RUN_THREAD, 1492 },
		{ "thread 0", 0x6644, TT_RUN_THREAD, 0 },
		{ "thread 1", 0x66EC, TT_RUN_THREAD, 79507 },
		{ "thread 2", 0x6794, TT_RUN_THREAD, 70828 },
		{ "thread 3", 0x683C, TT_RUN_THREAD, 657 },
		{ "thread 4", 0x68E4, TT_RUN_THREAD, 1047 },
		{ "thread 5", 0x698C, TT_RUN_THREAD, 0 },
		{ "thread 6", 0x6A34, TT_RUN_THREAD, 843 },
		{ "thread 7", 0x6ADC, TT_RUN_THREAD, 1076 },
		{ "Idle System", 0, TT_RUN_IDLE, 0 },
		{ "Interrupt", 0, TT_RUN_ISR, 756 },
	};
	uint64_t sum = 0;
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		uint64_t ticks = 0;
		/* the numbers above are TraceX's: check they are the ones in its text */
		CHECK_MSG(tracex_total(txt, want[k].name) == (double)want[k].ticks,
			  "TraceX's total for %s is not %" PRIu64, want[k].name, want[k].ticks);
		for (size_t i = 1; i < ngot; i++) {
			const struct tt_event *e = &got[i].ev;
			if (e->run == want[k].run && (e->run != TT_RUN_THREAD ||
						      e->run_thread == want[k].ptr))
				ticks += e->time - got[i - 1].ev.time;
		}
		CHECK_MSG(ticks == want[k].ticks, "%s ran %" PRIu64 " ticks, TraceX: %" PRIu64,
			  want[k].name, ticks, want[k].ticks);
		sum += ticks;
	}
	CHECK_EQ(sum, got[ngot - 1].ev.time - got[0].ev.time); /* every tick accounted for */
}

int main(void)
{
	char err[256], *txt;
	uint8_t *img;
	size_t len;

	if (tracex_sample(&img, &len, &txt) < 0)
		return 77;
	char *copy = strdup(txt);
	CHECK(copy && parse_text(copy) == 0);
	CHECK_EQ(mask, 0xFFFF);
	CHECK_EQ(nrows, 974);
	CHECK_EQ(nobjs, 15);
	uint32_t base = (uint32_t)img[8] | (uint32_t)img[9] << 8 | (uint32_t)img[10] << 16 |
			(uint32_t)img[11] << 24;
	int rc = tt_threadx_decode_image(img, len, base, 0, &(struct tt_threadx_config){ 0 },
					 on_record, NULL, err, sizeof(err));
	CHECK_MSG(rc == 0, "decode: %s", err);
	compare_events();
	compare_totals(txt);
	free(copy);
	free(txt);
	free(img);
	return tt_test_done();
}
