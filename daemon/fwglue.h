/* daemon/fwglue.h: a format's configuration from the firmware ELF: fw/ answers the neutral
 * queries (fw/fw.h), the reader asks them (proto/reader.h: cfg_from_fw). */
#ifndef TT_FWGLUE_H
#define TT_FWGLUE_H

#include <stddef.h>

#include "../proto/nuttx.h"
#include "../proto/reader.h"

/* r->cfg_from_fw on the ELF at path (r has one): 0, or -errno with a message naming the file;
 * note as cfg_from_fw gives it. */
int tt_fw_format_cfg(const struct tt_reader_ops *r, void *cfg, const char *path, char *note,
		     size_t notelen, char *err, size_t errlen);
/* The NuttX note layout of the ELF at path (proto/nuttx.h: tt_nuttx_layout_from_fw). */
int tt_nuttx_layout_from_elf(const char *path, struct tt_nuttx_layout *out, char *err,
			     size_t errlen);

#endif
