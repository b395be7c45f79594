/* probe/probe.h: how bytes are read from target memory.
 *
 * One asynchronous interface over several backends, chosen by a spec string:
 *   file:PATH             a memory image (raw binary at opt->file_base, Intel HEX, Motorola
 *                         S-record; detected by content), re-read on every read so a file
 *                         rewritten by another program is followed
 *   process:PID           a live Linux process (process_vm_readv), its own (64-bit) addresses
 *   openocd:HOST:PORT     TCL RPC to a running OpenOCD (reconnects with backoff)
 *   openocd-spawn         OpenOCD started and owned by the probe (tcl_port pipe), with the
 *                         user's -f/-c arguments from struct tt_probe_options (restarted with
 *                         backoff if it dies)
 *
 * Contracts (libuv style): functions return 0 or a negative errno; a function that fails never
 * calls its callback; a callback fires exactly once and never inside the call that started it.
 * One request at a time per probe: a read or write while another read or write is pending
 * returns -EBUSY. A read started while the link is down is accepted and completes with
 * -ENOTCONN (so a poller handles link errors in one place, its callback); while the link is
 * still being set up (TT_PROBE_CONNECTING) a request waits for it.
 * tt_probe_close is asynchronous: a pending read/write completes with -ECANCELED, then close_cb
 * runs, then the probe memory is freed. No request may be started after tt_probe_close.
 * Every function runs on the loop thread. The process must ignore SIGPIPE (a spawned OpenOCD
 * that exits must be an error code, not the end of the program).
 */
#ifndef TT_PROBE_H
#define TT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "../proto/plan.h"

struct tt_probe;

enum tt_probe_state {
	TT_PROBE_CONNECTING = 0,
	TT_PROBE_CONNECTED,
	TT_PROBE_DISCONNECTED, /* will retry with backoff; reads fail with -ENOTCONN meanwhile */
};

/* Completion of tt_probe_read: status 0 = every range filled; < 0 = nothing may be used
 * (-EFAULT: an address could not be read (bus fault / outside the image), -ENOTCONN: no link,
 * -ETIMEDOUT: no answer in time, -EPROTO: garbage from the other side, -EPERM: not allowed
 * (process:), -ECANCELED: probe closing). tt_probe_error(p) has the precise message. */
typedef void (*tt_probe_read_cb)(struct tt_probe *p, int status, void *arg);
typedef void (*tt_probe_write_cb)(struct tt_probe *p, int status, void *arg);
typedef void (*tt_probe_close_cb)(struct tt_probe *p, void *arg);
/* Link state changes; also called with an unchanged state for what OpenOCD saw the target do
 * (msg starts with "target_"). msg is borrowed for the call. Never called inside a tt_probe_*
 * call, nor after tt_probe_close. */
typedef void (*tt_probe_state_cb)(struct tt_probe *p, enum tt_probe_state st, const char *msg,
				  void *arg);

struct tt_probe_options {
	/* openocd-spawn: argv after the program name ("-f", "x.cfg", ...), NULL-terminated,
	 * copied. The probe appends its own port settings, so these must not run `init`. Target
	 * words are taken as little-endian. */
	const char *const *openocd_args;
	const char *openocd_bin;   /* default "openocd" */
	const char *openocd_log;   /* file OpenOCD's stderr is appended to; NULL = drained */
	uint32_t max_chunk;        /* most bytes one command reads (openocd: the reads of a
				    * plan go out together up to this); 0 = 4096 */
	uint32_t timeout_ms;       /* openocd: longest wait for one command's reply; 0 = 5000 */
	uint64_t file_base;        /* file: target address of the first byte of a raw image */
	tt_probe_state_cb state_cb;
	void *state_arg;
};

/* Backend vtable, registered by name in probe.c. */
struct tt_probe_ops {
	const char *name;          /* spec prefix before ':' (or the whole spec) */
	/* read resolves TT_RANGE_TO_PTR ranges itself (p->plan is the caller's plan); false:
	 * probe.c hands read the plan in segments of fixed ranges, each TO_PTR range resolved
	 * once the segments before it are read */
	bool ptr_ranges;
	size_t size;               /* bytes of the backend struct, which embeds struct tt_probe first */
	/* arg: the spec after "name:" ("" when none). On error: -errno, message in p->err, nothing
	 * left to close. */
	int (*open)(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt);
	/* p->plan holds the validated copy. Completes with tt_probe__read_done. */
	int (*read)(struct tt_probe *p);
	/* NULL = -ENOTSUP. Completes with tt_probe__write_done. */
	int (*write)(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len);
	/* Stop all I/O; call tt_probe__close_done once every backend handle is closed. Must not
	 * complete the pending request (probe.c cancels it). */
	void (*close)(struct tt_probe *p);
	/* NULL = -ENOTSUP. Drop the link and build it again (see tt_probe_relink). */
	void (*relink)(struct tt_probe *p, const char *why);
	/* NULL = -ENOTSUP. Halt the core (see tt_probe_halt). Completes with tt_probe__write_done. */
	int (*halt)(struct tt_probe *p);
};

#define TT_PROBE_DEFER_STATES 8

/* Common part of every probe; backends embed it first. Owned by probe/: fields are read-only
 * for users except through the functions below. */
struct tt_probe {
	const struct tt_probe_ops *ops;
	uv_loop_t *loop;
	char err[256];
	tt_probe_read_cb read_cb;
	tt_probe_write_cb write_cb;
	void *cb_arg;
	tt_probe_close_cb close_cb;
	void *close_arg;
	tt_probe_state_cb state_cb;
	void *state_arg;
	enum tt_probe_state state;
	int busy;              /* a read or write is pending */
	uint64_t bytes_read;   /* monotonic: target bytes read successfully */
	uint64_t reads;        /* monotonic: completed read requests */
	uint64_t read_errors;
	/* internal (probe.c) */
	struct tt_plan plan;   /* what the backend reads: the pending read's plan, or (no
				* ptr_ranges) its segment being read */
	struct tt_plan whole;  /* copy of the pending read's plan */
	unsigned seg;          /* no ptr_ranges: the first range of whole not yet read */
	uv_timer_t defer;      /* delivers every user callback from the loop */
	int defer_ready, closing;
	int done_pending, done_status; /* completion waiting for the defer timer */
	unsigned done_at;      /* ... delivered after states[0..done_at) */
	unsigned nstates;
	struct tt_probe_state_msg {
		enum tt_probe_state st;
		char msg[256]; /* as long as err: the same message is the same text */
	} states[TT_PROBE_DEFER_STATES];
};

/* Creates and opens a probe from a spec string. On error returns -errno and writes a message
 * naming the spec and what to do into err (errlen bytes); nothing to close. *out: close with
 * tt_probe_close. opt may be NULL (defaults). */
int tt_probe_new(uv_loop_t *loop, const char *spec, const struct tt_probe_options *opt,
		 struct tt_probe **out, char *err, size_t errlen);

/* Whether spec names a known backend (nothing is opened): 0, or -EINVAL with the message. */
int tt_probe_spec_check(const char *spec, char *err, size_t errlen);

/* Reads every range of plan into its dst, ranges in plan order, a TT_RANGE_TO_PTR range
 * (plan.h) from the pointer its earlier range read. plan is copied; the dst buffers must stay
 * valid until cb. -EINVAL: empty/oversized plan, a range of length 0, no dst, wrapping past
 * 2^64, or a TO_PTR range not tt_range_ptr_valid. */
int tt_probe_read(struct tt_probe *p, const struct tt_plan *plan, tt_probe_read_cb cb, void *arg);

/* Writes target memory (tests and tools only: the daemon never writes). data must stay valid
 * until cb. -ENOTSUP where the backend cannot. */
int tt_probe_write(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len,
		   tt_probe_write_cb cb, void *arg);

/* Halts the target's core (openocd: OpenOCD's `halt`; the core's state then comes as a state
 * message like any halt). Like a write: one request at a time (-EBUSY while one is pending), cb
 * once with 0 or -errno (message in tt_probe_error). -ENOTSUP where the backend has no core to
 * halt (file, process). */
int tt_probe_halt(struct tt_probe *p, tt_probe_write_cb cb, void *arg);
/* Whether the backend can halt a core (tt_probe_halt is not -ENOTSUP for it). */
int tt_probe_can_halt(const struct tt_probe *p);

/* Drops the link and builds it again, with the state callback told why (openocd-spawn: a new
 * OpenOCD, which brings back an adapter whose connection died). Only between requests: -EBUSY
 * while one is pending; -ENOTSUP where the backend has no link of its own to rebuild (file,
 * process, an OpenOCD it does not own). */
int tt_probe_relink(struct tt_probe *p, const char *why);

/* cb may be NULL. */
void tt_probe_close(struct tt_probe *p, tt_probe_close_cb cb, void *arg);

/* Message of the last failure (borrowed, "" when none). */
const char *tt_probe_error(const struct tt_probe *p);
enum tt_probe_state tt_probe_state(const struct tt_probe *p);
const char *tt_probe_state_name(enum tt_probe_state st);

/* For backends: may be called anywhere, inside a call included (probe.c defers delivery to the
 * loop, and drops completions after tt_probe_close). */
void tt_probe__read_done(struct tt_probe *p, int status);
void tt_probe__write_done(struct tt_probe *p, int status);
void tt_probe__seterr(struct tt_probe *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tt_probe__set_state(struct tt_probe *p, enum tt_probe_state st, const char *msg);
void tt_probe__close_done(struct tt_probe *p);
/* Quotes untrusted text for an error message: printable ASCII kept, others as \xNN, cut at
 * max characters with "..." appended. Returns out. */
char *tt_probe__quote(char *out, size_t outlen, const char *s, size_t n, size_t max);

#endif
