/* daemon/subscribe_mqtt.h: remote targets from an MQTT broker, made local (the probe
 * `mqtt://[user:pass@]host[:port]/PREFIX/TARGET`, TARGET may be `+`).
 *
 * Each remote target that publishes (publish_mqtt.h) becomes a hub of srv named BENCH/TARGET,
 * numbered by that hub; losses become exact gap records, repeats are dropped, a restarted
 * publisher is a reset record, malformed messages are dropped whole and counted (rules:
 * proto/PROTOCOL.md "MQTT"). Every function runs on the loop thread.
 */
#ifndef TT_SUBSCRIBE_MQTT_H
#define TT_SUBSCRIBE_MQTT_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

struct tt_server;
struct tt_sub_mqtt;

/* Subscribes to url (mqtt[s]://...); remote targets become hubs of srv as they appear.
 * ca/cert/key: for mqtts (may be NULL). 0, or -EINVAL/-ENOMEM with what is wrong in err. */
int tt_sub_mqtt_new(uv_loop_t *loop, struct tt_server *srv, const char *url, const char *ca,
		    const char *cert, const char *key, struct tt_sub_mqtt **out, char *err,
		    size_t errlen);
/* Messages dropped as malformed, over all remote targets (tests, logs). */
unsigned long long tt_sub_mqtt_bad(const struct tt_sub_mqtt *s);
/* Disconnects and closes; the hubs stay with the server. Frees s once the loop closed its
 * handles. */
void tt_sub_mqtt_stop(struct tt_sub_mqtt *s);

#endif
