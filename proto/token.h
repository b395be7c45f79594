/* proto/token.h: what an access token may be (PROTOCOL.md, "WebSocket stream"): 1 to
 * TT_TOKEN_MAX characters, each visible ASCII (0x21-0x7e); "" is no token. Such a token fits
 * the daemon's header buffers and can never end a header line or add one. tracetapd refuses
 * another at start and reload, the client before it sends anything.
 */
#ifndef TT_TOKEN_H
#define TT_TOKEN_H

#include <stddef.h>
#include <stdio.h>

#define TT_TOKEN_MAX 256

/* NULL when t is a valid token or "" (no token), else what is wrong with it, written into
 * buf. */
static inline const char *tt_token_problem(const char *t, char *buf, size_t len)
{
	size_t n = 0;

	for (; t[n]; n++) {
		unsigned char c = (unsigned char)t[n];
		if (n < TT_TOKEN_MAX && (c < 0x21 || c > 0x7e)) {
			snprintf(buf, len, "character %zu is 0x%02x: a token is visible ASCII "
				 "(no space or control character)", n + 1, c);
			return buf;
		}
	}
	if (n > TT_TOKEN_MAX) {
		snprintf(buf, len, "%zu characters: a token has 1 to %d", n, TT_TOKEN_MAX);
		return buf;
	}
	return NULL;
}

#endif
