/* proto/nuttx_decode.c: one NuttX note record -> tt_event.
 *
 * Owns: the note type tables of the three numberings (12.4-12.6, 12.7-12.12, 12.13+), payload
 * decoding, the pid -> task name cache (filled by NOTE_START) and time (32-bit clock unwrapping,
 * ns). Every read is checked against nc_length, which the caller has checked against the bytes
 * it holds. Where the fields lie (the layout of a release): nuttx_layout.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nuttx_int.h"

enum nx_kind {
	K_NONE = 0, K_START, K_U8, K_U16, K_CSECTION, K_SPIN, K_SC_ENTER, K_SC_LEAVE, K_IRQ,
	K_WDOG, K_HEAP, K_PRINTF, K_EVENT_STR, K_EVENT_BIN, K_EVENT_COUNTER, K_L_STRING,
	K_L_BINARY, K_L_EVENT_STR, K_L_COUNTER, K_UNKNOWN,
};

struct nx_type {
	const char *name;
	uint8_t kind;
	const char *u8name; /* K_U8: the argument's name */
};

static const struct nx_type common_types[22] = {
	{ "NOTE_START", K_START, NULL },         { "NOTE_STOP", K_NONE, NULL },
	{ "NOTE_SUSPEND", K_U8, "state" },       { "NOTE_RESUME", K_NONE, NULL },
	{ "NOTE_CPU_START", K_U8, "target_cpu" }, { "NOTE_CPU_STARTED", K_NONE, NULL },
	{ "NOTE_CPU_PAUSE", K_U8, "target_cpu" }, { "NOTE_CPU_PAUSED", K_NONE, NULL },
	{ "NOTE_CPU_RESUME", K_U8, "target_cpu" }, { "NOTE_CPU_RESUMED", K_NONE, NULL },
	{ "NOTE_PREEMPT_LOCK", K_U16, NULL },    { "NOTE_PREEMPT_UNLOCK", K_U16, NULL },
	{ "NOTE_CSECTION_ENTER", K_CSECTION, NULL }, { "NOTE_CSECTION_LEAVE", K_CSECTION, NULL },
	{ "NOTE_SPINLOCK_LOCK", K_SPIN, NULL },  { "NOTE_SPINLOCK_LOCKED", K_SPIN, NULL },
	{ "NOTE_SPINLOCK_UNLOCK", K_SPIN, NULL }, { "NOTE_SPINLOCK_ABORT", K_SPIN, NULL },
	{ "NOTE_SYSCALL_ENTER", K_SC_ENTER, NULL }, { "NOTE_SYSCALL_LEAVE", K_SC_LEAVE, NULL },
	{ "NOTE_IRQ_ENTER", K_IRQ, NULL },       { "NOTE_IRQ_LEAVE", K_IRQ, NULL },
};

/* 12.13 and later (13.x): values 22..35. */
static const struct nx_type types_1213[14] = {
	{ "NOTE_WDOG_START", K_WDOG, NULL },  { "NOTE_WDOG_CANCEL", K_WDOG, NULL },
	{ "NOTE_WDOG_ENTER", K_WDOG, NULL },  { "NOTE_WDOG_LEAVE", K_WDOG, NULL },
	{ "NOTE_HEAP_ADD", K_HEAP, NULL },    { "NOTE_HEAP_REMOVE", K_HEAP, NULL },
	{ "NOTE_HEAP_ALLOC", K_HEAP, NULL },  { "NOTE_HEAP_FREE", K_HEAP, NULL },
	{ "NOTE_DUMP_PRINTF", K_PRINTF, NULL }, { "NOTE_DUMP_BEGIN", K_EVENT_STR, NULL },
	{ "NOTE_DUMP_END", K_EVENT_STR, NULL }, { "NOTE_DUMP_MARK", K_EVENT_STR, NULL },
	{ "NOTE_DUMP_BINARY", K_EVENT_BIN, NULL }, { "NOTE_DUMP_COUNTER", K_EVENT_COUNTER, NULL },
};

/* 12.7 - 12.12: values 22..34 (COUNTER is 34, no BINARY). */
static const struct nx_type types_1207[13] = {
	{ "NOTE_WDOG_START", K_WDOG, NULL },  { "NOTE_WDOG_CANCEL", K_WDOG, NULL },
	{ "NOTE_WDOG_ENTER", K_WDOG, NULL },  { "NOTE_WDOG_LEAVE", K_WDOG, NULL },
	{ "NOTE_HEAP_ADD", K_HEAP, NULL },    { "NOTE_HEAP_REMOVE", K_HEAP, NULL },
	{ "NOTE_HEAP_ALLOC", K_HEAP, NULL },  { "NOTE_HEAP_FREE", K_HEAP, NULL },
	{ "NOTE_DUMP_PRINTF", K_PRINTF, NULL }, { "NOTE_DUMP_BEGIN", K_EVENT_STR, NULL },
	{ "NOTE_DUMP_END", K_EVENT_STR, NULL }, { "NOTE_DUMP_MARK", K_EVENT_STR, NULL },
	{ "NOTE_DUMP_COUNTER", K_EVENT_COUNTER, NULL },
};

/* Before 12.4: 22, 23 (ip, event byte, data). */
static const struct nx_type types_1203[2] = {
	{ "NOTE_DUMP_STRING", K_L_STRING, NULL }, { "NOTE_DUMP_BINARY", K_L_BINARY, NULL },
};

/* 12.4 - 12.6: values 22..29 (26, 27 are not in the reference: UNKNOWN). */
static const struct nx_type types_1204[8] = {
	{ "NOTE_DUMP_STRING", K_L_STRING, NULL }, { "NOTE_DUMP_BINARY", K_L_BINARY, NULL },
	{ "NOTE_DUMP_BEGIN", K_L_EVENT_STR, NULL }, { "NOTE_DUMP_END", K_L_EVENT_STR, NULL },
	{ NULL, K_UNKNOWN, NULL },                { NULL, K_UNKNOWN, NULL },
	{ "NOTE_DUMP_MARK", K_L_EVENT_STR, NULL }, { "NOTE_DUMP_COUNTER", K_L_COUNTER, NULL },
};

static const struct nx_type unknown_type = { NULL, K_UNKNOWN, NULL };

static const struct nx_type *type_of(unsigned release, unsigned t)
{
	const struct nx_type *tab;
	size_t n;

	if (t < 22)
		return &common_types[t];
	if (release >= 1213) {
		tab = types_1213;
		n = sizeof(types_1213) / sizeof(types_1213[0]);
	} else if (release >= 1207) {
		tab = types_1207;
		n = sizeof(types_1207) / sizeof(types_1207[0]);
	} else if (release >= 1204) {
		tab = types_1204;
		n = sizeof(types_1204) / sizeof(types_1204[0]);
	} else {
		tab = types_1203;
		n = sizeof(types_1203) / sizeof(types_1203[0]);
	}
	return t - 22 < n ? &tab[t - 22] : &unknown_type;
}

const char *tt_nuttx_type_name(unsigned release, unsigned t)
{
	return type_of(release, t)->name;
}

void nx_dec_reset(struct nx_dec *d)
{
	memset(d->names, 0, sizeof(d->names));
	d->nwant = 0;
	d->have_time = false;
	d->first_time = d->time = d->last_raw = 0;
	d->step = 0;
	d->steps_seen = 0;
	d->step_broken = false;
	d->after_gap = false;
}

uint64_t nx_rec_time(const struct nx_dec *d, const uint8_t *p)
{
	const struct nx_lay *l = &d->lay;
	uint64_t t = nx_get(l, p + l->off_time, l->time_size);

	if (l->off_nsec)
		t = t * 1000000000u + nx_get(l, p + l->off_nsec, l->nsec_size);
	return t;
}

/* ---- arguments ---- */

struct rec {
	struct nx_dec *d;
	const uint8_t *p;
	unsigned len;
	struct tt_event *ev;
};

static bool field(const struct rec *r, unsigned off, unsigned size, uint64_t *v)
{
	if (off + size > r->len)
		return false;
	*v = nx_get(&r->d->lay, r->p + off, size);
	return true;
}

static struct tt_arg *add(struct rec *r, const char *name, uint8_t kind, uint64_t v)
{
	struct tt_arg *a;

	if (r->ev->nargs >= TT_MAX_ARGS)
		return NULL;
	a = &r->ev->args[r->ev->nargs++];
	*a = (struct tt_arg){ .name = name, .value = (uint32_t)v, .kind = kind };
	return a;
}

static char *scratch(struct rec *r)
{
	return r->d->text[r->ev->nargs < TT_MAX_ARGS ? r->ev->nargs : TT_MAX_ARGS - 1];
}

/* Numbers beyond 32 bits (64-bit targets) become strings: record.h holds 32-bit values. */
static void add_num(struct rec *r, const char *name, uint64_t v, bool hex)
{
	if (v <= UINT32_MAX) {
		add(r, name, hex ? TT_ARG_HEX : TT_ARG_UINT, v);
		return;
	}
	char *t = scratch(r);
	snprintf(t, NX_TEXT_MAX, hex ? "0x%llx" : "%llu", (unsigned long long)v);
	struct tt_arg *a = add(r, name, TT_ARG_OBJ, v);
	if (a)
		a->text = t;
}

static void add_field(struct rec *r, const char *name, unsigned off, unsigned size, bool hex)
{
	uint64_t v;

	if (field(r, off, size, &v))
		add_num(r, name, v, hex);
}

/* Text as NuttX prints it (printable ASCII, newlines and tabs kept), other bytes as '?'. */
static void sanitize(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap && s[i]; i++)
		dst[i] = (s[i] >= 0x20 && s[i] < 0x7f) || s[i] == '\n' || s[i] == '\t' ? (char)s[i]
											: '?';
	dst[i] = 0;
}

/* The text of at most n bytes at off (up to a NUL), or of the rest of the note (n == 0). */
static const char *add_text(struct rec *r, const char *name, unsigned off, unsigned n)
{
	if (off >= r->len)
		return NULL;
	if (!n || n > r->len - off)
		n = r->len - off;
	char *t = scratch(r);
	sanitize(t, NX_TEXT_MAX, r->p + off, n);
	struct tt_arg *a = add(r, name, TT_ARG_OBJ, 0);
	if (!a)
		return NULL;
	a->text = t;
	return t;
}

static const char *add_string(struct rec *r, const char *name, unsigned off)
{
	return add_text(r, name, off, 0);
}

/* How many data bytes a note with a variable part at off holds: NuttX stores
 * SIZEOF_NOTE_EVENT(n) = sizeof(struct note_event_s) + n (the struct already has room for one
 * byte: `extra` 0) and SIZEOF_NOTE_PRINTF(n) = sizeof(struct note_printf_s) + n - 1 (extra 1);
 * the struct's size is the data offset + 1 rounded up to the struct's alignment. */
static unsigned var_len(const struct rec *r, unsigned off, unsigned extra)
{
	unsigned size = nx_alignup(off + 1, r->d->lay.salign);

	return r->len + extra > size ? r->len + extra - size : 0;
}

static void add_hexdump(struct rec *r, const char *name, unsigned off, unsigned n)
{
	static const char dig[] = "0123456789abcdef";
	char *t = scratch(r);
	unsigned i;

	if (off > r->len)
		return;
	if (n > r->len - off)
		n = r->len - off;
	for (i = 0; i < n && 2 * i + 3 < NX_TEXT_MAX; i++) {
		t[2 * i] = dig[r->p[off + i] >> 4];
		t[2 * i + 1] = dig[r->p[off + i] & 15];
	}
	t[2 * i] = 0;
	struct tt_arg *a = add(r, name, TT_ARG_OBJ, n);
	if (a)
		a->text = t;
}

/* enum tstate_e (include/nuttx/sched.h): stable for the first states; SMP inserts ASSIGNED;
 * later states depend on the configuration and stay numbers. */
static const char *state_name(const struct nx_lay *l, unsigned s)
{
	static const char *const up[] = { "invalid", "pending", "ready", "running", "inactive",
					  "wait_sem", "wait_sig" };
	static const char *const smp[] = { "invalid", "pending", "ready", "assigned", "running",
					   "inactive", "wait_sem", "wait_sig" };

	if (l->smp)
		return s < sizeof(smp) / sizeof(smp[0]) ? smp[s] : NULL;
	return s < sizeof(up) / sizeof(up[0]) ? up[s] : NULL;
}

/* nr as a number, or with the firmware's name for it (g_funcnames[nr - CONFIG_SYS_RESERVED]) */
static void syscall_nr(struct rec *r, uint64_t nr)
{
	const struct nx_dec *d = r->d;
	struct tt_arg *a = add(r, "nr", d->sysnames ? TT_ARG_ENUM : TT_ARG_UINT, nr);

	if (a && d->sysnames && nr >= (uint64_t)d->sys_reserved &&
	    nr - (uint64_t)d->sys_reserved < d->nsys)
		a->text = d->sysnames[nr - (uint64_t)d->sys_reserved];
}

static const char *const argn[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };

/* SYSCALL_ENTER: nc_length ignores the padding before nsc_args, so the last argument usually
 * misses bytes (2 on 32-bit, 6 on 64-bit targets). Such an argument is shown with the missing
 * bytes as '?' ("0x????3c10"), never as a number. NuttX passes at most 6 (MAX_SYSCALL_ARGS). */
static void syscall_enter(struct rec *r)
{
	const struct nx_lay *l = &r->d->lay;
	uint64_t nr, argc;
	unsigned base = nx_alignup(l->hdr + 2, l->pal);

	if (!field(r, l->hdr, 1, &nr) || !field(r, l->hdr + 1, 1, &argc))
		return;
	syscall_nr(r, nr);
	for (unsigned i = 0; i < argc && i < 6; i++) {
		unsigned off = base + i * l->ptr;
		if (off + l->ptr <= r->len) {
			add_num(r, argn[i], nx_get(l, r->p + off, l->ptr), true);
			continue;
		}
		/* Truncated (or missing): print the bytes present, '?' for the others. */
		unsigned have = off < r->len ? r->len - off : 0;
		char *t = scratch(r);
		char *o = t;
		o += sprintf(o, "0x");
		for (unsigned k = 0; k < l->ptr; k++) {
			unsigned byte = l->be ? k : l->ptr - 1 - k; /* most significant first */
			if (byte < have)
				o += sprintf(o, "%02x", r->p[off + byte]);
			else
				o += sprintf(o, "??");
		}
		struct tt_arg *a = add(r, argn[i], TT_ARG_OBJ, 0);
		if (a)
			a->text = t;
	}
}

/* ---- DUMP_PRINTF: the format string from the ELF, the arguments as sched_note_vprintf_ip
 * packs them when npt_type is 0: back to back, no alignment, target byte order; d i u o x X c
 * as int (4), with l/z/t long/size_t/ptrdiff_t (pointer size), ll/j 8; e f g a as double (8);
 * '*' an int; s the string itself, NUL-terminated; p a pointer. */

/* The NUL-terminated string at addr in the ELF's read-only data (at most cap - 1 chars). */
static bool ro_string(const struct tt_nuttx_mem *m, uint64_t addr, char *out, size_t cap)
{
	for (unsigned i = 0; m && i < m->n; i++) {
		const struct tt_nuttx_seg *s = &m->seg[i];
		if (addr < s->addr || addr - s->addr >= s->len)
			continue;
		size_t off = (size_t)(addr - s->addr), k;
		for (k = 0; k + 1 < cap && off + k < s->len && s->data[off + k]; k++)
			out[k] = (char)s->data[off + k];
		out[k] = 0;
		return off + k < s->len && !s->data[off + k]; /* the whole string was there */
	}
	return false;
}

static void event_payload(struct rec *r, unsigned kind, bool tag)
{
	const struct nx_lay *l = &r->d->lay;
	unsigned a = nx_alignup(l->hdr, l->pal), o = a + l->ptr;

	add_field(r, "ip", a, l->ptr, true);
	if (tag) {
		add_field(r, "tag", o, 4, false);
		o += 4;
	}
	switch (kind) {
	case K_EVENT_STR: { /* nc_length - sizeof(struct note_event_s) characters, no NUL */
		unsigned n = var_len(r, o, 0);
		struct tt_arg *x;
		if (n)
			add_text(r, "text", o, n);
		else if ((x = add(r, "text", TT_ARG_OBJ, 0)) != NULL)
			x->text = ""; /* sched_note_begin(tag): no text, NuttX prints the ip */
		break;
	}
	case K_L_EVENT_STR:
	case K_L_STRING:
		add_string(r, "text", o);
		break;
	case K_EVENT_COUNTER:
	case K_L_COUNTER:
		if (o + l->ptr <= r->len) {
			uint64_t v = nx_get(l, r->p + o, l->ptr);
			if (l->ptr == 4)
				v = (uint64_t)(int64_t)(int32_t)v;
			add_num(r, "value", v, false);
		}
		add_string(r, "name", o + l->ptr);
		break;
	default: { /* binary: n = nc_length - sizeof(struct note_event_s) */
		unsigned n = var_len(r, o, 0);
		if (kind == K_L_BINARY && l->bytes) { /* <= 12.3: ip, event, data */
			add_field(r, "event", o, 1, false);
			o++;
			n = r->len > o ? r->len - o : 0;
		} else if (kind == K_L_BINARY) {
			n = r->len - o;
		}
		add(r, "len", TT_ARG_UINT, n);
		add_hexdump(r, "data", o, n);
	}
	}
}

/* NOTE_DUMP_PRINTF: the format string stays in target memory (npt_fmt): text needs the ELF. */
static void printf_payload(struct rec *r)
{
	const struct nx_lay *l = &r->d->lay;
	unsigned a = nx_alignup(l->hdr, l->pal), o = a + 2 * l->ptr;
	uint64_t v, w = 1;

	add_field(r, "ip", a, l->ptr, true);
	add_field(r, "fmt", a + l->ptr, l->ptr, true);
	if (l->release >= 1213) {
		add_field(r, "tag", o, 4, false);
		o += 4;
	}
	add_field(r, "arg_types", o, 4, true);
	unsigned n = var_len(r, o + 4, 1);
	add_hexdump(r, "data", o + 4, n);
	/* with the ELF's read-only data: the text NuttX would print (untyped notes) */
	char fmt[256];
	if (r->d->rodata && field(r, a + l->ptr, l->ptr, &v) && field(r, o, 4, &w) && !w &&
	    ro_string(r->d->rodata, v, fmt, sizeof(fmt))) {
		char *t = scratch(r);
		if (nx_render_printf(l, fmt, r->p + o + 4, n, t, NX_TEXT_MAX)) {
			struct tt_arg *x = add(r, "text", TT_ARG_OBJ, 0);
			if (x)
				x->text = t;
		}
	}
}

/* The notes with one u8 after the header: NOTE_SUSPEND's state is named. */
static void u8_payload(struct rec *r, const char *name)
{
	uint64_t v;

	if (!field(r, r->d->lay.hdr, 1, &v))
		return;
	if (r->ev->id == 2) {
		struct tt_arg *x = add(r, "state", TT_ARG_ENUM, v);
		if (x)
			x->text = state_name(&r->d->lay, (unsigned)v);
	} else {
		add(r, name, TT_ARG_UINT, v);
	}
}

/* The notes of pointer-aligned members after the header (at a): spinlocks, watchdogs, heap. */
static void ptr_payload(struct rec *r, unsigned kind, unsigned a)
{
	unsigned p = r->d->lay.ptr;

	switch (kind) {
	case K_SPIN:
		add_field(r, "spinlock", a, p, true);
		add_field(r, "value", a + p, 1, false);
		break;
	case K_WDOG:
		add_field(r, "handler", a, p, true);
		add_field(r, "arg", a + p, p, true);
		break;
	default: /* K_HEAP */
		add_field(r, "heap", a, p, true);
		add_field(r, "mem", a + p, p, true);
		add_field(r, "size", a + 2 * p, p, false);
		add_field(r, "used", a + 3 * p, p, false);
		break;
	}
}

static void payload(struct rec *r, const struct nx_type *ty)
{
	const struct nx_lay *l = &r->d->lay;
	unsigned h = l->hdr, a = nx_alignup(h, l->pal), a2 = l->bytes ? h : nx_alignup(h, 2);
	uint64_t v;

	switch (ty->kind) {
	case K_U8:
		u8_payload(r, ty->u8name);
		break;
	case K_U16:
		add_field(r, "count", a2, 2, false);
		break;
	case K_CSECTION:
		if (l->smp)
			add_field(r, "count", a2, 2, false);
		break;
	case K_SPIN:
	case K_WDOG:
	case K_HEAP:
		ptr_payload(r, ty->kind, a);
		break;
	case K_SC_ENTER:
		syscall_enter(r);
		break;
	case K_SC_LEAVE:
		if (field(r, h, 1, &v))
			syscall_nr(r, v);
		add_field(r, "result", nx_alignup(h + 1, l->pal), l->ptr, true);
		break;
	case K_IRQ:
		if (l->release < 1203) { /* no handler before 12.3 */
			add_field(r, "irq", h, 1, false);
			break;
		}
		add_field(r, "irq", a + l->ptr, 1, false);
		add_field(r, "handler", a, l->ptr, true);
		break;
	case K_PRINTF:
		printf_payload(r);
		break;
	case K_EVENT_STR:
	case K_EVENT_BIN:
	case K_EVENT_COUNTER:
		event_payload(r, ty->kind, l->release >= 1213);
		break;
	case K_L_STRING:
	case K_L_BINARY:
	case K_L_EVENT_STR:
	case K_L_COUNTER:
		event_payload(r, ty->kind, false);
		break;
	default:
		break;
	}
}

static struct nx_name *name_slot(struct nx_dec *d, int32_t pid)
{
	return &d->names[(uint32_t)pid % NX_NAMES];
}

void nx_set_name(struct nx_dec *d, int32_t pid, const char *name)
{
	struct nx_name *ns = name_slot(d, pid);

	if ((ns->used && ns->pid == pid) || (!name && ns->used))
		return; /* a START note came first; or keep another pid's name in the slot */
	ns->pid = pid;
	ns->used = name != NULL;
	ns->looked = name == NULL;
	snprintf(ns->name, sizeof(ns->name), "%s", name ? name : "");
}

bool nx_name_known(struct nx_dec *d, int32_t pid)
{
	const struct nx_name *ns = name_slot(d, pid);

	return ns->pid == pid && (ns->used || ns->looked);
}

void nx_want_name(struct nx_dec *d, int32_t pid)
{
	if (!d->want_names || d->nwant == NX_WANT || nx_name_known(d, pid))
		return;
	for (unsigned i = 0; i < d->nwant; i++)
		if (d->want[i] == pid)
			return;
	d->want[d->nwant++] = pid;
}

static void advance_time(struct nx_dec *d, uint64_t raw)
{
	uint64_t t = raw;

	if (d->lay.time_size == 4 && !d->lay.off_nsec) {
		t = d->have_time ? d->time + (uint32_t)(raw - d->last_raw) : raw;
	} else if (d->have_time && t < d->time) {
		t = d->time; /* never go backwards (unsynchronised SMP counters) */
	}
	if (d->have_time && d->after_gap) {
		d->after_gap = false;
	} else if (d->have_time) {
		uint64_t delta = t - d->time;
		if (d->steps_seen && delta != d->step)
			d->step_broken = true;
		d->step = delta;
		d->steps_seen++;
	} else {
		d->first_time = t;
	}
	d->have_time = true;
	d->time = t;
	d->last_raw = raw;
}

int64_t nx_count_by_time(const struct nx_dec *d, uint64_t raw)
{
	uint64_t diff;

	if (!d->have_time || d->step_broken || d->steps_seen < 2 || !d->step)
		return -1;
	diff = d->lay.time_size == 4 && !d->lay.off_nsec ? (uint32_t)(raw - d->last_raw)
							 : raw - d->last_raw;
	if (!diff || diff % d->step)
		return -1;
	return (int64_t)(diff / d->step) - 1;
}

void nx_emit_record(struct nx_dec *d, const uint8_t *p, uint64_t addr, tt_emit_cb cb, void *arg)
{
	const struct nx_lay *l = &d->lay;
	struct tt_record rec = { .kind = TT_REC_EVENT };
	struct tt_event *ev = &rec.u.ev;
	struct rec r = { d, p, p[0], ev };
	const struct nx_type *ty = type_of(l->release, p[1]);
	int32_t pid = nx_rec_pid(l, p);
	uint64_t raw = nx_rec_time(d, p);
	struct nx_name *ns = name_slot(d, pid);
	unsigned nw = (r.len + 3) / 4;

	advance_time(d, raw);
	d->tasks_changed |= p[1] <= 1; /* NOTE_START, NOTE_STOP in every release */
	ev->id = p[1];
	ev->name = ty->name ? ty->name : "UNKNOWN";
	ev->ctx = TT_CTX_THREAD;
	ev->core = l->has_cpu ? p[3] : -1;
	ev->thread = (uint32_t)pid;
	ev->prio = p[2];
	ev->threshold = -1;
	ev->ts_raw = (uint32_t)raw;
	ev->time = d->time;
	if (l->off_nsec) {
		ev->ns = d->time - d->first_time;
		ev->has_ns = true;
	} else if (d->tick_hz) {
		__extension__ typedef unsigned __int128 u128;
		ev->ns = (uint64_t)((u128)(d->time - d->first_time) * 1000000000u / d->tick_hz);
		ev->has_ns = true;
	}
	ev->addr = addr;
	if (ty->kind == K_START) {
		const char *name = add_string(&r, "name", l->hdr);
		if (name) {
			ns->pid = pid;
			ns->used = true;
			ns->looked = false;
			snprintf(ns->name, sizeof(ns->name), "%s", name);
		}
	} else {
		payload(&r, ty);
	}
	ev->thread_name = ns->used && ns->pid == pid ? ns->name : NULL;
	if (!ev->thread_name)
		nx_want_name(d, pid);
	for (unsigned i = 0; i < nw; i++) {
		uint8_t w[4] = { 0 };
		unsigned n = r.len - 4 * i < 4 ? r.len - 4 * i : 4;
		memcpy(w, p + 4 * i, n);
		d->raw[i] = (uint32_t)nx_get(l, w, 4);
	}
	ev->raw = d->raw;
	ev->nraw = (uint8_t)nw;
	cb(arg, &rec);
}

const char *tt_nuttx_elf_symbol(const struct tt_nuttx_layout *lo)
{
	return lo && lo->release && lo->release < 1204 ? "g_noteram_info" : "g_noteram_driver";
}
