/* tests/nuttx/nxwriter.c: see nxwriter.h. Offsets are computed here independently of
 * proto/nuttx_decode.c (from the C struct rules in shared/reference/nuttx-note.md), so the tests
 * check the reader's layout derivation rather than repeat it. */
#include "nxwriter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"

static unsigned al(unsigned v, unsigned a)
{
	return (v + a - 1) / a * a;
}

void nxw_put(const struct nxw *w, uint8_t *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[w->lo.big_endian ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const struct nxw *w, const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[w->lo.big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

static unsigned hdr_size(const struct tt_nuttx_layout *lo)
{
	unsigned ptr = lo->ptr_size, ts = lo->time64 ? 8 : 4;

	if (lo->header_size)
		return lo->header_size;
	if (lo->release < 1204) /* byte arrays: len, type, prio, [cpu], pid, time */
		return 3 + lo->smp + (lo->pid_size ? lo->pid_size : 4) + ts +
		       (lo->hires ? lo->ptr_size : 0);
	if (lo->release >= 1300)
		return 16;
	if (lo->release >= 1208)
		return 8 + ts;
	unsigned nsec = al(8 + ts, ptr), mx = ts > ptr ? ts : ptr;
	return al(nsec + ptr, mx);
}

void nxw_init_mem(struct nxw *w, const struct tt_nuttx_layout *lo, uint8_t *mem, size_t ram_len,
		  uint64_t base, uint32_t drv_off, uint32_t buf_off, uint32_t size)
{
	memset(w, 0, sizeof(*w));
	if (lo)
		w->lo = *lo;
	else
		tt_nuttx_layout_default(&w->lo, 4);
	if (w->lo.release < 1204)
		w->lo.big_endian = false; /* little-endian byte arrays whatever the CPU */
	w->ram = mem;
	w->ram_len = ram_len;
	w->base = base;
	w->drv = base + drv_off;
	w->buf = base + buf_off;
	w->size = size;
	w->ptr = w->lo.ptr_size;
	w->hdr = hdr_size(&w->lo);
	w->align = w->lo.align ? w->lo.align : w->lo.release < 1207 ? 1 : w->ptr;
	w->pal = w->lo.release < 1204 ? 1 : w->ptr;
	w->time = 1000;
	w->step = 1000;
	w->rng = 12345;
	REQUIRE(buf_off + size <= ram_len);
	if (w->lo.release < 1204) {
		/* g_noteram_info: overwrite, head, tail, read, then the buffer itself */
		w->align = 1;
		REQUIRE(buf_off == drv_off + w->lo.off_buffer && size == w->lo.bufsize);
		w->off_overwrite = w->lo.off_overwrite;
		nxw_set_overwrite(w, 1);
		return;
	}
	w->off_overwrite = (uint16_t)(w->lo.off_bufsize + w->ptr);	/* size_t, then unsigned */
	nxw_put(w, w->ram + drv_off + w->lo.off_buffer, w->buf, w->ptr);
	nxw_put(w, w->ram + drv_off + w->lo.off_bufsize, size, w->ptr);
	nxw_set_overwrite(w, 1);
}

void nxw_init(struct nxw *w, const struct tt_nuttx_layout *lo, size_t ram_len, uint64_t base,
	      uint32_t drv_off, uint32_t buf_off, uint32_t size)
{
	uint8_t *mem = calloc(1, ram_len);

	REQUIRE(mem);
	nxw_init_mem(w, lo, mem, ram_len, base, drv_off, buf_off, size);
	w->owned = true;
}

void nxw_free(struct nxw *w)
{
	if (w->owned)
		free(w->ram);
	w->ram = NULL;
}

static uint8_t *drvp(const struct nxw *w)
{
	return w->ram + (w->drv - w->base);
}

uint32_t nxw_head(const struct nxw *w)
{
	return (uint32_t)get(w, drvp(w) + w->lo.off_head, 4);
}

uint32_t nxw_tail(const struct nxw *w)
{
	return (uint32_t)get(w, drvp(w) + w->lo.off_tail, 4);
}

/* One 32-bit store (a reader in another process, e.g. tt-simtarget, reads the word whole),
 * ordered after every store before it, as the target's `volatile` index is. */
static void store32(const struct nxw *w, unsigned off, uint32_t v)
{
	uint8_t b[4];
	uint32_t word;
	uint8_t *p = drvp(w) + off;

	nxw_put(w, b, v, 4);
	memcpy(&word, b, 4);
	if (((uintptr_t)p & 3) == 0)
		__atomic_store_n((uint32_t *)(void *)p, word, __ATOMIC_RELEASE);
	else
		memcpy(p, b, 4);
}

void nxw_set_overwrite(struct nxw *w, unsigned mode)
{
	w->overwrite = mode;
	if (w->off_overwrite)
		store32(w, w->off_overwrite, mode);
}

void nxw_set_head(struct nxw *w, uint32_t v)
{
	store32(w, w->lo.off_head, v);
}

void nxw_set_tail(struct nxw *w, uint32_t v)
{
	store32(w, w->lo.off_tail, v);
}

int nxw_read(const struct nxw *w, uint64_t addr, uint8_t *dst, uint32_t len)
{
	if (addr < w->base || addr - w->base > w->ram_len || w->ram_len - (addr - w->base) < len)
		return -1;
	memcpy(dst, w->ram + (addr - w->base), len);
	return 0;
}

unsigned nxw_hdr(struct nxw *w, uint8_t *rec, unsigned len, unsigned type, int32_t pid,
		 unsigned prio, unsigned cpu)
{
	uint64_t t = w->time;

	memset(rec, 0, len > w->hdr ? len : w->hdr);
	rec[0] = (uint8_t)len;
	rec[1] = (uint8_t)type;
	rec[2] = (uint8_t)prio;
	if (w->lo.release >= 1208 || w->lo.smp)
		rec[3] = (uint8_t)cpu;
	if (w->lo.release < 1204) {
		/* little-endian byte arrays, no padding: pid[], then sec[] + nsec[] or ticks[] */
		unsigned o = 3 + w->lo.smp, ps = w->lo.pid_size ? w->lo.pid_size : 4;
		unsigned ts = w->lo.time64 ? 8 : 4;

		nxw_put(w, rec + o, (uint32_t)pid, ps);
		if (w->lo.hires) {
			nxw_put(w, rec + o + ps, t / 1000000000u, ts);
			nxw_put(w, rec + o + ps + ts, t % 1000000000u, w->ptr);
		} else {
			nxw_put(w, rec + o + ps, t, ts);
		}
	} else if (w->lo.release >= 1208) {
		nxw_put(w, rec + 4, (uint32_t)pid, 4);
		nxw_put(w, rec + 8, t, w->lo.release >= 1300 || w->lo.time64 ? 8 : 4);
	} else {
		unsigned ts = w->lo.time64 ? 8 : 4;
		nxw_put(w, rec + 4, (uint32_t)pid, 4);
		nxw_put(w, rec + 8, t / 1000000000u, ts);
		nxw_put(w, rec + al(8 + ts, w->ptr), t % 1000000000u, w->ptr);
	}
	if (w->step) {
		w->time += w->step;
	} else {
		w->rng = w->rng * 1103515245u + 12345u;
		w->time += 1 + (w->rng >> 16) % 5000 / (w->div ? w->div : 1);
	}
	return len;
}

unsigned nxw_start(struct nxw *w, uint8_t *rec, int32_t pid, unsigned prio, const char *name)
{
	unsigned n = (unsigned)strlen(name) + 1, len = w->hdr + n;

	nxw_hdr(w, rec, len, 0, pid, prio, 0);
	memcpy(rec + w->hdr, name, n);
	return len;
}

unsigned nxw_simple(struct nxw *w, uint8_t *rec, unsigned type, int32_t pid, unsigned prio)
{
	return nxw_hdr(w, rec, w->hdr, type, pid, prio, 0);
}

unsigned nxw_syscall_enter(struct nxw *w, uint8_t *rec, int32_t pid, unsigned nr, unsigned argc,
			   const uint64_t *args)
{
	/* nc_length ignores the padding before nsc_args (the NuttX bug the reader flags) */
	unsigned len = w->hdr + 2 + argc * w->ptr, base = al(w->hdr + 2, w->pal);

	nxw_hdr(w, rec, len, 18, pid, 100, 0);
	rec[w->hdr] = (uint8_t)nr;
	rec[w->hdr + 1] = (uint8_t)argc;
	for (unsigned i = 0; i < argc && base + (i + 1) * w->ptr <= 256; i++)
		nxw_put(w, rec + base + i * w->ptr, args[i], w->ptr);
	return len;
}

unsigned nxw_ptrs(struct nxw *w, uint8_t *rec, unsigned type, int32_t pid, unsigned n,
		  const uint64_t *v)
{
	unsigned a = al(w->hdr, w->pal), len = a + n * w->ptr;

	nxw_hdr(w, rec, len, type, pid, 100, 0);
	for (unsigned i = 0; i < n; i++)
		nxw_put(w, rec + a + i * w->ptr, v[i], w->ptr);
	return len;
}

static uint32_t used(const struct nxw *w)
{
	uint32_t h = nxw_head(w), t = nxw_tail(w);

	return h >= t ? h - t : h + w->size - t;
}

/* noteram_remove: the tail advances by the aligned length of the note at the tail. */
static void drop(struct nxw *w)
{
	uint32_t t = nxw_tail(w);
	uint8_t *ring = w->ram + (w->buf - w->base);

	t += ring[t] ? al(ring[t], w->align) : w->align; /* corrupt rings in tests: move on */
	if (t >= w->size)
		t -= w->size;
	nxw_set_tail(w, t);
	w->dropped++;
}

bool nxw_begin(struct nxw *w, const uint8_t *rec, unsigned len)
{
	uint8_t *ring = w->ram + (w->buf - w->base);
	uint32_t head = nxw_head(w), space;

	REQUIRE(!w->pending);
	if (head >= w->size || nxw_tail(w) >= w->size) { /* corrupted by a test: start over */
		nxw_set_head(w, 0);
		nxw_set_tail(w, 0);
		head = 0;
	}
	if (w->overwrite == 2)
		return false;	/* overflowed: nothing is stored until NOTERAM_CLEAR */
	if (w->size - used(w) <= al(len, w->align)) {
		if (!w->overwrite) {
			nxw_set_overwrite(w, 2);	/* NuttX: stop, mark overflow */
			return false;
		}
		do
			drop(w);
		while (w->size - used(w) <= al(len, w->align));
		/* the tail moves before the copy (for readers in other processes) */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	space = w->size - head < len ? w->size - head : len;
	memcpy(ring + head, rec, space);
	memcpy(ring, rec + space, len - space);
	head += al(len, w->align);
	if (head >= w->size)
		head -= w->size;
	w->pending = true;
	w->pending_head = head;
	return true;
}

void nxw_commit(struct nxw *w)
{
	REQUIRE(w->pending);
	nxw_set_head(w, w->pending_head);
	w->pending = false;
	w->written++;
}

bool nxw_add(struct nxw *w, const uint8_t *rec, unsigned len)
{
	if (!nxw_begin(w, rec, len))
		return false;
	nxw_commit(w);
	return true;
}

unsigned nxw_mark(struct nxw *w, uint8_t *rec, int32_t pid, const char *text)
{
	unsigned n = (unsigned)strnlen(text, 200), ip = al(w->hdr, w->pal), data = ip + w->ptr + 4;
	unsigned ts = w->lo.release >= 1300 || w->lo.time64 ? 8 : 4;
	unsigned salign = w->lo.struct_align ? w->lo.struct_align : ts > w->ptr ? ts : w->ptr;
	unsigned len = al(data + 1, salign) + n; /* sizeof(struct note_event_s) + the text */

	REQUIRE(w->lo.release >= 1213);
	nxw_hdr(w, rec, len, 33, pid, 100, 0); /* 12.13+: NOTE_DUMP_MARK = 22 + 11 */
	nxw_put(w, rec + ip, 0x8001000, w->ptr);
	memcpy(rec + data, text, n);
	return len;
}

const char *const nxw_task_names[5] = { "nsh_main", "hpwork", "lpwork", "trace", "app" };

unsigned nxw_any(struct nxw *w, uint8_t *rec, uint32_t i)
{
	uint64_t v[6] = { 0x40001000u + i, i, 0x100, 0x200, 0x300, 0x400 };
	int32_t pid = (int32_t)(i % 5) + 1;

	switch (i % 7) {
	case 0: return nxw_start(w, rec, pid, 100, nxw_task_names[i % 5]);
	case 1: {
		unsigned len = nxw_hdr(w, rec, w->hdr + 1, 2, pid, 100, 0);
		rec[w->hdr] = 6;
		return len;
	}
	case 2: return nxw_simple(w, rec, 3, pid, 100);
	case 3: return nxw_syscall_enter(w, rec, pid, 40 + i % 20, i % 6, v);
	case 4: {
		unsigned len = nxw_hdr(w, rec, al(w->hdr + 1, w->pal) + w->ptr, 19, pid, 100, 0);
		rec[w->hdr] = (uint8_t)(40 + i % 20);
		nxw_put(w, rec + al(w->hdr + 1, w->pal), i, w->ptr);
		return len;
	}
	case 5: {
		unsigned a = al(w->hdr, w->pal), len = al(a + w->ptr + 1, w->pal);
		nxw_hdr(w, rec, len, 20 + (i / 7) % 2, pid, 100, 0);
		nxw_put(w, rec + a, 0x8001234, w->ptr);
		rec[a + w->ptr] = 14;
		return len;
	}
	default: return nxw_ptrs(w, rec, 28, pid, 4, v);
	}
}

uint32_t nxw_tasks(struct nxw *w, uint32_t off, unsigned npidhash, unsigned n,
		   const int32_t *pids, const char *const *names)
{
	uint32_t hash = off + 2 * w->ptr, tcbs = hash + npidhash * w->ptr;
	uint8_t *m = w->ram;

	memset(m + off, 0, tcbs + n * NXW_TCB_SIZE - off);
	nxw_put(w, m + off, w->base + hash, w->ptr);          /* g_pidhash */
	nxw_put(w, m + off + w->ptr, npidhash, 4);            /* g_npidhash */
	for (unsigned i = 0; i < n; i++) {
		uint32_t t = tcbs + i * NXW_TCB_SIZE;
		nxw_put(w, m + t + NXW_TCB_PID, (uint32_t)pids[i], 4);
		snprintf((char *)m + t + NXW_TCB_NAME, NXW_TCB_NAME_SIZE, "%s", names[i]);
		nxw_put(w, m + hash + ((uint32_t)pids[i] & (npidhash - 1)) * w->ptr, w->base + t,
			w->ptr);
	}
	w->lo.pidhash_addr = w->base + off;
	w->lo.npidhash_addr = w->base + off + w->ptr;
	w->lo.tcb_off_pid = NXW_TCB_PID;
	w->lo.tcb_off_name = NXW_TCB_NAME;
	w->lo.tcb_name_size = NXW_TCB_NAME_SIZE;
	w->lo.tcb_pid_size = 4;
	return tcbs + n * NXW_TCB_SIZE - off;
}

uint32_t nxw_tasks_default(struct nxw *w, uint32_t off)
{
	int32_t pids[6];
	const char *names[6] = { "Idle_Task" };

	for (int i = 0; i < 6; i++) {
		pids[i] = i;
		if (i)
			names[i] = nxw_task_names[i - 1];
	}
	return nxw_tasks(w, off, 8, 6, pids, names);
}

unsigned nxw_any_unnamed(struct nxw *w, uint8_t *rec, uint32_t i)
{
	if (i % 7 == 0)
		return nxw_simple(w, rec, 3, (int32_t)(i % 5) + 1, 100); /* NOTE_RESUME */
	return nxw_any(w, rec, i);
}
