/* daemon/supervisor.h: one target as the daemon runs it: its probe and reader (daemon/target.h),
 * its hub (records numbered once, history kept across restarts), and the restarts that a
 * reload or a probe's hot-plug asks for.
 *
 * Consumers attach to tt_sup_hub: the server with tt_server_attach_hub, others with
 * tt_hub_client_new; the supervisor flushes the hub. env->on_record sees every record with its
 * seq (--stdout, triggers), env->on_state every state change (triggers). Every function runs on the loop thread.
 */
#ifndef TT_SUPERVISOR_H
#define TT_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "hub.h"
#include "target.h"

struct tt_sup;

/* What every supervisor shares; owned by the daemon, outlives its supervisors. */
struct tt_sup_env {
	uv_loop_t *loop;
	struct tt_hub_config hub;   /* history and queue limits of each new hub */
	void (*on_record)(struct tt_sup *s, uint64_t seq, const struct tt_record *rec, void *arg);
	void *arg;                  /* for on_record and on_state; may be NULL */
	/* The target's state changed (st borrowed for the call; the trigger engine); may be NULL */
	void (*on_state)(struct tt_sup *s, const struct tt_target_status *st, void *arg);
	bool usb;                   /* a hot-plug watcher runs: a bound target waits for its probe */
	bool stopping;              /* the daemon is shutting down: no restarts */
};

/* Creates the supervisor of target cfg (copied) and its hub, without starting it. Returns 0,
 * -ENOMEM or -EINVAL (from tt_hub_new). */
int tt_sup_new(const struct tt_sup_env *env, const struct tt_target_config *cfg,
	       struct tt_sup **out);
/* Starts the target with its configuration; an error is logged and shown as its status.
 * Returns 0 or the -errno of tt_target_start. */
int tt_sup_start(struct tt_sup *s);
/* Reload: want == NULL stops the target (removed from the configuration); a changed want
 * restarts it; an unchanged one leaves it streaming. want is copied. */
void tt_sup_reload(struct tt_sup *s, const struct tt_target_config *want);
/* The target's probe with this serial arrived or left: start or stop it. */
void tt_sup_probe(struct tt_sup *s, bool arrived, const char *serial, const char *model);
/* Stops the target for good and closes the supervisor's handles (shutdown). */
void tt_sup_stop(struct tt_sup *s);
/* After the loop ended and every consumer let go of the hub. NULL is ignored. */
void tt_sup_free(struct tt_sup *s);

/* Halts the target's core (tt_target_halt). -ENOTCONN while the target is not running. */
int tt_sup_halt(struct tt_sup *s, const char *by);

const char *tt_sup_name(const struct tt_sup *s);
/* The serial the target's OpenOCD arguments bind it to, or "". */
const char *tt_sup_serial(const struct tt_sup *s);
struct tt_hub *tt_sup_hub(const struct tt_sup *s);
/* The target's live analysis (daemon/stats.h), its registered threads refreshed from the running
 * reader; borrowed. */
struct tt_stats;
struct tt_stats *tt_sup_stats(struct tt_sup *s);
/* The target's status, or what clients see while it is not running; borrowed. */
const struct tt_target_status *tt_sup_status(const struct tt_sup *s);

#endif
