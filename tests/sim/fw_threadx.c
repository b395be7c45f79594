/* tests/sim/fw_threadx.c: tt-fw-threadx, a ThreadX "firmware" workload for the simulated target.
 *
 * Maps the simulator's RAM file and writes a ThreadX event trace into it with tests/fw/txwriter
 * (ThreadX's exact store order, current pointer last, back-patched fields, wrap), driven by a
 * small scripted application: four prioritised threads, a queue, a semaphore, a mutex, a block
 * pool, a byte pool, a timer ISR and user events that carry a sequence number so tests can check
 * exactly what arrived. It owns the RAM layout convention (README.md): word 0 of RAM is
 * `_tx_trace_header_ptr`. SIGUSR1 = target reset (tx_trace_enable again), SIGUSR2 = registry
 * churn; both are applied between two events, as an interrupt would be. SIGSTOP/SIGCONT = a
 * debugger halt and resume: pacing restarts from the resume instead of catching up.
 * With --rtt-off, every event is also written as a 32-byte record into a SEGGER RTT up-buffer in
 * the same RAM (rtt_up.h), for comparing with OpenOCD's RTT on the same link: u32 sequence number
 * (1, 2, ...: one per event, also for records dropped because the buffer was full), u32 0, u64
 * nanoseconds since the start (the time stamp ThreadX entries carry with --time cycles, as ns),
 * 16 bytes of zeros.
 * For loss estimates on a target whose clock is narrow and slow: --time-bits N keeps N bits of the
 * cycle counter (24: a SysTick-like source that wraps every 2^24 ticks, 0.67 s at 25 MHz),
 * --clock-scale X runs it at X times real time (an emulated core on a loaded host), --late
 * leaves tracing off (`_tx_trace_header_ptr` NULL, nothing written) until SIGHUP, as a late
 * tx_trace_enable (and ends with a user event, so a reader has every event once it has that).
 * With --stacks OFF, the threads' stacks are real memory at that offset, laid out, painted and
 * used as ThreadX's are: tx_thread_create fills each with 0xEF bytes, then the thread uses it
 * down from its end, here to a fixed depth per thread (STACK_DEPTH: sensor 320 of 1024 bytes,
 * control 2040 of 2048, 8 bytes from overflowing, comms 512 of 1024); the worker's first stack
 * is left unpainted (zeros: no fill pattern, as a firmware built with TX_DISABLE_STACK_FILLING),
 * and registry churn creates it again on a new, painted stack used to 96 bytes. The registry
 * gives each stack's start and size, and events carry stack pointers half as deep as the
 * thread's depth (so the traced figure is shallower than the painted one, as in real firmware
 * whose deepest moment falls between two events).
 */
#include "fwrun.h"
#include "rtt_up.h"
#include "txwriter.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* RAM layout (offsets from --base) */
#define OFF_HEADER_PTR 0x0   /* _tx_trace_header_ptr */
#define OFF_RESETS 0x4       /* resets so far (informational) */
#define OFF_LAST_SEQ 0x8     /* last user-event sequence number written (informational) */
#define OFF_OBJECTS 0x100    /* fake control blocks, 0x40 bytes each */
#define OBJ_SIZE 0x40
#define DEFAULT_BUF_OFF 0x1000

#define STACKS_BYTES 5120u  /* --stacks: sensor, control, comms, worker, worker re-created */
#define WORKER2_DEPTH 96u

#define USER_EVENT_SEQ 4096u /* info1 = sequence number, info2 = emitting thread's index */

enum { OT_THREAD = 1, OT_QUEUE = 3, OT_SEMAPHORE = 4, OT_MUTEX = 5, OT_BLOCK_POOL = 7,
       OT_BYTE_POOL = 8 };
enum { T_SENSOR, T_CONTROL, T_COMMS, T_WORKER, NTHREADS };
enum { O_QUEUE = NTHREADS, O_SEM, O_MUTEX, O_BPOOL, O_HEAP, NOBJS };
/* --stacks: each thread's offset in the stack area and the depth it uses (0: not painted) */
static const uint32_t STACK_AT[NTHREADS] = { 0, 1024, 3072, 4096 };
static const uint32_t STACK_DEPTH[NTHREADS] = { 320, 2040, 512, 0 };

struct obj {
	uint8_t type;
	char name[32];
	uint32_t p1, p2, prio;
};

struct fw {
	struct txw w;
	uint8_t *ram;
	uint32_t base, size;
	struct obj objs[NOBJS];
	uint32_t running;        /* index of the running thread */
	/* limits and pacing */
	struct fw_pace pace;
	uint64_t events, user_events, seq;
	uint64_t resets, churns;
	uint64_t tick_hz;
	double clock_scale;      /* --clock-scale: the cycle counter's speed against real time */
	bool done;
	struct rttw rtt;
	uint64_t rtt_seq;        /* RTT records written or dropped; 0 = no RTT block */
	bool rtt_on;
	uint64_t inversion_at;   /* --inversion-at: the cycle with a deliberate inversion; 0 none */
	uint32_t stacks_off;     /* --stacks: offset of the painted stacks; 0 none */
	uint32_t depth[NTHREADS]; /* --stacks: the depth each thread's stack is used to now */
	uint32_t inversion_ticks; /* --inversion-ticks: how long the worker holds the mutex then */
	uint64_t bad_inversion_at; /* --bad-inversion-at: ... one where control runs meanwhile */
	uint64_t deep_stack_at;  /* --deep-stack-at: the cycle from which the sensor's stack goes
				    deep (once a cycle) */
	uint64_t stall_at;       /* --stall-worker-at: the worker writes nothing from that cycle */
	uint32_t deep_stack;     /* --deep-stack: in that cycle, the worker's stack reaches down to
				    this many bytes above its start; 0: no deeper than usual */
};

static volatile sig_atomic_t g_reset, g_churn, g_stop, g_cont, g_enable;

static void on_signal(int sig)
{
	if (sig == SIGCONT)
		g_cont++;
	else if (sig == SIGHUP)
		g_enable = 1;
	else if (sig == SIGUSR1)
		g_reset++;
	else if (sig == SIGUSR2)
		g_churn++;
	else
		g_stop = 1;
}

static uint32_t obj_addr(const struct fw *f, unsigned i)
{
	return f->base + OFF_OBJECTS + i * OBJ_SIZE;
}

static uint32_t stack_ptr(const struct fw *f, unsigned thread)
{
	const struct obj *o = &f->objs[thread];

	if (f->stacks_off) /* half the thread's depth (64 bytes where it is unpainted) */
		return (o->p1 + o->p2 - (f->depth[thread] ? f->depth[thread] / 2 : 64)) & ~7u;
	return f->base + f->size - 0x400 * (thread + 1) + 0x3C0; /* plausible, inside RAM */
}

/* tx_thread_create's fill (0xEF bytes), then the thread's use down to depth bytes below the
 * end (words that are not the fill); depth 0: left as it was (unpainted). */
static void paint_stack(struct fw *f, uint32_t start, uint32_t size, uint32_t depth)
{
	if (!depth)
		return;
	for (uint32_t a = start; a < start + size; a += 4)
		txw_store32(&f->w, a, 0xEFEFEFEFu);
	for (uint32_t a = start + size - depth; a < start + size; a += 4)
		txw_store32(&f->w, a, a ^ 0x5A5A0000u);
}

/* DWT-like cycle counter at tick_hz from the monotonic clock: wraps at 2^32 like the real one. */
static uint32_t cycles_now(void *arg)
{
	struct fw *f = arg;

	uint64_t ns = (uint64_t)((double)fw_ns_since(&f->pace.start) * f->clock_scale);

	return (uint32_t)(ns / 1000000000u * f->tick_hz + ns % 1000000000u * f->tick_hz / 1000000000u);
}

static void register_all(struct fw *f)
{
	for (unsigned i = 0; i < NOBJS; i++) {
		const struct obj *o = &f->objs[i];

		txw_register(&f->w, obj_addr(f, i), o->type, o->name, o->p1, o->p2, o->prio);
	}
}

static void publish(struct fw *f)
{
	txw_store32(&f->w, f->base + OFF_RESETS, (uint32_t)f->resets);
	txw_store32(&f->w, f->base + OFF_HEADER_PTR, f->w.hdr);
}

static void pace(struct fw *f)
{
	if (fw_pace(&f->pace, f->events, &g_stop))
		f->done = true;
}

static void apply_signals(struct fw *f);

static void rtt_record(struct fw *f)
{
	uint8_t rec[32] = { 0 };
	uint64_t ns = fw_ns_since(&f->pace.start);
	uint32_t seq = (uint32_t)++f->rtt_seq;

	memcpy(rec, &seq, 4); /* little-endian host, as the target */
	memcpy(rec + 8, &ns, 8);
	rttw_put(&f->rtt, rec, sizeof(rec));
}

/* One event from thread context (thread >= 0) or from the timer ISR (thread < 0). Returns the
 * entry address and its time stamp for a later back-patch. */
static uint32_t emit(struct fw *f, int thread, uint32_t id, uint32_t i1, uint32_t i2, uint32_t i3,
		     uint32_t i4, uint32_t *ts)
{
	uint32_t tp, pw, e;

	apply_signals(f);
	if (f->done)
		return 0;
	if (thread < 0) {
		tp = TXW_ISR_THREAD;
		pw = obj_addr(f, f->running);	/* ISR: the interrupted thread */
	} else {
		tp = obj_addr(f, (unsigned)thread);
		pw = txw_prio_word(f->objs[thread].prio, f->objs[thread].prio);
	}
	e = txw_insert(&f->w, tp, pw, id, i1, i2, i3, i4, ts);
	f->events++;
	if (f->rtt_on)
		rtt_record(f);
	if (id == USER_EVENT_SEQ) {
		f->user_events++;
		txw_store32(&f->w, f->base + OFF_LAST_SEQ, (uint32_t)f->seq);
	}
	pace(f);
	return e;
}

static void user_event(struct fw *f, int thread, uint32_t tag)
{
	if (f->done)
		return;
	f->seq++;
	emit(f, thread, USER_EVENT_SEQ, (uint32_t)f->seq, (uint32_t)thread, tag, f->w.wraps & 0xFFFFFFFFu, NULL);
}

/* A context switch as _tx_thread_system_suspend writes it: the entry first names the thread
 * still executing, and info 4 is patched to the real next thread once it is known. */
static void switch_to(struct fw *f, unsigned from, uint32_t state, unsigned to)
{
	uint32_t ts, e = emit(f, (int)from, 2, obj_addr(f, from), state, stack_ptr(f, from),
			      obj_addr(f, from), &ts);

	if (e)
		txw_patch(&f->w, e, 4, obj_addr(f, to), ts);
	f->running = to;
}

/* --inversion-at: the worker (the least urgent) takes the bus mutex, the sensor (the most
 * urgent) blocks on it while the worker owns it (a priority inversion as TraceX counts one: a
 * MUTEX_GET whose info 3 names another owner), the worker releases it (MUTEX_PUT, own count 1)
 * after working --inversion-ticks ticks with it (--time counter: the time stamp jumps by that
 * much; with --deep-stack, deep in its stack: MUTEX_PUT's info 4, its stack pointer, that many
 * bytes above its stack's start, the lowest it is ever seen with), and the sensor runs again (its first event after the release: the inversion's end).
 * bad (--bad-inversion-at): control (priority 8, between the two) runs while the sensor waits,
 * a non-deterministic inversion; the mutex is held no longer than that. */
static void inversion(struct fw *f, uint32_t mtx, bool bad)
{
	uint32_t sp = f->deep_stack ? f->objs[T_WORKER].p1 + f->deep_stack : stack_ptr(f, T_WORKER);

	emit(f, T_WORKER, 52, mtx, 0xFFFFFFFFu, 0, stack_ptr(f, T_WORKER), NULL);
	switch_to(f, T_WORKER, 0, T_SENSOR);
	emit(f, T_SENSOR, 52, mtx, 0xFFFFFFFFu, obj_addr(f, T_WORKER), stack_ptr(f, T_SENSOR), NULL);
	switch_to(f, T_SENSOR, 13, bad ? T_CONTROL : T_WORKER);
	if (bad) {
		user_event(f, T_CONTROL, 0);
		switch_to(f, T_CONTROL, 4, T_WORKER);
	} else {
		f->w.time += f->inversion_ticks;
	}
	emit(f, T_WORKER, 57, mtx, obj_addr(f, T_WORKER), 1, sp, NULL);
	switch_to(f, T_WORKER, 4, T_SENSOR);
	emit(f, T_SENSOR, 57, mtx, obj_addr(f, T_SENSOR), 1, stack_ptr(f, T_SENSOR), NULL);
	printf("%sinversion cycle=%" PRIu64 " seq=%" PRIu64 " held=%" PRIu32 "\n",
	       bad ? "bad " : "", bad ? f->bad_inversion_at : f->inversion_at, f->seq,
	       bad ? 0 : f->inversion_ticks);
	fflush(stdout);
}

/* One period of the application: ISR wakes the sensor, data flows to control and comms. */
static void cycle(struct fw *f, uint32_t n)
{
	uint32_t q = obj_addr(f, O_QUEUE), sem = obj_addr(f, O_SEM), mtx = obj_addr(f, O_MUTEX);
	uint32_t bp = obj_addr(f, O_BPOOL), heap = obj_addr(f, O_HEAP), ts, e;
	uint32_t blk = f->base + 0x800 + (n % 8) * 32;

	emit(f, -1, 3, stack_ptr(f, f->running), 15, 1, 0, NULL);	/* ISR enter */
	emit(f, -1, 88, sem, 1, 1, stack_ptr(f, f->running), NULL);	/* semaphore put */
	e = emit(f, -1, 1, obj_addr(f, T_SENSOR), 6, stack_ptr(f, T_SENSOR),
		 obj_addr(f, f->running), &ts);			/* resume sensor */
	if (e)
		txw_patch(&f->w, e, 4, obj_addr(f, T_SENSOR), ts);
	emit(f, -1, 4, stack_ptr(f, f->running), 15, 0, 0, NULL);	/* ISR exit */
	f->running = T_SENSOR;

	/* sensor: allocate a block, fill it, queue it, log it */
	e = emit(f, T_SENSOR, 10, bp, 0, 0, 7 - n % 8, &ts);
	if (e)
		txw_patch(&f->w, e, 2, blk, ts);	/* the allocated pointer, known later */
	emit(f, T_SENSOR, 69, q, blk, 0, 1 + n % 4, NULL);		/* queue send */
	user_event(f, T_SENSOR, n);
	if (f->deep_stack_at && n >= f->deep_stack_at) {
		/* a thread sleep from deep down the sensor's stack, 40 bytes above its start, in
		 * every cycle from then on (one lost in a gap is not the only one) */
		emit(f, T_SENSOR, 112, 1, 0, f->objs[T_SENSOR].p1 + 40, 0, NULL);
		if (n == f->deep_stack_at) {
			printf("deep stack cycle=%" PRIu32 " seq=%" PRIu64 " free=40\n", n, f->seq);
			fflush(stdout);
		}
	}
	emit(f, T_SENSOR, 83, sem, 0xFFFFFFFFu, 0, stack_ptr(f, T_SENSOR), NULL); /* sem get */
	switch_to(f, T_SENSOR, 6, T_CONTROL);

	/* control: receive, take the bus, compute, release */
	emit(f, T_CONTROL, 68, q, blk, 0xFFFFFFFFu, n % 4, NULL);
	emit(f, T_CONTROL, 52, mtx, 0xFFFFFFFFu, 0, 0, NULL);
	user_event(f, T_CONTROL, n);
	emit(f, T_CONTROL, 57, mtx, obj_addr(f, T_CONTROL), 1, stack_ptr(f, T_CONTROL), NULL);
	emit(f, T_CONTROL, 17, bp, blk, 0, stack_ptr(f, T_CONTROL), NULL);	/* block release */
	switch_to(f, T_CONTROL, 5, T_COMMS);

	/* comms: a buffer from the byte pool, a message out, sleep */
	e = emit(f, T_COMMS, 20, heap, 0, 64 + n % 64, 0xFFFFFFFFu, &ts);
	if (e)
		txw_patch(&f->w, e, 2, f->base + 0xA00 + (n % 4) * 128, ts);
	user_event(f, T_COMMS, n);
	emit(f, T_COMMS, 27, heap, f->base + 0xA00 + (n % 4) * 128, 0, 4096 - 64, NULL);
	emit(f, T_COMMS, 112, 10, 4, stack_ptr(f, T_COMMS), 0, NULL);	/* thread sleep */
	switch_to(f, T_COMMS, 4, T_WORKER);
	if (f->stall_at && n == f->stall_at) {
		printf("stall cycle=%" PRIu32 " seq=%" PRIu64 "\n", n, f->seq);
		fflush(stdout);
	}
	/* a stalled worker runs (the core is its) but writes nothing */
	if (n % 4 == 0 && !(f->stall_at && n >= f->stall_at))
		user_event(f, T_WORKER, n);
	if (f->inversion_at && n == f->inversion_at)
		inversion(f, mtx, false);
	if (f->bad_inversion_at && n == f->bad_inversion_at)
		inversion(f, mtx, true);
}

static void apply_signals(struct fw *f)
{
	static sig_atomic_t resets_seen, churns_seen, conts_seen;

	if (conts_seen != g_cont) {
		/* continued after a stop (a debugger halt): the core's time stood still, so pace
		 * from now on instead of catching up on the halted time in one burst */
		conts_seen = g_cont;
		clock_gettime(CLOCK_MONOTONIC, &f->pace.next);
		f->pace.in_burst = 0;
	}

	while (resets_seen != g_reset) {
		/* tx_trace_enable again: header, registry and entries re-initialised, current back
		 * to the start, created objects registered again */
		resets_seen++;
		f->resets++;
		txw_enable(&f->w, f->w.hdr, (uint32_t)(f->w.ent_end - f->w.hdr), f->w.nreg);
		register_all(f);
		f->events += 2;	/* the two TX_TRACE_RUNNING entries */
		publish(f);
		printf("reset n=%" PRIu64 " seq=%" PRIu64 "\n", f->resets, f->seq);
		fflush(stdout);
	}
	while (churns_seen != g_churn) {
		/* delete the worker and create it again under a new name, same control block: the
		 * registry slot holding that pointer is reused, so old names go stale */
		struct obj *o = &f->objs[T_WORKER];
		uint32_t t = obj_addr(f, T_WORKER);

		churns_seen++;
		f->churns++;
		txw_insert(&f->w, obj_addr(f, T_CONTROL),
			   txw_prio_word(f->objs[T_CONTROL].prio, f->objs[T_CONTROL].prio), 101, t,
			   stack_ptr(f, T_CONTROL), 0, 0, NULL);
		txw_unregister(&f->w, t);
		snprintf(o->name, sizeof(o->name), "worker-%" PRIu64, f->churns);
		if (f->stacks_off) { /* created anew on a new stack, painted */
			o->p1 = f->base + f->stacks_off + STACK_AT[T_WORKER] + o->p2;
			f->depth[T_WORKER] = WORKER2_DEPTH;
			paint_stack(f, o->p1, o->p2, WORKER2_DEPTH);
		}
		txw_register(&f->w, t, o->type, o->name, o->p1, o->p2, o->prio);
		txw_insert(&f->w, obj_addr(f, T_CONTROL),
			   txw_prio_word(f->objs[T_CONTROL].prio, f->objs[T_CONTROL].prio), 100, t,
			   o->prio, stack_ptr(f, T_WORKER), o->p2, NULL);
		f->events += 2;
		printf("churn n=%" PRIu64 " name=%s\n", f->churns, o->name);
		fflush(stdout);
	}
}

static void define_objects(struct fw *f)
{
	static const struct { uint8_t type; const char *name; uint32_t p1, p2, prio; } defs[NOBJS] = {
		[T_SENSOR] = { OT_THREAD, "sensor", 0, 1024, 5 },
		[T_CONTROL] = { OT_THREAD, "control", 0, 2048, 8 },
		[T_COMMS] = { OT_THREAD, "comms", 0, 1024, 12 },
		[T_WORKER] = { OT_THREAD, "worker-0", 0, 512, 20 },
		[O_QUEUE] = { OT_QUEUE, "q_samples", 16, 4, 0 },
		[O_SEM] = { OT_SEMAPHORE, "sem_tick", 0, 0, 0 },
		[O_MUTEX] = { OT_MUTEX, "mtx_bus", 1, 0, 0 },
		[O_BPOOL] = { OT_BLOCK_POOL, "pool_blocks", 256, 32, 0 },
		[O_HEAP] = { OT_BYTE_POOL, "heap", 4096, 0, 0 },
	};

	for (unsigned i = 0; i < NOBJS; i++) {
		struct obj *o = &f->objs[i];

		o->type = defs[i].type;
		snprintf(o->name, sizeof(o->name), "%s", defs[i].name);
		o->p2 = defs[i].p2;
		o->prio = defs[i].prio;
		if (o->type != OT_THREAD)
			o->p1 = defs[i].p1;
		else if (f->stacks_off)
			o->p1 = f->base + f->stacks_off + STACK_AT[i];
		else
			o->p1 = stack_ptr(f, i) - 0x3C0;
	}
}

/* --stacks: every thread's stack painted and used before it is created (registered). */
static void paint_stacks(struct fw *f)
{
	if (!f->stacks_off)
		return;
	printf("stacks");
	for (unsigned i = 0; i < NTHREADS; i++) {
		f->depth[i] = STACK_DEPTH[i];
		paint_stack(f, f->objs[i].p1, f->objs[i].p2, f->depth[i]);
		printf(" %s=0x%08" PRIx32 ":%" PRIu32 ":%" PRIu32, f->objs[i].name, f->objs[i].p1,
		       f->objs[i].p2, f->depth[i]);
	}
	printf("\n");
	fflush(stdout);
}

/* Application start-up: every object registered and its create event written from
 * initialization context, as tx_application_define does. */
static void create_objects(struct fw *f)
{
	static const uint32_t create_id[] = { [OT_THREAD] = 100, [OT_QUEUE] = 60,
		[OT_SEMAPHORE] = 81, [OT_MUTEX] = 50, [OT_BLOCK_POOL] = 11, [OT_BYTE_POOL] = 21 };

	for (unsigned i = 0; i < NOBJS; i++) {
		const struct obj *o = &f->objs[i];

		txw_register(&f->w, obj_addr(f, i), o->type, o->name, o->p1, o->p2, o->prio);
		txw_insert(&f->w, TXW_INIT_THREAD, 0, create_id[o->type], obj_addr(f, i),
			   o->type == OT_THREAD ? o->prio : o->p1, o->p1, o->p2, NULL);
		f->events++;
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tt-fw-threadx (--ram FILE | --anon) --base ADDR --size N [--buf-off OFF]\n"
		"       [--buf-size N]\n"
		"       [--registry N] [--rate EVENTS_PER_S (0 = max)] [--count N] [--duration S]\n"
		"       [--tick-hz HZ] [--time cycles|counter] [--rtt-off OFF --rtt-size N]\n"
		"       [--inversion-at CYCLE]   (a priority inversion in that cycle of the app)\n"
		"       [--time-bits N] [--clock-scale X] [--late]   (a narrow, slow time source;\n"
		"       tracing enabled at SIGHUP)\n"
		"       [--stacks OFF]   (the threads' stacks painted and used at RAM offset OFF)\n"
		"       [--inversion-ticks N]    (... the mutex held N ticks more; --time counter)\n"
		"       [--bad-inversion-at CYCLE] (one where control runs while the sensor waits)\n"
		"       [--deep-stack-at CYCLE]  (the sensor's stack 40 bytes from full from then)\n"
		"       [--stall-worker-at CYCLE] (the worker writes no event from then on)\n"
		"       [--deep-stack FREE]      (... with the worker's stack used down to FREE bytes)\n"
		"Prints 'header=0x... ...' when tracing is enabled and 'summary ...' at exit.\n"
		"SIGUSR1 = target reset, SIGUSR2 = registry churn. See tests/sim/README.md.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ram", required_argument, NULL, 'r' },     { "base", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },    { "buf-off", required_argument, NULL, 'o' },
		{ "buf-size", required_argument, NULL, 'B' }, { "registry", required_argument, NULL, 'g' },
		{ "rate", required_argument, NULL, 'R' },    { "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' }, { "tick-hz", required_argument, NULL, 't' },
		{ "time", required_argument, NULL, 'T' },    { "anon", no_argument, NULL, 'A' },
		{ "rtt-off", required_argument, NULL, 'X' }, { "rtt-size", required_argument, NULL, 'Y' },
		{ "inversion-at", required_argument, NULL, 'I' },
		{ "time-bits", required_argument, NULL, 'M' },
		{ "clock-scale", required_argument, NULL, 'C' },
		{ "late", no_argument, NULL, 'L' },
		{ "stacks", required_argument, NULL, 'S' },
		{ "inversion-ticks", required_argument, NULL, 'J' },
		{ "bad-inversion-at", required_argument, NULL, 'K' },
		{ "deep-stack-at", required_argument, NULL, 'D' },
		{ "stall-worker-at", required_argument, NULL, 'W' },
		{ "deep-stack", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct fw f = { .pace.rate = 1000, .tick_hz = 100000000, .clock_scale = 1.0 };
	const char *path = NULL, *time_mode = "cycles";
	bool anon = false, late = false;
	unsigned time_bits = 32;
	uint32_t buf_off = DEFAULT_BUF_OFF, buf_size = 0, nreg = 16, rtt_off = 0, rtt_size = 0;
	int o, e;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'r': path = optarg; break;
		case 'b': f.base = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': f.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': buf_off = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'B': buf_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'g': nreg = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'R': f.pace.rate = strtoull(optarg, NULL, 0); break;
		case 'n': f.pace.count = strtoull(optarg, NULL, 0); break;
		case 'd': f.pace.duration = strtod(optarg, NULL); break;
		case 't': f.tick_hz = strtoull(optarg, NULL, 0); break;
		case 'T': time_mode = optarg; break;
		case 'A': anon = true; break;
		case 'X': rtt_off = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'Y': rtt_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'I': f.inversion_at = strtoull(optarg, NULL, 0); break;
		case 'M': time_bits = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'C': f.clock_scale = strtod(optarg, NULL); break;
		case 'L': late = true; break;
		case 'S': f.stacks_off = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'J': f.inversion_ticks = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'K': f.bad_inversion_at = strtoull(optarg, NULL, 0); break;
		case 'D': f.deep_stack_at = strtoull(optarg, NULL, 0); break;
		case 'W': f.stall_at = strtoull(optarg, NULL, 0); break;
		case 'F': f.deep_stack = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!buf_size && f.size > buf_off)
		buf_size = f.size - buf_off;
	/* only the words below OFF_OBJECTS and the trace buffer are written; object, block and
	 * stack addresses are just values that appear in events */
	if (!path == !anon || f.size < 2 * DEFAULT_BUF_OFF || (f.base & 3) || (buf_off & 3) ||
	    buf_off < OFF_OBJECTS || (uint64_t)buf_off + buf_size > f.size || !f.tick_hz ||
	    time_bits < 8 || time_bits > 32 || !(f.clock_scale > 0 && f.clock_scale <= 16) ||
	    (strcmp(time_mode, "cycles") && strcmp(time_mode, "counter"))) {
		fprintf(stderr, "tt-fw-threadx: need --ram FILE (or --anon) --base ADDR --size N (at least 8 KiB) "
			"with the trace buffer [--buf-off, +--buf-size) inside RAM at or above "
			"offset 0x%x, 4-byte aligned\n", OFF_OBJECTS);
		usage(stderr);
		return 2;
	}
	if (f.inversion_ticks && strcmp(time_mode, "counter")) {
		fprintf(stderr, "tt-fw-threadx: --inversion-ticks needs --time counter (the time "
			"stamps it moves on)\n");
		return 2;
	}
	if (rtt_off && ((rtt_off & 3) || rtt_off < OFF_OBJECTS || rtt_size < 64 ||
			(uint64_t)rtt_off + RTTW_HDR + rtt_size > f.size ||
			((uint64_t)rtt_off + RTTW_HDR + rtt_size > buf_off &&
			 rtt_off < (uint64_t)buf_off + buf_size))) {
		fprintf(stderr, "tt-fw-threadx: --rtt-off 0x%x --rtt-size %u: the RTT block (%u + %u bytes) "
			"must be 4-byte aligned, inside RAM at or above offset 0x%x and outside the "
			"trace buffer [0x%x, 0x%x)\n", rtt_off, rtt_size, RTTW_HDR, rtt_size, OFF_OBJECTS,
			buf_off, buf_off + buf_size);
		return 2;
	}
	if (f.stacks_off && ((f.stacks_off & 7) || f.stacks_off < OFF_OBJECTS + NOBJS * OBJ_SIZE ||
			     (uint64_t)f.stacks_off + STACKS_BYTES > f.size ||
			     ((uint64_t)f.stacks_off + STACKS_BYTES > buf_off &&
			      f.stacks_off < (uint64_t)buf_off + buf_size))) {
		fprintf(stderr, "tt-fw-threadx: --stacks 0x%x: the stacks (%u bytes) must be 8-byte "
			"aligned, inside RAM above the objects (offset 0x%x) and outside the trace "
			"buffer [0x%x, 0x%x)\n", f.stacks_off, STACKS_BYTES,
			OFF_OBJECTS + NOBJS * OBJ_SIZE, buf_off, buf_off + buf_size);
		return 2;
	}
	if ((e = fw_map_ram(path, f.base, f.size, &f.ram)) < 0) {
		fprintf(stderr, "tt-fw-threadx: cannot map RAM %s: %s\n",
			path ? path : "(anonymous, at the target address)", strerror(-e));
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	fw_pace_start(&f.pace);
	if (rtt_off) {
		rttw_init(&f.rtt, f.ram, f.base, rtt_off, rtt_size);
		f.rtt_on = true;
	}
	txw_init(&f.w, f.ram, f.base, f.size, false);
	if (!strcmp(time_mode, "cycles")) {
		f.w.time_mode = TXW_TIME_CALLBACK;
		f.w.now = cycles_now;
		f.w.now_arg = &f;
	}
	f.w.timer_mask = time_bits < 32 ? (1u << time_bits) - 1 : 0xFFFFFFFFu;
	define_objects(&f);
	txw_store32(&f.w, f.base + OFF_HEADER_PTR, 0);	/* not enabled yet */
	if (late) {
		printf("late header_ptr=0x%08" PRIx32 " pid=%d\n", f.base + OFF_HEADER_PTR,
		       (int)getpid());
		fflush(stdout);
		while (!g_enable && !g_stop) {
			struct timespec t = { 0, 5 * 1000 * 1000 };
			nanosleep(&t, NULL);
		}
		fw_pace_start(&f.pace); /* pace from the enable on */
	}
	if ((e = txw_enable(&f.w, f.base + buf_off, buf_size, nreg)) < 0) {
		fprintf(stderr, "tt-fw-threadx: trace buffer of %" PRIu32 " bytes with %" PRIu32
			" registry entries does not fit\n", buf_size, nreg);
		return 2;
	}
	f.events = 2;
	paint_stacks(&f);
	create_objects(&f);
	publish(&f);
	printf("header=0x%08" PRIx32 " header_ptr=0x%08" PRIx32 " entries=%" PRIu32
	       " registry=%" PRIu32 " tick_hz=%" PRIu64 " rate=%" PRIu64 " pid=%d"
	       " mono_start_ns=%" PRIu64 "\n", f.w.hdr,
	       f.base + OFF_HEADER_PTR, f.w.nent, f.w.nreg,
	       f.w.time_mode == TXW_TIME_CALLBACK ? f.tick_hz : 0, f.pace.rate, (int)getpid(),
	       (uint64_t)f.pace.start.tv_sec * 1000000000u + (uint64_t)f.pace.start.tv_nsec);
	fflush(stdout);

	for (uint32_t n = 0; !f.done; n++)
		cycle(&f, n);
	if (late) { /* the last event is a user event: a reader has it all once it has that one */
		f.done = false;
		user_event(&f, T_SENSOR, 0);
	}

	printf("summary events=%" PRIu64 " user_events=%" PRIu64 " last_seq=%" PRIu64
	       " resets=%" PRIu64 " churns=%" PRIu64 " wraps=%" PRIu64 " current=0x%08" PRIx32
	       " elapsed_ms=%" PRIu64 " rtt_records=%" PRIu64 " rtt_dropped=%" PRIu64 "\n", f.events,
	       f.user_events, f.seq, f.resets, f.churns, f.w.wraps, f.w.cur,
	       fw_ns_since(&f.pace.start) / 1000000u, f.rtt_seq, f.rtt.dropped);
	return 0;
}
