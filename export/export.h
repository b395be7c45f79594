/* export/export.h: a stream of records (their JSON objects, as on the wire) to a file format:
 * jsonl, perfetto (Chrome trace event JSON), ftrace (text; NuttX notes as NuttX's `trace dump`)
 * or trx (a TraceX file). What each format writes: export/README.md.
 *
 * Single-threaded: an export belongs to its caller; nothing is shared between exports.
 */
#ifndef TT_EXPORT_H
#define TT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

enum tt_export_format {
	TT_EXPORT_JSONL = 0,
	TT_EXPORT_TRX,
	TT_EXPORT_PERFETTO,
	TT_EXPORT_FTRACE,
};

/* "jsonl", "trx", "perfetto", "ftrace" -> format; -EINVAL when unknown. */
int tt_export_format_parse(const char *name);
const char *tt_export_format_name(enum tt_export_format fmt);
/* HTTP Content-Type of a format. */
const char *tt_export_content_type(enum tt_export_format fmt);
/* The file name extension of a format: ".jsonl", ".trx", ".json" (perfetto), ".txt" (ftrace). */
const char *tt_export_file_ext(enum tt_export_format fmt);

/* Output sink: returns 0 or -errno (which aborts the export). buf borrowed for the call. */
typedef int (*tt_export_write_cb)(void *arg, const void *buf, size_t len);

struct tt_export;

/* Returns 0, -EINVAL or -ENOMEM. Free with tt_export_free. */
int tt_export_new(enum tt_export_format fmt, tt_export_write_cb write, void *arg,
		  struct tt_export **out);
/* Adds one record (a JSON object as in PROTOCOL.md; json borrowed). Returns 0, -EINVAL (not a
 * record: skipped, counted), or the sink's error. */
int tt_export_record(struct tt_export *e, const char *json, size_t len);
/* trx: keep what the source's header and registry say (the timer mask, the name size and every
 * registry entry with its parameters, free ones included) instead of rebuilding them from the
 * names seen in events. r, rd: a live reader and its state (proto/reader.h), borrowed for the
 * call; what they say is copied. Only a ThreadX source has what a .trx keeps (the .trx is
 * TraceX's file of ThreadX's trace buffer): any other reader, or another export format, keeps
 * nothing (0). Returns 0, -ENOENT (no header yet) or -ENOMEM. */
struct tt_reader_ops;
int tt_export_set_source(struct tt_export *e, const struct tt_reader_ops *r, const void *rd);
/* The same from a static image of format r (a .trx or a RAM dump whose first byte is at target
 * address base, the control header at header_addr; 0: at base; both 0: a .trx, whose header
 * says where it was), for offline conversion. img borrowed for the call. Returns 0 (also for a
 * format other than ThreadX), the reader's error (-EPROTO: not a valid trace buffer), -ERANGE
 * (the buffer reaches outside the image) or -ENOMEM. */
int tt_export_set_source_image(struct tt_export *e, const struct tt_reader_ops *r,
			       const uint8_t *img, size_t len, uint64_t base, uint64_t header_addr);
/* trx: TraceX has no record for "events were lost here" or "the target restarted here", and a
 * file of back-to-back entries would show execution running on across the loss. Each gap record
 * becomes a user event TT_TRX_GAP_EVENT in the initialization context (thread word 0xF0F0F0F0,
 * so no thread is shown running through it) at the previous entry's time, info 1 = the events
 * lost (at most 0xFFFFFFFF), info 2 = 1 when that count is exact, 0 for an estimate; each reset
 * record a user event TT_TRX_RESET_EVENT. */
#define TT_TRX_GAP_EVENT 65535u
#define TT_TRX_RESET_EVENT 65534u
/* trx: the gap markers written so far and the events they say were lost; 0 for other formats. */
uint64_t tt_export_trx_gaps(const struct tt_export *e, uint64_t *lost);
/* The same counted in a .trx file's entries (as /api/export sent it); 0 when img is no .trx. */
uint64_t tt_export_trx_count_gaps(const uint8_t *img, size_t len, uint64_t *lost);
/* What a person is told of the markers: "" for none, else "; N gap(s) marked as TraceX user
 * event 65535 (L events lost: info 1)". Returns buf. */
const char *tt_export_trx_note(char *buf, size_t cap, uint64_t gaps, uint64_t lost);
/* Writes what is buffered and the trailer (trx: the whole file). Returns 0 or -errno. */
int tt_export_finish(struct tt_export *e);
/* Records written / skipped (not representable in the format, or not records). */
uint64_t tt_export_written(const struct tt_export *e);
uint64_t tt_export_skipped(const struct tt_export *e);
void tt_export_free(struct tt_export *e);

#endif
