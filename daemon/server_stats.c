/* daemon/server_stats.c: the `stats` stream message (proto/PROTOCOL.md): about once a second,
 * each target's live analysis to the WebSocket clients that subscribed with "stats": true, for
 * the targets they subscribed to. One frame per target per second, shared by its clients and
 * the MQTT publisher (tt_stats_frame), queued with the control messages (a client that does
 * not read loses older ones first: each message is the whole analysis, so the newest is all it
 * needs). */
#include "server_int.h"

#include "stats.h"

/* Hub i's target's `stats` message, or NULL. */
static struct tt_frame *stats_frame(struct tt_server *s, size_t i)
{
	const char *target = tt_hub_target(s->hubs[i]);

	return tt_stats_frame(s->stats_of(s->stats_arg, target), target, uv_now(s->loop));
}

void tt_server_stats_tick(struct tt_server *s)
{
	if (!s->stats_of)
		return;
	for (size_t i = 0; i < s->nhubs; i++) {
		struct tt_frame *f = NULL;
		for (struct conn *c = s->conns; c; c = c->next) {
			if (!c->want_stats[i] || !c->subs[i])
				continue;
			if (!f && !(f = stats_frame(s, i)))
				break;
			tt_frame_ref(f);
			tt_server_ctl_push(c, f);
		}
		tt_frame_unref(f);
	}
}
