/* fw/elf.c: symbol lookup in a firmware ELF (libelf), e.g. _tx_trace_header_ptr.
 *
 * Looks in .symtab first (firmware is rarely stripped), then .dynsym; a defined global or weak
 * symbol wins over a local one of the same name (a file-static twin in another unit).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fw.h"
#include "fw_int.h"

/* Searches one symbol table section. 2 = global found, 1 = local found, 0 = not here. */
static int elf_scan(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *sym, uint64_t *value)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = (d && sh->sh_entsize) ? sh->sh_size / sh->sh_entsize : 0;
	int found = 0;

	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (gelf_getsym(d, (int)i, &s) == NULL || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (name == NULL || strcmp(name, sym) != 0)
			continue;
		if (GELF_ST_BIND(s.st_info) != STB_LOCAL) {
			*value = s.st_value;
			return 2;
		}
		if (!found) {
			*value = s.st_value;
			found = 1;
		}
	}
	return found;
}

static int elf_find(Elf *e, const char *path, const char *sym, uint64_t *value, char *err,
		    size_t errlen)
{
	static const GElf_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	int tables = 0;

	for (size_t t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		int best = 0;
		uint64_t v = 0;

		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			uint64_t sv;
			int k;

			if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != types[t])
				continue;
			tables++;
			k = elf_scan(e, scn, &sh, sym, &sv);
			if (k > best) {
				best = k;
				v = sv;
			}
		}
		if (best) {
			*value = v;
			return 0;
		}
	}
	if (tables == 0) {
		snprintf(err, errlen, "%s: no symbol table (the ELF is stripped): cannot find "
			 "\"%s\"; use the unstripped firmware ELF or give the address", path, sym);
		return -ENODATA;
	}
	snprintf(err, errlen, "%s: symbol \"%s\" not found (is this the firmware with tracing "
		 "enabled?)", path, sym);
	return -ENOENT;
}

int tt_fw_elf_begin(const char *path, const char *what, int *fd_out, Elf **e_out, char *err,
		    size_t errlen)
{
	Elf *e;
	int fd, rc;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "%s: libelf initialisation failed: %s", path, elf_errmsg(-1));
		return -EIO;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
		return rc;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file (looking for %s)", path, what);
		tt_fw_elf_end(fd, e);
		return -ENOEXEC;
	}
	*fd_out = fd;
	*e_out = e;
	return 0;
}

void tt_fw_elf_end(int fd, Elf *e)
{
	elf_end(e);
	close(fd);
}

int tt_elf_symbol(const char *path, const char *sym, uint64_t *value, char *err, size_t errlen)
{
	char what[160];
	Elf *e;
	int fd, rc;

	snprintf(what, sizeof(what), "\"%s\"", sym);
	rc = tt_fw_elf_begin(path, what, &fd, &e, err, errlen);
	if (rc < 0)
		return rc;
	rc = elf_find(e, path, sym, value, err, errlen);
	tt_fw_elf_end(fd, e);
	return rc;
}
