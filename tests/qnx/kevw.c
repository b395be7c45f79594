/* tests/qnx/kevw.c: the .kev test writer and the record log (see kevw.h). */
#include "kevw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void kevw_bytes(struct kevw *k, const void *p, size_t n)
{
	if (k->len + n > k->cap) {
		k->cap = (k->len + n) * 2 + 256;
		k->buf = realloc(k->buf, k->cap);
		if (!k->buf)
			abort();
	}
	memcpy(k->buf + k->len, p, n);
	k->len += n;
}

static void attr(struct kevw *k, const char *key, const char *val)
{
	char b[256];
	int n = snprintf(b, sizeof(b), "TRACE_%s::%s", key, val);
	kevw_bytes(k, b, (size_t)n);
}

void kevw_init(struct kevw *k, const struct kev_opts *o)
{
	char v[64];

	memset(k, 0, sizeof(*k));
	k->be = o->be;
	attr(k, "HEADER_BEGIN", "");
	attr(k, "FILE_NAME", "/dev/shmem/test.kev");
	attr(k, "DATE", "Mon Jan  1 00:00:00 2024");
	attr(k, "VER_MAJOR", "1");
	attr(k, "VER_MINOR", "01");
	attr(k, o->be ? "BIG_ENDIAN" : "LITTLE_ENDIAN", "TRUE");
	attr(k, "ENCODING", "16 byte events");
	attr(k, "BOOT_DATE", "Mon Jan  1 00:00:00 2024");
	if (o->cps) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)o->cps);
		attr(k, "CYCLES_PER_SEC", v);
	}
	snprintf(v, sizeof(v), "%u", o->cpus);
	attr(k, "CPU_NUM", v);
	attr(k, "SYSNAME", "QNX");
	attr(k, "NODENAME", "bench");
	if (o->os_major) {
		snprintf(v, sizeof(v), "%u.0.0", o->os_major);
		attr(k, "SYS_RELEASE", v);
	}
	attr(k, "MACHINE", "x86_64");
	snprintf(v, sizeof(v), "%zu", o->syspage_len);
	attr(k, "SYSPAGE_LEN", v);
	if (o->extra)
		kevw_bytes(k, o->extra, strlen(o->extra));
	attr(k, "HEADER_END", "");
	for (size_t i = 0; i < o->syspage_len; i++) {
		/* Syspage bytes that look like events and header text must be skipped, not read. */
		uint8_t b = i % 7 == 0 ? 'T' : (uint8_t)(0xc0 | i);
		kevw_bytes(k, &b, 1);
	}
}

static void put32(struct kevw *k, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[k->be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
	kevw_bytes(k, b, 4);
}

uint32_t kevw_hdr(unsigned stype, unsigned cpu, unsigned cls, unsigned event)
{
	return (uint32_t)stype << 30 | (uint32_t)(cpu & 0x3f) << 24 | (uint32_t)(cls & 0x1f) << 10 |
	       (event & 0x3ff);
}

void kevw_event(struct kevw *k, uint32_t header, uint32_t ts, uint32_t d1, uint32_t d2)
{
	put32(k, header);
	put32(k, ts);
	put32(k, d1);
	put32(k, d2);
}

void kevw_simple(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
		 uint32_t d1, uint32_t d2)
{
	kevw_event(k, kevw_hdr(K_SIMPLE, cpu, cls, event), ts, d1, d2);
}

/* Parts from payload bytes (already in file byte order for the words, raw for strings). */
static void combine_bytes(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
			  const uint8_t *p, size_t n)
{
	size_t parts = (n + 7) / 8;
	if (parts < 2)
		parts = 2;
	for (size_t i = 0; i < parts; i++) {
		uint8_t part[8] = { 0 };
		unsigned st = i == 0 ? K_BEGIN : i + 1 == parts ? K_END : K_CONT;
		if (i * 8 < n)
			memcpy(part, p + i * 8, n - i * 8 < 8 ? n - i * 8 : 8);
		put32(k, kevw_hdr(st, cpu, cls, event));
		put32(k, ts); /* every part carries the begin part's time, as the kernel writes */
		kevw_bytes(k, part, 8);
	}
}

void kevw_combine_str(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
		      const uint32_t *w, size_t nw, const char *s)
{
	size_t sl = s ? strlen(s) + 1 : 0, n = nw * 4 + sl;
	uint8_t *p = calloc(1, n + 8);
	for (size_t i = 0; i < nw; i++)
		for (int j = 0; j < 4; j++)
			p[i * 4 + (k->be ? 3 - j : j)] = (uint8_t)(w[i] >> (8 * j));
	if (s)
		memcpy(p + nw * 4, s, sl);
	combine_bytes(k, cpu, cls, event, ts, p, n);
	free(p);
}

void kevw_combine(struct kevw *k, unsigned cpu, unsigned cls, unsigned event, uint32_t ts,
		  const uint32_t *w, size_t n)
{
	kevw_combine_str(k, cpu, cls, event, ts, w, n, NULL);
}

int kevw_save(const struct kevw *k, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = fwrite(k->buf, 1, k->len, f);
	return fclose(f) == 0 && n == k->len ? 0 : -1;
}

void kevw_free(struct kevw *k)
{
	free(k->buf);
	memset(k, 0, sizeof(*k));
}

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

void klog_cb(void *arg, const struct tt_record *rec)
{
	struct klog *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	struct krec *r = &l->v[l->n++];
	memset(r, 0, sizeof(*r));
	r->kind = rec->kind;
	int jn = tt_json_record(r->json, sizeof(r->json) - 1, rec, NULL, l->n);
	if (jn < 0) {
		fprintf(stderr, "record %zu does not encode as JSON\n", l->n);
		abort();
	}
	r->json[jn] = 0;
	if (rec->kind == TT_REC_GAP) {
		r->lost = rec->u.gap.lost;
		r->exact = rec->u.gap.exact;
		copy(r->reason, sizeof(r->reason), rec->u.gap.reason);
		return;
	}
	if (rec->kind == TT_REC_RESET) {
		copy(r->reason, sizeof(r->reason), rec->u.reset.reason);
		return;
	}
	const struct tt_event *ev = &rec->u.ev;
	r->ev = *ev;
	copy(r->name, sizeof(r->name), ev->name);
	copy(r->thread_name, sizeof(r->thread_name), ev->thread_name);
	copy(r->interrupted_name, sizeof(r->interrupted_name), ev->interrupted_name);
	if (ev->nargs > TT_MAX_ARGS || ev->nraw > 2 + TT_QNX_COMBINE_WORDS) {
		fprintf(stderr, "record %zu: %u args, %u raw words\n", l->n, ev->nargs, ev->nraw);
		abort();
	}
	for (unsigned i = 0; i < ev->nargs; i++) {
		copy(r->arg_name[i], sizeof(r->arg_name[i]), ev->args[i].name);
		copy(r->arg_text[i], sizeof(r->arg_text[i]), ev->args[i].text);
		r->arg_has_text[i] = ev->args[i].text != NULL;
	}
	memcpy(r->raw, ev->raw, ev->nraw * sizeof(uint32_t));
	r->ev.name = r->name;
	r->ev.thread_name = ev->thread_name ? r->thread_name : NULL;
	r->ev.interrupted_name = ev->interrupted_name ? r->interrupted_name : NULL;
	r->ev.raw = r->raw;
}

void klog_free(struct klog *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int kev_decode(const struct kevw *k, uint64_t tick_hz, struct klog *l, struct tt_qnx_stats *st,
	       char *err, size_t errlen)
{
	l->n = 0;
	err[0] = 0;
	/* An exact-size heap copy, so ASan sees any read past the end. */
	uint8_t *img = malloc(k->len ? k->len : 1);
	memcpy(img, k->buf, k->len);
	int rc = tt_qnx_decode_file(img, k->len, tick_hz, klog_cb, l, st, err, errlen);
	free(img);
	return rc;
}

static int find_arg(const struct krec *r, const char *name)
{
	for (unsigned i = 0; i < r->ev.nargs; i++)
		if (!strcmp(r->arg_name[i], name))
			return (int)i;
	return -1;
}

bool krec_has(const struct krec *r, const char *name)
{
	return find_arg(r, name) >= 0;
}

uint32_t krec_u(const struct krec *r, const char *name)
{
	int i = find_arg(r, name);
	return i < 0 ? 0xdeadbeefu : r->ev.args[i].value;
}

const char *krec_s(const struct krec *r, const char *name)
{
	int i = find_arg(r, name);
	return i < 0 || !r->arg_has_text[i] ? NULL : r->arg_text[i];
}

const struct krec *klog_find(const struct klog *l, size_t from, const char *name)
{
	for (size_t i = from; i < l->n; i++)
		if (l->v[i].kind == TT_REC_EVENT && !strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}
