/* probe/hexdigit.h: the one hex-digit parser of probe/'s text parsers (HEX/SREC images, TCL
 * replies). */
#ifndef TT_HEXDIGIT_H
#define TT_HEXDIGIT_H

/* 0..15, or -1 when c is not a hex digit. */
static inline int tt_hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
