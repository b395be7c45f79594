/* tests/firmware/main.c: tt-fw-mps2, a bare-metal firmware for QEMU's mps2-an385 (Cortex-M3)
 * that traces like a ThreadX application: tests/fw/txwriter.c (ThreadX's store order, the same
 * code the host workloads use) writes the buffer in PSRAM and `_tx_trace_header_ptr` points at
 * it. SysTick at TICK_HZ drives everything: its handler records a timer interrupt (enter,
 * semaphore put, sensor resumed, exit) and wakes the main loop, which runs three "threads" in
 * turn (sensor, control, comms) with queue, mutex and semaphore events and user events numbered
 * 1, 2, 3, ...; comms ends the round suspending itself (sleep, next thread none), and the core
 * idles in WFI until the next tick, which names no interrupted thread.
 * Each thread runs on a stack of its own in PSRAM (a trampoline moves the stack pointer there),
 * painted with 0xEF bytes before the thread is registered, as tx_thread_create does, and
 * registered with its bounds; each digs to a fixed depth below its stack's end (STACK_DEPTH:
 * a word written there while on that stack), deeper than the calls and interrupts on it ever
 * go, so the high-water mark is known: sensor 384, control 992 of 1024 (32 bytes of margin),
 * comms 512. The stack pointer words of the events (where ThreadX puts the caller's stack
 * pointer) hold the real one at the thread's entry.
 * Time stamps are SysTick's down-counter unwrapped with the tick count (QEMU has no DWT cycle
 * counter): ticks * (RELOAD + 1) + elapsed cycles of the current tick, 25 MHz.
 *
 * PSRAM layout (addresses the tests read; see tests/firmware/README.md):
 *   0x21000000 _tx_trace_header_ptr   0x21000004 boots (incremented at every reset)
 *   0x21000008 last user sequence     0x2100000C events written since boot
 *   0x21001000 the trace buffer (TRACE_SIZE bytes)
 *   0x21020000 the threads' stacks, STACK_SIZE bytes each (sensor, control, comms)
 */
#include <stdint.h>
#include <string.h>

#include "txwriter.h"

#define SYSCLK_HZ 25000000u
#define TICK_HZ 50u /* 14 events a tick: 700/s, well within the simulated JTAG link */

/* The narrow variant (tt-fw-mps2-narrow.elf, built with -DTT_FW_NARROW), what an upstream
 * ThreadX run on this board had: a 24-bit time source (a wrap every 0.67 s at 25 MHz), tracing
 * enabled late (LATE_TICKS after boot), and comms deleted and created again in the same control
 * block under a new name, comms-G, every RECREATE rounds (its user events carry G in info 3,
 * 0 for the first, "comms"). */
#ifdef TT_FW_NARROW
#define TIME_MASK 0xFFFFFFu
#define LATE_TICKS 50u
#define RECREATE 16u
#else
#define TIME_MASK 0xFFFFFFFFu
#define LATE_TICKS 0u
#define RECREATE 0u
#endif
#define RELOAD (SYSCLK_HZ / TICK_HZ - 1)
#define PSRAM_BASE 0x21000000u
#define PSRAM_SIZE 0x01000000u
#define TRACE_OFF 0x1000u
#define TRACE_SIZE 0x10000u
#define REGISTRY 16u
#define STACKS_OFF 0x20000u
#define STACK_SIZE 1024u
#define STACK_FILL 0xEFEFEFEFu /* ThreadX's TX_STACK_FILL */

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define ICSR (*(volatile uint32_t *)0xE000ED04u)
#define ICSR_PENDSTSET (1u << 26)
#define TX_SLEEP 4u           /* ThreadX thread states (tx_api.h) */
#define TX_SEMAPHORE_SUSP 6u
#define IDLE (-1)             /* no thread runs: the core waits in WFI */

/* ThreadX event ids (shared/reference/threadx-trace-events.tsv) */
enum {
	EV_ISR_ENTER = 3, EV_ISR_EXIT = 4, EV_THREAD_RESUME = 1, EV_THREAD_SUSPEND = 2,
	EV_MUTEX_GET = 52, EV_MUTEX_PUT = 57, EV_QUEUE_RECEIVE = 68, EV_QUEUE_SEND = 69,
	EV_SEM_GET = 83, EV_SEM_PUT = 88, EV_THREAD_CREATE = 100, EV_THREAD_DELETE = 101,
	EV_THREAD_SLEEP = 112, EV_USER = 4096,
};
enum { OT_THREAD = 1, OT_QUEUE = 3, OT_SEMAPHORE = 4, OT_MUTEX = 5 };
enum { T_SENSOR, T_CONTROL, T_COMMS, NTHREADS };

__attribute__((section(".psram.0"), used)) volatile uint32_t _tx_trace_header_ptr;
__attribute__((section(".psram.1"), used)) volatile uint32_t fw_boots;
__attribute__((section(".psram.2"), used)) volatile uint32_t fw_last_seq;
__attribute__((section(".psram.3"), used)) volatile uint32_t fw_events;

/* control blocks: only their addresses appear in events, as in a real application */
static uint32_t thread_cb[NTHREADS][16], queue_cb[8], sem_cb[8], mutex_cb[8];
static const char *const thread_name[NTHREADS] = { "sensor", "control", "comms" };
static const uint32_t thread_prio[NTHREADS] = { 5, 8, 12 };
static const uint32_t STACK_DEPTH[NTHREADS] = { 384, 992, 512 };
static uint32_t thread_sp[NTHREADS]; /* each thread's stack pointer at its last event */

static struct txw w;
static volatile uint32_t ticks;
static uint32_t seq;
static int current = IDLE;

static uint32_t addr(const volatile void *p)
{
	return (uint32_t)(uintptr_t)p;
}

/* SysTick unwrapped: called with interrupts masked (inside emit), so a wrap not yet handled
 * shows as a pending SysTick exception and counts one tick more. */
static uint32_t now(void *arg)
{
	uint32_t t = ticks, cvr = SYST_CVR;

	(void)arg;
	if (ICSR & ICSR_PENDSTSET) {
		t++;
		cvr = SYST_CVR;	/* read after the wrap */
	}
	return (t * (RELOAD + 1) + (RELOAD - cvr)) & TIME_MASK;
}

/* One event, atomically with respect to the SysTick handler, as ThreadX disables interrupts
 * around its trace insert. thread < 0: interrupt context. */
static void emit(int thread, uint32_t id, uint32_t i1, uint32_t i2, uint32_t i3, uint32_t i4)
{
	uint32_t primask, who, prio;

	__asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask) : : "memory");
	if (thread < 0) {
		who = TXW_ISR_THREAD;
		/* the interrupted thread, 0 when none ran (as ThreadX's _tx_thread_current_ptr) */
		prio = current == IDLE ? 0 : addr(thread_cb[current]);
	} else {
		who = addr(thread_cb[thread]);
		prio = txw_prio_word(thread_prio[thread], thread_prio[thread]);
	}
	if (txw_insert(&w, who, prio, id, i1, i2, i3, i4, NULL))
		fw_events = fw_events + 1;	/* 0: tracing not enabled yet */
	__asm volatile("msr primask, %0" : : "r"(primask) : "memory");
}

static void user_event(int thread, uint32_t tag)
{
	seq++;
	emit(thread, EV_USER, seq, (uint32_t)thread, tag, 0);
	fw_last_seq = seq;
}

static uint32_t stack_start(int thread)
{
	return PSRAM_BASE + STACKS_OFF + (uint32_t)thread * STACK_SIZE;
}

/* The thread's stack pointer as of its last event (the ISR's resume names sensor's). */
static uint32_t stack_ptr(int thread)
{
	return thread_sp[thread];
}

/* The tick wakes `sensor`, suspended on the semaphore: its resume is written from the ISR with
 * sensor as the thread that runs next, as ThreadX's semaphore put does. */
void systick_handler(void)
{
	ticks = ticks + 1;
	emit(-1, EV_ISR_ENTER, addr(&ticks), 15, 1, 0);
	emit(-1, EV_SEM_PUT, addr(sem_cb), 1, 1, 0);
	emit(-1, EV_THREAD_RESUME, addr(thread_cb[T_SENSOR]), TX_SEMAPHORE_SUSP,
	     stack_ptr(T_SENSOR), addr(thread_cb[T_SENSOR]));
	emit(-1, EV_ISR_EXIT, addr(&ticks), 15, 0, 0);
}

/* The thread's deepest use: a word at its fixed depth below the stack's end, written while the
 * thread runs on that stack. */
static uint32_t comms_gen;       /* the narrow variant: comms' generation (0: "comms") */
static char comms_name[16];

/* tx_thread_delete and tx_thread_create of comms by control, as ThreadX writes them: the
 * THREAD_DELETE event, the registry slot given up, the same control block registered again under
 * comms-G, THREAD_CREATE (priority, stack start and size). Interrupts masked: the tick's events
 * and the registry share the writer. */
static void recreate_comms(uint32_t sp)
{
	uint32_t cb = addr(thread_cb[T_COMMS]), primask, g, k = 6;
	char digits[12];
	int nd = 0;

	__asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask) : : "memory");
	emit(T_CONTROL, EV_THREAD_DELETE, cb, stack_start(T_COMMS), 0, sp);
	txw_unregister(&w, cb);
	g = ++comms_gen;
	do
		digits[nd++] = (char)('0' + g % 10);
	while ((g /= 10) != 0);
	memcpy(comms_name, "comms-", 6);
	while (nd)
		comms_name[k++] = digits[--nd];
	comms_name[k] = 0;
	txw_register(&w, cb, OT_THREAD, comms_name, stack_start(T_COMMS), STACK_SIZE,
		     thread_prio[T_COMMS]);
	emit(T_CONTROL, EV_THREAD_CREATE, cb, thread_prio[T_COMMS], stack_start(T_COMMS),
	     STACK_SIZE);
	__asm volatile("msr primask, %0" : : "r"(primask) : "memory");
}

static void dig(int thread)
{
	volatile uint32_t *deep = (volatile uint32_t *)(uintptr_t)(stack_start(thread) + STACK_SIZE -
								   STACK_DEPTH[thread]);

	*deep = 0x5A5A0000u | (uint32_t)thread;
}

static void run(int thread, uint32_t n)
{
	uint32_t sp;

	__asm volatile("mov %0, sp" : "=r"(sp));
	thread_sp[thread] = sp;
	current = thread;
	dig(thread);
	switch (thread) {
	case T_SENSOR:
		emit(thread, EV_SEM_GET, addr(sem_cb), 0xFFFFFFFFu, 0, sp);
		emit(thread, EV_QUEUE_SEND, addr(queue_cb), n, 0, 1 + n % 4);
		user_event(thread, n);
		break;
	case T_CONTROL:
		emit(thread, EV_QUEUE_RECEIVE, addr(queue_cb), n, 0xFFFFFFFFu, n % 4);
		emit(thread, EV_MUTEX_GET, addr(mutex_cb), 0xFFFFFFFFu, 0, 0);
		user_event(thread, n);
		emit(thread, EV_MUTEX_PUT, addr(mutex_cb), addr(thread_cb[thread]), 1, sp);
		if (RECREATE && n % RECREATE == RECREATE - 1)
			recreate_comms(sp);
		break;
	default:
		/* the last of the round: it sleeps, and nothing runs until the next tick (WFI) */
		user_event(thread, RECREATE ? comms_gen : n);
		emit(thread, EV_THREAD_SLEEP, 10, 4, sp, 0);
		emit(thread, EV_THREAD_SUSPEND, addr(thread_cb[thread]), TX_SLEEP, stack_ptr(thread),
		     0);
		current = IDLE;
		break;
	}
}

/* run(thread, n) with the stack pointer at the end of the thread's own stack, and back. */
static void __attribute__((noinline)) run_on_stack(int thread, uint32_t n)
{
	register uint32_t r0 __asm("r0") = (uint32_t)thread;
	register uint32_t r1 __asm("r1") = n;
	uint32_t top = stack_start(thread) + STACK_SIZE;

	__asm volatile("mov r4, sp\n\t"
		       "mov sp, %[top]\n\t"
		       "blx %[fn]\n\t"
		       "mov sp, r4"
		       : "+r"(r0), "+r"(r1)
		       : [top] "r"(top), [fn] "r"(run)
		       : "r2", "r3", "r4", "r12", "lr", "memory", "cc");
}

/* tx_thread_create's fill, before the thread is registered. */
static void paint_stacks(void)
{
	for (int t = 0; t < NTHREADS; t++) {
		volatile uint32_t *w = (volatile uint32_t *)(uintptr_t)stack_start(t);
		for (uint32_t i = 0; i < STACK_SIZE / 4; i++)
			w[i] = STACK_FILL;
		thread_sp[t] = stack_start(t) + STACK_SIZE;
	}
}

int main(void)
{
	uint32_t last = 0;

	fw_boots = fw_boots + 1;
	fw_events = 0;
	_tx_trace_header_ptr = 0;	/* not enabled yet */
	txw_init(&w, (uint8_t *)PSRAM_BASE, PSRAM_BASE, PSRAM_SIZE, false);
	w.time_mode = TXW_TIME_CALLBACK;
	w.now = now;
	SYST_RVR = RELOAD;
	SYST_CVR = 0;
	SYST_CSR = 7;	/* processor clock, interrupt, enable: time runs from here */
#if LATE_TICKS
	while (ticks < LATE_TICKS)	/* the narrow variant: ticks with tracing off */
		__asm volatile("wfi");
#endif
	__asm volatile("cpsid i" : : : "memory");	/* the tick handler traces too */
	txw_enable(&w, PSRAM_BASE + TRACE_OFF, TRACE_SIZE, REGISTRY);
	fw_events = 2;	/* tx_trace_enable's two RUNNING events */
	paint_stacks();
	for (int i = 0; i < NTHREADS; i++)
		txw_register(&w, addr(thread_cb[i]), OT_THREAD, thread_name[i], stack_start(i),
			     STACK_SIZE, thread_prio[i]);
	txw_register(&w, addr(queue_cb), OT_QUEUE, "q_samples", 0, 0, 0);
	txw_register(&w, addr(sem_cb), OT_SEMAPHORE, "sem_tick", 0, 0, 0);
	txw_register(&w, addr(mutex_cb), OT_MUTEX, "mtx_bus", 0, 0, 0);
	_tx_trace_header_ptr = w.hdr;	/* published last: readers find a whole buffer */
	__asm volatile("cpsie i" : : : "memory");
	for (uint32_t n = 0;; n++) {
		while (ticks == last)
			__asm volatile("wfi");
		last = ticks;
		for (int t = 0; t < NTHREADS; t++)
			run_on_stack(t, n);
	}
}
