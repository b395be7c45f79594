/* daemon/tracetapd.c: the daemon's main: options, configuration, the libuv loop, targets, the
 * server, signals and systemd integration.
 *
 * One loop owns everything: each target's poller, and the HTTP/WebSocket server (libwebsockets
 * joined to the same loop). Each target publishes into its hub, which outlives the target so a
 * reload (SIGHUP) can restart a changed target while clients stay connected and sequence
 * numbers go on. `--stdout` also prints every record as one JSON line (proto/PROTOCOL.md).
 * SIGINT/SIGTERM: stop polling, close clients with 1001, let the loop drain, exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../probe/usb.h"
#include "../proto/json.h"
#include "../proto/token.h"
#include "config.h"
#include "log.h"
#include "notify.h"
#include "opts.h"
#include "target.h"
#include "server.h"
#include "fleet.h"
#include "stats.h"
#include "supervisor.h"
#include "target_fields.h"
#include "trigger.h"
#include "tt_config.h"

struct cli;

struct daemon {
	uv_loop_t loop;
	uv_signal_t sigint, sigterm, sighup;
	uv_check_t flush;   /* --stdout: flush once per loop iteration so pipes see records live */
	uv_timer_t status;  /* status to clients every second, systemd STATUS= every 5 s */
	unsigned ticks;
	struct tt_usb_watch *usb; /* hot-plug of probes that targets are bound to */
	struct tt_config conf;     /* current configuration (the server's settings) */
	const struct cli *cli;     /* flags: they override the file on reload too */
	const char *config_path;
	struct tt_sup_env env;     /* what the supervisors share (loop, hub limits, stopping) */
	struct tt_sup *sups[TT_MAX_TARGETS];
	bool from_flags[TT_MAX_TARGETS]; /* --probe: not the file's, a reload leaves it alone */
	size_t nsups;
	int to_stdout, no_server, stopping;
	struct tt_server *srv;     /* NULL with --no-server or without libwebsockets */
	struct tt_fleet fleet;     /* MQTT: --publish, mqtt:// probes */
	struct tt_trig *trig;      /* the trigger engine: a consumer of every target's records */
	struct tt_trig_set trigs;  /* the triggers configured, until the engine takes them */
};

static struct tt_sup *sup_find(struct daemon *d, const char *name)
{
	for (size_t i = 0; i < d->nsups; i++)
		if (!strcmp(tt_sup_name(d->sups[i]), name))
			return d->sups[i];
	return NULL;
}

/* The server: one consumer of the supervisors' hubs, absent with --no-server. */
#if TT_HAVE_LWS
/* The server's part of a reload: token, origins and max_clients apply now (clients that no
 * longer pass are closed); the listener's settings need a restart, and the log says which
 * differ from what runs (on every reload until the restart). */
static void server_reload(struct daemon *d, const struct tt_server_config *n)
{
	struct tt_server_config run, *o = &run;
	char keep[256] = "";
	size_t k = 0;
	int closed;

	if (!d->srv)
		return;
	tt_server_get_config(d->srv, &run);

#define KEEP(cond, key) \
	if (cond) k += (size_t)snprintf(keep + k, sizeof(keep) - k, "%s%s", k ? ", " : "", key)
	KEEP(!tt_field_str_eq(o->listen, n->listen), "listen");
	KEEP(o->port != n->port, "port");
	KEEP(!tt_field_str_eq(o->web_dir, n->web_dir), "web_dir");
	KEEP(!tt_field_str_eq(o->tls_cert, n->tls_cert) || !tt_field_str_eq(o->tls_key, n->tls_key),
	     "tls_cert/tls_key");
	KEEP(o->max_message != n->max_message, "max_message");
	KEEP(o->idle_timeout_s != n->idle_timeout_s, "idle_timeout");
	KEEP(o->max_exports != n->max_exports, "max_exports");
	KEEP(o->hub.history != n->hub.history || o->hub.history_bytes != n->hub.history_bytes ||
	     o->hub.client_frames != n->hub.client_frames ||
	     o->hub.client_bytes != n->hub.client_bytes, "history/client_queue_*");
#undef KEEP
	if (k)
		tt_log(TT_LOG_WARNING, "reload: %s changed: not applied until tracetapd restarts "
		       "(still listening on %s:%d)", keep, o->listen, tt_server_port(d->srv));
	closed = tt_server_set_access(d->srv, n->token, n->origins, n->norigins, n->max_clients);
	if (closed < 0)
		tt_log(TT_LOG_ERR, "reload: out of memory: token and origins unchanged");
	else
		tt_log(TT_LOG_NOTICE, "reload: token %s, %zu origin(s), at most %u clients%s%d "
		       "client(s) closed", n->token && *n->token ? "required" : "not required",
		       n->norigins, tt_server_max_clients(d->srv), closed ? ": " : ", ", closed);
}
static void server_log(int level, const char *msg, void *arg)
{
	(void)arg;
	tt_log(level, "%s", msg);
}

/* /api/stats and /metrics: a local target's live analysis (remote ones have none here). */
static struct tt_stats *stats_of(void *arg, const char *target)
{
	struct tt_sup *s = sup_find(arg, target);

	return s ? tt_sup_stats(s) : NULL;
}

static void ext_metrics(void *arg, int (*put)(void *, const void *, size_t), void *pa)
{
	tt_trig_metrics(((struct daemon *)arg)->trig, put, pa);
}

static int ext_http(void *arg, const char *uri, int (*put)(void *, const void *, size_t),
		    void *pa, const char **type, char *disp, size_t dcap)
{
	return tt_trig_http(((struct daemon *)arg)->trig, uri, put, pa, type, disp, dcap);
}

/* The trigger engine's /metrics lines and /api/captures, while it runs. */
static void server_ext(struct daemon *d, bool on)
{
	const struct tt_server_ext ext = { ext_metrics, ext_http, d };

	if (d->srv)
		tt_server_set_ext(d->srv, on ? &ext : NULL);
}

static int server_start(struct daemon *d)
{
	char err[512];

	d->conf.server.log = server_log;
	d->conf.server.log_level = tt_log_level;
	if (tt_server_start(&d->loop, &d->conf.server, &d->srv, err, sizeof(err)) < 0) {
		tt_log(TT_LOG_ERR, "%s", err);
		return -1;
	}
	server_ext(d, true);
	tt_server_set_stats(d->srv, stats_of, d);
	const char *scheme = d->conf.server.tls_cert ? "https" : "http";
	tt_log(TT_LOG_NOTICE, "listening on %s://%s:%d/", scheme, d->conf.server.listen,
	       tt_server_port(d->srv));
	/* Scripts and the demo read the port from this line. */
	fprintf(stderr, "tracetapd: dashboard at %s://%s:%d/\n", scheme, d->conf.server.listen,
		tt_server_port(d->srv));
	return 0;
}

static int server_attach(struct daemon *d, struct tt_sup *s)
{
	return d->srv ? tt_server_attach_hub(d->srv, tt_sup_hub(s)) : 0;
}

static void server_stop(struct daemon *d)
{
	if (d->srv)
		tt_server_stop(d->srv, NULL, NULL);
}

/* After the loop ended: the server lets go of the hubs before the supervisors free them. */
static void server_free(struct daemon *d)
{
	if (!d->srv)
		return;
	tt_server_free(d->srv);
	d->srv = NULL;
	uv_run(&d->loop, UV_RUN_DEFAULT);
}
#else
static void server_ext(struct daemon *d, bool on) { }
static void server_reload(struct daemon *d, const struct tt_server_config *n) { }
static int server_start(struct daemon *d)
{
	tt_log(TT_LOG_ERR, "built without libwebsockets: run with --no-server --stdout");
	return -1;
}
static int server_attach(struct daemon *d, struct tt_sup *s) { return 0; }
static void server_stop(struct daemon *d) { }
static void server_free(struct daemon *d) { }
#endif

/* Every record, numbered as the hub numbered it: to the triggers, and with --stdout as one
 * JSON line. */
static void on_record(struct tt_sup *s, uint64_t seq, const struct tt_record *rec, void *arg)
{
	struct daemon *d = arg;
	char buf[TT_JSON_MAX_RECORD];

	if (tt_trig_active(d->trig))
		tt_trig_record(d->trig, tt_sup_hub(s), seq, rec);
	if (!d->to_stdout)
		return;
	int n = tt_json_record(buf, sizeof(buf) - 1, rec, tt_sup_name(s), seq);
	if (n < 0)
		return;
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, stdout);
}

static void on_state(struct tt_sup *s, const struct tt_target_status *st, void *arg)
{
	struct daemon *d = arg;

	tt_trig_state(d->trig, tt_sup_hub(s), (int)st->state, st->message);
}

/* The triggers of the file (conf, read from file) and of the flags, into set. 0, or -1 with
 * the reason in err. */
static int build_triggers(const struct tt_config *conf, const struct cli *cl, const char *file,
			  struct tt_trig_set *set, char *err, size_t errlen);

/* The halt action: through the target's probe (OpenOCD). */
static int halt_target(void *arg, const char *target, char *err, size_t errlen)
{
	struct tt_sup *s = sup_find(arg, target);
	int rc = s ? tt_sup_halt(s, "a trigger") : -ENOENT;

	if (rc == -ENOTSUP)
		snprintf(err, errlen, "its probe cannot halt a core (only openocd: and openocd-spawn "
			 "can)");
	else if (rc < 0)
		snprintf(err, errlen, "%s", s ? "the target is not running" : "not a local target");
	return rc;
}

static struct tt_sup *sup_add(struct daemon *d, const struct tt_target_config *cfg)
{
	struct tt_sup *s;
	int rc;

	if (d->nsups == TT_MAX_TARGETS) {
		tt_log(TT_LOG_ERR, "target %s: more than %d targets", cfg->name, TT_MAX_TARGETS);
		return NULL;
	}
	if (cfg->name && sup_find(d, cfg->name))
		rc = -EEXIST;
	else if ((rc = tt_sup_new(&d->env, cfg, &s)) == 0 && (rc = server_attach(d, s)) < 0)
		tt_sup_free(s);
	if (rc < 0) {
		tt_log(TT_LOG_ERR, "target %s: %s", cfg->name ? cfg->name : "target",
		       rc == -EEXIST ? "a target of that name exists" : strerror(-rc));
		return NULL;
	}
	tt_fleet_attach(&d->fleet, tt_sup_hub(s), tt_sup_name(s));
	d->from_flags[d->nsups] = false;
	d->sups[d->nsups++] = s;
	return s;
}

static void on_status_tick(uv_timer_t *h)
{
	struct daemon *d = h->data;
	unsigned connected = 0;
	double rate = 0;

	/* Rates and counters move without state changes: refresh clients every second. */
	for (size_t i = 0; i < d->nsups; i++)
		tt_hub_status_changed(tt_sup_hub(d->sups[i]));
	/* the statistics conditions: a sample of each target's live analysis */
	for (size_t i = 0; tt_trig_wants_stats(d->trig) && i < d->nsups; i++)
		tt_trig_sample_analysis(d->trig, tt_sup_hub(d->sups[i]),
					tt_stats_analysis(tt_sup_stats(d->sups[i])));
	if (d->ticks++ % 5)
		return;
	for (size_t i = 0; i < d->nsups; i++) {
		const struct tt_target_status *st = tt_sup_status(d->sups[i]);
		/* a core halted by a debugger is still read: its link is up */
		connected += st->state == TT_TARGET_CONNECTED || st->state == TT_TARGET_HALTED;
		rate += st->rate;
	}
	tt_notify_status("%u/%zu targets connected, %.0f events/s", connected, d->nsups, rate);
}

static void apply_flags(struct tt_server_config *sc, const struct cli *cl);
static const char *flag_probe(const struct cli *cl);


/* SIGHUP: unchanged targets keep streaming, changed ones restart, removed ones stop (their hub
 * stays, reporting "stopped"), new ones start; the server's access settings apply. */
static void reload(struct daemon *d)
{
	struct tt_config nc;
	char err[512];

	if (!d->config_path) {
		tt_log(TT_LOG_WARNING, "SIGHUP: no --config file to reload");
		return;
	}
	tt_notify_reloading();
	if (tt_config_load(d->config_path, &nc, err, sizeof(err)) < 0) {
		tt_log(TT_LOG_ERR, "reload: %s (keeping the running configuration)", err);
		tt_notify_ready();
		return;
	}
	struct tt_trig_set ts;
	if (build_triggers(&nc, d->cli, d->config_path, &ts, err, sizeof(err)) < 0) {
		tt_log(TT_LOG_ERR, "reload: %s (keeping the running configuration)", err);
		tt_config_free(&nc);
		tt_notify_ready();
		return;
	}
	if (nc.warning[0])
		tt_log(TT_LOG_WARNING, "%s", nc.warning);
	tt_trig_reload(d->trig, &ts);
	apply_flags(&nc.server, d->cli);
	server_reload(d, &nc.server);
	tt_fleet_reload(&d->fleet, &nc.server, nc.targets, nc.ntargets, flag_probe(d->cli));
	for (size_t i = 0; i < d->nsups; i++) {
		const struct tt_target_config *want = NULL;
		if (d->from_flags[i])
			continue;
		for (size_t j = 0; j < nc.ntargets; j++)
			if (!strcmp(nc.targets[j].name, tt_sup_name(d->sups[i])))
				want = &nc.targets[j];
		tt_sup_reload(d->sups[i], want);
	}
	for (size_t j = 0; j < nc.ntargets; j++) {
		if (sup_find(d, nc.targets[j].name) ||
		    tt_fleet_probe(&d->fleet, &d->loop, d->srv, &nc.server, &nc.targets[j]))
			continue;
		struct tt_sup *s = sup_add(d, &nc.targets[j]);
		if (s)
			tt_sup_start(s);
	}
	/* nothing points into the old configuration any more: supervisors own copies, the server too */
	tt_config_free(&d->conf);
	d->conf = nc;
	tt_log(TT_LOG_NOTICE, "configuration reloaded from %s", d->config_path);
	tt_notify_ready();
}


static void shutdown_daemon(struct daemon *d)
{
	d->stopping = 1;
	d->env.stopping = true;
	tt_notify_stopping();
	tt_notify_watchdog_stop();
	if (d->usb)
		tt_usb_watch_stop(d->usb);
	d->usb = NULL;
	d->env.usb = false;
	for (size_t i = 0; i < d->nsups; i++)
		tt_sup_stop(d->sups[i]);
	tt_fleet_stop(&d->fleet);
	server_ext(d, false);
	tt_trig_stop(d->trig);
	d->trig = NULL; /* freed once its handles are closed */
	server_stop(d);
	uv_close((uv_handle_t *)&d->sigint, NULL);
	uv_close((uv_handle_t *)&d->sigterm, NULL);
	uv_close((uv_handle_t *)&d->sighup, NULL);
	uv_close((uv_handle_t *)&d->flush, NULL);
	uv_close((uv_handle_t *)&d->status, NULL);
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct daemon *d = h->data;

	if (d->stopping)
		return;
	if (signum == SIGHUP) {
		reload(d);
		return;
	}
	tt_log(TT_LOG_NOTICE, "%s: stopping", strsignal(signum));
	shutdown_daemon(d);
}

static void on_usb(struct tt_usb_watch *w, enum tt_usb_event ev, const struct tt_usb_probe *p,
		   void *arg)
{
	struct daemon *d = arg;

	(void)w;
	for (size_t i = 0; i < d->nsups && p->serial[0]; i++)
		if (!strcmp(tt_sup_serial(d->sups[i]), p->serial))
			tt_sup_probe(d->sups[i], ev == TT_USB_ARRIVED, p->serial, p->match.name);
}

/* Targets bound to a probe serial need the hot-plug watcher; without libusb (or USB) they
 * start unconditionally, as any other target. */
static void start_usb_watch(struct daemon *d)
{
	int bound = 0;

	for (size_t i = 0; i < d->nsups; i++)
		bound |= tt_sup_serial(d->sups[i])[0] != 0;
	if (!bound)
		return;
	int rc = tt_usb_watch_start(&d->loop, on_usb, d, &d->usb);
	d->env.usb = rc == 0;
	if (rc < 0) {
		d->usb = NULL;
		tt_log(TT_LOG_NOTICE, "probe hot-plug unavailable (%s): targets bound to a probe "
				      "serial start at once", rc == -ENOTSUP ? "built without libusb"
									   : strerror(-rc));
	}
}

static void on_check(uv_check_t *h)
{
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracetapd [--config FILE] [options]\n"
		"Follow RTOS trace buffers in running targets and stream their events.\n\n"
		"Configuration:\n"
		"  --config FILE         JSON configuration (targets, listener; see tracetapd.json(5))\n"
		"  --check-config        validate the configuration and exit\n"
		"Server (flags override the file):\n"
		"  --listen ADDR         address to listen on (default 127.0.0.1: loopback only)\n"
		"  --port N              port (default 7733; 0 = any free port, printed)\n"
		"  --token TOKEN         require this token from clients\n"
		"  --origin ORIGIN       also allow browsers from this Origin (repeatable)\n"
		"  --web DIR             dashboard files (default %s)\n"
		"  --tls-cert PEM, --tls-key PEM   serve HTTPS/WSS\n"
		"  --history N           records kept per target for resuming clients\n"
		"  --max-clients N       WebSocket clients at once (default 256; more get 503;\n"
		"                        lowered to fit the descriptor limit)\n"
		"  --max-exports N       /api/export downloads at once (default 4; more get 503)\n"
		"  --no-server           no HTTP/WebSocket server (with --stdout or --publish)\n"
		"Publishing (see README \"Many benches\"):\n"
		"  --publish URL         mqtt[s]://[user:pass@]host[:port]/PREFIX: every target's\n"
		"                        records to PREFIX/TARGET/events, status to .../status\n"
		"  --mqtt-ca PEM, --mqtt-cert PEM, --mqtt-key PEM   mqtts: CA, client cert and key\n"
		"  --mqtt-bench BENCH    mqtt:// probes: only this bench's targets become remote\n"
		"                        targets (repeatable; default: any bench)\n"
		"  --mqtt-bench-targets N  remote targets per bench at most (default 16)\n"
		"A target from flags (in addition to the configuration's):\n"
		"  --probe SPEC          file:PATH | kev:PATH | process:PID | openocd:HOST:PORT |\n"
		"                        openocd-spawn | mqtt://HOST/PREFIX/TARGET (remote\n"
		"                        targets, TARGET may be +; see tracetapd(8))\n"
		"  -f FILE, -c CMD       openocd-spawn: OpenOCD configuration files and commands\n"
		"  --openocd-log FILE    where a spawned OpenOCD logs (default: discarded)\n"
		"  --name NAME           target name, 1-64 bytes (default: the ELF's file name,\n"
		"                        else the probe's: openocd-spawn's last -f file, file:/kev:\n"
		"                        file)\n"
		"%s%s"
		"Triggers (see tracetapd(8) \"Triggers\", tracetapd.json(5)):\n"
		"  --trigger 'NAME: CONDITION [; OPTION...]'   watch every target (repeatable), e.g.\n"
		"                        'boom: USER_EVENT id=0x1000 info1>=5; capture after=2s'\n"
		"                        conditions: EVENT|ID|* [FIELD OP VALUE...] (ops = != < <= > >=\n"
		"                        ~), gap [lost>=N], reset, halt, disconnect; options:\n"
		"                        holdoff=2s limit=N target=T capture before=N|2s after=N|1s\n"
		"                        halt command=/abs/path command_timeout=10s\n"
		"  --capture-dir DIR     where captures are written (capture_dir)\n"
		"Output:\n"
		"  --stdout              also print every record as a JSON line on stdout\n"
		"  --log-level LEVEL     err, warning, notice, info (default), debug\n"
		"  --version, --help\n",
		TT_WEBDIR, tt_opts_target_help(), tt_opts_live_help);
}

enum {
	O_PROBE = 1000, O_NAME, O_STDOUT, O_LOGLEVEL, O_OLOG, O_VERSION, O_HELP, O_CONFIG,
	O_CHECK, O_LISTEN, O_PORT, O_TOKEN, O_ORIGIN, O_WEB, O_CERT, O_KEY, O_HISTORY,
	O_NOSERVER, O_MAXCLIENTS, O_MAXEXPORTS, O_PUBLISH, O_MQTTCA, O_MQTTCERT, O_MQTTKEY,
	O_MQTTBENCH, O_MQTTBENCHTARGETS, O_TRIGGER, O_CAPTUREDIR,
};

struct cli {
	struct tt_target_config target;
	struct tt_opts_target ot;
	const char *origins[16];
	size_t norigins;
	const char *listen, *token, *web, *cert, *key;
	const char *mqtt[4]; /* --publish, --mqtt-ca, --mqtt-cert, --mqtt-key */
	const char *benches[64]; /* --mqtt-bench */
	size_t nbenches;
	unsigned bench_targets;
	const char *triggers[TT_TRIG_MAX]; /* --trigger */
	size_t ntriggers;
	const char *capture_dir;
	long port;
	uint64_t history;
	unsigned max_clients, max_exports;
	int check;
	char name[64]; /* the default target name, when --name is not given */
};

static const struct option base_opts[] = {
	{ "probe", required_argument, NULL, O_PROBE },
	{ "name", required_argument, NULL, O_NAME },
	{ "stdout", no_argument, NULL, O_STDOUT },
	{ "log-level", required_argument, NULL, O_LOGLEVEL },
	{ "openocd-log", required_argument, NULL, O_OLOG },
	{ "version", no_argument, NULL, O_VERSION },
	{ "help", no_argument, NULL, O_HELP },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "check-config", no_argument, NULL, O_CHECK },
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "port", required_argument, NULL, O_PORT },
	{ "token", required_argument, NULL, O_TOKEN },
	{ "origin", required_argument, NULL, O_ORIGIN },
	{ "web", required_argument, NULL, O_WEB },
	{ "tls-cert", required_argument, NULL, O_CERT },
	{ "tls-key", required_argument, NULL, O_KEY },
	{ "history", required_argument, NULL, O_HISTORY },
	{ "no-server", no_argument, NULL, O_NOSERVER },
	{ "max-clients", required_argument, NULL, O_MAXCLIENTS },
	{ "max-exports", required_argument, NULL, O_MAXEXPORTS },
	{ "publish", required_argument, NULL, O_PUBLISH },
	{ "mqtt-ca", required_argument, NULL, O_MQTTCA },
	{ "mqtt-cert", required_argument, NULL, O_MQTTCERT },
	{ "mqtt-key", required_argument, NULL, O_MQTTKEY },
	{ "mqtt-bench", required_argument, NULL, O_MQTTBENCH },
	{ "mqtt-bench-targets", required_argument, NULL, O_MQTTBENCHTARGETS },
	{ "trigger", required_argument, NULL, O_TRIGGER },
	{ "capture-dir", required_argument, NULL, O_CAPTUREDIR },
};

/* A repeatable flag's value into arr (cap entries): 0, or 2 when it is full (said on stderr). */
static int push_arg(const char **arr, size_t *n, size_t cap, const char *flag)
{
	if (*n == cap) {
		fprintf(stderr, "tracetapd: at most %zu --%s\n", cap, flag);
		return 2;
	}
	arr[(*n)++] = optarg;
	return 0;
}

/* The options of the server and of publishing: 0 when c is one and set, 2 on a bad value
 * (said on stderr), -ENOENT when c is not one of them. */
static int server_opt(int c, struct daemon *d, struct cli *cl)
{
	uint64_t v;

	switch (c) {
	case O_LISTEN: cl->listen = optarg; break;
	case O_TOKEN: {
		char why[160];
		if (tt_token_problem(optarg, why, sizeof(why))) {
			fprintf(stderr, "tracetapd: --token: %s\n", why);
			return 2;
		}
		cl->token = optarg;
		break;
	}
	case O_WEB: cl->web = optarg; break;
	case O_CERT: cl->cert = optarg; break;
	case O_KEY: cl->key = optarg; break;
	case O_NOSERVER: d->no_server = 1; break;
	case O_PUBLISH: case O_MQTTCA: case O_MQTTCERT: case O_MQTTKEY:
		cl->mqtt[c - O_PUBLISH] = optarg;
		break;
	case O_ORIGIN:
		return push_arg(cl->origins, &cl->norigins, 16, "origin");
	case O_MQTTBENCH:
		return push_arg(cl->benches, &cl->nbenches, 64, "mqtt-bench");
	case O_TRIGGER:
		return push_arg(cl->triggers, &cl->ntriggers, TT_TRIG_MAX, "trigger");
	case O_CAPTUREDIR: cl->capture_dir = optarg; break;
	case O_PORT:
		if (tt_parse_u64(optarg, 65535, 0, &v) < 0) {
			fprintf(stderr, "tracetapd: --port '%s': expected 0..65535\n", optarg);
			return 2;
		}
		cl->port = (long)v;
		break;
	case O_MAXCLIENTS:
	case O_MAXEXPORTS:
		if (tt_parse_u64(optarg, 100000, 0, &v) < 0 || !v) {
			fprintf(stderr, "tracetapd: --%s '%s': expected 1..100000\n",
				c == O_MAXCLIENTS ? "max-clients" : "max-exports", optarg);
			return 2;
		}
		*(c == O_MAXCLIENTS ? &cl->max_clients : &cl->max_exports) = (unsigned)v;
		break;
	case O_MQTTBENCHTARGETS:
		if (tt_parse_u64(optarg, 64, 1, &v) < 0 || !v) {
			fprintf(stderr, "tracetapd: --mqtt-bench-targets '%s': expected 1..64\n",
				optarg);
			return 2;
		}
		cl->bench_targets = (unsigned)v;
		break;
	case O_HISTORY:
		if (tt_parse_u64(optarg, 100000000, 1, &v) < 0 || !v) {
			fprintf(stderr, "tracetapd: --history '%s': expected 1..100M records\n",
				optarg);
			return 2;
		}
		cl->history = v;
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct daemon *d, struct cli *cl)
{
	struct option lo[64];
	size_t nb = sizeof(base_opts) / sizeof(base_opts[0]);
	char err[512];
	int c, rc;

	memcpy(lo, base_opts, sizeof(base_opts));
	tt_opts_target_longopts(lo + nb, sizeof(lo) / sizeof(lo[0]) - nb, true);
	cl->port = -1;
	tt_opts_target_init(&cl->ot, &cl->target);
	while ((c = getopt_long(argc, argv, "f:c:h", lo, NULL)) != -1) {
		switch (c) {
		case O_PROBE: cl->target.probe = optarg; break;
		case O_NAME:
			if (!*optarg || strlen(optarg) > TT_JSON_MAX_NAME) {
				fprintf(stderr, "tracetapd: --name: %zu bytes; a target name has 1 "
					"to %d\n", strlen(optarg), TT_JSON_MAX_NAME);
				return 2;
			}
			cl->target.name = optarg;
			break;
		case O_STDOUT: d->to_stdout = 1; break;
		case O_OLOG: cl->target.openocd_log = optarg; break;
		case O_CONFIG: d->config_path = optarg; break;
		case O_CHECK: cl->check = 1; break;
		case O_LOGLEVEL:
			if ((tt_log_level = tt_log_parse_level(optarg)) < 0) {
				fprintf(stderr, "tracetapd: --log-level %s: expected err, warning, "
						"notice, info or debug\n", optarg);
				return 2;
			}
			break;
		case O_VERSION: printf("tracetapd %s\n", TT_VERSION); return 1;
		case 'h':
		case O_HELP: usage(stdout); return 1;
		case 'f':
		case 'c':
			if (tt_opts_openocd_arg(&cl->ot, c, optarg) < 0) {
				fprintf(stderr, "tracetapd: too many -f/-c arguments\n");
				return 2;
			}
			break;
		default:
			if ((rc = server_opt(c, d, cl)) == 0)
				break;
			if (rc > 0)
				return rc;
			rc = tt_opts_target_parse(&cl->ot, c, optarg, err, sizeof(err));
			if (rc) {
				if (rc < 0)
					fprintf(stderr, "tracetapd: %s\n", err);
				else
					usage(stderr);
				return 2;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracetapd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	return 0;
}

/* The configuration file (or the defaults), then the flags on top. */
static int configure(struct daemon *d, struct cli *cl)
{
	char err[512];
	int rc = d->config_path ? tt_config_load(d->config_path, &d->conf, err, sizeof(err))
				: tt_config_parse("{}", 2, "defaults", &d->conf, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "tracetapd: %s\n", err);
		return -1;
	}
	if (d->conf.warning[0])
		tt_log(TT_LOG_WARNING, "%s", d->conf.warning);
	if (build_triggers(&d->conf, cl, d->config_path ? d->config_path : "flags", &d->trigs, err,
			   sizeof(err)) < 0) {
		fprintf(stderr, "tracetapd: %s\n", err);
		return -1;
	}
	apply_flags(&d->conf.server, cl);
	if (!cl->target.probe && (cl->target.elf || cl->target.address || cl->ot.noargs)) {
		fprintf(stderr, "tracetapd: target options given without --probe SPEC\n");
		return -1;
	}
	if (cl->target.probe && !cl->target.name) {
		tt_opts_target_name(&cl->ot, cl->name, sizeof(cl->name));
		cl->target.name = cl->name;
	}
	if (!d->conf.ntargets && !cl->target.probe) {
		fprintf(stderr, "tracetapd: no target: give --probe SPEC or a --config file with "
				"targets (see --help)\n");
		return -1;
	}
	if (!!d->conf.server.tls_cert != !!d->conf.server.tls_key) {
		fprintf(stderr, "tracetapd: TLS needs both a certificate and a key\n");
		return -1;
	}
	return 0;
}

static int build_triggers(const struct tt_config *conf, const struct cli *cl, const char *file,
			  struct tt_trig_set *set, char *err, size_t errlen)
{
	return tt_trig_set_build(set, conf->triggers, file, cl->triggers, cl->ntriggers,
				 cl->capture_dir, err, errlen) < 0 ? -1 : 0;
}

/* Flags override the file, at start and on every reload. */
static const char *flag_probe(const struct cli *cl)
{
	return cl->target.probe;
}

static void apply_flags(struct tt_server_config *sc, const struct cli *cl)
{
	if (cl->listen)
		sc->listen = cl->listen;
	if (cl->port >= 0)
		sc->port = (int)cl->port;
	if (cl->token)
		sc->token = cl->token;
	if (cl->web)
		sc->web_dir = cl->web;
	if (cl->cert)
		sc->tls_cert = cl->cert;
	if (cl->key)
		sc->tls_key = cl->key;
	if (cl->norigins) {
		sc->origins = cl->origins;
		sc->norigins = cl->norigins;
	}
	if (cl->history) {
		sc->hub.history = cl->history;
		sc->hub.history_bytes = 0;
	}
	if (cl->max_clients)
		sc->max_clients = cl->max_clients;
	if (cl->max_exports)
		sc->max_exports = cl->max_exports;
	if (cl->nbenches) {
		sc->mqtt_benches = cl->benches;
		sc->nmqtt_benches = cl->nbenches;
	}
	if (cl->bench_targets)
		sc->mqtt_bench_targets = cl->bench_targets;
	const char **mqtt[] = { &sc->publish, &sc->mqtt_ca, &sc->mqtt_cert, &sc->mqtt_key };
	for (size_t i = 0; i < 4; i++)
		if (cl->mqtt[i])
			*mqtt[i] = cl->mqtt[i];
}

/* Each client is a descriptor: the soft limit goes up to the hard one (at most 65536) so that
 * max_clients fits; the server lowers max_clients if it still does not. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= 65536 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		tt_log(TT_LOG_WARNING, "cannot raise the descriptor limit: %s", strerror(errno));
}

static void init_loop(struct daemon *d)
{
	uv_loop_init(&d->loop);
	uv_signal_init(&d->loop, &d->sigint);
	uv_signal_init(&d->loop, &d->sigterm);
	uv_signal_init(&d->loop, &d->sighup);
	d->sigint.data = d->sigterm.data = d->sighup.data = d;
	uv_signal_start(&d->sigint, on_signal, SIGINT);
	uv_signal_start(&d->sigterm, on_signal, SIGTERM);
	uv_signal_start(&d->sighup, on_signal, SIGHUP);
	uv_check_init(&d->loop, &d->flush);
	if (d->to_stdout)
		uv_check_start(&d->flush, on_check);
	uv_timer_init(&d->loop, &d->status);
	d->status.data = d;
}

/* The file's targets, then the one from flags. -1 when one cannot be added, or when the only
 * target cannot start (the exit code says so). */
static int start_targets(struct daemon *d, const struct cli *cl)
{
	d->env = (struct tt_sup_env){ .loop = &d->loop, .hub = d->conf.server.hub,
				      .on_record = on_record, .on_state = on_state, .arg = d };
	for (size_t i = 0; i < d->conf.ntargets; i++) {
		int m = tt_fleet_probe(&d->fleet, &d->loop, d->srv, &d->conf.server,
				       &d->conf.targets[i]);
		if (m < 0 || (!m && !sup_add(d, &d->conf.targets[i])))
			return -1;
	}
	if (cl->target.probe) {
		int m = tt_fleet_probe(&d->fleet, &d->loop, d->srv, &d->conf.server, &cl->target);
		if (m < 0 || (!m && !sup_add(d, &cl->target)))
			return -1;
		if (!m)
			d->from_flags[d->nsups - 1] = true;
	}
	tt_fleet_started(&d->fleet, &d->conf.server);
	start_usb_watch(d);
	for (size_t i = 0; i < d->nsups; i++)
		if (tt_sup_start(d->sups[i]) < 0 && d->nsups == 1)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct daemon d;
	static struct cli cl;
	int rc;

	tt_log_init("tracetapd");
	rc = parse_args(argc, argv, &d, &cl);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (configure(&d, &cl) < 0)
		return 2;
	if (cl.check) {
		printf("%s: ok, %zu target(s), %zu trigger(s)\n",
		       d.config_path ? d.config_path : "flags", d.conf.ntargets + !!cl.target.probe,
		       d.trigs.n);
		tt_trig_set_free(&d.trigs);
		tt_config_free(&d.conf);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	d.cli = &cl;
	raise_fd_limit();
	init_loop(&d);
	if (tt_trig_new(&d.loop, &d.trigs, halt_target, &d, &d.trig) < 0) {
		fprintf(stderr, "tracetapd: out of memory\n");
		return 1;
	}

	if (!d.no_server && server_start(&d) < 0) {
		/* Nothing has started; libwebsockets may hold handles on the loop that only a
		 * full run could close: exit without the loop teardown. */
		tt_config_free(&d.conf);
		return 1;
	}
	/* --publish is checked before any target starts */
	if (tt_fleet_publish(&d.fleet, &d.loop, &d.conf.server, stats_of, &d) < 0) {
		tt_config_free(&d.conf);
		return 2;
	}
	int failed = start_targets(&d, &cl) < 0;
	if (failed) {
		shutdown_daemon(&d);
	} else {
		tt_notify_watchdog_start(&d.loop);
		uv_timer_start(&d.status, on_status_tick, 0, 1000);
		tt_notify_ready();
	}
	uv_run(&d.loop, UV_RUN_DEFAULT);
	server_free(&d);
	fflush(stdout);
	rc = uv_loop_close(&d.loop);
	tt_config_free(&d.conf);
	for (size_t i = 0; i < d.nsups; i++)
		tt_sup_free(d.sups[i]);
	if (rc) {
		tt_log(TT_LOG_ERR, "internal: loop closed with handles left: %s", uv_strerror(rc));
		return 1;
	}
	return failed ? 1 : 0;
}
