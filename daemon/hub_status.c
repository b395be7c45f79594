/* daemon/hub_status.c: a hub's target summary, status and alert messages (hub.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../proto/json.h"
#include "hub_int.h"
#include "target.h"

static int summary(const struct tt_hub *h, char *buf, size_t cap, bool is_status)
{
	static const struct tt_target_status none;
	const struct tt_target_status *st = h->cfg.status ? h->cfg.status(h->cfg.status_arg) : NULL;
	char fmt[TT_JSON_MAX_NAME * 6 + 3], probe[256 * 6 + 3], msg[256 * 6 + 3];
	int fl, pl, ml, n;

	if (!st)
		st = &none;
	fl = tt_json_string(fmt, sizeof(fmt), h->format, TT_JSON_MAX_NAME);
	pl = tt_json_string(probe, sizeof(probe), h->probe, 256);
	ml = tt_json_string(msg, sizeof(msg), st->message, sizeof(st->message));
	if (fl < 0 || pl < 0 || ml < 0)
		return -ENOSPC;
	n = snprintf(buf, cap,
		     "{%s\"%s\":%.*s,\"format\":%.*s,\"probe\":%.*s,\"state\":\"%s\","
		     "\"message\":%.*s,\"last_seq\":%" PRIu64 ",\"events\":%" PRIu64
		     ",\"gaps\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"skipped\":%" PRIu64 ",\"resets\":%" PRIu64
		     ",\"dropped\":%" PRIu64 ",\"repeats\":%" PRIu64 ",\"bytes_read\":%" PRIu64 ",\"rate\":%.1f,\"fill\":%.3f,\"clients\":%zu}",
		     is_status ? "\"type\":\"status\"," : "", is_status ? "target" : "name",
		     h->target_json_len, h->target_json, fl, fmt, pl, probe,
		     tt_target_state_name(st->state), ml, msg, h->last, st->events, st->gaps, st->lost,
		     st->skipped, st->resets, st->dropped, st->repeats, st->bytes_read, st->rate, st->fill, h->nclients);
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}

int tt_hub_summary_json(const struct tt_hub *h, char *buf, size_t cap)
{
	return summary(h, buf, cap, false);
}

int tt_hub_status_json(const struct tt_hub *h, char *buf, size_t cap)
{
	return summary(h, buf, cap, true);
}

/* A frame of kind holding buf to every client. */
static int broadcast(struct tt_hub *h, uint8_t kind, const char *buf, size_t n)
{
	struct tt_frame *f;

	if (!h->clients)
		return 0;
	if (!(f = tt_frame_new(n)))
		return -ENOMEM;
	memcpy(f->data, buf, n);
	f->len = n;
	f->kind = kind;
	for (struct tt_hub_client *c = h->clients; c; c = c->next)
		hub_enqueue(c, f, true);
	tt_frame_unref(f);
	return 0;
}

void tt_hub_status_changed(struct tt_hub *h)
{
	char buf[4096];
	int n = tt_hub_status_json(h, buf, sizeof(buf));

	if (n >= 0)
		broadcast(h, TT_FRAME_STATUS, buf, (size_t)n);
}

int tt_hub_alert(struct tt_hub *h, const char *json, size_t len)
{
	tt_hub_flush(h);
	return broadcast(h, TT_FRAME_ALERT, json, len);
}
