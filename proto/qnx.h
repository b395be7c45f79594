/* proto/qnx.h: QNX Neutrino kernel trace events (`.kev` files written by tracelogger).
 *
 * A `.kev` file is an ASCII attribute header (TRACE_HEADER_BEGIN:: ... TRACE_HEADER_END::), a
 * copy of the system page (TRACE_SYSPAGE_LEN bytes) and then 16-byte events in the writer's
 * byte order. This module parses the header and decodes the events into records (record.h):
 * names, arguments, thread names, 64-bit time, gaps where kernel buffers were lost. Field
 * meanings are in proto/README-qnx.md and the QNX section of proto/PROTOCOL.md.
 *
 * No I/O and no allocation while decoding; struct tt_qnx is caller-owned with fixed-size tables
 * whose overflow is counted, never written past. struct tt_qnx_ring follows the kernel's ring of
 * trace buffers in target memory (plan/ingest, as proto/reader.h).
 */
#ifndef TT_QNX_H
#define TT_QNX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "record.h"

#define TT_QNX_EVENT_SIZE 16
#define TT_QNX_MAX_HEADER (1u << 20)  /* TRACE_HEADER_END:: must appear within this many bytes */
#define TT_QNX_MAX_CPUS 64            /* the header's CPU field is 6 bits */
#define TT_QNX_COMBINE_WORDS 64       /* payload words kept of one combine event (32 parts);
					 more parts are dropped and the event is flagged
					 "truncated" */
#define TT_QNX_COMBINE_SLOTS 16       /* combine events being reassembled at once (all CPUs);
					 when full, the oldest is emitted flagged "incomplete" */
#define TT_QNX_MAX_PROCS 256          /* pid -> process name entries (round-robin reuse) */
#define TT_QNX_MAX_THREADS 256        /* (pid, tid) -> thread name entries (round-robin reuse) */
#define TT_QNX_NAME_MAX 48            /* bytes kept of a process or thread name */
#define TT_QNX_HAND_ON 714            /* events after which QNX 6.4's kernel hands on to the
					 next buffer: 1014 slots less the 300 kept empty */

/* Internal classes (header bits 10-14, shown unshifted). */
enum tt_qnx_class {
	TT_QNX_C_EMPTY = 0,
	TT_QNX_C_CONTROL = 1,
	TT_QNX_C_KER_CALL = 2,
	TT_QNX_C_INT = 3,
	TT_QNX_C_PR_TH = 4,
	TT_QNX_C_SYSTEM = 5,
	TT_QNX_C_USER = 6,
	TT_QNX_C_COMM = 7,
	TT_QNX_C_QUIP = 8,
	TT_QNX_C_SEC = 9,
	TT_QNX_C_QVM = 10,
	TT_QNX_C_PMU = 11,
};

/* External classes: the TraceEvent() API's _NTO_TRACE_* (6.4 numbering; 7.0 adds QUIP, SEC,
 * QVM; 8.0 makes INTENTER, INTEXIT, VTHREAD, INT_HANDLER_ENTER/EXIT reserved and adds PMU).
 * KERCALL and INT are pseudo-classes (a group, not one event). */
enum tt_qnx_xclass {
	TT_QNX_X_EMPTY = 0, TT_QNX_X_CONTROL = 1, TT_QNX_X_KERCALL = 2,
	TT_QNX_X_KERCALLENTER = 3, TT_QNX_X_KERCALLEXIT = 4, TT_QNX_X_KERCALLINT = 5,
	TT_QNX_X_INT = 6, TT_QNX_X_INTENTER = 7, TT_QNX_X_INTEXIT = 8, TT_QNX_X_PROCESS = 9,
	TT_QNX_X_THREAD = 10, TT_QNX_X_VTHREAD = 11, TT_QNX_X_USER = 12, TT_QNX_X_SYSTEM = 13,
	TT_QNX_X_COMM = 14, TT_QNX_X_INT_HANDLER_ENTER = 15, TT_QNX_X_INT_HANDLER_EXIT = 16,
	TT_QNX_X_QUIP = 17, TT_QNX_X_SEC = 18, TT_QNX_X_QVM = 19, TT_QNX_X_PMU = 20,
};
#define TT_QNX_KERCALL64 (1u << 9) /* _NTO_TRACE_KERCALL64 (7.0+), OR-ed into the event */

/* External (class, event) of QNX major version ver (6, 7, 8) to the internal class and event
 * written in events, and back. 0, or -EINVAL for a pair that version has no mapping for. The
 * INT classes carry no event (given back as 0). Rules: README-qnx.md. */
int tt_qnx_ext_to_int(unsigned ver, uint32_t xclass, uint32_t xevent, uint32_t *cls,
		      uint32_t *event);
int tt_qnx_int_to_ext(unsigned ver, uint32_t cls, uint32_t event, uint32_t *xclass,
		      uint32_t *xevent);

/* The attributes of a .kev header this decoder uses. */
struct tt_qnx_header {
	bool big_endian;
	uint32_t ver_major, ver_minor; /* TRACE_VER_MAJOR/MINOR: tracelogger's own version (1/01
					  for 6.4's), not the OS; 0 when absent */
	uint32_t os_major, os_minor;   /* the OS release from TRACE_SYS_RELEASE ("6.4.0": 6, 4);
					  0 when absent or not a number: names then stay those
					  every version shares */
	uint64_t cycles_per_sec;       /* 0 when absent: no ns */
	uint32_t cpu_num;              /* 0 when absent */
	uint64_t syspage_len;          /* 0 when absent */
	size_t header_len;             /* bytes up to and including TRACE_HEADER_END:: */
	size_t events_off;             /* header_len + syspage_len: the first event */
	unsigned nattrs;               /* TRACE_<KEY>::<value> items seen (BEGIN/END included) */
	bool need_more;                /* after an error: the bytes so far are a valid beginning
					  (empty, cut inside the header or the syspage): a growing
					  file may still become valid */
};

/* Parses the header at buf[0..len). 0 on success; -EPROTO with a message in err (what is wrong
 * and at which byte offset) when the header is truncated, malformed, lacks a byte order, or its
 * TRACE_SYSPAGE_LEN runs past len. buf is borrowed. */
int tt_qnx_parse_header(const uint8_t *buf, size_t len, struct tt_qnx_header *h, char *err,
			size_t errlen);

/* Calls cb with each TRACE_<KEY>::<value> item of the header at buf (key without TRACE_ and
 * ::, value with its trailing NUL/CR/LF/spaces cut; both borrowed, not NUL-terminated), BEGIN
 * and END excluded. buf[0..len) must hold a header tt_qnx_parse_header accepted. */
void tt_qnx_header_items(const uint8_t *buf, size_t len,
			 void (*cb)(void *arg, const char *key, size_t klen, const char *val,
				    size_t vlen),
			 void *arg);

struct tt_qnx_stats {
	uint64_t records;     /* 16-byte events read */
	uint64_t events;      /* event records emitted (a combine event counts once) */
	uint64_t gaps, lost;  /* gap records and their summed lost counts (16-byte events) */
	uint64_t resets;      /* buffer sequence went backwards */
	uint64_t incomplete;  /* combine events emitted with parts missing */
	uint64_t truncated;   /* combine events longer than TT_QNX_COMBINE_WORDS */
	uint64_t names_evicted; /* process/thread names dropped because a table was full */
};

/* One combine event being reassembled (per CPU, per class + event). */
struct tt_qnx_combine {
	bool used, truncated;
	uint8_t cpu;
	uint16_t key;      /* class << 10 | event */
	uint32_t header;   /* the begin part's header word */
	uint32_t ts;       /* the begin part's low cycle word */
	uint64_t time;     /* the begin part's unwrapped time */
	uint64_t age;      /* begin order, for eviction */
	uint32_t nbytes;   /* payload bytes held (8 per part) */
	uint8_t bytes[TT_QNX_COMBINE_WORDS * 4]; /* payload in file byte order */
};

struct tt_qnx_proc {
	uint32_t pid;
	bool used;
	char name[TT_QNX_NAME_MAX];
};

struct tt_qnx_thread {
	uint32_t pid, tid;
	bool used;
	char name[TT_QNX_NAME_MAX];
};

/* Decoder state: caller-owned, set up by tt_qnx_init, no pointers to free. */
struct tt_qnx {
	struct tt_qnx_header hdr;
	uint64_t tick_hz;      /* cycles per second used for ns; 0 = no ns */
	uint32_t max_th_state; /* _TRACE_MAX_TH_STATE_NUM: 26, or 63 from version 8 */
	/* time */
	bool have_time, have_first;
	uint64_t t_ref;   /* newest unwrapped time: the reference for the next low word */
	uint64_t t_first; /* time of the first event: ns 0 */
	/* the running thread per CPU (from THREAD_RUNNING) */
	uint64_t run_known; /* bit per CPU */
	uint32_t run_pid[TT_QNX_MAX_CPUS], run_tid[TT_QNX_MAX_CPUS];
	/* its name, cached per CPU: valid while run_gen[cpu] == names_gen (0 = never) */
	uint32_t names_gen, run_gen[TT_QNX_MAX_CPUS];
	const char *run_name[TT_QNX_MAX_CPUS]; /* NULL or run_buf[cpu] */
	char run_buf[TT_QNX_MAX_CPUS][2 * TT_QNX_NAME_MAX + 16];
	/* kernel buffer sequence (CONTROL/BUFFER) */
	bool seq_external; /* a live ring reader reports losses from the buffer headers: the
			      CONTROL/BUFFER sequence then makes no gap or reset records */
	bool have_seq;
	uint32_t last_seq;
	uint64_t since_buffer; /* 16-byte events since the last CONTROL/BUFFER */
	uint64_t buf_events;   /* most events seen in one kernel buffer: CONTROL/BUFFER's
				  num_events, or (ring dumps, where the kernel leaves it 0) the
				  events counted between two consecutive buffers; 0 = none yet */
	/* combine reassembly and name tables */
	struct tt_qnx_combine comb[TT_QNX_COMBINE_SLOTS];
	uint64_t comb_age;
	struct tt_qnx_proc procs[TT_QNX_MAX_PROCS];
	struct tt_qnx_thread threads[TT_QNX_MAX_THREADS];
	unsigned proc_next, thread_next;
	struct tt_qnx_stats stats;
	/* scratch for the record being emitted (borrowed by the callback) */
	char subj[2 * TT_QNX_NAME_MAX + 16];
	char text[TT_QNX_COMBINE_WORDS * 4 + 1];
	uint32_t raw[2 + TT_QNX_COMBINE_WORDS];
};

/* Sets q up for a file with header h. tick_hz overrides the header's CYCLES_PER_SEC when not 0. */
void tt_qnx_init(struct tt_qnx *q, const struct tt_qnx_header *h, uint64_t tick_hz);

/* Decodes n whole 16-byte events at p (borrowed), in file order, through cb. May be called
 * repeatedly as a file grows (combine events spanning calls are reassembled). */
void tt_qnx_feed(struct tt_qnx *q, const uint8_t *p, size_t n, tt_emit_cb cb, void *arg);

/* End of input: emits combine events still being reassembled, flagged "incomplete". */
void tt_qnx_finish(struct tt_qnx *q, tt_emit_cb cb, void *arg);

/* A whole .kev file: header, syspage, every event. tick_hz as for tt_qnx_init. Allocates the
 * decoder state once before decoding. 0, or a negative errno with a message in err: -EPROTO for
 * a bad header or a trailing partial event (every whole event before it is emitted first),
 * -ENOMEM. If stats is not NULL it receives the counters. */
int tt_qnx_decode_file(const uint8_t *img, size_t len, uint64_t tick_hz, tt_emit_cb cb,
		       void *arg, struct tt_qnx_stats *stats, char *err, size_t errlen);

/* Internal: fills ev's name and args for a decoded event (qnx_events.c). */
struct tt_qnx_ev {
	uint32_t header;
	uint8_t cls, cpu;
	uint16_t event;
	const uint32_t *w; /* payload words, host order */
	unsigned nw;
	const uint8_t *bytes; /* the same payload as file bytes (for strings) */
	bool incomplete, truncated, combine;
};
void tt_qnx_describe(struct tt_qnx *q, const struct tt_qnx_ev *e, struct tt_event *ev);
/* "proc/tid" style name of a thread, written to buf; NULL when neither name is known. */
const char *tt_qnx_thread_name(const struct tt_qnx *q, uint32_t pid, uint32_t tid, char *buf,
			       size_t cap);
/* The thread states of THREAD_<STATE> events, lower case ("dead", "running", ...), by number. */
#define TT_QNX_NSTATES 21u
extern const char *const tt_qnx_state_names[TT_QNX_NSTATES];

/* The 32-bit thread key of (pid, tid): (pid & 0xffff) << 16 | (tid & 0xffff). */
static inline uint32_t tt_qnx_thread_key(uint32_t pid, uint32_t tid)
{
	return (pid & 0xffffu) << 16 | (tid & 0xffffu);
}

/* ---- live: the kernel's ring of trace buffers in target memory ---- */

/* The kernel's ring of trace buffers (QNX 6.4's sys/trace.h `tracebuf_t`, kept by later
 * releases): buffers of buf_size bytes linked in a ring through `next`, each a header
 * { baseaddr, next, flags, num_events, seq_buff_num, ls13_rb_num, spin, begin_ptr, tail_ptr,
 * reserved[31] } (pointers of the target's size) then 16-byte event slots. README-qnx.md. */
struct tt_qnx_layout {
	uint32_t nbufs;       /* 0 (default): as many as the `next` links give (at most
				 TT_QNX_RING_MAX_BUFS); N: the links must give N */
	uint32_t buf_size;    /* default 16384 (_TRACEBUFSIZE) */
	uint32_t ptr_size;    /* the target's pointer size, 4 (default) or 8 */
	uint32_t header_size; /* 0 (default): sizeof(struct traceheader): 160, or 184 with
				 8-byte pointers */
	uint32_t hand_on;     /* 0 (default): the slots less the 300 the kernel keeps empty
				 (_TRACEBUFEMPTY): 714 events, 712 with 8-byte pointers */
	bool big_endian;      /* default little */
	uint32_t ver_major;   /* QNX major version for names (6, 7, 8); default 7 */
};
#define TT_QNX_RING_MAX_BUFS 1024u
#define TT_QNX_BUFEMPTY 300u             /* _TRACEBUFEMPTY */
#define TT_QNX_FLAG_RING 0x00010000u     /* _TRACE_FLAGS_RING: ring mode */
#define TT_QNX_FLAG_WRITING 0x00020000u  /* _TRACE_FLAGS_WRITING: tracelogger writes it out */
#define TT_QNX_FLAG_FLUSH 0x00040000u    /* _TRACE_FLAGS_FLUSH: handed to tracelogger */

/* Where each header field is for a layout (what the reader and the tests' writer share). */
struct tt_qnx_geom {
	uint32_t off_base, off_next, off_flags, off_num, off_seq, off_ls13, off_begin, off_tail;
	uint32_t header_size, slots, hand_on, ptr_size;
	uint32_t read_size; /* header bytes the reader reads of a buffer: up to begin_ptr's end */
};
void tt_qnx_layout_geom(const struct tt_qnx_layout *lo, struct tt_qnx_geom *g);

void tt_qnx_layout_default(struct tt_qnx_layout *lo);
/* One `--format-opt KEY=VALUE` (keys in TT_QNX_LAYOUT_HELP): 0 or -EINVAL with a message. */
int tt_qnx_layout_set(void *lo, const char *key, const char *value, char *err, size_t errlen);
/* 0, or -EINVAL with a static message in *why: the layout as a whole is impossible. */
int tt_qnx_layout_check(const struct tt_qnx_layout *lo, const char **why);
#define TT_QNX_LAYOUT_HELP \
	"  qnx:   pointer=32|64 (32), buf_size=N (16384), header_size=N (160; 184 with 64-bit\n" \
	"         pointers), hand_on=N (slots - 300: 714), nbufs=N (from the next links),\n" \
	"         endian=little|big, version=6|7|8 (7); live ring at --address (its first buffer)\n"

struct tt_qnx_ring; /* opaque */

/* A reader of the ring whose first buffer is at addr. 0, -EINVAL (layout: *why) or -ENOMEM. */
int tt_qnx_ring_new(const struct tt_qnx_layout *lo, uint64_t addr, bool start_at_now,
		    uint64_t tick_hz, struct tt_qnx_ring **out, const char **why);
void tt_qnx_ring_free(struct tt_qnx_ring *r);
void tt_qnx_ring_plan(struct tt_qnx_ring *r, struct tt_plan *plan);
/* 0 = the poll cycle is over, 1 = plan again now, -EPROTO (tt_qnx_ring_error says what). */
int tt_qnx_ring_ingest(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg);
/* End of input (an image): combine events still open, flagged incomplete. */
void tt_qnx_ring_finish(struct tt_qnx_ring *r, tt_emit_cb cb, void *arg);
void tt_qnx_ring_read_failed(struct tt_qnx_ring *r, int err);
const char *tt_qnx_ring_error(const struct tt_qnx_ring *r);
struct tt_reader_stats;
void tt_qnx_ring_stats(const struct tt_qnx_ring *r, struct tt_reader_stats *out);

/* One line of QNX's `traceprinter -n` (its 6.4 release, 1.02) for an event record of this
 * decoder: ev's raw words, the file's byte order (for message bytes and names) and the OS major
 * release (6.4's kernel-call argument lists apply up to 6; 0: unknown). No line end. Length, or
 * -1 when cap is too small or ev is not a QNX event. Where traceprinter 1.02 itself is wrong,
 * and what it has no form for, README-qnx.md says what is printed instead. */
int tt_qnx_traceprinter_line(char *buf, size_t cap, const struct tt_event *ev, bool big_endian,
			     uint32_t os_major);

/* reader.h's native_line and native_header for QNX: traceprinter's event line
 * (tt_qnx_traceprinter_line with the context's byte order and release), and the lines it
 * prints before the events of a .kev file (the header's TRACE_<KEY>:: value items, keys
 * right-aligned, between its two banner lines). */
struct tt_native_ctx;
int tt_qnx_tp_line(char *buf, size_t cap, const struct tt_event *ev,
		   const struct tt_native_ctx *ctx);
int tt_qnx_tp_header(const uint8_t *buf, size_t len, struct tt_native_ctx *ctx,
		     void (*cb)(void *arg, const char *line, size_t len), void *arg);

/* This format's reader (proto/reader.h). */
struct tt_reader_ops;
extern const struct tt_reader_ops tt_qnx_reader;

/* A .kev file followed while it is written: a live reader over a file source that answers
 * plan.h's TT_PLAN_FILE_STAT. path (borrowed for the reader's life) is for messages; tick_hz
 * overrides TRACE_CYCLES_PER_SEC (0: keep). ingest gives -EAGAIN while there is no file or no
 * whole header, -EPROTO for a malformed file (retried at the next cycle). */
struct tt_qnx_kev;
int tt_qnx_kev_new(const char *path, uint64_t tick_hz, struct tt_qnx_kev **out);
void tt_qnx_kev_free(struct tt_qnx_kev *k);
void tt_qnx_kev_plan(struct tt_qnx_kev *k, struct tt_plan *p);
int tt_qnx_kev_ingest(struct tt_qnx_kev *k, tt_emit_cb cb, void *arg);
void tt_qnx_kev_read_failed(struct tt_qnx_kev *k, int err);
const char *tt_qnx_kev_error(const struct tt_qnx_kev *k);
/* The header's bytes when the last ingest accepted a new header (then NULL until the next
 * one); valid until the next plan. */
const uint8_t *tt_qnx_kev_new_header(struct tt_qnx_kev *k, size_t *len);
/* Emits the combine events still held (flagged incomplete). */
void tt_qnx_kev_finish(struct tt_qnx_kev *k, tt_emit_cb cb, void *arg);
struct tt_reader_stats;
void tt_qnx_kev_stats(const struct tt_qnx_kev *k, struct tt_reader_stats *out);

/* What the live analysis needs of QNX kernel events (analysis_ops.h; qnx_analysis.c). */
struct tt_analysis_ops;
extern const struct tt_analysis_ops tt_qnx_analysis;

#endif
