/* daemon/server.c: libwebsockets joined to the daemon's libuv loop; the WebSocket protocol.
 *
 * Owns the lws context, the hubs added with tt_server_add_hub, and every connection's state
 * (struct conn, lws per-session data). One callback serves both protocols ("http" = protocol
 * 0, and "tracetap.v1"), so a WebSocket client without a subprotocol is served too. Records reach a connection only through
 * its hub clients' queues (shared refcounted frames); lws_write happens only in
 * SERVER_WRITEABLE, never from a uv callback. HTTP endpoints are in server_http.c, the access
 * checks and limits in server_access.c, client messages in server_msg.c.
 *
 * Shutdown follows shared/reference/libwebsockets-on-libuv.md: polite 1001 closes from a uv
 * callback, a grace period, lws_context_destroy phase 1, let the loop end, phase 2 in
 * tt_server_free.
 */
#include "server_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../proto/json.h"
#include "log.h"
#include "tt_config.h"

#define PROTOCOL_NAME "tracetap.v1"
#define TT_TX_PACKET (1u << 20) /* bytes per send() at most */
/* WebSocket bytes written per loop turn over all clients (one more frame may pass it). A turn
 * writing until every client's socket is full (a few MiB each on loopback) held the target
 * readers' poll timers back: 1 MiB is ~1 ms of writing. Clients it leaves over wait in a FIFO
 * (on_turn), so none is starved. */
#define TT_TX_TURN (1u << 20)

void tt_server_logf(struct tt_server *s, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!s->cfg.log || level > s->cfg.log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->cfg.log(level, msg, s->cfg.log_arg);
}

/* ---- sending ---- */

void tt_server_ctl_push(struct conn *c, struct tt_frame *f)
{
	if (!f)
		return;
	if (c->nctl == TT_MAX_CTL) { /* a client flooding us with pings: drop its oldest reply */
		tt_frame_unref(c->ctl[0]);
		memmove(c->ctl, c->ctl + 1, (TT_MAX_CTL - 1) * sizeof(c->ctl[0]));
		c->nctl--;
	}
	c->ctl[c->nctl++] = f;
	lws_callback_on_writable(c->wsi);
}

void tt_server_send_error(struct conn *c, const char *code, const char *fmt, ...)
{
	char msg[300], esc[sizeof(msg) * 6 + 3];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = tt_json_string(esc, sizeof(esc), msg, sizeof(msg));
	c->srv->bad_messages++;
	tt_server_ctl_push(c, tt_frame_printf(TT_FRAME_OTHER,
				    "{\"type\":\"error\",\"code\":\"%s\",\"message\":%.*s}", code,
				    n < 0 ? 2 : n, n < 0 ? "\"\"" : esc));
}

/* The daemon's boot instance: 128 random bits in hex, made once per process, so a client tells a
 * restarted daemon (whose seq numbering starts over) from the one it was talking to. */
static char instance_id[33];

static void make_instance_id(void)
{
	unsigned char b[16];
	ssize_t n = getrandom(b, sizeof(b), GRND_NONBLOCK);

	if (instance_id[0])
		return;
	if (n != (ssize_t)sizeof(b)) { /* no entropy yet: time and pid still differ per boot */
		uint64_t t = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20), p = (uint64_t)getpid();
		memcpy(b, &t, 8);
		memcpy(b + 8, &p, 8);
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(instance_id + 2 * i, 3, "%02x", b[i]);
}

static void send_hello(struct conn *c)
{
	struct tt_server *s = c->srv;
	size_t cap = 256 + s->nhubs * 4096;
	struct tt_frame *f = tt_frame_new(cap);
	int n;

	if (!f)
		return;
	f->kind = TT_FRAME_OTHER;
	n = snprintf(f->data, cap, "{\"type\":\"hello\",\"protocol\":1,\"daemon\":\"%s\","
			      "\"instance\":\"%s\",\"max_message\":%zu,\"targets\":[", TT_VERSION,
		     instance_id, s->cfg.max_message);
	for (size_t i = 0; i < s->nhubs; i++) {
		if (i)
			f->data[n++] = ',';
		int k = tt_hub_summary_json(s->hubs[i], f->data + n, cap - (size_t)n - 3);
		if (k > 0)
			n += k;
	}
	memcpy(f->data + n, "]}", 2);
	f->len = (size_t)n + 2;
	tt_server_ctl_push(c, f);
}

void tt_server_wake(struct tt_hub_client *hc, void *arg)
{
	(void)hc;
	lws_callback_on_writable(((struct conn *)arg)->wsi);
}

/* The next frame to write, and where it came from (sub index, or -1 for ctl). */
static struct tt_frame *next_frame(struct conn *c, int *from)
{
	struct tt_server *s = c->srv;

	if (c->nctl) {
		*from = -1;
		return c->ctl[0];
	}
	for (size_t k = 0; k < s->nhubs; k++) {
		size_t i = (c->rr + k) % s->nhubs;
		struct tt_frame *f;
		if (c->subs[i] && (f = tt_hub_client_peek(c->subs[i]))) {
			c->rr = (unsigned)(i + 1);
			*from = (int)i;
			return f;
		}
	}
	return NULL;
}

static void pop_frame(struct conn *c, int from)
{
	if (from < 0) {
		tt_frame_unref(c->ctl[0]);
		memmove(c->ctl, c->ctl + 1, (c->nctl - 1) * sizeof(c->ctl[0]));
		c->nctl--;
	} else {
		tt_hub_client_pop(c->subs[from]);
	}
}

/* Closes a client with code and reason from a uv callback, as the shutdown does: the close
 * frame goes out (an asynchronous kill drops the connection without one, and only when lws next
 * services something). May free c: callers walking s->conns keep the next one first. */
void tt_server_kick(struct conn *c, enum lws_close_status code, const char *reason)
{
	lws_close_reason(c->wsi, code, (unsigned char *)reason, strlen(reason));
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
}

/* The send budget of this turn is spent: c waits in the FIFO for a later turn (its socket is
 * not watched for writability meanwhile, so waiting costs no callbacks). */
static void tx_defer(struct conn *c)
{
	struct tt_server *s = c->srv;

	s->tx_deferred++;
	if (c->tx_waiting)
		return;
	c->tx_waiting = true;
	c->tx_next = NULL;
	if (s->tx_tail)
		s->tx_tail->tx_next = c;
	else
		s->tx_head = c;
	s->tx_tail = c;
}

static void tx_forget(struct conn *c)
{
	struct tt_server *s = c->srv;
	struct conn **pp = &s->tx_head, *prev = NULL;

	if (!c->tx_waiting)
		return;
	while (*pp != c) {
		prev = *pp;
		pp = &(*pp)->tx_next;
	}
	*pp = c->tx_next;
	if (s->tx_tail == c)
		s->tx_tail = prev;
	c->tx_waiting = false;
}

/* Bytes c has queued (what it would write if it could). */
static size_t tx_queued(const struct conn *c)
{
	size_t sum = 0, bytes;

	for (size_t i = 0; i < c->nctl; i++)
		sum += c->ctl[i]->len;
	for (size_t i = 0; i < c->srv->nhubs; i++) {
		if (!c->subs[i])
			continue;
		tt_hub_client_queued(c->subs[i], NULL, &bytes);
		sum += bytes;
	}
	return sum;
}

static int on_writeable(struct conn *c, struct lws *wsi)
{
	struct tt_server *s = c->srv;
	struct tt_frame *f;
	int from;

	while (s->tx_turn < TT_TX_TURN && !lws_send_pipe_choked(wsi) &&
	       (f = next_frame(c, &from))) {
		int n = lws_write(wsi, (unsigned char *)f->data, f->len, LWS_WRITE_TEXT);
		if (f->kind == TT_FRAME_EVENTS && s->cfg.log_level >= 7)
			tt_server_logf(s, 7, "stage write to=%" PRIu64 " t=%" PRIu64, f->to,
				       uv_hrtime());
		s->tx_turn += f->len;
		pop_frame(c, from);
		if (n < 0)
			return -1;
		c->progress_ms = uv_now(s->loop);
	}
	if (s->tx_turn > s->tx_turn_max)
		s->tx_turn_max = s->tx_turn;
	if (!next_frame(c, &from))
		return 0;
	if (s->tx_turn >= TT_TX_TURN && !lws_send_pipe_choked(wsi))
		tx_defer(c);
	else
		lws_callback_on_writable(wsi);
	return 0;
}

/* A new turn: a fresh budget, and the waiting clients first in line for it, oldest first, as
 * many as it will likely serve (each counted for a quarter of it at most, so a client with a
 * long queue does not hold the others back). */
static void on_turn(uv_prepare_t *p)
{
	struct tt_server *s = p->data;
	size_t planned = 0;

	s->tx_turn = 0;
	while (s->tx_head && planned < TT_TX_TURN) {
		struct conn *c = s->tx_head;
		size_t q = tx_queued(c);
		tx_forget(c);
		planned += q < TT_TX_TURN / 4 ? (q ? q : 1) : TT_TX_TURN / 4;
		lws_callback_on_writable(c->wsi);
	}
}

/* ---- receiving (client messages: server_msg.c) ---- */

/* Reassembles fragments; returns -1 to close: a binary message (1003), a message over the
 * limit (1009), known as soon as a frame header claims more than the limit. */
static int on_receive(struct conn *c, struct lws *wsi, const void *in, size_t len)
{
	struct tt_server *s = c->srv;

	if (lws_frame_is_binary(wsi)) {
		static const char reason[] = "binary messages are not accepted";
		tt_server_logf(s, 5, "client sent a binary message: closing (1003)");
		s->bad_messages++;
		lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
				 (unsigned char *)reason, sizeof(reason) - 1);
		return -1;
	}
	if (c->rxlen + len + lws_remaining_packet_payload(wsi) > s->cfg.max_message) {
		static const char reason[] = "message too large";
		tt_server_logf(s, 5, "client sent a message over %zu bytes: closing (1009)",
			       s->cfg.max_message);
		s->bad_messages++;
		lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
				 (unsigned char *)reason, sizeof(reason) - 1);
		return -1;
	}
	if (c->rxlen + len > c->rxcap || !c->rx) {
		size_t ncap = c->rxlen + len + 1024;
		char *n = realloc(c->rx, ncap);
		if (!n)
			return -1;
		c->rx = n;
		c->rxcap = ncap;
	}
	if (len) /* an empty message has nothing to copy (and c->rx may still be NULL) */
		memcpy(c->rx + c->rxlen, in, len);
	c->rxlen += len;
	if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
		return 0;
	tt_server_on_message(c, c->rx, c->rxlen);
	c->rxlen = 0;
	return 0;
}

void tt_server_refusedf(struct tt_server *s, const char *fmt, ...)
{
	char msg[512];
	unsigned dropped;
	va_list ap;

	if (!tt_log_limit(&s->refusals, 10, uv_now(s->loop), &dropped))
		return;
	if (dropped)
		tt_server_logf(s, 5, "%u refusals not logged (at most 10 a second)", dropped);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tt_server_logf(s, 5, "%s", msg);
}

static void conn_closed(struct conn *c)
{
	struct tt_server *s = c->srv;

	if (!c->ws)
		return;
	tx_forget(c);
	for (size_t i = 0; i < TT_MAX_TARGETS; i++)
		tt_hub_client_free(c->subs[i]);
	for (size_t i = 0; i < c->nctl; i++)
		tt_frame_unref(c->ctl[i]);
	free(c->rx);
	free(c->origin);
	free(c->host);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	c->ws = false;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
		    size_t len)
{
	struct conn *c = user;
	struct tt_server *s = lws_context_user(lws_get_context(wsi));
	char why[300];
	int st;

	switch (reason) {
	case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
		return tt_server_http_filter(s, wsi, in);
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		if (s->stopping)
			return -1;
		st = tt_server_check_access(s, wsi, why, sizeof(why));
		if (!st && s->nconns >= s->max_clients) {
			st = HTTP_STATUS_SERVICE_UNAVAILABLE;
			snprintf(why, sizeof(why), "too many clients (%u, the most at once)",
				 s->max_clients);
			s->busy++;
		} else if (st) {
			s->rejected++;
		}
		if (st) {
			char peer[64];
			lws_get_peer_simple(wsi, peer, sizeof(peer));
			tt_server_refusedf(s, "refused WebSocket from %s: %s", peer, why);
			tt_server_http_status(wsi, (unsigned)st, why);
			return -1;
		}
		return 0;
	case LWS_CALLBACK_ESTABLISHED:
		c->srv = s;
		c->wsi = wsi;
		c->ws = true;
		tt_server_keep_admission(c, wsi);
		c->progress_ms = uv_now(s->loop);
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		s->nconns++;
		send_hello(c);
		return 0;
	case LWS_CALLBACK_RECEIVE:
		return on_receive(c, wsi, in, len);
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return c->ws ? on_writeable(c, wsi) : 0;
	case LWS_CALLBACK_CLOSED:
		conn_closed(c);
		return 0;
	case LWS_CALLBACK_HTTP:
		c->srv = s;
		return tt_server_http(c, wsi);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (c && c->http.body)
			return tt_server_http_writeable(c, wsi);
		break;
	case LWS_CALLBACK_CLOSED_HTTP:
		if (c)
			tt_server_http_closed(c);
		break;
	default:
		break;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- loop glue ---- */

static void on_flush(uv_idle_t *h)
{
	struct tt_server *s = h->data;

	for (size_t i = 0; i < s->nhubs; i++)
		tt_hub_flush(s->hubs[i]);
	uv_idle_stop(h);
}

static void need_flush(void *arg)
{
	struct tt_server *s = arg;

	if (!s->stopping)
		uv_idle_start(&s->flush, on_flush);
}

static bool has_pending(struct conn *c)
{
	size_t frames;

	if (c->nctl)
		return true;
	for (size_t i = 0; i < c->srv->nhubs; i++) {
		if (!c->subs[i])
			continue;
		tt_hub_client_queued(c->subs[i], &frames, NULL);
		if (frames)
			return true;
	}
	return false;
}

/* Idle policy: a client with data waiting that took nothing for idle_timeout_s is closed. */
static void on_tick(uv_timer_t *t)
{
	struct tt_server *s = t->data;
	uint64_t now = uv_now(s->loop);

	tt_server_stats_tick(s);
	for (struct conn *c = s->conns, *next; c; c = next) {
		next = c->next; /* tt_server_kick may free c */
		if (!has_pending(c)) {
			c->progress_ms = now;
		} else if (now - c->progress_ms > s->cfg.idle_timeout_s * 1000ull) {
			tt_server_logf(s, 5, "client read nothing for %u s: closing (1008)",
				       s->cfg.idle_timeout_s);
			c->progress_ms = now;
			tt_server_kick(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "not reading");
		}
	}
}

/* libwebsockets logs errors only, but some repeat at the loop's pace (accept() failing at the
 * descriptor limit): at most 10 lines a second. */
static void lws_log(int level, const char *line)
{
	static struct tt_log_limit lim;
	struct timespec ts;
	unsigned dropped;

	(void)level;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!tt_log_limit(&lim, 10, (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000,
			  &dropped))
		return;
	if (dropped)
		fprintf(stderr, "lws: %u lines not logged (at most 10 a second)\n", dropped);
	fprintf(stderr, "lws: %s", line);
}

char *tt_server_strdup(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static void free_strings(struct tt_server *s)
{
	for (size_t i = 0; i < s->cfg.norigins; i++)
		free(s->origins ? s->origins[i] : NULL);
	free(s->origins);
	free(s->listen);
	free(s->token);
	free(s->web_dir);
	free(s->web_real);
	free(s->tls_cert);
	free(s->tls_key);
}

static const struct lws_protocol_vhost_options mimes[] = {
	{ &mimes[1], NULL, ".mjs", "text/javascript" },
	{ &mimes[2], NULL, ".wasm", "application/wasm" },
	{ &mimes[3], NULL, ".map", "application/json" },
	{ &mimes[4], NULL, ".json", "application/json" },
	{ &mimes[5], NULL, ".svg", "image/svg+xml" },
	{ NULL, NULL, ".woff2", "font/woff2" },
};

/* Sent with every HTTP answer (lws adds a vhost's headers to each status line it writes: the
 * web folder's files, the API, the refusals). The dashboard's scripts and styles are its own
 * files: no inline script or style, no eval, no plugin; it connects only to this server (its
 * WebSocket is same-origin); no page may frame it (clickjacking); a browser takes each file for
 * the type it is served as (nosniff). A name a target or a broker chose that slipped into
 * markup would still not run. */
static const struct lws_protocol_vhost_options security_headers[] = {
	{ &security_headers[1], NULL, "content-security-policy:",
	  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
	  "frame-ancestors 'none'" },
	{ &security_headers[2], NULL, "x-content-type-options:", "nosniff" },
	{ &security_headers[3], NULL, "x-frame-options:", "DENY" },
	{ NULL, NULL, "referrer-policy:", "no-referrer" },
};

static const lws_retry_bo_t retry = {
	.secs_since_valid_ping = 30,
	.secs_since_valid_hangup = 70,
};

/* s->cfg as a copy of cfg with its defaults, keeping no pointer into the caller's memory
 * (tt_server_get_config): 0 or -ENOMEM. */
static int own_config(struct tt_server *s, const struct tt_server_config *cfg)
{
	s->cfg = *cfg;
	s->listen = strdup(cfg->listen ? cfg->listen : "127.0.0.1");
	s->token = tt_server_strdup(cfg->token);
	s->web_dir = strdup(cfg->web_dir ? cfg->web_dir : TT_WEBDIR);
	s->tls_cert = tt_server_strdup(cfg->tls_cert);
	s->tls_key = tt_server_strdup(cfg->tls_key);
	s->origins = calloc(cfg->norigins + 1, sizeof(char *));
	if (!s->listen || !s->web_dir || !s->origins)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->norigins; i++)
		if (!(s->origins[i] = strdup(cfg->origins[i])))
			return -ENOMEM;
	if (!s->cfg.max_message)
		s->cfg.max_message = 65536;
	if (!s->cfg.idle_timeout_s)
		s->cfg.idle_timeout_s = 60;
	if (!s->cfg.max_clients)
		s->cfg.max_clients = 256;
	if (!s->cfg.max_exports)
		s->cfg.max_exports = 4;
	s->cfg.origins = (const char *const *)s->origins;
	s->cfg.listen = s->listen;
	s->cfg.token = s->token;
	s->cfg.web_dir = s->web_dir;
	s->cfg.tls_cert = s->tls_cert;
	s->cfg.tls_key = s->tls_key;
	if (!(s->web_real = realpath(s->web_dir, NULL)) && !(s->web_real = strdup(s->web_dir)))
		return -ENOMEM;
	return 0;
}

/* Both TLS files or neither, each readable. libwebsockets reports unreadable TLS files only in
 * its log and then runs without a listener: say which file, before anything starts. */
static int check_tls(const struct tt_server *s, char *err, size_t errlen)
{
	if (!s->tls_cert != !s->tls_key) {
		snprintf(err, errlen, "TLS needs both a certificate and a key (got only the %s)",
			 s->tls_cert ? "certificate" : "key");
		return -EINVAL;
	}
	for (int i = 0; s->tls_cert && i < 2; i++) {
		const char *path = i ? s->tls_key : s->tls_cert;
		FILE *f = fopen(path, "r");
		if (!f) {
			int rc = -errno;
			snprintf(err, errlen, "TLS %s %s: %s", i ? "key" : "certificate", path,
				 strerror(errno));
			return rc;
		}
		fclose(f);
	}
	return 0;
}

/* The protocols, the mounts and the context options of s on loop (info->foreign_loops is the
 * caller's, it must outlive lws_create_context). */
static void lws_setup(struct tt_server *s, struct lws_context_creation_info *info)
{
	/* tx_packet_size: with 0, lws caps every send() at rx_buffer_size (4096) and copies the
	 * rest of a frame into its own buffer, drained 4 KiB per POLLOUT round (measured: 4.5
	 * send()s, epoll_ctl()s and epoll_wait()s per 16 KiB events frame). Let a whole write go
	 * to the kernel in one send() instead. */
	s->protocols[0] = (struct lws_protocols){ "http", callback, sizeof(struct conn), 4096,
						   0, NULL, TT_TX_PACKET };
	s->protocols[1] = (struct lws_protocols){ PROTOCOL_NAME, callback, sizeof(struct conn),
						   4096, 0, NULL, TT_TX_PACKET };
	s->mounts[0] = (struct lws_http_mount){ .mount_next = &s->mounts[1], .mountpoint = "/api",
		.protocol = "http", .origin_protocol = LWSMPRO_CALLBACK, .mountpoint_len = 4 };
	s->mounts[1] = (struct lws_http_mount){ .mount_next = &s->mounts[2],
		.mountpoint = "/metrics", .protocol = "http", .origin_protocol = LWSMPRO_CALLBACK,
		.mountpoint_len = 8 };
	s->mounts[2] = (struct lws_http_mount){ .mount_next = &s->mounts[3],
		.mountpoint = "/healthz", .protocol = "http", .origin_protocol = LWSMPRO_CALLBACK,
		.mountpoint_len = 8 };
	s->mounts[3] = (struct lws_http_mount){ .mountpoint = "/", .origin = s->web_dir,
		.def = "index.html", .extra_mimetypes = mimes, .origin_protocol = LWSMPRO_FILE,
		.mountpoint_len = 1 };

	info->options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_DISABLE_IPV6 |
			LWS_SERVER_OPTION_VALIDATE_UTF8;
	if (s->tls_cert) {
		info->options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
		info->ssl_cert_filepath = s->tls_cert;
		info->ssl_private_key_filepath = s->tls_key;
		/* HTTP/1.1 only: over the HTTP/2 that clients offer first (browsers, curl), this
		 * libwebsockets ended exports (written in turns) with empty bodies */
		info->alpn = "http/1.1";
	}
	info->pcontext = &s->ctx;
	info->iface = s->listen;
	info->port = s->cfg.port;
	info->protocols = s->protocols;
	info->mounts = &s->mounts[0];
	info->headers = security_headers;
	info->retry_and_idle_policy = &retry;
	tt_server_fit_fd_limit(s, info);
	info->user = s;
	info->vhost_name = "default";
}

int tt_server_start(uv_loop_t *loop, const struct tt_server_config *cfg,
		    struct tt_server **out, char *err, size_t errlen)
{
	struct lws_context_creation_info info;
	struct tt_server *s = calloc(1, sizeof(*s));
	void *loops[1] = { loop };
	int rc;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->loop = loop;
	make_instance_id();
	if ((rc = own_config(s, cfg)) < 0 || (rc = check_tls(s, err, errlen)) < 0)
		goto fail_strings;
	lws_set_log_level(LLL_ERR, lws_log);
	memset(&info, 0, sizeof(info));
	info.foreign_loops = loops;
	lws_setup(s, &info);
	s->ctx = lws_create_context(&info);
	if (!s->ctx) {
		snprintf(err, errlen,
			 "cannot serve on %s:%d (address in use or not local, bad TLS files, or the "
			 "libwebsockets libuv plugin (package libwebsockets-evlib-uv) is missing)",
			 s->listen, cfg->port);
		rc = -EADDRINUSE;
		goto fail_strings;
	}
	s->vh = lws_get_vhost_by_name(s->ctx, "default");
	if (!s->vh || lws_get_vhost_listen_port(s->vh) <= 0) {
		/* The context exists but its listener does not (a TLS file lws could not use, an
		 * address it could not bind): refuse rather than run deaf. lws can only be torn down
		 * with the loop running to completion, which the caller's own handles prevent here:
		 * the context is left to process exit (tracetapd exits at once on this error). */
		snprintf(err, errlen, "cannot serve on %s:%d%s (see the libwebsockets message above)",
			 s->listen, cfg->port, s->tls_cert ? " with the given TLS certificate and key" : "");
		return -EINVAL; /* s is still referenced by the context: not freed */
	}
	s->port = lws_get_vhost_listen_port(s->vh);
	uv_idle_init(loop, &s->flush);
	s->flush.data = s;
	uv_timer_init(loop, &s->timer);
	s->timer.data = s;
	uv_timer_start(&s->timer, on_tick, 1000, 1000);
	uv_prepare_init(loop, &s->turn);
	s->turn.data = s;
	uv_prepare_start(&s->turn, on_turn);
	s->open_handles = 3;
	*out = s;
	return 0;

fail_strings:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free_strings(s);
	free(s);
	return rc;
}

int tt_server_port(const struct tt_server *s)
{
	return s->port;
}

void tt_server_get_config(const struct tt_server *s, struct tt_server_config *out)
{
	*out = s->cfg;
}

int tt_server_add_hub(struct tt_server *s, const struct tt_hub_config *hc, struct tt_hub **out)
{
	struct tt_hub_config c = *hc;
	const struct tt_hub_config *d = &s->cfg.hub;
	int rc;

	if (tt_server_hub(s, hc->target))
		return -EEXIST;
	if (s->nhubs == TT_MAX_TARGETS)
		return -ENOSPC;
#define DEF(f) if (!c.f) c.f = d->f
	DEF(history);
	DEF(history_bytes);
	DEF(batch_records);
	DEF(batch_bytes);
	DEF(client_frames);
	DEF(client_bytes);
#undef DEF
	c.need_flush = need_flush;
	c.need_flush_arg = s;
	rc = tt_hub_new(&c, &s->hubs[s->nhubs]);
	if (rc < 0)
		return rc;
	s->owned[s->nhubs] = true;
	*out = s->hubs[s->nhubs++];
	return 0;
}

int tt_server_attach_hub(struct tt_server *s, struct tt_hub *h)
{
	if (tt_server_hub(s, tt_hub_target(h)))
		return -EEXIST;
	if (s->nhubs == TT_MAX_TARGETS)
		return -ENOSPC;
	s->owned[s->nhubs] = false;
	s->hubs[s->nhubs++] = h;
	return 0;
}

void tt_server_set_stats(struct tt_server *s,
			 struct tt_stats *(*stats_of)(void *arg, const char *target), void *arg)
{
	s->stats_of = stats_of;
	s->stats_arg = arg;
}

struct tt_hub *tt_server_hub(const struct tt_server *s, const char *target)
{
	for (size_t i = 0; i < s->nhubs; i++)
		if (!strcmp(tt_hub_target(s->hubs[i]), target))
			return s->hubs[i];
	return NULL;
}

void tt_server_remote_refused(struct tt_server *s)
{
	s->remote_refused++;
}

/* ---- shutdown ---- */

static void on_handle_closed(uv_handle_t *h)
{
	struct tt_server *s = h->data;

	if (--s->open_handles == 0 && s->stop_cb)
		s->stop_cb(s, s->stop_arg);
}

static void on_grace(uv_timer_t *t)
{
	struct tt_server *s = t->data;

	if (s->conns && uv_now(s->loop) < s->stop_deadline)
		return;
	uv_timer_stop(t);
	lws_context_destroy(s->ctx); /* phase 1: lws closes its uv handles */
	uv_close((uv_handle_t *)&s->flush, on_handle_closed);
	uv_close((uv_handle_t *)&s->timer, on_handle_closed);
	uv_close((uv_handle_t *)&s->turn, on_handle_closed);
}

void tt_server_stop(struct tt_server *s, tt_server_stop_cb cb, void *arg)
{
	static const char reason[] = "daemon shutting down";

	if (s->stopping)
		return;
	s->stopping = true;
	s->stop_cb = cb;
	s->stop_arg = arg;
	uv_idle_stop(&s->flush);
	for (struct conn *c = s->conns; c;) {
		struct conn *next = c->next; /* the kill below may free c */
		lws_close_reason(c->wsi, LWS_CLOSE_STATUS_GOINGAWAY, (unsigned char *)reason,
				 sizeof(reason) - 1);
		lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
		c = next;
	}
	s->stop_deadline = uv_now(s->loop) + 1000;
	uv_timer_start(&s->timer, on_grace, 0, 10);
}

void tt_server_free(struct tt_server *s)
{
	if (!s)
		return;
	if (s->ctx)
		lws_context_destroy(s->ctx); /* phase 2: frees the context, NULLs s->ctx */
	for (size_t i = 0; i < s->nhubs; i++)
		if (s->owned[i])
			tt_hub_free(s->hubs[i]);
	free_strings(s);
	free(s);
}
