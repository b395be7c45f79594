/* proto/parse.c: numbers from text (see parse.h). */
#include "parse.h"

#include <errno.h>
#include <stdlib.h>

int tt_parse_u64(const char *s, uint64_t max, int suffix, uint64_t *out)
{
	char *end;
	uint64_t mul = 1;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (suffix && *end) {
		switch (*end++) {
		case 'k': case 'K': mul = 1000; break;
		case 'M': mul = 1000000; break;
		case 'G': mul = 1000000000; break;
		default: return -EINVAL;
		}
	}
	if (*end || (v && mul > max / v) || v * mul > max)
		return -EINVAL;
	*out = v * mul;
	return 0;
}
