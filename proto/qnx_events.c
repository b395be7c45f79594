/* proto/qnx_events.c: what a QNX event means: its name, its named arguments, the thread it
 * ran in, and what it teaches the decoder (the running thread per CPU from THREAD_RUNNING,
 * process names from PROCCREATE_NAME, thread names from THREAD_NAME).
 *
 * Names and numbers follow proto/README-qnx.md (from shared/reference/qnx-trace.md):
 * only what QNX documents publicly is named; everything else keeps its numbers.
 */
#include "qnx.h"

#include <errno.h>

#include <stdio.h>
#include <string.h>

/* Thread states (6.4 numbering; the same 0-20 assumed for later versions). */
#define QNX_STATES(X)                                                                         \
	X(DEAD, "dead") X(RUNNING, "running") X(READY, "ready") X(STOPPED, "stopped")         \
	X(SEND, "send") X(RECEIVE, "receive") X(REPLY, "reply") X(STACK, "stack")             \
	X(WAITTHREAD, "waitthread") X(WAITPAGE, "waitpage") X(SIGSUSPEND, "sigsuspend")       \
	X(SIGWAITINFO, "sigwaitinfo") X(NANOSLEEP, "nanosleep") X(MUTEX, "mutex")             \
	X(CONDVAR, "condvar") X(JOIN, "join") X(INTR, "intr") X(SEM, "sem")                   \
	X(WAITCTX, "waitctx") X(NET_SEND, "net_send") X(NET_REPLY, "net_reply")

#define X_TH(n, l) "THREAD_" #n,
#define X_VTH(n, l) "VTHREAD_" #n,
#define X_LOW(n, l) l,
static const char *const th_names[] = { QNX_STATES(X_TH) };
static const char *const vth_names[] = { QNX_STATES(X_VTH) };
const char *const tt_qnx_state_names[TT_QNX_NSTATES] = { QNX_STATES(X_LOW) };
_Static_assert(sizeof((const char *[]){ QNX_STATES(X_LOW) }) == sizeof(tt_qnx_state_names),
	       "TT_QNX_NSTATES is the number of QNX_STATES");
#define NSTATES TT_QNX_NSTATES

static const char *const word_names[] = { "word1", "word2", "word3", "word4",
					  "word5", "word6", "word7" };

struct ker_name {
	uint32_t num;
	int ver; /* 0: every version; 6: 6.x and older; 8: 8.x and newer */
	const char *call, *enter, *exit, *intr;
};

/* Kernel call numbers. Version 6 (TRACE_SYS_RELEASE 6.x and older): QNX 6.4's sys/kercalls.h as published in
 * the open-source release (__KER_NOP 0 .. __KER_BAD 101; the __KER_*SPARE* placeholders are
 * left out). 7.x and 8.0: no public table was found, so only what the reference gives for every
 * version (MSG_SENDV, MSG_RECEIVEV, MSG_REPLYV) and 8.0's BAD 107 are named (README-qnx.md). */
#define KER(n, v, s) { n, v, #s, "KER_CALL_" #s, "KER_EXIT_" #s, "KER_INT_" #s }
static const struct ker_name ker_names[] = {
	KER(11, 0, MSG_SENDV),
	KER(14, 0, MSG_RECEIVEV),
	KER(15, 0, MSG_REPLYV),
	KER(107, 8, BAD),
	KER(0, 6, NOP), KER(1, 6, TRACE_EVENT), KER(2, 6, RING0),
	KER(7, 6, SYS_CPUPAGE_GET), KER(8, 6, SYS_CPUPAGE_SET),
	KER(10, 6, MSG_CURRENT), KER(12, 6, MSG_SENDVNC), KER(13, 6, MSG_ERROR),
	KER(16, 6, MSG_READV), KER(17, 6, MSG_WRITEV), KER(18, 6, MSG_READWRITEV),
	KER(19, 6, MSG_INFO), KER(20, 6, MSG_SEND_PULSE), KER(21, 6, MSG_DELIVER_EVENT),
	KER(22, 6, MSG_KEYDATA), KER(23, 6, MSG_READIOV), KER(24, 6, MSG_RECEIVEPULSEV),
	KER(25, 6, MSG_VERIFY_EVENT),
	KER(26, 6, SIGNAL_KILL), KER(27, 6, SIGNAL_RETURN), KER(28, 6, SIGNAL_FAULT),
	KER(29, 6, SIGNAL_ACTION), KER(30, 6, SIGNAL_PROCMASK), KER(31, 6, SIGNAL_SUSPEND),
	KER(32, 6, SIGNAL_WAITINFO),
	KER(35, 6, CHANNEL_CREATE), KER(36, 6, CHANNEL_DESTROY), KER(37, 6, CHANCON_ATTR),
	KER(39, 6, CONNECT_ATTACH), KER(40, 6, CONNECT_DETACH), KER(41, 6, CONNECT_SERVER_INFO),
	KER(42, 6, CONNECT_CLIENT_INFO), KER(43, 6, CONNECT_FLAGS),
	KER(46, 6, THREAD_CREATE), KER(47, 6, THREAD_DESTROY), KER(48, 6, THREAD_DESTROYALL),
	KER(49, 6, THREAD_DETACH), KER(50, 6, THREAD_JOIN), KER(51, 6, THREAD_CANCEL),
	KER(52, 6, THREAD_CTL),
	KER(55, 6, INTERRUPT_ATTACH), KER(56, 6, INTERRUPT_DETACH_FUNC),
	KER(57, 6, INTERRUPT_DETACH), KER(58, 6, INTERRUPT_WAIT), KER(59, 6, INTERRUPT_MASK),
	KER(60, 6, INTERRUPT_UNMASK),
	KER(65, 6, CLOCK_TIME), KER(66, 6, CLOCK_ADJUST), KER(67, 6, CLOCK_PERIOD),
	KER(68, 6, CLOCK_ID),
	KER(70, 6, TIMER_CREATE), KER(71, 6, TIMER_DESTROY), KER(72, 6, TIMER_SETTIME),
	KER(73, 6, TIMER_INFO), KER(74, 6, TIMER_ALARM), KER(75, 6, TIMER_TIMEOUT),
	KER(78, 6, SYNC_CREATE), KER(79, 6, SYNC_DESTROY), KER(80, 6, SYNC_MUTEX_LOCK),
	KER(81, 6, SYNC_MUTEX_UNLOCK), KER(82, 6, SYNC_CONDVAR_WAIT),
	KER(83, 6, SYNC_CONDVAR_SIGNAL), KER(84, 6, SYNC_SEM_POST), KER(85, 6, SYNC_SEM_WAIT),
	KER(86, 6, SYNC_CTL), KER(87, 6, SYNC_MUTEX_REVIVE),
	KER(88, 6, SCHED_GET), KER(89, 6, SCHED_SET), KER(90, 6, SCHED_YIELD),
	KER(91, 6, SCHED_INFO), KER(92, 6, SCHED_CTL),
	KER(93, 6, NET_CRED), KER(94, 6, NET_VTID), KER(95, 6, NET_UNBLOCK),
	KER(96, 6, NET_INFOSCOID), KER(97, 6, NET_SIGNAL_KILL),
	KER(100, 6, MT_CTL), KER(101, 6, BAD),
};

static const struct ker_name *ker_find(const struct tt_qnx *q, uint32_t n)
{
	uint32_t v = q->hdr.os_major;

	for (size_t i = 0; i < sizeof(ker_names) / sizeof(ker_names[0]); i++) {
		const struct ker_name *k = &ker_names[i];
		if (k->num == n && (!k->ver || (k->ver == 6 && v && v <= 6) ||
				    (k->ver == 8 && v >= 8)))
			return k;
	}
	return NULL;
}

static void arg(struct tt_event *ev, const char *name, uint32_t v, uint8_t kind, const char *text)
{
	if (ev->nargs < TT_MAX_ARGS)
		ev->args[ev->nargs++] = (struct tt_arg){ name, text, v, kind };
}

/* Payload words from index `from` as word<i+1>, leaving room for the flags. When they do not
 * all fit, the last slot says how many are not shown as arguments (`more_words`: every word is
 * in raw): a cut is never silent. */
static void words(struct tt_event *ev, const struct tt_qnx_ev *e, unsigned from, uint8_t kind)
{
	unsigned room = TT_MAX_ARGS - (e->incomplete ? 1u : 0u) - (e->truncated ? 1u : 0u);
	unsigned left = e->nw > from ? e->nw - from : 0, slots = room > ev->nargs ? room - ev->nargs : 0;
	unsigned show = left <= slots ? left : slots ? slots - 1 : 0;

	_Static_assert(sizeof(word_names) / sizeof(word_names[0]) >= TT_MAX_ARGS, "word names");
	for (unsigned i = from; i < from + show; i++)
		arg(ev, word_names[i], e->w[i], kind, NULL);
	if (show < left && slots)
		arg(ev, "more_words", left - show, TT_ARG_UINT, NULL);
}

static void flags(struct tt_event *ev, const struct tt_qnx_ev *e)
{
	if (e->incomplete)
		arg(ev, "incomplete", 1, TT_ARG_UINT, NULL);
	if (e->truncated)
		arg(ev, "truncated", 1, TT_ARG_UINT, NULL);
}

static uint32_t w(const struct tt_qnx_ev *e, unsigned i)
{
	return i < e->nw ? e->w[i] : 0;
}

/* Copies the NUL-terminated string at payload byte off into q->text (printable ASCII, other
 * bytes as '?'); returns its length. */
static size_t copy_text(struct tt_qnx *q, const struct tt_qnx_ev *e, unsigned off)
{
	size_t n = 0, total = (size_t)e->nw * 4;

	for (size_t i = off; i < total && e->bytes[i] && n < sizeof(q->text) - 1; i++)
		q->text[n++] = e->bytes[i] >= 0x20 && e->bytes[i] < 0x7f ? (char)e->bytes[i] : '?';
	q->text[n] = 0;
	return n;
}

/* Whether the payload is a NUL-terminated (or full) printable string (a user string event). */
static bool is_text(const struct tt_qnx_ev *e)
{
	size_t total = (size_t)e->nw * 4, i;

	for (i = 0; i < total && e->bytes[i]; i++)
		if (e->bytes[i] < 0x20 || e->bytes[i] >= 0x7f)
			if (e->bytes[i] != '\t' && e->bytes[i] != '\n')
				return false;
	return i > 0;
}

static void name_copy(char *dst, const char *src)
{
	size_t n = 0;

	while (src[n] && n < TT_QNX_NAME_MAX - 1) {
		dst[n] = src[n];
		n++;
	}
	dst[n] = 0;
}

static void remember_proc(struct tt_qnx *q, uint32_t pid, const char *path)
{
	const char *base = strrchr(path, '/');
	struct tt_qnx_proc *p = NULL;

	base = base && base[1] ? base + 1 : path;
	for (unsigned i = 0; i < TT_QNX_MAX_PROCS && !p; i++)
		if (q->procs[i].used && q->procs[i].pid == pid)
			p = &q->procs[i];
	if (!p) {
		p = &q->procs[q->proc_next++ % TT_QNX_MAX_PROCS];
		q->stats.names_evicted += p->used;
	}
	p->used = true;
	p->pid = pid;
	name_copy(p->name, base);
	if (!++q->names_gen) /* 0 means "never computed" */
		q->names_gen = 1;
}

static void remember_thread(struct tt_qnx *q, uint32_t pid, uint32_t tid, const char *name)
{
	struct tt_qnx_thread *t = NULL;

	for (unsigned i = 0; i < TT_QNX_MAX_THREADS && !t; i++)
		if (q->threads[i].used && q->threads[i].pid == pid && q->threads[i].tid == tid)
			t = &q->threads[i];
	if (!t) {
		t = &q->threads[q->thread_next++ % TT_QNX_MAX_THREADS];
		q->stats.names_evicted += t->used;
	}
	t->used = true;
	t->pid = pid;
	t->tid = tid;
	name_copy(t->name, name);
	if (!++q->names_gen) /* 0 means "never computed" */
		q->names_gen = 1;
}

const char *tt_qnx_thread_name(const struct tt_qnx *q, uint32_t pid, uint32_t tid, char *buf,
			       size_t cap)
{
	const char *pn = NULL, *tn = NULL;

	for (unsigned i = 0; i < TT_QNX_MAX_PROCS && !pn; i++)
		if (q->procs[i].used && q->procs[i].pid == pid)
			pn = q->procs[i].name;
	for (unsigned i = 0; i < TT_QNX_MAX_THREADS && !tn; i++)
		if (q->threads[i].used && q->threads[i].pid == pid && q->threads[i].tid == tid)
			tn = q->threads[i].name;
	if (!pn && !tn)
		return NULL;
	if (pn && tn)
		snprintf(buf, cap, "%s/%s", pn, tn);
	else if (pn)
		snprintf(buf, cap, "%s/%u", pn, (unsigned)tid);
	else
		snprintf(buf, cap, "%u/%s", (unsigned)pid, tn);
	return buf;
}

static void ker_call(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev)
{
	uint32_t base = e->event & ~0x200u; /* _NTO_TRACE_KERCALL64 stripped */
	uint32_t kind = base >> 7, n = base & 127;
	const struct ker_name *k = kind < 3 ? ker_find(q, n) : NULL;

	if (kind >= 3) {
		ev->name = "UNKNOWN";
		arg(ev, "event", e->event, TT_ARG_UINT, NULL);
		words(ev, e, 0, TT_ARG_HEX);
		return;
	}
	static const char *const generic[] = { "KER_CALL", "KER_EXIT", "KER_INT" };
	ev->name = !k ? generic[kind] : kind == 0 ? k->enter : kind == 1 ? k->exit : k->intr;
	arg(ev, "call", n, k ? TT_ARG_ENUM : TT_ARG_UINT, k ? k->call : NULL);
	if (kind == 1 && e->nw >= 2) {
		arg(ev, "ret_val", w(e, 0), TT_ARG_HEX, NULL);
		if (w(e, 0) == 0xffffffffu)
			arg(ev, "errno", w(e, 1), TT_ARG_UINT, NULL);
		else
			arg(ev, "ret_data", w(e, 1), TT_ARG_HEX, NULL);
		words(ev, e, 2, TT_ARG_HEX);
		return;
	}
	words(ev, e, 0, TT_ARG_HEX);
}

static void interrupt(const struct tt_qnx_ev *e, struct tt_event *ev)
{
	static const char *const names[] = { NULL, "INT_ENTRY", "INT_EXIT", "INT_HANDLER_ENTRY",
					     "INT_HANDLER_EXIT", "INT_ENTRY_64",
					     "INT_HANDLER_ENTRY_64" };

	ev->name = e->event < 7 && names[e->event] ? names[e->event] : "INT";
	if (e->event == 1) {
		arg(ev, "irq", w(e, 0), TT_ARG_UINT, NULL);
		arg(ev, "ip", w(e, 1), TT_ARG_HEX, NULL);
		words(ev, e, 2, TT_ARG_HEX);
	} else if (e->event == 2) {
		arg(ev, "irq", w(e, 0), TT_ARG_UINT, NULL);
		arg(ev, "in_kernel", w(e, 1), TT_ARG_UINT, NULL);
		words(ev, e, 2, TT_ARG_HEX);
	} else {
		if (!e->event || e->event >= 7)
			arg(ev, "event", e->event, TT_ARG_UINT, NULL);
		words(ev, e, 0, TT_ARG_HEX);
	}
}

static void thread_state(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev,
			 uint32_t s, bool virt)
{
	uint32_t pid = w(e, 0), tid = w(e, 1), max = q->max_th_state;
	const char *sname = NULL;

	if (s < NSTATES) {
		ev->name = virt ? vth_names[s] : th_names[s];
		sname = tt_qnx_state_names[s];
	} else if (s == max - 2) {
		ev->name = virt ? "VTHREAD_CREATE" : "THREAD_CREATE";
		sname = "create";
	} else if (s == max - 1) {
		ev->name = virt ? "VTHREAD_DESTROY" : "THREAD_DESTROY";
		sname = "destroy";
	} else {
		ev->name = virt ? "VTHREAD_STATE" : "THREAD_STATE";
	}
	if (!virt && s == 1 && e->nw >= 2 && e->cpu < TT_QNX_MAX_CPUS) {
		q->run_known |= UINT64_C(1) << e->cpu;
		q->run_pid[e->cpu] = pid;
		q->run_tid[e->cpu] = tid;
		q->run_gen[e->cpu] = 0;
		if (e->nw >= 3)
			ev->prio = (int32_t)(w(e, 2) & 0x7fffffff);
	}
	const char *name = tt_qnx_thread_name(q, pid, tid, q->subj, sizeof(q->subj));
	if (name)
		arg(ev, "thread", tt_qnx_thread_key(pid, tid), TT_ARG_OBJ, name);
	arg(ev, "pid", pid, TT_ARG_UINT, NULL);
	arg(ev, "tid", tid, TT_ARG_UINT, NULL);
	arg(ev, "state", s, sname ? TT_ARG_ENUM : TT_ARG_UINT, sname);
	if (e->nw >= 3)
		arg(ev, "prio", w(e, 2), TT_ARG_UINT, NULL);
	if (e->nw >= 4 && ev->nargs < TT_MAX_ARGS - (e->incomplete || e->truncated))
		arg(ev, "policy", w(e, 3), TT_ARG_UINT, NULL);
}

static void process(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev)
{
	static const char *const names[] = { NULL, "PROCCREATE", "PROCDESTROY", "PROCCREATE_NAME",
					     "PROCDESTROY_NAME", "THREAD_NAME" };
	uint32_t k = e->event >> 6;

	if (e->event & 63 || k >= 6) {
		ev->name = "PR_TH";
		arg(ev, "event", e->event, TT_ARG_UINT, NULL);
		words(ev, e, 0, TT_ARG_HEX);
		return;
	}
	ev->name = names[k];
	if (k == 5) { /* THREAD_NAME: pid, tid, name */
		arg(ev, "pid", w(e, 0), TT_ARG_UINT, NULL);
		arg(ev, "tid", w(e, 1), TT_ARG_UINT, NULL);
		if (e->nw > 2 && copy_text(q, e, 8)) {
			remember_thread(q, w(e, 0), w(e, 1), q->text);
			arg(ev, "name", 0, TT_ARG_ENUM, q->text);
		}
		return;
	}
	arg(ev, "ppid", w(e, 0), TT_ARG_UINT, NULL);
	arg(ev, "pid", w(e, 1), TT_ARG_UINT, NULL);
	if ((k == 3 || k == 4) && e->nw > 2 && copy_text(q, e, 8)) {
		if (k == 3)
			remember_proc(q, w(e, 1), q->text);
		arg(ev, "name", 0, TT_ARG_ENUM, q->text);
	}
}

static void pr_th(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev)
{
	uint32_t max = q->max_th_state;

	if (e->event < max)
		thread_state(q, e, ev, e->event, false);
	else if (max < 63 && e->event < 2 * max)
		thread_state(q, e, ev, e->event - max, true);
	else /* 8.0 has no virtual-thread class: process events at multiples of 64 from 64
	      * (the same rule as tt_qnx_int_to_ext) */
		process(q, e, ev);
}

static void control(const struct tt_qnx_ev *e, struct tt_event *ev)
{
	switch (e->event) {
	case 1:
		ev->name = "CONTROL_TIME";
		arg(ev, "msb", w(e, 0), TT_ARG_HEX, NULL);
		arg(ev, "lsb", w(e, 1), TT_ARG_HEX, NULL);
		return;
	case 2:
		ev->name = "CONTROL_BUFFER";
		arg(ev, "seq", w(e, 0), TT_ARG_UINT, NULL);
		arg(ev, "num_events", w(e, 1), TT_ARG_UINT, NULL);
		return;
	case 4: ev->name = "CONTROL_BUFFER_END"; break;
	case 8: ev->name = "CONTROL_DROPPED"; break;
	default:
		ev->name = "CONTROL";
		arg(ev, "event", e->event, TT_ARG_UINT, NULL);
	}
	words(ev, e, 0, TT_ARG_HEX);
}

static void user(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev)
{
	ev->name = "USER_EVENT";
	arg(ev, "event", e->event, TT_ARG_UINT, NULL);
	if (e->combine && is_text(e)) {
		copy_text(q, e, 0);
		arg(ev, "text", 0, TT_ARG_ENUM, q->text);
		return;
	}
	words(ev, e, 0, TT_ARG_UINT);
}

/* The name of the thread running on cpu (known), recomputed only when it or a name changed:
 * this runs for nearly every event. */
static const char *running_name(struct tt_qnx *q, uint8_t cpu)
{
	if (q->run_gen[cpu] != q->names_gen) {
		q->run_name[cpu] = tt_qnx_thread_name(q, q->run_pid[cpu], q->run_tid[cpu],
						      q->run_buf[cpu], sizeof(q->run_buf[cpu]));
		q->run_gen[cpu] = q->names_gen;
	}
	return q->run_name[cpu];
}

static void running(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev)
{
	bool known = e->cpu < TT_QNX_MAX_CPUS && (q->run_known >> e->cpu & 1);
	uint32_t key = known ? tt_qnx_thread_key(q->run_pid[e->cpu], q->run_tid[e->cpu]) : 0;

	if (e->cls == TT_QNX_C_INT) {
		ev->ctx = TT_CTX_ISR;
		if (known) {
			ev->interrupted = key;
			ev->interrupted_name = running_name(q, e->cpu);
		}
	} else if (known && e->cls != TT_QNX_C_CONTROL && e->cls != TT_QNX_C_EMPTY) {
		ev->ctx = TT_CTX_THREAD;
		ev->thread = key;
		ev->thread_name = running_name(q, e->cpu);
	} else {
		ev->ctx = TT_CTX_UNKNOWN;
	}
}

void tt_qnx_describe(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev)
{
	static const char *const class_names[] = { "EMPTY", NULL, NULL, NULL, NULL, "SYSTEM",
						   NULL, "COMM", "QUIP", "SEC", "QVM", "PMU" };

	ev->nargs = 0;
	switch (e->cls) {
	case TT_QNX_C_CONTROL: control(e, ev); break;
	case TT_QNX_C_KER_CALL: ker_call(q, e, ev); break;
	case TT_QNX_C_INT: interrupt(e, ev); break;
	case TT_QNX_C_PR_TH: pr_th(q, e, ev); break;
	case TT_QNX_C_USER: user(q, e, ev); break;
	default:
		if (e->cls < sizeof(class_names) / sizeof(class_names[0]) && class_names[e->cls]) {
			ev->name = class_names[e->cls];
		} else {
			ev->name = "UNKNOWN";
			arg(ev, "class", e->cls, TT_ARG_UINT, NULL);
		}
		arg(ev, "event", e->event, TT_ARG_UINT, NULL);
		words(ev, e, 0, TT_ARG_HEX);
	}
	flags(ev, e);
	/* After the event's own effect, so THREAD_RUNNING and names apply to themselves. */
	running(q, e, ev);
}

/* ---- internal <-> external class/event mapping (the _NTO_TRACE_GET*()/SET*() macro page) ---- */

#define MAX_TH(ver) ((ver) >= 8 ? 63u : 26u) /* _TRACE_MAX_TH_STATE_NUM */

/* Classes mapped one to one, same event: external, internal, first version. */
static const struct {
	uint8_t x, i, ver;
} same[] = {
	{ TT_QNX_X_EMPTY, TT_QNX_C_EMPTY, 0 },   { TT_QNX_X_CONTROL, TT_QNX_C_CONTROL, 0 },
	{ TT_QNX_X_USER, TT_QNX_C_USER, 0 },     { TT_QNX_X_SYSTEM, TT_QNX_C_SYSTEM, 0 },
	{ TT_QNX_X_COMM, TT_QNX_C_COMM, 0 },     { TT_QNX_X_QUIP, TT_QNX_C_QUIP, 7 },
	{ TT_QNX_X_SEC, TT_QNX_C_SEC, 7 },       { TT_QNX_X_QVM, TT_QNX_C_QVM, 7 },
	{ TT_QNX_X_PMU, TT_QNX_C_PMU, 8 },
};
/* External INT classes (before 8.0) and their internal INT event. */
static const uint8_t int_x[] = { 0, TT_QNX_X_INTENTER, TT_QNX_X_INTEXIT,
				 TT_QNX_X_INT_HANDLER_ENTER, TT_QNX_X_INT_HANDLER_EXIT };

/* The position of the one bit of m, or -1. */
static int one_bit(uint32_t m)
{
	return m && !(m & (m - 1)) ? __builtin_ctz(m) : -1;
}

int tt_qnx_ext_to_int(unsigned ver, uint32_t xclass, uint32_t xevent, uint32_t *cls,
		      uint32_t *event)
{
	const uint32_t max = MAX_TH(ver);
	int b;

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		if (same[i].x != xclass)
			continue;
		if (ver < same[i].ver || xevent > 0x3ff)
			return -EINVAL;
		*cls = same[i].i;
		*event = xevent;
		return 0;
	}
	switch (xclass) {
	case TT_QNX_X_KERCALLENTER:
	case TT_QNX_X_KERCALLEXIT:
	case TT_QNX_X_KERCALLINT: {
		uint32_t k64 = ver >= 7 ? xevent & TT_QNX_KERCALL64 : 0, n = xevent & ~k64;
		if (n >= 128)
			return -EINVAL;
		*cls = TT_QNX_C_KER_CALL;
		*event = (n + 128 * (xclass - TT_QNX_X_KERCALLENTER)) | k64;
		return 0;
	}
	case TT_QNX_X_INTENTER:
	case TT_QNX_X_INTEXIT:
	case TT_QNX_X_INT_HANDLER_ENTER:
	case TT_QNX_X_INT_HANDLER_EXIT:
		if (ver >= 8)
			return -EINVAL;
		*cls = TT_QNX_C_INT;
		for (uint32_t e = 1; e < sizeof(int_x); e++)
			if (int_x[e] == xclass)
				*event = e;
		return 0;
	case TT_QNX_X_THREAD:
		if (ver >= 8) { /* 8.0: the state number itself */
			if (xevent >= max)
				return -EINVAL;
			*cls = TT_QNX_C_PR_TH;
			*event = xevent;
			return 0;
		}
		/* fall through */
	case TT_QNX_X_VTHREAD:
		if ((xclass == TT_QNX_X_VTHREAD && ver >= 8) || (b = one_bit(xevent)) < 0 ||
		    (uint32_t)b >= max)
			return -EINVAL;
		*cls = TT_QNX_C_PR_TH;
		*event = (uint32_t)b + (xclass == TT_QNX_X_VTHREAD ? max : 0);
		return 0;
	case TT_QNX_X_PROCESS:
		/* (position + 1) << 6 must fit the 10-bit event */
		if ((b = one_bit(xevent)) < 0 || b > 14)
			return -EINVAL;
		*cls = TT_QNX_C_PR_TH;
		*event = (uint32_t)(b + 1) << 6;
		return 0;
	}
	return -EINVAL; /* the KERCALL and INT pseudo-classes, reserved or unknown classes */
}

int tt_qnx_int_to_ext(unsigned ver, uint32_t cls, uint32_t event, uint32_t *xclass,
		      uint32_t *xevent)
{
	const uint32_t max = MAX_TH(ver);

	if (event > 0x3ff)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		if (same[i].i != cls)
			continue;
		if (ver < same[i].ver)
			return -EINVAL;
		*xclass = same[i].x;
		*xevent = event;
		return 0;
	}
	switch (cls) {
	case TT_QNX_C_KER_CALL: {
		uint32_t k64 = ver >= 7 ? event & TT_QNX_KERCALL64 : 0, n = event & ~k64;
		if (n >= 3 * 128)
			return -EINVAL;
		*xclass = TT_QNX_X_KERCALLENTER + n / 128;
		*xevent = (n % 128) | k64;
		return 0;
	}
	case TT_QNX_C_INT:
		if (ver >= 8 || event < 1 || event >= sizeof(int_x))
			return -EINVAL; /* 8.0, and 7.0's ENTRY_64/HANDLER_ENTRY_64: no documented class */
		*xclass = int_x[event];
		*xevent = 0;
		return 0;
	case TT_QNX_C_PR_TH:
		if (ver >= 8) {
			if (event < max) {
				*xclass = TT_QNX_X_THREAD;
				*xevent = event;
				return 0;
			}
			if (event & 0x3f)
				return -EINVAL;
			*xclass = TT_QNX_X_PROCESS;
			*xevent = 1u << ((event >> 6) - 1);
			return 0;
		}
		if (event >= 2 * max) {
			if (event & 0x3f)
				return -EINVAL;
			*xclass = TT_QNX_X_PROCESS;
			*xevent = 1u << ((event >> 6) - 1);
		} else if (event >= max) {
			*xclass = TT_QNX_X_VTHREAD;
			*xevent = 1u << (event - max);
		} else {
			*xclass = TT_QNX_X_THREAD;
			*xevent = 1u << event;
		}
		return 0;
	}
	return -EINVAL;
}
