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
 *
 * Whoever may publish on the broker is untrusted: a message is checked (type, fields, every
 * number against what it can mean: seq window, status ranges) before it can make a target, a
 * target is made only for an allowed bench under its cap, and every drop is counted where the
 * operator sees it (the target's status, or /metrics) and logged under a budget per target and
 * per allowed bench, so one publisher's noise cannot hide another's losses.
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
#include "trigger.h"

#define MAX_REMOTES 64
/* A publisher's batch is at most about batch_bytes (64 KiB) plus one record: far below this. */
#define MAX_PAYLOAD (4u << 20)
#define MAX_BATCH 65536      /* records in one events message */
#define BAD_LOG_FIRST 10     /* drops logged one by one (per target, and for the rest), then
				every 1000th */
/* What an origin's seq can mean (proto/PROTOCOL.md "MQTT"): at most SEQ_ORIGIN_MAX (8.9 years
 * at a million records a second), and, once a target's next seq is known, at most SEQ_WINDOW
 * past it (a loss of 4.3e9 records in one go: over an hour at a million a second). Central seqs
 * (origin + base) then stay far below TT_HUB_SEQ_MAX: a broker cannot wrap them. */
#define SEQ_ORIGIN_MAX (UINT64_C(1) << 48)
#define SEQ_WINDOW (UINT64_C(1) << 32)
#define RATE_MAX 1e9         /* events/s a status message may claim */

struct remote {
	struct tt_sub_mqtt *s;
	char name[256];          /* BENCH/TARGET: the hub's target name */
	char key[256];           /* the topic without /events or /status */
	struct tt_hub *hub;
	uint64_t next;           /* the origin's seq expected next; 0 before the first */
	uint64_t base;           /* central seq = origin seq + base (raised at each restart) */
	bool origin_gone;        /* its status said offline or stopped since the last record */
	unsigned long long logged; /* drops of this target so far (log rate limit) */
	struct tt_target_status st;
};

struct tt_sub_mqtt {
	struct tt_mqtt_conn mc;  /* first: the close callback gets it */
	struct tt_server *srv;
	struct tt_mqtt_url url;
	char label[300];
	char topic_ev[300], topic_st[300], topic_al[300];
	struct remote *remotes[MAX_REMOTES];
	size_t nremotes;
	unsigned long long bad;   /* messages dropped, every reason */
	unsigned long long other[2]; /* of those, for no target: refused, no room (log limit) */
	char **benches;           /* allowed BENCH names (owned); none: any */
	unsigned long long *bench_logged; /* drops of each before it has a target (log limit) */
	size_t nbenches;
	unsigned bench_targets;   /* remote targets per bench at most */
	struct tt_record_json *recs; /* MAX_BATCH, parsed before any is published */
	uint64_t subscribed_at;   /* uv_now of the broker's SUBACK; 0: not subscribed */
	bool heard, quiet_logged; /* a message came since; "nothing arrived" said */
};

unsigned long long tt_sub_mqtt_bad(const struct tt_sub_mqtt *s)
{
	return s->bad;
}

static const struct tt_target_status *remote_status(void *arg)
{
	return &((struct remote *)arg)->st;
}

/* The BENCH/TARGET name of topic key: its last two levels. */
static const char *remote_name(const char *key)
{
	const char *last = strrchr(key, '/'), *name = key;

	for (const char *p = key; last && p < last; p++)
		if (*p == '/')
			name = p + 1;
	return name;
}

/* The index of name's (BENCH/TARGET) bench in the allowed ones, or -1. */
static int bench_index(const struct tt_sub_mqtt *s, const char *name)
{
	size_t blen = strcspn(name, "/");

	for (size_t i = 0; i < s->nbenches; i++)
		if (strlen(s->benches[i]) == blen && !strncmp(s->benches[i], name, blen))
			return (int)i;
	return -1;
}

/* Whether the operator lets name (BENCH/TARGET) be a target: 0, -EPERM (not allowed) or
 * -ENOSPC (its bench or the table is full), why in why. Names are text for logs, terminals and
 * pages: no control characters. */
static int remote_allowed(const struct tt_sub_mqtt *s, const char *name, char *why, size_t wl)
{
	const char *slash = strchr(name, '/');
	size_t blen = slash ? (size_t)(slash - name) : strlen(name), same = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(why, wl, "a control character in its name");
			return -EPERM;
		}
	if (s->nbenches) {
		if (bench_index(s, name) < 0) {
			snprintf(why, wl, "bench '%.*s' is not in mqtt_benches", (int)(blen > 64 ? 64 :
				 blen), name);
			return -EPERM;
		}
	}
	for (size_t i = 0; i < s->nremotes; i++)
		same += !strncmp(s->remotes[i]->name, name, blen) && s->remotes[i]->name[blen] == '/';
	if (same >= s->bench_targets) {
		snprintf(why, wl, "bench '%.*s' has %u remote targets already (mqtt_bench_targets)",
			 (int)(blen > 64 ? 64 : blen), name, s->bench_targets);
		return -ENOSPC;
	}
	if (s->nremotes == MAX_REMOTES) {
		snprintf(why, wl, "no room for another remote target (%d at most)", MAX_REMOTES);
		return -ENOSPC;
	}
	return 0;
}

static struct remote *remote_find(const struct tt_sub_mqtt *s, const char *key)
{
	for (size_t i = 0; i < s->nremotes; i++)
		if (!strcmp(s->remotes[i]->key, key))
			return s->remotes[i];
	return NULL;
}

/* The remote for topic key (creating its hub when new and allowed); NULL with why, and *rc as
 * remote_allowed's, when there is none. Called only for a message already checked whole. */
static struct remote *remote_get(struct tt_sub_mqtt *s, const char *key, const char *format,
				 int *rc, char *why, size_t whylen)
{
	struct remote *r = remote_find(s, key);

	if (r)
		return r;
	*rc = -ENOSPC;
	if (strlen(key) >= sizeof(r->key)) {
		snprintf(why, whylen, "its topic is over %zu bytes", sizeof(r->key) - 1);
		return NULL;
	}
	if ((*rc = remote_allowed(s, remote_name(key), why, whylen)) < 0)
		return NULL;
	*rc = -ENOSPC;
	if (!(r = calloc(1, sizeof(*r)))) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	r->s = s;
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->name, sizeof(r->name), "%s", remote_name(key)); /* the hub refuses > 64 bytes */
	r->st.state = TT_TARGET_ATTACHING;
	snprintf(r->st.message, sizeof(r->st.message), "from %.200s", s->label);
	struct tt_hub_config hc = { .target = r->name, .format = format, .probe = s->label,
				    .status = remote_status, .status_arg = r };
	int e = tt_server_add_hub(s->srv, &hc, &r->hub);
	if (e < 0) {
		snprintf(why, whylen, "remote target %.80s: %s", r->name,
			 e == -EEXIST ? "a target of that name exists" :
			 e == -ENAMETOOLONG ? "its name (BENCH/TARGET) is over 64 bytes" :
			 strerror(-e));
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

/* Whether origin seqs up to `last` can be numbered centrally, within the window of the one
 * expected (seq 1 after a restart, none before a target's first record). A restart is numbered
 * after the hub's last seq: what the hub holds plus `last` must fit. */
static int seq_in_window(const struct remote *r, uint64_t last, bool restart, char *why,
			 size_t wl)
{
	uint64_t expect = restart ? 1 : r->next;
	struct tt_hub_stats hs;

	tt_hub_get_stats(r->hub, &hs);
	if (last > SEQ_ORIGIN_MAX || (expect && last > expect && last - expect > SEQ_WINDOW)) {
		snprintf(why, wl, "seq %" PRIu64 " is out of range (next expected %" PRIu64
			 ", at most %" PRIu64 " past it)", last, expect, SEQ_WINDOW);
		return -ERANGE;
	}
	if (hs.last_seq + last > TT_HUB_SEQ_MAX) {
		snprintf(why, wl, "seq %" PRIu64 ": this target's central seqs are used up "
			 "(restart the central daemon)", last);
		return -ERANGE;
	}
	return 0;
}

/* Seq `seq` came again (QoS 1 after a reconnect, or seqs skipped ahead by someone else): counted,
 * and logged the first times and every 1000th. */
static void repeated(struct remote *r, uint64_t seq)
{
	if (++r->st.repeats <= BAD_LOG_FIRST || r->st.repeats % 1000 == 0)
		tt_log(TT_LOG_INFO, "%s: remote target %s: seq %" PRIu64 " already had (next "
		       "expected %" PRIu64 "): dropped (%" PRIu64 " repeats so far)", r->s->label,
		       r->name, seq, r->next, r->st.repeats);
}

/* Whether a message starting at seq `first` is a restart of the publishing daemon: numbering
 * that went back to 1 after the publisher went away. */
static bool is_restart(const struct remote *r, uint64_t first)
{
	return r->next && first < r->next && first == 1 && r->origin_gone;
}

/* The origin's seq `seq` arrives: false when it is a repeat (counted). A jump is a gap. */
static bool accept_seq(struct remote *r, uint64_t seq, bool batch_start)
{
	if (batch_start && is_restart(r, seq)) {
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
	if (r->next && seq < r->next) {
		repeated(r, seq);
		return false;
	}
	if (r->next && seq > r->next)
		publish_gap(r, r->next, seq - r->next, "lost between the publisher and the broker");
	r->next = seq + 1;
	return true;
}

/* Checks an events message whole into s->recs: the number of records, or -EINVAL. */
static int parse_events(struct tt_sub_mqtt *s, const cJSON *o, char *why, size_t wl)
{
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
	return n;
}

static int on_events(struct remote *r, int n, char *why, size_t wl)
{
	struct tt_sub_mqtt *s = r->s;
	int rc = seq_in_window(r, s->recs[n - 1].seq, is_restart(r, s->recs[0].seq), why, wl);

	if (rc < 0)
		return rc;
	for (int i = 0; i < n; i++) {
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

/* Checks a gap message's range: 0 with it in *f, *t, or -EINVAL. */
static int parse_gap(const cJSON *o, uint64_t *f, uint64_t *t, char *why, size_t wl)
{
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(o, "from");
	const cJSON *to = cJSON_GetObjectItemCaseSensitive(o, "to");

	if (!cJSON_IsNumber(from) || !cJSON_IsNumber(to) || from->valuedouble < 1 ||
	    to->valuedouble < from->valuedouble) {
		snprintf(why, wl, "a gap message needs from <= to, both >= 1");
		return -EINVAL;
	}
	*f = tt_json_u64(from->valuedouble);
	*t = tt_json_u64(to->valuedouble);
	return 0;
}

static int on_gap_message(struct remote *r, uint64_t f, uint64_t t, char *why, size_t wl)
{
	int rc = seq_in_window(r, t, false, why, wl);

	if (rc < 0)
		return rc;
	if (r->next && t < r->next) {
		repeated(r, t);
		return 0;
	}
	if (r->next && f != r->next)
		f = r->next; /* a repeated start, or seqs before the range never came: one gap */
	publish_gap(r, f, t - f + 1, "the publisher's queue overflowed (broker gone or slow)");
	r->next = t + 1;
	r->origin_gone = false;
	return 0;
}

/* A status message's number k: 0 with it in *v, -ERANGE when it is not in [0, max]; absent
 * leaves *v. */
static int status_num(const cJSON *o, const char *k, double max, double *v, char *why,
		      size_t wl)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsNumber(n))
		return 0;
	if (!(n->valuedouble >= 0 && n->valuedouble <= max)) {
		snprintf(why, wl, "\"%s\" is not a number in 0..%g", k, max);
		return -ERANGE;
	}
	*v = n->valuedouble;
	return 0;
}

static int on_status(struct remote *r, const cJSON *o, char *why, size_t wl)
{
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(o, "state");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
	const char *st = cJSON_IsString(state) ? state->valuestring : "";
	double rate = r->st.rate, fill = r->st.fill, bytes = (double)r->st.bytes_read;

	if (status_num(o, "rate", RATE_MAX, &rate, why, wl) < 0 ||
	    status_num(o, "fill", 1, &fill, why, wl) < 0 ||
	    status_num(o, "bytes_read", (double)TT_HUB_SEQ_MAX, &bytes, why, wl) < 0)
		return -ERANGE;
	r->st.state = TT_TARGET_DISCONNECTED;
	for (int i = TT_TARGET_ATTACHING; i <= TT_TARGET_HALTED; i++)
		if (!strcmp(st, tt_target_state_name(i)))
			r->st.state = i;
	r->origin_gone |= !strcmp(st, "offline") || !strcmp(st, "stopped");
	snprintf(r->st.message, sizeof(r->st.message), "%s%s%s",
		 !strcmp(st, "offline") ? "offline: " : "",
		 cJSON_IsString(msg) ? msg->valuestring : "", "");
	r->st.rate = rate;
	r->st.fill = fill;
	r->st.bytes_read = (uint64_t)bytes;
	tt_hub_status_changed(r->hub);
	return 0;
}

enum topic_kind { T_EVENTS, T_STATUS, T_ALERTS };

/* Which remote and which kind a topic is: PREFIX/.../TARGET/events, .../status or .../alerts. */
static int split_topic(const char *topic, char *key, size_t cap, enum topic_kind *kind)
{
	static const char *const tails[] = { [T_EVENTS] = "/events", [T_STATUS] = "/status",
					     [T_ALERTS] = "/alerts" };
	size_t n = strlen(topic);
	int k = -1;

	for (int i = 0; i < 3 && k < 0; i++)
		if (n > 7 && !strcmp(topic + n - 7, tails[i]))
			k = i;
	if (k < 0)
		return -EINVAL;
	*kind = (enum topic_kind)k;
	n -= 7;
	if (n >= cap)
		return -EINVAL;
	memcpy(key, topic, n);
	key[n] = 0;
	return 0;
}

/* Counts a dropped message (on its target when it has one: /api/targets, /metrics) and logs
 * it: the first ones and every 1000th of each target, of each allowed bench without one, and of
 * the rest (refused, no room), so that a noisy publisher cannot hide an allowed bench's drops. */
static void bad_message(struct tt_sub_mqtt *s, struct remote *r, int rc, const char *topic,
			size_t len, const char *why)
{
	char key[256];
	enum topic_kind kind;
	int b = !r && split_topic(topic, key, sizeof(key), &kind) == 0 ?
		bench_index(s, remote_name(key)) : -1;
	unsigned long long *n = r ? &r->logged : b >= 0 ? &s->bench_logged[b] :
				&s->other[rc == -ENOSPC];

	s->bad++;
	if (r) {
		r->st.dropped++;
		tt_hub_status_changed(r->hub);
	} else {
		tt_server_remote_refused(s->srv);
	}
	if (++*n <= BAD_LOG_FIRST || *n % 1000 == 0)
		tt_log(TT_LOG_WARNING, "%s: topic %.200s: message of %zu bytes dropped: %s (%llu "
		       "dropped so far%s)", s->label, topic, len, why, *n, r ? " on this target" : "");
}

/* A string field of an alert: 0 with it in *v (NULL when absent and optional), or -EINVAL
 * when absent (and needed), not a string, empty, or over max bytes. */
static int alert_str(const cJSON *o, const char *k, size_t max, bool need, const char **v,
		     char *why, size_t wl)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	*v = NULL;
	if (!x && !need)
		return 0;
	if (!cJSON_IsString(x) || !x->valuestring[0] || strlen(x->valuestring) > max) {
		snprintf(why, wl, "an alert's \"%s\" must be a string of 1 to %zu bytes", k, max);
		return -EINVAL;
	}
	*v = x->valuestring;
	return 0;
}

/* Checks an alert message whole: 0 with its fields in *a (borrowed from o; target unset), or
 * -EINVAL / -ERANGE. The bench's capture stays on the bench (not served here): left out. */
static int parse_alert(const cJSON *o, struct tt_trig_alert *a, char *why, size_t wl)
{
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(o, "seq");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(o, "count");
	const cJSON *halt = cJSON_GetObjectItemCaseSensitive(o, "halt");

	*a = (struct tt_trig_alert){ .remote = true };
	if (alert_str(o, "trigger", TT_TRIG_NAME_MAX, true, &a->trigger, why, wl) < 0 ||
	    alert_str(o, "condition", TT_TRIG_COND_MAX - 1, true, &a->condition, why, wl) < 0 ||
	    alert_str(o, "time", 64, true, &a->time, why, wl) < 0 ||
	    alert_str(o, "detail", 2048, false, &a->detail, why, wl) < 0)
		return -EINVAL;
	if (!cJSON_IsNumber(seq) || !(seq->valuedouble >= 1 &&
				      seq->valuedouble <= (double)SEQ_ORIGIN_MAX) ||
	    !cJSON_IsNumber(count) || !(count->valuedouble >= 1 &&
					count->valuedouble <= (double)TT_HUB_SEQ_MAX) ||
	    (halt && !cJSON_IsBool(halt))) {
		snprintf(why, wl, "an alert needs seq in 1..2^48, count in 1..2^53-1 and halt a "
			 "boolean");
		return -ERANGE;
	}
	a->seq = tt_json_u64(seq->valuedouble);
	a->count = tt_json_u64(count->valuedouble);
	a->halt = cJSON_IsTrue(halt);
	return 0;
}

/* A bench's alert, passed on to its remote target's clients like a local one: the target's
 * central name, the record it names by its central seq (the bench's seq plus the base since
 * the bench's last restart), and "remote": true. */
static int on_alert(struct remote *r, struct tt_trig_alert *a, char *why, size_t wl)
{
	char buf[8192];
	int n;

	a->target = r->name;
	a->seq += r->base;
	if ((n = tt_trig_alert_json(buf, sizeof(buf), a)) < 0 ||
	    tt_hub_alert(r->hub, buf, (size_t)n) < 0) {
		snprintf(why, wl, "%s", n < 0 ? "the alert does not fit" : "out of memory");
		return n < 0 ? -EINVAL : -ENOMEM;
	}
	return 0;
}

/* A parsed message: checked whole (type, fields) before its target is looked up or made. */
static int dispatch(struct tt_sub_mqtt *s, const char *key, enum topic_kind kind, const cJSON *o,
		    struct remote **rp, char *why, size_t wl)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
	const char *ty = cJSON_IsString(type) ? type->valuestring : "";
	const char *fmt = tt_json_str(o, "format");
	struct tt_trig_alert al;
	uint64_t f = 0, t = 0;
	int n = 0;

	if (kind == T_EVENTS && !strcmp(ty, "events"))
		n = parse_events(s, o, why, wl);
	else if (kind == T_EVENTS && !strcmp(ty, "gap"))
		n = parse_gap(o, &f, &t, why, wl);
	else if (kind == T_ALERTS && !strcmp(ty, "alert"))
		n = parse_alert(o, &al, why, wl);
	else if (kind != T_STATUS || strcmp(ty, "status")) {
		snprintf(why, wl, "type \"%.40s\" does not belong on this topic", ty);
		n = -EINVAL;
	}
	if (n < 0) {
		*rp = remote_find(s, key);
		return n;
	}
	int rc = 0;
	if (!(*rp = remote_get(s, key, fmt, &rc, why, wl)))
		return rc;
	if (kind == T_STATUS)
		return on_status(*rp, o, why, wl);
	if (kind == T_ALERTS)
		return on_alert(*rp, &al, why, wl);
	return n ? on_events(*rp, n, why, wl) : on_gap_message(*rp, f, t, why, wl);
}

static void on_message(struct mosquitto *m, void *arg, const struct mosquitto_message *msg,
		       const mosquitto_property *props)
{
	struct tt_sub_mqtt *s = arg;
	struct remote *r = NULL;
	char key[256], why[200];
	enum topic_kind kind;
	cJSON *o = NULL;
	int rc = -EINVAL;

	(void)m;
	(void)props;
	s->heard = true;
	if (split_topic(msg->topic, key, sizeof(key), &kind) < 0) {
		bad_message(s, NULL, -EINVAL, msg->topic, (size_t)msg->payloadlen,
			    "not an events, status or alerts topic");
		return;
	}
	if ((size_t)msg->payloadlen > MAX_PAYLOAD) {
		snprintf(why, sizeof(why), "over %u bytes", MAX_PAYLOAD);
		r = remote_find(s, key);
	} else if (!(o = cJSON_ParseWithLength(msg->payload, (size_t)msg->payloadlen)) ||
		   !cJSON_IsObject(o)) {
		snprintf(why, sizeof(why), "not a JSON object");
		r = remote_find(s, key);
	} else if ((rc = dispatch(s, key, kind, o, &r, why, sizeof(why))) == 0) {
		cJSON_Delete(o);
		return;
	}
	bad_message(s, r, rc, msg->topic, (size_t)msg->payloadlen, why);
	cJSON_Delete(o);
}

static void on_connect(struct mosquitto *m, void *arg, int rc, int flags,
		       const mosquitto_property *props)
{
	struct tt_sub_mqtt *s = arg;
	char *subs[] = { s->topic_ev, s->topic_st, s->topic_al };

	(void)flags;
	(void)props;
	if (rc) {
		tt_mqtt_conn_refused(&s->mc, rc);
		return;
	}
	tt_mqtt_conn_up(&s->mc);
	rc = mosquitto_subscribe_multiple(m, NULL, 3, subs, 1, 0, NULL);
	if (rc != MOSQ_ERR_SUCCESS)
		tt_mqtt_conn_error(&s->mc, rc, "subscribe");
	tt_mqtt_conn_sync(&s->mc);
}

/* The broker's SUBACK: what was subscribed to is said, and whether the broker refused it. */
static void on_subscribe(struct mosquitto *m, void *arg, int mid, int n, const int *granted,
			 const mosquitto_property *props)
{
	struct tt_sub_mqtt *s = arg;
	bool refused = false;

	(void)m;
	(void)mid;
	(void)props;
	for (int i = 0; i < n; i++)
		refused |= granted[i] >= 0x80;
	if (refused) {
		tt_log(TT_LOG_WARNING, "%s: the broker refused the subscription to %s, %s and %s "
		       "(not allowed for this user?)", s->label, s->topic_ev, s->topic_st,
		       s->topic_al);
		return;
	}
	tt_log(TT_LOG_NOTICE, "%s: subscribed to %s, %s and %s", s->label, s->topic_ev,
	       s->topic_st, s->topic_al);
	s->subscribed_at = uv_now(s->mc.loop);
	s->heard = s->quiet_logged = false;
}

/* A subscription that matches nothing logs nothing else: say so once, with the likely cause
 * (a topic with one level too few or too many for how the benches publish). */
static void on_tick(struct tt_mqtt_conn *mc)
{
	struct tt_sub_mqtt *s = (struct tt_sub_mqtt *)mc;

	if (!s->subscribed_at || s->heard || s->quiet_logged ||
	    uv_now(mc->loop) - s->subscribed_at < TT_SUB_QUIET_MS)
		return;
	s->quiet_logged = true;
	tt_log(TT_LOG_WARNING, "%s: nothing has arrived on %s or %s in %u s: benches publishing "
	       "with --publish mqtt://BROKER/PREFIX send PREFIX/TARGET/events (PREFIX may hold "
	       "'/'), so the probe must end in the same number of levels (e.g. PREFIX/+ or "
	       "LAB/+/+)", s->label, s->topic_ev, s->topic_st, TT_SUB_QUIET_MS / 1000);
}

static void on_disconnect(struct mosquitto *m, void *arg, int rc, const mosquitto_property *p)
{
	struct tt_sub_mqtt *s = arg;

	(void)m;
	(void)p;
	tt_mqtt_conn_error(&s->mc, rc ? rc : MOSQ_ERR_CONN_LOST, "disconnected");
}

static void free_benches(struct tt_sub_mqtt *s)
{
	for (size_t i = 0; i < s->nbenches; i++)
		free(s->benches[i]);
	free(s->benches);
	free(s->bench_logged);
}

static void on_closed(struct tt_mqtt_conn *mc)
{
	struct tt_sub_mqtt *s = (struct tt_sub_mqtt *)mc;

	for (size_t i = 0; i < s->nremotes; i++)
		free(s->remotes[i]);
	free_benches(s);
	free(s->recs);
	free(s);
}

static int copy_benches(struct tt_sub_mqtt *s, const struct tt_sub_mqtt_opts *o)
{
	s->bench_targets = o->bench_targets ? o->bench_targets : TT_SUB_BENCH_TARGETS;
	if (!o->nbenches)
		return 0;
	if (!(s->benches = calloc(o->nbenches, sizeof(char *))) ||
	    !(s->bench_logged = calloc(o->nbenches, sizeof(*s->bench_logged))))
		return -ENOMEM;
	for (; s->nbenches < o->nbenches; s->nbenches++)
		if (!(s->benches[s->nbenches] = strdup(o->benches[s->nbenches])))
			return -ENOMEM;
	return 0;
}

int tt_sub_mqtt_new(uv_loop_t *loop, struct tt_server *srv, const char *url,
		    const struct tt_sub_mqtt_opts *o, struct tt_sub_mqtt **out, char *err,
		    size_t errlen)
{
	static unsigned made; /* subscriptions made by this process (loop thread only) */
	struct tt_sub_mqtt *s = calloc(1, sizeof(*s));
	char id[128], host[64], shown[512];
	int rc;

	if (!s || !(s->recs = calloc(MAX_BATCH, sizeof(*s->recs))) || copy_benches(s, o) < 0) {
		if (s)
			free_benches(s);
		free(s ? s->recs : NULL);
		free(s);
		return -ENOMEM;
	}
	s->srv = srv;
	if ((rc = tt_mqtt_url_parse("probe", url, &s->url, err, errlen)) < 0)
		goto fail;
	rc = -EINVAL;
	if (!strchr(s->url.path, '/')) {
		snprintf(err, errlen, "probe '%s': expected .../PREFIX/TARGET (TARGET may be +)",
			 tt_log_url(url, shown, sizeof(shown)));
		goto fail;
	}
	/* the label names the subscription without its password */
	snprintf(s->label, sizeof(s->label), "mqtt%s://%s:%d/%s", s->url.tls ? "s" : "",
		 s->url.host, s->url.port, s->url.path);
	snprintf(s->topic_ev, sizeof(s->topic_ev), "%s/events", s->url.path);
	snprintf(s->topic_st, sizeof(s->topic_st), "%s/status", s->url.path);
	snprintf(s->topic_al, sizeof(s->topic_al), "%s/alerts", s->url.path);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "host");
	host[sizeof(host) - 1] = 0;
	/* one id per subscription: a broker disconnects a client when another takes its id */
	snprintf(id, sizeof(id), "tracetapd-%s-%ld-sub%u", host, (long)getpid(), made++);
	if (!(s->mc.m = tt_mqtt_client_new(id, s, &s->url, o->ca, o->cert, o->key))) {
		snprintf(err, errlen, "probe '%s': cannot set up the MQTT client", s->label);
		goto fail;
	}
	mosquitto_connect_v5_callback_set(s->mc.m, on_connect);
	mosquitto_disconnect_v5_callback_set(s->mc.m, on_disconnect);
	mosquitto_message_v5_callback_set(s->mc.m, on_message);
	mosquitto_subscribe_v5_callback_set(s->mc.m, on_subscribe);
	s->mc.loop = loop;
	s->mc.url = &s->url;
	s->mc.keepalive = 10;
	s->mc.label = s->label;
	s->mc.closed = on_closed;
	s->mc.tick = on_tick;
	tt_mqtt_conn_start(&s->mc);
	*out = s;
	return 0;
fail:
	tt_mqtt_url_free(&s->url);
	free_benches(s);
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
