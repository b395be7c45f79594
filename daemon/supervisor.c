/* daemon/supervisor.c: one target's probe and reader, hub, restarts (supervisor.h). */
#include "supervisor.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "stackread.h"
#include "stats.h"
#include "target_fields.h"

struct tt_sup {
	const struct tt_sup_env *env;
	char name[64];
	struct tt_target *t;        /* NULL while stopped/restarting */
	struct tt_target_config cfg; /* what t runs with (strings in cfg_mem: a reload frees the
					configuration they came from while t may still stop) */
	char *cfg_mem, *pending_mem;
	struct tt_hub *hub;
	uv_idle_t flush;            /* flushes the hub once per loop iteration while records wait */
	bool closing;
	struct tt_target_config pending; /* restart with this once t has stopped (pending_mem) */
	int restart;
	bool stopping;              /* t is stopping (on_target_stopped clears it) */
	char serial[128];           /* bound to this probe serial ("adapter serial ..."), or "" */
	int present;                /* the bound probe is plugged in (or no watcher runs) */
	struct tt_target_status idle; /* what clients see while t is NULL */
	struct tt_stats *stats;     /* the live analysis of what the hub stores */
};

#define FIELD(c, f) ((char *)(c) + (f)->off)

/* A copy of c whose strings and argument arrays (target_fields.h) live in one block (*mem,
 * for free()). */
static int cfg_dup(const struct tt_target_config *c, struct tt_target_config *out, char **mem)
{
	size_t size = 0, nptr = 0;
	const char **ptrs;
	char *p;

	*out = *c;
	for (const struct tt_target_field *f = tt_target_fields;
	     f < tt_target_fields + tt_target_nfields; f++) {
		if (f->type == TT_FIELD_STR && *(const char **)FIELD(c, f))
			size += strlen(*(const char **)FIELD(c, f)) + 1;
		if (f->type != TT_FIELD_ARGV)
			continue;
		for (const char *const *a = *(const char *const **)FIELD(c, f); a && *a; a++)
			size += strlen(*a) + 1, nptr++;
		nptr++; /* the NULL */
	}
	if (!(*mem = malloc(nptr * sizeof(char *) + size + 1)))
		return -ENOMEM;
	ptrs = (const char **)*mem;
	p = *mem + nptr * sizeof(char *);
	for (const struct tt_target_field *f = tt_target_fields;
	     f < tt_target_fields + tt_target_nfields; f++) {
		if (f->type == TT_FIELD_STR && *(const char **)FIELD(out, f)) {
			const char *src = *(const char **)FIELD(out, f);
			*(const char **)FIELD(out, f) = p;
			p = stpcpy(p, src) + 1;
		}
		if (f->type != TT_FIELD_ARGV || !*(const char *const **)FIELD(out, f))
			continue;
		const char *const *a = *(const char *const **)FIELD(out, f);
		*(const char ***)FIELD(out, f) = ptrs;
		for (; *a; a++) {
			*ptrs++ = p;
			p = stpcpy(p, *a) + 1;
		}
		*ptrs++ = NULL;
	}
	return 0;
}

/* Sets *dst (and its block *mem) to a copy of src; on failure both stay as they were. */
static int cfg_set(struct tt_target_config *dst, char **mem, const struct tt_target_config *src)
{
	struct tt_target_config c;
	char *m;

	if (src == dst)
		return 0;
	if (cfg_dup(src, &c, &m) < 0)
		return -ENOMEM;
	free(*mem);
	*dst = c;
	*mem = m;
	return 0;
}

const struct tt_target_status *tt_sup_status(const struct tt_sup *s)
{
	return s->t ? tt_target_status(s->t) : &s->idle;
}

static const struct tt_target_status *hub_status(void *arg)
{
	return tt_sup_status(arg);
}

/* An export of the hub's history: the reader adds what records do not carry (.trx registry). */
static void hub_export_prepare(void *arg, struct tt_export *e)
{
	struct tt_sup *s = arg;
	if (s->t)
		tt_target_export_prepare(s->t, e);
}

static void on_flush(uv_idle_t *h)
{
	struct tt_sup *s = h->data;

	tt_hub_flush(s->hub);
	uv_idle_stop(h);
	if (tt_log_level >= TT_LOG_DEBUG) { /* the batch's publication (bench/README.md, stages) */
		struct tt_hub_stats st;
		tt_hub_get_stats(s->hub, &st);
		tt_log(TT_LOG_DEBUG, "target %s: stage flush to=%" PRIu64 " t=%" PRIu64, s->name,
		       st.last_seq, uv_hrtime());
	}
}

static void need_flush(void *arg)
{
	struct tt_sup *s = arg;

	if (!s->closing)
		uv_idle_start(&s->flush, on_flush);
}

static void set_idle(struct tt_sup *s, enum tt_target_state st, const char *msg)
{
	memset(&s->idle, 0, sizeof(s->idle));
	s->idle.state = st;
	snprintf(s->idle.message, sizeof(s->idle.message), "%.255s", msg);
	tt_hub_status_changed(s->hub);
	if (s->env->on_state)
		s->env->on_state(s, &s->idle, s->env->arg);
}

/* A target whose OpenOCD arguments select a probe by serial ("-c 'adapter serial X'", as
 * `tracetap probes` prints) is bound to that probe: it runs only while the probe is plugged in. */
static void bind_serial(struct tt_sup *s, const struct tt_target_config *cfg)
{
	s->serial[0] = 0;
	for (const char *const *a = cfg->openocd_args; a && *a && a[1]; a++) {
		const char *v = a[1];
		if (strcmp(*a, "-c") || strncmp(v, "adapter serial ", 15))
			continue;
		v += 15;
		while (*v == ' ' || *v == '"' || *v == '{')
			v++;
		snprintf(s->serial, sizeof(s->serial), "%s", v);
		size_t n = strlen(s->serial);
		while (n && (s->serial[n - 1] == '"' || s->serial[n - 1] == '}' ||
			     s->serial[n - 1] == ' '))
			s->serial[--n] = 0;
	}
}

static void on_record(struct tt_target *t, const struct tt_record *rec, void *arg)
{
	struct tt_sup *s = arg;
	uint64_t seq = tt_hub_publish(s->hub, rec);

	/* what the hub stored (and /api/export gives): /api/stats is its analysis */
	if (seq)
		tt_stats_record(s->stats, tt_target_reader(t), rec, seq);
	if (s->env->on_record)
		s->env->on_record(s, seq, rec, s->env->arg);
}

static void on_status(struct tt_target *t, void *arg)
{
	struct tt_sup *s = arg;
	const struct tt_target_status *st = tt_target_status(t);

	tt_log(st->state == TT_TARGET_CONNECTED ? TT_LOG_INFO : TT_LOG_NOTICE, "target %s: %s: %s",
	       s->name, tt_target_state_name(st->state), st->message);
	tt_hub_status_changed(s->hub);
	if (s->env->on_state)
		s->env->on_state(s, st, s->env->arg);
}

static int start(struct tt_sup *s, const struct tt_target_config *cfg)
{
	char err[512];

	if (cfg_set(&s->cfg, &s->cfg_mem, cfg) < 0) {
		tt_log(TT_LOG_ERR, "target %s: out of memory", s->name);
		return -ENOMEM;
	}
	cfg = &s->cfg;
	bind_serial(s, cfg);
	if (s->serial[0] && s->env->usb && !s->present) {
		snprintf(err, sizeof(err), "waiting for probe with serial %s to be plugged in",
			 s->serial);
		set_idle(s, TT_TARGET_DISCONNECTED, err);
		tt_log(TT_LOG_NOTICE, "target %s: %s", s->name, err);
		return 0;
	}
	int rc = tt_target_start(s->env->loop, cfg, on_record, on_status, s, &s->t, err,
				 sizeof(err));
	if (rc < 0) {
		s->t = NULL;
		tt_log(TT_LOG_ERR, "target %s: %s", s->name, err);
		set_idle(s, TT_TARGET_STOPPED, err);
	}
	tt_hub_status_changed(s->hub);
	return rc;
}

int tt_sup_start(struct tt_sup *s)
{
	return start(s, &s->cfg);
}

static void on_target_stopped(struct tt_target *t, void *arg)
{
	struct tt_sup *s = arg;

	(void)t;
	s->t = NULL;
	s->stopping = false;
	if (!s->restart && s->idle.state != TT_TARGET_DISCONNECTED)
		set_idle(s, TT_TARGET_STOPPED, "stopped");
	if (s->restart && !s->env->stopping) {
		s->restart = 0;
		tt_log(TT_LOG_NOTICE, "target %s: configuration changed: restarting", s->name);
		start(s, &s->pending);
	} else if (!s->env->stopping) {
		tt_hub_status_changed(s->hub);
	}
}

int tt_sup_new(const struct tt_sup_env *env, const struct tt_target_config *cfg,
	       struct tt_sup **out)
{
	struct tt_sup *s = calloc(1, sizeof(*s));
	char fmt[32]; /* hc.format is copied by the hub (tt_hub_config) */
	struct tt_hub_config hc = env->hub;
	int rc = -ENOMEM;

	if (!s)
		return -ENOMEM;
	s->env = env;
	snprintf(s->name, sizeof(s->name), "%s", cfg->name ? cfg->name : "target");
	s->idle.state = TT_TARGET_ATTACHING;
	snprintf(s->idle.message, sizeof(s->idle.message), "starting");
	hc.target = s->name;
	hc.format = tt_target_format_name(cfg, fmt, sizeof(fmt));
	hc.probe = cfg->probe;
	hc.status = hub_status;
	hc.status_arg = s;
	hc.need_flush = need_flush;
	hc.need_flush_arg = s;
	hc.export_prepare = hub_export_prepare;
	hc.export_prepare_arg = s;
	if (cfg_set(&s->cfg, &s->cfg_mem, cfg) < 0 || tt_stats_new(&s->stats) < 0 ||
	    (rc = tt_hub_new(&hc, &s->hub)) < 0) {
		tt_stats_free(s->stats);
		free(s->cfg_mem);
		free(s);
		return rc;
	}
	bind_serial(s, &s->cfg);
	uv_idle_init(env->loop, &s->flush);
	s->flush.data = s;
	*out = s;
	return 0;
}

void tt_sup_reload(struct tt_sup *s, const struct tt_target_config *want)
{
	/* a target still stopping from an earlier reload compares with what it restarts as;
	 * one stopping for good (removed, unplugged) needs a restart even if unchanged */
	if (want && s->t && (s->restart || !s->stopping) &&
	    !tt_target_fields_differ(want, s->restart ? &s->pending : &s->cfg))
		return;
	if (s->t) {
		if (want && cfg_set(&s->pending, &s->pending_mem, want) < 0) {
			tt_log(TT_LOG_ERR, "target %s: out of memory: not restarted", s->name);
			return;
		}
		s->restart = want != NULL;
		tt_log(TT_LOG_NOTICE, "target %s: %s", s->name,
		       want ? "changed" : "removed from the configuration: stopping");
		s->stopping = true;
		tt_target_stop(s->t, on_target_stopped, s); /* once: a second call waits too */
	} else if (want) {
		start(s, want);
	}
}

void tt_sup_probe(struct tt_sup *s, bool arrived, const char *serial, const char *model)
{
	char msg[256];

	s->present = arrived;
	if (arrived && !s->t) {
		tt_log(TT_LOG_NOTICE, "target %s: probe %s (%s) plugged in: starting", s->name,
		       serial, model ? model : "?");
		start(s, &s->cfg);
	} else if (!arrived && s->t) {
		snprintf(msg, sizeof(msg), "probe %s unplugged", serial);
		tt_log(TT_LOG_NOTICE, "target %s: %s", s->name, msg);
		s->restart = 0;
		set_idle(s, TT_TARGET_DISCONNECTED, msg);
		s->stopping = true;
		tt_target_stop(s->t, on_target_stopped, s);
	}
}

void tt_sup_stop(struct tt_sup *s)
{
	if (s->t)
		tt_target_stop(s->t, on_target_stopped, s);
	if (!s->closing)
		uv_close((uv_handle_t *)&s->flush, NULL);
	s->closing = true;
}

void tt_sup_free(struct tt_sup *s)
{
	if (!s)
		return;
	tt_stats_free(s->stats); /* its last stats frame back before the hub drains the pool */
	tt_hub_free(s->hub);
	free(s->cfg_mem);
	free(s->pending_mem);
	free(s);
}

int tt_sup_halt(struct tt_sup *s, const char *by)
{
	return s->t ? tt_target_halt(s->t, by) : -ENOTCONN;
}

struct tt_stats *tt_sup_stats(struct tt_sup *s)
{
	if (s->t) {
		tt_stats_refresh(s->stats, tt_target_reader(s->t), tt_target_reader_state(s->t));
		const struct tt_stackread *sr = tt_target_stacks(s->t);
		struct tt_analysis_scan_cost cost;
		if (sr) {
			tt_stackread_cost(sr, uv_now(s->env->loop), &cost);
			tt_stats_stacks(s->stats, tt_stackread_scan(sr), &cost);
		}
	}
	return s->stats;
}

const char *tt_sup_name(const struct tt_sup *s)
{
	return s->name;
}

const char *tt_sup_serial(const struct tt_sup *s)
{
	return s->serial;
}

struct tt_hub *tt_sup_hub(const struct tt_sup *s)
{
	return s->hub;
}
