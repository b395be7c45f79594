/* proto/nuttx_tasks.c: the live reader's walk of the whole task table, for the tasks' stacks.
 *
 * With the stack members and the colour in the layout (README-nuttx.md, "Stack high-water
 * marks"), after attach and after a poll whose notes started or stopped a task: g_pidhash and
 * g_npidhash, then every hash slot (at most NX_TK_SLOTS), then each TCB's pid, stack_base_ptr
 * and adj_stack_size, a few TCBs a plan. A slot whose TCB's pid does not hash to it is skipped.
 * The table the analysis sees (tt_nuttx_tasks) is replaced only when a walk completes; a walk
 * whose read fails is dropped and tried again after the next poll, up to NX_TK_FAILS in a row.
 */
#include <errno.h>
#include <string.h>

#include "analysis_ops.h"
#include "nuttx_int.h"

#define TK_TCBS_PER_PLAN (TT_PLAN_MAX / 3)

bool nx_tasks_wanted(const struct tt_nuttx_layout *lo)
{
	return lo->pidhash_addr && lo->tcb_off_stack_base && lo->tcb_off_stack_size &&
	       lo->stack_color;
}

void nx_tasks_plan(struct tt_nuttx *rd, struct tt_plan *p)
{
	const struct tt_nuttx_layout *lo = &rd->cfg.layout;
	unsigned ptr = rd->d.lay.ptr;

	if (rd->step == ST_TK_HASH) {
		nx_add_range(rd, p, lo->pidhash_addr, ptr, rd->nm_hash);
		nx_add_range(rd, p, lo->npidhash_addr, 4, rd->nm_count);
	} else if (rd->step == ST_TK_SLOTS) {
		nx_add_range(rd, p, rd->tk_table, rd->tk_nslots * ptr, rd->tk_slots);
	} else {
		for (unsigned k = 0; k < rd->tk_npick; k++) {
			uint64_t tcb = nx_get(&rd->d.lay, rd->tk_slots + rd->tk_pick[k] * ptr, ptr);
			nx_add_range(rd, p, tcb + lo->tcb_off_pid, 4, rd->tk_tcb[k]);
			nx_add_range(rd, p, tcb + lo->tcb_off_stack_base, ptr, rd->tk_tcb[k] + 4);
			nx_add_range(rd, p, tcb + lo->tcb_off_stack_size, ptr, rd->tk_tcb[k] + 12);
		}
	}
}

int nx_tasks_start(struct tt_nuttx *rd)
{
	if (!rd->tk_due || !rd->attached || rd->tk_fails >= NX_TK_FAILS)
		return TT_NUTTX_DONE;
	rd->tk_due = false;
	rd->tk_new = 0;
	rd->step = ST_TK_HASH;
	return TT_NUTTX_MORE;
}

void nx_tasks_failed(struct tt_nuttx *rd)
{
	rd->tk_fails++;
	rd->tk_due = true; /* again after the next poll */
}

static int tk_done(struct tt_nuttx *rd)
{
	memcpy(rd->tk, rd->tk_stage, rd->tk_new * sizeof(rd->tk[0]));
	rd->tk_n = rd->tk_new;
	rd->tk_have = true;
	rd->tk_fails = 0;
	rd->step = ST_CTL;
	return TT_NUTTX_DONE;
}

/* The next slots that hold a TCB (TK_TCBS_PER_PLAN at most) into tk_pick: how many. */
static unsigned tk_next(struct tt_nuttx *rd)
{
	const struct nx_lay *l = &rd->d.lay;

	rd->tk_npick = 0;
	for (; rd->tk_at < rd->tk_nslots && rd->tk_npick < TK_TCBS_PER_PLAN; rd->tk_at++)
		if (nx_get(l, rd->tk_slots + rd->tk_at * l->ptr, l->ptr))
			rd->tk_pick[rd->tk_npick++] = rd->tk_at;
	return rd->tk_npick;
}

/* The picked TCBs as read: the tasks among them. */
static void tk_tcbs(struct tt_nuttx *rd)
{
	const struct nx_lay *l = &rd->d.lay;
	unsigned ps = rd->cfg.layout.tcb_pid_size ? rd->cfg.layout.tcb_pid_size : 4;

	for (unsigned k = 0; k < rd->tk_npick; k++) {
		const uint8_t *t = rd->tk_tcb[k];
		int32_t pid = nx_pid(l, t, ps);
		uint64_t size = nx_get(l, t + 12, l->ptr);
		if (pid < 0 || ((uint32_t)pid & (rd->tk_nslots - 1)) != rd->tk_pick[k] ||
		    size > UINT32_MAX || rd->tk_new == NX_TK_TASKS)
			continue; /* not this slot's task: the table does not hold together here */
		rd->tk_stage[rd->tk_new++] = (struct nx_task){ .pid = pid,
			.start = nx_get(l, t + 4, l->ptr), .size = (uint32_t)size };
	}
}

int nx_tasks_ingest(struct tt_nuttx *rd)
{
	const struct nx_lay *l = &rd->d.lay;
	uint64_t n;

	switch (rd->step) {
	case ST_TK_HASH:
		rd->tk_table = nx_get(l, rd->nm_hash, l->ptr);
		n = nx_get(l, rd->nm_count, 4);
		if (!rd->tk_table || !n || n > NX_TK_SLOTS || (n & (n - 1)))
			return tk_done(rd); /* no table yet (or beyond what is walked): no tasks */
		rd->tk_nslots = (unsigned)n;
		rd->step = ST_TK_SLOTS;
		return TT_NUTTX_MORE;
	case ST_TK_SLOTS:
		rd->tk_at = 0;
		rd->step = ST_TK_TCBS;
		return tk_next(rd) ? TT_NUTTX_MORE : tk_done(rd);
	case ST_TK_TCBS:
		tk_tcbs(rd);
		return tk_next(rd) ? TT_NUTTX_MORE : tk_done(rd);
	default:
		return -EINVAL;
	}
}

int tt_nuttx_tasks(const struct tt_nuttx *rd, tt_an_thread_cb cb, void *arg)
{
	if (!rd->tk_have)
		return -ENOENT;
	for (unsigned i = 0; i < rd->tk_n; i++) {
		struct tt_an_thread t = { .id = (uint32_t)rd->tk[i].pid, .prio = -1,
					  .stack_start = rd->tk[i].start,
					  .stack_size = rd->tk[i].size };
		cb(arg, &t);
	}
	return 0;
}
