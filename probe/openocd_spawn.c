/* probe/openocd_spawn.c: the openocd-spawn half of probe/openocd.c. An OpenOCD started as a
 * child with `tcl_port pipe`: the RPC runs over its stdin/stdout (openocd.c), its stderr goes to
 * the log file and a small tail kept for error messages, and it is stopped by closing its stdin,
 * then SIGTERM, then SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "openocd_int.h"

#define OCD_GRACE_MS 2000   /* stdin closed -> SIGTERM -> SIGKILL */
#define OCD_TAIL 2048       /* bytes of OpenOCD's stderr kept for error messages */

/* The spawned OpenOCD: what only this file sees of an openocd-spawn probe. */
struct ocd_child {
	char **argv;              /* full argv, owned */
	int log_fd;               /* --openocd-log, or -1 */
	uv_process_t proc;
	uv_pipe_t in, out, err;   /* in/out: the RPC (openocd.c); err: the log and tail */
	int exited, out_eof, err_eof, in_closed, kill_stage;
	int64_t exit_status;
	int term_signal;
	char tail[OCD_TAIL];
	size_t tail_len;
};

struct ocd_spawn_probe {
	struct ocd o;             /* first: the probe framework allocates ops.size */
	struct ocd_child child;
};

static void ocd_grace_cb(uv_timer_t *t);

/* Spawned OpenOCD: stdin closed makes it exit; the grace timer escalates if it does not. */
void ocd_spawn_stop(struct ocd *o)
{
	if (!o->child->in_closed) {
		o->child->in_closed = 1;
		ocd_close_link_handle(o, (uv_handle_t *)&o->child->in);
	}
	if (!o->child->exited && !uv_is_active((uv_handle_t *)&o->grace))
		uv_timer_start(&o->grace, ocd_grace_cb, OCD_GRACE_MS, 0);
}

/* Keeps the end of OpenOCD's stderr for error messages and appends it to the log file. */
static void ocd_log(struct ocd *o, const char *d, size_t n)
{
	if (o->child->log_fd >= 0) {
		for (size_t off = 0; off < n;) {
			ssize_t k = write(o->child->log_fd, d + off, n - off);
			if (k <= 0)
				break; /* a full disk must not stop tracing */
			off += (size_t)k;
		}
	}
	if (n >= OCD_TAIL) {
		memcpy(o->child->tail, d + n - OCD_TAIL, OCD_TAIL);
		o->child->tail_len = OCD_TAIL;
		return;
	}
	if (o->child->tail_len + n > OCD_TAIL) {
		size_t drop = o->child->tail_len + n - OCD_TAIL;
		memmove(o->child->tail, o->child->tail + drop, o->child->tail_len - drop);
		o->child->tail_len -= drop;
	}
	memcpy(o->child->tail + o->child->tail_len, d, n);
	o->child->tail_len += n;
}

/* The most telling line of the stderr tail: the last "Error" line ("" when none: the rest of
 * the log is chatter and echoed RPC results). */
static void ocd_tail_reason(struct ocd *o, char *out, size_t outlen)
{
	const char *best = NULL, *last;
	size_t best_n = 0, last_n;

	for (size_t i = 0; i < o->child->tail_len;) {
		size_t e = i;
		while (e < o->child->tail_len && o->child->tail[e] != '\n')
			e++;
		if (e > i) {
			last = o->child->tail + i;
			last_n = e - i;
			if (memmem(last, last_n, "Error", 5) != NULL) {
				best = last;
				best_n = last_n;
			}
		}
		i = e + 1;
	}
	tt_probe__quote(out, outlen, best ? best : "", best_n, 150);
}

static void ocd_child_check(struct ocd *o)
{
	char why[200], st[64];

	if (!o->child->exited || !o->child->out_eof || !o->child->err_eof)
		return;
	if (o->child->term_signal)
		snprintf(st, sizeof(st), "was killed by signal %d", o->child->term_signal);
	else
		snprintf(st, sizeof(st), "exited with status %" PRId64, o->child->exit_status);
	ocd_tail_reason(o, why, sizeof(why));
	ocd_fail(o, -ENOTCONN, "OpenOCD %s%s%s (run openocd with the same -f/-c arguments to "
		 "see why; --openocd-log FILE keeps its output)", st, why[0] ? ": " : "", why);
	ocd_spawn_stop(o);
	uv_timer_stop(&o->grace);
	ocd_close_link_handle(o, (uv_handle_t *)&o->child->out);
	ocd_close_link_handle(o, (uv_handle_t *)&o->child->err);
	ocd_close_link_handle(o, (uv_handle_t *)&o->child->proc);
}

void ocd_spawn_out_eof(struct ocd *o)
{
	o->child->out_eof = 1;
	ocd_child_check(o);
}

static void ocd_err_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
	struct ocd *o = s->data;

	if (nread > 0) {
		ocd_log(o, b->base, (size_t)nread);
	} else if (nread < 0) {
		uv_read_stop(s);
		o->child->err_eof = 1;
		ocd_child_check(o);
	}
}

int ocd_spawn_pid(const struct ocd *o)
{
	return o->child->proc.pid;
}

void ocd_spawn_free(struct ocd *o)
{
	for (char **a = o->child->argv; a && *a; a++)
		free(*a);
	free(o->child->argv);
	if (o->child->log_fd >= 0)
		close(o->child->log_fd);
}

static void ocd_exit_cb(uv_process_t *pr, int64_t status, int sig)
{
	struct ocd *o = pr->data;

	o->child->exited = 1;
	o->child->exit_status = status;
	o->child->term_signal = sig;
	ocd_child_check(o);
}

void ocd_spawn_start(struct ocd *o)
{
	uv_stdio_container_t stdio[3];
	uv_process_options_t po = { 0 };
	uv_pipe_t *p[3] = { &o->child->in, &o->child->out, &o->child->err };
	int r;

	o->child->exited = o->child->out_eof = o->child->err_eof = o->child->in_closed = o->child->kill_stage = 0;
	o->child->tail_len = 0;
	for (int i = 0; i < 3; i++) {
		uv_pipe_init(o->base.loop, p[i], 0);
		p[i]->data = o;
		stdio[i].flags = UV_CREATE_PIPE | (i ? UV_WRITABLE_PIPE : UV_READABLE_PIPE);
		stdio[i].data.stream = (uv_stream_t *)p[i];
	}
	o->child->proc.data = o;
	o->nlink = 4;
	po.file = o->child->argv[0];
	po.args = o->child->argv;
	po.exit_cb = ocd_exit_cb;
	po.stdio = stdio;
	po.stdio_count = 3;
	r = uv_spawn(o->base.loop, &o->child->proc, &po);
	if (r < 0) {
		o->child->exited = o->child->out_eof = o->child->err_eof = 1;
		o->child->proc.data = o;
		ocd_fail(o, -ENOTCONN, "cannot run %s: %s", o->child->argv[0], uv_strerror(r));
		ocd_child_check(o);
		ocd_close_link_handle(o, (uv_handle_t *)&o->child->out);
		ocd_close_link_handle(o, (uv_handle_t *)&o->child->err);
		ocd_close_link_handle(o, (uv_handle_t *)&o->child->proc);
		return;
	}
	uv_read_start((uv_stream_t *)&o->child->out, ocd_alloc, ocd_read_cb);
	uv_read_start((uv_stream_t *)&o->child->err, ocd_alloc, ocd_err_cb);
	ocd_begin_rpc(o, (uv_stream_t *)&o->child->in);
}

static void ocd_grace_cb(uv_timer_t *t)
{
	struct ocd *o = t->data;

	if (o->child->exited)
		return;
	uv_process_kill(&o->child->proc, o->child->kill_stage++ == 0 ? SIGTERM : SIGKILL);
	uv_timer_start(&o->grace, ocd_grace_cb, OCD_GRACE_MS, 0);
}

/* Whether prog can be run (a path, or a name found in PATH): checked at open so that a missing
 * OpenOCD is an immediate, clear error rather than a retry loop. */
static int ocd_find_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	for (const char *s = path ? path : "/usr/bin:/bin"; *s;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, s, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		s += n + (e != NULL);
	}
	return 0;
}

static const char *const ocd_own_args[] = {
	"-c", "tcl_port pipe", "-c", "gdb_port disabled", "-c", "telnet_port disabled",
};

static int ocd_spawn_open(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt)
{
	struct ocd *o = (struct ocd *)p;
	const char *bin = opt->openocd_bin ? opt->openocd_bin : "openocd";
	size_t nuser = 0, nown = sizeof(ocd_own_args) / sizeof(ocd_own_args[0]), k = 0;

	if (!ocd_find_program(bin)) {
		tt_probe__seterr(p, "openocd-spawn: cannot run \"%s\": not found or not executable "
				 "(install OpenOCD or set its path)", bin);
		return -ENOENT;
	}
	while (opt->openocd_args && opt->openocd_args[nuser])
		nuser++;
	if (ocd_alloc_buffers(o, opt) < 0)
		return -ENOMEM;
	o->child = &((struct ocd_spawn_probe *)p)->child;
	o->child->log_fd = -1;
	if (opt->openocd_log) {
		o->child->log_fd = open(opt->openocd_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
					0644);
		if (o->child->log_fd < 0) {
			int e = errno;
			tt_probe__seterr(p, "openocd-spawn: cannot open log %s: %s", opt->openocd_log,
					 strerror(e));
			free(o->scratch);
			free(o->cmd);
			return -e;
		}
	}
	/* The user's -f/-c first (their config may set ports too); ours after so they win.
	 * OpenOCD runs `init` after the last argument. */
	o->child->argv = calloc(1 + nuser + nown + 1, sizeof(char *));
	if (o->child->argv == NULL)
		goto fail_argv;
	if ((o->child->argv[k++] = strdup(bin)) == NULL)
		goto fail_argv;
	for (size_t i = 0; i < nuser; i++)
		if ((o->child->argv[k++] = strdup(opt->openocd_args[i])) == NULL)
			goto fail_argv;
	for (size_t i = 0; i < nown; i++)
		if ((o->child->argv[k++] = strdup(ocd_own_args[i])) == NULL)
			goto fail_argv;
	snprintf(o->name, sizeof(o->name), "openocd-spawn");
	ocd_init(o, opt);
	ocd_link_start(o);
	return 0;
fail_argv:
	ocd_spawn_free(o);
	free(o->scratch);
	free(o->cmd);
	return -ENOMEM;
}

/* Only for an OpenOCD we own: stop it and start a new one (through the usual reconnect path,
 * with its backoff). */
static void ocd_relink(struct tt_probe *p, const char *why)
{
	struct ocd *o = (struct ocd *)p;

	if (o->link == LINK_UP)
		ocd_fail(o, -ENOTCONN, "restarting OpenOCD: %s", why);
}

const struct tt_probe_ops tt_probe_openocd_spawn_ops = {
	.name = "openocd-spawn",
	.ptr_ranges = true,
	.size = sizeof(struct ocd_spawn_probe),
	.open = ocd_spawn_open,
	.read = ocd_read,
	.write = ocd_write,
	.halt = ocd_halt,
	.close = ocd_close,
	.relink = ocd_relink,
};
