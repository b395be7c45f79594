/* proto/qnx_tp.c: a QNX event as one line of QNX's `traceprinter -n` (its 6.4 release, 1.02):
 * the class and event columns, each class's argument names and number forms, the kernel calls'
 * argument lists (fast mode: the arguments a simple event carries; wide mode: all), strings of
 * message bytes and names. Where traceprinter 1.02 prints something wrong (a failed call's line
 * without its end, big-endian message bytes and errno unswapped, binary user events as an empty
 * string, interrupt-handler sigevents off QNX) this prints what the event holds instead
 * (README-qnx.md lists each place). Events of calls or classes traceprinter has no form for here
 * get the same columns and their words.
 */
#include "qnx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

struct out {
	char *p, *end;
	bool full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = (size_t)(o->end - o->p);

	va_start(ap, fmt);
	int n = vsnprintf(o->p, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		o->full = true;
		o->p = o->end;
		return;
	}
	o->p += n;
}

/* The event being printed: its payload words and the same as bytes in the file's order. */
struct tpev {
	uint32_t header, ts;
	const uint32_t *w;
	unsigned nw;
	bool be;
};

static uint32_t word(const struct tpev *e, unsigned i)
{
	return i < e->nw ? e->w[i] : 0;
}

/* Byte k of the payload as the file holds it. */
static uint8_t byte_at(const struct tpev *e, unsigned k)
{
	uint32_t v = word(e, k / 4);
	unsigned s = e->be ? 3 - k % 4 : k % 4;
	return (uint8_t)(v >> (8 * s));
}

static bool printable(uint8_t c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n';
}

/* The NUL-terminated string from payload byte `from`, as traceprinter's ck_print: empty when
 * any byte before the NUL is not printable. */
static void put_name(struct out *o, const struct tpev *e, unsigned from)
{
	unsigned end = from, total = e->nw * 4;

	while (end < total && byte_at(e, end))
		if (!printable(byte_at(e, end++)))
			return;
	for (unsigned k = from; k < end; k++)
		put(o, "%c", byte_at(e, k));
}

/* Message bytes of `n` words from word `from`: the 4-byte pieces up to the first that ends
 * early (a NUL), empty when one holds a byte that is not printable; then the words in hex. */
static void put_msg(struct out *o, const struct tpev *e, unsigned from, unsigned n)
{
	char s[4 * TT_QNX_COMBINE_WORDS + 1];
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;
		for (; k < 4 && byte_at(e, 4 * (from + i) + k); k++)
			s[len + k] = (char)byte_at(e, 4 * (from + i) + k);
		bool ok = true;
		for (unsigned j = 0; j < k; j++)
			ok = ok && printable((uint8_t)s[len + j]);
		if (!ok)
			break;
		len += k;
		if (k < 4)
			break;
	}
	s[len] = 0;
	put(o, "\"%s\" (0x%08" PRIx32, s, word(e, from));
	for (unsigned i = 1; i < n; i++)
		put(o, " 0x%08" PRIx32, word(e, from + i));
	put(o, ")");
}

static void put_ptr(struct out *o, uint32_t v)
{
	if (v)
		put(o, "0x%" PRIx32, v);
	else
		put(o, "(nil)");
}

/* Arguments by a spec of traceprinter's kind: space-separated items, each [f]<form><name>:
 * f = carried by a fast-mode (2-word) event too; form H hex, D decimal, P pointer, X/E 64-bit
 * hex/decimal, S a message string (continued by bare `s` items, one word each), N a name to the
 * end of the payload. A fast event takes only the f items. */
static void put_spec(struct out *o, const struct tpev *e, const char *spec)
{
	bool fast = e->nw <= 2;
	unsigned wi = 0;
	char item[48];

	while (*spec && wi < e->nw) {
		size_t n = strcspn(spec, " ");
		if (n >= sizeof(item))
			n = sizeof(item) - 1;
		memcpy(item, spec, n);
		item[n] = 0;
		spec += n + (spec[n] == ' ');
		const char *f = item;
		bool fflag = *f == 'f';
		f += fflag;
		if ((fast && !fflag) || *f == 's')
			continue;
		char form = *f++;
		put(o, " %s:", f);
		switch (form) {
		case 'S': {
			unsigned k = 1;
			if (!fast) /* the bare `s` items that follow */
				for (const char *q = spec; *q == 's' && (q[1] == ' ' || !q[1]);
				     q += q[1] ? 2 : 1)
					k++;
			k = wi + k > e->nw ? e->nw - wi : k;
			put_msg(o, e, wi, k);
			wi += k;
			break;
		}
		case 'N':
			put_name(o, e, 4 * wi);
			return;
		case 'D': put(o, "%" PRId32, (int32_t)word(e, wi++)); break;
		case 'P': put_ptr(o, word(e, wi++)); break;
		case 'X':
		case 'E': {
			uint64_t v = e->be ? (uint64_t)word(e, wi) << 32 | word(e, wi + 1)
					   : (uint64_t)word(e, wi + 1) << 32 | word(e, wi);
			wi += 2;
			if (form == 'X')
				put(o, "0x%" PRIx64, v);
			else
				put(o, "%" PRId64, (int64_t)v);
			break;
		}
		default: put(o, "0x%08" PRIx32, word(e, wi++)); break;
		}
	}
}

/* Kernel calls of QNX 6.4 whose arguments traceprinter names: entry and exit specs. */
static const struct {
	uint16_t num;
	const char *name, *enter, *exit;
} ker_specs[] = {
	{ 11, "MSG_SENDV", "fHcoid Dsparts Drparts fSmsg s s", "fDstatus fSrmsg s s" },
	{ 12, "MSG_SENDVNC", "fHcoid Dsparts Drparts fSmsg s s", "fHret_val fSrmsg s s" },
	{ 14, "MSG_RECEIVEV", "fHchid fDrparts",
	  "fHrcvid fSrmsg s s Dinfo->nd Dinfo->srcnd Dinfo->pid Dinfo->tid Dinfo->chid "
	  "Dinfo->scoid Dinfo->coid Dinfo->msglen Dinfo->srcmsglen Dinfo->dstmsglen "
	  "Dinfo->priority Dinfo->flags Dinfo->reserved" },
	{ 15, "MSG_REPLYV", "fHrcvid Dsparts fHstatus Ssmsg s s", "fDret_val fHempty" },
	{ 58, "INTERRUPT_WAIT", "fHflags fDtimeout_tv_sec Dtimeout_tv_nsec", "fDret_val fHempty" },
	{ 65, "CLOCK_TIME", "fDid fDnew(sec) Dnew(nsec)", "fDret_val fDold(sec) Dold(nsec)" },
	{ 80, "SYNC_MUTEX_LOCK", "fPsync_p Dcount fDowner", "fDret_val fHempty" },
	{ 81, "SYNC_MUTEX_UNLOCK", "fPsync_p Dcount fDowner", "fDret_val fHempty" },
	{ 82, "SYNC_CONDVAR_WAIT",
	  "fPsync_p fPmutex_p Dsync->count Dsync->owner Dmutex->count Dmutex->owner",
	  "fDret_val fHempty" },
	{ 83, "SYNC_CONDVAR_SIGNAL", "fPsync_p fDall Dsync->count Dsync->owner",
	  "fDret_val fHempty" },
	{ 84, "SYNC_SEM_POST", "fPsync_p fDcount Downer", "fHret_val fHempty" },
	{ 85, "SYNC_SEM_WAIT", "fPsync_p Dtry fDcount Downer", "fDret_val fHempty" },
	{ 90, "SCHED_YIELD", "fHempty fHempty", "fHret_val fHempty" },
};

static void ker_call(struct out *o, const struct tpev *e, const char *name, bool v64)
{
	uint32_t ev = e->header & 0x3ff, base = ev & ~0x200u, kind = base >> 7, n = base & 127;
	const char *spec = NULL;

	for (size_t i = 0; v64 && name && i < sizeof(ker_specs) / sizeof(ker_specs[0]); i++)
		if (ker_specs[i].num == n && !strcmp(ker_specs[i].name, name))
			spec = kind ? ker_specs[i].exit : ker_specs[i].enter;
	if (kind == 2) { /* an interrupted call */
		put(o, "INT_CALL:KER_%s/%" PRIu32, name ? name : "UNKNOWN", n);
		return;
	}
	put(o, "%s:%s/%02" PRIu32, kind ? "KER_EXIT" : "KER_CALL", name ? name : "UNKNOWN", n);
	if (kind == 1 && word(e, 0) == 0xffffffffu) { /* failed: traceprinter's own form */
		put(o, " ret_val:-1, errno:%" PRId32, (int32_t)word(e, 1));
		return;
	}
	if (spec)
		put_spec(o, e, spec);
	else
		for (unsigned i = 0; i < e->nw; i++)
			put(o, " word%u:0x%08" PRIx32, i + 1, e->w[i]);
}

/* traceprinter's thread-state column: TH<STATE> padded to 13 (6.4's 21 states). */
static const char *const th_states[] = {
	"DEAD", "RUNNING", "READY", "STOPPED", "SEND", "RECEIVE", "REPLY", "STACK", "WAITTHREAD",
	"WAITPAGE", "SIGSUSPEND", "SIGWAITINFO", "NANOSLEEP", "MUTEX", "CONDVAR", "JOIN", "INTR",
	"SEM", "WAITCTX", "NET_SEND", "NET_REPLY",
};
#define NTH (sizeof(th_states) / sizeof(th_states[0]))

static void pr_th(struct out *o, const struct tpev *e, uint32_t max)
{
	uint32_t ev = e->header & 0x3ff;
	char col[24];

	if (ev < 2 * max && (ev % max < NTH || ev % max >= max - 2)) {
		bool v = ev >= max;
		uint32_t s = ev % max;
		const char *st = s == max - 2 ? "CREATE" : s == max - 1 ? "DESTROY" : th_states[s];
		snprintf(col, sizeof(col), "%sTH%s", v && s >= max - 2 ? "V" : "", st);
		put(o, "%-8s:%-13s", v ? "VTHREAD" : "THREAD", col);
		if (v || s >= max - 2) {
			put_spec(o, e, s == max - 2 && !v ? "fDpid fDtid Dpolicy" : "fDpid fDtid");
			return;
		}
		put(o, " pid:%" PRId32 " tid:%" PRId32 " ", (int32_t)word(e, 0), (int32_t)word(e, 1));
		if (e->nw > 2)
			put(o, "priority:%" PRId32 " policy:%" PRId32, (int32_t)word(e, 2),
			    (int32_t)word(e, 3));
		if (e->nw > 4)
			put(o, " partition:%" PRId32, (int32_t)word(e, 4));
		if (e->nw > 5)
			put(o, " sched_flags:0x%08" PRIx32, word(e, 5));
		return;
	}
	static const char *const pr[] = { NULL, "PROCCREATE", "PROCDESTROY", "PROCCREATE_NAME",
					   "PROCDESTROY_NAME", "PROCTHREAD_NAME" };
	uint32_t k = ev >> 6;
	if (ev & 63 || !k || k > 5) {
		put(o, "%-8s:%-13" PRIu32, "PR_TH", ev);
		put_spec(o, e, "fHword1 fHword2");
		return;
	}
	put(o, "%-8s:%-13s", "PROCESS", pr[k]);
	put_spec(o, e, k == 5 ? "fDpid fDtid Nname" : k >= 3 ? "fDppid fDpid Nname" : "fDppid fDpid");
}

/* A struct sigevent (notify, signo/coid, value, code and priority as two shorts), as
 * traceprinter prints it on QNX. */
static void put_sigevent(struct out *o, const struct tpev *e, unsigned at)
{
	uint32_t notify = word(e, at), a = word(e, at + 1), val = word(e, at + 2);
	uint32_t cp = word(e, at + 3);
	int32_t code = (int16_t)(e->be ? cp >> 16 : cp & 0xffff);
	int32_t prio = (int16_t)(e->be ? cp & 0xffff : cp >> 16);

	switch (notify & 0xff) {
	case 0: put(o, "NONE"); break;
	case 1: put(o, "SIGNAL %" PRIu32, a); break;
	case 2: put(o, "SIGNAL_CODE %" PRIu32 " %#x:%#" PRIx32, a, (unsigned)code, val); break;
	case 3: put(o, "SIGNAL_THREAD %" PRIu32 " %#x:%#" PRIx32, a, (unsigned)code, val); break;
	case 4: put(o, "PULSE %#" PRIx32 ":%" PRId32 " %#x:%#" PRIx32, a, prio, (unsigned)code, val);
		break;
	case 5: put(o, "UNBLOCK"); break;
	case 6: put(o, "INTR"); break;
	case 7: put(o, "THREAD %x:%" PRIx32, (unsigned)code, val); break;
	default: put(o, "UNKNOWN(%#" PRIx32 ")", notify);
	}
}

static void interrupt(struct out *o, const struct tpev *e)
{
	uint32_t ev = e->header & 0x3ff, irq = word(e, 0);

	switch (ev) {
	case 1:
		put(o, "INT_ENTR:0x%08" PRIx32 " (%" PRId32 ")       IP:0x%08" PRIx32, irq,
		    (int32_t)irq, word(e, 1));
		return;
	case 2:
		put(o, "INT_EXIT:0x%08" PRIx32 " (%" PRId32 ") inkernel:0x%08" PRIx32, irq,
		    (int32_t)irq, word(e, 1));
		return;
	case 3:
		put(o, "INT_HANDLER_ENTR:0x%08" PRIx32 " (%" PRId32 ")       PID:%" PRId32
		    " IP:0x%08" PRIx32 " AREA:0x%08" PRIx32, word(e, 1), (int32_t)word(e, 1),
		    (int32_t)word(e, 0), word(e, 2), word(e, 3));
		return;
	case 4:
		put(o, "INT_HANDLER_EXIT:0x%08" PRIx32 " (%" PRId32 ") SIGEVENT:", irq, (int32_t)irq);
		put_sigevent(o, e, 1);
		return;
	}
	put(o, "%-8s:%-13" PRIu32, "INT", ev);
	put_spec(o, e, "fHword1 fHword2");
}

static void comm(struct out *o, const struct tpev *e)
{
	static const struct {
		const char *name, *spec;
	} c[] = {
		{ "SND_MESSAGE", "fHrcvid fDpid" },   { "SND_PULSE", "fHscoid fDpid" },
		{ "REC_MESSAGE", "fHrcvid fDpid" },   { "REC_PULSE", "fHscoid fDpid" },
		{ "SND_PULSE_EXE", "fHscoid fDpid" }, { "SND_PULSE_DIS", "fHscoid fDpid" },
		{ "SND_PULSE_DEA", "fHscoid fDpid" }, { "SND_PULSE_UN", "fHscoid fDpid" },
		{ "SND_PULSE_QUN", "fHscoid fDpid" },
		{ "SIGNAL", "fDsi_signo fDsi_code Dsi_errno H__pad[0] H__pad[1] H__pad[2] H__pad[3] "
			    "H__pad[4] H__pad[5]" },
		{ "REPLY_MESSAGE", "fDtid fDpid" },   { "MSG_ERROR", "fDtid fDpid" },
	};
	uint32_t ev = e->header & 0x3ff;

	if (ev < sizeof(c) / sizeof(c[0])) {
		put(o, "%-8s:%-13s", "COMM", c[ev].name);
		put_spec(o, e, c[ev].spec);
	} else {
		put(o, "%-8s:%-13" PRIu32, "COMM", ev);
		put_spec(o, e, "fHword1 fHword2");
	}
}

/* A user event: its two words, or (combine) its string; a binary combine event, which
 * traceprinter 1.02 prints as STR:"", as its words. */
static void user(struct out *o, const struct tpev *e)
{
	uint32_t ev = e->header & 0x3ff;
	unsigned total = e->nw * 4, k = 0;

	if (e->nw <= 2) {
		put(o, "USREVENT:EVENT:%" PRIu32 ", d0:0x%08" PRIx32 " d1:0x%08" PRIx32, ev, word(e, 0),
		    word(e, 1));
		return;
	}
	while (k + 1 < total && byte_at(e, k) && printable(byte_at(e, k)))
		k++;
	bool text = k + 1 >= total || !byte_at(e, k);
	for (unsigned j = k; text && !k && j < total; j++) /* "" only when all of it is 0 */
		text = !byte_at(e, j);
	if (text) {
		put(o, "USREVENT:EVENT:%" PRIu32 " STR:\"", ev);
		for (unsigned j = 0; j < k; j++)
			put(o, "%c", byte_at(e, j));
		put(o, "\"");
		return;
	}
	put(o, "USREVENT:EVENT:%" PRIu32 ",", ev);
	for (unsigned i = 0; i < e->nw; i++)
		put(o, " d%u:0x%08" PRIx32, i, e->w[i]);
}

int tt_qnx_traceprinter_line(char *buf, size_t cap, const struct tt_event *ev, bool big_endian,
			     uint32_t os_major)
{
	struct out o = { buf, buf + cap, false };
	struct tpev e = { .be = big_endian };
	bool incomplete = false, truncated = false;

	if (ev->nraw < 2)
		return -1;
	e.header = ev->raw[0];
	e.ts = ev->raw[1];
	e.w = ev->raw + 2;
	e.nw = ev->nraw - 2u;
	for (unsigned i = 0; i < ev->nargs && i < TT_MAX_ARGS; i++) {
		incomplete |= ev->args[i].name && !strcmp(ev->args[i].name, "incomplete");
		truncated |= ev->args[i].name && !strcmp(ev->args[i].name, "truncated");
	}
	uint32_t cls = (e.header >> 10) & 0x1f, evn = e.header & 0x3ff;
	put(&o, "t:0x%08" PRIx32 " CPU:%02u ", e.ts, (unsigned)((e.header >> 24) & 0x3f));
	switch (cls) {
	case TT_QNX_C_CONTROL:
		if (evn == 1) {
			put(&o, "%-8s:TIME", "CONTROL");
			put_spec(&o, &e, "fHmsb fHlsb(offset)");
		} else if (evn == 2) {
			put(&o, "CONTROL: BUFFER sequence = %" PRId32 ", num_events = %" PRId32,
			    (int32_t)(word(&e, 0) & 0x7ff), (int32_t)word(&e, 1));
		} else {
			put(&o, "%-8s:%-13" PRIu32, "CONTROL", evn);
			put_spec(&o, &e, "fHword1 fHword2");
		}
		break;
	case TT_QNX_C_KER_CALL: {
		const struct tt_arg *call = ev->nargs ? &ev->args[0] : NULL;
		const char *name = call && call->name && !strcmp(call->name, "call") ? call->text
										      : NULL;
		ker_call(&o, &e, name, os_major && os_major <= 6);
		break;
	}
	case TT_QNX_C_INT: interrupt(&o, &e); break;
	case TT_QNX_C_PR_TH: pr_th(&o, &e, os_major >= 8 ? 63 : 26); break;
	case TT_QNX_C_USER: user(&o, &e); break;
	case TT_QNX_C_COMM: comm(&o, &e); break;
	default: {
		static const char *const names[] = { "EMPTY", NULL, NULL, NULL, NULL, "SYSTEM",
						     NULL, NULL, "QUIP", "SEC", "QVM", "PMU" };
		const char *cn = cls < sizeof(names) / sizeof(names[0]) && names[cls] ? names[cls]
										       : "UNKNOWN";
		put(&o, "%-8s:%-13" PRIu32, cn, evn);
		for (unsigned i = 0; i < e.nw; i++)
			put(&o, " word%u:0x%08" PRIx32, i + 1, e.w[i]);
	}
	}
	if (incomplete)
		put(&o, " [incomplete: parts missing]");
	if (truncated)
		put(&o, " [truncated]");
	return o.full ? -1 : (int)(o.p - buf);
}

int tt_qnx_tp_line(char *buf, size_t cap, const struct tt_event *ev,
		   const struct tt_native_ctx *ctx)
{
	return tt_qnx_traceprinter_line(buf, cap, ev, ctx->big_endian, ctx->release);
}

struct tp_items {
	tt_line_cb cb;
	void *arg;
};

/* TRACE_<KEY>:: value, the key right-aligned to 16, the value cut at 256 bytes (as
 * traceprinter prints them). A key is as long as the file makes it: a longer line is built in
 * an allocation of its own (once per header, not per event). */
static void tp_item(void *arg, const char *key, size_t klen, const char *val, size_t vlen)
{
	const struct tp_items *t = arg;
	char small[512], *line = small;
	int pad = klen < 16 ? (int)(16 - klen) : 0;
	size_t need = (size_t)pad + klen + (vlen > 256 ? 256 : vlen) + 16;

	if (need > sizeof(small) && !(line = malloc(need)))
		return;
	int n = snprintf(line, need, "%*sTRACE_%.*s:: %.*s", pad, "", (int)klen, key,
			 (int)(vlen > 256 ? 256 : vlen), val);
	if (n > 0)
		t->cb(t->arg, line, (size_t)n);
	if (line != small)
		free(line);
}

int tt_qnx_tp_header(const uint8_t *buf, size_t len, struct tt_native_ctx *ctx, tt_line_cb cb,
		     void *arg)
{
	static const char begin[] = " -- HEADER FILE INFORMATION -- ";
	static const char end[] = " -- KERNEL EVENTS -- ";
	struct tt_qnx_header h;
	struct tp_items t = { cb, arg };
	char err[256];

	/* a header whose syspage is not all there (the buffer holds the header alone) still
	 * tells them */
	if (tt_qnx_parse_header(buf, len, &h, err, sizeof(err)) < 0 && !h.header_len)
		return -EPROTO;
	ctx->big_endian = h.big_endian;
	ctx->release = h.os_major;
	cb(arg, begin, sizeof(begin) - 1);
	tt_qnx_header_items(buf, len, tp_item, &t);
	cb(arg, end, sizeof(end) - 1);
	return 0;
}
