/* daemon/layout.c: layout files (see layout.h): reading them into a reader's format_cfg, and
 * writing them from what the ELF gave. This file owns the JSON, the format's name, the address
 * and the options; the format's own members are the format's (proto/reader.h: layout_load,
 * layout_write), handed over as plain strings. The file is untrusted input: its size is bounded,
 * every value is checked, and an error names the file and the field.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "layout.h"
#include "opts.h"

#define LAYOUT_MAX_FILE (16u << 20)

static int bad(char *err, size_t errlen, int rc, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: ", path);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

static int parse_file(const char *path, cJSON **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;
	char *text;

	if (!f)
		return bad(err, errlen, -errno, path, "%s", strerror(errno));
	if (fstat(fileno(f), &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > LAYOUT_MAX_FILE) {
		fclose(f);
		return bad(err, errlen, -EINVAL, path, "not a regular file of at most %u MiB",
			   LAYOUT_MAX_FILE >> 20);
	}
	text = malloc((size_t)sb.st_size + 1);
	if (!text || fread(text, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
		free(text);
		fclose(f);
		return bad(err, errlen, -EIO, path, "read failed");
	}
	fclose(f);
	text[sb.st_size] = 0;
	*out = cJSON_ParseWithLength(text, (size_t)sb.st_size);
	if (!*out) {
		const char *at = cJSON_GetErrorPtr();
		int rc = bad(err, errlen, -EINVAL, path, "not JSON (at byte %td)",
			     at && at >= text ? at - text : (ptrdiff_t)0);
		free(text);
		return rc;
	}
	free(text);
	if (!cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		return bad(err, errlen, -EINVAL, path, "not a JSON object");
	}
	return 0;
}

static const char *format_of(const cJSON *root)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");

	return cJSON_IsString(f) ? f->valuestring : NULL;
}

int tt_layout_format(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	cJSON *root;
	int rc = parse_file(path, &root, err, errlen);

	if (rc < 0)
		return rc;
	if (!format_of(root) || strlen(format_of(root)) >= outlen)
		rc = bad(err, errlen, -EINVAL, path, "no \"format\" string");
	else
		snprintf(out, outlen, "%s", format_of(root));
	cJSON_Delete(root);
	return rc;
}

/* A value of "options": a string, or a non-negative integer (as the option's text). */
static bool option_text(const cJSON *v, char *buf, size_t cap)
{
	if (cJSON_IsString(v)) {
		snprintf(buf, cap, "%s", v->valuestring);
		return strlen(v->valuestring) < cap;
	}
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9007199254740992.0 &&
	    v->valuedouble == (double)(uint64_t)v->valuedouble) {
		snprintf(buf, cap, "%llu", (unsigned long long)v->valuedouble);
		return true;
	}
	return false;
}

static int load_options(const char *path, const cJSON *opts, const struct tt_reader_ops *r,
			void *cfg, char *err, size_t errlen)
{
	const cJSON *o;
	char val[64], why[384];

	if (!opts)
		return 0;
	if (!cJSON_IsObject(opts))
		return bad(err, errlen, -EINVAL, path, "%s.options is not an object", r->name);
	cJSON_ArrayForEach(o, opts) {
		if (!option_text(o, val, sizeof(val)))
			return bad(err, errlen, -EINVAL, path, "%s.options.%s: expected a string or "
				   "a non-negative integer", r->name, o->string);
		if (!r->cfg_set || r->cfg_set(cfg, o->string, val, why, sizeof(why)) < 0)
			return bad(err, errlen, -EINVAL, path, "%s.options.%s: %s", r->name,
				   o->string, r->cfg_set ? why : "the format takes no options");
	}
	return 0;
}

/* The format's object as layout_load reads it (struct tt_layout_in): each member handed over
 * as items of plain strings, in one allocation kept until the next get. */
struct member_in {
	const cJSON *own;
	struct tt_layout_item *items;
};

static int member_get(void *arg, const char *key, size_t max, struct tt_layout_value *v)
{
	struct member_in *m = arg;
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(m->own, key), *e;
	size_t i = 0;

	if (!j)
		return -ENOENT;
	*v = (struct tt_layout_value){ .kind = cJSON_IsArray(j) ? TT_LAYOUT_ARRAY :
					       cJSON_IsObject(j) ? TT_LAYOUT_OBJECT :
								   TT_LAYOUT_OTHER };
	v->n = v->kind == TT_LAYOUT_OTHER ? 0 : (size_t)cJSON_GetArraySize(j);
	if (v->kind == TT_LAYOUT_OTHER || v->n > max)
		return 0;
	free(m->items);
	m->items = calloc(v->n + 1, sizeof(*m->items));
	if (!m->items)
		return -ENOMEM;
	cJSON_ArrayForEach(e, j) {
		m->items[i++] = (struct tt_layout_item){
			.key = v->kind == TT_LAYOUT_OBJECT ? e->string : NULL,
			.text = cJSON_IsString(e) ? e->valuestring : NULL,
			.null = cJSON_IsNull(e),
		};
	}
	v->item = m->items;
	return 0;
}

static int load_own(const char *path, const cJSON *own, const struct tt_reader_ops *r, void *cfg,
		    char *err, size_t errlen)
{
	struct member_in m = { own, NULL };
	const struct tt_layout_in in = { &m, member_get };
	char why[384] = "";
	int rc = r->layout_load(cfg, &in, why, sizeof(why));

	free(m.items);
	if (rc < 0) {
		if (r->cfg_free)
			r->cfg_free(cfg);
		return bad(err, errlen, rc, path, "%s", why);
	}
	return 0;
}

int tt_layout_load(const char *path, const struct tt_reader_ops *r, void *cfg,
		   uint64_t *address, char *err, size_t errlen)
{
	cJSON *root;
	const cJSON *own, *a;
	int rc = parse_file(path, &root, err, errlen);

	*address = 0;
	if (rc < 0)
		return rc;
	if (!format_of(root) || strcmp(format_of(root), r->name)) {
		rc = bad(err, errlen, -EINVAL, path, "a layout for format %s, not %s",
			 format_of(root) ? format_of(root) : "(none: no \"format\")", r->name);
		goto out;
	}
	a = cJSON_GetObjectItemCaseSensitive(root, "address");
	if (a && (!cJSON_IsString(a) || tt_parse_u64(a->valuestring, UINT64_MAX, 0, address) < 0)) {
		rc = bad(err, errlen, -EINVAL, path, "address: expected a string like \"0x20001000\"");
		goto out;
	}
	own = cJSON_GetObjectItemCaseSensitive(root, r->name);
	if (own && !cJSON_IsObject(own)) {
		rc = bad(err, errlen, -EINVAL, path, "%s is not an object", r->name);
		goto out;
	}
	rc = load_options(path, cJSON_GetObjectItemCaseSensitive(own, "options"), r, cfg, err,
			  errlen);
	if (rc == 0 && r->layout_load)
		rc = load_own(path, own, r, cfg, err, errlen);
out:
	cJSON_Delete(root);
	return rc;
}

/* ---- writing ---- */

/* The format's object as layout_write fills it (struct tt_layout_out). */
struct member_out {
	cJSON *own, *opts, *cur;
};

static int put_option(void *arg, const char *key, const char *value)
{
	struct member_out *m = arg;

	return cJSON_AddStringToObject(m->opts, key, value) ? 0 : -ENOMEM;
}

static int put_begin(void *arg, const char *key, bool array)
{
	struct member_out *m = arg;

	m->cur = array ? cJSON_AddArrayToObject(m->own, key) : cJSON_AddObjectToObject(m->own, key);
	return m->cur ? 0 : -ENOMEM;
}

static int put_item(void *arg, const char *key, const char *text)
{
	struct member_out *m = arg;
	cJSON *v = text ? cJSON_CreateString(text) : cJSON_CreateNull();

	if (!v || !m->cur)
		goto fail;
	if (key ? cJSON_AddItemToObject(m->cur, key, v) : cJSON_AddItemToArray(m->cur, v))
		return 0;
fail:
	cJSON_Delete(v);
	return -ENOMEM;
}

int tt_layout_write(FILE *f, const struct tt_reader_ops *r, const void *cfg, uint64_t address,
		    const char *source)
{
	cJSON *root = cJSON_CreateObject();
	struct member_out m = { NULL, NULL, NULL };
	const struct tt_layout_out out = { &m, put_option, put_begin, put_item };
	char addr[24], *text = NULL;
	int rc = -ENOMEM;

	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)address);
	if (!root || !cJSON_AddStringToObject(root, "format", r->name) ||
	    (source && !cJSON_AddStringToObject(root, "source", source)) ||
	    !cJSON_AddStringToObject(root, "address", addr) ||
	    !(m.own = cJSON_AddObjectToObject(root, r->name)) ||
	    !(m.opts = cJSON_AddObjectToObject(m.own, "options")))
		goto out;
	if ((rc = r->layout_write(cfg, &out)) < 0)
		goto out;
	rc = -ENOMEM;
	if (!(text = cJSON_Print(root)))
		goto out;
	rc = fputs(text, f) < 0 || fputc('\n', f) < 0 ? -EIO : 0;
out:
	free(text);
	cJSON_Delete(root);
	return rc;
}
