/* bench/naive.c: tt-bench-naive, the reader tracetap is compared with: it dumps the whole
 * ThreadX trace buffer on every poll (the way a TraceX snapshot is taken) and decodes the dump,
 * instead of tracking the current pointer and reading only the new entries.
 *
 * Same parts as tracetapd: the probe API (openocd-spawn, a real OpenOCD driving tt-simtarget)
 * and the ThreadX image decoder. Polls back to back (the best a dumping reader can do for loss).
 * The workload runs with `--time counter`, so every entry's time stamp is its global sequence
 * number: an event is counted once, the first time a dump shows it, and the numbers between the
 * highest seen before and now that no dump showed are lost (entries overwritten before a dump
 * reached them). The first dump (the history at attach) counts as delivered, not as a loss.
 *
 * usage: tt-bench-naive OPENOCD_CFG SIM_PORT HEADER BUF_BYTES SECONDS SETTLE_SEQ
 * Prints: naive polls=N bytes=B events=E lost=L lost_after_settle=LS bytes_per_event=X
 *         (steady state: after the first dump) poll_ms=P failed=F
 * lost_after_settle counts lost sequence numbers above SETTLE_SEQ.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "reader.h"

static struct {
	uv_loop_t loop;
	struct tt_probe *p;
	uv_timer_t stop;
	const struct tt_reader_ops *ops;
	uint64_t hdr, settle;
	uint32_t size;
	uint8_t *img;
	uint32_t *seen;           /* time stamps > hw in the current dump */
	size_t nseen, cap;
	bool first_done, stopping;
	uint32_t hw;              /* highest sequence number counted */
	uint64_t polls, failed, events, lost, lost_after;
	uint64_t bytes, bytes_first, events_first, t0, t_first, t_last;
} N;

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void on_record(void *arg, const struct tt_record *rec)
{
	(void)arg;
	if (rec->kind != TT_REC_EVENT || (N.first_done && rec->u.ev.ts_raw <= N.hw))
		return;
	if (N.nseen == N.cap) {
		N.cap = N.cap ? N.cap * 2 : 4096;
		N.seen = realloc(N.seen, N.cap * sizeof(*N.seen));
		if (!N.seen)
			abort();
	}
	N.seen[N.nseen++] = rec->u.ev.ts_raw;
}

/* Counts what this dump showed for the first time, and the holes below its newest entry. */
static void account(void)
{
	size_t u = 0;

	qsort(N.seen, N.nseen, sizeof(*N.seen), cmp_u32);
	for (size_t i = 0; i < N.nseen; i++) {
		if (u && N.seen[i] == N.seen[u - 1])
			continue;
		N.seen[u++] = N.seen[i];
	}
	for (size_t i = 0; i < u; i++) {
		uint32_t prev = i ? N.seen[i - 1] : N.hw;
		if (!N.first_done && !i)
			continue;
		for (uint32_t s = prev + 1; s < N.seen[i]; s++) {
			N.lost++;
			N.lost_after += s > N.settle;
		}
	}
	N.events += u;
	if (u)
		N.hw = N.seen[u - 1];
	N.nseen = 0;
}

static void poll_once(void);

static void on_read(struct tt_probe *p, int status, void *arg)
{
	struct tt_reader_config cfg = { .address = N.hdr };
	char err[256];
	(void)arg;

	N.polls++;
	N.bytes = p->bytes_read;
	N.t_last = uv_now(&N.loop);
	if (status == 0 && N.ops->decode_image(N.img, N.size, N.hdr, &cfg, on_record, NULL, err,
					       sizeof(err)) == 0) {
		account();
		if (!N.first_done) {
			N.first_done = true;
			N.bytes_first = N.bytes;
			N.events_first = N.events;
			N.t_first = uv_now(&N.loop);
		}
	} else {
		N.failed++;
		N.nseen = 0;
	}
	if (!N.stopping)
		poll_once();
	else
		tt_probe_close(N.p, NULL, NULL);
}

static void poll_once(void)
{
	struct tt_plan plan = { .n = 1, .r = { { .addr = N.hdr, .len = N.size, .dst = N.img } } };
	int rc = tt_probe_read(N.p, &plan, on_read, NULL);

	if (rc < 0) {
		fprintf(stderr, "tt-bench-naive: read: %s\n", uv_strerror(rc));
		exit(1);
	}
}

static void on_stop(uv_timer_t *t)
{
	N.stopping = true;  /* the dump under way completes, then the probe closes */
	uv_close((uv_handle_t *)t, NULL);
}

int main(int argc, char **argv)
{
	char port[64], err[256];
	struct tt_probe_options opt = { 0 };

	if (argc < 7) {
		fprintf(stderr, "usage: tt-bench-naive OPENOCD_CFG SIM_PORT HEADER BUF_BYTES "
			"SECONDS SETTLE_SEQ\n");
		return 2;
	}
	snprintf(port, sizeof(port), "remote_bitbang port %s", argv[2]);
	const char *args[] = { "-f", argv[1], "-c", port, NULL };
	double secs = atof(argv[5]);

	signal(SIGPIPE, SIG_IGN);
	N.hdr = strtoull(argv[3], NULL, 0);
	N.size = (uint32_t)strtoul(argv[4], NULL, 0);
	N.settle = strtoull(argv[6], NULL, 0);
	N.ops = tt_reader_find("threadx");
	N.img = malloc(N.size);
	if (!N.img || !N.size || secs <= 0)
		return 2;
	opt.openocd_args = args;
	if (uv_loop_init(&N.loop) ||
	    tt_probe_new(&N.loop, "openocd-spawn", &opt, &N.p, err, sizeof(err)) < 0) {
		fprintf(stderr, "tt-bench-naive: %s\n", err);
		return 1;
	}
	N.t0 = uv_now(&N.loop);
	uv_timer_init(&N.loop, &N.stop);
	uv_timer_start(&N.stop, on_stop, (uint64_t)(secs * 1000), 0);
	poll_once();
	uv_run(&N.loop, UV_RUN_DEFAULT);
	uv_loop_close(&N.loop);

	uint64_t polls = N.polls > 1 ? N.polls - 1 : 1, ev = N.events - N.events_first;
	double ms = N.polls > 1 ? (double)(N.t_last - N.t_first) / (double)polls : 0;
	printf("naive polls=%llu bytes=%llu events=%llu lost=%llu lost_after_settle=%llu "
	       "bytes_per_event=%.1f poll_ms=%.0f failed=%llu\n", (unsigned long long)N.polls,
	       (unsigned long long)N.bytes, (unsigned long long)N.events,
	       (unsigned long long)N.lost, (unsigned long long)N.lost_after,
	       ev ? (double)(N.bytes - N.bytes_first) / (double)ev : 0.0, ms,
	       (unsigned long long)N.failed);
	free(N.img);
	free(N.seen);
	return N.events ? 0 : 1;
}
