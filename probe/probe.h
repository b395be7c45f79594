/* probe/probe.h: how bytes are read from target memory.
 *
 * One asynchronous interface over several backends, chosen by a spec string:
 *   file:PATH             a memory image / TraceX file (raw, Intel HEX, S-record), re-read on
 *                         every poll so a file rewritten by another program is followed
 *   process:PID           a live Linux process (process_vm_readv), 32-bit addresses
 *   openocd:HOST:PORT     TCL RPC to a running OpenOCD
 *   openocd-spawn         OpenOCD started and owned by the daemon (tcl_port pipe), with the
 *                         user's -f/-c arguments from struct tt_probe_options
 *
 * Contracts (libuv style): functions return 0 or a negative errno; a function that fails never
 * calls its callback; a callback fires exactly once and never inside the call that started it;
 * one read at a time per probe (a second read while one is pending returns -EBUSY).
 * tt_probe_close is asynchronous: the probe memory is freed after close_cb returns; a pending
 * read completes with -ECANCELED before close_cb.
 */
#ifndef TT_PROBE_H
#define TT_PROBE_H

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
 * -ETIMEDOUT, -EPROTO: garbage from the other side, -ECANCELED: probe closing).
 * tt_probe_error(p) has the precise message. */
typedef void (*tt_probe_read_cb)(struct tt_probe *p, int status, void *arg);
typedef void (*tt_probe_write_cb)(struct tt_probe *p, int status, void *arg);
typedef void (*tt_probe_close_cb)(struct tt_probe *p, void *arg);
/* Link state changes (connected, lost, reconnecting). msg is borrowed for the call. */
typedef void (*tt_probe_state_cb)(struct tt_probe *p, enum tt_probe_state st, const char *msg,
				  void *arg);

struct tt_probe_options {
	/* openocd-spawn: argv passed to openocd after the program name (e.g. "-f", "x.cfg", "-c",
	 * "..."); NULL-terminated, borrowed until tt_probe_new returns (copied). */
	const char *const *openocd_args;
	const char *openocd_bin;   /* default "openocd" */
	const char *openocd_log;   /* file for OpenOCD's log; NULL = discard (or daemon log) */
	uint32_t max_chunk;        /* largest single read command in bytes; 0 = 4096 */
	uint64_t file_base;        /* file: target address of the first byte of a raw image */
	tt_probe_state_cb state_cb;
	void *state_arg;
};

struct tt_probe_ops {
	const char *name;
	int (*open)(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt);
	int (*read)(struct tt_probe *p, const struct tt_plan *plan);
	int (*write)(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len);
	void (*close)(struct tt_probe *p);
};

/* Common part of every probe; backends embed it first and set priv. Owned by probe/. */
struct tt_probe {
	const struct tt_probe_ops *ops;
	uv_loop_t *loop;
	void *priv;
	char err[256];
	tt_probe_read_cb read_cb;
	tt_probe_write_cb write_cb;
	void *cb_arg;
	tt_probe_close_cb close_cb;
	void *close_arg;
	tt_probe_state_cb state_cb;
	void *state_arg;
	enum tt_probe_state state;
	int busy;
	uint64_t bytes_read;   /* monotonic: target bytes read successfully */
	uint64_t reads;        /* monotonic: completed read requests */
	uint64_t read_errors;
};

/* Creates and opens a probe from a spec string. On error returns -errno and writes a message
 * naming the spec and what to do into err (errlen bytes). *out: close with tt_probe_close. */
int tt_probe_new(uv_loop_t *loop, const char *spec, const struct tt_probe_options *opt,
		 struct tt_probe **out, char *err, size_t errlen);

/* Reads every range of plan into its dst. plan is copied; the dst buffers must stay valid until
 * cb. */
int tt_probe_read(struct tt_probe *p, const struct tt_plan *plan, tt_probe_read_cb cb, void *arg);

/* Writes target memory (tests and tools only: the daemon never writes). -ENOTSUP where the
 * backend cannot. */
int tt_probe_write(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len,
		   tt_probe_write_cb cb, void *arg);

void tt_probe_close(struct tt_probe *p, tt_probe_close_cb cb, void *arg);

/* Message of the last failure (borrowed, "" when none). */
const char *tt_probe_error(const struct tt_probe *p);

/* For backends: complete the pending read/write (deferred by the backend so it never runs
 * inside the call), set the error text printf-style, report a state change. */
void tt_probe__read_done(struct tt_probe *p, int status);
void tt_probe__write_done(struct tt_probe *p, int status);
void tt_probe__seterr(struct tt_probe *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tt_probe__set_state(struct tt_probe *p, enum tt_probe_state st, const char *msg);
void tt_probe__close_done(struct tt_probe *p);

/* ELF helper (libelf): value of a global symbol, e.g. "_tx_trace_header_ptr". 0 or -errno with
 * a message naming the file and the symbol in err. */
int tt_elf_symbol(const char *path, const char *sym, uint64_t *value, char *err, size_t errlen);

#endif
