/* tests/fuzz/fuzz_mqtt.c: a central daemon's MQTT message handler (daemon/subscribe_mqtt.c) on
 * what a hostile publisher on the broker sends, without a broker.
 *
 * The input is a sequence of messages separated by NUL bytes; each message's first byte picks
 * its topic from a fixed set (known and unknown benches, events, status and alerts, a topic of
 * none of these kinds), the rest is its payload. The subscription allows the benches b1 and b2, two targets
 * each. After each message every hub is flushed, its history walked, and a client resuming from
 * seq 0 with a name filter is drained: the frames are built from what the hub kept, so a seq
 * that wrapped or a name that died with its message shows under the sanitizers. The handler is
 * the file's own (included): there is no socket and no libmosquitto connection; the server is a
 * bare struct tt_server that only holds the hubs (stopping: no flush is scheduled on a loop).
 */
#include <stdlib.h>
#include <string.h>

#include "../../daemon/subscribe_mqtt.c"
#include "fuzz.h"
#include "server_int.h"

static const char *const topics[] = {
	"lab/b1/t/events", "lab/b1/t/status", "lab/b1/u/events", "lab/b1/v/events",
	"lab/b2/t/events", "lab/b2/t/status", "lab/evil/t/events", "lab/b1/t/other",
	/* 16 in all: a byte picks the same topic of the first 8 as when there were 8 */
	"lab/b1/t/alerts", "lab/b1/u/alerts", "lab/b2/t/alerts", "lab/evil/t/alerts",
	"lab/b1/t/events", "lab/b1/t/status", "lab/b1/t/alerts", "lab/b1/alerts",
};

static int walk(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)seq;
	*(size_t *)arg += len && json[0] == '{' && json[len - 1] == '}';
	return 0;
}

static void check_hubs(struct tt_server *srv)
{
	static const char *const names[] = { "USER_EVENT", "THREAD_RESUME" };
	struct tt_hub_filter f = { .names = names, .nnames = 2 };

	for (size_t i = 0; i < srv->nhubs; i++) {
		struct tt_hub *h = srv->hubs[i];
		struct tt_hub_client *c;
		struct tt_frame *fr;
		size_t n = 0;
		tt_hub_flush(h);
		tt_hub_history_foreach(h, walk, &n);
		if (tt_hub_client_new(h, NULL, NULL, &c) != 0 || tt_hub_client_set_filter(c, &f) != 0)
			abort();
		tt_hub_client_start(c, TT_HUB_RESUME, 0);
		for (int k = 0; k < 256 && (fr = tt_hub_client_peek(c)); k++) {
			if (fr->len > fr->cap)
				abort();
			tt_hub_client_pop(c);
		}
		tt_hub_client_free(c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const benches[] = { "b1", "b2" };
	static struct tt_record_json *recs; /* MAX_BATCH of them: made once, not per input */
	const struct tt_sub_mqtt_opts o = { .benches = benches, .nbenches = 2, .bench_targets = 2 };
	struct tt_server srv;
	struct tt_sub_mqtt *s = calloc(1, sizeof(*s));
	size_t off = 0;

	memset(&srv, 0, sizeof(srv));
	tt_server_config_init(&srv.cfg);
	srv.cfg.hub.history = 64;
	srv.cfg.hub.history_bytes = 64 * 512;
	srv.stopping = true;
	if (!recs)
		recs = calloc(MAX_BATCH, sizeof(*recs));
	if (!s || !(s->recs = recs) || copy_benches(s, &o) < 0)
		abort();
	s->srv = &srv;
	snprintf(s->label, sizeof(s->label), "mqtt://fuzz/lab/+/+");
	while (off < size) {
		const uint8_t *end = memchr(data + off, '\0', size - off);
		size_t n = end ? (size_t)(end - (data + off)) : size - off;
		if (n) {
			/* libmosquitto hands the callback its own copy of the payload */
			void *payload = malloc(n - 1 ? n - 1 : 1);
			if (!payload)
				abort();
			memcpy(payload, data + off + 1, n - 1);
			struct mosquitto_message msg = {
				.topic = (char *)topics[data[off] % (sizeof(topics) / sizeof(topics[0]))],
				.payload = payload, .payloadlen = (int)(n - 1), .qos = 1,
			};
			on_message(NULL, s, &msg, NULL);
			free(payload);
			check_hubs(&srv);
		}
		off += n + 1;
	}
	for (size_t i = 0; i < s->nremotes; i++)
		free(s->remotes[i]);
	free_benches(s);
	free(s);
	for (size_t i = 0; i < srv.nhubs; i++)
		tt_hub_free(srv.hubs[i]);
	return 0;
}
