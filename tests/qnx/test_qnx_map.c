/* tests/qnx/test_qnx_map.c: the internal <-> external class/event mapping of QNX trace events
 * (tt_qnx_ext_to_int, tt_qnx_int_to_ext) for QNX 6.4, 7.x and 8.0: pairs written by hand from
 * the reference's rules (shared/reference/qnx-trace.md: the _NTO_TRACE_GET*()/SET*() macro page),
 * then both directions over the whole range: every internal (class 0-31, event 0-1023) that maps
 * comes back unchanged, every external (class 0-31, events 0-1023 and every one-bit mask) that
 * maps comes back unchanged (INT classes: event 0), and the number of mappable pairs per class
 * is what the rules give.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "../tt_test.h"
#include "qnx.h"


enum { X = -1 }; /* no mapping */

struct pair {
	unsigned ver;
	uint32_t xc, xe;
	int ic, ie; /* X: -EINVAL wanted */
};

/* By hand, from the reference's text. */
static const struct pair hand[] = {
	{ 6, TT_QNX_X_CONTROL, 1, TT_QNX_C_CONTROL, 1 },     /* TIME */
	{ 6, TT_QNX_X_USER, 5, TT_QNX_C_USER, 5 },
	{ 6, TT_QNX_X_SYSTEM, 3, TT_QNX_C_SYSTEM, 3 },
	{ 6, TT_QNX_X_COMM, 9, TT_QNX_C_COMM, 9 },
	{ 7, TT_QNX_X_SEC, 2, TT_QNX_C_SEC, 2 },
	{ 6, TT_QNX_X_SEC, 2, X, X },                        /* 7.0 adds SEC */
	{ 7, TT_QNX_X_PMU, 1, X, X },                        /* 8.0 adds PMU */
	{ 8, TT_QNX_X_PMU, 1, TT_QNX_C_PMU, 1 },
	{ 6, TT_QNX_X_KERCALLENTER, 11, TT_QNX_C_KER_CALL, 11 },   /* MsgSendv */
	{ 6, TT_QNX_X_KERCALLEXIT, 11, TT_QNX_C_KER_CALL, 139 },
	{ 6, TT_QNX_X_KERCALLINT, 15, TT_QNX_C_KER_CALL, 271 },
	{ 6, TT_QNX_X_KERCALLENTER, 127, TT_QNX_C_KER_CALL, 127 },
	{ 6, TT_QNX_X_KERCALLENTER, 128, X, X },
	{ 7, TT_QNX_X_KERCALLEXIT, 0x200 | 14, TT_QNX_C_KER_CALL, 0x200 | 142 }, /* KERCALL64 */
	{ 6, TT_QNX_X_KERCALLEXIT, 0x200 | 14, X, X },       /* no KERCALL64 before 7.0 */
	{ 8, TT_QNX_X_KERCALLINT, 0x200 | 107, TT_QNX_C_KER_CALL, 0x200 | 363 },
	{ 6, TT_QNX_X_KERCALL, 11, X, X },                   /* pseudo-class */
	{ 6, TT_QNX_X_INT, 0, X, X },                        /* pseudo-class */
	{ 6, TT_QNX_X_INTENTER, 0, TT_QNX_C_INT, 1 },
	{ 7, TT_QNX_X_INTEXIT, 0, TT_QNX_C_INT, 2 },
	{ 6, TT_QNX_X_INT_HANDLER_ENTER, 0, TT_QNX_C_INT, 3 },
	{ 6, TT_QNX_X_INT_HANDLER_EXIT, 0, TT_QNX_C_INT, 4 },
	{ 8, TT_QNX_X_INTENTER, 0, X, X },                   /* reserved in 8.0 */
	{ 6, TT_QNX_X_THREAD, 1u << 2, TT_QNX_C_PR_TH, 2 },  /* THREADY */
	{ 6, TT_QNX_X_THREAD, 1u << 24, TT_QNX_C_PR_TH, 24 },/* THCREATE */
	{ 7, TT_QNX_X_THREAD, 1u << 25, TT_QNX_C_PR_TH, 25 },/* THDESTROY */
	{ 6, TT_QNX_X_THREAD, 1u << 26, X, X },              /* past _TRACE_MAX_TH_STATE_NUM */
	{ 6, TT_QNX_X_THREAD, 6, X, X },                     /* two bits */
	{ 6, TT_QNX_X_VTHREAD, 1u << 5, TT_QNX_C_PR_TH, 31 },/* VTHRECEIVE: 5 + 26 */
	{ 8, TT_QNX_X_VTHREAD, 1u << 5, X, X },              /* reserved in 8.0 */
	{ 8, TT_QNX_X_THREAD, 2, TT_QNX_C_PR_TH, 2 },        /* 8.0: the state number itself */
	{ 8, TT_QNX_X_THREAD, 62, TT_QNX_C_PR_TH, 62 },
	{ 8, TT_QNX_X_THREAD, 63, X, X },
	{ 6, TT_QNX_X_PROCESS, 1u << 0, TT_QNX_C_PR_TH, 64 },  /* PROCCREATE */
	{ 6, TT_QNX_X_PROCESS, 1u << 1, TT_QNX_C_PR_TH, 128 }, /* PROCDESTROY */
	{ 7, TT_QNX_X_PROCESS, 1u << 2, TT_QNX_C_PR_TH, 192 }, /* PROCCREATE_NAME */
	{ 6, TT_QNX_X_PROCESS, 1u << 3, TT_QNX_C_PR_TH, 256 }, /* PROCDESTROY_NAME */
	{ 6, TT_QNX_X_PROCESS, 1u << 4, TT_QNX_C_PR_TH, 320 }, /* THREAD NAME */
	{ 8, TT_QNX_X_PROCESS, 1u << 2, TT_QNX_C_PR_TH, 192 },
	{ 6, 21, 0, X, X },                                  /* no such class */
};

static void check_hand(void)
{
	for (size_t i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
		const struct pair *p = &hand[i];
		uint32_t c = 99, e = 99, xc = 99, xe = 99;
		int rc = tt_qnx_ext_to_int(p->ver, p->xc, p->xe, &c, &e);
		if (p->ic == X) {
			CHECK_MSG(rc == -EINVAL, "ver %u ext (%u, 0x%x): mapped to (%u, %u)", p->ver, p->xc,
			      p->xe, c, e);
			continue;
		}
		CHECK_MSG(rc == 0 && c == (uint32_t)p->ic && e == (uint32_t)p->ie,
		      "ver %u ext (%u, 0x%x) -> rc %d (%u, %u), want (%d, %d)", p->ver, p->xc, p->xe,
		      rc, c, e, p->ic, p->ie);
		rc = tt_qnx_int_to_ext(p->ver, (uint32_t)p->ic, (uint32_t)p->ie, &xc, &xe);
		CHECK_MSG(rc == 0 && xc == p->xc && xe == p->xe, "ver %u int (%d, %d) -> rc %d (%u, 0x%x), "
		      "want (%u, 0x%x)", p->ver, p->ic, p->ie, rc, xc, xe, p->xc, p->xe);
	}
}

/* Mappable internal events per internal class, as the rules count them. */
static unsigned want_int(unsigned ver, unsigned cls)
{
	unsigned max = ver >= 8 ? 63 : 26;
	switch (cls) {
	case TT_QNX_C_EMPTY: case TT_QNX_C_CONTROL: case TT_QNX_C_SYSTEM: case TT_QNX_C_USER:
	case TT_QNX_C_COMM:
		return 1024;
	case TT_QNX_C_QUIP: case TT_QNX_C_SEC: case TT_QNX_C_QVM:
		return ver >= 7 ? 1024 : 0;
	case TT_QNX_C_PMU:
		return ver >= 8 ? 1024 : 0;
	case TT_QNX_C_KER_CALL:
		return ver >= 7 ? 2 * 384 : 384;
	case TT_QNX_C_INT:
		return ver >= 8 ? 0 : 4;
	case TT_QNX_C_PR_TH: /* threads, virtual threads (before 8.0), 15 process events */
		return (ver >= 8 ? max : 2 * max) + 15;
	}
	return 0;
}

static void check_whole_range(unsigned ver)
{
	unsigned n_int[32] = { 0 }, n_ext = 0;

	for (uint32_t c = 0; c < 32; c++) {
		for (uint32_t e = 0; e < 1024; e++) {
			uint32_t xc, xe, c2, e2;
			if (tt_qnx_int_to_ext(ver, c, e, &xc, &xe) < 0)
				continue;
			n_int[c]++;
			int rc = tt_qnx_ext_to_int(ver, xc, xe, &c2, &e2);
			CHECK_MSG(rc == 0 && c2 == c && e2 == e, "ver %u int (%u, %u) -> ext (%u, 0x%x) -> "
			      "rc %d (%u, %u)", ver, c, e, xc, xe, rc, c2, e2);
		}
		CHECK_MSG(n_int[c] == want_int(ver, c), "ver %u class %u: %u events map, want %u", ver, c,
		      n_int[c], want_int(ver, c));
		CHECK_MSG(tt_qnx_int_to_ext(ver, c, 1024, &(uint32_t){ 0 }, &(uint32_t){ 0 }) == -EINVAL,
		      "ver %u class %u: event 1024 mapped", ver, c);
	}
	for (uint32_t xc = 0; xc < 32; xc++) {
		for (uint32_t k = 0; k < 1024 + 32; k++) {
			uint32_t xe = k < 1024 ? k : 1u << (k - 1024), c, e, xc2, xe2;
			if (tt_qnx_ext_to_int(ver, xc, xe, &c, &e) < 0)
				continue;
			n_ext++;
			CHECK_MSG(c < 32 && e < 1024, "ver %u ext (%u, 0x%x) -> (%u, %u) out of range", ver,
			      xc, xe, c, e);
			int rc = tt_qnx_int_to_ext(ver, c, e, &xc2, &xe2);
			bool is_int = xc == TT_QNX_X_INTENTER || xc == TT_QNX_X_INTEXIT ||
				      xc == TT_QNX_X_INT_HANDLER_ENTER || xc == TT_QNX_X_INT_HANDLER_EXIT;
			CHECK_MSG(rc == 0 && xc2 == xc && xe2 == (is_int ? 0 : xe), "ver %u ext (%u, 0x%x) -> "
			      "(%u, %u) -> rc %d (%u, 0x%x)", ver, xc, xe, c, e, rc, xc2, xe2);
		}
	}
	printf("version %u: %u external pairs map; internal per class:", ver, n_ext);
	for (unsigned c = 0; c < 12; c++)
		printf(" %u", n_int[c]);
	printf("\n");
}

int main(void)
{
	check_hand();
	for (unsigned ver = 6; ver <= 8; ver++)
		check_whole_range(ver);
	return tt_test_done();
}
