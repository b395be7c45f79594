/* fw/fw_int.h: private to fw/. */
#ifndef TT_FW_INT_H
#define TT_FW_INT_H

#include <libelf.h>
#include <stddef.h>

/* Opens path as an ELF and runs fn(path, e, out, err, errlen) on it: fn's return, or -errno
 * with a message naming the file (-ENOENT/-EACCES: cannot open, -ENOEXEC: not an ELF, where
 * the message says "(looking for WHAT)", -EIO: libelf). */
int tt_fw_with_elf(const char *path, const char *what,
		   int (*fn)(const char *path, Elf *e, void *out, char *err, size_t errlen),
		   void *out, char *err, size_t errlen);

#endif
