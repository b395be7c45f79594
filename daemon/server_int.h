/* daemon/server_int.h: what server.c and server_http.c share (not a public header). */
#ifndef TT_SERVER_INT_H
#define TT_SERVER_INT_H

#include <uv.h>
#include <libwebsockets.h>

#include "log.h"
#include "server.h"

#define TT_MAX_CTL 16

_Static_assert(LWS_PRE <= TT_FRAME_PRE, "frames need LWS_PRE bytes of headroom");

/* An HTTP response in progress (server_http.c). */
struct conn_http {
	struct tt_frame *body;                      /* the response being written */
	size_t body_off;
	/* /api/export in progress: produced a step at a time from HTTP_WRITEABLE */
	struct tt_export *ex;                       /* counted in srv->nexports */
	struct tt_hub *ex_hub;
	uint64_t ex_next, ex_end;
};

/* Per-session data (allocated and zeroed by lws, for WebSocket and HTTP connections): the
 * fields up to http are a WebSocket client's (server.c). */
struct conn {
	struct tt_server *srv;
	struct lws *wsi;
	struct conn *prev, *next;  /* WebSocket connections only */
	bool ws;
	struct tt_hub_client *subs[TT_MAX_TARGETS]; /* by hub index */
	struct tt_frame *ctl[TT_MAX_CTL];           /* hello, error, pong: sent first */
	size_t nctl;
	unsigned rr;                                /* round robin over subs */
	char *rx;                                   /* message being reassembled */
	size_t rxlen, rxcap;
	uint64_t progress_ms;                       /* last write, or last time nothing waited */
	struct conn *tx_next;                       /* in srv's send queue (tx_waiting) */
	bool tx_waiting;
	char *origin, *host;                        /* as admitted (re-checked on SIGHUP) */
	unsigned token_gen;                         /* the token it was admitted with */
	struct conn_http http;                      /* HTTP connections only */
	bool want_stats[TT_MAX_TARGETS];            /* by hub index: "stats" asked for */
};

struct tt_server {
	uv_loop_t *loop;
	struct lws_context *ctx;
	struct lws_vhost *vh;
	struct tt_server_config cfg;
	char *listen, *token, *web_dir, *tls_cert, *tls_key;
	char *web_real;         /* web_dir with symlinks resolved: files must stay below it */
	char **origins;         /* cfg.norigins entries */
	unsigned token_gen;     /* bumped when the token changes */
	unsigned max_clients;   /* in force (see tt_server_max_clients) */
	unsigned fd_clients;    /* what the descriptor limit allows */
	struct tt_log_limit refusals; /* log lines about refused clients */
	unsigned nexports;      /* exports in progress */
	struct lws_http_mount mounts[4];
	struct lws_protocols protocols[3];
	struct tt_hub *hubs[TT_MAX_TARGETS];
	bool owned[TT_MAX_TARGETS]; /* tt_server_add_hub's (freed with the server), not attached */
	size_t nhubs;
	struct conn *conns;
	size_t nconns;
	uv_idle_t flush;        /* flushes hubs once per loop iteration while records wait */
	uv_timer_t timer;       /* idle policy; shutdown grace */
	/* Send budget: WebSocket bytes written in this loop turn (reset by `turn`, which runs
	 * before the loop polls), so one turn of writing to many clients cannot delay the
	 * target readers' timers for long (server.c on_writeable). Clients with more to send
	 * when it is spent wait in a FIFO (tx_head..tx_tail) for a later turn. */
	uv_prepare_t turn;
	size_t tx_turn;
	struct conn *tx_head, *tx_tail;
	size_t tx_turn_max;     /* the most written in one turn so far (/metrics, tests) */
	uint64_t tx_deferred;   /* writeable callbacks put off to the next turn */
	int port;
	bool stopping;
	uint64_t stop_deadline;
	unsigned open_handles;
	tt_server_stop_cb stop_cb;
	void *stop_arg;
	uint64_t rejected, bad_messages, busy; /* counters for /metrics */
	uint64_t remote_refused;               /* tt_server_remote_refused */
	struct tt_server_ext ext;              /* tracetapd's additions (tt_server_set_ext) */
	/* a target's live analysis (tt_server_set_stats), or NULL */
	struct tt_stats *(*stats_of)(void *arg, const char *target);
	void *stats_arg;
};

void tt_server_logf(struct tt_server *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A refused client or request (notice), at most 10 a second: a flood must not flood the log. */
void tt_server_refusedf(struct tt_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* LWS_CALLBACK_HTTP for /api, /metrics, /healthz; returns what the lws callback returns. */
int tt_server_http(struct conn *c, struct lws *wsi);
int tt_server_http_writeable(struct conn *c, struct lws *wsi);
/* Frees an unfinished response (CLOSED_HTTP). */
void tt_server_http_closed(struct conn *c);
/* Host, Origin and authorization (Bearer header or ?token=) checks. 0 = fine, else an HTTP
 * status with a reason in why. A header too long to check fails. */
int tt_server_check_access(struct tt_server *s, struct lws *wsi, char *why, size_t whylen);
/* The same checks on headers kept from admission (NULL = absent); token_ok: the client gave
 * the current token. */
int tt_server_access(struct tt_server *s, const char *origin, const char *host, bool token_ok,
		     char *why, size_t whylen);
/* The value of URL argument name ("target="): 1 with it in buf, 0 when absent, -E2BIG when it
 * does not fit in len bytes (too long is never taken for absent). */
int tt_server_url_arg(struct lws *wsi, const char *name, char *buf, size_t len);
/* A header: 1 with it in buf, 0 when absent, -E2BIG when longer than len - 1. */
int tt_server_header(struct lws *wsi, enum lws_token_indexes h, char *buf, size_t len);
/* Closes a WebSocket client with code and reason from a uv callback, as the shutdown does (the
 * close frame goes out). May free c: callers walking s->conns keep the next one first.
 * reason: a static string. */
void tt_server_kick(struct conn *c, enum lws_close_status code, const char *reason);
/* Keeps the Origin and Host a client was admitted with (ESTABLISHED). */
void tt_server_keep_admission(struct conn *c, struct lws *wsi);
/* Sets the lws descriptor budget and s->max_clients from the descriptor limit (start). */
void tt_server_fit_fd_limit(struct tt_server *s, struct lws_context_creation_info *info);
/* strdup, or NULL for NULL or "". */
char *tt_server_strdup(const char *s);
/* An error response whose message (which may quote the request) is HTML-escaped. */
void tt_server_http_status(struct lws *wsi, unsigned status, const char *msg);
/* Refuses a request body (GET only: 413) and paths that leave the web folder (404) before
 * lws acts on the request; returns nonzero to close (LWS_CALLBACK_FILTER_HTTP_CONNECTION). */
int tt_server_http_filter(struct tt_server *s, struct lws *wsi, const char *uri);
/* Queues a control frame (hello, error, pong: sent before records); f NULL is ignored. */
void tt_server_ctl_push(struct conn *c, struct tt_frame *f);
/* The `stats` messages of this second (server_stats.c). */
void tt_server_stats_tick(struct tt_server *s);
/* Queues an `error` message with code and the formatted message (JSON-escaped). */
void tt_server_send_error(struct conn *c, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A hub client's wake callback: asks lws for a write on the connection (arg). */
void tt_server_wake(struct tt_hub_client *hc, void *arg);
/* One complete client message (subscribe, resume, pause, resume-live, ping; untrusted JSON):
 * acts on it, or queues an error reply (server_msg.c). */
void tt_server_on_message(struct conn *c, const char *buf, size_t len);



#endif
