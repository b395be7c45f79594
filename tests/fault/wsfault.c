/* tests/fault/wsfault.c: the WebSocket faults of the fault matrix, against a running tracetapd.
 *
 *   tt-wsfault flood PORT SECONDS RATE   connects RATE times a second for SECONDS: a quarter drop
 *                                        right after the TCP connect, a quarter after half an
 *                                        upgrade request, a quarter after the 101 (no close
 *                                        frame), a quarter after the 101 and a close frame
 *   tt-wsfault slow PORT TARGET [MAX_S]  subscribes, then stops reading until the daemon's
 *                                        tracetap_slow_client_skipped_total grows (at most MAX_S,
 *                                        default 60), then reads again: accounts for every seq
 *   tt-wsfault bad PORT KIND             one malformed client message (kinds: see bad_kinds),
 *                                        then reports what the server did
 *
 * Prints one line of key=value results (what was seen, not a verdict: the script compares it
 * with what is expected). Exit status 1 only for a failure of the tool itself (or, for slow,
 * a seq accounting that does not add up). 127.0.0.1 only; every wait has a deadline.
 */
#include "wsclient.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char upgrade_req[] =
	"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	"Sec-WebSocket-Protocol: tracetap.v1\r\n\r\n";

/* ---- flood ---- */

enum { MAX_FLIGHT = 512 };

struct fconn {
	int fd;
	int kind; /* 0 drop at connect, 1 half request, 2 upgrade then drop, 3 upgrade + close */
	bool sent;
	double start;
	char head[512];
	size_t hlen;
};

struct fstats {
	unsigned long started, connected, upgraded, refused, timeouts, bad_answer;
	unsigned long want_upgrade;
};

static void fconn_end(struct fconn *c)
{
	close(c->fd);
	c->fd = -1;
}

static int fconn_start(struct fconn *c, int kind)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	c->kind = kind;
	c->sent = false;
	c->hlen = 0;
	c->start = now_s();
	if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS) {
		int e = errno;
		fconn_end(c);
		return -e;
	}
	return 0;
}

/* One step of a connection after poll said it is ready; returns 1 when it is finished. */
static int fconn_step(struct fconn *c, short rev, struct fstats *st)
{
	if (!c->sent) {
		int err = 0;
		socklen_t l = sizeof(err);
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err || (rev & (POLLERR | POLLHUP))) {
			st->refused++;
			return 1;
		}
		st->connected++;
		if (c->kind == 0)
			return 1;
		size_t n = c->kind == 1 ? sizeof(upgrade_req) / 2 : sizeof(upgrade_req) - 1;
		if (send(c->fd, upgrade_req, n, MSG_NOSIGNAL) != (ssize_t)n) {
			st->refused++;
			return 1;
		}
		c->sent = true;
		return c->kind == 1;
	}
	ssize_t n = recv(c->fd, c->head + c->hlen, sizeof(c->head) - 1 - c->hlen, 0);
	if (n <= 0) {
		st->bad_answer++;
		return 1;
	}
	c->hlen += (size_t)n;
	c->head[c->hlen] = 0;
	if (!strstr(c->head, "\r\n\r\n")) {
		if (c->hlen + 1 >= sizeof(c->head)) {
			st->bad_answer++;
			return 1;
		}
		return 0;
	}
	if (strncmp(c->head, "HTTP/1.1 101", 12)) {
		st->bad_answer++;
		return 1;
	}
	st->upgraded++;
	if (c->kind == 3) {
		/* close 1000, masked with a zero key */
		static const unsigned char cl[] = { 0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8 };
		(void)send(c->fd, cl, sizeof(cl), MSG_NOSIGNAL);
	}
	return 1;
}

static int flood(double secs, double rate)
{
	struct fconn *cs = calloc(MAX_FLIGHT, sizeof(*cs));
	struct pollfd pf[MAX_FLIGHT];
	struct fstats st = { 0 };
	double t0 = now_s(), end = t0 + secs, last_start = t0;
	int n = 0;

	if (!cs)
		return 1;
	for (;;) {
		double now = now_s();
		/* start what the pace asks for (as many as are due: catches up after a stall) */
		while (now < end && n < MAX_FLIGHT && (double)st.started < (now - t0) * rate) {
			int kind = (int)(st.started % 4);
			if (fconn_start(&cs[n], kind) < 0) {
				st.refused++;
			} else {
				st.want_upgrade += kind >= 2;
				n++;
			}
			st.started++;
			last_start = now;
		}
		if (now >= end && n == 0)
			break;
		for (int i = 0; i < n; i++) {
			pf[i].fd = cs[i].fd;
			pf[i].events = cs[i].sent ? POLLIN : POLLOUT;
			pf[i].revents = 0;
		}
		if (poll(pf, (nfds_t)n, 1) < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		now = now_s();
		for (int i = 0; i < n; i++) {
			bool done = false;
			if (pf[i].revents)
				done = fconn_step(&cs[i], pf[i].revents, &st);
			if (!done && now - cs[i].start > 3) {
				st.timeouts++;
				done = true;
			}
			if (done) {
				fconn_end(&cs[i]);
				cs[i] = cs[n - 1];
				pf[i] = pf[n - 1];
				n--;
				i--;
			}
		}
	}
	double took = last_start - t0;
	printf("flood started=%lu connected=%lu upgrade_wanted=%lu upgraded=%lu refused=%lu "
	       "bad_answer=%lu timeouts=%lu seconds=%.2f rate=%.0f\n", st.started, st.connected,
	       st.want_upgrade, st.upgraded, st.refused, st.bad_answer, st.timeouts, took,
	       took > 0 ? (double)st.started / took : 0);
	free(cs);
	return 0;
}

/* ---- slow client ---- */

static struct tt_ws *connect_ws(void)
{
	struct tt_ws_opts o = { .host = "127.0.0.1", .port = port, .timeout_ms = 5000 };
	struct tt_ws *ws = NULL;
	char err[512];
	int status;

	if (tt_ws_connect(&o, &ws, &status, err, sizeof(err)) < 0) {
		fprintf(stderr, "tt-wsfault: %s\n", err);
		return NULL;
	}
	return ws;
}

/* The value of the metric line starting with prefix (e.g. `name{target="x"} `), or -1. */
static long long metric(const char *prefix)
{
	char *body = NULL, *p;
	size_t len;
	long long v = -1;

	struct tt_http_opts o = { .host = "127.0.0.1", .port = port, .path = "/metrics",
				  .timeout_ms = 5000 };

	if (tt_http_get(&o, &body, &len, NULL, 0) != 200) {
		free(body);
		return -1;
	}
	for (p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, prefix, strlen(prefix))) {
			v = strtoll(p + strlen(prefix), NULL, 10);
			break;
		}
	}
	free(body);
	return v;
}

struct acct {
	uint64_t next; /* 0 until the first events message */
	uint64_t records, gap_msgs, gap_lost, dups, holes;
	bool bad;
};

static double num(const cJSON *o, const char *k)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Accounts one message; returns 1 for a slow-client gap message. */
static int account(struct acct *a, const struct tt_ws_msg *m)
{
	cJSON *j = m->opcode == 1 ? cJSON_ParseWithLength(m->data, m->len) : NULL;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "type"));
	int slow = 0;
	uint64_t from, to;

	if (!type)
		goto out;
	if (!strcmp(type, "events")) {
		from = (uint64_t)num(j, "first");
		to = (uint64_t)num(j, "last");
		cJSON *recs = cJSON_GetObjectItemCaseSensitive(j, "records");
		if (to < from || (uint64_t)cJSON_GetArraySize(recs) != to - from + 1)
			a->bad = true; /* no filter: every seq of the batch must be there */
		a->records += to - from + 1;
	} else if (!strcmp(type, "gap")) {
		from = (uint64_t)num(j, "from");
		to = (uint64_t)num(j, "to");
		a->gap_msgs++;
		a->gap_lost += (uint64_t)num(j, "lost");
		if (to < from || (uint64_t)num(j, "lost") != to - from + 1)
			a->bad = true;
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "reason"));
		slow = why && !strcmp(why, "slow client");
	} else {
		goto out;
	}
	if (a->next && from < a->next)
		a->dups++;
	else if (a->next && from > a->next)
		a->holes++;
	a->next = to + 1;
out:
	cJSON_Delete(j);
	return slow;
}

static int slow(const char *target, double max_s)
{
	struct tt_ws *ws = connect_ws();
	struct acct a = { 0 };
	struct tt_ws_msg m;
	char msg[512], prefix[256];
	int rc, pongs = 0;

	if (!ws)
		return 1;
	snprintf(msg, sizeof(msg), "{\"type\":\"subscribe\",\"targets\":[\"%s\"]}", target);
	if (tt_ws_send(ws, msg, strlen(msg)) < 0 || tt_ws_send(ws, "{\"type\":\"ping\",\"id\":1}", 22))
		return 1;
	/* read until the pong: the subscription is in place and events flow */
	double end = now_s() + 10;
	while (!pongs && now_s() < end && (rc = tt_ws_recv(ws, 200, &m)) >= 0) {
		if (rc == 1 && m.opcode == 1 && strstr(m.data, "\"type\":\"pong\""))
			pongs++;
		else if (rc == 1)
			account(&a, &m);
	}
	if (!pongs) {
		fprintf(stderr, "tt-wsfault: no pong to the subscribe\n");
		return 1;
	}
	snprintf(prefix, sizeof(prefix), "tracetap_slow_client_skipped_total{target=\"%s\"} ",
		 target);
	long long before = metric(prefix), now_v = before;
	double t0 = now_s();
	/* stop reading until the daemon skipped this client ahead */
	while (now_s() - t0 < max_s && (now_v = metric(prefix)) <= before)
		usleep(200000);
	double stalled = now_s() - t0;
	/* read again: the queued frames, the slow-client gap, then live; 2 s after the gap */
	double after_gap = 0;
	end = now_s() + 30;
	while (now_s() < end && (!after_gap || now_s() < after_gap)) {
		rc = tt_ws_recv(ws, 200, &m);
		if (rc < 0 || (rc == 1 && m.opcode == 8))
			break;
		if (rc == 1 && account(&a, &m) && !after_gap)
			after_gap = now_s() + 2;
	}
	tt_ws_close(ws, 1000);
	printf("slow stalled_s=%.1f skipped_metric=%lld->%lld records=%llu gap_msgs=%llu "
	       "gap_lost=%llu dups=%llu holes=%llu bad=%d\n", stalled, before, now_v,
	       (unsigned long long)a.records, (unsigned long long)a.gap_msgs,
	       (unsigned long long)a.gap_lost, (unsigned long long)a.dups,
	       (unsigned long long)a.holes, a.bad);
	return a.dups || a.holes || a.bad;
}

/* ---- malformed client messages ---- */

/* A client frame: FIN + opcode byte b0 (RSV bits allowed), masked with a zero key (legal: the
 * payload stays as is). len64 != 0 claims that length but sends only the len bytes given. */
static int send_raw(int fd, unsigned char b0, const void *pl, size_t len, uint64_t len64)
{
	unsigned char h[14];
	size_t hl = 0;
	uint64_t claim = len64 ? len64 : len;

	h[hl++] = b0;
	if (claim < 126) {
		h[hl++] = (unsigned char)(0x80 | claim);
	} else if (claim < 65536) {
		h[hl++] = 0x80 | 126;
		h[hl++] = (unsigned char)(claim >> 8);
		h[hl++] = (unsigned char)claim;
	} else {
		h[hl++] = 0x80 | 127;
		for (int i = 7; i >= 0; i--)
			h[hl++] = (unsigned char)(claim >> (8 * i));
	}
	memset(h + hl, 0, 4);
	hl += 4;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	const unsigned char *parts[2] = { h, pl };
	size_t lens[2] = { hl, len };
	for (int k = 0; k < 2; k++) {
		size_t off = 0;
		while (off < lens[k]) {
			ssize_t n = send(fd, parts[k] + off, lens[k] - off, MSG_NOSIGNAL);
			if (n < 0 && errno == EAGAIN && poll(&p, 1, 5000) == 1)
				continue;
			if (n < 0)
				return -errno;
			off += (size_t)n;
		}
	}
	return 0;
}

static const char *const bad_kinds[] = {
	"unmasked", "reserved-opcode", "rsv-bits", "bad-utf8", "long-ping", "oversize",
	"huge-length", "binary", "bad-json", "bad-continuation",
};

static int bad(const char *kind)
{
	struct tt_ws *ws = connect_ws();
	struct tt_ws_msg m;
	int fd, rc = 0, k;
	char err_code[64] = "";
	static const char ping[] = "{\"type\":\"ping\",\"id\":1}";

	if (!ws)
		return 1;
	for (k = 0; k < (int)(sizeof(bad_kinds) / sizeof(*bad_kinds)); k++)
		if (!strcmp(kind, bad_kinds[k]))
			break;
	fd = tt_ws_fd(ws);
	switch (k) {
	case 0: { /* a client frame without the mask bit */
		static const unsigned char f[] = { 0x81, 0x02, '{', '}' };
		rc = send(fd, f, sizeof(f), MSG_NOSIGNAL) == sizeof(f) ? 0 : -errno;
		break;
	}
	case 1: rc = send_raw(fd, 0x83, "{}", 2, 0); break;
	case 2: rc = send_raw(fd, 0xC1, ping, sizeof(ping) - 1, 0); break;
	case 3: rc = send_raw(fd, 0x81, "\"\xff\xfe\xfd\"", 5, 0); break;
	case 4: { /* a control frame over 125 bytes */
		char p[200];
		memset(p, 'x', sizeof(p));
		rc = send_raw(fd, 0x89, p, sizeof(p), 0);
		break;
	}
	case 5: { /* 70000 bytes of valid JSON, over max_message */
		size_t n = 70000;
		char *s = malloc(n);
		if (!s)
			return 1;
		memset(s, ' ', n);
		s[0] = '[';
		s[n - 1] = ']';
		rc = send_raw(fd, 0x81, s, n, 0);
		free(s);
		break;
	}
	case 6: rc = send_raw(fd, 0x81, ping, 16, 1ull << 62); break; /* 16 bytes of it */
	case 7: rc = send_raw(fd, 0x82, ping, sizeof(ping) - 1, 0); break;
	case 8: rc = tt_ws_send(ws, "{\"type\":\"ping\",", 15); break;
	case 9: rc = send_raw(fd, 0x80, ping, sizeof(ping) - 1, 0); break; /* nothing to continue */
	default:
		fprintf(stderr, "tt-wsfault: unknown kind %s\n", kind);
		return 2;
	}
	if (rc < 0) /* the server may close before it has it all: its close frame tells */
		fprintf(stderr, "tt-wsfault: send: %s\n", strerror(-rc));
	/* what the server does within 5 s: a close (code), an error message, or nothing */
	double end = now_s() + 5;
	bool pinged = false;
	while (now_s() < end) {
		rc = tt_ws_recv(ws, 200, &m);
		if (rc < 0) {
			printf("bad kind=%s seen=dropped%s%s\n", kind, *err_code ? ",error=" : "",
			       err_code);
			goto out;
		}
		if (rc == 0)
			continue;
		if (m.opcode == 8) {
			printf("bad kind=%s seen=close-%d%s%s reason=\"%s\"\n", kind, m.close_code,
			       *err_code ? ",error=" : "", err_code, m.close_reason);
			goto out;
		}
		cJSON *j = cJSON_ParseWithLength(m.data, m.len);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "type"));
		if (type && !strcmp(type, "error")) {
			const char *code = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(j, "code"));
			snprintf(err_code, sizeof(err_code), "%s", code ? code : "?");
			/* still open? a ping must be answered */
			pinged = tt_ws_send(ws, ping, sizeof(ping) - 1) == 0;
		} else if (type && !strcmp(type, "pong") && pinged) {
			printf("bad kind=%s seen=error-%s,open\n", kind, err_code);
			cJSON_Delete(j);
			goto out;
		}
		cJSON_Delete(j);
	}
	printf("bad kind=%s seen=nothing%s%s\n", kind, *err_code ? ",error=" : "", err_code);
out:
	tt_ws_close(ws, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "flood")) {
		port = atoi(argv[2]);
		return flood(atof(argv[3]), atof(argv[4]));
	}
	if (argc >= 4 && !strcmp(argv[1], "slow")) {
		port = atoi(argv[2]);
		return slow(argv[3], argc > 4 ? atof(argv[4]) : 60);
	}
	if (argc >= 4 && !strcmp(argv[1], "bad")) {
		port = atoi(argv[2]);
		return bad(argv[3]);
	}
	fprintf(stderr, "usage: tt-wsfault flood PORT SECONDS RATE | slow PORT TARGET [MAX_S] | "
		"bad PORT KIND\n");
	return 2;
}
