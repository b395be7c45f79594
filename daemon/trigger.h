/* daemon/trigger.h: triggers: conditions watched on each target's records and state, and what
 * happens when one holds (an `alert` message in the target's stream, a capture of the records
 * around it, optionally a halt of the core or a command).
 *
 * Two layers. The conditions (trigger_cond.c) are sans-I/O: a trigger's text is parsed into a
 * struct tt_trig_def and matched against records and state changes, so they are unit-tested
 * without a loop. The engine (trigger.c, trigger_capture.c) is a consumer of the targets' records
 * like the server and the MQTT publisher: tracetapd hands it every record with its seq and every
 * state change; it keeps the hold-off and count of each trigger per target, queues the alert to
 * the target's hub, writes captures into the capture directory, and runs the actions. With no
 * trigger configured it costs one test per record. Every engine function runs on the loop thread.
 *
 * Syntax (tracetapd(8), tracetapd.json(5)): `NAME: CONDITION [; OPTION...]`, for example
 * `boom: USER_EVENT id=0x1000 info1>=5; holdoff=2s limit=3 capture before=500 after=1s`.
 */
#ifndef TT_TRIGGER_H
#define TT_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../proto/record.h"

#define TT_TRIG_MAX 64          /* triggers at most (bounds /metrics' labels) */
#define TT_TRIG_MAX_PREDS 8
#define TT_TRIG_NAME_MAX 48     /* a trigger's name: [A-Za-z0-9_.-], 1 to 48 bytes */
#define TT_TRIG_TEXT_MAX 128    /* a predicate's string value, an event name */
#define TT_TRIG_COND_MAX 256    /* the condition as written */
#define TT_TRIG_MAX_ARGV 16     /* the command and its arguments */

enum tt_trig_kind {
	TT_TRIG_EVENT = 0, /* an event, by name or id, with predicates */
	TT_TRIG_GAP,       /* a gap record (events lost); predicate lost>=N allowed */
	TT_TRIG_RESET,     /* a reset record */
	TT_TRIG_HALT,      /* the target's state became `halted` */
	TT_TRIG_DISCONNECT,/* the target's state became `disconnected` */
	/* From the live analysis' statistics (struct tt_trig_sample, tt_trig_stats): */
	TT_TRIG_STACK,     /* stack free<N [thread=T]: a thread's free stack fell below N bytes */
	TT_TRIG_INVERSION, /* inversion [bad] [longer>TICKS]: a priority inversion was opened
			      (bad: a non-deterministic one: a less urgent thread ran meanwhile);
			      with longer: one has lasted longer than TICKS (open: its age by the
			      target's time stamps; closed: its duration), once per inversion */
	TT_TRIG_CPU,       /* cpu share>X [thread=T] [window=5s]: a thread's CPU share over the
			      window (percent) */
	TT_TRIG_IRQ,       /* irq max>N: an interrupt longer than N ticks (a new longest) */
	TT_TRIG_SYSCALL,   /* syscall max>N: a system call longer than N ticks (a new longest) */
	TT_TRIG_SILENT,    /* silent thread=T for=10s: no event from the thread for that long */
	TT_TRIG_NKINDS
};

enum tt_trig_op { TT_OP_EQ = 0, TT_OP_NE, TT_OP_LT, TT_OP_LE, TT_OP_GT, TT_OP_GE, TT_OP_HAS };

struct tt_trig_pred {
	char field[32];    /* id, thread, prio, ctx, core, text, lost, or an argument's name */
	uint8_t op;        /* enum tt_trig_op */
	bool is_num;       /* value parsed as a number (decimal or 0x hex) */
	uint64_t num;
	char str[TT_TRIG_TEXT_MAX];
};

struct tt_trig_def {
	char name[TT_TRIG_NAME_MAX + 1];
	char cond[TT_TRIG_COND_MAX];  /* the condition as written, for alerts and logs */
	char target[65];              /* only this target; "" = every target */
	uint8_t kind;                 /* enum tt_trig_kind */
	char event[TT_TRIG_TEXT_MAX]; /* TT_TRIG_EVENT: the event's name, "" = by id or any */
	bool by_id;
	uint32_t id;
	struct tt_trig_pred preds[TT_TRIG_MAX_PREDS];
	size_t npreds;
	uint64_t holdoff_ms;          /* default 1000: fires again only this long after */
	uint64_t limit;               /* fires at most this often per target; 0 = no limit */
	bool capture;
	uint64_t before_ms, before_records; /* the capture's window (one of each pair is set) */
	uint64_t after_ms, after_records;
	bool halt;                    /* halt the core through OpenOCD (off by default) */
	char command[TT_TRIG_MAX_ARGV][256]; /* run without a shell; command[0][0] == 0: none */
	size_t ncommand;
	uint64_t command_timeout_ms;  /* default 10000 */
};

/* Defaults of a def (no condition yet): hold-off 1 s, capture window 1000 records before and
 * 1 s after, command time limit 10 s. */
void tt_trig_def_init(struct tt_trig_def *d);

/* Parses `NAME: CONDITION [; OPTION...]` into d (initialised here). 0, or -EINVAL with a
 * message in err naming the part that is wrong ("holdoff: '5': expected a duration with a unit
 * (ms, s, m)"). */
int tt_trig_parse(const char *spec, struct tt_trig_def *d, char *err, size_t errlen);
/* The condition alone (`USER_EVENT id=4096 info1>=5`, `gap lost>=10`, `reset`, `halt`,
 * `disconnect`) into d->kind, event, id, preds and cond. 0 or -EINVAL with err. */
int tt_trig_parse_cond(const char *cond, struct tt_trig_def *d, char *err, size_t errlen);
/* One option (`holdoff`, `limit`, `target`, `capture`, `before`, `after`, `halt`,
 * `command`, `command_timeout`) set from its text value (NULL: a flag without value).
 * 0 or -EINVAL with err naming the option. */
int tt_trig_set_opt(struct tt_trig_def *d, const char *key, const char *value, char *err,
		    size_t errlen);
/* Checks a def as a whole (a name, a condition). 0 or -EINVAL with err. */
int tt_trig_check(const struct tt_trig_def *d, char *err, size_t errlen);

/* Whether record rec of target `target` fulfils d's condition (record kinds only). Pure. */
bool tt_trig_match(const struct tt_trig_def *d, const char *target, const struct tt_record *rec);

/* ---- statistics (the live analysis) ---- */

/* What the statistics conditions look at, one sample per target about once a second: the
 * daemon fills it from the target's live analysis (analysis/analysis.h). Borrowed for the call. */
struct tt_trig_thread_sample {
	const char *name;       /* NULL: unknown */
	uint32_t id;
	uint64_t ticks;         /* run time so far */
	uint64_t events;        /* events of the thread so far */
	int64_t stack_free;     /* bytes never used of its registered stack; -1: not known: the
				 * painted high-water mark read from RAM, or the traced stack
				 * pointers' when smaller or the only one */
	bool stack_painted;     /* stack_free is the painted figure */
};
/* A priority inversion the analysis keeps (analysis.h struct tt_analysis_inversion). */
enum { TT_TRIG_INV_OPEN = 0, TT_TRIG_INV_CLOSED, TT_TRIG_INV_CUT };
struct tt_trig_inv_sample {
	uint64_t number;        /* counted from 0 since the analysis began */
	bool deterministic;
	uint8_t state;          /* TT_TRIG_INV_*: its end not seen yet, seen, cut by a gap */
	uint32_t blocked, owner, mutex;
	uint64_t start_seq, end_seq; /* end_seq: closed only */
	uint64_t ticks;         /* its duration; open: its age so far; cut: a lower bound */
};
struct tt_trig_sample {
	uint64_t span_ticks;    /* time covered so far (first to last event) */
	uint64_t inversions;    /* priority inversions opened so far */
	const struct tt_trig_inv_sample *inv; /* the newest ones, oldest first, numbers
						 consecutive (ninv of them) */
	size_t ninv;
	uint64_t bad_inversions; /* ... non-deterministic ones (a less urgent thread ran meanwhile) */
	uint64_t irq_max;       /* the longest interrupt so far (ticks), its number */
	uint32_t irq_nr;
	uint64_t call_max;      /* the longest system call so far (ticks), its name ("" unknown) */
	const char *call_name;
	const struct tt_trig_thread_sample *threads;
	size_t nthreads;
};

/* Per trigger and target: what a statistics condition remembers between samples. */
struct tt_trig_stat_state {
	bool primed;
	uint64_t ms, a, b;      /* the window's start (ms) and what it began with */
	uint64_t mask;          /* inversion longer: which of the 64 from number a fired */
};

/* Whether statistics condition d holds at sample s, taken at loop time now_ms (state st is
 * updated); why gets a description ("thread sensor: 212 bytes of stack free"). Pure. */
bool tt_trig_stat_match(const struct tt_trig_def *d, const struct tt_trig_sample *s,
			uint64_t now_ms, struct tt_trig_stat_state *st, char *why, size_t whylen);
/* Whether d is a statistics condition (matched on samples, not on records). */
bool tt_trig_is_stat(const struct tt_trig_def *d);

/* ---- a set of triggers, from the configuration file and the command line ---- */

struct tt_trig_set {
	struct tt_trig_def *defs;     /* caller frees with tt_trig_set_free */
	size_t n;
	char capture_dir[512];        /* "" = no captures (a trigger with capture is refused) */
	uint64_t capture_max_bytes;   /* default 256 MiB: oldest captures removed beyond */
	uint64_t capture_max_files;   /* default 100 */
};

void tt_trig_set_init(struct tt_trig_set *s);
void tt_trig_set_free(struct tt_trig_set *s);
/* Adds d (copied). -ENOSPC past TT_TRIG_MAX, -EEXIST for a name already in the set,
 * -ENOMEM; err says which. */
int tt_trig_set_add(struct tt_trig_set *s, const struct tt_trig_def *d, char *err, size_t errlen);
/* The configuration file's `triggers`, `capture_dir`, `capture_max_bytes`, `capture_max_files`
 * (json: a cJSON object holding only those keys, borrowed; NULL = none) into s. file names the
 * file in messages: "tracetapd.json: triggers[1] (boom): holdoff: ...". 0 or -EINVAL. */
int tt_trig_set_from_json(struct tt_trig_set *s, const void *json, const char *file, char *err,
			  size_t errlen);
/* The whole set checked: captures need capture_dir. 0 or -EINVAL with err. */
int tt_trig_set_check(const struct tt_trig_set *s, char *err, size_t errlen);
/* The daemon's set: the file's (json as for tt_trig_set_from_json), then the --trigger texts
 * (flags[0..nflags), borrowed), capture_dir (--capture-dir, NULL: the file's) over the file's,
 * checked. s is initialised here; on error it is left empty. 0 or -EINVAL/-ENOMEM with err
 * ("--trigger: trigger x: ..."). */
int tt_trig_set_build(struct tt_trig_set *s, const void *json, const char *file,
		      const char *const *flags, size_t nflags, const char *capture_dir, char *err,
		      size_t errlen);

/* ---- the alert message ---- */

/* An `alert` message's fields (proto/PROTOCOL.md), borrowed. detail, capture: NULL = absent;
 * remote: a central daemon passing on a bench's alert. */
struct tt_trig_alert {
	const char *target, *trigger, *condition, *detail, *capture, *time;
	uint64_t seq, count;
	bool halt, remote;
};
/* The message as JSON into buf (strings escaped, each cut to its bound: trigger 48 bytes,
 * condition 255, detail 300, capture 200, time 64): its length, or -1 when it does not fit. */
int tt_trig_alert_json(char *buf, size_t cap, const struct tt_trig_alert *a);

/* ---- the engine ---- */

struct tt_hub;
struct tt_trig;
struct uv_loop_s;

/* What the engine asks of the daemon for the halt action: halt target's core (through its
 * probe, OpenOCD). 0 or -errno (-ENOTSUP: the probe cannot halt). */
typedef int (*tt_trig_halt_fn)(void *arg, const char *target, char *err, size_t errlen);

/* Creates the engine with set (moved in: s is left empty). Returns 0 or -ENOMEM. */
int tt_trig_new(struct uv_loop_s *loop, struct tt_trig_set *set, tt_trig_halt_fn halt,
		void *halt_arg, struct tt_trig **out);
/* Replaces the triggers (SIGHUP; moved in). Per-target counts and hold-offs of triggers kept
 * by name carry over; open captures finish with their old window. */
void tt_trig_reload(struct tt_trig *t, struct tt_trig_set *set);
/* Whether any trigger is configured (the caller may skip tt_trig_record when not). */
bool tt_trig_active(const struct tt_trig *t);
/* Every record of hub's target, with the seq the hub gave it (after tt_hub_publish). */
void tt_trig_record(struct tt_trig *t, struct tt_hub *hub, uint64_t seq,
		    const struct tt_record *rec);
/* A statistics sample of hub's target (about once a second; tt_trig_sample). */
void tt_trig_stats(struct tt_trig *t, struct tt_hub *hub, const struct tt_trig_sample *s);
/* Whether a statistics condition is configured (the daemon samples only then). */
bool tt_trig_wants_stats(const struct tt_trig *t);
/* tt_trig_stats with the sample taken from hub's target's live analysis a (borrowed; NULL:
 * nothing yet, nothing done). trigger_sample.c. */
struct tt_analysis;
void tt_trig_sample_analysis(struct tt_trig *t, struct tt_hub *hub, const struct tt_analysis *a);
/* The target's state changed (enum tt_target_state), message borrowed for the call. */
void tt_trig_state(struct tt_trig *t, struct tt_hub *hub, int state, const char *message);
/* /metrics lines: tracetap_trigger_fired_total{trigger="NAME"} per trigger, captures
 * written and removed; through put (returns 0 or -errno). */
void tt_trig_metrics(const struct tt_trig *t, int (*put)(void *arg, const void *buf, size_t len),
		     void *arg);
/* GET /api/captures (list) and /api/captures/NAME/FILE (a file of a capture): writes the body
 * through put, sets *type; returns the HTTP status, 0 when uri is not /api/captures... */
int tt_trig_http(const struct tt_trig *t, const char *uri,
		 int (*put)(void *arg, const void *buf, size_t len), void *arg,
		 const char **type, char *disp, size_t dcap);
/* Finishes open captures (what they hold so far, marked cut short), stops timers and commands;
 * frees t once its handles are closed (run the loop). */
void tt_trig_stop(struct tt_trig *t);

#endif
