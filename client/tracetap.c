/* client/tracetap.c: the `tracetap` client: subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cmd_probes.h"
#include "cmd_tail.h"
#include "commands.h"
#include "tt_config.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "tail", tt_cmd_tail, "follow a target's live events (like journalctl -f)" },
	{ "record", tt_cmd_record, "record a target's events to a file (jsonl, trx, perfetto, ftrace)" },
	{ "targets", tt_cmd_targets, "list the daemon's targets" },
	{ "status", tt_cmd_status,
	  "show the daemon's targets: state, events, rate, losses, probe bytes, clients" },
	{ "top", tt_cmd_top, "a target's threads live: CPU, switches, stack, inversions" },
	{ "export", tt_cmd_export, "save the history the daemon holds for a target to a file" },
	{ "captures", tt_cmd_captures, "list the captures the daemon's triggers wrote" },
	{ "decode", tt_cmd_decode, "print every event of a trace file (.trx, RAM dump)" },
	{ "analyze", tt_cmd_analyze, "statistics of a trace file, like TraceX's (--json)" },
	{ "layout", tt_cmd_layout, "save what a firmware ELF tells the trace reader (for --layout)" },
	{ "probes", tt_cmd_probes, "list the debug probes plugged in, with their OpenOCD arguments" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tracetap COMMAND [options]   (tracetap COMMAND --help)\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tracetap %s\n", TT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "tracetap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
