/* proto/qnx_reader.c: the QNX reader behind the generic interface of reader.h. Files only: the
 * live plan/ingest steps are NULL (how a debugger finds QNX's RAM trace buffers is not publicly
 * documented; see README-qnx.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qnx.h"
#include "reader.h"

/* The whole image is one .kev file: base and cfg->address are not used (a .kev carries no
 * target addresses). --tick-hz overrides the file's TRACE_CYCLES_PER_SEC. */
static int qnx_decode_image(const uint8_t *img, size_t len, uint64_t base,
			    const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg, char *err,
			    size_t errlen)
{
	if (cfg->address) {
		snprintf(err, errlen, "--address does not apply to QNX .kev files (the events "
			 "follow the file's own header)");
		return -EINVAL;
	}
	return tt_qnx_decode_file(img, len, cfg->tick_hz, cb, arg, NULL, err, errlen);
}

/* A .kev file starts with its attribute header. */
static bool qnx_detect(const uint8_t *head, size_t len)
{
	static const char magic[] = "TRACE_HEADER_BEGIN::";
	return len >= sizeof(magic) - 1 && !memcmp(head, magic, sizeof(magic) - 1);
}

const struct tt_reader_ops tt_qnx_reader = {
	.name = "qnx",
	.detect = qnx_detect,
	.decode_image = qnx_decode_image,
};
