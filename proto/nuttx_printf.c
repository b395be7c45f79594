/* proto/nuttx_printf.c: the text of a NuttX DUMP_PRINTF note: its format string (from the
 * firmware's read-only data) applied to the arguments as sched_note_vprintf_ip packs them (no
 * alignment, target order; a long double as the layout says the target stores it). What the
 * packer and NuttX's printer disagree on is not rendered (README-nuttx.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nuttx_int.h"

struct pf {
	const struct nx_lay *l;
	const uint8_t *p;
	unsigned n, o;
	bool bad;
};

static uint64_t pf_take(struct pf *a, unsigned size)
{
	if (a->o + size > a->n) {
		a->bad = true; /* the note ends before this argument */
		return 0;
	}
	uint64_t v = nx_get(a->l, a->p + a->o, size);
	a->o += size;
	return v;
}

#define PF_SPEC 32

/* Parses one conversion's flags, width, precision (a '*' takes an int argument) and length
 * modifier at *fp, '%' included, into spec (PF_SPEC bytes, without the modifier) and mod;
 * returns the conversion character (0 at the end of fmt) and moves *fp past it. */
static char pf_spec(struct pf *a, const char **fp, char *spec, char mod[3])
{
	const char *f = *fp;
	size_t s = 0;
	char conv;

	spec[s++] = *f++;
	while (*f && strchr("-+ #0", *f) && s < 8)
		spec[s++] = *f++;
	const long max = NX_TEXT_MAX;

	for (int part = 0; part < 2; part++) { /* width, then .precision */
		long v;
		bool given = true;
		if (part && *f == '.')
			spec[s++] = *f++;
		else if (part)
			break;
		/* A width or precision from the target (`*`) or the format is clamped to what a piece
		 * can show: the text is cut there anyway, and printf would pad a billion characters
		 * for `%*x` with 0x41414141 before cutting (seconds per note). */
		if (*f == '*') {
			v = (int32_t)pf_take(a, 4);
			f++;
		} else if (*f >= '0' && *f <= '9') {
			for (v = 0; *f >= '0' && *f <= '9'; f++)
				v = v < max ? v * 10 + (*f - '0') : v;
		} else {
			given = false;
			v = 0;
		}
		if (given && part && v < 0) { /* a negative precision is no precision */
			s--;
		} else if (given) {
			v = v > max ? max : v < -max ? -max : v;
			s += (size_t)snprintf(spec + s, PF_SPEC - s, "%ld", v);
		}
	}
	while (*f && strchr("hlLjzt", *f) && strlen(mod) < 2) {
		mod[strlen(mod)] = *f++;
		mod[2] = 0;
	}
	conv = *f ? *f++ : 0;
	spec[s] = 0;
	*fp = f;
	return conv;
}

/* %s: the NUL-terminated string packed in the arguments, unprintable bytes as '?'. */
static void pf_string(struct pf *a, const char *spec, char *piece, size_t cap)
{
	char str[NX_TEXT_MAX], hf[40];
	size_t k = 0;

	while (a->o < a->n && a->p[a->o] && k + 1 < sizeof(str)) {
		uint8_t c = a->p[a->o++];
		str[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	str[k] = 0;
	if (a->o >= a->n)
		a->bad = true; /* no NUL: the note was cut */
	a->o++;
	snprintf(hf, sizeof(hf), "%ss", spec);
	snprintf(piece, cap, hf, str);
}

/* A long double argument as the layout stores it, as a double (what double cannot hold beyond
 * its 53 bits is not shown); false when the layout does not say how (or the note ends). The
 * x87 format is little-endian on every x86; binary128's halves follow the target's order. */
static bool pf_long_double(struct pf *a, double *out)
{
	static const unsigned sizes[] = { 0, 8, 12, 16, 16 };
	const unsigned ld = a->l->ldbl < 5 ? a->l->ldbl : 0, size = sizes[ld];
	const uint8_t *p = a->p + a->o;

	if (!ld || a->o + size > a->n) {
		a->bad = ld != 0;
		return false;
	}
	a->o += size;
	if (ld == TT_NUTTX_LDBL_DOUBLE) {
		uint64_t bits = nx_get(a->l, p, 8);
		memcpy(out, &bits, sizeof(*out));
		return true;
	}
	uint64_t m, hi, lo;
	unsigned se;
	if (ld == TT_NUTTX_LDBL_QUAD) {
		hi = nx_get(a->l, p + (a->l->be ? 0 : 8), 8);
		lo = nx_get(a->l, p + (a->l->be ? 8 : 0), 8);
		se = (unsigned)(hi >> 48);
		/* the top 52 of the 112 fraction bits, and the integer bit */
		m = ((hi & 0xFFFFFFFFFFFFull) << 4 | lo >> 60) | (uint64_t)((se & 0x7FFF) != 0) << 52;
	} else {
		m = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		    (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
		    (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
		se = p[8] | (unsigned)p[9] << 8;
	}
	int e = (int)(se & 0x7FFF), shift = ld == TT_NUTTX_LDBL_QUAD ? 52 : 63;
	double v;
	if (e == 0x7FFF) /* infinity (no fraction bits beyond the integer bit), else NaN */
		v = (m & ~(1ull << shift)) ? NAN : INFINITY;
	else
		v = ldexp((double)m, (e ? e : 1) - 16383 - shift);
	*out = se & 0x8000 ? -v : v;
	return true;
}

/* Renders one conversion into piece; false for what render_printf does not render. */
static bool pf_piece(struct pf *a, const char *spec, const char *mod, char conv, char *piece,
		     size_t cap)
{
	unsigned isz = !strcmp(mod, "ll") || !strcmp(mod, "j") ? 8
		     : (mod[0] == 'l' || mod[0] == 'z' || mod[0] == 't') ? a->l->ptr : 4;
	char hf[40];

	if (conv && strchr("diuoxXc", conv)) {
		uint64_t v = pf_take(a, isz);
		if (conv == 'd' || conv == 'i') {
			int64_t sv = isz == 8 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
			snprintf(hf, sizeof(hf), "%sll%c", spec, conv);
			snprintf(piece, cap, hf, (long long)sv);
		} else if (conv == 'c') {
			snprintf(hf, sizeof(hf), "%sc", spec);
			snprintf(piece, cap, hf, (int)(v >= 0x20 && v < 0x7f ? v : '?'));
		} else {
			snprintf(hf, sizeof(hf), "%sll%c", spec, conv);
			snprintf(piece, cap, hf, (unsigned long long)v);
		}
	} else if (conv && strchr("eEfFgGaA", conv)) {
		double dv;
		if (!strcmp(mod, "L")) {
			if (!pf_long_double(a, &dv))
				return false;
		} else {
			uint64_t bits = pf_take(a, 8);
			memcpy(&dv, &bits, sizeof(dv));
		}
		snprintf(hf, sizeof(hf), "%s%c", spec, conv);
		snprintf(piece, cap, hf, dv);
	} else if (conv == 's') {
		pf_string(a, spec, piece, cap);
	} else if (conv == 'p') {
		snprintf(piece, cap, "0x%llx", (unsigned long long)pf_take(a, a->l->ptr));
	} else {
		return false; /* %n, an unknown or missing conversion */
	}
	return true;
}

bool nx_render_printf(const struct nx_lay *l, const char *fmt, const uint8_t *data,
		      unsigned n, char *out, size_t cap)
{
	struct pf a = { l, data, n, 0, false };
	size_t o = 0;

	if (strstr(fmt, "%%"))
		return false;
	for (const char *f = fmt; *f && o + 1 < cap; ) {
		if (*f != '%') {
			out[o++] = *f >= 0x20 && *f < 0x7f ? *f : *f == '\n' ? '\n' : '?';
			f++;
			continue;
		}
		char spec[PF_SPEC], mod[3] = "", piece[NX_TEXT_MAX];
		char conv = pf_spec(&a, &f, spec, mod);
		if (!pf_piece(&a, spec, mod, conv, piece, sizeof(piece)) || a.bad)
			return false;
		for (size_t k = 0; piece[k] && o + 1 < cap; k++)
			out[o++] = piece[k];
	}
	out[o] = 0;
	return true;
}

