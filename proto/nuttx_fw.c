/* proto/nuttx_fw.c: the NuttX note layout, syscall names and read-only data from the firmware
 * ELF, asked through the neutral queries of fwquery.h (no I/O here: the caller's table does it).
 *
 * The types the layout needs: struct noteram_driver_s, struct note_common_s,
 * struct note_csection_s, enum note_type_e, the variable g_cpu_irqset; before 12.4 struct
 * noteram_info_s. The rules that turn members and enumerators into a release family are
 * README-nuttx.md's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwquery.h"
#include "nuttx_int.h"

#define Q(fn, ...) q->fn(q->fw, __VA_ARGS__)

/* The types and variables the layout reads, found once. */
struct nx_types {
	uint64_t drv, common, csect, type_enum, info, irq, tcb, event, preempt, scenter;
	uint8_t drv_asize; /* address size of the unit holding noteram_driver_s / noteram_info_s */
};

static void find_types(const struct tt_fw_query *q, struct nx_types *t)
{
	uint8_t info_asize = 0;

	t->drv = Q(type, "noteram_driver_s", &t->drv_asize);
	t->common = Q(type, "note_common_s", NULL);
	t->csect = Q(type, "note_csection_s", NULL);
	t->type_enum = Q(type, "note_type_e", NULL);
	t->info = Q(type, "noteram_info_s", &info_asize);
	t->irq = Q(type, "note_irqhandler_s", NULL);
	t->tcb = Q(type, "tcb_s", NULL);
	t->event = Q(type, "note_event_s", NULL);
	t->preempt = Q(type, "note_preempt_s", NULL);
	t->scenter = Q(type, "note_syscall_enter_s", NULL);
	if (!t->drv)
		t->drv_asize = info_asize;
}

/* ni_buffer, ni_bufsize, ni_head, ni_tail, ni_overwrite and the pointer size. */
static int driver_layout(const struct tt_fw_query *q, const char *path,
			 const struct nx_types *t, struct tt_nuttx_layout *lo, char *err,
			 size_t errlen)
{
	static const char *const names[4] = { "ni_buffer", "ni_bufsize", "ni_head", "ni_tail" };
	uint16_t *offs[4] = { &lo->off_buffer, &lo->off_bufsize, &lo->off_head, &lo->off_tail };
	uint64_t m, off, ptr = t->drv_asize;

	for (int i = 0; i < 4; i++) {
		if (!(m = Q(member, t->drv, names[i]))) {
			snprintf(err, errlen, "%s: DWARF 'struct noteram_driver_s' has no member '%s' "
				 "(NuttX before 12.4, or a later driver layout tracetap does not "
				 "read)", path, names[i]);
			return -ESRCH;
		}
		if (Q(member_offset, m, &off) < 0 || off > UINT16_MAX) {
			snprintf(err, errlen, "%s: DWARF 'struct noteram_driver_s': cannot read the "
				 "offset of '%s'", path, names[i]);
			return -ERANGE;
		}
		*offs[i] = (uint16_t)off;
		if (i == 0 && Q(size, m))
			ptr = Q(size, m);
	}
	/* ni_overwrite: every 12.4+ driver has it; without it the reader derives the offset */
	lo->off_overwrite = 0;
	if ((m = Q(member, t->drv, "ni_overwrite")) && Q(member_offset, m, &off) == 0 &&
	    off <= UINT16_MAX)
		lo->off_overwrite = (uint16_t)off;
	if (ptr != 4 && ptr != 8) {
		snprintf(err, errlen, "%s: pointer size %u in 'struct noteram_driver_s' (ni_buffer): "
			 "only 4 and 8 are read", path, (unsigned)ptr);
		return -ERANGE;
	}
	lo->ptr_size = (uint8_t)ptr;
	return 0;
}

/* release, time64, smp, header_size, align from note_common_s and note_type_e. */
static int note_layout(const struct tt_fw_query *q, const char *path, const struct nx_types *t,
		       struct tt_nuttx_layout *lo, char *err, size_t errlen)
{
	uint64_t m = Q(member, t->common, "nc_systime_sec"), tsize, hdr;
	bool old = m != 0;
	int64_t v;

	if (!old && !(m = Q(member, t->common, "nc_systime"))) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s' has neither 'nc_systime' "
			 "nor 'nc_systime_sec' (NuttX before 12.4 is not supported)", path);
		return -ESRCH;
	}
	tsize = Q(size, m);
	if (tsize != 4 && tsize != 8) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s': time stamp of %u bytes "
			 "(expected 4 or 8)", path, (unsigned)tsize);
		return -ERANGE;
	}
	hdr = Q(size, t->common);
	if (!hdr || hdr > 255) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s' has no usable size", path);
		return -ERANGE;
	}
	lo->time64 = tsize == 8;
	lo->header_size = (uint8_t)hdr;
	if (old) {
		lo->release = Q(enumerator, t->type_enum, "NOTE_DUMP_STRING", &v) ? 1204 : 1207;
		lo->smp = Q(member, t->common, "nc_cpu") != 0;
	} else {
		lo->release = Q(enumerator, t->type_enum, "NOTE_DUMP_BINARY", &v) && v == 34 ? 1213
											   : 1208;
		lo->smp = (t->csect && Q(member, t->csect, "ncs_count")) ||
			  Q(variable, "g_cpu_irqset");
	}
	lo->align = lo->release < 1207 ? 1 : lo->ptr_size;
	return 0;
}

#define LEGACY_FAIL(rc, ...) (snprintf(err, errlen, __VA_ARGS__), rc)

/* Before 12.4: struct noteram_info_s (ni_overwrite, ni_head, ni_tail, the buffer inline) and
 * note_common_s made of byte arrays: their sizes are sizeof(pid_t), sizeof(time_t)/clock_t,
 * sizeof(long). The pointer size is the unit's address size. */
static int legacy_layout(const struct tt_fw_query *q, const char *path,
			 const struct nx_types *t, struct tt_nuttx_layout *lo, char *err,
			 size_t errlen)
{
	static const char *const names[4] = { "ni_overwrite", "ni_head", "ni_tail", "ni_buffer" };
	uint16_t *offs[4] = { &lo->off_overwrite, &lo->off_head, &lo->off_tail, &lo->off_buffer };
	uint64_t m = 0, off, sz, c = t->common;

	for (int i = 0; i < 4; i++) {
		if (!(m = Q(member, t->info, names[i])) || Q(member_offset, m, &off) < 0 ||
		    off > UINT16_MAX)
			return LEGACY_FAIL(-ESRCH, "%s: DWARF 'struct noteram_info_s' has no usable "
					   "member '%s'", path, names[i]);
		*offs[i] = (uint16_t)off;
	}
	sz = Q(size, m); /* ni_buffer[CONFIG_DRIVER_NOTERAM_BUFSIZE] */
	if (!sz || sz > (16u << 20))
		return LEGACY_FAIL(-ERANGE, "%s: DWARF 'struct noteram_info_s': ni_buffer has no "
				   "usable size", path);
	lo->bufsize = (uint32_t)sz;
	lo->off_bufsize = 0;
	lo->ptr_size = t->drv_asize == 8 ? 8 : 4;
	lo->big_endian = false; /* byte arrays, little-endian whatever the CPU */
	lo->align = 1;
	lo->smp = Q(member, c, "nc_cpu") != 0;
	if (!(m = Q(member, c, "nc_pid")) || ((sz = Q(size, m)) != 2 && sz != 4))
		return LEGACY_FAIL(-ERANGE, "%s: DWARF 'struct note_common_s': nc_pid is not 2 or "
				   "4 bytes", path);
	lo->pid_size = (uint8_t)sz;
	m = Q(member, c, "nc_systime_sec");
	lo->hires = m != 0;
	if (!lo->hires && !(m = Q(member, c, "nc_systime")))
		return LEGACY_FAIL(-ESRCH, "%s: DWARF 'struct note_common_s' has neither "
				   "'nc_systime' nor 'nc_systime_sec'", path);
	sz = Q(size, m);
	if (sz != 4 && sz != 8)
		return LEGACY_FAIL(-ERANGE, "%s: DWARF 'struct note_common_s': time stamp of %u "
				   "bytes (expected 4 or 8)", path, (unsigned)sz);
	lo->time64 = sz == 8;
	if (lo->hires && (!(m = Q(member, c, "nc_systime_nsec")) || Q(size, m) != lo->ptr_size))
		return LEGACY_FAIL(-ERANGE, "%s: DWARF 'struct note_common_s': nc_systime_nsec is "
				   "not sizeof(long) = %u bytes (tracetap reads that case only)",
				   path, lo->ptr_size);
	sz = Q(size, c);
	if (!sz || sz > 255)
		return LEGACY_FAIL(-ERANGE, "%s: DWARF 'struct note_common_s' has no usable size",
				   path);
	lo->header_size = (uint8_t)sz; /* byte arrays: no padding, so this is the header */
	/* the IRQ notes carry the handler from 12.3 */
	lo->release = t->irq && Q(member, t->irq, "nih_handler") ? 1203 : 1200;
	return 0;
}

/* Task names from the target (optional: left 0 when anything is missing): the addresses of
 * g_pidhash (a pointer: the dynamic hash of NuttX 10.3 and later) and g_npidhash, and
 * struct tcb_s's pid and name[] (CONFIG_TASK_NAME_SIZE > 0). */
/* Where a task's stack lies (stack_base_ptr: the lowest address of the usable stack;
 * adj_stack_size: its size, a size_t), as NuttX's up_check_tcbstack reads them, and the colour
 * its architecture paints stacks with. Optional: left 0 when a member is missing or not that
 * shape (no stack figures). */
static void stack_layout(const struct tt_fw_query *q, const struct nx_types *t,
			 struct tt_nuttx_layout *lo)
{
	uint64_t base = Q(member, t->tcb, "stack_base_ptr"), size = Q(member, t->tcb,
								      "adj_stack_size"), ob, os;

	if (!base || !size || Q(member_offset, base, &ob) < 0 || Q(member_offset, size, &os) < 0 ||
	    !ob || !os || ob > UINT16_MAX || os > UINT16_MAX ||
	    Q(size, size) != q->class_bytes(q->fw))
		return;
	lo->tcb_off_stack_base = (uint16_t)ob;
	lo->tcb_off_stack_size = (uint16_t)os;
	lo->stack_color = tt_nuttx_stack_color_of_machine(q->machine ? q->machine(q->fw) : 0);
}

static void task_layout(const struct tt_fw_query *q, const struct nx_types *t,
			struct tt_nuttx_layout *lo)
{
	uint64_t pid, name, op, on, ps, ns, hash, count, vhash, vcount;

	vhash = Q(variable, "g_pidhash");
	vcount = Q(variable, "g_npidhash");
	if (!t->tcb || !vhash || !vcount || !(pid = Q(member, t->tcb, "pid")) ||
	    !(name = Q(member, t->tcb, "name")) || Q(member_offset, pid, &op) < 0 ||
	    Q(member_offset, name, &on) < 0 || !op || !on || op > UINT16_MAX || on > UINT16_MAX)
		return;
	ps = Q(size, pid);
	ns = Q(size, name);
	hash = Q(var_addr, vhash);
	count = Q(var_addr, vcount);
	/* g_pidhash must be a pointer (before 10.3 it was an array of struct pidhash_s) */
	if (!Q(is_pointer, vhash) || (ps != 2 && ps != 4) || !ns || ns > 255 || !hash || !count)
		return;
	lo->pidhash_addr = hash;
	lo->npidhash_addr = count;
	lo->tcb_off_pid = (uint16_t)op;
	lo->tcb_off_name = (uint16_t)on;
	lo->tcb_pid_size = (uint8_t)ps;
	lo->tcb_name_size = (uint8_t)ns;
	stack_layout(q, t, lo);
}

/* NuttX's cache of task names (CONFIG_DRIVERS_NOTE_TASKNAME_BUFSIZE > 0): the variable
 * g_note_taskname (struct note_taskname_s: size_t head, tail; char buffer[N]); its address
 * and N. Optional: left 0 when missing or not that shape. */
static void taskname_layout(const struct tt_fw_query *q, struct tt_nuttx_layout *lo)
{
	uint64_t v = Q(variable, "g_note_taskname"), buf, off, n, addr;

	if (!v || !(buf = Q(member, Q(type_of, v), "buffer")) ||
	    Q(member_offset, buf, &off) < 0 || off != 2u * lo->ptr_size)
		return;
	n = Q(size, buf);
	addr = Q(var_addr, v);
	if (!n || n > 4096 || !addr)
		return;
	lo->taskname_addr = addr;
	lo->taskname_size = (uint16_t)n;
}

/* The note structs' alignment where it is not the larger of the pointer and time stamp sizes
 * (the default): i386 aligns an 8-byte clock_t to 4, so a note struct whose size is not a
 * multiple of 8 (struct note_preempt_s: 20; note_syscall_enter_s: 44) says 4. When every size
 * found is a multiple of 8 the alignment is left to the default. */
static void struct_align(const struct tt_fw_query *q, const struct nx_types *t,
			 struct tt_nuttx_layout *lo)
{
	const uint64_t types[] = { t->event, t->csect, t->preempt, t->scenter };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint64_t size = types[i] ? Q(size, types[i]) : 0;

		if (size && size % 8 && size % 4 == 0)
			lo->struct_align = 4;
	}
}

#define MISSING(what, hint)                                                                  \
	(snprintf(err, errlen, "%s: no DWARF type '%s' (%s)", path, what, hint), -ESRCH)

int tt_nuttx_layout_from_fw(const struct tt_fw_query *q, struct tt_nuttx_layout *out,
			    char *err, size_t errlen)
{
	const char *path = q->path(q->fw);
	struct tt_nuttx_layout lo = { .sys_reserved = -1 };
	struct nx_types t = { 0 };
	int64_t sys_exit;
	int rc;

	if (!q->has_dwarf(q->fw)) {
		snprintf(err, errlen, "%s: no DWARF debug information (stripped, or built without "
			 "-g): cannot read the NuttX note layout; give the unstripped firmware ELF",
			 path);
		return -ENODATA;
	}
	find_types(q, &t);
	if (Q(enumerator, 0, "SYS__exit", &sys_exit) && sys_exit >= 0 && sys_exit <= 255)
		lo.sys_reserved = (int32_t)sys_exit;
	if (!t.drv && t.info && t.common) {
		rc = legacy_layout(q, path, &t, &lo, err, errlen);
		if (rc == 0) {
			task_layout(q, &t, &lo);
			*out = lo;
		}
		return rc;
	}
	if (!t.drv)
		return MISSING("struct noteram_driver_s", "build with -g and CONFIG_DRIVERS_NOTERAM");
	if (!t.common)
		return MISSING("struct note_common_s", "build with -g and "
			       "CONFIG_SCHED_INSTRUMENTATION");
	if (!t.type_enum)
		return MISSING("enum note_type_e", "needed to tell the NuttX release; build with -g "
			       "and CONFIG_SCHED_INSTRUMENTATION");
	lo.big_endian = q->big_endian(q->fw);
	lo.long_double = tt_nuttx_ldbl_of_machine(q->machine ? q->machine(q->fw) : 0);
	rc = driver_layout(q, path, &t, &lo, err, errlen);
	if (rc == 0)
		rc = note_layout(q, path, &t, &lo, err, errlen);
	if (rc == 0) {
		task_layout(q, &t, &lo);
		taskname_layout(q, &lo);
		struct_align(q, &t, &lo);
		*out = lo;
	}
	return rc;
}

/* ---- syscall names: g_funcnames[] ---- */

/* The NUL-terminated string at addr (at most NAME_MAX_SC - 1 characters, printable ASCII);
 * false when unreadable or not a name. */
#define NAME_MAX_SC 48
static bool read_name(const struct tt_fw_query *q, uint64_t addr, char *out)
{
	for (unsigned i = 0; i < NAME_MAX_SC; i++) {
		uint8_t c;

		if (Q(read, addr + i, &c, 1) < 0)
			return false;
		if (!c) {
			out[i] = 0;
			return i > 0;
		}
		if (c < 0x20 || c > 0x7e)
			return false;
		out[i] = (char)c;
	}
	return false;
}

/* Fills the n names of sc (allocated for them) from the pointers at addr: how many read. */
static unsigned read_names(const struct tt_fw_query *q, uint64_t addr, size_t n,
			   struct tt_nuttx_syscalls *sc)
{
	bool be = q->big_endian(q->fw);
	unsigned ptr = q->class_bytes(q->fw), readable = 0;
	const char **names = (const char **)(void *)(sc + 1);
	char *strs = (char *)(names + n);

	for (size_t i = 0; i < n; i++) {
		uint8_t b[8];
		uint64_t p = 0;

		if (Q(read, addr + i * ptr, b, ptr) < 0)
			continue;
		for (unsigned k = 0; k < ptr; k++)
			p |= (uint64_t)b[be ? ptr - 1 - k : k] << (8 * k);
		if (read_name(q, p, strs + i * NAME_MAX_SC)) {
			names[i] = strs + i * NAME_MAX_SC;
			readable++;
		}
	}
	sc->n = (unsigned)n;
	sc->names = names;
	return readable;
}

int tt_nuttx_syscalls_from_fw(const struct tt_fw_query *q, struct tt_nuttx_syscalls **out,
			      char *err, size_t errlen)
{
	const char *path = q->path(q->fw);
	unsigned ptr = q->class_bytes(q->fw);
	uint64_t v = q->has_dwarf(q->fw) ? Q(variable, "g_funcnames") : 0, total, addr;
	struct tt_nuttx_syscalls *sc;
	size_t n;

	*out = NULL;
	if (!v) {
		snprintf(err, errlen, "%s: no DWARF variable 'g_funcnames' (syscall names need "
			 "CONFIG_SCHED_INSTRUMENTATION_SYSCALL and -g)", path);
		return -ESRCH;
	}
	total = Q(size, v);
	if (Q(array_len, v, &(uint64_t){ 0 }) < 0 || !total || total % ptr ||
	    total / ptr > 4096 || !(addr = Q(var_addr, v))) {
		snprintf(err, errlen, "%s: DWARF 'g_funcnames' is not an array of at most 4096 "
			 "pointers at a fixed address", path);
		return -ERANGE;
	}
	n = total / ptr;
	/* one allocation: the table, the pointers, the strings */
	sc = calloc(1, sizeof(*sc) + n * (sizeof(char *) + NAME_MAX_SC));
	if (!sc) {
		snprintf(err, errlen, "out of memory for %zu syscall names", n);
		return -ENOMEM;
	}
	if (!read_names(q, addr, n, sc)) {
		free(sc);
		snprintf(err, errlen, "%s: g_funcnames at 0x%llx: no entry points to a name in the "
			 "file's sections", path, (unsigned long long)addr);
		return -ERANGE;
	}
	*out = sc;
	return 0;
}

/* ---- read-only data: DUMP_PRINTF format strings ---- */

int tt_nuttx_rodata_from_fw(const struct tt_fw_query *q, struct tt_nuttx_mem **out, char *err,
			    size_t errlen)
{
	const char *path = q->path(q->fw);
	size_t total = 0, len;
	unsigned n = 0;
	uint64_t addr;
	const uint8_t *data;

	*out = NULL;
	while (Q(rodata, n, &addr, &data, &len) == 0 && total <= (64u << 20)) {
		total += len;
		n++;
	}
	if (!n || total > (64u << 20)) {
		snprintf(err, errlen, "%s: %s", path, n ? "more than 64 MiB of read-only data"
							: "no read-only data sections");
		return -ERANGE;
	}
	struct tt_nuttx_mem *m = calloc(1, sizeof(*m) + n * sizeof(struct tt_nuttx_seg) + total);
	if (!m) {
		snprintf(err, errlen, "out of memory for %zu bytes of read-only data", total);
		return -ENOMEM;
	}
	struct tt_nuttx_seg *seg = (struct tt_nuttx_seg *)(void *)(m + 1);
	uint8_t *bytes = (uint8_t *)(seg + n);
	m->seg = seg;
	while (m->n < n && Q(rodata, m->n, &addr, &data, &len) == 0) {
		memcpy(bytes, data, len);
		seg[m->n++] = (struct tt_nuttx_seg){ .addr = addr, .len = (uint32_t)len,
						     .data = bytes };
		bytes += len;
	}
	*out = m;
	return 0;
}

/* ---- the reader ops ---- */

int tt_nuttx_cfg_from_fw(void *cfg, const struct tt_fw_query *q, char *note, size_t notelen,
			 char *err, size_t errlen)
{
	struct tt_nuttx_layout *lo = cfg;
	struct tt_nuttx_syscalls *sc;
	struct tt_nuttx_mem *ro;
	char why[256];
	size_t used = 0;
	int rc = tt_nuttx_layout_from_fw(q, lo, err, errlen);

	if (notelen)
		note[0] = 0;
	if (rc < 0)
		return rc;
	/* syscall names and printf formats are a nicety: without them numbers and hex */
	if (tt_nuttx_syscalls_from_fw(q, &sc, why, sizeof(why)) < 0)
		used += (size_t)snprintf(note, notelen, "NuttX syscall names: %s\n", why);
	else
		lo->syscalls = sc;
	if (tt_nuttx_rodata_from_fw(q, &ro, why, sizeof(why)) < 0)
		snprintf(note + (used < notelen ? used : notelen),
			 notelen - (used < notelen ? used : notelen),
			 "NuttX printf formats: %s\n", why);
	else
		lo->rodata = ro;
	return 0;
}

void tt_nuttx_cfg_free(void *cfg)
{
	struct tt_nuttx_layout *lo = cfg;

	free((void *)lo->syscalls);
	free((void *)lo->rodata);
	lo->syscalls = NULL;
	lo->rodata = NULL;
}
