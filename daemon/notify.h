/* daemon/notify.h: telling systemd how the daemon is doing (sd_notify), on the libuv loop.
 *
 * Every function is safe without systemd (NOTIFY_SOCKET unset: nothing is sent) and a no-op in
 * a build without libsystemd (TT_HAVE_SYSTEMD 0). The state is per process: no handle.
 *
 * Order in tracetapd (systemd/README.md):
 *   tt_notify_watchdog_start(loop)   once the loop exists
 *   tt_notify_ready()                after the listeners are up and the targets started
 *   tt_notify_status("...")          whenever the one-line summary changes
 *   tt_notify_reloading()            on SIGHUP, then tt_notify_ready() when the reload is done
 *   tt_notify_stopping()             on SIGTERM/SIGINT, then tt_notify_watchdog_stop()
 */
#ifndef TT_NOTIFY_H
#define TT_NOTIFY_H

#include <uv.h>

/* READY=1. */
void tt_notify_ready(void);
/* STATUS=<formatted text> (shown by systemctl status); longer than 255 bytes is cut. */
void tt_notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* STOPPING=1. */
void tt_notify_stopping(void);
/* RELOADING=1 with MONOTONIC_USEC (systemd >= 253 wants it); send tt_notify_ready() after. */
void tt_notify_reloading(void);

/* When systemd asked for a watchdog (WATCHDOG_USEC set, for this pid), sends WATCHDOG=1 from
 * an unref'ed timer on loop every half interval; close it with tt_notify_watchdog_stop() before
 * uv_loop_close.
 * Returns 1 when started, 0 when no watchdog is wanted (or built without libsystemd),
 * -EALREADY when already running, or a negative errno from sd_watchdog_enabled. */
int tt_notify_watchdog_start(uv_loop_t *loop);
/* The interval between pings in microseconds (0 when not running). */
unsigned long long tt_notify_watchdog_interval_usec(void);
/* Stops and closes the timer (asynchronously: the loop must run once more). Idempotent. */
void tt_notify_watchdog_stop(void);

#endif
