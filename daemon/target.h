/* daemon/target.h: one traced target: its probe, its trace reader and the poller that drives
 * them on the libuv loop (plan -> probe read -> ingest cycles, paced by pace.h, retried with
 * backoff when the probe fails). Records and state changes reach the caller through callbacks.
 * Every function runs on the loop thread.
 */
#ifndef TT_TARGET_H
#define TT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "../probe/probe.h"
#include "../proto/reader.h"
#include "../proto/record.h"

struct tt_target_config {
	const char *name;          /* borrowed strings: copied by tt_target_start */
	const char *probe;         /* probe spec: file:PATH, process:PID, openocd:HOST:PORT, openocd-spawn */
	const char *const *openocd_args; /* openocd-spawn: -f/-c arguments, NULL-terminated */
	const char *openocd_log;
	const char *format;        /* "threadx", "nuttx", ... */
	const char *elf;           /* firmware ELF: the format's symbol (_tx_trace_header_ptr,
				      g_noteram_driver) and, for nuttx, the note layout from DWARF;
				      or NULL */
	const char *layout;        /* layout file (daemon/layout.h): what the ELF would give, saved
				      by `tracetap layout`; or NULL. Not with elf. */
	uint64_t address;          /* header address (or address of the pointer with addr_is_ptr) */
	bool address_is_pointer;   /* address holds a pointer to the header (like _tx_trace_header_ptr) */
	uint64_t file_base;        /* file: target address of the first byte */
	uint64_t tick_hz;
	uint64_t time_wrap;
	int time_dir;
	bool start_at_now;
	unsigned poll_min_ms;      /* default 1 */
	unsigned poll_max_ms;      /* default 50: an idle poll costs 40 bytes, so 20 a second are cheap, and events reach clients within about one interval */
	unsigned latency_ms;       /* 0, or a bound on write -> publish: caps the interval (daemon/pace.h) */
	uint32_t max_chunk;        /* probe read split size, default 4096 */
	int stack_budget;          /* bytes/s of probe reads for the stack high-water marks
				      (daemon/stackread.h) of a format that paints its stacks:
				      0: TT_STACK_BUDGET_DEFAULT, < 0: none read */
	const char *const *format_opts; /* "KEY=VALUE" format options, NULL-terminated, or NULL */
};

enum tt_target_state {
	TT_TARGET_ATTACHING = 0,
	TT_TARGET_CONNECTED,
	TT_TARGET_DISCONNECTED,
	TT_TARGET_RESET,
	TT_TARGET_STALLED,
	TT_TARGET_STOPPED,
	TT_TARGET_HALTED,          /* OpenOCD halted the core (GDB, `halt`): the buffer is still read */
};

struct tt_target_status {
	enum tt_target_state state;
	char message[256];         /* last probe/reader error or state detail */
	double rate;               /* events/s over the last second */
	double fill;               /* 0..1: new entries at the last poll / buffer capacity */
	uint64_t events, gaps, lost, resets;
	uint64_t skipped;          /* history at attach overwritten before the first read (never
	                            * promised: no gap record, but counted) */
	uint64_t dropped;          /* remote: broker messages refused (malformed, out of range) */
	uint64_t repeats;          /* remote: records and gap messages already had, dropped */
	uint64_t bytes_read;       /* probe bytes (the stack reads' included) */
	uint64_t stack_bytes;      /* ... of them read for the stack high-water marks */
	uint64_t polls;
	double poll_ms_last;       /* duration of the last poll cycle */
	unsigned interval_ms;      /* current poll interval */
};

struct tt_target;

typedef void (*tt_target_record_cb)(struct tt_target *t, const struct tt_record *rec, void *arg);
typedef void (*tt_target_status_cb)(struct tt_target *t, void *arg);
typedef void (*tt_target_close_cb)(struct tt_target *t, void *arg);

/* Starts polling. record_cb gets every record in order (borrowed for the call); status_cb is
 * called on state changes (may be NULL). Returns 0 or -errno with a message in err. */
int tt_target_start(uv_loop_t *loop, const struct tt_target_config *cfg,
		    tt_target_record_cb record_cb, tt_target_status_cb status_cb, void *arg,
		    struct tt_target **out, char *err, size_t errlen);
/* Stops polling and closes the probe; cb (may be NULL) runs when all handles are closed, then
 * the target is freed. */
void tt_target_stop(struct tt_target *t, tt_target_close_cb cb, void *arg);

/* The target's format: cfg->format, else the layout file's (cfg->layout; buf holds it, len
 * bytes), else "threadx". */
const char *tt_target_format_name(const struct tt_target_config *cfg, char *buf, size_t len);

/* Storage for a reader's format_cfg (reader.h: cfg_size bytes). */
struct tt_format_cfg {
	_Alignas(max_align_t) unsigned char buf[TT_FORMAT_CFG_MAX];
	const void *owned; /* the reader (struct tt_reader_ops) whose cfg_free releases what buf
			      points to, or NULL */
	uint64_t address; /* the control structure's address from the layout file, or 0 */
};

struct tt_reader_ops;
/* The reader r's format_cfg for cfg: its defaults, then what the firmware ELF (cfg->elf) tells
 * (the NuttX note layout from DWARF) or the layout file (cfg->layout, which also sets
 * x->address), then cfg->format_opts in order. Points *format_cfg into x,
 * or sets it to NULL for a format without options. 0 or -errno with a message naming the file,
 * option or field in err. */
int tt_target_format_cfg(const struct tt_target_config *cfg, const struct tt_reader_ops *r,
			 struct tt_format_cfg *x, const void **format_cfg, char *err,
			 size_t errlen);
/* Frees what tt_target_format_cfg allocated for x (safe on a zeroed or released x). */
void tt_format_cfg_release(struct tt_format_cfg *x);

/* Halts the core through the probe (OpenOCD's `halt`) between two reads; by says who asked (for
 * the log). The state becomes `halted` when OpenOCD reports it, as for a debugger's halt; reading
 * goes on. 0 (sent at the next cycle, the result logged) or -ENOTSUP (the probe has no core to
 * halt: file, process). */
int tt_target_halt(struct tt_target *t, const char *by);

const char *tt_target_name(const struct tt_target *t);
const struct tt_target_config *tt_target_config(const struct tt_target *t);

/* The trace header address a header pointer (`--pointer`, a pointer symbol such as
 * _tx_trace_header_ptr) holds, from its 4 bytes in target byte order: little-endian unless only
 * the big-endian reading is 4-aligned. 0 when the pointer is NULL (tracing not enabled). */
uint32_t tt_target_header_ptr(const uint8_t b[4]);
const struct tt_target_status *tt_target_status(const struct tt_target *t);
/* The target's reader ops (NULL before a format was chosen) and its reader's state (NULL while
 * none runs), for what reads the reader's state through its ops (the analysis's threads). */
const struct tt_reader_ops *tt_target_reader(const struct tt_target *t);
/* The stack high-water marks read from RAM (daemon/stackread.h): NULL when none are read (the
 * format paints no stacks, or stack_budget < 0). */
const struct tt_stackread *tt_target_stacks(const struct tt_target *t);
const void *tt_target_reader_state(const struct tt_target *t);
/* Adds to export e what the target's reader knows beyond the records (ThreadX: the header's timer
 * mask and the whole registry, for a .trx); nothing for other formats or before attach. */
struct tt_export;
void tt_target_export_prepare(const struct tt_target *t, struct tt_export *e);
/* The state's name as the stream spells it ("unknown" out of range). Inline: the hub, which
 * links without the poller, names states too. */
static inline const char *tt_target_state_name(enum tt_target_state st)
{
	static const char *const names[] = { "attaching", "connected", "disconnected",
					     "reset", "stalled", "stopped", "halted" };
	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

#endif
