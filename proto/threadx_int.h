/* proto/threadx_int.h: internals shared by the ThreadX reader's files (not a public header).
 *
 * threadx.c owns the plan/ingest state machine (header, registry, sync, poll, laps, resets,
 * hold policy); threadx_decode.c owns turning one 32-byte slot into a tt_event (names, args,
 * registry lookups, time unwrapping); threadx_events.c holds the event table.
 */
#ifndef TT_THREADX_INT_H
#define TT_THREADX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loss_int.h"
#include "threadx.h"

/* How an event argument is decoded (mapped onto enum tt_arg_kind when emitted). */
enum tt_txk {
	TT_TXK_UINT = 0,
	TT_TXK_HEX,
	TT_TXK_OBJ,    /* object pointer, resolved through the registry */
	TT_TXK_STATE,  /* thread state (ready, suspended, ...) */
	TT_TXK_WAIT,   /* wait option: 0 no_wait, 0xFFFFFFFF wait_forever, else ticks */
	TT_TXK_GETOPT, /* event flags get option: or, or_clear, and, and_clear */
	TT_TXK_SETOPT, /* event flags set option: or, and */
};

#define TT_TXF_PATCH2 0x1u /* info 2 is back-patched after commit (block/byte allocate) */
#define TT_TXF_PATCH4 0x2u /* info 4 is back-patched after commit (thread resume/suspend) */
#define TT_TXF_CREATE 0x4u /* info 1 is an object registered just before this event */

struct tt_txarg {
	const char *name; /* NULL: unused by ThreadX */
	uint8_t kind;     /* enum tt_txk */
};

struct tt_txev {
	uint16_t id;
	const char *name;
	uint8_t flags;
	struct tt_txarg args[4];
};

/* Every event id TraceX knows (ThreadX and its middleware), or NULL. */
const struct tt_txev *tt_txev_find(uint32_t id);
/* threadx_events_mw.c: FileX, NetX, NetX Duo and USBX events. */
const struct tt_txev *tt_txev_mw_find(uint32_t id);

#define TT_TX_INIT_THREAD 0xF0F0F0F0u
#define TT_TX_ISR_THREAD 0xFFFFFFFFu
#define TT_TX_MISSING_MAX 64

/* One registry entry, parsed and sanitised. */
struct tt_txobj {
	uint32_t ptr;
	uint32_t p1, p2;
	int32_t prio; /* -1 unless a thread registered with a priority */
	uint8_t type;
	uint8_t available;
	uint8_t reserved[2]; /* as written (threads: 0x80 | priority >> 8, priority & 0xFF) */
	const char *name; /* into tt_threadx.names; "" when empty */
};

/* The accepted control header. */
struct tt_txlayout {
	bool big; /* target is big-endian */
	uint32_t mask, base, reg_start, reg_end, ent_start, ent_end, cur;
	uint32_t name_size;
	uint32_t nreg, nent; /* registry entries, event slots */
};

/* Time unwrapping state (threadx_decode.c). */
struct tt_txtime {
	bool have;          /* an event has been timed since the last reset */
	bool gap;           /* events were lost before the next one: skip it in step stats */
	uint64_t gap_ticks; /* when != 0: exact ticks to the next event (counter mode, exact gap) */
	uint32_t last;      /* last raw value (reduced modulo mod) */
	uint64_t now;       /* unwrapped time of the last event */
	uint64_t first;     /* unwrapped time of the first event (ns origin) */
	uint64_t mod;       /* modulus of the time source */
	int dir;            /* 1 up, -1 down, 0 not decided yet */
	int votes;          /* up minus down votes while undecided */
	uint64_t step;      /* constant delta seen so far (counter detection), 0 = none yet */
	bool step_ok;       /* every consecutive delta so far equalled step */
	uint32_t step_n;    /* deltas that agreed */
	uint64_t host_last; /* host time (ns) of the poll that published the last event, 0 unknown */
	uint64_t batch_rest;/* ticks from the first to the last event of the batch being emitted */
	uint64_t rate_n;    /* consecutive deltas summed in rate_ticks (the measured event rate: */
	uint64_t rate_ticks;/* rate_n / rate_ticks events per tick, over the recent events) */
	/* kept across resets (properties of the target): */
	double peak;        /* the fastest rate (events per tick) of a batch seen */
	struct tt_loss_clock clock; /* the target's clock against the host's */
};

/* A batch's object (re)created by a create event: which of its incarnations names an event. */
struct tt_txren {
	uint32_t ptr;
	uint32_t creates; /* create events for ptr in the batch */
	uint32_t seen;    /* of those, emitted so far */
	bool later;       /* created again after the batch, before the registry re-read: the
			     registry names a later incarnation than the batch's last */
	bool prev_stale;  /* the registry read before the batch names a later incarnation than
			     the one before the batch's first create (later, one batch ago) */
};
#define TT_TX_REN_MAX 64
/* Who runs (threadx_run.c): TraceX's next-context rules, evaluated for the previous event when
 * the next one arrives (one event of look-ahead). */
struct tt_txrun {
	bool have;      /* prev holds the previous event since the last reset or gap */
	uint32_t n;     /* events since the last reset or gap */
	uint32_t prev[8];
	uint32_t cur;   /* the thread TraceX holds as running (0: idle) */
	unsigned nest;  /* interrupt nesting */
};

/* Records waiting for a registry re-read before they are emitted. */
struct tt_txpend {
	bool active;
	bool gap;
	bool exact;
	uint64_t lost;
	const char *reason;
	const char *basis;     /* an estimate's basis (tt_gap.basis), NULL for a lower bound */
	uint64_t lower, upper; /* tt_gap's range (when !exact) */
	uint32_t first, count; /* slots, ring order */
};

/* TT_TXS_SYNC reads the current pointer that a full read starts from; TT_TXS_SYNC_READ plans the
 * newest-first chunks (or, with start_at_now at attach, only the anchor slot). */
enum tt_txstate { TT_TXS_HEADER, TT_TXS_REGISTRY, TT_TXS_SYNC, TT_TXS_SYNC_READ, TT_TXS_POLL_CUR,
		  TT_TXS_POLL_ENT, TT_TXS_OLDEST, TT_TXS_REGPEEK };
enum tt_txsync { TT_TXY_ATTACH, TT_TXY_LAP, TT_TXY_RESET, TT_TXY_LOST };

/* Default slots per chunk of a full read (2 KiB: one OpenOCD read_memory command). */
#define TT_TX_CHUNK 64u
/* Chunks per plan: the first plan is [X][cur][chunk][cur][chunk][cur][X], later ones
 * [chunk][cur] x 3 + [X]; see tt_tx_ingest_sync_read. */
#define TT_TX_SYNC_CHUNKS 3

/* A full read in progress. Slots are named by depth below top (the slot just before the current
 * pointer read by the TT_TXS_SYNC plan): depth d is slot top - d. */
struct tt_txsync_rd {
	bool now;             /* start_at_now attach: read only the anchor slot */
	bool first;           /* the next plan is the first one (X baseline and reference R) */
	uint32_t top;         /* slot X = c0 - 1 */
	uint32_t ref;         /* R: current pointer read right after the X baseline */
	uint32_t ex;          /* e(X) = (top - R) mod N: distance from R to X */
	uint32_t depth;       /* slots [top - depth + 1, top] are proven intact */
	uint32_t adv;         /* writer advance since R at the last proven current read */
	uint32_t limit;       /* depth that can still be valid (planning bound) */
	bool stop_empty;      /* stopped at a never-used slot (older ones are never-used too) */
	unsigned nch;         /* chunks in the current plan */
	uint32_t ch_d[TT_TX_SYNC_CHUNKS], ch_len[TT_TX_SYNC_CHUNKS];
	uint8_t curs[TT_TX_SYNC_CHUNKS][4];
	uint8_t refbuf[4];
	uint8_t x0[TT_THREADX_ENTRY_SIZE], x1[TT_THREADX_ENTRY_SIZE]; /* X baseline and re-read */
	bool oldest_tried;    /* oldest_when_still: the slot at R was read twice around current */
	uint8_t old1[TT_THREADX_ENTRY_SIZE], oldcur[4];
};

struct tt_threadx {
	struct tt_threadx_config cfg;
	struct tt_threadx_stats st;
	char err[256];
	enum tt_txstate state;
	enum tt_txsync why;    /* why the next full read (sync) happens */
	uint32_t why_r;        /* a poll's r when its anchor was rewritten and no current was read
				  after it yet: the sync's first read of current decides LAP/LOST */
	bool with_cur;         /* this entry read ends with current (curbuf2): idle polls */
	bool attached;         /* a layout is accepted and buffers are allocated */
	bool synced_once;      /* start_at_now only applies to the first sync */
	bool force_header;     /* next poll reads the whole header */
	bool cur_full;         /* the current poll's first read is the whole header */
	bool reg_fresh;        /* the registry was read in this cycle */
	bool reg_wanted;       /* re-read the registry at the next poll */
	bool reg_early;        /* the registry was read before the next batch's slots (attach,
				  reset): it names incarnations before the creates among them */
	struct tt_txlayout lay;

	uint8_t hdrbuf[TT_THREADX_HEADER_SIZE];
	uint8_t curbuf[4], curbuf2[4];
	uint8_t curbuf3[4];    /* current, read after a registry re-read */
	uint8_t *regbuf;       /* nreg * (16 + name_size) */
	uint8_t *regraw;       /* nreg * (16 + name_size): the registry as parsed last */
	uint32_t *regstamp;    /* nreg: the parse that last saw the entry's bytes change */
	uint32_t nparse;       /* registry parses since the buffers were allocated */
	struct tt_txobj *objs; /* nreg, in registry order */
	uint32_t *objidx;      /* indices of objs in use, sorted by pointer */
	uint32_t nidx;
	char *names;           /* nreg * (name_size + 1) */
	/* the registry before the last re-read (empty after an attach or reset): names events
	 * written before a create event re-registered their object (threadx_names.c) */
	struct tt_txobj *objs_prev;
	uint32_t *objidx_prev;
	uint32_t nidx_prev;
	char *names_prev;
	struct tt_txren ren[TT_TX_REN_MAX]; /* the batch being emitted */
	unsigned nren;
	bool ren_gap;          /* the batch follows a gap (tt_tx_names_batch) */
	/* objects created in the slots written after a batch and before its registry re-read
	 * (TT_TXS_REGPEEK): later[] for the batch, stale[] (the same, one batch on) for the next */
	uint32_t later[TT_TX_REN_MAX], stale[TT_TX_REN_MAX];
	unsigned nlater, nstale;
	uint8_t *entbuf;       /* nent * 32, slot i at i * 32 (a mirror of the ring) */

	/* Cursor. Slots before nxt (ring order) are consumed; slot nxt-1 is the anchor, whose words
	 * as last read are in anchor[]; held slots [nxt, nxt+held) were held back once already. */
	uint32_t nxt;
	bool anchor_ok;
	uint32_t anchor[8];
	uint32_t held;
	struct tt_txsync_rd sy; /* the full read in progress */
	uint32_t sync_busy;     /* failed full-read attempts since the last sync that each prove
	                         * N-1 events completed during the attempt */
	uint32_t c_new;        /* current index read at the start of this poll */
	/* Current as the last poll read it after its anchor, and the host time of that read: a
	 * poll that starts right after (a link-bound reader) takes it as its own, see
	 * TT_TX_AHEAD_NS. ahead_ok is cleared when the anchor moves any other way. */
	uint32_t ahead;
	uint64_t ahead_ns;
	bool ahead_ok;
	bool use_ahead;        /* this poll's plan is the entry read, from ahead */
	/* this poll's plan is current, then the slots from nxt up to it (ring, a TT_RANGE_TO_PTR
	 * range: at most TT_TX_PTR_MAX bytes), then the anchor: one read (cfg.ptr_ranges) */
	bool one_read;
	struct tt_range ring;  /* that range, as planned */
	/* The last poll found no new slot (idle_n in a row): the next one reads current alone
	 * (idle_cur), the whole poll when current has not moved, except every
	 * TT_TX_IDLE_ANCHOR-th, which reads the anchor and current in one plan (idle_plan): the
	 * anchor finds a whole lap current alone cannot see. */
	bool was_idle;
	bool idle_plan;
	bool idle_cur;
	uint32_t idle_n;
	uint32_t s0, r;        /* slots read this poll: the anchor s0 and r - 1 new ones after it */
	unsigned poll_no;

	struct tt_txpend pend;
	struct tt_txtime tm;
	struct tt_txrun run;
	uint32_t missing[TT_TX_MISSING_MAX]; /* pointers the registry could not name */
	unsigned nmissing, missing_next;
	uint32_t raw[8];       /* words of the event being emitted (host order) */
	uint64_t host_now;     /* host time (ns) of the current poll's reads, 0 = not given */
	uint64_t host_plan;    /* host_now when the reads being ingested were planned */
	uint64_t host_cur;     /* host time the current pointer the batch reaches was read
				  (planned): what the time stamps are measured against, not the
				  ingest's time, which a long read (the whole buffer over a slow link)
				  or a reader stalled with a read under way puts late */
	uint64_t host_proven;  /* host time of the last read that proved the ring intact */
};

/* threadx_decode.c */
uint32_t tt_tx_ld32(const struct tt_threadx *rd, const uint8_t *p);
void tt_tx_slot_words(const struct tt_threadx *rd, uint32_t slot, uint32_t w[8]);
void tt_tx_registry_parse(struct tt_threadx *rd);
const struct tt_txobj *tt_tx_lookup(const struct tt_threadx *rd, uint32_t ptr);
const struct tt_txobj *tt_tx_lookup_in(const struct tt_txobj *objs, const uint32_t *idx,
				       uint32_t n, uint32_t ptr);

/* threadx_names.c: naming each event by the registry as it was when the event was written. */
/* Before a registry read: keep the registry read so far as the previous one (a re-read while
 * polling), or forget it (attach, reset: nothing before applies). */
void tt_tx_names_keep(struct tt_threadx *rd, bool keep);
/* Before a batch is emitted: note the objects its create events (re)register, and those created
 * again after it (rd->later) or one batch before (rd->stale). gap: events were lost before the
 * batch (objects may have been created again in them, so the registry read before names none of
 * the batch's events). */
void tt_tx_names_batch(struct tt_threadx *rd, uint32_t first, uint32_t count, bool gap);
/* After a registry re-read for the pending batch [first, first + n): the slots [from, from +
 * count) written since its newest were read; note the objects they create (rd->later). A peek
 * that reaches the batch (from + count = first, modulo N: the writer may have gone further)
 * takes every object the batch creates as created again. */
void tt_tx_names_peek(struct tt_threadx *rd, uint32_t from, uint32_t count, uint32_t first,
		      uint32_t n);
/* After a batch was emitted: its later[] becomes the next batch's stale[]. */
void tt_tx_names_done(struct tt_threadx *rd);
/* Before an event of the batch is decoded: a create event switches its object to the
 * incarnation it registers. */
void tt_tx_names_step(struct tt_threadx *rd, const uint32_t w[8]);
/* The object a create event registers (info 1), or 0 when w is not a create event. */
uint32_t tt_tx_created(const uint32_t w[8]);
/* The registry entry that named ptr when the event being decoded was written, or NULL. */
const struct tt_txobj *tt_tx_name_lookup(const struct tt_threadx *rd, uint32_t ptr);
/* The public view of a registry entry. */
void tt_tx_obj_public(const struct tt_txobj *o, struct tt_threadx_object *obj);
/* The registry name of ptr, NULL when unknown (or ptr is 0). Borrowed. */
const char *tt_tx_obj_name(const struct tt_threadx *rd, uint32_t ptr);
/* True when slot words w reference an object pointer the registry cannot name (and that is not
 * known to be unnameable). */
bool tt_tx_needs_registry(const struct tt_threadx *rd, const uint32_t w[8]);
/* After a registry re-read: remember pointers of slots [first, first+count) still unnamed. */
void tt_tx_note_missing(struct tt_threadx *rd, uint32_t first, uint32_t count);
void tt_tx_time_reset(struct tt_threadx *rd);
/* The host time of the reads the batch being ingested reaches (host_cur, else host_now). */
static inline uint64_t tt_tx_host_at(const struct tt_threadx *rd)
{
	return rd->host_cur ? rd->host_cur : rd->host_now;
}
/* Votes on the time direction over slots [first, first+count) when it is not decided. */
void tt_tx_time_prescan(struct tt_threadx *rd, uint32_t first, uint32_t count);
/* Before a batch is emitted: how many ticks it spans (for the host clock's wraps). */
void tt_tx_time_batch(struct tt_threadx *rd, uint32_t first, uint32_t count);
/* Exact events lost between the anchor (a real event) and slot words w, when time stamps are a
 * constant-step counter; -1 when that cannot be known. */
int64_t tt_tx_counter_lost(const struct tt_threadx *rd, const uint32_t anchor[8],
			   const uint32_t w[8]);
/* False when time stamps are a constant-step counter and slots [first, first+count) are not
 * consecutive events: a read the writer lapped during the copy. */
bool tt_tx_counter_consistent(const struct tt_threadx *rd, uint32_t first, uint32_t count);
void tt_tx_time_gap(struct tt_threadx *rd, uint64_t exact_lost, bool exact);
/* The events lost between the anchor (the last event published; NULL: tracing was enabled
 * since the last read that saw it off) and slot first, when the ring arithmetic says lb + j N
 * for an unknown j >= 0: the shared estimator (loss_int.h) on the time between the two, the
 * host's clock and the event rate measured on the events around the gap (the published history
 * and slots [first, first+count)). Returns false when the time stamps cannot say (too few, a
 * per-event counter); *out holds the estimate and its range otherwise. */
struct tt_loss_out;
bool tt_tx_lap_estimate(const struct tt_threadx *rd, const uint32_t anchor[8], uint32_t first,
			uint32_t count, uint64_t lb, struct tt_loss_out *out);
/* The pending batch's gap: at least lb lost, a lower bound with no basis and nothing capping it. */
void tt_tx_pend_bound(struct tt_threadx *rd, uint64_t lb, const char *reason);
/* The pending batch's gap (rd->pend) when it ends at slot first (count slots published after
 * it) and the ring arithmetic says lb + j N lost: exact from a constant-step counter, else the
 * estimate and its range (tt_tx_lap_estimate), else lb as a lower bound. */
void tt_tx_gap_count(struct tt_threadx *rd, uint64_t lb, uint32_t first, uint32_t count,
		     const char *reason);
/* The gap of the first full read of a buffer whose enabling the reader watched (since_enable):
 * slot first is the oldest published (count of them); stop_empty: the read reached a never-used
 * slot. */
void tt_tx_enable_gap(struct tt_threadx *rd, uint32_t first, uint32_t count, bool stop_empty);
/* After a batch was emitted: measure the target's clock against the host's (gap: the batch
 * came after one, nothing to measure across it). */
void tt_tx_clock_note(struct tt_threadx *rd, bool gap, uint32_t events);
/* threadx_run.c: forget the previous event (reset, gap: what ran in between is unknown). */
void tt_tx_run_reset(struct tt_threadx *rd);
/* Sets ev->run* (who ran from the previous event up to this one) from slot words w. */
void tt_tx_run_event(struct tt_threadx *rd, const uint32_t w[8], struct tt_event *ev);
/* Decodes slot words w (slot index slot) into ev and advances the time state. */
void tt_tx_decode(struct tt_threadx *rd, uint32_t slot, const uint32_t w[8], struct tt_event *ev);

/* threadx_header.c: the header and the current pointer (threadx.c drives them). */
#define TT_TX_CUR_OFF 32u /* offset of the current pointer in the header */
/* A poll that starts at most this long (host time) after the last poll read current takes that
 * value instead of reading current first: the entries below an older current are as complete as
 * below a fresh one, so only latency depends on its age, and a link-bound reader (polls back to
 * back) saves a probe command per poll. Later polls read current afresh. */
#define TT_TX_AHEAD_NS 2000000u
#define TT_TX_IDLE_ANCHOR 4u
/* Most bytes of new slots a one-read poll reads (what is left is the next poll's): a reply that
 * a slow link delivers well within the probe's timeout (16 KiB: 0.4 s at 40 KiB/s). */
#define TT_TX_PTR_MAX (512u * TT_THREADX_ENTRY_SIZE)
/* rd->err = "ThreadX header at ADDR: " and the message. */
void tt_tx_err(struct tt_threadx *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses and validates hdrbuf into *l. Returns 0, -EPROTO or -EFBIG with rd->err set. */
int tt_tx_header_parse(struct tt_threadx *rd, struct tt_txlayout *l);
bool tt_tx_layout_same(const struct tt_txlayout *a, const struct tt_txlayout *b);
/* Emits a reset record and forgets the cursor: the next cycle reads everything again. */
void tt_tx_emit_reset(struct tt_threadx *rd, const char *reason, tt_emit_cb cb, void *arg);
/* The header just read: accept its layout (buffers sized from it). TT_THREADX_MORE or -errno. */
int tt_tx_ingest_header(struct tt_threadx *rd);
/* A current pointer word as a slot index: 0 or -EPROTO with rd->err set. */
int tt_tx_cur_index(struct tt_threadx *rd, const uint8_t *buf, uint32_t *idx);
/* threadx.c: frees the buffers sized from the layout. */
void tt_tx_free_bufs(struct tt_threadx *rd);

/* Slot index i modulo the ring's N. */
static inline uint32_t tt_tx_ring(const struct tt_threadx *rd, int64_t i)
{
	int64_t n = rd->lay.nent;
	return (uint32_t)(((i % n) + n) % n);
}
/* threadx.c, for the full read: the batch in rd->pend is decided, emit it (a registry re-read
 * first when needed): TT_THREADX_DONE or _MORE; the hold policy's first held offset among count
 * slots from first (never before min_off); the cursor after a batch (nxt, held slots after it);
 * whether two slots' words are the same entry; a range appended to a plan. */
int tt_tx_finish(struct tt_threadx *rd, tt_emit_cb cb, void *arg);
uint32_t tt_tx_hold_from(const struct tt_threadx *rd, uint32_t first, uint32_t count,
			 uint32_t min_off);
void tt_tx_set_anchor(struct tt_threadx *rd, uint32_t nxt, uint32_t held);
bool tt_tx_same_entry(const uint32_t a[8], const uint32_t b[8]);
void tt_tx_add(struct tt_plan *p, uint64_t addr, uint32_t len, uint8_t *dst);
/* threadx_sync.c: the full read's plans and ingests (TT_TXS_SYNC, _SYNC_READ, _OLDEST), and
 * the reason of a gap after a rewritten anchor from current c read after it (LAP or LOST). */
int tt_tx_ingest_sync(struct tt_threadx *rd, tt_emit_cb cb, void *arg);
int tt_tx_ingest_sync_read(struct tt_threadx *rd, tt_emit_cb cb, void *arg);
int tt_tx_ingest_oldest(struct tt_threadx *rd, tt_emit_cb cb, void *arg);
void tt_tx_plan_sync_read(struct tt_threadx *rd, struct tt_plan *p);
void tt_tx_why(struct tt_threadx *rd, uint32_t c);

#endif
