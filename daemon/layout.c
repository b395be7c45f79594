/* daemon/layout.c: layout files (see layout.h): reading them into a reader's format_cfg, and
 * writing NuttX's from what the ELF gave. The file is untrusted input: sizes are bounded, every
 * value is checked, and an error names the file and the field.
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
#define LAYOUT_MAX_SYSCALLS 4096u
#define LAYOUT_MAX_STRING 4096u

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

static int load_syscalls(const char *path, const cJSON *a, struct tt_layout_extras *ex,
			 char *err, size_t errlen)
{
	const cJSON *s;
	size_t n = 0, bytes = 0;

	if (!a)
		return 0;
	if (!cJSON_IsArray(a) || (n = (size_t)cJSON_GetArraySize(a)) > LAYOUT_MAX_SYSCALLS)
		return bad(err, errlen, -EINVAL, path, "nuttx.syscalls: expected an array of at "
			   "most %u names (or null entries)", LAYOUT_MAX_SYSCALLS);
	size_t i = 0;
	cJSON_ArrayForEach(s, a) {
		if (cJSON_IsString(s) && strlen(s->valuestring) < 64)
			bytes += strlen(s->valuestring) + 1;
		else if (!cJSON_IsNull(s))
			return bad(err, errlen, -EINVAL, path, "nuttx.syscalls[%zu]: not a name of "
				   "at most 63 characters, nor null", i);
		i++;
	}
	ex->sc = calloc(1, sizeof(*ex->sc) + n * sizeof(char *) + bytes);
	if (!ex->sc)
		return bad(err, errlen, -ENOMEM, path, "out of memory");
	const char **names = (const char **)(void *)(ex->sc + 1);
	char *p = (char *)(names + n);
	i = 0;
	cJSON_ArrayForEach(s, a) {
		names[i] = NULL;
		if (cJSON_IsString(s)) {
			names[i] = strcpy(p, s->valuestring);
			p += strlen(p) + 1;
		}
		i++;
	}
	ex->sc->n = (unsigned)n;
	ex->sc->names = names;
	return 0;
}

/* "strings": { "0xADDR": "text", ... } -> one read-only segment per string (with its NUL). */
static int load_strings(const char *path, const cJSON *o, struct tt_layout_extras *ex,
			char *err, size_t errlen)
{
	const cJSON *s;
	size_t n = 0, bytes = 0;

	if (!o)
		return 0;
	if (!cJSON_IsObject(o))
		return bad(err, errlen, -EINVAL, path, "nuttx.strings is not an object");
	cJSON_ArrayForEach(s, o) {
		uint64_t a;
		if (tt_parse_u64(s->string, UINT64_MAX, 0, &a) < 0 || !cJSON_IsString(s) ||
		    strlen(s->valuestring) >= LAYOUT_MAX_STRING)
			return bad(err, errlen, -EINVAL, path, "nuttx.strings.%s: expected an "
				   "address key and a string of less than %u characters",
				   s->string, LAYOUT_MAX_STRING);
		n++;
		bytes += strlen(s->valuestring) + 1;
	}
	ex->ro = calloc(1, sizeof(*ex->ro) + n * sizeof(struct tt_nuttx_seg) + bytes);
	if (!ex->ro)
		return bad(err, errlen, -ENOMEM, path, "out of memory");
	struct tt_nuttx_seg *seg = (struct tt_nuttx_seg *)(void *)(ex->ro + 1);
	uint8_t *p = (uint8_t *)(seg + n);
	cJSON_ArrayForEach(s, o) {
		size_t len = strlen(s->valuestring) + 1;
		tt_parse_u64(s->string, UINT64_MAX, 0, &seg[ex->ro->n].addr);
		seg[ex->ro->n].len = (uint32_t)len;
		seg[ex->ro->n].data = memcpy(p, s->valuestring, len);
		p += len;
		ex->ro->n++;
	}
	ex->ro->seg = seg;
	return 0;
}

int tt_layout_load(const char *path, const struct tt_reader_ops *r, void *cfg,
		   struct tt_layout_extras *ex, uint64_t *address, char *err, size_t errlen)
{
	cJSON *root;
	const cJSON *own, *a;
	int rc = parse_file(path, &root, err, errlen);

	*ex = (struct tt_layout_extras){ NULL, NULL };
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
	if (rc == 0 && r->layout_file) {
		struct tt_nuttx_layout *lo = cfg;
		rc = load_syscalls(path, cJSON_GetObjectItemCaseSensitive(own, "syscalls"), ex,
				   err, errlen);
		if (rc == 0)
			rc = load_strings(path, cJSON_GetObjectItemCaseSensitive(own, "strings"),
					  ex, err, errlen);
		lo->syscalls = ex->sc;
		lo->rodata = ex->ro;
	}
	if (rc < 0)
		tt_layout_extras_free(ex);
out:
	cJSON_Delete(root);
	return rc;
}

void tt_layout_extras_free(struct tt_layout_extras *ex)
{
	free(ex->sc);
	free(ex->ro);
	ex->sc = NULL;
	ex->ro = NULL;
}

/* ---- writing ---- */

static void add_option(void *arg, const char *key, const char *value)
{
	cJSON_AddStringToObject(arg, key, value);
}

/* Whether s (n bytes) has a printf conversion: '%', flags, width, precision, length, then a
 * conversion character. */
static bool has_conversion(const uint8_t *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (s[k] != '%')
			continue;
		size_t j = k + 1;
		while (j < n && strchr("-+ #0123456789.*hlLjzt", s[j]) && s[j])
			j++;
		if (j < n && s[j] && strchr("diouxXcsfFeEgGaAp%", s[j]))
			return true;
	}
	return false;
}

/* NUL-terminated runs of printable ASCII (with newlines and tabs) in the read-only data that
 * hold a printf conversion: the candidates for DUMP_PRINTF's npt_fmt (which ones the firmware
 * uses is in its code, not its data; the sections can hold code, whose bytes are not text). */
static void add_strings(cJSON *o, const struct tt_nuttx_mem *m)
{
	char key[24];

	for (unsigned i = 0; m && i < m->n; i++) {
		const struct tt_nuttx_seg *s = &m->seg[i];
		size_t start = 0;
		for (size_t k = 0; k < s->len; k++) {
			uint8_t c = s->data[k];
			if (c) {
				if ((c < 0x20 || c > 0x7e) && c != '\n' && c != '\t')
					start = k + 1; /* not text: the string starts after it */
				continue;
			}
			size_t len = k - start;
			if (len && len < LAYOUT_MAX_STRING && has_conversion(s->data + start, len)) {
				snprintf(key, sizeof(key), "0x%llx",
					 (unsigned long long)(s->addr + start));
				cJSON_AddStringToObject(o, key, (const char *)s->data + start);
			}
			start = k + 1;
		}
	}
}

int tt_layout_write_nuttx(FILE *f, const struct tt_nuttx_layout *lo, uint64_t address,
			  const char *source)
{
	cJSON *root = cJSON_CreateObject(), *nx = cJSON_CreateObject();
	cJSON *opts = cJSON_CreateObject(), *sc = NULL, *strs = cJSON_CreateObject();
	char addr[24];
	int rc = 0;

	if (!root || !nx || !opts || !strs) {
		rc = -ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(root, "format", "nuttx");
	if (source)
		cJSON_AddStringToObject(root, "source", source);
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)address);
	cJSON_AddStringToObject(root, "address", addr);
	cJSON_AddItemToObject(root, "nuttx", nx);
	cJSON_AddItemToObject(nx, "options", opts);
	tt_nuttx_layout_options(lo, add_option, opts);
	if (lo->syscalls) {
		sc = cJSON_AddArrayToObject(nx, "syscalls");
		for (unsigned i = 0; sc && i < lo->syscalls->n; i++)
			cJSON_AddItemToArray(sc, lo->syscalls->names[i]
						 ? cJSON_CreateString(lo->syscalls->names[i])
						 : cJSON_CreateNull());
	}
	add_strings(strs, lo->rodata);
	cJSON_AddItemToObject(nx, "strings", strs);
	strs = NULL;
	nx = opts = NULL;
	char *text = cJSON_Print(root);
	if (!text) {
		rc = -ENOMEM;
		goto out;
	}
	if (fputs(text, f) < 0 || fputc('\n', f) < 0)
		rc = -EIO;
	free(text);
out:
	cJSON_Delete(strs);
	cJSON_Delete(opts);
	cJSON_Delete(nx);
	cJSON_Delete(root);
	return rc;
}
