/* export/export.c: records (wire JSON) to jsonl, Perfetto/Chrome JSON, ftrace text and TraceX.
 *
 * Every record is parsed once with cJSON (exports are off the hot path) and handed to the
 * format's writer. Perfetto and ftrace stream; trx keeps the raw words (32 bytes per event)
 * and the names seen until tt_export_finish, because the header and the registry come first
 * in the file. Formats are described in export.h.
 */
#include "export.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/json.h"
#include "../proto/reader.h"
#include "../proto/threadx.h"
#include "record_json.h"
#include "tt_config.h"

#define MAX_OBJS 1024
#define TRX_BASE 0x10000000u
#define TRX_NAME_SIZE 32u
#define TRX_NAME_MAX 256u  /* the largest name size a source may give */
#define PF_HEAD "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
#define FT_NCPUS 16
#define FT_NTASKS 256

struct obj {
	uint32_t ptr;
	uint8_t type;
	char name[TRX_NAME_SIZE];
};

struct tt_export {
	enum tt_export_format fmt;
	tt_export_write_cb write;
	void *arg;
	int err;
	uint64_t written, skipped;
	bool first;               /* perfetto: no comma before the next event */
	bool named_process;
	/* thread names (perfetto/ftrace) and registry objects (trx) */
	struct obj objs[MAX_OBJS];
	size_t nobjs;
	/* perfetto: the running slice being extended ([start, end) on track tid) and the previous
	 * event (a record's `run` covers the time since it) */
	bool slice_open, prev_ok;
	uint32_t slice_tid;
	double slice_start, slice_end, prev_us, last_us;
	double prev_seq;
	bool init_named;
	uint64_t lost;
	/* trx */
	uint32_t *words;
	size_t nent, capent;
	uint32_t ts_max;          /* largest masked time stamp seen */
	bool ts_masked;           /* some raw time word had bits the masked stamp has not */
	bool have_src;            /* the source's header and registry (tt_export_set_threadx) */
	uint32_t src_mask, src_name_size;
	struct src_obj {
		uint8_t avail, type, reserved[2];
		uint32_t ptr, p1, p2;
		char *name;
	} *src;
	size_t nsrc;
	/* ftrace of NuttX notes: the state NuttX's trace dump keeps */
	bool nuttx;
	struct ft_cpu {
		int intr_nest, state;
		bool pending;
		int32_t cur_pid, next_pid;
		int cur_prio, next_prio;
	} cpu[FT_NCPUS];
	unsigned ncpus;           /* highest core seen + 1: pids below it are idle tasks */
	/* ftrace of other formats: the threads in the order first seen (pid = index + 1) */
	uint32_t ft_threads[FT_NTASKS];
	unsigned nft_threads;
	struct ft_task {
		int32_t pid;
		bool used;
		char name[32];
	} tasks[FT_NTASKS];
};

int tt_export_format_parse(const char *name)
{
	static const char *const names[] = { "jsonl", "trx", "perfetto", "ftrace" };

	for (int i = 0; i < 4; i++)
		if (name && !strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

const char *tt_export_format_name(enum tt_export_format fmt)
{
	static const char *const names[] = { "jsonl", "trx", "perfetto", "ftrace" };

	return (unsigned)fmt < 4 ? names[fmt] : "?";
}

const char *tt_export_content_type(enum tt_export_format fmt)
{
	switch (fmt) {
	case TT_EXPORT_JSONL: return "application/x-ndjson";
	case TT_EXPORT_TRX: return "application/octet-stream";
	case TT_EXPORT_PERFETTO: return "application/json";
	default: return "text/plain";
	}
}

const char *tt_export_file_ext(enum tt_export_format fmt)
{
	switch (fmt) {
	case TT_EXPORT_JSONL: return ".jsonl";
	case TT_EXPORT_TRX: return ".trx";
	case TT_EXPORT_PERFETTO: return ".json";
	default: return ".txt";
	}
}

int tt_export_new(enum tt_export_format fmt, tt_export_write_cb write, void *arg,
		  struct tt_export **out)
{
	struct tt_export *e;

	if ((unsigned)fmt > TT_EXPORT_FTRACE || !write)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fmt = fmt;
	e->write = write;
	e->arg = arg;
	e->first = true;
	*out = e;
	return 0;
}

static void src_clear(struct tt_export *e)
{
	for (size_t i = 0; i < e->nsrc; i++)
		free(e->src[i].name);
	free(e->src);
	e->src = NULL;
	e->nsrc = 0;
	e->have_src = false;
}

void tt_export_free(struct tt_export *e)
{
	if (!e)
		return;
	src_clear(e);
	free(e->words);
	free(e);
}

int tt_export_set_threadx(struct tt_export *e, const struct tt_threadx *rd)
{
	struct tt_threadx_header_info hi;
	struct tt_threadx_object o;

	if (tt_threadx_header_info(rd, &hi) < 0)
		return -ENOENT;
	src_clear(e);
	e->src = calloc(hi.registry_entries ? hi.registry_entries : 1, sizeof(*e->src));
	if (!e->src)
		return -ENOMEM;
	for (uint32_t i = 0; i < hi.registry_entries; i++) {
		struct src_obj *s = &e->src[e->nsrc];
		if (tt_threadx_registry_at(rd, i, &o) < 0)
			break;
		*s = (struct src_obj){ .avail = o.deleted, .type = o.type, .ptr = o.ptr,
				       .p1 = o.param1, .p2 = o.param2,
				       .reserved = { o.reserved[0], o.reserved[1] },
				       .name = strdup(o.name ? o.name : "") };
		if (!s->name)
			return -ENOMEM;
		e->nsrc++;
	}
	e->have_src = true;
	e->src_mask = hi.timer_mask;
	e->src_name_size = hi.name_size < 4 ? 4 : hi.name_size > TRX_NAME_MAX ? TRX_NAME_MAX :
			   hi.name_size;
	return 0;
}

uint64_t tt_export_written(const struct tt_export *e)
{
	return e->written;
}

uint64_t tt_export_skipped(const struct tt_export *e)
{
	return e->skipped;
}

static void put(struct tt_export *e, const void *buf, size_t len)
{
	if (!e->err && len)
		e->err = e->write(e->arg, buf, len);
}

static void putf(struct tt_export *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct tt_export *e, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(e, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* A JSON string literal of s (quotes included) into buf. */
static const char *jstr(char *buf, size_t cap, const char *s)
{
	int n = tt_json_string(buf, cap - 1, s ? s : "", 200);

	if (n < 0)
		n = snprintf(buf, cap, "\"\"");
	buf[n] = 0;
	return buf;
}

/* ---- field access ---- */

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

static double num(const cJSON *o, const char *k, double def)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(it) ? it->valuedouble : def;
}

static uint32_t hexnum(const cJSON *o, const char *k)
{
	const char *s = str(o, k);

	return s ? (uint32_t)strtoul(s, NULL, 16) : 0;
}

/* Up to 8 raw words; returns how many. */
static int raw_words(const cJSON *rec, uint32_t w[8])
{
	const cJSON *raw = cJSON_GetObjectItemCaseSensitive(rec, "raw"), *it;
	int n = 0;

	cJSON_ArrayForEach(it, raw) {
		if (n == 8 || !cJSON_IsNumber(it))
			return -1;
		w[n++] = tt_json_u32(it->valuedouble);
	}
	return n;
}

static struct obj *obj_find(struct tt_export *e, uint32_t ptr)
{
	for (size_t i = 0; i < e->nobjs; i++)
		if (e->objs[i].ptr == ptr)
			return &e->objs[i];
	return NULL;
}

static void obj_add(struct tt_export *e, uint32_t ptr, uint8_t type, const char *name)
{
	struct obj *o;

	if (!ptr || !name || !*name || ptr == 0xFFFFFFFFu || ptr == 0xF0F0F0F0u)
		return;
	o = obj_find(e, ptr);
	if (!o) {
		if (e->nobjs == MAX_OBJS)
			return;
		o = &e->objs[e->nobjs++];
		o->ptr = ptr;
	}
	o->type = type;
	snprintf(o->name, sizeof(o->name), "%s", name);
}

/* Registry object type (threadx-trace.md) of an object argument, by its name. */
static uint8_t obj_type(const char *arg, uint32_t id)
{
	if (strstr(arg, "thread"))
		return 1;
	if (!strcmp(arg, "timer"))
		return 2;
	if (!strcmp(arg, "queue"))
		return 3;
	if (!strcmp(arg, "semaphore"))
		return 4;
	if (!strcmp(arg, "mutex"))
		return 5;
	if (!strcmp(arg, "group"))
		return 6;
	if (!strcmp(arg, "pool"))
		return id >= 20 && id < 30 ? 8 : 7;
	return 2;
}

/* Learns names: the running/interrupted thread, and object arguments whose raw word is a
 * pointer (large, not TX_WAIT_FOREVER) and whose value was rendered as a name. */
static void learn(struct tt_export *e, const cJSON *rec, const uint32_t w[8], int nw)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(rec, "args"), *a;
	int i = 0;

	obj_add(e, hexnum(rec, "thread"), 1, str(rec, "thread_name"));
	obj_add(e, hexnum(rec, "interrupted"), 1, str(rec, "interrupted_name"));
	obj_add(e, hexnum(rec, "run_thread"), 1, str(rec, "run_name"));
	if (nw < 8)
		return;
	cJSON_ArrayForEach(a, args) {
		if (i >= 4)
			break;
		uint32_t v = w[4 + i++];
		if (cJSON_IsString(a) && strncmp(a->valuestring, "0x", 2) && v >= 0x1000 &&
		    v != 0xFFFFFFFFu)
			obj_add(e, v, obj_type(a->string, tt_json_u32(num(rec, "id", 0))),
				a->valuestring);
	}
}

/* ---- perfetto ---- */

static double time_us(const cJSON *rec)
{
	double ns = num(rec, "ns", -1);

	return ns >= 0 ? ns / 1000.0 : num(rec, "time", 0); /* ticks shown as us */
}

static void pf_event(struct tt_export *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pf_event(struct tt_export *e, const char *fmt, ...)
{
	char tmp[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n <= 0 || (size_t)n >= sizeof(tmp))
		return;
	if (!e->first)
		put(e, ",\n", 2);
	e->first = false;
	put(e, tmp, (size_t)n);
}

static void pf_thread_name(struct tt_export *e, uint32_t tid, const char *name)
{
	char b[512];

	pf_event(e, "{\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32 ",\"name\":\"thread_name\","
		    "\"args\":{\"name\":%s}}", tid, jstr(b, sizeof(b), name));
}

/* Track of the init context (no thread pointer is 1). */
#define PF_INIT_TID 1u

static void pf_close_slice(struct tt_export *e)
{
	const struct obj *o;
	const char *name;
	char b[512], hex[16];

	if (!e->slice_open)
		return;
	e->slice_open = false;
	o = obj_find(e, e->slice_tid);
	snprintf(hex, sizeof(hex), "0x%08" PRIx32, e->slice_tid);
	name = e->slice_tid == 0 ? "ISR" : e->slice_tid == PF_INIT_TID ? "init" : o ? o->name : hex;
	pf_event(e, "{\"ph\":\"X\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":%.3f,\"dur\":%.3f,"
		    "\"name\":%s,\"cat\":\"running\"}", e->slice_tid, e->slice_start,
		 e->slice_end - e->slice_start, jstr(b, sizeof(b), name));
}

/* The record's `run` (who ran since the previous record, which the reader derived) extends the
 * running slice or starts the next one; unknown or idle time closes it. */
static void pf_run(struct tt_export *e, const cJSON *rec, double ts)
{
	const char *run = str(rec, "run");
	double seq = num(rec, "seq", -1);
	uint32_t tid = 0;
	bool known = run && e->prev_ok && seq == e->prev_seq + 1;

	if (known && !strcmp(run, "thread"))
		tid = hexnum(rec, "run_thread");
	else if (known && !strcmp(run, "init"))
		tid = PF_INIT_TID;
	else if (!known || strcmp(run, "isr"))
		known = false; /* idle, or not known: no slice */
	if (known && tid == PF_INIT_TID && !e->init_named) {
		e->init_named = true;
		pf_thread_name(e, PF_INIT_TID, "init");
	}
	if (known && e->slice_open && e->slice_tid == tid && e->slice_end == e->prev_us) {
		e->slice_end = ts;
	} else {
		pf_close_slice(e);
		if (known) {
			e->slice_open = true;
			e->slice_tid = tid;
			e->slice_start = e->prev_us;
			e->slice_end = ts;
		}
	}
	e->prev_ok = true;
	e->prev_us = ts;
	e->prev_seq = seq;
}

static void pf_record(struct tt_export *e, const cJSON *rec, const char *type)
{
	double ts = strcmp(type, "event") ? e->last_us : time_us(rec);
	char b1[512], b2[512];

	if (!e->named_process) {
		e->named_process = true;
		pf_event(e, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":%s}}",
			 jstr(b1, sizeof(b1), str(rec, "target") ? str(rec, "target") : "target"));
		pf_event(e, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_name\","
			    "\"args\":{\"name\":\"ISR\"}}");
	}
	if (!strcmp(type, "gap")) {
		pf_close_slice(e);
		e->prev_ok = false;
		e->lost += tt_json_u64(num(rec, "lost", 0));
		pf_event(e, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
			    "\"name\":\"gap\",\"args\":{\"lost\":%.0f,\"reason\":%s,\"seq\":%.0f}}",
			 ts, num(rec, "lost", 0), jstr(b1, sizeof(b1), str(rec, "reason")),
			 num(rec, "seq", 0));
		pf_event(e, "{\"ph\":\"C\",\"pid\":1,\"ts\":%.3f,\"name\":\"events lost\","
			    "\"args\":{\"lost\":%" PRIu64 "}}", ts, e->lost);
		return;
	}
	if (!strcmp(type, "reset")) {
		pf_close_slice(e);
		e->prev_ok = false;
		pf_event(e, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
			    "\"name\":\"reset\",\"args\":{\"reason\":%s}}", ts,
			 jstr(b1, sizeof(b1), str(rec, "reason")));
		return;
	}
	uint32_t w[8] = { 0 };
	int nw = raw_words(rec, w);
	size_t before = e->nobjs;
	learn(e, rec, w, nw);
	for (size_t i = before; i < e->nobjs; i++)
		if (e->objs[i].type == 1)
			pf_thread_name(e, e->objs[i].ptr, e->objs[i].name);
	const char *ctx = str(rec, "ctx");
	uint32_t tid = ctx && !strcmp(ctx, "thread") ? hexnum(rec, "thread") : 0;
	uint32_t id = tt_json_u32(num(rec, "id", 0));
	e->last_us = ts;
	pf_run(e, rec, ts);
	char *args = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(rec, "args"));
	pf_event(e, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":%.3f,"
		    "\"name\":%s,\"cat\":\"rtos\",\"args\":{\"seq\":%.0f,\"id\":%" PRIu32
		    ",\"args\":%s}}", tid, ts, jstr(b2, sizeof(b2), str(rec, "name")),
		 num(rec, "seq", 0), id, args ? args : "{}");
	cJSON_free(args);
}

/* ---- ftrace ---- */

/* NuttX notes in the form of NuttX's own `trace dump` (drivers/note/noteram_driver.c
 * noteram_dump_one; shared/reference/nuttx-note.md), with the values NuttX gets wrong shown as
 * the reader decoded them (a truncated syscall argument stays "0x????3c10"). */

static struct ft_task *ft_task(struct tt_export *e, int32_t pid)
{
	return &e->tasks[(uint32_t)pid % FT_NTASKS];
}

static const char *ft_name(struct tt_export *e, int32_t pid)
{
	struct ft_task *t = ft_task(e, pid);

	return t->used && t->pid == pid ? t->name : "<noname>";
}

static unsigned ft_pid(const struct tt_export *e, int32_t pid)
{
	return pid >= 0 && (unsigned)pid < e->ncpus ? 0 : (unsigned)pid; /* idle tasks: 0 */
}

/* NuttX's get_task_state: 0 'X', up to running 'R', else 'S' (the decoded state names) */
static char ft_state(int s)
{
	return s == 0 ? 'X' : s > 0 && s < 100 ? 'R' : 'S';
}

static int ft_state_of(const cJSON *v)
{
	static const char *const run[] = { "pending", "ready", "assigned", "running" };

	if (cJSON_IsNumber(v))
		return v->valuedouble == 0 ? 0 : 100; /* configuration-dependent beyond the names */
	if (!cJSON_IsString(v) || !strcmp(v->valuestring, "invalid"))
		return 0;
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++)
		if (!strcmp(v->valuestring, run[i]))
			return 1;
	return 100;
}

/* An argument as NuttX prints a uintptr_t with 0x%PRIxPTR: hex without leading zeros; a
 * string that is not plain hex (a truncated argument, a name) as it is. */
static void ft_hex(const cJSON *v, char *out, size_t cap)
{
	char *end;

	if (cJSON_IsNumber(v)) {
		snprintf(out, cap, "0x%llx", (unsigned long long)tt_json_u64(v->valuedouble));
	} else if (cJSON_IsString(v) && !strncmp(v->valuestring, "0x", 2) &&
		   v->valuestring[2] && (strtoull(v->valuestring + 2, &end, 16), !*end)) {
		snprintf(out, cap, "0x%llx", strtoull(v->valuestring + 2, NULL, 16));
	} else {
		snprintf(out, cap, "%.40s", cJSON_IsString(v) ? v->valuestring : "?");
	}
}

static const cJSON *ft_arg(const cJSON *rec, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "args"), k);
}

static const char *ft_str(const cJSON *rec, const char *k, char *buf, size_t cap)
{
	const cJSON *v = ft_arg(rec, k);

	if (cJSON_IsString(v))
		return v->valuestring;
	snprintf(buf, cap, "%.0f", cJSON_IsNumber(v) ? v->valuedouble : 0);
	return buf;
}

/* The word NuttX prints for a note's suffix: pairs { suffix, word }, NULL-terminated. */
static const char *ft_word(const char *const *pairs, const char *suffix)
{
	for (; pairs[0]; pairs += 2)
		if (!strcmp(pairs[0], suffix))
			return pairs[1];
	return "?";
}

static void ft_header(struct tt_export *e, const cJSON *rec, int32_t pid, unsigned cpu)
{
	double ns = num(rec, "ns", -1);
	uint64_t t = ns >= 0 ? tt_json_u64(ns) : tt_json_u64(num(rec, "time", 0));

	putf(e, "%8s-%-3u [%u] %3llu.%09llu: ", ft_name(e, pid), ft_pid(e, pid), cpu,
	     (unsigned long long)(t / 1000000000u), (unsigned long long)(t % 1000000000u));
}

static void ft_switch(struct tt_export *e, struct ft_cpu *c)
{
	putf(e, "sched_switch: prev_comm=%s prev_pid=%u prev_prio=%u prev_state=%c ==> "
		"next_comm=%s next_pid=%u next_prio=%u\n", ft_name(e, c->cur_pid),
	     ft_pid(e, c->cur_pid), (unsigned)c->cur_prio & 0xff, ft_state(c->state),
	     ft_name(e, c->next_pid), ft_pid(e, c->next_pid), (unsigned)c->next_prio & 0xff);
	c->cur_pid = c->next_pid;
	c->cur_prio = c->next_prio;
	c->pending = false;
}

static void ft_nuttx(struct tt_export *e, const cJSON *rec, const char *name)
{
	int32_t pid = (int32_t)hexnum(rec, "thread");
	double core = num(rec, "core", 0);
	unsigned cpu = core >= 0 && core < FT_NCPUS ? (unsigned)core : 0;
	struct ft_cpu *c = &e->cpu[cpu];
	const char *tn = str(rec, "thread_name");
	char b1[48], b2[48], b3[48];

	if (cpu + 1 > e->ncpus)
		e->ncpus = cpu + 1;
	if (tn) { /* NuttX's copy_task_name: spaces become '_' */
		struct ft_task *t = ft_task(e, pid);
		t->pid = pid;
		t->used = true;
		snprintf(t->name, sizeof(t->name), "%s", tn);
		for (char *s = t->name; *s; s++)
			if (*s == ' ')
				*s = '_';
	}
	if (c->cur_pid < 0)
		c->cur_pid = pid;
	name += 5; /* "NOTE_" */
	if (!strcmp(name, "START")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "sched_wakeup_new: comm=%s pid=%u target_cpu=%u\n", ft_name(e, pid),
		     ft_pid(e, pid), cpu);
	} else if (!strcmp(name, "STOP")) {
		c->state = 0;
	} else if (!strcmp(name, "SUSPEND")) {
		c->state = ft_state_of(ft_arg(rec, "state"));
	} else if (!strcmp(name, "RESUME")) {
		c->next_pid = pid;
		c->next_prio = tt_json_i32(num(rec, "prio", 0));
		ft_header(e, rec, pid, cpu);
		if (!c->intr_nest) {
			ft_switch(e, c);
		} else {
			putf(e, "sched_waking: comm=%s pid=%u target_cpu=%u\n", ft_name(e, pid),
			     ft_pid(e, pid), cpu);
			c->pending = true;
		}
	} else if (!strcmp(name, "SYSCALL_ENTER")) {
		const char *nr = ft_str(rec, "nr", b1, sizeof(b1));
		char args[400];
		size_t n = 0;

		args[0] = 0;
		for (int i = 0; i < 6; i++) {
			char k[8];
			snprintf(k, sizeof(k), "arg%d", i);
			if (!ft_arg(rec, k))
				break;
			ft_hex(ft_arg(rec, k), b2, sizeof(b2));
			n += (size_t)snprintf(args + n, sizeof(args) - n, "%sarg%d: %s",
					      i ? ", " : "", i, b2);
		}
		ft_header(e, rec, pid, cpu);
		putf(e, "sys_%s(%s)\n", nr, args);
	} else if (!strcmp(name, "SYSCALL_LEAVE")) {
		ft_hex(ft_arg(rec, "result"), b2, sizeof(b2));
		ft_header(e, rec, pid, cpu);
		putf(e, "sys_%s -> %s\n", ft_str(rec, "nr", b1, sizeof(b1)), b2);
	} else if (!strcmp(name, "IRQ_ENTER")) {
		ft_hex(ft_arg(rec, "handler"), b2, sizeof(b2));
		ft_header(e, rec, pid, cpu);
		putf(e, "irq_handler_entry: irq=%s name=%s\n", ft_str(rec, "irq", b1, sizeof(b1)),
		     b2);
		c->intr_nest++;
	} else if (!strcmp(name, "IRQ_LEAVE")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "irq_handler_exit: irq=%s ret=handled\n", ft_str(rec, "irq", b1,
									  sizeof(b1)));
		if (--c->intr_nest <= 0) {
			c->intr_nest = 0;
			if (c->pending) {
				ft_header(e, rec, pid, cpu);
				ft_switch(e, c);
			}
		}
	} else if (!strncmp(name, "WDOG_", 5)) {
		static const char *const wd[] = { "START", "start", "CANCEL", "cancel", "ENTER",
						  "enter", "LEAVE", "leave", NULL };
		const char *w = ft_word(wd, name + 5);
		ft_hex(ft_arg(rec, "handler"), b2, sizeof(b2));
		ft_hex(ft_arg(rec, "arg"), b3, sizeof(b3));
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: I|%u|wdog: %s-%s %s\n", ft_pid(e, pid), w, b2, b3);
	} else if (!strncmp(name, "CSECTION_", 9)) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: %c|%u|critical_section\n",
		     !strcmp(name + 9, "ENTER") ? 'B' : 'E', ft_pid(e, pid));
	} else if (!strncmp(name, "PREEMPT_", 8)) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: %c|%u|sched_lock:%s\n",
		     !strcmp(name + 8, "LOCK") ? 'B' : 'E', ft_pid(e, pid),
		     ft_str(rec, "count", b1, sizeof(b1)));
	} else if (!strcmp(name, "DUMP_BEGIN") || !strcmp(name, "DUMP_END")) {
		const cJSON *t = ft_arg(rec, "text");
		ft_hex(ft_arg(rec, "ip"), b2, sizeof(b2));
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: %c|%u|%.511s\n", name[5] == 'B' ? 'B' : 'E',
		     ft_pid(e, pid), cJSON_IsString(t) && *t->valuestring ? t->valuestring : b2);
	} else if (!strcmp(name, "DUMP_MARK") || !strcmp(name, "DUMP_STRING")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: I|%u|%.511s\n", ft_pid(e, pid),
		     ft_str(rec, "text", b1, sizeof(b1)));
	} else if (!strcmp(name, "DUMP_COUNTER")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: C|%u|%.64s|%s\n", ft_pid(e, pid),
		     ft_str(rec, "name", b1, sizeof(b1)), ft_str(rec, "value", b2, sizeof(b2)));
	} else if (!strcmp(name, "DUMP_PRINTF")) {
		/* the text rendered with the ELF's format string (NuttX prints it as it is; a
		 * trailing newline is the line's end), else the format's address and the packed
		 * arguments in hex */
		const cJSON *t = ft_arg(rec, "text");
		ft_header(e, rec, pid, cpu);
		if (cJSON_IsString(t)) {
			size_t n = strlen(t->valuestring);
			n -= n && t->valuestring[n - 1] == '\n';
			putf(e, "tracing_mark_write: %.*s\n", (int)(n < 511 ? n : 511),
			     t->valuestring);
		} else {
			ft_hex(ft_arg(rec, "fmt"), b2, sizeof(b2));
			putf(e, "tracing_mark_write: %s %.511s\n", b2,
			     ft_str(rec, "data", b1, sizeof(b1)));
		}
	} else if (!strncmp(name, "HEAP_", 5)) {
		static const char *const hp[] = { "ADD", "add", "REMOVE", "remove", "ALLOC",
						  "malloc", "FREE", "free", NULL };
		const char *h = ft_word(hp, name + 5);
		char b4[48];
		ft_hex(ft_arg(rec, "heap"), b2, sizeof(b2));
		ft_hex(ft_arg(rec, "mem"), b3, sizeof(b3));
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: C|%u|Heap Usage|%s|%s: heap: %s size:%s, address: "
			"%s\n", ft_pid(e, pid), ft_str(rec, "used", b1, sizeof(b1)), h, b2,
		     ft_str(rec, "size", b4, sizeof(b4)), b3);
	}
	/* CPU_*, SPINLOCK_*, DUMP_BINARY and unknown notes: no line, as in NuttX's dump */
}

/* A small stable pid per thread, as ftrace viewers expect (1, 2, ... in the order first
 * seen; past FT_NTASKS threads, FT_NTASKS + 1 + the pointer's low bits). */
static unsigned ft_tid(struct tt_export *e, uint32_t thread)
{
	for (unsigned i = 0; i < e->nft_threads; i++)
		if (e->ft_threads[i] == thread)
			return i + 1;
	if (e->nft_threads == FT_NTASKS)
		return FT_NTASKS + 1 + (thread >> 2 & 0x7fff);
	e->ft_threads[e->nft_threads++] = thread;
	return e->nft_threads;
}

/* A task name as ftrace writes comm: at most 15 characters, no spaces or dashes' ambiguity
 * with the pid (spaces and control characters become '_'). */
static void ft_comm(char *out, size_t cap, const char *name)
{
	size_t n = 0;

	for (; *name && n + 1 < cap && n < 15; name++)
		out[n++] = (unsigned char)*name <= ' ' ? '_' : *name;
	out[n] = '\0';
}

static void ft_record(struct tt_export *e, const cJSON *rec, const char *type)
{
	double ns = num(rec, "ns", -1);
	double secs = ns >= 0 ? ns / 1e9 : num(rec, "time", 0) / 1e6;
	char task[80], line[2048];
	size_t n;
	const char *name = str(rec, "name");
	bool nuttx = !strcmp(type, "event") && name && !strncmp(name, "NOTE_", 5);

	if (!e->written && nuttx) {
		e->nuttx = true;
		for (unsigned i = 0; i < FT_NCPUS; i++)
			e->cpu[i] = (struct ft_cpu){ .state = 1, .cur_pid = -1, .next_pid = -1,
						     .cur_prio = -1, .next_prio = -1 };
		putf(e, "# tracer: nop\n#\n");
	}
	if (e->nuttx && nuttx) {
		ft_nuttx(e, rec, name);
		return;
	}
	if (e->nuttx && !strcmp(type, "reset")) /* another boot: the dump starts over */
		for (unsigned i = 0; i < FT_NCPUS; i++)
			e->cpu[i] = (struct ft_cpu){ .state = 1, .cur_pid = -1, .next_pid = -1,
						     .cur_prio = -1, .next_prio = -1 };
	if (!e->written && !e->nuttx)
		putf(e, "# tracer: nop\n#\n# tracetap export (times: ns when the tick rate is "
			"known, else ticks as microseconds)\n#\n#           TASK-PID     CPU#  "
			"TIMESTAMP  FUNCTION\n#              | |         |       |         |\n");
	if (strcmp(type, "event")) {
		putf(e, "%16s-%-7d [000] %12.6f: tracetap_%s: seq=%.0f lost=%.0f reason=\"%s\"\n",
		     "<tracetap>", 0, secs, type, num(rec, "seq", 0), num(rec, "lost", 0),
		     str(rec, "reason") ? str(rec, "reason") : "");
		return;
	}
	const char *ctx = str(rec, "ctx");
	if (ctx && !strcmp(ctx, "thread")) {
		char comm[16];
		ft_comm(comm, sizeof(comm), str(rec, "thread_name") ? str(rec, "thread_name")
								    : "thread");
		snprintf(task, sizeof(task), "%s-%u", comm,
			 ft_tid(e, (uint32_t)hexnum(rec, "thread")));
	} else
		snprintf(task, sizeof(task), "<%s>-0", ctx ? ctx : "unknown");
	n = (size_t)snprintf(line, sizeof(line), "%24s [%03.0f] %12.6f: %s:", task,
			     num(rec, "core", 0), secs, str(rec, "name") ? str(rec, "name") : "?");
	const cJSON *a;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(rec, "args")) {
		if (n >= sizeof(line) - 100)
			break;
		if (cJSON_IsString(a))
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=%.60s", a->string,
					      a->valuestring);
		else
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=%.0f", a->string,
					      a->valuedouble);
	}
	line[n++] = '\n';
	put(e, line, n);
}

/* ---- trx ---- */

static void skip_record(void *arg, const struct tt_record *rec)
{
	(void)arg;
	(void)rec;
}

int tt_export_set_threadx_image(struct tt_export *e, const uint8_t *img, size_t len,
				uint64_t base, uint64_t header_addr)
{
	struct tt_threadx_config c = { .static_image = true };
	struct tt_threadx *rd;
	struct tt_plan p;
	int rc;

	if (!header_addr && !base) /* a .trx: its header says where it was */
		base = tt_reader_find("threadx")->file_base(img, len);
	c.header_addr = header_addr ? header_addr : base;
	if ((rc = tt_threadx_new(&c, &rd)) < 0)
		return rc;
	do { /* one cycle of the reader over the image: header, registry, entries */
		tt_threadx_plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++) {
			const struct tt_range *r = &p.r[i];
			if (r->addr < base || r->addr - base > len || len - (r->addr - base) < r->len) {
				rc = -ERANGE;
				goto out;
			}
			memcpy(r->dst, img + (r->addr - base), r->len);
		}
		rc = tt_threadx_ingest(rd, skip_record, NULL);
	} while (rc == TT_THREADX_MORE);
	if (rc >= 0)
		rc = tt_export_set_threadx(e, rd);
out:
	tt_threadx_free(rd);
	return rc;
}

static int trx_record(struct tt_export *e, const cJSON *rec, const char *type)
{
	uint32_t w[8];

	if (strcmp(type, "event") || raw_words(rec, w) != 8 || w[0] == 0)
		return -EINVAL;
	learn(e, rec, w, 8);
	uint32_t ts = tt_json_u32(num(rec, "ts", w[3]));
	if (ts > e->ts_max)
		e->ts_max = ts;
	e->ts_masked |= ts != w[3];
	if (e->nent == e->capent) {
		size_t ncap = e->capent ? e->capent * 2 : 1024;
		uint32_t *n = realloc(e->words, ncap * 32);
		if (!n)
			return -ENOMEM;
		e->words = n;
		e->capent = ncap;
	}
	memcpy(e->words + e->nent * 8, w, 32);
	e->nent++;
	return 0;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The timer mask when the source's header is not known: the stamps' own width (a raw time word
 * with bits the masked stamp has not was masked by the target's header: the smallest all-ones
 * mask that holds every stamp), else all 32 bits. */
static uint32_t trx_mask(const struct tt_export *e)
{
	uint32_t m = 0xFFFFFFFFu;

	if (e->have_src)
		return e->src_mask;
	if (e->ts_masked)
		for (m = 1; m < e->ts_max && m != 0xFFFFFFFFu; m = m << 1 | 1)
			;
	return m;
}

/* One registry entry of the .trx. */
static void trx_obj(uint8_t *r, uint8_t avail, uint8_t type, const uint8_t res[2], uint32_t ptr,
		    uint32_t p1, uint32_t p2, const char *name, size_t name_size)
{
	r[0] = avail;
	r[1] = type;
	r[2] = res[0];
	r[3] = res[1];
	le32(r + 4, ptr);
	le32(r + 8, p1);
	le32(r + 12, p2);
	memcpy(r + 16, name, strnlen(name, name_size - 1));
}

static bool src_has(const struct tt_export *e, uint32_t ptr)
{
	for (size_t i = 0; i < e->nsrc; i++)
		if (e->src[i].type && e->src[i].ptr == ptr)
			return true;
	return false;
}

static int trx_finish(struct tt_export *e)
{
	static const uint8_t nores[2];
	size_t name_size = e->have_src ? e->src_name_size : TRX_NAME_SIZE;
	size_t nlearn = 0;

	for (size_t i = 0; i < e->nobjs; i++)
		nlearn += !src_has(e, e->objs[i].ptr);
	size_t nreg = e->nsrc + nlearn ? e->nsrc + nlearn : 1, regsz = 16 + name_size;
	size_t nent = e->nent ? e->nent : 1;
	size_t len = 48 + nreg * regsz + nent * 32;
	uint8_t *img = calloc(1, len);
	uint32_t reg = TRX_BASE + 48, ent = reg + (uint32_t)(nreg * regsz);

	if (!img)
		return -ENOMEM;
	le32(img + 0, 0x54585442u);
	le32(img + 4, trx_mask(e));
	le32(img + 8, TRX_BASE);
	le32(img + 12, reg);
	img[18] = (uint8_t)name_size; /* u16 at 18, little-endian; 16 is reserved (0) */
	img[19] = (uint8_t)(name_size >> 8);
	le32(img + 20, ent);
	le32(img + 24, ent);
	le32(img + 28, ent + (uint32_t)(nent * 32));
	le32(img + 32, ent); /* current = the oldest entry (entries are in order) */
	le32(img + 36, 0xAAAAAAAAu);
	le32(img + 40, 0xBBBBBBBBu);
	le32(img + 44, 0xCCCCCCCCu);
	/* the source's registry as it was, then names seen in events that it no longer holds */
	size_t k = 0;
	for (size_t i = 0; i < e->nsrc; i++, k++) {
		const struct src_obj *s = &e->src[i];
		trx_obj(img + 48 + k * regsz, s->avail, s->type, s->reserved, s->ptr, s->p1, s->p2,
			s->name, name_size);
	}
	for (size_t i = 0; i < e->nobjs; i++)
		if (!src_has(e, e->objs[i].ptr))
			trx_obj(img + 48 + k++ * regsz, 0, e->objs[i].type, nores, e->objs[i].ptr, 0,
				0, e->objs[i].name, name_size);
	if (!k)
		img[48] = 1; /* one free slot */
	for (size_t i = 0; i < e->nent * 8; i++)
		le32(img + (ent - TRX_BASE) + i * 4, e->words[i]);
	put(e, img, len);
	free(img);
	return e->err;
}

/* ---- driver ---- */

int tt_export_record(struct tt_export *e, const char *json, size_t len)
{
	cJSON *rec;
	const char *type;
	int rc = 0;

	if (e->err)
		return e->err;
	if (e->fmt == TT_EXPORT_JSONL) { /* the wire bytes, unchanged */
		put(e, json, len);
		put(e, "\n", 1);
		e->written++;
		return e->err;
	}
	rec = cJSON_ParseWithLength(json, len);
	type = rec ? str(rec, "type") : NULL;
	if (!type || (strcmp(type, "event") && strcmp(type, "gap") && strcmp(type, "reset"))) {
		cJSON_Delete(rec);
		e->skipped++;
		return -EINVAL;
	}
	switch (e->fmt) {
	case TT_EXPORT_PERFETTO:
		if (e->first && !e->written)
			put(e, PF_HEAD, sizeof(PF_HEAD) - 1);
		pf_record(e, rec, type);
		break;
	case TT_EXPORT_FTRACE:
		ft_record(e, rec, type);
		break;
	default:
		rc = trx_record(e, rec, type);
		break;
	}
	cJSON_Delete(rec);
	if (rc == -EINVAL)
		e->skipped++;
	else if (!rc)
		e->written++;
	return rc ? rc : e->err;
}

int tt_export_finish(struct tt_export *e)
{
	switch (e->fmt) {
	case TT_EXPORT_PERFETTO:
		if (!e->written)
			put(e, PF_HEAD, sizeof(PF_HEAD) - 1);
		pf_close_slice(e);
		putf(e, "\n],\"metadata\":{\"exporter\":\"tracetap %s\",\"records\":%" PRIu64
			",\"skipped\":%" PRIu64 "}}\n", TT_VERSION, e->written, e->skipped);
		break;
	case TT_EXPORT_TRX:
		return trx_finish(e);
	default:
		break;
	}
	return e->err;
}
