/* daemon/subscribe_mqtt.c: remote targets from an MQTT broker (see subscribe_mqtt.h).
 *
 * Records keep everything but their seq, which the central hub numbers itself: equal to the
 * origin's while nothing was lost. What was lost becomes one gap record with the exact count:
 * the range of the publisher's `gap` message (its queue overflowed), or seqs that never arrived
 * (lost between the publisher and the broker). Repeats (QoS 1 after a reconnect) are dropped; a
 * publisher that restarted numbering from 1 becomes a reset record; the publisher's last will
 * ("offline") shows as disconnected.
 *
 * Each message is checked whole before any of its records reaches the hub, so a malformed one
 * is dropped whole and its records count in the next gap; records are parsed back with the
 * clients' parser (record_json.h) and encoded by the hub with the daemon's one encoder.
 */
#include "subscribe_mqtt.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hub.h"
#include "log.h"
#include "mqtt_uv.h"
#include "record_json.h"
#include "server.h"
#include "target.h"

#define MAX_REMOTES 64
/* A publisher's batch is at most about batch_bytes (64 KiB) plus one record: far below this. */
#define MAX_PAYLOAD (4u << 20)
#define MAX_BATCH 65536      /* records in one events message */
#define BAD_LOG_FIRST 10     /* malformed messages logged one by one, then every 1000th */

struct remote {
	struct tt_sub_mqtt *s;
	char name[256];          /* BENCH/TARGET: the hub's target name */
	char key[256];           /* the topic without /events or /status */
	struct tt_hub *hub;
	uint64_t next;           /* the origin's seq expected next; 0 before the first */
	uint64_t base;           /* central seq = origin seq + base (raised at each restart) */
	bool origin_gone;        /* its status said offline or stopped since the last record */
	struct tt_target_status st;
};

struct tt_sub_mqtt {
	struct tt_mqtt_conn mc;  /* first: the close callback gets it */
	struct tt_server *srv;
	struct tt_mqtt_url url;
	char label[300];
	char topic_ev[300], topic_st[300];
	struct remote *remotes[MAX_REMOTES];
	size_t nremotes;
	unsigned long long bad;
	struct tt_record_json *recs; /* MAX_BATCH, parsed before any is published */
};

unsigned long long tt_sub_mqtt_bad(const struct tt_sub_mqtt *s)
{
	return s->bad;
}

static const struct tt_target_status *remote_status(void *arg)
{
	return &((struct remote *)arg)->st;
}

/* The remote for topic key (creating its hub when new); NULL with why when there is none. */
static struct remote *remote_get(struct tt_sub_mqtt *s, const char *key, const char *format,
				 char *why, size_t whylen)
{
	for (size_t i = 0; i < s->nremotes; i++)
		if (!strcmp(s->remotes[i]->key, key))
			return s->remotes[i];
	if (s->nremotes == MAX_REMOTES || strlen(key) >= sizeof(s->remotes[0]->key)) {
		snprintf(why, whylen, "no room for another remote target (%d at most)", MAX_REMOTES);
		return NULL;
	}
	struct remote *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	r->s = s;
	snprintf(r->key, sizeof(r->key), "%s", key);
	/* BENCH/TARGET: the last two levels of the topic */
	const char *last = strrchr(key, '/'), *name = key;
	for (const char *p = key; last && p < last; p++)
		if (*p == '/')
			name = p + 1;
	snprintf(r->name, sizeof(r->name), "%s", name); /* the hub refuses one over 64 bytes */
	r->st.state = TT_TARGET_ATTACHING;
	snprintf(r->st.message, sizeof(r->st.message), "from %.200s", s->label);
	struct tt_hub_config hc = { .target = r->name, .format = format, .probe = s->label,
				    .status = remote_status, .status_arg = r };
	int rc = tt_server_add_hub(s->srv, &hc, &r->hub);
	if (rc < 0) {
		snprintf(why, whylen, "remote target %.80s: %s", r->name,
			 rc == -EEXIST ? "a target of that name exists" :
			 rc == -ENAMETOOLONG ? "its name (BENCH/TARGET) is over 64 bytes" :
			 strerror(-rc));
		free(r);
		return NULL;
	}
	tt_log(TT_LOG_INFO, "%s: remote target %s (topic %s)", s->label, r->name, key);
	s->remotes[s->nremotes++] = r;
	return r;
}

/* A gap record at the origin's seq `seq`, standing for the `lost` seqs from there on: the next
 * record keeps its own seq, and the hub leaves the seqs between as a hole. */
static void publish_gap(struct remote *r, uint64_t seq, uint64_t lost, const char *reason)
{
	struct tt_record g = { .kind = TT_REC_GAP };

	g.u.gap.lost = lost;
	g.u.gap.exact = true;
	g.u.gap.reason = reason;
	tt_hub_publish_at(r->hub, &g, seq + r->base);
	r->st.gaps++;
	r->st.lost += lost;
}

/* The origin's seq `seq` arrives: false when it is a repeat. A jump is a gap; numbering that
 * went back after the publisher went away is a restart of the publishing daemon. */
static bool accept_seq(struct remote *r, uint64_t seq, bool batch_start)
{
	if (r->next && seq < r->next && batch_start && seq == 1 && r->origin_gone) {
		struct tt_record x = { .kind = TT_REC_RESET };
		x.u.reset.reason = "the publishing daemon restarted";
		tt_hub_publish(r->hub, &x);
		r->st.resets++;
		r->next = 0;
		struct tt_hub_stats hs;
		tt_hub_get_stats(r->hub, &hs);
		r->base = hs.last_seq; /* the new origin's seq 1 follows the reset record */
	}
	r->origin_gone = false;
	if (r->next && seq < r->next)
		return false;
	if (r->next && seq > r->next)
		publish_gap(r, r->next, seq - r->next, "lost between the publisher and the broker");
	r->next = seq + 1;
	return true;
}

static int on_events(struct remote *r, const cJSON *o, char *why, size_t wl)
{
	struct tt_sub_mqtt *s = r->s;
	const cJSON *recs = cJSON_GetObjectItemCaseSensitive(o, "records");
	int n = cJSON_GetArraySize(recs), i = 0;
	const cJSON *it;

	if (!cJSON_IsArray(recs) || n == 0 || n > MAX_BATCH) {
		snprintf(why, wl, "\"records\" is not an array of 1..%d records", MAX_BATCH);
		return -EINVAL;
	}
	cJSON_ArrayForEach(it, recs) {
		struct tt_record_json *rj = &s->recs[i];
		if (!cJSON_IsObject(it) || tt_record_from_json(it, rj) < 0 || !rj->seq ||
		    (i && rj->seq <= s->recs[i - 1].seq)) {
			snprintf(why, wl, "records[%d]: not a record with a seq above the one before",
				 i);
			return -EINVAL;
		}
		i++;
	}
	for (i = 0; i < n; i++) {
		if (!accept_seq(r, s->recs[i].seq, i == 0))
			continue;
		uint64_t seq = s->recs[i].seq;
		if (!tt_hub_publish_at(r->hub, &s->recs[i].rec, seq + r->base))
			publish_gap(r, seq, 1, "record not stored"); /* counted by the hub too */
		if (s->recs[i].rec.kind == TT_REC_EVENT)
			r->st.events++;
	}
	return 0;
}

static int on_gap_message(struct remote *r, const cJSON *o, char *why, size_t wl)
{
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(o, "from");
	const cJSON *to = cJSON_GetObjectItemCaseSensitive(o, "to");

	if (!cJSON_IsNumber(from) || !cJSON_IsNumber(to) || from->valuedouble < 1 ||
	    to->valuedouble < from->valuedouble) {
		snprintf(why, wl, "a gap message needs from <= to, both >= 1");
		return -EINVAL;
	}
	uint64_t f = tt_json_u64(from->valuedouble), t = tt_json_u64(to->valuedouble);
	if (r->next && t < r->next)
		return 0; /* a repeat */
	if (r->next && f < r->next)
		f = r->next;
	if (r->next && f > r->next)
		f = r->next; /* seqs before the range never came either: one gap for both */
	publish_gap(r, f, t - f + 1, "the publisher's queue overflowed (broker gone or slow)");
	r->next = t + 1;
	r->origin_gone = false;
	return 0;
}

static int on_status(struct remote *r, const cJSON *o)
{
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(o, "state");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
	const cJSON *v;
	const char *st = cJSON_IsString(state) ? state->valuestring : "";

	r->st.state = TT_TARGET_DISCONNECTED;
	for (int i = TT_TARGET_ATTACHING; i <= TT_TARGET_HALTED; i++)
		if (!strcmp(st, tt_target_state_name(i)))
			r->st.state = i;
	r->origin_gone |= !strcmp(st, "offline") || !strcmp(st, "stopped");
	snprintf(r->st.message, sizeof(r->st.message), "%s%s%s",
		 !strcmp(st, "offline") ? "offline: " : "",
		 cJSON_IsString(msg) ? msg->valuestring : "", "");
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "rate")))
		r->st.rate = v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "fill")))
		r->st.fill = v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "bytes_read")))
		r->st.bytes_read = tt_json_u64(v->valuedouble);
	tt_hub_status_changed(r->hub);
	return 0;
}

static void bad_message(struct tt_sub_mqtt *s, const char *topic, size_t len, const char *why)
{
	s->bad++;
	if (s->bad <= BAD_LOG_FIRST || s->bad % 1000 == 0)
		tt_log(TT_LOG_WARNING, "%s: topic %s: message of %zu bytes dropped: %s (%llu "
		       "dropped so far)", s->label, topic, len, why, s->bad);
}

/* Which remote and which kind a topic is: PREFIX/.../TARGET/events or .../status. */
static int split_topic(const char *topic, char *key, size_t cap, bool *events)
{
	size_t n = strlen(topic);

	if (n > 7 && !strcmp(topic + n - 7, "/events"))
		*events = true, n -= 7;
	else if (n > 7 && !strcmp(topic + n - 7, "/status"))
		*events = false, n -= 7;
	else
		return -EINVAL;
	if (n >= cap)
		return -EINVAL;
	memcpy(key, topic, n);
	key[n] = 0;
	return 0;
}

static void on_message(struct mosquitto *m, void *arg, const struct mosquitto_message *msg,
		       const mosquitto_property *props)
{
	struct tt_sub_mqtt *s = arg;
	char key[256], why[160];
	bool events;
	cJSON *o = NULL;
	int rc = -EINVAL;

	(void)m;
	(void)props;
	if (split_topic(msg->topic, key, sizeof(key), &events) < 0) {
		bad_message(s, msg->topic, (size_t)msg->payloadlen, "not an events or status topic");
		return;
	}
	if ((size_t)msg->payloadlen > MAX_PAYLOAD) {
		snprintf(why, sizeof(why), "over %u bytes", MAX_PAYLOAD);
		goto bad;
	}
	if (!(o = cJSON_ParseWithLength(msg->payload, (size_t)msg->payloadlen)) ||
	    !cJSON_IsObject(o)) {
		snprintf(why, sizeof(why), "not a JSON object");
		goto bad;
	}
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
	const char *ty = cJSON_IsString(type) ? type->valuestring : "";
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
	struct remote *r = remote_get(s, key, cJSON_IsString(fmt) ? fmt->valuestring : NULL, why,
				      sizeof(why));
	if (!r)
		goto bad;
	if (events && !strcmp(ty, "events"))
		rc = on_events(r, o, why, sizeof(why));
	else if (events && !strcmp(ty, "gap"))
		rc = on_gap_message(r, o, why, sizeof(why));
	else if (!events && !strcmp(ty, "status"))
		rc = on_status(r, o);
	else
		snprintf(why, sizeof(why), "type \"%.40s\" does not belong on this topic", ty);
	if (rc == 0) {
		cJSON_Delete(o);
		return;
	}
bad:
	bad_message(s, msg->topic, (size_t)msg->payloadlen, why);
	cJSON_Delete(o);
}

static void on_connect(struct mosquitto *m, void *arg, int rc, int flags,
		       const mosquitto_property *props)
{
	struct tt_sub_mqtt *s = arg;
	char *subs[] = { s->topic_ev, s->topic_st };

	(void)flags;
	(void)props;
	if (rc) {
		tt_mqtt_conn_refused(&s->mc, rc);
		return;
	}
	tt_mqtt_conn_up(&s->mc);
	rc = mosquitto_subscribe_multiple(m, NULL, 2, subs, 1, 0, NULL);
	if (rc != MOSQ_ERR_SUCCESS)
		tt_mqtt_conn_error(&s->mc, rc, "subscribe");
	tt_mqtt_conn_sync(&s->mc);
}

static void on_disconnect(struct mosquitto *m, void *arg, int rc, const mosquitto_property *p)
{
	struct tt_sub_mqtt *s = arg;

	(void)m;
	(void)p;
	tt_mqtt_conn_error(&s->mc, rc ? rc : MOSQ_ERR_CONN_LOST, "disconnected");
}

static void on_closed(struct tt_mqtt_conn *mc)
{
	struct tt_sub_mqtt *s = (struct tt_sub_mqtt *)mc;

	for (size_t i = 0; i < s->nremotes; i++)
		free(s->remotes[i]);
	free(s->recs);
	free(s);
}

int tt_sub_mqtt_new(uv_loop_t *loop, struct tt_server *srv, const char *url, const char *ca,
		    const char *cert, const char *key, struct tt_sub_mqtt **out, char *err,
		    size_t errlen)
{
	static unsigned made; /* subscriptions made by this process (loop thread only) */
	struct tt_sub_mqtt *s = calloc(1, sizeof(*s));
	char id[128], host[64];
	int rc;

	if (!s || !(s->recs = calloc(MAX_BATCH, sizeof(*s->recs)))) {
		free(s);
		return -ENOMEM;
	}
	s->srv = srv;
	if ((rc = tt_mqtt_url_parse("probe", url, &s->url, err, errlen)) < 0)
		goto fail;
	rc = -EINVAL;
	if (!strchr(s->url.path, '/')) {
		snprintf(err, errlen, "probe '%s': expected .../PREFIX/TARGET (TARGET may be +)",
			 url);
		goto fail;
	}
	/* the label names the subscription without its password */
	snprintf(s->label, sizeof(s->label), "mqtt%s://%s:%d/%s", s->url.tls ? "s" : "",
		 s->url.host, s->url.port, s->url.path);
	snprintf(s->topic_ev, sizeof(s->topic_ev), "%s/events", s->url.path);
	snprintf(s->topic_st, sizeof(s->topic_st), "%s/status", s->url.path);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "host");
	host[sizeof(host) - 1] = 0;
	/* one id per subscription: a broker disconnects a client when another takes its id */
	snprintf(id, sizeof(id), "tracetapd-%s-%ld-sub%u", host, (long)getpid(), made++);
	if (!(s->mc.m = tt_mqtt_client_new(id, s, &s->url, ca, cert, key))) {
		snprintf(err, errlen, "probe '%s': cannot set up the MQTT client", s->label);
		goto fail;
	}
	mosquitto_connect_v5_callback_set(s->mc.m, on_connect);
	mosquitto_disconnect_v5_callback_set(s->mc.m, on_disconnect);
	mosquitto_message_v5_callback_set(s->mc.m, on_message);
	s->mc.loop = loop;
	s->mc.url = &s->url;
	s->mc.keepalive = 10;
	s->mc.label = s->label;
	s->mc.closed = on_closed;
	tt_mqtt_conn_start(&s->mc);
	*out = s;
	return 0;
fail:
	tt_mqtt_url_free(&s->url);
	free(s->recs);
	free(s);
	return rc;
}

void tt_sub_mqtt_stop(struct tt_sub_mqtt *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nremotes; i++) {
		s->remotes[i]->st.state = TT_TARGET_STOPPED;
		tt_hub_status_changed(s->remotes[i]->hub);
	}
	tt_mqtt_conn_disconnect(&s->mc);
	tt_mqtt_conn_close(&s->mc);
	tt_mqtt_url_free(&s->url);
}
