/* export/export_int.h: what the exporters share (not a public header). One file per format
 * implements struct tt_export_ops; export.c parses each record once and drives them. Adding a
 * format: export/README.md. */
#ifndef TT_EXPORT_INT_H
#define TT_EXPORT_INT_H

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/json.h"
#include "export.h"
#include "record_json.h"

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

/* perfetto: the running slice being extended ([start, end) on track tid) and the previous
 * event (a record's `run` covers the time since it) */
struct tt_export_pf {
	bool started;             /* an event was written: a comma before the next */
	bool named_process, init_named;
	bool slice_open, prev_ok;
	uint32_t slice_tid;
	double slice_start, slice_end, prev_us, last_us;
	double prev_seq;
	uint64_t lost;
};

/* trx: the raw words of every entry, and the source's header and registry when known */
struct tt_export_trx {
	uint32_t *words;
	size_t nent, capent;
	uint32_t ts_max;          /* largest masked time stamp seen */
	bool ts_masked;           /* some raw time word had bits the masked stamp has not */
	bool have_src;            /* the source's header and registry (tt_export_set_source) */
	uint32_t src_mask, src_name_size;
	uint32_t ts_last;         /* the newest entry's raw time word: a marker's time */
	uint64_t marks, marked_lost; /* gap markers written, the events they say were lost */
	struct src_obj {
		uint8_t avail, type, reserved[2];
		uint32_t ptr, p1, p2;
		char *name;
	} *src;
	size_t nsrc;
};

struct tt_export_ft {
	/* NuttX notes: the state NuttX's trace dump keeps */
	bool nuttx;
	struct ft_cpu {
		int intr_nest, state;
		bool pending;
		int32_t cur_pid, next_pid;
		int cur_prio, next_prio;
	} cpu[FT_NCPUS];
	unsigned ncpus;           /* highest core seen + 1: pids below it are idle tasks */
	struct ft_task {
		int32_t pid;
		bool used;
		char name[32];
	} tasks[FT_NTASKS];
	/* other formats: the threads in the order first seen (pid = index + 1) */
	uint32_t threads[FT_NTASKS];
	unsigned nthreads;
};

struct tt_export {
	const struct tt_export_ops *ops;
	tt_export_write_cb write;
	void *arg;
	int err;
	uint64_t written, skipped;
	/* thread names (perfetto) and registry objects (trx) learned from records */
	struct obj objs[MAX_OBJS];
	size_t nobjs;
	union {                   /* the format's own state (ops) */
		struct tt_export_pf pf;
		struct tt_export_trx trx;
		struct tt_export_ft ft;
	};
};

struct tt_export_ops {
	const char *name, *content_type, *ext;
	/* The wire bytes as they came (jsonl); NULL: record() gets the parsed object. */
	int (*wire)(struct tt_export *e, const char *json, size_t len);
	/* One record of type "event", "gap" or "reset". Returns 0, -EINVAL (not representable:
	 * skipped, counted) or -errno. */
	int (*record)(struct tt_export *e, const cJSON *rec, const char *type);
	/* What is buffered and the trailer; NULL: nothing. Returns 0 or -errno. */
	int (*finish)(struct tt_export *e);
	/* Frees the format's own state; NULL: none. */
	void (*free)(struct tt_export *e);
};

extern const struct tt_export_ops tt_export_jsonl, tt_export_trx, tt_export_perfetto,
	tt_export_ftrace;

static inline void put(struct tt_export *e, const void *buf, size_t len)
{
	if (!e->err && len)
		e->err = e->write(e->arg, buf, len);
}

/* Formatted output of any length (a record's text may be long): put whole, never cut. */
static inline void vputf(struct tt_export *e, const char *fmt, va_list ap)
{
	char tmp[4096], *big;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	if (n >= 0 && (size_t)n < sizeof(tmp)) {
		put(e, tmp, (size_t)n);
	} else if (n > 0 && (big = malloc((size_t)n + 1)) != NULL) {
		vsnprintf(big, (size_t)n + 1, fmt, aq);
		put(e, big, (size_t)n);
		free(big);
	} else if (!e->err) {
		e->err = n < 0 ? -EINVAL : -ENOMEM;
	}
	va_end(aq);
}

static inline void putf(struct tt_export *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void putf(struct tt_export *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vputf(e, fmt, ap);
	va_end(ap);
}

/* A JSON string literal of s (quotes included) into buf. */
static inline const char *jstr(char *buf, size_t cap, const char *s)
{
	int n = tt_json_string(buf, cap - 1, s ? s : "", 200);

	if (n < 0)
		n = snprintf(buf, cap, "\"\"");
	buf[n] = 0;
	return buf;
}

/* ---- field access ---- */


/* The record's fields (record_json.h), short as the formats use them. */
static inline const char *str(const cJSON *o, const char *k)
{
	return tt_json_str(o, k);
}

static inline double num(const cJSON *o, const char *k, double def)
{
	return tt_json_num(o, k, def);
}

static inline uint32_t hexnum(const cJSON *o, const char *k)
{
	const char *s = tt_json_str(o, k);

	return s ? (uint32_t)strtoul(s, NULL, 16) : 0;
}

/* Up to 8 raw words; returns how many. */
static inline int raw_words(const cJSON *rec, uint32_t w[8])
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

/* Names learned from records (threads, registry objects), shared by perfetto and trx. */
struct obj *tt_export_obj_find(struct tt_export *e, uint32_t ptr);
void tt_export_learn(struct tt_export *e, const cJSON *rec, const uint32_t w[8], int nw);

/* ftrace of NuttX notes (export_ftrace_nuttx.c): the dump's state back to a boot, and one note
 * (name without its "NOTE_" prefix is checked there). */
void tt_export_ftrace_nuttx_reset(struct tt_export *e);
void tt_export_ftrace_nuttx(struct tt_export *e, const cJSON *rec, const char *name);

#endif
