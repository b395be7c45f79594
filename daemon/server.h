/* daemon/server.h: the WebSocket/HTTP server (libwebsockets on the daemon's libuv loop).
 *
 * One port serves the dashboard (static files), the WebSocket stream (proto/PROTOCOL.md),
 * /api/targets, /api/export, /metrics and /healthz, from one tt_hub per target.
 *
 * Lifetime (the order libwebsockets on a foreign libuv loop needs):
 *
 *     uv_loop_init(&loop);
 *     tt_server_config_init(&sc); sc.port = ...;
 *     tt_server_start(&loop, &sc, &srv, err, sizeof(err));   // listening on return
 *     tt_server_attach_hub(srv, hub);                        // or tt_server_add_hub
 *     // shutdown, from a uv callback (never from an lws callback), targets stopped first:
 *     tt_server_stop(srv, stopped_cb, arg);  // clients get close 1001; cb when lws let go
 *     uv_run(&loop, UV_RUN_DEFAULT) returns by itself (never uv_stop);
 *     tt_server_free(srv);                   // second lws_context_destroy, added hubs freed
 *     uv_run(&loop, UV_RUN_DEFAULT);         // lets the last handles close
 *     uv_loop_close(&loop);                  // 0
 *
 * Every function runs on the loop thread.
 */
#ifndef TT_SERVER_H
#define TT_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "hub.h"


struct tt_server_config {
	const char *listen;          /* address; default "127.0.0.1" (IPv4 only, so loopback
					means loopback) */
	int port;                    /* default 7733; 0 = ephemeral (tt_server_port) */
	const char *token;           /* NULL/"": no token; else required on /ws, /api, /metrics */
	const char *const *origins;  /* browser Origins allowed besides the loopback ones
					("scheme://host:port", or "*"); their hosts are also
					accepted in Host headers; borrowed (copied) */
	size_t norigins;
	const char *web_dir;         /* static files; default TT_WEBDIR */
	const char *tls_cert;        /* PEM paths: TLS when both are set */
	const char *tls_key;
	size_t max_message;          /* largest client message, bytes; default 65536 */
	unsigned idle_timeout_s;     /* a client that reads nothing this long is closed (1008);
					default 60 */
	unsigned max_clients;        /* WebSocket clients at most (more get 503); default 256,
					lowered at start to fit the descriptor limit */
	unsigned max_exports;        /* concurrent /api/export downloads (more get 503);
					default 4 */
	struct tt_hub_config hub;    /* defaults for each target's hub (history, queues) */
	/* tracetapd, not the server: the MQTT publisher (daemon/publish_mqtt.h); NULL = none */
	const char *publish, *mqtt_ca, *mqtt_cert, *mqtt_key;
	/* mqtt:// probes: the BENCH names whose targets may become remote targets (none: any
	 * bench), and how many targets each bench may have (0: TT_SUB_BENCH_TARGETS) */
	const char *const *mqtt_benches;
	size_t nmqtt_benches;
	unsigned mqtt_bench_targets;
	/* Optional log sink (level: 3 err .. 7 debug); msg borrowed for the call. Lines above
	 * log_level are not formatted (default 7: all); at 7 the server logs when it writes a batch
	 * of events to a client ("stage write" lines: bench/README.md). */
	void (*log)(int level, const char *msg, void *arg);
	void *log_arg;
	int log_level;
};

/* Hubs one server serves (targets and remote targets together): tracetapd takes no more. */
#define TT_MAX_TARGETS 64

struct tt_server;

/* Fills cfg with the defaults above. */
void tt_server_config_init(struct tt_server_config *cfg);

/* Creates the lws context on loop and starts listening. Strings in cfg are copied.
 * Returns 0, or -errno with a message in err ("cannot listen on 127.0.0.1:7733: ...", "TLS
 * certificate ...", "libwebsockets libuv plugin missing ..."). */
int tt_server_start(uv_loop_t *loop, const struct tt_server_config *cfg,
		    struct tt_server **out, char *err, size_t errlen);
/* The port actually listened on (useful with port 0). */
int tt_server_port(const struct tt_server *s);

/* Adds a target's hub: hc as for tt_hub_new, with the server's queue and
 * history defaults filled in where hc leaves 0. Returns 0, -EEXIST, -ENOSPC (too many
 * targets) or -ENOMEM. */
int tt_server_add_hub(struct tt_server *s, const struct tt_hub_config *hc, struct tt_hub **out);
/* Serves a hub someone else owns (daemon/supervisor.h): h must outlive the server and be
 * flushed by its owner (need_flush). Returns 0, -EEXIST or -ENOSPC. */
int tt_server_attach_hub(struct tt_server *s, struct tt_hub *h);
struct tt_hub *tt_server_hub(const struct tt_server *s, const char *target);
/* Counts a broker message that made no target (unknown or refused bench): /metrics. */
void tt_server_remote_refused(struct tt_server *s);
/* Where /api/stats and /metrics find a target's live analysis (daemon/stats.h): stats_of returns
 * it, borrowed for the request, or NULL (a target without one, e.g. a remote one). */
struct tt_stats;
void tt_server_set_stats(struct tt_server *s,
			 struct tt_stats *(*stats_of)(void *arg, const char *target), void *arg);

/* The configuration running (strings the server's own copies, valid until the next
 * tt_server_set_access or tt_server_free; port as configured, see tt_server_port). */
void tt_server_get_config(const struct tt_server *s, struct tt_server_config *out);
/* The client limit in force (cfg->max_clients, or lower to fit the descriptor limit). */
unsigned tt_server_max_clients(const struct tt_server *s);

/* Replaces the access settings at run time (SIGHUP): token (NULL/"" = none), origins (copied),
 * max_clients (0 = keep). WebSocket clients that no longer pass (admitted with the previous
 * token, or from an Origin/Host no longer allowed) are closed with 1008. Returns how many were
 * closed, or -ENOMEM (nothing changed). */
int tt_server_set_access(struct tt_server *s, const char *token, const char *const *origins,
			 size_t norigins, unsigned max_clients);

/* What tracetapd adds to the HTTP side (the trigger engine: daemon/trigger.h): more /metrics
 * lines, and GET paths under /api/ that the server does not answer itself, answered after the
 * same access checks. http writes the body through put, sets *type and disp (a
 * Content-Disposition value, or ""), and returns the HTTP status, or 0 when uri is not its. */
struct tt_server_ext {
	void (*metrics)(void *arg, int (*put)(void *pa, const void *buf, size_t len), void *pa);
	int (*http)(void *arg, const char *uri, int (*put)(void *pa, const void *buf, size_t len),
		    void *pa, const char **type, char *disp, size_t dcap);
	void *arg;
};
/* Sets the additions (copied; NULL = none). */
void tt_server_set_ext(struct tt_server *s, const struct tt_server_ext *ext);

typedef void (*tt_server_stop_cb)(struct tt_server *s, void *arg);
/* Starts the shutdown: every client gets close code 1001, then (when all are gone, at most
 * about 1 s later) the lws context is destroyed (phase 1) and the server's handles closed; cb
 * (may be NULL) runs after that, from the loop. The loop then ends by itself. */
void tt_server_stop(struct tt_server *s, tt_server_stop_cb cb, void *arg);
/* After uv_run returned: frees the lws context (phase 2), the hubs and the server. */
void tt_server_free(struct tt_server *s);

#endif
