/* proto/nuttx_int.h: private to proto/nuttx*.c: the resolved layout and the decoder state shared
 * by the live reader (nuttx.c) and the record decoder (nuttx_decode.c). */
#ifndef TT_NUTTX_INT_H
#define TT_NUTTX_INT_H

#include "nuttx.h"

#define NX_MAX_REC 256u   /* nc_length is a byte; aligned records are at most 256 bytes */
#define NX_NAMES 128u     /* pid -> name cache slots (direct mapped) */
#define NX_NAME_MAX 32u   /* CONFIG_TASK_NAME_SIZE is 31 by default */
#define NX_TEXT_MAX 512u  /* scratch for rendered strings/hex of one record (255-byte notes) */
#define NX_OVERWRITE_OVERFLOW 2u /* ni_overwrite: mode 0 stopped at a full ring */
#define NX_WANT 4u        /* task names looked up in the target per round (2 ranges each) */

/* The layout with everything derived. */
struct nx_lay {
	unsigned release, ptr, align, hdr;
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
/* Lost records between the last emitted record (time d->time... raw last_raw) and a record with
 * raw time t, if the time source has been a constant-step counter; else -1. */
int64_t nx_count_by_time(const struct nx_dec *d, uint64_t t);

#endif
