/* tests/server/test_config.c: the JSON configuration file: every field lands where it should;
 * unknown keys and wrong types are errors naming the file and the key. */
#include <errno.h>
#include <string.h>

#include "../../proto/json.h"
#include "../../proto/token.h"
#include "config.h"
#include "synth.h"

static void bad(const char *text, const char *want)
{
	struct tt_config c;
	char err[512];

	REQUIRE(tt_config_parse(text, strlen(text), "t.json", &c, err, sizeof(err)) == -EINVAL);
	if (!strstr(err, want))
		fprintf(stderr, "error '%s' lacks '%s'\n", err, want);
	REQUIRE(strstr(err, want) && !strncmp(err, "t.json: ", 8));
	printf("rejected: %s\n", err);
}

int main(void)
{
	static const char good[] =
		"{\"listen\":\"0.0.0.0\",\"port\":0,\"token\":\"tok\",\"origins\":[\"https://a\","
		"\"https://b\"],\"history\":5000,\"client_queue_frames\":32,\"client_queue_bytes\":"
		"1048576,\"max_message\":4096,\"idle_timeout\":9,\"tls_cert\":\"c.pem\","
		"\"tls_key\":\"k.pem\",\"targets\":[{\"name\":\"board1\",\"probe\":\"openocd-spawn\","
		"\"openocd_args\":[\"-f\",\"board.cfg\"],\"address\":\"0x20001000\","
		"\"address_is_pointer\":true,\"tick_hz\":100000000,\"time_dir\":-1,\"poll_min_ms\":2,"
		"\"max_chunk\":1024},{\"name\":\"b2\",\"probe\":\"file:x.trx\",\"format\":"
		"\"nuttx\",\"format_opts\":[\"release=12.8\",\"ptr_size=8\"]}]}";
	struct tt_config c;
	char err[512];

	REQUIRE(tt_config_parse(good, sizeof(good) - 1, "t.json", &c, err, sizeof(err)) == 0);
	REQUIRE(!strcmp(c.server.listen, "0.0.0.0") && c.server.port == 0);
	REQUIRE(!strcmp(c.server.token, "tok") && c.server.norigins == 2);
	REQUIRE(!strcmp(c.server.origins[1], "https://b"));
	REQUIRE(c.server.hub.history == 5000 && c.server.hub.client_frames == 32);
	REQUIRE(c.server.hub.client_bytes == 1048576 && c.server.max_message == 4096);
	REQUIRE(c.server.idle_timeout_s == 9 && !strcmp(c.server.tls_key, "k.pem"));
	REQUIRE(c.ntargets == 2);
	const struct tt_target_config *t = &c.targets[0];
	REQUIRE(!strcmp(t->name, "board1") && !strcmp(t->probe, "openocd-spawn"));
	REQUIRE(!strcmp(t->openocd_args[1], "board.cfg") && !t->openocd_args[2]);
	REQUIRE(t->address == 0x20001000u && t->address_is_pointer && t->tick_hz == 100000000u);
	REQUIRE(t->time_dir == -1 && t->poll_min_ms == 2 && t->max_chunk == 1024);
	REQUIRE(!t->format_opts);
	REQUIRE(!strcmp(c.targets[1].format, "nuttx"));
	REQUIRE(!strcmp(c.targets[1].format_opts[1], "ptr_size=8") && !c.targets[1].format_opts[2]);
	tt_config_free(&c);
	REQUIRE(tt_config_parse("{\"targets\":[{\"name\":\"a\",\"probe\":\"p\"}]}", 38, "t.json", &c,
			      err, sizeof(err)) == 0);
	REQUIRE(!strcmp(c.targets[0].format, "threadx")); /* default */
	tt_config_free(&c);

	/* The same array key twice in every target (cJSON keeps duplicates; the last one wins):
	 * each array is owned and freed once (ASan and valgrind check the bookkeeping). */
	static const char dup[] =
		"{\"targets\":[{\"name\":\"a\",\"probe\":\"p\",\"openocd_args\":[\"-f\",\"x\"],"
		"\"openocd_args\":[\"-c\",\"y\"],\"format_opts\":[\"a=1\"],\"format_opts\":[]},"
		"{\"name\":\"b\",\"probe\":\"p\",\"openocd_args\":[],\"openocd_args\":[\"-f\",\"z\"]}]}";
	REQUIRE(tt_config_parse(dup, sizeof(dup) - 1, "t.json", &c, err, sizeof(err)) == 0);
	REQUIRE(!strcmp(c.targets[0].openocd_args[1], "y") && !c.targets[0].format_opts[0]);
	REQUIRE(!strcmp(c.targets[1].openocd_args[1], "z"));
	tt_config_free(&c);

	/* Two list keys (origins, mqtt_benches), one of them twice: each list owned and freed once. */
	static const char lists[] =
		"{\"origins\":[\"https://a\"],\"mqtt_benches\":[\"x\"],\"mqtt_benches\":[\"b1\","
		"\"b2\"],\"mqtt_bench_targets\":3}";
	REQUIRE(tt_config_parse(lists, sizeof(lists) - 1, "t.json", &c, err, sizeof(err)) == 0);
	REQUIRE(c.server.norigins == 1 && !strcmp(c.server.origins[0], "https://a"));
	REQUIRE(c.server.nmqtt_benches == 2 && !strcmp(c.server.mqtt_benches[1], "b2"));
	REQUIRE(c.server.mqtt_bench_targets == 3);
	tt_config_free(&c);

	/* defaults when empty */
	REQUIRE(tt_config_parse("{}", 2, "t.json", &c, err, sizeof(err)) == 0);
	REQUIRE(c.server.port == 7733 && !strcmp(c.server.listen, "127.0.0.1") && !c.ntargets);
	tt_config_free(&c);

	bad("{\"prot\":1}", "unknown key 'prot'");
	bad("{\"port\":\"7733\"}", "port: expected an integer 0..65535");
	bad("{\"port\":70000}", "port");
	bad("{\"history\":-5}", "history: expected a non-negative integer");
	bad("{\"origins\":\"*\"}", "origins: expected an array of strings");
	bad("{\"targets\":[{\"name\":\"a\",\"probe\":\"p\",\"tick_hz\":1.5}]}",
	    "targets[0].tick_hz: expected");
	bad("{\"targets\":[{\"name\":\"a\",\"probe\":\"p\",\"colour\":1}]}",
	    "unknown key 'targets[0].colour'");
	bad("{\"targets\":[{\"name\":\"a\"}]}", "\"probe\" are required");
	bad("{\"targets\":[{\"name\":\"a\",\"probe\":\"p\"},{\"name\":\"a\",\"probe\":\"q\"}]}",
	    "already exists");
	bad("{\"targets\":[{\"name\":\"a\",\"probe\":\"p\",\"address\":\"0xZZ\"}]}",
	    "targets[0].address");
	bad("{\"port\":1,\n\"x\":}", "line 2");
	char nm[200];
	snprintf(nm, sizeof(nm), "{\"targets\":[{\"name\":\"%0*d\",\"probe\":\"p\"}]}", TT_JSON_MAX_NAME + 1, 0);
	bad(nm, "t.json: targets[0].name: 65 bytes; a target name has at most 64");
	snprintf(nm, sizeof(nm), "{\"targets\":[{\"name\":\"%0*d\",\"probe\":\"p\"}]}", TT_JSON_MAX_NAME, 0);
	REQUIRE(tt_config_parse(nm, strlen(nm), "t.json", &c, err, sizeof(err)) == 0);
	tt_config_free(&c);
	bad("{\"token\":\"two words\"}", "t.json: token: character 4 is 0x20");
	char tok[400];
	int k = snprintf(tok, sizeof(tok), "{\"token\":\"%0*d\"}", TT_TOKEN_MAX + 1, 0);
	bad(tok, "t.json: token: 257 characters: a token has 1 to 256");
	snprintf(tok, sizeof(tok), "{\"token\":\"%0*d\"}", TT_TOKEN_MAX, 0);
	REQUIRE(tt_config_parse(tok, (size_t)k - 1, "t.json", &c, err, sizeof(err)) == 0);
	REQUIRE(strlen(c.server.token) == TT_TOKEN_MAX);
	tt_config_free(&c);
	REQUIRE(tt_config_parse("{\"token\":\"\"}", 12, "t.json", &c, err, sizeof(err)) == 0);
	tt_config_free(&c); /* "": no token */
	bad("{\"targets\":[{\"name\":\"a\",\"probe\":\"p\",\"format_opts\":\"x=1\"}]}",
	    "targets[0].format_opts: expected an array of strings");

	REQUIRE(tt_config_load("/nonexistent/tracetapd.json", &c, err, sizeof(err)) == -ENOENT);
	REQUIRE(strstr(err, "/nonexistent/tracetapd.json"));
	printf("config: ok\n");
	return tt_test_done();
}
