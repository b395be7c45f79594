/* client/wsclient.h: a small blocking/pollable WebSocket and HTTP/1.1 client (ws:// only, no
 * TLS). Server frames are accepted up to max_message; fragmented messages are reassembled;
 * pings are answered. A connection belongs to one thread at a time.
 */
#ifndef TT_WSCLIENT_H
#define TT_WSCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tt_url {
	char host[256];
	int port;
	char path[1024]; /* with the query */
};

/* Parses ws://HOST[:PORT][/PATH] or http://... (default port 7733, path "/ws").
 * Returns 0 or -EINVAL. */
int tt_url_parse(const char *url, struct tt_url *u);

struct tt_ws_opts {
	const char *host;
	int port;
	const char *path;      /* default "/ws" */
	const char *token;     /* sent as Authorization: Bearer; NULL = none */
	const char *origin;    /* Origin header (browsers send one); NULL = none */
	const char *protocol;  /* Sec-WebSocket-Protocol; NULL = "tracetap.v1" */
	int timeout_ms;        /* connect + handshake deadline; default 5000 */
	size_t max_message;    /* default 64 MiB */
};

struct tt_ws;

struct tt_ws_msg {
	int opcode;          /* 1 text, 2 binary, 8 close */
	const char *data;    /* borrowed until the next call on the connection */
	size_t len;
	int close_code;      /* opcode 8: the server's close code (1005 when none) */
	const char *close_reason;
};

/* Connects and performs the upgrade. Returns 0; -ECONNREFUSED, -ETIMEDOUT, ...; -EACCES
 * when the server refused with an HTTP status (*http_status set, err holds the status line and
 * the server's reason); -EPROTO for a non-WebSocket answer. */
int tt_ws_connect(const struct tt_ws_opts *o, struct tt_ws **out, int *http_status, char *err,
		  size_t errlen);
int tt_ws_fd(const struct tt_ws *ws);
/* Sends a text message (blocking). Returns 0 or -errno. */
int tt_ws_send(struct tt_ws *ws, const char *data, size_t len);
/* Reads what the socket has (non-blocking). Returns bytes read (> 0), -EAGAIN, or -EPIPE
 * (closed) / -errno. */
int tt_ws_read(struct tt_ws *ws);
/* Next complete message from what was read: 1 (in *m), 0 (need more), < 0 protocol error. */
int tt_ws_next(struct tt_ws *ws, struct tt_ws_msg *m);
/* Waits up to timeout_ms (-1: forever) for one message: 1, 0 (timeout), < 0 (error or the
 * connection ended without a close frame: -EPIPE). The deadline holds however fast the server
 * sends (pings, fragments of a message that never ends): it is checked after every read. */
int tt_ws_recv(struct tt_ws *ws, int timeout_ms, struct tt_ws_msg *m);
/* Sends a close frame with code (no wait) and frees. NULL is ignored. */
void tt_ws_close(struct tt_ws *ws, int code);

/* One HTTP GET (Connection: close), bounded: the whole answer (head and body) within
 * timeout_ms from the call and within max_bytes (0: TT_HTTP_MAX_DEFAULT), however the server
 * sends it. *body: caller frees (NUL terminated). Returns the HTTP status (> 0) or -errno
 * (-E2BIG: path and token do not fit a 2 KiB request; -EFBIG: the answer went past max_bytes;
 * -ETIMEDOUT: it was not complete by the deadline). */
#define TT_HTTP_MAX_DEFAULT (16u << 20)
int tt_http_get(const char *host, int port, const char *path, const char *token,
		int timeout_ms, size_t max_bytes, char **body, size_t *len);

#endif
