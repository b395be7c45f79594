/* daemon/fwglue.c: fw/'s queries as proto/'s table (see fwglue.h). */
#include <stdio.h>

#include "fwglue.h"

#include "../fw/fw.h"

int tt_fw_query_run(const char *path, const char *what,
		    int (*fn)(const struct tt_fw_query *q, void *arg, char *err, size_t errlen),
		    void *arg, char *err, size_t errlen)
{
	struct tt_fw *fw;
	int rc = tt_fw_open(path, what, &fw, err, errlen);

	if (rc < 0)
		return rc;
	const struct tt_fw_query q = {
		.fw = fw,
		.path = tt_fw_path,
		.has_dwarf = tt_fw_has_dwarf,
		.big_endian = tt_fw_big_endian,
		.class_bytes = tt_fw_class_bytes,
		.machine = tt_fw_machine,
		.type = tt_fw_type,
		.variable = tt_fw_variable,
		.member = tt_fw_member,
		.member_offset = tt_fw_member_offset,
		.type_of = tt_fw_type_of,
		.size = tt_fw_size,
		.is_pointer = tt_fw_is_pointer,
		.array_len = tt_fw_array_len,
		.enumerator = tt_fw_enumerator,
		.var_addr = tt_fw_var_addr,
		.read = tt_fw_read,
		.rodata = tt_fw_rodata,
	};
	rc = fn(&q, arg, err, errlen);
	tt_fw_close(fw);
	return rc;
}

struct cfg_call {
	const struct tt_reader_ops *r;
	void *cfg;
	char *note;
	size_t notelen;
};

static int cfg_fn(const struct tt_fw_query *q, void *arg, char *err, size_t errlen)
{
	struct cfg_call *c = arg;

	return c->r->cfg_from_fw(c->cfg, q, c->note, c->notelen, err, errlen);
}

int tt_fw_format_cfg(const struct tt_reader_ops *r, void *cfg, const char *path, char *note,
		     size_t notelen, char *err, size_t errlen)
{
	struct cfg_call c = { r, cfg, note, notelen };
	char what[64];

	snprintf(what, sizeof(what), "the %s configuration", r->name);
	return tt_fw_query_run(path, what, cfg_fn, &c, err, errlen);
}
