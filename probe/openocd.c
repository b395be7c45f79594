/* probe/openocd.c: the openocd:HOST:PORT and openocd-spawn backends (TCL RPC on libuv).
 *
 * Both speak the same RPC over a uv_stream_t: a TCP connection to a running OpenOCD, or the
 * stdin/stdout pipes of an OpenOCD this probe spawned with `tcl_port pipe` (its stderr is
 * drained into opt->openocd_log and a small tail kept for error messages). One command is in
 * flight at a time, each wrapped and tagged (tcl.h) so errors and notifications are told apart
 * from results; a reply that does not parse, a missing reply (timeout) or a lost link drops the
 * link and the probe reconnects (or respawns) with backoff, 100 ms doubling to 5 s.
 *
 * Link lifecycle: IDLE -> STARTING (resolve/connect or spawn, then "tcl_notifications on") ->
 * UP -> DOWN (tearing down: every handle of the link closes) -> IDLE (retry timer) ... A closing
 * probe tears the link down the same way, then closes its timers. The spawned OpenOCD itself
 * (argv, stderr, exit, stopping it) is in openocd_spawn.c.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "openocd_int.h"

#define OCD_BACKOFF_MIN 100
#define OCD_MD_NOTE " (no read_memory: OpenOCD < 0.12, reading with mdw)"
#define OCD_BACKOFF_MAX 5000

struct ocd_write {
	uv_write_t req;
	char data[];
};

static void ocd_next_op(struct ocd *o);
static void ocd_retry_cb(uv_timer_t *t);
static void ocd_timeout_cb(uv_timer_t *t);

/* Reports a state change; repeats of the same state and message are not reported again. */
static void ocd_state(struct ocd *o, enum tt_probe_state st, const char *msg)
{
	if (st == o->base.state && strcmp(msg, o->last_msg) == 0)
		return;
	snprintf(o->last_msg, sizeof(o->last_msg), "%s", msg);
	tt_probe__set_state(&o->base, st, msg);
}

static void ocd_finish(struct ocd *o, int status)
{
	enum ocd_req r = o->req;

	o->req = REQ_NONE;
	if (r == REQ_READ)
		tt_probe__read_done(&o->base, status);
	else if (r == REQ_WRITE || r == REQ_HALT)
		tt_probe__write_done(&o->base, status);
}

static void ocd_timer_closed(uv_handle_t *h)
{
	struct ocd *o = h->data;

	if (--o->ntimers == 0) {
		tt_tcl_rx_free(&o->rx);
		free(o->scratch);
		free(o->cmd);
		free(o->host);
		free(o->port);
		if (o->child)
			ocd_spawn_free(o);
		tt_probe__close_done(&o->base);
	}
}

/* Every resource of the link is gone: retry later, or finish closing. */
static void ocd_link_released(struct ocd *o)
{
	o->link = LINK_IDLE;
	o->wr = NULL;
	if (o->base.closing) {
		uv_close((uv_handle_t *)&o->retry, ocd_timer_closed);
		uv_close((uv_handle_t *)&o->timeout, ocd_timer_closed);
		uv_close((uv_handle_t *)&o->grace, ocd_timer_closed);
		return;
	}
	uv_timer_start(&o->retry, ocd_retry_cb, o->backoff_ms, 0);
	o->backoff_ms = o->backoff_ms * 2 > OCD_BACKOFF_MAX ? OCD_BACKOFF_MAX : o->backoff_ms * 2;
}

static void ocd_link_closed(uv_handle_t *h)
{
	struct ocd *o = h->data;

	if (--o->nlink == 0)
		ocd_link_released(o);
}

void ocd_close_link_handle(struct ocd *o, uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, ocd_link_closed);
}

static void ocd_teardown(struct ocd *o)
{
	uv_timer_stop(&o->timeout);
	if (!o->child) {
		uv_cancel((uv_req_t *)&o->gai); /* its callback releases it either way */
		if (o->tcp.data == o)
			ocd_close_link_handle(o, (uv_handle_t *)&o->tcp);
		return;
	}
	ocd_spawn_stop(o);
}

/* Drops the link: the pending request fails (-EPROTO/-ETIMEDOUT as given, else -ENOTCONN),
 * the state goes DISCONNECTED with the message, and a reconnect follows the teardown. */
void ocd_fail(struct ocd *o, int status, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (o->link == LINK_DOWN || o->link == LINK_IDLE)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->link = LINK_DOWN;
	o->want = 0;
	tt_tcl_rx_reset(&o->rx);
	tt_probe__seterr(&o->base, "%s: %s", o->name, msg);
	if (status != -EPROTO && status != -ETIMEDOUT)
		status = -ENOTCONN;
	ocd_finish(o, status);
	ocd_state(o, TT_PROBE_DISCONNECTED, o->base.err);
	ocd_teardown(o);
}

/* A command could not be sent. A spawned OpenOCD that stopped reading is exiting: its exit
 * status and stderr say why, so wait for that (the grace timer ends it if it lingers). */
static void ocd_send_failed(struct ocd *o, int status)
{
	if (o->child && status == UV_EPIPE)
		ocd_spawn_stop(o);
	else
		ocd_fail(o, -ENOTCONN, "sending a command: %s", uv_strerror(status));
}

static void ocd_write_cb(uv_write_t *w, int status)
{
	struct ocd *o = w->data;

	free(w);
	if (status < 0 && status != UV_ECANCELED)
		ocd_send_failed(o, status);
}

/* Sends one command, tagged; its reply is awaited with the command timeout. */
static void ocd_send(struct ocd *o, const char *cmd)
{
	size_t cap = strlen(cmd) + TT_TCL_WRAP_MAX;
	struct ocd_write *w = malloc(sizeof(*w) + cap);
	uv_buf_t b;
	int n, r;

	if (w == NULL) {
		ocd_fail(o, -ENOMEM, "out of memory");
		return;
	}
	if (++o->seq == 0)
		o->seq = 1;
	n = tt_tcl_format(w->data, cap, o->seq, cmd);
	assert(n > 0); /* cap holds the wrapping */
	b = uv_buf_init(w->data, (unsigned)n);
	w->req.data = o;
	o->want = o->seq;
	uv_timer_start(&o->timeout, ocd_timeout_cb, o->timeout_ms, 0);
	r = uv_write(&w->req, o->wr, &b, 1, ocd_write_cb);
	if (r < 0) {
		free(w);
		ocd_send_failed(o, r);
	}
}

static void ocd_link_up(struct ocd *o)
{
	char msg[256];

	o->link = LINK_UP;
	o->backoff_ms = OCD_BACKOFF_MIN;
	if (o->child)
		snprintf(msg, sizeof(msg), "%.150s: OpenOCD running (pid %d)%s", o->name,
			 ocd_spawn_pid(o), o->md_fallback ? OCD_MD_NOTE : "");
	else
		snprintf(msg, sizeof(msg), "%.150s: connected%s", o->name,
			 o->md_fallback ? OCD_MD_NOTE : "");
	ocd_state(o, TT_PROBE_CONNECTED, msg);
	if (o->req != REQ_NONE)
		ocd_next_op(o);
}

/* The reply to a batch of reads: one result per read_memory (a TT_RANGE_TO_PTR range: one per
 * read TT_TCL_RING made), separated by '|'. Each is scattered as it is parsed, so a ring's
 * pointer read by the same command is in place when the ring's results are parsed. */
static int ocd_batch_reply(struct ocd *o, const struct tt_tcl_msg *m)
{
	const struct tt_plan *plan = &o->base.plan;
	struct tt_tcl_segs g;
	const char *seg;
	size_t sn;
	char perr[160];

	tt_tcl_segs_init(&g, m->body, m->blen);
	for (unsigned i = 0; i < o->nops; i++) {
		const struct ocd_op *op = &o->ops[i];

		if (op->ring) {
			const struct tt_range *r = &plan->r[op->run_first];
			if (tt_tcl_parse_ring(&g, r, plan->r[r->ptr_range].dst + r->ptr_off,
					      o->max_chunk, perr, sizeof(perr)) < 0)
				goto bad;
			continue;
		}
		if (tt_tcl_segs_next(&g, &seg, &sn) < 0) {
			snprintf(perr, sizeof(perr), "no result");
			goto bad;
		}
		if (tt_tcl_parse_words(seg, sn, op->width, op->len / (op->width / 8), o->scratch,
				       perr, sizeof(perr)) < 0)
			goto bad;
		tt_tcl_scatter(plan, op->run_first, op->run_end, op->addr, o->scratch, op->len);
		continue;
bad:
		ocd_fail(o, -EPROTO, "bad reply to %s 0x%" PRIx64 " %u %" PRIu32
			 " (%u of %u in one command): %s", op->ring ? "the ring read at" : "read_memory",
			 op->addr, op->width, op->len / (op->width / 8), i + 1, o->nops, perr);
		return -EPROTO;
	}
	if (!g.done) {
		ocd_fail(o, -EPROTO, "more results than the %u reads of the command", o->nops);
		return -EPROTO;
	}
	if (o->ring_sent)
		o->ring_defined = 1;
	ocd_next_op(o);
	return 0;
}

/* A reply to the current read batch or write command. Returns < 0 when the link was dropped. */
static int ocd_op_reply(struct ocd *o, const struct tt_tcl_msg *m)
{
	const char *verb = o->req == REQ_READ ? "reading" : "writing";
	char q[160];

	if (o->req == REQ_HALT) { /* OpenOCD's `halt` waits for the core (its own timeout) */
		if (m->code != 0)
			tt_probe__seterr(&o->base, "%s: halt failed: %s", o->name,
					 tt_probe__quote(q, sizeof(q), m->body, m->blen, 120));
		ocd_finish(o, m->code != 0 ? -EIO : 0);
		return 0;
	}
	if (m->code != 0) {
		/* OpenOCD's own error (bus fault, DAP down, ...): precise, never a wrong value */
		if (o->req == REQ_READ && o->nops > 1) {
			/* OpenOCD's message may not say which read failed: the batch again, one
			 * read per command, so the error names its range */
			o->one_by_one = 1;
			o->run_first = o->b_run_first;
			o->run_end = o->b_run_end;
			o->pos = o->b_pos;
			o->end = o->b_end;
			ocd_next_op(o);
			return 0;
		}
		if (o->req == REQ_READ)
			tt_probe__seterr(&o->base, "%s: reading 0x%" PRIx64 " (+%" PRIu32 " bytes, "
					 "width %u) failed: %s", o->name, o->ops[0].addr,
					 o->ops[0].len, o->ops[0].width,
					 tt_probe__quote(q, sizeof(q), m->body, m->blen, 120));
		else
			tt_probe__seterr(&o->base, "%s: %s 0x%" PRIx64 " (+%" PRIu32 " bytes, width %u) "
					 "failed: %s", o->name, verb, o->op_addr, o->op_len, o->op_width,
					 tt_probe__quote(q, sizeof(q), m->body, m->blen, 120));
		ocd_finish(o, -EFAULT);
		return 0;
	}
	if (o->req == REQ_READ)
		return ocd_batch_reply(o, m);
	if (m->blen != 0) {
		ocd_fail(o, -EPROTO, "unexpected reply to write_memory: \"%s\"",
			 tt_probe__quote(q, sizeof(q), m->body, m->blen, 60));
		return -EPROTO;
	}
	o->pos += o->op_len;
	ocd_next_op(o);
	return 0;
}

/* A reply during link-up (enum ocd_init). Returns < 0 when the link was dropped. */
static int ocd_init_reply(struct ocd *o, const struct tt_tcl_msg *m)
{
	static const char *const what[] = { [INIT_NOTIFY] = "tcl_notifications on",
					    [INIT_PROBE] = "info commands read_memory",
					    [INIT_MD_PROCS] = "defining the mdw-based read procs" };
	enum ocd_init st = o->init_pending;
	char q[160], notice[64];

	o->init_pending = INIT_DONE;
	if (st == INIT_STATE) {
		/* no current target (a bare DAP config) is no error: there is no core to report */
		snprintf(notice, sizeof(notice), "target_state state %s",
			 tt_probe__quote(q, sizeof(q), m->body, m->blen, 20));
		ocd_link_up(o);
		if (o->link != LINK_UP)
			return -ENOTCONN;
		if (m->code == 0)	/* running too: a halt seen before a lost link is over */
			tt_probe__set_state(&o->base, o->base.state, notice);
		return 0;
	}
	if (st == INIT_POLL) { /* an error: not a poll we know, no wrap */
		o->poll_wrap = m->code == 0 && tt_tcl_polling_on(m->body, m->blen);
		o->init_pending = INIT_STATE;
		ocd_send(o, "[target current] curstate");
		return 0;
	}
	if (m->code != 0) {
		ocd_fail(o, -EPROTO, "%s failed: \"%s\"", what[st],
			 tt_probe__quote(q, sizeof(q), m->body, m->blen, 100));
		return -EPROTO;
	}
	if (st == INIT_NOTIFY) {
		o->init_pending = INIT_PROBE;
		ocd_send(o, "info commands read_memory");
		return 0;
	}
	o->md_fallback = st == INIT_MD_PROCS;
	if (st == INIT_PROBE && (m->blen != 11 || memcmp(m->body, "read_memory", 11))) {
		/* OpenOCD before 0.12 (Ubuntu 22.04 ships 0.11) */
		o->init_pending = INIT_MD_PROCS;
		ocd_send(o, tt_tcl_md_procs);
		return 0;
	}
	o->init_pending = INIT_POLL;
	ocd_send(o, "poll");
	return 0;
}

static int ocd_frame(void *arg, const char *f, size_t n)
{
	struct ocd *o = arg;
	struct tt_tcl_msg m;
	char q[160], msg[200];

	if (tt_tcl_parse_msg(f, n, &m) < 0) {
		ocd_fail(o, -EPROTO, "unexpected reply \"%s\" (is this OpenOCD's TCL RPC port?)",
			 tt_probe__quote(q, sizeof(q), f, n, 60));
		return -EPROTO;
	}
	if (m.kind == TT_TCL_NOTIFY) {
		while (m.blen && (m.body[m.blen - 1] == '\n' || m.body[m.blen - 1] == '\r'))
			m.blen--;	/* OpenOCD ends each notification with CR LF */
		snprintf(msg, sizeof(msg), "%s", tt_probe__quote(q, sizeof(q), m.body, m.blen, 150));
		tt_probe__set_state(&o->base, o->base.state, msg);
		return 0;
	}
	if (m.seq != o->want) {
		ocd_fail(o, -EPROTO, "reply tagged @%u while waiting for @%u: \"%s\"", m.seq,
			 o->want, tt_probe__quote(q, sizeof(q), f, n, 60));
		return -EPROTO;
	}
	o->want = 0;
	uv_timer_stop(&o->timeout);
	if (o->init_pending)
		return ocd_init_reply(o, &m);
	if (o->req == REQ_NONE) {
		ocd_fail(o, -EPROTO, "reply with no command pending");
		return -EPROTO;
	}
	return ocd_op_reply(o, &m);
}

void ocd_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	struct ocd *o = h->data;

	*b = uv_buf_init(o->rdbuf, sizeof(o->rdbuf));
}

void ocd_read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
	struct ocd *o = s->data;
	char q[160];
	int r;

	if (nread == 0)
		return;
	if (nread < 0) {
		uv_read_stop(s);
		if (o->child) {
			ocd_spawn_out_eof(o);
		} else if (o->rx.len) {
			ocd_fail(o, -EPROTO, "connection closed after \"%s\" (not OpenOCD?)",
				 tt_probe__quote(q, sizeof(q), o->rx.buf, o->rx.len, 60));
		} else {
			ocd_fail(o, -ENOTCONN, "connection lost: %s",
				 nread == UV_EOF ? "OpenOCD closed it" : uv_strerror((int)nread));
		}
		return;
	}
	if (o->link == LINK_DOWN)
		return; /* tearing down: nothing from this link counts */
	r = tt_tcl_rx_push(&o->rx, b->base, (size_t)nread, ocd_frame, o);
	if (r == -EPROTO && o->link != LINK_DOWN)
		ocd_fail(o, -EPROTO, "more than %zu bytes with no reply terminator: \"%s\"",
			 o->rx.max, tt_probe__quote(q, sizeof(q), o->rx.buf, o->rx.len, 60));
	else if (r == -ENOMEM)
		ocd_fail(o, -ENOMEM, "out of memory");
}

void ocd_begin_rpc(struct ocd *o, uv_stream_t *s)
{
	o->wr = s;
	o->init_pending = INIT_NOTIFY;
	ocd_send(o, "tcl_notifications on");
}

static void ocd_connect_cb(uv_connect_t *c, int status)
{
	struct ocd *o = c->data;
	int r;

	if (status == UV_ECANCELED || o->link != LINK_STARTING)
		return;
	if (status < 0) {
		ocd_fail(o, -ENOTCONN, "cannot connect: %s (is OpenOCD running with tcl_port %s?)",
			 uv_strerror(status), o->port);
		return;
	}
	uv_tcp_nodelay(&o->tcp, 1);
	r = uv_read_start((uv_stream_t *)&o->tcp, ocd_alloc, ocd_read_cb);
	if (r < 0) {
		ocd_fail(o, -ENOTCONN, "reading: %s", uv_strerror(r));
		return;
	}
	ocd_begin_rpc(o, (uv_stream_t *)&o->tcp);
}

static void ocd_gai_cb(uv_getaddrinfo_t *g, int status, struct addrinfo *res)
{
	struct ocd *o = g->data;
	int r;

	if (o->link != LINK_STARTING) {
		uv_freeaddrinfo(res);
		if (--o->nlink == 0)
			ocd_link_released(o);
		return;
	}
	o->nlink--; /* the tcp handle holds the link from here */
	if (status < 0) {
		ocd_fail(o, -ENOTCONN, "cannot resolve \"%s\": %s", o->host, uv_strerror(status));
		if (o->nlink == 0)
			ocd_link_released(o);
		return;
	}
	uv_tcp_init(o->base.loop, &o->tcp);
	o->tcp.data = o;
	o->nlink++;
	o->conn.data = o;
	r = uv_tcp_connect(&o->conn, &o->tcp, res->ai_addr, ocd_connect_cb);
	uv_freeaddrinfo(res);
	if (r < 0)
		ocd_fail(o, -ENOTCONN, "cannot connect: %s", uv_strerror(r));
}

void ocd_link_start(struct ocd *o)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	int r;

	o->link = LINK_STARTING;
	o->want = 0;
	o->ring_defined = 0;
	o->init_pending = INIT_DONE;
	tt_tcl_rx_reset(&o->rx);
	if (o->child) {
		ocd_spawn_start(o);
		return;
	}
	o->tcp.data = NULL;
	o->gai.data = o;
	o->nlink = 1;
	uv_timer_start(&o->timeout, ocd_timeout_cb, o->timeout_ms, 0);
	r = uv_getaddrinfo(o->base.loop, &o->gai, ocd_gai_cb, o->host, o->port, &hints);
	if (r < 0) {
		o->nlink = 0;
		ocd_fail(o, -ENOTCONN, "cannot resolve \"%s\": %s", o->host, uv_strerror(r));
		ocd_link_released(o);
	}
}

static void ocd_timeout_cb(uv_timer_t *t)
{
	struct ocd *o = t->data;

	ocd_fail(o, -ETIMEDOUT, "no reply within %" PRIu32 " ms%s", o->timeout_ms,
		 o->link == LINK_STARTING ? " while connecting (is this OpenOCD's TCL RPC port?)"
					  : " (OpenOCD or the target link hangs)");
}

static void ocd_retry_cb(uv_timer_t *t)
{
	ocd_link_start(t->data);
}

/* The next read_memory of the plan (0), or 1 when the plan is read. A TT_RANGE_TO_PTR range
 * is a run of its own, [pos, end) = [0, 1) until it is taken (pos = end). */
static int ocd_next_read(struct ocd *o, struct ocd_op *op)
{
	const struct tt_plan *plan = &o->base.plan;
	const struct tt_range *r;

	if (o->pos == o->end) {
		if (o->run_end == plan->n)
			return 1;
		o->run_first = o->run_end;
		r = &plan->r[o->run_first];
		o->run_end = r->kind == TT_RANGE_FIXED ? tt_tcl_run_end(plan, o->run_first)
						       : o->run_first + 1;
		o->pos = r->kind == TT_RANGE_FIXED ? r->addr : 0;
		o->end = r->kind == TT_RANGE_FIXED
				 ? plan->r[o->run_end - 1].addr + plan->r[o->run_end - 1].len : 1;
	}
	r = &plan->r[o->run_first];
	if (r->kind != TT_RANGE_FIXED) {
		*op = (struct ocd_op){ .addr = r->addr, .len = r->len, .width = 32, .ring = 1,
				       .run_first = o->run_first, .run_end = o->run_end };
		return 0;
	}
	*op = (struct ocd_op){ .addr = o->pos, .run_first = o->run_first, .run_end = o->run_end };
	tt_tcl_next_op(o->pos, o->end, o->max_chunk, &op->len, &op->width);
	return 0;
}

/* The Tcl word giving the pointer of ring op: the result of a read in this batch (ops[0, n)
 * are in it) that read the pointer's word alone at width 32, or its value when an earlier
 * command read it. 0, or -EAGAIN when the ring must start a command of its own. */
static int ocd_ring_ptr(const struct ocd *o, const struct ocd_op *op, unsigned n, char *out,
			size_t outlen)
{
	const struct tt_plan *plan = &o->base.plan;
	const struct tt_range *r = &plan->r[op->run_first], *pr = &plan->r[r->ptr_range];
	uint64_t wa = pr->addr + r->ptr_off;

	for (unsigned j = 0; j < n; j++) {
		const struct ocd_op *q = &o->ops[j];
		if (!q->ring && q->width == 32 && q->run_first <= r->ptr_range &&
		    r->ptr_range < q->run_end && q->addr <= wa && wa + 4 <= q->addr + q->len &&
		    (wa - q->addr) % 4 == 0) {
			snprintf(out, outlen, "[lindex $tt_%u %u]", j, (unsigned)((wa - q->addr) / 4));
			return 0;
		}
	}
	if (n > 0 && r->ptr_range >= o->b_run_first)
		return -EAGAIN; /* read by this command, but not as one word */
	const uint8_t *b = pr->dst + r->ptr_off; /* as tt_tcl_parse_words stored it */
	snprintf(out, outlen, "0x%" PRIx32, (uint32_t)b[0] | (uint32_t)b[1] << 8 |
		 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
	return 0;
}

/* Sends the next reads of the plan as one command: "join [list [set tt_0 [read_memory ..]]
 * .. [tt_ring ..]] |", as many as fit in max_chunk bytes (a ring's bytes not counted: the
 * reply's limit allows for them), OCD_BATCH_MAX calls and the command buffer. The first
 * command of a link that reads a ring defines TT_TCL_RING first. */
static void ocd_send_reads(struct ocd *o)
{
	const char *verb = o->md_fallback ? TT_TCL_READ_MD : "read_memory";
	uint32_t total = 0;
	size_t n = 0, start;
	struct ocd_op op;

	o->nops = 0;
	o->ring_sent = 0;
	o->b_run_first = o->run_first;
	o->b_run_end = o->run_end;
	o->b_pos = o->pos;
	o->b_end = o->end;
	if (!o->ring_defined) {
		for (unsigned i = 0; i < o->base.plan.n; i++)
			o->ring_sent |= o->base.plan.r[i].kind != TT_RANGE_FIXED;
		if (o->ring_sent)
			n = (size_t)snprintf(o->cmd, o->cmdcap, "%s\n", tt_tcl_ring_proc);
	}
	start = n;
	n += (size_t)snprintf(o->cmd + n, o->cmdcap - n, "join [list");
	while (o->nops < (o->one_by_one ? 1u : OCD_BATCH_MAX) && ocd_next_read(o, &op) == 0) {
		char one[192], ptr[48];
		int k;

		if (op.ring) {
			if (ocd_ring_ptr(o, &op, o->nops, ptr, sizeof(ptr)) < 0)
				break;
			k = tt_tcl_format_ring(one + 1, sizeof(one) - 1, verb, ptr,
					       &o->base.plan.r[op.run_first], o->max_chunk);
			assert(k > 0); /* one holds the longest */
			one[0] = ' ';
			k++;
		} else {
			k = snprintf(one, sizeof(one), " [set tt_%u [%s 0x%" PRIx64 " %u %" PRIu32 "]]",
				     o->nops, verb, op.addr, op.width, op.len / (op.width / 8));
		}
		if (o->nops > 0 && ((!op.ring && total + op.len > o->max_chunk) ||
				    n + (size_t)k + 8 + TT_TCL_POLL_WRAP > o->cmdcap))
			break;
		memcpy(o->cmd + n, one, (size_t)k + 1);
		n += (size_t)k;
		if (!op.ring)
			total += op.len;
		o->pos = op.ring ? o->end : o->pos + op.len;
		o->ops[o->nops++] = op;
	}
	if (o->nops == 0) {
		ocd_finish(o, 0);
		return;
	}
	if (o->poll_wrap) { /* the reads inside: "poll off; ..." (TT_TCL_POLL_OFF) */
		size_t pre = strlen(TT_TCL_POLL_OFF), post = strlen(TT_TCL_POLL_ON);
		memmove(o->cmd + start + pre, o->cmd + start, n - start);
		memcpy(o->cmd + start, TT_TCL_POLL_OFF, pre);
		n += pre;
		memcpy(o->cmd + n, "] |", 3);
		memcpy(o->cmd + n + 3, TT_TCL_POLL_ON, post + 1);
	} else {
		memcpy(o->cmd + n, "] |", 4);
	}
	ocd_send(o, o->cmd);
}

/* Next command of the pending request, or its completion. */
static void ocd_next_op(struct ocd *o)
{
	int n;

	if (o->req == REQ_READ) {
		ocd_send_reads(o);
		return;
	}
	if (o->req == REQ_HALT) {
		ocd_send(o, "halt");
		return;
	}
	if (o->pos == o->end) {
		ocd_finish(o, 0);
		return;
	}
	tt_tcl_next_op(o->pos, o->end, o->max_chunk, &o->op_len, &o->op_width);
	o->op_addr = o->pos;
	n = tt_tcl_format_write(o->cmd, o->cmdcap, o->md_fallback ? TT_TCL_WRITE_MD : "write_memory",
				o->op_addr, o->op_width,
				o->wdata + (o->pos - o->waddr), o->op_len);
	if (n < 0) {
		ocd_fail(o, -ENOMEM, "write command too long");
		return;
	}
	ocd_send(o, o->cmd);
}

/* Starts a request now, when the link comes up, or fails it when the link is down. */
static int ocd_start(struct ocd *o, enum ocd_req req)
{
	o->req = req;
	if (o->link == LINK_UP) {
		ocd_next_op(o);
	} else if (o->base.state != TT_PROBE_CONNECTING) {
		/* The cause, said once (it names the link already), not wrapped in another. */
		if (o->last_msg[0])
			tt_probe__seterr(&o->base, "%s", o->last_msg);
		else
			tt_probe__seterr(&o->base, "%s: not connected", o->name);
		ocd_finish(o, -ENOTCONN);
	}
	return 0;
}

int ocd_read(struct tt_probe *p)
{
	struct ocd *o = (struct ocd *)p;
	uint64_t ring = 0;

	for (unsigned i = 0; i < p->plan.n; i++)
		ring += p->plan.r[i].kind == TT_RANGE_FIXED ? 0 : p->plan.r[i].max;
	/* a command's reply: at most max_chunk bytes of fixed reads, and the rings */
	o->rx.max = tt_tcl_reply_max(ring > UINT32_MAX - o->max_chunk ? UINT32_MAX
								      : o->max_chunk + (uint32_t)ring);

	o->run_first = o->run_end = 0;
	o->pos = o->end = 0;
	o->one_by_one = 0;
	return ocd_start(o, REQ_READ);
}

int ocd_write(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len)
{
	struct ocd *o = (struct ocd *)p;

	o->wdata = data;
	o->waddr = o->pos = addr;
	o->end = addr + len;
	return ocd_start(o, REQ_WRITE);
}

int ocd_halt(struct tt_probe *p)
{
	return ocd_start((struct ocd *)p, REQ_HALT);
}

void ocd_close(struct tt_probe *p)
{
	struct ocd *o = (struct ocd *)p;

	uv_timer_stop(&o->retry);
	o->req = REQ_NONE;
	if (o->link == LINK_IDLE) {
		ocd_link_released(o);
		return;
	}
	o->link = LINK_DOWN;
	ocd_teardown(o);
}

/* Settings both backends share; timers last so a failed open leaves nothing to close. */
void ocd_init(struct ocd *o, const struct tt_probe_options *opt)
{
	uv_timer_t *t[3] = { &o->retry, &o->timeout, &o->grace };

	o->max_chunk = opt->max_chunk ? opt->max_chunk : 4096;
	if (o->max_chunk < 4)
		o->max_chunk = 4;
	o->timeout_ms = opt->timeout_ms ? opt->timeout_ms : 5000;
	o->backoff_ms = OCD_BACKOFF_MIN;
	o->rx.max = tt_tcl_reply_max(o->max_chunk);
	for (int i = 0; i < 3; i++) {
		uv_timer_init(o->base.loop, t[i]);
		t[i]->data = o;
	}
	o->ntimers = 3;
}

/* Buffers sized by max_chunk. */
int ocd_alloc_buffers(struct ocd *o, const struct tt_probe_options *opt)
{
	uint32_t mc = opt->max_chunk ? opt->max_chunk : 4096;

	o->scratch = malloc(mc < 4 ? 4 : mc);
	o->cmdcap = (size_t)mc * 11 / 4 + 128 + strlen(tt_tcl_ring_proc) + 192 + TT_TCL_POLL_WRAP;
	o->cmd = malloc(o->cmdcap);
	if (o->scratch == NULL || o->cmd == NULL) {
		free(o->scratch);
		free(o->cmd);
		tt_probe__seterr(&o->base, "%s: out of memory", o->base.ops->name);
		return -ENOMEM;
	}
	return 0;
}

static int ocd_tcp_open(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt)
{
	struct ocd *o = (struct ocd *)p;
	const char *colon = strrchr(arg, ':');
	size_t hl = colon ? (size_t)(colon - arg) : 0;
	char *end;
	long port = colon ? strtol(colon + 1, &end, 10) : 0;

	if (colon == NULL || hl == 0 || colon[1] == '\0' || *end != '\0' || port < 1 ||
	    port > 65535) {
		tt_probe__seterr(p, "openocd: \"%s\" is not HOST:PORT (e.g. openocd:127.0.0.1:6666)",
				 arg);
		return -EINVAL;
	}
	if (arg[0] == '[' && arg[hl - 1] == ']') { /* [::1]:6666 */
		arg++;
		hl -= 2;
	}
	if (ocd_alloc_buffers(o, opt) < 0)
		return -ENOMEM;
	o->host = strndup(arg, hl);
	o->port = strdup(colon + 1);
	if (o->host == NULL || o->port == NULL) {
		free(o->host);
		free(o->port);
		free(o->scratch);
		free(o->cmd);
		return -ENOMEM;
	}
	snprintf(o->name, sizeof(o->name), "openocd %s:%s", o->host, o->port);
	ocd_init(o, opt);
	ocd_link_start(o);
	return 0;
}

const struct tt_probe_ops tt_probe_openocd_ops = {
	.name = "openocd",
	.ptr_ranges = true,
	.size = sizeof(struct ocd),
	.open = ocd_tcp_open,
	.read = ocd_read,
	.write = ocd_write,
	.halt = ocd_halt,
	.close = ocd_close,
};

