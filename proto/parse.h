/* proto/parse.h: numbers from text (command lines, configuration, layout files). */
#ifndef TT_PARSE_H
#define TT_PARSE_H

#include <stdint.h>

/* Strict unsigned number (decimal or 0x hex, optional k/M/G suffix when suffix != 0), at most
 * max: 0 or -EINVAL. */
int tt_parse_u64(const char *s, uint64_t max, int suffix, uint64_t *out);

#endif
