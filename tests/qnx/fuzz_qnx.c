/* tests/qnx/fuzz_qnx.c: libFuzzer harness for the QNX .kev decoder (-Dfuzzing=true, clang).
 * The input is a whole .kev file. Every record is encoded as JSON and every string it points to
 * is read, so sanitizers see bad pointers. The bounded gcc smoke version of this is
 * test_qnx_bad's mutation loop. Without TT_LIBFUZZER, main() runs the harness on files named on
 * the command line (to replay a crash). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "qnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_cb(void *arg, const struct tt_record *rec)
{
	char buf[TT_JSON_MAX_RECORD];
	size_t *sum = arg;

	if (tt_json_record(buf, sizeof(buf), rec, NULL, 1) < 0)
		abort(); /* a record must always fit */
	if (rec->kind == TT_REC_EVENT)
		for (unsigned i = 0; i < rec->u.ev.nargs; i++)
			*sum += rec->u.ev.args[i].text ? strlen(rec->u.ev.args[i].text) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	size_t sum = 0;

	tt_qnx_decode_file(data, size, 0, fz_cb, &sum, NULL, err, sizeof(err));
	return 0;
}

#ifndef TT_LIBFUZZER
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static uint8_t buf[1 << 22];
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		LLVMFuzzerTestOneInput(copy, n);
		free(copy);
	}
	return 0;
}
#endif
