/* fw/fw_int.h: private to fw/. */
#ifndef TT_FW_INT_H
#define TT_FW_INT_H

#include <libelf.h>
#include <stddef.h>

/* Opens path as an ELF: 0 with the descriptor and the handle (tt_fw_elf_end), or -errno with
 * a message naming the file (-ENOENT/-EACCES: cannot open, -ENOEXEC: not an ELF, where the
 * message says "(looking for WHAT)", -EIO: libelf). */
int tt_fw_elf_begin(const char *path, const char *what, int *fd, Elf **e, char *err,
		    size_t errlen);
void tt_fw_elf_end(int fd, Elf *e);

#endif
