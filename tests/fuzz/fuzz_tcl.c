/* tests/fuzz/fuzz_tcl.c: the OpenOCD TCL RPC reply parser of probe/tcl.c on an untrusted byte
 * stream, as probe/openocd.c uses it: bytes are pushed into the framer in pieces whose sizes the
 * input picks (byte 0), every frame is classified, and every successful reply's body is parsed
 * as the result of a read_memory of width 8 or 32 and a count taken from its sequence number,
 * and as the results of a ring read (tt_tcl_parse_ring).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tcl.h"

static int fz_frame(void *arg, const char *frame, size_t n)
{
	static uint8_t dst[1024 * 4];
	struct tt_tcl_msg m;
	char err[256], out[512];

	(void)arg;
	if (tt_tcl_parse_msg(frame, n, &m) != 0)
		return 0;
	if (m.body < frame || m.body + m.blen > frame + n)
		abort(); /* the body must lie inside the frame */
	if (m.kind == TT_TCL_REPLY && m.code == 0) {
		unsigned width = m.seq & 1 ? 32 : 8;
		uint32_t count = m.seq % 1024 + 1;
		tt_tcl_parse_words(m.body, m.blen, width, count, dst, err, sizeof(err));
		if (!memchr(err, '\0', sizeof(err)))
			abort();
		/* and as the results of a ring read (TT_RANGE_TO_PTR) whose pointer the sequence
		 * number gives: an unaligned ring of 1 KiB, the bytes mirrored */
		struct tt_range r = { .addr = 0x20000001, .len = 1024, .dst = dst,
				      .kind = TT_RANGE_TO_PTR, .align = 1, .from = m.seq % 1024,
				      .max = 1024 };
		uint8_t ptr[4] = { (uint8_t)(m.seq >> 3), (uint8_t)(m.seq >> 11), 0, 0 };
		struct tt_tcl_segs g;
		tt_tcl_segs_init(&g, m.body, m.blen);
		tt_tcl_parse_ring(&g, &r, ptr, 64, err, sizeof(err));
		if (!memchr(err, '\0', sizeof(err)) || g.s < m.body || g.s > m.body + m.blen)
			abort();
	}
	tt_tcl_format(out, sizeof(out), m.seq, "read_memory 0x20000000 32 4");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tt_tcl_rx rx = { .max = tt_tcl_reply_max(4096) };
	size_t step, off = 1;

	if (size < 1)
		return 0;
	step = data[0] ? data[0] : size;
	while (off < size) {
		size_t n = size - off < step ? size - off : step;
		if (tt_tcl_rx_push(&rx, (const char *)data + off, n, fz_frame, NULL) < 0)
			tt_tcl_rx_reset(&rx);
		off += n;
	}
	tt_tcl_rx_free(&rx);
	return 0;
}
