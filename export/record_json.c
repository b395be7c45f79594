/* export/record_json.c: wire JSON -> struct tt_record (see record_json.h).
 *
 * The inverse of proto/json.c for what a person reads: argument values that arrive as strings
 * (object names, state names, hex addresses) come back as text, numbers as numbers. */
#include "record_json.h"

#include <errno.h>
#include <string.h>

/* Saturating, because a C cast of a double outside the target type's range is undefined. */
uint64_t tt_json_u64(double d)
{
	if (!(d > 0))
		return 0;
	return d >= 0x1p64 ? UINT64_MAX : (uint64_t)d;
}

uint32_t tt_json_u32(double d)
{
	uint64_t v = tt_json_u64(d);
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int32_t tt_json_i32(double d)
{
	if (!(d > INT32_MIN))
		return INT32_MIN;
	return d >= 0x1p31 ? INT32_MAX : (int32_t)d;
}

double tt_json_num(const cJSON *o, const char *k, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

const char *tt_json_str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static const char *str_or(const cJSON *o, const char *k, const char *def)
{
	const char *s = tt_json_str(o, k);
	return s ? s : def;
}

static uint32_t hex(const cJSON *o, const char *k)
{
	const char *s = tt_json_str(o, k);
	uint32_t v = 0;

	if (s && s[0] == '0' && s[1] == 'x')
		for (s += 2; *s; s++)
			v = v << 4 | (uint32_t)(*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
	return v;
}

static uint8_t ctx_of(const char *s)
{
	if (!s)
		return TT_CTX_UNKNOWN;
	if (!strcmp(s, "thread"))
		return TT_CTX_THREAD;
	if (!strcmp(s, "isr"))
		return TT_CTX_ISR;
	if (!strcmp(s, "init"))
		return TT_CTX_INIT;
	return TT_CTX_UNKNOWN;
}

static void event_from_json(const cJSON *o, struct tt_record_json *out)
{
	struct tt_event *ev = &out->rec.u.ev;
	const cJSON *a, *w;

	ev->id = tt_json_u32(tt_json_num(o, "id", 0));
	ev->name = str_or(o, "name", "UNKNOWN");
	ev->ctx = ctx_of(tt_json_str(o, "ctx"));
	ev->core = (int16_t)tt_json_i32(tt_json_num(o, "core", -1));
	ev->thread = hex(o, "thread");
	ev->thread_name = tt_json_str(o, "thread_name");
	ev->interrupted = hex(o, "interrupted");
	ev->interrupted_name = tt_json_str(o, "interrupted_name");
	ev->prio = tt_json_i32(tt_json_num(o, "prio", -1));
	ev->threshold = tt_json_i32(tt_json_num(o, "threshold", -1));
	ev->ts_raw = tt_json_u32(tt_json_num(o, "ts", 0));
	ev->time = tt_json_u64(tt_json_num(o, "time", 0));
	ev->has_ns = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "ns"));
	ev->ns = tt_json_u64(tt_json_num(o, "ns", 0));
	ev->addr = hex(o, "addr");
	/* who ran since the previous event (names as proto/json.c writes them) */
	static const char *const runs[] = { "", "thread", "isr", "idle", "init" };
	const char *run = tt_json_str(o, "run");
	for (uint8_t i = 1; run && i < sizeof(runs) / sizeof(runs[0]); i++)
		if (!strcmp(run, runs[i]))
			ev->run = i;
	ev->run_thread = hex(o, "run_thread");
	ev->run_name = tt_json_str(o, "run_name");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(o, "args")) {
		if (ev->nargs == TT_MAX_ARGS)
			break;
		struct tt_arg *arg = &ev->args[ev->nargs++];
		arg->name = a->string ? a->string : "arg"; /* "args" may be an array */
		if (cJSON_IsString(a)) {
			arg->kind = TT_ARG_ENUM;
			arg->text = a->valuestring;
		} else {
			arg->kind = TT_ARG_UINT;
			arg->value = cJSON_IsNumber(a) ? tt_json_u32(a->valuedouble) : 0;
		}
	}
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(o, "raw")) {
		if (ev->nraw == sizeof(out->raw) / sizeof(out->raw[0]))
			break;
		out->raw[ev->nraw++] = cJSON_IsNumber(w) ? tt_json_u32(w->valuedouble) : 0;
	}
	ev->raw = out->raw;
}

int tt_record_from_json(const cJSON *o, struct tt_record_json *out)
{
	const char *type = tt_json_str(o, "type");

	memset(out, 0, sizeof(*out));
	if (!type)
		return -EINVAL;
	out->seq = tt_json_u64(tt_json_num(o, "seq", 0));
	out->target = tt_json_str(o, "target");
	if (!strcmp(type, "event")) {
		out->rec.kind = TT_REC_EVENT;
		event_from_json(o, out);
	} else if (!strcmp(type, "gap")) {
		out->rec.kind = TT_REC_GAP;
		out->rec.u.gap.lost = tt_json_u64(tt_json_num(o, "lost", 0));
		out->rec.u.gap.exact = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "exact"));
		out->rec.u.gap.basis = out->rec.u.gap.exact ? NULL : tt_json_str(o, "basis");
		out->rec.u.gap.reason = str_or(o, "reason", "unknown");
		if (!out->rec.u.gap.exact && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "lower"))) {
			const cJSON *up = cJSON_GetObjectItemCaseSensitive(o, "upper");
			out->rec.u.gap.lower = tt_json_u64(tt_json_num(o, "lower", 0));
			out->rec.u.gap.upper = cJSON_IsNumber(up) ? tt_json_u64(up->valuedouble)
								  : TT_GAP_NO_UPPER;
			if (out->rec.u.gap.upper == 0)
				out->rec.u.gap.upper = TT_GAP_NO_UPPER; /* a range always holds lost >= 1 */
		}
	} else if (!strcmp(type, "reset")) {
		out->rec.kind = TT_REC_RESET;
		out->rec.u.reset.reason = str_or(o, "reason", "unknown");
	} else {
		return -EINVAL;
	}
	return 0;
}
