/* proto/fwquery.h: what a format may ask of the firmware ELF (symbols aside), as a table of
 * functions the caller fills (fw/fw.h implements them; proto/ links nothing). A DWARF entry is
 * a handle, 0 meaning none; see fw/fw.h for what each query answers. Blocking: setup only.
 */
#ifndef TT_FWQUERY_H
#define TT_FWQUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tt_fw;

struct tt_fw_query {
	const struct tt_fw *fw;
	const char *(*path)(const struct tt_fw *fw);
	bool (*has_dwarf)(const struct tt_fw *fw);
	bool (*big_endian)(const struct tt_fw *fw);
	unsigned (*class_bytes)(const struct tt_fw *fw);
	unsigned (*machine)(const struct tt_fw *fw); /* the ELF's e_machine; may be NULL */
	uint64_t (*type)(const struct tt_fw *fw, const char *name, uint8_t *unit_addr);
	uint64_t (*variable)(const struct tt_fw *fw, const char *name);
	uint64_t (*member)(const struct tt_fw *fw, uint64_t st, const char *name);
	int (*member_offset)(const struct tt_fw *fw, uint64_t m, uint64_t *off);
	uint64_t (*type_of)(const struct tt_fw *fw, uint64_t d);
	uint64_t (*size)(const struct tt_fw *fw, uint64_t d);
	bool (*is_pointer)(const struct tt_fw *fw, uint64_t d);
	int (*array_len)(const struct tt_fw *fw, uint64_t d, uint64_t *n);
	bool (*enumerator)(const struct tt_fw *fw, uint64_t e, const char *name, int64_t *value);
	uint64_t (*var_addr)(const struct tt_fw *fw, uint64_t v);
	int (*read)(const struct tt_fw *fw, uint64_t addr, void *dst, size_t len);
	int (*rodata)(const struct tt_fw *fw, unsigned i, uint64_t *addr, const uint8_t **data,
		      size_t *len);
};

#endif
