/* daemon/kevfollow.h: follow a QNX .kev file that tracelogger is writing, like `tail -f`, for
 * `tracetap decode --follow` (tracetapd's `--probe kev:PATH` uses the kev probe backend).
 *
 * Each step reads the file once (blocking; the caller paces the steps) and decodes every whole
 * event appended since the last step; a partial event or header waits for the rest. A file that
 * shrinks, or a new file at the path, gives a reset record and is decoded again from its header.
 */
#ifndef TT_KEVFOLLOW_H
#define TT_KEVFOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "../proto/record.h"

struct tt_kev_follow;

enum tt_kev_state {
	TT_KEV_WAITING = 0,   /* no file at the path yet, or its header is not complete */
	TT_KEV_FOLLOWING = 1, /* header read: events are decoded as they arrive */
};

/* 0 or -ENOMEM. path is copied; tick_hz overrides the file's TRACE_CYCLES_PER_SEC (0: keep). */
int tt_kev_follow_new(const char *path, uint64_t tick_hz, struct tt_kev_follow **out);
/* One look at the file; records go to cb. Returns a tt_kev_state, or -errno with a message in
 * err naming the file (unreadable, not a .kev, malformed header: the state is kept, so a later
 * step retries, e.g. once the file is replaced). */
int tt_kev_follow_step(struct tt_kev_follow *f, tt_emit_cb cb, void *arg, char *err,
		       size_t errlen);
/* The header bytes when the last step read a new header (then NULL until the next one). */
const uint8_t *tt_kev_follow_new_header(struct tt_kev_follow *f, size_t *len);
/* Bytes of events decoded so far (for status). */
uint64_t tt_kev_follow_bytes(const struct tt_kev_follow *f);
/* Emits what is held (combine events in flight) through cb (may be NULL) and frees. */
void tt_kev_follow_free(struct tt_kev_follow *f, tt_emit_cb cb, void *arg);

#endif
