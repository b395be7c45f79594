/* daemon/trigger_config.c: a set of triggers (trigger.h) from the configuration file's
 * `triggers` array and capture keys, and from --trigger flags. A trigger in the file is an
 * object whose keys are the options of the compact syntax, each value the same text (or a JSON
 * number or boolean), so both spellings go through one parser.
 */
#include "trigger.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/parse.h"

void tt_trig_set_init(struct tt_trig_set *s)
{
	memset(s, 0, sizeof(*s));
	s->capture_max_bytes = 256ull << 20;
	s->capture_max_files = 100;
}

void tt_trig_set_free(struct tt_trig_set *s)
{
	free(s->defs);
	s->defs = NULL;
	s->n = 0;
}

int tt_trig_set_add(struct tt_trig_set *s, const struct tt_trig_def *d, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->defs[i].name, d->name)) {
			snprintf(err, errlen, "trigger %s: a trigger of that name exists", d->name);
			return -EEXIST;
		}
	}
	if (s->n == TT_TRIG_MAX) {
		snprintf(err, errlen, "trigger %s: more than %d triggers", d->name, TT_TRIG_MAX);
		return -ENOSPC;
	}
	struct tt_trig_def *n = realloc(s->defs, (s->n + 1) * sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->defs = n;
	s->defs[s->n++] = *d;
	return 0;
}

/* A JSON value as the option's text: strings as they are, integers in decimal, booleans. */
static int value_text(const cJSON *v, char *buf, size_t cap)
{
	if (cJSON_IsString(v))
		return snprintf(buf, cap, "%s", v->valuestring) < (int)cap ? 0 : -1;
	if (cJSON_IsBool(v))
		return snprintf(buf, cap, "%s", cJSON_IsTrue(v) ? "true" : "false"), 0;
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble == floor(v->valuedouble) &&
	    v->valuedouble < 1e15)
		return snprintf(buf, cap, "%.0f", v->valuedouble), 0;
	return -1;
}

static int one_key(struct tt_trig_def *d, const cJSON *v, char *why, size_t wl)
{
	char text[300];

	if (!strcmp(v->string, "name")) {
		if (value_text(v, d->name, sizeof(d->name)) < 0 || !cJSON_IsString(v)) {
			snprintf(why, wl, "name: expected a string of at most %d bytes",
				 TT_TRIG_NAME_MAX);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(v->string, "when")) {
		if (!cJSON_IsString(v) || strlen(v->valuestring) >= TT_TRIG_COND_MAX) {
			snprintf(why, wl, "when: expected the condition as a string (at most %d "
				 "bytes)", TT_TRIG_COND_MAX - 1);
			return -EINVAL;
		}
		char c[300];
		if (tt_trig_parse_cond(v->valuestring, d, c, sizeof(c)) < 0) {
			snprintf(why, wl, "when: %s", c);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(v->string, "command") && cJSON_IsArray(v)) {
		const cJSON *a;
		cJSON_ArrayForEach(a, v) {
			if (!cJSON_IsString(a)) {
				snprintf(why, wl, "command: expected an array of strings");
				return -EINVAL;
			}
			if (tt_trig_set_opt(d, "command", a->valuestring, why, wl) < 0)
				return -EINVAL;
		}
		return 0;
	}
	if (value_text(v, text, sizeof(text)) < 0) {
		snprintf(why, wl, "%s: expected a string, a non-negative integer or a boolean",
			 v->string);
		return -EINVAL;
	}
	return tt_trig_set_opt(d, v->string, text, why, wl);
}

static int one_trigger(struct tt_trig_set *s, const cJSON *o, size_t i, const char *file,
		       char *err, size_t errlen)
{
	struct tt_trig_def d;
	char why[400];
	const cJSON *v;

	tt_trig_def_init(&d);
	if (!cJSON_IsObject(o)) {
		snprintf(err, errlen, "%s: triggers[%zu]: expected an object", file, i);
		return -EINVAL;
	}
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
	const char *nm = cJSON_IsString(name) ? name->valuestring : "?";
	cJSON_ArrayForEach(v, o) {
		if (one_key(&d, v, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s: triggers[%zu] (%.48s): %s", file, i, nm, why);
			return -EINVAL;
		}
	}
	if (tt_trig_check(&d, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: triggers[%zu] (%.48s): %s%s", file, i, nm, why,
			 d.cond[0] ? "" : " (\"when\" is required)");
		return -EINVAL;
	}
	if (tt_trig_set_add(s, &d, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: triggers[%zu]: %s", file, i, why);
		return -EINVAL;
	}
	return 0;
}

int tt_trig_set_from_json(struct tt_trig_set *s, const void *json, const char *file, char *err,
			  size_t errlen)
{
	const cJSON *root = json, *v, *t;
	size_t i = 0;

	if (!root)
		return 0;
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "capture_dir"))) {
		if (!cJSON_IsString(v) || !*v->valuestring ||
		    strlen(v->valuestring) >= sizeof(s->capture_dir)) {
			snprintf(err, errlen, "%s: capture_dir: expected a directory path (at most "
				 "%zu bytes)", file, sizeof(s->capture_dir) - 1);
			return -EINVAL;
		}
		snprintf(s->capture_dir, sizeof(s->capture_dir), "%s", v->valuestring);
	}
	static const char *const limits[] = { "capture_max_bytes", "capture_max_files" };
	for (size_t k = 0; k < 2; k++) {
		char text[64];
		uint64_t x;
		if (!(v = cJSON_GetObjectItemCaseSensitive(root, limits[k])))
			continue;
		if (value_text(v, text, sizeof(text)) < 0 ||
		    tt_parse_u64(text, UINT64_C(1) << 50, 1, &x) < 0 || !x) {
			snprintf(err, errlen, "%s: %s: expected a positive integer%s", file,
				 limits[k], k ? "" : " of bytes (or \"64M\", \"2G\")");
			return -EINVAL;
		}
		*(k ? &s->capture_max_files : &s->capture_max_bytes) = x;
	}
	t = cJSON_GetObjectItemCaseSensitive(root, "triggers");
	if (t && !cJSON_IsArray(t)) {
		snprintf(err, errlen, "%s: triggers: expected an array of objects", file);
		return -EINVAL;
	}
	cJSON_ArrayForEach(v, t) {
		if (one_trigger(s, v, i++, file, err, errlen) < 0)
			return -EINVAL;
	}
	return 0;
}

int tt_trig_set_check(const struct tt_trig_set *s, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->defs[i].capture && !s->capture_dir[0]) {
			snprintf(err, errlen, "trigger %s: capture needs a capture directory "
				 "(capture_dir, --capture-dir)", s->defs[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

int tt_trig_set_build(struct tt_trig_set *s, const void *json, const char *file,
		      const char *const *flags, size_t nflags, const char *capture_dir, char *err,
		      size_t errlen)
{
	struct tt_trig_def def;
	int rc;

	tt_trig_set_init(s);
	if ((rc = tt_trig_set_from_json(s, json, file, err, errlen)) < 0)
		goto fail;
	for (size_t i = 0; i < nflags; i++) {
		char why[400];
		if ((rc = tt_trig_parse(flags[i], &def, why, sizeof(why))) < 0 ||
		    (rc = tt_trig_set_add(s, &def, why, sizeof(why))) < 0) {
			snprintf(err, errlen, "--trigger: %s", why);
			goto fail;
		}
	}
	if (capture_dir)
		snprintf(s->capture_dir, sizeof(s->capture_dir), "%s", capture_dir);
	if ((rc = tt_trig_set_check(s, err, errlen)) < 0)
		goto fail;
	return 0;
fail:
	tt_trig_set_free(s);
	return rc == -ENOMEM ? rc : -EINVAL;
}
