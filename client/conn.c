/* client/conn.c: TCP, and TLS over it, for wsclient.c (see conn_int.h).
 *
 * OpenSSL rather than libwebsockets' client: wsclient.c keeps its own framing (see there), so
 * the TLS layer only has to turn a socket into a verified byte stream. OpenSSL is what
 * Debian's libwebsockets and libmosquitto already link; it reads the socket through a BIO of
 * ours so that a write to a peer that has gone away is EPIPE (MSG_NOSIGNAL), not a SIGPIPE
 * that would end the program, whatever the program does with SIGPIPE.
 */
#include "conn_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

long long tt_conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for ev on fd until deadline (< 0: no deadline). 0, -ETIMEDOUT, -errno. */
static int wait_fd(int fd, short ev, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	long long left = deadline < 0 ? -1 : deadline - tt_conn_now_ms();
	int n;

	if (deadline >= 0 && left < 0)
		left = 0;
	if (left > 1 << 30)
		left = 1 << 30;
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

/* The socket BIO: send with MSG_NOSIGNAL, recv; "retry" when the socket would block. */
static int bio_write(BIO *b, const char *data, int len)
{
	const struct tt_conn *c = BIO_get_data(b);
	ssize_t n = send(c->fd, data, (size_t)len, MSG_NOSIGNAL);

	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		BIO_set_retry_write(b);
	return n < 0 ? -1 : (int)n;
}

static int bio_read(BIO *b, char *buf, int len)
{
	const struct tt_conn *c = BIO_get_data(b);
	ssize_t n = recv(c->fd, buf, (size_t)len, 0);

	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		BIO_set_retry_read(b);
	return n < 0 ? -1 : (int)n;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	return cmd == BIO_CTRL_FLUSH; /* nothing buffered here; every other control: no */
}

/* OpenSSL's first queued reason, else fallback; the queue is emptied. */
static const char *tls_reason(char *buf, size_t cap, const char *fallback)
{
	unsigned long e = ERR_peek_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	snprintf(buf, cap, "%s", r ? r : fallback);
	ERR_clear_error();
	return buf;
}

/* One TLS call's outcome: 1 done, 0 wait (c->want set), < 0 failed (SSL_get_error's code
 * negated, errno kept for SSL_ERROR_SYSCALL). */
static int tls_step(struct tt_conn *c, int r)
{
	int e = SSL_get_error(c->ssl, r);

	if (r > 0)
		return 1;
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		c->want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		return 0;
	}
	return -e;
}

/* The context: the trust (ca, else the system's store) and verification on. */
static int tls_context(struct tt_conn *c, const char *ca, char *err, size_t errlen)
{
	char why[160];

	c->ctx = SSL_CTX_new(TLS_client_method());
	if (!c->ctx || !SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION))
		goto nomem;
	SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
	if (ca && !SSL_CTX_load_verify_locations(c->ctx, ca, NULL)) {
		int rc = access(ca, R_OK) ? -errno : -EINVAL;
		snprintf(err, errlen, "CA file %s: %s", ca, rc == -EINVAL ?
			 tls_reason(why, sizeof(why), "no certificate in it") : strerror(-rc));
		return rc;
	}
	if (!ca && !SSL_CTX_set_default_verify_paths(c->ctx))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "TLS: %s", tls_reason(why, sizeof(why), "out of memory"));
	return -ENOMEM;
}

/* The connection: our BIO on the socket, SNI and the name to check against the certificate
 * (an IP address as one: it must be among the certificate's IP SANs). */
static int tls_setup(struct tt_conn *c, const char *host, char *err, size_t errlen)
{
	unsigned char ip[16];
	bool is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
	BIO *b;
	char why[160];

	c->ssl = SSL_new(c->ctx);
	c->meth = BIO_meth_new(BIO_TYPE_SOURCE_SINK, "tracetap socket");
	if (!c->ssl || !c->meth || !BIO_meth_set_write(c->meth, bio_write) ||
	    !BIO_meth_set_read(c->meth, bio_read) || !BIO_meth_set_ctrl(c->meth, bio_ctrl) ||
	    !(b = BIO_new(c->meth)))
		goto nomem;
	BIO_set_data(b, c);
	BIO_set_init(b, 1);
	SSL_set_bio(c->ssl, b, b);
	if (is_ip ? !X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), host)
		  : !SSL_set_tlsext_host_name(c->ssl, host) || !SSL_set1_host(c->ssl, host))
		goto nomem;
	SSL_set_hostflags(c->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	return 0;
nomem:
	snprintf(err, errlen, "TLS: %s", tls_reason(why, sizeof(why), "out of memory"));
	return -ENOMEM;
}

/* The handshake, within deadline; a failure says why in one line. */
static int tls_handshake(struct tt_conn *c, const char *host, const char *ca, long long deadline,
			 char *err, size_t errlen)
{
	char why[160];
	int rc;

	for (;;) {
		ERR_clear_error();
		errno = 0;
		rc = tls_step(c, SSL_connect(c->ssl));
		if (rc > 0)
			return 0;
		if (rc < 0)
			break;
		if ((rc = wait_fd(c->fd, c->want, deadline)) < 0) {
			snprintf(err, errlen, "TLS handshake: %s", strerror(-rc));
			return rc;
		}
	}
	long v = SSL_get_verify_result(c->ssl);
	if (v != X509_V_OK) {
		bool name = v == X509_V_ERR_HOSTNAME_MISMATCH || v == X509_V_ERR_IP_ADDRESS_MISMATCH;
		snprintf(err, errlen, "certificate verify failed: %s (%s%s%s)",
			 X509_verify_cert_error_string(v),
			 name ? "the certificate does not name " : "trusting ",
			 name ? host : ca ? "the CAs in " : "the system's CAs",
			 name ? "" : ca ? ca : "");
		ERR_clear_error();
		return -EKEYREJECTED;
	}
	if (rc == -SSL_ERROR_SYSCALL && !ERR_peek_error())
		snprintf(err, errlen, "TLS handshake: %s", errno ? strerror(errno) :
			 "the server closed the connection (does it serve TLS?)");
	else
		snprintf(err, errlen, "TLS handshake failed: %s (does the server serve TLS?)",
			 tls_reason(why, sizeof(why), "protocol error"));
	return -EPROTO;
}

int tt_conn_open(struct tt_conn *c, const char *host, int port, bool tls, const char *ca,
		 int timeout_ms, char *err, size_t errlen)
{
	long long deadline;
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->want = POLLIN;
	/* The context first, outside the deadline: reading the trust store is local work that
	 * no server can stretch (OpenSSL 3's setup is most of a TLS connection's CPU). */
	if (tls && (rc = tls_context(c, ca, err, errlen)) < 0) {
		tt_conn_close(c);
		return rc;
	}
	deadline = tt_conn_now_ms() + timeout_ms;
	c->fd = tcp_connect(host, port, deadline);
	if (c->fd < 0) {
		rc = c->fd;
		snprintf(err, errlen, "cannot connect: %s", strerror(-rc));
		c->fd = -1;
		tt_conn_close(c);
		return rc;
	}
	if (!tls)
		return 0;
	if ((rc = tls_setup(c, host, err, errlen)) < 0 ||
	    (rc = tls_handshake(c, host, ca, deadline, err, errlen)) < 0) {
		tt_conn_close(c);
		return rc;
	}
	c->want = POLLIN;
	return 0;
}

int tt_conn_send(struct tt_conn *c, const void *data, size_t len, long long deadline)
{
	const char *p = data;

	while (len) {
		int rc;
		if (c->ssl) {
			int chunk = len > 1 << 20 ? 1 << 20 : (int)len;
			ERR_clear_error();
			errno = 0;
			rc = tls_step(c, SSL_write(c->ssl, p, chunk));
			if (rc > 0) {
				p += chunk; /* SSL_write writes it all or nothing */
				len -= (size_t)chunk;
				continue;
			}
			if (rc < 0) {
				ERR_clear_error();
				return rc == -SSL_ERROR_SYSCALL && errno ? -errno : -EPIPE;
			}
		} else {
			ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
			if (n >= 0) {
				p += n;
				len -= (size_t)n;
				continue;
			}
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			c->want = POLLOUT;
		}
		if ((rc = wait_fd(c->fd, c->want, deadline)) < 0)
			return rc;
	}
	return 0;
}

ssize_t tt_conn_recv(struct tt_conn *c, void *buf, size_t cap)
{
	if (!c->ssl) {
		ssize_t n = recv(c->fd, buf, cap, MSG_DONTWAIT);
		c->want = POLLIN;
		return n >= 0 ? n : errno == EINTR || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
	ERR_clear_error();
	errno = 0;
	int n = SSL_read(c->ssl, buf, cap > INT32_MAX ? INT32_MAX : (int)cap);
	int rc = tls_step(c, n);
	if (rc > 0)
		return n;
	if (rc == 0)
		return -EAGAIN;
	/* A close_notify is the end. A TCP close without one may have cut the stream (an HTTP
	 * answer that ends by the close): not the end, a reset. */
	unsigned long e = ERR_peek_error();
	ERR_clear_error();
	if (rc == -SSL_ERROR_ZERO_RETURN)
		return 0;
	if (rc == -SSL_ERROR_SYSCALL)
		return errno ? -errno : -ECONNRESET;
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING
	if (ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
		return -ECONNRESET;
#endif
	return -EPROTO;
}

bool tt_conn_pending(const struct tt_conn *c)
{
	return c->ssl && SSL_has_pending(c->ssl);
}

int tt_conn_wait(struct tt_conn *c, long long deadline)
{
	return wait_fd(c->fd, c->want, deadline);
}

void tt_conn_close(struct tt_conn *c)
{
	if (c->ssl) {
		ERR_clear_error();
		if (SSL_is_init_finished(c->ssl))
			SSL_shutdown(c->ssl); /* close_notify, no wait for the peer's */
		SSL_free(c->ssl); /* frees the BIO */
	}
	SSL_CTX_free(c->ctx);
	BIO_meth_free(c->meth);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}
