/* client/wsclient.c: a small WebSocket (RFC 6455) and HTTP GET client, over TCP or TLS
 * (conn.c).
 *
 * Why this and not libwebsockets' client, which the daemon's server already uses: the client
 * is a blocking command-line program, and this API (a connection one thread drives with
 * poll(), frames parsed out of a buffer without I/O) is also what the server's tests, fault
 * harness and benchmarks drive the daemon with, many connections a thread; one client
 * implementation serves both. TLS is OpenSSL (libssl, which Debian's libwebsockets links
 * anyway) under the same framing: a smaller change than a second WebSocket stack on a loop.
 * The price is a hand-written handshake, so it is strict: the answer must be 101 with
 * `Upgrade: websocket`, `Connection: upgrade`, exactly one `Sec-WebSocket-Accept` equal to
 * base64(SHA-1(key + the RFC's GUID)) for a random key, no subprotocol other than the one
 * asked for and no extension (none is offered). That holds with TLS or without.
 *
 * Reads go into a growable buffer; tt_ws_next parses frames out of it without further I/O,
 * so one thread can drive many connections with poll(). Client frames are masked (as the RFC
 * requires). Every read is bounded: a frame or message over max_message, an HTTP answer over
 * max_bytes or past its deadline, is an error that says so.
 */
#include "wsclient.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "conn_int.h"

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

struct tt_ws {
	struct tt_conn c;
	char *buf;            /* received, not yet parsed: [off, len) */
	size_t off, len, cap;
	char *msg;            /* fragments being assembled */
	size_t msglen, msgcap;
	int msgop;
	size_t max_message;
	uint32_t rnd;
	char close_reason[128];
};

int tt_url_parse(const char *url, struct tt_url *u)
{
	static const struct { const char *prefix; bool tls; } schemes[] = {
		{ "ws://", false }, { "http://", false }, { "wss://", true }, { "https://", true },
	};
	const char *p = url, *host, *end;
	size_t hl;

	memset(u, 0, sizeof(*u));
	u->port = 7733;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (!strncmp(p, schemes[i].prefix, strlen(schemes[i].prefix))) {
			p += strlen(schemes[i].prefix);
			u->tls = schemes[i].tls;
			break;
		}
	if (strstr(p, "://"))
		return -EINVAL; /* another scheme */
	host = p;
	end = host + strcspn(host, ":/?");
	hl = (size_t)(end - host);
	if (!hl || hl >= sizeof(u->host))
		return -EINVAL;
	memcpy(u->host, host, hl);
	p = end;
	if (*p == ':') {
		char *e;
		long port = strtol(p + 1, &e, 10);
		if (e == p + 1 || port <= 0 || port > 65535)
			return -EINVAL;
		u->port = (int)port;
		p = e;
	}
	snprintf(u->path, sizeof(u->path), "%s%s", *p == '/' ? "" : "/ws", p);
	return 0;
}

/* err = "SCHEME://HOST:PORT: " and the reason (err may be NULL). */
static void say(char *err, size_t errlen, const char *scheme, const char *host, int port,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void say(char *err, size_t errlen, const char *scheme, const char *host, int port,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s://%s:%d: ", scheme, host, port);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

#define WS_SAY(o, ...) say(err, errlen, (o)->tls ? "wss" : "ws", (o)->host, (o)->port, __VA_ARGS__)
#define HTTP_SAY(o, ...) say(err, errlen, (o)->tls ? "https" : "http", (o)->host, (o)->port, \
			     __VA_ARGS__)

/* Reads an HTTP response head into buf (NUL terminated); *body points just after it and
 * *total is how many bytes were read (the start of the body may have come along). */
static int read_head(struct tt_conn *c, char *buf, size_t cap, long long deadline, size_t *total,
		     char **body)
{
	size_t len = 0;

	for (;;) {
		buf[len] = 0;
		char *e = strstr(buf, "\r\n\r\n");
		if (e) {
			*body = e + 4;
			*total = len;
			return 0;
		}
		if (len + 1 >= cap)
			return -EPROTO;
		ssize_t n = tt_conn_recv(c, buf + len, cap - 1 - len);
		if (n == 0)
			return -EPIPE;
		if (n == -EAGAIN) {
			int rc = tt_conn_wait(c, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		if (n < 0)
			return (int)n;
		len += (size_t)n;
	}
}

/* The first value of header name in the head (up to the blank line) into out, trimmed;
 * returns how many times the header is there. */
static int header(const char *head, const char *name, char *out, size_t cap)
{
	const char *p = strstr(head, "\r\n"), *stop = strstr(head, "\r\n\r\n");
	size_t nl = strlen(name);
	int n = 0;

	out[0] = '\0';
	while (p && p < stop) {
		const char *line = p + 2, *eol = strstr(line, "\r\n");
		if ((size_t)(eol - line) > nl && line[nl] == ':' && !strncasecmp(line, name, nl)) {
			const char *v = line + nl + 1, *e = eol;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if (!n++)
				snprintf(out, cap, "%.*s", (int)(e - v), v);
		}
		p = eol;
	}
	return n;
}

/* Whether the comma-separated list holds token (case-insensitive). */
static bool has_token(const char *list, const char *token)
{
	size_t tl = strlen(token);

	for (const char *p = list; *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, ",");
		size_t k = n;
		while (k && (p[k - 1] == ' ' || p[k - 1] == '\t'))
			k--;
		if (k == tl && !strncasecmp(p, token, tl))
			return true;
		p += n;
	}
	return false;
}

static void b64(const unsigned char *in, size_t n, char *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		out[o++] = t[v >> 18];
		out[o++] = t[(v >> 12) & 63];
		out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = 0;
}

/* Checks a 101 answer's head against what RFC 6455 section 4.1 requires of it for key and
 * the protocol asked for. 0, or -EPROTO with the reason in why. */
static int check_upgrade(const char *head, const char *key, const char *protocol, char *why,
			 size_t cap)
{
	char v[128], expect[32], ka[96];
	unsigned char sha[EVP_MAX_MD_SIZE];
	unsigned shalen = 0;

	if (header(head, "Upgrade", v, sizeof(v)) != 1 || strcasecmp(v, "websocket")) {
		snprintf(why, cap, "the answer is no WebSocket upgrade (Upgrade: '%.60s')", v);
		return -EPROTO;
	}
	if (!header(head, "Connection", v, sizeof(v)) || !has_token(v, "upgrade")) {
		snprintf(why, cap, "the answer is no WebSocket upgrade (Connection: '%.60s')", v);
		return -EPROTO;
	}
	snprintf(ka, sizeof(ka), "%s" WS_GUID, key);
	if (!EVP_Digest(ka, strlen(ka), sha, &shalen, EVP_sha1(), NULL) || shalen != 20) {
		snprintf(why, cap, "SHA-1 is not available");
		return -EPROTO;
	}
	b64(sha, 20, expect);
	int n = header(head, "Sec-WebSocket-Accept", v, sizeof(v));
	if (n != 1 || strcmp(v, expect)) {
		snprintf(why, cap, "Sec-WebSocket-Accept is %s%.40s%s, expected '%s' (not an answer to "
			 "this handshake)", n ? "'" : "missing", n ? v : "", n ? "'" : "", expect);
		return -EPROTO;
	}
	if (header(head, "Sec-WebSocket-Protocol", v, sizeof(v)) && strcmp(v, protocol)) {
		snprintf(why, cap, "the server chose subprotocol '%.60s', asked for %s", v, protocol);
		return -EPROTO;
	}
	if (header(head, "Sec-WebSocket-Extensions", v, sizeof(v))) {
		snprintf(why, cap, "the server chose extension '%.60s', none was offered", v);
		return -EPROTO;
	}
	return 0;
}

/* Appends to the request in req[0..cap): -E2BIG when it does not fit (nothing is sent then). */
static int reqf(char *req, size_t cap, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int reqf(char *req, size_t cap, int *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n < 0)
		return *n;
	va_start(ap, fmt);
	k = vsnprintf(req + *n, cap - (size_t)*n, fmt, ap);
	va_end(ap);
	*n = k < 0 || (size_t)k >= cap - (size_t)*n ? -E2BIG : *n + k;
	return *n;
}

/* The HTTP upgrade request of o into req with key; returns its length, or -E2BIG. */
static int upgrade_request(const struct tt_ws_opts *o, const char *key, char *req, size_t cap)
{
	int n = 0;

	reqf(req, cap, &n,
	     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
	     "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
	     "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n",
	     o->path ? o->path : "/ws", o->host, o->port, key,
	     o->protocol ? o->protocol : "tracetap.v1");
	if (o->origin)
		reqf(req, cap, &n, "Origin: %s\r\n", o->origin);
	if (o->token)
		reqf(req, cap, &n, "Authorization: Bearer %s\r\n", o->token);
	return reqf(req, cap, &n, "\r\n");
}

/* A refused upgrade: its status line and the reason in the body (what came with the head, or
 * within 300 ms after it: enough for ours) into why. */
static void refused(struct tt_conn *c, char *head, size_t cap, size_t total, const char *body,
		    char *why, size_t whylen)
{
	char *eol = strstr(head, "\r\n");
	size_t bl = total - (size_t)(body - head);
	ssize_t k;

	if (eol)
		*eol = 0;
	if (bl < 400) {
		if (tt_conn_wait(c, tt_conn_now_ms() + 300) == 0 &&
		    (k = tt_conn_recv(c, head + total, cap - 1 - total)) > 0) {
			total += (size_t)k;
			bl += (size_t)k;
		}
		head[total] = 0;
	}
	snprintf(why, whylen, "server refused the WebSocket: %.200s%s%.300s", head,
		 bl ? ": " : "", body);
}

/* Sends the upgrade request on ws and checks the answer; what came after the head stays in
 * ws->buf. 0, or -errno with the reason in why (*status: the HTTP status, 0 when none). */
static int upgrade(struct tt_ws *ws, const struct tt_ws_opts *o, long long deadline, int *status,
		   char *why, size_t whylen)
{
	char req[2048], head[8192], key[32], *body = NULL;
	unsigned char nonce[16];
	size_t total = 0;
	int n, rc;

	if (RAND_bytes(nonce, sizeof(nonce)) != 1 ||
	    RAND_bytes((unsigned char *)&ws->rnd, sizeof(ws->rnd)) != 1) {
		snprintf(why, whylen, "no random bytes for the WebSocket key");
		return -EIO;
	}
	ws->rnd |= 1; /* xorshift's state is never 0 */
	b64(nonce, sizeof(nonce), key);
	n = upgrade_request(o, key, req, sizeof(req));
	if (n < 0) {
		snprintf(why, whylen, "the WebSocket request's path, Origin and token are more "
			 "than %zu bytes", sizeof(req));
		return n;
	}
	if ((rc = tt_conn_send(&ws->c, req, (size_t)n, deadline)) < 0 ||
	    (rc = read_head(&ws->c, head, sizeof(head), deadline, &total, &body)) < 0) {
		snprintf(why, whylen, "WebSocket handshake failed: %s%s", rc == -EPIPE ?
			 "the server closed the connection without an answer" : strerror(-rc),
			 !o->tls && (rc == -EPIPE || rc == -ECONNRESET) ? " (if it serves TLS: "
			 "wss://)" : "");
		return rc;
	}
	sscanf(head, "HTTP/1.%*d %d", status);
	if (*status != 101) {
		refused(&ws->c, head, sizeof(head), total, body, why, whylen);
		return *status ? -EACCES : -EPROTO;
	}
	if ((rc = check_upgrade(head, key, o->protocol ? o->protocol : "tracetap.v1", why,
				whylen)) < 0)
		return rc;
	ws->cap = 65536;
	ws->buf = malloc(ws->cap);
	if (!ws->buf) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	ws->len = total - (size_t)(body - head);
	memcpy(ws->buf, body, ws->len);
	return 0;
}

int tt_ws_connect(const struct tt_ws_opts *o, struct tt_ws **out, int *http_status, char *err,
		  size_t errlen)
{
	int timeout = o->timeout_ms > 0 ? o->timeout_ms : 5000;
	char why[1024];
	struct tt_ws *ws;
	int rc, status = 0;

	if (http_status)
		*http_status = 0;
	ws = calloc(1, sizeof(*ws));
	if (!ws) {
		WS_SAY(o, "out of memory");
		return -ENOMEM;
	}
	ws->max_message = o->max_message ? o->max_message : TT_WS_MAX_MESSAGE;
	rc = tt_conn_open(&ws->c, o->host, o->port, o->tls, o->ca, timeout, why, sizeof(why));
	if (rc == 0)
		rc = upgrade(ws, o, tt_conn_now_ms() + timeout, &status, why, sizeof(why));
	if (http_status)
		*http_status = status;
	if (rc < 0) {
		WS_SAY(o, "%s", why);
		tt_conn_close(&ws->c);
		free(ws->buf);
		free(ws);
		return rc;
	}
	*out = ws;
	return 0;
}

int tt_ws_fd(const struct tt_ws *ws)
{
	return ws->c.fd;
}

static uint32_t rnd_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int send_frame(struct tt_ws *ws, int op, const char *data, size_t len)
{
	size_t hl = 2;
	unsigned char *f = malloc(14 + len), mask[4];
	int rc;

	if (!f)
		return -ENOMEM;
	f[0] = (unsigned char)(0x80 | op);
	if (len < 126) {
		f[1] = (unsigned char)(0x80 | len);
	} else if (len < 65536) {
		f[1] = 0x80 | 126;
		f[2] = (unsigned char)(len >> 8);
		f[3] = (unsigned char)len;
		hl = 4;
	} else {
		f[1] = 0x80 | 127;
		for (int i = 0; i < 8; i++)
			f[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
		hl = 10;
	}
	uint32_t r = rnd_next(&ws->rnd);
	memcpy(mask, &r, 4);
	memcpy(f + hl, mask, 4);
	for (size_t i = 0; i < len; i++)
		f[hl + 4 + i] = (unsigned char)data[i] ^ mask[i & 3];
	rc = tt_conn_send(&ws->c, f, hl + 4 + len, tt_conn_now_ms() + 10000);
	free(f);
	return rc;
}

int tt_ws_send(struct tt_ws *ws, const char *data, size_t len)
{
	return send_frame(ws, 1, data, len);
}

/* At least 16 KiB free at the end of ws->buf (a TLS record's worth). */
static int make_room(struct tt_ws *ws)
{
	if (ws->off && ws->off == ws->len)
		ws->off = ws->len = 0;
	if (ws->cap - ws->len >= 16384)
		return 0;
	if (ws->off) {
		memmove(ws->buf, ws->buf + ws->off, ws->len - ws->off);
		ws->len -= ws->off;
		ws->off = 0;
	}
	if (ws->cap - ws->len < 16384) {
		char *nb = realloc(ws->buf, ws->cap * 2);
		if (!nb)
			return -ENOMEM;
		ws->buf = nb;
		ws->cap *= 2;
	}
	return 0;
}

int tt_ws_read(struct tt_ws *ws)
{
	size_t got = 0;
	ssize_t n;

	do { /* what TLS decrypted but did not hand over yet comes along: no fd would wake */
		if (make_room(ws) < 0)
			return -ENOMEM;
		n = tt_conn_recv(&ws->c, ws->buf + ws->len, ws->cap - ws->len);
		if (n > 0) {
			ws->len += (size_t)n;
			got += (size_t)n;
		}
	} while (n > 0 && tt_conn_pending(&ws->c));
	if (got)
		return (int)got;
	return n == 0 ? -EPIPE : (int)n;
}

int tt_ws_next(struct tt_ws *ws, struct tt_ws_msg *m)
{
	for (;;) {
		unsigned char *p = (unsigned char *)ws->buf + ws->off;
		size_t avail = ws->len - ws->off, hl = 2;
		uint64_t plen;

		if (avail < 2)
			return 0;
		int fin = p[0] & 0x80, op = p[0] & 0x0F;
		if (p[1] & 0x80)
			return -EPROTO; /* servers never mask */
		plen = p[1] & 0x7F;
		if (plen == 126) {
			if (avail < 4)
				return 0;
			plen = (uint64_t)p[2] << 8 | p[3];
			hl = 4;
		} else if (plen == 127) {
			if (avail < 10)
				return 0;
			plen = 0;
			for (int i = 0; i < 8; i++)
				plen = plen << 8 | p[2 + i];
			hl = 10;
		}
		if (plen > ws->max_message)
			return -EMSGSIZE;
		if (avail < hl + plen)
			return 0;
		const char *payload = (const char *)p + hl;
		ws->off += hl + (size_t)plen;
		if (op == 9) { /* ping: answer, keep going */
			send_frame(ws, 10, payload, (size_t)plen);
			continue;
		}
		if (op == 10)
			continue;
		memset(m, 0, sizeof(*m));
		if (op == 8) {
			m->opcode = 8;
			m->close_code = plen >= 2 ? ((unsigned char)payload[0] << 8 |
						     (unsigned char)payload[1]) : 1005;
			snprintf(ws->close_reason, sizeof(ws->close_reason), "%.*s",
				 plen > 2 ? (int)plen - 2 : 0, payload + 2);
			m->close_reason = ws->close_reason;
			return 1;
		}
		if (op != 0) {
			ws->msgop = op;
			ws->msglen = 0;
		}
		if (fin && op != 0) { /* unfragmented: no copy */
			m->opcode = op;
			m->data = payload;
			m->len = (size_t)plen;
			return 1;
		}
		if (ws->msglen + plen > ws->max_message)
			return -EMSGSIZE;
		if (ws->msglen + plen > ws->msgcap) {
			size_t nc = (ws->msglen + (size_t)plen) * 2;
			char *nm = realloc(ws->msg, nc);
			if (!nm)
				return -ENOMEM;
			ws->msg = nm;
			ws->msgcap = nc;
		}
		memcpy(ws->msg + ws->msglen, payload, (size_t)plen);
		ws->msglen += (size_t)plen;
		if (fin) {
			m->opcode = ws->msgop;
			m->data = ws->msg;
			m->len = ws->msglen;
			ws->msglen = 0;
			return 1;
		}
	}
}


int tt_ws_recv(struct tt_ws *ws, int timeout_ms, struct tt_ws_msg *m)
{
	long long deadline = timeout_ms < 0 ? -1 : tt_conn_now_ms() + timeout_ms;
	bool tried = false;

	for (;;) {
		int rc = tt_ws_next(ws, m);
		if (rc)
			return rc;
		long long left = deadline < 0 ? -1 : deadline - tt_conn_now_ms();
		/* After every read, not only when recv would block: a server that keeps sending
		 * (pings, a message that never ends) does not hold the caller past the deadline. */
		if (tried && deadline >= 0 && left <= 0)
			return 0;
		rc = tt_ws_read(ws);
		tried = true;
		if (rc == -EAGAIN) {
			if (deadline >= 0 && left <= 0)
				return 0;
			rc = tt_conn_wait(&ws->c, deadline);
			if (rc < 0 && rc != -ETIMEDOUT)
				return rc;
			continue;
		}
		if (rc < 0)
			return rc;
	}
}

void tt_ws_close(struct tt_ws *ws, int code)
{
	if (!ws)
		return;
	if (code) {
		char c[2] = { (char)(code >> 8), (char)code };
		send_frame(ws, 8, c, 2);
	}
	tt_conn_close(&ws->c);
	free(ws->buf);
	free(ws->msg);
	free(ws);
}

/* Reads the answer to a GET until the server closes, the deadline or max_bytes (or its
 * Content-Length, when the server keeps the connection). *buf: caller frees. */
static int read_answer(struct tt_conn *c, long long deadline, size_t max_bytes, char **buf,
		       size_t *len)
{
	size_t cap = 65536, n = 0, head = 0;
	long long cl = -1;
	char v[32];

	if (!(*buf = malloc(cap)))
		return -ENOMEM;
	for (;;) {
		if (tt_conn_now_ms() >= deadline)
			return -ETIMEDOUT;
		if (n >= max_bytes)
			return -EFBIG;
		if (cap - n < 4096) {
			char *nb = realloc(*buf, cap * 2);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			cap *= 2;
		}
		size_t want = cap - n - 1 < max_bytes - n ? cap - n - 1 : max_bytes - n;
		ssize_t r = tt_conn_recv(c, *buf + n, want);
		if (r == 0)
			break;
		if (r == -EAGAIN) {
			int rc = tt_conn_wait(c, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		if (r < 0)
			return (int)r;
		(*buf)[n + (size_t)r] = 0;
		char *e = head ? NULL : strstr(*buf + (n > 3 ? n - 3 : 0), "\r\n\r\n");
		n += (size_t)r;
		if (e) { /* the head is text: no NUL before it */
			head = (size_t)(e + 4 - *buf);
			if (header(*buf, "Content-Length", v, sizeof(v)))
				cl = strtoll(v, NULL, 10);
		}
		if (head && cl >= 0 && n >= head + (size_t)cl)
			break;
	}
	(*buf)[n] = 0;
	*len = n;
	return 0;
}

int tt_http_get(const struct tt_http_opts *o, char **body, size_t *len, char *err,
		size_t errlen)
{
	int timeout = o->timeout_ms > 0 ? o->timeout_ms : 5000;
	long long deadline;
	char req[2048], why[1024], v[32];
	size_t n = 0, max = o->max_bytes ? o->max_bytes : TT_HTTP_MAX_DEFAULT;
	char *buf = NULL;
	struct tt_conn c;
	int rc, status = 0, k = 0;

	*body = NULL;
	*len = 0;
	if ((rc = tt_conn_open(&c, o->host, o->port, o->tls, o->ca, timeout, why,
			       sizeof(why))) < 0) {
		HTTP_SAY(o, "%s", why);
		return rc;
	}
	deadline = tt_conn_now_ms() + timeout; /* the answer's, from the request */
	reqf(req, sizeof(req), &k, "GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n",
	     o->path, o->host, o->port);
	if (o->token)
		reqf(req, sizeof(req), &k, "Authorization: Bearer %s\r\n", o->token);
	if ((rc = reqf(req, sizeof(req), &k, "\r\n")) < 0 ||
	    (rc = tt_conn_send(&c, req, (size_t)k, deadline)) < 0 ||
	    (rc = read_answer(&c, deadline, max, &buf, &n)) < 0) {
		HTTP_SAY(o, "GET %.200s: %s%s", o->path, rc == -EFBIG ? "the answer is too big" :
			 o->tls && rc == -ECONNRESET ? "the connection closed without a TLS "
			 "close_notify (the answer may be cut short)" : strerror(-rc),
			 !o->tls && rc == -ECONNRESET ? " (if it serves TLS: https://)" : "");
		goto out;
	}
	char *e = strstr(buf, "\r\n\r\n");
	size_t off = e ? (size_t)(e + 4 - buf) : n;
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1 || !e) {
		HTTP_SAY(o, "GET %.200s: %s", o->path, n ? "the answer is not HTTP" : o->tls ?
			 "the server closed the connection without an answer" :
			 "the server closed the connection without an answer (if it serves "
			 "TLS: https://)");
		rc = -EPROTO;
		goto out;
	}
	if (header(buf, "Content-Length", v, sizeof(v)) && strtoull(v, NULL, 10) != n - off) {
		HTTP_SAY(o, "GET %.200s: the answer ended after %zu of its %s bytes", o->path,
			 n - off, v);
		rc = -EPROTO;
		goto out;
	}
	memmove(buf, buf + off, n - off + 1);
	*len = n - off;
	*body = buf;
	buf = NULL;
	rc = status;
out:
	free(buf);
	tt_conn_close(&c);
	return rc;
}
