/* daemon/textfmt.h: records as aligned, optionally coloured text lines, the readable form
 * shared by `tracetap decode` and `tracetap tail`. */
#ifndef TT_TEXTFMT_H
#define TT_TEXTFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../proto/record.h"

struct tt_textfmt {
	int color;          /* ANSI colours */
	const char *target; /* shown when not NULL */
};

/* One line (no newline) into buf. Returns the length or -ENOSPC. */
int tt_textfmt_record(const struct tt_textfmt *tf, char *buf, size_t cap,
		      const struct tt_record *rec, uint64_t seq);
/* Colour when f is a terminal and NO_COLOR is not set. */
int tt_textfmt_want_color(FILE *f);

#endif
