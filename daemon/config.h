/* daemon/config.h: the daemon's JSON configuration file.
 *
 *   {
 *     "listen": "127.0.0.1", "port": 7733, "token": "...", "origins": ["https://bench.lab"],
 *     "web_dir": "/usr/share/tracetap/web", "tls_cert": "cert.pem", "tls_key": "key.pem",
 *     "history": 100000, "history_bytes": 104857600,
 *     "client_queue_frames": 64, "client_queue_bytes": 8388608,
 *     "max_message": 65536, "idle_timeout": 60, "max_clients": 256, "max_exports": 4,
 *     "publish": "mqtt://user:pass@broker.lab/lab/bench7", "mqtt_ca": "ca.pem",
 *     "mqtt_cert": "client.pem", "mqtt_key": "client.key",
 *     "targets": [
 *       { "name": "board1", "probe": "openocd:127.0.0.1:6666", "format": "threadx",
 *         "elf": "fw.elf", "address": "0x20001000", "address_is_pointer": false,
 *         "openocd_args": ["-f", "interface/stlink.cfg"], "openocd_log": "/tmp/ocd.log",
 *         "file_base": 0, "tick_hz": 100000000, "time_wrap": 0, "time_dir": 0,
 *         "start_at_now": false, "poll_min_ms": 1, "poll_max_ms": 50, "latency_ms": 0,
 *         "max_chunk": 4096,
 *         "format_opts": ["release=12.8"] }
 *     ]
 *   }
 *
 * Every key is optional except targets[].name and targets[].probe. An unknown key or a value of
 * the wrong type is an error naming the file and the key ("tracetapd.json: targets[0].tick_hz:
 * expected a non-negative integer"). Addresses and other 64-bit numbers may be given as JSON
 * numbers or as strings ("0x20001000").
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
