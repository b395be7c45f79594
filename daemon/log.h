/* daemon/log.h: the one logging path of the daemon and the client.
 *
 * Level-checked before formatting. Under systemd (JOURNAL_STREAM set) lines carry journald
 * priority prefixes ("<3>...") and no time stamp; otherwise they go to stderr with a local time
 * stamp. proto/ and probe/ never log: they return errors and counters.
 */
#ifndef TT_LOG_H
#define TT_LOG_H

#include <stddef.h>
#include <stdint.h>

enum tt_log_level {
	TT_LOG_ERR = 3,
	TT_LOG_WARNING = 4,
	TT_LOG_NOTICE = 5,
	TT_LOG_INFO = 6,
	TT_LOG_DEBUG = 7,
};

extern int tt_log_level;

#define tt_log(lvl, ...)                                                                   \
	do {                                                                               \
		if ((lvl) <= tt_log_level)                                                 \
			tt_log_write((lvl), __VA_ARGS__);                                  \
	} while (0)

/* Rate limit for a source of repeated lines (a library's log, refusals under a flood): at most
 * burst lines per second. Inline: the server library links without this file. */
struct tt_log_limit {
	uint64_t start_ms;
	unsigned n, dropped;
};
/* 1: write the line; 0: drop it (counted). When a line passes after drops, *dropped is their
 * number (to say so), else 0. now_ms: any monotonic clock in ms. */
static inline int tt_log_limit(struct tt_log_limit *l, unsigned burst, uint64_t now_ms,
			       unsigned *dropped)
{
	*dropped = 0;
	if (now_ms - l->start_ms >= 1000) {
		l->start_ms = now_ms;
		l->n = 0;
	}
	if (l->n >= burst) {
		l->dropped++;
		return 0;
	}
	l->n++;
	*dropped = l->dropped;
	l->dropped = 0;
	return 1;
}

void tt_log_init(const char *prog);
void tt_log_write(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "err", "warning", "notice", "info", "debug" (or 3..7) -> level; -1 when unknown. */
int tt_log_parse_level(const char *s);

/* url as it may be logged: the password of a `scheme://user:password@host...` (a broker's)
 * replaced with "***". Returns buf (cap bytes, cut to fit); every line naming a URL uses it. */
const char *tt_log_url(const char *url, char *buf, size_t cap);

#endif
