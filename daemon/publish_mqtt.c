/* daemon/publish_mqtt.c: hubs published to an MQTT broker (see publish_mqtt.h).
 *
 * The hub client is the bounded queue: frames are only taken from it while the broker is
 * connected and fewer than `inflight` messages are unacknowledged, so libmosquitto never holds
 * more than that (it sends those again after a reconnect); the rest waits in the hub client's
 * queue, or overflows out of it into an exact gap message. Every message handed over counts
 * as in flight until libmosquitto reports it sent (QoS 0) or acknowledged: the status and the
 * stats, which do not wait for room (status) or are skipped while there is none (stats: the
 * next second's replaces it), too.
 */
#include "publish_mqtt.h"

#include <errno.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../proto/json.h"
#include "hub.h"
#include "log.h"
#include "mqtt_uv.h"
#include "stats.h"

#define MAX_CONNS 64

struct pub_conn {
	struct tt_mqtt_conn mc;   /* first: the close callback gets it */
	struct tt_pub_mqtt *p;
	struct tt_hub *hub;
	struct tt_hub_client *hc;
	bool connected;
	size_t inflight;
	char label[80];
	char topic_ev[300], topic_st[300], topic_al[300], topic_stats[300];
	uint64_t stats_hash; /* of the last stats message published (0: none yet) */
};

struct tt_pub_mqtt {
	uv_loop_t *loop;
	struct tt_mqtt_url url;
	int qos, keepalive;
	const char *ca, *cert, *key;
	size_t inflight;
	struct tt_stats *(*stats_of)(void *arg, const char *target);
	void *stats_arg;
	uv_timer_t stats_timer; /* running while stats_of is set */
	struct pub_conn *conns[MAX_CONNS];
	size_t nconns, open;
};

static void stats_tick(uv_timer_t *t);

int tt_pub_mqtt_new(uv_loop_t *loop, const struct tt_pub_mqtt_config *cfg,
		    struct tt_pub_mqtt **out, char *err, size_t errlen)
{
	struct tt_pub_mqtt *p = calloc(1, sizeof(*p));
	char shown[512];
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
	p->stats_of = cfg->stats_of;
	p->stats_arg = cfg->stats_arg;
	if ((rc = tt_mqtt_url_parse("publish", cfg->url, &p->url, err, errlen)) < 0)
		goto fail;
	rc = -EINVAL;
	if (strchr(p->url.path, '+')) {
		snprintf(err, errlen, "publish '%s': the prefix may not hold +",
			 tt_log_url(cfg->url, shown, sizeof(shown)));
		goto fail;
	}
	if (!!p->cert != !!p->key) {
		snprintf(err, errlen, "publish: a client certificate needs its key (and the key "
			 "its certificate)");
		goto fail;
	}
	if (!p->url.tls && (p->ca || p->cert)) {
		snprintf(err, errlen, "publish '%s': CA/certificate options need mqtts://",
			 tt_log_url(cfg->url, shown, sizeof(shown)));
		goto fail;
	}
	if (p->stats_of) {
		uv_timer_init(loop, &p->stats_timer);
		uv_timer_start(&p->stats_timer, stats_tick, 1000, 1000);
		p->open++; /* the timer's close frees p if it is the last handle */
	}
	*out = p;
	return 0;
fail:
	tt_mqtt_url_free(&p->url);
	free(p);
	return rc;
}

/* A retained message (QoS 1) to topic: status and stats. */
static void publish_retained(struct pub_conn *c, const char *topic, const char *json, size_t len)
{
	int rc = mosquitto_publish_v5(c->mc.m, NULL, topic, (int)len, json, 1, true, NULL);
	if (rc != MOSQ_ERR_SUCCESS)
		tt_mqtt_conn_error(&c->mc, rc, topic == c->topic_st ? "status" : "stats");
	else
		c->inflight++;
}

static void publish_status(struct pub_conn *c, const char *json, size_t len)
{
	publish_retained(c, c->topic_st, json, len);
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h | 1; /* never 0: "none yet" */
}

/* Each connected target's analysis, when it changed since the last one published and the
 * broker has room for it. */
static void stats_tick(uv_timer_t *t)
{
	struct tt_pub_mqtt *p = (struct tt_pub_mqtt *)((char *)t - offsetof(struct tt_pub_mqtt,
									     stats_timer));

	for (size_t i = 0; i < p->nconns; i++) {
		struct pub_conn *c = p->conns[i];
		const char *target = tt_hub_target(c->hub);
		struct tt_frame *f;
		uint64_t h;

		if (!c->connected || c->inflight >= p->inflight ||
		    !(f = tt_stats_frame(p->stats_of(p->stats_arg, target), target,
					       uv_now(p->loop))))
			continue;
		if ((h = fnv1a(f->data, f->len)) != c->stats_hash) {
			publish_retained(c, c->topic_stats, f->data, f->len);
			c->stats_hash = h;
			tt_mqtt_conn_sync(&c->mc);
		}
		tt_frame_unref(f);
	}
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
		rc = mosquitto_publish_v5(c->mc.m, NULL,
					  f->kind == TT_FRAME_ALERT ? c->topic_al : c->topic_ev,
					  (int)f->len, f->data,
					  c->p->qos, false, NULL);
		if (rc != MOSQ_ERR_SUCCESS) {
			/* not taken: the frame stays queued for after the reconnect */
			tt_mqtt_conn_error(&c->mc, rc, "publish");
			break;
		}
		c->inflight++;
		tt_hub_client_pop(hc);
	}
	tt_mqtt_conn_sync(&c->mc);
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
		tt_mqtt_conn_refused(&c->mc, rc); /* tried again later */
		return;
	}
	tt_mqtt_conn_up(&c->mc);
	c->connected = true;
	c->stats_hash = 0; /* the broker may have restarted without its retained messages */
	/* a fresh status replaces any queued one, so the retained one is current */
	tt_hub_status_changed(c->hub);
	conn_drain(c);
}

static void on_disconnect(struct mosquitto *m, void *arg, int rc, const mosquitto_property *p)
{
	struct pub_conn *c = arg;

	(void)m;
	(void)p;
	if (c->connected)
		tt_mqtt_conn_error(&c->mc, rc ? rc : MOSQ_ERR_CONN_LOST, "disconnected");
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

/* A status message of ours: its fixed text and the target's name (at most TT_JSON_MAX_NAME
 * bytes: the hub refuses longer) escaped, at most 6 bytes per byte. */
#define STATUS_MAX (TT_JSON_MAX_NAME * 6 + 128)

/* A retained status of target (its name JSON-escaped) into buf; the length, or -ENOSPC. */
static int status_json(char *buf, size_t cap, const char *target, const char *state,
		       const char *message)
{
	int n = snprintf(buf, cap, "{\"type\":\"status\",\"target\":");
	int k = n > 0 && (size_t)n < cap ? tt_json_string(buf + n, cap - (size_t)n, target, cap) : -1;
	int m = k < 0 ? -1 : snprintf(buf + n + k, cap - (size_t)(n + k),
				      ",\"state\":\"%s\",\"message\":\"%s\"}", state, message);

	return m < 0 || (size_t)(n + k + m) >= cap ? -ENOSPC : n + k + m;
}

static int conn_setup(struct pub_conn *c, char *err, size_t errlen)
{
	struct tt_pub_mqtt *p = c->p;
	const char *target = tt_hub_target(c->hub);
	char id[128], host[64], will[STATUS_MAX];
	int rc;

	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "host");
	host[sizeof(host) - 1] = 0;
	/* the connection's index keeps ids apart when a long name is cut */
	snprintf(id, sizeof(id), "tracetapd-%s-%ld-%zu-%s", host, (long)getpid(), p->nconns, target);
	snprintf(c->label, sizeof(c->label), "target %s", target);
	if (snprintf(c->topic_ev, sizeof(c->topic_ev), "%s/%s/events", p->url.path, target) >=
		    (int)sizeof(c->topic_ev) ||
	    snprintf(c->topic_st, sizeof(c->topic_st), "%s/%s/status", p->url.path, target) >=
		    (int)sizeof(c->topic_st) ||
	    snprintf(c->topic_al, sizeof(c->topic_al), "%s/%s/alerts", p->url.path, target) >=
		    (int)sizeof(c->topic_al) ||
	    snprintf(c->topic_stats, sizeof(c->topic_stats), "%s/%s/stats", p->url.path, target) >=
		    (int)sizeof(c->topic_stats)) {
		snprintf(err, errlen, "its topic %s/%s/events is more than %zu bytes", p->url.path,
			 target, sizeof(c->topic_ev) - 1);
		return -ENAMETOOLONG;
	}
	if (mosquitto_pub_topic_check(c->topic_ev) != MOSQ_ERR_SUCCESS ||
	    mosquitto_validate_utf8(c->topic_ev, (int)strlen(c->topic_ev)) != MOSQ_ERR_SUCCESS) {
		snprintf(err, errlen, "its name cannot be in a topic ('+' and '#' are wildcards; "
			 "UTF-8 only)");
		return -EINVAL;
	}
	if (!(c->mc.m = tt_mqtt_client_new(id, c, &p->url, p->ca, p->cert, p->key)))
		return -EINVAL;
	mosquitto_connect_v5_callback_set(c->mc.m, on_connect);
	mosquitto_disconnect_v5_callback_set(c->mc.m, on_disconnect);
	mosquitto_publish_v5_callback_set(c->mc.m, on_publish);
	int n = status_json(will, sizeof(will), target, "offline", "the publishing daemon is gone");
	if (n < 0 || (rc = mosquitto_will_set_v5(c->mc.m, c->topic_st, n, will, 1, true, NULL))) {
		snprintf(err, errlen, "mqtt: %s", n < 0 ? "status message too long" :
			 mosquitto_strerror(rc));
		return -EINVAL;
	}
	return 0;
}

static void on_timer_closed(uv_handle_t *h)
{
	struct tt_pub_mqtt *p = h->data;

	if (--p->open == 0)
		free(p);
}

static void on_conn_closed(struct tt_mqtt_conn *mc)
{
	struct pub_conn *c = (struct pub_conn *)mc;
	struct tt_pub_mqtt *p = c->p;

	free(c);
	if (--p->open == 0)
		free(p);
}

int tt_pub_mqtt_add_hub(struct tt_pub_mqtt *p, struct tt_hub *hub, char *err, size_t errlen)
{
	struct pub_conn *c;
	int rc;

	if (p->nconns == MAX_CONNS) {
		snprintf(err, errlen, "a daemon publishes %d targets at most", MAX_CONNS);
		return -ENOSPC;
	}
	snprintf(err, errlen, "out of memory");
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->p = p;
	c->hub = hub;
	if ((rc = conn_setup(c, err, errlen)) < 0 ||
	    (rc = tt_hub_client_new(hub, on_wake, c, &c->hc)) < 0) {
		if (c->mc.m)
			mosquitto_destroy(c->mc.m);
		free(c);
		return rc;
	}
	tt_hub_client_start(c->hc, TT_HUB_LIVE, 0);
	c->mc.loop = p->loop;
	c->mc.url = &p->url;
	c->mc.keepalive = p->keepalive;
	c->mc.label = c->label;
	c->mc.closed = on_conn_closed;
	tt_mqtt_conn_start(&c->mc);
	p->conns[p->nconns++] = c;
	p->open++;
	return 0;
}

void tt_pub_mqtt_stop(struct tt_pub_mqtt *p)
{
	if (!p)
		return;
	tt_mqtt_url_free(&p->url);
	p->url.host = "(stopped)";
	p->open++; /* held until every connection is closed */
	if (p->stats_of) {
		p->stats_timer.data = p;
		uv_close((uv_handle_t *)&p->stats_timer, on_timer_closed);
	}
	for (size_t i = 0; i < p->nconns; i++) {
		struct pub_conn *c = p->conns[i];
		if (c->connected) {
			char buf[STATUS_MAX];
			int n = status_json(buf, sizeof(buf), tt_hub_target(c->hub), "stopped",
					    "the publishing daemon stopped");
			if (n > 0)
				publish_status(c, buf, (size_t)n);
			c->connected = false;
			tt_mqtt_conn_disconnect(&c->mc);
		}
		tt_hub_client_free(c->hc);
		tt_mqtt_conn_close(&c->mc);
	}
	p->nconns = 0;
	if (--p->open == 0)
		free(p);
}
