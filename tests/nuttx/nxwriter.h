/* tests/nuttx/nxwriter.h: a NuttX noteram writer for tests: target RAM holding g_noteram_driver
 * and its ring, filled exactly as drivers/note/noteram_driver.c's noteram_add does (drop the
 * oldest records until the new one fits, copy the record byte-wise with wrap, write head last),
 * plus builders of every note type's record bytes for a given layout. */
#ifndef NXWRITER_H
#define NXWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nuttx.h"

struct nxw {
	struct tt_nuttx_layout lo;
	uint8_t *ram;
	size_t ram_len;
	uint64_t base, drv, buf;
	uint32_t size;
	unsigned hdr, ptr, align;
	unsigned pal;           /* alignment of payload pointer fields: 1 before 12.4, else ptr */
	unsigned overwrite;     /* 1 = overwrite (default), 0 = stop when full */
	uint64_t time;          /* next record's time stamp */
	uint64_t step;          /* added per record; 0 = irregular (pseudo-random) */
	uint32_t div;           /* irregular steps divided by it (0 = 1): a faster writer */
	uint32_t rng;
	/* a record begun but not committed (head not yet written) */
	bool pending;
	uint32_t pending_head;
	uint64_t written, dropped; /* records */
	bool owned;             /* ram allocated by nxw_init */
	uint16_t off_overwrite; /* offsetof ni_overwrite; 0 = not written */
};

/* RAM of ram_len bytes at base; the driver struct at base + drv_off, the ring of size bytes at
 * base + buf_off. lo == NULL: tt_nuttx_layout_default(4). */
void nxw_init(struct nxw *w, const struct tt_nuttx_layout *lo, size_t ram_len, uint64_t base,
	      uint32_t drv_off, uint32_t buf_off, uint32_t size);
/* The same on memory the caller owns (e.g. the simulator's RAM file, mapped shared): head and
 * tail are then stored as whole 32-bit words, head after the record's bytes. */
void nxw_init_mem(struct nxw *w, const struct tt_nuttx_layout *lo, uint8_t *mem, size_t ram_len,
		  uint64_t base, uint32_t drv_off, uint32_t buf_off, uint32_t size);
void nxw_free(struct nxw *w);
/* ni_overwrite (when off_overwrite is set): 1 overwrite, 0 stop when full, 2 overflowed. */
void nxw_set_overwrite(struct nxw *w, unsigned mode);
uint32_t nxw_head(const struct nxw *w);
uint32_t nxw_tail(const struct nxw *w);
void nxw_set_head(struct nxw *w, uint32_t v);
void nxw_set_tail(struct nxw *w, uint32_t v);
/* Read target memory (what a probe does): 0 or -1 when outside RAM. */
int nxw_read(const struct nxw *w, uint64_t addr, uint8_t *dst, uint32_t len);

/* Record builders: fill rec (>= 256 bytes) and return its nc_length. The time stamp is taken
 * from w->time, which then advances. */
unsigned nxw_hdr(struct nxw *w, uint8_t *rec, unsigned len, unsigned type, int32_t pid,
		 unsigned prio, unsigned cpu);
void nxw_put(const struct nxw *w, uint8_t *p, uint64_t v, unsigned size);
unsigned nxw_start(struct nxw *w, uint8_t *rec, int32_t pid, unsigned prio, const char *name);
unsigned nxw_simple(struct nxw *w, uint8_t *rec, unsigned type, int32_t pid, unsigned prio);
unsigned nxw_syscall_enter(struct nxw *w, uint8_t *rec, int32_t pid, unsigned nr, unsigned argc,
			   const uint64_t *args);
unsigned nxw_ptrs(struct nxw *w, uint8_t *rec, unsigned type, int32_t pid, unsigned n,
		  const uint64_t *v); /* header + n uintptr_t fields at align(hdr, ptr) */
/* NOTE_DUMP_MARK (sched_note_mark: struct note_event_s, ip, tag, the text without its NUL) of
 * 12.13 and later; text at most 200 bytes. */
unsigned nxw_mark(struct nxw *w, uint8_t *rec, int32_t pid, const char *text);

/* noteram_add, all at once (begin + commit). Returns false if not stored (no-overwrite mode). */
bool nxw_add(struct nxw *w, const uint8_t *rec, unsigned len);
/* noteram_add in two steps: drop + copy (tail moved, bytes in the ring), then head. */
bool nxw_begin(struct nxw *w, const uint8_t *rec, unsigned len);
void nxw_commit(struct nxw *w);
/* A typical record (switches, syscalls, irqs) chosen from i: pid i % 5 + 1, a NOTE_START naming
 * it nxw_task_names[i % 5] when i % 7 == 0. */
extern const char *const nxw_task_names[5];
unsigned nxw_any(struct nxw *w, uint8_t *rec, uint32_t i);

/* A task table as NuttX keeps it, for task names read from the target: at RAM offset off the
 * variables g_pidhash (a pointer to the hash array) and g_npidhash (int), the hash array
 * (npidhash pointers, a power of two), then one TCB of NXW_TCB_SIZE bytes per task: pid (int)
 * at NXW_TCB_PID, name[NXW_TCB_NAME_SIZE] at NXW_TCB_NAME. Task i goes to slot
 * pids[i] & (npidhash - 1); a later task in the same slot replaces the earlier one (as when a
 * pid is reused). Sets the layout's pidhash/tcb fields in w->lo. Returns the bytes used. */
#define NXW_TCB_SIZE 96
#define NXW_TCB_PID 12
#define NXW_TCB_NAME 48
#define NXW_TCB_NAME_SIZE 32
uint32_t nxw_tasks(struct nxw *w, uint32_t off, unsigned npidhash, unsigned n,
		   const int32_t *pids, const char *const *names);
/* The task table of pids 0-5 (Idle_Task, then nxw_task_names), g_npidhash 8. */
uint32_t nxw_tasks_default(struct nxw *w, uint32_t off);
/* nxw_any without NOTE_START (a NOTE_RESUME of the same pid instead): the records of a board
 * whose START notes were overwritten long ago, so names can only come from the TCBs. */
unsigned nxw_any_unnamed(struct nxw *w, uint8_t *rec, uint32_t i);

#endif
