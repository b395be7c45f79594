/* tests/service/test_notify.c: daemon/notify.c against a NOTIFY_SOCKET this test binds (a
 * unix datagram socket, as systemd's): READY=1, STATUS=, RELOADING=1, WATCHDOG=1 at half of
 * WATCHDOG_USEC from the loop, STOPPING=1; the loop closes with no handle left. Also: nothing
 * breaks and no watchdog starts when not under systemd. Built only with libsystemd. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include "../tt_test.h"
#include "notify.h"

#define WATCHDOG_USEC 200000
#define PINGS 6

struct t {
	uv_loop_t loop;
	uv_poll_t poll;
	uv_timer_t deadline;
	int fd;
	int got_ready, got_status, got_reloading, got_stopping, pings, done;
	uint64_t ping_ms[PINGS];
};

static void finish(struct t *t)
{
	if (t->done)
		return;
	t->done = 1;
	tt_notify_watchdog_stop();
	uv_close((uv_handle_t *)&t->poll, NULL);
	uv_close((uv_handle_t *)&t->deadline, NULL);
}

static void on_msg(struct t *t, const char *m)
{
	if (!strcmp(m, "READY=1")) {
		CHECK(t->got_ready == 0 || t->got_reloading == 1); /* the 2nd follows the reload */
		t->got_ready++;
	} else if (!strcmp(m, "STATUS=serving 2 targets, 1 client")) {
		t->got_status++;
	} else if (!strncmp(m, "RELOADING=1\nMONOTONIC_USEC=", 27)) {
		t->got_reloading++;
	} else if (!strcmp(m, "STOPPING=1")) {
		t->got_stopping++;
		finish(t);
	} else if (!strcmp(m, "WATCHDOG=1")) {
		if (t->pings < PINGS)
			t->ping_ms[t->pings] = uv_now(&t->loop);
		if (++t->pings == PINGS) {
			tt_notify_reloading();
			tt_notify_ready();
			tt_notify_stopping();
		}
	} else {
		FAIL("unexpected message '%s'", m);
	}
}

static void on_readable(uv_poll_t *h, int status, int events)
{
	struct t *t = h->data;
	char buf[512];
	ssize_t n;

	while (!t->done && (n = recv(t->fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = 0;
		on_msg(t, buf);
	}
}

static void on_deadline(uv_timer_t *h)
{
	struct t *t = h->data;

	FAIL("deadline: ready %d status %d pings %d stopping %d", t->got_ready,
		t->got_status, t->pings, t->got_stopping);
	finish(t);
}

/* Not under systemd: everything is a silent no-op, no watchdog. */
static void test_no_systemd(void)
{
	uv_loop_t loop;

	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	uv_loop_init(&loop);
	tt_notify_ready();
	tt_notify_status("x %d", 1);
	CHECK_EQ(tt_notify_watchdog_start(&loop), 0);
	CHECK_EQ(tt_notify_watchdog_interval_usec(), 0);
	tt_notify_watchdog_stop();
	CHECK_EQ(uv_run(&loop, UV_RUN_DEFAULT), 0);
	CHECK_EQ(uv_loop_close(&loop), 0);
}

int main(void)
{
	struct t t = { 0 };
	char dir[] = "/tmp/tt-notify-XXXXXX", path[108], num[32];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	test_no_systemd();

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/notify", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	t.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (t.fd < 0 || bind(t.fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("notify socket");
		return 1;
	}
	setenv("NOTIFY_SOCKET", path, 1);
	snprintf(num, sizeof(num), "%d", WATCHDOG_USEC);
	setenv("WATCHDOG_USEC", num, 1);
	snprintf(num, sizeof(num), "%d", (int)getpid());
	setenv("WATCHDOG_PID", num, 1);

	uv_loop_init(&t.loop);
	uv_poll_init(&t.loop, &t.poll, t.fd);
	t.poll.data = &t;
	uv_poll_start(&t.poll, UV_READABLE, on_readable);
	uv_timer_init(&t.loop, &t.deadline);
	t.deadline.data = &t;
	uv_timer_start(&t.deadline, on_deadline, 10000, 0);

	CHECK_EQ(tt_notify_watchdog_start(&t.loop), 1);
	CHECK_EQ(tt_notify_watchdog_start(&t.loop), -EALREADY);
	CHECK_EQ(tt_notify_watchdog_interval_usec(), WATCHDOG_USEC / 2);
	tt_notify_ready();
	tt_notify_status("serving %d targets, %d client", 2, 1);

	uv_run(&t.loop, UV_RUN_DEFAULT);
	CHECK_EQ(uv_loop_close(&t.loop), 0);
	CHECK_EQ(tt_notify_watchdog_interval_usec(), 0);

	CHECK_EQ(t.got_ready, 2);
	CHECK_EQ(t.got_status, 1);
	CHECK_EQ(t.got_reloading, 1);
	CHECK_EQ(t.got_stopping, 1);
	CHECK_EQ(t.pings, PINGS);
	/* ping 0 is sent at start; the timer's pings come every WATCHDOG_USEC/2 = 100 ms. The
	 * fastest interval must not be shorter than that (minus timer granularity), and the
	 * median must be far below the full 200 ms (a ping at the full interval is too late). */
	uint64_t iv[PINGS - 2];
	for (int i = 2; i < PINGS; i++)
		iv[i - 2] = t.ping_ms[i] - t.ping_ms[i - 1];
	for (int i = 0; i < PINGS - 2; i++)
		for (int j = i + 1; j < PINGS - 2; j++)
			if (iv[j] < iv[i]) {
				uint64_t x = iv[i];
				iv[i] = iv[j];
				iv[j] = x;
			}
	fprintf(stderr, "watchdog intervals (ms, sorted):");
	for (int i = 0; i < PINGS - 2; i++)
		fprintf(stderr, " %llu", (unsigned long long)iv[i]);
	fprintf(stderr, "\n");
	CHECK(iv[0] >= 95);
	CHECK(iv[(PINGS - 2) / 2] <= 160);

	close(t.fd);
	unlink(path);
	rmdir(dir);
	return tt_test_done();
}
