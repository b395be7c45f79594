/* daemon/fleet.c: tracetapd's MQTT links (fleet.h). */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "target_fields.h"
#include "tt_config.h"
#if TT_HAVE_MQTT
#include "publish_mqtt.h"
#include "subscribe_mqtt.h"
#endif

static bool is_probe(const char *probe)
{
	return probe && (!strncmp(probe, "mqtt://", 7) || !strncmp(probe, "mqtts://", 8));
}

/* What a reload compares: --publish and the mqtt_* files. */
static void settings(const struct tt_server_config *sc, const char *v[4])
{
	v[0] = sc->publish;
	v[1] = sc->mqtt_ca;
	v[2] = sc->mqtt_cert;
	v[3] = sc->mqtt_key;
}

static bool running_probe(const struct tt_fleet *f, const char *probe)
{
	for (size_t i = 0; i < f->nsubs; i++)
		if (!strcmp(f->probes[i], probe))
			return true;
	return false;
}

static void forget(struct tt_fleet *f)
{
	for (size_t i = 0; i < f->nsubs; i++)
		free(f->probes[i]);
	f->nsubs = 0;
	for (size_t i = 0; i < 4; i++) {
		free(f->running[i]);
		f->running[i] = NULL;
	}
}

#if TT_HAVE_MQTT
int tt_fleet_publish(struct tt_fleet *f, uv_loop_t *loop, const struct tt_server_config *sc,
		     struct tt_stats *(*stats_of)(void *arg, const char *target), void *arg)
{
	struct tt_pub_mqtt_config pc = { .url = sc->publish, .ca = sc->mqtt_ca,
					 .cert = sc->mqtt_cert, .key = sc->mqtt_key, .qos = 1,
					 .stats_of = stats_of, .stats_arg = arg };
	char err[512];

	if (!sc->publish)
		return 0;
	if (tt_pub_mqtt_new(loop, &pc, &f->pub, err, sizeof(err)) < 0) {
		tt_log(TT_LOG_ERR, "%s", err);
		return -1;
	}
	return 0;
}

void tt_fleet_attach(struct tt_fleet *f, struct tt_hub *hub, const char *name)
{
	char err[300];

	if (f->pub && tt_pub_mqtt_add_hub(f->pub, hub, err, sizeof(err)) < 0)
		tt_log(TT_LOG_ERR, "target %s: not published: %s", name, err);
}

int tt_fleet_probe(struct tt_fleet *f, uv_loop_t *loop, struct tt_server *srv,
		   const struct tt_server_config *sc, const struct tt_target_config *cfg)
{
	struct tt_sub_mqtt_opts o = { .ca = sc->mqtt_ca, .cert = sc->mqtt_cert,
				      .key = sc->mqtt_key, .benches = sc->mqtt_benches,
				      .nbenches = sc->nmqtt_benches,
				      .bench_targets = sc->mqtt_bench_targets };
	char err[512], shown[512];

	if (!is_probe(cfg->probe))
		return 0;
	if (running_probe(f, cfg->probe))
		return 1;
	if (!srv || f->nsubs == TT_MAX_TARGETS) {
		tt_log(TT_LOG_ERR, "probe %s: needs the server (remote targets are its hubs)%s",
		       tt_log_url(cfg->probe, shown, sizeof(shown)),
		       f->nsubs == TT_MAX_TARGETS ? ", and fewer subscriptions" : "");
		return -1;
	}
	if (!(f->probes[f->nsubs] = strdup(cfg->probe)))
		return -1;
	if (tt_sub_mqtt_new(loop, srv, cfg->probe, &o, &f->subs[f->nsubs], err, sizeof(err)) < 0) {
		tt_log(TT_LOG_ERR, "%s", err);
		free(f->probes[f->nsubs]);
		return -1;
	}
	f->nsubs++;
	if (f->started)
		tt_log(TT_LOG_NOTICE, "reload: target %s: subscribed to %s", cfg->name,
		       tt_log_url(cfg->probe, shown, sizeof(shown)));
	return 1;
}

void tt_fleet_stop(struct tt_fleet *f)
{
	tt_pub_mqtt_stop(f->pub);
	f->pub = NULL;
	for (size_t i = 0; i < f->nsubs; i++)
		tt_sub_mqtt_stop(f->subs[i]);
	forget(f);
}
#else
int tt_fleet_publish(struct tt_fleet *f, uv_loop_t *loop, const struct tt_server_config *sc,
		     struct tt_stats *(*stats_of)(void *arg, const char *target), void *arg)
{
	(void)stats_of;
	(void)arg;
	if (!sc->publish)
		return 0;
	tt_log(TT_LOG_ERR, "--publish: built without libmosquitto (libmosquitto-dev)");
	return -1;
}

void tt_fleet_attach(struct tt_fleet *f, struct tt_hub *hub, const char *name)
{
}

int tt_fleet_probe(struct tt_fleet *f, uv_loop_t *loop, struct tt_server *srv,
		   const struct tt_server_config *sc, const struct tt_target_config *cfg)
{
	char shown[512];

	if (!is_probe(cfg->probe))
		return 0;
	tt_log(TT_LOG_ERR, "probe %s: built without libmosquitto",
	       tt_log_url(cfg->probe, shown, sizeof(shown)));
	return -1;
}

void tt_fleet_stop(struct tt_fleet *f)
{
	forget(f);
}
#endif

void tt_fleet_started(struct tt_fleet *f, const struct tt_server_config *sc)
{
	const char *v[4];

	settings(sc, v);
	for (size_t i = 0; i < 4; i++)
		if (v[i] && !(f->running[i] = strdup(v[i])))
			tt_log(TT_LOG_WARNING, "out of memory: a reload cannot tell MQTT changes");
	f->started = true;
}

static bool wanted_probe(const struct tt_target_config *t, size_t n, const char *flag_probe,
			 const char *probe)
{
	if (tt_field_str_eq(flag_probe, probe))
		return true;
	for (size_t i = 0; i < n; i++)
		if (tt_field_str_eq(t[i].probe, probe))
			return true;
	return false;
}

void tt_fleet_reload(const struct tt_fleet *f, const struct tt_server_config *sc,
		     const struct tt_target_config *t, size_t n, const char *flag_probe)
{
	static const char *const key[4] = { "publish", "mqtt_ca", "mqtt_cert", "mqtt_key" };
	const char *v[4];
	char shown[512];

	settings(sc, v);
	for (size_t i = 0; i < 4; i++)
		if (!tt_field_str_eq(f->running[i], v[i]))
			tt_log(TT_LOG_WARNING, "reload: %s changed: %s until tracetapd restarts",
			       key[i], i ? "the running MQTT links keep the old one" : "not applied");
	for (size_t i = 0; i < f->nsubs; i++)
		if (!wanted_probe(t, n, flag_probe, f->probes[i]))
			tt_log(TT_LOG_WARNING, "reload: probe %s: no longer configured, still "
			       "subscribed until tracetapd restarts",
			       tt_log_url(f->probes[i], shown, sizeof(shown)));
}
