/* daemon/trigger_cond.c: triggers' text parsed into definitions and matched against records
 * (trigger.h): no I/O, no allocation while matching, so every condition is unit-tested on
 * records made by hand and the engine costs a few compares per record and trigger.
 */
#include "trigger.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/parse.h"

void tt_trig_def_init(struct tt_trig_def *d)
{
	memset(d, 0, sizeof(*d));
	d->holdoff_ms = 1000;
	d->before_records = 1000;
	d->after_ms = 1000;
	d->command_timeout_ms = 10000;
}

/* The next whitespace-separated token of *p into buf (double quotes group, and are removed);
 * false at the end. -1 in *bad when it does not fit or a quote is not closed. */
static bool token(const char **p, char *buf, size_t cap, int *bad)
{
	const char *s = *p;
	size_t n = 0;
	bool quoted = false;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	for (; *s && (quoted || !isspace((unsigned char)*s)); s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (n + 1 >= cap) {
			*bad = -1;
			return false;
		}
		buf[n++] = *s;
	}
	buf[n] = 0;
	if (quoted)
		*bad = -1;
	*p = s;
	return !*bad;
}

static const struct {
	const char *text;
	enum tt_trig_op op;
} ops[] = { { "!=", TT_OP_NE }, { "<=", TT_OP_LE }, { ">=", TT_OP_GE }, { "=", TT_OP_EQ },
	    { "<", TT_OP_LT }, { ">", TT_OP_GT }, { "~", TT_OP_HAS } };

/* field OP value */
static int parse_pred(const char *tok, struct tt_trig_pred *p, char *err, size_t errlen)
{
	size_t fl = 0;

	memset(p, 0, sizeof(*p));
	while (isalnum((unsigned char)tok[fl]) || tok[fl] == '_')
		fl++;
	if (!fl || fl >= sizeof(p->field)) {
		snprintf(err, errlen, "'%.80s': expected FIELD OP VALUE (a field of letters, digits "
			 "and _, then = != < <= > >= or ~)", tok);
		return -EINVAL;
	}
	memcpy(p->field, tok, fl);
	const char *o = tok + fl;
	size_t k;
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!strncmp(o, ops[k].text, strlen(ops[k].text)))
			break;
	if (k == sizeof(ops) / sizeof(ops[0])) {
		snprintf(err, errlen, "'%.80s': no operator after '%s' (= != < <= > >= ~)", tok,
			 p->field);
		return -EINVAL;
	}
	p->op = (uint8_t)ops[k].op;
	const char *v = o + strlen(ops[k].text);
	if (*v && strchr("=<>!~", *v) && (isdigit((unsigned char)v[1]) || v[1] == '=')) {
		snprintf(err, errlen, "'%.80s': the value starts with an operator (= != < <= > >= "
			 "~ each stand alone)", tok);
		return -EINVAL;
	}
	snprintf(p->str, sizeof(p->str), "%s", v);
	p->is_num = tt_parse_u64(v, UINT64_MAX, 0, &p->num) == 0;
	if (!p->is_num && p->op >= TT_OP_LT && p->op <= TT_OP_GE) {
		snprintf(err, errlen, "'%.80s': %s compares numbers, '%.40s' is none", tok,
			 ops[k].text, v);
		return -EINVAL;
	}
	if (!strcmp(p->field, "lost") && !p->is_num) {
		snprintf(err, errlen, "'%.80s': lost is a number", tok);
		return -EINVAL;
	}
	return 0;
}

/* What each kind other than an event takes after its word. */
static const char *const kind_fields[TT_TRIG_NKINDS] = {
	[TT_TRIG_GAP] = "no predicate but lost (lost>=N)",
	[TT_TRIG_RESET] = "no predicate", [TT_TRIG_HALT] = "no predicate",
	[TT_TRIG_DISCONNECT] = "no predicate",
	[TT_TRIG_STACK] = "free<N and thread=NAME",
	[TT_TRIG_INVERSION] = "longer>TICKS (and the word bad: inversion bad)",
	[TT_TRIG_CPU] = "share>PERCENT, thread=NAME and window=DURATION",
	[TT_TRIG_IRQ] = "max>TICKS", [TT_TRIG_SYSCALL] = "max>TICKS",
	[TT_TRIG_SILENT] = "thread=NAME and for=DURATION",
};

static bool stat_field_ok(uint8_t kind, const char *f)
{
	static const struct { uint8_t kind; const char *field; } ok[] = {
		{ TT_TRIG_GAP, "lost" }, { TT_TRIG_STACK, "free" }, { TT_TRIG_STACK, "thread" },
		{ TT_TRIG_CPU, "share" }, { TT_TRIG_CPU, "thread" }, { TT_TRIG_CPU, "window" },
		{ TT_TRIG_IRQ, "max" }, { TT_TRIG_SYSCALL, "max" }, { TT_TRIG_SILENT, "thread" },
		{ TT_TRIG_SILENT, "for" }, { TT_TRIG_INVERSION, "bad" },
		{ TT_TRIG_INVERSION, "longer" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i].kind == kind && !strcmp(ok[i].field, f))
			return true;
	return false;
}

static int stat_check(struct tt_trig_def *d, char *err, size_t errlen);

static const char *const kinds[TT_TRIG_NKINDS] = { [TT_TRIG_GAP] = "gap",
	[TT_TRIG_RESET] = "reset", [TT_TRIG_HALT] = "halt", [TT_TRIG_DISCONNECT] = "disconnect",
	[TT_TRIG_STACK] = "stack", [TT_TRIG_INVERSION] = "inversion", [TT_TRIG_CPU] = "cpu",
	[TT_TRIG_IRQ] = "irq", [TT_TRIG_SYSCALL] = "syscall", [TT_TRIG_SILENT] = "silent" };

/* The condition's first word: a kind's, an event's name, an id or *. */
static int first_word(const char *tok, struct tt_trig_def *d, char *err, size_t errlen)
{
	uint64_t id;

	d->kind = TT_TRIG_EVENT;
	for (size_t k = 1; k < TT_TRIG_NKINDS; k++)
		if (!strcmp(tok, kinds[k]))
			d->kind = (uint8_t)k;
	if (d->kind != TT_TRIG_EVENT || !strcmp(tok, "*"))
		return 0;
	if (tt_parse_u64(tok, UINT32_MAX, 0, &id) == 0) {
		d->by_id = true;
		d->id = (uint32_t)id;
		return 0;
	}
	if (strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(tok) &&
	    isupper((unsigned char)tok[0]) && strlen(tok) < sizeof(d->event)) {
		memcpy(d->event, tok, strlen(tok) + 1); /* shorter than d->event: checked */
		return 0;
	}
	snprintf(err, errlen, "'%.80s': expected an event name (USER_EVENT), an id (4096, 0x1000), "
		 "*, gap, reset, halt, disconnect, stack, inversion, cpu, irq, syscall or silent",
		 tok);
	return -EINVAL;
}

int tt_trig_parse_cond(const char *cond, struct tt_trig_def *d, char *err, size_t errlen)
{
	char tok[TT_TRIG_TEXT_MAX + 40];
	const char *p = cond;
	int bad = 0;

	snprintf(d->cond, sizeof(d->cond), "%s", cond);
	while (isspace((unsigned char)*d->cond))
		memmove(d->cond, d->cond + 1, strlen(d->cond));
	for (size_t n = strlen(d->cond); n && isspace((unsigned char)d->cond[n - 1]); n--)
		d->cond[n - 1] = 0;
	d->npreds = 0;
	d->by_id = false;
	d->event[0] = 0;
	if (!token(&p, tok, sizeof(tok), &bad)) {
		snprintf(err, errlen, "%s", bad ? "a quote is not closed, or a word is too long"
						: "no condition");
		return -EINVAL;
	}
	if (first_word(tok, d, err, errlen) < 0)
		return -EINVAL;
	while (token(&p, tok, sizeof(tok), &bad)) {
		if (d->npreds == TT_TRIG_MAX_PREDS) {
			snprintf(err, errlen, "more than %d predicates", TT_TRIG_MAX_PREDS);
			return -EINVAL;
		}
		if (d->kind == TT_TRIG_INVERSION && !strcmp(tok, "bad"))
			snprintf(tok, sizeof(tok), "bad=1");
		if (parse_pred(tok, &d->preds[d->npreds], err, errlen) < 0)
			return -EINVAL;
		if (d->kind != TT_TRIG_EVENT &&
		    !stat_field_ok(d->kind, d->preds[d->npreds].field)) {
			snprintf(err, errlen, "'%.80s': %s takes %s", tok, kinds[d->kind],
				 kind_fields[d->kind]);
			return -EINVAL;
		}
		d->npreds++;
	}
	if (bad) {
		snprintf(err, errlen, "a quote is not closed, or a word is too long");
		return -EINVAL;
	}
	return stat_check(d, err, errlen);
}

/* "500ms", "2s", "1m", "1h" into ms; -1 without a unit or out of range. */
static int duration_ms(const char *v, uint64_t *ms)
{
	static const struct { const char *unit; uint64_t mul; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 } };
	char num[32];
	size_t n = strspn(v, "0123456789");

	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, v, n);
	num[n] = 0;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		uint64_t x;
		if (strcmp(v + n, units[k].unit) || tt_parse_u64(num, 86400000, 0, &x) < 0 ||
		    x * units[k].mul > 86400000ull * 7)
			continue;
		*ms = x * units[k].mul;
		return 0;
	}
	return -1;
}

static struct tt_trig_pred *pred_of(struct tt_trig_def *d, const char *field)
{
	for (size_t i = 0; i < d->npreds; i++)
		if (!strcmp(d->preds[i].field, field))
			return &d->preds[i];
	return NULL;
}

/* A statistics condition's predicates: the required ones there, with the right operator;
 * durations (window, for) into milliseconds in num. */
static int stat_check(struct tt_trig_def *d, char *err, size_t errlen)
{
	static const struct { uint8_t kind; const char *field, *form; uint8_t op; } need[] = {
		{ TT_TRIG_STACK, "free", "free<BYTES", TT_OP_LT },
		{ TT_TRIG_CPU, "share", "share>PERCENT", TT_OP_GT },
		{ TT_TRIG_IRQ, "max", "max>TICKS", TT_OP_GT },
		{ TT_TRIG_SYSCALL, "max", "max>TICKS", TT_OP_GT },
		{ TT_TRIG_SILENT, "thread", "thread=NAME", TT_OP_EQ },
		{ TT_TRIG_SILENT, "for", "for=DURATION", TT_OP_EQ },
	};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		struct tt_trig_pred *p = d->kind == need[i].kind ? pred_of(d, need[i].field) : NULL;
		if (d->kind != need[i].kind)
			continue;
		if (!p || p->op != need[i].op) {
			snprintf(err, errlen, "%s needs %s", d->cond, need[i].form);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < d->npreds; i++) {
		struct tt_trig_pred *p = &d->preds[i];
		uint64_t ms;
		if (strcmp(p->field, "window") && strcmp(p->field, "for"))
			continue;
		if (p->op != TT_OP_EQ || duration_ms(p->str, &ms) < 0 || !ms) {
			snprintf(err, errlen, "%s=%.40s: expected a duration (500ms, 5s, 1m)", p->field,
				 p->str);
			return -EINVAL;
		}
		p->num = ms;
		p->is_num = true;
	}
	struct tt_trig_pred *share = d->kind == TT_TRIG_CPU ? pred_of(d, "share") : NULL;
	if (share && (!share->is_num || share->num > 100)) {
		snprintf(err, errlen, "share>%.40s: expected a percentage (0 to 100)", share->str);
		return -EINVAL;
	}
	struct tt_trig_pred *lg = d->kind == TT_TRIG_INVERSION ? pred_of(d, "longer") : NULL;
	if (lg && (lg->op != TT_OP_GT || !lg->is_num)) {
		snprintf(err, errlen, "%s needs longer>TICKS", d->cond);
		return -EINVAL;
	}
	struct tt_trig_pred *th = pred_of(d, "thread");
	if (th && th->op != TT_OP_EQ && d->kind != TT_TRIG_EVENT) {
		snprintf(err, errlen, "thread=NAME: only = here");
		return -EINVAL;
	}
	return 0;
}

/* before/after: a duration, or a count of records (a plain number). */
static int window(const char *key, const char *v, uint64_t *ms, uint64_t *recs, char *err,
		  size_t errlen)
{
	uint64_t x;

	if (v && duration_ms(v, &x) == 0) {
		*ms = x;
		*recs = 0;
		return 0;
	}
	if (v && tt_parse_u64(v, 10000000, 0, &x) == 0) {
		*recs = x;
		*ms = 0;
		return 0;
	}
	snprintf(err, errlen, "%s: '%.40s': expected a duration (500ms, 2s, 1m) or a number of "
		 "records (0 to 10000000)", key, v ? v : "");
	return -EINVAL;
}

static int set_command(struct tt_trig_def *d, const char *v, char *err, size_t errlen)
{
	if (d->ncommand == TT_TRIG_MAX_ARGV || !v || !*v || strlen(v) >= sizeof(d->command[0])) {
		snprintf(err, errlen, "command: '%.40s': expected a program (and at most %d words "
			 "of at most 255 bytes)", v ? v : "", TT_TRIG_MAX_ARGV);
		return -EINVAL;
	}
	if (!d->ncommand && v[0] != '/') {
		snprintf(err, errlen, "command: '%.80s': expected an absolute path (the command "
			 "runs without a shell and without PATH search)", v);
		return -EINVAL;
	}
	snprintf(d->command[d->ncommand++], sizeof(d->command[0]), "%s", v);
	return 0;
}

int tt_trig_set_opt(struct tt_trig_def *d, const char *key, const char *v, char *err,
		    size_t errlen)
{
	uint64_t x;

	if (!strcmp(key, "holdoff") || !strcmp(key, "command_timeout")) {
		if (!v || duration_ms(v, &x) < 0) {
			snprintf(err, errlen, "%s: '%.40s': expected a duration with a unit (ms, s, "
				 "m, h), at most a week", key, v ? v : "");
			return -EINVAL;
		}
		*(key[0] == 'h' ? &d->holdoff_ms : &d->command_timeout_ms) = x;
		return 0;
	}
	if (!strcmp(key, "limit")) {
		if (!v || tt_parse_u64(v, UINT32_MAX, 0, &x) < 0) {
			snprintf(err, errlen, "limit: '%.40s': expected a count (0 = no limit)",
				 v ? v : "");
			return -EINVAL;
		}
		d->limit = x;
		return 0;
	}
	if (!strcmp(key, "target")) {
		if (!v || !*v || strlen(v) >= sizeof(d->target)) {
			snprintf(err, errlen, "target: expected a target name of 1 to 64 bytes");
			return -EINVAL;
		}
		snprintf(d->target, sizeof(d->target), "%s", v);
		return 0;
	}
	if (!strcmp(key, "before") || !strcmp(key, "after")) {
		d->capture = true;
		return key[0] == 'b' ? window(key, v, &d->before_ms, &d->before_records, err, errlen)
				     : window(key, v, &d->after_ms, &d->after_records, err, errlen);
	}
	if (!strcmp(key, "capture") || !strcmp(key, "halt")) {
		bool on = !v || !strcmp(v, "true") || !strcmp(v, "on");
		if (v && !on && strcmp(v, "false") && strcmp(v, "off")) {
			snprintf(err, errlen, "%s: '%.40s': expected true or false", key, v);
			return -EINVAL;
		}
		*(key[0] == 'c' ? &d->capture : &d->halt) = on;
		return 0;
	}
	if (!strcmp(key, "command"))
		return set_command(d, v, err, errlen);
	snprintf(err, errlen, "unknown option '%.40s' (holdoff, limit, target, capture, before, "
		 "after, halt, command, command_timeout)", key);
	return -EINVAL;
}

int tt_trig_check(const struct tt_trig_def *d, char *err, size_t errlen)
{
	size_t n = strlen(d->name);

	if (!n || n > TT_TRIG_NAME_MAX ||
	    strspn(d->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
		    != n || d->name[0] == '.') {
		snprintf(err, errlen, "name '%.60s': expected 1 to %d of A-Z a-z 0-9 _ . - (not "
			 "starting with .)", d->name, TT_TRIG_NAME_MAX);
		return -EINVAL;
	}
	if (!d->cond[0]) {
		snprintf(err, errlen, "no condition");
		return -EINVAL;
	}
	return 0;
}

int tt_trig_parse(const char *spec, struct tt_trig_def *d, char *err, size_t errlen)
{
	char cond[TT_TRIG_COND_MAX], opt[300];
	const char *colon = strchr(spec, ':'), *semi, *p;
	int bad = 0;

	tt_trig_def_init(d);
	if (!colon || (size_t)(colon - spec) > TT_TRIG_NAME_MAX + 8) {
		snprintf(err, errlen, "'%.60s': expected NAME: CONDITION [; OPTIONS]", spec);
		return -EINVAL;
	}
	p = spec;
	while (isspace((unsigned char)*p))
		p++;
	size_t nl = (size_t)(colon - p);
	while (nl && isspace((unsigned char)p[nl - 1]))
		nl--;
	snprintf(d->name, sizeof(d->name), "%.*s", (int)nl, p);
	semi = strchr(colon + 1, ';');
	size_t cl = semi ? (size_t)(semi - colon - 1) : strlen(colon + 1);
	if (cl >= sizeof(cond)) {
		snprintf(err, errlen, "trigger %s: the condition is longer than %zu bytes", d->name,
			 sizeof(cond) - 1);
		return -EINVAL;
	}
	snprintf(cond, sizeof(cond), "%.*s", (int)cl, colon + 1);
	char why[300];
	if (tt_trig_parse_cond(cond, d, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "trigger %s: %s", d->name, why);
		return -EINVAL;
	}
	for (p = semi ? semi + 1 : ""; token(&p, opt, sizeof(opt), &bad);) {
		char *eq = strchr(opt, '=');
		if (eq)
			*eq = 0;
		if (tt_trig_set_opt(d, opt, eq ? eq + 1 : NULL, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "trigger %s: %s", d->name, why);
			return -EINVAL;
		}
	}
	if (bad || tt_trig_check(d, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "trigger %s: %s", d->name,
			 bad ? "an option is too long or its quote is not closed" : why);
		return -EINVAL;
	}
	return 0;
}

/* ---- matching ---- */

static bool num_ok(uint64_t a, uint8_t op, uint64_t b)
{
	switch (op) {
	case TT_OP_EQ: return a == b;
	case TT_OP_NE: return a != b;
	case TT_OP_LT: return a < b;
	case TT_OP_LE: return a <= b;
	case TT_OP_GT: return a > b;
	case TT_OP_GE: return a >= b;
	default: return false;
	}
}

static bool str_ok(const char *s, const struct tt_trig_pred *p)
{
	if (!s)
		return p->op == TT_OP_NE;
	switch (p->op) {
	case TT_OP_EQ: return !strcmp(s, p->str);
	case TT_OP_NE: return strcmp(s, p->str) != 0;
	case TT_OP_HAS: return strstr(s, p->str) != NULL;
	default: return false;
	}
}

static bool pred_ok(const struct tt_event *e, const struct tt_trig_pred *p)
{
	static const char *const ctx[] = { "thread", "isr", "init", "unknown" };
	const char *f = p->field;

	if (!strcmp(f, "id"))
		return p->is_num && num_ok(e->id, p->op, p->num);
	if (!strcmp(f, "prio"))
		return p->is_num && e->prio >= 0 && num_ok((uint64_t)e->prio, p->op, p->num);
	if (!strcmp(f, "core"))
		return p->is_num && e->core >= 0 && num_ok((uint64_t)e->core, p->op, p->num);
	if (!strcmp(f, "ctx"))
		return str_ok(e->ctx < 4 ? ctx[e->ctx] : "unknown", p);
	if (!strcmp(f, "thread"))
		return p->is_num && p->op != TT_OP_HAS ? num_ok(e->thread, p->op, p->num)
						      : str_ok(e->thread_name, p);
	if (!strcmp(f, "text")) {
		bool any = false; /* some argument's text equals (=, !=) or holds (~) the value */
		for (uint8_t i = 0; i < e->nargs && !any; i++)
			any = e->args[i].text && (p->op == TT_OP_HAS ? strstr(e->args[i].text, p->str) != NULL
								    : !strcmp(e->args[i].text, p->str));
		return p->op == TT_OP_NE ? !any : any;
	}
	for (uint8_t i = 0; i < e->nargs; i++) {
		const struct tt_arg *a = &e->args[i];
		if (strcmp(a->name, f))
			continue;
		if (p->is_num && p->op != TT_OP_HAS)
			return num_ok(a->value, p->op, p->num);
		return str_ok(a->text, p);
	}
	return false; /* no such argument: the condition does not hold */
}

bool tt_trig_match(const struct tt_trig_def *d, const char *target, const struct tt_record *rec)
{
	if (d->target[0] && strcmp(d->target, target))
		return false;
	switch (d->kind) {
	case TT_TRIG_GAP:
		if (rec->kind != TT_REC_GAP)
			return false;
		for (size_t i = 0; i < d->npreds; i++)
			if (!num_ok(rec->u.gap.lost, d->preds[i].op, d->preds[i].num))
				return false;
		return true;
	case TT_TRIG_RESET:
		return rec->kind == TT_REC_RESET;
	case TT_TRIG_EVENT:
		break;
	default:
		return false; /* state conditions: tt_trig_state */
	}
	if (rec->kind != TT_REC_EVENT)
		return false;
	const struct tt_event *e = &rec->u.ev;
	if (d->by_id ? e->id != d->id : d->event[0] && strcmp(e->name, d->event))
		return false;
	for (size_t i = 0; i < d->npreds; i++)
		if (!pred_ok(e, &d->preds[i]))
			return false;
	return true;
}
