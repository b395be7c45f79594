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
 * (argv, stderr, exit, stopping it) is in openocd_spawn.c; a plan's reads as commands and their
 * replies in openocd_read.c.
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

void ocd_finish(struct ocd *o, int status)
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

void ocd_send(struct ocd *o, const char *cmd)
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

/* Next command of the pending request, or its completion. */
void ocd_next_op(struct ocd *o)
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

