/* daemon/fwglue.h: a format's configuration from the firmware ELF: fw/ answers the neutral
 * queries (fw/fw.h), the reader asks them (proto/reader.h: cfg_from_fw). */
#ifndef TT_FWGLUE_H
#define TT_FWGLUE_H

#include <stddef.h>

#include "../proto/fwquery.h"
#include "../proto/reader.h"

/* r->cfg_from_fw on the ELF at path (r has one): 0, or -errno with a message naming the file;
 * note as cfg_from_fw gives it. */
int tt_fw_format_cfg(const struct tt_reader_ops *r, void *cfg, const char *path, char *note,
		     size_t notelen, char *err, size_t errlen);
/* fn(q, arg, ...) with q answering fwquery.h's questions from the ELF at path (opened for the
 * call; what: what is looked for, for the "not an ELF" message): fn's result, or -errno with a
 * message naming the file when it cannot be opened. For a format's own question of an ELF (its
 * tests). */
int tt_fw_query_run(const char *path, const char *what,
		    int (*fn)(const struct tt_fw_query *q, void *arg, char *err, size_t errlen),
		    void *arg, char *err, size_t errlen);

#endif
