/* tests/tt_test.h: the assertions of every C test.
 *
 * CHECK* prints file:line, the expression and the values seen, counts the failure and goes on,
 * so one run shows every wrong value; REQUIRE* does the same and then ends the program with exit
 * code 1, for checks whose failure leaves nothing sensible to go on with (a NULL handle, a loop
 * helper in another file). A test's main ends with `return tt_test_done();`; tt_test_skip() ends
 * it with meson's "skipped" code 77 and says why.
 *
 * The failure count is one weak symbol shared by every file of a program, so helpers in other
 * files count toward the same tt_test_done().
 */
#ifndef TT_TEST_H
#define TT_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((weak)) int tt_test_failures;

/* Counts one failure (after its message is printed); ends the program when fatal. */
static inline void tt_test_failed_(int fatal)
{
	tt_test_failures++;
	if (fatal) {
		fprintf(stderr, "stopping at the first failed REQUIRE\n");
		exit(1);
	}
}

/* A failure found by the test's own logic: prints file:line and the message, counts it. */
__attribute__((format(printf, 3, 4))) static inline void tt_test_fail_at(const char *file,
									  int line,
									  const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	tt_test_failed_(0);
}
#define FAIL(...) tt_test_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Ends the program as skipped (meson: exit code 77), saying why on stdout. */
__attribute__((format(printf, 1, 2), noreturn)) static inline void tt_test_skip(const char *fmt,
										 ...)
{
	va_list ap;

	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	exit(77);
}

/* The exit code of a test: 1 when any check failed, after saying how many. */
static inline int tt_test_done(void)
{
	if (tt_test_failures)
		fprintf(stderr, "%d check(s) failed\n", tt_test_failures);
	return tt_test_failures ? 1 : 0;
}

#define TT_TEST_TRUE_(c, fatal)                                                                \
	do {                                                                                   \
		if (!(c)) {                                                                    \
			fprintf(stderr, "%s:%d: %s(%s) failed\n", __FILE__, __LINE__,         \
				(fatal) ? "REQUIRE" : "CHECK", #c);                    \
			tt_test_failed_(fatal);                                                \
		}                                                                              \
	} while (0)

#define TT_TEST_MSG_(c, fatal, ...)                                                            \
	do {                                                                                   \
		if (!(c)) {                                                                    \
			fprintf(stderr, "%s:%d: %s(%s) failed: ", __FILE__, __LINE__,       \
				(fatal) ? "REQUIRE" : "CHECK", #c);                    \
			fprintf(stderr, __VA_ARGS__);                                          \
			fputc('\n', stderr);                                                   \
			tt_test_failed_(fatal);                                                \
		}                                                                              \
	} while (0)

#define TT_TEST_EQ_(a, b, fatal)                                                               \
	do {                                                                                   \
		long long tt_a_ = (long long)(a), tt_b_ = (long long)(b);                      \
		if (tt_a_ != tt_b_) {                                                          \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld (0x%llx) != %lld (0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, tt_a_, (unsigned long long)tt_a_,  \
				tt_b_, (unsigned long long)tt_b_);                             \
			tt_test_failed_(fatal);                                                \
		}                                                                              \
	} while (0)

#define TT_TEST_STR_(a, b, fatal)                                                              \
	do {                                                                                   \
		const char *tt_a_ = (a), *tt_b_ = (b);                                         \
		if (tt_a_ == NULL || tt_b_ == NULL ? tt_a_ != tt_b_ : strcmp(tt_a_, tt_b_) != 0) { \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, #a, #b, tt_a_ ? tt_a_ : "(null)",                    \
				tt_b_ ? tt_b_ : "(null)");                                     \
			tt_test_failed_(fatal);                                                \
		}                                                                              \
	} while (0)

#define TT_TEST_SUBSTR_(hay, needle, fatal)                                                    \
	do {                                                                                   \
		const char *tt_h_ = (hay), *tt_n_ = (needle);                                  \
		if (tt_h_ == NULL || strstr(tt_h_, tt_n_) == NULL) {                           \
			fprintf(stderr, "%s:%d: %s does not contain %s: \"%s\" lacks \"%s\"\n", \
				__FILE__, __LINE__, #hay, #needle, tt_h_ ? tt_h_ : "(null)",   \
				tt_n_);                                                        \
			tt_test_failed_(fatal);                                                \
		}                                                                              \
	} while (0)

#define CHECK(c) TT_TEST_TRUE_(c, 0)
#define CHECK_MSG(c, ...) TT_TEST_MSG_(c, 0, __VA_ARGS__)
#define CHECK_EQ(a, b) TT_TEST_EQ_(a, b, 0)
#define CHECK_STR(a, b) TT_TEST_STR_(a, b, 0)
#define CHECK_SUBSTR(hay, needle) TT_TEST_SUBSTR_(hay, needle, 0)

#define REQUIRE(c) TT_TEST_TRUE_(c, 1)
#define REQUIRE_MSG(c, ...) TT_TEST_MSG_(c, 1, __VA_ARGS__)
#define REQUIRE_EQ(a, b) TT_TEST_EQ_(a, b, 1)
#define REQUIRE_STR(a, b) TT_TEST_STR_(a, b, 1)
#define REQUIRE_SUBSTR(hay, needle) TT_TEST_SUBSTR_(hay, needle, 1)

#endif
