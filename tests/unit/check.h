/* tests/unit/check.h: a tiny assertion helper. Each failed check prints file:line and both
 * values, and counts; a test program ends with `return check_report();` (nonzero on failure). */
#ifndef TT_CHECK_H
#define TT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(c)                                                                              \
	do {                                                                                  \
		if (!(c)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
			check_failures++;                                                     \
		}                                                                             \
	} while (0)

/* CHECK with a printf-style message saying what was seen. */
#define CHECK_MSG(c, ...)                                                                     \
	do {                                                                                  \
		if (!(c)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #c);  \
			fprintf(stderr, __VA_ARGS__);                                         \
			fputc('\n', stderr);                                                  \
			check_failures++;                                                     \
		}                                                                             \
	} while (0)

#define CHECK_EQ(a, b)                                                                        \
	do {                                                                                  \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);               \
		if (check_a_ != check_b_) {                                                   \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld (0x%llx) != %lld (0x%llx)\n", \
				__FILE__, __LINE__, #a, #b, check_a_, (unsigned long long)check_a_, \
				check_b_, (unsigned long long)check_b_);                      \
			check_failures++;                                                     \
		}                                                                             \
	} while (0)

#define CHECK_STR(a, b)                                                                       \
	do {                                                                                  \
		const char *check_a_ = (a), *check_b_ = (b);                                  \
		if (check_a_ == NULL || check_b_ == NULL ? check_a_ != check_b_               \
							 : strcmp(check_a_, check_b_) != 0) { \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,  \
				__LINE__, #a, #b, check_a_ ? check_a_ : "(null)",             \
				check_b_ ? check_b_ : "(null)");                              \
			check_failures++;                                                     \
		}                                                                             \
	} while (0)

#define CHECK_SUBSTR(hay, needle)                                                             \
	do {                                                                                  \
		const char *check_h_ = (hay), *check_n_ = (needle);                           \
		if (check_h_ == NULL || strstr(check_h_, check_n_) == NULL) {                 \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,     \
				__LINE__, check_h_ ? check_h_ : "(null)", check_n_);          \
			check_failures++;                                                     \
		}                                                                             \
	} while (0)

static inline int check_report(void)
{
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}

#endif
