/* tests/fw/txwriter.h: writes a ThreadX event trace buffer exactly as ThreadX does.
 *
 * A stand-in for ThreadX's tx_trace_enable / _tx_trace_object_register / _tx_trace_event_insert
 * (see shared/reference/threadx-trace.md), used to build unit-test images, by the 32-bit live
 * test program and by the simulated target's workload. Store order per entry: thread pointer,
 * priority word, event id, time stamp, info 1..4; then the write pointer advances (wrapping);
 * then the header's current pointer is written last. Words are stored with single aligned 32-bit
 * relaxed atomic stores so a concurrent reader never sees a torn word.
 *
 * mem is the host view of target memory whose first byte is at target address mem_base; every
 * target address used below must lie inside [mem_base, mem_base + mem_size).
 */
#ifndef TT_TXWRITER_H
#define TT_TXWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TXW_INIT_THREAD 0xF0F0F0F0u
#define TXW_ISR_THREAD 0xFFFFFFFFu

enum txw_time_mode {
	TXW_TIME_COUNTER = 0, /* +step per event (ThreadX's simulated time source) */
	TXW_TIME_DOWN,        /* -step per event */
	TXW_TIME_CALLBACK,    /* now(now_arg) */
};

struct txw {
	uint8_t *mem;
	uint32_t mem_base;
	size_t mem_size;
	bool big_endian;      /* store words big-endian (else little-endian) */
	/* target addresses */
	uint32_t hdr, reg_start, reg_end, ent_start, ent_end;
	uint32_t cur;         /* ThreadX's _tx_trace_buffer_current_ptr; 0 = disabled */
	uint32_t name_size;   /* registry name size (default 32) */
	uint32_t nreg, nent;
	/* time source */
	uint32_t timer_mask;  /* default 0xFFFFFFFF */
	enum txw_time_mode time_mode;
	uint32_t time;        /* counter state */
	uint32_t time_step;   /* default 1 */
	uint32_t (*now)(void *arg);
	void *now_arg;
	uint64_t wraps;       /* buffer-full callbacks so far */
	uint64_t inserted;    /* events inserted since enable */
};

/* tx_trace_enable(buffer, size, registry_entries): lays out and initialises the buffer at target
 * address buf (header, cleared registry, cleared entries, current = entries start), then inserts
 * TX_TRACE_RUNNING twice from initialization context. The time source fields of w must be set
 * before (txw_init sets defaults). Returns 0, or -EINVAL when the buffer cannot hold the header,
 * the registry and one entry, or lies outside mem. */
void txw_init(struct txw *w, uint8_t *mem, uint32_t mem_base, size_t mem_size, bool big_endian);
int txw_enable(struct txw *w, uint32_t buf, uint32_t size, uint32_t registry_entries);
/* tx_trace_disable: only clears the write pointer; RAM is left as it was. */
void txw_disable(struct txw *w);

/* _tx_trace_object_register: takes a never-used slot or the one holding obj; silently does
 * nothing when the registry is full. prio is used for threads only. */
void txw_register(struct txw *w, uint32_t obj, uint8_t type, const char *name, uint32_t p1,
		  uint32_t p2, uint32_t prio);
/* _tx_trace_object_unregister: sets available = 1, keeps type, pointer and name. */
void txw_unregister(struct txw *w, uint32_t obj);

/* _tx_trace_event_insert. thread: running thread pointer, TXW_INIT_THREAD or TXW_ISR_THREAD;
 * prio_word: 0x80000000 | threshold << 16 | prio in thread context, the interrupted thread in an
 * ISR, 0 during initialization. Returns the target address of the entry written (for
 * txw_patch) and stores its time stamp in *ts when ts is not NULL. Returns 0 when disabled. */
uint32_t txw_insert(struct txw *w, uint32_t thread, uint32_t prio_word, uint32_t id, uint32_t i1,
		    uint32_t i2, uint32_t i3, uint32_t i4, uint32_t *ts);
/* ThreadX's back-patch: rewrites info field info_no (1..4) of the entry at entry if its time
 * stamp is still ts. Returns true when patched. */
bool txw_patch(struct txw *w, uint32_t entry, unsigned info_no, uint32_t value, uint32_t ts);

/* Helpers for tests and workloads. */
uint32_t txw_prio_word(uint32_t prio, uint32_t threshold);
void txw_store32(struct txw *w, uint32_t addr, uint32_t v);
uint32_t txw_load32(const struct txw *w, uint32_t addr);

#endif
