/* proto/nuttx_analysis.c: what NuttX notes mean to the live analysis (analysis_ops.h).
 *
 * NuttX traces the scheduler itself: NOTE_RESUME is the switch to the note's task (what NuttX's
 * `trace dump` prints as sched_switch), NOTE_SUSPEND the previous task's stop (a preemption when
 * its state is still ready to run, else a suspension); NOTE_START and NOTE_STOP a task's life;
 * system calls are NOTE_SYSCALL_ENTER and _LEAVE with the call's number, interrupts NOTE_IRQ_ENTER and _LEAVE
 * with the IRQ's. So the analysis gives each task the time from the switch to it to the next
 * switch, and measures each call and interrupt from entry to exit (proto/README-nuttx.md
 * "Analysis"). Priorities: a larger number is more urgent.
 *
 * Stacks: a firmware built with CONFIG_STACK_COLORATION fills each stack with STACK_COLOR words
 * at its creation; NuttX's own check (up_check_tcbstack) counts the colour words from
 * stack_base_ptr up, over adj_stack_size bytes, and the first word that is not the colour is
 * the deepest use: stackscan.h's rule. The tasks and their bounds come from the TCBs
 * (g_pidhash: the live reader's walk, nuttx_tasks.c, or the image's), the colour from the
 * layout (the ELF's architecture).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "analysis_ops.h"
#include "nuttx_int.h"
#include "reader.h"

enum { N_START = 0, N_STOP = 1, N_SUSPEND = 2, N_RESUME = 3, N_SC_ENTER = 18, N_SC_LEAVE = 19, N_IRQ_ENTER = 20,
       N_IRQ_LEAVE = 21 };

static const struct tt_arg *arg(const struct tt_event *ev, const char *name)
{
	for (unsigned i = 0; i < ev->nargs && i < TT_MAX_ARGS; i++)
		if (ev->args[i].name && !strcmp(ev->args[i].name, name))
			return &ev->args[i];
	return NULL;
}

/* NOTE_SUSPEND's state is one of the ready-to-run ones (enum tstate_e up to RUNNING, as the
 * decoder names them): the task was preempted, as NuttX's dump says with prev_state=R. */
static bool still_ready(const struct tt_event *ev)
{
	static const char *const ready[] = { "pending", "ready", "assigned", "running" };
	const struct tt_arg *a = arg(ev, "state");

	for (size_t i = 0; a && a->text && i < sizeof(ready) / sizeof(ready[0]); i++)
		if (!strcmp(a->text, ready[i]))
			return true;
	return false;
}

static void nx_classify(const struct tt_event *ev, struct tt_an_class *c)
{
	const struct tt_arg *a;

	switch (ev->id) {
	case N_START:
		c->flags |= TT_AN_THREAD_START;
		break;
	case N_STOP:
		c->flags |= TT_AN_THREAD_STOP;
		break;
	case N_SUSPEND:
		c->flags |= still_ready(ev) ? TT_AN_PREEMPTED : TT_AN_SUSPEND;
		c->obj = ev->thread;
		break;
	case N_RESUME:
		c->flags |= TT_AN_SWITCH;
		c->other = ev->thread;
		break;
	case N_SC_ENTER:
	case N_SC_LEAVE:
		if ((a = arg(ev, "nr")) != NULL) {
			c->flags |= ev->id == N_SC_ENTER ? TT_AN_CALL_ENTER : TT_AN_CALL_LEAVE;
			c->obj = a->value;
			c->label = a->text;
		}
		break;
	case N_IRQ_ENTER:
	case N_IRQ_LEAVE:
		if ((a = arg(ev, "irq")) != NULL) {
			c->flags |= TT_AN_IRQ | (ev->id == N_IRQ_ENTER ? TT_AN_ISR_ENTER
								 : TT_AN_ISR_EXIT);
			c->obj = a->value;
		}
		break;
	default:
		break;
	}
}

static const struct tt_nuttx_layout *layout_of(const void *format_cfg,
					      struct tt_nuttx_layout *dflt)
{
	if (format_cfg)
		return format_cfg;
	tt_nuttx_layout_default(dflt, 4);
	return dflt;
}

/* The colour as a little-endian target word, when the layout gives it and the stack bounds. */
static int nx_stack_fill(const void *format_cfg, uint32_t *fill)
{
	struct tt_nuttx_layout d;
	const struct tt_nuttx_layout *lo = layout_of(format_cfg, &d);
	uint32_t c = lo->stack_color;

	if (!c || !lo->tcb_off_stack_base || !lo->tcb_off_stack_size || !lo->pidhash_addr)
		return -ENOENT;
	*fill = lo->big_endian ? (c >> 24) | (c >> 8 & 0xff00u) | (c << 8 & 0xff0000u) | c << 24
			       : c;
	return 0;
}

static int nx_image_threads(const uint8_t *img, size_t len, uint64_t base,
			    const struct tt_reader_config *cfg, tt_an_thread_cb cb, void *arg)
{
	struct tt_nuttx_layout d;
	const struct tt_nuttx_layout *lo = layout_of(cfg ? cfg->format_cfg : NULL, &d);
	struct nx_lay l;
	const char *why;

	if (nx_lay_resolve(lo, &l, &why) < 0)
		return -EINVAL;
	return nx_img_tasks(&l, lo, img, len, base, cb, arg);
}

static int nx_threads(const void *rd, tt_an_thread_cb cb, void *arg)
{
	return tt_nuttx_tasks(rd, cb, arg);
}

const struct tt_analysis_ops tt_nuttx_analysis = {
	.prio_low_is_urgent = false,
	.traces_switches = true,
	.classify = nx_classify,
	.flags = TT_AN_THREAD_START | TT_AN_THREAD_STOP | TT_AN_SUSPEND | TT_AN_PREEMPTED |
		 TT_AN_SWITCH | TT_AN_CALL_ENTER | TT_AN_CALL_LEAVE | TT_AN_IRQ | TT_AN_ISR_ENTER |
		 TT_AN_ISR_EXIT,
	.threads = nx_threads,
	.image_threads = nx_image_threads,
	.stack_fill = nx_stack_fill,
};
