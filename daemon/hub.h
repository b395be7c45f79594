/* daemon/hub.h: per-target fan-out of records to clients, without any network code.
 *
 * One hub per target. tt_hub_publish numbers each record (seq 1, 2, 3, ...; tt_hub_publish_at keeps a remote
 * origin's numbering, its skipped seqs a hole that counts as nothing), encodes it once
 * and keeps it in a bounded history (record and byte limits, oldest evicted first). tt_hub_flush
 * (its owner calls it once per loop iteration) sends what was published since the last flush
 * as one shared `events` frame, or a per-client frame for filtered clients.
 *
 * Each client has a bounded queue: when a frame does not fit, the client's queued events frames
 * become one `gap` message (reason "slow client", the exact seq range), so a slow client never
 * slows the publisher or other clients. Resume and "newest N" are fed from the history as the
 * queue drains; what the history no longer holds becomes a `gap` with reason "history". Every
 * seq reaches a client at most once.
 *
 * Single-threaded: every function runs on the loop thread. Messages: proto/PROTOCOL.md.
 */
#ifndef TT_HUB_H
#define TT_HUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../proto/record.h"

struct tt_target_status;

/* The largest seq a hub assigns: what a JSON number holds exactly (a browser's Number). Every seq
 * a hub keeps is at most this, so seq + 1 never wraps anywhere in the hub or its clients. */
#define TT_HUB_SEQ_MAX ((UINT64_C(1) << 53) - 1)

/* Headroom before frame data, for the transport's framing (>= LWS_PRE, checked in server.c). */
#define TT_FRAME_PRE 32

enum tt_frame_kind {
	TT_FRAME_EVENTS = 0, /* an `events` message: droppable when the client is slow */
	TT_FRAME_GAP,        /* a `gap` message (history, paused) */
	TT_FRAME_GAP_SLOW,   /* a `gap` message with reason "slow client" */
	TT_FRAME_STATUS,     /* a `status` message: a newer one replaces a queued one */
	TT_FRAME_OTHER,      /* hello, error, pong, ... (used by the server) */
	TT_FRAME_ALERT,      /* an `alert` message (a trigger fired: daemon/trigger.h) */
};

/* A refcounted, immutable-once-queued message. data points TT_FRAME_PRE bytes into the
 * allocation so a transport may write its header in front of it. */
struct tt_frame {
	unsigned refs;
	uint8_t kind;        /* enum tt_frame_kind */
	uint64_t from, to;   /* seq range this frame accounts for (events: every seq considered,
				including filtered-out ones; gap: the range lost); 0,0 when none */
	size_t len, cap;     /* bytes used / available at data */
	char *data;
	char mem[];
};

/* Allocates a frame with room for cap bytes, refs = 1, len = 0. NULL when out of memory. */
struct tt_frame *tt_frame_new(size_t cap);
/* Formats a frame of kind `kind` with printf; NULL when out of memory. */
struct tt_frame *tt_frame_printf(uint8_t kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tt_frame_ref(struct tt_frame *f);
void tt_frame_unref(struct tt_frame *f); /* frees at 0; NULL is ignored */
/* Frees the large frames kept for reuse (tt_hub_free calls it). */
void tt_frame_pool_drain(void);

struct tt_export;

struct tt_hub_config {
	const char *target;        /* target name: copied */
	const char *format;        /* "threadx", ...: copied; may be NULL */
	const char *probe;         /* probe spec, for status: copied; may be NULL */
	size_t history;            /* records kept; default 100000 */
	size_t history_bytes;      /* encoded bytes kept; default history * 512 */
	size_t batch_records;      /* records per events frame at most; default 1024 */
	size_t batch_bytes;        /* bytes per events frame at most (about); default 64 KiB:
				      the cost is per frame, so larger frames are cheaper */
	size_t client_frames;      /* per-client queue limit in frames; default 1024 */
	size_t client_bytes;       /* per-client queue limit in bytes; default 8 MiB */
	/* Current target status for `status` messages (may be NULL: "attaching", zero counters).
	 * The returned pointer is borrowed for the call. */
	const struct tt_target_status *(*status)(void *arg);
	void *status_arg;
	/* Called when records are waiting for tt_hub_flush (pending went from 0 to 1); may be
	 * NULL (then the caller flushes on its own schedule). */
	void (*need_flush)(void *arg);
	void *need_flush_arg;
	/* Called before an export of the history is fed (export.h), so the target can add what
	 * the records do not carry (a .trx keeps the source's header and registry); may be NULL.
	 * The export is borrowed for the call. */
	void (*export_prepare)(void *arg, struct tt_export *e);
	void *export_prepare_arg;
};

struct tt_hub;
struct tt_hub_client;

/* Counters for /metrics and tests. */
struct tt_hub_stats {
	uint64_t last_seq;         /* seq of the newest record, 0 before the first */
	uint64_t oldest_seq;       /* oldest record still in history (0 when empty) */
	size_t history_records, history_bytes;
	uint64_t frames_built;     /* events frames built (shared ones count once) */
	uint64_t slow_gaps;        /* slow-client gap messages queued */
	uint64_t slow_lost;        /* seqs skipped for slow clients, summed over clients */
	uint64_t history_gaps;     /* history gap messages queued */
	size_t clients;
};

/* Allocates a hub. cfg strings are copied. Returns 0, -EINVAL (no target name),
 * -ENAMETOOLONG (a target name over TT_JSON_MAX_NAME bytes: the wire carries no more) or -ENOMEM.
 * *out: free with tt_hub_free after every client was freed. */
int tt_hub_new(const struct tt_hub_config *cfg, struct tt_hub **out);
void tt_hub_free(struct tt_hub *h);

/* Numbers, encodes and stores rec (borrowed for the call), queues it for the next flush.
 * Returns the seq assigned, or 0 when the record could not be encoded (counted, dropped). */
uint64_t tt_hub_publish(struct tt_hub *h, const struct tt_record *rec);
/* The same at a given seq above the last one and at most TT_HUB_SEQ_MAX (a remote target keeps
 * its origin's numbering).
 * The seqs skipped are a hole, accounted for by the gap record the caller published before it
 * (or never held): no frame, history walk, gap message or count includes them. Returns seq, or
 * 0 when seq is not above the last, over TT_HUB_SEQ_MAX, or the record could not be stored. */
uint64_t tt_hub_publish_at(struct tt_hub *h, const struct tt_record *rec, uint64_t seq);
/* Sends the records published since the last flush to every live client. Cheap when nothing
 * is pending. */
void tt_hub_flush(struct tt_hub *h);
/* Queues an `alert` message (json, len bytes: copied) to every client, after the records
 * published so far (they are flushed first, so the alert follows the record it names).
 * 0 or -ENOMEM. */
int tt_hub_alert(struct tt_hub *h, const char *json, size_t len);
/* Queues a `status` message (built from cfg->status) to every client. */
void tt_hub_status_changed(struct tt_hub *h);

const char *tt_hub_target(const struct tt_hub *h);
/* The target status from cfg->status, or NULL. Borrowed. */
/* Lets the target prepare export e (tt_hub_config.export_prepare); nothing when it has no hook. */
void tt_hub_export_prepare(const struct tt_hub *h, struct tt_export *e);
const struct tt_target_status *tt_hub_target_status(const struct tt_hub *h);
void tt_hub_get_stats(const struct tt_hub *h, struct tt_hub_stats *st);
/* Writes the target summary object of /api/targets and `hello` (no trailing NUL needed:
 * returns the length, or -ENOSPC). */
int tt_hub_summary_json(const struct tt_hub *h, char *buf, size_t cap);
/* Writes the `status` message. Returns the length or -ENOSPC. */
int tt_hub_status_json(const struct tt_hub *h, char *buf, size_t cap);

/* Calls cb for every record in history, oldest first (json borrowed for the call, no
 * trailing newline). cb returns nonzero to stop; that value is returned. */
int tt_hub_history_foreach(const struct tt_hub *h,
			   int (*cb)(void *arg, uint64_t seq, const char *json, size_t len),
			   void *arg);

/* Calls cb for the records with seq >= from still in history (from is raised to the oldest),
 * at most max of them, oldest first. Returns the seq after the last one visited, so a caller can
 * continue from there later (records evicted meanwhile are skipped). A nonzero return of cb
 * stops the walk; it is stored in *rc (may be NULL; else set to 0 when cb never stopped). */
uint64_t tt_hub_history_range(const struct tt_hub *h, uint64_t from, size_t max,
			      int (*cb)(void *arg, uint64_t seq, const char *json, size_t len),
			      void *arg, int *rc);

/* ---- clients ---- */

/* Server-side filter: all given criteria must match; gap and reset records always pass. */
struct tt_hub_filter {
	const uint32_t *ids;       size_t nids;
	const char *const *names;  size_t nnames;    /* event names ("THREAD_RESUME") */
	const char *const *threads; size_t nthreads; /* thread names, or pointers as "0x2000..." */
	const char *text;          /* substring of the record's JSON text; NULL or "" = any */
};

/* The client's queue went from empty to non-empty (or it has history to catch up on): the
 * transport should ask for writability and then drain with tt_hub_client_peek/pop. Never
 * called inside tt_hub_client_new. */
typedef void (*tt_hub_wake_cb)(struct tt_hub_client *c, void *arg);

/* Adds a client, initially idle (receives status messages only) until tt_hub_client_start.
 * Returns 0 or -ENOMEM. Free with tt_hub_client_free (drops its queue). */
int tt_hub_client_new(struct tt_hub *h, tt_hub_wake_cb wake, void *arg,
		      struct tt_hub_client **out);
void tt_hub_client_free(struct tt_hub_client *c);
/* Replaces the client's filter (copied; NULL = everything). Applies to frames built from now
 * on. Returns 0, -ENOMEM or -EINVAL (more than 64 entries in a list). */
int tt_hub_client_set_filter(struct tt_hub_client *c, const struct tt_hub_filter *f);

enum tt_hub_start {
	TT_HUB_LIVE = 0,   /* from the next record on */
	TT_HUB_RESUME,     /* after seq `arg` (what the client saw last); arg > last seq (the daemon
			      restarted) means from the oldest record held */
	TT_HUB_NEWEST,     /* the newest `arg` records from history, then live */
};
/* (Re)starts delivery. Queued frames stay queued. */
void tt_hub_client_start(struct tt_hub_client *c, enum tt_hub_start how, uint64_t arg);
/* Pause: no events are queued (status still is). resume_live: a `gap` message (reason
 * "paused") for what was skipped, then live. */
void tt_hub_client_pause(struct tt_hub_client *c);
void tt_hub_client_resume_live(struct tt_hub_client *c);

/* The next frame to send, or NULL. Borrowed: valid until tt_hub_client_pop (take a ref to keep
 * it longer). May build a catch-up frame from history. */
struct tt_frame *tt_hub_client_peek(struct tt_hub_client *c);
/* Removes the head frame (after it was written). */
void tt_hub_client_pop(struct tt_hub_client *c);
/* Frames and bytes queued now. */
void tt_hub_client_queued(const struct tt_hub_client *c, size_t *frames, size_t *bytes);

#endif
