/* daemon/opts.c: target options (see opts.h). */
#include "opts.h"

#include "../proto/reader.h"
#include "target_fields.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define O_FIELD 2000 /* getopt value of a target option: O_FIELD + its row in tt_target_fields */
#define OFF(f) offsetof(struct tt_target_config, f)

static const char target_help[] =
	"  --format FMT          trace format (default threadx)\n"
	"  --elf FILE            firmware ELF: threadx reads the header address from the\n"
	"                        target at _tx_trace_header_ptr; nuttx takes g_noteram_driver\n"
	"                        and the note layout (DWARF: build with -g)\n"
	"  --layout FILE         a layout file instead of the ELF (`tracetap layout --elf FW`):\n"
	"                        the format, its options and the control structure's address\n"
	"  --address ADDR        target address of the trace control header\n"
	"  --pointer ADDR        target address of a pointer to the header (like the ELF symbol)\n"
	"  --base ADDR           file: target address of the file's first byte (raw images)\n"
	"  --tick-hz HZ          time stamp rate: adds nanoseconds to events (e.g. 168M)\n"
	"  --time-wrap N         modulus of the time source (the ThreadX Linux port: 1000000000)\n"
	"  --time-dir up|down    time source direction (default: detected)\n"
	"  --format-opt KEY=VALUE  a format option (repeatable; after --elf's, in order):\n";

const char *tt_opts_target_help(void)
{
	static char help[sizeof(target_help) + 2048];

	if (!help[0]) {
		memcpy(help, target_help, sizeof(target_help));
		tt_reader_help(help + sizeof(target_help) - 1, sizeof(help) - sizeof(target_help) + 1);
	}
	return help;
}

const char tt_opts_live_help[] =
	"  --start-at-now        skip the history already in the buffer\n"
	"  --poll-min MS, --poll-max MS   bounds of the adaptive poll interval (1, 50)\n"
	"  --latency MS          bound write -> publish: interval <= MS - poll time (default off)\n"
	"  --max-read BYTES      largest single probe read (default 4096)\n"
	"  --stack-budget B/S|off  probe bytes/s for the stack high-water marks (512)\n";

void tt_opts_target_init(struct tt_opts_target *o, struct tt_target_config *cfg)
{
	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
}

/* The options of target_fields.h's table, in its order; live adds the polling ones. */
void tt_opts_target_longopts(struct option *lo, size_t room, bool live)
{
	size_t n = 0;

	for (size_t i = 0; i < tt_target_nfields && n + 1 < room; i++) {
		const struct tt_target_field *f = &tt_target_fields[i];
		if (f->cli == TT_CLI_OWN || (!live && f->cli != TT_CLI_ARG))
			continue;
		lo[n++] = (struct option){ f->option,
					   f->cli == TT_CLI_LIVE_FLAG ? no_argument
								      : required_argument,
					   NULL, O_FIELD + (int)i };
	}
	if (room)
		memset(&lo[n], 0, sizeof(lo[0]));
}

static int num(const char *opt, const char *arg, uint64_t max, int suffix, uint64_t *out,
	       char *err, size_t errlen)
{
	if (tt_parse_u64(arg, max, suffix, out) == 0)
		return 0;
	snprintf(err, errlen, "--%s '%s': expected a number from 0 to %llu%s", opt, arg,
		 (unsigned long long)max, suffix ? " (k, M, G suffixes allowed)" : "");
	return -EINVAL;
}

int tt_opts_target_parse(struct tt_opts_target *o, int c, const char *arg, char *err,
			 size_t errlen)
{
	struct tt_target_config *cfg = o->cfg;
	uint64_t v;
	int rc = 0;

	if (c < O_FIELD || c >= O_FIELD + (int)tt_target_nfields)
		return 1;
	const struct tt_target_field *f = &tt_target_fields[c - O_FIELD];
	switch (f->off) {
	case OFF(format):
		if (!tt_reader_find(arg)) {
			snprintf(err, errlen, "--format '%s': supported formats: %s", arg,
				 tt_reader_names());
			return -EINVAL;
		}
		cfg->format = arg;
		return 0;
	case OFF(elf): cfg->elf = arg; return 0;
	case OFF(layout): cfg->layout = arg; return 0;
	case OFF(address):
	case OFF(address_is_pointer):
		rc = num(f->option, arg, UINT64_MAX, 0, &cfg->address, err, errlen);
		cfg->address_is_pointer = f->off == OFF(address_is_pointer);
		return rc;
	case OFF(file_base): return num("base", arg, UINT64_MAX, 0, &cfg->file_base, err, errlen);
	case OFF(tick_hz): return num("tick-hz", arg, UINT64_C(100000000000), 1, &cfg->tick_hz, err, errlen);
	case OFF(time_wrap): return num("time-wrap", arg, UINT64_C(1) << 32, 1, &cfg->time_wrap, err, errlen);
	case OFF(time_dir):
		if (!strcmp(arg, "up"))
			cfg->time_dir = 1;
		else if (!strcmp(arg, "down"))
			cfg->time_dir = -1;
		else {
			snprintf(err, errlen, "--time-dir '%s': expected up or down", arg);
			return -EINVAL;
		}
		return 0;
	case OFF(start_at_now): cfg->start_at_now = true; return 0;
	case OFF(format_opts):
		if (o->nfopts >= TT_OPTS_MAX_FORMAT) {
			snprintf(err, errlen, "--format-opt: at most %d", TT_OPTS_MAX_FORMAT);
			return -EINVAL;
		}
		o->fopts[o->nfopts++] = arg;
		o->fopts[o->nfopts] = NULL;
		cfg->format_opts = o->fopts;
		return 0;
	case OFF(poll_min_ms):
	case OFF(poll_max_ms):
	case OFF(latency_ms):
		rc = num(f->option, arg, 60000, 0, &v, err, errlen);
		if (!rc && !v) {
			snprintf(err, errlen, "--%s: must be at least 1 ms", f->option);
			return -EINVAL;
		}
		*(unsigned *)((char *)cfg + f->off) = (unsigned)v;
		return rc;
	case OFF(stack_budget):
		if (!strcmp(arg, "off")) {
			cfg->stack_budget = -1;
			return 0;
		}
		rc = num("stack-budget", arg, 1 << 20, 1, &v, err, errlen);
		if (!rc && v < 1) {
			snprintf(err, errlen, "--stack-budget: at least 1 byte/s, or off");
			return -EINVAL;
		}
		cfg->stack_budget = (int)v;
		return rc;
	case OFF(max_chunk):
		rc = num("max-read", arg, 1 << 20, 1, &v, err, errlen);
		if (!rc && v < 64) {
			snprintf(err, errlen, "--max-read: at least 64 bytes");
			return -EINVAL;
		}
		cfg->max_chunk = (uint32_t)v;
		return rc;
	default:
		return 1;
	}
}

int tt_opts_openocd_arg(struct tt_opts_target *o, int c, const char *arg)
{
	if (o->noargs + 2 > TT_OPTS_MAX_OPENOCD)
		return -E2BIG;
	o->oargs[o->noargs++] = c == 'f' ? "-f" : "-c";
	o->oargs[o->noargs++] = arg;
	o->oargs[o->noargs] = NULL;
	o->cfg->openocd_args = o->oargs;
	return 0;
}

/* The file name of path without its folder and extension ("target/stm32f4x.cfg": "stm32f4x"). */
static void stem(char *buf, size_t cap, const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(b, '.');
	int n = dot && dot > b ? (int)(dot - b) : (int)strlen(b);

	snprintf(buf, cap, "%.*s", n, b);
}

void tt_opts_target_name(const struct tt_opts_target *o, char *buf, size_t cap)
{
	const struct tt_target_config *c = o->cfg;
	const char *p = c->probe ? c->probe : "", *f = NULL;

	buf[0] = '\0';
	if (c->elf) {
		stem(buf, cap, c->elf);
	} else if (!strncmp(p, "file:", 5) || tt_reader_for_stream(p)) {
		stem(buf, cap, strchr(p, ':') + 1);
	} else if (!strcmp(p, "openocd-spawn")) {
		for (unsigned i = 0; i + 1 < o->noargs; i++)
			if (!strcmp(o->oargs[i], "-f"))
				f = o->oargs[i + 1];
		if (f)
			stem(buf, cap, f);
	} else if (!strncmp(p, "openocd:", 8) || !strncmp(p, "process:", 8)) {
		snprintf(buf, cap, "%.*s-%s", (int)(strchr(p, ':') - p), p, strrchr(p, ':') + 1);
	}
	if (!buf[0])
		snprintf(buf, cap, "%s", p[0] ? p : "target");
	for (char *q = buf; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9') || *q == '.' || *q == '_' || *q == '-'))
			*q = '-';
}
