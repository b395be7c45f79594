/* daemon/server_stats.c: the `stats` stream message (proto/PROTOCOL.md): about once a second,
 * each target's live analysis to the WebSocket clients that subscribed with "stats": true, for
 * the targets they subscribed to. One frame per target per second, shared by its clients, queued
 * with the control messages (a client that does not read loses older ones first: each message
 * is the whole analysis, so the newest is all it needs). */
#include "server_int.h"

#include <stdlib.h>

#include "../proto/json.h"
#include "stats.h"

/* {"type":"stats","target":T,"stats":{...}} of hub i's target, or NULL. */
static struct tt_frame *stats_frame(struct tt_server *s, size_t i)
{
	const char *target = tt_hub_target(s->hubs[i]);
	struct tt_stats *st = s->stats_of(s->stats_arg, target);
	const struct tt_analysis *an = st ? tt_stats_analysis(st) : NULL;
	char name[TT_JSON_MAX_NAME * 6 + 3];
	struct tt_frame *f;
	size_t n;
	int k;

	if (!an || (k = tt_json_string(name, sizeof(name), target, TT_JSON_MAX_NAME)) < 0)
		return NULL;
	n = tt_analysis_json(an, NULL, 0);
	if (!(f = tt_frame_new((size_t)k + n + 48)))
		return NULL;
	f->kind = TT_FRAME_OTHER;
	f->len = (size_t)snprintf(f->data, f->cap, "{\"type\":\"stats\",\"target\":%.*s,\"stats\":",
				  k, name);
	f->len += tt_analysis_json(an, f->data + f->len, f->cap - f->len);
	f->len += (size_t)snprintf(f->data + f->len, f->cap - f->len, "}");
	return f;
}

void tt_server_stats_tick(struct tt_server *s)
{
	if (!s->stats_of)
		return;
	for (size_t i = 0; i < s->nhubs; i++) {
		struct tt_frame *f = NULL;
		for (struct conn *c = s->conns; c; c = c->next) {
			if (!c->want_stats || !c->subs[i])
				continue;
			if (!f && !(f = stats_frame(s, i)))
				break;
			tt_frame_ref(f);
			tt_server_ctl_push(c, f);
		}
		tt_frame_unref(f);
	}
}
