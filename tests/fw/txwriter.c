/* tests/fw/txwriter.c: ThreadX's trace stores, reproduced store for store.
 *
 * Mirrors tx_trace_enable.c, tx_trace_object_register.c, tx_trace_object_unregister.c and
 * tx_trace_event_insert (the TX_TRACE_IN_LINE_INSERT macro) so that tests race a reader against
 * the same store order a target uses. See txwriter.h.
 */
#include "txwriter.h"

#include <errno.h>
#include <string.h>

#define HDR_SIZE 48u
#define ENT_SIZE 32u
#define REG_FIXED 16u

static uint32_t bswap(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint8_t *host(const struct txw *w, uint32_t addr)
{
	return w->mem + (addr - w->mem_base);
}

void txw_store32(struct txw *w, uint32_t addr, uint32_t v)
{
	uint32_t *p = (uint32_t *)(void *)host(w, addr);
	int host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	if (w->big_endian != host_be)
		v = bswap(v);
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

uint32_t txw_load32(const struct txw *w, uint32_t addr)
{
	const uint32_t *p = (const uint32_t *)(const void *)host(w, addr);
	uint32_t v = __atomic_load_n(p, __ATOMIC_RELAXED);
	int host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	return w->big_endian != host_be ? bswap(v) : v;
}

static void store8(struct txw *w, uint32_t addr, uint8_t v)
{
	__atomic_store_n(host(w, addr), v, __ATOMIC_RELAXED);
}

/* The 16-bit name-size field at header offset 18 shares a word with the reserved u16 at 16. */
static void store_name_size(struct txw *w, uint32_t size)
{
	/* Read as one target-order word: the name size is the high half on a little-endian target
	 * (bytes 18-19) and the low half on a big-endian one. */
	txw_store32(w, w->hdr + 16, w->big_endian ? (size & 0xFFFF) : (size << 16));
}

void txw_init(struct txw *w, uint8_t *mem, uint32_t mem_base, size_t mem_size, bool big_endian)
{
	memset(w, 0, sizeof(*w));
	w->mem = mem;
	w->mem_base = mem_base;
	w->mem_size = mem_size;
	w->big_endian = big_endian;
	w->name_size = 32;
	w->timer_mask = 0xFFFFFFFFu;
	w->time_step = 1;
}

uint32_t txw_prio_word(uint32_t prio, uint32_t threshold)
{
	return 0x80000000u | (threshold << 16) | prio;
}

static uint32_t time_now(struct txw *w)
{
	switch (w->time_mode) {
	case TXW_TIME_DOWN:
		w->time -= w->time_step;
		return w->time;
	case TXW_TIME_CALLBACK:
		return w->now(w->now_arg);
	case TXW_TIME_COUNTER:
	default:
		w->time += w->time_step;
		return w->time;
	}
}

int txw_enable(struct txw *w, uint32_t buf, uint32_t size, uint32_t registry_entries)
{
	uint32_t reg_size = REG_FIXED + w->name_size;
	uint64_t fixed = HDR_SIZE + (uint64_t)registry_entries * reg_size;

	if (buf < w->mem_base || (uint64_t)buf + size > (uint64_t)w->mem_base + w->mem_size ||
	    (buf & 3) || fixed + ENT_SIZE > size)
		return -EINVAL;
	w->hdr = buf;
	w->nreg = registry_entries;
	w->reg_start = buf + HDR_SIZE;
	w->reg_end = w->reg_start + registry_entries * reg_size;
	w->ent_start = w->reg_end;
	w->nent = (uint32_t)((size - fixed) / ENT_SIZE);
	w->ent_end = w->ent_start + w->nent * ENT_SIZE;

	/* Header, in the order tx_trace_enable fills it. */
	txw_store32(w, buf + 0, 0x54585442u);
	txw_store32(w, buf + 4, w->timer_mask);
	txw_store32(w, buf + 8, buf);
	txw_store32(w, buf + 12, w->reg_start);
	store_name_size(w, w->name_size);
	txw_store32(w, buf + 20, w->reg_end);
	txw_store32(w, buf + 24, w->ent_start);
	txw_store32(w, buf + 28, w->ent_end);
	txw_store32(w, buf + 32, w->ent_start);
	txw_store32(w, buf + 36, 0xAAAAAAAAu);
	txw_store32(w, buf + 40, 0xBBBBBBBBu);
	txw_store32(w, buf + 44, 0xCCCCCCCCu);

	for (uint32_t i = 0; i < registry_entries; i++) {
		uint32_t e = w->reg_start + i * reg_size;
		store8(w, e + 0, 1); /* available */
		store8(w, e + 1, 0); /* type: not valid */
		store8(w, e + 2, 0);
		store8(w, e + 3, 0);
		txw_store32(w, e + 4, 0);
		txw_store32(w, e + 8, 0);
		txw_store32(w, e + 12, 0);
		store8(w, e + REG_FIXED, 0);
	}
	for (uint32_t a = w->ent_start; a < w->ent_end; a += ENT_SIZE)
		txw_store32(w, a, 0); /* thread pointer 0 = never used */

	w->cur = w->ent_start;
	w->inserted = 0;
	txw_insert(w, TXW_INIT_THREAD, 0, 6, 0, 0, 0, 0, NULL);
	txw_insert(w, TXW_INIT_THREAD, 0, 6, 0, 0, 0, 0, NULL);
	return 0;
}

void txw_disable(struct txw *w)
{
	w->cur = 0;
}

static uint32_t reg_entry(const struct txw *w, uint32_t i)
{
	return w->reg_start + i * (REG_FIXED + w->name_size);
}

void txw_register(struct txw *w, uint32_t obj, uint8_t type, const char *name, uint32_t p1,
		  uint32_t p2, uint32_t prio)
{
	uint32_t slot = 0;
	bool found = false;

	if (!w->cur || !obj)
		return;
	/* First the slot already holding obj, else the first never-used one. */
	for (uint32_t i = 0; i < w->nreg && !found; i++) {
		if (txw_load32(w, reg_entry(w, i) + 4) == obj) {
			slot = i;
			found = true;
		}
	}
	for (uint32_t i = 0; i < w->nreg && !found; i++) {
		uint32_t e = reg_entry(w, i);
		if (w->mem[e - w->mem_base] == 1 && txw_load32(w, e + 4) == 0) {
			slot = i;
			found = true;
		}
	}
	if (!found)
		return; /* registry full: silently not registered, as ThreadX does */

	uint32_t e = reg_entry(w, slot);
	store8(w, e + 0, 0);
	store8(w, e + 1, type);
	store8(w, e + 2, type == 1 ? (uint8_t)(0x80 | (prio >> 8)) : 0);
	store8(w, e + 3, type == 1 ? (uint8_t)(prio & 0xFF) : 0);
	txw_store32(w, e + 4, obj);
	txw_store32(w, e + 8, p1);
	txw_store32(w, e + 12, p2);
	uint32_t i = 0;
	for (; name && name[i] && i < w->name_size - 1; i++)
		store8(w, e + REG_FIXED + i, (uint8_t)name[i]);
	store8(w, e + REG_FIXED + i, 0);
}

void txw_unregister(struct txw *w, uint32_t obj)
{
	if (!w->cur)
		return;
	for (uint32_t i = 0; i < w->nreg; i++) {
		uint32_t e = reg_entry(w, i);
		if (txw_load32(w, e + 4) == obj) {
			store8(w, e + 0, 1);
			return;
		}
	}
}

uint32_t txw_insert(struct txw *w, uint32_t thread, uint32_t prio_word, uint32_t id, uint32_t i1,
		    uint32_t i2, uint32_t i3, uint32_t i4, uint32_t *ts)
{
	uint32_t entry = w->cur, e = entry;

	if (!e)
		return 0;
	uint32_t t = time_now(w) & w->timer_mask;
	txw_store32(w, e + 0, thread);
	txw_store32(w, e + 4, prio_word);
	txw_store32(w, e + 8, id);
	txw_store32(w, e + 12, t);
	txw_store32(w, e + 16, i1);
	txw_store32(w, e + 20, i2);
	txw_store32(w, e + 24, i3);
	txw_store32(w, e + 28, i4);
	e += ENT_SIZE;
	if (e >= w->ent_end) {
		e = w->ent_start;
		w->wraps++; /* the application's buffer-full callback would run here */
	}
	w->cur = e;
	/* Current pointer last: everything before it is complete. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	txw_store32(w, w->hdr + 32, e);
	w->inserted++;
	if (ts)
		*ts = t;
	return entry;
}

bool txw_patch(struct txw *w, uint32_t entry, unsigned info_no, uint32_t value, uint32_t ts)
{
	if (info_no < 1 || info_no > 4 || txw_load32(w, entry + 12) != ts)
		return false;
	txw_store32(w, entry + 12 + 4 * info_no, value);
	return true;
}
