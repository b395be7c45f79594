/* client/cmd_tail.c: `tracetap tail` and `tracetap record` (see cmd_tail.h).
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
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "wsclient.h"

#define MAX_SEEN 64

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

/* The subscribe message: filters, and since = last seq seen per target (on reconnect). */
static char *subscribe_msg(const struct tt_cli *o, const struct seen *seen, int nseen)
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

static volatile sig_atomic_t resized = 1;

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* The terminal's width, 0 when stdout is not a terminal (whole lines for pipes and files);
 * asked again after SIGWINCH. */
static int term_width(void)
{
	static int width;
	struct winsize w;

	if (resized) {
		resized = 0;
		width = !isatty(STDOUT_FILENO) ? 0
			: ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
	}
	return width;
}


/* ---- the streaming loop shared by tail and record ---- */

struct stream {
	struct tt_cli *o;
	int (*ready)(struct stream *s); /* once, when the daemon has the target; NULL: nothing */
	bool started;
	/* the target column of a terminal's lines: none for one target, else as wide as the
	 * longest name the daemon has (at most TARGET_COL_MAX) */
	bool one_target;
	int target_width;
	struct seen seen[MAX_SEEN];
	int nseen;
	struct tt_export *ex; /* record */
	long long got;
	int err;
};

#define TARGET_COL_MAX 16
static void print_text(const struct tt_cli *o, const struct stream *s, const cJSON *r)
{
	struct tt_record_json rj;
	char line[2048];

	if (tt_record_from_json(r, &rj) < 0)
		return;
	struct tt_textfmt tf = { .color = o->color, .target = rj.target,
				 .width = o->wide ? 0 : term_width(),
				 .target_width = s->target_width };
	if (tf.width > 0 && s->one_target) /* a terminal's room goes to the arguments */
		tf.target = NULL;
	int n = tt_textfmt_record(&tf, line, sizeof(line) - 1, &rj.rec, rj.seq);
	if (n < 0)
		return;
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stdout);
}

static int on_record(void *arg, const char *rec, size_t len)
{
	struct stream *s = arg;
	cJSON *r = cJSON_ParseWithLength(rec, len);

	if (!r || (s->ready && !s->started))
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
		print_text(s->o, s, r);
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
	char t[TT_TEXTFMT_CAP(64)], st[TT_TEXTFMT_CAP(32)], text[TT_TEXTFMT_CAP(256)];
	fprintf(stderr, "tracetap: %s is %s%s%s\n", tt_textfmt_clean(t, sizeof(t), target, 64),
		tt_textfmt_clean(st, sizeof(st), state, 32), msg && *msg ? ": " : "",
		tt_textfmt_clean(text, sizeof(text), msg, 256));
}

/* An `alert` (a trigger fired): a line among the records (--json: the message itself); a
 * recording keeps records only, so there it goes to stderr. */
static void print_alert(struct stream *s, const cJSON *m, const char *msg, size_t len)
{
	const char *cap = cJSON_GetStringValue(cJSON_GetObjectItem(m, "capture"));
	struct tt_textfmt tf = { .color = s->ex ? 0 : s->o->color,
				 .width = s->o->wide || s->ex ? 0 : term_width() };
	char line[1024];

	if (s->o->json && !s->ex) {
		fwrite(msg, 1, len, stdout);
		putchar('\n');
		return;
	}
	int n = tt_textfmt_alert(&tf, line, sizeof(line) - 1,
				 cJSON_GetStringValue(cJSON_GetObjectItem(m, "target")),
				 cJSON_GetStringValue(cJSON_GetObjectItem(m, "trigger")),
				 /* a state or statistics condition: what held, after the condition */
				 cJSON_GetStringValue(cJSON_GetObjectItem(m, "detail"))
					 ? cJSON_GetStringValue(cJSON_GetObjectItem(m, "detail"))
					 : cJSON_GetStringValue(cJSON_GetObjectItem(m, "condition")),
				 tt_json_u64(tt_json_num(m, "seq", 0)), cap);
	if (n < 0)
		return;
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, s->ex ? stderr : stdout);
}

/* The hello: the target asked for must exist (else 1, after saying which do); then ready. */
static int on_hello(struct stream *s, const cJSON *m)
{
	const cJSON *targets = cJSON_GetObjectItem(m, "targets"), *t;

	if (tt_cli_check_target(s->o, targets))
		return 1;
	s->one_target = s->o->target || cJSON_GetArraySize(targets) == 1;
	s->target_width = 4;
	cJSON_ArrayForEach(t, targets) {
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
		int len = n ? (int)strlen(n) : 0;
		if (len > s->target_width)
			s->target_width = len > TARGET_COL_MAX ? TARGET_COL_MAX : len;
	}
	if (!s->started && s->ready && s->ready(s))
		return 1;
	s->started = true;
	return 0;
}

/* Other messages: 0 to go on, 1 to stop (the daemon does not have the target). */
static int on_other(struct stream *s, const char *msg, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(msg, len);
	const char *type = m ? cJSON_GetStringValue(cJSON_GetObjectItem(m, "type")) : NULL;
	int rc = 0;
	char t[TT_TEXTFMT_CAP(64)], text[TT_TEXTFMT_CAP(256)];

	if (type && !strcmp(type, "hello")) {
		rc = on_hello(s, m);
	} else if (type && !strcmp(type, "gap")) {
		fprintf(stderr, "tracetap %s: missed records %.0f..%.0f of %s (%s)\n", s->o->cmd,
			cJSON_GetNumberValue(cJSON_GetObjectItem(m, "from")),
			cJSON_GetNumberValue(cJSON_GetObjectItem(m, "to")),
			tt_textfmt_clean(t, sizeof(t),
					 cJSON_GetStringValue(cJSON_GetObjectItem(m, "target")), 64),
			tt_textfmt_clean(text, sizeof(text),
					 cJSON_GetStringValue(cJSON_GetObjectItem(m, "reason")), 256));
	} else if (type && !strcmp(type, "error")) {
		const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(m, "code"));
		fprintf(stderr, "tracetap %s: tracetapd says: %s\n", s->o->cmd,
			tt_textfmt_clean(text, sizeof(text),
					 cJSON_GetStringValue(cJSON_GetObjectItem(m, "message")), 256));
		rc = code && !strcmp(code, "unknown_target"); /* the target went away (reload) */
	} else if (type && !strcmp(type, "status") && !s->ex) {
		print_state(s, m);
	} else if (type && !strcmp(type, "alert")) {
		print_alert(s, m, msg, len);
	}
	cJSON_Delete(m);
	return rc;
}

/* One connection: 0 when it ended (reconnect), 1 to stop with the status in s->err. */
static int stream_once(struct stream *s, struct tt_ws *ws, double end)
{
	int rc = 0;

	while (rc >= 0 && !interrupted && (!end || now_s() < end)) {
		struct tt_ws_msg m;
		rc = tt_ws_recv(ws, 200, &m);
		if (rc <= 0)
			continue;
		if (m.opcode == 8) {
			char why[TT_TEXTFMT_CAP(128)];
			fprintf(stderr, "tracetap %s: tracetapd closed the connection (%d %s)\n",
				s->o->cmd, m.close_code,
				tt_textfmt_clean(why, sizeof(why), m.close_reason, 128));
			if (m.close_code == 1008 || m.close_code == 1009) {
				s->err = 1; /* a refusal does not get better by retrying */
				return 1;
			}
			break;
		}
		if (m.len > 16 && !memcmp(m.data, "{\"type\":\"events\"", 16)) {
			if (each_record(m.data, m.len, on_record, s))
				return 1;
		} else if (on_other(s, m.data, m.len)) {
			s->err = 1;
			return 1;
		}
	}
	if (interrupted || (end && now_s() >= end))
		return 1;
	char why[64] = "";
	if (rc == -EMSGSIZE)
		snprintf(why, sizeof(why), " (a message over %u MiB)", TT_WS_MAX_MESSAGE >> 20);
	else if (rc < 0 && rc != -EPIPE)
		snprintf(why, sizeof(why), " (%s)", strerror(-rc));
	fprintf(stderr, "tracetap %s: connection to tracetapd lost%s; reconnecting\n", s->o->cmd,
		why);
	return 0;
}

/* Runs until interrupted, the duration/count is reached, or a fatal error. The first
 * connection must succeed (a daemon that is not there is an error, at once); later ones are
 * retried with backoff and resume. Returns the exit status. */
static int stream(struct stream *s)
{
	struct tt_cli *o = s->o;
	double end = o->duration > 0 ? now_s() + o->duration : 0, backoff = 0.25;
	char err[1024];
	bool lost = false;

	while (!interrupted && (!end || now_s() < end)) {
		struct tt_ws_opts wo = { .host = o->url.host, .port = o->url.port,
					 .tls = o->url.tls, .ca = o->ca, .path = o->url.path,
					 .token = o->token };
		struct tt_ws *ws;
		int status;
		int rc = tt_ws_connect(&wo, &ws, &status, err, sizeof(err));
		/* a refusal or a certificate that does not verify does not get better by retrying */
		if (rc < 0 && (rc == -EACCES || rc == -EKEYREJECTED || !s->started)) {
			tt_cli_connect_failed(o, rc, err);
			return 1;
		}
		if (rc < 0) {
			char text[TT_TEXTFMT_CAP(sizeof(err))];
			lost = true;
			fprintf(stderr, "tracetap %s: %s; retrying in %.1f s\n", o->cmd,
				tt_textfmt_clean(text, sizeof(text), err, sizeof(err)), backoff);
			usleep((useconds_t)(backoff * 1e6));
			backoff = backoff * 2 > 5 ? 5 : backoff * 2;
			continue;
		}
		backoff = 0.25;
		if (lost)
			fprintf(stderr, "tracetap %s: reconnected to %s:%d; resuming\n", o->cmd,
				o->url.host, o->url.port);
		lost = false;
		char *sub = subscribe_msg(o, s->seen, s->nseen);
		rc = tt_ws_send(ws, sub, strlen(sub));
		cJSON_free(sub);
		int stop = rc < 0 ? 0 : stream_once(s, ws, end);
		tt_ws_close(ws, stop ? 1000 : 0);
		if (stop)
			return s->err ? 1 : 0;
		lost = true;
	}
	return s->err ? 1 : 0;
}

int tt_cmd_tail(int argc, char **argv)
{
	struct tt_cli o;
	struct stream s = { .o = &o };
	int rc = tt_cli_parse(argc, argv, "tail", &o);

	if (rc)
		return rc > 0 ? 0 : 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGWINCH, on_winch);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return stream(&s);
}

struct recording {
	struct stream s;
	FILE *f;
};

static int file_write(void *arg, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -EIO;
}

/* The file is created only once the daemon is there and has the target. */
static int record_ready(struct stream *s)
{
	struct recording *r = (struct recording *)s;
	const char *out = s->o->out;

	r->f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	if (!r->f) {
		fprintf(stderr, "tracetap record: cannot create %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (tt_export_new((enum tt_export_format)s->o->format, file_write, r->f, &s->ex) < 0) {
		fprintf(stderr, "tracetap record: out of memory\n");
		return 1;
	}
	return 0;
}

int tt_cmd_record(int argc, char **argv)
{
	struct tt_cli o;
	struct recording r = { .s = { .o = &o, .ready = record_ready } };
	struct stream *s = &r.s;
	int rc = tt_cli_parse(argc, argv, "record", &o);

	if (rc)
		return rc > 0 ? 0 : 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = stream(s);
	if (!s->ex) {
		if (r.f && r.f != stdout)
			fclose(r.f);
		return rc ? rc : 1;
	}
	if (tt_export_finish(s->ex) < 0 || s->err)
		rc = 1;
	uint64_t lost, gaps = tt_export_trx_gaps(s->ex, &lost);
	char note[128];
	fprintf(stderr, "tracetap record: %" PRIu64 " records written to %s (%s)%s%s\n",
		tt_export_written(s->ex), o.out,
		tt_export_format_name((enum tt_export_format)o.format),
		tt_export_skipped(s->ex) ? ", some not representable in this format" : "",
		tt_export_trx_note(note, sizeof(note), gaps, lost));
	tt_export_free(s->ex);
	if (r.f != stdout ? fclose(r.f) != 0 : fflush(stdout) != 0)
		rc = 1;
	return rc;
}
