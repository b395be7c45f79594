/* proto/qnx_analysis.c: what QNX kernel events mean to the live analysis (analysis_ops.h).
 *
 * QNX traces the scheduler per CPU: THREAD_RUNNING is the switch to the event's thread on the
 * event's CPU (the reader names the running thread after the event's own effect). Kernel calls
 * are KER_CALL_x (enter) and KER_EXIT_x (exit) of the running thread, with the call's number;
 * KER_INT_x ends a call the kernel interrupted (traceprinter's INT_CALL: the call returns, to be
 * restarted by the library), so it ends the call's measure too. Interrupts are INT_ENTRY and
 * INT_EXIT with the IRQ's number, nesting per CPU. THREAD_<STATE> (pid, tid) is that thread
 * entering the state (THREAD_RUNNING too), THREAD_DESTROY its end: time per thread per state.
 * Priorities: a larger number is more urgent.
 * Event ids are (internal class << 10) | event (qnx.h).
 */
#include <string.h>

#include "analysis_ops.h"
#include "qnx.h"
#include "reader.h"

#define CLASS(id) ((id) >> 10)
#define EVENT(id) ((id) & 0x3FFu)
enum { C_KER_CALL = 2, C_INT = 3, C_PR_TH = 4 };
enum { E_THREAD_RUNNING = 1, E_INT_ENTRY = 1, E_INT_EXIT = 2 };

static const struct tt_arg *arg(const struct tt_event *ev, const char *name)
{
	for (unsigned i = 0; i < ev->nargs && i < TT_MAX_ARGS; i++)
		if (ev->args[i].name && !strcmp(ev->args[i].name, name))
			return &ev->args[i];
	return NULL;
}

/* THREAD_<STATE>: the thread it names enters the state; THREAD_DESTROY: it ends. */
static void qx_state(const struct tt_event *ev, struct tt_an_class *c, uint32_t e)
{
	const struct tt_arg *pid = arg(ev, "pid"), *tid = arg(ev, "tid");

	if (!pid || !tid)
		return;
	if (e < TT_QNX_NSTATES)
		c->state = e;
	else if (ev->name && !strcmp(ev->name, "THREAD_DESTROY"))
		c->state = TT_AN_STATE_NONE;
	else
		return; /* THREAD_CREATE: its first state comes next */
	c->flags |= TT_AN_STATE;
	c->state_thread = tt_qnx_thread_key(pid->value, tid->value);
}

static void qx_classify(const struct tt_event *ev, struct tt_an_class *c)
{
	uint32_t cls = CLASS(ev->id), e = EVENT(ev->id);
	const struct tt_arg *a;

	if (cls == C_PR_TH)
		qx_state(ev, c, e);
	if (cls == C_PR_TH && e == E_THREAD_RUNNING && ev->ctx == TT_CTX_THREAD) {
		c->flags |= TT_AN_SWITCH;
		c->other = ev->thread;
	} else if (cls == C_KER_CALL && e < 3 * 128 && (a = arg(ev, "call")) != NULL) {
		c->flags |= e < 128 ? TT_AN_CALL_ENTER : TT_AN_CALL_LEAVE;
		c->obj = e & 127u;
		c->label = a->text;
	} else if (cls == C_INT && (e == E_INT_ENTRY || e == E_INT_EXIT) &&
		   (a = arg(ev, "irq")) != NULL) {
		c->flags |= TT_AN_IRQ | (e == E_INT_ENTRY ? TT_AN_ISR_ENTER : TT_AN_ISR_EXIT);
		c->obj = a->value;
	}
}

const struct tt_analysis_ops tt_qnx_analysis = {
	.prio_low_is_urgent = false,
	.traces_switches = true,
	.classify = qx_classify,
	.state_names = tt_qnx_state_names,
	.nstates = TT_QNX_NSTATES,
	.flags = TT_AN_STATE | TT_AN_SWITCH | TT_AN_CALL_ENTER | TT_AN_CALL_LEAVE | TT_AN_IRQ |
		 TT_AN_ISR_ENTER | TT_AN_ISR_EXIT,
};
