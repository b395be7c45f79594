/* daemon/tracetapd.c: the daemon's main: options, the libuv loop, targets, signals.
 *
 * One loop owns everything: target pollers, and (when built with libwebsockets) the HTTP and
 * WebSocket server joined to the same loop. `--stdout` prints every record as one JSON line
 * (proto/PROTOCOL.md) for scripts and pipes. SIGINT/SIGTERM stop polling, close clients and let
 * the loop drain; the process exits 0 with every handle closed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../proto/json.h"
#include "log.h"
#include "opts.h"
#include "target.h"
#include "tt_config.h"

struct daemon {
	uv_loop_t loop;
	uv_signal_t sigint, sigterm;
	uv_check_t flush; /* --stdout: flush once per loop iteration, so pipes see records live */
	struct tt_target *target;
	int to_stdout;
	int stopping;
	int exit_code;
};

static void on_record(struct tt_target *t, const struct tt_record *rec, void *arg)
{
	struct daemon *d = arg;
	char buf[TT_JSON_MAX_RECORD];
	static uint64_t seq;

	if (!d->to_stdout)
		return;
	int n = tt_json_record(buf, sizeof(buf) - 1, rec, tt_target_name(t), ++seq);
	if (n < 0)
		return;
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, stdout);
}

static void on_status(struct tt_target *t, void *arg)
{
	const struct tt_target_status *st = tt_target_status(t);

	tt_log(st->state == TT_TARGET_CONNECTED ? TT_LOG_INFO : TT_LOG_NOTICE,
	       "target %s: %s: %s", tt_target_name(t), tt_target_state_name(st->state),
	       st->message);
	fflush(stdout);
}

static void on_signal(uv_signal_t *h, int signum)
{
	struct daemon *d = h->data;

	if (d->stopping)
		return;
	d->stopping = 1;
	tt_log(TT_LOG_NOTICE, "%s: stopping", strsignal(signum));
	if (d->target)
		tt_target_stop(d->target, NULL, NULL);
	d->target = NULL;
	uv_close((uv_handle_t *)&d->sigint, NULL);
	uv_close((uv_handle_t *)&d->sigterm, NULL);
	uv_close((uv_handle_t *)&d->flush, NULL);
}

static void on_check(uv_check_t *h)
{
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tracetapd [options]\n"
		"Follow an RTOS trace buffer in a running target and stream its events.\n\n"
		"Target:\n"
		"  --probe SPEC          file:PATH | process:PID | openocd:HOST:PORT | openocd-spawn\n"
		"  -f FILE, -c CMD       openocd-spawn: OpenOCD configuration files and commands\n"
		"  --openocd-log FILE    where a spawned OpenOCD logs (default: discarded)\n"
		"  --name NAME           target name (default: target)\n"
		"%s"
		"Output:\n"
		"  --stdout              print every record as a JSON line on stdout\n"
		"  --log-level LEVEL     err, warning, notice, info (default), debug\n"
		"  --version, --help\n",
		tt_opts_target_help);
}

int main(int argc, char **argv)
{
	struct daemon d = { .exit_code = 0 };
	struct tt_target_config cfg = { 0 };
	struct tt_opts_target ot;
	char err[512];
	int rc;

	tt_log_init("tracetapd");
	tt_opts_target_init(&ot, &cfg);
	enum { O_PROBE = 1000, O_NAME, O_STDOUT, O_LOGLEVEL, O_OLOG, O_VERSION, O_HELP };
	static const struct option base[] = {
		{ "probe", required_argument, NULL, O_PROBE },
		{ "name", required_argument, NULL, O_NAME },
		{ "stdout", no_argument, NULL, O_STDOUT },
		{ "log-level", required_argument, NULL, O_LOGLEVEL },
		{ "openocd-log", required_argument, NULL, O_OLOG },
		{ "version", no_argument, NULL, O_VERSION },
		{ "help", no_argument, NULL, O_HELP },
	};
	struct option longopts[64];
	size_t nb = sizeof(base) / sizeof(base[0]);
	memcpy(longopts, base, sizeof(base));
	tt_opts_target_longopts(longopts + nb, sizeof(longopts) / sizeof(longopts[0]) - nb);

	int c;
	while ((c = getopt_long(argc, argv, "f:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_PROBE: cfg.probe = optarg; break;
		case O_NAME: cfg.name = optarg; break;
		case O_STDOUT: d.to_stdout = 1; break;
		case O_OLOG: cfg.openocd_log = optarg; break;
		case O_LOGLEVEL:
			if ((tt_log_level = tt_log_parse_level(optarg)) < 0) {
				fprintf(stderr, "tracetapd: --log-level %s: expected err, warning, "
						"notice, info or debug\n", optarg);
				return 2;
			}
			break;
		case O_VERSION: printf("tracetapd %s\n", TT_VERSION); return 0;
		case 'h':
		case O_HELP: usage(stdout); return 0;
		case 'f':
		case 'c':
			if (tt_opts_openocd_arg(&ot, c, optarg) < 0) {
				fprintf(stderr, "tracetapd: too many -f/-c arguments\n");
				return 2;
			}
			break;
		default:
			rc = tt_opts_target_parse(&ot, c, optarg, err, sizeof(err));
			if (rc == 1) {
				usage(stderr);
				return 2;
			}
			if (rc < 0) {
				fprintf(stderr, "tracetapd: %s\n", err);
				return 2;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tracetapd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!cfg.probe) {
		fprintf(stderr, "tracetapd: no target: give --probe SPEC (see --help)\n");
		return 2;
	}
	if (!d.to_stdout && !TT_HAVE_LWS) {
		fprintf(stderr, "tracetapd: built without libwebsockets: only --stdout is available\n");
		return 2;
	}

	uv_loop_init(&d.loop);
	uv_signal_init(&d.loop, &d.sigint);
	uv_signal_init(&d.loop, &d.sigterm);
	d.sigint.data = d.sigterm.data = &d;
	uv_signal_start(&d.sigint, on_signal, SIGINT);
	uv_signal_start(&d.sigterm, on_signal, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	uv_check_init(&d.loop, &d.flush);
	if (d.to_stdout)
		uv_check_start(&d.flush, on_check);

	rc = tt_target_start(&d.loop, &cfg, on_record, on_status, &d, &d.target, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "tracetapd: %s\n", err);
		d.exit_code = 1;
		uv_close((uv_handle_t *)&d.sigint, NULL);
		uv_close((uv_handle_t *)&d.sigterm, NULL);
		uv_close((uv_handle_t *)&d.flush, NULL);
	}
	uv_run(&d.loop, UV_RUN_DEFAULT);
	fflush(stdout);
	rc = uv_loop_close(&d.loop);
	if (rc) {
		tt_log(TT_LOG_ERR, "internal: loop closed with handles left: %s", uv_strerror(rc));
		return 1;
	}
	return d.exit_code;
}
