/* tests/qnx/fw_qnx.c: tt-fw-qnx, a QNX "kernel" workload for the simulated target.
 *
 * Maps the simulator's RAM file and writes the ring of kernel trace buffers into it as QNX's
 * kernel does, in the layout of proto/qnx.h (struct tt_qnx_layout: QNX's tracebuf_t, defaults or
 * --nbufs/--buf-size/--pointer/--hand-on/--big-endian) with tests/qnx/qringw: a scripted system of four threads in two processes
 * (thread switches, MsgSendv kernel call entry and exit, a timer interrupt) and USER events
 * carrying a sequence number (data[1]) so tests can check exactly what arrived. With
 * `--time counter` the time stamp of every 16-byte event is its index (0, 1, 2, ...): a sequence
 * number over all events (tests/live/check_seq's default key). SIGTERM/SIGINT stop it with a
 * summary line; SIGUSR1: the target rebooted (the ring set up again, buffer 0 with seq 1).
 */
#include "fwrun.h"
#include "qringw.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RING_OFF 0x1000u

struct fw {
	struct qrw w;
	uint8_t *ram;
	uint32_t base, size;
	bool counter;
	uint64_t tick_hz, user_events, seq, restarts;
	struct fw_pace pace;
	bool done;
};

static volatile sig_atomic_t g_stop, g_restart;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		g_restart++;
	else
		g_stop = 1;
}

static uint64_t now(void *arg)
{
	struct fw *f = arg;

	if (f->counter)
		return f->w.events;
	uint64_t ns = fw_ns_since(&f->pace.start);
	return ns / 1000000000u * f->tick_hz + ns % 1000000000u * f->tick_hz / 1000000000u;
}

static void pace(struct fw *f)
{
	if (fw_pace(&f->pace, f->w.events, &g_stop))
		f->done = true;
}

static void ev(struct fw *f, uint32_t cls, uint32_t event, uint32_t d1, uint32_t d2)
{
	static sig_atomic_t restarts_seen;

	if (f->done)
		return;
	if (g_restart != restarts_seen) {
		restarts_seen = g_restart;
		f->restarts++;
		qrw_restart(&f->w, 1);
		printf("restart n=%" PRIu64 " seq=%" PRIu64 "\n", f->restarts, f->seq);
		fflush(stdout);
	}
	qrw_event(&f->w, QRW_HDR(cls, event, 0), d1, d2);
	pace(f);
}

/* One round of the scripted system: thread n runs, sends a message (kernel call entry and exit),
 * logs a USER event with the next sequence number; every 4th round a timer interrupt. */
static void round_(struct fw *f, uint32_t n)
{
	static const uint32_t pid[4] = { 4100, 4100, 8200, 8200 }, tid[4] = { 1, 2, 1, 3 };
	unsigned t = n % 4;

	ev(f, TT_QNX_C_PR_TH, 1, pid[t], tid[t]); /* THREAD_RUNNING */
	ev(f, TT_QNX_C_KER_CALL, 11, 3 + t, 0x1000 + 16 * t); /* MsgSendv entry: coid, smsg */
	ev(f, TT_QNX_C_KER_CALL, 128 + 11, 0, 0);  /* exit: ret_val 0 */
	if (!f->done) {
		f->seq++;
		f->user_events++;
		ev(f, TT_QNX_C_USER, 7, (uint32_t)f->seq, t);
	}
	if (n % 4 == 3) {
		ev(f, TT_QNX_C_INT, 1, 5, 0x80001000 + n % 64); /* INT_ENTRY: irq, ip */
		ev(f, TT_QNX_C_INT, 2, 5, 0);                    /* INT_EXIT: irq, in_kernel */
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tt-fw-qnx --ram FILE --base ADDR --size N [--ring-off OFF] [--nbufs N (32)]\n"
		"       [--buf-size N] [--pointer 32|64] [--hand-on N] [--big-endian]\n"
		"       [--rate EVENTS_PER_S (0 = max)] [--count N] [--duration S]\n"
		"       [--tick-hz HZ] [--time cycles|counter]\n"
		"Prints 'ring=0x... ...' once the ring is set up and 'summary ...' at exit.\n"
		"SIGUSR1 = tracing restarted. See proto/README-qnx.md (Tests).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ram", required_argument, NULL, 'r' },      { "base", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },     { "ring-off", required_argument, NULL, 'o' },
		{ "nbufs", required_argument, NULL, 'N' },    { "buf-size", required_argument, NULL, 'B' },
		{ "pointer", required_argument, NULL, 'P' },  { "hand-on", required_argument, NULL, 'H' },
		{ "big-endian", no_argument, NULL, 'E' },
		{ "rate", required_argument, NULL, 'R' },     { "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' }, { "tick-hz", required_argument, NULL, 't' },
		{ "time", required_argument, NULL, 'T' },     { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct fw f = { .pace.rate = 1000, .tick_hz = 100000000 };
	struct tt_qnx_layout lo;
	const char *path = NULL, *time_mode = "cycles", *why = NULL;
	uint32_t ring_off = DEFAULT_RING_OFF, nbufs = 32;
	int o, e;

	tt_qnx_layout_default(&lo);
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'r': path = optarg; break;
		case 'b': f.base = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': f.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': ring_off = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'N': nbufs = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'B': lo.buf_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'P': lo.ptr_size = (uint32_t)strtoul(optarg, NULL, 0) / 8; break;
		case 'H': lo.hand_on = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'E': lo.big_endian = true; break;
		case 'R': f.pace.rate = strtoull(optarg, NULL, 0); break;
		case 'n': f.pace.count = strtoull(optarg, NULL, 0); break;
		case 'd': f.pace.duration = strtod(optarg, NULL); break;
		case 't': f.tick_hz = strtoull(optarg, NULL, 0); break;
		case 'T': time_mode = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (nbufs < 2 || nbufs > TT_QNX_RING_MAX_BUFS)
		why = "--nbufs must be 2 to 1024";
	if (why || tt_qnx_layout_check(&lo, &why) < 0) {
		fprintf(stderr, "tt-fw-qnx: %s\n", why);
		return 2;
	}
	uint64_t ring_len = (uint64_t)nbufs * lo.buf_size;
	if (!path || (f.base & 3) || (ring_off & 3) || ring_off + ring_len > f.size || !f.tick_hz ||
	    (strcmp(time_mode, "cycles") && strcmp(time_mode, "counter"))) {
		fprintf(stderr, "tt-fw-qnx: need --ram FILE --base ADDR --size N with the ring "
			"(%u buffers of %u bytes = %llu) at --ring-off inside RAM, 4-byte aligned\n",
			nbufs, lo.buf_size, (unsigned long long)ring_len);
		usage(stderr);
		return 2;
	}
	if ((e = fw_map_ram(path, f.base, f.size, &f.ram)) < 0) {
		fprintf(stderr, "tt-fw-qnx: cannot map RAM %s: %s\n", path, strerror(-e));
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	f.counter = !strcmp(time_mode, "counter");
	fw_pace_start(&f.pace);
	memset(f.ram + ring_off, 0, ring_len);
	qrw_init(&f.w, f.ram + ring_off, &lo, nbufs, f.base + ring_off, 1, now, &f);
	printf("ring=0x%08" PRIx32 " nbufs=%u buf_size=%u header_size=%u slots=%u "
	       "events_per_buffer=%u endian=%s tick_hz=%" PRIu64 " rate=%" PRIu64 " pid=%d\n",
	       f.base + ring_off, nbufs, lo.buf_size, f.w.g.header_size, f.w.cap, f.w.g.hand_on,
	       lo.big_endian ? "big" : "little",
	       f.counter ? 0 : f.tick_hz, f.pace.rate, (int)getpid());
	fflush(stdout);

	for (uint32_t n = 0; !f.done; n++)
		round_(&f, n);

	printf("summary events=%" PRIu64 " user_events=%" PRIu64 " last_seq=%" PRIu64
	       " buffers=%" PRIu64 " restarts=%" PRIu64 " elapsed_ms=%" PRIu64 "\n", f.w.events,
	       f.user_events, f.seq, f.w.buffers, f.restarts, fw_ns_since(&f.pace.start) / 1000000u);
	return 0;
}
