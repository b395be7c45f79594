/* tests/server/test_target_fields.c: the table of target fields (daemon/target_fields.h)
 * covers struct tt_target_config, its command-line options are the ones opts.c takes, and
 * reload restarts a target when any field but its name changes. */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "opts.h"
#include "synth.h"
#include "target_fields.h"

static size_t size_of(enum tt_field_type t)
{
	switch (t) {
	case TT_FIELD_STR: return sizeof(const char *);
	case TT_FIELD_ARGV: return sizeof(const char *const *);
	case TT_FIELD_BOOL: return sizeof(bool);
	case TT_FIELD_U64: return sizeof(uint64_t);
	case TT_FIELD_INT: return sizeof(int);
	case TT_FIELD_UINT: return sizeof(unsigned);
	}
	return 0;
}

/* Every byte of the struct is one row's, or padding before a row (less than the row's size)
 * or at the end: a field without a row leaves a hole at least its size. */
static void check_coverage(void)
{
	size_t end = 0, n = tt_target_nfields;
	bool used[64] = { false };

	CHECK(n < 64);
	for (size_t k = 0; k < n; k++) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (!used[i] && (best == n || tt_target_fields[i].off < tt_target_fields[best].off))
				best = i;
		const struct tt_target_field *f = &tt_target_fields[best];
		used[best] = true;
		if (f->off < end || f->off - end >= size_of(f->type))
			fprintf(stderr, "field %s at %zu: previous row ends at %zu\n", f->key, f->off,
				end);
		CHECK(f->off >= end && f->off - end < size_of(f->type));
		end = f->off + size_of(f->type);
	}
	CHECK(sizeof(struct tt_target_config) - end < alignof(struct tt_target_config));
}

static void set_other(const struct tt_target_field *f, struct tt_target_config *c)
{
	static const char *const argv[] = { "-f", "x.cfg", NULL };
	char *p = (char *)c + f->off;

	switch (f->type) {
	case TT_FIELD_STR: *(const char **)p = "other"; break;
	case TT_FIELD_ARGV: *(const char *const **)p = argv; break;
	case TT_FIELD_BOOL: *(bool *)p = !*(bool *)p; break;
	case TT_FIELD_U64: *(uint64_t *)p += 1; break;
	case TT_FIELD_INT: *(int *)p += 1; break;
	case TT_FIELD_UINT: *(unsigned *)p += 1; break;
	}
}

/* The options every target command takes, and tracetapd's polling ones (tracetapd(8)). */
static const char *const file_opts[] = { "format", "elf", "layout", "address", "pointer", "base",
					 "tick-hz", "time-wrap", "time-dir", "format-opt", NULL };
static const char *const live_opts[] = { "start-at-now", "poll-min", "poll-max", "latency", "max-read",
					 NULL };

static bool listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* Each row's option is offered (polling ones only to tracetapd) and handled by opts.c. */
static void check_options(void)
{
	struct option lo[2][64];
	struct tt_target_config cfg = { 0 };
	struct tt_opts_target o;
	char err[256];

	tt_opts_target_longopts(lo[0], 64, false);
	tt_opts_target_longopts(lo[1], 64, true);
	tt_opts_target_init(&o, &cfg);
	size_t n[2] = { 0, 0 };
	for (int live = 0; live < 2; live++)
		while (lo[live][n[live]].name)
			n[live]++;
	CHECK(n[0] == 10 && n[1] == 14); /* no option the table does not name */
	for (size_t i = 0; i < tt_target_nfields; i++) {
		const struct tt_target_field *f = &tt_target_fields[i];
		for (int live = 0; live < 2; live++) {
			const struct option *l = lo[live];
			while (l->name && strcmp(l->name, f->option))
				l++;
			bool want = listed(file_opts, f->option) ||
				    (live && listed(live_opts, f->option));
			if (!l->name != !want)
				fprintf(stderr, "--%s %s offered (live %d)\n", f->option,
					want ? "not" : "wrongly", live);
			CHECK(!l->name == !want);
			if (!l->name)
				continue;
			CHECK((l->has_arg == no_argument) == (f->cli == TT_CLI_LIVE_FLAG));
			int rc = tt_opts_target_parse(&o, l->val, "1", err, sizeof(err));
			if (rc == 1)
				fprintf(stderr, "--%s: not handled by opts.c\n", f->option);
			CHECK(rc != 1);
		}
	}
}

int main(void)
{
	static const char *const args[] = { "-f", "board.cfg", NULL };
	struct tt_target_config a = { .name = "n", .probe = "openocd-spawn", .openocd_args = args,
				      .format = "threadx", .address = 0x20000000 };
	char same_name[] = "n", same_arg[] = "board.cfg";
	const char *const args2[] = { "-f", same_arg, NULL };

	check_coverage();
	check_options();
	for (size_t i = 0; i < tt_target_nfields; i++) {
		const struct tt_target_field *f = &tt_target_fields[i];
		struct tt_target_config b = a;
		set_other(f, &b);
		bool want = strcmp(f->key, "name") != 0;
		if (tt_target_fields_differ(&a, &b) != want)
			fprintf(stderr, "changing %s: %s\n", f->key, want ? "no restart" : "restart");
		CHECK(tt_target_fields_differ(&a, &b) == want);
	}
	/* equal contents in other storage are no change */
	struct tt_target_config c = a;
	c.name = same_name;
	c.openocd_args = args2;
	CHECK(!tt_target_fields_differ(&a, &c));
	printf("%zu fields, each in the table once; only a new name keeps a target running\n",
	       tt_target_nfields);
	return 0;
}
