/* probe/openocd_int.h: what probe/openocd.c (the RPC, the TCP backend) and
 * probe/openocd_spawn.c (the spawned OpenOCD) share. Not an interface outside probe/. */
#ifndef TT_OPENOCD_INT_H
#define TT_OPENOCD_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "probe_int.h"
#include "tcl.h"

enum ocd_link { LINK_IDLE, LINK_STARTING, LINK_UP, LINK_DOWN };
enum ocd_req { REQ_NONE, REQ_READ, REQ_WRITE, REQ_HALT };
/* Link-up sequence: notifications on, then whether read_memory exists, then (only without it)
 * the mdw-based procs that stand in for it, then whether OpenOCD polls the target in the
 * background (`poll`), then the core's state (notifications only report changes: a core
 * already halted when we attach would otherwise look running). */
enum ocd_init { INIT_DONE, INIT_NOTIFY, INIT_PROBE, INIT_MD_PROCS, INIT_POLL, INIT_STATE };

struct ocd_child; /* the spawned OpenOCD (openocd_spawn.c) */

/* A poll's reads go out as one command (one round trip) of up to OCD_BATCH_MAX read_memory
 * calls holding together at most max_chunk bytes (so a reply stays within tt_tcl_reply_max). */
#define OCD_BATCH_MAX 32
struct ocd_op {
	uint64_t addr;
	uint32_t len, off;        /* off: where its bytes start in scratch */
	unsigned width;
	unsigned run_first, run_end; /* the plan ranges it is scattered into */
	int ring;                 /* the TT_RANGE_TO_PTR range run_first, read by TT_TCL_RING */
};

struct ocd {
	struct tt_probe base;
	struct ocd_child *child;  /* openocd-spawn's OpenOCD; NULL for TCP */
	char name[160];           /* "openocd HOST:PORT" or "openocd-spawn" */
	char *host, *port;        /* TCP */
	uint32_t max_chunk, timeout_ms;
	uv_timer_t retry, timeout, grace; /* grace: openocd_spawn.c's, to stop the child */
	int ntimers, nlink;       /* open timer handles; link resources outstanding */
	enum ocd_link link;
	unsigned backoff_ms;
	char last_msg[256];       /* last state message reported */

	uv_getaddrinfo_t gai;
	uv_connect_t conn;
	uv_tcp_t tcp;

	uv_stream_t *wr;
	struct tt_tcl_rx rx;
	unsigned seq, want;       /* want: tag of the awaited reply, 0 = none */
	enum ocd_init init_pending; /* the link-up command whose reply is awaited */
	int md_fallback;          /* no read_memory (OpenOCD < 0.12): TT_TCL_READ_MD/WRITE_MD */
	int ring_defined;         /* this link's OpenOCD has TT_TCL_RING */
	int poll_wrap;            /* OpenOCD polls in the background: a command of reads turns it
				   * off while they run (TT_TCL_POLL_OFF) */
	int ring_sent;            /* the command in flight defines it */

	enum ocd_req req;
	unsigned run_first, run_end;
	uint64_t pos, end;        /* read: the current run; write: the whole write */
	uint64_t op_addr;         /* write: the current command */
	uint32_t op_len;
	unsigned op_width;
	struct ocd_op ops[OCD_BATCH_MAX]; /* read: the commands of the batch in flight */
	unsigned nops;
	unsigned b_run_first, b_run_end; /* where the batch in flight starts in the plan */
	uint64_t b_pos, b_end;
	int one_by_one;           /* a batch failed: its reads again one per command, to name the
				   * range that fails */
	const uint8_t *wdata;
	uint64_t waddr;
	uint8_t *scratch;         /* max_chunk bytes: one command's data */
	char *cmd;                /* formatted write_memory command or batch of reads */
	size_t cmdcap;
	char rdbuf[65536];
};

/* openocd.c */
/* Drops the link: the pending request fails, the state goes DISCONNECTED with the message, and
 * a reconnect (or respawn) follows the teardown. */
void ocd_fail(struct ocd *o, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ocd_close_link_handle(struct ocd *o, uv_handle_t *h);
void ocd_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b);
void ocd_read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b);
void ocd_begin_rpc(struct ocd *o, uv_stream_t *s); /* s: where commands are written */
int ocd_alloc_buffers(struct ocd *o, const struct tt_probe_options *opt);
void ocd_init(struct ocd *o, const struct tt_probe_options *opt);
void ocd_link_start(struct ocd *o);
int ocd_read(struct tt_probe *p);
/* Sends one command, tagged; its reply is awaited with the command timeout. */
void ocd_send(struct ocd *o, const char *cmd);
/* Completes the pending request with status. */
void ocd_finish(struct ocd *o, int status);
/* The next command of the pending request, or its completion. */
void ocd_next_op(struct ocd *o);

/* openocd_read.c */
/* Sends the next reads of the pending read as one command (its completion when none is left). */
void ocd_send_reads(struct ocd *o);
/* The reply to the reads ocd_send_reads sent: scattered into the plan, then the next command.
 * Returns < 0 when the link was dropped (a reply that does not parse). */
int ocd_batch_reply(struct ocd *o, const struct tt_tcl_msg *m);
int ocd_write(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len);
int ocd_halt(struct tt_probe *p);
void ocd_close(struct tt_probe *p);

/* openocd_spawn.c: the child, for a probe with o->child */
void ocd_spawn_start(struct ocd *o);
void ocd_spawn_stop(struct ocd *o);
/* Its stdout (the RPC) ended. */
void ocd_spawn_out_eof(struct ocd *o);
int ocd_spawn_pid(const struct ocd *o);
/* Frees the child's argv and log file (the probe's last timer closed). */
void ocd_spawn_free(struct ocd *o);

#endif
