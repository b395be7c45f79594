/* client/textfmt.h: records as aligned, optionally coloured text lines, the readable form
 * shared by `tracetap decode` and `tracetap tail`. */
#ifndef TT_TEXTFMT_H
#define TT_TEXTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../proto/record.h"

struct tt_textfmt {
	int color;          /* ANSI colours */
	const char *target; /* shown when not NULL */
	int width;          /* > 0: compact columns, each line cut to this many columns with an
			     * ellipsis (a terminal's width); 0: whole lines */
	int target_width;   /* compact: the target column's width (the longest name to show,
			     * cut to it); 0: the default (8) */
};

/* One line (no newline) into buf. Returns the length or -ENOSPC. */
int tt_textfmt_record(const struct tt_textfmt *tf, char *buf, size_t cap,
		      const struct tt_record *rec, uint64_t seq);
/* An `alert` message (a trigger fired, proto/PROTOCOL.md) as one line that stands out:
 * "!!! alert TRIGGER on TARGET at seq N: CONDITION (capture NAME) !!!"; the daemon's strings
 * are text (control characters escaped). capture may be NULL. Returns the length or -ENOSPC. */
int tt_textfmt_alert(const struct tt_textfmt *tf, char *buf, size_t cap, const char *target,
		     const char *trigger, const char *cond, uint64_t seq, const char *capture);
/* A record in the text of its format's own tool (reader.h: native_line, e.g. QNX's
 * `traceprinter -n`; proto/README-qnx.md, "traceprinter text"): r the format (it has
 * native_line), ctx what its lines need of the source (byte order, OS release); gaps and resets
 * (which such a tool has no line for) are ` -- GAP: ... -- ` and ` -- RESET: ... -- `. The line
 * is cleaned like every record line. Returns the length or -ENOSPC. */
struct tt_reader_ops;
struct tt_native_ctx;
int tt_textfmt_native(char *buf, size_t cap, const struct tt_record *rec,
		      const struct tt_reader_ops *r, const struct tt_native_ctx *ctx);
/* The one way a string from a target, a file, a daemon or a broker reaches the terminal (the
 * record lines above use it for every name, reason and argument): at most max bytes of s into
 * dst (NUL-terminated, cut to cap), each control character as a visible escape (\n, \t,
 * \x1b, \u009b: never an ESC, BEL or CSI the terminal would obey), each byte that is not UTF-8
 * as U+FFFD, cut only between characters. s NULL is "". Returns dst (for a printf argument).
 * TT_TEXTFMT_CAP(max) bytes hold any max bytes cleaned whole. */
const char *tt_textfmt_clean(char *dst, size_t cap, const char *s, size_t max);
#define TT_TEXTFMT_CAP(max) ((max) * 6 + 1)
/* The one way text is fitted to a terminal's columns: s (UTF-8, already clean) into dst cut to
 * width columns between characters (a byte cut would split one), the last column an ellipsis
 * when ellipsis is set and s was longer, then padded with spaces to width when pad is set.
 * dst is NUL-terminated and cut to cap. Returns dst. */
const char *tt_textfmt_cell(char *dst, size_t cap, const char *s, int width, bool ellipsis,
			    bool pad);
/* Colour when f is a terminal and NO_COLOR is not set. */
int tt_textfmt_want_color(FILE *f);

#endif
