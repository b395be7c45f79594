/* daemon/cmd_decode.c: `tracetap decode FILE`: every event of a trace file, oldest first.
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

#include "../probe/image.h"
#include "../proto/json.h"
#include "../proto/qnx.h"
#include "../proto/reader.h"
#include "commands.h"
#include "opts.h"
#include "target.h"
#include "textfmt.h"

#define MAX_FILE (256u << 20)

struct decode {
	int json, traceprinter;
	uint64_t n;
	struct tt_textfmt tf;
};

static void on_record(void *arg, const struct tt_record *rec)
{
	struct decode *d = arg;
	char buf[TT_JSON_MAX_RECORD];
	int n;

	d->n++;
	if (d->json)
		n = tt_json_record(buf, sizeof(buf) - 1, rec, NULL, d->n);
	else if (d->traceprinter)
		n = tt_textfmt_traceprinter(buf, sizeof(buf) - 1, rec);
	else
		n = tt_textfmt_record(&d->tf, buf, sizeof(buf) - 1, rec, d->n);
	if (n < 0)
		return;
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, stdout);
}

static int read_file(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;

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
	if (r->elf_symbol_is_pointer) {
		fprintf(stderr, "tracetap decode: %s: \"%s\" is a pointer the target sets at run "
			"time; give the address with --address\n", cfg->elf, r->elf_symbol);
		return -1;
	}
	/* NuttX before 12.4: g_noteram_info (the layout from the ELF says which) */
	const char *sym = !strcmp(r->name, "nuttx") ? tt_nuttx_elf_symbol(format_cfg)
						    : r->elf_symbol;
	if (tt_elf_symbol(cfg->elf, sym, &cfg->address, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracetap decode: %s\n", err);
		return -1;
	}
	return 0;
}

/* --traceprinter: the .kev header's attributes (TRACE_<KEY>:: value, keys right-aligned),
 * then the line traceprinter puts before the events. */
static void tp_item(void *arg, const char *key, size_t klen, const char *val, size_t vlen)
{
	(void)arg;
	printf("%*sTRACE_%.*s:: %.*s\n", klen < 20 ? (int)(20 - klen) : 0, "", (int)klen, key,
	       (int)(vlen > 256 ? 256 : vlen), val);
}

static void tp_header(const uint8_t *buf, size_t len)
{
	printf(" -- HEADER FILE INFORMATION -- \n");
	tt_qnx_header_items(buf, len, tp_item, NULL);
	printf(" -- KERNEL EVENTS -- \n");
}

/* --follow FILE.kev: like `tail -f`, decode a .kev as tracelogger appends to it. Whole events
 * only (a partial trailing event waits for the rest); a file that shrinks or is replaced (another
 * inode at the path) gives a reset record and is decoded again from its header. Polls the file
 * every 100 ms until SIGINT/SIGTERM (or forever). */
static volatile sig_atomic_t follow_stop;

static void on_follow_signal(int sig)
{
	(void)sig;
	follow_stop = 1;
}

#define FOLLOW_HEAD_MAX (TT_QNX_MAX_HEADER + (16u << 20)) /* header + syspage */

static int follow_kev(const char *path, uint64_t tick_hz, struct decode *d)
{
	struct tt_qnx *q = malloc(sizeof(*q));
	uint8_t *buf = malloc(FOLLOW_HEAD_MAX);
	struct sigaction sa = { .sa_handler = on_follow_signal };
	struct stat sb, cur = { 0 };
	uint64_t off = 0;
	bool have_hdr = false, waited_msg = false;
	char err[512];
	int fd = -1, rc = 0;

	if (!q || !buf) {
		fprintf(stderr, "tracetap decode: out of memory\n");
		rc = 1;
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!follow_stop) {
		if (fd < 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 && fstat(fd, &cur) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd < 0 && errno != ENOENT) {
			fprintf(stderr, "tracetap decode: %s: %s\n", path, strerror(errno));
			rc = 1;
			goto out;
		}
		/* replaced (a new file at the path) or truncated: start over */
		bool replaced = fd >= 0 && stat(path, &sb) == 0 &&
				(sb.st_ino != cur.st_ino || sb.st_dev != cur.st_dev);
		if (fd >= 0 && fstat(fd, &cur) == 0 && !replaced && (uint64_t)cur.st_size < off)
			replaced = true;
		if (replaced) {
			struct tt_record r = { .kind = TT_REC_RESET };
			r.u.reset.reason = "file truncated or replaced: decoding it again";
			if (have_hdr)
				tt_qnx_finish(q, on_record, d);
			on_record(d, &r);
			close(fd);
			fd = -1;
			off = 0;
			have_hdr = false;
			continue;
		}
		if (fd >= 0 && !have_hdr) {
			size_t n = (uint64_t)cur.st_size < FOLLOW_HEAD_MAX ? (size_t)cur.st_size
									: FOLLOW_HEAD_MAX;
			ssize_t k = pread(fd, buf, n, 0);
			struct tt_qnx_header h;
			if (k < 0 || (size_t)k != n) {
				fprintf(stderr, "tracetap decode: %s: read failed\n", path);
				rc = 1;
				goto out;
			}
			if (tt_qnx_parse_header(buf, n, &h, err, sizeof(err)) == 0) {
				if (d->traceprinter)
					tp_header(buf, h.header_len);
				tt_qnx_init(q, &h, tick_hz);
				off = h.events_off;
				have_hdr = true;
			} else if (!h.need_more || n == FOLLOW_HEAD_MAX) {
				fprintf(stderr, "tracetap decode: %s: %s\n", path, err);
				rc = 1;
				goto out;
			} else if (!waited_msg) {
				fprintf(stderr, "tracetap decode: %s: waiting for the rest of the "
					"header (%s)\n", path, err);
				waited_msg = true;
			}
		}
		while (fd >= 0 && have_hdr && !follow_stop &&
		       (uint64_t)cur.st_size - off >= TT_QNX_EVENT_SIZE) {
			uint64_t whole = ((uint64_t)cur.st_size - off) / TT_QNX_EVENT_SIZE;
			size_t n = whole * TT_QNX_EVENT_SIZE < FOLLOW_HEAD_MAX
					   ? (size_t)whole * TT_QNX_EVENT_SIZE
					   : FOLLOW_HEAD_MAX / TT_QNX_EVENT_SIZE * TT_QNX_EVENT_SIZE;
			ssize_t k = pread(fd, buf, n, (off_t)off);
			if (k < TT_QNX_EVENT_SIZE)
				break; /* shrank meanwhile: seen at the next look */
			n = (size_t)k / TT_QNX_EVENT_SIZE;
			tt_qnx_feed(q, buf, n, on_record, d);
			off += n * TT_QNX_EVENT_SIZE;
		}
		fflush(stdout);
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (have_hdr)
		tt_qnx_finish(q, on_record, d);
	fflush(stdout);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(q);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tracetap decode FILE [--format FMT] [--json] [--no-color]\n"
		   "       tracetap decode [--follow] [--traceprinter] FILE.kev [--tick-hz HZ]\n"
		   "Print every event of a trace file (TraceX .trx, QNX .kev) or a RAM dump\n"
		   "(raw, Intel HEX, S-record), oldest first. The format is detected from the\n"
		   "file when it has a signature (.trx, .kev); RAM dumps default to threadx.\n"
		   "With --elf (and --format): the address from the format's symbol unless\n"
		   "--address is given, and for nuttx the note layout from the ELF's DWARF.\n"
		   "--follow: a QNX .kev that tracelogger is writing, like `tail -f` (a file\n"
		   "truncated or replaced is a reset record and is read again); until SIGINT.\n"
		   "--traceprinter: QNX events in the text form of QNX's traceprinter.\n%s",
		tt_opts_target_help);
}

int tt_cmd_decode(int argc, char **argv)
{
	struct decode d = { 0 };
	struct tt_target_config cfg = { 0 };
	struct tt_opts_target ot;
	char err[512];
	enum { O_JSON = 1, O_NOCOLOR, O_HELP, O_FOLLOW, O_TP };
	struct option lo[32] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "no-color", no_argument, NULL, O_NOCOLOR },
		{ "help", no_argument, NULL, O_HELP },
		{ "follow", no_argument, NULL, O_FOLLOW },
		{ "traceprinter", no_argument, NULL, O_TP },
	};
	int c, rc, color = -1, follow = 0;

	tt_opts_target_init(&ot, &cfg);
	tt_opts_target_longopts(lo + 5, sizeof(lo) / sizeof(lo[0]) - 5);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == O_JSON) {
			d.json = 1;
		} else if (c == O_NOCOLOR) {
			color = 0;
		} else if (c == O_FOLLOW) {
			follow = 1;
		} else if (c == O_TP) {
			d.traceprinter = 1;
		} else if (c == 'h' || c == O_HELP) {
			usage(stdout);
			return 0;
		} else if ((rc = tt_opts_target_parse(&ot, c, optarg, err, sizeof(err))) != 0) {
			if (rc < 0)
				fprintf(stderr, "tracetap decode: %s\n", err);
			else
				usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (d.traceprinter && (d.json || (cfg.format && strcmp(cfg.format, "qnx")))) {
		fprintf(stderr, "tracetap decode: --traceprinter is QNX's text form: not with "
			"--json or another --format\n");
		return 2;
	}
	if (follow) {
		if ((cfg.format && strcmp(cfg.format, "qnx")) || cfg.address || cfg.elf) {
			fprintf(stderr, "tracetap decode: --follow reads QNX .kev files only (no "
				"--address, --elf or other --format)\n");
			return 2;
		}
		d.tf.color = color < 0 ? tt_textfmt_want_color(stdout) : color;
		return follow_kev(argv[optind], cfg.tick_hz, &d);
	}
	/* With --format, the format options (and the ELF's layout) first: their errors say more
	 * than a missing symbol. Without it, once the file's signature has chosen the reader. */
	const struct tt_reader_ops *reader = cfg.format ? tt_reader_find(cfg.format) : NULL;
	struct tt_format_cfg fcfg = { .owned = NULL };
	const void *format_cfg = NULL;
	if (reader && tt_target_format_cfg(&cfg, reader, &fcfg, &format_cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracetap decode: %s\n", err);
		return 1;
	}
	if (cfg.elf && elf_address(&cfg, format_cfg) < 0) {
		tt_format_cfg_release(&fcfg);
		return 1;
	}
	const char *path = argv[optind];
	char *text;
	size_t len;
	if (read_file(path, &text, &len) < 0) {
		tt_format_cfg_release(&fcfg);
		return 1;
	}

	struct tt_image img = { 0 };
	const uint8_t *bytes = (const uint8_t *)text;
	uint64_t base = cfg.file_base;
	enum tt_image_format fmt = tt_image_detect(text, len);
	if (fmt != TT_IMAGE_RAW) {
		rc = tt_image_parse(fmt, text, len, &img, err, sizeof(err));
		if (rc < 0 || !img.nseg) {
			fprintf(stderr, "tracetap decode: %s: %s\n", path,
				rc < 0 ? err : "no data records");
			rc = 1;
			goto out;
		}
		/* The segment holding the header (by --address, else the lowest). */
		size_t s = 0;
		for (size_t i = 0; cfg.address && i < img.nseg; i++)
			if (cfg.address >= img.seg[i].addr &&
			    cfg.address < img.seg[i].addr + img.seg[i].len)
				s = i;
		bytes = img.seg[s].data;
		len = img.seg[s].len;
		base = img.seg[s].addr;
	}
	/* A raw file starts at --base, else at --address; with neither the format decides (a
	 * .trx header carries its own address). */
	if (fmt == TT_IMAGE_RAW)
		base = cfg.file_base ? cfg.file_base : cfg.address;
	/* Without --format, the file's signature decides (a .trx, a .kev), else ThreadX. */
	if (!reader) {
		reader = tt_reader_detect(bytes, len);
		if (!reader)
			reader = tt_reader_find("threadx");
		if (tt_target_format_cfg(&cfg, reader, &fcfg, &format_cfg, err, sizeof(err)) < 0) {
			fprintf(stderr, "tracetap decode: %s\n", err);
			rc = 1;
			goto out;
		}
	}
	struct tt_reader_config rc_cfg = {
		.address = cfg.address,
		.tick_hz = cfg.tick_hz,
		.time_wrap = cfg.time_wrap,
		.time_dir = cfg.time_dir,
		.format_cfg = format_cfg,
	};
	d.tf.color = color < 0 ? tt_textfmt_want_color(stdout) : color;
	if (d.traceprinter && strcmp(reader->name, "qnx")) {
		fprintf(stderr, "tracetap decode: %s: --traceprinter needs QNX events (a .kev or "
			"--format qnx)\n", path);
		rc = 2;
		goto out;
	}
	if (d.traceprinter && !cfg.address && reader->detect && reader->detect(bytes, len)) {
		struct tt_qnx_header h;
		if (tt_qnx_parse_header(bytes, len, &h, err, sizeof(err)) == 0)
			tp_header(bytes, h.header_len);
	}
	rc = reader->decode_image(bytes, len, base, &rc_cfg, on_record, &d, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "tracetap decode: %s: %s\n", path, err);
		rc = 1;
	}
out:
	tt_format_cfg_release(&fcfg);
	tt_image_free(&img);
	free(text);
	return rc;
}
