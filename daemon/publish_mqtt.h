/* daemon/publish_mqtt.h: each target's hub published to an MQTT broker (libmosquitto on the
 * daemon's libuv loop, no thread).
 *
 * One MQTT v5 connection per target, a hub client like a WebSocket client: it never slows the
 * reader; while the broker is gone or slow its bounded queue overflows into an exact `gap`
 * message. Topics and payloads: proto/PROTOCOL.md "MQTT". Every function runs on the loop thread.
 */
#ifndef TT_PUBLISH_MQTT_H
#define TT_PUBLISH_MQTT_H

#include <stddef.h>
#include <uv.h>

struct tt_hub;
struct tt_pub_mqtt;
struct tt_stats;

struct tt_pub_mqtt_config {
	const char *url;      /* mqtt[s]://[user:pass@]host[:port]/PREFIX */
	const char *ca, *cert, *key; /* mqtts: CA file, client certificate and key (optional) */
	int qos;              /* 0, 1 (default) or 2 */
	int keepalive;        /* seconds; default 10 */
	size_t inflight;      /* messages handed to libmosquitto and not yet acknowledged; 16 */
	/* A target's live analysis, published about once a second to PREFIX/TARGET/stats when
	 * it changed (NULL: no stats topic); arg is stats_arg. */
	struct tt_stats *(*stats_of)(void *arg, const char *target);
	void *stats_arg;
};

/* Checks the URL and options; err says what is wrong. 0 or -EINVAL. */
int tt_pub_mqtt_new(uv_loop_t *loop, const struct tt_pub_mqtt_config *cfg,
		    struct tt_pub_mqtt **out, char *err, size_t errlen);
/* Publishes hub's records, alerts, status and stats from now on (connects in the background). 0, or -errno
 * with err saying why (a target name that cannot be a topic level: '+', '#', too long). */
int tt_pub_mqtt_add_hub(struct tt_pub_mqtt *p, struct tt_hub *hub, char *err, size_t errlen);
/* Says "stopped" on each status topic, disconnects, closes the loop handles; frees p once they
 * are closed (run the loop). Call before the hubs are freed. */
void tt_pub_mqtt_stop(struct tt_pub_mqtt *p);

#endif
