/* fw/fw.h: what tracetap reads from a firmware ELF (libelf, libdw): symbols, and the layouts a
 * format's reader needs from the DWARF (proto/ stays dependency-free; the caller passes the
 * result to the reader as reader.h's format_cfg). Blocking file reads: for setup, not polls.
 */
#ifndef TT_FW_H
#define TT_FW_H

#include <stddef.h>
#include <stdint.h>

#include "../proto/nuttx.h"

/* The value of a defined symbol (global preferred over local), e.g. "_tx_trace_header_ptr",
 * searched in .symtab then .dynsym. 0 or -errno with a message naming the file and the symbol
 * in err (-ENOEXEC: not an ELF, -ENOENT: no such file / symbol, -ENODATA: no symbol table). */
int tt_elf_symbol(const char *path, const char *sym, uint64_t *value, char *err, size_t errlen);

/* Fills *out from the DWARF of the ELF at path: the offsets of ni_buffer, ni_bufsize, ni_head
 * and ni_tail in struct noteram_driver_s; the pointer size (address size of that unit, checked
 * against ni_buffer); the byte order (ELF header); sizeof(struct note_common_s) as header_size;
 * the release family from note_common_s's members and enum note_type_e (1204: 12.4-12.6, 1207:
 * 12.7, 1208: 12.8-12.12, 1213: 12.13 and later, 13.x included, which decodes the same);
 * time64 from the size of the time stamp; smp from nc_cpu (12.4-12.7), struct note_csection_s's
 * ncs_count or the variable g_cpu_irqset; align from the release (1 before 12.7, else the
 * pointer size); off_overwrite from ni_overwrite; sys_reserved (CONFIG_SYS_RESERVED) from the
 * enumerator SYS__exit when some enum has it (else -1). Before 12.4 (struct noteram_info_s,
 * no noteram_driver_s): offsets of ni_overwrite/head/tail/buffer, bufsize = ni_buffer's size,
 * pid_size, hires, time64, smp from note_common_s's byte arrays, release 1203 (1200 when
 * note_irqhandler_s has no nih_handler). *out is written only on success.
 * Returns 0, or -errno with a message naming the file and what is missing in err:
 * -ENOENT/-EACCES (cannot open), -ENOEXEC (not an ELF), -ENODATA (no DWARF: stripped or built
 * without -g), -ESRCH (a type, member or enumerator is missing), -ERANGE (values out of the
 * ranges tracetap reads), -EIO (libdw error). */
int tt_nuttx_layout_from_elf(const char *path, struct tt_nuttx_layout *out, char *err,
			     size_t errlen);

/* The firmware's syscall names: g_funcnames[] (the variable's DWARF gives its address and
 * length; the pointers and the strings they point to are read from the ELF's sections, bounds
 * checked; an entry that is not a printable name is NULL). CONFIG_SYS_RESERVED, needed to index
 * it, comes with the layout (tt_nuttx_layout_from_elf: the enumerator SYS__exit) or the option
 * sys_reserved. Returns 0 with *out allocated (tt_nuttx_syscalls_free), or -errno with a
 * message: -ESRCH (no g_funcnames: syscall notes off), -ERANGE, -ENODATA, -ENOEXEC, -ENOENT. */
int tt_nuttx_syscalls_from_elf(const char *path, struct tt_nuttx_syscalls **out, char *err,
			       size_t errlen);
void tt_nuttx_syscalls_free(struct tt_nuttx_syscalls *sc);
/* A copy of the ELF's read-only PROGBITS sections (format strings of DUMP_PRINTF notes), at
 * most 64 MiB; one allocation: free() it. 0 or -errno with a message. */
int tt_nuttx_rodata_from_elf(const char *path, struct tt_nuttx_mem **out, char *err,
			     size_t errlen);

#endif
