/* daemon/target_cfg.c: a target's format configuration (see target.h): the format's own
 * defaults, then a layout file or the ELF's DWARF, then --format-opt KEY=VALUE, then the
 * format's consistency check.
 */
#include "layout.h"
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fwglue.h"
#include "log.h"

/* A format without options (or options too large for x->buf): a layout file gives the address
 * at most, and --format-opt is an error. */
static int format_cfg_none(const struct tt_target_config *cfg, const struct tt_reader_ops *r,
			   struct tt_format_cfg *x, char *err, size_t errlen)
{
	const char *const *o = cfg->format_opts;
	int rc;

	if (cfg->layout) { /* a format without options: the address at most */
		rc = tt_layout_load(cfg->layout, r, NULL, &x->address, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (o && *o) {
		snprintf(err, errlen, "--format-opt '%s': format %s takes no options", *o,
			 r->name);
		return -EINVAL;
	}
	return 0;
}

/* Fills x->buf from the layout file or the ELF (one of them at most). */
static int format_cfg_load(const struct tt_target_config *cfg, const struct tt_reader_ops *r,
			   struct tt_format_cfg *x, char *err, size_t errlen)
{
	int rc;

	if (cfg->layout && cfg->elf) {
		snprintf(err, errlen, "--layout %s and --elf %s: give one (the layout file is what "
			 "the ELF gives)", cfg->layout, cfg->elf);
		return -EINVAL;
	}
	if (cfg->layout) {
		rc = tt_layout_load(cfg->layout, r, x->buf, &x->address, err, errlen);
		if (rc < 0)
			return rc;
		x->owned = r; /* what the layout file put in x->buf is released by cfg_free */
	}
	if (cfg->elf && r->cfg_from_fw) {
		char note[768];

		rc = tt_fw_format_cfg(r, x->buf, cfg->elf, note, sizeof(note), err, errlen);
		if (rc < 0)
			return rc;
		x->owned = r;
		for (char *l = note, *nl; *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				break;
			tt_log(TT_LOG_INFO, "%.*s", (int)(nl - l), l);
		}
	}
	return 0;
}

/* Applies each --format-opt KEY=VALUE through the format's cfg_set. */
static int format_cfg_opts(const struct tt_target_config *cfg, const struct tt_reader_ops *r,
			   struct tt_format_cfg *x, char *err, size_t errlen)
{
	char key[64], why[384];

	for (const char *const *o = cfg->format_opts; o && *o; o++) {
		const char *eq = strchr(*o, '=');
		size_t klen = eq ? (size_t)(eq - *o) : 0;
		if (!klen || klen >= sizeof(key)) {
			snprintf(err, errlen, "--format-opt '%s': expected KEY=VALUE", *o);
			return -EINVAL;
		}
		memcpy(key, *o, klen);
		key[klen] = 0;
		if (r->cfg_set(x->buf, key, eq + 1, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--format-opt '%s': %s", *o, why);
			tt_format_cfg_release(x);
			return -EINVAL;
		}
	}
	return 0;
}

int tt_target_format_cfg(const struct tt_target_config *cfg, const struct tt_reader_ops *r,
			 struct tt_format_cfg *x, const void **format_cfg, char *err,
			 size_t errlen)
{
	int rc;

	*format_cfg = NULL;
	x->owned = NULL;
	x->address = 0;
	if (!r->cfg_size || r->cfg_size > sizeof(x->buf))
		return format_cfg_none(cfg, r, x, err, errlen);
	r->cfg_init(x->buf);
	rc = format_cfg_load(cfg, r, x, err, errlen);
	if (rc < 0)
		return rc;
	rc = format_cfg_opts(cfg, r, x, err, errlen);
	if (rc < 0)
		return rc;
	const char *w = NULL;
	if (r->cfg_check && r->cfg_check(x->buf, &w) < 0) {
		snprintf(err, errlen, "%s: %s", r->name, w ? w : "inconsistent format options");
		tt_format_cfg_release(x);
		return -EINVAL;
	}
	*format_cfg = x->buf;
	return 0;
}

void tt_format_cfg_release(struct tt_format_cfg *x)
{
	const struct tt_reader_ops *r = x->owned;

	if (r && r->cfg_free)
		r->cfg_free(x->buf);
	x->owned = NULL;
}

uint32_t tt_target_header_ptr(const uint8_t b[4])
{
	uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	uint32_t be = __builtin_bswap32(v);
	/* The pointer is in target byte order, which is unknown until the header is read: take the
	 * little-endian value (every Cortex-M) unless only the big-endian one is plausible, i.e.
	 * 4-aligned and the little-endian one is not. */
	return (v & 3) && !(be & 3) ? be : v;
}
