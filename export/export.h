/* export/export.h: a stream of records (their JSON objects, as on the wire) to a file format.
 *
 * Used by the daemon's /api/export (from a hub's history) and by `tracetap record` (from the
 * WebSocket stream), so both produce the same bytes. Formats:
 *  - jsonl:    one record per line, exactly the wire JSON.
 *  - perfetto: Chrome trace event JSON ({"traceEvents":[...],"displayTimeUnit":"ns",
 *              "metadata":{...}}), loadable by ui.perfetto.dev and chrome://tracing:
 *              one process per target (pid 1); one thread track per RTOS thread (tid = thread
 *              pointer, named by thread_name) with a complete ("X") slice per running interval,
 *              from each record's `run` (who ran since the previous record: the reader derives
 *              it, PROTOCOL.md); interrupt time on the "ISR" track (tid 0), initialisation on
 *              "init" (tid 1); idle or unknown time (the first event, across gaps and resets,
 *              records without `run`, a seq hole from a filter) has no slice;
 *              every event is also an instant ("i") event on the running thread's track (ISR
 *              events on an "ISR" track, tid 0); gap and reset records are global instant
 *              events; counters ("C"): "events lost" (cumulative). Time: ns when present,
 *              else ticks (1 tick = 1 us).
 *  - ftrace:   text in the `trace` file style of Linux ftrace:
 *              "  producer-0x20000500 [000] 123.456789: THREAD_RESUME: thread=consumer ..."
 *              A stream whose first record is a NuttX note (name NOTE_*) is written exactly in
 *              the form of NuttX's `trace dump` (noteram_dump_one; proto/README-nuttx.md):
 *              "# tracer: nop", "%8s-%-3u [%d] %3u.%09u: " (task name or <noname>, pid with
 *              idle tasks as 0, cpu, ns or else the raw time as ns), sched_wakeup_new,
 *              SUSPEND+RESUME as sched_switch (sched_waking inside an IRQ, the switch at its
 *              exit), sys_NAME(arg0: 0x..) / sys_NAME -> 0x.., irq_handler_entry/exit,
 *              tracing_mark_write B|/E|/I|/C| for sched_lock, critical_section, dump and heap
 *              notes; no line where NuttX prints none (CPU_*, SPINLOCK_*, STOP, SUSPEND alone).
 *              Differences: a truncated syscall argument is printed as decoded ("0x????3c10")
 *              instead of invented bytes; an unnamed syscall is sys_NR; DUMP_PRINTF is its
 *              rendered text (the record's "text", from the ELF's format string), else the
 *              format address and the packed bytes; gap/reset records keep tracetap's own
 *              line.
 *  - trx:      a TraceX file rebuilt from the raw words: a ThreadX control header, a registry,
 *              and one 32-byte entry per event (raw words, little-endian), oldest first with
 *              the current pointer at the oldest entry. With the source's reader
 *              (tt_export_set_threadx) the header keeps its timer mask and name size and the
 *              registry is the source's whole registry (every entry and parameter), followed by
 *              names seen in events that it no longer holds; without it (a stream from the
 *              network), the registry holds the names seen (thread_name, interrupted_name,
 *              object arguments) and the timer mask is the stamps' own width (the smallest
 *              all-ones mask holding every `ts` when a raw time word has bits `ts` has not,
 *              else 0xFFFFFFFF). Gap/reset records and events without 8 raw words are not
 *              representable and skipped (counted).
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
 * names seen in events. rd: a ThreadX reader that has accepted a header (borrowed for the call;
 * what it says is copied; other formats keep nothing). Returns 0, -ENOENT (no header yet) or
 * -ENOMEM. */
struct tt_threadx;
int tt_export_set_threadx(struct tt_export *e, const struct tt_threadx *rd);
/* The same from a static image (a .trx or a RAM dump whose first byte is at target address base,
 * the control header at header_addr; 0: at base; both 0: a .trx, whose header says where it
 * was), for offline conversion. img borrowed for the call. Returns 0, the reader's error (-EPROTO: not a valid trace buffer), -ERANGE (the buffer
 * reaches outside the image) or -ENOMEM. */
int tt_export_set_threadx_image(struct tt_export *e, const uint8_t *img, size_t len,
				uint64_t base, uint64_t header_addr);
/* Writes what is buffered and the trailer (trx: the whole file). Returns 0 or -errno. */
int tt_export_finish(struct tt_export *e);
/* Records written / skipped (not representable in the format, or not records). */
uint64_t tt_export_written(const struct tt_export *e);
uint64_t tt_export_skipped(const struct tt_export *e);
void tt_export_free(struct tt_export *e);

#endif
