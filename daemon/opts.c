/* daemon/opts.c: target options (see opts.h). */
#include "opts.h"

#include "../proto/nuttx.h"
#include "../proto/qnx.h"
#include "../proto/reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	O_FORMAT = 2000, O_ELF, O_ADDRESS, O_POINTER, O_BASE, O_TICK_HZ, O_TIME_WRAP, O_TIME_DIR,
	O_NOW, O_POLL_MIN, O_POLL_MAX, O_LATENCY, O_CHUNK, O_FORMAT_OPT, O_LAYOUT,
};

const char tt_opts_target_help[] =
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
	"  --format-opt KEY=VALUE  a format option (repeatable; after --elf's, in order):\n"
	TT_NUTTX_LAYOUT_HELP
	TT_QNX_LAYOUT_HELP;

const char tt_opts_live_help[] =
	"  --start-at-now        skip the history already in the buffer\n"
	"  --poll-min MS, --poll-max MS   bounds of the adaptive poll interval (1, 50)\n"
	"  --latency MS          bound write -> publish: interval <= MS - poll time (default off)\n"
	"  --max-read BYTES      largest single probe read (default 4096)\n";

void tt_opts_target_init(struct tt_opts_target *o, struct tt_target_config *cfg)
{
	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
}

void tt_opts_target_longopts(struct option *lo, size_t room, bool live)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "elf", required_argument, NULL, O_ELF },
		{ "address", required_argument, NULL, O_ADDRESS },
		{ "pointer", required_argument, NULL, O_POINTER },
		{ "base", required_argument, NULL, O_BASE },
		{ "tick-hz", required_argument, NULL, O_TICK_HZ },
		{ "time-wrap", required_argument, NULL, O_TIME_WRAP },
		{ "time-dir", required_argument, NULL, O_TIME_DIR },
		{ "format-opt", required_argument, NULL, O_FORMAT_OPT },
		{ "layout", required_argument, NULL, O_LAYOUT },
		/* live only (tracetapd): from here */
		{ "start-at-now", no_argument, NULL, O_NOW },
		{ "poll-min", required_argument, NULL, O_POLL_MIN },
		{ "poll-max", required_argument, NULL, O_POLL_MAX },
		{ "latency", required_argument, NULL, O_LATENCY },
		{ "max-read", required_argument, NULL, O_CHUNK },
		{ NULL, 0, NULL, 0 },
	};
	size_t n = sizeof(opts) / sizeof(opts[0]);

	if (!live) { /* the file options, then the end */
		n = 0;
		while (opts[n].val != O_NOW)
			n++;
		n++;
		if (n > room)
			n = room;
		memcpy(lo, opts, (n - 1) * sizeof(opts[0]));
		memset(&lo[n - 1], 0, sizeof(lo[0]));
		return;
	}

	memcpy(lo, opts, (n <= room ? n : room) * sizeof(opts[0]));
	if (n > room)
		memset(&lo[room - 1], 0, sizeof(lo[0]));
}

int tt_parse_u64(const char *s, uint64_t max, int suffix, uint64_t *out)
{
	char *end;
	uint64_t mul = 1;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (suffix && *end) {
		switch (*end++) {
		case 'k': case 'K': mul = 1000; break;
		case 'M': mul = 1000000; break;
		case 'G': mul = 1000000000; break;
		default: return -EINVAL;
		}
	}
	if (*end || (v && mul > max / v) || v * mul > max)
		return -EINVAL;
	*out = v * mul;
	return 0;
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

	switch (c) {
	case O_FORMAT:
		if (!tt_reader_find(arg)) {
			snprintf(err, errlen, "--format '%s': supported formats: %s", arg,
				 tt_reader_names());
			return -EINVAL;
		}
		cfg->format = arg;
		return 0;
	case O_ELF: cfg->elf = arg; return 0;
	case O_LAYOUT: cfg->layout = arg; return 0;
	case O_ADDRESS:
	case O_POINTER:
		rc = num(c == O_ADDRESS ? "address" : "pointer", arg, UINT64_MAX, 0, &cfg->address,
			 err, errlen);
		cfg->address_is_pointer = c == O_POINTER;
		return rc;
	case O_BASE: return num("base", arg, UINT64_MAX, 0, &cfg->file_base, err, errlen);
	case O_TICK_HZ: return num("tick-hz", arg, UINT64_C(100000000000), 1, &cfg->tick_hz, err, errlen);
	case O_TIME_WRAP: return num("time-wrap", arg, UINT64_C(1) << 32, 1, &cfg->time_wrap, err, errlen);
	case O_TIME_DIR:
		if (!strcmp(arg, "up"))
			cfg->time_dir = 1;
		else if (!strcmp(arg, "down"))
			cfg->time_dir = -1;
		else {
			snprintf(err, errlen, "--time-dir '%s': expected up or down", arg);
			return -EINVAL;
		}
		return 0;
	case O_NOW: cfg->start_at_now = true; return 0;
	case O_FORMAT_OPT:
		if (o->nfopts >= TT_OPTS_MAX_FORMAT) {
			snprintf(err, errlen, "--format-opt: at most %d", TT_OPTS_MAX_FORMAT);
			return -EINVAL;
		}
		o->fopts[o->nfopts++] = arg;
		o->fopts[o->nfopts] = NULL;
		cfg->format_opts = o->fopts;
		return 0;
	case O_POLL_MIN:
	case O_POLL_MAX:
		rc = num(c == O_POLL_MIN ? "poll-min" : "poll-max", arg, 60000, 0, &v, err, errlen);
		if (!rc && !v) {
			snprintf(err, errlen, "--%s: must be at least 1 ms",
				 c == O_POLL_MIN ? "poll-min" : "poll-max");
			return -EINVAL;
		}
		if (c == O_POLL_MIN)
			cfg->poll_min_ms = (unsigned)v;
		else
			cfg->poll_max_ms = (unsigned)v;
		return rc;
	case O_LATENCY:
		rc = num("latency", arg, 60000, 0, &v, err, errlen);
		if (!rc && !v) {
			snprintf(err, errlen, "--latency: must be at least 1 ms");
			return -EINVAL;
		}
		cfg->latency_ms = (unsigned)v;
		return rc;
	case O_CHUNK:
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
	} else if (!strncmp(p, "file:", 5) || !strncmp(p, "kev:", 4)) {
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
