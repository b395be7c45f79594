/* tests/sim/simtarget.c: tt-simtarget, a simulated microcontroller that a real OpenOCD drives.
 *
 * Owns the process side of the simulator: the debugger link (loopback TCP or a unix socket;
 * one debugger at a time, the next one is accepted after a disconnect): OpenOCD's
 * remote_bitbang protocol to a JTAG-DP, or with --cmsis-dap the command packets of a CMSIS-DAP
 * probe to an SW-DP (from libtt-fakeusb.so inside OpenOCD, fakeusb.c), the RAM
 * backends (a shared memory file that workloads write concurrently, or a live process's memory
 * by pid) and the control socket that scripts fault hooks. The debug-port semantics live in
 * sim_dap.c. Single-threaded: a poll() loop. CLI and control commands: tests/sim/README.md.
 */
#include "sim_cmsis_dap.h"
#include "sim_dap.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CTL 4
#define IOBUF 65536

struct ram {
	uint8_t *mem;     /* file backend: the mapping; NULL for the pid backend */
	pid_t pid;
	uint32_t base, size;
};

struct ctl_client {
	int fd;
	size_t len;
	char buf[512];
};

/* The firmware side of the Cortex-M model: a QEMU guest through its QMP socket (stop, cont,
 * system_reset, query-status), or a host workload process stopped and continued with signals
 * (SIGSTOP halts it wherever it is, as a debug halt stops a core mid-store; SIGUSR1 is
 * tt-fw-threadx's reset). Neither: nothing to act on, the model alone. */
struct core {
	pid_t pid;
	int qmp;                  /* QMP connection, or -1 */
	size_t qlen;
	char qbuf[8192];
};

struct sim {
	struct tt_sim_dap dap;
	struct tt_sim_cmsis_dap cmsis;
	bool dap_link;            /* --cmsis-dap: the link carries DAP command packets */
	size_t inlen;             /* DAP link: bytes of an incomplete frame in in[] */
	struct tt_sim_cm cm;
	struct core core;
	struct ram ram;
	int lfd, conn, ctl_lfd;
	const char *unix_path, *ctl_path;
	uint64_t connections;
	struct ctl_client ctl[MAX_CTL];
	bool quit;
	uint8_t in[IOBUF], out[IOBUF];
};

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

static bool ram_contains(const struct ram *r, uint32_t addr, unsigned size)
{
	return addr >= r->base && (uint64_t)addr - r->base + size <= r->size;
}

/* Aligned atomic loads and stores: a workload writing the same file never tears a word. */
static int ram_read(void *ctx, uint32_t addr, unsigned size, uint32_t *val)
{
	struct ram *r = ctx;

	if (!ram_contains(r, addr, size))
		return -EFAULT;
	if (r->mem) {
		uint8_t *p = r->mem + (addr - r->base);

		switch (size) {
		case 1: *val = __atomic_load_n(p, __ATOMIC_RELAXED); break;
		case 2: *val = __atomic_load_n((uint16_t *)(void *)p, __ATOMIC_RELAXED); break;
		default: *val = __atomic_load_n((uint32_t *)(void *)p, __ATOMIC_RELAXED); break;
		}
		return 0;
	}
	uint32_t v = 0;
	struct iovec local = { &v, size }, remote = { (void *)(uintptr_t)addr, size };

	if (process_vm_readv(r->pid, &local, 1, &remote, 1, 0) != (ssize_t)size)
		return -EFAULT;
	*val = v;
	return 0;
}

static int ram_write(void *ctx, uint32_t addr, unsigned size, uint32_t val)
{
	struct ram *r = ctx;

	if (!ram_contains(r, addr, size))
		return -EFAULT;
	if (r->mem) {
		uint8_t *p = r->mem + (addr - r->base);

		switch (size) {
		case 1: __atomic_store_n(p, (uint8_t)val, __ATOMIC_RELAXED); break;
		case 2: __atomic_store_n((uint16_t *)(void *)p, (uint16_t)val, __ATOMIC_RELAXED); break;
		default: __atomic_store_n((uint32_t *)(void *)p, val, __ATOMIC_RELAXED); break;
		}
		return 0;
	}
	struct iovec local = { &val, size }, remote = { (void *)(uintptr_t)addr, size };

	return process_vm_writev(r->pid, &local, 1, &remote, 1, 0) == (ssize_t)size ? 0 : -EFAULT;
}

static int ram_read16(void *ctx, uint32_t addr, uint32_t *val)
{
	return ram_read(ctx, addr, 2, val);
}

static int write_all(int fd, const uint8_t *p, size_t n);
static int unix_addr(const char *path, struct sockaddr_un *sa);

static int core_signal(struct core *c, int sig)
{
	if (c->pid > 0 && kill(c->pid, sig) < 0) {
		fprintf(stderr, "tt-simtarget: signal %d to the firmware (pid %d): %s\n", sig,
			(int)c->pid, strerror(errno));
		return -errno;
	}
	return 0;
}

/* One QMP command: its reply line (events before it are skipped) in out. 0, -EIO for an
 * "error" reply, -ETIMEDOUT after 2 s, or -errno. */
static int qmp_cmd(struct core *c, const char *cmd, char *out, size_t outlen)
{
	if (cmd && (write_all(c->qmp, (const uint8_t *)cmd, strlen(cmd)) < 0 ||
		    write_all(c->qmp, (const uint8_t *)"\n", 1) < 0))
		return -errno;
	for (;;) {
		char *nl = memchr(c->qbuf, '\n', c->qlen);

		if (nl) {
			size_t n = (size_t)(nl - c->qbuf) + 1;
			bool reply = !cmd || memmem(c->qbuf, n, "\"return\"", 8) ||
				     memmem(c->qbuf, n, "\"error\"", 7);
			int e = memmem(c->qbuf, n, "\"error\"", 7) ? -EIO : 0;

			if (reply && out)
				snprintf(out, outlen, "%.*s", (int)n - 1, c->qbuf);
			c->qlen -= n;
			memmove(c->qbuf, nl + 1, c->qlen);
			if (reply)
				return e;
			continue;	/* an event ({"event": ...}) */
		}
		struct pollfd p = { .fd = c->qmp, .events = POLLIN };
		ssize_t r;

		if (c->qlen == sizeof(c->qbuf))
			c->qlen = 0;	/* a line longer than any reply we wait for */
		if (poll(&p, 1, 2000) <= 0)
			return -ETIMEDOUT;
		r = read(c->qmp, c->qbuf + c->qlen, sizeof(c->qbuf) - c->qlen);
		if (r <= 0)
			return r < 0 ? -errno : -EPIPE;
		c->qlen += (size_t)r;
	}
}

/* Waits up to 10 s for QEMU's socket, so the two can be started in either order. */
static int qmp_open(struct core *c, const char *path)
{
	struct sockaddr_un sa;
	int e = unix_addr(path, &sa);

	for (int tries = 0; e == 0; tries++) {
		c->qmp = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->qmp < 0)
			return -errno;
		if (connect(c->qmp, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		e = -errno;
		close(c->qmp);
		c->qmp = -1;
		if ((e != -ENOENT && e != -ECONNREFUSED) || tries == 200)
			return e;
		e = 0;
		usleep(50000);
	}
	if (e < 0)
		return e;
	if ((e = qmp_cmd(c, NULL, NULL, 0)) < 0)	/* the greeting */
		return e;
	return qmp_cmd(c, "{\"execute\":\"qmp_capabilities\"}", NULL, 0);
}

static int core_qmp(struct core *c, const char *what)
{
	char cmd[64], reply[256];
	int e;

	snprintf(cmd, sizeof(cmd), "{\"execute\":\"%s\"}", what);
	e = qmp_cmd(c, cmd, reply, sizeof(reply));
	if (e < 0)
		fprintf(stderr, "tt-simtarget: QMP %s: %s%s%s\n", what, strerror(-e),
			e == -EIO ? ": " : "", e == -EIO ? reply : "");
	return e;
}

static int core_halt(void *ctx)
{
	struct core *c = ctx;

	return c->qmp >= 0 ? core_qmp(c, "stop") : core_signal(c, SIGSTOP);
}

static int core_resume(void *ctx)
{
	struct core *c = ctx;

	return c->qmp >= 0 ? core_qmp(c, "cont") : core_signal(c, SIGCONT);
}

/* Stopped first, so a reset that halts runs no firmware code: QEMU resets a stopped guest and
 * leaves it stopped; a workload applies its reset (SIGUSR1) when continued, before anything
 * else. */
static int core_reset(void *ctx, bool halt)
{
	struct core *c = ctx;
	int e = core_halt(c);

	if (!e)
		e = c->qmp >= 0 ? core_qmp(c, "system_reset") : core_signal(c, SIGUSR1);
	if (!e && !halt)
		e = core_resume(c);
	return e;
}

/* QEMU's registers (HMP "info registers": R00=... R15=..., XPSR=...) for the halted core, so
 * OpenOCD and GDB see where the firmware really stopped. Writes stay the model's: QMP has no
 * way to set them. */
static void core_regs(void *ctx, uint32_t *regs)
{
	struct core *c = ctx;
	char reply[2048], key[8];
	const char *p;

	if (c->qmp < 0 || qmp_cmd(c, "{\"execute\":\"human-monitor-command\",\"arguments\":"
				   "{\"command-line\":\"info registers\"}}", reply, sizeof(reply)) < 0)
		return;
	for (unsigned i = 0; i < 16; i++) {
		snprintf(key, sizeof(key), "R%02u=", i);
		if ((p = strstr(reply, key)))
			regs[i] = (uint32_t)strtoul(p + 4, NULL, 16);
	}
	regs[17] = regs[13];	/* MSP: the stack in use in thread mode after reset */
	if ((p = strstr(reply, "XPSR=")))
		regs[16] = (uint32_t)strtoul(p + 5, NULL, 16);
}

/* QEMU's run state is the truth (someone may stop or continue the guest from its monitor). */
static int core_halted(void *ctx)
{
	struct core *c = ctx;
	char reply[512];

	if (c->qmp < 0 || qmp_cmd(c, "{\"execute\":\"query-status\"}", reply, sizeof(reply)) < 0)
		return -1;
	return strstr(reply, "\"running\": false") || strstr(reply, "\"running\":false") ? 1 : 0;
}

static int ram_open_file(struct ram *r, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT, 0644);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (st.st_size < (off_t)r->size && ftruncate(fd, r->size) < 0)) {
		int e = -errno;

		close(fd);
		return e;
	}
	r->mem = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return -errno;
	}
	return 0;
}

static int listen_tcp(uint16_t port, uint16_t *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*bound = ntohs(sa.sin_port);
	return fd;
}

static int unix_addr(const char *path, struct sockaddr_un *sa)
{
	*sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa;
	int fd, e = unix_addr(path, &sa);

	if (e < 0)
		return e;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);	/* a stale socket from a killed run */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void conn_close(struct sim *s)
{
	close(s->conn);
	s->conn = -1;
	tt_sim_dap_trst(&s->dap);
	s->cmsis.port = 0;
	s->inlen = 0;
	fprintf(stderr, "tt-simtarget: debugger disconnected\n");
}

/* Reads everything OpenOCD has sent and answers every 'R' in one buffered write once the socket
 * is drained: one round trip per OpenOCD batch instead of one per bit. */
static void conn_serve(struct sim *s)
{
	size_t olen = 0;

	while (olen < sizeof(s->out)) {
		ssize_t n = recv(s->conn, s->in, sizeof(s->in) - olen, olen ? MSG_DONTWAIT : 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(s);
			return;
		}
		for (ssize_t i = 0; i < n; i++) {
			uint8_t c = s->in[i];

			if (c >= '0' && c <= '7') {
				tt_sim_dap_pins(&s->dap, (c - '0') >> 2 & 1, (c - '0') >> 1 & 1,
						(c - '0') & 1);
			} else if (c == 'R') {
				s->out[olen++] = (uint8_t)('0' + tt_sim_dap_tdo(&s->dap));
			} else if (c >= 'r' && c <= 'u') {
				if ((c - 'r') & 2)	/* TRST asserted */
					tt_sim_dap_trst(&s->dap);
			} else if (c == 'Q') {
				write_all(s->conn, s->out, olen);
				conn_close(s);
				return;
			}	/* B/b blink, Z/z sleep and anything else: nothing to do */
		}
		if (olen == 0)
			break;	/* nothing owed: go back to poll() */
	}
	if (olen && write_all(s->conn, s->out, olen) < 0)
		conn_close(s);
}

static void dap_frame_bad(struct sim *s, size_t len, size_t cap)
{
	fprintf(stderr, "tt-simtarget: bad DAP link frame (command %zu bytes, packet size %zu; "
		"64..%d): closing the link\n", len, cap, TT_SIM_DAP_MAX_PACKET);
	conn_close(s);
}

/* --cmsis-dap: the link carries frames, not pins (tests/sim/README.md): a request is u16
 * command length, u16 packet size, the command packet; the answer u16 length (0: the command
 * has no response), the response packet. All complete frames of one recv are answered with one
 * write. */
static void conn_serve_dap(struct sim *s)
{
	ssize_t n = recv(s->conn, s->in + s->inlen, sizeof(s->in) - s->inlen, 0);
	size_t at = 0, olen = 0;

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		conn_close(s);
		return;
	}
	s->inlen += (size_t)n;
	while (s->inlen - at >= 4) {
		const uint8_t *f = s->in + at;
		size_t len = f[0] | (size_t)f[1] << 8, cap = f[2] | (size_t)f[3] << 8, r;

		if (cap < 64 || cap > TT_SIM_DAP_MAX_PACKET || len > cap) {
			dap_frame_bad(s, len, cap);
			return;
		}
		if (s->inlen - at - 4 < len)
			break;
		if (sizeof(s->out) - olen < cap + 2) {
			if (write_all(s->conn, s->out, olen) < 0) {
				conn_close(s);
				return;
			}
			olen = 0;
		}
		r = tt_sim_cmsis_dap_command(&s->cmsis, f + 4, len, s->out + olen + 2, cap);
		s->out[olen] = (uint8_t)r;
		s->out[olen + 1] = (uint8_t)(r >> 8);
		olen += 2 + r;
		at += 4 + len;
	}
	memmove(s->in, s->in + at, s->inlen - at);
	s->inlen -= at;
	if (olen && write_all(s->conn, s->out, olen) < 0)
		conn_close(s);
}

static void ctl_reply(struct ctl_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void ctl_reply(struct ctl_client *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	write_all(c->fd, (uint8_t *)line, (size_t)n);
}

static void ctl_command(struct sim *s, struct ctl_client *c, char *line)
{
	struct tt_sim_dap *d = &s->dap;
	char a[64] = "", b[64] = "", e[64] = "";
	int n = sscanf(line, "%63s %63s %63s", a, b, e);

	if (n <= 0) {
		ctl_reply(c, "err empty command");
	} else if (!strcmp(a, "ping")) {
		ctl_reply(c, "ok");
	} else if (!strcmp(a, "wait") && n >= 2) {
		tt_sim_dap_wait_storm(d, (uint32_t)strtoul(b, NULL, 0));
		ctl_reply(c, "ok");
	} else if (!strcmp(a, "busfault") && n == 2 && !strcmp(b, "off")) {
		d->bf_on = false;
		ctl_reply(c, "ok");
	} else if (!strcmp(a, "busfault") && n == 3) {
		d->bf_addr = (uint32_t)strtoul(b, NULL, 0);
		d->bf_len = (uint32_t)strtoul(e, NULL, 0);
		d->bf_on = true;
		ctl_reply(c, "ok");
	} else if (!strcmp(a, "power") && n == 2 &&
		   (!strcmp(b, "off") || !strcmp(b, "on") || !strcmp(b, "cycle"))) {
		tt_sim_dap_power(d, strcmp(b, "off") && strcmp(b, "cycle"));
		if (!strcmp(b, "cycle"))
			tt_sim_dap_power(d, true);
		ctl_reply(c, "ok");
	} else if (!strcmp(a, "stats")) {
		const struct tt_sim_stats *st = &d->stats;

		ctl_reply(c, "ok connected=%d connections=%" PRIu64 " ap_reads=%" PRIu64
			  " ap_writes=%" PRIu64 " bytes_read=%" PRIu64 " bytes_written=%" PRIu64
			  " waits=%" PRIu64 " waits_aborted=%" PRIu64 " bus_faults=%" PRIu64
			  " ignored=%" PRIu64 " wait_pending=%" PRIu32 " powered=%d ctrl_stat=0x%08"
			  PRIx32, s->conn >= 0, s->connections, st->ap_reads, st->ap_writes,
			  st->bytes_read, st->bytes_written, st->waits, st->waits_aborted,
			  st->bus_faults, st->ignored,
			  d->wait_accesses, d->powered, d->ctrl_stat);
	} else if (!strcmp(a, "dap") && s->dap_link) {
		const struct tt_sim_cmsis_dap *k = &s->cmsis;

		ctl_reply(c, "ok port=%u commands=%" PRIu64 " transfers=%" PRIu64 " usb_out=%" PRIu64
			  " usb_in=%" PRIu64 " clock_hz=%" PRIu32, k->port, k->commands,
			  k->transfers, k->bytes_out, k->bytes_in, k->clock_hz);
	} else if (!strcmp(a, "core") && n == 2 && d->cm) {
		s->core.pid = (pid_t)strtol(b, NULL, 0);
		ctl_reply(c, "ok");
	} else if (!strcmp(a, "cm") && d->cm) {
		const struct tt_sim_cm *cm = d->cm;

		ctl_reply(c, "ok halted=%d debugen=%d halts=%" PRIu64 " resumes=%" PRIu64
			  " steps=%" PRIu64 " resets=%" PRIu64 " pc=0x%08" PRIx32
			  " demcr=0x%08" PRIx32 " ppb_accesses=%" PRIu64, cm->halted,
			  (int)(cm->dhcsr & 1), cm->halts, cm->resumes, cm->steps, cm->resets,
			  cm->regs[15], cm->demcr, d->stats.ppb_accesses);
	} else if (!strcmp(a, "quit")) {
		ctl_reply(c, "ok");
		s->quit = true;
	} else {
		ctl_reply(c, "err unknown command '%s' (ping, wait N, busfault ADDR LEN, "
			  "busfault off, power off|on|cycle, stats, quit; with --cortex-m: core PID, "
			  "cm; with --cmsis-dap: dap)", line);
	}
}

static void ctl_serve(struct sim *s, struct ctl_client *c)
{
	ssize_t n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	char *nl;

	if (n <= 0 || (c->len += (size_t)n) == sizeof(c->buf) - 1) {
		close(c->fd);
		c->fd = -1;
		return;
	}
	c->buf[c->len] = '\0';
	while ((nl = strchr(c->buf, '\n'))) {
		*nl = '\0';
		ctl_command(s, c, c->buf);
		c->len -= (size_t)(nl + 1 - c->buf);
		memmove(c->buf, nl + 1, c->len + 1);
	}
}

static void serve(struct sim *s)
{
	while (!g_stop && !s->quit) {
		struct pollfd p[2 + MAX_CTL];
		nfds_t np = 0;

		/* one debugger at a time: the listener waits while a connection is open */
		p[np++] = (struct pollfd){ .fd = s->conn >= 0 ? s->conn : s->lfd, .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = s->ctl_lfd, .events = POLLIN };
		for (int i = 0; i < MAX_CTL; i++)
			p[np++] = (struct pollfd){ .fd = s->ctl[i].fd, .events = POLLIN };
		if (poll(p, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("tt-simtarget: poll");
			return;
		}
		if (p[0].revents && s->conn >= 0) {
			if (s->dap_link)
				conn_serve_dap(s);
			else
				conn_serve(s);
		} else if (p[0].revents) {
			int one = 1;

			s->conn = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
			if (s->conn >= 0) {
				setsockopt(s->conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				s->connections++;
				fprintf(stderr, "tt-simtarget: debugger connected\n");
			}
		}
		for (int i = 0; i < MAX_CTL; i++)
			if (p[2 + i].revents)
				ctl_serve(s, &s->ctl[i]);
		if (p[1].revents) {
			int fd = accept4(s->ctl_lfd, NULL, NULL, SOCK_CLOEXEC);

			for (int i = 0; fd >= 0 && i < MAX_CTL; i++)
				if (s->ctl[i].fd < 0) {
					s->ctl[i] = (struct ctl_client){ .fd = fd };
					fd = -1;
				}
			if (fd >= 0)
				close(fd);	/* too many control clients */
		}
	}
}

/* `--send`: one control command from a shell script; prints the reply, exit 0 on "ok". */
static int ctl_send(const char *path, const char *cmd)
{
	struct sockaddr_un sa;
	char reply[1024];
	size_t len = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || unix_addr(path, &sa) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "tt-simtarget: cannot reach control socket %s: %s\n", path,
			strerror(errno));
		return 2;
	}
	if (write_all(fd, (const uint8_t *)cmd, strlen(cmd)) < 0 ||
	    write_all(fd, (const uint8_t *)"\n", 1) < 0)
		return 2;
	while (len < sizeof(reply) - 1 && !memchr(reply, '\n', len)) {
		ssize_t n = read(fd, reply + len, sizeof(reply) - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
	}
	reply[len] = '\0';
	fputs(reply, stdout);
	close(fd);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tt-simtarget [--port N | --unix PATH] [--ctl PATH] --base ADDR --size N\n"
		"                    (--ram FILE | --pid PID) [--cortex-m] [--core-pid PID | --qmp PATH]\n"
		"                    [--cmsis-dap]\n"
		"       tt-simtarget --ctl PATH --send 'COMMAND'\n"
		"Serves OpenOCD's remote_bitbang protocol (JTAG), or with --cmsis-dap a CMSIS-DAP\n"
		"probe's commands over SWD for libtt-fakeusb.so, on 127.0.0.1 (port 0 = ephemeral)\n"
		"or a unix socket; prints 'listening port=N' (or 'listening unix=PATH') when ready.\n"
		"See tests/sim/README.md.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' }, { "unix", required_argument, NULL, 'u' },
		{ "ctl", required_argument, NULL, 'c' },  { "ram", required_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'P' },  { "base", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' }, { "send", required_argument, NULL, 'S' },
		{ "cortex-m", no_argument, NULL, 'M' },   { "core-pid", required_argument, NULL, 'C' },
		{ "qmp", required_argument, NULL, 'Q' },   { "cmsis-dap", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },       { 0 },
	};
	static struct sim s = { .lfd = -1, .conn = -1, .ctl_lfd = -1, .core.qmp = -1 };
	const char *ram_path = NULL, *send = NULL, *qmp_path = NULL;
	unsigned long port = 0;
	bool have_size = false, cortex_m = false;
	int o, e;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'p': port = strtoul(optarg, NULL, 0); break;
		case 'u': s.unix_path = optarg; break;
		case 'c': s.ctl_path = optarg; break;
		case 'r': ram_path = optarg; break;
		case 'P': s.ram.pid = (pid_t)strtol(optarg, NULL, 0); break;
		case 'b': s.ram.base = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': s.ram.size = (uint32_t)strtoul(optarg, NULL, 0); have_size = true; break;
		case 'S': send = optarg; break;
		case 'M': cortex_m = true; break;
		case 'C': s.core.pid = (pid_t)strtol(optarg, NULL, 0); cortex_m = true; break;
		case 'Q': qmp_path = optarg; cortex_m = true; break;
		case 'D': s.dap_link = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (send) {
		if (!s.ctl_path) {
			usage(stderr);
			return 2;
		}
		return ctl_send(s.ctl_path, send);
	}
	if (!have_size || !s.ram.size || (!ram_path == !s.ram.pid) || port > 65535 ||
	    (uint64_t)s.ram.base + s.ram.size > 0x100000000ull) {
		fprintf(stderr, "tt-simtarget: need exactly one of --ram FILE / --pid PID, and "
			"--base ADDR --size N inside the 32-bit address space\n");
		usage(stderr);
		return 2;
	}
	if (ram_path && (e = ram_open_file(&s.ram, ram_path)) < 0) {
		fprintf(stderr, "tt-simtarget: cannot map RAM file %s (%" PRIu32 " bytes): %s\n",
			ram_path, s.ram.size, strerror(-e));
		return 1;
	}
	tt_sim_dap_init(&s.dap, &(struct tt_sim_mem_ops){ ram_read, ram_write, &s.ram });
	if (s.dap_link)
		tt_sim_cmsis_dap_init(&s.cmsis, &s.dap);
	if (cortex_m) {
		/* after a reset: SP at the top of RAM, PC at a made-up address inside it */
		const struct tt_sim_core_ops core = { core_halt, core_resume, core_reset,
						      core_halted, core_regs, &s.core };

		if (qmp_path && (e = qmp_open(&s.core, qmp_path)) < 0) {
			fprintf(stderr, "tt-simtarget: QEMU's QMP socket %s: %s\n", qmp_path,
				strerror(-e));
			return 1;
		}

		if (tt_sim_cm_init(&s.cm, &core, s.ram.base + s.ram.size, s.ram.base + 0x100) < 0) {
			fprintf(stderr, "tt-simtarget: out of memory\n");
			return 1;
		}
		s.cm.read16 = ram_read16;
		s.cm.read16_ctx = &s.ram;
		s.dap.cm = &s.cm;
	}
	for (int i = 0; i < MAX_CTL; i++)
		s.ctl[i].fd = -1;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (s.ctl_path && (s.ctl_lfd = listen_unix(s.ctl_path)) < 0) {
		fprintf(stderr, "tt-simtarget: control socket %s: %s\n", s.ctl_path,
			strerror(-s.ctl_lfd));
		return 1;
	}
	if (s.unix_path) {
		s.lfd = listen_unix(s.unix_path);
	} else {
		uint16_t bound = 0;

		s.lfd = listen_tcp((uint16_t)port, &bound);
		port = bound;
	}
	if (s.lfd < 0) {
		fprintf(stderr, "tt-simtarget: cannot listen on %s: %s\n",
			s.unix_path ? s.unix_path : "127.0.0.1", strerror(-s.lfd));
		return 1;
	}
	if (s.ctl_path)
		printf("ctl unix=%s\n", s.ctl_path);
	if (s.unix_path)
		printf("listening unix=%s\n", s.unix_path);
	else
		printf("listening port=%lu\n", port);
	fflush(stdout);

	serve(&s);

	if (s.conn >= 0)
		close(s.conn);
	if (s.unix_path)
		unlink(s.unix_path);
	if (s.ctl_path)
		unlink(s.ctl_path);
	if (cortex_m && s.cm.halted)
		core_resume(&s.core);	/* never leave the firmware stopped behind us */
	tt_sim_cm_free(&s.cm);
	return 0;
}
