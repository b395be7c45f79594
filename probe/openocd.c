#include <errno.h>
#include "probe_int.h"
static int ocd_open(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt)
{
	tt_probe__seterr(p, "openocd: not yet");
	return -ENOTSUP;
}
static int ocd_read(struct tt_probe *p) { return -ENOTSUP; }
static void ocd_close(struct tt_probe *p) { tt_probe__close_done(p); }
const struct tt_probe_ops tt_probe_openocd_ops = {
	.name = "openocd", .size = sizeof(struct tt_probe), .open = ocd_open, .read = ocd_read,
	.close = ocd_close,
};
const struct tt_probe_ops tt_probe_openocd_spawn_ops = {
	.name = "openocd-spawn", .size = sizeof(struct tt_probe), .open = ocd_open,
	.read = ocd_read, .close = ocd_close,
};
