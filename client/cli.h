/* client/cli.h: what the `tracetap` commands that talk to a running tracetapd share: one table
 * of options (each command takes only its own), the daemon's address and token, one-line errors
 * when the daemon cannot be reached or a target does not exist, numbers in human units.
 */
#ifndef TT_CLI_H
#define TT_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "wsclient.h"

#define TT_CLI_MAX_FILTER 64

struct tt_cli {
	const char *cmd; /* "tail", "record", ... */
	struct tt_url url;
	const char *token;
	const char *ca;     /* --ca: the CAs to trust for wss://, https:// (NULL: the system's) */
	const char *target;
	const char *ids[TT_CLI_MAX_FILTER], *names[TT_CLI_MAX_FILTER],
		*threads[TT_CLI_MAX_FILTER];
	int nids, nnames, nthreads;
	const char *text;
	long history;
	bool json, color, wide;
	const char *out;
	int format; /* enum tt_export_format */
	double duration;
	long long count;
};

/* Parses the options of command cmd into o (argv borrowed). Returns 0 to go on, 1 when --help
 * was printed (exit 0), -1 after a usage error on stderr (exit 2). */
int tt_cli_parse(int argc, char **argv, const char *cmd, struct tt_cli *o);

/* GET path from the daemon. 0 with *out (caller frees with cJSON_Delete) when out is not
 * NULL; *body_out (caller frees) when not NULL. 1 after one line on stderr: the daemon cannot
 * be reached (what was tried, what to do), answered an error, or not JSON. */
int tt_cli_get(const struct tt_cli *o, const char *path, cJSON **out, char **body_out,
	       size_t *len_out);

/* Checks o->target (NULL: any) against the daemon's /api/targets array. 0 when it exists, 1
 * after "no target named X at HOST:PORT; its targets: a, b" on stderr. */
int tt_cli_check_target(const struct tt_cli *o, const cJSON *targets);

/* "a, b, c" from the daemon's targets array into buf ("none" when empty); returns the text. */
const char *tt_cli_target_list(const cJSON *targets, char *buf, size_t cap);

/* The one-line message for a connection to the daemon that failed (rc and err from
 * wsclient.h): nothing answered (is it running?), or what failed (a certificate that does not
 * verify, a handshake that is not right), as err says. */
void tt_cli_connect_failed(const struct tt_cli *o, int rc, const char *err);

/* Appends key=s to the query q (cap bytes), s percent-encoded. 0, or -1 when it does not fit
 * (q is then left as it was). */
int tt_cli_query(char *q, size_t cap, const char *key, const char *s);

/* "4.4M", "950", "12.3k": counts. "1.2 KiB": bytes. */
const char *tt_cli_count(char *buf, size_t cap, double v);
const char *tt_cli_bytes(char *buf, size_t cap, double v);

#endif
