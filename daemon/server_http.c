/* daemon/server_http.c: the HTTP endpoints beside the WebSocket stream.
 *
 * /healthz, /metrics (Prometheus text), /api/targets, /api/export, /api/stats (a target's live
 * analysis). A response body is built whole into a frame, sent with a Content-Length, in 32 KiB
 * pieces from HTTP_WRITEABLE; an
 * export is produced a step at a time as the client reads, at most max_exports at once.
 * Also what every request passes first (tt_server_http_filter): no request bodies (lws 4.1
 * would otherwise leave the response unsent and its frame leaked), no files outside the web
 * folder through symlinks; and the request-parsing helpers that never take a value too long
 * for its buffer for an absent one.
 */
#include "server_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../proto/json.h"
#include "export.h"
#include "stats.h"
#include "target.h"

#define CHUNK 32768
#define EXPORT_STEP 500 /* records per writeable callback: a few ms, then live clients */

struct body {
	struct tt_frame *f;
	int err;
	const char *disp; /* Content-Disposition, or NULL */
};

/* Appends to *fp, growing (moving) the frame as needed. */
static int frame_put(struct tt_frame **fp, const void *buf, size_t len)
{
	struct tt_frame *f = *fp;

	if (f->len + len > f->cap) {
		size_t ncap = (f->cap + len) * 2;
		struct tt_frame *n = realloc(f, sizeof(*n) + TT_FRAME_PRE + ncap + 1);
		if (!n)
			return -ENOMEM;
		n->data = n->mem + TT_FRAME_PRE;
		n->cap = ncap;
		*fp = f = n;
	}
	memcpy(f->data + f->len, buf, len);
	f->len += len;
	return 0;
}

static int body_put(void *arg, const void *buf, size_t len)
{
	struct body *b = arg;

	if (!b->err)
		b->err = frame_put(&b->f, buf, len);
	return b->err;
}

/* Export sink: the connection's body frame. */
static int conn_put(void *arg, const void *buf, size_t len)
{
	return frame_put(&((struct conn *)arg)->http.body, buf, len);
}

static void body_printf(struct body *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void body_printf(struct body *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		body_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static int respond(struct conn *c, struct lws *wsi, unsigned status, const char *type,
		   struct body *b)
{
	unsigned char hdr[LWS_PRE + 1024], *start = hdr + LWS_PRE, *p = start,
		      *end = hdr + sizeof(hdr) - 1;

	if (b->err) {
		tt_frame_unref(b->f);
		lws_return_http_status(wsi, HTTP_STATUS_INTERNAL_SERVER_ERROR, "out of memory");
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	if (lws_add_http_common_headers(wsi, status, type, b->f->len, &p, end) ||
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
					(const unsigned char *)"no-store", 8, &p, end) ||
	    (b->disp && *b->disp &&
	     lws_add_http_header_by_name(wsi, (const unsigned char *)"content-disposition:",
					 (const unsigned char *)b->disp, (int)strlen(b->disp), &p,
					 end)) ||
	    (status == HTTP_STATUS_SERVICE_UNAVAILABLE &&
	     lws_add_http_header_by_name(wsi, (const unsigned char *)"retry-after:",
					 (const unsigned char *)"2", 1, &p, end)) ||
	    lws_finalize_write_http_header(wsi, start, &p, end)) {
		tt_frame_unref(b->f);
		return -1;
	}
	tt_frame_unref(c->http.body);
	c->http.body = b->f;
	c->http.body_off = 0;
	lws_callback_on_writable(wsi);
	return 0;
}

static int export_rec(void *arg, uint64_t seq, const char *json, size_t len)
{
	(void)seq;
	int rc = tt_export_record(arg, json, len);
	return rc == -EINVAL ? 0 : rc;
}

static void export_end(struct conn *c)
{
	if (!c->http.ex)
		return;
	tt_export_free(c->http.ex);
	c->http.ex = NULL;
	c->srv->nexports--;
}

/* Produces the next piece of an export into c->http.body (EXPORT_STEP records, or the trailer). */
static int export_step(struct conn *c)
{
	int rc;

	c->http.body->len = 0;
	c->http.body_off = 0;
	rc = 0;
	if (c->http.ex_next <= c->http.ex_end)
		c->http.ex_next = tt_hub_history_range(c->http.ex_hub, c->http.ex_next, EXPORT_STEP, export_rec,
						  c->http.ex, &rc);
	if (!rc && c->http.ex_next > c->http.ex_end)
		rc = tt_export_finish(c->http.ex);
	if (c->http.ex_next > c->http.ex_end || rc)
		export_end(c);
	return rc ? -1 : 0;
}

int tt_server_http_writeable(struct conn *c, struct lws *wsi)
{
	unsigned char buf[LWS_PRE + CHUNK];
	size_t n;
	int final;

	if (c->http.ex && c->http.body_off == c->http.body->len && export_step(c) < 0)
		return -1; /* the export failed midway: cut the connection (no Content-Length) */
	/* A long response that makes progress is not timed out; a stalled reader is, 30 s
	 * after its last progress (one pending timeout per wsi: this replaces lws's own). */
	lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, 30);
	n = c->http.body->len - c->http.body_off;
	final = n <= CHUNK && !c->http.ex;
	if (n > CHUNK)
		n = CHUNK;
	memcpy(buf + LWS_PRE, c->http.body->data + c->http.body_off, n);
	if (lws_write(wsi, buf + LWS_PRE, n, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) !=
	    (int)n)
		return -1;
	c->http.body_off += n;
	if (!final) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	tt_frame_unref(c->http.body);
	c->http.body = NULL;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

void tt_server_http_closed(struct conn *c)
{
	tt_frame_unref(c->http.body);
	c->http.body = NULL;
	export_end(c);
}

int tt_server_header(struct lws *wsi, enum lws_token_indexes h, char *buf, size_t len)
{
	int n = lws_hdr_total_length(wsi, h);

	buf[0] = 0;
	if (n <= 0)
		return 0;
	if ((size_t)n >= len)
		return -E2BIG;
	return lws_hdr_copy(wsi, buf, (int)len, h) < 0 ? -E2BIG : 1;
}

int tt_server_url_arg(struct lws *wsi, const char *name, char *buf, size_t len)
{
	char frag[4096 + 1]; /* lws keeps at most 4096 bytes of headers */
	size_t nl = strlen(name);

	buf[0] = 0;
	for (int i = 0;; i++) {
		int fl = lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i);
		if (fl <= 0)
			return 0;
		if ((size_t)fl >= sizeof(frag) ||
		    lws_hdr_copy_fragment(wsi, frag, sizeof(frag), WSI_TOKEN_HTTP_URI_ARGS, i) < 0)
			continue;
		if (strncmp(frag, name, nl))
			continue;
		if ((size_t)fl - nl >= len)
			return -E2BIG;
		memcpy(buf, frag + nl, (size_t)fl - nl + 1);
		return 1;
	}
}

void tt_server_http_status(struct lws *wsi, unsigned status, const char *msg)
{
	char esc[1024];
	size_t n = 0;

	/* lws puts the message into an HTML page: a quoted Origin or path must stay text */
	for (const char *p = msg; *p && n + 7 < sizeof(esc); p++) {
		const char *rep = *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : *p == '&' ? "&amp;"
				: *p == '"' ? "&quot;" : *p == '\'' ? "&#39;" : NULL;
		if (rep) {
			memcpy(esc + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			esc[n++] = (unsigned char)*p < 0x20 ? '?' : *p;
		}
	}
	esc[n] = 0;
	lws_return_http_status(wsi, status, esc);
}

static int fail(struct lws *wsi, unsigned status, const char *msg)
{
	tt_server_http_status(wsi, status, msg);
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* A static file path stays below the web folder once symlinks are resolved; a path that does
 * not exist is left to lws (its 404). */
/* Where a static path leads: a file below the web folder (1), nothing (0), or out of the
 * folder once symlinks are resolved (-1). */
static int web_file(struct tt_server *s, const char *uri)
{
	char path[PATH_MAX], real[PATH_MAX];
	size_t n = strlen(s->web_real);
	int k = snprintf(path, sizeof(path), "%s%s%s", s->web_dir, uri,
			 uri[0] && uri[strlen(uri) - 1] == '/' ? "index.html" : "");

	if (k < 0 || (size_t)k >= sizeof(path))
		return 0;
	if (!realpath(path, real))
		return 0;
	return !strncmp(real, s->web_real, n) && (real[n] == '/' || real[n] == 0) ? 1 : -1;
}

/* A plain-text answer (not libwebsockets' HTML page, which links a stylesheet the web folder
 * does not have); the connection closes after it. */
static void plain_status(struct lws *wsi, unsigned status, const char *msg)
{
	unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
		      *end = buf + sizeof(buf) - 1;
	char body[256];
	int n = snprintf(body, sizeof(body), "%u %s\n", status, msg);

	if (n < 0 || (size_t)n >= sizeof(body))
		n = (int)sizeof(body) - 1;
	if (lws_add_http_common_headers(wsi, status, "text/plain; charset=utf-8", (lws_filepos_t)n,
					&p, end) ||
	    lws_finalize_http_header(wsi, &p, end) ||
	    lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS) < 0)
		return;
	lws_write(wsi, (unsigned char *)body, (size_t)n, LWS_WRITE_HTTP_FINAL);
}

static bool has_body(struct lws *wsi)
{
	char cl[32];
	int rc = tt_server_header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, cl, sizeof(cl));

	return rc < 0 || (rc > 0 && strspn(cl, "0 ") != strlen(cl)) ||
	       lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0;
}

int tt_server_http_filter(struct tt_server *s, struct lws *wsi, const char *uri)
{
	if (has_body(wsi)) {
		tt_server_refusedf(s, "refused a request with a body (413)");
		s->rejected++;
		plain_status(wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, "request bodies are not accepted");
		return -1; /* the body is never read: close after the answer */
	}
	bool api = uri && (!strcmp(uri, "/api") || !strncmp(uri, "/api/", 5) ||
			   !strcmp(uri, "/metrics") || !strcmp(uri, "/healthz"));
	int f = uri && !api ? web_file(s, uri) : 1;

	if (f < 0)
		tt_server_refusedf(s, "refused %.200s: it leaves the web folder through a symlink", uri);
	if (f <= 0) {
		plain_status(wsi, HTTP_STATUS_NOT_FOUND, "not found");
		return -1;
	}
	return 0;
}

/* A target name as a Prometheus label value: \, " and line breaks escaped (a remote target's
 * name is a broker's choice: it must not end the label or the line). */
static const char *label(const char *name, char *buf, size_t cap)
{
	size_t k = 0;

	for (; *name && k + 3 < cap; name++) {
		if (*name == '\\' || *name == '"' || *name == '\n')
			buf[k++] = '\\';
		buf[k++] = *name == '\n' ? 'n' : *name;
	}
	buf[k] = 0;
	return buf;
}

/* Each target's state, one line per state, 1 for the current one (Prometheus' way of an
 * enum: an alert rule matches state="disconnected" without knowing the numbering). A target
 * whose reader has not reported yet is attaching. */
static void target_states(struct tt_server *s, struct body *b)
{
	char lb[TT_JSON_MAX_NAME * 2 + 3];

	body_printf(b, "# HELP tracetap_target_state The target's state (1 for the current one)\n"
		       "# TYPE tracetap_target_state gauge\n");
	for (size_t i = 0; i < s->nhubs; i++) {
		const struct tt_target_status *st = tt_hub_target_status(s->hubs[i]);
		enum tt_target_state cur = st ? st->state : TT_TARGET_ATTACHING;

		label(tt_hub_target(s->hubs[i]), lb, sizeof(lb));
		for (int k = TT_TARGET_ATTACHING; k <= TT_TARGET_HALTED; k++)
			body_printf(b, "tracetap_target_state{target=\"%s\",state=\"%s\"} %d\n", lb,
				    tt_target_state_name((enum tt_target_state)k), k == (int)cur);
	}
}

static void metrics(struct tt_server *s, struct body *b)
{
	static const struct {
		const char *name, *help, *type;
	} m[] = {
		{ "tracetap_events_total", "Events decoded from the target", "counter" },
		{ "tracetap_gaps_total", "Gap records (loss reported by the reader)", "counter" },
		{ "tracetap_lost_events_total", "Events lost (sum of gap counts)", "counter" },
		{ "tracetap_resets_total", "Target trace resets", "counter" },
		{ "tracetap_probe_bytes_total", "Bytes read through the probe", "counter" },
		{ "tracetap_poll_seconds", "Duration of the last poll cycle", "gauge" },
		{ "tracetap_poll_interval_seconds", "Current poll interval", "gauge" },
		{ "tracetap_records_total", "Records published to clients (last seq)", "counter" },
		{ "tracetap_history_records", "Records held for resume/export", "gauge" },
		{ "tracetap_slow_client_skipped_total", "Records skipped for slow clients",
		  "counter" },
		{ "tracetap_target_clients", "Clients subscribed to the target", "gauge" },
		{ "tracetap_history_skipped_total",
		  "History found at attach but overwritten before the first read (never promised)",
		  "counter" },
		{ "tracetap_remote_dropped_total",
		  "Broker messages of a remote target refused (malformed, numbers out of range)",
		  "counter" },
		{ "tracetap_remote_repeats_total",
		  "Records and gap messages of a remote target dropped as already had", "counter" },
		{ "tracetap_stack_scan_bytes_total",
		  "Probe bytes read for the stacks' high-water marks (in tracetap_probe_bytes_total "
		  "too)", "counter" },
	};
	static const struct tt_target_status none;
	char lb[TT_JSON_MAX_NAME * 2 + 3];

	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		body_printf(b, "# HELP %s %s\n# TYPE %s %s\n", m[k].name, m[k].help, m[k].name,
			    m[k].type);
		for (size_t i = 0; i < s->nhubs; i++) {
			const struct tt_target_status *st = tt_hub_target_status(s->hubs[i]);
			struct tt_hub_stats hs;
			double v;
			if (!st)
				st = &none;
			tt_hub_get_stats(s->hubs[i], &hs);
			switch (k) {
			case 0: v = (double)st->events; break;
			case 1: v = (double)st->gaps; break;
			case 2: v = (double)st->lost; break;
			case 3: v = (double)st->resets; break;
			case 4: v = (double)st->bytes_read; break;
			case 5: v = st->poll_ms_last / 1000.0; break;
			case 6: v = st->interval_ms / 1000.0; break;
			case 7: v = (double)hs.last_seq; break;
			case 8: v = (double)hs.history_records; break;
			case 9: v = (double)hs.slow_lost; break;
			case 11: v = (double)st->skipped; break;
			case 12: v = (double)st->dropped; break;
			case 13: v = (double)st->repeats; break;
			case 14: v = (double)st->stack_bytes; break;
			case 10: v = (double)hs.clients; break;
			default: v = 0; break;
			}
			body_printf(b, "%s{target=\"%s\"} %.15g\n", m[k].name,
				    label(tt_hub_target(s->hubs[i]), lb, sizeof(lb)), v);
		}
	}
	target_states(s, b);
	body_printf(b, "# HELP tracetap_clients Connected WebSocket clients\n"
		       "# TYPE tracetap_clients gauge\ntracetap_clients %zu\n", s->nconns);
	body_printf(b, "# HELP tracetap_send_turn_max_bytes Most WebSocket bytes written in one "
		       "loop turn\n# TYPE tracetap_send_turn_max_bytes gauge\n"
		       "tracetap_send_turn_max_bytes %zu\n", s->tx_turn_max);
	body_printf(b, "# HELP tracetap_send_deferred_total Client writes put off to the next "
		       "loop turn (send budget spent)\n# TYPE tracetap_send_deferred_total counter\n"
		       "tracetap_send_deferred_total %" PRIu64 "\n", s->tx_deferred);
	body_printf(b, "# HELP tracetap_busy_total Requests refused with 503 (max_clients, "
		       "max_exports)\n# TYPE tracetap_busy_total counter\ntracetap_busy_total %"
		       PRIu64 "\n", s->busy);
	body_printf(b, "# HELP tracetap_rejected_total Connections refused (token, Origin)\n"
		       "# TYPE tracetap_rejected_total counter\ntracetap_rejected_total %" PRIu64
		       "\n", s->rejected);
	body_printf(b, "# HELP tracetap_remote_refused_total Broker messages for no target, or "
		       "for a target not allowed (mqtt_benches, mqtt_bench_targets, the table full)\n"
		       "# TYPE tracetap_remote_refused_total counter\ntracetap_remote_refused_total %"
		       PRIu64 "\n", s->remote_refused);
	body_printf(b, "# HELP tracetap_bad_messages_total Client messages answered with an "
		       "error\n# TYPE tracetap_bad_messages_total counter\n"
		       "tracetap_bad_messages_total %" PRIu64 "\n", s->bad_messages);
	if (s->ext.metrics)
		s->ext.metrics(s->ext.arg, body_put, b);
}

void tt_server_set_ext(struct tt_server *s, const struct tt_server_ext *ext)
{
	memset(&s->ext, 0, sizeof(s->ext));
	if (ext)
		s->ext = *ext;
}

/* An API error: {"error": "...", "status": N} with that status (scripts read the reason; a
 * browser gets no HTML page pointing at a stylesheet that is not there). */
static int api_fail(struct conn *c, struct lws *wsi, struct body *b, unsigned status,
		    const char *msg)
{
	char m[640], out[1400];
	int n = tt_json_string(m, sizeof(m), msg, 512);
	size_t k = 0;

	/* < > & as \u escapes: a quoted Origin or path can never read as markup */
	for (int i = 0; i < n && k + 7 < sizeof(out); i++)
		k += m[i] == '<' || m[i] == '>' || m[i] == '&'
			     ? (size_t)snprintf(out + k, sizeof(out) - k, "\\u%04x", m[i])
			     : (out[k] = m[i], 1u);
	b->f->len = 0;
	b->err = 0;
	body_printf(b, "{\"error\":%.*s,\"status\":%u}\n", n > 0 ? (int)k : 2,
		    n > 0 ? out : "\"\"", status);
	return respond(c, wsi, status, "application/json", b);
}

/* "board1, board2" of the daemon's targets into buf. */
static const char *target_list(const struct tt_server *s, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nhubs && n + 1 < cap; i++) {
		int k = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", tt_hub_target(s->hubs[i]));
		n = k < 0 || (size_t)k >= cap - n ? cap - 1 : n + (size_t)k;
	}
	return buf;
}

/* Content-Disposition of an export: TARGET-YYYYMMDD-HHMMSS.EXT (UTC), the name cut to the
 * characters a file name takes everywhere. */
static void export_filename(const char *target, enum tt_export_format fmt, char *out, size_t cap)
{
	char name[64], when[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t n = 0;

	for (const char *p = target; *p && n + 1 < sizeof(name); p++)
		name[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
				   *p) ? *p : '_';
	name[n] = '\0';
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", gmtime_r(&now, &tm));
	snprintf(out, cap, "attachment; filename=\"%s-%s%s\"", n ? name : "target", when,
		 tt_export_file_ext(fmt));
}

/* The hub target= names (tbuf: 160 bytes; may be left out when there is one target), or NULL
 * after answering why not (*rc: respond's result). */
static struct tt_hub *target_arg(struct conn *c, struct lws *wsi, struct body *b, char *tbuf,
				 int *rc)
{
	const char *target = tbuf;
	struct tt_hub *h;
	int rt = tt_server_url_arg(wsi, "target=", tbuf, 160);
	char list[512], msg[768];

	if (rt < 0) {
		*rc = api_fail(c, wsi, b, HTTP_STATUS_BAD_REQUEST,
			       "target= is longer than any target name (159 bytes at most)");
		return NULL;
	}
	if (!rt) {
		if (c->srv->nhubs != 1) {
			snprintf(msg, sizeof(msg), "target=NAME is required: this daemon has %zu "
				 "targets (%s)", c->srv->nhubs, target_list(c->srv, list, sizeof(list)));
			*rc = api_fail(c, wsi, b, HTTP_STATUS_BAD_REQUEST, msg);
			return NULL;
		}
		target = tt_hub_target(c->srv->hubs[0]);
	}
	if (!(h = tt_server_hub(c->srv, target))) {
		snprintf(msg, sizeof(msg), "no target named '%.100s' (targets: %s)", target,
			 target_list(c->srv, list, sizeof(list)));
		*rc = api_fail(c, wsi, b, HTTP_STATUS_NOT_FOUND, msg);
	}
	return h;
}

/* Appends what fill writes (snprintf-like: it returns the length it needs). */
static void body_fill(struct body *b, size_t (*fill)(void *arg, char *buf, size_t len),
		      void *arg)
{
	size_t n = fill(arg, NULL, 0);
	char *tmp = malloc(n + 1);

	if (!tmp) {
		b->err = -ENOMEM;
		return;
	}
	fill(arg, tmp, n + 1);
	body_put(b, tmp, n);
	free(tmp);
}

static size_t fill_stats(void *arg, char *buf, size_t len)
{
	return tt_analysis_json(arg, buf, len);
}

/* /api/stats?target=T: the target's live analysis, as `tracetap analyze --json` writes it. */
static int api_stats(struct conn *c, struct lws *wsi, struct body *b)
{
	char tbuf[160];
	int rc = 0;
	struct tt_hub *h = target_arg(c, wsi, b, tbuf, &rc);
	struct tt_stats *st;
	const struct tt_analysis *an;

	if (!h)
		return rc;
	st = c->srv->stats_of ? c->srv->stats_of(c->srv->stats_arg, tt_hub_target(h)) : NULL;
	an = st ? tt_stats_analysis(st) : NULL;
	if (!an)
		return api_fail(c, wsi, b, HTTP_STATUS_NOT_FOUND, st ? "no record analysed yet" :
				"this target has no live analysis here (a remote target: ask its "
				"own daemon)");
	body_fill(b, fill_stats, (void *)an);
	body_put(b, "\n", 1);
	return respond(c, wsi, HTTP_STATUS_OK, "application/json", b);
}

struct metrics_set {
	const char *names[TT_MAX_TARGETS];
	const struct tt_stats *st[TT_MAX_TARGETS];
	size_t n;
};

static size_t fill_metrics(void *arg, char *buf, size_t len)
{
	struct metrics_set *m = arg;

	return tt_stats_metrics(m->names, m->st, m->n, buf, len);
}

/* The live analysis's lines of /metrics, every target's. */
static void analysis_metrics(struct tt_server *s, struct body *b)
{
	struct metrics_set m = { .n = s->nhubs };

	if (!s->stats_of)
		return;
	for (size_t i = 0; i < s->nhubs; i++) {
		m.names[i] = tt_hub_target(s->hubs[i]);
		m.st[i] = s->stats_of(s->stats_arg, m.names[i]);
	}
	body_fill(b, fill_metrics, &m);
}

static int export(struct conn *c, struct lws *wsi, struct body *b)
{
	char tbuf[160], fbuf[48];
	const char *target = tbuf, *format = fbuf;
	struct tt_hub *h;
	struct tt_hub_stats st;
	struct tt_export *e;
	int fmt, rf, rc = 0;

	rf = tt_server_url_arg(wsi, "format=", fbuf, sizeof(fbuf));
	if (rf < 0)
		return api_fail(c, wsi, b, HTTP_STATUS_BAD_REQUEST,
				"format= is longer than any format name");
	if (!(h = target_arg(c, wsi, b, tbuf, &rc)))
		return rc;
	target = tt_hub_target(h);
	if (!rf)
		format = "jsonl";
	if ((fmt = tt_export_format_parse(format)) < 0)
		return api_fail(c, wsi, b, HTTP_STATUS_BAD_REQUEST,
				"format must be jsonl, trx, perfetto or ftrace");
	if (c->srv->nexports >= c->srv->cfg.max_exports) {
		c->srv->busy++;
		tt_server_refusedf(c->srv, "export refused: %u in progress (max_exports)",
			       c->srv->nexports);
		char msg[96];
		snprintf(msg, sizeof(msg), "%u exports in progress (the most at once): retry later",
			 c->srv->nexports);
		return api_fail(c, wsi, b, HTTP_STATUS_SERVICE_UNAVAILABLE, msg);
	}
	/* The history as it is now, produced a step at a time as the client reads (the loop
	 * never stalls on a big export); records evicted meanwhile are skipped. No
	 * Content-Length: the connection closes at the end. */
	tt_hub_flush(h);
	tt_hub_get_stats(h, &st);
	unsigned char hdr[LWS_PRE + 1024], *start = hdr + LWS_PRE, *p = start,
		      *end = hdr + sizeof(hdr) - 1;
	char disp[160];
	if (tt_export_new((enum tt_export_format)fmt, conn_put, c, &e) < 0)
		return api_fail(c, wsi, b, HTTP_STATUS_INTERNAL_SERVER_ERROR, "out of memory");
	tt_hub_export_prepare(h, e);
	export_filename(target, (enum tt_export_format)fmt, disp, sizeof(disp));
	if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK,
					tt_export_content_type((enum tt_export_format)fmt),
					LWS_ILLEGAL_HTTP_CONTENT_LEN, &p, end) ||
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"content-disposition:",
					(const unsigned char *)disp, (int)strlen(disp), &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end)) {
		tt_export_free(e);
		tt_frame_unref(b->f);
		return -1;
	}
	tt_frame_unref(c->http.body);
	export_end(c);
	c->http.body = b->f;
	c->http.body->len = 0;
	c->http.body_off = 0;
	c->http.ex = e;
	c->srv->nexports++;
	c->http.ex_hub = h;
	c->http.ex_next = st.oldest_seq ? st.oldest_seq : 1;
	c->http.ex_end = st.last_seq;
	lws_callback_on_writable(wsi);
	return 0;
}

int tt_server_http(struct conn *c, struct lws *wsi)
{
	struct tt_server *s = c->srv;
	char uri[256], why[300];
	struct body b = { tt_frame_new(4096), 0, NULL };
	int st = tt_server_header(wsi, WSI_TOKEN_GET_URI, uri, sizeof(uri));

	if (!b.f)
		return fail(wsi, HTTP_STATUS_INTERNAL_SERVER_ERROR, "out of memory");
	if (st <= 0) {
		tt_frame_unref(b.f);
		return st < 0 ? fail(wsi, HTTP_STATUS_REQ_URI_TOO_LONG, "path too long")
			      : fail(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "only GET is supported");
	}
	if (!strcmp(uri, "/healthz")) {
		body_printf(&b, "ok\n");
		return respond(c, wsi, HTTP_STATUS_OK, "text/plain", &b);
	}
	if ((st = tt_server_check_access(s, wsi, why, sizeof(why)))) {
		s->rejected++;
		return api_fail(c, wsi, &b, (unsigned)st, why);
	}
	if (!strcmp(uri, "/metrics")) {
		metrics(s, &b);
		analysis_metrics(s, &b);
		return respond(c, wsi, HTTP_STATUS_OK, "text/plain; version=0.0.4", &b);
	}
	if (!strcmp(uri, "/api/targets")) {
		body_put(&b, "[", 1);
		for (size_t i = 0; i < s->nhubs; i++) {
			char tmp[4096];
			int n = tt_hub_summary_json(s->hubs[i], tmp, sizeof(tmp));
			if (i)
				body_put(&b, ",", 1);
			if (n > 0)
				body_put(&b, tmp, (size_t)n);
		}
		body_put(&b, "]\n", 2);
		return respond(c, wsi, HTTP_STATUS_OK, "application/json", &b);
	}
	if (!strcmp(uri, "/api/export"))
		return export(c, wsi, &b);
	if (!strcmp(uri, "/api/stats"))
		return api_stats(c, wsi, &b);
	if (s->ext.http) {
		const char *type = "application/json";
		char disp[400] = "";
		int code = s->ext.http(s->ext.arg, uri, body_put, &b, &type, disp, sizeof(disp));
		if (code) {
			b.disp = disp;
			return respond(c, wsi, (unsigned)code, type, &b);
		}
	}
	return api_fail(c, wsi, &b, HTTP_STATUS_NOT_FOUND, "no such API path (/api/targets, "
			"/api/export, /api/stats, /api/captures, /metrics, /healthz)");
}
