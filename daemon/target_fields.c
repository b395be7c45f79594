/* daemon/target_fields.c: the table of target fields (target_fields.h). */
#include "target_fields.h"

#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "TT_FIELD_UINT stores uint32_t fields too");

#define F(key, opt, cli, type, field, restart) \
	{ key, opt, TT_CLI_##cli, TT_FIELD_##type, offsetof(struct tt_target_config, field), restart }
const struct tt_target_field tt_target_fields[] = {
	F("name", "name", OWN, STR, name, false), /* the target's identity: never compared */
	F("probe", "probe", OWN, STR, probe, true),
	F("openocd_args", "f/c", OWN, ARGV, openocd_args, true),
	F("openocd_log", "openocd-log", OWN, STR, openocd_log, true),
	F("format", "format", ARG, STR, format, true),
	F("elf", "elf", ARG, STR, elf, true),
	F("layout", "layout", ARG, STR, layout, true),
	F("address", "address", ARG, U64, address, true),
	F("address_is_pointer", "pointer", ARG, BOOL, address_is_pointer, true),
	F("file_base", "base", ARG, U64, file_base, true),
	F("tick_hz", "tick-hz", ARG, U64, tick_hz, true),
	F("time_wrap", "time-wrap", ARG, U64, time_wrap, true),
	F("time_dir", "time-dir", ARG, INT, time_dir, true),
	F("start_at_now", "start-at-now", LIVE_FLAG, BOOL, start_at_now, true),
	F("poll_min_ms", "poll-min", LIVE_ARG, UINT, poll_min_ms, true),
	F("poll_max_ms", "poll-max", LIVE_ARG, UINT, poll_max_ms, true),
	F("latency_ms", "latency", LIVE_ARG, UINT, latency_ms, true),
	F("max_chunk", "max-read", LIVE_ARG, UINT, max_chunk, true),
	F("stack_budget", "stack-budget", LIVE_ARG, INT, stack_budget, true),
	F("format_opts", "format-opt", ARG, ARGV, format_opts, true),
};
#undef F
const size_t tt_target_nfields = sizeof(tt_target_fields) / sizeof(tt_target_fields[0]);

bool tt_field_str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool argv_eq(const char *const *a, const char *const *b)
{
	for (; a && *a && b && *b; a++, b++)
		if (strcmp(*a, *b))
			return false;
	return !(a && *a) && !(b && *b);
}

static bool field_eq(const struct tt_target_field *f, const void *a, const void *b)
{
	a = (const char *)a + f->off;
	b = (const char *)b + f->off;
	switch (f->type) {
	case TT_FIELD_STR: return tt_field_str_eq(*(const char *const *)a, *(const char *const *)b);
	case TT_FIELD_ARGV:
		return argv_eq(*(const char *const *const *)a, *(const char *const *const *)b);
	case TT_FIELD_BOOL: return *(const bool *)a == *(const bool *)b;
	case TT_FIELD_U64: return *(const uint64_t *)a == *(const uint64_t *)b;
	case TT_FIELD_INT: return *(const int *)a == *(const int *)b;
	case TT_FIELD_UINT: return *(const unsigned *)a == *(const unsigned *)b;
	}
	return false;
}

bool tt_target_fields_differ(const struct tt_target_config *a, const struct tt_target_config *b)
{
	for (size_t i = 0; i < tt_target_nfields; i++)
		if (tt_target_fields[i].restart && !field_eq(&tt_target_fields[i], a, b))
			return true;
	return false;
}
