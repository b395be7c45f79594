/* proto/nuttx_layout_file.c: NuttX's members of a layout file (reader.h: layout_write,
 * layout_load): "syscalls", the firmware's g_funcnames[] (null where a name could not be read),
 * and "strings", the read-only strings that can be DUMP_PRINTF formats, by address. The file's
 * JSON, its format, address and options are daemon/layout.c's; this file knows only what NuttX
 * keeps beside the options. The file is untrusted: sizes are bounded and each entry is checked,
 * an error names the member and the entry.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nuttx.h"
#include "parse.h"
#include "reader.h"

#define LAYOUT_MAX_SYSCALLS 4096u
#define LAYOUT_MAX_NAME 64u     /* a syscall name with its NUL */
#define LAYOUT_MAX_STRING 4096u /* a string with its NUL */

/* ---- writing ---- */

struct opt_out {
	const struct tt_layout_out *out;
	int rc; /* the first error */
};

static void put_option(void *arg, const char *key, const char *value)
{
	struct opt_out *o = arg;
	int rc = o->out->option(o->out->arg, key, value);

	if (rc < 0 && !o->rc)
		o->rc = rc;
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
static int put_strings(const struct tt_layout_out *out, const struct tt_nuttx_mem *m)
{
	char key[24];
	int rc = out->begin(out->arg, "strings", false);

	for (unsigned i = 0; rc == 0 && m && i < m->n; i++) {
		const struct tt_nuttx_seg *s = &m->seg[i];
		size_t start = 0;
		for (size_t k = 0; rc == 0 && k < s->len; k++) {
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
				rc = out->item(out->arg, key, (const char *)s->data + start);
			}
			start = k + 1;
		}
	}
	return rc;
}

int tt_nuttx_layout_write(const void *cfg, const struct tt_layout_out *out)
{
	const struct tt_nuttx_layout *lo = cfg;
	struct opt_out o = { out, 0 };

	tt_nuttx_layout_options(lo, put_option, &o);
	if (o.rc < 0)
		return o.rc;
	if (lo->syscalls) {
		int rc = out->begin(out->arg, "syscalls", true);
		for (unsigned i = 0; rc == 0 && i < lo->syscalls->n; i++)
			rc = out->item(out->arg, NULL, lo->syscalls->names[i]);
		if (rc < 0)
			return rc;
	}
	return put_strings(out, lo->rodata);
}

/* ---- reading ---- */

static int load_syscalls(const struct tt_layout_value *v, struct tt_nuttx_syscalls **out,
			 char *err, size_t errlen)
{
	size_t bytes = 0;

	if (v->kind != TT_LAYOUT_ARRAY || v->n > LAYOUT_MAX_SYSCALLS) {
		snprintf(err, errlen, "nuttx.syscalls: expected an array of at most %u names (or "
			 "null entries)", LAYOUT_MAX_SYSCALLS);
		return -EINVAL;
	}
	for (size_t i = 0; i < v->n; i++) {
		const char *t = v->item[i].text;
		if (t && strlen(t) < LAYOUT_MAX_NAME)
			bytes += strlen(t) + 1;
		else if (!v->item[i].null) {
			snprintf(err, errlen, "nuttx.syscalls[%zu]: not a name of at most %u "
				 "characters, nor null", i, LAYOUT_MAX_NAME - 1);
			return -EINVAL;
		}
	}
	struct tt_nuttx_syscalls *sc = calloc(1, sizeof(*sc) + v->n * sizeof(char *) + bytes);
	if (!sc) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	const char **names = (const char **)(void *)(sc + 1);
	char *p = (char *)(names + v->n);
	for (size_t i = 0; i < v->n; i++) {
		names[i] = NULL;
		if (v->item[i].text) {
			names[i] = strcpy(p, v->item[i].text);
			p += strlen(p) + 1;
		}
	}
	sc->n = (unsigned)v->n;
	sc->names = names;
	*out = sc;
	return 0;
}

/* { "0xADDR": "text", ... } -> one read-only segment per string (with its NUL). */
static int load_strings(const struct tt_layout_value *v, struct tt_nuttx_mem **out, char *err,
			size_t errlen)
{
	size_t bytes = 0;
	uint64_t a;

	if (v->kind != TT_LAYOUT_OBJECT) {
		snprintf(err, errlen, "nuttx.strings is not an object");
		return -EINVAL;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct tt_layout_item *it = &v->item[i];
		if (tt_parse_u64(it->key, UINT64_MAX, 0, &a) < 0 || !it->text ||
		    strlen(it->text) >= LAYOUT_MAX_STRING) {
			snprintf(err, errlen, "nuttx.strings.%s: expected an address key and a "
				 "string of less than %u characters", it->key, LAYOUT_MAX_STRING);
			return -EINVAL;
		}
		bytes += strlen(it->text) + 1;
	}
	struct tt_nuttx_mem *ro = calloc(1, sizeof(*ro) + v->n * sizeof(struct tt_nuttx_seg) + bytes);
	if (!ro) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct tt_nuttx_seg *seg = (struct tt_nuttx_seg *)(void *)(ro + 1);
	uint8_t *p = (uint8_t *)(seg + v->n);
	for (size_t i = 0; i < v->n; i++) {
		size_t len = strlen(v->item[i].text) + 1;
		tt_parse_u64(v->item[i].key, UINT64_MAX, 0, &seg[i].addr);
		seg[i].len = (uint32_t)len;
		seg[i].data = memcpy(p, v->item[i].text, len);
		p += len;
	}
	ro->n = (unsigned)v->n;
	ro->seg = seg;
	*out = ro;
	return 0;
}

/* The member key of the format's object (more than max items: counted, not given): 0, -ENOENT
 * (absent) or -ENOMEM (said in err). */
static int member(const struct tt_layout_in *in, const char *key, size_t max,
		  struct tt_layout_value *v, char *err, size_t errlen)
{
	int rc = in->get(in->arg, key, max, v);

	if (rc < 0 && rc != -ENOENT)
		snprintf(err, errlen, "out of memory");
	return rc;
}

int tt_nuttx_layout_load(void *cfg, const struct tt_layout_in *in, char *err, size_t errlen)
{
	struct tt_nuttx_layout *lo = cfg;
	struct tt_layout_value v;
	struct tt_nuttx_syscalls *sc;
	struct tt_nuttx_mem *ro;
	int rc = member(in, "syscalls", LAYOUT_MAX_SYSCALLS, &v, err, errlen);

	if (rc == 0 && (rc = load_syscalls(&v, &sc, err, errlen)) == 0)
		lo->syscalls = sc;
	if (rc < 0 && rc != -ENOENT)
		return rc;
	/* strings: as many as the file holds (its reader bounds the file's size) */
	rc = member(in, "strings", SIZE_MAX, &v, err, errlen);
	if (rc == 0 && (rc = load_strings(&v, &ro, err, errlen)) == 0)
		lo->rodata = ro;
	return rc == -ENOENT ? 0 : rc;
}
