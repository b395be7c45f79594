/* tests/service/test_usb_watch.c: tt_usb_watch start/stop on a libuv loop: no callback inside
 * start, probes present at start reported from the loop, stop closes everything (the loop
 * closes with no handle left; valgrind: no leak). argv[1] "poll" forces the 2 s polling
 * fallback. Skips (77) where libusb cannot start (no USB in the container). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "../tt_test.h"
#include "usb.h"

static int in_start, events, stopped;
static struct tt_usb_watch *watch;

static void on_probe(struct tt_usb_watch *w, enum tt_usb_event ev, const struct tt_usb_probe *p,
		     void *arg)
{
	CHECK(!in_start);
	CHECK(!stopped);
	CHECK(w == watch);
	CHECK(p->match.kind != TT_USB_UNKNOWN);
	printf("%s %04x:%04x %s serial '%s'\n", ev == TT_USB_ARRIVED ? "arrived" : "left",
	       p->vid, p->pid, p->match.name, p->serial);
	events++;
}

static void on_timer(uv_timer_t *t)
{
	tt_usb_watch_stop(watch);
	tt_usb_watch_stop(watch); /* idempotent */
	stopped = 1;
	uv_close((uv_handle_t *)t, NULL);
}

int main(int argc, char **argv)
{
	uv_loop_t loop;
	uv_timer_t t;

	if (argc > 1 && !strcmp(argv[1], "poll"))
		setenv("TT_USB_NO_HOTPLUG", "1", 1);
	uv_loop_init(&loop);
	in_start = 1;
	int rc = tt_usb_watch_start(&loop, on_probe, NULL, &watch);
	in_start = 0;
	if (rc == -ENODEV || rc == -ENOTSUP) {
		uv_loop_close(&loop);
		tt_test_skip("no USB here (%s)", strerror(-rc));
	}
	CHECK_EQ(rc, 0);
	printf("mode: %s\n", tt_usb_watch_is_hotplug(watch) ? "hot-plug" : "polling");
	if (argc > 1)
		CHECK(!tt_usb_watch_is_hotplug(watch));
	uv_timer_init(&loop, &t);
	uv_timer_start(&t, on_timer, 300, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	CHECK_EQ(uv_loop_close(&loop), 0);
	printf("%d probe events\n", events);
	return tt_test_done();
}
