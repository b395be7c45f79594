/* daemon/mqtt_uv.h: one libmosquitto client driven from a libuv loop, for the publisher and
 * the subscriber: nothing blocks the loop on the broker. The socket is followed on the loop;
 * each connect (libmosquitto's blocking host name lookup, then a non-blocking connect) runs in
 * libuv's thread pool, and the loop does not touch the client meanwhile. Every function runs
 * on the loop thread.
 */
#ifndef TT_MQTT_UV_H
#define TT_MQTT_UV_H

#include <stdbool.h>
#include <uv.h>

struct mosquitto;

/* mqtt[s]://[user:pass@]host[:port]/PATH, split; the strings live in mem. */
struct tt_mqtt_url {
	char *mem;
	const char *host, *user, *pass, *path;
	int port;
	bool tls;
};
/* 0, -ENOMEM, or -EINVAL with what is wrong in err ("publish" or "probe" names the option). */
int tt_mqtt_url_parse(const char *what, const char *url, struct tt_mqtt_url *u, char *err,
		      size_t errlen);
void tt_mqtt_url_free(struct tt_mqtt_url *u);

struct tt_mqtt_conn {
	/* set by the caller before tt_mqtt_conn_start */
	uv_loop_t *loop;
	struct mosquitto *m;         /* configured (callbacks, will, credentials, TLS) */
	const struct tt_mqtt_url *url;
	int keepalive;               /* seconds */
	const char *label;           /* for log lines ("target b1", "probe mqtt://...") */
	void (*closed)(struct tt_mqtt_conn *c); /* after tt_mqtt_conn_close: handles closed */
	void (*tick)(struct tt_mqtt_conn *c);   /* optional: every tick while connected */
	/* private */
	uv_poll_t *poll;
	int fd;
	uv_timer_t timer;
	unsigned ticks, open;
	int last_err;                /* logged once until it changes */
	bool closing;                /* nothing more is logged */
	char lib_err[160];           /* libmosquitto's error lines since the last error logged */
	uv_work_t work;              /* the connect in the thread pool */
	int connect_rc, connect_errno;
	bool connecting;             /* work queued: the loop leaves m alone */
	bool tried;                  /* a connect was made: later ones reconnect */
};

/* A new libmosquitto client (MQTT v5) for id, its callbacks' argument arg, with the URL's
 * credentials and TLS (ca/cert/key may be NULL). arg is the owner, whose first member is its
 * struct tt_mqtt_conn (libmosquitto's error lines are kept there). NULL with a log line on
 * failure. */
struct mosquitto *tt_mqtt_client_new(const char *id, void *arg, const struct tt_mqtt_url *u,
				     const char *ca, const char *cert, const char *key);
/* Starts the timer: connects now, reconnects every second while there is no socket. */
void tt_mqtt_conn_start(struct tt_mqtt_conn *c);
/* Follows libmosquitto's socket and its wish to write: call after every libmosquitto call
 * that may queue or close (nothing while a connect is in the thread pool). */
void tt_mqtt_conn_sync(struct tt_mqtt_conn *c);
/* Logs what went wrong once until something else does (rc: a MOSQ_ERR_*). */
void tt_mqtt_conn_error(struct tt_mqtt_conn *c, int rc, const char *what);
/* The broker refused the connection (reason: its CONNACK code, e.g. bad credentials): logged
 * as an error once until the reason changes; libmosquitto tries again later. */
void tt_mqtt_conn_refused(struct tt_mqtt_conn *c, int reason);
/* A connection came up: the next error is logged again, and this one says so. */
void tt_mqtt_conn_up(struct tt_mqtt_conn *c);
/* A clean end: a DISCONNECT (normal) when connected or connecting, none while a connect is
 * still in the thread pool; nothing more is logged. Then tt_mqtt_conn_close. */
void tt_mqtt_conn_disconnect(struct tt_mqtt_conn *c);
/* Closes the handles and destroys the client (after a bounded, non-blocking attempt to write
 * what is queued, e.g. a DISCONNECT); c->closed runs when the handles are closed. */
void tt_mqtt_conn_close(struct tt_mqtt_conn *c);

#endif
