/* tests/server/bench_pipeline.c: host pipeline throughput and memory (an executable, not a
 * test). Prints:
 *  1. hub only: records -> JSON -> history -> batched frames for 1 and 10 clients (no I/O),
 *     events/s on one core;
 *  2. records -> JSON -> real WebSocket to 1 and 10 clients over 127.0.0.1 (the server on
 *     this thread's libuv loop, the clients in a second thread): events/s delivered to each
 *     client, and events/s per second of daemon-thread CPU (the one-core figure);
 *  3. RSS with a 100,000-record history and 10 connected clients.
 * Usage: [BENCH_ONLY=hub|ws1|ws10] bench_pipeline [records (default 2000000)]
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "server.h"
#include "synth.h"
#include "wsclient.h"

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

/* ---- 1. hub only ---- */

static void bench_hub(unsigned nclients, uint64_t n)
{
	struct tt_hub_config hc = { .target = "bench", .history = 100000 };
	struct tt_hub *h;
	struct tt_hub_client *c[16];
	struct synth src = { 0 };
	uint64_t bytes = 0;

	REQUIRE(tt_hub_new(&hc, &h) == 0);
	for (unsigned i = 0; i < nclients; i++) {
		REQUIRE(tt_hub_client_new(h, NULL, NULL, &c[i]) == 0);
		tt_hub_client_start(c[i], TT_HUB_LIVE, 0);
	}
	double t0 = thread_cpu();
	for (uint64_t k = 0; k < n; k++) {
		tt_hub_publish(h, synth_next(&src));
		if ((k & 1023) == 1023) {
			tt_hub_flush(h);
			for (unsigned i = 0; i < nclients; i++)
				for (struct tt_frame *f; (f = tt_hub_client_peek(c[i]));
				     tt_hub_client_pop(c[i]))
					bytes += f->len;
		}
	}
	double dt = thread_cpu() - t0;
	printf("hub only, %2u client(s): %9.0f events/s on one core (%.0f MB/s of JSON out)\n",
	       nclients, (double)n / dt, (double)bytes / dt / 1e6);
	for (unsigned i = 0; i < nclients; i++)
		tt_hub_client_free(c[i]);
	tt_hub_free(h);
}

/* ---- 2. through the WebSocket server ---- */

static struct {
	uv_loop_t loop;
	struct tt_server *srv;
	struct tt_hub *hub;
	uv_idle_t pub;
	uv_async_t wake;
	struct synth src;
	uint64_t total, published;
	atomic_uint_fast64_t slowest; /* records received by the slowest client */
	atomic_int phase;             /* 0 connect, 1 publish, 2 done */
	int port;
	unsigned nclients;
	double cpu0, cpu1;
	long rss;
	bool hold;                    /* measure RSS, then stop */
} B;

static void on_pub(uv_idle_t *h)
{
	uint64_t lag = B.published - atomic_load(&B.slowest);

	if (B.published == B.total) {
		uv_idle_stop(h);
		return;
	}
	if (lag > 50000)
		return; /* the clients are behind: don't let queues grow without bound */
	for (int i = 0; i < 4096 && B.published < B.total; i++, B.published++)
		tt_hub_publish(B.hub, synth_next(&B.src));
}

static void on_wake(uv_async_t *a)
{
	if (atomic_load(&B.phase) == 1) {
		B.cpu0 = thread_cpu();
		uv_idle_start(&B.pub, on_pub);
	} else {
		B.cpu1 = thread_cpu();
		B.rss = rss_kb();
		uv_close((uv_handle_t *)a, NULL);
		uv_close((uv_handle_t *)&B.pub, NULL);
		tt_server_stop(B.srv, NULL, NULL);
	}
}

/* Seq of the record whose text starts at p ({"type":"...","target":"bench","seq":N...). */
static uint64_t rec_seq(const char *p, const char *end)
{
	const char *q = memmem(p, (size_t)(end - p) < 64 ? (size_t)(end - p) : 64, "\"seq\":", 6);

	REQUIRE(q);
	return strtoull(q + 6, NULL, 10);
}

/* Checks one message against the seqs received so far (*got = the last seq accounted for):
 * an events message must start right after it and cover [first, last] with its first and last
 * records carrying those seqs (unfiltered frames hold every seq in between, in order: the hub
 * tests check that), a gap must start right after it too. So every seq is accounted for exactly
 * once, without parsing every record (that would make this thread the bottleneck). */
static void check_msg(const struct tt_ws_msg *m, uint64_t *got, uint64_t *gaps)
{
	const char *d = m->data, *end = d + m->len;
	/* {"type":"events","target":"bench","first":F,"last":L,"records":[...]} */
	const char *f = memmem(d, m->len < 80 ? m->len : 80, "\"first\":", 8);

	if (!f) {
		const char *g = memmem(d, m->len, "\"from\":", 7);
		if (g && memmem(d, m->len, "\"type\":\"gap\"", 12)) {
			REQUIRE(strtoull(g + 7, NULL, 10) == *got + 1);
			g = memmem(d, m->len, "\"to\":", 5);
			REQUIRE(g);
			*got = strtoull(g + 5, NULL, 10);
			(*gaps)++;
		}
		return;
	}
	uint64_t first = strtoull(f + 8, NULL, 10);
	const char *l = memmem(f, 40, "\"last\":", 7);
	REQUIRE(l);
	uint64_t last = strtoull(l + 7, NULL, 10);
	REQUIRE(first == *got + 1 && last >= first);
	const char *r = memmem(l, (size_t)(end - l) < 64 ? (size_t)(end - l) : 64, "[{", 2);
	REQUIRE(r && rec_seq(r + 1, end) == first);
	const char *p = end - 1;
	while (p > r && !(p[0] == '{' && p[-1] == ',' && p[1] == '"' && !memcmp(p, "{\"type\":", 8)))
		p--;
	REQUIRE(rec_seq(p > r ? p : r + 1, end) == last);
	*got = last;
}

static void *clients(void *arg)
{
	struct tt_ws *ws[16];
	uint64_t got[16] = { 0 }, gaps = 0;
	struct pollfd p[16];
	char err[256];
	(void)arg;

	for (unsigned i = 0; i < B.nclients; i++) {
		struct tt_ws_opts o = { .host = "127.0.0.1", .port = B.port };
		struct tt_ws_msg m;
		REQUIRE(tt_ws_connect(&o, &ws[i], NULL, err, sizeof(err)) == 0);
		const char sub[] = "{\"type\":\"subscribe\",\"targets\":\"*\"}";
		REQUIRE(tt_ws_send(ws[i], sub, sizeof(sub) - 1) == 0);
		const char ping[] = "{\"type\":\"ping\",\"id\":1}";
		REQUIRE(tt_ws_send(ws[i], ping, sizeof(ping) - 1) == 0);
		do
			REQUIRE(tt_ws_recv(ws[i], 5000, &m) == 1);
		while (!memmem(m.data, m.len, "pong", 4));
	}
	double t0 = now_s();
	atomic_store(&B.phase, 1);
	uv_async_send(&B.wake);
	for (;;) {
		uint64_t slowest = UINT64_MAX;
		for (unsigned i = 0; i < B.nclients; i++)
			slowest = got[i] < slowest ? got[i] : slowest;
		atomic_store(&B.slowest, slowest);
		if (slowest >= B.total)
			break;
		for (unsigned i = 0; i < B.nclients; i++)
			p[i] = (struct pollfd){ .fd = tt_ws_fd(ws[i]), .events = POLLIN };
		REQUIRE(poll(p, B.nclients, 1000) >= 0);
		for (unsigned i = 0; i < B.nclients; i++) {
			struct tt_ws_msg m;
			if (!p[i].revents)
				continue;
			int rc = tt_ws_read(ws[i]);
			REQUIRE(rc > 0 || rc == -EAGAIN);
			while (tt_ws_next(ws[i], &m) == 1)
				check_msg(&m, &got[i], &gaps);
		}
	}
	double dt = now_s() - t0;
	printf("websocket, %2u client(s): %9.0f events/s to each client, %9.0f events/s "
	       "delivered in total (%" PRIu64 " gap messages)\n", B.nclients,
	       (double)B.total / dt, (double)B.total * B.nclients / dt, gaps);
	atomic_store(&B.phase, 2);
	uv_async_send(&B.wake);
	for (unsigned i = 0; i < B.nclients; i++) {
		struct tt_ws_msg m;
		while (tt_ws_recv(ws[i], 3000, &m) == 1 && m.opcode != 8)
			;
		tt_ws_close(ws[i], 0);
	}
	return NULL;
}

static void bench_ws(unsigned nclients, uint64_t n, size_t history)
{
	struct tt_server_config sc;
	char err[256];
	pthread_t th;

	memset(&B, 0, sizeof(B));
	B.total = n;
	B.nclients = nclients;
	REQUIRE(uv_loop_init(&B.loop) == 0);
	tt_server_config_init(&sc);
	sc.port = 0;
	sc.web_dir = "/nonexistent";
	sc.hub.history = history;
	sc.hub.client_bytes = 256u << 20;
	sc.hub.client_frames = 4096;
	if (getenv("BATCH_BYTES"))
		sc.hub.batch_bytes = strtoull(getenv("BATCH_BYTES"), NULL, 0);
	if (tt_server_start(&B.loop, &sc, &B.srv, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	B.port = tt_server_port(B.srv);
	struct tt_hub_config hc = { .target = "bench" };
	REQUIRE(tt_server_add_hub(B.srv, &hc, &B.hub) == 0);
	uv_idle_init(&B.loop, &B.pub);
	uv_async_init(&B.loop, &B.wake, on_wake);
	REQUIRE(pthread_create(&th, NULL, clients, NULL) == 0);
	uv_run(&B.loop, UV_RUN_DEFAULT);
	tt_server_free(B.srv);
	uv_run(&B.loop, UV_RUN_DEFAULT);
	REQUIRE(uv_loop_close(&B.loop) == 0);
	pthread_join(th, NULL);
	printf("            daemon thread: %.2f s CPU for %" PRIu64 " records = %.0f records/s "
	       "per core (%.0f client-deliveries/s per core)\n", B.cpu1 - B.cpu0, n,
	       (double)n / (B.cpu1 - B.cpu0), (double)n * nclients / (B.cpu1 - B.cpu0));
	if (history)
		printf("            RSS with a %zu-record history (full) and %u clients: %.1f MB\n",
		       history, nclients, B.rss / 1024.0);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;

	printf("bench_pipeline: %" PRIu64 " synthetic ThreadX-shaped records (~%d bytes of JSON "
	       "each)\n", n, 330);
	/* BENCH_ONLY=hub|ws1|ws10 runs one part (for perf) */
	const char *only = getenv("BENCH_ONLY");
	if (!only || !strcmp(only, "hub")) {
		bench_hub(1, n);
		bench_hub(10, n);
	}
	printf("baseline RSS before the server: %.1f MB\n", rss_kb() / 1024.0);
	if (!only || !strcmp(only, "ws1"))
		bench_ws(1, n, 100000);
	if (!only || !strcmp(only, "ws10"))
		bench_ws(10, n / 2, 100000);
	return 0;
}
