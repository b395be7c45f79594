/* daemon/fleet.c: tracetapd's MQTT links (fleet.h). */
#include "fleet.h"

#include <string.h>

#include "log.h"
#include "tt_config.h"
#if TT_HAVE_MQTT
#include "publish_mqtt.h"
#include "subscribe_mqtt.h"
#endif

#if TT_HAVE_MQTT
int tt_fleet_publish(struct tt_fleet *f, uv_loop_t *loop, const struct tt_server_config *sc,
		     bool no_server)
{
	struct tt_pub_mqtt_config pc = { .url = sc->publish, .ca = sc->mqtt_ca,
					 .cert = sc->mqtt_cert, .key = sc->mqtt_key, .qos = 1 };
	char err[512];

	if (!sc->publish)
		return 0;
	if (no_server) {
		tt_log(TT_LOG_ERR, "--publish needs the server: drop --no-server");
		return -1;
	}
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
	char err[512];

	if (!tt_sub_mqtt_is_probe(cfg->probe))
		return 0;
	if (f->started)
		return 1;
	if (!srv || f->nsubs == TT_MAX_TARGETS) {
		tt_log(TT_LOG_ERR, "probe %s: needs the server (remote targets are its hubs)%s",
		       cfg->probe, f->nsubs == TT_MAX_TARGETS ? ", and fewer subscriptions" : "");
		return -1;
	}
	if (tt_sub_mqtt_new(loop, srv, cfg->probe, sc->mqtt_ca, sc->mqtt_cert, sc->mqtt_key,
			    &f->subs[f->nsubs], err, sizeof(err)) < 0) {
		tt_log(TT_LOG_ERR, "%s", err);
		return -1;
	}
	f->nsubs++;
	return 1;
}

void tt_fleet_stop(struct tt_fleet *f)
{
	tt_pub_mqtt_stop(f->pub);
	f->pub = NULL;
	for (size_t i = 0; i < f->nsubs; i++)
		tt_sub_mqtt_stop(f->subs[i]);
	f->nsubs = 0;
}
#else
int tt_fleet_publish(struct tt_fleet *f, uv_loop_t *loop, const struct tt_server_config *sc,
		     bool no_server)
{
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
	if (!cfg->probe || strncmp(cfg->probe, "mqtt", 4))
		return 0;
	if (f->started)
		return 1;
	tt_log(TT_LOG_ERR, "probe %s: built without libmosquitto", cfg->probe);
	return -1;
}

void tt_fleet_stop(struct tt_fleet *f)
{
}
#endif
