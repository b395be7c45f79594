/* tests/live/live_writer.c: a 32-bit process that writes a ThreadX trace buffer at a high rate,
 * for following with `tracetapd --probe process:PID`.
 *
 * The time source is ThreadX's simulated one (a counter, +1 per event), so every event's time
 * stamp is a global sequence number and a checker (check_seq.c) can prove that each event
 * arrived exactly once and in order, or inside a gap whose count matches. User events (id 4096)
 * also carry the number in info 1; thread resume/suspend are back-patched (info 4, next thread)
 * exactly like ThreadX does after the insert.
 *
 * usage: live_writer RATE SECONDS [ENTRIES [CLOCK [late|recreate]...]]   (RATE events/s; 0 = fast
 * as can be)
 * CLOCK `narrow:R`: a 24-bit time source of nominally 25 MHz that runs at R times real time (a
 * target clock slower than the host's: an emulated CPU on a loaded host); every event still
 * carries its number (info 1 of user events, info 3 of resume/suspend: check_seq --key seq), and
 * user events carry the time source's wraps at their time stamp in info 4 (their true time in
 * ticks: info 4 * 2^24 + the time stamp; tests/live/times.py). CLOCK `linux`: the ThreadX
 * Linux port's time source, CLOCK_REALTIME's tv_nsec (mask 0xFFFFFFFF, a wrap at 10^9 every
 * second: tracetapd --time-wrap 1000000000 --tick-hz 1G), the wraps (seconds) in info 4 too.
 * `late`: tracing starts off (_tx_trace_header_ptr NULL, nothing written) until SIGUSR1, as
 * after a late tx_trace_enable. `recreate`: the consumer thread (control block at header +
 * 0xF0100) is deleted and created again in the same control block every 512 events, under the
 * name `job-G`, G = the number of the first event of its generation / 512 (its registry slot
 * unregistered, then registered with the new name, with THREAD_DELETE and THREAD_CREATE events
 * that take numbers too: ThreadX's tx_thread_delete and tx_thread_create), so the generation of
 * any of its events is its number / 512. Prints `pid=P header=0xH entries=N` at start, `seq=N` every
 * 4096 events, `done seq=S` when finished, then waits for stdin to close so the reader can
 * drain the tail.
 *
 * LIVE_WRITER_PACE=FILE (with the default counter clock, whose time is the event's number):
 * paced by what was read, for the tests that need a reader that keeps up whatever the
 * machine's load: FILE holds the newest event time the reader delivered (rewritten by the
 * test), and the writer never gets more than half the buffer ahead of it (it waits, printing
 * `waiting seq=S read=R` when a wait begins).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "txwriter.h"

static uint8_t ram[1 << 20] __attribute__((aligned(64)));
/* As in ThreadX: the header's address once tracing is enabled (`tracetapd --elf` finds it). */
uint32_t _tx_trace_header_ptr;

/* The newest event time in the pace file, or `known` when it cannot be read whole now (the
 * test rewrites it in place: an empty or partial read is no news). */
static uint32_t read_pace(const char *path, uint32_t known)
{
	char buf[32];
	FILE *f = fopen(path, "r");
	unsigned long v;

	if (!f)
		return known;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (n == 0 || buf[n - 1] != '\n' || sscanf(buf, "%lu", &v) != 1 || v < known)
		return known;
	return (uint32_t)v;
}

static void sleep_s(double d)
{
	struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double clock_t0, clock_ratio;
static uint64_t clock_mod; /* the time source's modulus: 2^24 (narrow), 10^9 (linux) */
static volatile sig_atomic_t enabled = 1;
/* The time source's whole count (not reduced) that the next event takes, when taken ahead
 * (user events carry its wraps: clock_full); else read at the event. */
static uint64_t clock_next;
static bool clock_taken;

/* The time source, whole: narrow, 25 MHz nominal at clock_ratio of real time; linux, the
 * nanoseconds of CLOCK_REALTIME (the ThreadX Linux port's tv_nsec, whole seconds included). */
static uint64_t clock_full(void)
{
	if (clock_mod == 1000000000u) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		clock_next = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	} else {
		clock_next = (uint64_t)((now_s() - clock_t0) * 25e6 * clock_ratio);
	}
	clock_taken = true;
	return clock_next;
}

static uint32_t clock_now(void *arg)
{
	(void)arg;
	if (!clock_taken)
		clock_full();
	clock_taken = false;
	return (uint32_t)(clock_next % clock_mod);
}

/* tx_thread_delete and tx_thread_create of the consumer (thr[1]) by the producer, as ThreadX
 * writes them: THREAD_DELETE, the registry slot unregistered; the slot registered again with the
 * new name, THREAD_CREATE. Both events take a number (info 3: THREAD_DELETE's unused third
 * field, THREAD_CREATE's stack pointer), seq and seq + 1. Returns the next number. */
static uint32_t recreate_consumer(struct txw *w, const uint32_t thr[3], uint32_t seq)
{
	const uint32_t pw = txw_prio_word(4, 4);
	char nm[16];

	txw_insert(w, thr[0], pw, 101, thr[1], thr[1] + 0x1000, seq, 0, NULL);
	txw_unregister(w, thr[1]);
	snprintf(nm, sizeof(nm), "job-%u", seq / 512);
	txw_register(w, thr[1], 1, nm, thr[1] + 0x1000, 1024, 5);
	txw_insert(w, thr[0], pw, 100, thr[1], 5, seq + 1, 1024, NULL);
	return seq + 2;
}

static void on_usr1(int sig)
{
	(void)sig;
	enabled = 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: live_writer RATE SECONDS [ENTRIES]\n");
		return 2;
	}
	double rate = atof(argv[1]), secs = atof(argv[2]);
	unsigned entries = argc > 3 ? (unsigned)atoi(argv[3]) : 2048;
	struct txw w;
	uint32_t base = (uint32_t)(uintptr_t)ram;
	uint32_t size = 48 + 8 * 48 + entries * 32;

	const char *clk = argc > 4 ? argv[4] : "counter";
	bool recreate = false;
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "late")) {
			enabled = 0;
			signal(SIGUSR1, on_usr1);
		} else if (!strcmp(argv[i], "recreate")) {
			recreate = true;
		}
	}
	if (sizeof(void *) != 4 || size > sizeof(ram)) {
		fprintf(stderr, "live_writer: must be a 32-bit build with a buffer under 1 MiB\n");
		return 2;
	}
	txw_init(&w, ram, base, sizeof(ram), false);
	clock_t0 = now_s();
	if (!strncmp(clk, "narrow:", 7) || !strcmp(clk, "linux")) {
		clock_ratio = clk[0] == 'n' ? atof(clk + 7) : 1;
		clock_mod = clk[0] == 'n' ? 1u << 24 : 1000000000u;
		w.timer_mask = clk[0] == 'n' ? 0xFFFFFFu : 0xFFFFFFFFu;
		w.time_mode = TXW_TIME_CALLBACK;
		w.now = clock_now;
	}
	printf("pid=%d header=0x%08x entries=%u\n", (int)getpid(), base,
	       (size - 48 - 8 * 48) / 32);
	fflush(stdout);
	while (!enabled)
		pause(); /* the reader watches the NULL pointer until then */
	if (txw_enable(&w, base, size, 8) < 0)
		return 1;
	const uint32_t thr[3] = { base + 0xF0000, base + 0xF0100, base + 0xF0200 };
	const char *names[3] = { "producer", "consumer", "idle" };
	for (int i = 0; i < 3; i++)
		txw_register(&w, thr[i], 1, names[i], thr[i] + 0x1000, 1024, (uint32_t)(4 + i));
	__atomic_store_n(&_tx_trace_header_ptr, base, __ATOMIC_RELEASE);

	const char *pace = getenv("LIVE_WRITER_PACE");
	uint32_t seq = 0, read_up_to = 0, said_at = 0;
	double t0 = now_s(), next = t0;
	unsigned cur = 0;
	while (now_s() - t0 < secs) {
		/* event times are seq + 2 (two RUNNING events first): stay within half the buffer
		 * of what was read */
		bool said = false;
		while (pace && seq + 16 + 2 > read_up_to + w.nent / 2 && now_s() - t0 < secs) {
			uint32_t r = read_pace(pace, read_up_to);
			if (r == read_up_to) {
				if (!said) /* a wait of its own, not one poll's worth: say so */
					said = r == read_pace(pace, 0) &&
					       printf("waiting seq=%u read=%u\n", seq + 2, r) > 0 &&
					       fflush(stdout) == 0;
				sleep_s(0.001);
			}
			read_up_to = r;
		}
		if (pace && seq + 16 + 2 > read_up_to + w.nent / 2)
			break;
		/* Write in bursts of 16 and pace the bursts against the wall clock. */
		for (int b = 0; b < 16; b++) {
			seq++;
			if (recreate && seq % 512 == 0)
				seq = recreate_consumer(&w, thr, seq);
			if (seq % 4 == 0) {
				unsigned nxt = (cur + 1) % 3;
				uint32_t ts;
				uint32_t e = txw_insert(&w, thr[cur], txw_prio_word(4 + cur, 4 + cur),
							(seq % 8) ? 2 : 1, thr[cur], 3, seq, 0, &ts);
				txw_patch(&w, e, 4, thr[nxt], ts);
				cur = nxt;
			} else {
				/* info 4: the wraps of the time source at this event (its true
				 * time: info 4 * the modulus + the time stamp) */
				uint32_t wraps = w.now ? (uint32_t)(clock_full() / clock_mod) : 0;
				txw_insert(&w, thr[cur], txw_prio_word(4 + cur, 4 + cur), 4096, seq,
					   0xA5A5A5A5u, seq * 3u, wraps, NULL);
			}
		}
		if (seq / 4096 != said_at) {
			said_at = seq / 4096;
			printf("seq=%u\n", said_at * 4096);
			fflush(stdout);
		}
		if (rate > 0) {
			next += 16.0 / rate;
			double d = next - now_s();
			if (d > 0)
				sleep_s(d);
		}
	}
	double el = now_s() - t0;
	/* The last event's time stamp: two RUNNING events from tx_trace_enable came first. */
	printf("done seq=%u rate=%.0f\n", seq + 2, seq / el);
	fflush(stdout);
	char buf[64];
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
