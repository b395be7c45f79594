/* tests/integration/ttest.h: tiny test helpers for the probe tests: checks that exit with the
 * location, running a libuv loop until a condition or a deadline, and checking that the loop
 * ends with no handle left. */
#ifndef TT_TTEST_H
#define TT_TTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#define CHECK(c)                                                                               \
	do {                                                                                   \
		if (!(c)) {                                                                    \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);  \
			abort();                                                               \
		}                                                                              \
	} while (0)
#define CHECK_INT(a, b)                                                                        \
	do {                                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);                            \
		if (a_ != b_) {                                                                \
			fprintf(stderr, "%s:%d: %s = %lld, expected %s = %lld\n", __FILE__,    \
				__LINE__, #a, a_, #b, b_);                                     \
			abort();                                                               \
		}                                                                              \
	} while (0)
#define CHECK_HAS(s, sub)                                                                      \
	do {                                                                                   \
		if (strstr((s), (sub)) == NULL) {                                              \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,    \
				__LINE__, (s), (sub));                                         \
			abort();                                                               \
		}                                                                              \
	} while (0)

/* Runs loop until pred(arg) is true (checked after every loop pass); aborts the test after ms
 * milliseconds, naming what. */
void tt_test_wait_until(uv_loop_t *loop, int (*pred)(void *), void *arg, unsigned ms,
			const char *what);
/* Runs loop until *flag != 0; aborts the test after ms milliseconds. */
void tt_test_wait(uv_loop_t *loop, const int *flag, unsigned ms, const char *what);
/* Runs loop until it has nothing left (deadline 10 s) and checks uv_loop_close succeeds. */
void tt_test_loop_done(uv_loop_t *loop);
/* Writes n bytes to path (creating it); aborts on error. */
void tt_test_write_file(const char *path, const void *data, size_t n);
/* A fresh temporary directory (removed by the caller with tt_test_rmdir). */
char *tt_test_tmpdir(void);
void tt_test_rmdir(char *dir);

#endif
