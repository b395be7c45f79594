/* bench/clients.c: tt-bench-clients, N real WebSocket clients of a running tracetapd
 * (client/wsclient.c, the client `tracetap` uses), on 127.0.0.1, spread over THREADS threads
 * (default: one per online CPU) so that reading them is not what limits the rate.
 *
 * Each client subscribes to every target (live, no history) and reads as fast as it can for
 * SECONDS. Records per client come from each events message's first/last sequence numbers (an
 * unfiltered subscription gets every seq in between; the hub tests prove that), losses from the
 * server's gap messages (reason "slow client" when the client's queue overflowed) and from a
 * close by the server (code 1008: too slow for too long).
 *
 * usage: tt-bench-clients PORT NCLIENTS SECONDS [THREADS]
 * Prints: clients n=N secs=S rate_min=.. rate_median=.. rate_max=.. (records/s per client)
 *         records_total=R gap_msgs=G lost=L clients_with_loss=K closed=C
 * Exit 1 when a client cannot connect or subscribe.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wsclient.h"

struct cl {
	struct tt_ws *ws;
	uint64_t records, gaps, lost;
	bool closed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t num_after(const char *d, size_t len, const char *key)
{
	const char *p = memmem(d, len, key, strlen(key));

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static void on_msg(struct cl *c, const struct tt_ws_msg *m)
{
	size_t head = m->len < 120 ? m->len : 120;

	if (m->opcode == 8) {
		c->closed = true;
		return;
	}
	if (memmem(m->data, head, "\"type\":\"events\"", 15)) {
		uint64_t first = num_after(m->data, head, "\"first\":");
		uint64_t last = num_after(m->data, head, "\"last\":");
		if (last >= first)
			c->records += last - first + 1;
	} else if (memmem(m->data, head, "\"type\":\"gap\"", 12)) {
		c->gaps++;
		c->lost += num_after(m->data, m->len, "\"lost\":");
	}
}

/* One thread's clients c[0..n), read for secs from t0; the end time in *t. */
struct group {
	struct cl *c;
	unsigned n;
	double t0, secs, t;
	int failed;
	pthread_t th;
};

static void *run_group(void *arg)
{
	struct group *g = arg;
	struct cl *c = g->c;
	unsigned n = g->n;
	struct pollfd *p = calloc(n, sizeof(*p));
	double t;

	if (p == NULL) {
		g->failed = 1;
		return NULL;
	}
	while ((t = now_s()) - g->t0 < g->secs) {
		for (unsigned i = 0; i < n; i++)
			p[i] = (struct pollfd){ .fd = c[i].closed ? -1 : tt_ws_fd(c[i].ws),
						.events = POLLIN };
		if (poll(p, n, 100) < 0 && errno != EINTR) {
			g->failed = 1;
			break;
		}
		for (unsigned i = 0; i < n; i++) {
			struct tt_ws_msg m;
			if (!p[i].revents)
				continue;
			int rc = tt_ws_read(c[i].ws);
			if (rc < 0 && rc != -EAGAIN) {
				c[i].closed = true;
				continue;
			}
			while (!c[i].closed && tt_ws_next(c[i].ws, &m) == 1)
				on_msg(&c[i], &m);
		}
	}
	g->t = t;
	free(p);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: tt-bench-clients PORT NCLIENTS SECONDS [THREADS]\n");
		return 2;
	}
	int port = atoi(argv[1]);
	unsigned n = (unsigned)atoi(argv[2]);
	double secs = atof(argv[3]);
	struct cl *c = calloc(n, sizeof(*c));
	uint64_t *rec = calloc(n, sizeof(*rec));
	char err[256];

	if (!c || !rec || !n)
		return 2;
	for (unsigned i = 0; i < n; i++) {
		struct tt_ws_opts o = { .host = "127.0.0.1", .port = port };
		static const char sub[] = "{\"type\":\"subscribe\",\"targets\":\"*\"}";
		if (tt_ws_connect(&o, &c[i].ws, NULL, err, sizeof(err)) < 0 ||
		    tt_ws_send(c[i].ws, sub, sizeof(sub) - 1) < 0) {
			fprintf(stderr, "tt-bench-clients: client %u: %s\n", i, err);
			return 1;
		}
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nth = argc > 4 ? (unsigned)atoi(argv[4]) : ncpu > 0 ? (unsigned)ncpu : 1;
	struct group *g;
	double t0 = now_s(), t = t0;

	if (nth == 0 || nth > n)
		nth = n;
	g = calloc(nth, sizeof(*g));
	if (g == NULL)
		return 2;
	for (unsigned k = 0, at = 0; k < nth; k++) {
		unsigned cnt = n / nth + (k < n % nth);
		g[k] = (struct group){ .c = c + at, .n = cnt, .t0 = t0, .secs = secs };
		at += cnt;
		if (pthread_create(&g[k].th, NULL, run_group, &g[k]) != 0)
			return 1;
	}
	for (unsigned k = 0; k < nth; k++) {
		pthread_join(g[k].th, NULL);
		if (g[k].failed)
			return 1;
		if (g[k].t > t)
			t = g[k].t;
	}
	free(g);
	uint64_t total = 0, gaps = 0, lost = 0;
	unsigned with_loss = 0, closed = 0;
	for (unsigned i = 0; i < n; i++) {
		rec[i] = c[i].records;
		total += c[i].records;
		gaps += c[i].gaps;
		lost += c[i].lost;
		with_loss += c[i].lost > 0 || c[i].closed;
		closed += c[i].closed;
		tt_ws_close(c[i].ws, 1000);
	}
	qsort(rec, n, sizeof(*rec), cmp_u64);
	t -= t0;
	printf("clients n=%u secs=%.1f rate_min=%.0f rate_median=%.0f rate_max=%.0f "
	       "records_total=%llu gap_msgs=%llu lost=%llu clients_with_loss=%u closed=%u\n", n, t,
	       (double)rec[0] / t, (double)rec[n / 2] / t, (double)rec[n - 1] / t,
	       (unsigned long long)total, (unsigned long long)gaps, (unsigned long long)lost,
	       with_loss, closed);
	free(c);
	free(rec);
	return 0;
}
