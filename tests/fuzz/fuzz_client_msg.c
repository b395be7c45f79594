/* tests/fuzz/fuzz_client_msg.c: the WebSocket client message handler of daemon/server.c
 * (tt_server_on_message: subscribe with filters, resume, pause, resume-live, stats, ping) on
 * untrusted messages, against two real hubs holding history.
 *
 * The input is a sequence of messages separated by NUL bytes, all from one connection. After
 * each message, records are published and flushed and the connection's queues (its replies and
 * every subscription) are drained, so filters, resume cursors and pauses act on real frames.
 * There is no socket: the one libwebsockets call the handler makes, asking for a writable
 * callback, is answered here (the queues are drained directly instead).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hub.h"
#include "server_int.h"

#define FZ_HUBS 2

int lws_callback_on_writable(struct lws *wsi)
{
	(void)wsi;
	return 0;
}

static void fz_publish(struct tt_hub *h, unsigned n, uint32_t seed)
{
	static const uint32_t raw[4] = { 1, 2, 3, 4 };
	struct tt_record rec = { .kind = TT_REC_EVENT };

	for (unsigned i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		rec.u.ev = (struct tt_event){
			.id = seed % 8, .name = (seed & 8) ? "THREAD_RESUME" : "USER_EVENT",
			.core = -1, .thread = 0x20001000u + (seed & 0x30),
			.thread_name = (seed & 16) ? "main" : NULL, .prio = 4, .threshold = -1,
			.time = i, .nraw = 4, .raw = raw,
		};
		tt_hub_publish(h, &rec);
	}
	tt_hub_flush(h);
}

static void fz_drain(struct conn *c, size_t nhubs)
{
	for (size_t i = 0; i < c->nctl; i++)
		tt_frame_unref(c->ctl[i]);
	c->nctl = 0;
	for (size_t i = 0; i < nhubs; i++) {
		struct tt_frame *f;
		for (int k = 0; c->subs[i] && k < 64 && (f = tt_hub_client_peek(c->subs[i])); k++) {
			if (f->len > f->cap)
				abort();
			tt_hub_client_pop(c->subs[i]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[FZ_HUBS] = { "board1", "board2" };
	struct tt_server srv;
	struct conn c;
	size_t off = 0;

	memset(&srv, 0, sizeof(srv));
	memset(&c, 0, sizeof(c));
	tt_server_config_init(&srv.cfg);
	c.srv = &srv;
	c.ws = true;
	for (size_t i = 0; i < FZ_HUBS; i++) {
		struct tt_hub_config hc = { .target = names[i], .format = "threadx", .history = 32 };
		if (tt_hub_new(&hc, &srv.hubs[i]) != 0)
			abort();
		srv.nhubs++;
		fz_publish(srv.hubs[i], 40, (uint32_t)i);
	}
	while (off < size) {
		const uint8_t *end = memchr(data + off, '\0', size - off);
		size_t n = end ? (size_t)(end - (data + off)) : size - off;
		/* the server hands the handler a copy it owns, exactly n bytes long */
		char *msg = malloc(n ? n : 1);
		if (!msg)
			break;
		memcpy(msg, data + off, n);
		tt_server_on_message(&c, msg, n);
		free(msg);
		for (size_t i = 0; i < FZ_HUBS; i++)
			fz_publish(srv.hubs[i], 5, (uint32_t)off);
		fz_drain(&c, FZ_HUBS);
		off += n + 1;
	}
	for (size_t i = 0; i < FZ_HUBS; i++) {
		tt_hub_client_free(c.subs[i]);
		tt_hub_free(srv.hubs[i]);
	}
	return 0;
}
