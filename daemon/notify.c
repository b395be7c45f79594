/* daemon/notify.c: sd_notify messages and the watchdog timer (see notify.h). */
#include "notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "tt_config.h"

#if TT_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>

static uv_timer_t wd_timer;
static int wd_state; /* 0 idle, 1 running, 2 closing */
static unsigned long long wd_usec;

void tt_notify_ready(void)
{
	sd_notify(0, "READY=1");
}

void tt_notify_status(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sd_notifyf(0, "STATUS=%s", msg);
}

void tt_notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

void tt_notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
}

static void on_wd_timer(uv_timer_t *t)
{
	sd_notify(0, "WATCHDOG=1");
}

int tt_notify_watchdog_start(uv_loop_t *loop)
{
	uint64_t usec = 0;
	int rc;

	if (wd_state)
		return -EALREADY;
	rc = sd_watchdog_enabled(0, &usec);
	if (rc <= 0 || usec == 0)
		return rc < 0 ? rc : 0;
	wd_usec = usec / 2;
	uint64_t ms = wd_usec / 1000;
	if (ms == 0)
		ms = 1;
	uv_timer_init(loop, &wd_timer);
	uv_timer_start(&wd_timer, on_wd_timer, ms, ms);
	uv_unref((uv_handle_t *)&wd_timer);
	wd_state = 1;
	/* One ping now: the first interval starts when systemd saw the process start. */
	sd_notify(0, "WATCHDOG=1");
	return 1;
}

unsigned long long tt_notify_watchdog_interval_usec(void)
{
	return wd_state == 1 ? wd_usec : 0;
}

static void on_wd_closed(uv_handle_t *h)
{
	wd_state = 0;
}

void tt_notify_watchdog_stop(void)
{
	if (wd_state != 1)
		return;
	wd_state = 2;
	uv_close((uv_handle_t *)&wd_timer, on_wd_closed);
}

#else /* !TT_HAVE_SYSTEMD: documented no-ops */

void tt_notify_ready(void)
{
}

void tt_notify_status(const char *fmt, ...)
{
}

void tt_notify_stopping(void)
{
}

void tt_notify_reloading(void)
{
}

int tt_notify_watchdog_start(uv_loop_t *loop)
{
	return 0;
}

unsigned long long tt_notify_watchdog_interval_usec(void)
{
	return 0;
}

void tt_notify_watchdog_stop(void)
{
}

#endif
