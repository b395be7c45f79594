/* daemon/follow.h: follow a file in a format's own layout while its writer writes it (a
 * stream_scheme source of proto/reader.h, such as a QNX .kev file that tracelogger is
 * writing), like `tail -f`, for `tracetap decode --follow` (tracetapd reads the same sources
 * through its probe, `--probe SCHEME:PATH`).
 *
 * Each step reads the file once (blocking; the caller paces the steps) and decodes every whole
 * record appended since the last step; a partial record or header waits for the rest. A file
 * that shrinks, or a new file at the path, gives a reset record and is decoded again from its
 * header. The format's reader does the decoding, driven through its ops only.
 */
#ifndef TT_FOLLOW_H
#define TT_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "../proto/reader.h"

struct tt_follow;

enum tt_follow_state {
	TT_FOLLOW_WAITING = 0,   /* no file at the path yet, or its header is not complete */
	TT_FOLLOW_READING = 1,   /* header read: records are decoded as they arrive */
};

/* r: a format with a stream_scheme (borrowed; static). 0, or -errno from the reader's create
 * (-ENOMEM). path is copied; tick_hz overrides the file's own time stamp rate (0: keep). */
int tt_follow_new(const struct tt_reader_ops *r, const char *path, uint64_t tick_hz,
		  struct tt_follow **out);
/* One look at the file; records go to cb. Returns a tt_follow_state, or -errno with a message
 * in err naming the file (unreadable, not in the format, malformed header: the state is kept,
 * so a later step retries, e.g. once the file is replaced). */
int tt_follow_step(struct tt_follow *f, tt_emit_cb cb, void *arg, char *err, size_t errlen);
/* The header bytes when the last step read a new header (then NULL until the next one); valid
 * until the next header is taken, or free. A step that reads a header ends with it: the
 * records after it come at the next step. */
const uint8_t *tt_follow_new_header(struct tt_follow *f, size_t *len);
/* Emits what the reader holds back (records in flight) through cb (may be NULL) and frees. */
void tt_follow_free(struct tt_follow *f, tt_emit_cb cb, void *arg);

#endif
