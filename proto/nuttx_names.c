/* proto/nuttx_names.c: task names read from the target for pids no START note named.
 *
 * Live (after a poll whose records showed such pids, NX_WANT a round): g_pidhash and g_npidhash,
 * the hash slots, then each TCB's pid and name; for the pids still unnamed (the task exited, or
 * its slot was reused) NuttX's own cache g_note_taskname, as its `trace dump` names them. The
 * same rules on an image that holds those (a whole-RAM dump). Every pointer, index and size
 * read is checked. README-nuttx.md, "Task names from the target" and "Exited tasks". On an
 * image, the whole task table too: each task's name and stack bounds, for the analysis.
 */
#include <errno.h>
#include <string.h>

#include "analysis_ops.h"
#include "nuttx_int.h"

static uint64_t nm_tcb(const struct tt_nuttx *rd, unsigned i)
{
	return nx_get(&rd->d.lay, rd->nm_slot[i], rd->d.lay.ptr);
}

static unsigned nm_name_len(const struct tt_nuttx_layout *lo)
{
	unsigned n = lo->tcb_name_size;

	return n < NX_NAME_MAX ? n : NX_NAME_MAX;
}

static unsigned nm_pid_size(const struct tt_nuttx_layout *lo)
{
	return lo->tcb_pid_size ? lo->tcb_pid_size : 4;
}

void nx_names_plan(struct tt_nuttx *rd, struct tt_plan *p)
{
	const struct tt_nuttx_layout *lo = &rd->cfg.layout;
	unsigned ptr = rd->d.lay.ptr;

	for (unsigned i = 0; i < rd->nm_n; i++) {
		uint64_t tcb = nm_tcb(rd, i);
		if (rd->step == ST_SLOTS) {
			uint32_t slot = (uint32_t)rd->nm_pid[i] & rd->nm_mask;
			nx_add_range(rd, p, rd->nm_table + (uint64_t)slot * ptr, ptr, rd->nm_slot[i]);
		} else if (rd->step == ST_TCBS && tcb) {
			nx_add_range(rd, p, tcb + lo->tcb_off_pid, nm_pid_size(lo), rd->nm_tpid[i]);
			nx_add_range(rd, p, tcb + lo->tcb_off_name, nm_name_len(lo),
				  (uint8_t *)rd->nm_name[i]);
		}
	}
	if (rd->step == ST_PIDHASH) {
		nx_add_range(rd, p, lo->pidhash_addr, ptr, rd->nm_hash);
		nx_add_range(rd, p, lo->npidhash_addr, 4, rd->nm_count);
	}
	if (rd->step == ST_TASKNAME)
		nx_add_range(rd, p, lo->taskname_addr, 2 * ptr + lo->taskname_size, rd->nm_cache);
}

/* After a poll whose records named pids with no name known: look them up in the target. */
int nx_names_start(struct tt_nuttx *rd)
{
	if (!rd->d.want_names || !rd->d.nwant)
		return TT_NUTTX_DONE;
	rd->nm_n = rd->d.nwant;
	memcpy(rd->nm_pid, rd->d.want, rd->nm_n * sizeof(rd->nm_pid[0]));
	memset(rd->nm_found, 0, sizeof(rd->nm_found));
	rd->d.nwant = 0;
	/* the TCBs first; only NuttX's own cache when the layout has no task table */
	rd->step = rd->cfg.layout.pidhash_addr ? ST_PIDHASH : ST_TASKNAME;
	return TT_NUTTX_MORE;
}

/* Ends the lookup round: names[i] for the pids of this round (NULL: no name there). */
static int names_done(struct tt_nuttx *rd, const char *const *names)
{
	for (unsigned i = 0; i < rd->nm_n; i++)
		nx_set_name(&rd->d, rd->nm_pid[i], names ? names[i] : NULL);
	rd->step = ST_CTL;
	return TT_NUTTX_DONE;
}

/* g_pidhash and g_npidhash as read: a table, and a power of two up to 65536 slots. Else the
 * scheduler has not started yet, or those are not the variables (wrong addresses). */
static bool pidhash_ok(uint64_t table, uint64_t n)
{
	return table && n && n <= 65536 && !(n & (n - 1));
}

static int ingest_pidhash(struct tt_nuttx *rd)
{
	uint64_t n = nx_get(&rd->d.lay, rd->nm_count, 4);

	rd->name_fails = 0;
	rd->nm_table = nx_get(&rd->d.lay, rd->nm_hash, rd->d.lay.ptr);
	if (!pidhash_ok(rd->nm_table, n)) {
		if (!rd->cfg.layout.taskname_addr)
			return names_done(rd, NULL);
		rd->step = ST_TASKNAME; /* no task table (yet): NuttX's own cache */
		return TT_NUTTX_MORE;
	}
	rd->nm_mask = (uint32_t)n - 1;
	rd->step = ST_SLOTS;
	return TT_NUTTX_MORE;
}

static int ingest_tcbs(struct tt_nuttx *rd);

static int ingest_slots(struct tt_nuttx *rd)
{
	for (unsigned i = 0; i < rd->nm_n; i++)
		if (nm_tcb(rd, i)) {
			rd->step = ST_TCBS;
			return TT_NUTTX_MORE;
		}
	return ingest_tcbs(rd); /* the tasks exited: NuttX's cache, if it has one */
}

/* A TCB's name[] as read (at most NX_NAME_MAX bytes): printable text up to its NUL or the end,
 * else NULL (empty, or not a name: the slot held something else). */
static const char *tcb_name(char *s, unsigned len)
{
	unsigned n = 0;

	if (!len)
		return NULL;
	while (n < len && s[n])
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e)
			return NULL;
		else
			n++;
	if (n == len)
		n = len - 1; /* longer than the cache keeps: cut */
	s[n] = 0;
	return n ? s : NULL;
}

/* The name of the TCB whose pid (as read at tpid) is pid, from its name[] as read at name; NULL
 * when the TCB is another task's (ours exited and the slot was reused) or the name is not one. */
static const char *tcb_match(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			     const uint8_t *tpid, char *name, int32_t pid)
{
	if (nx_pid(l, tpid, nm_pid_size(lo)) != pid)
		return NULL;
	return tcb_name(name, nm_name_len(lo));
}

/* NuttX's task name cache as read (c: head, tail, then lo->taskname_size bytes of entries
 * {pid, size, name}), searched from the tail as NuttX's note_find_taskname does: pid's name
 * into out (NX_NAME_MAX bytes), or NULL. Every index and size is checked: a cache that does
 * not hold together gives no name. */
static const char *cache_name(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			      const uint8_t *c, int32_t pid, char *out)
{
	const uint8_t *buf = c + 2 * l->ptr;
	uint64_t n = lo->taskname_size, head = nx_get(l, c, l->ptr), at = nx_get(l, c + l->ptr, l->ptr);
	unsigned ps = nm_pid_size(lo);

	if (head >= n || at >= n)
		return NULL;
	for (uint64_t steps = 0; at != head && steps < n; steps++) {
		if (at + ps + 1 > n)
			return NULL;
		unsigned size = buf[at + ps];
		if (size < ps + 2 || at + size > n)
			return NULL;
		if (nx_pid(l, buf + at, ps) == pid) {
			unsigned len = size - ps - 1 < NX_NAME_MAX ? size - ps - 1 : NX_NAME_MAX;
			memcpy(out, buf + at + ps + 1, len);
			return tcb_name(out, len);
		}
		at = (at + size) % n;
	}
	return NULL;
}

static int ingest_tcbs(struct tt_nuttx *rd)
{
	bool missing = false;

	for (unsigned i = 0; i < rd->nm_n; i++) {
		rd->nm_found[i] = NULL;
		if (nm_tcb(rd, i))
			rd->nm_found[i] = tcb_match(&rd->d.lay, &rd->cfg.layout, rd->nm_tpid[i],
						    rd->nm_name[i], rd->nm_pid[i]);
		missing |= !rd->nm_found[i];
	}
	if (missing && rd->cfg.layout.taskname_addr) { /* exited tasks: NuttX's own cache */
		rd->step = ST_TASKNAME;
		return TT_NUTTX_MORE;
	}
	return names_done(rd, rd->nm_found);
}

static int ingest_taskname(struct tt_nuttx *rd)
{
	for (unsigned i = 0; i < rd->nm_n; i++)
		if (!rd->nm_found[i])
			rd->nm_found[i] = cache_name(&rd->d.lay, &rd->cfg.layout, rd->nm_cache,
						     rd->nm_pid[i], rd->nm_name[i]);
	return names_done(rd, rd->nm_found);
}


int nx_names_ingest(struct tt_nuttx *rd)
{
	switch (rd->step) {
	case ST_PIDHASH: return ingest_pidhash(rd);
	case ST_SLOTS: return ingest_slots(rd);
	case ST_TCBS: return ingest_tcbs(rd);
	case ST_TASKNAME: return ingest_taskname(rd);
	default: return -EINVAL;
	}
}

/* ---- in an image ---- */

/* [addr, addr + n) of an image that starts at target address base, or NULL when not inside. */
static const uint8_t *img_at(const uint8_t *img, size_t len, uint64_t base, uint64_t addr,
			     size_t n)
{
	if (addr < base || addr - base > len || len - (addr - base) < n)
		return NULL;
	return img + (addr - base);
}

/* The live lookup's rules on an image that holds the TCBs (a whole-RAM dump): pid's name into
 * out (NX_NAME_MAX bytes), or NULL. */
const char *nx_img_name(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			const uint8_t *img, size_t len, uint64_t base, int32_t pid, char *out)
{
	const uint8_t *h = img_at(img, len, base, lo->pidhash_addr, l->ptr);
	const uint8_t *c = img_at(img, len, base, lo->npidhash_addr, 4);
	uint64_t table = h ? nx_get(l, h, l->ptr) : 0, n = c ? nx_get(l, c, 4) : 0;
	bool ok = pidhash_ok(table, n);
	const uint8_t *s = ok ? img_at(img, len, base, table + ((uint32_t)pid & (n - 1)) * l->ptr,
				       l->ptr) : NULL;
	uint64_t tcb = s ? nx_get(l, s, l->ptr) : 0;
	const uint8_t *tp = tcb ? img_at(img, len, base, tcb + lo->tcb_off_pid, nm_pid_size(lo))
				: NULL;
	const uint8_t *tn = tcb ? img_at(img, len, base, tcb + lo->tcb_off_name, nm_name_len(lo))
				: NULL;
	const char *name = NULL;

	if (tp && tn) {
		memcpy(out, tn, nm_name_len(lo));
		name = tcb_match(l, lo, tp, out, pid);
	}
	const uint8_t *cache = lo->taskname_addr ? img_at(img, len, base, lo->taskname_addr,
							  2u * l->ptr + lo->taskname_size) : NULL;
	return name ? name : cache ? cache_name(l, lo, cache, pid, out) : NULL;
}

/* A TCB's stack bounds as read at t (the layout has them): into th, when they fit a 32-bit
 * size; else th keeps none. */
static void tcb_stack(const struct nx_lay *l, const struct tt_nuttx_layout *lo, const uint8_t *img,
		      size_t len, uint64_t base, uint64_t tcb, struct tt_an_thread *th)
{
	const uint8_t *b = img_at(img, len, base, tcb + lo->tcb_off_stack_base, l->ptr);
	const uint8_t *z = img_at(img, len, base, tcb + lo->tcb_off_stack_size, l->ptr);
	uint64_t size = z ? nx_get(l, z, l->ptr) : 0;

	if (!b || !z || size > UINT32_MAX)
		return;
	th->stack_start = nx_get(l, b, l->ptr);
	th->stack_size = (uint32_t)size;
}

int nx_img_tasks(const struct nx_lay *l, const struct tt_nuttx_layout *lo, const uint8_t *img,
		 size_t len, uint64_t base, tt_an_thread_cb cb, void *arg)
{
	const uint8_t *h = img_at(img, len, base, lo->pidhash_addr, l->ptr);
	const uint8_t *c = img_at(img, len, base, lo->npidhash_addr, 4);
	uint64_t table = h ? nx_get(l, h, l->ptr) : 0, n = c ? nx_get(l, c, 4) : 0;
	bool stacks = lo->tcb_off_stack_base && lo->tcb_off_stack_size;

	if (!lo->pidhash_addr || !pidhash_ok(table, n))
		return 0; /* no task table in this image: no tasks from it */
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *s = img_at(img, len, base, table + i * l->ptr, l->ptr);
		uint64_t tcb = s ? nx_get(l, s, l->ptr) : 0;
		const uint8_t *tp = tcb ? img_at(img, len, base, tcb + lo->tcb_off_pid,
						 nm_pid_size(lo)) : NULL;
		const uint8_t *tn = tcb ? img_at(img, len, base, tcb + lo->tcb_off_name,
						 nm_name_len(lo)) : NULL;
		char name[NX_NAME_MAX];

		if (!tp || !tn)
			continue;
		int32_t pid = nx_pid(l, tp, nm_pid_size(lo));
		if (pid < 0 || ((uint32_t)pid & (n - 1)) != i)
			continue; /* not a TCB of this slot: the table does not hold together */
		memcpy(name, tn, nm_name_len(lo));
		struct tt_an_thread th = { .id = (uint32_t)pid, .prio = -1,
					   .name = tcb_name(name, nm_name_len(lo)) };
		if (stacks)
			tcb_stack(l, lo, img, len, base, tcb, &th);
		cb(arg, &th);
	}
	return 0;
}
