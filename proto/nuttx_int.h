/* proto/nuttx_int.h: private to proto/nuttx*.c: the resolved layout and the decoder state shared
 * by the live reader (nuttx.c) and the record decoder (nuttx_decode.c). */
#ifndef TT_NUTTX_INT_H
#define TT_NUTTX_INT_H

#include "loss_int.h"
#include "nuttx.h"

#define NX_MAX_REC 256u   /* nc_length is a byte; aligned records are at most 256 bytes */
/* Most ring bytes a one-read poll reads: more new bytes than that are read by a plan of their
 * own (a reply a slow link delivers well within the probe's timeout). */
#define NX_PTR_MAX 16384u
#define NX_NAMES 128u     /* pid -> name cache slots (direct mapped) */
#define NX_NAME_MAX 32u   /* CONFIG_TASK_NAME_SIZE is 31 by default */
#define NX_TEXT_MAX 512u  /* scratch for rendered strings/hex of one record (255-byte notes) */
#define NX_OVERWRITE_OVERFLOW 2u /* ni_overwrite: mode 0 stopped at a full ring */
#define NX_WANT 4u        /* task names looked up in the target per round (2 ranges each) */

/* The layout with everything derived. */
struct nx_lay {
	unsigned release, ptr, align, hdr;
	unsigned ldbl;         /* enum tt_nuttx_ldbl */
	unsigned salign;       /* alignment of the note structs (sizeof is a multiple) */
	bool be, smp, time64;
	bool has_cpu;          /* nc_cpu present in the header */
	unsigned off_pid, off_time, time_size; /* header fields */
	unsigned off_nsec;     /* 12.4-12.7: nc_systime_nsec (long), else 0 */
	unsigned off_buffer, off_bufsize, off_head, off_tail, off_overwrite;
	unsigned ctl_lo, ctl_len; /* the control words as one range */
	/* before 12.4: byte arrays, no padding (pal = 1), buffer inline */
	bool bytes;
	unsigned pal;          /* alignment of payload pointer fields: 1 (bytes) or ptr */
	unsigned pid_size;
	unsigned nsec_size;    /* sizeof(long) of nc_systime_nsec */
	uint32_t bufsize;      /* inline buffer size (bytes) */
};

struct nx_name {
	int32_t pid;
	bool used;
	bool looked;     /* !used: pid was looked up in the target and has no name there */
	char name[NX_NAME_MAX];
};

/* Decoder state: names, time, scratch. Reset at target resets. */
struct nx_dec {
	struct nx_lay lay;
	uint64_t tick_hz;
	struct nx_name names[NX_NAMES];
	bool have_time;
	uint64_t first_time, time, last_raw;
	/* constant-step detection (exact gap counts from time stamps) */
	uint64_t step;
	unsigned steps_seen;
	bool step_broken;
	bool after_gap;  /* the next delta spans a gap or reset: not a step */
	/* syscall names (g_funcnames) and CONFIG_SYS_RESERVED; NULL: numbers only */
	const char *const *sysnames;
	unsigned nsys;
	int32_t sys_reserved;
	const struct tt_nuttx_mem *rodata; /* format strings (borrowed), or NULL */
	/* pids that records named without a name known, to be looked up in the target's TCBs
	 * (nuttx.c; only when want_names: the layout says where they are, and lookups work) */
	bool tasks_changed; /* a NOTE_START or NOTE_STOP emitted: the task table changed */
	bool want_names;
	unsigned nwant;
	int32_t want[NX_WANT];
	char text[TT_MAX_ARGS][NX_TEXT_MAX];
	uint32_t raw[NX_MAX_REC / 4];
};

/* Fills out from lo; 0 or -EINVAL with *why set (static). */
int nx_lay_resolve(const struct tt_nuttx_layout *lo, struct nx_lay *out, const char **why);
uint64_t nx_get(const struct nx_lay *l, const uint8_t *p, unsigned size);
static inline unsigned nx_alignup(unsigned v, unsigned a)
{
	return (v + a - 1) / a * a;
}
/* A pid_t of size bytes (2 or 4) at p, in target order. */
static inline int32_t nx_pid(const struct nx_lay *l, const uint8_t *p, unsigned size)
{
	return size == 2 ? (int16_t)nx_get(l, p, 2) : (int32_t)nx_get(l, p, 4);
}
/* The pid in the header of the record at p. */
static inline int32_t nx_rec_pid(const struct nx_lay *l, const uint8_t *p)
{
	return nx_pid(l, p + l->off_pid, l->pid_size == 2 ? 2 : 4);
}

void nx_dec_reset(struct nx_dec *d);
/* A name for pid found in the target (name NULL: it has none there). */
void nx_set_name(struct nx_dec *d, int32_t pid, const char *name);
/* Whether pid has a name, or was looked up and has none. */
bool nx_name_known(struct nx_dec *d, int32_t pid);
/* The raw time of the record at p (len >= hdr). */
uint64_t nx_rec_time(const struct nx_dec *d, const uint8_t *p);
/* Checks the header of the record at p with at most avail bytes: 0, or -EPROTO with a message. */
int nx_rec_check(const struct nx_lay *l, const uint8_t *p, size_t avail, char *err, size_t errlen);
/* Decodes one checked record (p[0] bytes) and emits it. addr: target address or 0. */
void nx_emit_record(struct nx_dec *d, const uint8_t *p, uint64_t addr, tt_emit_cb cb, void *arg);
/* nuttx_printf.c: renders fmt with the packed arguments (data, n bytes) into out; false when
 * the format uses what the packer and NuttX's printer disagree on or tracetap does not render
 * (%%, %n, a long double whose format the layout does not give), or the arguments run out. */
bool nx_render_printf(const struct nx_lay *l, const char *fmt, const uint8_t *data,
		      unsigned n, char *out, size_t cap);
/* A record of pid without a name known: look it up in the target (once per pid; at most
 * NX_WANT a round). */
void nx_want_name(struct nx_dec *d, int32_t pid);
/* Lost records between the last emitted record (time d->time... raw last_raw) and a record with
 * raw time t, if the time source has been a constant-step counter; else -1. */
int64_t nx_count_by_time(const struct nx_dec *d, uint64_t t);

/* ---- the live reader's state, shared by nuttx.c (cycle), nuttx_names.c (task names) ---- */

/* the task table walk (nuttx_tasks.c) comes before the name lookups: ST_PIDHASH and later are
 * lookups whose pids stay unnamed when a read fails */
enum nx_step { ST_CTL, ST_DATA, ST_CLEARCHK, ST_SYNC, ST_TK_HASH, ST_TK_SLOTS, ST_TK_TCBS,
	       ST_PIDHASH, ST_SLOTS, ST_TCBS, ST_TASKNAME };
#define NX_TK_SLOTS 128u  /* g_npidhash walked at most (more: no tasks from the walk) */
#define NX_TK_TASKS 64u   /* tasks kept from a walk */
#define NX_TK_FAILS 3u    /* walks whose reads failed, in a row, before walks stop */

struct nx_task {
	int32_t pid;
	uint64_t start;
	uint32_t size;
};
#define NAME_FAILS_MAX 3 /* failed lookup reads in a row before names are turned off */

enum nx_why { WHY_ATTACH, WHY_LAP, WHY_RESET, WHY_ERROR };

struct tt_nuttx {
	struct tt_nuttx_config cfg;
	struct nx_dec d;
	struct tt_nuttx_stats st;
	char err[256];
	enum nx_step step;
	enum nx_why why;         /* of the next sync */
	bool need_sync;          /* the next poll is a full read (why says why) */
	/* this poll's plan is the control words, the ring from pos up to their head (one_ring, a
	 * TT_RANGE_TO_PTR range of at most NX_PTR_MAX bytes), the anchor and the control words:
	 * one read (cfg.ptr_ranges), when the last poll was not idle */
	bool one_read, was_idle;
	struct tt_range one_ring;
	const char *gap_reason;  /* WHY_LAP/WHY_ERROR: reason of the gap record */
	bool gap_known_loss;     /* the tail passed our position: something is lost */
	/* a batch checked and waiting for its task names (read before it is emitted): the copy
	 * holds its notes at [pub_from, pub_n), ring offset pub_off */
	bool pub_pending;
	uint32_t pub_off, pub_from, pub_n;
	unsigned pub_nlooked;    /* pids looked up for it so far (each once) */
	int32_t pub_looked[64];
	bool clear_known;        /* WHY_RESET after a clear seen with nothing lost: notes since */
	uint32_t clear_at;       /* then start at clear_at (the tail then); a later tail is loss */
	unsigned sync_tries;
	bool attached;
	bool overflowed;         /* ni_overwrite 2 seen and reported */
	bool full_at_check;      /* ST_CLEARCHK: the ring was full when the tail passed us */
	uint64_t buf_addr;
	uint32_t size;
	uint32_t pos;            /* ring offset of the next unread byte */
	uint32_t h1, t1;         /* control words at the start of this poll */
	uint32_t nnew;           /* bytes planned in ST_DATA / ST_SYNC */
	uint32_t anchor_off;     /* ring offset of the anchor (last published record header) */
	bool anchor_is_record;
	uint8_t anchor[NX_MAX_REC], anchor_now[NX_MAX_REC];
	uint8_t ctl[256], ctl2[256];
	uint8_t *ring;           /* size bytes: the new bytes, linear */
	uint64_t rate_bytes, rate_time; /* notes published lately: their bytes, their time span */
	double peak;             /* the fastest rate (bytes per tick) of a poll's notes seen */
	double rate_before;      /* bytes per tick of the batch published last (more than
				    NX_PEAK_RUN notes; from the note before it unless a gap came
				    between), 0 unknown */
	struct tt_loss_clock clock; /* the target's clock against the host's */
	uint64_t host_now;       /* host time (ns) of the reads being ingested, 0 = not given */
	uint64_t host_plan;      /* host_now when the reads being ingested were planned */
	uint64_t host_head;      /* host_plan of the read of the head the notes published reach:
				    the clock's measure (tt_loss_clock_note), not the ingest's time,
				    which a long read (a whole ring over a slow link) puts late */
	uint64_t host_last;      /* of the poll that published the last note */
	uint64_t host_proven;    /* of the last poll that proved nothing unread overwritten (the
				    anchor intact), or found head and tail where it left them */
	uint8_t *ring_alloc;
	char **sysnames;         /* owned copy of the layout's syscall names (one allocation) */
	/* task names from the target: ST_PIDHASH (g_pidhash, g_npidhash) -> ST_SLOTS (the hash
	 * slots of the pids) -> ST_TCBS (tcb->pid, tcb->name) -> ST_TASKNAME (NuttX's cache, for
	 * the pids still unnamed), after a poll that named pids (nuttx_names.c) */
	unsigned name_fails;     /* lookups whose reads failed, in a row */
	bool names_off;          /* turned off for that: not said yet */
	unsigned nm_n;           /* pids in this round */
	int32_t nm_pid[NX_WANT];
	uint64_t nm_table;       /* g_pidhash's value */
	uint32_t nm_mask;        /* g_npidhash - 1 */
	uint8_t nm_hash[8], nm_count[4], nm_slot[NX_WANT][8], nm_tpid[NX_WANT][4];
	char nm_name[NX_WANT][NX_NAME_MAX];
	const char *nm_found[NX_WANT]; /* names from the TCBs (into nm_name), NULL: none */
	/* the task table walk (nuttx_tasks.c): due after attach and after notes that started or
	 * stopped a task; tk is the last complete walk's table */
	bool tk_due, tk_have;
	unsigned tk_fails, tk_nslots, tk_at, tk_npick, tk_new, tk_n;
	uint64_t tk_table;
	unsigned tk_pick[TT_PLAN_MAX];
	uint8_t tk_slots[NX_TK_SLOTS * 8];
	uint8_t tk_tcb[TT_PLAN_MAX][20]; /* pid (4), stack_base_ptr (8), adj_stack_size (8) */
	struct nx_task tk_stage[NX_TK_TASKS], tk[NX_TK_TASKS];
	uint8_t nm_cache[16 + 4096];   /* g_note_taskname: head, tail, buffer */
};

/* Control words as read. */
struct ctlw {
	uint64_t buf, size;
	uint32_t head, tail, overwrite;
};

/* Cyclic distance from a to b in a ring of size n. */
static inline uint32_t nx_dist(uint32_t a, uint32_t b, uint32_t n)
{
	return b >= a ? b - a : b + n - a;
}

/* Time from raw time a to raw time b (32-bit clocks: modulo 2^32). */
static inline uint64_t nx_time_diff(const struct nx_dec *d, uint64_t a, uint64_t b)
{
	if (d->lay.time_size == 4 && !d->lay.off_nsec)
		return (uint32_t)(b - a);
	return b > a ? b - a : 0;
}
/* nuttx_loss.c: the notes lost before the first note kept (the copy holds nrec notes at [from, last]): the
 * bytes between the last note published and it are bytes_min + k * size (the ring positions);
 * the shared estimator (loss_int.h) weighs k from the time stamps, the host's clock and the
 * rate at which the notes kept and those published before were written (bytes per tick); the
 * bytes become notes by the mean size of the notes kept, the range's by the largest (lower) and
 * smallest (upper) a note can be. False when the time stamps cannot tell (fewer than two notes
 * kept, times that do not move forward): g keeps the lower bound. */
/* The fastest rate (bytes per tick) over any NX_PEAK_RUN consecutive notes of the copy's chain
 * [from, last] (last: the offset of its last note); 0 when fewer or their time does not move. A
 * burst shows here even when slower notes around it dilute the chain's mean. */
#define NX_PEAK_RUN 8
double nx_run_peak(const struct tt_nuttx *rd, uint32_t from, uint32_t last);
/* The host time of the head read the notes being published reach (host_head, else host_now). */
static inline uint64_t nx_host_at(const struct tt_nuttx *rd)
{
	return rd->host_head ? rd->host_head : rd->host_now;
}
bool nx_lap_estimate(const struct tt_nuttx *rd, uint64_t bytes_min, uint32_t from,
		     uint32_t last, uint32_t nrec, struct tt_gap *g);

/* Syscall names for the decoder: borrowed from lo (copy == NULL), or copied into *copy (one
 * allocation: the pointers, then the strings). 0 or -ENOMEM. */
int nx_use_syscalls(struct nx_dec *d, const struct tt_nuttx_layout *lo, char ***copy);
/* One range of a plan (nothing for len 0), counted in the stats. */
void nx_add_range(struct tt_nuttx *rd, struct tt_plan *p, uint64_t addr, uint32_t len,
		  uint8_t *dst);

/* nuttx_names.c: task names from the target, after a poll whose records named pids with no
 * name known. nx_names_start: TT_NUTTX_DONE (nothing to look up) or TT_NUTTX_MORE (the steps
 * ST_PIDHASH .. ST_TASKNAME follow: nx_names_plan, nx_names_ingest). */
int nx_names_start(struct tt_nuttx *rd);
void nx_names_plan(struct tt_nuttx *rd, struct tt_plan *p);
int nx_names_ingest(struct tt_nuttx *rd);
/* The live lookup's rules on an image that holds the TCBs or NuttX's name cache (a whole-RAM
 * dump): pid's name into out (NX_NAME_MAX bytes), or NULL. */
const char *nx_img_name(const struct nx_lay *l, const struct tt_nuttx_layout *lo,
			const uint8_t *img, size_t len, uint64_t base, int32_t pid, char *out);

/* nuttx_tasks.c: the live walk of the task table for the tasks' stacks. nx_tasks_wanted: the
 * layout gives what it needs. nx_tasks_start: TT_NUTTX_DONE (no walk due) or TT_NUTTX_MORE
 * (ST_TK_HASH .. ST_TK_TCBS follow: nx_tasks_plan, nx_tasks_ingest); nx_tasks_failed after a
 * read of the walk failed. */
struct tt_an_thread;
bool nx_tasks_wanted(const struct tt_nuttx_layout *lo);
int nx_tasks_start(struct tt_nuttx *rd);
void nx_tasks_plan(struct tt_nuttx *rd, struct tt_plan *p);
int nx_tasks_ingest(struct tt_nuttx *rd);
void nx_tasks_failed(struct tt_nuttx *rd);
/* The last complete walk's tasks (id: pid, stack bounds; no name): 0, or -ENOENT before one. */
int tt_nuttx_tasks(const struct tt_nuttx *rd,
		   void (*cb)(void *arg, const struct tt_an_thread *t), void *arg);

/* The image's whole task table (g_pidhash, as nx_img_name reads it): cb per TCB with its pid
 * (id), name and stack bounds (when the layout has them). 0 (no table: no tasks). */
int nx_img_tasks(const struct nx_lay *l, const struct tt_nuttx_layout *lo, const uint8_t *img,
		 size_t len, uint64_t base,
		 void (*cb)(void *arg, const struct tt_an_thread *t), void *arg);

#endif
