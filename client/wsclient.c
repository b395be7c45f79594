/* client/wsclient.c: minimal WebSocket (RFC 6455) and HTTP GET client over plain TCP.
 *
 * Reads go into a growable buffer; tt_ws_next parses frames out of it without further I/O,
 * so one thread can drive many connections with poll(). Client frames are masked (as the RFC
 * requires). The handshake does not verify Sec-WebSocket-Accept: this client talks to our own
 * daemon, the token is what authenticates.
 */
#include "wsclient.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct tt_ws {
	int fd;
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
	const char *p = url, *host, *end;
	size_t hl;

	memset(u, 0, sizeof(*u));
	u->port = 7733;
	if (!strncmp(p, "ws://", 5))
		p += 5;
	else if (!strncmp(p, "http://", 7))
		p += 7;
	else if (strstr(p, "://"))
		return -EINVAL; /* wss/https: not supported here */
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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_fd(int fd, short ev, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	long long left = deadline - now_ms();
	int n;

	if (left < 0)
		left = 0;
	do {
		n = poll(&p, 1, (int)left);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n == 0 ? -ETIMEDOUT : 0;
}

static int tcp_connect(const char *host, int port, long long deadline)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	char ports[16];
	int fd, rc, one = 1;
	socklen_t sl = sizeof(rc);

	snprintf(ports, sizeof(ports), "%d", port);
	if (getaddrinfo(host, ports, &hints, &res))
		return -EHOSTUNREACH;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(res);
		return -errno;
	}
	rc = connect(fd, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (rc < 0 && errno != EINPROGRESS) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if ((rc = wait_fd(fd, POLLOUT, deadline)) < 0 ||
	    (getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &sl), rc = -rc) < 0) {
		close(fd);
		return rc;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int send_all(int fd, const void *data, size_t len, long long deadline)
{
	const char *p = data;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int rc = wait_fd(fd, POLLOUT, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads an HTTP response head into buf (NUL terminated); *body points just after it and
 * *total is how many bytes were read (the start of the body may have come along). */
static int read_head(int fd, char *buf, size_t cap, long long deadline, size_t *total,
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
		ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n == 0)
			return -EPIPE;
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int rc = wait_fd(fd, POLLIN, deadline);
			if (rc < 0)
				return rc;
			continue;
		}
		if (n < 0)
			return -errno;
		len += (size_t)n;
	}
}

static uint32_t rnd_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
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

/* The HTTP upgrade request of o into req (a fresh key from *rnd); returns its length, or
 * -E2BIG. */
static int upgrade_request(const struct tt_ws_opts *o, uint32_t *rnd, char *req, size_t cap)
{
	unsigned char nonce[16];
	char key[32];
	int n = 0;

	for (int i = 0; i < 16; i++)
		nonce[i] = (unsigned char)rnd_next(rnd);
	b64(nonce, 16, key);
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
 * within 300 ms after it: enough for ours) into err. */
static void refused(int fd, char *head, size_t cap, size_t total, const char *body, char *err,
		    size_t errlen)
{
	char *eol = strstr(head, "\r\n");
	size_t bl = total - (size_t)(body - head);

	if (eol)
		*eol = 0;
	if (bl < 400) {
		ssize_t k;
		if (wait_fd(fd, POLLIN, now_ms() + 300) == 0 &&
		    (k = recv(fd, head + total, cap - 1 - total, 0)) > 0) {
			total += (size_t)k;
			bl += (size_t)k;
		}
		head[total] = 0;
	}
	snprintf(err, errlen, "server refused the WebSocket: %s%s%.300s", head, bl ? ": " : "",
		 body);
}

int tt_ws_connect(const struct tt_ws_opts *o, struct tt_ws **out, int *http_status, char *err,
		  size_t errlen)
{
	long long deadline = now_ms() + (o->timeout_ms > 0 ? o->timeout_ms : 5000);
	char req[2048], head[8192], *body = NULL;
	struct tt_ws *ws;
	size_t total = 0;
	int fd, rc, n, status = 0;

	if (http_status)
		*http_status = 0;
	fd = tcp_connect(o->host, o->port, deadline);
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to %s:%d: %s", o->host, o->port,
			 strerror(-fd));
		return fd;
	}
	ws = calloc(1, sizeof(*ws));
	if (!ws) {
		close(fd);
		return -ENOMEM;
	}
	ws->fd = fd;
	ws->max_message = o->max_message ? o->max_message : 64u << 20;
	ws->rnd = (uint32_t)now_ms() ^ (uint32_t)(uintptr_t)ws ^ (uint32_t)getpid() << 16;
	if (!ws->rnd)
		ws->rnd = 1;
	n = upgrade_request(o, &ws->rnd, req, sizeof(req));
	if (n < 0) {
		snprintf(err, errlen, "WebSocket request to %s:%d: its path, Origin and token "
			 "are more than %zu bytes", o->host, o->port, sizeof(req));
		rc = n;
		goto fail;
	}
	if ((rc = send_all(fd, req, (size_t)n, deadline)) < 0 ||
	    (rc = read_head(fd, head, sizeof(head), deadline, &total, &body)) < 0) {
		snprintf(err, errlen, "WebSocket handshake with %s:%d failed: %s", o->host,
			 o->port, strerror(-rc));
		goto fail;
	}
	sscanf(head, "HTTP/1.%*d %d", &status);
	if (http_status)
		*http_status = status;
	if (status != 101) {
		refused(fd, head, sizeof(head), total, body, err, errlen);
		rc = status ? -EACCES : -EPROTO;
		goto fail;
	}
	ws->cap = 65536;
	ws->buf = malloc(ws->cap);
	if (!ws->buf) {
		rc = -ENOMEM;
		goto fail;
	}
	ws->len = total - (size_t)(body - head);
	memcpy(ws->buf, body, ws->len);
	*out = ws;
	return 0;
fail:
	close(fd);
	free(ws->buf);
	free(ws);
	return rc;
}

int tt_ws_fd(const struct tt_ws *ws)
{
	return ws->fd;
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
	rc = send_all(ws->fd, f, hl + 4 + len, now_ms() + 10000);
	free(f);
	return rc;
}

int tt_ws_send(struct tt_ws *ws, const char *data, size_t len)
{
	return send_frame(ws, 1, data, len);
}

int tt_ws_read(struct tt_ws *ws)
{
	ssize_t n;

	if (ws->off && ws->off == ws->len)
		ws->off = ws->len = 0;
	if (ws->cap - ws->len < 16384) {
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
	}
	n = recv(ws->fd, ws->buf + ws->len, ws->cap - ws->len, MSG_DONTWAIT);
	if (n == 0)
		return -EPIPE;
	if (n < 0)
		return errno == EINTR ? -EAGAIN : -errno;
	ws->len += (size_t)n;
	return (int)n;
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
	long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	bool tried = false;

	for (;;) {
		int rc = tt_ws_next(ws, m);
		if (rc)
			return rc;
		long long left = deadline < 0 ? -1 : deadline - now_ms();
		/* After every read, not only when recv would block: a server that keeps sending
		 * (pings, a message that never ends) does not hold the caller past the deadline. */
		if (tried && deadline >= 0 && left <= 0)
			return 0;
		rc = tt_ws_read(ws);
		tried = true;
		if (rc == -EAGAIN) {
			struct pollfd p = { .fd = ws->fd, .events = POLLIN };
			if (deadline >= 0 && left <= 0)
				return 0;
			if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
				return -errno;
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
	close(ws->fd);
	free(ws->buf);
	free(ws->msg);
	free(ws);
}

int tt_http_get(const char *host, int port, const char *path, const char *token,
		int timeout_ms, size_t max_bytes, char **body, size_t *len)
{
	long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 5000);
	char req[2048];
	size_t cap = 65536, n = 0;
	char *buf = NULL;
	int fd, rc, status = 0;

	*body = NULL;
	*len = 0;
	fd = tcp_connect(host, port, deadline);
	if (fd < 0)
		return fd;
	int k = 0;
	reqf(req, sizeof(req), &k, "GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n",
	     path, host, port);
	if (token)
		reqf(req, sizeof(req), &k, "Authorization: Bearer %s\r\n", token);
	if ((rc = reqf(req, sizeof(req), &k, "\r\n")) < 0 ||
	    (rc = send_all(fd, req, (size_t)k, deadline)) < 0)
		goto out;
	buf = malloc(cap);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	if (!max_bytes)
		max_bytes = TT_HTTP_MAX_DEFAULT;
	for (;;) { /* read until the server closes, the deadline or max_bytes */
		if (now_ms() >= deadline) {
			rc = -ETIMEDOUT;
			goto out;
		}
		if (n >= max_bytes) {
			rc = -EFBIG;
			goto out;
		}
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		size_t want = cap - n - 1 < max_bytes - n ? cap - n - 1 : max_bytes - n;
		ssize_t r = recv(fd, buf + n, want, 0);
		if (r == 0)
			break;
		if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if ((rc = wait_fd(fd, POLLIN, deadline)) < 0)
				goto out;
			continue;
		}
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		n += (size_t)r;
		buf[n] = 0;
		/* stop at Content-Length when the server keeps the connection */
		char *e = strstr(buf, "\r\n\r\n"), *cl = strcasestr(buf, "content-length:");
		if (e && cl && cl < e && n >= (size_t)(e + 4 - buf) + strtoul(cl + 15, NULL, 10))
			break;
	}
	buf[n] = 0;
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) {
		rc = -EPROTO;
		goto out;
	}
	char *e = strstr(buf, "\r\n\r\n");
	size_t off = e ? (size_t)(e + 4 - buf) : n;
	memmove(buf, buf + off, n - off + 1);
	*len = n - off;
	*body = buf;
	buf = NULL;
	rc = status;
out:
	free(buf);
	close(fd);
	return rc;
}
