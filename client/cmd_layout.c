/* client/cmd_layout.c: `tracetap layout --elf FW [--format nuttx] [--format-opt K=V]`: what the
 * firmware ELF tells the trace reader (NuttX: the note layout from DWARF, the address of
 * g_noteram_driver, syscall names, printf format strings), as a layout file (daemon/layout.h)
 * on stdout, for `--layout FILE` where the ELF is not at hand.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../fw/fw.h"
#include "../proto/reader.h"
#include "commands.h"
#include "layout.h"
#include "opts.h"
#include "target.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: tracetap layout --elf FW [--format nuttx] [--format-opt KEY=VALUE]...\n"
		   "Write what the firmware ELF tells the trace reader as a layout file (JSON) on\n"
		   "stdout, for tracetapd and `tracetap decode` where the ELF is not at hand:\n"
		   "  tracetap layout --elf nuttx > board.json; tracetap decode --layout board.json\n"
		   "nuttx: the note layout (DWARF), the address of g_noteram_driver, the syscall\n"
		   "names (g_funcnames) and the read-only strings with a '%%' (printf formats).\n");
}

int tt_cmd_layout(int argc, char **argv)
{
	struct tt_target_config cfg = { 0 };
	struct tt_opts_target ot;
	struct tt_format_cfg fcfg = { .owned = NULL };
	const void *format_cfg = NULL;
	char err[512];
	enum { O_HELP = 1 };
	struct option lo[32] = { { "help", no_argument, NULL, O_HELP } };
	int c, rc;

	tt_opts_target_init(&ot, &cfg);
	tt_opts_target_longopts(lo + 1, sizeof(lo) / sizeof(lo[0]) - 1, false);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'h' || c == O_HELP) {
			usage(stdout);
			return 0;
		}
		if ((rc = tt_opts_target_parse(&ot, c, optarg, err, sizeof(err))) != 0) {
			if (rc < 0)
				fprintf(stderr, "tracetap layout: %s\n", err);
			else
				usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !cfg.elf || cfg.layout) {
		usage(stderr);
		return 2;
	}
	/* the formats with more than an address to save: the first is the default */
	const struct tt_reader_ops *r, *first = NULL;
	char names[128] = "";
	for (size_t i = 0; (r = tt_reader_at(i)); i++) {
		if (!r->layout_write)
			continue;
		first = first ? first : r;
		size_t n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", r->name);
	}
	if (!cfg.format && first)
		cfg.format = first->name;
	r = cfg.format ? tt_reader_find(cfg.format) : NULL;
	if (!r || !r->layout_write) {
		fprintf(stderr, "tracetap layout: format %s: only %s has a layout to save (the "
			"others need only the address: --elf or --address)\n",
			cfg.format ? cfg.format : "(none)", names);
		return 2;
	}
	if (tt_target_format_cfg(&cfg, r, &fcfg, &format_cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracetap layout: %s\n", err);
		return 1;
	}
	uint64_t addr = cfg.address;
	if (!addr && tt_elf_symbol(cfg.elf, tt_reader_elf_symbol(r, format_cfg), &addr, err,
				   sizeof(err)) < 0) {
		fprintf(stderr, "tracetap layout: %s\n", err);
		tt_format_cfg_release(&fcfg);
		return 1;
	}
	rc = tt_layout_write(stdout, r, format_cfg, addr, cfg.elf);
	tt_format_cfg_release(&fcfg);
	if (rc < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "tracetap layout: writing the layout failed\n");
		return 1;
	}
	return 0;
}
