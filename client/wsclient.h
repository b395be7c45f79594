/* client/wsclient.h: a small blocking/pollable WebSocket (RFC 6455) and HTTP/1.1 GET client,
 * over TCP or TLS (wss://, https://). TLS verifies the server's certificate against the CA
 * file given, else the system's trust store (OpenSSL's default paths: SSL_CERT_FILE and
 * SSL_CERT_DIR change them), and checks the URL's host name or IP address against it; there is
 * no way to turn that off. The upgrade is checked as the RFC asks of a client (101,
 * Upgrade/Connection, Sec-WebSocket-Accept, no protocol or extension not asked for). Server
 * frames are accepted up to max_message; fragmented messages are reassembled; pings are
 * answered. A connection belongs to one thread at a time.
 *
 * Errors: -errno, and one line in err that starts with the URL (scheme://HOST:PORT) and says
 * what failed: -ECONNREFUSED, -EHOSTUNREACH, -ETIMEDOUT, ... nothing answered at HOST:PORT;
 * -EKEYREJECTED the certificate did not verify (OpenSSL's reason; the name checked or the CAs
 * trusted); -EPROTO the TLS handshake failed otherwise, or the answer is not what was asked;
 * -ENOENT/-EINVAL the CA file cannot be read or holds no certificate.
 */
#ifndef TT_WSCLIENT_H
#define TT_WSCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tt_url {
	bool tls;        /* wss:// or https:// */
	char host[256];
	int port;
	char path[1024]; /* with the query */
};

/* Parses ws://HOST[:PORT][/PATH], http://..., wss://... and https://... (TLS), or
 * HOST[:PORT][/PATH] (plain); default port 7733, path "/ws". Returns 0 or -EINVAL. */
int tt_url_parse(const char *url, struct tt_url *u);

#define TT_WS_MAX_MESSAGE (64u << 20) /* a frame or message from the server, by default */

struct tt_ws_opts {
	const char *host;
	int port;
	bool tls;              /* wss:// */
	const char *ca;        /* tls: PEM file of the CAs to trust; NULL: the system's store */
	const char *path;      /* default "/ws" */
	const char *token;     /* sent as Authorization: Bearer; NULL = none */
	const char *origin;    /* Origin header (browsers send one); NULL = none */
	const char *protocol;  /* Sec-WebSocket-Protocol; NULL = "tracetap.v1" */
	int timeout_ms;        /* the connection (TCP, TLS), then the upgrade; default 5000 */
	size_t max_message;    /* 0: TT_WS_MAX_MESSAGE */
};

struct tt_ws;

struct tt_ws_msg {
	int opcode;          /* 1 text, 2 binary, 8 close */
	const char *data;    /* borrowed until the next call on the connection */
	size_t len;
	int close_code;      /* opcode 8: the server's close code (1005 when none) */
	const char *close_reason;
};

/* Connects and performs the upgrade. Returns 0, or an error above (err: why); -EACCES when
 * the server refused with an HTTP status (*http_status set, err holds the status line and the
 * server's reason); -EPROTO for an answer that is not a valid upgrade. */
int tt_ws_connect(const struct tt_ws_opts *o, struct tt_ws **out, int *http_status, char *err,
		  size_t errlen);
int tt_ws_fd(const struct tt_ws *ws);
/* Sends a text message (blocking). Returns 0 or -errno. */
int tt_ws_send(struct tt_ws *ws, const char *data, size_t len);
/* Reads what the connection has (non-blocking). Returns bytes read (> 0), -EAGAIN, or -EPIPE
 * (closed) / -errno. Nothing TLS has decrypted is left behind: after it, polling tt_ws_fd
 * for POLLIN is enough. */
int tt_ws_read(struct tt_ws *ws);
/* Next complete message from what was read: 1 (in *m), 0 (need more), < 0 protocol error. */
int tt_ws_next(struct tt_ws *ws, struct tt_ws_msg *m);
/* Waits up to timeout_ms (-1: forever) for one message: 1, 0 (timeout), < 0 (error or the
 * connection ended without a close frame: -EPIPE). The deadline holds however fast the server
 * sends (pings, fragments of a message that never ends): it is checked after every read. */
int tt_ws_recv(struct tt_ws *ws, int timeout_ms, struct tt_ws_msg *m);
/* Sends a close frame with code (no wait) and frees. NULL is ignored. */
void tt_ws_close(struct tt_ws *ws, int code);

struct tt_http_opts {
	const char *host;
	int port;
	bool tls;              /* https:// */
	const char *ca;        /* as in tt_ws_opts */
	const char *path;      /* with the query */
	const char *token;     /* sent as Authorization: Bearer; NULL = none */
	int timeout_ms;        /* the connection (TCP, TLS), then the answer; default 5000 */
	size_t max_bytes;      /* head and body; 0: TT_HTTP_MAX_DEFAULT */
};

/* One HTTP GET (Connection: close), bounded: the whole answer (head and body) within
 * timeout_ms from the request and within max_bytes, however the server sends it. *body: caller
 * frees (NUL terminated). Returns the HTTP status (> 0), or -errno with err as above, and:
 * -E2BIG path and token do not fit a 2 KiB request; -EFBIG the answer went past max_bytes;
 * -ETIMEDOUT it was not complete by the deadline; -EPROTO not HTTP, or a body shorter than
 * its Content-Length. err may be NULL. */
#define TT_HTTP_MAX_DEFAULT (16u << 20)
int tt_http_get(const struct tt_http_opts *o, char **body, size_t *len, char *err,
		size_t errlen);

#endif
