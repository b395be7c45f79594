/* proto/json.c: records to JSON text, fast and allocation-free.
 *
 * The hub encodes every event once and fans the bytes out, so this is on the hot path of the
 * host pipeline (goal: millions of events/s per core): no printf, no allocation, one pass. A
 * small cursor struct tracks the remaining room; any overflow turns into -ENOSPC at the end.
 */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The writers below are forced inline into tt_json_record: then the cursor stays in registers
 * instead of being stored and reloaded around every call (measured: hub-only throughput
 * 2.5 -> 3.5-4.1 M records/s; json.o grows to about 13 KB). */
#define INLINE static inline __attribute__((always_inline))

struct out {
	char *p;
	char *end;
	int overflow;
};

INLINE void put(struct out *o, const char *s, size_t n)
{
	if ((size_t)(o->end - o->p) < n) {
		o->overflow = 1;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
			    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
			    "8081828384858687888990919293949596979899";

static unsigned digits_u32(uint32_t v)
{
	if (v < 100000)
		return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
	return v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
}

INLINE void put_u64(struct out *o, uint64_t v)
{
	char tmp[20];
	int n = 0;

	if (v <= UINT32_MAX) {
		/* Most numbers (raw words, ids, small counters): 32-bit arithmetic, written straight
		 * into the output from the end. */
		uint32_t w = (uint32_t)v;
		unsigned nd = digits_u32(w);
		char *q;
		if ((size_t)(o->end - o->p) < nd) {
			o->overflow = 1;
			return;
		}
		q = o->p + nd;
		while (w >= 100) {
			unsigned d = (w % 100) * 2;
			w /= 100;
			*--q = pairs[d + 1];
			*--q = pairs[d];
		}
		if (w >= 10) {
			*--q = pairs[w * 2 + 1];
			*--q = pairs[w * 2];
		} else {
			*--q = (char)('0' + w);
		}
		o->p += nd;
		return;
	}
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		tmp[19 - n++] = pairs[d + 1];
		tmp[19 - n++] = pairs[d];
	}
	if (v >= 10) {
		tmp[19 - n++] = pairs[v * 2 + 1];
		tmp[19 - n++] = pairs[v * 2];
	} else {
		tmp[19 - n++] = (char)('0' + v);
	}
	put(o, tmp + 20 - n, (size_t)n);
}

static void put_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		PUTS(o, "-");
		put_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(o, (uint64_t)v);
	}
}

INLINE void put_hex32(struct out *o, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[12] = { '"', '0', 'x' };

	for (int i = 0; i < 8; i++)
		tmp[3 + i] = digits[(v >> (28 - 4 * i)) & 0xF];
	tmp[11] = '"';
	put(o, tmp, sizeof(tmp));
}

int tt_json_utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char c = u[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range (RFC 3629 section 4) */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
		hi = c == 0xed ? 0x9f : 0xbf; /* no surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf; /* nothing past U+10FFFF */
	} else {
		return 0;
	}
	for (size_t k = 1; k < len; k++) {
		if (k >= n)
			return -1;
		if (u[k] < (k == 1 ? lo : 0x80) || u[k] > (k == 1 ? hi : 0xbf))
			return 0;
	}
	return (int)len;
}

INLINE void put_str(struct out *o, const char *s, size_t max)
{
	static const char digits[] = "0123456789abcdef";
	size_t i = 0;

	PUTS(o, "\"");
	while (i < max && s[i]) {
		/* Copy the run of characters that need no escape in one go. */
		size_t run = 0;
		unsigned char c;
		while (i + run < max && (c = (unsigned char)s[i + run]) >= 0x20 && c < 0x7f &&
		       c != '"' && c != '\\')
			run++;
		put(o, s + i, run);
		i += run;
		if (i >= max || !s[i])
			break;
		c = (unsigned char)s[i];
		if (c >= 0x80) {
			int k = tt_json_utf8_len(s + i, max - i);
			if (k < 0)
				break; /* the cut falls inside this character: end before it */
			if (k == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0) {
				/* C1 control (CSI, OSC to some terminals): escaped like C0, so a
				 * record line is safe to print as it is (tracetap tail --json) */
				unsigned char c1 = (unsigned char)s[i + 1];
				char esc[6] = { '\\', 'u', '0', '0', digits[c1 >> 4], digits[c1 & 0xF] };
				put(o, esc, 6);
			} else if (k > 0)
				put(o, s + i, (size_t)k);
			else
				PUTS(o, "\xef\xbf\xbd"); /* U+FFFD for the byte that is not UTF-8 */
			i += k > 0 ? (size_t)k : 1;
		} else if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			put(o, esc, 2);
			i++;
		} else {
			char esc[6] = { '\\', 'u', '0', '0', digits[c >> 4], digits[c & 0xF] };
			put(o, esc, 6);
			i++;
		}
	}
	PUTS(o, "\"");
}

/* A literal key that needs no escaping, not the first in its object: `,"key":`. */
#define KEY(o, lit) PUTS((o), ",\"" lit "\":")

/* Object key: `,"key":` (or without the comma for the first one). */
static void key(struct out *o, const char *k, int first)
{
	if (!first)
		PUTS(o, ",");
	put_str(o, k, TT_JSON_MAX_NAME);
	PUTS(o, ":");
}

static const char *ctx_name(uint8_t ctx)
{
	switch (ctx) {
	case TT_CTX_THREAD: return "thread";
	case TT_CTX_ISR: return "isr";
	case TT_CTX_INIT: return "init";
	default: return "unknown";
	}
}

static void put_arg(struct out *o, const struct tt_arg *a)
{
	switch (a->kind) {
	case TT_ARG_OBJ:
	case TT_ARG_ENUM:
		if (a->text) {
			put_str(o, a->text, TT_JSON_MAX_TEXT);
			return;
		}
		if (a->kind == TT_ARG_ENUM) {
			put_u64(o, a->value);
			return;
		}
		put_hex32(o, a->value);
		return;
	case TT_ARG_HEX:
		put_hex32(o, a->value);
		return;
	default:
		put_u64(o, a->value);
	}
}

/* Who ran the event: context, core, thread or interrupted thread, priorities. */
static void put_who(struct out *o, const struct tt_event *ev)
{
	KEY(o, "ctx");
	put_str(o, ctx_name(ev->ctx), TT_JSON_MAX_NAME);
	if (ev->core >= 0) {
		KEY(o, "core");
		put_i64(o, ev->core);
	}
	if (ev->ctx == TT_CTX_THREAD) {
		KEY(o, "thread");
		put_hex32(o, ev->thread);
		if (ev->thread_name) {
			KEY(o, "thread_name");
			put_str(o, ev->thread_name, TT_JSON_MAX_NAME);
		}
	}
	if (ev->ctx == TT_CTX_ISR && ev->interrupted) {
		KEY(o, "interrupted");
		put_hex32(o, ev->interrupted);
		if (ev->interrupted_name) {
			KEY(o, "interrupted_name");
			put_str(o, ev->interrupted_name, TT_JSON_MAX_NAME);
		}
	}
	if (ev->prio >= 0) {
		KEY(o, "prio");
		put_i64(o, ev->prio);
	}
	if (ev->threshold >= 0) {
		KEY(o, "threshold");
		put_i64(o, ev->threshold);
	}
}

/* Where: the event's address and what ran when it was recorded. */
static void put_where(struct out *o, const struct tt_event *ev)
{
	if (ev->addr) {
		KEY(o, "addr");
		if (ev->addr <= UINT32_MAX) {
			put_hex32(o, (uint32_t)ev->addr);
		} else { /* a 64-bit target's address: all of it, 16 digits */
			char tmp[21];
			snprintf(tmp, sizeof(tmp), "\"0x%016llx\"", (unsigned long long)ev->addr);
			put(o, tmp, 20);
		}
	}
	if (ev->run != TT_RUN_NONE) {
		static const char *const run[] = { "", "thread", "isr", "idle", "init" };
		KEY(o, "run");
		put_str(o, ev->run < 5 ? run[ev->run] : "unknown", TT_JSON_MAX_NAME);
		if (ev->run == TT_RUN_THREAD) {
			KEY(o, "run_thread");
			put_hex32(o, ev->run_thread);
			if (ev->run_name) {
				KEY(o, "run_name");
				put_str(o, ev->run_name, TT_JSON_MAX_NAME);
			}
		}
	}
}

static void put_event(struct out *o, const struct tt_event *ev)
{
	KEY(o, "id");
	put_u64(o, ev->id);
	KEY(o, "name");
	put_str(o, ev->name ? ev->name : "UNKNOWN", TT_JSON_MAX_NAME);
	put_who(o, ev);
	KEY(o, "ts");
	put_u64(o, ev->ts_raw);
	KEY(o, "time");
	put_u64(o, ev->time);
	if (ev->has_ns) {
		KEY(o, "ns");
		put_u64(o, ev->ns);
	}
	put_where(o, ev);
	KEY(o, "args");
	PUTS(o, "{");
	for (unsigned i = 0; i < ev->nargs && i < TT_MAX_ARGS; i++) {
		key(o, ev->args[i].name ? ev->args[i].name : "arg", i == 0);
		put_arg(o, &ev->args[i]);
	}
	PUTS(o, "}");
	KEY(o, "raw");
	PUTS(o, "[");
	for (unsigned i = 0; i < ev->nraw && i < TT_JSON_MAX_RAW; i++) {
		if (i)
			PUTS(o, ",");
		put_u64(o, ev->raw[i]);
	}
	PUTS(o, "]");
}

int tt_json_record(char *buf, size_t cap, const struct tt_record *rec, const char *target,
		   uint64_t seq)
{
	struct out o = { buf, buf + cap, 0 };

	PUTS(&o, "{\"type\":");
	switch (rec->kind) {
	case TT_REC_EVENT: PUTS(&o, "\"event\""); break;
	case TT_REC_GAP: PUTS(&o, "\"gap\""); break;
	case TT_REC_RESET: PUTS(&o, "\"reset\""); break;
	default: return -EINVAL;
	}
	if (target) {
		KEY(&o, "target");
		put_str(&o, target, TT_JSON_MAX_NAME);
	}
	KEY(&o, "seq");
	put_u64(&o, seq);
	switch (rec->kind) {
	case TT_REC_EVENT:
		put_event(&o, &rec->u.ev);
		break;
	case TT_REC_GAP:
		KEY(&o, "lost");
		put_u64(&o, rec->u.gap.lost);
		KEY(&o, "exact");
		if (rec->u.gap.exact)
			PUTS(&o, "true");
		else
			PUTS(&o, "false");
		if (!rec->u.gap.exact && rec->u.gap.basis) {
			KEY(&o, "basis");
			put_str(&o, rec->u.gap.basis, TT_JSON_MAX_TEXT);
		}
		KEY(&o, "reason");
		put_str(&o, rec->u.gap.reason ? rec->u.gap.reason : "", TT_JSON_MAX_TEXT);
		break;
	case TT_REC_RESET:
		KEY(&o, "reason");
		put_str(&o, rec->u.reset.reason ? rec->u.reset.reason : "", 256);
		break;
	}
	PUTS(&o, "}");
	if (o.overflow)
		return -ENOSPC;
	if (o.p < o.end)
		*o.p = '\0';
	return (int)(o.p - buf);
}

int tt_json_string(char *buf, size_t cap, const char *s, size_t max)
{
	struct out o = { buf, buf + cap, 0 };

	put_str(&o, s, max);
	if (o.overflow)
		return -ENOSPC;
	return (int)(o.p - buf);
}
