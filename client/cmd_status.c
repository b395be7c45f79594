/* client/cmd_status.c: `tracetap targets`, `status` and `export`: one HTTP request each to a
 * running tracetapd (/api/targets, /api/export), printed for people or passed through for
 * scripts (see cmd_tail.h). */
#include "cmd_tail.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
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
	cJSON_ArrayForEach(t, arr)
		printf("%-16s %-8s %-12s %s\n", str(t, "name"), str(t, "format"), str(t, "state"),
		       str(t, "probe"));
	cJSON_Delete(arr);
	return 0;
}

static void status_row(const cJSON *t)
{
	char ev[16], rate[16], lost[16], gaps[16], bytes[24], clients[16];
	double n = num(t, "events");

	tt_cli_count(ev, sizeof(ev), n);
	tt_cli_count(rate, sizeof(rate), num(t, "rate"));
	tt_cli_count(lost, sizeof(lost), num(t, "lost"));
	tt_cli_count(gaps, sizeof(gaps), num(t, "gaps"));
	tt_cli_bytes(bytes, sizeof(bytes), num(t, "bytes_read"));
	tt_cli_count(clients, sizeof(clients), num(t, "clients"));
	printf("%-16.32s %-8.8s %-12.12s %8s %9s/s %8s %6s %10s %7s %5.0f%%\n", str(t, "name"),
	       str(t, "format"), str(t, "state"), ev, rate, lost, gaps, bytes, clients,
	       num(t, "fill") * 100);
}

int tt_cmd_status(int argc, char **argv)
{
	struct tt_cli o;
	cJSON *arr, *t;
	int rc = begin(argc, argv, "status", &o, &arr);

	if (rc >= 0)
		return rc;
	printf("tracetapd at %s:%d: up, %d target%s\n\n", o.url.host, o.url.port,
	       cJSON_GetArraySize(arr), cJSON_GetArraySize(arr) == 1 ? "" : "s");
	printf("%-16s %-8s %-12s %8s %11s %8s %6s %10s %7s %6s\n", "TARGET", "FORMAT", "STATE",
	       "EVENTS", "RATE", "LOST", "GAPS", "PROBE", "CLIENTS", "FILL");
	cJSON_ArrayForEach(t, arr)
		if (!o.target || !strcmp(str(t, "name"), o.target))
			status_row(t);
	/* History skipped at attach: written before the daemon was watching, so never promised,
	 * but said rather than hidden. */
	cJSON_ArrayForEach(t, arr) {
		char sk[16];
		if ((o.target && strcmp(str(t, "name"), o.target)) || num(t, "skipped") <= 0)
			continue;
		tt_cli_count(sk, sizeof(sk), num(t, "skipped"));
		printf("\n%s: %s events of history skipped at attach (written before tracetapd "
		       "watched, overwritten before its first read)", str(t, "name"), sk);
	}
	/* The latest message of each target that has one (the last probe error, ...). */
	cJSON_ArrayForEach(t, arr) {
		const char *msg = str(t, "message");
		if ((!o.target || !strcmp(str(t, "name"), o.target)) && strcmp(msg, "-") && *msg)
			printf("\n%s: %s", str(t, "name"), msg);
	}
	printf("\n");
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
	free(body);
	if (rc)
		fprintf(stderr, "tracetap export: writing %s failed\n", o.out);
	else if (f != stdout)
		fprintf(stderr, "tracetap export: %zu bytes written to %s\n", len, o.out);
	return rc;
}
