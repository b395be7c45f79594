/* daemon/opts.h: command-line options that describe a target, shared by tracetapd and
 * `tracetap decode` so both spell and check them the same way. */
#ifndef TT_OPTS_H
#define TT_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "../proto/parse.h"
#include "target.h"

#define TT_OPTS_MAX_OPENOCD 64
#define TT_OPTS_MAX_FORMAT 32

struct tt_opts_target {
	struct tt_target_config *cfg; /* borrowed: filled in place */
	const char *oargs[TT_OPTS_MAX_OPENOCD + 1];
	unsigned noargs;
	const char *fopts[TT_OPTS_MAX_FORMAT + 1];
	unsigned nfopts;
};

/* Help lines of the target options, each format's options included (all commands; a static
 * string built at the first call, main thread), and of the live ones (tracetapd only). */
const char *tt_opts_target_help(void);
extern const char tt_opts_live_help[];

void tt_opts_target_init(struct tt_opts_target *o, struct tt_target_config *cfg);
/* Appends the target options to longopts (room entries, NULL-terminated); live adds the
 * polling ones (--start-at-now, --poll-min/-max, --max-read), which only tracetapd takes. */
void tt_opts_target_longopts(struct option *longopts, size_t room, bool live);
/* Handles option c. Returns 0 when handled, 1 when c is not a target option, -EINVAL with a
 * message naming the option and the expected value in err. */
int tt_opts_target_parse(struct tt_opts_target *o, int c, const char *arg, char *err,
			 size_t errlen);
/* -f FILE / -c CMD for a spawned OpenOCD. */
int tt_opts_openocd_arg(struct tt_opts_target *o, int c, const char *arg);


/* The default target name (no --name): the ELF's file name without extension, else the
 * probe's: the last -f file of openocd-spawn ("stm32f4x"), the file of file:/kev:,
 * "openocd-PORT", "process-PID"; other characters than [A-Za-z0-9._-] become '-'. */
void tt_opts_target_name(const struct tt_opts_target *o, char *buf, size_t cap);

#endif
