/* client/conn_int.h: the byte stream under wsclient.c (private to it): one TCP connection to
 * HOST:PORT, with TLS on it when asked. TLS is OpenSSL's: at least TLS 1.2, the server's
 * certificate verified against the CA file given, else the system's trust store (OpenSSL's
 * default paths, which honour SSL_CERT_FILE and SSL_CERT_DIR), and its names checked against
 * HOST (a DNS name, or an IP address against the certificate's IP SANs). Nothing turns the
 * verification off. The socket is non-blocking; callers wait with deadlines (ms on
 * CLOCK_MONOTONIC, tt_conn_now_ms).
 */
#ifndef TT_CONN_INT_H
#define TT_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <openssl/ssl.h>

struct tt_conn {
	int fd;
	SSL_CTX *ctx;      /* NULL: plain TCP */
	SSL *ssl;
	BIO_METHOD *meth;  /* the socket BIO (writes with MSG_NOSIGNAL) */
	short want;        /* POLLIN or POLLOUT: what the last call waited for */
};

long long tt_conn_now_ms(void);

/* Connects (and with tls, handshakes) within timeout_ms (from when the trust store is
 * loaded: that is local work). 0; or -errno with one reason in err
 * (no address: the caller names it): -ECONNREFUSED, -EHOSTUNREACH, -ETIMEDOUT, ... (nothing
 * answered); -EKEYREJECTED (the certificate did not verify: OpenSSL's reason, the name that
 * was checked, what it was checked against); -EPROTO (the TLS handshake failed otherwise);
 * -ENOENT/-EINVAL (ca cannot be read, or holds no certificate). On failure c holds nothing. */
int tt_conn_open(struct tt_conn *c, const char *host, int port, bool tls, const char *ca,
		 int timeout_ms, char *err, size_t errlen);

/* Sends all of data by deadline. 0, -ETIMEDOUT, -EPIPE, -errno. */
int tt_conn_send(struct tt_conn *c, const void *data, size_t len, long long deadline);

/* Reads what is there without waiting: bytes (> 0), 0 (the peer closed; with TLS, with a
 * close_notify), -EAGAIN (wait with tt_conn_wait, then call again), -ECONNRESET (with TLS
 * also a close without close_notify: what came may be cut short), -EPROTO (TLS broken) or
 * -errno. After -EAGAIN nothing read is held back: polling the descriptor for POLLIN is
 * enough. */
ssize_t tt_conn_recv(struct tt_conn *c, void *buf, size_t cap);

/* Whether TLS holds bytes already read that tt_conn_recv would return at once. */
bool tt_conn_pending(const struct tt_conn *c);

/* Waits until the descriptor is ready for what the last tt_conn_recv wanted, or deadline
 * (< 0: none). 0, -ETIMEDOUT, -errno. */
int tt_conn_wait(struct tt_conn *c, long long deadline);

/* Closes (a TLS close_notify sent without waiting) and frees. Safe on a closed conn. */
void tt_conn_close(struct tt_conn *c);

#endif
