/* fw/dwarf.c: the NuttX note layout from the firmware ELF's DWARF (see fw.h).
 *
 * One pass over the top-level DIEs of every compile unit collects the few types the layout
 * needs (struct noteram_driver_s, struct note_common_s, struct note_csection_s,
 * enum note_type_e, the variable g_cpu_irqset); a definition wins over a declaration, the first
 * definition wins over later copies of it in other units (C has one type per name here). The
 * rules that turn members and enumerators into a release family are proto/README-nuttx.md's.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw.h"
#include "fw_int.h"

enum { T_DRV, T_COMMON, T_CSECT, T_ENUM, T_INFO, T_IRQ, T_TCB, T_EVENT, T_PREEMPT, T_SCENTER,
       T_N };
/* variables whose addresses the layout takes */
enum { V_PIDHASH, V_NPIDHASH, V_TASKNAME, V_N };
static const char *const var_names[V_N] = { "g_pidhash", "g_npidhash", "g_note_taskname" };

struct found {
	Dwarf_Die die[T_N];
	bool have[T_N];
	uint8_t drv_asize;   /* address size of the unit holding noteram_driver_s */
	bool cpu_irqset;     /* the variable g_cpu_irqset (CONFIG_SMP) */
	int64_t sys_exit;    /* the enumerator SYS__exit (= CONFIG_SYS_RESERVED), or -1 */
	Dwarf_Die funcnames; /* the variable g_funcnames (definition) */
	bool have_funcnames;
	Dwarf_Die var[V_N];  /* g_pidhash, g_npidhash (definitions) */
	bool have_var[V_N];
};

static int enumerator(Dwarf_Die *e, const char *name, int64_t *value);

static const struct {
	int tag;
	const char *name;
} wanted[T_N] = {
	[T_DRV] = { DW_TAG_structure_type, "noteram_driver_s" },
	[T_COMMON] = { DW_TAG_structure_type, "note_common_s" },
	[T_CSECT] = { DW_TAG_structure_type, "note_csection_s" },
	[T_ENUM] = { DW_TAG_enumeration_type, "note_type_e" },
	[T_INFO] = { DW_TAG_structure_type, "noteram_info_s" },     /* before 12.4 */
	[T_IRQ] = { DW_TAG_structure_type, "note_irqhandler_s" },
	[T_TCB] = { DW_TAG_structure_type, "tcb_s" },              /* task names */
	[T_EVENT] = { DW_TAG_structure_type, "note_event_s" },     /* struct alignment */
	[T_PREEMPT] = { DW_TAG_structure_type, "note_preempt_s" },
	[T_SCENTER] = { DW_TAG_structure_type, "note_syscall_enter_s" },
};

static bool is_definition(Dwarf_Die *d)
{
	bool decl = false;
	Dwarf_Attribute a;

	if (dwarf_attr(d, DW_AT_declaration, &a))
		dwarf_formflag(&a, &decl);
	return !decl;
}

static void scan_unit(Dwarf_Die *cu, uint8_t asize, struct found *f)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		const char *name = dwarf_diename(&d);

		if (tag == DW_TAG_enumeration_type && f->sys_exit < 0) {
			int64_t v;
			if (enumerator(&d, "SYS__exit", &v) && v >= 0)
				f->sys_exit = v;
		}
		if (!name)
			continue;
		if (tag == DW_TAG_variable && !strcmp(name, "g_cpu_irqset"))
			f->cpu_irqset = true;
		for (int v = 0; v < V_N; v++)
			if (tag == DW_TAG_variable && !f->have_var[v] && is_definition(&d) &&
			    !strcmp(name, var_names[v])) {
				f->var[v] = d;
				f->have_var[v] = true;
			}
		if (tag == DW_TAG_variable && !strcmp(name, "g_funcnames") && !f->have_funcnames &&
		    is_definition(&d)) {
			f->funcnames = d;
			f->have_funcnames = true;
		}
		for (int i = 0; i < T_N; i++) {
			if (f->have[i] || tag != wanted[i].tag || strcmp(name, wanted[i].name) ||
			    !is_definition(&d))
				continue;
			f->die[i] = d;
			f->have[i] = true;
			if (i == T_DRV || i == T_INFO)
				f->drv_asize = asize;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int scan(Dwarf *dbg, struct found *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint8_t asize;
	int rc;

	while ((rc = dwarf_nextcu(dbg, off, &next, &hsize, NULL, &asize, NULL)) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dbg, off + hsize, &cu))
			scan_unit(&cu, asize, f);
		off = next;
	}
	return rc < 0 ? -EIO : 0;
}

static bool member(Dwarf_Die *st, const char *name, Dwarf_Die *out)
{
	if (dwarf_child(st, out) != 0)
		return false;
	do {
		const char *n = dwarf_diename(out);

		if (dwarf_tag(out) == DW_TAG_member && n && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* DW_AT_data_member_location: a constant (DWARF 3+) or DW_OP_plus_uconst (DWARF 2). Absent
 * means 0 (what producers do for the first member of some structs and for unions). */
static int member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return 0;
	if (dwarf_formudata(&a, off) == 0)
		return 0;
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -1;
}

/* Byte size of a member's type, typedefs and qualifiers peeled; pointers without
 * DW_AT_byte_size have the unit's address size. 0 when unknown. */
static uint64_t member_size(Dwarf_Die *m, uint8_t asize)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word sz;

	if (!dwarf_attr_integrate(m, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
	    dwarf_peel_type(&t, &t) != 0)
		return 0;
	if (dwarf_aggregate_size(&t, &sz) == 0)
		return sz;
	return dwarf_tag(&t) == DW_TAG_pointer_type ? asize : 0;
}

/* The value of enumerator name in enum e: 1 found, 0 not there. */
static int enumerator(Dwarf_Die *e, const char *name, int64_t *value)
{
	Dwarf_Die d;
	Dwarf_Attribute a;

	if (dwarf_child(e, &d) != 0)
		return 0;
	do {
		const char *n = dwarf_diename(&d);
		Dwarf_Sword v;

		if (dwarf_tag(&d) != DW_TAG_enumerator || !n || strcmp(n, name))
			continue;
		if (!dwarf_attr(&d, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v) != 0)
			return 0;
		*value = v;
		return 1;
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

#define MISSING(what, hint)                                                                  \
	(snprintf(err, errlen, "%s: no DWARF type '%s' (%s)", path, what, hint), -ESRCH)

/* ni_buffer, ni_bufsize, ni_head, ni_tail, ni_overwrite and the pointer size. */
static int driver_layout(const char *path, struct found *f, struct tt_nuttx_layout *lo,
			 char *err, size_t errlen)
{
	static const char *const names[4] = { "ni_buffer", "ni_bufsize", "ni_head", "ni_tail" };
	uint16_t *offs[4] = { &lo->off_buffer, &lo->off_bufsize, &lo->off_head, &lo->off_tail };
	Dwarf_Die m;
	uint64_t off, ptr = f->drv_asize;

	for (int i = 0; i < 4; i++) {
		if (!member(&f->die[T_DRV], names[i], &m)) {
			snprintf(err, errlen, "%s: DWARF 'struct noteram_driver_s' has no member '%s' "
				 "(NuttX before 12.4, or a later driver layout tracetap does not "
				 "read)", path, names[i]);
			return -ESRCH;
		}
		if (member_offset(&m, &off) < 0 || off > UINT16_MAX) {
			snprintf(err, errlen, "%s: DWARF 'struct noteram_driver_s': cannot read the "
				 "offset of '%s'", path, names[i]);
			return -ERANGE;
		}
		*offs[i] = (uint16_t)off;
		if (i == 0 && member_size(&m, f->drv_asize))
			ptr = member_size(&m, f->drv_asize);
	}
	/* ni_overwrite: every 12.4+ driver has it; without it the reader derives the offset */
	lo->off_overwrite = 0;
	if (member(&f->die[T_DRV], "ni_overwrite", &m) && member_offset(&m, &off) == 0 &&
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
static int note_layout(const char *path, struct found *f, struct tt_nuttx_layout *lo,
		       char *err, size_t errlen)
{
	Dwarf_Die m, *c = &f->die[T_COMMON];
	Dwarf_Word hdr;
	int64_t v;
	uint64_t tsize;
	bool old = member(c, "nc_systime_sec", &m);

	if (!old && !member(c, "nc_systime", &m)) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s' has neither 'nc_systime' "
			 "nor 'nc_systime_sec' (NuttX before 12.4 is not supported)", path);
		return -ESRCH;
	}
	tsize = member_size(&m, f->drv_asize);
	if (tsize != 4 && tsize != 8) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s': time stamp of %u bytes "
			 "(expected 4 or 8)", path, (unsigned)tsize);
		return -ERANGE;
	}
	if (dwarf_aggregate_size(c, &hdr) != 0 || hdr > 255) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s' has no usable size", path);
		return -ERANGE;
	}
	lo->time64 = tsize == 8;
	lo->header_size = (uint8_t)hdr;
	if (old) {
		lo->release = enumerator(&f->die[T_ENUM], "NOTE_DUMP_STRING", &v) ? 1204 : 1207;
		lo->smp = member(c, "nc_cpu", &m);
	} else {
		lo->release = enumerator(&f->die[T_ENUM], "NOTE_DUMP_BINARY", &v) && v == 34 ? 1213
											  : 1208;
		lo->smp = (f->have[T_CSECT] && member(&f->die[T_CSECT], "ncs_count", &m)) ||
			  f->cpu_irqset;
	}
	lo->align = lo->release < 1207 ? 1 : lo->ptr_size;
	return 0;
}

/* Before 12.4: struct noteram_info_s (ni_overwrite, ni_head, ni_tail, the buffer inline) and
 * note_common_s made of byte arrays: their sizes are sizeof(pid_t), sizeof(time_t)/clock_t,
 * sizeof(long). The pointer size is the unit's address size. */
static int legacy_layout(const char *path, struct found *f, struct tt_nuttx_layout *lo,
			 char *err, size_t errlen)
{
	static const char *const names[4] = { "ni_overwrite", "ni_head", "ni_tail", "ni_buffer" };
	uint16_t *offs[4] = { &lo->off_overwrite, &lo->off_head, &lo->off_tail, &lo->off_buffer };
	Dwarf_Die m, *c = &f->die[T_COMMON];
	uint64_t off, sz;

	for (int i = 0; i < 4; i++) {
		if (!member(&f->die[T_INFO], names[i], &m) || member_offset(&m, &off) < 0 ||
		    off > UINT16_MAX) {
			snprintf(err, errlen, "%s: DWARF 'struct noteram_info_s' has no usable member "
				 "'%s'", path, names[i]);
			return -ESRCH;
		}
		*offs[i] = (uint16_t)off;
	}
	sz = member_size(&m, f->drv_asize); /* ni_buffer[CONFIG_DRIVER_NOTERAM_BUFSIZE] */
	if (!sz || sz > (16u << 20)) {
		snprintf(err, errlen, "%s: DWARF 'struct noteram_info_s': ni_buffer has no usable "
			 "size", path);
		return -ERANGE;
	}
	lo->bufsize = (uint32_t)sz;
	lo->off_bufsize = 0;
	lo->ptr_size = f->drv_asize == 8 ? 8 : 4;
	lo->big_endian = false; /* byte arrays, little-endian whatever the CPU */
	lo->align = 1;
	lo->smp = member(c, "nc_cpu", &m);
	if (!member(c, "nc_pid", &m) || ((sz = member_size(&m, 0)) != 2 && sz != 4)) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s': nc_pid is not 2 or 4 bytes",
			 path);
		return -ERANGE;
	}
	lo->pid_size = (uint8_t)sz;
	lo->hires = member(c, "nc_systime_sec", &m);
	if (!lo->hires && !member(c, "nc_systime", &m)) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s' has neither 'nc_systime' "
			 "nor 'nc_systime_sec'", path);
		return -ESRCH;
	}
	sz = member_size(&m, 0);
	if (sz != 4 && sz != 8) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s': time stamp of %u bytes "
			 "(expected 4 or 8)", path, (unsigned)sz);
		return -ERANGE;
	}
	lo->time64 = sz == 8;
	if (lo->hires && (!member(c, "nc_systime_nsec", &m) ||
			  member_size(&m, 0) != lo->ptr_size)) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s': nc_systime_nsec is not "
			 "sizeof(long) = %u bytes (tracetap reads that case only)", path,
			 lo->ptr_size);
		return -ERANGE;
	}
	Dwarf_Word hdr;
	if (dwarf_aggregate_size(c, &hdr) != 0 || hdr > 255) {
		snprintf(err, errlen, "%s: DWARF 'struct note_common_s' has no usable size", path);
		return -ERANGE;
	}
	lo->header_size = (uint8_t)hdr; /* byte arrays: no padding, so this is the header */
	/* the IRQ notes carry the handler from 12.3 */
	lo->release = f->have[T_IRQ] && member(&f->die[T_IRQ], "nih_handler", &m) ? 1203 : 1200;
	return 0;
}

/* libdw does not export its "no DWARF" error code: look for the section ourselves. */
static bool has_debug_info(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/* A variable's fixed address (DW_AT_location = DW_OP_addr), or 0. */
static uint64_t var_addr(Dwarf_Die *v)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(v, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &n) != 0 || n != 1 ||
	    ops[0].atom != DW_OP_addr)
		return 0;
	return ops[0].number;
}

/* Task names from the target (optional: left 0 when anything is missing): the addresses of
 * g_pidhash (a pointer: the dynamic hash of NuttX 10.3 and later) and g_npidhash, and
 * struct tcb_s's pid and name[] (CONFIG_TASK_NAME_SIZE > 0). */
static void task_layout(struct found *f, struct tt_nuttx_layout *lo)
{
	Dwarf_Die pid, name, t;
	Dwarf_Attribute a;
	uint64_t op, on, ps, ns, hash, count;

	if (!f->have[T_TCB] || !f->have_var[V_PIDHASH] || !f->have_var[V_NPIDHASH] ||
	    !member(&f->die[T_TCB], "pid", &pid) || !member(&f->die[T_TCB], "name", &name) ||
	    member_offset(&pid, &op) < 0 || member_offset(&name, &on) < 0 || !op || !on ||
	    op > UINT16_MAX || on > UINT16_MAX)
		return;
	ps = member_size(&pid, 0);
	ns = member_size(&name, 0);
	hash = var_addr(&f->var[V_PIDHASH]);
	count = var_addr(&f->var[V_NPIDHASH]);
	/* g_pidhash must be a pointer (before 10.3 it was an array of struct pidhash_s) */
	if (!dwarf_attr_integrate(&f->var[V_PIDHASH], DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &t) || dwarf_peel_type(&t, &t) != 0 ||
	    dwarf_tag(&t) != DW_TAG_pointer_type || (ps != 2 && ps != 4) || !ns || ns > 255 ||
	    !hash || !count)
		return;
	lo->pidhash_addr = hash;
	lo->npidhash_addr = count;
	lo->tcb_off_pid = (uint16_t)op;
	lo->tcb_off_name = (uint16_t)on;
	lo->tcb_pid_size = (uint8_t)ps;
	lo->tcb_name_size = (uint8_t)ns;
}

/* NuttX's cache of task names (CONFIG_DRIVERS_NOTE_TASKNAME_BUFSIZE > 0): the variable
 * g_note_taskname (struct note_taskname_s: size_t head, tail; char buffer[N]); its address
 * and N. Optional: left 0 when missing or not that shape. */
static void taskname_layout(struct found *f, uint8_t ptr, struct tt_nuttx_layout *lo)
{
	Dwarf_Die t, buf;
	Dwarf_Attribute a;
	uint64_t off, n, addr;

	if (!f->have_var[V_TASKNAME] ||
	    !dwarf_attr_integrate(&f->var[V_TASKNAME], DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &t) || dwarf_peel_type(&t, &t) != 0 ||
	    dwarf_tag(&t) != DW_TAG_structure_type || !member(&t, "buffer", &buf) ||
	    member_offset(&buf, &off) < 0 || off != 2u * ptr)
		return;
	n = member_size(&buf, 0);
	addr = var_addr(&f->var[V_TASKNAME]);
	if (!n || n > 4096 || !addr)
		return;
	lo->taskname_addr = addr;
	lo->taskname_size = (uint16_t)n;
}

/* The note structs' alignment where it is not the larger of the pointer and time stamp sizes
 * (the default): i386 aligns an 8-byte clock_t to 4, so a note struct whose size is not a
 * multiple of 8 (struct note_preempt_s: 20; note_syscall_enter_s: 44) says 4. When every size
 * found is a multiple of 8 the alignment is left to the default. */
static void struct_align(struct found *f, struct tt_nuttx_layout *lo)
{
	static const int types[] = { T_EVENT, T_CSECT, T_PREEMPT, T_SCENTER };
	Dwarf_Attribute a;
	uint64_t size;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (f->have[types[i]] && dwarf_attr(&f->die[types[i]], DW_AT_byte_size, &a) &&
		    dwarf_formudata(&a, &size) == 0 && size % 8 && size % 4 == 0)
			lo->struct_align = 4;
}

static int from_dwarf(const char *path, Elf *e, struct tt_nuttx_layout *out, char *err,
		      size_t errlen)
{
	struct tt_nuttx_layout lo = { .sys_reserved = -1 };
	struct found f = { .sys_exit = -1 };
	const char *id = elf_getident(e, NULL);
	Dwarf *dbg;
	int rc;

	if (!has_debug_info(e)) {
		snprintf(err, errlen, "%s: no DWARF debug information (stripped, or built without "
			 "-g): cannot read the NuttX note layout; give the unstripped firmware ELF",
			 path);
		return -ENODATA;
	}
	dbg = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!dbg) {
		snprintf(err, errlen, "%s: cannot read DWARF: %s", path, dwarf_errmsg(-1));
		return -EIO;
	}
	rc = scan(dbg, &f);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot read DWARF: %s", path, dwarf_errmsg(-1));
		goto out;
	}
	if (!f.have[T_DRV] && f.have[T_INFO] && f.have[T_COMMON]) {
		lo.big_endian = false;
		if (f.sys_exit >= 0 && f.sys_exit <= 255)
			lo.sys_reserved = (int32_t)f.sys_exit;
		rc = legacy_layout(path, &f, &lo, err, errlen);
		if (rc == 0)
			task_layout(&f, &lo);
		if (rc == 0)
			*out = lo;
		goto out;
	}
	if (!f.have[T_DRV]) {
		rc = MISSING("struct noteram_driver_s", "build with -g and CONFIG_DRIVERS_NOTERAM");
		goto out;
	}
	if (!f.have[T_COMMON]) {
		rc = MISSING("struct note_common_s", "build with -g and CONFIG_SCHED_INSTRUMENTATION");
		goto out;
	}
	if (!f.have[T_ENUM]) {
		rc = MISSING("enum note_type_e", "needed to tell the NuttX release; build with -g "
			     "and CONFIG_SCHED_INSTRUMENTATION");
		goto out;
	}
	lo.big_endian = id && id[EI_DATA] == ELFDATA2MSB;
	if (f.sys_exit >= 0 && f.sys_exit <= 255)
		lo.sys_reserved = (int32_t)f.sys_exit;
	rc = driver_layout(path, &f, &lo, err, errlen);
	if (rc == 0)
		rc = note_layout(path, &f, &lo, err, errlen);
	if (rc == 0) {
		task_layout(&f, &lo);
		taskname_layout(&f, lo.ptr_size, &lo);
		struct_align(&f, &lo);
		*out = lo;
	}
out:
	dwarf_end(dbg);
	return rc;
}

static int layout_fn(const char *path, Elf *e, void *out, char *err, size_t errlen)
{
	return from_dwarf(path, e, out, err, errlen);
}

int tt_nuttx_layout_from_elf(const char *path, struct tt_nuttx_layout *out, char *err,
			     size_t errlen)
{
	return tt_fw_with_elf(path, "the NuttX note layout", layout_fn, out, err, errlen);
}

/* ---- syscall names: g_funcnames[] ---- */

/* len bytes at target address addr from the ELF's allocated, file-backed sections: 0, or -1
 * when the range is not entirely inside one such section. */
static int elf_read_addr(Elf *e, uint64_t addr, void *dst, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
		    addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size ||
		    sh.sh_size - (addr - sh.sh_addr) < len)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr > d->d_size ||
		    d->d_size - (addr - sh.sh_addr) < len)
			return -1;
		memcpy(dst, (const uint8_t *)d->d_buf + (addr - sh.sh_addr), len);
		return 0;
	}
	return -1;
}

/* The NUL-terminated string at addr (at most NAME_MAX_SC - 1 characters, printable ASCII);
 * NULL when unreadable or not a name. */
#define NAME_MAX_SC 48
static bool elf_read_name(Elf *e, uint64_t addr, char *out)
{
	for (unsigned i = 0; i < NAME_MAX_SC; i++) {
		uint8_t c;

		if (elf_read_addr(e, addr + i, &c, 1) < 0)
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

static int funcnames(const char *path, Elf *e, struct tt_nuttx_syscalls **out, char *err,
		     size_t errlen)
{
	const char *id = elf_getident(e, NULL);
	bool be = id && id[EI_DATA] == ELFDATA2MSB;
	unsigned ptr = id && id[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	struct found f = { .sys_exit = -1 };
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word total;
	uint64_t addr;
	size_t n;
	Dwarf *dbg = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	int rc = 0;

	if (!dbg) {
		snprintf(err, errlen, "%s: cannot read DWARF (for g_funcnames): %s", path,
			 dwarf_errmsg(-1));
		return -ENODATA;
	}
	if (scan(dbg, &f) < 0 || !f.have_funcnames) {
		snprintf(err, errlen, "%s: no DWARF variable 'g_funcnames' (syscall names need "
			 "CONFIG_SCHED_INSTRUMENTATION_SYSCALL and -g)", path);
		rc = -ESRCH;
		goto out;
	}
	if (!dwarf_attr_integrate(&f.funcnames, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
	    dwarf_peel_type(&t, &t) != 0 || dwarf_tag(&t) != DW_TAG_array_type ||
	    dwarf_aggregate_size(&t, &total) != 0 || total % ptr || total / ptr > 4096 ||
	    !(addr = var_addr(&f.funcnames))) {
		snprintf(err, errlen, "%s: DWARF 'g_funcnames' is not an array of at most 4096 "
			 "pointers at a fixed address", path);
		rc = -ERANGE;
		goto out;
	}
	n = total / ptr;
	/* one allocation: the table, the pointers, the strings */
	struct tt_nuttx_syscalls *sc = calloc(1, sizeof(*sc) + n * (sizeof(char *) + NAME_MAX_SC));
	if (!sc) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for %zu syscall names", n);
		goto out;
	}
	const char **names = (const char **)(void *)(sc + 1);
	char *strs = (char *)(names + n);
	unsigned readable = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t b[8];
		uint64_t p = 0;

		if (elf_read_addr(e, addr + i * ptr, b, ptr) < 0)
			continue;
		for (unsigned k = 0; k < ptr; k++)
			p |= (uint64_t)b[be ? ptr - 1 - k : k] << (8 * k);
		if (elf_read_name(e, p, strs + i * NAME_MAX_SC)) {
			names[i] = strs + i * NAME_MAX_SC;
			readable++;
		}
	}
	if (!readable) {
		free(sc);
		snprintf(err, errlen, "%s: g_funcnames at 0x%llx: no entry points to a name in the "
			 "file's sections", path, (unsigned long long)addr);
		rc = -ERANGE;
		goto out;
	}
	sc->n = (unsigned)n;
	sc->names = names;
	*out = sc;
out:
	dwarf_end(dbg);
	return rc;
}

static int funcnames_fn(const char *path, Elf *e, void *out, char *err, size_t errlen)
{
	return funcnames(path, e, out, err, errlen);
}

int tt_nuttx_syscalls_from_elf(const char *path, struct tt_nuttx_syscalls **out, char *err,
			       size_t errlen)
{
	*out = NULL;
	return tt_fw_with_elf(path, "g_funcnames", funcnames_fn, out, err, errlen);
}

void tt_nuttx_syscalls_free(struct tt_nuttx_syscalls *sc)
{
	free(sc);
}

/* ---- read-only data: DUMP_PRINTF format strings ---- */

static int rodata_fn(const char *path, Elf *e, void *out, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t total = 0, n = 0;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_ALLOC) && !(sh.sh_flags & SHF_WRITE) && sh.sh_size) {
			total += sh.sh_size;
			n++;
		}
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
	while ((scn = elf_nextscn(e, scn)) != NULL && m->n < n) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & SHF_WRITE) || !sh.sh_size)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size > sh.sh_size)
			continue;
		memcpy(bytes, d->d_buf, d->d_size);
		seg[m->n++] = (struct tt_nuttx_seg){ .addr = sh.sh_addr, .len = (uint32_t)d->d_size,
						     .data = bytes };
		bytes += d->d_size;
	}
	*(struct tt_nuttx_mem **)out = m;
	return 0;
}

int tt_nuttx_rodata_from_elf(const char *path, struct tt_nuttx_mem **out, char *err,
			     size_t errlen)
{
	*out = NULL;
	return tt_fw_with_elf(path, "read-only data", rodata_fn, out, err, errlen);
}
