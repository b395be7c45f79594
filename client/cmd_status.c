/* client/cmd_status.c: `tracetap targets`, `status`, `export` and `captures`: one HTTP request
 * each to a running tracetapd (/api/targets, /api/export, /api/captures), printed for people or passed through for
 * scripts (see cmd_tail.h). */
#include "cmd_tail.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "textfmt.h"
#include "record_json.h"

static double num(const cJSON *o, const char *k)
{
	return tt_json_num(o, k, 0);
}

static const char *str(const cJSON *o, const char *k)
{
	const char *s = tt_json_str(o, k);
	return s ? s : "-";
}

/* str() as the terminal may show it (textfmt.h: tt_textfmt_clean), in buf. */
#define TXT(buf, o, k) tt_textfmt_clean((buf), sizeof(buf), str((o), (k)), 256)
#define TXT_CAP TT_TEXTFMT_CAP(256)

/* The daemon's targets (caller deletes), after checking --target. 0, or 1 after one line. */
static int get_targets(const struct tt_cli *o, cJSON **arr)
{
	if (tt_cli_get(o, "/api/targets", arr, NULL, NULL))
		return 1;
	if (!cJSON_IsArray(*arr)) {
		fprintf(stderr, "tracetap %s: tracetapd at %s:%d answered /api/targets with no "
				"target list\n", o->cmd, o->url.host, o->url.port);
		cJSON_Delete(*arr);
		return 1;
	}
	if (tt_cli_check_target(o, *arr)) {
		cJSON_Delete(*arr);
		return 1;
	}
	return 0;
}

/* --json: the daemon's JSON (the selected target's object with --target), one line. */
static void print_json(const struct tt_cli *o, const cJSON *arr)
{
	const cJSON *t;
	char *s = NULL;

	if (!o->target) {
		s = cJSON_PrintUnformatted(arr);
	} else {
		cJSON_ArrayForEach(t, arr)
			if (!strcmp(str(t, "name"), o->target))
				s = cJSON_PrintUnformatted(t);
	}
	if (s)
		printf("%s\n", s);
	cJSON_free(s);
}

/* Parses the options and fetches the targets; --json prints them. -1 to go on with *arr,
 * else the exit status. */
static int begin(int argc, char **argv, const char *cmd, struct tt_cli *o, cJSON **arr)
{
	int rc = tt_cli_parse(argc, argv, cmd, o);

	if (rc)
		return rc > 0 ? 0 : 2;
	if (get_targets(o, arr))
		return 1;
	if (!o->json)
		return -1;
	print_json(o, *arr);
	cJSON_Delete(*arr);
	return 0;
}

int tt_cmd_targets(int argc, char **argv)
{
	struct tt_cli o;
	cJSON *arr, *t;
	int rc = begin(argc, argv, "targets", &o, &arr);

	if (rc >= 0)
		return rc;
	printf("%-16s %-8s %-12s %s\n", "TARGET", "FORMAT", "STATE", "PROBE");
	cJSON_ArrayForEach(t, arr) {
		char n[TXT_CAP], f[TXT_CAP], s[TXT_CAP], p[TXT_CAP];
		printf("%-16s %-8s %-12s %s\n", TXT(n, t, "name"), TXT(f, t, "format"),
		       TXT(s, t, "state"), TXT(p, t, "probe"));
	}
	cJSON_Delete(arr);
	return 0;
}

/* The status table's columns: whole (a pipe, a file, a wide terminal), or compact to fit 80
 * columns (no format column: the header line names the formats). */
struct status_cols {
	int name, format, state, events, rate, lost, gaps, probe, clients;
	const char *clients_head;
};
static const struct status_cols wide_status = { 16, 8, 12, 8, 9, 8, 6, 10, 7, "CLIENTS" };
static const struct status_cols compact_status = { 14, 0, 11, 7, 7, 6, 5, 9, 3, "CL" };
#define STATUS_WIDE_COLS 98 /* a wide row's width */

/* The terminal's width, 0 when stdout is not a terminal (whole lines for pipes and files). */
static int status_width(void)
{
	struct winsize w;

	if (!isatty(STDOUT_FILENO))
		return 0;
	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
}

/* s in w columns (textfmt.h: cut with an ellipsis, padded), then a separating space unless
 * it is the last of its line. */
static void print_cell(const char *s, int w, bool last)
{
	char cell[TXT_CAP];

	fputs(tt_textfmt_cell(cell, sizeof(cell), s, w, true, !last), stdout);
	if (!last)
		putchar(' ');
}

static void status_row(const cJSON *t, const struct status_cols *c)
{
	char ev[16], rate[20], lost[16], gaps[16], bytes[24], clients[16];
	char name[TXT_CAP], fmt[TXT_CAP], state[TXT_CAP];

	tt_cli_count(ev, sizeof(ev), num(t, "events"));
	tt_cli_count(rate, sizeof(rate) - 2, num(t, "rate"));
	strcat(rate, "/s");
	tt_cli_count(lost, sizeof(lost), num(t, "lost"));
	tt_cli_count(gaps, sizeof(gaps), num(t, "gaps"));
	tt_cli_bytes(bytes, sizeof(bytes), num(t, "bytes_read"));
	tt_cli_count(clients, sizeof(clients), num(t, "clients"));
	print_cell(TXT(name, t, "name"), c->name, false);
	if (c->format)
		print_cell(TXT(fmt, t, "format"), c->format, false);
	print_cell(TXT(state, t, "state"), c->state, false);
	printf("%*s %*s %*s %*s %*s %*s %3.0f%%\n", c->events, ev, c->rate, rate, c->lost, lost,
	       c->gaps, gaps, c->probe, bytes, c->clients, clients, num(t, "fill") * 100);
}

/* A line of text under the table: cut to the terminal's width (0: whole). */
static void print_note(int width, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void print_note(int width, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (width > 0)
		print_cell(line, width, true);
	else
		fputs(line, stdout);
	putchar('\n');
}

int tt_cmd_status(int argc, char **argv)
{
	struct tt_cli o;
	cJSON *arr, *t;
	int rc = begin(argc, argv, "status", &o, &arr);

	if (rc >= 0)
		return rc;
	int width = status_width();
	const struct status_cols *c = width && width < STATUS_WIDE_COLS ? &compact_status
									 : &wide_status;
	char formats[64] = "";

	cJSON_ArrayForEach(t, arr) { /* the formats, for the header line of a compact table */
		char f[TXT_CAP];
		TXT(f, t, "format");
		if (!strstr(formats, f) && strlen(formats) + strlen(f) + 3 < sizeof(formats))
			snprintf(formats + strlen(formats), sizeof(formats) - strlen(formats), "%s%s",
				 *formats ? ", " : "", f);
	}
	printf("tracetapd at %s:%d: up, %d target%s", o.url.host, o.url.port,
	       cJSON_GetArraySize(arr), cJSON_GetArraySize(arr) == 1 ? "" : "s");
	printf(c->format || !*formats ? "\n\n" : " (%s)\n\n", formats);
	print_cell("TARGET", c->name, false);
	if (c->format)
		print_cell("FORMAT", c->format, false);
	print_cell("STATE", c->state, false);
	printf("%*s %*s %*s %*s %*s %*s %4s\n", c->events, "EVENTS", c->rate, "RATE", c->lost,
	       "LOST", c->gaps, "GAPS", c->probe, "PROBE", c->clients, c->clients_head, "FILL");
	cJSON_ArrayForEach(t, arr)
		if (!o.target || !strcmp(str(t, "name"), o.target))
			status_row(t, c);
	/* History skipped at attach: written before the daemon was watching, so never promised,
	 * but said rather than hidden. */
	int notes = 0;
	cJSON_ArrayForEach(t, arr) {
		char sk[16], name[TXT_CAP];
		if ((o.target && strcmp(str(t, "name"), o.target)) || num(t, "skipped") <= 0)
			continue;
		tt_cli_count(sk, sizeof(sk), num(t, "skipped"));
		if (!notes++)
			putchar('\n');
		print_note(width, "%s: %s events of history skipped at attach (written before "
			   "tracetapd watched, overwritten before its first read)", TXT(name, t, "name"),
			   sk);
	}
	/* The latest message of each target that has one (the last probe error, ...). */
	cJSON_ArrayForEach(t, arr) {
		const char *msg = str(t, "message");
		char name[TXT_CAP], text[TXT_CAP];
		if ((!o.target || !strcmp(str(t, "name"), o.target)) && strcmp(msg, "-") && *msg) {
			if (!notes++)
				putchar('\n');
			print_note(width, "%s: %s", TXT(name, t, "name"), TXT(text, t, "message"));
		}
	}
	cJSON_Delete(arr);
	return 0;
}

int tt_cmd_export(int argc, char **argv)
{
	struct tt_cli o;
	cJSON *arr;
	char path[1024] = "/api/export", *body;
	size_t len;
	FILE *f;
	int rc = begin(argc, argv, "export", &o, &arr);

	if (rc >= 0)
		return rc;
	if (!o.target && cJSON_GetArraySize(arr) != 1) {
		char list[1024];
		fprintf(stderr, "tracetap export: tracetapd at %s:%d has %d targets (%s): name one "
				"with --target NAME\n", o.url.host, o.url.port, cJSON_GetArraySize(arr),
			tt_cli_target_list(arr, list, sizeof(list)));
		cJSON_Delete(arr);
		return 1;
	}
	cJSON_Delete(arr);
	if ((o.target && tt_cli_query(path, sizeof(path), "target", o.target) < 0) ||
	    tt_cli_query(path, sizeof(path), "format",
		      tt_export_format_name((enum tt_export_format)o.format)) < 0) {
		fprintf(stderr, "tracetap export: the target's name is too long for the export "
				"request (its URL is %zu bytes at most)\n", sizeof(path) - 1);
		return 1;
	}
	if (tt_cli_get(&o, path, NULL, &body, &len))
		return 1;
	f = strcmp(o.out, "-") ? fopen(o.out, "wb") : stdout;
	if (!f) {
		fprintf(stderr, "tracetap export: cannot create %s: %s\n", o.out, strerror(errno));
		free(body);
		return 1;
	}
	rc = fwrite(body, 1, len, f) == len ? 0 : 1;
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		rc = 1;
	if (rc)
		fprintf(stderr, "tracetap export: writing %s failed\n", o.out);
	else if (f != stdout) {
		uint64_t lost, gaps = tt_export_trx_count_gaps((const uint8_t *)body, len, &lost);
		char note[128];
		fprintf(stderr, "tracetap export: %zu bytes written to %s%s\n", len, o.out,
			o.format == TT_EXPORT_TRX ? tt_export_trx_note(note, sizeof(note), gaps, lost)
						  : "");
	}
	free(body);
	return rc;
}

int tt_cmd_captures(int argc, char **argv)
{
	struct tt_cli o;
	cJSON *arr, *c;
	int rc = tt_cli_parse(argc, argv, "captures", &o), n = 0;
	char recs[16];

	if (rc)
		return rc > 0 ? 0 : 2;
	if (tt_cli_get(&o, "/api/captures", &arr, NULL, NULL))
		return 1;
	if (!cJSON_IsArray(arr)) {
		fprintf(stderr, "tracetap captures: tracetapd at %s:%d answered /api/captures with no "
				"list\n", o.url.host, o.url.port);
		cJSON_Delete(arr);
		return 1;
	}
	if (o.json) {
		char *s = cJSON_PrintUnformatted(arr);
		if (s)
			printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(arr);
		return 0;
	}
	printf("%-24s %-16s %-16s %10s %8s %5s  %s\n", "TIME", "TARGET", "TRIGGER", "SEQ",
	       "RECORDS", "GAPS", "NAME");
	cJSON_ArrayForEach(c, arr) {
		if (o.target && strcmp(str(c, "target"), o.target))
			continue;
		printf("%-24.24s %-16.64s %-16.48s %10.0f %8s %5.0f  %s%s\n", str(c, "time"),
		       str(c, "target"), str(c, "trigger"), num(c, "seq"),
		       tt_cli_count(recs, sizeof(recs), num(c, "records")), num(c, "gaps"),
		       str(c, "name"), cJSON_IsTrue(cJSON_GetObjectItem(c, "cut_short"))
		       ? " (cut short)" : "");
		n++;
	}
	if (!n)
		printf("(no captures%s)\n", o.target ? " of that target" : "");
	cJSON_Delete(arr);
	return 0;
}
