/* daemon/server_msg.c: the messages a WebSocket client sends (subscribe, resume, pause,
 * resume-live, ping; proto/PROTOCOL.md), untrusted JSON. */
#include "server_int.h"
#include "record_json.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <string.h>

#include "../proto/json.h"


static int get_strs(cJSON *arr, const char **out, size_t max, size_t *n)
{
	cJSON *it;

	*n = 0;
	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return -1;
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsString(it) || *n == max)
			return -1;
		out[(*n)++] = it->valuestring;
	}
	return 0;
}

static int parse_filter(cJSON *jf, struct tt_hub_filter *f, uint32_t *ids, const char **names,
			const char **threads)
{
	cJSON *it, *text;

	memset(f, 0, sizeof(*f));
	if (!jf)
		return 0;
	if (!cJSON_IsObject(jf))
		return -1;
	it = cJSON_GetObjectItem(jf, "ids");
	if (it) {
		cJSON *x;
		if (!cJSON_IsArray(it))
			return -1;
		cJSON_ArrayForEach(x, it) {
			if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0 && x->valuedouble <= UINT32_MAX) ||
			    f->nids == 64)
				return -1;
			ids[f->nids++] = tt_json_u32(x->valuedouble);
		}
		f->ids = ids;
	}
	if (get_strs(cJSON_GetObjectItem(jf, "names"), names, 64, &f->nnames) < 0 ||
	    get_strs(cJSON_GetObjectItem(jf, "threads"), threads, 64, &f->nthreads) < 0)
		return -1;
	f->names = names;
	f->threads = threads;
	text = cJSON_GetObjectItem(jf, "text");
	if (text && !cJSON_IsString(text))
		return -1;
	f->text = text ? text->valuestring : NULL;
	return 0;
}

static int hub_index(struct tt_server *s, const char *name)
{
	for (size_t i = 0; i < s->nhubs; i++)
		if (!strcmp(tt_hub_target(s->hubs[i]), name))
			return (int)i;
	return -1;
}

/* The targets a message names ("*" or an array of names) into want (by hub index); an unknown
 * name gets an error message and is left out. -1 when targets is neither. */
static int named_targets(struct conn *c, cJSON *targets, bool want[TT_MAX_TARGETS])
{
	struct tt_server *s = c->srv;
	cJSON *it;

	if (cJSON_IsString(targets) && !strcmp(targets->valuestring, "*")) {
		for (size_t i = 0; i < s->nhubs; i++)
			want[i] = true;
		return 0;
	}
	if (!cJSON_IsArray(targets))
		return -1;
	cJSON_ArrayForEach(it, targets) {
		int i = cJSON_IsString(it) ? hub_index(s, it->valuestring) : -1;
		if (i < 0)
			tt_server_send_error(c, "unknown_target", "no target named %.64s",
					     cJSON_IsString(it) ? it->valuestring : "(not a string)");
		else
			want[i] = true;
	}
	return 0;
}

static bool ensure_sub(struct conn *c, size_t i)
{
	if (!c->subs[i] && tt_hub_client_new(c->srv->hubs[i], tt_server_wake, c, &c->subs[i]) < 0) {
		tt_server_send_error(c, "bad_request", "out of memory");
		return false;
	}
	return true;
}

static void on_subscribe(struct conn *c, cJSON *m)
{
	struct tt_server *s = c->srv;
	cJSON *targets = cJSON_GetObjectItem(m, "targets"), *since = cJSON_GetObjectItem(m, "since");
	cJSON *hist = cJSON_GetObjectItem(m, "history");
	bool want[TT_MAX_TARGETS] = { false };
	struct tt_hub_filter f;
	uint32_t ids[64];
	const char *names[64], *threads[64];

	if (parse_filter(cJSON_GetObjectItem(m, "filter"), &f, ids, names, threads) < 0) {
		tt_server_send_error(c, "bad_request", "subscribe: filter must be {\"ids\":[numbers], "
			   "\"names\":[strings], \"threads\":[strings], \"text\":string} (<= 64 each)");
		return;
	}
	bool stats = cJSON_IsTrue(cJSON_GetObjectItem(m, "stats"));
	for (size_t i = 0; i < TT_MAX_TARGETS; i++)
		c->want_stats[i] = stats;
	if ((since && !cJSON_IsObject(since)) || (hist && !cJSON_IsNumber(hist))) {
		tt_server_send_error(c, "bad_request", "subscribe: since must be an object, history a number");
		return;
	}
	if (named_targets(c, targets, want) < 0) {
		tt_server_send_error(c, "bad_request", "subscribe: targets must be an array of names or \"*\"");
		return;
	}
	for (size_t i = 0; i < s->nhubs; i++) {
		if (!want[i]) {
			tt_hub_client_free(c->subs[i]);
			c->subs[i] = NULL;
			continue;
		}
		if (!ensure_sub(c, i))
			return;
		if (tt_hub_client_set_filter(c->subs[i], &f) < 0)
			tt_server_send_error(c, "bad_request", "subscribe: filter rejected");
		cJSON *last = since ? cJSON_GetObjectItem(since, tt_hub_target(s->hubs[i])) : NULL;
		if (cJSON_IsNumber(last) && last->valuedouble >= 0)
			tt_hub_client_start(c->subs[i], TT_HUB_RESUME, tt_json_u64(last->valuedouble));
		else if (hist && hist->valuedouble > 0)
			tt_hub_client_start(c->subs[i], TT_HUB_NEWEST, tt_json_u64(hist->valuedouble));
		else
			tt_hub_client_start(c->subs[i], TT_HUB_LIVE, 0);
	}
}

/* {"type":"stats","targets":[names] | "*"}: which subscribed targets' stats messages to send
 * (a dashboard asks for the one it shows), the subscription itself unchanged. */
static void on_stats(struct conn *c, cJSON *m)
{
	bool want[TT_MAX_TARGETS] = { false };

	if (named_targets(c, cJSON_GetObjectItem(m, "targets"), want) < 0) {
		tt_server_send_error(c, "bad_request", "stats: targets must be an array of names or \"*\"");
		return;
	}
	memcpy(c->want_stats, want, sizeof(want));
}

void tt_server_on_message(struct conn *c, const char *buf, size_t len)
{
	struct tt_server *s = c->srv;
	cJSON *m = cJSON_ParseWithLength(buf, len), *type, *it;
	int i;

	if (!m || !cJSON_IsObject(m)) {
		tt_server_send_error(c, "bad_request", "not a JSON object");
		goto out;
	}
	type = cJSON_GetObjectItem(m, "type");
	if (!cJSON_IsString(type)) {
		tt_server_send_error(c, "bad_request", "missing \"type\"");
		goto out;
	}
	if (!strcmp(type->valuestring, "subscribe")) {
		on_subscribe(c, m);
	} else if (!strcmp(type->valuestring, "resume")) {
		cJSON *t = cJSON_GetObjectItem(m, "target"), *last = cJSON_GetObjectItem(m, "last");
		if (!cJSON_IsString(t) || !cJSON_IsNumber(last) || last->valuedouble < 0) {
			tt_server_send_error(c, "bad_request", "resume needs \"target\" and \"last\"");
		} else if ((i = hub_index(s, t->valuestring)) < 0) {
			tt_server_send_error(c, "unknown_target", "no target named %.64s", t->valuestring);
		} else if (ensure_sub(c, (size_t)i)) {
			tt_hub_client_start(c->subs[i], TT_HUB_RESUME, tt_json_u64(last->valuedouble));
		}
	} else if (!strcmp(type->valuestring, "pause") ||
		   !strcmp(type->valuestring, "resume-live")) {
		bool pause = type->valuestring[0] == 'p';
		it = cJSON_GetObjectItem(m, "target");
		for (size_t k = 0; k < s->nhubs; k++) {
			if (!c->subs[k] || (cJSON_IsString(it) &&
					    strcmp(it->valuestring, tt_hub_target(s->hubs[k]))))
				continue;
			if (pause)
				tt_hub_client_pause(c->subs[k]);
			else
				tt_hub_client_resume_live(c->subs[k]);
		}
	} else if (!strcmp(type->valuestring, "stats")) {
		on_stats(c, m);
	} else if (!strcmp(type->valuestring, "ping")) {
		it = cJSON_GetObjectItem(m, "id");
		char *id = it ? cJSON_PrintUnformatted(it) : NULL;
		tt_server_ctl_push(c, tt_frame_printf(TT_FRAME_OTHER, "{\"type\":\"pong\",\"id\":%s}",
					    id ? id : "null"));
		cJSON_free(id);
	} else {
		tt_server_send_error(c, "unsupported", "unknown message type \"%.40s\"", type->valuestring);
	}
out:
	cJSON_Delete(m);
}
