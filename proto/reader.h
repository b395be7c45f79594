/* proto/reader.h: one interface over every trace format's reader; the registry is in reader.c.
 *
 * Live reading: create, then per poll cycle: plan (ranges to read, into the reader's buffers:
 * plan.h), the caller reads them all in order, then ingest (records through cb), repeated while
 * ingest returns TT_READER_MORE; a failed read is read_failed instead of ingest. One thread;
 * nothing here does I/O or allocates while decoding. A format with create NULL only decodes
 * images. Callers (the daemon, `tracetap decode`, the analysis) use these ops only, never a
 * format's name or header: they test for an op's presence (tests/check-arch.py refuses a
 * format's header or names outside proto/).
 */
#ifndef TT_READER_H
#define TT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis_ops.h"
#include "fwquery.h"
#include "plan.h"
#include "record.h"

enum tt_reader_rc {
	TT_READER_DONE = 0, /* the poll cycle is over: wait for the next tick */
	TT_READER_MORE = 1, /* call plan again now */
};

struct tt_reader_config {
	uint64_t address;    /* the format's control structure in target memory (ThreadX: the
				trace header) */
	bool start_at_now;   /* skip what the buffer already holds */
	uint64_t tick_hz;    /* time stamp rate; 0 = unknown (no ns) */
	uint64_t time_wrap;  /* modulus of the time source; 0 = the format's default */
	int time_dir;        /* 0 = detect, 1 = up, -1 = down */
	const void *format_cfg; /* format-specific extras (e.g. a layout from the ELF), or NULL */
	bool file_source;    /* the memory is a file (`--probe file:`): what reads the same on
				both sides of an unmoved write pointer is not being written (ThreadX
				then publishes the oldest entry at attach too), and the host's clock
				says nothing of the target's (no evidence for loss estimates) */
	const char *stream;  /* the source is a file in the format's own layout, read while it
				is written (a stream_scheme source): its path, for messages
				(borrowed for the reader's life); else NULL */
	bool since_enable;   /* the source was seen with tracing off (no control structure yet):
				everything it writes from now on is promised, so what the first
				read finds overwritten is reported as a gap, not skipped history */
	uint64_t since_enable_ns; /* with since_enable: host time (set_host_time's clock) when the
				     last read that saw tracing off was sent (no later: the
				     window of the loss since must not be cut); 0 unknown */
	bool ptr_ranges;     /* the caller reads TT_RANGE_TO_PTR ranges (plan.h; tt_probe_read
				does): a reader may then plan a pointer and what it points to as
				one read */
};

/* Counters for metrics and adaptive polling. */
struct tt_reader_stats {
	uint64_t polls, bytes_planned, events, gaps, lost, resets;
	uint32_t last_new; /* entries (or records) new at the last poll */
	uint32_t capacity; /* entries (or records) the target buffer holds; 0 if unknown */
	uint32_t held;     /* entries read at the last poll but held back until a later read (a
			      format whose entries may still change after they are committed);
			      the poller may read again sooner to publish them */
	uint64_t skipped;  /* history found at attach but overwritten before it could be read
			      (never promised, so no gap record; counted to be visible) */
};

/* A member of a format's own object in a layout file, as the file's reader hands it over
 * (tt_layout_in.get): an array or an object of items, or another value. */
struct tt_layout_item {
	const char *key;  /* an object's member name; NULL for an array's element */
	const char *text; /* the value when it is a string, else NULL */
	bool null;        /* the value is null */
};
enum tt_layout_kind { TT_LAYOUT_ARRAY, TT_LAYOUT_OBJECT, TT_LAYOUT_OTHER };
struct tt_layout_value {
	enum tt_layout_kind kind;
	size_t n;                          /* items (0 for TT_LAYOUT_OTHER) */
	const struct tt_layout_item *item; /* n items, in file order */
};
/* What layout_load reads: get fills *v with the member key of the format's object: 0, -ENOENT
 * (no such member) or -ENOMEM; *v and its strings stay valid until the next get. An array or
 * object of more than max items gives its count in v->n and no items (item NULL): the format
 * refuses it without the file's reader building them. */
struct tt_layout_in {
	void *arg;
	int (*get)(void *arg, const char *key, size_t max, struct tt_layout_value *v);
};
/* What layout_write writes to, each 0 or -ENOMEM: option, one of the format's options (as
 * cfg_set takes it); begin, a member of the format's object, an array or an object, that the
 * items after it go into; item, one of its entries (key NULL in an array; text NULL: null). */
struct tt_layout_out {
	void *arg;
	int (*option)(void *arg, const char *key, const char *value);
	int (*begin)(void *arg, const char *key, bool array);
	int (*item)(void *arg, const char *key, const char *text);
};

/* What a line of a format's own tool's text needs of its source (native_header, native_ctx). */
struct tt_native_ctx {
	bool big_endian;  /* the source's byte order */
	uint32_t release; /* the OS's major release; 0: unknown */
};
/* One line of text, without its line end (borrowed for the call). */
typedef void (*tt_line_cb)(void *arg, const char *line, size_t len);

struct tt_reader_ops {
	const char *name;
	const char *elf_symbol;      /* firmware ELF symbol that locates the control structure */
	bool elf_symbol_is_pointer;  /* the symbol holds a pointer to it (set at run time) */
	/* The symbol for this configuration (format_cfg, or NULL), when it depends on it (NULL:
	 * elf_symbol always). Callers use tt_reader_elf_symbol(). */
	const char *(*elf_symbol_for)(const void *cfg);
	/* Why a live reader cannot start without an address (create gave -EINVAL and nothing
	 * located the control structure): what to give instead (NULL: the generic message). */
	const char *no_address_hint;
	/* The probe scheme (`SCHEME:PATH`) of files in this format's own layout that are read
	 * while they are written (create then gets cfg->stream), or NULL. stream_check says
	 * whether the rest of a target's configuration goes with such a source: format is the
	 * one given (or NULL), locating whether an address, pointer, ELF, --start-at-now or
	 * format option was given; 0, or -EINVAL with a message. */
	const char *stream_scheme;
	int (*stream_check)(const char *spec, const char *format, bool locating, char *err,
			    size_t errlen);
	/* A stream_scheme source (cfg->stream) is followed like `tail -f` (`tracetap decode
	 * --follow`, daemon/follow.h): ingest gives -EAGAIN while there is no file yet or its
	 * header is not whole, -EPROTO for a malformed file (retried at the next cycle).
	 * stream_header: the bytes of the file's header when the last ingest accepted a new one
	 * (then NULL until the next; valid until the next plan); NULL op: none to give. */
	const uint8_t *(*stream_header)(void *rd, size_t *len);
	/* End of input: emits what the reader holds back (records being reassembled, flagged
	 * incomplete) through cb. NULL: nothing is held back. */
	void (*finish)(void *rd, tt_emit_cb cb, void *arg);
	/* Live reading (NULL when the format is files only). */
	int (*create)(const struct tt_reader_config *cfg, void **out);
	void (*destroy)(void *rd);
	void (*plan)(void *rd, struct tt_plan *plan);
	int (*ingest)(void *rd, tt_emit_cb cb, void *arg);
	void (*read_failed)(void *rd, int err);
	const char *(*error)(const void *rd);
	void (*stats)(const void *rd, struct tt_reader_stats *out);
	/* The host's monotonic clock (ns): when the reads of the last plan completed, given before
	 * each ingest (lets a reader tell time stamp wraps apart and estimate losses), and now,
	 * given before each plan (lets a reader plan by the age of what it read last). NULL: the
	 * format has no use for it. */
	void (*set_host_time)(void *rd, uint64_t ns);
	/* A whole image (a file, a RAM dump) whose first byte is at target address base. cfg->address
	 * locates the control structure (0: the format's default: the image start or the file's own
	 * header). Emits every record oldest first. 0 or a negative error with a message in err;
	 * -ENODATA: the image ends inside a record (cut short: the records before it are sound). */
	/* Whether a file's first bytes look like this format (NULL: no signature). */
	bool (*detect)(const uint8_t *head, size_t len);
	/* A file that starts with this format's header (detect true): the target address it
	 * was taken from, as the header says (a .trx), or 0 when it does not say (NULL: never). */
	uint64_t (*file_base)(const uint8_t *head, size_t len);
	int (*decode_image)(const uint8_t *img, size_t len, uint64_t base,
			    const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
			    size_t errlen);
	/* Whether a raw image (first byte at base) holds the control structure at addr as target
	 * RAM, rather than a stream of records to decode back to back (NULL: always RAM). */
	bool (*image_holds)(const uint8_t *img, size_t len, uint64_t base, uint64_t addr,
			    const void *cfg);
	/* Format options (`--format-opt KEY=VALUE`, the config's "format_opts"): the format's own
	 * configuration struct, cfg_size bytes (at most TT_FORMAT_CFG_MAX), which format_cfg then
	 * points to. cfg_init fills the defaults (before the ELF, if any, and the options);
	 * cfg_set applies one option: 0, or -EINVAL with a message naming the key and what it
	 * expects. cfg_help lists the keys for --help. cfg_size 0: the format takes no options. */
	size_t cfg_size;
	void (*cfg_init)(void *cfg);
	int (*cfg_set)(void *cfg, const char *key, const char *value, char *err, size_t errlen);
	/* The configuration as a whole, after the ELF and every option (NULL: nothing to check): 0, or
	 * -EINVAL with *why saying what is wrong (static). */
	int (*cfg_check)(const void *cfg, const char **why);
	const char *cfg_help;
	/* One or more '\n'-separated lines saying what the configuration holds, for the log;
	 * source names the file it came from, or is NULL (NULL op: nothing to say). Writes at most
	 * len bytes, NUL included. */
	void (*cfg_describe)(const void *cfg, const char *source, char *buf, size_t len);
	/* What the firmware ELF tells, through the queries of fwquery.h, into cfg (initialised;
	 * before the options): 0, or -errno with a message in err; note gets '\n'-ended lines
	 * about what was left out, for the log (NULL op: the ELF gives only the address). What
	 * cfg then points to is released by cfg_free (NULL: nothing to release). */
	int (*cfg_from_fw)(void *cfg, const struct tt_fw_query *q, char *note, size_t notelen,
			   char *err, size_t errlen);
	void (*cfg_free)(void *cfg);
	/* Layout files (`tracetap layout` writes one, `--layout` reads it; daemon/layout.h owns
	 * the file: JSON, its format, address and the options of cfg_set): the format's own
	 * members beside the options (NuttX: syscall names, printf strings). layout_write gives
	 * the options that set cfg back and those members through out: 0 or what out returned
	 * (-ENOMEM). layout_load reads those members through in into cfg (initialised, the
	 * file's options applied): 0, or -EINVAL with a message naming the member and entry
	 * ("nuttx.syscalls[3]: ...") or -ENOMEM; what it puts in cfg is released by cfg_free,
	 * also after an error. layout_write NULL: the format needs only the address (`tracetap
	 * layout` refuses it) and a file's own members are ignored. */
	int (*layout_write)(const void *cfg, const struct tt_layout_out *out);
	int (*layout_load)(void *cfg, const struct tt_layout_in *in, char *err, size_t errlen);
	/* The text the format's own tool prints (QNX: traceprinter's), for `tracetap decode
	 * --traceprinter`; native_line NULL: the format has none. native_line: the line of an
	 * event record this format's reader emitted, without line end, into buf: its length, or -1
	 * (cap too small, or not this format's event). native_header: when buf starts with a
	 * whole header of the format's own file (what follows it may be cut short: a stream's
	 * stream_header holds the header alone), the tool's lines for it through cb and *ctx from
	 * it: 0, else -EPROTO (nothing given, *ctx untouched). native_ctx: *ctx for a source without
	 * such a header (a RAM image), from the configuration (cfg NULL: the defaults). */
	int (*native_line)(char *buf, size_t cap, const struct tt_event *ev,
			   const struct tt_native_ctx *ctx);
	int (*native_header)(const uint8_t *buf, size_t len, struct tt_native_ctx *ctx,
			     tt_line_cb cb, void *arg);
	void (*native_ctx)(const void *cfg, struct tt_native_ctx *ctx);
	/* What the live analysis needs to know of this format's events (analysis_ops.h); NULL:
	 * the records alone. */
	const struct tt_analysis_ops *analysis;
};

#define TT_FORMAT_CFG_MAX 512

/* The reader of a format by name ("threadx", ...), or NULL. */
const struct tt_reader_ops *tt_reader_find(const char *format);
/* The i-th format of the registry (0 the first), or NULL past the last: for the formats that
 * have an op (`tracetap layout`'s, `decode --follow`'s). */
const struct tt_reader_ops *tt_reader_at(size_t i);
/* The format taken when none is given or detected. */
const struct tt_reader_ops *tt_reader_default(void);
/* The ELF symbol that locates r's control structure under configuration cfg (may be NULL),
 * or NULL when the format has none. */
const char *tt_reader_elf_symbol(const struct tt_reader_ops *r, const void *cfg);
/* The format whose stream_scheme spec starts with (as "SCHEME:"), or NULL. */
const struct tt_reader_ops *tt_reader_for_stream(const char *spec);
/* The format whose signature the file starts with, or NULL. */
const struct tt_reader_ops *tt_reader_detect(const uint8_t *head, size_t len);
/* Every format's cfg_help, in registry order, into buf (len bytes, NUL included; cut short
 * when too small). Returns the length it needed, like snprintf. */
size_t tt_reader_help(char *buf, size_t len);
/* "threadx, ..." for messages. */
const char *tt_reader_names(void);

#endif
