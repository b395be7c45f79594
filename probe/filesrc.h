/* probe/filesrc.h: a plan's reads from a file at a path, blocking (no libuv): the file:PATH and
 * kev:PATH backends run it on the thread pool, `tracetap decode --follow` in its own loop.
 *
 * A raw binary image (byte 0 at file_base), Intel HEX or Motorola S-record, detected by content.
 * Every read first looks at the path: a file rewritten in place is followed byte for byte, one
 * replaced by rename is reopened, a HEX/SREC file is parsed again when its identity, size or
 * mtime change.
 *
 * Following (kev:PATH): the file is read while it is written. No file yet is not an error, the
 * content is never taken for HEX/SREC, and plan.h's TT_PLAN_FILE_STAT answers the file's length
 * and generation (a count of the files seen at the path; a file removed but still open is read
 * until another appears).
 */
#ifndef TT_FILESRC_H
#define TT_FILESRC_H

#include <stddef.h>
#include <stdint.h>

#include "../proto/plan.h"

struct tt_filesrc;

/* NULL when out of memory; path is copied. follow: see above (byte 0 is then at address 0). */
struct tt_filesrc *tt_filesrc_new(const char *path, uint64_t file_base, int follow);
/* Fills every range of plan. 0, or -errno with tt_filesrc_error saying what and where: -EFAULT
 * for a range outside the file or image (a followed file that shrank since its length was read,
 * too). */
int tt_filesrc_read(struct tt_filesrc *s, const struct tt_plan *plan);
/* The last error's message, naming the file. */
const char *tt_filesrc_error(const struct tt_filesrc *s);
void tt_filesrc_free(struct tt_filesrc *s);

/* The start of the image a file:PATH probe serves (for setup, not polls): up to len bytes into
 * buf (*got of them) and their target address: a raw file's first bytes (*addr 0, *raw 1), or a
 * HEX/S-record file's lowest segment. 0 or -errno with err naming the file. */
int tt_filesrc_head(const char *path, uint8_t *buf, size_t len, size_t *got, uint64_t *addr,
		    int *raw, char *err, size_t errlen);

#endif
