/* daemon/layout.h: layout files: what the firmware ELF tells a trace reader, saved once
 * (`tracetap layout --elf FW > board.json`) and used where the ELF is not at hand (`--layout`
 * of tracetapd and `tracetap decode`). JSON: the format's name, the address of its control
 * structure, and an object named after the format with its `--format-opt` options and own
 * members, which the format reads and writes itself (proto/reader.h: layout_load,
 * layout_write; proto/README-nuttx.md shows NuttX's). Untrusted: a bad value names the file and
 * key.
 */
#ifndef TT_LAYOUT_H
#define TT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../proto/reader.h"

/* Reads the layout file at path for reader r: applies its options to cfg (r->cfg_size bytes,
 * already initialised), then the format's own members (r->layout_load: what it allocates in
 * cfg is r->cfg_free's, released here again on an error), and *address (0: none in the file).
 * 0, or -errno with a message naming the file and field. */
int tt_layout_load(const char *path, const struct tt_reader_ops *r, void *cfg,
		   uint64_t *address, char *err, size_t errlen);
/* The format named in the layout file at path (for a command line without --format), into
 * out. 0 or -errno with a message. */
int tt_layout_format(const char *path, char *out, size_t outlen, char *err, size_t errlen);

/* Writes the layout file of format r (which has layout_write) for its configuration cfg, with
 * the control structure at address, to f; source (may be NULL) names the ELF it came from.
 * 0 or -errno (-ENOMEM, -EIO). */
int tt_layout_write(FILE *f, const struct tt_reader_ops *r, const void *cfg, uint64_t address,
		    const char *source);

#endif
