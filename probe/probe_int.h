/* probe/probe_int.h: backend registrations (internal to probe/). */
#ifndef TT_PROBE_INT_H
#define TT_PROBE_INT_H

#include "probe.h"

extern const struct tt_probe_ops tt_probe_file_ops;
extern const struct tt_probe_ops tt_probe_kev_ops;
extern const struct tt_probe_ops tt_probe_process_ops;
extern const struct tt_probe_ops tt_probe_openocd_ops;
extern const struct tt_probe_ops tt_probe_openocd_spawn_ops;

#endif
