/* tests/unit/tracex_text.h: reading TraceX's text export ("save as text") and fixture files, for
 * the tests that compare tracetap with TraceX (test_tracex_sample, tests/server's
 * test_export_tracex). Header-only: static functions. */
#ifndef TT_TRACEX_TEXT_H
#define TT_TRACEX_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, NUL-terminated (caller frees), or NULL. */
static inline char *tracex_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n) {
		b[n] = 0;
		*len = (size_t)n;
	} else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* TraceX's sample and its text export from the fixtures folder (TT_FIXTURES, default
 * TT_SOURCE_ROOT/../shared/fixtures): 0, or -1 after printing why the test is skipped (the
 * caller exits 77). Caller frees *trx and *txt. */
static inline int tracex_sample(uint8_t **trx, size_t *len, char **txt)
{
	const char *dir = getenv("TT_FIXTURES");
	char p[4096];
	size_t tlen;

	if (!dir || !*dir)
		dir = TT_SOURCE_ROOT "/../shared/fixtures";
	snprintf(p, sizeof(p), "%s/tracex/demo_threadx.trx", dir);
	*trx = (uint8_t *)tracex_slurp(p, len);
	snprintf(p, sizeof(p), "%s/tracex/demo_threadx.txt", dir);
	*txt = tracex_slurp(p, &tlen);
	if (*trx && *txt && *len >= 48)
		return 0;
	printf("SKIP: TraceX sample not found in %s/tracex (set TT_FIXTURES)\n", dir);
	free(*trx);
	free(*txt);
	return -1;
}

/* TraceX's Thread Execution total (ticks) of a context by its full name ("thread 1",
 * "Interrupt", "Idle System"), or -1 when the text has none. */
static inline double tracex_total(const char *txt, const char *name)
{
	const char *sec = strstr(txt, "Thread Execution");
	size_t n = strlen(name);

	for (const char *l = sec ? strchr(sec, '\n') : NULL; l && l[1] && l[1] != '*';
	     l = strchr(l + 1, '\n')) {
		unsigned long long t;
		char pct[8];
		int off = 0;
		if (sscanf(l + 1, " %llu %7s %n", &t, pct, &off) == 2 && off &&
		    !strncmp(l + 1 + off, name, n) && strchr("\r\n", l[1 + off + n]))
			return (double)t;
	}
	return -1;
}

#endif
