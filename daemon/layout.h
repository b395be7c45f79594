/* daemon/layout.h: layout files: what the firmware ELF tells a trace reader, saved once
 * (`tracetap layout --elf FW > board.json`) and used where the ELF is not at hand (`--layout`
 * of tracetapd and `tracetap decode`). JSON: the format's name, the address of its control
 * structure, and an object named after the format with its `--format-opt` options and own
 * fields (proto/README-nuttx.md shows NuttX's). Untrusted: a bad value names the file and key.
 */
#ifndef TT_LAYOUT_H
#define TT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../proto/nuttx.h"
#include "../proto/reader.h"

/* What a layout file gave besides the options (owned; tt_layout_extras_free). */
struct tt_layout_extras {
	struct tt_nuttx_syscalls *sc; /* one allocation, or NULL */
	struct tt_nuttx_mem *ro;      /* one allocation, or NULL */
};

/* Reads the layout file at path for reader r: applies its options to cfg (r->cfg_size bytes,
 * already initialised), fills *ex (NuttX: syscalls, strings; the layout in cfg points at them)
 * and *address (0: none in the file). 0, or -errno with a message naming the file and field. */
int tt_layout_load(const char *path, const struct tt_reader_ops *r, void *cfg,
		   struct tt_layout_extras *ex, uint64_t *address, char *err, size_t errlen);
/* The format named in the layout file at path (for a command line without --format), into
 * out. 0 or -errno with a message. */
int tt_layout_format(const char *path, char *out, size_t outlen, char *err, size_t errlen);
void tt_layout_extras_free(struct tt_layout_extras *ex);

/* Writes a NuttX layout file for lo (its syscalls and the '%' strings of its rodata) with the
 * control structure at address to f. 0 or -errno (-ENOMEM, -EIO). */
int tt_layout_write_nuttx(FILE *f, const struct tt_nuttx_layout *lo, uint64_t address,
			  const char *source);

#endif
