/* daemon/publish_mqtt.c: hubs published to an MQTT broker (see publish_mqtt.h).
 *
 * libmosquitto is driven from the loop: mosquitto_loop_read/write when the uv_poll on its
 * socket says so, mosquitto_loop_misc (keep-alive, retries) and reconnects on a timer. The
 * hub client is the bounded queue: frames are only taken from it while the broker is connected
 * and fewer than `inflight` messages are unacknowledged, so libmosquitto never holds more than
 * that; the rest waits in (or overflows, with an exact gap, out of) the hub client's queue.
 */
#include "publish_mqtt.h"

#include <errno.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hub.h"
#include "log.h"

#define MAX_CONNS 64
#define TICK_MS 250
#define RETRY_TICKS 4 /* reconnect every second */

struct pub_conn {
	struct tt_pub_mqtt *p;
	struct tt_hub *hub;
	struct tt_hub_client *hc;
	struct mosquitto *m;
	uv_poll_t *poll;          /* on fd, NULL while there is no socket */
	int fd;
	uv_timer_t timer;
	unsigned ticks;
	bool connected, refused;
	size_t inflight;
	int last_err;             /* logged once until it changes */
	char topic_ev[300], topic_st[300];
};

struct tt_pub_mqtt {
	uv_loop_t *loop;
	char *mem;                /* host, user, pass, prefix (one block) */
	const char *host, *user, *pass, *prefix;
	int port, qos, keepalive;
	bool tls;
	const char *ca, *cert, *key;
	size_t inflight;
	struct pub_conn *conns[MAX_CONNS];
	size_t nconns, open_handles;
	bool stopping;
};

static int url_parse(struct tt_pub_mqtt *p, const char *url, char *err, size_t errlen)
{
	const char *rest;

	if (!strncmp(url, "mqtt://", 7)) {
		rest = url + 7;
	} else if (!strncmp(url, "mqtts://", 8)) {
		rest = url + 8;
		p->tls = true;
	} else {
		snprintf(err, errlen, "publish '%s': expected mqtt://[user:pass@]host[:port]/PREFIX "
			 "or mqtts://...", url);
		return -EINVAL;
	}
	if (!(p->mem = strdup(rest)))
		return -ENOMEM;
	char *s = p->mem, *slash = strchr(s, '/'), *at, *colon;
	if (!slash || !slash[1]) {
		snprintf(err, errlen, "publish '%s': no topic prefix after the host (…/PREFIX)", url);
		return -EINVAL;
	}
	*slash = 0;
	p->prefix = slash + 1;
	if (strpbrk(p->prefix, "+#") || p->prefix[strlen(p->prefix) - 1] == '/') {
		snprintf(err, errlen, "publish '%s': the prefix '%s' may not hold + or # or end "
			 "with /", url, p->prefix);
		return -EINVAL;
	}
	if ((at = strrchr(s, '@'))) {
		*at = 0;
		p->user = s;
		if ((colon = strchr(s, ':'))) {
			*colon = 0;
			p->pass = colon + 1;
		}
		s = at + 1;
	}
	p->port = p->tls ? 8883 : 1883;
	if ((colon = strrchr(s, ':'))) {
		char *end;
		long v = strtol(colon + 1, &end, 10);
		if (*end || end == colon + 1 || v < 1 || v > 65535) {
			snprintf(err, errlen, "publish '%s': port '%s': expected 1..65535", url,
				 colon + 1);
			return -EINVAL;
		}
		*colon = 0;
		p->port = (int)v;
	}
	if (!*s) {
		snprintf(err, errlen, "publish '%s': no host", url);
		return -EINVAL;
	}
	p->host = s;
	return 0;
}

int tt_pub_mqtt_new(uv_loop_t *loop, const struct tt_pub_mqtt_config *cfg,
		    struct tt_pub_mqtt **out, char *err, size_t errlen)
{
	struct tt_pub_mqtt *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	p->loop = loop;
	p->qos = cfg->qos >= 0 && cfg->qos <= 2 ? cfg->qos : 1;
	p->keepalive = cfg->keepalive > 0 ? cfg->keepalive : 10;
	p->inflight = cfg->inflight ? cfg->inflight : 16;
	p->ca = cfg->ca;
	p->cert = cfg->cert;
	p->key = cfg->key;
	if ((rc = url_parse(p, cfg->url, err, errlen)) < 0)
		goto fail;
	if (!!p->cert != !!p->key) {
		snprintf(err, errlen, "publish: a client certificate needs its key (and the key "
			 "its certificate)");
		rc = -EINVAL;
		goto fail;
	}
	if (!p->tls && (p->ca || p->cert)) {
		snprintf(err, errlen, "publish '%s': CA/certificate options need mqtts://",
			 cfg->url);
		rc = -EINVAL;
		goto fail;
	}
	mosquitto_lib_init();
	*out = p;
	return 0;
fail:
	free(p->mem);
	free(p);
	return rc;
}

static void conn_sync(struct pub_conn *c);
static void conn_drain(struct pub_conn *c);

static void conn_error(struct pub_conn *c, int rc, const char *what)
{
	if (rc == c->last_err)
		return;
	c->last_err = rc;
	tt_log(TT_LOG_WARNING, "target %s: mqtt %s:%d: %s: %s", tt_hub_target(c->hub),
	       c->p->host, c->p->port, what,
	       rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
}

static void on_poll_closed(uv_handle_t *h)
{
	struct tt_pub_mqtt *p = h->data;

	free(h);
	p->open_handles--;
	if (p->stopping && !p->open_handles)
		free(p);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
	struct pub_conn *c = *(struct pub_conn **)((char *)h + sizeof(uv_poll_t));

	if (status < 0 || (events & UV_READABLE))
		mosquitto_loop_read(c->m, 1);
	if (c->fd >= 0 && mosquitto_socket(c->m) == c->fd && (events & UV_WRITABLE))
		mosquitto_loop_write(c->m, 1);
	conn_sync(c);
}

/* Follows libmosquitto's socket: a new one gets a poll, a closed one loses it; the poll
 * wants writability only while libmosquitto has something to write. */
static void conn_sync(struct pub_conn *c)
{
	int fd = mosquitto_socket(c->m);

	if (c->poll && fd != c->fd) {
		uv_poll_stop(c->poll);
		uv_close((uv_handle_t *)c->poll, on_poll_closed);
		c->poll = NULL;
		c->fd = -1;
	}
	if (fd < 0)
		return;
	if (!c->poll) {
		/* the poll handle carries its connection after it (data is the publisher) */
		uv_poll_t *h = malloc(sizeof(uv_poll_t) + sizeof(c));
		if (!h || uv_poll_init_socket(c->p->loop, h, fd) < 0) {
			free(h);
			tt_log(TT_LOG_ERR, "target %s: mqtt: cannot poll the socket",
			       tt_hub_target(c->hub));
			mosquitto_disconnect(c->m);
			return;
		}
		memcpy((char *)h + sizeof(uv_poll_t), &c, sizeof(c));
		h->data = c->p;
		c->p->open_handles++;
		c->poll = h;
		c->fd = fd;
	}
	uv_poll_start(c->poll, UV_READABLE | (mosquitto_want_write(c->m) ? UV_WRITABLE : 0),
		      on_poll);
}

static void publish_status(struct pub_conn *c, const char *json, size_t len)
{
	int rc = mosquitto_publish_v5(c->m, NULL, c->topic_st, (int)len, json, 1, true, NULL);
	if (rc != MOSQ_ERR_SUCCESS)
		conn_error(c, rc, "status");
}

/* Hands frames to libmosquitto while connected and under the in-flight limit. */
static void conn_drain(struct pub_conn *c)
{
	struct tt_hub_client *hc = c->hc;
	struct tt_frame *f;

	while (c->connected && c->inflight < c->p->inflight && (f = tt_hub_client_peek(hc))) {
		int rc;
		if (f->kind == TT_FRAME_STATUS) {
			publish_status(c, f->data, f->len);
			tt_hub_client_pop(hc);
			continue;
		}
		if (f->kind == TT_FRAME_OTHER) {
			tt_hub_client_pop(hc);
			continue;
		}
		rc = mosquitto_publish_v5(c->m, NULL, c->topic_ev, (int)f->len, f->data, c->p->qos,
					  false, NULL);
		if (rc != MOSQ_ERR_SUCCESS) {
			/* not taken: the frame stays queued for after the reconnect */
			conn_error(c, rc, "publish");
			break;
		}
		c->inflight++;
		tt_hub_client_pop(hc);
	}
	conn_sync(c);
}

static void on_wake(struct tt_hub_client *hc, void *arg)
{
	(void)hc;
	conn_drain(arg);
}

static void on_connect(struct mosquitto *m, void *arg, int rc, int flags,
		       const mosquitto_property *props)
{
	struct pub_conn *c = arg;

	(void)m;
	(void)flags;
	(void)props;
	if (rc) {
		/* the broker said no (credentials, ...): say it, and try again later */
		if (rc != c->last_err)
			tt_log(TT_LOG_ERR, "target %s: mqtt %s:%d refused the connection: %s",
			       tt_hub_target(c->hub), c->p->host, c->p->port,
			       mosquitto_reason_string(rc));
		c->last_err = rc;
		c->refused = true;
		return;
	}
	if (c->last_err)
		tt_log(TT_LOG_NOTICE, "target %s: mqtt %s:%d connected",
		       tt_hub_target(c->hub), c->p->host, c->p->port);
	c->last_err = 0;
	c->connected = true;
	/* a fresh status replaces any queued one, so the retained one is current */
	tt_hub_status_changed(c->hub);
	conn_drain(c);
}

static void on_disconnect(struct mosquitto *m, void *arg, int rc, const mosquitto_property *p)
{
	struct pub_conn *c = arg;

	(void)m;
	(void)p;
	if (c->connected && !c->p->stopping)
		conn_error(c, rc ? rc : MOSQ_ERR_CONN_LOST, "disconnected");
	c->connected = false;
}

static void on_publish(struct mosquitto *m, void *arg, int mid, int rc,
		       const mosquitto_property *p)
{
	struct pub_conn *c = arg;

	(void)m;
	(void)mid;
	(void)p;
	(void)rc;
	if (c->inflight)
		c->inflight--;
	conn_drain(c);
}

static void on_tick(uv_timer_t *t)
{
	struct pub_conn *c = t->data;
	int rc;

	c->ticks++;
	if (mosquitto_socket(c->m) < 0) {
		if (c->ticks % RETRY_TICKS != 1 && c->ticks != 1)
			return;
		c->refused = false;
		rc = c->ticks == 1 ? mosquitto_connect_bind_async(c->m, c->p->host, c->p->port,
								  c->p->keepalive, NULL)
				   : mosquitto_reconnect_async(c->m);
		if (rc != MOSQ_ERR_SUCCESS)
			conn_error(c, rc, "cannot connect");
	} else {
		mosquitto_loop_misc(c->m);
	}
	conn_sync(c);
}

static int conn_setup(struct pub_conn *c)
{
	struct tt_pub_mqtt *p = c->p;
	const char *target = tt_hub_target(c->hub);
	char id[128], host[64], will[400];
	int rc;

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "host");
	host[sizeof(host) - 1] = 0;
	snprintf(id, sizeof(id), "tracetapd-%s-%ld-%s", host, (long)getpid(), target);
	if (snprintf(c->topic_ev, sizeof(c->topic_ev), "%s/%s/events", p->prefix, target) >=
		    (int)sizeof(c->topic_ev) ||
	    snprintf(c->topic_st, sizeof(c->topic_st), "%s/%s/status", p->prefix, target) >=
		    (int)sizeof(c->topic_st))
		return -ENAMETOOLONG;
	if (!(c->m = mosquitto_new(id, true, c)))
		return -ENOMEM;
	mosquitto_int_option(c->m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	mosquitto_connect_v5_callback_set(c->m, on_connect);
	mosquitto_disconnect_v5_callback_set(c->m, on_disconnect);
	mosquitto_publish_v5_callback_set(c->m, on_publish);
	int n = snprintf(will, sizeof(will), "{\"type\":\"status\",\"target\":\"%s\","
			 "\"state\":\"offline\",\"message\":\"the publishing daemon is gone\"}",
			 target);
	if ((rc = mosquitto_will_set_v5(c->m, c->topic_st, n, will, 1, true, NULL)) ||
	    (p->user && (rc = mosquitto_username_pw_set(c->m, p->user, p->pass))) ||
	    (p->tls && (rc = mosquitto_tls_set(c->m, p->ca, p->ca ? NULL : "/etc/ssl/certs",
					       p->cert, p->key, NULL)))) {
		tt_log(TT_LOG_ERR, "target %s: mqtt: %s", target, mosquitto_strerror(rc));
		return -EINVAL;
	}
	return 0;
}

int tt_pub_mqtt_add_hub(struct tt_pub_mqtt *p, struct tt_hub *hub)
{
	struct pub_conn *c;
	int rc;

	if (p->nconns == MAX_CONNS)
		return -ENOSPC;
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->p = p;
	c->hub = hub;
	c->fd = -1;
	if ((rc = conn_setup(c)) < 0 || (rc = tt_hub_client_new(hub, on_wake, c, &c->hc)) < 0) {
		if (c->m)
			mosquitto_destroy(c->m);
		free(c);
		return rc;
	}
	tt_hub_client_start(c->hc, TT_HUB_LIVE, 0);
	uv_timer_init(p->loop, &c->timer);
	c->timer.data = c;
	p->open_handles++;
	uv_timer_start(&c->timer, on_tick, 0, TICK_MS);
	p->conns[p->nconns++] = c;
	return 0;
}

static void on_timer_closed(uv_handle_t *h)
{
	struct pub_conn *c = h->data;
	struct tt_pub_mqtt *p = c->p;

	free(c);
	p->open_handles--;
	if (p->stopping && !p->open_handles)
		free(p);
}

void tt_pub_mqtt_stop(struct tt_pub_mqtt *p)
{
	if (!p)
		return;
	p->stopping = true;
	for (size_t i = 0; i < p->nconns; i++) {
		struct pub_conn *c = p->conns[i];
		if (c->connected) {
			char buf[400];
			int n = snprintf(buf, sizeof(buf), "{\"type\":\"status\",\"target\":\"%s\","
					 "\"state\":\"stopped\",\"message\":\"the publishing "
					 "daemon stopped\"}", tt_hub_target(c->hub));
			publish_status(c, buf, (size_t)n);
			/* one bounded, non-blocking attempt to send it and the DISCONNECT */
			mosquitto_loop_write(c->m, 4);
			mosquitto_disconnect_v5(c->m, MQTT_RC_NORMAL_DISCONNECTION, NULL);
			mosquitto_loop_write(c->m, 4);
		}
		c->fd = -2; /* whatever libmosquitto holds now: conn_sync closes the poll */
		if (c->poll) {
			uv_poll_stop(c->poll);
			uv_close((uv_handle_t *)c->poll, on_poll_closed);
			c->poll = NULL;
		}
		tt_hub_client_free(c->hc);
		mosquitto_destroy(c->m);
		uv_timer_stop(&c->timer);
		uv_close((uv_handle_t *)&c->timer, on_timer_closed);
	}
	p->nconns = 0;
	free(p->mem);
	p->mem = NULL;
	if (!p->open_handles)
		free(p);
}
