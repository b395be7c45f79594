/* client/cli.c: options, help, daemon access and units shared by the client commands
 * (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/parse.h"
#include "../proto/token.h"
#include "export.h"
#include "textfmt.h"

enum {
	C_TAIL = 1 << 0,
	C_RECORD = 1 << 1,
	C_TARGETS = 1 << 2,
	C_STATUS = 1 << 3,
	C_EXPORT = 1 << 4,
	C_CAPTURES = 1 << 5,
	C_TOP = 1 << 6,
	C_ALL = (1 << 7) - 1, /* every command above */
};

struct cmd_doc {
	const char *name;
	unsigned bit;
	const char *usage; /* after "tracetap NAME" */
	const char *what;
	const char *examples;
};

static const struct cmd_doc cmds[] = {
	{ "tail", C_TAIL, "[URL] [options]",
	  "Follows the daemon's live events, like journalctl -f: one aligned line per record,\n"
	  "fitted to the terminal. Reconnects and resumes after the last record seen.",
	  "tracetap tail --target board1 --name THREAD_RESUME\n"
	  "tracetap tail --history 100 --wide\n"
	  "tracetap tail --json | jq 'select(.type == \"gap\")'" },
	{ "record", C_RECORD, "-o FILE [URL] [options]",
	  "Records the live events (and with --history the newest N before them) to a file,\n"
	  "until Ctrl-C, --duration or --count.",
	  "tracetap record -o run.jsonl --duration 10\n"
	  "tracetap record -o run.json --format perfetto --target board1 --count 100000" },
	{ "targets", C_TARGETS, "[URL] [options]",
	  "Lists the daemon's targets, one line each.",
	  "tracetap targets\ntracetap targets --json | jq -r '.[].name'" },
	{ "status", C_STATUS, "[URL] [options]",
	  "Shows the daemon's targets: state, events, rate, losses, probe traffic and clients.",
	  "tracetap status\ntracetap status --target board1\ntracetap status --json | jq ." },
	{ "export", C_EXPORT, "-o FILE [URL] [options]",
	  "Saves the history the daemon holds for a target (what it still keeps of the past).",
	  "tracetap export -o board1.trx --format trx --target board1\n"
	  "tracetap export -o - | jq -c 'select(.type == \"gap\")'" },
	{ "captures", C_CAPTURES, "[URL] [options]",
	  "Lists the captures the daemon's triggers wrote, newest first: when, target, trigger,\n"
	  "the seq that fired it, records, gaps inside, and the name to download them by\n"
	  "(/api/captures/NAME/capture.trx, .jsonl, .perfetto.json).",
	  "tracetap captures\ntracetap captures --target board1\n"
	  "tracetap captures --json | jq -r '.[0].name'" },
	{ "top", C_TOP, "[URL] [options]",
	  "A live view of a target's threads, like top: CPU share over the last second,\n"
	  "context switches per second, preemptions, stack bytes free, priority inversions\n"
	  "(the daemon's /api/stats), redrawn every second to the terminal's width.",
	  "tracetap top\ntracetap top --target board1\ntracetap top --count 1 | cat" },
};

struct opt_doc {
	const char *name;
	int has_arg;
	int val;
	const char *arg;
	unsigned cmds;
	const char *help;
};

static const struct opt_doc opts[] = {
	{ "output", 1, 'o', "FILE", C_RECORD | C_EXPORT, "write to FILE (- for stdout); required" },
	{ "target", 1, 'T', "NAME", C_TAIL | C_RECORD | C_STATUS | C_EXPORT | C_TOP | C_CAPTURES,
	  "only this target (default: every target; export: the only one)" },
	{ "format", 1, 'f', "FMT", C_RECORD | C_EXPORT,
	  "jsonl (default), trx, perfetto or ftrace" },
	{ "duration", 1, 'd', "SECONDS", C_TAIL | C_RECORD | C_TOP, "stop after this many seconds" },
	{ "count", 1, 'c', "N", C_TAIL | C_RECORD | C_TOP, "stop after N records (top: N screens)" },
	{ "id", 1, 'i', "N", C_TAIL | C_RECORD, "only events with this id (repeatable)" },
	{ "name", 1, 'n', "NAME", C_TAIL | C_RECORD,
	  "only events of this name, e.g. THREAD_RESUME (repeatable)" },
	{ "thread", 1, 't', "NAME", C_TAIL | C_RECORD, "only events of this thread (repeatable)" },
	{ "text", 1, 's', "TEXT", C_TAIL | C_RECORD, "only records whose JSON contains TEXT" },
	{ "history", 1, 'H', "N", C_TAIL | C_RECORD,
	  "start with the newest N records the daemon holds" },
	{ "wide", 0, 'w', NULL, C_TAIL, "every field, however long the line" },
	{ "json", 0, 'j', NULL, C_TAIL | C_TARGETS | C_STATUS | C_CAPTURES,
	  "JSON for scripts (tail: one record per line, as on the wire, and alerts)" },
	{ "no-color", 0, 'C', NULL, C_TAIL,
	  "no colours (none either when NO_COLOR is set or stdout is not a terminal)" },
	{ "token", 1, 'k', "TOKEN", C_ALL, "the daemon's token (default: $TRACETAP_TOKEN)" },
	{ "ca", 1, 'A', "FILE", C_ALL,
	  "wss:// or https://: trust the CAs in FILE (PEM), not the system's" },
	{ "help", 0, 'h', NULL, C_ALL, "this help" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static const struct cmd_doc *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static void usage(FILE *f, const struct cmd_doc *c)
{
	fprintf(f, "usage: tracetap %s %s\n\n%s\n\noptions:\n", c->name, c->usage, c->what);
	for (size_t i = 0; i < NOPTS; i++) {
		char flag[40];
		if (!(opts[i].cmds & c->bit))
			continue;
		snprintf(flag, sizeof(flag), "--%s%s%s", opts[i].name, opts[i].arg ? " " : "",
			 opts[i].arg ? opts[i].arg : "");
		fprintf(f, "  %-20s %s\n", flag, opts[i].help);
	}
	fprintf(f, "\nURL: the daemon, ws://HOST:PORT or HOST:PORT (default 127.0.0.1:7733);\n"
		   "wss://HOST:PORT for one serving TLS (its certificate must verify, for HOST).\n"
		   "\nexamples:\n");
	for (const char *p = c->examples; *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(f, "  %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static void bad_num(const char *cmd, const char *opt, const char *s, double max)
{
	fprintf(stderr, "tracetap %s: --%s %s: expected a number from 0 to %.0f\n", cmd, opt, s,
		max);
}

/* A whole non-negative number (tt_parse_u64) or fails; "10", not "10x" or "-1". */
static int parse_num(const char *cmd, const char *opt, const char *s, uint64_t max,
		     uint64_t *out)
{
	if (tt_parse_u64(s, max, 0, out) == 0)
		return 0;
	bad_num(cmd, opt, s, (double)max);
	return -1;
}

/* Seconds, fractions allowed ("0.5"). */
static int parse_seconds(const char *cmd, const char *opt, const char *s, double max,
			 double *out)
{
	char *e;
	double v;

	errno = 0;
	v = strtod(s, &e);
	if (e == s || *e || errno || !isfinite(v) || v < 0 || v > max) {
		bad_num(cmd, opt, s, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int take(struct tt_cli *o, int c, const char *name)
{
	uint64_t v;

	switch (c) {
	case 'T': o->target = optarg; return 0;
	case 's': o->text = optarg; return 0;
	case 'j': o->json = true; return 0;
	case 'w': o->wide = true; return 0;
	case 'C': o->color = false; return 0;
	case 'k': o->token = optarg; return 0;
	case 'A': o->ca = optarg; return 0;
	case 'o': o->out = optarg; return 0;
	case 'i':
		if (parse_num(o->cmd, name, optarg, UINT32_MAX, &v) < 0)
			return -1;
		if (o->nids < TT_CLI_MAX_FILTER)
			o->ids[o->nids++] = optarg;
		return 0;
	case 'n':
		if (o->nnames < TT_CLI_MAX_FILTER)
			o->names[o->nnames++] = optarg;
		return 0;
	case 't':
		if (o->nthreads < TT_CLI_MAX_FILTER)
			o->threads[o->nthreads++] = optarg;
		return 0;
	case 'H':
		if (parse_num(o->cmd, name, optarg, 1000000000, &v) < 0)
			return -1;
		o->history = (long)v;
		return 0;
	case 'd':
		return parse_seconds(o->cmd, name, optarg, 1e9, &o->duration);
	case 'c':
		if (parse_num(o->cmd, name, optarg, 1000000000000000ull, &v) < 0)
			return -1;
		o->count = (long long)v;
		return 0;
	case 'f':
		o->format = tt_export_format_parse(optarg);
		if (o->format >= 0)
			return 0;
		fprintf(stderr, "tracetap %s: --format %s: expected jsonl, trx, perfetto or ftrace\n",
			o->cmd, optarg);
		return -1;
	}
	return -1;
}

int tt_cli_parse(int argc, char **argv, const char *cmd, struct tt_cli *o)
{
	const struct cmd_doc *cd = find_cmd(cmd);
	struct option lo[NOPTS + 1];
	size_t n = 0;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->token = getenv("TRACETAP_TOKEN");
	o->color = tt_textfmt_want_color(stdout);
	o->format = TT_EXPORT_JSONL;
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].cmds & cd->bit)
			lo[n++] = (struct option){ opts[i].name, opts[i].has_arg, NULL, opts[i].val };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, cd->bit & (C_RECORD | C_EXPORT) ? ":o:f:h" : ":h", lo,
				&idx)) != -1) {
		if (c == 'h') {
			usage(stdout, cd);
			return 1;
		}
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];
			fprintf(stderr, "tracetap %s: %s '%s' (tracetap %s --help lists the options)\n",
				cmd, c == ':' ? "missing value for" : "unknown option", bad, cmd);
			return -1;
		}
		const char *name = "";
		for (size_t i = 0; i < NOPTS; i++)
			if (opts[i].val == c)
				name = opts[i].name;
		if (take(o, c, name) < 0)
			return -1;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "tracetap %s: unexpected argument '%s' (one URL at most)\n", cmd,
			argv[optind + 1]);
		return -1;
	}
	if (tt_url_parse(optind < argc ? argv[optind] : "ws://127.0.0.1:7733/ws", &o->url) < 0) {
		fprintf(stderr, "tracetap %s: bad URL '%s' (expected ws://HOST:PORT, "
			"wss://HOST:PORT or HOST:PORT)\n", cmd, argv[optind]);
		return -1;
	}
	if (o->ca && !o->url.tls) {
		fprintf(stderr, "tracetap %s: --ca %s: the daemon's URL is not TLS (wss://HOST:PORT "
			"is)\n", cmd, o->ca);
		return -1;
	}
	char why[160];
	if (o->token && tt_token_problem(o->token, why, sizeof(why))) {
		fprintf(stderr, "tracetap %s: %s: %s\n", cmd,
			o->token == getenv("TRACETAP_TOKEN") ? "$TRACETAP_TOKEN" : "--token", why);
		return -1;
	}
	if ((cd->bit & (C_RECORD | C_EXPORT)) && !o->out) {
		fprintf(stderr, "tracetap %s: -o FILE is required (- for stdout)\n", cmd);
		return -1;
	}
	return 0;
}

void tt_cli_connect_failed(const struct tt_cli *o, int rc, const char *err)
{
	char text[TT_TEXTFMT_CAP(400)];

	if (rc == -ECONNREFUSED || rc == -EHOSTUNREACH || rc == -ENETUNREACH || rc == -ETIMEDOUT)
		fprintf(stderr, "tracetap %s: cannot reach tracetapd at %s:%d (%s): is it running? "
				"(systemctl status tracetapd; or name its address: tracetap %s "
				"HOST:PORT)\n", o->cmd, o->url.host, o->url.port, strerror(-rc), o->cmd);
	else
		fprintf(stderr, "tracetap %s: %s\n", o->cmd,
			tt_textfmt_clean(text, sizeof(text), err, 400));
}

int tt_cli_get(const struct tt_cli *o, const char *path, cJSON **out, char **body_out,
	       size_t *len_out)
{
	char *body = NULL, err[1024];
	size_t len = 0;
	/* Bounded in bytes and time whatever the server does: a status answer in 5 s and
	 * 16 MiB, an export (the whole history) in 2 min and 1 GiB. */
	bool json = out != NULL;
	struct tt_http_opts ho = { .host = o->url.host, .port = o->url.port, .tls = o->url.tls,
				   .ca = o->ca, .path = path, .token = o->token,
				   .timeout_ms = json ? 5000 : 120000,
				   .max_bytes = json ? TT_HTTP_MAX_DEFAULT : 1u << 30 };
	int st = tt_http_get(&ho, &body, &len, err, sizeof(err));

	if (st == -EFBIG || st == -ETIMEDOUT) {
		fprintf(stderr, "tracetap %s: tracetapd at %s:%d: the answer to %s %s\n", o->cmd,
			o->url.host, o->url.port, path, st == -EFBIG ?
			(json ? "went past 16 MiB: stopped reading" : "went past 1 GiB: stopped reading") :
			(json ? "took over 5 s: stopped reading" : "took over 2 min: stopped reading"));
		return 1;
	}
	if (st < 0) {
		tt_cli_connect_failed(o, st, err);
		return 1;
	}
	if (st != 200) {
		/* The daemon's reason: the API's {"error": ...}, else one line of the body. */
		cJSON *j = body ? cJSON_ParseWithLength(body, len) : NULL;
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(j, "error"));
		size_t n = why ? strlen(why) : strcspn(body ? body : "", "\r\n");
		char text[TT_TEXTFMT_CAP(300)];
		fprintf(stderr, "tracetap %s: tracetapd at %s:%d answered %d to %s: %s\n", o->cmd,
			o->url.host, o->url.port, st, path,
			tt_textfmt_clean(text, sizeof(text), why ? why : body ? body : "",
					 n > 300 ? 300 : n));
		cJSON_Delete(j);
		free(body);
		return 1;
	}
	if (out && !(*out = cJSON_ParseWithLength(body, len))) {
		fprintf(stderr, "tracetap %s: tracetapd at %s:%d answered %s with something other "
				"than JSON\n", o->cmd, o->url.host, o->url.port, path);
		free(body);
		return 1;
	}
	if (body_out) {
		*body_out = body;
		*len_out = len;
	} else {
		free(body);
	}
	return 0;
}

const char *tt_cli_target_list(const cJSON *targets, char *buf, size_t cap)
{
	const cJSON *t;
	size_t n = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(t, targets) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
		if (!name)
			continue;
		char text[TT_TEXTFMT_CAP(64)];
		int k = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
				 tt_textfmt_clean(text, sizeof(text), name, 64));
		if (k < 0 || (size_t)k >= cap - n) {
			snprintf(buf + (cap > 6 ? cap - 6 : 0), cap > 6 ? 6 : cap, ", ...");
			break;
		}
		n += (size_t)k;
	}
	return n ? buf : "none";
}

int tt_cli_check_target(const struct tt_cli *o, const cJSON *targets)
{
	const cJSON *t;
	char list[1024];

	if (!o->target)
		return 0;
	cJSON_ArrayForEach(t, targets) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
		if (name && !strcmp(name, o->target))
			return 0;
	}
	fprintf(stderr, "tracetap %s: no target named '%s' at %s:%d; its targets: %s\n", o->cmd,
		o->target, o->url.host, o->url.port, tt_cli_target_list(targets, list, sizeof(list)));
	return 1;
}

static const char *scaled(char *buf, size_t cap, double v, double step, const char *const *units,
			  size_t nunits, const char *sep)
{
	size_t u = 0;

	while (fabs(v) >= step && u + 1 < nunits) {
		v /= step;
		u++;
	}
	if (u == 0 || fabs(v) >= 100)
		snprintf(buf, cap, "%.0f%s%s", v, sep, units[u]);
	else
		snprintf(buf, cap, "%.1f%s%s", v, sep, units[u]);
	return buf;
}

const char *tt_cli_count(char *buf, size_t cap, double v)
{
	static const char *const u[] = { "", "k", "M", "G", "T" };
	return scaled(buf, cap, v, 1000, u, 5, "");
}

const char *tt_cli_bytes(char *buf, size_t cap, double v)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	return scaled(buf, cap, v, 1024, u, 5, " ");
}

/* Appends key=s to the query, s percent-encoded. 0, or -1 when it does not fit (q is then
 * left as it was). */
int tt_cli_query(char *q, size_t cap, const char *key, const char *s)
{
	size_t start = strlen(q), n = start;
	int k = snprintf(q + n, cap - n, "%s%s=", strchr(q, '?') ? "&" : "?", key);

	if (k < 0 || (size_t)k >= cap - n)
		goto full;
	for (n += (size_t)k; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (n + 4 > cap)
			goto full;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c))
			q[n++] = (char)c;
		else
			n += (size_t)snprintf(q + n, cap - n, "%%%02X", c);
	}
	q[n] = '\0';
	return 0;
full:
	q[start] = '\0';
	return -1;
}
