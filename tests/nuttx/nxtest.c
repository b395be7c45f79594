/* tests/nuttx/nxtest.c: see nxtest.h. */
#include "nxtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nxlog_cb(void *arg, const struct tt_record *rec)
{
	struct nxlog *l = arg;
	struct nxrec *r;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->r = realloc(l->r, l->cap * sizeof(*l->r));
		if (!l->r)
			abort();
	}
	r = &l->r[l->n++];
	memset(r, 0, sizeof(*r));
	r->kind = rec->kind;
	if (rec->kind == TT_REC_GAP) {
		r->lost = rec->u.gap.lost;
		r->exact = rec->u.gap.exact;
		r->lower = rec->u.gap.lower;
		r->upper = rec->u.gap.upper;
		snprintf(r->reason, sizeof(r->reason), "%s", rec->u.gap.reason);
		if (rec->u.gap.basis)
			snprintf(r->basis, sizeof(r->basis), "%s", rec->u.gap.basis);
		return;
	}
	if (rec->kind == TT_REC_RESET) {
		snprintf(r->reason, sizeof(r->reason), "%s", rec->u.reset.reason);
		return;
	}
	const struct tt_event *ev = &rec->u.ev;
	snprintf(r->name, sizeof(r->name), "%s", ev->name);
	r->id = ev->id;
	r->thread = ev->thread;
	r->prio = ev->prio;
	r->core = ev->core;
	if (ev->thread_name)
		snprintf(r->thread_name, sizeof(r->thread_name), "%s", ev->thread_name);
	r->time = ev->time;
	r->ts = ev->ts_raw;
	r->ns = ev->ns;
	r->has_ns = ev->has_ns;
	r->addr = ev->addr;
	r->nraw = ev->nraw;
	r->nargs = ev->nargs;
	for (unsigned i = 0; i < ev->nargs; i++) {
		const struct tt_arg *a = &ev->args[i];
		snprintf(r->argname[i], sizeof(r->argname[i]), "%s", a->name);
		if (a->text)
			snprintf(r->argtext[i], sizeof(r->argtext[i]), "%s", a->text);
		else if (a->kind == TT_ARG_HEX || a->kind == TT_ARG_OBJ)
			snprintf(r->argtext[i], sizeof(r->argtext[i]), "0x%x", a->value);
		else
			snprintf(r->argtext[i], sizeof(r->argtext[i]), "%u", a->value);
	}
}

void nxlog_clear(struct nxlog *l)
{
	l->n = 0;
}

const char *nxarg(const struct nxrec *r, const char *name)
{
	for (unsigned i = 0; i < r->nargs; i++)
		if (!strcmp(r->argname[i], name))
			return r->argtext[i];
	return NULL;
}
