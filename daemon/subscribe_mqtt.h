/* daemon/subscribe_mqtt.h: remote targets from an MQTT broker, made local (the probe
 * `mqtt://[user:pass@]host[:port]/PREFIX/TARGET`, TARGET may be `+`).
 *
 * A central daemon subscribes to what bench daemons publish (publish_mqtt.h) and feeds each
 * remote target's records into a hub of its own, named BENCH/TARGET (BENCH: the topic level
 * before TARGET), so its dashboard, tail, exports, history and resume work as for a local
 * target. Records keep everything but their seq, which the central hub numbers itself: equal
 * to the origin's while nothing was lost. What was lost becomes one gap record with the exact
 * count: the range of a `gap` message of the publisher (its queue overflowed), or seqs that
 * never arrived (lost between the publisher and the broker, e.g. a broker restart). Repeats
 * (QoS 1 after a reconnect) are dropped; a publisher that restarted numbering from 1 becomes a
 * reset record. The remote's `status` messages are the hub's status (state "offline" from the
 * publisher's last will shows as disconnected). A message that is not what PROTOCOL.md says
 * is dropped whole, counted and logged with its topic and what is wrong; the records it held
 * then count in the next gap.
 */
#ifndef TT_SUBSCRIBE_MQTT_H
#define TT_SUBSCRIBE_MQTT_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

struct tt_server;
struct tt_sub_mqtt;

/* Whether a probe spec is an MQTT subscription. */
bool tt_sub_mqtt_is_probe(const char *probe);
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
