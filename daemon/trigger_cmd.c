/* daemon/trigger_cmd.c: a trigger's command (trigger.h): run without a shell (the program by
 * its absolute path, the arguments as configured), with TT_TRIGGER, TT_TARGET, TT_SEQ and
 * TT_CAPTURE in a small environment of its own, its output discarded, killed when it outlives
 * its time limit. At most TRIG_COMMANDS run at once; more are skipped and logged.
 */
#include "trigger_int.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct cmd {
	struct cmd *next, **pprev; /* in t->cmds while the process runs */
	uv_process_t proc;
	uv_timer_t limit;
	struct tt_trig *t;
	char trigger[TT_TRIG_NAME_MAX + 1];
	int open;          /* handles not yet closed */
	bool killed;
};

static void cmd_closed(uv_handle_t *h)
{
	struct cmd *c = h->data;
	struct tt_trig *t = c->t;

	if (--c->open)
		return;
	free(c);
	t->running--;
	trig_handle_gone(t);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct cmd *c = p->data;

	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	if (c->killed)
		tt_log(TT_LOG_WARNING, "trigger %s: command killed: %s", c->trigger,
		       c->t->stopping ? "the daemon stops" : "over its time limit");
	else if (status || sig)
		tt_log(TT_LOG_WARNING, "trigger %s: command %s %d", c->trigger,
		       sig ? "ended by signal" : "exited with status", sig ? sig : (int)status);
	else
		tt_log(TT_LOG_INFO, "trigger %s: command done", c->trigger);
	if (status || sig)
		c->t->command_errors++;
	uv_close((uv_handle_t *)&c->proc, cmd_closed);
	uv_close((uv_handle_t *)&c->limit, cmd_closed);
}

static void on_limit(uv_timer_t *h)
{
	struct cmd *c = h->data;

	c->killed = true;
	uv_process_kill(&c->proc, SIGKILL);
}

void trig_command(struct tt_trig *t, const struct tt_trig_def *d, const char *target,
		  uint64_t seq, const char *capture)
{
	char *args[TT_TRIG_MAX_ARGV + 1], env[5][1200];
	char *envp[] = { env[0], env[1], env[2], env[3], env[4], NULL };
	struct cmd *c;
	int rc;

	if (t->stopping)
		return;
	if (t->running >= TRIG_COMMANDS) {
		tt_log(TT_LOG_WARNING, "trigger %s: command not run: %d commands still running",
		       d->name, TRIG_COMMANDS);
		t->command_errors++;
		return;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return;
	for (size_t i = 0; i < d->ncommand; i++)
		args[i] = (char *)d->command[i];
	args[d->ncommand] = NULL;
	snprintf(env[0], sizeof(env[0]), "TT_TRIGGER=%s", d->name);
	snprintf(env[1], sizeof(env[1]), "TT_TARGET=%s", target);
	snprintf(env[2], sizeof(env[2]), "TT_SEQ=%" PRIu64, seq);
	snprintf(env[3], sizeof(env[3]), "TT_CAPTURE=%s", capture);
	snprintf(env[4], sizeof(env[4]), "PATH=/usr/local/bin:/usr/bin:/bin");
	uv_process_options_t o = { .exit_cb = on_exit_cb, .file = args[0], .args = args,
				   .env = envp };
	c->t = t;
	snprintf(c->trigger, sizeof(c->trigger), "%s", d->name);
	c->proc.data = c->limit.data = c;
	if ((rc = uv_spawn(t->loop, &c->proc, &o)) < 0) {
		tt_log(TT_LOG_ERR, "trigger %s: command %s: %s", d->name, args[0], uv_strerror(rc));
		t->command_errors++;
		c->open = 1;
		t->running++;
		t->handles++;
		uv_close((uv_handle_t *)&c->proc, cmd_closed);
		return;
	}
	t->commands++;
	t->running++;
	t->handles++;
	c->open = 2;
	c->next = t->cmds;
	c->pprev = &t->cmds;
	if (t->cmds)
		t->cmds->pprev = &c->next;
	t->cmds = c;
	uv_timer_init(t->loop, &c->limit);
	uv_timer_start(&c->limit, on_limit, d->command_timeout_ms, 0);
	tt_log(TT_LOG_INFO, "trigger %s: running %s", d->name, args[0]);
}

void trig_commands_kill(struct tt_trig *t)
{
	for (struct cmd *c = t->cmds; c; c = c->next) {
		c->killed = true;
		uv_process_kill(&c->proc, SIGKILL);
	}
}
