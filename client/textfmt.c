/* client/textfmt.c: readable record lines (see textfmt.h).
 *
 * Columns: seq, time (seconds with ns when the tick rate is known, else ticks), context and
 * thread with priority, event name, then name=value arguments. Gaps and resets stand out as
 * whole-line markers, since they are what a person scanning a tail must not miss.
 */
#include "textfmt.h"

#include "../proto/json.h"
#include "../proto/reader.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_RED "\033[1;31m"
#define C_YEL "\033[1;33m"
#define C_CYAN "\033[36m"
#define C_OFF "\033[0m"

struct line {
	char *p, *end;
	int full;
};

static void addf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	size_t room = (size_t)(l->end - l->p);

	va_start(ap, fmt);
	int n = vsnprintf(l->p, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		l->full = 1;
		l->p = l->end;
		return;
	}
	l->p += n;
}

/* The text rule of everything this client prints (textfmt.h, tt_textfmt_clean): at most max
 * bytes of s, each control character (C0, DEL, C1) as a visible escape, each byte that is not
 * UTF-8 as U+FFFD, cut only between characters; a piece that does not fit ends the line. */
static void add_text(struct line *l, const char *s, size_t max)
{
	size_t i = 0;

	while (i < max && s[i] && !l->full) {
		unsigned char c = (unsigned char)s[i];
		int k = tt_json_utf8_len(s + i, max - i);
		char esc[8];
		const char *piece = esc;
		size_t n;

		if (k < 0)
			break; /* max cuts this character: end before it */
		if (c == '\n' || c == '\t') {
			n = (size_t)snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : 't');
		} else if (c < 0x20 || c == 0x7f) {
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
		} else if (k == 0) {
			piece = "\xef\xbf\xbd", n = 3; /* U+FFFD */
		} else if (k == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0) {
			/* C1 (U+0080..U+009F): CSI and OSC to some terminals */
			n = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", (unsigned char)s[i + 1]);
		} else {
			piece = s + i, n = (size_t)k;
		}
		if ((size_t)(l->end - l->p) <= n) {
			l->full = 1;
			break;
		}
		memcpy(l->p, piece, n);
		l->p += n;
		i += k > 0 ? (size_t)k : 1;
	}
}

const char *tt_textfmt_clean(char *dst, size_t cap, const char *s, size_t max)
{
	struct line l = { dst, dst + cap, 0 };

	if (!cap)
		return "";
	add_text(&l, s ? s : "", max);
	*l.p = '\0';
	return dst;
}

#define TEXT_CAP TT_TEXTFMT_CAP
#define CLEAN(buf, s, max) tt_textfmt_clean((buf), sizeof(buf), (s), (max))

/* "N events lost (reason)": exact, an estimate with its basis, or a lower bound. */
static void add_lost(struct line *l, const struct tt_gap *g)
{
	char why_buf[TEXT_CAP(TT_JSON_MAX_TEXT)], basis[TEXT_CAP(TT_JSON_MAX_TEXT)];
	const char *why = CLEAN(why_buf, g->reason, TT_JSON_MAX_TEXT);

	if (g->exact)
		addf(l, "%" PRIu64 " events lost (%s)", g->lost, why);
	else if (g->basis)
		addf(l, "about %" PRIu64 " events lost (%s; estimate from %s)", g->lost, why,
		     CLEAN(basis, g->basis, TT_JSON_MAX_TEXT));
	else
		addf(l, "at least %" PRIu64 " events lost (%s)", g->lost, why);
	if (!g->exact && g->upper == TT_GAP_NO_UPPER && g->basis)
		addf(l, " [%" PRIu64 " or more]", g->lower);
	else if (!g->exact && g->upper && g->upper != TT_GAP_NO_UPPER)
		addf(l, " [%" PRIu64 "..%" PRIu64 "]", g->lower, g->upper);
}

int tt_textfmt_want_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(fileno(f)) && !(nc && *nc);
}

/* Column widths: whole, or compact when lines must fit a terminal (no sequence number there:
 * it is for resuming, not for reading; time in microseconds). */
struct cols {
	int target, seq, who, name;
	bool compact;
};

static const struct cols wide_cols = { 10, 8, 22, 26, false };
static const struct cols compact_cols = { 8, 0, 16, 20, true };

static void add_time(struct line *l, const struct tt_event *ev, bool compact)
{
	if (ev->has_ns && compact)
		addf(l, "%6" PRIu64 ".%06" PRIu64, ev->ns / 1000000000u, ev->ns % 1000000000u / 1000);
	else if (ev->has_ns)
		addf(l, "%6" PRIu64 ".%09" PRIu64, ev->ns / 1000000000u, ev->ns % 1000000000u);
	else
		addf(l, "%*" PRIu64, compact ? 13 : 16, ev->time);
}

const char *tt_textfmt_cell(char *dst, size_t cap, const char *s, int width, bool ellipsis,
			    bool pad)
{
	size_t n = strlen(s), i = 0, last = 0;
	int cols = 0;

	while (i < n && cols < width) {
		int k = tt_json_utf8_len(s + i, n - i);
		last = i; /* where the width-th character starts */
		i += k > 0 ? (size_t)k : 1;
		cols++;
	}
	if (i < n && ellipsis) /* cut (cols == width): the last column is the ellipsis */
		snprintf(dst, cap, "%.*s\xe2\x80\xa6", (int)last, s);
	else
		snprintf(dst, cap, "%.*s%*s", (int)i, s, pad ? width - cols : 0, "");
	return dst;
}

/* s (clean) in exactly width columns, cut between characters and padded. */
static void add_cell(struct line *l, const char *s, int width)
{
	char cell[TEXT_CAP(TT_JSON_MAX_NAME) + 64];

	addf(l, "%s", tt_textfmt_cell(cell, sizeof(cell), s, width, false, true));
}

static void add_who(struct line *l, const struct tt_event *ev, int width)
{
	char who[TEXT_CAP(32) + 16];

	switch (ev->ctx) {
	case TT_CTX_THREAD:
		if (ev->thread_name)
			tt_textfmt_clean(who, sizeof(who), ev->thread_name, 32);
		else
			snprintf(who, sizeof(who), "0x%08" PRIx32, ev->thread);
		if (ev->prio >= 0) {
			size_t n = strlen(who);
			snprintf(who + n, sizeof(who) - n, " [%d]", (int)ev->prio);
		}
		break;
	case TT_CTX_ISR:
		snprintf(who, sizeof(who), "ISR");
		break;
	case TT_CTX_INIT:
		snprintf(who, sizeof(who), "init");
		break;
	default:
		snprintf(who, sizeof(who), "?");
	}
	addf(l, "  ");
	add_cell(l, who, width);
}

static void add_args(struct line *l, const struct tt_event *ev, int color)
{
	for (unsigned i = 0; i < ev->nargs && i < TT_MAX_ARGS; i++) {
		const struct tt_arg *a = &ev->args[i];
		char name[TEXT_CAP(TT_JSON_MAX_NAME)];
		addf(l, " %s%s=%s", color ? C_DIM : "",
		     CLEAN(name, a->name ? a->name : "arg", TT_JSON_MAX_NAME), color ? C_OFF : "");
		if ((a->kind == TT_ARG_OBJ || a->kind == TT_ARG_ENUM) && a->text) {
			/* a long text (a QNX user string, a path) is cut to keep the line
			 * readable, and the cut says how long the whole is */
			size_t len = strlen(a->text);
			add_text(l, a->text, 64);
			if (len > 64)
				addf(l, "...[%zu chars]", len);
		} else if (a->kind == TT_ARG_OBJ || a->kind == TT_ARG_HEX)
			addf(l, "0x%08" PRIx32, a->value);
		else
			addf(l, "%" PRIu32, a->value);
	}
}

/* Cuts the line in buf (length n, colour escapes included) to width visible columns, the end
 * marked with an ellipsis. Returns the new length. */
static int fit(char *buf, size_t cap, int n, int width, int color)
{
	int cols = 0, i = 0;

	for (int k = 0; k < n; k++) {
		unsigned char c = (unsigned char)buf[k];
		if (c == '\033') {
			while (k < n && buf[k] != 'm')
				k++;
			continue;
		}
		if ((c & 0xc0) != 0x80 && ++cols == width) /* the last column is the ellipsis */
			i = k;
	}
	if (cols <= width)
		return n;
	const char *tail = color ? "\xe2\x80\xa6" C_OFF : "\xe2\x80\xa6";
	if ((size_t)i + strlen(tail) >= cap)
		return n;
	memcpy(buf + i, tail, strlen(tail));
	return i + (int)strlen(tail);
}

int tt_textfmt_record(const struct tt_textfmt *tf, char *buf, size_t cap,
		      const struct tt_record *rec, uint64_t seq)
{
	struct line l = { buf, buf + cap, 0 };
	int c = tf->color;
	const struct cols *w = tf->width > 0 ? &compact_cols : &wide_cols;
	char text[TEXT_CAP(TT_JSON_MAX_TEXT)];

	if (tf->target && w->compact) {
		int tw = tf->target_width > 0 ? tf->target_width : w->target;
		addf(&l, "%s", c ? C_CYAN : "");
		add_cell(&l, CLEAN(text, tf->target, 32), tw);
		addf(&l, "%s ", c ? C_OFF : "");
	} else if (tf->target) {
		addf(&l, "%s%-*s%s ", c ? C_CYAN : "", w->target, CLEAN(text, tf->target, 32),
		     c ? C_OFF : "");
	}
	if (w->seq)
		addf(&l, "%s%*" PRIu64 "%s ", c ? C_DIM : "", w->seq, seq, c ? C_OFF : "");
	switch (rec->kind) {
	case TT_REC_EVENT:
		add_time(&l, &rec->u.ev, w->compact);
		add_who(&l, &rec->u.ev, w->who);
		addf(&l, " %s%-*s%s", c ? C_BOLD : "", w->name,
		     CLEAN(text, rec->u.ev.name ? rec->u.ev.name : "UNKNOWN", TT_JSON_MAX_NAME),
		     c ? C_OFF : "");
		/* The id says which user event or which unknown event it was. */
		if (rec->u.ev.name && (!strcmp(rec->u.ev.name, "USER_EVENT") ||
				       !strcmp(rec->u.ev.name, "UNKNOWN")))
			addf(&l, " id=%" PRIu32, rec->u.ev.id);
		add_args(&l, &rec->u.ev, c);
		break;
	case TT_REC_GAP:
		addf(&l, "%s--- gap: ", c ? C_YEL : "");
		add_lost(&l, &rec->u.gap);
		addf(&l, " ---%s", c ? C_OFF : "");
		break;
	case TT_REC_RESET:
		addf(&l, "%s=== reset: %s ===%s", c ? C_RED : "",
		     CLEAN(text, rec->u.reset.reason, TT_JSON_MAX_TEXT), c ? C_OFF : "");
		break;
	}
	if (l.full)
		return -ENOSPC;
	return tf->width > 0 ? fit(buf, cap, (int)(l.p - buf), tf->width, c) : (int)(l.p - buf);
}

int tt_textfmt_alert(const struct tt_textfmt *tf, char *buf, size_t cap, const char *target,
		     const char *trigger, const char *cond, uint64_t seq, const char *capture)
{
	struct line l = { buf, buf + cap, 0 };
	int c = tf->color;

	addf(&l, "%s!!! alert ", c ? C_RED : "");
	add_text(&l, trigger ? trigger : "?", 64);
	addf(&l, " on ");
	add_text(&l, target ? target : "?", 64);
	addf(&l, " at seq %" PRIu64 ": ", seq);
	add_text(&l, cond ? cond : "", 256);
	if (capture) {
		addf(&l, " (capture ");
		add_text(&l, capture, 200);
		addf(&l, ")");
	}
	addf(&l, " !!!%s", c ? C_OFF : "");
	if (l.full)
		return -ENOSPC;
	return tf->width > 0 ? fit(buf, cap, (int)(l.p - buf), tf->width, c) : (int)(l.p - buf);
}

/* ---- a format's own tool's text (QNX: traceprinter) ---- */

int tt_textfmt_native(char *buf, size_t cap, const struct tt_record *rec,
		      const struct tt_reader_ops *r, const struct tt_native_ctx *ctx)
{
	struct line l = { buf, buf + cap, 0 };
	char text[TEXT_CAP(TT_JSON_MAX_TEXT)];

	if (rec->kind == TT_REC_GAP) {
		addf(&l, " -- GAP: ");
		add_lost(&l, &rec->u.gap);
		addf(&l, " -- ");
		return l.full ? -ENOSPC : (int)(l.p - buf);
	}
	if (rec->kind == TT_REC_RESET) {
		addf(&l, " -- RESET: %s -- ", CLEAN(text, rec->u.reset.reason, TT_JSON_MAX_TEXT));
		return l.full ? -ENOSPC : (int)(l.p - buf);
	}
	int n = r->native_line(buf, cap, &rec->u.ev, ctx);
	if (n < 0)
		return -ENOSPC;
	/* the line holds the file's strings whole: made terminal-safe like every record line */
	char *raw = strndup(buf, (size_t)n);
	if (!raw)
		return -ENOMEM;
	tt_textfmt_clean(buf, cap, raw, (size_t)n);
	free(raw);
	return (int)strlen(buf);
}
