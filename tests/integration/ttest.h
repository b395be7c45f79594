/* tests/integration/ttest.h: tiny test helpers for the probe tests (checks: ../tt_test.h):
 * running a libuv loop until a condition or a deadline, and checking that the loop
 * ends with no handle left. */
#ifndef TT_TTEST_H
#define TT_TTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../tt_test.h"

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
