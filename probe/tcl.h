/* probe/tcl.h: OpenOCD TCL RPC framing, formatting and strict reply parsing (internal to
 * probe/; pure code, no I/O). Every command is wrapped so that its reply carries a sequence
 * number and a Tcl return code; notifications come on the same stream.
 */
#ifndef TT_TCL_H
#define TT_TCL_H

#include <stddef.h>
#include <stdint.h>

#include "../proto/plan.h"

#define TT_TCL_TERM '\x1a'

enum tt_tcl_kind { TT_TCL_REPLY, TT_TCL_NOTIFY };

struct tt_tcl_msg {
	enum tt_tcl_kind kind;
	unsigned seq;      /* replies */
	int code;          /* replies: Tcl return code (0 = ok) */
	const char *body;  /* borrowed from the frame: result/message, or the notification text */
	size_t blen;
};

/* Classifies one frame (without its terminator). 0 or -EPROTO. */
int tt_tcl_parse_msg(const char *s, size_t n, struct tt_tcl_msg *m);

/* Parses the result of "read_memory ADDR WIDTH COUNT": exactly count hex numbers ("0x" + 1 to
 * width/4 digits, separated by blanks) stored little-endian into dst (count * width/8 bytes).
 * 0 or -EPROTO with the offending text quoted in err. */
int tt_tcl_parse_words(const char *s, size_t n, unsigned width, uint32_t count, uint8_t *dst,
		       char *err, size_t errlen);

/* Formats a wrapped command with its terminator. Returns the length, or -ENOSPC; an out of
 * strlen(cmd) + TT_TCL_WRAP_MAX bytes always holds it. */
#define TT_TCL_WRAP_MAX 96
int tt_tcl_format(char *out, size_t outlen, unsigned seq, const char *cmd);
/* "VERB 0xADDR WIDTH {0x.. ...}" (VERB: write_memory or TT_TCL_WRITE_MD) for len bytes of data
 * (little-endian words). Returns the length or -ENOSPC. */
int tt_tcl_format_write(char *out, size_t outlen, const char *verb, uint64_t addr,
			unsigned width, const uint8_t *data, uint32_t len);

/* For OpenOCD before 0.12 (no read_memory/write_memory): tt_tcl_md_procs defines two procs
 * with the same arguments and result format; a read that returns fewer values than asked is an
 * error. */
#define TT_TCL_READ_MD "tt_read_memory"
#define TT_TCL_WRITE_MD "tt_write_memory"
extern const char tt_tcl_md_procs[];
/* A TT_RANGE_TO_PTR range in a command: tt_tcl_ring_proc defines TT_TCL_RING (sent once per
 * link, before its first use), which takes the pointer's value as read and reads what the range
 * says (plan.h) with VERB (read_memory or TT_TCL_READ_MD), in the reads tt_tcl_next_op gives
 * for each piece of the ring; its result is theirs joined by '|' ("" when it reads nothing).
 * tt_tcl_format_ring writes "[tt_ring VERB PTR ...]" (ptr: a Tcl word giving the pointer's
 * value) into out: its length, or -ENOSPC. */
#define TT_TCL_RING "tt_ring"
extern const char tt_tcl_ring_proc[];
int tt_tcl_format_ring(char *out, size_t outlen, const char *verb, const char *ptr,
		       const struct tt_range *r, uint32_t max_chunk);

/* OpenOCD polls the target (Cortex-M: a read of DHCSR, one more USB round trip on a
 * CMSIS-DAP probe) before every command of its own that a script runs, read_memory included:
 * a command of reads goes between TT_TCL_POLL_OFF and TT_TCL_POLL_ON (the reads' result, or
 * their error, as if alone), so the target is polled once per command, by `poll off`, when
 * OpenOCD polls at all. TT_TCL_POLL_WRAP: the bytes both add. tt_tcl_polling_on: whether the
 * result of `poll` says background polling is on. */
#define TT_TCL_POLL_OFF "poll off\nset tt_rc [catch {"
#define TT_TCL_POLL_ON "} tt_res]\npoll on\nif {$tt_rc} {error $tt_res}\nset tt_res"
#define TT_TCL_POLL_WRAP 96
int tt_tcl_polling_on(const char *s, size_t n);

/* The '|'-separated results of a command of several reads, taken one by one. */
struct tt_tcl_segs {
	const char *s, *e;
	int done; /* the last one was taken */
};
void tt_tcl_segs_init(struct tt_tcl_segs *g, const char *body, size_t n);
/* The next result: 0, or -EPROTO when there is none left. */
int tt_tcl_segs_next(struct tt_tcl_segs *g, const char **seg, size_t *n);
/* Parses the results of a TT_RANGE_TO_PTR range r from g into r->dst, ptr being its pointer's
 * 4 bytes as read: as many results, of the widths and counts, as the reads tt_tcl_ring_proc
 * makes for tt_range_ptr_span(r, ptr) bytes (one empty result for none). 0 or -EPROTO with
 * the reason in err. Untrusted input: a result count, width or count off by one is refused. */
int tt_tcl_parse_ring(struct tt_tcl_segs *g, const struct tt_range *r, const uint8_t *ptr,
		      uint32_t max_chunk, char *err, size_t errlen);

/* Bytes a reply to a read of len bytes may take, error messages included. */
size_t tt_tcl_reply_max(uint32_t max_chunk);

/* Byte-stream framer: accumulates input and hands out complete frames. */
struct tt_tcl_rx {
	char *buf;
	size_t len, cap, max;
};
/* Calls fn for every complete frame in data (after what was buffered). fn returns 0 to go on or
 * < 0 to stop at once (rx is not touched again: it may have been reset). Returns 0, fn's
 * status, -ENOMEM, or -EPROTO when more than rx->max bytes arrive without a terminator. */
typedef int (*tt_tcl_frame_fn)(void *arg, const char *frame, size_t n);
int tt_tcl_rx_push(struct tt_tcl_rx *rx, const char *data, size_t n, tt_tcl_frame_fn fn,
		   void *arg);
void tt_tcl_rx_reset(struct tt_tcl_rx *rx);
void tt_tcl_rx_free(struct tt_tcl_rx *rx);

/* Read planning. Ranges of a plan are merged into runs of consecutive ranges that continue each
 * other upwards (r[i+1].addr == end of r[i]); overlapping ranges are not merged, because a later
 * range that overlaps an earlier one is a re-check and must be read after it. Returns the index
 * one past the run starting at first. */
unsigned tt_tcl_run_end(const struct tt_plan *plan, unsigned first);
/* Next command for [pos, end): width 8 up to a 4-byte boundary or for a tail under 4 bytes,
 * otherwise width 32 for at most max_chunk bytes (rounded down to whole words). */
void tt_tcl_next_op(uint64_t pos, uint64_t end, uint32_t max_chunk, uint32_t *len,
		    unsigned *width);
/* Copies src (target bytes [addr, addr+len)) into the plan ranges [first, end) it overlaps. */
void tt_tcl_scatter(const struct tt_plan *plan, unsigned first, unsigned end, uint64_t addr,
		    const uint8_t *src, uint32_t len);

#endif
