/* daemon/config.h: the daemon's JSON configuration file (keys and values: tracetapd.json(5),
 * example: systemd/tracetapd.json).
 *
 * Every key is optional except targets[].name and targets[].probe. An unknown key or a value of
 * the wrong type is an error naming the file and the key ("tracetapd.json: targets[0].tick_hz:
 * expected a non-negative integer"). 64-bit numbers may be JSON numbers or strings ("0x2000").
 */
#ifndef TT_CONFIG_H
#define TT_CONFIG_H

#include <stddef.h>

#include "server.h"
#include "target.h"

struct tt_config {
	struct tt_server_config server;  /* defaults from tt_server_config_init, then the file */
	struct tt_target_config *targets;
	size_t ntargets;
	/* The `triggers` and `capture_*` keys as a cJSON object, unchecked: tt_trig_set_from_json
	 * (daemon/trigger.h) reads them. Owned by priv. */
	const void *triggers;
	void *priv;                      /* owns every string the structs point to */
	char warning[256];               /* tt_config_load: something to log, or "" */
};

/* Parses text (len bytes; name is used in messages). On success fills *cfg (free with
 * tt_config_free) and returns 0; else -EINVAL (or -ENOMEM) with the reason in err and *cfg
 * left empty. */
int tt_config_parse(const char *text, size_t len, const char *name, struct tt_config *cfg,
		    char *err, size_t errlen);
/* The largest configuration file read. */
#define TT_CONFIG_MAX_SIZE (1u << 20)

/* Reads and parses the file at path (-errno from reading, with a message): a regular file (or
 * a link to one) of at most TT_CONFIG_MAX_SIZE bytes, else -EINVAL before reading anything
 * ("/dev/zero: not a regular file"). A file holding a token that others may read is loaded,
 * with a warning in cfg->warning. */
int tt_config_load(const char *path, struct tt_config *cfg, char *err, size_t errlen);
void tt_config_free(struct tt_config *cfg);

#endif
