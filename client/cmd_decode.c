/* client/cmd_decode.c: `tracetap decode FILE`: every event of a trace file, oldest first; and
 * `tracetap analyze FILE`: the same records through the live analysis (analysis/analysis.h),
 * its statistics as text laid out like TraceX's sections, or as JSON (equal to tracetapd's
 * /api/stats of the same events).
 *
 * Loads a trace file or a RAM dump (raw binary, Intel HEX or S-record, by content) and runs the
 * same reader the daemon uses live over it (the format's decode_image, proto/reader.h). Text by default,
 * one JSON record per line with --json (proto/PROTOCOL.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "../analysis/analysis.h"
#include "../fw/fw.h"
#include "../probe/image.h"
#include "../proto/json.h"
#include "../proto/reader.h"
#include "commands.h"
#include "export.h"
#include "follow.h"
#include "layout.h"
#include "opts.h"
#include "target.h"
#include "record_json.h"
#include "textfmt.h"

#define MAX_FILE (256u << 20)

struct decode {
	int json, traceprinter;
	/* --traceprinter: the format's own tool's text (reader.h: native_line) and what its
	 * lines need of the source (byte order, OS release) */
	const struct tt_reader_ops *native;
	struct tt_native_ctx nctx;
	uint64_t n;
	struct tt_textfmt tf;
	struct tt_export *ex; /* --to: records go to the exporter instead of stdout */
	int ex_err;           /* the first error the exporter returned */
	FILE *out;            /* -o FILE (or stdout) for --to */
	bool analyze;         /* `tracetap analyze`: records go to an instead */
	struct tt_analysis *an;
};

/* A wire record to the exporter (--to); the first error it returns is kept. */
static void export_wire(struct decode *d, const char *json, size_t len)
{
	int rc = tt_export_record(d->ex, json, len);

	if (rc < 0 && rc != -EINVAL && !d->ex_err)
		d->ex_err = rc;
}

/* Writes the n bytes in buf as a line (buf has room for the newline); n < 0: nothing. */
static void put_line(char *buf, int n)
{
	if (n < 0)
		return;
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, stdout);
}

static void on_record(void *arg, const struct tt_record *rec)
{
	struct decode *d = arg;
	char buf[TT_JSON_MAX_RECORD];
	int n;

	d->n++;
	if (d->an) {
		tt_analysis_record(d->an, rec);
		return;
	}
	if (d->ex) {
		/* the exporters take the wire records (export/export.h), as /api/export does */
		n = tt_json_record(buf, sizeof(buf), rec, NULL, d->n);
		if (n >= 0)
			export_wire(d, buf, (size_t)n);
		return;
	}
	if (d->json)
		n = tt_json_record(buf, sizeof(buf) - 1, rec, NULL, d->n);
	else if (d->traceprinter)
		n = tt_textfmt_native(buf, sizeof(buf) - 1, rec, d->native, &d->nctx);
	else
		n = tt_textfmt_record(&d->tf, buf, sizeof(buf) - 1, rec, d->n);
	put_line(buf, n);
}

/* Standard input ("-"), read to its end, up to MAX_FILE. */
static int read_stdin(char **data, size_t *len)
{
	size_t cap = 1 << 16, n = 0, k;
	char *buf = malloc(cap + 1);

	while (buf && (k = fread(buf + n, 1, cap - n, stdin)) > 0) {
		n += k;
		if (n == cap) {
			char *b = cap < MAX_FILE ? realloc(buf, cap * 2 + 1) : NULL;
			if (!b) {
				fprintf(stderr, "tracetap decode: standard input: larger than the %u "
					"MiB limit\n", MAX_FILE >> 20);
				free(buf);
				return -1;
			}
			buf = b;
			cap *= 2;
		}
	}
	if (!buf || ferror(stdin)) {
		fprintf(stderr, "tracetap decode: standard input: read failed\n");
		free(buf);
		return -1;
	}
	buf[n] = 0;
	*data = buf;
	*len = n;
	return 0;
}

static int read_file(const char *path, char **data, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	struct stat sb;

	if (!strcmp(path, "-"))
		return read_stdin(data, len);
	if (!f) {
		fprintf(stderr, "tracetap decode: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "tracetap decode: %s: not a regular file\n", path);
		fclose(f);
		return -1;
	}
	if ((uint64_t)sb.st_size > MAX_FILE) {
		fprintf(stderr, "tracetap decode: %s: %lld bytes is larger than the %u MiB limit\n",
			path, (long long)sb.st_size, MAX_FILE >> 20);
		fclose(f);
		return -1;
	}
	*len = (size_t)sb.st_size;
	*data = malloc(*len + 1);
	if (!*data || fread(*data, 1, *len, f) != *len) {
		fprintf(stderr, "tracetap decode: %s: read failed\n", path);
		free(*data);
		fclose(f);
		return -1;
	}
	(*data)[*len] = 0;
	fclose(f);
	return 0;
}

/* --elf: without --address, the control structure's address from the format's symbol (the
 * format's extras from DWARF come with the format options). Needs --format: a file's signature
 * is not known yet. A symbol that holds a pointer (ThreadX) is set at run time, so a file cannot
 * use it. */
static int elf_address(struct tt_target_config *cfg, const void *format_cfg)
{
	const struct tt_reader_ops *r = cfg->format ? tt_reader_find(cfg->format) : NULL;
	char err[512];

	if (!r) {
		fprintf(stderr, "tracetap decode: --elf needs --format (the reader whose symbols "
			"and types to look up)\n");
		return -1;
	}
	if (cfg->address || !r->elf_symbol)
		return 0;
	const char *sym = tt_reader_elf_symbol(r, format_cfg);
	if (tt_elf_symbol(cfg->elf, sym, &cfg->address, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracetap decode: %s\n", err);
		return -1;
	}
	/* a pointer the target set at run time (_tx_trace_header_ptr): read from the image */
	cfg->address_is_pointer = r->elf_symbol_is_pointer;
	return 0;
}

/* --pointer ADDR (or a pointer symbol from --elf): the header address is the pointer's value in
 * the image, which holds [base, base + len). 0, or -1 with the error printed. */
static int deref_pointer(const char *path, struct tt_target_config *cfg, const uint8_t *bytes,
			 size_t len, uint64_t base)
{
	uint64_t pa = cfg->address;

	if (pa < base || pa - base > len || len - (pa - base) < 4) {
		fprintf(stderr, "tracetap decode: %s: the trace header pointer at 0x%" PRIx64 " is "
			"outside the image [0x%" PRIx64 ", 0x%" PRIx64 ") (--base sets where the "
			"image starts)\n", path, pa, base, base + len);
		return -1;
	}
	uint32_t v = tt_target_header_ptr(bytes + (pa - base));
	if (!v) {
		fprintf(stderr, "tracetap decode: %s: the trace header pointer at 0x%" PRIx64 " is "
			"NULL: tracing was not enabled when this image was taken\n", path, pa);
		return -1;
	}
	cfg->address = v;
	cfg->address_is_pointer = false;
	return 0;
}

/* The segment of a HEX/S-record image that holds addr (the lowest one when none does). */
static size_t image_seg(const struct tt_image *img, uint64_t addr)
{
	for (size_t i = 0; addr && i < img->nseg; i++)
		if (addr >= img->seg[i].addr && addr - img->seg[i].addr < img->seg[i].len)
			return i;
	return 0;
}

static int file_write(void *arg, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -EIO;
}

static void print_line(void *arg, const char *line, size_t len)
{
	(void)arg;
	fwrite(line, 1, len, stdout);
	putchar('\n');
}

/* --traceprinter: the lines the format's tool prints of a file's header, and the byte order
 * and release its event lines need (nothing when buf does not start with a header). */
static void native_header(struct decode *d, const uint8_t *buf, size_t len)
{
	(void)d->native->native_header(buf, len, &d->nctx, print_line, NULL);
}

/* --follow FILE.kev: like `tail -f` (daemon/follow.h), a look every 100 ms until SIGINT or
 * SIGTERM. An unreadable file or a malformed header ends it with status 1. */
static volatile sig_atomic_t follow_stop;

static void on_follow_signal(int sig)
{
	(void)sig;
	follow_stop = 1;
}

static int follow_file(const struct tt_reader_ops *fr, const char *path, uint64_t tick_hz,
		       struct decode *d)
{
	struct sigaction sa = { .sa_handler = on_follow_signal };
	struct tt_follow *f;
	bool waited_msg = false;
	char err[512];
	int rc = 0, st;

	if (tt_follow_new(fr, path, tick_hz, &f) < 0) {
		fprintf(stderr, "tracetap decode: out of memory\n");
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!follow_stop) {
		st = tt_follow_step(f, on_record, d, err, sizeof(err));
		if (st < 0) {
			fprintf(stderr, "tracetap decode: %s\n", err);
			rc = 1;
			break;
		}
		size_t hlen;
		const uint8_t *hdr = tt_follow_new_header(f, &hlen);
		if (hdr && d->traceprinter)
			native_header(d, hdr, hlen);
		if (st == TT_FOLLOW_WAITING && !waited_msg) {
			fprintf(stderr, "tracetap decode: %s: waiting for the rest of the header "
				"(or for the file)\n", path);
			waited_msg = true;
		}
		fflush(stdout);
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	tt_follow_free(f, rc ? NULL : on_record, d);
	fflush(stdout);
	return rc;
}

/* The format --follow reads: the one given, when it has a stream_scheme (a file in its own
 * layout read while it is written), else the first that has one; NULL when none does. */
static const struct tt_reader_ops *follow_reader(const char *format)
{
	const struct tt_reader_ops *r = format ? tt_reader_find(format) : NULL;

	if (format)
		return r && r->stream_scheme ? r : NULL;
	for (size_t i = 0; (r = tt_reader_at(i)); i++)
		if (r->stream_scheme)
			return r;
	return NULL;
}

/* --to FMT [-o FILE]: the exporters of export/export.h, as /api/export and `tracetap record`
 * use them, fed the same records `--json` prints. */
static int start_export(struct decode *d, int fmt, const char *path)
{
	d->out = path ? fopen(path, "wb") : stdout;
	if (!d->out) {
		fprintf(stderr, "tracetap decode: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (tt_export_new((enum tt_export_format)fmt, file_write, d->out, &d->ex) < 0) {
		fprintf(stderr, "tracetap decode: out of memory\n");
		if (path)
			fclose(d->out);
		return -1;
	}
	return 0;
}

/* Writes the trailer (the whole file for trx) and says what was written. ok: the decode
 * succeeded; otherwise the output is removed rather than left half-written. */
static int finish_export(struct decode *d, int fmt, const char *path, bool ok)
{
	int rc = ok && !d->ex_err ? tt_export_finish(d->ex) : 0;
	const char *name = tt_export_format_name((enum tt_export_format)fmt);

	if (!rc && d->ex_err)
		rc = d->ex_err;
	if (ok && rc < 0)
		fprintf(stderr, "tracetap decode: writing %s: %s\n", path ? path : "stdout",
			strerror(-rc));
	else if (ok) {
		uint64_t lost, gaps = tt_export_trx_gaps(d->ex, &lost);
		char note[128];
		fprintf(stderr, "tracetap decode: %" PRIu64 " records written to %s (%s)%s%s\n",
			tt_export_written(d->ex), path ? path : "stdout", name,
			tt_export_skipped(d->ex) ? ", some not representable in this format" : "",
			tt_export_trx_note(note, sizeof(note), gaps, lost));
	}
	tt_export_free(d->ex);
	d->ex = NULL;
	if (path && fclose(d->out) != 0 && ok && !rc) {
		fprintf(stderr, "tracetap decode: writing %s: %s\n", path, strerror(errno));
		rc = -EIO;
	}
	if (path && (!ok || rc < 0))
		unlink(path);
	return ok && !rc ? 0 : -1;
}

/* A recording (`tracetap record`, /api/export?format=jsonl): wire records, one per line. */
static bool looks_jsonl(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	return i < len && text[i] == '{';
}

/* Each line of a recording, printed or exported when emit; without emit only checked. Returns
 * 0, or the number of the first line that is not a record. */
static size_t jsonl_each(const char *text, size_t len, struct decode *d, bool emit)
{
	const char *p = text, *end = text + len;
	size_t line = 0;

	for (const char *next; p < end; p = next) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		struct tt_record_json rj;
		cJSON *o;
		next = nl ? nl + 1 : end;
		line++;
		if (n && p[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		o = cJSON_ParseWithLength(p, n);
		if (!o || tt_record_from_json(o, &rj) < 0) {
			cJSON_Delete(o);
			return line;
		}
		if (emit && d->an) {
			/* a recording's own seqs, so its inversions name the records it holds */
			if (rj.seq)
				tt_analysis_record_seq(d->an, &rj.rec, rj.seq);
			else
				tt_analysis_record(d->an, &rj.rec);
		} else if (emit && d->ex) {
			export_wire(d, p, n);
		} else if (emit && d->json) {
			fwrite(p, 1, n, stdout); /* the recording's own bytes */
			putchar('\n');
		} else if (emit) {
			char buf[TT_JSON_MAX_RECORD];
			d->tf.target = rj.target;
			put_line(buf, tt_textfmt_record(&d->tf, buf, sizeof(buf) - 1, &rj.rec, rj.seq));
		}
		cJSON_Delete(o);
	}
	return 0;
}

static void count_record(void *arg, const struct tt_record *rec)
{
	(void)rec;
	(*(uint64_t *)arg)++;
}

static void usage(FILE *f, bool analyze)
{
	if (analyze)
		fprintf(f, "usage: tracetap analyze FILE [--json] [decode's options]\n"
			   "The statistics of every event of FILE (any file `tracetap decode`\n"
			   "reads): performance statistics, thread execution, stack usage, the\n"
			   "format's own counters (ThreadX: FileX, NetX), popular services and\n"
			   "priority inversions, laid out like TraceX's text export, or as JSON\n"
			   "(--json: the schema of tracetapd's /api/stats). A recording (JSONL)\n"
			   "takes --format for the rules of its events.\n\n");
	fprintf(f, "usage: tracetap decode FILE [--format FMT] [--json] [--no-color]\n"
		   "       tracetap decode FILE --to jsonl|perfetto|ftrace|trx [-o OUT]\n"
		   "       tracetap decode [--follow] [--traceprinter] FILE.kev [--tick-hz HZ]\n"
		   "Print every event of a trace file (TraceX .trx, QNX .kev) or a RAM dump\n"
		   "(raw, Intel HEX, S-record), oldest first. The format is detected from the\n"
		   "file when it has a signature (.trx, .kev); RAM dumps default to threadx.\n"
		   "With --elf (and --format): the address from the format's symbol unless\n"
		   "--address is given (threadx: _tx_trace_header_ptr, a pointer read from the\n"
		   "image, like --pointer), and for nuttx the note layout from the ELF's DWARF\n"
		   "(or from --layout FILE, saved by `tracetap layout`); a NuttX file that does\n"
		   "not hold the ring at that address is read as `trace dump -b` output.\n"
		   "--to FMT: convert instead of printing, to OUT (default stdout) in the\n"
		   "format of tracetapd's /api/export and `tracetap record` (trx: a TraceX\n"
		   "file; perfetto: ui.perfetto.dev; ftrace: text; jsonl: the wire records).\n"
		   "--follow: a QNX .kev that tracelogger is writing, like `tail -f` (a file\n"
		   "truncated or replaced is a reset record and is read again); until SIGINT.\n"
		   "--traceprinter: QNX events in the text form of QNX's traceprinter.\n%s",
		tt_opts_target_help());
}

/* One `tracetap decode` run: its options, the file and what is decoded from it. */
struct decode_run {
	struct decode d;
	struct tt_target_config cfg;
	struct tt_opts_target ot;
	char err[512], lfmt[32]; /* lfmt: the format a --layout file names (cfg.format) */
	int color, follow, to;
	const char *out_path, *path;
	const struct tt_reader_ops *reader;
	struct tt_format_cfg fcfg;
	const void *format_cfg;
	bool sym_address;        /* the address from the ELF's symbol or the layout file */
	char *text;              /* the whole file (owned) */
	struct tt_image img;     /* the file's segments when it is Intel HEX or S-record */
	const uint8_t *bytes;    /* what the reader decodes: the file, or one segment */
	size_t len;
	uint64_t base;
	enum tt_image_format fmt;
};

enum { GO_ON = -1 }; /* a step's result when the run goes on (else the exit status) */
enum { O_JSON = 1, O_NOCOLOR, O_HELP, O_FOLLOW, O_TP, O_TO };

/* One option: GO_ON, or the exit status. */
static int take_opt(struct decode_run *r, int c, char **argv)
{
	int rc;

	if (c == O_TO) {
		if ((r->to = tt_export_format_parse(optarg)) < 0) {
			fprintf(stderr, "tracetap decode: --to '%s': expected jsonl, perfetto, "
				"ftrace or trx\n", optarg);
			return 2;
		}
	} else if (c == 'o') {
		r->out_path = optarg;
	} else if (c == O_JSON) {
		r->d.json = 1;
	} else if (c == O_NOCOLOR) {
		r->color = 0;
	} else if (c == O_FOLLOW) {
		r->follow = 1;
	} else if (c == O_TP) {
		r->d.traceprinter = 1;
	} else if (c == 'h' || c == O_HELP) {
		usage(stdout, r->d.analyze);
		return 0;
	} else if (c == '?' || c == ':') {
		fprintf(stderr, "tracetap decode: %s '%s' (tracetap decode --help lists the "
			"options)\n", c == ':' ? "missing value for" : "unknown option",
			argv[optind - 1]);
		return 2;
	} else if ((rc = tt_opts_target_parse(&r->ot, c, optarg, r->err, sizeof(r->err))) != 0) {
		fprintf(stderr, "tracetap decode: %s\n", rc < 0 ? r->err : "unknown option");
		return 2;
	}
	return GO_ON;
}

/* The command line, and the options that do not go together: GO_ON, or the exit status. */
static int parse_opts(struct decode_run *r, int argc, char **argv)
{
	struct option lo[32] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "no-color", no_argument, NULL, O_NOCOLOR },
		{ "help", no_argument, NULL, O_HELP },
		{ "follow", no_argument, NULL, O_FOLLOW },
		{ "traceprinter", no_argument, NULL, O_TP },
		{ "to", required_argument, NULL, O_TO },
		{ "output", required_argument, NULL, 'o' },
	};
	int c, rc;

	tt_opts_target_init(&r->ot, &r->cfg);
	tt_opts_target_longopts(lo + 7, sizeof(lo) / sizeof(lo[0]) - 7, false);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1)
		if ((rc = take_opt(r, c, argv)) != GO_ON)
			return rc;
	if (optind + 1 != argc) {
		fprintf(stderr, "tracetap decode: %s (usage: tracetap decode FILE [options]; - for "
			"standard input; --help lists the options)\n",
			optind >= argc ? "no FILE given" : "one FILE at a time");
		return 2;
	}
	r->path = argv[optind];
	if ((r->out_path && r->to < 0) ||
	    (r->to >= 0 && (r->d.json || r->d.traceprinter || r->follow))) {
		fprintf(stderr, "tracetap decode: -o goes with --to, which converts a whole file "
			"(not with --json, --traceprinter or --follow)\n");
		return 2;
	}
	const struct tt_reader_ops *given = r->cfg.format ? tt_reader_find(r->cfg.format) : NULL;
	if (r->d.traceprinter && (r->d.json || (r->cfg.format && (!given || !given->native_line)))) {
		fprintf(stderr, "tracetap decode: --traceprinter is QNX's text form: not with "
			"--json or another --format\n");
		return 2;
	}
	return GO_ON;
}

/* The format (from --format or a --layout file), its options, the ELF's address, and the
 * file read whole: GO_ON, or the exit status. */
static int open_input(struct decode_run *r)
{
	struct tt_target_config *cfg = &r->cfg;

	/* --layout without --format: the layout file names its format */
	if (cfg->layout && !cfg->format) {
		if (tt_layout_format(cfg->layout, r->lfmt, sizeof(r->lfmt), r->err,
				     sizeof(r->err)) < 0 || !tt_reader_find(r->lfmt)) {
			fprintf(stderr, "tracetap decode: %s\n", cfg->layout && !*r->err ?
				"--layout: unknown format" : r->err);
			return 1;
		}
		cfg->format = r->lfmt;
	}
	/* With --format, the format options (and the ELF's layout) first: their errors say more
	 * than a missing symbol. Without it, once the file's signature has chosen the reader. */
	r->reader = cfg->format ? tt_reader_find(cfg->format) : NULL;
	if (r->reader && tt_target_format_cfg(cfg, r->reader, &r->fcfg, &r->format_cfg, r->err,
					      sizeof(r->err)) < 0) {
		fprintf(stderr, "tracetap decode: %s\n", r->err);
		return 1;
	}
	/* an address from the ELF's symbol or the layout file, not --address: a NuttX file may
	 * also be a record stream (`trace dump -b`), which the content tells below */
	r->sym_address = !cfg->address && (cfg->elf || r->fcfg.address);
	if (cfg->elf && elf_address(cfg, r->format_cfg) < 0)
		return 1;
	if (!cfg->address)
		cfg->address = r->fcfg.address;
	if (read_file(r->path, &r->text, &r->len) < 0)
		return 1;
	if (!r->len) {
		fprintf(stderr, "tracetap decode: %s: empty: nothing to decode (a .trx, .kev, RAM "
			"dump, `trace dump -b` output or a `tracetap record` JSONL file)\n", r->path);
		return 1;
	}
	r->d.tf.color = r->color < 0 ? tt_textfmt_want_color(stdout) : r->color;
	return GO_ON;
}

/* A recording (`tracetap record`, /api/export?format=jsonl), printed or converted. */
static int decode_jsonl(struct decode_run *r)
{
	size_t bad = jsonl_each(r->text, r->len, &r->d, false);
	const struct tt_reader_ops *fmt = r->cfg.format ? tt_reader_find(r->cfg.format) : NULL;

	if (!bad && r->d.analyze && tt_analysis_new(fmt ? fmt->analysis : NULL, NULL,
						    &r->d.an) < 0) {
		fprintf(stderr, "tracetap analyze: out of memory\n");
		return 1;
	}

	if (bad)
		fprintf(stderr, "tracetap decode: %s: line %zu is not a tracetap record (a "
			"JSONL file must be a recording: `tracetap record`, /api/export)\n",
			r->path, bad);
	else if (r->d.traceprinter)
		fprintf(stderr, "tracetap decode: %s: --traceprinter needs QNX events, not "
			"a recording\n", r->path);
	else if (r->to < 0 || start_export(&r->d, r->to, r->out_path) == 0)
		return jsonl_each(r->text, r->len, &r->d, true) ||
		       (r->d.ex && finish_export(&r->d, r->to, r->out_path, true) < 0);
	return 1;
}

/* Where the trace is in the file: an Intel HEX or S-record file's segment, or a raw file at
 * its base (a header pointer followed): GO_ON, or the exit status. */
static int locate_trace(struct decode_run *r)
{
	struct tt_target_config *cfg = &r->cfg;
	int rc;

	r->bytes = (const uint8_t *)r->text;
	r->base = cfg->file_base;
	r->fmt = tt_image_detect(r->text, r->len);
	if (r->fmt != TT_IMAGE_RAW) {
		rc = tt_image_parse(r->fmt, r->text, r->len, &r->img, r->err, sizeof(r->err));
		if (rc < 0 || !r->img.nseg) {
			fprintf(stderr, "tracetap decode: %s: %s\n", r->path,
				rc < 0 ? r->err : "no data records");
			return 1;
		}
		/* The segment holding the header (by --address, else the lowest); with a header
		 * pointer, the one holding the pointer, then the one holding the header. */
		const struct tt_image *img = &r->img;
		size_t s = image_seg(img, cfg->address);
		if (cfg->address_is_pointer && deref_pointer(r->path, cfg, img->seg[s].data,
							     img->seg[s].len, img->seg[s].addr) < 0)
			return 1;
		s = image_seg(img, cfg->address);
		r->bytes = img->seg[s].data;
		r->len = img->seg[s].len;
		r->base = img->seg[s].addr;
	}
	/* A raw file starts at --base, else at --address (--pointer: the pointer's address); with
	 * neither the format decides (a .trx header carries its own address). */
	if (r->fmt == TT_IMAGE_RAW) {
		r->base = cfg->file_base ? cfg->file_base : cfg->address;
		if (cfg->address_is_pointer &&
		    deref_pointer(r->path, cfg, r->bytes, r->len, r->base) < 0)
			return 1;
	}
	/* Without --format, the file's signature decides (a .trx, a .kev), else ThreadX. */
	if (!r->reader) {
		r->reader = tt_reader_detect(r->bytes, r->len);
		if (!r->reader)
			r->reader = tt_reader_default();
		if (tt_target_format_cfg(cfg, r->reader, &r->fcfg, &r->format_cfg, r->err,
					 sizeof(r->err)) < 0) {
			fprintf(stderr, "tracetap decode: %s\n", r->err);
			return 1;
		}
	}
	return GO_ON;
}

/* The trace, checked whole before anything is printed: a file that is not a trace of this
 * format is one error, not screens of garbage before it. A file cut short in its last record
 * (-ENODATA) prints what it holds, then says so. */
static int decode_trace(struct decode_run *r)
{
	const struct tt_reader_ops *reader = r->reader;
	struct tt_reader_config rc_cfg = {
		.address = r->cfg.address,
		.tick_hz = r->cfg.tick_hz,
		.time_wrap = r->cfg.time_wrap,
		.time_dir = r->cfg.time_dir,
		.format_cfg = r->format_cfg,
	};
	uint64_t nrec = 0;
	int rc;

	if (r->sym_address && !r->cfg.file_base && r->fmt == TT_IMAGE_RAW &&
	    reader->image_holds &&
	    !reader->image_holds(r->bytes, r->len, r->base, r->cfg.address, r->format_cfg)) {
		rc_cfg.address = 0; /* not a RAM image at the symbol: the notes back to back */
		r->base = 0;
	}
	if (r->d.traceprinter && !reader->native_line) {
		fprintf(stderr, "tracetap decode: %s: --traceprinter needs QNX events (a .kev or "
			"--format qnx)\n", r->path);
		return 2;
	}
	rc = reader->decode_image(r->bytes, r->len, r->base, &rc_cfg, count_record, &nrec, r->err,
				  sizeof(r->err));
	if (rc < 0 && rc != -ENODATA) {
		fprintf(stderr, "tracetap decode: %s: %s (not a %s trace: nothing printed)\n",
			r->path, r->err, reader->name);
		return 1;
	}
	r->d.native = reader;
	if (r->d.traceprinter && !r->cfg.address && reader->detect &&
	    reader->detect(r->bytes, r->len))
		native_header(&r->d, r->bytes, r->len);
	else if (r->d.traceprinter && reader->native_ctx) /* a RAM image: from the configuration */
		reader->native_ctx(r->format_cfg, &r->d.nctx);
	if (r->to >= 0 && start_export(&r->d, r->to, r->out_path) < 0)
		return 1;
	/* a .trx keeps the source's timer mask and whole registry (else the names events use) */
	if (r->to == TT_EXPORT_TRX)
		(void)tt_export_set_source_image(r->d.ex, reader, r->bytes, r->len, r->base,
						 rc_cfg.address);
	if (r->d.analyze && tt_analysis_new(reader->analysis, NULL, &r->d.an) < 0) {
		fprintf(stderr, "tracetap analyze: out of memory\n");
		return 1;
	}
	rc = reader->decode_image(r->bytes, r->len, r->base, &rc_cfg, on_record, &r->d, r->err,
				  sizeof(r->err));
	if (rc < 0)
		fprintf(stderr, "tracetap decode: %s: %s\n", r->path, r->err);
	/* the threads the trace registered: names, priorities, stack bounds; the painted stacks'
	 * high-water marks where the image holds them */
	if (r->d.an && rc >= 0)
		(void)tt_analysis_image_threads(r->d.an, r->bytes, r->len, r->base, &rc_cfg);
	if (r->d.ex && finish_export(&r->d, r->to, r->out_path, rc >= 0) < 0)
		rc = -1;
	return rc < 0 ? 1 : 0;
}

/* The analysis, printed as text or JSON: the exit status. */
static int print_analysis(const struct tt_analysis *an, bool json)
{
	size_t n = json ? tt_analysis_json(an, NULL, 0) : tt_analysis_text(an, NULL, 0);
	char *buf = malloc(n + 1);

	if (!buf) {
		fprintf(stderr, "tracetap analyze: out of memory\n");
		return 1;
	}
	if (json)
		tt_analysis_json(an, buf, n + 1);
	else
		tt_analysis_text(an, buf, n + 1);
	fwrite(buf, 1, n, stdout);
	if (json)
		putchar('\n');
	free(buf);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int decode_main(int argc, char **argv, bool analyze)
{
	struct decode_run r = { .color = -1, .to = -1, .d.analyze = analyze };
	int rc = parse_opts(&r, argc, argv);

	if (rc != GO_ON)
		return rc;
	if (analyze && (r.to >= 0 || r.follow || r.d.traceprinter)) {
		fprintf(stderr, "tracetap analyze: --to, --follow and --traceprinter are "
			"decode's (analyze takes --json and the target options)\n");
		return 2;
	}
	if (r.follow) {
		const struct tt_reader_ops *fr = follow_reader(r.cfg.format);
		if (!fr || (r.d.traceprinter && !fr->native_line) || r.cfg.address || r.cfg.elf) {
			fprintf(stderr, "tracetap decode: --follow reads QNX .kev files only (no "
				"--address, --elf or other --format)\n");
			return 2;
		}
		r.d.tf.color = r.color < 0 ? tt_textfmt_want_color(stdout) : r.color;
		r.d.native = fr;
		return follow_file(fr, r.path, r.cfg.tick_hz, &r.d);
	}
	rc = open_input(&r);
	if (rc == GO_ON && (!r.cfg.format || analyze) && !r.cfg.address && !r.cfg.elf &&
	    looks_jsonl(r.text, r.len))
		rc = decode_jsonl(&r);
	if (rc == GO_ON)
		rc = locate_trace(&r);
	if (rc == GO_ON)
		rc = decode_trace(&r);
	if (rc == 0 && r.d.an)
		rc = print_analysis(r.d.an, r.d.json);
	tt_analysis_free(r.d.an);
	tt_format_cfg_release(&r.fcfg);
	tt_image_free(&r.img);
	free(r.text);
	return rc;
}

int tt_cmd_decode(int argc, char **argv)
{
	return decode_main(argc, argv, false);
}

int tt_cmd_analyze(int argc, char **argv)
{
	return decode_main(argc, argv, true);
}
