/* daemon/log.c: stderr or journald-prefixed log lines (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tt_log_level = TT_LOG_INFO;
static const char *log_prog = "tracetap";
static int log_journal;

void tt_log_init(const char *prog)
{
	log_prog = prog;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
}

int tt_log_parse_level(const char *s)
{
	static const char *const names[] = { "emerg", "alert", "crit", "err", "warning",
					     "notice", "info", "debug" };

	for (int i = 0; i < 8; i++)
		if (!strcmp(s, names[i]))
			return i < TT_LOG_ERR ? TT_LOG_ERR : i;
	if (!strcmp(s, "error"))
		return TT_LOG_ERR;
	if (!strcmp(s, "warn"))
		return TT_LOG_WARNING;
	if (s[0] >= '3' && s[0] <= '7' && !s[1])
		return s[0] - '0';
	return -1;
}

void tt_log_write(int level, const char *fmt, ...)
{
	static const char *const tags[] = { "", "", "", "error", "warning", "notice", "info",
					    "debug" };
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_journal) {
		fprintf(stderr, "<%d>%s\n", level, msg);
		return;
	}
	struct timespec ts;
	struct tm tm;
	char when[32];
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld %s[%s]: %s\n", when, ts.tv_nsec / 1000000, log_prog,
		tags[level & 7], msg);
}

const char *tt_log_url(const char *url, char *buf, size_t cap)
{
	const char *u = url ? url : "", *host = strstr(u, "://"), *end, *at = NULL, *colon;

	if (!cap)
		return buf;
	host = host ? host + 3 : u;
	end = host + strcspn(host, "/"); /* the authority ends at the topic (as the parser reads) */
	for (const char *p = host; p < end; p++)
		if (*p == '@')
			at = p;
	colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
	if (!colon)
		snprintf(buf, cap, "%s", u);
	else
		snprintf(buf, cap, "%.*s***%s", (int)(colon + 1 - u), u, at);
	return buf;
}
