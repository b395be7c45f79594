/* proto/nuttx_layout.c: the record header and driver layout of a NuttX release.
 *
 * Owns: the defaults of tt_nuttx_layout per pointer size, the format options that set it
 * (--format-opt: release, ptr_size, member offsets, ...), and deriving from it where each header
 * field and driver member lies (C alignment and the release differences described in
 * shared/reference/nuttx-note.md), plus the bounds check of one record's length.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nuttx_int.h"

void tt_nuttx_layout_default(struct tt_nuttx_layout *lo, unsigned ptr_size)
{
	unsigned p = ptr_size == 8 ? 8 : 4;

	*lo = (struct tt_nuttx_layout){
		.release = 1300, .ptr_size = (uint8_t)p, .time64 = true,
		/* note_driver_s = { ops pointer }; then ni_buffer, ni_bufsize, ni_overwrite,
		 * ni_head, ni_tail */
		.off_buffer = (uint16_t)p, .off_bufsize = (uint16_t)(2 * p),
		.off_head = (uint16_t)(3 * p + 4), .off_tail = (uint16_t)(3 * p + 8),
		.off_overwrite = (uint16_t)(3 * p), .sys_reserved = -1,
	};
}

static int opt_uint(const char *key, const char *value, unsigned long max, unsigned long *out,
		    char *err, size_t errlen)
{
	char *end;

	errno = 0;
	*out = strtoul(value, &end, 0);
	if (!*value || *value == '-' || errno || *end || *out > max) {
		snprintf(err, errlen, "nuttx option %s='%s': expected a number from 0 to %lu", key,
			 value, max);
		return -EINVAL;
	}
	return 0;
}

/* release=MAJOR.MINOR; before 12.4 the driver is struct noteram_info_s. */
static int set_release(struct tt_nuttx_layout *lo, const char *value, char *err, size_t errlen)
{
	unsigned major, minor;
	char tail;

	if (sscanf(value, "%u.%u%c", &major, &minor, &tail) != 2 || major > 99 || minor > 99) {
		snprintf(err, errlen, "nuttx option release='%s': expected MAJOR.MINOR, "
			 "e.g. 12.8", value);
		return -EINVAL;
	}
	lo->release = (uint16_t)(major * 100 + minor);
	if (lo->release < 1204) {
		/* struct noteram_info_s: overwrite, head, tail, read, buffer[] */
		lo->off_overwrite = 0;
		lo->off_head = 4;
		lo->off_tail = 8;
		lo->off_buffer = 16;
		lo->off_bufsize = 0;
		lo->time64 = false; /* CONFIG_SYSTEM_TIME64 is rare there: time64=1 */
	}
	return 0;
}

/* The options whose value is a word: 0 when set, -EINVAL on a bad value, -ENOENT when key is
 * none of them. */
static int set_word(struct tt_nuttx_layout *lo, const char *key, const char *value, char *err,
		    size_t errlen)
{
	if (!strcmp(key, "release"))
		return set_release(lo, value, err, errlen);
	if (!strcmp(key, "time")) {
		if (strcmp(value, "ticks") && strcmp(value, "hires")) {
			snprintf(err, errlen, "nuttx option time='%s': expected ticks or hires "
				 "(before 12.4)", value);
			return -EINVAL;
		}
		lo->hires = value[0] == 'h';
		return 0;
	}
	if (!strcmp(key, "pid_size")) {
		if (strcmp(value, "2") && strcmp(value, "4")) {
			snprintf(err, errlen, "nuttx option pid_size='%s': expected 2 or 4", value);
			return -EINVAL;
		}
		lo->pid_size = (uint8_t)(value[0] - '0');
		return 0;
	}
	if (!strcmp(key, "long_double")) {
		static const char *const names[] = { "double", "x87-12", "x87", "quad" };
		for (unsigned i = 0; i < 4; i++)
			if (!strcmp(value, names[i])) {
				lo->long_double = (uint8_t)(TT_NUTTX_LDBL_DOUBLE + i);
				return 0;
			}
		snprintf(err, errlen, "nuttx option long_double='%s': expected double, x87 (80-bit "
			 "in 16 bytes), x87-12 (in 12 bytes) or quad", value);
		return -EINVAL;
	}
	if (!strcmp(key, "endian")) {
		if (strcmp(value, "little") && strcmp(value, "big")) {
			snprintf(err, errlen, "nuttx option endian='%s': expected little or big",
				 value);
			return -EINVAL;
		}
		lo->big_endian = value[0] == 'b';
		return 0;
	}
	return -ENOENT;
}

/* The numeric options, in the order of num_keys[]. */
enum num_key {
	K_PTR_SIZE, K_SMP, K_TIME64, K_ALIGN, K_HEADER_SIZE, K_OFF_BUFFER, K_OFF_BUFSIZE,
	K_OFF_HEAD, K_OFF_TAIL, K_OFF_OVERWRITE, K_SYS_RESERVED, K_BUFSIZE, K_PIDHASH, K_NPIDHASH,
	K_TCB_PID, K_TCB_NAME, K_TCB_NAME_SIZE, K_TCB_PID_SIZE, K_STRUCT_ALIGN, K_TASKNAME,
	K_TASKNAME_SIZE, K_TCB_STACK_BASE, K_TCB_STACK_SIZE, K_STACK_COLOR, K_NUM
};

static const struct {
	const char *key;
	unsigned long max;
} num_keys[K_NUM] = {
	{ "ptr_size", 8 }, { "smp", 1 }, { "time64", 1 }, { "align", 8 },
	{ "header_size", 255 }, { "off_buffer", 4096 }, { "off_bufsize", 4096 },
	{ "off_head", 4096 }, { "off_tail", 4096 }, { "off_overwrite", 4096 },
	{ "sys_reserved", 255 }, { "bufsize", 16u << 20 }, { "pidhash", ULONG_MAX },
	{ "npidhash", ULONG_MAX }, { "tcb_pid", 65535 }, { "tcb_name", 65535 },
	{ "tcb_name_size", 255 }, { "tcb_pid_size", 4 }, { "struct_align", 8 },
	{ "taskname", ULONG_MAX }, { "taskname_size", 4096 }, { "tcb_stack_base", 65535 },
	{ "tcb_stack_size", 65535 }, { "stack_color", UINT32_MAX },
};

/* The values a numeric option's range admits but the layout does not. */
static int check_number(enum num_key k, unsigned long v, const char *value, char *err,
			size_t errlen)
{
	const char *want = NULL;

	if (k == K_PTR_SIZE && v != 4 && v != 8)
		want = "4 or 8";
	else if (k == K_ALIGN && (v & (v - 1)))
		want = "0, 1, 2, 4 or 8";
	else if (k == K_STRUCT_ALIGN && v && v != 4 && v != 8)
		want = "0, 4 or 8";
	else if (k == K_TCB_PID_SIZE && v != 2 && v != 4)
		want = "2 or 4";
	if (!want)
		return 0;
	snprintf(err, errlen, "nuttx option %s='%s': expected %s", num_keys[k].key, value, want);
	return -EINVAL;
}

static void set_number(struct tt_nuttx_layout *lo, enum num_key k, unsigned long v)
{
	struct tt_nuttx_layout d;

	switch (k) {
	case K_PTR_SIZE:
		/* the pointer size and the driver offsets that follow it */
		tt_nuttx_layout_default(&d, (unsigned)v);
		lo->ptr_size = d.ptr_size;
		lo->off_buffer = d.off_buffer;
		lo->off_bufsize = d.off_bufsize;
		lo->off_head = d.off_head;
		lo->off_tail = d.off_tail;
		lo->off_overwrite = d.off_overwrite;
		break;
	case K_SMP: lo->smp = v; break;
	case K_TIME64: lo->time64 = v; break;
	case K_ALIGN: lo->align = (uint8_t)v; break;
	case K_HEADER_SIZE: lo->header_size = (uint8_t)v; break;
	case K_OFF_BUFFER: lo->off_buffer = (uint16_t)v; break;
	case K_OFF_BUFSIZE: lo->off_bufsize = (uint16_t)v; break;
	case K_OFF_HEAD: lo->off_head = (uint16_t)v; break;
	case K_OFF_TAIL: lo->off_tail = (uint16_t)v; break;
	case K_OFF_OVERWRITE: lo->off_overwrite = (uint16_t)v; break;
	case K_SYS_RESERVED: lo->sys_reserved = (int32_t)v; break;
	case K_BUFSIZE: lo->bufsize = (uint32_t)v; break;
	case K_PIDHASH: lo->pidhash_addr = v; break;
	case K_NPIDHASH: lo->npidhash_addr = v; break;
	case K_TCB_PID: lo->tcb_off_pid = (uint16_t)v; break;
	case K_TCB_NAME: lo->tcb_off_name = (uint16_t)v; break;
	case K_TCB_NAME_SIZE: lo->tcb_name_size = (uint8_t)v; break;
	case K_TCB_PID_SIZE: lo->tcb_pid_size = (uint8_t)v; break;
	case K_STRUCT_ALIGN: lo->struct_align = (uint8_t)v; break;
	case K_TASKNAME: lo->taskname_addr = v; break;
	case K_TASKNAME_SIZE: lo->taskname_size = (uint16_t)v; break;
	case K_TCB_STACK_BASE: lo->tcb_off_stack_base = (uint16_t)v; break;
	case K_TCB_STACK_SIZE: lo->tcb_off_stack_size = (uint16_t)v; break;
	case K_STACK_COLOR: lo->stack_color = (uint32_t)v; break;
	case K_NUM: break;
	}
}

int tt_nuttx_layout_set(void *cfg, const char *key, const char *value, char *err, size_t errlen)
{
	struct tt_nuttx_layout *lo = cfg;
	unsigned long v;
	int rc = set_word(lo, key, value, err, errlen);

	if (rc != -ENOENT)
		return rc;
	for (enum num_key k = 0; k < K_NUM; k++) {
		if (strcmp(key, num_keys[k].key))
			continue;
		if (opt_uint(key, value, num_keys[k].max, &v, err, errlen) < 0 ||
		    check_number(k, v, value, err, errlen) < 0)
			return -EINVAL;
		set_number(lo, k, v);
		return 0;
	}
	snprintf(err, errlen, "nuttx has no option '%s' (options: release, ptr_size, endian, smp, "
		 "time64, align, header_size, struct_align, off_buffer, off_bufsize, off_head, off_tail, "
		 "off_overwrite, sys_reserved, bufsize, pid_size, time, pidhash, npidhash, tcb_pid, "
		 "tcb_name, tcb_name_size, tcb_pid_size, taskname, taskname_size, long_double, "
		 "tcb_stack_base, tcb_stack_size, stack_color)", key);
	return -EINVAL;
}

static void header_fields(struct nx_lay *l, bool hires)
{
	unsigned off = 3, end, maxal = 4;

	l->off_nsec = 0;
	l->nsec_size = l->ptr;
	if (l->bytes) {
		/* u8 len, type, prio, [cpu], pid[], then sec[] + nsec[] or ticks[]: no padding */
		l->has_cpu = l->smp;
		l->off_pid = l->smp ? 4 : 3;
		l->time_size = l->time64 ? 8 : 4;
		l->off_time = l->off_pid + l->pid_size;
		end = l->off_time + l->time_size;
		if (hires) {
			l->off_nsec = end;
			end += l->nsec_size;
		}
		l->hdr = end;
		return;
	}
	if (l->release >= 1208) {
		l->has_cpu = true;
		l->off_pid = 4;
		l->off_time = 8;
		l->time_size = l->release >= 1300 || l->time64 ? 8 : 4;
		end = 8 + l->time_size;
		maxal = l->time_size;
	} else {
		l->has_cpu = l->smp;
		if (l->smp)
			off = 4;
		l->off_pid = nx_alignup(off, 4);
		l->time_size = l->time64 ? 8 : 4;
		l->off_time = nx_alignup(l->off_pid + 4, l->time_size);
		l->off_nsec = nx_alignup(l->off_time + l->time_size, l->ptr);
		end = l->off_nsec + l->ptr;
		maxal = l->time_size > l->ptr ? l->time_size : l->ptr;
	}
	l->hdr = nx_alignup(end, maxal);
}

/* Where the driver's control members lie, checked not to overlap; the span read each cycle. */
static int driver_fields(const struct tt_nuttx_layout *lo, struct nx_lay *l, const char **why)
{
	unsigned lo_off = UINT32_MAX, hi_end = 0;

	l->off_buffer = lo->off_buffer;
	l->off_bufsize = lo->off_bufsize;
	l->off_head = lo->off_head;
	l->off_tail = lo->off_tail;
	l->off_overwrite = lo->off_overwrite || l->bytes ? lo->off_overwrite
							 : lo->off_bufsize + l->ptr;
	const unsigned offs[5] = { l->off_buffer, l->off_bufsize, l->off_head, l->off_tail,
				   l->off_overwrite };
	/* before 12.4 the buffer is inline and its size a constant: not control words */
	const unsigned sizes[5] = { l->bytes ? 0 : l->ptr, l->bytes ? 0 : l->ptr, 4, 4, 4 };
	for (int i = 0; i < 5; i++) {
		if (!sizes[i])
			continue;
		if (offs[i] < lo_off)
			lo_off = offs[i];
		if (offs[i] + sizes[i] > hi_end)
			hi_end = offs[i] + sizes[i];
		for (int j = 0; j < i; j++)
			if (sizes[j] && offs[i] < offs[j] + sizes[j] && offs[j] < offs[i] + sizes[i]) {
				*why = "driver member offsets overlap (ni_buffer, ni_bufsize, ni_head, "
				       "ni_tail, ni_overwrite)";
				return -EINVAL;
			}
	}
	if (hi_end - lo_off > 256) {
		*why = "driver member offsets span more than 256 bytes";
		return -EINVAL;
	}
	l->ctl_lo = lo_off;
	l->ctl_len = hi_end - lo_off;
	return 0;
}

int nx_lay_resolve(const struct tt_nuttx_layout *lo, struct nx_lay *l, const char **why)
{
	memset(l, 0, sizeof(*l));
	l->release = lo->release;
	l->ldbl = lo->long_double;
	l->ptr = lo->ptr_size;
	l->be = lo->big_endian;
	l->smp = lo->smp;
	l->time64 = lo->time64;
	if (l->ptr != 4 && l->ptr != 8) {
		*why = "pointer size must be 4 or 8";
		return -EINVAL;
	}
	l->bytes = l->release < 1204;
	l->pal = l->bytes ? 1 : l->ptr;
	l->pid_size = lo->pid_size ? lo->pid_size : 4;
	if (l->pid_size != 2 && l->pid_size != 4) {
		*why = "pid_size must be 2 or 4";
		return -EINVAL;
	}
	if (l->bytes) {
		l->be = false; /* byte arrays are stored little-endian whatever the CPU */
		l->bufsize = lo->bufsize;
		if (!l->bufsize) {
			*why = "before 12.4 the ring is inside g_noteram_info: its size "
			       "(CONFIG_DRIVER_NOTERAM_BUFSIZE) is needed (bufsize=N, or --elf)";
			return -EINVAL;
		}
	}
	l->align = lo->align ? lo->align : l->release < 1207 ? 1 : l->ptr;
	if (l->bytes)
		l->align = 1;
	if (l->align != 1 && l->align != 2 && l->align != 4 && l->align != 8) {
		*why = "record alignment must be 1, 2, 4 or 8";
		return -EINVAL;
	}
	header_fields(l, lo->hires);
	if (lo->header_size) {
		unsigned fields_end = l->off_nsec ? l->off_nsec + l->ptr : l->off_time + l->time_size;
		if (lo->header_size < fields_end) {
			*why = "header_size is smaller than the header's fields for this release";
			return -EINVAL;
		}
		l->hdr = lo->header_size;
	}
	l->salign = lo->struct_align ? lo->struct_align
				     : l->time_size > l->ptr ? l->time_size : l->ptr;
	return driver_fields(lo, l, why);
}

uint64_t nx_get(const struct nx_lay *l, const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[l->be ? size - 1 - i : i] << (8 * i);
	return v;
}

int nx_rec_check(const struct nx_lay *l, const uint8_t *p, size_t avail, char *err, size_t errlen)
{
	unsigned len = avail ? p[0] : 0;

	if (!avail)
		snprintf(err, errlen, "no bytes for a record");
	else if (len == 0)
		snprintf(err, errlen, "record length 0 (nc_length byte is zero)");
	else if (len < l->hdr)
		snprintf(err, errlen, "record length %u is shorter than the %u-byte header", len,
			 l->hdr);
	else if (len > avail)
		snprintf(err, errlen, "record length %u runs past the %zu bytes up to the head",
			 len, avail);
	else
		return 0;
	return -EPROTO;
}


int tt_nuttx_layout_check(const struct tt_nuttx_layout *lo, const char **why)
{
	struct nx_lay l;

	if (nx_lay_resolve(lo, &l, why) < 0)
		return -EINVAL;
	if (!lo->taskname_addr != !lo->taskname_size) {
		*why = "the task name cache needs both taskname (g_note_taskname) and taskname_size "
		       "(CONFIG_DRIVERS_NOTE_TASKNAME_BUFSIZE)";
		return -EINVAL;
	}
	if (!lo->pidhash_addr && !lo->npidhash_addr)
		return 0;
	if (!lo->pidhash_addr || !lo->npidhash_addr || !lo->tcb_off_pid || !lo->tcb_off_name ||
	    !lo->tcb_name_size) {
		*why = "task names from the target need all of pidhash, npidhash, tcb_pid, tcb_name "
		       "and tcb_name_size (or --elf with g_pidhash and struct tcb_s in its DWARF)";
		return -EINVAL;
	}
	if (lo->tcb_pid_size && lo->tcb_pid_size != 2 && lo->tcb_pid_size != 4) {
		*why = "tcb_pid_size must be 2 or 4";
		return -EINVAL;
	}
	return 0;
}

void tt_nuttx_layout_options(const struct tt_nuttx_layout *lo, tt_nuttx_option_cb cb, void *arg)
{
	/* always: the pointer size and what it or the release resets; the rest when not 0
	 * ("derive" or "none", the default) */
	const struct {
		const char *key;
		uint64_t v;
		bool always, hex;
	} nums[] = {
		{ "ptr_size", lo->ptr_size, true, false }, { "smp", lo->smp, true, false },
		{ "time64", lo->time64, true, false }, { "off_buffer", lo->off_buffer, true, false },
		{ "off_bufsize", lo->off_bufsize, true, false },
		{ "off_head", lo->off_head, true, false }, { "off_tail", lo->off_tail, true, false },
		{ "off_overwrite", lo->off_overwrite, true, false },
		{ "align", lo->align, false, false }, { "header_size", lo->header_size, false, false },
		{ "bufsize", lo->bufsize, false, false }, { "pid_size", lo->pid_size, false, false },
		{ "pidhash", lo->pidhash_addr, false, true },
		{ "npidhash", lo->npidhash_addr, false, true },
		{ "tcb_pid", lo->tcb_off_pid, false, false },
		{ "tcb_name", lo->tcb_off_name, false, false },
		{ "tcb_name_size", lo->tcb_name_size, false, false },
		{ "tcb_pid_size", lo->tcb_pid_size, false, false },
		{ "struct_align", lo->struct_align, false, false },
		{ "taskname", lo->taskname_addr, false, true },
		{ "taskname_size", lo->taskname_size, false, false },
		{ "tcb_stack_base", lo->tcb_off_stack_base, false, false },
		{ "tcb_stack_size", lo->tcb_off_stack_size, false, false },
		{ "stack_color", lo->stack_color, false, true },
	};
	char v[32];

	snprintf(v, sizeof(v), "%u.%u", lo->release / 100u, lo->release % 100u);
	cb(arg, "release", v);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (!nums[i].always && !nums[i].v)
			continue;
		snprintf(v, sizeof(v), nums[i].hex ? "0x%llx" : "%llu", (unsigned long long)nums[i].v);
		cb(arg, nums[i].key, v);
	}
	cb(arg, "endian", lo->big_endian ? "big" : "little");
	if (lo->long_double) {
		static const char *const names[] = { "double", "x87-12", "x87", "quad" };
		cb(arg, "long_double", names[(lo->long_double - 1) & 3]);
	}
	if (lo->release < 1204)
		cb(arg, "time", lo->hires ? "hires" : "ticks");
	if (lo->sys_reserved >= 0) {
		snprintf(v, sizeof(v), "%d", (int)lo->sys_reserved);
		cb(arg, "sys_reserved", v);
	}
}

uint8_t tt_nuttx_ldbl_of_machine(unsigned machine)
{
	switch (machine) {
	case 3: /* EM_386 */
		return TT_NUTTX_LDBL_X87_12;
	case 62: /* EM_X86_64 (the sim on a PC; an x32 build keeps the 16 bytes) */
		return TT_NUTTX_LDBL_X87_16;
	case 183: /* EM_AARCH64 */
	case 243: /* EM_RISCV (RV32 and RV64: binary128) */
		return TT_NUTTX_LDBL_QUAD;
	case 40:  /* EM_ARM */
	case 94:  /* EM_XTENSA */
	case 105: /* EM_MSP430 */
		return TT_NUTTX_LDBL_DOUBLE;
	default:
		return TT_NUTTX_LDBL_NONE; /* not known here: %L notes stay hex */
	}
}

uint32_t tt_nuttx_stack_color_of_machine(unsigned machine)
{
	switch (machine) {
	case 40:  /* EM_ARM */
	case 243: /* EM_RISCV */
	case 3:   /* EM_386 and */
	case 62:  /* EM_X86_64: the sim */
		return 0xdeadbeefu;
	case 183: /* EM_AARCH64 */
		return 0xdeaddeadu;
	default:
		return 0; /* not known here: no stack figures */
	}
}
