/* export/export_jsonl.c: one record per line, exactly the wire JSON (see export.h). */
#include "export_int.h"

static int jsonl_wire(struct tt_export *e, const char *json, size_t len)
{
	put(e, json, len);
	put(e, "\n", 1);
	e->written++;
	return e->err;
}

const struct tt_export_ops tt_export_jsonl = {
	.name = "jsonl", .content_type = "application/x-ndjson", .ext = ".jsonl",
	.wire = jsonl_wire,
};
