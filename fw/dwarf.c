/* fw/dwarf.c: neutral queries on a firmware ELF's DWARF and sections (see fw.h).
 *
 * A handle is the DIE's offset in .debug_info. Lookups by name go through an index of the named
 * top-level definitions of every compile unit, built at the first lookup (one walk, not one per
 * query); the first definition wins over later copies of it in other units (C has one type per
 * name here).
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

/* A named top-level definition (the name points into libdw's string data). */
struct top {
	const char *name;
	uint64_t off;
	int tag;
	uint8_t asize; /* the unit's address size */
};

struct tt_fw {
	char *path;
	int fd;
	Elf *e;
	Dwarf *dbg; /* NULL: no DWARF */
	struct top *tops; /* the index, in unit order; NULL until the first lookup */
	size_t ntops;
	bool indexed;
};

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

int tt_fw_open(const char *path, const char *what, struct tt_fw **out, char *err,
	       size_t errlen)
{
	struct tt_fw *fw = calloc(1, sizeof(*fw));
	int rc;

	*out = NULL;
	if (!fw || !(fw->path = strdup(path))) {
		free(fw);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = tt_fw_elf_begin(path, what, &fw->fd, &fw->e, err, errlen);
	if (rc < 0) {
		free(fw->path);
		free(fw);
		return rc;
	}
	if (has_debug_info(fw->e)) {
		fw->dbg = dwarf_begin_elf(fw->e, DWARF_C_READ, NULL);
		if (!fw->dbg) {
			snprintf(err, errlen, "%s: cannot read DWARF: %s", path, dwarf_errmsg(-1));
			tt_fw_close(fw);
			return -EIO;
		}
	}
	*out = fw;
	return 0;
}

void tt_fw_close(struct tt_fw *fw)
{
	if (!fw)
		return;
	if (fw->dbg)
		dwarf_end(fw->dbg);
	tt_fw_elf_end(fw->fd, fw->e);
	free(fw->tops);
	free(fw->path);
	free(fw);
}

const char *tt_fw_path(const struct tt_fw *fw)
{
	return fw->path;
}

bool tt_fw_has_dwarf(const struct tt_fw *fw)
{
	return fw->dbg != NULL;
}

bool tt_fw_big_endian(const struct tt_fw *fw)
{
	const char *id = elf_getident(fw->e, NULL);

	return id && id[EI_DATA] == ELFDATA2MSB;
}

unsigned tt_fw_class_bytes(const struct tt_fw *fw)
{
	const char *id = elf_getident(fw->e, NULL);

	return id && id[EI_CLASS] == ELFCLASS64 ? 8 : 4;
}

unsigned tt_fw_machine(const struct tt_fw *fw)
{
	GElf_Ehdr eh;

	return gelf_getehdr(fw->e, &eh) ? eh.e_machine : 0;
}

static bool die_of(const struct tt_fw *fw, uint64_t h, Dwarf_Die *d)
{
	return fw->dbg && h && dwarf_offdie(fw->dbg, h, d) != NULL;
}

static bool is_definition(Dwarf_Die *d)
{
	bool decl = false;
	Dwarf_Attribute a;

	if (dwarf_attr(d, DW_AT_declaration, &a))
		dwarf_formflag(&a, &decl);
	return !decl;
}

/* Calls fn on every top-level DIE of every unit until it returns true: that DIE's handle (and
 * its unit's address size in *asize_out), or 0. */
static uint64_t each_top(const struct tt_fw *fw, bool (*fn)(Dwarf_Die *d, const void *arg),
			 const void *arg, uint8_t *asize_out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint8_t asize;

	if (!fw->dbg)
		return 0;
	while (dwarf_nextcu(fw->dbg, off, &next, &hsize, NULL, &asize, NULL) == 0) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(fw->dbg, off + hsize, &cu) && dwarf_child(&cu, &d) == 0)
			do {
				if (fn(&d, arg)) {
					if (asize_out)
						*asize_out = asize;
					return dwarf_dieoffset(&d);
				}
			} while (dwarf_siblingof(&d, &d) == 0);
		off = next;
	}
	return 0;
}

static bool indexable(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
		tag == DW_TAG_enumeration_type || tag == DW_TAG_variable) && dwarf_diename(d) &&
	       is_definition(d);
}

/* The index of named top-level definitions (one walk over every unit); false when it cannot be
 * built (out of memory: lookups then answer none). */
static bool index_tops(struct tt_fw *fw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	uint8_t asize;

	if (fw->indexed)
		return fw->tops != NULL;
	fw->indexed = true;
	while (fw->dbg && dwarf_nextcu(fw->dbg, off, &next, &hsize, NULL, &asize, NULL) == 0) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(fw->dbg, off + hsize, &cu) && dwarf_child(&cu, &d) == 0)
			do {
				if (!indexable(&d))
					continue;
				if (fw->ntops == cap) {
					size_t nc = cap ? 2 * cap : 256;
					struct top *t = realloc(fw->tops, nc * sizeof(*t));
					if (!t) {
						free(fw->tops);
						fw->tops = NULL;
						fw->ntops = 0;
						return false;
					}
					fw->tops = t;
					cap = nc;
				}
				fw->tops[fw->ntops++] = (struct top){ dwarf_diename(&d),
								      dwarf_dieoffset(&d),
								      dwarf_tag(&d), asize };
			} while (dwarf_siblingof(&d, &d) == 0);
		off = next;
	}
	return fw->tops != NULL;
}

/* The first indexed definition named name, a variable or not as wanted. */
static uint64_t find_top(const struct tt_fw *cfw, const char *name, bool variable,
			 uint8_t *asize)
{
	struct tt_fw *fw = (struct tt_fw *)cfw; /* the index is a cache */

	if (!index_tops(fw))
		return 0;
	for (size_t i = 0; i < fw->ntops; i++)
		if ((fw->tops[i].tag == DW_TAG_variable) == variable &&
		    !strcmp(fw->tops[i].name, name)) {
			if (asize)
				*asize = fw->tops[i].asize;
			return fw->tops[i].off;
		}
	return 0;
}

uint64_t tt_fw_type(const struct tt_fw *fw, const char *name, uint8_t *unit_addr)
{
	return find_top(fw, name, false, unit_addr);
}

uint64_t tt_fw_variable(const struct tt_fw *fw, const char *name)
{
	return find_top(fw, name, true, NULL);
}

uint64_t tt_fw_member(const struct tt_fw *fw, uint64_t st, const char *name)
{
	Dwarf_Die s, m;

	if (!die_of(fw, st, &s) || dwarf_child(&s, &m) != 0)
		return 0;
	do {
		const char *n = dwarf_diename(&m);

		if (dwarf_tag(&m) == DW_TAG_member && n && !strcmp(n, name))
			return dwarf_dieoffset(&m);
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

/* DW_AT_data_member_location: a constant (DWARF 3+) or DW_OP_plus_uconst (DWARF 2). Absent
 * means 0 (what producers do for the first member of some structs and for unions). */
int tt_fw_member_offset(const struct tt_fw *fw, uint64_t h, uint64_t *off)
{
	Dwarf_Die m;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!die_of(fw, h, &m))
		return -1;
	if (!dwarf_attr(&m, DW_AT_data_member_location, &a))
		return 0;
	if (dwarf_formudata(&a, off) == 0)
		return 0;
	if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -1;
}

/* The peeled type of d (d itself when it is a type). */
static bool peeled(const struct tt_fw *fw, uint64_t h, Dwarf_Die *t)
{
	Dwarf_Die d;
	Dwarf_Attribute a;
	int tag;

	if (!die_of(fw, h, &d))
		return false;
	tag = dwarf_tag(&d);
	if (tag == DW_TAG_member || tag == DW_TAG_variable) {
		if (!dwarf_attr_integrate(&d, DW_AT_type, &a) || !dwarf_formref_die(&a, &d))
			return false;
	}
	return dwarf_peel_type(&d, t) == 0;
}

uint64_t tt_fw_type_of(const struct tt_fw *fw, uint64_t d)
{
	Dwarf_Die t;

	return peeled(fw, d, &t) ? dwarf_dieoffset(&t) : 0;
}

static uint64_t die_size(Dwarf_Die *t)
{
	Dwarf_Word sz;
	Dwarf_Die cu;
	uint8_t asize = 0;

	if (dwarf_aggregate_size(t, &sz) == 0)
		return sz;
	if (dwarf_tag(t) != DW_TAG_pointer_type ||
	    !dwarf_diecu(t, &cu, &asize, NULL))
		return 0;
	return asize;
}

uint64_t tt_fw_size(const struct tt_fw *fw, uint64_t d)
{
	Dwarf_Die t;

	return peeled(fw, d, &t) ? die_size(&t) : 0;
}

bool tt_fw_is_pointer(const struct tt_fw *fw, uint64_t d)
{
	Dwarf_Die t;

	return peeled(fw, d, &t) && dwarf_tag(&t) == DW_TAG_pointer_type;
}

int tt_fw_array_len(const struct tt_fw *fw, uint64_t d, uint64_t *n)
{
	Dwarf_Die t, el;
	Dwarf_Attribute a;
	Dwarf_Word total;
	uint64_t esz;

	if (!peeled(fw, d, &t) || dwarf_tag(&t) != DW_TAG_array_type ||
	    dwarf_aggregate_size(&t, &total) != 0 || !dwarf_attr_integrate(&t, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &el) || dwarf_peel_type(&el, &el) != 0 ||
	    !(esz = die_size(&el)))
		return -1;
	*n = total / esz;
	return 0;
}

struct enum_find {
	const char *name;
	int64_t *value;
};

/* The value of enumerator name in the enum e: true when found. */
static bool enumerator_in(Dwarf_Die *e, const void *arg)
{
	const struct enum_find *q = arg;
	Dwarf_Die d;
	Dwarf_Attribute a;

	if (dwarf_tag(e) != DW_TAG_enumeration_type || dwarf_child(e, &d) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&d);
		Dwarf_Sword v;

		if (dwarf_tag(&d) != DW_TAG_enumerator || !n || strcmp(n, q->name))
			continue;
		if (!dwarf_attr(&d, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v) != 0)
			return false;
		*q->value = v;
		return true;
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

bool tt_fw_enumerator(const struct tt_fw *fw, uint64_t e, const char *name, int64_t *value)
{
	struct enum_find q = { name, value };
	Dwarf_Die d;

	if (!e)
		return each_top(fw, enumerator_in, &q, NULL) != 0;
	return die_of(fw, e, &d) && enumerator_in(&d, &q);
}

uint64_t tt_fw_var_addr(const struct tt_fw *fw, uint64_t h)
{
	Dwarf_Die v;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!die_of(fw, h, &v) || !dwarf_attr(&v, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_addr)
		return 0;
	return ops[0].number;
}

int tt_fw_read(const struct tt_fw *fw, uint64_t addr, void *dst, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(fw->e, scn)) != NULL) {
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

int tt_fw_rodata(const struct tt_fw *fw, unsigned i, uint64_t *addr, const uint8_t **data,
		 size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(fw->e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || (sh.sh_flags & SHF_WRITE) || !sh.sh_size)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size > sh.sh_size)
			continue;
		if (i-- == 0) {
			*addr = sh.sh_addr;
			*data = d->d_buf;
			*len = d->d_size;
			return 0;
		}
	}
	return -1;
}
