/* tests/unit/txtest.c: fixtures shared by the ThreadX reader tests (see txtest.h). */
#include "txtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void txt_init(struct txt *t, bool big_endian)
{
	memset(t, 0, sizeof(*t));
	t->mem = calloc(1, TXT_MEM);
	if (t->mem == NULL)
		abort();
	txw_init(&t->w, t->mem, TXT_BASE, TXT_MEM, big_endian);
}

void txt_free(struct txt *t)
{
	tt_threadx_free(t->rd);
	free(t->log.v);
	free(t->mem);
}

void txt_reader(struct txt *t, const struct tt_threadx_config *cfg)
{
	struct tt_threadx_config c = { 0 };
	if (cfg)
		c = *cfg;
	c.header_addr = t->w.hdr;
	/* the suites run again with TXT_PTR_RANGES=1: every poll then the one-read kind */
	if (getenv("TXT_PTR_RANGES"))
		c.ptr_ranges = true;
	tt_threadx_free(t->rd);
	if (tt_threadx_new(&c, &t->rd) != 0)
		abort();
}

static void txt_copy_str(char *dst, size_t cap, const char *s, bool *had)
{
	if (had)
		*had = s != NULL;
	snprintf(dst, cap, "%s", s ? s : "");
}

void txt_log_cb(void *arg, const struct tt_record *rec)
{
	struct txt_log *l = arg;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (l->v == NULL)
			abort();
	}
	struct txt_rec *r = &l->v[l->n++];
	memset(r, 0, sizeof(*r));
	r->kind = rec->kind;
	if (rec->kind == TT_REC_GAP) {
		r->lost = rec->u.gap.lost;
		r->exact = rec->u.gap.exact;
		r->lower = rec->u.gap.lower;
		r->upper = rec->u.gap.upper;
		txt_copy_str(r->reason, sizeof(r->reason), rec->u.gap.reason, NULL);
		txt_copy_str(r->basis, sizeof(r->basis), rec->u.gap.basis, NULL);
		return;
	}
	if (rec->kind == TT_REC_RESET) {
		txt_copy_str(r->reason, sizeof(r->reason), rec->u.reset.reason, NULL);
		return;
	}
	r->ev = rec->u.ev;
	txt_copy_str(r->name, sizeof(r->name), rec->u.ev.name, NULL);
	txt_copy_str(r->thread_name, sizeof(r->thread_name), rec->u.ev.thread_name, NULL);
	txt_copy_str(r->interrupted_name, sizeof(r->interrupted_name), rec->u.ev.interrupted_name,
		     NULL);
	txt_copy_str(r->run_name, sizeof(r->run_name), rec->u.ev.run_name, NULL);
	for (unsigned i = 0; i < rec->u.ev.nargs && i < TT_MAX_ARGS; i++) {
		txt_copy_str(r->arg_name[i], sizeof(r->arg_name[i]), rec->u.ev.args[i].name, NULL);
		txt_copy_str(r->arg_text[i], sizeof(r->arg_text[i]), rec->u.ev.args[i].text,
			     &r->arg_has_text[i]);
	}
	if (rec->u.ev.raw && rec->u.ev.nraw == 8)
		memcpy(r->raw, rec->u.ev.raw, sizeof(r->raw));
	r->ev.name = r->ev.thread_name = r->ev.interrupted_name = r->ev.run_name = NULL;
	r->ev.raw = NULL;
}

void txt_log_clear(struct txt_log *l)
{
	l->n = 0;
}

/* A TT_RANGE_TO_PTR range as a probe reads it (plan.h): byte by byte from its start, so a
 * hook sees the plan in the same order as ever. */
static void txt_read_ring(struct txt *t, const struct tt_plan *p, unsigned i)
{
	const struct tt_range *r = &p->r[i];
	uint32_t start, n;
	if (!tt_range_ptr_valid(p, i)) {
		fprintf(stderr, "txt_cycle: malformed ring range %u\n", i);
		abort();
	}
	n = tt_range_ptr_span(r, p->r[r->ptr_range].dst + r->ptr_off, &start);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t o = (start + k) % r->len;
		r->dst[r->dst_linear ? k : o] = t->mem[r->addr + o - TXT_BASE];
	}
}

int txt_cycle(struct txt *t)
{
	for (int step = 0; step < 32; step++) {
		struct tt_plan p;
		tt_threadx_plan(t->rd, &p);
		if (p.n < 1 || p.n > TT_PLAN_MAX) {
			fprintf(stderr, "txt_cycle: bad plan size %u\n", p.n);
			abort();
		}
		for (unsigned i = 0; i < p.n; i++) {
			if (t->hook)
				t->hook(t, i, &p);
			if (p.r[i].addr < TXT_BASE || p.r[i].addr + p.r[i].len > TXT_BASE + TXT_MEM) {
				fprintf(stderr, "txt_cycle: read outside RAM 0x%llx+%u\n",
					(unsigned long long)p.r[i].addr, p.r[i].len);
				abort();
			}
			if (p.r[i].kind == TT_RANGE_TO_PTR)
				txt_read_ring(t, &p, i);
			else
				memcpy(p.r[i].dst, t->mem + (p.r[i].addr - TXT_BASE), p.r[i].len);
		}
		int rc = tt_threadx_ingest(t->rd, txt_log_cb, &t->log);
		if (rc != TT_THREADX_MORE)
			return rc;
	}
	fprintf(stderr, "txt_cycle: reader never finished a cycle\n");
	abort();
}

uint32_t txt_user(struct txt *t, uint32_t seq)
{
	return txw_insert(&t->w, 0x1000, txw_prio_word(5, 5), TXT_USER, seq, 0, 0, 0, NULL);
}

size_t txt_count(const struct txt_log *l, int kind)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].kind == kind;
	return n;
}

size_t txt_seqs(const struct txt_log *l, uint32_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == TT_REC_EVENT && l->v[i].ev.id == TXT_USER && n < max)
			out[n++] = l->v[i].raw[4];
	return n;
}

bool txt_seq_range(const struct txt_log *l, uint32_t from, uint32_t to)
{
	uint32_t want = from;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].kind != TT_REC_EVENT || l->v[i].ev.id != TXT_USER)
			continue;
		if (l->v[i].raw[4] != want) {
			fprintf(stderr, "seq: got %u, expected %u\n", l->v[i].raw[4], want);
			return false;
		}
		want++;
	}
	if (want != to + 1)
		fprintf(stderr, "seq: ended before %u (expected up to %u)\n", want, to);
	return want == to + 1;
}

const struct txt_rec *txt_first(const struct txt_log *l, int kind)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == kind)
			return &l->v[i];
	return NULL;
}
