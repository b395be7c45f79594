/* tests/fuzz/fuzz_config.c: the daemon's configuration parser (daemon/config.c) on an untrusted
 * file, as `tracetapd --config` and `--check-config` read it. A rejected file must leave an
 * error message and an empty configuration. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tt_config cfg;
	char err[512];

	err[0] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	if (tt_config_parse((const char *)data, size, "fuzz.json", &cfg, err, sizeof(err)) != 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)) || cfg.ntargets)
			abort();
	} else {
		for (size_t i = 0; i < cfg.ntargets; i++)
			if (!cfg.targets[i].name || !cfg.targets[i].probe)
				abort();
	}
	tt_config_free(&cfg);
	return 0;
}
