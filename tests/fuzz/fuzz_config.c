/* tests/fuzz/fuzz_config.c: the daemon's configuration parser (daemon/config.c) on an untrusted
 * file, as `tracetapd --config` and `--check-config` read it, with its triggers
 * (daemon/trigger.h); the same bytes also as a --trigger flag's compact text. A rejected file or
 * trigger must leave an error message (and the file an empty configuration); every trigger
 * accepted is matched against an event, a gap and a reset. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"
#include "trigger.h"

static void match_all(const struct tt_trig_def *d)
{
	static const struct tt_arg args[] = { { "info1", NULL, 5, TT_ARG_UINT },
					      { "text", "up_assert", 0, TT_ARG_OBJ } };
	struct tt_record ev = { .kind = TT_REC_EVENT }, gap = { .kind = TT_REC_GAP };
	struct tt_record reset = { .kind = TT_REC_RESET };

	ev.u.ev.name = "USER_EVENT";
	ev.u.ev.id = 4096;
	ev.u.ev.thread_name = "producer";
	ev.u.ev.nargs = 2;
	memcpy(ev.u.ev.args, args, sizeof(args));
	gap.u.gap.lost = 7;
	(void)tt_trig_match(d, "b1", &ev);
	(void)tt_trig_match(d, "b1", &gap);
	(void)tt_trig_match(d, "b1", &reset);
}

static void compact(const uint8_t *data, size_t size)
{
	char spec[4096], err[512] = "";
	struct tt_trig_def d;

	if (size >= sizeof(spec))
		return;
	memcpy(spec, data, size);
	spec[size] = 0;
	if (tt_trig_parse(spec, &d, err, sizeof(err)) == 0)
		match_all(&d);
	else if (!err[0] || !memchr(err, '\0', sizeof(err)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tt_config cfg;
	struct tt_trig_set set;
	char err[512];

	err[0] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	compact(data, size);
	if (tt_config_parse((const char *)data, size, "fuzz.json", &cfg, err, sizeof(err)) != 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)) || cfg.ntargets)
			abort();
		tt_config_free(&cfg);
		return 0;
	}
	for (size_t i = 0; i < cfg.ntargets; i++)
		if (!cfg.targets[i].name || !cfg.targets[i].probe)
			abort();
	tt_trig_set_init(&set);
	err[0] = '\0';
	if (tt_trig_set_from_json(&set, cfg.triggers, "fuzz.json", err, sizeof(err)) != 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			abort();
	} else {
		for (size_t i = 0; i < set.n; i++) {
			if (!set.defs[i].name[0] || !set.defs[i].cond[0])
				abort();
			match_all(&set.defs[i]);
		}
	}
	tt_trig_set_free(&set);
	tt_config_free(&cfg);
	return 0;
}
