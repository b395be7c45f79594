/* tests/nuttx/nx_ftrace.c: records as JSON lines (`tracetap decode --json`) on stdin -> the
 * ftrace export (export/export.c) on stdout, for comparing tracetap's reading of real NuttX
 * notes with NuttX's own `trace dump` text (fixtures.sh). */
#include <stdio.h>
#include <string.h>

#include "export.h"

static int out(void *arg, const void *buf, size_t len)
{
	(void)arg;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

int main(void)
{
	struct tt_export *e;
	static char line[1 << 16];

	if (tt_export_new(TT_EXPORT_FTRACE, out, NULL, &e) < 0)
		return 1;
	while (fgets(line, sizeof(line), stdin))
		if (tt_export_record(e, line, strlen(line)) < -1) {
			fprintf(stderr, "nx_ftrace: export failed\n");
			return 1;
		}
	int rc = tt_export_finish(e);
	tt_export_free(e);
	return rc < 0 || fflush(stdout) ? 1 : 0;
}
