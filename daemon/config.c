/* daemon/config.c: the JSON configuration file (format in config.h), parsed with cJSON.
 *
 * Table-driven: each key names a type and where it goes, so an unknown key or a wrong type is
 * rejected with the file and the key path in the message. Strings stay inside the cJSON tree,
 * which the config owns (priv) until tt_config_free.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../proto/json.h"
#include "../proto/token.h"
#include "target_fields.h"
#include "tt_config.h"

_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "K_UINT stores uint32_t fields too");

enum kind { K_STR, K_BOOL, K_U64, K_INT, K_UINT, K_SIZE, K_PORT, K_STRS, K_ARGV };

struct key {
	const char *name;
	enum kind kind;
	size_t off;
	size_t count_off; /* K_STRS: where the count goes */
};

struct priv {
	cJSON *root;
	cJSON *trig;         /* the trigger keys, moved out of root (daemon/trigger.h reads them) */
	const char ***argvs; /* every K_STRS and K_ARGV array, each freed with the config */
	size_t nargvs;
};

#define S(f) offsetof(struct tt_server_config, f)
static const struct key server_keys[] = {
	{ "listen", K_STR, S(listen), 0 },
	{ "port", K_PORT, S(port), 0 },
	{ "token", K_STR, S(token), 0 },
	{ "origins", K_STRS, S(origins), S(norigins) },
	{ "web_dir", K_STR, S(web_dir), 0 },
	{ "tls_cert", K_STR, S(tls_cert), 0 },
	{ "tls_key", K_STR, S(tls_key), 0 },
	{ "max_message", K_SIZE, S(max_message), 0 },
	{ "idle_timeout", K_UINT, S(idle_timeout_s), 0 },
	{ "max_clients", K_UINT, S(max_clients), 0 },
	{ "max_exports", K_UINT, S(max_exports), 0 },
	{ "history", K_SIZE, S(hub.history), 0 },
	{ "history_bytes", K_SIZE, S(hub.history_bytes), 0 },
	{ "client_queue_frames", K_SIZE, S(hub.client_frames), 0 },
	{ "client_queue_bytes", K_SIZE, S(hub.client_bytes), 0 },
	{ "publish", K_STR, S(publish), 0 },
	{ "mqtt_ca", K_STR, S(mqtt_ca), 0 },
	{ "mqtt_cert", K_STR, S(mqtt_cert), 0 },
	{ "mqtt_key", K_STR, S(mqtt_key), 0 },
	{ "mqtt_benches", K_STRS, S(mqtt_benches), S(nmqtt_benches) },
	{ "mqtt_bench_targets", K_UINT, S(mqtt_bench_targets), 0 },
};
#undef S

static const struct key *server_key(const char *name, struct key *tmp)
{
	(void)tmp;
	for (size_t i = 0; i < sizeof(server_keys) / sizeof(server_keys[0]); i++)
		if (!strcmp(server_keys[i].name, name))
			return &server_keys[i];
	return NULL;
}

/* The target keys are daemon/target_fields.h's table. */
static const struct key *target_key(const char *name, struct key *tmp)
{
	static const enum kind kinds[] = {
		[TT_FIELD_STR] = K_STR, [TT_FIELD_BOOL] = K_BOOL, [TT_FIELD_U64] = K_U64,
		[TT_FIELD_INT] = K_INT, [TT_FIELD_UINT] = K_UINT, [TT_FIELD_ARGV] = K_ARGV,
	};

	for (size_t i = 0; i < tt_target_nfields; i++) {
		const struct tt_target_field *f = &tt_target_fields[i];
		if (strcmp(f->key, name))
			continue;
		*tmp = (struct key){ f->key, kinds[f->type], f->off, 0 };
		return tmp;
	}
	return NULL;
}

static const char *expected(enum kind k)
{
	switch (k) {
	case K_STR: return "a string";
	case K_BOOL: return "true or false";
	case K_U64: return "a non-negative integer (number or \"0x...\" string)";
	case K_INT: return "an integer";
	case K_PORT: return "an integer 0..65535";
	case K_STRS:
	case K_ARGV: return "an array of strings";
	default: return "a non-negative integer";
	}
}

static int as_u64(const cJSON *v, uint64_t *out)
{
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (d < 0 || d != floor(d) || d > 9007199254740992.0)
			return -1;
		*out = (uint64_t)d;
		return 0;
	}
	if (cJSON_IsString(v) && *v->valuestring) {
		char *end;
		errno = 0;
		*out = strtoull(v->valuestring, &end, 0);
		return errno || *end || v->valuestring[0] == '-' ? -1 : 0;
	}
	return -1;
}

/* An array of strings: a list (K_STRS, with its count) or an argv (K_ARGV); p owns the
 * arrays, the strings stay cJSON's. */
static int set_strs(struct priv *p, const struct key *k, void *base, const cJSON *v)
{
	char *dst = (char *)base + k->off;
	int n = cJSON_GetArraySize(v), i = 0;
	const cJSON *it;

	if (!cJSON_IsArray(v))
		return -1;
	const char **arr = calloc((size_t)n + 1, sizeof(char *));
	if (!arr)
		return -ENOMEM;
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it)) {
			free(arr);
			return -1;
		}
		arr[i++] = it->valuestring;
	}
	const char ***grown = realloc(p->argvs, (p->nargvs + 1) * sizeof(*grown));
	if (!grown) {
		free(arr);
		return -ENOMEM;
	}
	p->argvs = grown;
	p->argvs[p->nargvs++] = arr;
	*(const char *const **)dst = arr;
	if (k->kind == K_STRS)
		*(size_t *)((char *)base + k->count_off) = (size_t)n;
	return 0;
}

static int set(struct priv *p, const struct key *k, void *base, const cJSON *v)
{
	char *dst = (char *)base + k->off;
	uint64_t u;

	switch (k->kind) {
	case K_STR:
		if (!cJSON_IsString(v))
			return -1;
		*(const char **)dst = v->valuestring;
		return 0;
	case K_BOOL:
		if (!cJSON_IsBool(v))
			return -1;
		*(bool *)dst = cJSON_IsTrue(v);
		return 0;
	case K_INT:
		if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
		    fabs(v->valuedouble) > 1e9)
			return -1;
		*(int *)dst = (int)v->valuedouble;
		return 0;
	case K_PORT:
		if (as_u64(v, &u) < 0 || u > 65535 || !cJSON_IsNumber(v))
			return -1;
		*(int *)dst = (int)u;
		return 0;
	case K_U64:
		if (as_u64(v, &u) < 0)
			return -1;
		*(uint64_t *)dst = u;
		return 0;
	case K_UINT:
		if (as_u64(v, &u) < 0 || u > UINT32_MAX || !cJSON_IsNumber(v))
			return -1;
		*(unsigned *)dst = (unsigned)u; /* also max_chunk (uint32_t): same size, asserted */
		return 0;
	case K_SIZE:
		if (as_u64(v, &u) < 0 || !cJSON_IsNumber(v))
			return -1;
		*(size_t *)dst = (size_t)u;
		return 0;
	case K_STRS:
	case K_ARGV:
		return set_strs(p, k, base, v);
	}
	return -1;
}

static int apply(struct priv *p, const struct key *(*find)(const char *, struct key *),
		 void *base, const cJSON *obj, const char *name, const char *prefix, char *err,
		 size_t errlen)
{
	const cJSON *v;
	struct key tmp;

	cJSON_ArrayForEach(v, obj) {
		const struct key *k = find(v->string, &tmp);
		if (!k) {
			snprintf(err, errlen, "%s: unknown key '%s%s'", name, prefix, v->string);
			return -EINVAL;
		}
		int rc = set(p, k, base, v);
		if (rc == -ENOMEM) {
			snprintf(err, errlen, "%s: out of memory", name);
			return rc;
		}
		if (rc < 0) {
			snprintf(err, errlen, "%s: %s%s: expected %s", name, prefix, v->string,
				 expected(k->kind));
			return -EINVAL;
		}
	}
	return 0;
}

static void free_priv(struct priv *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nargvs; i++)
		free(p->argvs[i]);
	free(p->argvs);
	cJSON_Delete(p->trig);
	cJSON_Delete(p->root);
	free(p);
}

/* The whole text as a JSON object, the line of a syntax error said. */
static int parse_root(struct priv *p, const char *text, size_t len, const char *name, char *err,
		      size_t errlen)
{
	p->root = cJSON_ParseWithLength(text, len);
	if (!p->root || !cJSON_IsObject(p->root)) {
		const char *at = cJSON_GetErrorPtr();
		int line = 1;
		for (const char *c = text; at && c < at && c < text + len; c++)
			line += *c == '\n';
		snprintf(err, errlen, "%s: not a JSON object (syntax error near line %d)", name,
			 line);
		return -EINVAL;
	}
	return 0;
}

/* targets[i] into cfg->targets[i]: its keys, the required ones, a name not used before it. */
static int parse_target(struct priv *p, struct tt_config *cfg, size_t i, const cJSON *t,
			const char *name, char *err, size_t errlen)
{
	char prefix[32];
	struct tt_target_config *tc = &cfg->targets[i];
	int rc;

	snprintf(prefix, sizeof(prefix), "targets[%zu].", i);
	if (!cJSON_IsObject(t)) {
		snprintf(err, errlen, "%s: targets[%zu]: expected an object", name, i);
		return -EINVAL;
	}
	tc->format = tt_reader_default()->name;
	if ((rc = apply(p, target_key, tc,
			t, name, prefix, err, errlen)) < 0)
		return rc;
	if (tc->layout && !cJSON_GetObjectItemCaseSensitive(t, "format"))
		tc->format = NULL; /* the layout file's */
	if (!tc->name || !*tc->name || !tc->probe || !*tc->probe) {
		snprintf(err, errlen, "%s: targets[%zu]: \"name\" and \"probe\" are required",
			 name, i);
		return -EINVAL;
	}
	if (strlen(tc->name) > TT_JSON_MAX_NAME) {
		snprintf(err, errlen, "%s: targets[%zu].name: %zu bytes; a target name has at most "
			 "%d", name, i, strlen(tc->name), TT_JSON_MAX_NAME);
		return -EINVAL;
	}
	for (size_t j = 0; j < i; j++) {
		if (!strcmp(cfg->targets[j].name, tc->name)) {
			snprintf(err, errlen, "%s: targets[%zu]: a target named '%s' "
					      "already exists", name, i, tc->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* Keys the trigger engine reads (daemon/trigger.h): kept aside, whole. */
static const char *const trig_keys[] = { "triggers", "capture_dir", "capture_max_bytes",
					 "capture_max_files" };

int tt_config_parse(const char *text, size_t len, const char *name, struct tt_config *cfg,
		    char *err, size_t errlen)
{
	struct priv *p = calloc(1, sizeof(*p));
	const cJSON *targets, *t;
	int rc = -EINVAL;

	memset(cfg, 0, sizeof(*cfg));
	tt_server_config_init(&cfg->server);
	if (!p) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	if (parse_root(p, text, len, name, err, errlen) < 0)
		goto fail;
	targets = cJSON_GetObjectItemCaseSensitive(p->root, "targets");
	if (targets && !cJSON_IsArray(targets)) {
		snprintf(err, errlen, "%s: targets: expected an array of objects", name);
		goto fail;
	}
	if (!(p->trig = cJSON_CreateObject())) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto fail;
	}
	for (size_t k = 0; k < sizeof(trig_keys) / sizeof(trig_keys[0]); k++) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(p->root, trig_keys[k]);
		if (v)
			cJSON_AddItemToObject(p->trig, trig_keys[k], v);
	}
	cJSON_DetachItemViaPointer(p->root, (cJSON *)targets);
	rc = apply(p, server_key, &cfg->server,
		   p->root, name, "", err, errlen);
	cJSON_AddItemToObject(p->root, "targets", (cJSON *)targets);
	if (rc < 0)
		goto fail;
	char why[160];
	if (cfg->server.token && tt_token_problem(cfg->server.token, why, sizeof(why))) {
		snprintf(err, errlen, "%s: token: %s", name, why);
		rc = -EINVAL;
		goto fail;
	}
	rc = -ENOMEM;
	cfg->ntargets = (size_t)cJSON_GetArraySize(targets);
	cfg->targets = calloc(cfg->ntargets + 1, sizeof(*cfg->targets));
	if (!cfg->targets) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto fail;
	}
	size_t i = 0;
	cJSON_ArrayForEach(t, targets) {
		if ((rc = parse_target(p, cfg, i, t, name, err, errlen)) < 0)
			goto fail;
		i++;
	}
	cfg->priv = p;
	cfg->triggers = p->trig;
	return 0;
fail:
	free(cfg->targets);
	memset(cfg, 0, sizeof(*cfg));
	tt_server_config_init(&cfg->server);
	free_priv(p);
	return rc;
}

/* The whole file, opened once (no check-then-open race) and checked before reading: the loop
 * must never block on a device or a FIFO, nor read without end. */
static int read_config(const char *path, char **text, size_t *len, struct stat *st, char *err,
		       size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc = 0;
	ssize_t k = 0;

	if (fd < 0 || fstat(fd, st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot read configuration %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "configuration %s: not a regular file", path);
		rc = -EINVAL;
		goto out;
	}
	if (st->st_size > TT_CONFIG_MAX_SIZE) {
		snprintf(err, errlen, "configuration %s: %lld bytes, more than the %u a configuration "
			 "may have", path, (long long)st->st_size, TT_CONFIG_MAX_SIZE);
		rc = -EFBIG;
		goto out;
	}
	/* one byte more than the limit: a file that grew since fstat is caught too */
	if (!(*text = malloc(TT_CONFIG_MAX_SIZE + 1))) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -ENOMEM;
		goto out;
	}
	for (*len = 0; *len <= TT_CONFIG_MAX_SIZE; *len += (size_t)k) {
		k = read(fd, *text + *len, TT_CONFIG_MAX_SIZE + 1 - *len);
		if (k < 0 && errno == EINTR)
			k = 0;
		else if (k <= 0)
			break;
	}
	if (k < 0 || *len > TT_CONFIG_MAX_SIZE) {
		rc = k < 0 ? -errno : -EFBIG;
		snprintf(err, errlen, "configuration %s: %s", path,
			 k < 0 ? strerror(errno) : "grew beyond the size limit while read");
		free(*text);
		*text = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

int tt_config_load(const char *path, struct tt_config *cfg, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if ((rc = read_config(path, &text, &len, &st, err, errlen)) < 0)
		return rc;
	rc = tt_config_parse(text, len, path, cfg, err, errlen);
	free(text);
	if (!rc && cfg->server.token && *cfg->server.token && (st.st_mode & S_IROTH))
		snprintf(cfg->warning, sizeof(cfg->warning), "configuration %s holds a token and "
			 "anyone on this machine may read it (mode %03o): chmod o-r", path,
			 (unsigned)(st.st_mode & 0777));
	return rc;
}

void tt_config_free(struct tt_config *cfg)
{
	free_priv(cfg->priv);
	free(cfg->targets);
	memset(cfg, 0, sizeof(*cfg));
}

/* Here, not in server.c: a build without libwebsockets parses the same file. */
void tt_server_config_init(struct tt_server_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->listen = "127.0.0.1";
	cfg->port = 7733;
	cfg->web_dir = TT_WEBDIR;
	cfg->max_message = 65536;
	cfg->idle_timeout_s = 60;
	cfg->max_clients = 256;
	cfg->max_exports = 4;
	cfg->log_level = 7;
}
