/* tests/nuttx/fw_nuttx.c: tt-fw-nuttx, a NuttX "firmware" workload for the simulated target.
 *
 * Maps the simulator's RAM file (or, without --ram, its own memory at --base itself, for the
 * process: probe) and keeps a NuttX 13.x noteram driver in it (32-bit, or with --ptr 8 64-bit
 * as NuttX's default sim; little-endian, not SMP, no note filter: tt_nuttx_layout_default),
 * written with nxwriter.c in
 * noteram_add's exact order (drop the oldest records until the new one fits, copy byte-wise with
 * wrap, head written last as a whole word). Every record's 64-bit time stamp is a +1 counter
 * starting at 1, so the time stamp numbers every record ever written (stored or not) and tests
 * check exactly what arrived. Records: START notes with task names, then switches, syscalls,
 * IRQs and heap notes (nxw_any). SIGUSR1 = NOTERAM_CLEAR (tail = head; an overflowed ring in
 * mode 0 records again); both signals are applied between two records, as an ioctl would be.
 * --long-irq-at N / --long-call-at N: the first interrupt (system call) that ends at or after
 * record N takes LONG_TICKS more (the time stamps skip them before its leave note), once.
 * --mark-at N --mark TEXT: before record N, one more: a NOTE_DUMP_MARK of pid 5 with that text
 * (an application's sched_note_mark, e.g. before an assertion), once.
 *
 * For loss tests against the truth: --irregular steps the time stamps by nxwriter.c's
 * pseudo-random 1-5000 ticks (mean 2500) instead of +1, so that no gap can be counted from the
 * time stamps alone (check_seq --clock nxw knows the sequence); --burst-after N writes N records
 * at once after each clear and each SIGCONT (a burst right after `trace start`; a descheduled sim
 * catching up), printing `burst at=N n=M` (records N + 1 to N + M) and `burst done events=N`,
 * with --irregular 1-5 ticks apart (the same numbers divided by 1000: a writer far faster than
 * before); --clock-runs makes the time stamps advance while the process was stopped (SIGSTOP ..
 * SIGCONT) by the host time stopped at --rate ticks a second (times the mean step with
 * --irregular), printed as `jump at=N ticks=J` (J ticks more before record N + 1);
 * --short-tasks N starts a task every N records that lives for one batch: pid 100 + k, a START
 * note naming it `job-<pid>`, 6 records, a STOP note, written at once (created, run and exited
 * between two polls).
 *
 * SIGUSR2 is `trace stop` (NOTECTL_SETMODE without NOTE_FILTER_MODE_FLAG_ENABLE): no note is
 * built until SIGUSR1 (`trace start`: NOTERAM_CLEAR, then enabled again) or the end; with
 * --stop-burst N a fast writer's last N notes go in at once first (stepped like --burst-after's),
 * printed as a burst; then `stopped at=N last_time=T` (N notes built so far, the last one's time).
 */
#include "nxwriter.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "fwrun.h"
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OFF_LAST_TIME 0x8   /* low word of the last time stamp written (informational) */
#define OFF_DRIVER 0x100    /* g_noteram_driver */
#define DEFAULT_BUF_OFF 0x1000
#define OFF_TASKS 0x200      /* --tasks: g_pidhash, g_npidhash, the hash, the TCBs */
#define LONG_TICKS 100000    /* --long-irq-at, --long-call-at */
#define BURST_DIV 1000       /* --burst-after with --irregular: steps of 1-5 ticks */

static volatile sig_atomic_t g_clear, g_stop, g_cont, g_tstop;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		g_clear++;
	else if (sig == SIGCONT)
		g_cont++;
	else if (sig == SIGUSR2)
		g_tstop++;
	else
		g_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void say_burst(uint64_t n, uint64_t at)
{
	if (n) {
		printf("burst at=%" PRIu64 " n=%" PRIu64 "\n", at, n);
		fflush(stdout);
	}
}

/* `trace stop`: nothing is recorded until `trace start` (a clear pending) or the end; the pace
 * starts again from then (no catching up: a stopped trace records nothing). */
static void trace_stopped(struct fw_pace *pace, uint64_t records, uint64_t last_time,
			  sig_atomic_t clears_seen)
{
	printf("stopped at=%" PRIu64 " last_time=%" PRIu64 "\n", records, last_time);
	fflush(stdout);
	while (clears_seen == g_clear && !g_stop) {
		struct timespec t = { 0, 2 * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &pace->next);
	pace->in_burst = 0;
}

/* A task that lives for one batch (--short-tasks): START naming it, 6 records, STOP, at once.
 * Returns the records written. */
static unsigned short_task(struct nxw *w, int32_t pid, uint64_t *stored)
{
	static const uint64_t args[2] = { 1, 2 };
	uint8_t rec[256];
	char name[16];
	unsigned n = 0;

	snprintf(name, sizeof(name), "job-%d", (int)pid);
	for (unsigned k = 0; k < 8; k++, n++) {
		unsigned len = k == 0 ? nxw_start(w, rec, pid, 100, name)
			     : k == 7 ? nxw_simple(w, rec, 1, pid, 100)
			     : k % 2 ? nxw_simple(w, rec, 3, pid, 100)
				     : nxw_syscall_enter(w, rec, pid, 40 + k, 2, args);
		*stored += nxw_add(w, rec, len);
	}
	return n;
}

/* The task table of pids 0-5 (Idle_Task and nxw_any's tasks) for names read from the target;
 * prints the format options that locate it. */
static void write_tasks(struct nxw *w)
{
	nxw_tasks_default(w, OFF_TASKS);
	printf("tasks pidhash=0x%" PRIx64 " npidhash=0x%" PRIx64 " tcb_pid=%u tcb_name=%u "
	       "tcb_name_size=%u\n", w->lo.pidhash_addr, w->lo.npidhash_addr, w->lo.tcb_off_pid,
	       w->lo.tcb_off_name, w->lo.tcb_name_size);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tt-fw-nuttx [--ram FILE] --base ADDR --size N [--buf-off OFF] [--buf-size N]\n"
		"       [--rate RECORDS_PER_S (0 = max)] [--count N] [--duration S]\n"
		"       [--mode overwrite|stop] [--burst N] [--tasks] [--ptr 4|8] [--hold]\n"
		"       [--mark-at N --mark TEXT]   (before record N: a NOTE_DUMP_MARK with TEXT)\n"
		"       [--long-irq-at N] [--long-call-at N]   (one interrupt / system call that\n"
		"       ends at or after record N takes 100000 ticks more)\n"
		"       [--burst-after N] [--clock-runs] [--irregular] [--short-tasks N]\n"
		"       [--stop-burst N]   (SIGUSR2 = trace stop, after N notes at once)\n"
		"Without --ram: this process's own memory at ADDR (64-bit addresses with --ptr 8);\n"
		"--hold: after --count/--duration, keep it (and the process) until SIGTERM.\n"
		"Prints 'driver=0x... ...' once the driver is set up and 'summary ...' at exit.\n"
		"SIGUSR1 = NOTERAM_CLEAR (trace start), SIGUSR2 = trace stop. See tests/nuttx/README.md.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ram", required_argument, NULL, 'r' },      { "base", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },     { "buf-off", required_argument, NULL, 'o' },
		{ "buf-size", required_argument, NULL, 'B' }, { "rate", required_argument, NULL, 'R' },
		{ "count", required_argument, NULL, 'n' },    { "duration", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },     { "burst", required_argument, NULL, 'u' },
		{ "tasks", no_argument, NULL, 't' },      { "ptr", required_argument, NULL, 'p' },
		{ "hold", no_argument, NULL, 'H' },
		{ "long-irq-at", required_argument, NULL, 'I' },
		{ "long-call-at", required_argument, NULL, 'C' },
		{ "burst-after", required_argument, NULL, 'A' },
		{ "clock-runs", no_argument, NULL, 'K' },
		{ "irregular", no_argument, NULL, 'G' },
		{ "short-tasks", required_argument, NULL, 'S' },
		{ "mark-at", required_argument, NULL, 'M' },
		{ "mark", required_argument, NULL, 'T' },
		{ "stop-burst", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct nxw w;
	static uint8_t rec[256];
	const char *path = NULL, *mode = "overwrite";
	uint64_t base = 0;
	uint32_t size = 0, buf_off = DEFAULT_BUF_OFF, buf_size = 0;
	unsigned ptr = 4;
	uint64_t records = 0, stored = 0, clears = 0, overflows = 0;
	uint64_t last_stored = 0, last_time = 0;
	struct fw_pace pace = { .rate = 1000 };
	sig_atomic_t clears_seen = 0;
	uint8_t *ram;
	bool tasks = false, hold = false;
	uint64_t long_irq = 0, long_call = 0; /* record indexes + 1; 0: none (or done) */
	uint64_t burst_after = 0, short_every = 0, burst_left = 0, last_ns = 0, stop_burst = 0;
	sig_atomic_t tstops_seen = 0;
	bool stop_pending = false;
	bool clock_runs = false, irregular = false;
	sig_atomic_t conts_seen = 0;
	int32_t short_pid = 100;
	uint64_t mark_at = 0;                 /* likewise */
	const char *mark = NULL;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'r': path = optarg; break;
		case 'b': base = strtoull(optarg, NULL, 0); break;
		case 'p': ptr = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'H': hold = true; break;
		case 's': size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': buf_off = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'B': buf_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'R': pace.rate = strtoull(optarg, NULL, 0); break;
		case 'n': pace.count = strtoull(optarg, NULL, 0); break;
		case 'd': pace.duration = strtod(optarg, NULL); break;
		case 'm': mode = optarg; break;
		case 'u': pace.burst = strtoull(optarg, NULL, 0); break;
		case 't': tasks = true; break;
		case 'I': long_irq = strtoull(optarg, NULL, 0) + 1; break;
		case 'C': long_call = strtoull(optarg, NULL, 0) + 1; break;
		case 'A': burst_after = strtoull(optarg, NULL, 0); break;
		case 'K': clock_runs = true; break;
		case 'G': irregular = true; break;
		case 'S': short_every = strtoull(optarg, NULL, 0); break;
		case 'M': mark_at = strtoull(optarg, NULL, 0) + 1; break;
		case 'T': mark = optarg; break;
		case 'X': stop_burst = strtoull(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!buf_size && size > buf_off)
		buf_size = size - buf_off;
	if ((ptr != 4 && ptr != 8) || (ptr == 4 && base > UINT32_MAX - size) || (base & 7) ||
	    (buf_off & 7) || buf_off < OFF_DRIVER + 0x40 || buf_size < 512 ||
	    (tasks && buf_off < OFF_TASKS + 0x400) ||
	    (uint64_t)buf_off + buf_size > size ||
	    (strcmp(mode, "overwrite") && strcmp(mode, "stop"))) {
		fprintf(stderr, "tt-fw-nuttx: need --base ADDR --size N with the ring "
			"[--buf-off, +--buf-size) inside RAM at or above offset 0x%x, at least 512 "
			"bytes, 8-byte aligned (with --tasks: at or above 0x%x); --mode overwrite or "
			"stop; --ptr 4 (RAM below 4 GiB) or 8\n",
			OFF_DRIVER + 0x40, OFF_TASKS + 0x400);
		usage(stderr);
		return 2;
	}
	if ((o = fw_map_ram(path, base, size, &ram)) < 0) {
		fprintf(stderr, "tt-fw-nuttx: cannot map RAM %s: %s\n", path ? path : "(own memory)",
			strerror(-o));
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);

	/* noteram_register: an empty ring (head = tail = 0), the mode, then the buffer words */
	struct tt_nuttx_layout lo;
	tt_nuttx_layout_default(&lo, ptr);
	memset(ram + OFF_DRIVER, 0, 0x40);
	nxw_init_mem(&w, &lo, ram, size, base, OFF_DRIVER, buf_off, buf_size);
	nxw_set_head(&w, 0);
	nxw_set_tail(&w, 0);
	nxw_set_overwrite(&w, strcmp(mode, "stop") ? 1 : 0);
	w.time = 1;
	w.step = irregular ? 0 : 1;
	w.rng = 12345; /* check_seq --clock nxw replays the steps from it */
	fw_pace_start(&pace);
	printf("driver=0x%08" PRIx64 " ring=0x%08" PRIx64 " size=%" PRIu32 " mode=%s rate=%" PRIu64
	       " pid=%d\n", base + OFF_DRIVER, base + buf_off, buf_size, mode, pace.rate, (int)getpid());
	if (tasks)
		write_tasks(&w);
	fflush(stdout);

	for (uint32_t i = 0; !(i && !burst_left ? fw_pace(&pace, records, &g_stop) : g_stop); i++) {
		bool burst_end = burst_left == 1;
		if (burst_left)
			burst_left--;
		if (tstops_seen != g_tstop) { /* trace stop: after the stop burst, if any */
			tstops_seen = g_tstop;
			stop_pending = true;
			burst_left = stop_burst;
			say_burst(stop_burst, records);
		}
		if (stop_pending && !burst_left) {
			stop_pending = false;
			if (burst_end) {
				printf("burst done events=%" PRIu64 "\n", records);
				burst_end = false;
			}
			trace_stopped(&pace, records, last_time, clears_seen);
			if (g_stop)
				break;
		}
		if (conts_seen != g_cont) {
			/* continued after SIGSTOP (or a spurious SIGCONT): the clock ran meanwhile */
			conts_seen = g_cont;
			uint64_t ticks = clock_runs && last_ns ?
				(mono_ns() - last_ns) * pace.rate * (irregular ? 2500 : 1) / 1000000000u
				: 0;
			w.time += ticks;
			clock_gettime(CLOCK_MONOTONIC, &pace.next); /* no catching up: the stop is quiet */
			pace.in_burst = 0;
			printf("jump at=%" PRIu64 " ticks=%" PRIu64 "\n", records, ticks);
			fflush(stdout);
			burst_left = burst_after;
			say_burst(burst_after, records);
		}
		last_ns = mono_ns();
		while (clears_seen != g_clear) {
			/* NOTERAM_CLEAR: the tail catches up with the head; an overflowed ring in
			 * mode 0 goes back to recording */
			clears_seen++;
			clears++;
			nxw_set_tail(&w, nxw_head(&w));
			if (w.overwrite == 2)
				nxw_set_overwrite(&w, 0);
			printf("clear n=%" PRIu64 " time=%" PRIu64 "\n", clears, w.time - 1);
			fflush(stdout);
			burst_left = burst_after;
			say_burst(burst_after, records);
		}
		if (short_every && i && i % short_every == 0) {
			records += short_task(&w, short_pid, &stored);
			short_pid = short_pid >= 999 ? 100 : short_pid + 1;
		}
		/* the first records name the tasks, as the START notes of a boot do; with --tasks
		 * there are none (long overwritten): the names are in the TCBs */
		uint32_t k = i < 5 ? i * 7 : i;
		/* nxw_any: an interrupt leaves at k % 14 == 12, a system call at k % 7 == 4 */
		bool irq_leave = k % 14 == 12, call_leave = k % 7 == 4;
		if ((long_irq && i + 1 >= long_irq && irq_leave) ||
		    (long_call && i + 1 >= long_call && call_leave)) {
			w.time += LONG_TICKS;
			printf("long %s at=%" PRIu32 " time=%" PRIu64 " ticks=%u\n", irq_leave ? "irq" : "call",
			       i, w.time, LONG_TICKS);
			fflush(stdout);
			*(irq_leave ? &long_irq : &long_call) = 0;
		}
		if (mark && mark_at == (uint64_t)i + 1) { /* one more record, before this one */
			unsigned ml = nxw_mark(&w, rec, 5, mark);
			records++;
			if (nxw_add(&w, rec, ml))
				stored++;
			printf("mark at=%" PRIu32 " time=%" PRIu64 "\n", i, w.time - 1);
			fflush(stdout);
		}
		last_time = w.time; /* this record's (the irregular clock's steps vary) */
		w.div = burst_left ? BURST_DIV : 0;
		unsigned len = tasks ? nxw_any_unnamed(&w, rec, k) : nxw_any(&w, rec, k);
		unsigned before = w.overwrite;

		records++;
		if (nxw_add(&w, rec, len)) {
			stored++;
			last_stored = last_time;
		}
		else if (before != 2)
			overflows++;
		__atomic_store_n((uint32_t *)(void *)(ram + OFF_LAST_TIME), (uint32_t)(w.time - 1),
				 __ATOMIC_RELEASE);
		if (burst_end) {
			printf("burst done events=%" PRIu64 "\n", records);
			fflush(stdout);
		}
	}
	printf("summary events=%" PRIu64 " last_time=%" PRIu64 " last_stored=%" PRIu64
	       " stored=%" PRIu64
	       " dropped=%" PRIu64 " overflows=%" PRIu64 " clears=%" PRIu64 " head=%" PRIu32
	       " tail=%" PRIu32 " elapsed_ms=%" PRIu64 "\n", records, last_time, last_stored,
	       stored, w.dropped,
	       overflows, clears, nxw_head(&w), nxw_tail(&w), fw_ns_since(&pace.start) / 1000000u);
	fflush(stdout);
	/* --hold: the RAM stays readable (own memory: the process must live) until SIGTERM */
	while (hold && !g_stop) {
		struct timespec t = { 0, 20 * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	return 0;
}
