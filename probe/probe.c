/* probe/probe.c: the backend registry and everything backends share.
 *
 * It owns the request lifecycle (validation, -EBUSY, the plan copy, counters), the deferral of
 * every user callback to the loop (so a callback never fires inside the call that started it and
 * a backend is never re-entered from a user callback: backends may complete or change state
 * from anywhere, including inside their own read/open), cancellation on close, and error text.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_int.h"

static const struct tt_probe_ops *const backends[] = {
	&tt_probe_file_ops,
	&tt_probe_kev_ops,
	&tt_probe_process_ops,
	&tt_probe_openocd_ops,
	&tt_probe_openocd_spawn_ops,
};

static const struct tt_probe_ops *probe_lookup(const char *spec, const char **arg)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (strlen(backends[i]->name) == n && memcmp(backends[i]->name, spec, n) == 0) {
			*arg = colon ? colon + 1 : "";
			return backends[i];
		}
	}
	return NULL;
}

static int unknown_probe(const char *spec, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "unknown probe \"%s\": expected file:PATH, process:PID, openocd:HOST:PORT, "
		 "openocd-spawn (or kev:PATH for a QNX .kev file)", spec);
	return -EINVAL;
}

int tt_probe_spec_check(const char *spec, char *err, size_t errlen)
{
	const char *arg;

	return probe_lookup(spec, &arg) ? 0 : unknown_probe(spec, err, errlen);
}

static void probe_defer_cb(uv_timer_t *t);

/* Starts the defer timer once the handle exists (after open): anything queued by open is
 * delivered then. */
static void probe_kick(struct tt_probe *p)
{
	if (p->defer_ready && !p->closing)
		uv_timer_start(&p->defer, probe_defer_cb, 0, 0);
}

int tt_probe_new(uv_loop_t *loop, const char *spec, const struct tt_probe_options *opt,
		 struct tt_probe **out, char *err, size_t errlen)
{
	static const struct tt_probe_options defaults;
	const struct tt_probe_ops *ops;
	struct tt_probe *p;
	const char *arg;
	int r;

	if (opt == NULL)
		opt = &defaults;
	ops = probe_lookup(spec, &arg);
	if (ops == NULL)
		return unknown_probe(spec, err, errlen);
	assert(ops->size >= sizeof(*p));
	p = calloc(1, ops->size);
	if (p == NULL) {
		snprintf(err, errlen, "%s: out of memory", spec);
		return -ENOMEM;
	}
	p->ops = ops;
	p->loop = loop;
	p->state = TT_PROBE_CONNECTING;
	p->state_cb = opt->state_cb;
	p->state_arg = opt->state_arg;
	r = ops->open(p, arg, opt);
	if (r < 0) {
		snprintf(err, errlen, "%s", p->err[0] ? p->err : uv_strerror(r));
		free(p);
		return r;
	}
	uv_timer_init(loop, &p->defer);
	p->defer.data = p;
	p->defer_ready = 1;
	if (p->nstates || p->done_pending)
		probe_kick(p);
	*out = p;
	return 0;
}

static int probe_plan_check(const struct tt_plan *plan)
{
	if (plan->n == 0 || plan->n > TT_PLAN_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < plan->n; i++) {
		const struct tt_range *r = &plan->r[i];
		if (r->len == 0 || r->dst == NULL || r->addr + r->len < r->addr)
			return -EINVAL;
		if (r->kind != TT_RANGE_FIXED &&
		    (r->kind != TT_RANGE_TO_PTR || !tt_range_ptr_valid(plan, i)))
			return -EINVAL;
	}
	return 0;
}

/* The next segment of p->whole into p->plan (backends without ptr_ranges): a TO_PTR range at
 * its start as the one or two fixed ranges its pointer (read by an earlier segment) gives,
 * then the fixed ranges up to the next TO_PTR range. May be empty (a TO_PTR range that reads
 * nothing). */
static void probe_segment(struct tt_probe *p)
{
	struct tt_plan *s = &p->plan;

	s->n = 0;
	for (; p->seg < p->whole.n; p->seg++) {
		const struct tt_range *r = &p->whole.r[p->seg];
		uint32_t start, n, a;

		if (r->kind == TT_RANGE_FIXED) {
			if (s->n == TT_PLAN_MAX)
				return;
			s->r[s->n++] = *r;
			continue;
		}
		if (s->n > 0)
			return;
		n = tt_range_ptr_span(r, p->whole.r[r->ptr_range].dst + r->ptr_off, &start);
		a = n < r->len - start ? n : r->len - start;
		if (a > 0)
			s->r[s->n++] = (struct tt_range){ .addr = r->addr + start, .len = a,
							  .dst = r->dst_linear ? r->dst : r->dst + start };
		if (n > a)
			s->r[s->n++] = (struct tt_range){ .addr = r->addr, .len = n - a,
							  .dst = r->dst_linear ? r->dst + a : r->dst };
	}
}

/* A segment was read: the next one, when there is one. 1: started; 0: the plan is read; < 0:
 * the backend refused it. */
static int probe_next_segment(struct tt_probe *p)
{
	while (!p->ops->ptr_ranges && p->seg < p->whole.n) {
		probe_segment(p);
		if (p->plan.n > 0) {
			int r = p->ops->read(p);
			return r < 0 ? r : 1;
		}
	}
	return 0;
}

/* Target bytes a completed read moved. */
static uint64_t probe_plan_bytes(const struct tt_plan *plan)
{
	uint64_t n = 0;
	uint32_t start;

	for (unsigned i = 0; i < plan->n; i++) {
		const struct tt_range *r = &plan->r[i];
		n += r->kind == TT_RANGE_FIXED
			     ? r->len
			     : tt_range_ptr_span(r, plan->r[r->ptr_range].dst + r->ptr_off, &start);
	}
	return n;
}

int tt_probe_read(struct tt_probe *p, const struct tt_plan *plan, tt_probe_read_cb cb, void *arg)
{
	int r;

	if (p->closing)
		return -ECANCELED;
	if (p->busy)
		return -EBUSY;
	r = probe_plan_check(plan);
	if (r < 0)
		return r;
	p->whole = *plan;
	p->plan = *plan;
	p->seg = 0;
	if (!p->ops->ptr_ranges)
		probe_segment(p); /* not empty: the first range is a fixed one */
	p->busy = 1;
	p->read_cb = cb;
	p->cb_arg = arg;
	r = p->ops->read(p);
	if (r < 0) {
		p->busy = 0;
		p->read_cb = NULL;
		p->done_pending = 0;
	}
	return r;
}

/* Whether a request that completes like a write (write, halt) may start: 0, or -errno. */
static int write_check(const struct tt_probe *p, int has_op)
{
	if (p->closing)
		return -ECANCELED;
	if (!has_op)
		return -ENOTSUP;
	return p->busy ? -EBUSY : 0;
}

/* Marks p busy with cb (write_begin) until the request's start returns r: undone when it
 * failed (write_end). */
static void write_begin(struct tt_probe *p, tt_probe_write_cb cb, void *arg)
{
	p->busy = 1;
	p->write_cb = cb;
	p->cb_arg = arg;
}

static int write_end(struct tt_probe *p, int r)
{
	if (r < 0) {
		p->busy = 0;
		p->write_cb = NULL;
		p->done_pending = 0;
	}
	return r;
}

int tt_probe_write(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len,
		   tt_probe_write_cb cb, void *arg)
{
	int r = write_check(p, p->ops->write != NULL);

	if (r < 0)
		return r;
	if (len == 0 || data == NULL || addr + len < addr)
		return -EINVAL;
	write_begin(p, cb, arg);
	return write_end(p, p->ops->write(p, addr, data, len));
}

int tt_probe_halt(struct tt_probe *p, tt_probe_write_cb cb, void *arg)
{
	int r = write_check(p, p->ops->halt != NULL);

	if (r < 0)
		return r;
	write_begin(p, cb, arg);
	return write_end(p, p->ops->halt(p));
}

int tt_probe_can_halt(const struct tt_probe *p)
{
	return p->ops->halt != NULL;
}

int tt_probe_relink(struct tt_probe *p, const char *why)
{
	if (p->closing)
		return -ECANCELED;
	if (p->ops->relink == NULL)
		return -ENOTSUP;
	if (p->busy)
		return -EBUSY;
	p->ops->relink(p, why);
	return 0;
}

/* Runs the pending request's callback (exactly once). */
static void probe_complete(struct tt_probe *p, int status)
{
	tt_probe_read_cb rcb = p->read_cb;
	tt_probe_write_cb wcb = p->write_cb;
	void *arg = p->cb_arg;

	assert(p->busy);
	if (rcb != NULL && status == 0) {
		int r = probe_next_segment(p);
		if (r > 0)
			return;
		status = r;
	}
	p->busy = 0;
	p->read_cb = NULL;
	p->write_cb = NULL;
	if (rcb != NULL) {
		p->reads++;
		if (status == 0) {
			p->bytes_read += probe_plan_bytes(&p->whole);
		} else {
			p->read_errors++;
		}
		rcb(p, status, arg);
	} else if (wcb != NULL) {
		wcb(p, status, arg);
	}
}

/* Delivers, in the order they happened, the state changes and the completion queued since the
 * last pass. A user callback may start a request or close the probe: the queue is taken first,
 * and nothing more is delivered once closing. */
static void probe_defer_cb(uv_timer_t *t)
{
	struct tt_probe *p = t->data;
	unsigned n = p->nstates, done_at = p->done_at;
	int done = p->done_pending, status = p->done_status;
	struct tt_probe_state_msg q[TT_PROBE_DEFER_STATES];

	memcpy(q, p->states, n * sizeof(q[0]));
	p->nstates = 0;
	p->done_pending = 0;
	for (unsigned i = 0; i <= n && !p->closing; i++) {
		if (done && i == done_at)
			probe_complete(p, status);
		if (i < n && !p->closing && p->state_cb)
			p->state_cb(p, q[i].st, q[i].msg, p->state_arg);
	}
}

static void probe_done(struct tt_probe *p, int status)
{
	if (p->closing)
		return;
	assert(p->busy && !p->done_pending);
	p->done_pending = 1;
	p->done_status = status;
	p->done_at = p->nstates;
	probe_kick(p);
}

void tt_probe__read_done(struct tt_probe *p, int status)
{
	assert(p->read_cb != NULL || p->closing);
	probe_done(p, status);
}

void tt_probe__write_done(struct tt_probe *p, int status)
{
	assert(p->write_cb != NULL || p->closing);
	probe_done(p, status);
}

void tt_probe__seterr(struct tt_probe *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
}

void tt_probe__set_state(struct tt_probe *p, enum tt_probe_state st, const char *msg)
{
	struct tt_probe_state_msg *m;

	if (p->closing)
		return;
	p->state = st;
	if (p->nstates == TT_PROBE_DEFER_STATES) {
		/* A burst nobody has seen yet: keep the newest, the state is still exact. */
		memmove(&p->states[0], &p->states[1], (TT_PROBE_DEFER_STATES - 1) * sizeof(*m));
		p->nstates--;
		if (p->done_pending && p->done_at > 0)
			p->done_at--;
	}
	m = &p->states[p->nstates++];
	m->st = st;
	snprintf(m->msg, sizeof(m->msg), "%s", msg ? msg : "");
	probe_kick(p);
}

static void probe_closed_cb(uv_handle_t *h)
{
	struct tt_probe *p = h->data;

	if (p->busy) {
		tt_probe__seterr(p, "%s: probe closed", p->ops->name);
		probe_complete(p, -ECANCELED);
	}
	if (p->close_cb)
		p->close_cb(p, p->close_arg);
	free(p);
}

void tt_probe_close(struct tt_probe *p, tt_probe_close_cb cb, void *arg)
{
	assert(!p->closing);
	p->close_cb = cb;
	p->close_arg = arg;
	p->closing = 1;
	p->nstates = 0;
	p->done_pending = 0;
	uv_timer_stop(&p->defer);
	p->ops->close(p);
}

void tt_probe__close_done(struct tt_probe *p)
{
	assert(p->closing);
	uv_close((uv_handle_t *)&p->defer, probe_closed_cb);
}

const char *tt_probe_error(const struct tt_probe *p)
{
	return p->err;
}

enum tt_probe_state tt_probe_state(const struct tt_probe *p)
{
	return p->state;
}

const char *tt_probe_state_name(enum tt_probe_state st)
{
	switch (st) {
	case TT_PROBE_CONNECTING:
		return "connecting";
	case TT_PROBE_CONNECTED:
		return "connected";
	case TT_PROBE_DISCONNECTED:
		return "disconnected";
	}
	return "unknown";
}

char *tt_probe__quote(char *out, size_t outlen, const char *s, size_t n, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	assert(outlen >= 8);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int need = (c >= 0x20 && c < 0x7f && c != '\\') ? 1 : 4;

		if (i >= max || o + need + 4 > outlen) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (need == 1) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = '\0';
	return out;
}
