/* fw/fw.h: what tracetap reads from a firmware ELF (libelf, libdw): symbols, neutral DWARF
 * queries and bytes at target addresses; formats ask through proto/fwquery.h, fw/ knows no
 * format. Blocking file reads, on the caller's thread: for setup, not polls.
 */
#ifndef TT_FW_H
#define TT_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of a defined symbol (global preferred over local), e.g. "_tx_trace_header_ptr",
 * searched in .symtab then .dynsym. 0 or -errno with a message naming the file and the symbol
 * in err (-ENOEXEC: not an ELF, -ENOENT: no such file / symbol, -ENODATA: no symbol table). */
int tt_elf_symbol(const char *path, const char *sym, uint64_t *value, char *err, size_t errlen);

/* An opened firmware ELF. A DWARF entry (type, member, enumerator's enum, variable) is named
 * by a handle, 0 meaning none; handles live as long as the struct tt_fw. */
struct tt_fw;

/* Opens the ELF at path (what: what the caller looks for, for the "not an ELF" message).
 * 0, or -errno with a message naming the file: -ENOENT/-EACCES, -ENOEXEC, -EIO (libelf/libdw).
 * An ELF without DWARF opens: tt_fw_has_dwarf says so. */
int tt_fw_open(const char *path, const char *what, struct tt_fw **out, char *err,
	       size_t errlen);
void tt_fw_close(struct tt_fw *fw);
/* The path it was opened from, for messages. */
const char *tt_fw_path(const struct tt_fw *fw);
/* Whether the ELF has DWARF debug information (not stripped, built with -g). */
bool tt_fw_has_dwarf(const struct tt_fw *fw);
/* The ELF header's byte order and class (4: ELFCLASS32, 8: ELFCLASS64). */
bool tt_fw_big_endian(const struct tt_fw *fw);
unsigned tt_fw_class_bytes(const struct tt_fw *fw);
/* The ELF header's e_machine (EM_ARM, EM_X86_64, ...); 0 when unreadable. */
unsigned tt_fw_machine(const struct tt_fw *fw);

/* The first definition (not a declaration) of the struct, union or enum named name over every
 * compile unit; *unit_addr (may be NULL) gets the address size of its unit. 0: none. */
uint64_t tt_fw_type(const struct tt_fw *fw, const char *name, uint8_t *unit_addr);
/* The first definition of the variable named name. 0: none. */
uint64_t tt_fw_variable(const struct tt_fw *fw, const char *name);
/* A member of the struct or union st. 0: none. */
uint64_t tt_fw_member(const struct tt_fw *fw, uint64_t st, const char *name);
/* A member's offset in its struct (absent = 0). 0, or -1 when it is not a constant. */
int tt_fw_member_offset(const struct tt_fw *fw, uint64_t m, uint64_t *off);
/* The type of a member or variable, typedefs and qualifiers peeled (a type: itself, peeled).
 * 0: none. */
uint64_t tt_fw_type_of(const struct tt_fw *fw, uint64_t d);
/* The byte size of a type, or of a member's or variable's type; a pointer without a size has
 * its unit's address size. 0: unknown. */
uint64_t tt_fw_size(const struct tt_fw *fw, uint64_t d);
/* Whether the (peeled) type of d is a pointer. */
bool tt_fw_is_pointer(const struct tt_fw *fw, uint64_t d);
/* The element count of the array type of d (a variable, member or type): 0, or -1 when d is
 * not an array of elements of known size. */
int tt_fw_array_len(const struct tt_fw *fw, uint64_t d, uint64_t *n);
/* The value of the enumerator name in the enum e, or in the first enum holding one when e is 0
 * (top-level enums of every unit): true when found. */
bool tt_fw_enumerator(const struct tt_fw *fw, uint64_t e, const char *name, int64_t *value);
/* A variable's fixed address (a DW_OP_addr location), or 0. */
uint64_t tt_fw_var_addr(const struct tt_fw *fw, uint64_t v);
/* len bytes at target address addr from the ELF's allocated, file-backed sections: 0, or -1
 * when the range is not entirely inside one such section. */
int tt_fw_read(const struct tt_fw *fw, uint64_t addr, void *dst, size_t len);
/* The i-th read-only data section (allocated PROGBITS, not writable, not empty): 0 with its
 * address, bytes (valid while fw is open) and length, or -1 past the last. */
int tt_fw_rodata(const struct tt_fw *fw, unsigned i, uint64_t *addr, const uint8_t **data,
		 size_t *len);

#endif
