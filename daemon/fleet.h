/* daemon/fleet.h: tracetapd's MQTT links. --publish: every supervisor's hub to a broker (a hub
 * consumer like the server); mqtt:// probes: remote targets, each a hub of the server. Built
 * without libmosquitto, each entry point refuses what asks for MQTT with a logged reason.
 * Loop thread only. */
#ifndef TT_FLEET_H
#define TT_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "hub.h"
#include "server.h"
#include "target.h"

struct tt_fleet {
	struct tt_pub_mqtt *pub;                     /* NULL: no --publish */
	struct tt_sub_mqtt *subs[TT_MAX_TARGETS]; /* one per mqtt:// probe */
	char *probes[TT_MAX_TARGETS];             /* subs[i]'s probe as given (owned) */
	size_t nsubs;
	char *running[4]; /* publish, mqtt_ca, mqtt_cert, mqtt_key as started (owned, NULL: none) */
	bool started; /* the start's links are made */
};

/* --publish of sc, if any: 0, or -1 logged (a bad URL, no libmosquitto). stats_of(arg, target):
 * a target's live analysis for its stats topic (NULL: none). */
struct tt_stats;
int tt_fleet_publish(struct tt_fleet *f, uv_loop_t *loop, const struct tt_server_config *sc,
		     struct tt_stats *(*stats_of)(void *arg, const char *target), void *arg);
/* Publishes hub (target name) too, when --publish is on; a failure is logged. */
void tt_fleet_attach(struct tt_fleet *f, struct tt_hub *hub, const char *name);
/* 0: cfg is not an mqtt:// probe; 1: it is (subscribed now, or already: a reload subscribes to
 * a probe it adds); -1: one that cannot start (logged). srv NULL: no server. */
int tt_fleet_probe(struct tt_fleet *f, uv_loop_t *loop, struct tt_server *srv,
		   const struct tt_server_config *sc, const struct tt_target_config *cfg);
/* The start's links are made (sc: the settings they were made with); tt_fleet_reload compares
 * with these. */
void tt_fleet_started(struct tt_fleet *f, const struct tt_server_config *sc);
/* A reload adds subscriptions (tt_fleet_probe) but drops none and remakes no link: logs, as a
 * warning, each other difference between the new configuration (sc, its targets t[0..n), and
 * flag_probe, the --probe flag's or NULL) and the running links (--publish and the mqtt_* files
 * changed, mqtt:// probes removed). */
void tt_fleet_reload(const struct tt_fleet *f, const struct tt_server_config *sc,
		     const struct tt_target_config *t, size_t n, const char *flag_probe);
/* Before the hubs go: the publisher's hub clients first, then the subscriptions. */
void tt_fleet_stop(struct tt_fleet *f);

#endif
