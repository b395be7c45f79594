/* tests/fuzz/fuzz_wire.c: what the `tracetap` client does with records from the wire (the
 * server is another program): a record object back into a struct tt_record
 * (daemon/record_json.c), printed by the formatters of `tracetap tail` and decode
 * (client/textfmt.c), re-encoded, and written to every export format of `tracetap record` and
 * /api/export (daemon/export.c: JSON lines, .trx, Perfetto, ftrace).
 *
 * The input is a sequence of record objects separated by NUL bytes, one stream.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "fuzz.h"
#include "record_json.h"
#include "textfmt.h"
#include "../../proto/reader.h"

/* the QNX traceprinter lines of a little-endian QNX 6 source */
static const struct tt_native_ctx qnx6 = { false, 6 };

static int fz_sink(void *arg, const void *buf, size_t len)
{
	volatile const char *b = buf;
	if (len)
		(void)b[len - 1];
	(void)arg;
	return 0;
}

static void fz_print(const char *json, size_t n)
{
	cJSON *o = cJSON_ParseWithLength(json, n);
	struct tt_record_json rj;
	char line[2048];

	if (o && tt_record_from_json(o, &rj) == 0) {
		struct tt_textfmt tf = { .color = 1, .target = rj.target };
		if (tt_textfmt_record(&tf, line, sizeof(line), &rj.rec, rj.seq) > (int)sizeof(line))
			abort();
		int n = tt_textfmt_native(line, sizeof(line), &rj.rec, tt_reader_find("qnx"), &qnx6);
		if (n > (int)sizeof(line))
			abort();
		if (n > 0)
			fz_check_text(line, (size_t)n); /* nothing a terminal would obey */
		tf.color = 0;
		tf.width = 0;
		n = tt_textfmt_record(&tf, line, sizeof(line), &rj.rec, rj.seq);
		if (n > 0)
			fz_check_text(line, (size_t)n);
		fz_record(NULL, &rj.rec);
	}
	cJSON_Delete(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tt_export *ex[4] = { NULL };
	size_t off = 0;

	for (int f = 0; f < 4; f++)
		if (tt_export_new((enum tt_export_format)f, fz_sink, NULL, &ex[f]) != 0)
			abort();
	while (off < size) {
		const uint8_t *end = memchr(data + off, '\0', size - off);
		size_t n = end ? (size_t)(end - (data + off)) : size - off;
		char *json = malloc(n ? n : 1); /* exactly n bytes: no terminator to lean on */
		if (!json)
			break;
		memcpy(json, data + off, n);
		fz_print(json, n);
		for (int f = 0; f < 4; f++)
			tt_export_record(ex[f], json, n);
		free(json);
		off += n + 1;
	}
	for (int f = 0; f < 4; f++) {
		tt_export_finish(ex[f]);
		tt_export_free(ex[f]);
	}
	return 0;
}
