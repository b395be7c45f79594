/* daemon/subscribe_mqtt.h: remote targets from an MQTT broker, made local (the probe
 * `mqtt://[user:pass@]host[:port]/PREFIX/TARGET`, TARGET may be `+`).
 *
 * Each remote target that publishes (publish_mqtt.h) becomes a hub of srv named BENCH/TARGET,
 * numbered by that hub; losses become exact gap records, repeats are dropped, a restarted
 * publisher is a reset record, malformed messages and numbers out of range are dropped whole
 * and counted (rules: proto/PROTOCOL.md "MQTT"). A message is checked whole before a target is
 * made for it, and only for a bench the operator allowed, up to a cap per bench. Every function runs on the loop thread.
 */
#ifndef TT_SUBSCRIBE_MQTT_H
#define TT_SUBSCRIBE_MQTT_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

struct tt_server;
struct tt_sub_mqtt;

/* Which remote targets a subscription may make (strings copied). */
struct tt_sub_mqtt_opts {
	const char *ca, *cert, *key;          /* for mqtts (may be NULL) */
	const char *const *benches;           /* the BENCH names allowed; none: any */
	size_t nbenches;
	unsigned bench_targets;               /* remote targets per bench; 0: TT_SUB_BENCH_TARGETS */
};
#define TT_SUB_BENCH_TARGETS 16

/* Subscribes to url (mqtt[s]://...); remote targets become hubs of srv as they appear, when
 * opts allow them. 0, or -EINVAL/-ENOMEM with what is wrong in err (the URL without its
 * password). */
int tt_sub_mqtt_new(uv_loop_t *loop, struct tt_server *srv, const char *url,
		    const struct tt_sub_mqtt_opts *opts, struct tt_sub_mqtt **out, char *err,
		    size_t errlen);
/* Messages dropped (malformed, out of range, or for a target not allowed), over all remote
 * targets (tests, logs). Per target: its status's `dropped`; the rest: /metrics. */
unsigned long long tt_sub_mqtt_bad(const struct tt_sub_mqtt *s);
/* Disconnects and closes; the hubs stay with the server. Frees s once the loop closed its
 * handles. */
void tt_sub_mqtt_stop(struct tt_sub_mqtt *s);

#endif
