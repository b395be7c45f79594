/* tests/qnx/kevw.h: builds QNX .kev files in memory (header attributes, syspage bytes, 16-byte
 * events in either byte order, combine events split into parts) and records what the decoder
 * emits (deep copies, so tests can inspect them after the call).
 */
#ifndef TT_KEVW_H
#define TT_KEVW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qnx.h"
#include "record.h"

/* Internal classes and struct types, as the kernel writes them. */
enum { K_CONTROL = 1, K_KER = 2, K_INT = 3, K_PRTH = 4, K_SYSTEM = 5, K_USER = 6, K_COMM = 7 };
enum { K_SIMPLE = 0, K_BEGIN = 1, K_CONT = 2, K_END = 3 };

struct kevw {
	uint8_t *buf;
	size_t len, cap;
	bool be;
};

struct kev_opts {
	bool be;
	uint64_t cps;         /* 0: no TRACE_CYCLES_PER_SEC */
	unsigned cpus;        /* TRACE_CPU_NUM */
	unsigned os_major;    /* TRACE_SYS_RELEASE "<os_major>.0.0" (0: none); TRACE_VER_MAJOR/MINOR
				 are tracelogger's own 1/01 */
	size_t syspage_len;   /* syspage bytes written (a pattern) */
	const char *extra;    /* more attributes, raw, or NULL */
};

void kevw_init(struct kevw *k, const struct kev_opts *o); /* header + syspage */
void kevw_bytes(struct kevw *k, const void *p, size_t n);
uint32_t kevw_hdr(unsigned stype, unsigned cpu, unsigned cls, unsigned event);
void kevw_event(struct kevw *k, uint32_t header, uint32_t ts, uint32_t d1, uint32_t d2);
void kevw_simple(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
		 uint32_t d1, uint32_t d2);
/* A combine event: words split into parts of 2 (begin, continue..., end; padded with 0), every
 * part stamped ts, as QNX's kernel writes them (QNX's traceparser joins the parts by it). */
void kevw_combine(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
		  const uint32_t *w, size_t n);
/* A combine event whose payload is words w[0..nw) then the string s with its NUL. */
void kevw_combine_str(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
		      const uint32_t *w, size_t nw, const char *s);
int kevw_save(const struct kevw *k, const char *path);
void kevw_free(struct kevw *k);

struct krec {
	int kind;
	struct tt_event ev; /* pointers replaced by the copies below */
	char name[48], thread_name[112], interrupted_name[112];
	char arg_name[TT_MAX_ARGS][32], arg_text[TT_MAX_ARGS][300];
	bool arg_has_text[TT_MAX_ARGS];
	uint32_t raw[2 + TT_QNX_COMBINE_WORDS];
	uint64_t lost;
	bool exact;
	char reason[80];
	char json[2048];
};

struct klog {
	struct krec *v;
	size_t n, cap;
};

void klog_cb(void *arg, const struct tt_record *rec); /* arg: struct klog */
void klog_free(struct klog *l);
/* Decodes the file built in k into l (cleared first); returns decode_file's rc. */
int kev_decode(const struct kevw *k, uint64_t tick_hz, struct klog *l, struct tt_qnx_stats *st,
	       char *err, size_t errlen);
/* The record's argument by name: its value / its text (NULL when absent or without text). */
bool krec_has(const struct krec *r, const char *name);
uint32_t krec_u(const struct krec *r, const char *name);
const char *krec_s(const struct krec *r, const char *name);
/* The first event record named name at or after index from, or NULL. */
const struct krec *klog_find(const struct klog *l, size_t from, const char *name);

#endif
