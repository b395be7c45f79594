/* proto/threadx_run.c: who runs between two ThreadX events, by TraceX's rules.
 *
 * ThreadX writes no "switched to" event: who runs follows from each event's own context, from
 * THREAD_SUSPEND/THREAD_RESUME (info 4: the thread that runs next, 0 when the port did not
 * record it), THREAD_RELINQUISH (info 2), TIME_SLICE from the timer ISR (info 1), interrupt
 * nesting, and from the context of the event that follows. TraceX derives a "next context" for
 * every event that way (its Thread Execution totals add up the time from each event to the next
 * under that event's next context). The reader derives the same thing here, once, into every
 * event record (ev->run: who ran from the previous event up to this one), so the Perfetto export,
 * the dashboard and any client read it from the stream instead of each re-deriving it.
 *
 * TraceX looks ahead as far as it likes; a live reader publishes an event as soon as it is
 * safe, so the rules here are evaluated for the previous event when the next one arrives: one
 * event of look-ahead. Where TraceX would search further (a THREAD_RESUME or THREAD_RELINQUISH
 * with no next thread recorded, followed by an interrupt that does not name the thread it
 * interrupted: old ports only) the resuming thread is taken to keep running; see
 * proto/README-threadx.md "Who runs".
 */
#include "threadx_int.h"

#define ID_RESUME 1u
#define ID_SUSPEND 2u
#define ID_ISR_ENTER 3u
#define ID_ISR_EXIT 4u
#define ID_TIME_SLICE 5u
#define ID_RELINQUISH 109u

static bool tt_tx_is_thread(uint32_t ctx)
{
	return ctx != TT_TX_ISR_THREAD && ctx != TT_TX_INIT_THREAD;
}

void tt_tx_run_reset(struct tt_threadx *rd)
{
	rd->run.have = false;
	rd->run.n = 0;
	rd->run.cur = 0;
	rd->run.nest = 0;
}

/* The next context of an event p written from an ISR or initialisation, knowing the event n
 * that follows it. Updates the current thread and the nesting. */
static uint32_t tt_tx_next_isr(struct tt_txrun *r, const uint32_t p[8], const uint32_t n[8])
{
	uint32_t id = p[2] & 0xFFFFFFu;
	switch (id) {
	case ID_ISR_ENTER:
		r->nest++;
		break;
	case ID_SUSPEND:
		r->cur = p[7];
		break;
	case ID_TIME_SLICE:
		r->cur = p[4];
		break;
	case ID_RESUME:
		/* a recorded next thread wins; else the resumed thread runs next if it is the next
		 * thread context seen (only the following event is known here) */
		if (p[7] != 0)
			r->cur = p[7];
		else if (tt_tx_is_thread(n[0]) && n[0] != r->cur && n[0] == p[4])
			r->cur = p[4];
		break;
	case ID_ISR_EXIT:
		if (r->nest)
			r->nest--;
		break;
	default:
		break;
	}
	if (r->nest != 0)
		return p[0];
	/* out of every interrupt: the next event's context, unless that is another interrupt
	 * (not a resume from it): then the thread it interrupted when the port records it, else
	 * the current thread */
	if (n[0] == TT_TX_ISR_THREAD && (n[2] & 0xFFFFFFu) != ID_RESUME)
		return n[1] ? n[1] : r->cur;
	return n[0];
}

/* The next context of an event p written from a thread, knowing the event n after it. */
static uint32_t tt_tx_next_thread(struct tt_txrun *r, const uint32_t p[8], const uint32_t n[8])
{
	uint32_t id = p[2] & 0xFFFFFFu, next;
	if (id == ID_SUSPEND) {
		next = p[7];
		/* a thread suspending itself whose next event is its own again: ThreadX's priority
		 * inheritance path; it never stopped running */
		if (p[0] == p[4] && n[0] == p[4])
			next = p[0];
	} else if (id == ID_RESUME) {
		next = p[7] ? p[7] : (tt_tx_is_thread(n[0]) && n[0] == p[4]) ? p[4] : p[0];
	} else if (id == ID_RELINQUISH) {
		next = p[5] ? p[5] : tt_tx_is_thread(n[0]) ? n[0] : p[0];
	} else {
		next = tt_tx_is_thread(n[0]) ? n[0] : p[0];
	}
	r->cur = next;
	return next;
}

void tt_tx_run_event(struct tt_threadx *rd, const uint32_t w[8], struct tt_event *ev)
{
	struct tt_txrun *r = &rd->run;
	ev->run = TT_RUN_NONE;
	if (r->have) {
		const uint32_t *p = r->prev;
		uint32_t next;
		if (tt_tx_is_thread(p[0])) {
			r->cur = p[0];
			r->nest = 0;
			next = tt_tx_next_thread(r, p, w);
		} else {
			next = tt_tx_next_isr(r, p, w);
		}
		/* newer ports write the interrupted thread into an ISR event's priority word: it
		 * was running up to the interrupt, whatever the previous event implied */
		if (w[0] == TT_TX_ISR_THREAD && w[1] != 0 && w[1] != TT_TX_ISR_THREAD &&
		    p[0] != TT_TX_ISR_THREAD && r->n > 1) {
			next = w[1];
			r->cur = w[1];
		}
		if (next == 0) {
			ev->run = TT_RUN_IDLE;
		} else if (next == TT_TX_ISR_THREAD) {
			ev->run = TT_RUN_ISR;
		} else if (next == TT_TX_INIT_THREAD) {
			ev->run = TT_RUN_INIT;
		} else {
			ev->run = TT_RUN_THREAD;
			ev->run_thread = next;
			ev->run_name = tt_tx_obj_name(rd, next);
		}
	}
	for (int i = 0; i < 8; i++)
		r->prev[i] = w[i];
	r->have = true;
	r->n++;
}
