/* daemon/cmd_tail.c: `tracetap tail`, `record`, `targets`, `status` (see cmd_tail.h).
 *
 * tail and record subscribe with server-side filters and, when the connection drops,
 * reconnect with backoff and resume after the last seq seen per target (the daemon then sends
 * exactly what was missed, or a gap message). Records are taken from `events` messages as the
 * exact wire bytes (split without re-encoding), so `record --format jsonl` writes what the
 * daemon sent.
 */
#include "cmd_tail.h"
#include "record_json.h"
#include "textfmt.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "wsclient.h"

#define MAX_SEEN 64

struct opts {
	struct tt_url url;
	const char *token;
	const char *target;
	const char *ids[64], *names[64], *threads[64];
	int nids, nnames, nthreads;
	const char *text;
	long history;
	bool json, color;
	/* record */
	const char *out;
	int format;
	double duration;
	long long count;
};

struct seen {
	char target[128];
	uint64_t last;
	char state[32]; /* last state printed: status messages repeat every second */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_common(int argc, char **argv, struct opts *o, bool record, const char *cmd)
{
	static const struct option lo[] = {
		{ "target", required_argument, NULL, 'T' }, { "id", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'n' }, { "thread", required_argument, NULL, 't' },
		{ "text", required_argument, NULL, 's' }, { "json", no_argument, NULL, 'j' },
		{ "no-color", no_argument, NULL, 'C' }, { "token", required_argument, NULL, 'k' },
		{ "history", required_argument, NULL, 'H' }, { "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' }, { "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->token = getenv("TRACETAP_TOKEN");
	o->color = isatty(1) && !getenv("NO_COLOR");
	o->format = TT_EXPORT_JSONL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:f:", lo, NULL)) != -1) {
		switch (c) {
		case 'T': o->target = optarg; break;
		case 'i': if (o->nids < 64) o->ids[o->nids++] = optarg; break;
		case 'n': if (o->nnames < 64) o->names[o->nnames++] = optarg; break;
		case 't': if (o->nthreads < 64) o->threads[o->nthreads++] = optarg; break;
		case 's': o->text = optarg; break;
		case 'j': o->json = true; break;
		case 'C': o->color = false; break;
		case 'k': o->token = optarg; break;
		case 'H': o->history = atol(optarg); break;
		case 'o': o->out = optarg; break;
		case 'f':
			o->format = tt_export_format_parse(optarg);
			if (o->format < 0) {
				fprintf(stderr, "tracetap %s: unknown format '%s' (jsonl, trx, "
						"perfetto, ftrace)\n", cmd, optarg);
				return -1;
			}
			break;
		case 'd': o->duration = atof(optarg); break;
		case 'c': o->count = atoll(optarg); break;
		case 'h':
		default:
			fprintf(c == 'h' ? stdout : stderr, "usage: tracetap %s %s\n", cmd,
				record ? "-o FILE [URL] [--format jsonl|trx|perfetto|ftrace] "
					 "[--duration S | --count N] [--target T] [--id N] [--name "
					 "NAME] [--thread NAME] [--text S] [--token TOKEN]"
				       : !strcmp(cmd, "tail")
					 ? "[URL] [--target T] [--id N] [--name NAME] [--thread NAME] "
					   "[--text S] [--history N] [--json] [--no-color] [--token TOKEN]"
					 : "[URL] [--json] [--token TOKEN]");
			return c == 'h' ? 1 : -1;
		}
	}
	if (tt_url_parse(optind < argc ? argv[optind] : "ws://127.0.0.1:7733/ws", &o->url) < 0) {
		fprintf(stderr, "tracetap %s: bad URL '%s' (expected ws://HOST:PORT or HOST:PORT)\n",
			cmd, argv[optind]);
		return -1;
	}
	if (record && !o->out) {
		fprintf(stderr, "tracetap record: -o FILE is required\n");
		return -1;
	}
	return 0;
}

/* The subscribe message: filters, and since = last seq seen per target (on reconnect). */
static char *subscribe_msg(const struct opts *o, const struct seen *seen, int nseen)
{
	cJSON *m = cJSON_CreateObject(), *f = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "type", "subscribe");
	if (o->target) {
		cJSON *t = cJSON_AddArrayToObject(m, "targets");
		cJSON_AddItemToArray(t, cJSON_CreateString(o->target));
	} else {
		cJSON_AddStringToObject(m, "targets", "*");
	}
	if (o->nids) {
		cJSON *a = cJSON_AddArrayToObject(f, "ids");
		for (int i = 0; i < o->nids; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(strtod(o->ids[i], NULL)));
	}
	if (o->nnames)
		cJSON_AddItemToObject(f, "names", cJSON_CreateStringArray(o->names, o->nnames));
	if (o->nthreads)
		cJSON_AddItemToObject(f, "threads",
				      cJSON_CreateStringArray(o->threads, o->nthreads));
	if (o->text)
		cJSON_AddStringToObject(f, "text", o->text);
	cJSON_AddItemToObject(m, "filter", f);
	int resumed = 0;
	for (int i = 0; i < nseen; i++)
		resumed += seen[i].last > 0; /* targets known only from status start live */
	if (resumed) {
		cJSON *s = cJSON_AddObjectToObject(m, "since");
		for (int i = 0; i < nseen; i++)
			if (seen[i].last)
				cJSON_AddNumberToObject(s, seen[i].target, (double)seen[i].last);
	} else if (o->history > 0) {
		cJSON_AddNumberToObject(m, "history", (double)o->history);
	}
	char *s = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	return s;
}

/* Calls cb for each element of the records array in an events message, as raw bytes. */
static int each_record(const char *msg, size_t len,
		       int (*cb)(void *arg, const char *rec, size_t len), void *arg)
{
	const char *p = memmem(msg, len, "\"records\":[", 11), *end = msg + len;

	if (!p)
		return 0;
	p += 11;
	while (p < end && *p != ']') {
		const char *start = p;
		int depth = 0;
		bool str = false;
		for (; p < end; p++) {
			if (str) {
				if (*p == '\\')
					p++;
				else if (*p == '"')
					str = false;
			} else if (*p == '"') {
				str = true;
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if (*p == '}' || *p == ']') {
				if (--depth == 0) {
					p++;
					break;
				}
			}
		}
		int rc = cb(arg, start, (size_t)(p - start));
		if (rc)
			return rc;
		if (p < end && *p == ',')
			p++;
	}
	return 0;
}

/* The entry of a target, added when new; NULL when the table is full. */
static struct seen *seen_get(struct seen *seen, int *nseen, const char *target)
{
	int i;

	for (i = 0; i < *nseen; i++)
		if (!strcmp(seen[i].target, target))
			return &seen[i];
	if (*nseen == MAX_SEEN)
		return NULL;
	memset(&seen[i], 0, sizeof(seen[i]));
	snprintf(seen[i].target, sizeof(seen[i].target), "%s", target);
	(*nseen)++;
	return &seen[i];
}

static void note_seq(struct seen *seen, int *nseen, const char *target, uint64_t seq)
{
	struct seen *e = seen_get(seen, nseen, target);

	if (e)
		e->last = seq;
}

/* ---- text output: the formatter of `tracetap decode`, fed from the wire ---- */

static void print_text(const struct opts *o, const cJSON *r)
{
	struct tt_record_json rj;
	char line[2048];

	if (tt_record_from_json(r, &rj) < 0)
		return;
	struct tt_textfmt tf = { .color = o->color, .target = rj.target };
	int n = tt_textfmt_record(&tf, line, sizeof(line) - 1, &rj.rec, rj.seq);
	if (n < 0)
		return;
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stdout);
}

/* ---- the streaming loop shared by tail and record ---- */

struct stream {
	struct opts *o;
	struct seen seen[MAX_SEEN];
	int nseen;
	struct tt_export *ex; /* record */
	long long got;
	int err;
};

static int on_record(void *arg, const char *rec, size_t len)
{
	struct stream *s = arg;
	cJSON *r = cJSON_ParseWithLength(rec, len);

	if (!r)
		return 0;
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(r, "target"));
	cJSON *seq = cJSON_GetObjectItem(r, "seq");
	if (target && cJSON_IsNumber(seq))
		note_seq(s->seen, &s->nseen, target, tt_json_u64(seq->valuedouble));
	if (s->ex) {
		int rc = tt_export_record(s->ex, rec, len);
		if (rc < 0 && rc != -EINVAL)
			s->err = rc;
	} else if (s->o->json) {
		fwrite(rec, 1, len, stdout);
		putchar('\n');
	} else {
		print_text(s->o, r);
	}
	cJSON_Delete(r);
	s->got++;
	if (s->o->count && s->got >= s->o->count)
		return 1;
	return s->err;
}

/* A target's state on stderr when it changes (connected, disconnected, reset, ...). */
static void print_state(struct stream *s, const cJSON *m)
{
	const char *target = cJSON_GetStringValue(cJSON_GetObjectItem(m, "target"));
	const char *state = cJSON_GetStringValue(cJSON_GetObjectItem(m, "state"));
	const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(m, "message"));
	struct seen *e;

	if (!target || !state || !(e = seen_get(s->seen, &s->nseen, target)) ||
	    !strcmp(e->state, state))
		return;
	snprintf(e->state, sizeof(e->state), "%s", state);
	fprintf(stderr, "tracetap: %s is %s%s%s\n", target, state, msg && *msg ? ": " : "",
		msg ? msg : "");
}

static void on_other(struct stream *s, const char *msg, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(msg, len);
	const char *type = m ? cJSON_GetStringValue(cJSON_GetObjectItem(m, "type")) : NULL;

	if (type && !strcmp(type, "gap"))
		fprintf(stderr, "tracetap: missed records %.0f..%.0f of %s (%s)\n",
			cJSON_GetNumberValue(cJSON_GetObjectItem(m, "from")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(m, "to")),
			cJSON_GetStringValue(cJSON_GetObjectItem(m, "target")),
			cJSON_GetStringValue(cJSON_GetObjectItem(m, "reason")));
	else if (type && !strcmp(type, "error"))
		fprintf(stderr, "tracetap: server says: %s\n",
			cJSON_GetStringValue(cJSON_GetObjectItem(m, "message")));
	else if (type && !strcmp(type, "status") && !s->ex)
		print_state(s, m);
	cJSON_Delete(m);
}

/* Runs until interrupted, the duration/count is reached, or a fatal error. */
static int stream(struct stream *s)
{
	struct opts *o = s->o;
	double end = o->duration > 0 ? now_s() + o->duration : 0, backoff = 0.25;
	char err[1024];
	int lost = 0;

	while (!interrupted && (!end || now_s() < end)) {
		struct tt_ws_opts wo = { .host = o->url.host, .port = o->url.port,
					 .path = o->url.path, .token = o->token };
		struct tt_ws *ws;
		int status;
		int rc = tt_ws_connect(&wo, &ws, &status, err, sizeof(err));
		if (rc == -EACCES) {
			fprintf(stderr, "tracetap: %s\n", err);
			return 1; /* a refusal does not get better by retrying */
		}
		if (rc < 0) {
			lost = 1;
			fprintf(stderr, "tracetap: %s; retrying in %.1f s\n", err, backoff);
			usleep((useconds_t)(backoff * 1e6));
			backoff = backoff * 2 > 5 ? 5 : backoff * 2;
			continue;
		}
		backoff = 0.25;
		if (lost)
			fprintf(stderr, "tracetap: reconnected to %s:%d; resuming\n", o->url.host,
				o->url.port);
		lost = 0;
		char *sub = subscribe_msg(o, s->seen, s->nseen);
		rc = tt_ws_send(ws, sub, strlen(sub));
		cJSON_free(sub);
		while (rc >= 0 && !interrupted && (!end || now_s() < end)) {
			struct tt_ws_msg m;
			rc = tt_ws_recv(ws, 200, &m);
			if (rc <= 0)
				continue;
			if (m.opcode == 8) {
				fprintf(stderr, "tracetap: server closed the connection (%d %s)\n",
					m.close_code, m.close_reason);
				rc = m.close_code == 1008 || m.close_code == 1009 ? -EPERM : -EPIPE;
				break;
			}
			if (m.len > 16 && !memcmp(m.data, "{\"type\":\"events\"", 16)) {
				if (each_record(m.data, m.len, on_record, s)) {
					tt_ws_close(ws, 1000);
					return s->err ? 1 : 0;
				}
			} else {
				on_other(s, m.data, m.len);
			}
		}
		tt_ws_close(ws, rc >= 0 ? 1000 : 0);
		if (rc == -EPERM)
			return 1;
		if (rc < 0 && !interrupted) {
			fprintf(stderr, "tracetap: connection lost; reconnecting\n");
			lost = 1;
		}
	}
	return 0;
}

int tt_cmd_tail(int argc, char **argv)
{
	struct opts o;
	struct stream s = { .o = &o };
	int rc = parse_common(argc, argv, &o, false, "tail");

	if (rc)
		return rc > 0 ? 0 : 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return stream(&s);
}

static int file_write(void *arg, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -EIO;
}

int tt_cmd_record(int argc, char **argv)
{
	struct opts o;
	struct stream s = { .o = &o };
	FILE *f;
	int rc = parse_common(argc, argv, &o, true, "record");

	if (rc)
		return rc > 0 ? 0 : 2;
	f = fopen(o.out, "wb");
	if (!f) {
		fprintf(stderr, "tracetap record: cannot create %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	if (tt_export_new((enum tt_export_format)o.format, file_write, f, &s.ex) < 0) {
		fclose(f);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = stream(&s);
	if (tt_export_finish(s.ex) < 0 || s.err)
		rc = 1;
	fprintf(stderr, "tracetap record: %" PRIu64 " records written to %s (%s)%s\n",
		tt_export_written(s.ex), o.out, tt_export_format_name((enum tt_export_format)o.format),
		tt_export_skipped(s.ex) ? ", some not representable in this format" : "");
	tt_export_free(s.ex);
	if (fclose(f) != 0)
		rc = 1;
	return rc;
}

static int get_json(struct opts *o, const char *path, cJSON **out)
{
	char *body;
	size_t len;
	int st = tt_http_get(o->url.host, o->url.port, path, o->token, 5000, &body, &len);

	if (st < 0) {
		fprintf(stderr, "tracetap: cannot reach tracetapd at %s:%d: %s\n", o->url.host,
			o->url.port, strerror(-st));
		return 1;
	}
	if (st != 200) {
		fprintf(stderr, "tracetap: %s answered %d: %.300s\n", path, st, body);
		free(body);
		return 1;
	}
	if (o->json) {
		fwrite(body, 1, len, stdout);
		*out = NULL;
	} else if (!(*out = cJSON_ParseWithLength(body, len))) {
		fprintf(stderr, "tracetap: %s did not answer JSON\n", path);
		free(body);
		return 1;
	}
	free(body);
	return 0;
}

int tt_cmd_targets(int argc, char **argv)
{
	struct opts o;
	cJSON *arr, *t;
	int rc = parse_common(argc, argv, &o, false, "targets");

	if (rc)
		return rc > 0 ? 0 : 2;
	if ((rc = get_json(&o, "/api/targets", &arr)) || !arr)
		return rc;
	printf("%-16s %-9s %-13s %10s %10s %8s %s\n", "TARGET", "FORMAT", "STATE", "LAST_SEQ",
	       "RATE/s", "LOST", "PROBE");
	cJSON_ArrayForEach(t, arr)
		printf("%-16s %-9s %-13s %10.0f %10.1f %8.0f %s\n",
		       cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(t, "format")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(t, "state")),
		       cJSON_GetNumberValue(cJSON_GetObjectItem(t, "last_seq")),
		       cJSON_GetNumberValue(cJSON_GetObjectItem(t, "rate")),
		       cJSON_GetNumberValue(cJSON_GetObjectItem(t, "lost")),
		       cJSON_GetStringValue(cJSON_GetObjectItem(t, "probe")));
	cJSON_Delete(arr);
	return 0;
}

int tt_cmd_status(int argc, char **argv)
{
	struct opts o;
	cJSON *arr, *t, *f;
	int rc = parse_common(argc, argv, &o, false, "status");

	if (rc)
		return rc > 0 ? 0 : 2;
	if ((rc = get_json(&o, "/api/targets", &arr)) || !arr)
		return rc;
	printf("tracetapd at %s:%d: up, %d target(s)\n", o.url.host, o.url.port,
	       cJSON_GetArraySize(arr));
	cJSON_ArrayForEach(t, arr) {
		printf("\n%s\n", cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")));
		cJSON_ArrayForEach(f, t) {
			if (!strcmp(f->string, "name"))
				continue;
			if (cJSON_IsString(f))
				printf("  %-11s %s\n", f->string, f->valuestring);
			else
				printf("  %-11s %g\n", f->string, f->valuedouble);
		}
	}
	cJSON_Delete(arr);
	return 0;
}
