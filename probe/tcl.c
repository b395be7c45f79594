/* probe/tcl.c: OpenOCD TCL RPC framing and strict reply parsing (see tcl.h). Every byte here
 * comes from another program and is treated as untrusted.
 *
 * Every command goes out as
 *     format "@SEQ %d %s" [catch {CMD} tt_r] $tt_r <0x1a>
 * because OpenOCD's RPC has no error flag: the reply "@SEQ CODE RESULT" <0x1a> tells an error
 * (CODE != 0, RESULT = message) from a result, and SEQ ties it to its command. Notifications
 * ("type target_event ..." <0x1a>, after tcl_notifications on) come on the same stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexdigit.h"
#include "probe.h"
#include "tcl.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int parse_uint(const char *s, size_t n, size_t *i, unsigned long *v)
{
	size_t st = *i;

	*v = 0;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9' && *i - st < 9)
		*v = *v * 10 + (unsigned long)(s[(*i)++] - '0');
	return *i > st;
}

int tt_tcl_parse_msg(const char *s, size_t n, struct tt_tcl_msg *m)
{
	unsigned long seq, code;
	size_t i = 1;
	int neg = 0;

	if (n >= 5 && memcmp(s, "type ", 5) == 0) {
		*m = (struct tt_tcl_msg){ .kind = TT_TCL_NOTIFY, .body = s + 5, .blen = n - 5 };
		return 0;
	}
	if (n < 4 || s[0] != '@' || !parse_uint(s, n, &i, &seq) || i >= n || s[i++] != ' ')
		return -EPROTO;
	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (!parse_uint(s, n, &i, &code) || i >= n || s[i++] != ' ')
		return -EPROTO;
	*m = (struct tt_tcl_msg){ .kind = TT_TCL_REPLY, .seq = (unsigned)seq,
				  .code = neg ? -(int)code : (int)code, .body = s + i,
				  .blen = n - i };
	return 0;
}

int tt_tcl_parse_words(const char *s, size_t n, unsigned width, uint32_t count, uint8_t *dst,
		       char *err, size_t errlen)
{
	unsigned bytes = width / 8, maxdig = width / 4;
	char q[64];
	size_t i = 0;
	uint32_t k = 0;

	while (i < n) {
		size_t st, nd;
		uint32_t v = 0;

		while (i < n && is_blank(s[i]))
			i++;
		if (i == n)
			break;
		st = i;
		while (i < n && !is_blank(s[i]))
			i++;
		nd = i - st - 2;
		if (i - st < 3 || s[st] != '0' || (s[st + 1] != 'x' && s[st + 1] != 'X') ||
		    nd > maxdig) {
			snprintf(err, errlen, "word %" PRIu32 " is not a %u-bit hex number: \"%s\"",
				 k, width, tt_probe__quote(q, sizeof(q), s + st, i - st, 40));
			return -EPROTO;
		}
		for (size_t d = st + 2; d < i; d++) {
			int h = tt_hexdigit(s[d]);
			if (h < 0) {
				snprintf(err, errlen, "word %" PRIu32 " is not hex: \"%s\"", k,
					 tt_probe__quote(q, sizeof(q), s + st, i - st, 40));
				return -EPROTO;
			}
			v = v << 4 | (uint32_t)h;
		}
		if (k == count) {
			snprintf(err, errlen, "more than the %" PRIu32 " words asked for: \"%s\"",
				 count, tt_probe__quote(q, sizeof(q), s + st, n - st, 40));
			return -EPROTO;
		}
		for (unsigned b = 0; b < bytes; b++)
			dst[(size_t)k * bytes + b] = (uint8_t)(v >> (8 * b));
		k++;
	}
	if (k != count) {
		snprintf(err, errlen, "%" PRIu32 " words where %" PRIu32 " were asked for: \"%s\"",
			 k, count, tt_probe__quote(q, sizeof(q), s, n, 40));
		return -EPROTO;
	}
	return 0;
}

/* OpenOCD's command_run_line writes a command's result to its log (LOG_USER) when the Tcl
 * return code is 0, and every telnet session shows that log: a user's `telnet 127.0.0.1 4444`
 * beside tracetapd filled with every reply (hundreds of KB/s). It ignores the code JIM_EXIT (6)
 * and leaves the result in place, which the TCL server sends as usual: the wrapped command
 * returns with that code, so the reply reaches only this connection. OpenOCD's own error
 * messages (a failed read) still reach the log, as they should. */
int tt_tcl_format(char *out, size_t outlen, unsigned seq, const char *cmd)
{
	int k = snprintf(out, outlen,
			 "return -level 0 -code 6 [format \"@%u %%d %%s\" [catch {%s} tt_r] $tt_r]%c",
			 seq, cmd, TT_TCL_TERM);

	return (k < 0 || (size_t)k >= outlen) ? -ENOSPC : k;
}

/* OpenOCD before 0.12 has no read_memory/write_memory (and 0.12's mem2array/array2mem are
 * wrappers around them): these procs stand in for them on top of mdb/mdh/mdw and mwb/mwh/mww,
 * which every version has. mdw reports a failed read only in the log, so a short result is the
 * only sign of one. */
const char tt_tcl_md_procs[] =
	"proc " TT_TCL_READ_MD " {addr width count} {\n"
	"  set out [md[string map {32 w 16 h 8 b} $width] $addr $count]\n"
	"  set l {}\n"
	"  foreach line [split $out \"\\n\"] {\n"
	"    set i [string first {: } $line]\n"
	"    if {$i >= 0} { foreach w [string range $line [expr {$i + 2}] end] { lappend l 0x$w } }\n"
	"  }\n"
	"  if {[llength $l] != $count} {\n"
	"    error \"md$width $addr $count returned [llength $l] values: [string trim $out]\"\n"
	"  }\n"
	"  return $l\n"
	"}\n"
	"proc " TT_TCL_WRITE_MD " {addr width data} {\n"
	"  set cmd mw[string map {32 w 16 h 8 b} $width]\n"
	"  foreach v $data { $cmd $addr $v; set addr [expr {$addr + $width / 8}] }\n"
	"}";

/* The reads of a TT_RANGE_TO_PTR range inside OpenOCD (plan.h; tt_tcl_parse_ring expects
 * exactly these): the pointer swapped when big-endian, its end offset checked, then each piece
 * of the ring in reads of width 8 up to a 4-byte boundary and for a tail under 4 bytes, else
 * width 32 of at most chunk bytes (tt_tcl_next_op). */
const char tt_tcl_ring_proc[] =
	"proc " TT_TCL_RING " {verb p big base ring len align from max chunk} {\n"
	"  if {$big} {\n"
	"    set p [expr {(($p & 0xff) << 24) | (($p & 0xff00) << 8) | (($p >> 8) & 0xff00) |\n"
	"                 (($p >> 24) & 0xff)}]\n"
	"  }\n"
	"  set e [expr {$p - $base}]\n"
	"  if {$e < 0 || $e >= $len || $e % $align != 0} { return {} }\n"
	"  set n [expr {$e >= $from ? $e - $from : $len - $from + $e}]\n"
	"  if {$n > $max} { set n $max }\n"
	"  set out {}\n"
	"  set pos $from\n"
	"  while {$n > 0} {\n"
	"    set stop [expr {$pos + $n < $len ? $pos + $n : $len}]\n"
	"    set n [expr {$n - ($stop - $pos)}]\n"
	"    while {$pos < $stop} {\n"
	"      set a [expr {$ring + $pos}]\n"
	"      set left [expr {$stop - $pos}]\n"
	"      if {$a & 3} {\n"
	"        set k [expr {4 - ($a & 3)}]\n"
	"        if {$k > $left} { set k $left }\n"
	"        lappend out [$verb $a 8 $k]\n"
	"      } elseif {$left < 4} {\n"
	"        set k $left\n"
	"        lappend out [$verb $a 8 $k]\n"
	"      } else {\n"
	"        set k [expr {$left & ~3}]\n"
	"        if {$k > $chunk} { set k $chunk }\n"
	"        lappend out [$verb $a 32 [expr {$k / 4}]]\n"
	"      }\n"
	"      set pos [expr {$pos + $k}]\n"
	"    }\n"
	"    set pos 0\n"
	"  }\n"
	"  return [join $out |]\n"
	"}";

int tt_tcl_format_ring(char *out, size_t outlen, const char *verb, const char *ptr,
		       const struct tt_range *r, uint32_t max_chunk)
{
	uint32_t chunk = max_chunk & ~UINT32_C(3);
	int k = snprintf(out, outlen,
			 "[" TT_TCL_RING " %s %s %d 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu32 " %" PRIu32
			 " %" PRIu32 " %" PRIu32 " %" PRIu32 "]", verb, ptr, r->ptr_big ? 1 : 0,
			 r->ptr_base, r->addr, r->len, r->align, r->from, r->max, chunk ? chunk : 4);

	return (k < 0 || (size_t)k >= outlen) ? -ENOSPC : k;
}

int tt_tcl_polling_on(const char *s, size_t n)
{
	static const char on[] = "background polling: on";

	return memmem(s, n, on, sizeof(on) - 1) != NULL;
}

void tt_tcl_segs_init(struct tt_tcl_segs *g, const char *body, size_t n)
{
	*g = (struct tt_tcl_segs){ .s = body, .e = body + n };
}

int tt_tcl_segs_next(struct tt_tcl_segs *g, const char **seg, size_t *n)
{
	const char *bar;

	if (g->done)
		return -EPROTO;
	bar = memchr(g->s, '|', (size_t)(g->e - g->s));
	*seg = g->s;
	*n = (size_t)((bar ? bar : g->e) - g->s);
	g->done = bar == NULL;
	g->s = bar ? bar + 1 : g->e;
	return 0;
}

int tt_tcl_parse_ring(struct tt_tcl_segs *g, const struct tt_range *r, const uint8_t *ptr,
		      uint32_t max_chunk, char *err, size_t errlen)
{
	uint32_t pos, n = tt_range_ptr_span(r, ptr, &pos), done = 0, len;
	unsigned width;
	const char *seg;
	size_t sn;

	if (n == 0) { /* one empty result */
		if (tt_tcl_segs_next(g, &seg, &sn) < 0) {
			snprintf(err, errlen, "no result for an empty ring read");
			return -EPROTO;
		}
		return tt_tcl_parse_words(seg, sn, 8, 0, r->dst, err, errlen);
	}
	while (done < n) {
		uint32_t stop = n - done < r->len - pos ? pos + (n - done) : r->len;

		for (; pos < stop; pos += len, done += len) {
			tt_tcl_next_op(r->addr + pos, r->addr + stop, max_chunk, &len, &width);
			if (tt_tcl_segs_next(g, &seg, &sn) < 0) {
				snprintf(err, errlen, "no result for the ring read at offset %" PRIu32
					 " (%" PRIu32 " of %" PRIu32 " bytes read)", pos, done, n);
				return -EPROTO;
			}
			if (tt_tcl_parse_words(seg, sn, width, len / (width / 8),
					       r->dst + (r->dst_linear ? done : pos), err, errlen) < 0)
				return -EPROTO;
		}
		pos = 0;
	}
	return 0;
}

int tt_tcl_format_write(char *out, size_t outlen, const char *verb, uint64_t addr,
			unsigned width, const uint8_t *data, uint32_t len)
{
	unsigned bytes = width / 8;
	size_t o;
	int k = snprintf(out, outlen, "%s 0x%" PRIx64 " %u {", verb, addr, width);

	if (k < 0 || (size_t)k >= outlen)
		return -ENOSPC;
	o = (size_t)k;
	for (uint32_t i = 0; i + bytes <= len; i += bytes) {
		uint32_t v = 0;
		for (unsigned b = 0; b < bytes; b++)
			v |= (uint32_t)data[i + b] << (8 * b);
		k = snprintf(out + o, outlen - o, "%s0x%" PRIx32, i ? " " : "", v);
		if (k < 0 || (size_t)k >= outlen - o)
			return -ENOSPC;
		o += (size_t)k;
	}
	if (o + 2 > outlen)
		return -ENOSPC;
	out[o++] = '}';
	out[o] = '\0';
	return (int)o;
}

size_t tt_tcl_reply_max(uint32_t max_chunk)
{
	/* width 8: "0xff " per byte; width 32: "0xffffffff " per 4 bytes; plus a long message */
	return (size_t)max_chunk * 5 + 16384;
}

int tt_tcl_rx_push(struct tt_tcl_rx *rx, const char *data, size_t n, tt_tcl_frame_fn fn,
		   void *arg)
{
	size_t start = 0, scan;

	if (rx->len + n > rx->cap) {
		size_t cap = rx->cap ? rx->cap : 4096;
		char *nb;

		while (cap < rx->len + n)
			cap *= 2;
		nb = realloc(rx->buf, cap);
		if (nb == NULL)
			return -ENOMEM;
		rx->buf = nb;
		rx->cap = cap;
	}
	scan = rx->len;
	memcpy(rx->buf + rx->len, data, n);
	rx->len += n;
	for (size_t i = scan; i < rx->len; i++) {
		if (rx->buf[i] != TT_TCL_TERM)
			continue;
		int r = fn(arg, rx->buf + start, i - start);
		if (r < 0)
			return r;
		start = i + 1;
	}
	memmove(rx->buf, rx->buf + start, rx->len - start);
	rx->len -= start;
	return rx->len > rx->max ? -EPROTO : 0;
}

void tt_tcl_rx_reset(struct tt_tcl_rx *rx)
{
	rx->len = 0;
}

void tt_tcl_rx_free(struct tt_tcl_rx *rx)
{
	free(rx->buf);
	rx->buf = NULL;
	rx->len = rx->cap = 0;
}

unsigned tt_tcl_run_end(const struct tt_plan *plan, unsigned first)
{
	unsigned i = first + 1;

	while (i < plan->n && plan->r[i].kind == TT_RANGE_FIXED &&
	       plan->r[i].addr == plan->r[i - 1].addr + plan->r[i - 1].len)
		i++;
	return i;
}

void tt_tcl_next_op(uint64_t pos, uint64_t end, uint32_t max_chunk, uint32_t *len,
		    unsigned *width)
{
	uint64_t left = end - pos, words = max_chunk & ~UINT32_C(3);

	if (words == 0)
		words = 4;
	if (pos & 3) {
		uint64_t head = 4 - (pos & 3);
		*width = 8;
		*len = (uint32_t)(left < head ? left : head);
	} else if (left < 4) {
		*width = 8;
		*len = (uint32_t)left;
	} else {
		left &= ~UINT64_C(3);
		*width = 32;
		*len = (uint32_t)(left < words ? left : words);
	}
}

void tt_tcl_scatter(const struct tt_plan *plan, unsigned first, unsigned end, uint64_t addr,
		    const uint8_t *src, uint32_t len)
{
	for (unsigned i = first; i < end; i++) {
		const struct tt_range *r = &plan->r[i];
		uint64_t lo = r->addr > addr ? r->addr : addr;
		uint64_t hi_r = r->addr + r->len, hi_s = addr + len;
		uint64_t hi = hi_r < hi_s ? hi_r : hi_s;

		if (lo < hi)
			memcpy(r->dst + (lo - r->addr), src + (lo - addr), hi - lo);
	}
}
