/* daemon/mqtt_uv.c: libmosquitto on the libuv loop (see mqtt_uv.h).
 *
 * mosquitto_loop_read/write run when a uv_poll on its socket says so, mosquitto_loop_misc
 * (keep-alive, retries) on a loop timer that also (re)connects once a second while there is no
 * socket; the connect is non-blocking.
 */
#include "mqtt_uv.h"

#include <errno.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define TICK_MS 250
#define RETRY_TICKS 4 /* reconnect once a second */

/* libmosquitto's error lines for the connection (arg: its owner, whose first member is the
 * connection): its return codes alone say "A TLS error occurred" where its log has OpenSSL's
 * reason ("certificate verify failed"). Runs on the loop thread, or in the connect work while
 * the loop leaves the connection alone; the next tt_mqtt_conn_error says it and clears it. */
static void on_lib_log(struct mosquitto *m, void *arg, int level, const char *str)
{
	struct tt_mqtt_conn *c = arg;
	const char *why = str, *colon = strrchr(str, ':');
	size_t n = strlen(c->lib_err);

	(void)m;
	if (!(level & MOSQ_LOG_ERR))
		return;
	if (!strncmp(str, "OpenSSL Error", 13) && colon && colon[1]) /* "...SSL routines::why" */
		why = colon + 1;
	if (!strstr(c->lib_err, why))
		snprintf(c->lib_err + n, sizeof(c->lib_err) - n, "%s%s", n ? "; " : "", why);
}

int tt_mqtt_url_parse(const char *what, const char *real, struct tt_mqtt_url *u, char *err,
		      size_t errlen)
{
	const char *rest;
	char shown[512];

	const char *url = tt_log_url(real, shown, sizeof(shown)); /* errors: no password */
	memset(u, 0, sizeof(*u));
	if (!strncmp(real, "mqtt://", 7)) {
		rest = real + 7;
	} else if (!strncmp(real, "mqtts://", 8)) {
		rest = real + 8;
		u->tls = true;
	} else {
		snprintf(err, errlen, "%s '%s': expected mqtt://[user:pass@]host[:port]/TOPIC "
			 "or mqtts://...", what, url);
		return -EINVAL;
	}
	if (!(u->mem = strdup(rest)))
		return -ENOMEM;
	char *s = u->mem, *slash = strchr(s, '/'), *at, *colon;
	if (!slash || !slash[1]) {
		snprintf(err, errlen, "%s '%s': no topic after the host (.../PREFIX)", what, url);
		goto bad;
	}
	*slash = 0;
	u->path = slash + 1;
	if (u->path[strlen(u->path) - 1] == '/' || strstr(u->path, "//") || strchr(u->path, '#')) {
		snprintf(err, errlen, "%s '%s': the topic '%s' may not hold #, empty levels or "
			 "end with /", what, url, u->path);
		goto bad;
	}
	if ((at = strrchr(s, '@'))) {
		*at = 0;
		u->user = s;
		if ((colon = strchr(s, ':'))) {
			*colon = 0;
			u->pass = colon + 1;
		}
		s = at + 1;
	}
	u->port = u->tls ? 8883 : 1883;
	if ((colon = strrchr(s, ':'))) {
		char *end;
		long v = strtol(colon + 1, &end, 10);
		if (*end || end == colon + 1 || v < 1 || v > 65535) {
			snprintf(err, errlen, "%s '%s': port '%s': expected 1..65535", what, url,
				 colon + 1);
			goto bad;
		}
		*colon = 0;
		u->port = (int)v;
	}
	if (!*s) {
		snprintf(err, errlen, "%s '%s': no host", what, url);
		goto bad;
	}
	u->host = s;
	return 0;
bad:
	tt_mqtt_url_free(u);
	return -EINVAL;
}

void tt_mqtt_url_free(struct tt_mqtt_url *u)
{
	free(u->mem);
	u->mem = NULL;
}

struct mosquitto *tt_mqtt_client_new(const char *id, void *arg, const struct tt_mqtt_url *u,
				     const char *ca, const char *cert, const char *key)
{
	struct mosquitto *m;
	int rc = MOSQ_ERR_NOMEM;

	mosquitto_lib_init(); /* counted by libmosquitto: cheap after the first */
	if (!(m = mosquitto_new(id, true, arg)))
		goto fail;
	mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	/* a batch goes out when it is ready: Nagle would hold it for the previous one's ACK */
	mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
	mosquitto_log_callback_set(m, on_lib_log);
	if ((u->user && (rc = mosquitto_username_pw_set(m, u->user, u->pass))) ||
	    (u->tls && (rc = mosquitto_tls_set(m, ca, ca ? NULL : "/etc/ssl/certs", cert, key,
					       NULL))))
		goto fail;
	return m;
fail:
	tt_log(TT_LOG_ERR, "mqtt %s:%d: %s", u->host, u->port, mosquitto_strerror(rc));
	if (m)
		mosquitto_destroy(m);
	return NULL;
}

void tt_mqtt_conn_error(struct tt_mqtt_conn *c, int rc, const char *what)
{
	/* A TLS session the broker ends (an alert read while libmosquitto writes) reaches us as
	 * EPROTO with OpenSSL's reason dropped: say what it most likely was. */
	if (!c->lib_err[0] && c->url->tls && rc == MOSQ_ERR_ERRNO && errno == EPROTO)
		snprintf(c->lib_err, sizeof(c->lib_err), "the broker ended the TLS session: does it "
			 "want a client certificate (--mqtt-cert, --mqtt-key)?");
	bool lib = c->lib_err[0];

	if (rc != c->last_err && !c->closing) {
		c->last_err = rc;
		tt_log(TT_LOG_WARNING, "%s: mqtt %s:%d: %s: %s%s%s%s", c->label, c->url->host,
		       c->url->port, what,
		       rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc),
		       lib ? " (" : "", lib ? c->lib_err : "", lib ? ")" : "");
	}
	c->lib_err[0] = 0;
}

void tt_mqtt_conn_refused(struct tt_mqtt_conn *c, int reason)
{
	if (reason != c->last_err)
		tt_log(TT_LOG_ERR, "%s: mqtt %s:%d refused the connection: %s", c->label,
		       c->url->host, c->url->port, mosquitto_reason_string(reason));
	c->last_err = reason;
}

void tt_mqtt_conn_up(struct tt_mqtt_conn *c)
{
	c->lib_err[0] = 0;
	if (c->last_err)
		tt_log(TT_LOG_NOTICE, "%s: mqtt %s:%d connected", c->label, c->url->host,
		       c->url->port);
	c->last_err = 0;
}

/* One of the connection's handles or its connect work is done: the last calls c->closed. */
static void release(struct tt_mqtt_conn *c)
{
	if (--c->open == 0 && c->closed)
		c->closed(c);
}

static void on_closed(uv_handle_t *h)
{
	struct tt_mqtt_conn *c = h->data;

	if (h != (uv_handle_t *)&c->timer)
		free(h);
	release(c);
}

static void close_poll(struct tt_mqtt_conn *c)
{
	uv_poll_stop(c->poll);
	uv_close((uv_handle_t *)c->poll, on_closed);
	c->poll = NULL;
	c->fd = -1;
}

static void on_poll(uv_poll_t *h, int status, int events)
{
	struct tt_mqtt_conn *c = h->data;

	if (status < 0 || (events & UV_READABLE))
		mosquitto_loop_read(c->m, 1);
	if (c->poll == h && mosquitto_socket(c->m) == c->fd && (events & UV_WRITABLE))
		mosquitto_loop_write(c->m, 1);
	tt_mqtt_conn_sync(c);
}

void tt_mqtt_conn_sync(struct tt_mqtt_conn *c)
{
	int fd;

	if (c->connecting)
		return; /* the worker has the client: connect_done syncs */
	fd = mosquitto_socket(c->m);

	if (c->poll && fd != c->fd)
		close_poll(c); /* libmosquitto closed it (and may have a new one) */
	if (fd < 0)
		return;
	if (!c->poll) {
		uv_poll_t *h = malloc(sizeof(*h));
		if (!h || uv_poll_init_socket(c->loop, h, fd) < 0) {
			free(h);
			tt_log(TT_LOG_ERR, "%s: mqtt: cannot poll the socket", c->label);
			mosquitto_disconnect(c->m);
			return;
		}
		h->data = c;
		c->open++;
		c->poll = h;
		c->fd = fd;
	}
	uv_poll_start(c->poll, UV_READABLE | (mosquitto_want_write(c->m) ? UV_WRITABLE : 0),
		      on_poll);
}

/* The connect, in libuv's thread pool: libmosquitto looks the host name up with a blocking
 * getaddrinfo, which must not stop the loop (every target, every client) while a resolver does
 * not answer. The loop leaves c->m alone until connect_done. */
static void connect_work(uv_work_t *w)
{
	struct tt_mqtt_conn *c = w->data;

	c->connect_rc = c->tried ? mosquitto_reconnect_async(c->m)
				 : mosquitto_connect_bind_async(c->m, c->url->host, c->url->port,
								c->keepalive, NULL);
	c->connect_errno = errno;
	c->tried = true;
}

static void connect_done(uv_work_t *w, int status)
{
	struct tt_mqtt_conn *c = w->data;

	(void)status; /* never cancelled */
	c->connecting = false;
	if (c->closing) {
		mosquitto_destroy(c->m); /* tt_mqtt_conn_close left it to this */
		c->m = NULL;
	} else {
		if (c->connect_rc != MOSQ_ERR_SUCCESS) {
			errno = c->connect_errno;
			tt_mqtt_conn_error(c, c->connect_rc, "cannot connect");
		}
		tt_mqtt_conn_sync(c);
	}
	release(c);
}

static void on_tick(uv_timer_t *t)
{
	struct tt_mqtt_conn *c = t->data;

	c->ticks++;
	if (c->connecting)
		return;
	if (mosquitto_socket(c->m) < 0) {
		if (c->ticks % RETRY_TICKS != 1)
			return;
		c->work.data = c;
		if (uv_queue_work(c->loop, &c->work, connect_work, connect_done) == 0) {
			c->connecting = true;
			c->open++;
		}
		return;
	}
	mosquitto_loop_misc(c->m);
	tt_mqtt_conn_sync(c);
}

void tt_mqtt_conn_start(struct tt_mqtt_conn *c)
{
	c->fd = -1;
	uv_timer_init(c->loop, &c->timer);
	c->timer.data = c;
	c->open++;
	uv_timer_start(&c->timer, on_tick, 0, TICK_MS);
}

void tt_mqtt_conn_disconnect(struct tt_mqtt_conn *c)
{
	c->closing = true;
	if (!c->connecting)
		mosquitto_disconnect_v5(c->m, MQTT_RC_NORMAL_DISCONNECTION, NULL);
}

void tt_mqtt_conn_close(struct tt_mqtt_conn *c)
{
	c->closing = true;
	uv_timer_stop(&c->timer);
	uv_close((uv_handle_t *)&c->timer, on_closed);
	if (c->connecting)
		return; /* connect_done destroys the client */
	if (mosquitto_socket(c->m) >= 0)
		mosquitto_loop_write(c->m, 8);
	if (c->poll)
		close_poll(c); /* before libmosquitto closes the descriptor */
	mosquitto_destroy(c->m);
	c->m = NULL;
}
