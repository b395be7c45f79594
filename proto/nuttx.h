/* proto/nuttx.h: live reader of NuttX scheduler notes in the noteram ring, sans I/O.
 *
 * The target's `g_noteram_driver` (NuttX 12.4 and later) points to a byte ring with head and
 * tail indices. Driven by the plan/ingest loop of proto/reader.h: a poll reads the control
 * words, then the new bytes, the anchor record's header and the control words again. Why that
 * never publishes overwritten bytes, and how laps, resets and bad records are reported:
 * proto/README-nuttx.md.
 *
 * Memory: one buffer of ni_bufsize plus a few hundred bytes, allocated when the control words
 * are first accepted (bounded by max_buffer_bytes); nothing is allocated per record.
 */
#ifndef TT_NUTTX_H
#define TT_NUTTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "record.h"

enum tt_nuttx_rc {
	TT_NUTTX_DONE = 0,
	TT_NUTTX_MORE = 1,
};

/* Where things are on the target: from the firmware ELF (tt_nuttx_layout_from_fw), a layout
 * file, or tt_nuttx_layout_default and `--format-opt`. Zero-valued fields mean "derive". What
 * each field means in NuttX's terms: proto/README-nuttx.md. */
struct tt_nuttx_layout {
	uint16_t release;     /* NuttX release as major*100+minor: 1204..1213, 1300 (>= 1300: 13.x) */
	uint8_t ptr_size;     /* sizeof(uintptr_t): 4 or 8 */
	bool big_endian;
	bool smp;             /* CONFIG_SMP: nc_cpu in 12.4-12.7 headers, csection counts */
	bool time64;          /* CONFIG_SYSTEM_TIME64: 64-bit clock_t (12.8-12.13) / time_t
				 (12.4-12.7); ignored from 13.0 (always 64-bit) */
	uint8_t align;        /* record alignment in the ring: 0 = derive (1 before 12.7, else
				 ptr_size), or 1, 2, 4, 8 */
	uint8_t header_size;  /* sizeof(struct note_common_s); 0 = derive from the fields above */
	uint8_t struct_align; /* alignment of the note structs; 0 = derive: the larger of
				 ptr_size and the time stamp's size */
	/* offsetof(struct noteram_driver_s, ...); sizes follow ptr_size (size_t, pointers) and 4
	 * (unsigned int). */
	uint16_t off_buffer, off_bufsize, off_head, off_tail;
	uint16_t off_overwrite; /* ni_overwrite (unsigned); 0 = off_bufsize + ptr_size */
	/* Syscall names: nr is g_funcnames[nr - CONFIG_SYS_RESERVED]; NULL or -1: numbers only.
	 * Borrowed like the layout (the reader keeps a copy). */
	const struct tt_nuttx_syscalls *syscalls;
	int32_t sys_reserved;   /* CONFIG_SYS_RESERVED (0..255), -1 = unknown */
	/* Releases before 12.4: `g_noteram_info` holds the buffer itself (off_buffer: ni_buffer's
	 * offset, bufsize its size; off_bufsize, big_endian and align unused). */
	/* The firmware's read-only data (format strings of DUMP_PRINTF notes, at npt_fmt):
	 * borrowed for the reader's whole life (not copied), NULL: printf notes stay hex. */
	const struct tt_nuttx_mem *rodata;
	uint32_t bufsize;       /* CONFIG_DRIVER_NOTERAM_BUFSIZE (< 12.4) */
	uint8_t pid_size;       /* sizeof(pid_t) (< 12.4): 2 or 4; 0 = 4 */
	bool hires;             /* < 12.4: time as sec[sizeof(time_t)] + nsec[sizeof(long)]
				 * (CONFIG_SCHED_INSTRUMENTATION_HIRES), else ticks[sizeof(clock_t)];
				 * time64 gives the 8-byte time_t/clock_t */
	/* Task names read from the target's TCBs for pids no START note named: the addresses of
	 * g_pidhash and g_npidhash, and where pid and name lie in struct tcb_s. pidhash_addr 0 or
	 * tcb_name_size 0: names are not read. */
	uint64_t pidhash_addr, npidhash_addr;
	uint16_t tcb_off_pid, tcb_off_name;
	uint8_t tcb_pid_size;   /* sizeof(pid_t): 2 or 4; 0 = 4 */
	uint8_t tcb_name_size;  /* sizeof(tcb->name) = CONFIG_TASK_NAME_SIZE + 1 */
	/* NuttX's own cache of task names (g_note_taskname), for tasks that have exited; asked
	 * when the TCB gives no name. 0: not read. */
	uint64_t taskname_addr;
	uint16_t taskname_size; /* CONFIG_DRIVERS_NOTE_TASKNAME_BUFSIZE */
	/* How the target stores a long double (the %Le/%Lf/%Lg arguments of printf notes), from
	 * the ELF's architecture: enum tt_nuttx_ldbl; TT_NUTTX_LDBL_NONE: such notes stay hex. */
	uint8_t long_double;
	/* Stack high-water marks (CONFIG_STACK_COLORATION): where stack_base_ptr (the lowest
	 * address of the usable stack) and adj_stack_size (its size, a size_t) lie in struct
	 * tcb_s, and STACK_COLOR, the word NuttX colours each stack with (by the ELF's
	 * architecture: tt_nuttx_stack_color_of_machine). Any of them 0: no stack figures. */
	uint16_t tcb_off_stack_base, tcb_off_stack_size;
	uint32_t stack_color;
};

enum tt_nuttx_ldbl {
	TT_NUTTX_LDBL_NONE = 0,
	TT_NUTTX_LDBL_DOUBLE, /* 8 bytes, IEEE double (32-bit ARM, Xtensa, ...) */
	TT_NUTTX_LDBL_X87_12, /* x87 80-bit extended in 12 bytes (i386) */
	TT_NUTTX_LDBL_X87_16, /* x87 80-bit extended in 16 bytes (x86-64: the sim on a PC) */
	TT_NUTTX_LDBL_QUAD,   /* 16 bytes, IEEE binary128 (AArch64, RISC-V) */
};
/* The long double of an ELF machine (e_machine); TT_NUTTX_LDBL_NONE when not known. */
uint8_t tt_nuttx_ldbl_of_machine(unsigned machine);

/* NuttX's STACK_COLOR for an ELF machine (e_machine); 0 when not known here. */
uint32_t tt_nuttx_stack_color_of_machine(unsigned machine);

/* Target memory known from the ELF: segments of read-only data. */
struct tt_nuttx_seg {
	uint64_t addr;
	uint32_t len;
	const uint8_t *data;
};
struct tt_nuttx_mem {
	unsigned n;
	const struct tt_nuttx_seg *seg;
};

/* The firmware's g_funcnames[] (tt_nuttx_syscalls_from_fw). */
struct tt_nuttx_syscalls {
	unsigned n;
	const char *const *names; /* n entries; NULL for an entry that could not be read */
};

/* reader.h's tt_reader_config.format_cfg for "nuttx" points to a struct tt_nuttx_layout
 * (borrowed during create/decode_image; NULL = tt_nuttx_layout_default(lo, 4)). */

/* The common case: NuttX 13.x, little-endian, not SMP, no note filter, with pointers of
 * ptr_size bytes. */
void tt_nuttx_layout_default(struct tt_nuttx_layout *lo, unsigned ptr_size);
/* One `--format-opt KEY=VALUE` on a layout (keys in TT_NUTTX_LAYOUT_HELP): 0, or -EINVAL with a
 * message naming the key and the values it takes. `ptr_size` resets the offsets to that pointer
 * size's defaults (give it before offsets). The layout is checked as a whole by tt_nuttx_new. */
int tt_nuttx_layout_set(void *lo, const char *key, const char *value, char *err, size_t errlen);
/* The layout as the `--format-opt` options that give it back (tt_nuttx_layout_set on the default
 * layout, in the order passed: release and ptr_size first, since they reset offsets): one call
 * of cb per option; value borrowed for the call. Syscall names and read-only data are not
 * options (a layout file carries them beside: tt_nuttx_layout_write). */
typedef void (*tt_nuttx_option_cb)(void *arg, const char *key, const char *value);
void tt_nuttx_layout_options(const struct tt_nuttx_layout *lo, tt_nuttx_option_cb cb, void *arg);
/* Fills *out from the firmware's DWARF through fwquery.h (a blocking setup step): ring
 * offsets, pointer size, byte order, release family, time and SMP shape, task tables (which
 * field comes from where: proto/README-nuttx.md). *out is written only on success. 0, or -errno
 * with a message naming the file and what is missing: -ENODATA (no DWARF), -ESRCH (a type,
 * member or enumerator is missing), -ERANGE (values out of the ranges tracetap reads). */
struct tt_fw_query;
int tt_nuttx_layout_from_fw(const struct tt_fw_query *q, struct tt_nuttx_layout *out,
			    char *err, size_t errlen);
/* The firmware's syscall names: g_funcnames[] (its DWARF gives its address and length; the
 * pointers and the strings read from the ELF, bounds checked; an entry that is not a printable
 * name is NULL). 0 with *out allocated (free()), or -errno with a message: -ESRCH (no
 * g_funcnames: syscall notes off), -ERANGE, -ENOMEM. */
int tt_nuttx_syscalls_from_fw(const struct tt_fw_query *q, struct tt_nuttx_syscalls **out,
			      char *err, size_t errlen);
/* A copy of the ELF's read-only data sections (format strings of DUMP_PRINTF notes), at most
 * 64 MiB; one allocation: free() it. 0 or -errno with a message. */
int tt_nuttx_rodata_from_fw(const struct tt_fw_query *q, struct tt_nuttx_mem **out, char *err,
			    size_t errlen);
/* reader.h's cfg_from_fw and cfg_free for NuttX: the layout, then the syscall names and
 * read-only data it points to (missing ones are a line each in note), freed by cfg_free. */
int tt_nuttx_cfg_from_fw(void *cfg, const struct tt_fw_query *q, char *note, size_t notelen,
			 char *err, size_t errlen);
void tt_nuttx_cfg_free(void *cfg);
/* reader.h's layout_write and layout_load for NuttX (nuttx_layout_file.c): the options, then
 * "syscalls" (g_funcnames[], null where unread) and "strings" (the read-only strings with a
 * printf conversion, by address: the DUMP_PRINTF formats); load allocates them into the layout
 * (released by tt_nuttx_cfg_free). The file's form: README-nuttx.md. */
struct tt_layout_out;
struct tt_layout_in;
int tt_nuttx_layout_write(const void *cfg, const struct tt_layout_out *out);
int tt_nuttx_layout_load(void *cfg, const struct tt_layout_in *in, char *err, size_t errlen);
/* The layout as a whole (what tt_nuttx_new checks): 0, or -EINVAL with *why (static). */
int tt_nuttx_layout_check(const struct tt_nuttx_layout *lo, const char **why);
#define TT_NUTTX_LAYOUT_HELP \
	"  nuttx: release=MAJOR.MINOR (12.4 .. 13.x), ptr_size=4|8, endian=little|big, smp=0|1,\n" \
	"         time64=0|1, align=0|1|2|4|8, header_size=N, struct_align=0|4|8,\n" \
	"         off_buffer=N, off_bufsize=N,\n" \
	"         off_head=N, off_tail=N, off_overwrite=N (offsets in struct noteram_driver_s),\n" \
	"         sys_reserved=N (CONFIG_SYS_RESERVED, for syscall names from --elf);\n" \
	"         before 12.4 (g_noteram_info): bufsize=N, pid_size=2|4, time=ticks|hires;\n" \
	"         task names from the target: pidhash=ADDR, npidhash=ADDR (of g_pidhash,\n" \
	"         g_npidhash), tcb_pid=N, tcb_name=N, tcb_name_size=N, tcb_pid_size=2|4;\n" \
	"         names of exited tasks: taskname=ADDR (g_note_taskname), taskname_size=N;\n" \
	"         printf notes' %Lf: long_double=double|x87|x87-12|quad (from --elf);\n" \
	"         painted stacks: tcb_stack_base=N, tcb_stack_size=N (stack_base_ptr,\n" \
	"         adj_stack_size in struct tcb_s), stack_color=WORD (STACK_COLOR; from --elf)\n"

struct tt_nuttx_config {
	uint64_t driver_addr;     /* target address of g_noteram_driver (required) */
	struct tt_nuttx_layout layout;
	bool start_at_now;        /* skip the records present at attach */
	uint64_t tick_hz;         /* nc_systime rate (12.8+); 0 = unknown: no ns */
	size_t max_buffer_bytes;  /* refuse larger rings; 0 = default 16 MiB */
	bool ptr_ranges;          /* the caller reads TT_RANGE_TO_PTR ranges (plan.h): a poll
				   * after one that found notes is one plan, the control words, the
				   * bytes up to their head, the anchor and the control words again */
	bool host_clock_unrelated; /* the memory is a file: the host's clock says nothing of the
				    * target's (loss estimates ignore it) */
};

struct tt_nuttx_stats {
	uint64_t polls, bytes_planned, events, gaps, lost, resets, bad_records;
	uint32_t last_new;  /* records new in the last poll */
	uint32_t capacity;  /* ring size in bytes / 16 (a rough record count), 0 before attach */
};

struct tt_nuttx; /* opaque */

/* 0, -EINVAL (bad layout: message through *why if non-NULL, static) or -ENOMEM. *out: caller
 * frees with tt_nuttx_free. cfg is copied. */
int tt_nuttx_new(const struct tt_nuttx_config *cfg, struct tt_nuttx **out, const char **why);
void tt_nuttx_free(struct tt_nuttx *rd);
void tt_nuttx_plan(struct tt_nuttx *rd, struct tt_plan *plan);
/* TT_NUTTX_DONE, TT_NUTTX_MORE, or -EPROTO (inconsistent control words or a bad record; the
 * records before it were emitted and the next cycle resynchronises from the tail), -EFBIG
 * (ring larger than max_buffer_bytes), -ENOMEM. tt_nuttx_error() says exactly what. */
int tt_nuttx_ingest(struct tt_nuttx *rd, tt_emit_cb cb, void *arg);
void tt_nuttx_read_failed(struct tt_nuttx *rd, int err);
const char *tt_nuttx_error(const struct tt_nuttx *rd);
/* The host's time (ns, any monotonic origin) of the reads about to be ingested: it bounds and
 * scales the estimate of notes lost in a lap (proto/loss_int.h). Optional: without it laps are
 * estimated from the time stamps and the note rate alone, with no upper bound on a 32-bit
 * clock. */
void tt_nuttx_set_host_time(struct tt_nuttx *rd, uint64_t ns);
const struct tt_nuttx_stats *tt_nuttx_stats(const struct tt_nuttx *rd);

/* Decode a RAM image whose first byte is at target address base. driver_addr != 0: the driver
 * struct and the ring it points to must both be in the image; emits every record from tail to
 * head. driver_addr == 0: the image is a record stream (records back to back from the first
 * byte, each padded to the layout's alignment; a zero length byte or the end stops it).
 * Returns 0 or -EPROTO with a message in err (records before a bad one are emitted). */
int tt_nuttx_decode_image(const uint8_t *img, size_t len, uint64_t base, uint64_t driver_addr,
			  const struct tt_nuttx_layout *lo, uint64_t tick_hz, tt_emit_cb cb,
			  void *arg, char *err, size_t errlen);

/* Whether the image (first byte at base) holds the driver at driver_addr and the whole ring it
 * points to, with head and tail inside it: a RAM image, not a record stream (`trace dump -b`). */
bool tt_nuttx_image_holds_ring(const uint8_t *img, size_t len, uint64_t base,
			       uint64_t driver_addr, const struct tt_nuttx_layout *lo);

/* The ELF symbol of the trace control structure for this layout: "g_noteram_driver", or
 * "g_noteram_info" before 12.4 (lo NULL: the default). */
const char *tt_nuttx_elf_symbol(const struct tt_nuttx_layout *lo);

/* The name of note type t under release r ("NOTE_START", ...) or NULL. */
const char *tt_nuttx_type_name(unsigned release, unsigned t);

/* What the live analysis needs of NuttX notes (analysis_ops.h; nuttx_analysis.c). */
struct tt_analysis_ops;
extern const struct tt_analysis_ops tt_nuttx_analysis;

#endif
