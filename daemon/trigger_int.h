/* daemon/trigger_int.h: what the trigger engine's files share (not part of trigger.h). */
#ifndef TT_TRIGGER_INT_H
#define TT_TRIGGER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "trigger.h"

#define TRIG_TARGETS 128   /* targets the engine tracks (local and remote) */
#define TRIG_SAMPLES 1024  /* (seq, time) samples per target: where "2 s before" starts */
#define TRIG_COMMANDS 4    /* commands running at once; more are skipped, said in the log */

/* One trigger on one target. */
struct trig_count {
	uint64_t fired;
	uint64_t last_ms;  /* loop time of the last firing */
	bool ever;
	struct tt_trig_stat_state stat; /* a statistics condition's memory */
};

struct trig_cap;
struct cmd;

/* One target as the engine sees it; lives as long as the engine. */
struct trig_tgt {
	struct tt_hub *hub;
	int state;                           /* last enum tt_target_state seen, -1 before */
	uint64_t last_seq;                   /* newest seq seen */
	struct trig_count count[TT_TRIG_MAX]; /* by the set's index */
	struct { uint64_t seq, ms; } samples[TRIG_SAMPLES]; /* ring, a sample per loop ms */
	size_t nsamples, head;
	struct trig_cap *caps;               /* captures whose window is open */
};

struct tt_trig {
	uv_loop_t *loop;
	struct tt_trig_set set;
	uint64_t fired[TT_TRIG_MAX];         /* by the set's index, every target together */
	uint64_t held_off, limited;          /* firings suppressed by a hold-off / a limit */
	uint64_t captures, removed, capture_errors, commands, command_errors, halts, halt_errors;
	struct trig_tgt *tgts[TRIG_TARGETS];
	size_t ntgts;
	uv_timer_t timer;                    /* closes capture windows by time, while any is open */
	bool timer_on, stopping;
	uint64_t sample_ms;                  /* time between samples: the longest before / 512 */
	size_t ncaps;                        /* open captures, every target */
	unsigned running;                    /* commands running */
	struct cmd *cmds;                    /* ... their list (trigger_cmd.c), killed at stop */
	unsigned handles;                    /* open handles (timer, commands): freed at 0 */
	tt_trig_halt_fn halt;
	void *halt_arg;
};

/* trigger_capture.c */
/* Opens a capture of g's records around seq for trigger d (the records before it are fed from
 * the hub's history now; later ones by trig_cap_record). Errors are logged and counted. */
void trig_cap_open(struct tt_trig *t, struct trig_tgt *g, const struct tt_trig_def *d,
		   uint64_t seq, char *name, size_t cap);
/* Feeds seq (just published on g's hub) to g's open captures, closing those it completes. */
void trig_cap_record(struct tt_trig *t, struct trig_tgt *g, uint64_t seq);
/* Closes g's captures whose time window has passed (all of them when force: cut short). */
void trig_cap_tick(struct tt_trig *t, struct trig_tgt *g, bool force);
/* A handle of t's (timer, command) closed: frees t after the last once stopping. */
void trig_handle_gone(struct tt_trig *t);
/* Kills the commands still running (the daemon stops). */
void trig_commands_kill(struct tt_trig *t);
/* Runs d's command with the capture's path (or "") in its environment. */
void trig_command(struct tt_trig *t, const struct tt_trig_def *d, const char *target,
		  uint64_t seq, const char *capture);

#endif
