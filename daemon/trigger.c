/* daemon/trigger.c: the trigger engine (trigger.h): every target's records and state changes
 * checked against the triggers; a trigger that holds, and is neither held off nor over its
 * limit, fires: the log says so, an `alert` message goes to the target's hub (so to every
 * client, MQTT included), /metrics counts it, and its actions start (capture: trigger_capture.c;
 * halt through the daemon's hook; a command).
 */
#include "trigger_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../proto/json.h"
#include "hub.h"
#include "log.h"
#include "target.h"

/* Samples of (seq, time) 1/512 of the longest `before` apart: the ring covers it twice. */
static void set_sample_ms(struct tt_trig *t)
{
	t->sample_ms = 1;
	for (size_t i = 0; i < t->set.n; i++)
		if (t->set.defs[i].before_ms / (TRIG_SAMPLES / 2) > t->sample_ms)
			t->sample_ms = t->set.defs[i].before_ms / (TRIG_SAMPLES / 2);
}

int tt_trig_new(uv_loop_t *loop, struct tt_trig_set *set, tt_trig_halt_fn halt, void *halt_arg,
		struct tt_trig **out)
{
	struct tt_trig *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->loop = loop;
	t->set = *set;
	tt_trig_set_init(set);
	t->halt = halt;
	t->halt_arg = halt_arg;
	uv_timer_init(loop, &t->timer);
	t->timer.data = t;
	t->handles = 1;
	set_sample_ms(t);
	if (t->set.n)
		tt_log(TT_LOG_NOTICE, "triggers: %zu configured%s%s", t->set.n,
		       t->set.capture_dir[0] ? ", captures in " : "", t->set.capture_dir);
	*out = t;
	return 0;
}

bool tt_trig_active(const struct tt_trig *t)
{
	return t && t->set.n;
}

void tt_trig_reload(struct tt_trig *t, struct tt_trig_set *set)
{
	uint64_t fired[TT_TRIG_MAX] = { 0 };

	/* counts and hold-offs follow their trigger's name */
	for (size_t g = 0; g < t->ntgts; g++) {
		struct trig_count c[TT_TRIG_MAX] = { { 0 } };
		for (size_t i = 0; i < set->n; i++)
			for (size_t j = 0; j < t->set.n; j++)
				if (!strcmp(set->defs[i].name, t->set.defs[j].name))
					c[i] = t->tgts[g]->count[j];
		memcpy(t->tgts[g]->count, c, sizeof(c));
	}
	for (size_t i = 0; i < set->n; i++)
		for (size_t j = 0; j < t->set.n; j++)
			if (!strcmp(set->defs[i].name, t->set.defs[j].name))
				fired[i] = t->fired[j];
	memcpy(t->fired, fired, sizeof(fired));
	tt_trig_set_free(&t->set);
	t->set = *set;
	tt_trig_set_init(set);
	set_sample_ms(t);
	tt_log(TT_LOG_NOTICE, "triggers: %zu configured%s%s", t->set.n,
	       t->set.capture_dir[0] ? ", captures in " : "", t->set.capture_dir);
}

static struct trig_tgt *tgt_of(struct tt_trig *t, struct tt_hub *hub)
{
	struct trig_tgt *g;

	for (size_t i = 0; i < t->ntgts; i++)
		if (t->tgts[i]->hub == hub)
			return t->tgts[i];
	if (t->ntgts == TRIG_TARGETS || !(g = calloc(1, sizeof(*g))))
		return NULL;
	g->hub = hub;
	g->state = -1;
	/* The statistics of a target first seen now start from zero for the triggers configured
	 * now: what its analysis counts from its first record on is new to them (a trigger added
	 * later by a reload starts from the sample it first sees). */
	for (size_t i = 0; i < TT_TRIG_MAX; i++)
		g->count[i].stat = (struct tt_trig_stat_state){ .primed = true, .ms = uv_now(t->loop) };
	t->tgts[t->ntgts++] = g;
	return g;
}

int tt_trig_alert_json(char *buf, size_t cap, const struct tt_trig_alert *a)
{
	char name[TT_TRIG_NAME_MAX * 6 + 3], cond[TT_TRIG_COND_MAX * 6 + 3], cap_j[1210];
	char detail[1810], tj[TT_JSON_MAX_NAME * 6 + 3], when[64 * 6 + 3];
	int nl = tt_json_string(name, sizeof(name), a->trigger, TT_TRIG_NAME_MAX);
	int cl = tt_json_string(cond, sizeof(cond), a->condition, TT_TRIG_COND_MAX);
	int tl = tt_json_string(tj, sizeof(tj), a->target, TT_JSON_MAX_NAME);
	int wl = tt_json_string(when, sizeof(when), a->time, 64);
	int kl = a->capture ? tt_json_string(cap_j, sizeof(cap_j), a->capture, 200) : 0;
	int dl = a->detail ? tt_json_string(detail, sizeof(detail), a->detail, 300) : 0;

	if (nl < 0 || cl < 0 || tl < 0 || wl < 0 || kl < 0 || dl < 0)
		return -1;
	int n = snprintf(buf, cap, "{\"type\":\"alert\",\"target\":%.*s,\"trigger\":%.*s,"
			 "\"condition\":%.*s%s%.*s,\"seq\":%" PRIu64 ",\"count\":%" PRIu64
			 ",\"time\":%.*s%s%.*s%s%s}", tl, tj, nl, name, cl, cond,
			 a->detail ? ",\"detail\":" : "", dl, detail, a->seq, a->count, wl, when,
			 a->capture ? ",\"capture\":" : "", kl, cap_j, a->halt ? ",\"halt\":true" : "",
			 a->remote ? ",\"remote\":true" : "");
	return n > 0 && (size_t)n < cap ? n : -1;
}

/* The `alert` message (proto/PROTOCOL.md) to the target's hub. */
static void alert(struct trig_tgt *g, const struct tt_trig_def *d, uint64_t seq, uint64_t count,
		  const char *capture, const char *why)
{
	char when[40], buf[8192];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t wl = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + wl, sizeof(when) - wl, ".%03ldZ", ts.tv_nsec / 1000000);
	struct tt_trig_alert a = {
		.target = tt_hub_target(g->hub), .trigger = d->name, .condition = d->cond,
		/* a state or statistics condition says more */
		.detail = why && strcmp(why, d->cond) ? why : NULL, .capture = capture,
		.time = when, .seq = seq, .count = count, .halt = d->halt };
	int n = tt_trig_alert_json(buf, sizeof(buf), &a);
	if (n > 0 && tt_hub_alert(g->hub, buf, (size_t)n) < 0)
		tt_log(TT_LOG_ERR, "trigger %s: out of memory: alert not sent", d->name);
}

static void fire(struct tt_trig *t, struct trig_tgt *g, size_t i, uint64_t seq, const char *why)
{
	const struct tt_trig_def *d = &t->set.defs[i];
	struct trig_count *c = &g->count[i];
	uint64_t now = uv_now(t->loop);
	const char *target = tt_hub_target(g->hub);

	if (d->limit && c->fired >= d->limit) {
		t->limited++;
		return;
	}
	if (c->ever && now - c->last_ms < d->holdoff_ms) {
		t->held_off++;
		return;
	}
	c->fired++;
	c->ever = true;
	c->last_ms = now;
	t->fired[i]++;
	tt_log(TT_LOG_NOTICE, "target %s: trigger %s fired (%s) at seq %" PRIu64 "%s%s", target,
	       d->name, why, seq, d->limit && c->fired == d->limit ? ": its limit reached" : "",
	       d->capture ? ": capturing" : "");
	char capname[256] = "";
	if (d->capture && t->set.capture_dir[0])
		trig_cap_open(t, g, d, seq, capname, sizeof(capname));
	alert(g, d, seq, c->fired, capname[0] ? capname : NULL, why);
	if (d->halt) {
		char err[256] = "";
		int rc = t->halt ? t->halt(t->halt_arg, target, err, sizeof(err)) : -ENOTSUP;
		if (rc < 0) {
			t->halt_errors++;
			tt_log(TT_LOG_ERR, "target %s: trigger %s: halt failed: %s", target, d->name,
			       err[0] ? err : strerror(-rc));
		} else {
			t->halts++;
		}
	}
	if (d->ncommand && !capname[0])
		trig_command(t, d, target, seq, "");
}

void tt_trig_record(struct tt_trig *t, struct tt_hub *hub, uint64_t seq,
		    const struct tt_record *rec)
{
	struct trig_tgt *g;

	if (!t || !t->set.n || !seq || !(g = tgt_of(t, hub)))
		return;
	uint64_t now = uv_now(t->loop);
	size_t last = (g->head + TRIG_SAMPLES - 1) % TRIG_SAMPLES;
	if (!g->nsamples || now - g->samples[last].ms >= t->sample_ms) {
		g->samples[g->head].seq = seq;
		g->samples[g->head].ms = now;
		g->head = (g->head + 1) % TRIG_SAMPLES;
		g->nsamples += g->nsamples < TRIG_SAMPLES;
	}
	g->last_seq = seq;
	if (g->caps)
		trig_cap_record(t, g, seq);
	for (size_t i = 0; i < t->set.n; i++)
		if (tt_trig_match(&t->set.defs[i], tt_hub_target(hub), rec))
			fire(t, g, i, seq, t->set.defs[i].cond);
}

bool tt_trig_wants_stats(const struct tt_trig *t)
{
	for (size_t i = 0; t && i < t->set.n; i++)
		if (tt_trig_is_stat(&t->set.defs[i]))
			return true;
	return false;
}

void tt_trig_stats(struct tt_trig *t, struct tt_hub *hub, const struct tt_trig_sample *s)
{
	struct trig_tgt *g;
	char what[300], why[TT_TRIG_COND_MAX + 320];

	if (!t || !t->set.n || !(g = tgt_of(t, hub)))
		return;
	uint64_t now = uv_now(t->loop);
	for (size_t i = 0; i < t->set.n; i++) {
		const struct tt_trig_def *d = &t->set.defs[i];
		if (!tt_trig_is_stat(d) || (d->target[0] && strcmp(d->target, tt_hub_target(hub))))
			continue;
		if (!tt_trig_stat_match(d, s, now, &g->count[i].stat, what, sizeof(what)))
			continue;
		snprintf(why, sizeof(why), "%s: %s", d->cond, what);
		fire(t, g, i, g->last_seq, why);
	}
}

void tt_trig_state(struct tt_trig *t, struct tt_hub *hub, int state, const char *message)
{
	struct trig_tgt *g;
	char why[TT_TRIG_COND_MAX + 300];

	if (!t || !t->set.n || !(g = tgt_of(t, hub)) || g->state == state)
		return;
	g->state = state;
	if (state != TT_TARGET_HALTED && state != TT_TARGET_DISCONNECTED)
		return;
	uint8_t kind = state == TT_TARGET_HALTED ? TT_TRIG_HALT : TT_TRIG_DISCONNECT;
	for (size_t i = 0; i < t->set.n; i++) {
		const struct tt_trig_def *d = &t->set.defs[i];
		if (d->kind != kind || (d->target[0] && strcmp(d->target, tt_hub_target(hub))))
			continue;
		snprintf(why, sizeof(why), "%s: %.255s", d->cond, message ? message : "");
		fire(t, g, i, g->last_seq, why);
	}
}

/* A trigger name as a label value: names are [A-Za-z0-9_.-] (tt_trig_check), nothing to
 * escape, and at most TT_TRIG_MAX of them: the cardinality is bounded. */
void tt_trig_metrics(const struct tt_trig *t, int (*put)(void *arg, const void *buf, size_t len),
		     void *arg)
{
	char buf[512];
	int n;

#define OUT(...) do { n = snprintf(buf, sizeof(buf), __VA_ARGS__); \
		      if (n > 0 && (size_t)n < sizeof(buf)) put(arg, buf, (size_t)n); } while (0)
	OUT("# HELP tracetap_trigger_fired_total Triggers fired (every target together)\n"
	    "# TYPE tracetap_trigger_fired_total counter\n");
	for (size_t i = 0; t && i < t->set.n; i++)
		OUT("tracetap_trigger_fired_total{trigger=\"%s\"} %" PRIu64 "\n",
		    t->set.defs[i].name, t->fired[i]);
	static const char *const m[][2] = {
		{ "tracetap_trigger_suppressed_total", "Conditions met while held off or over the limit" },
		{ "tracetap_captures_total", "Captures written" },
		{ "tracetap_captures_removed_total", "Captures removed for the size and count limits" },
		{ "tracetap_capture_errors_total", "Captures that could not be written" },
		{ "tracetap_trigger_commands_total", "Trigger commands run" },
		{ "tracetap_trigger_halts_total", "Halts asked of a target's probe by a trigger" },
	};
	uint64_t v[] = { t ? t->held_off + t->limited : 0, t ? t->captures : 0, t ? t->removed : 0,
			 t ? t->capture_errors : 0, t ? t->commands : 0, t ? t->halts : 0 };
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
		OUT("# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", m[k][0], m[k][1], m[k][0],
		    m[k][0], v[k]);
#undef OUT
}

void trig_handle_gone(struct tt_trig *t)
{
	if (--t->handles)
		return;
	for (size_t i = 0; i < t->ntgts; i++)
		free(t->tgts[i]);
	tt_trig_set_free(&t->set);
	free(t);
}

static void on_closed(uv_handle_t *h)
{
	trig_handle_gone(h->data);
}

void tt_trig_stop(struct tt_trig *t)
{
	if (!t || t->stopping)
		return;
	t->stopping = true;
	for (size_t i = 0; i < t->ntgts; i++)
		trig_cap_tick(t, t->tgts[i], true);
	trig_commands_kill(t);
	uv_close((uv_handle_t *)&t->timer, on_closed);
}
