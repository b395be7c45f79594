/* tests/integration/test_fault.c: the openocd backends under faults, through the real chain
 * except for the garbage case (a tiny fake peer that is not OpenOCD).
 * Usage: test_fault CASE SIMTARGET OPENOCD_CFG
 *   kill-spawn  spawned OpenOCD killed: reads fail with -ENOTCONN, it is restarted
 *   kill-tcp    external OpenOCD killed: disconnected, reconnected once it is back
 *   busfault    a bus-fault window and RAM's end: precise -EFAULT, the next read works
 *   power       power cycle and power off/on: -EFAULT, then recovery
 *   wait        WAIT storm: correct data
 *   garbage     fake peers: garbage replies, endless junk, silence, bad words -> -EPROTO etc.
 *   nocfg       openocd-spawn with a config that does not exist: a clear error */
#include <errno.h>
#include <signal.h>

#include "chain.h"
#include "ttest.h"

static uv_loop_t loop;
static struct tt_chain chain;

static void start(struct tt_chain *c, int spawn, const char *simexe, const char *cfg)
{
	struct tt_probe_options opt = { 0 };
	char spec[64];

	tt_chain_init(c, &loop, simexe, cfg);
	tt_chain_start_sim(c);
	if (spawn) {
		opt.openocd_args = tt_chain_ocd_args(c);
		tt_chain_open(c, "openocd-spawn", &opt);
	} else {
		tt_chain_start_ocd(c, 0);
		snprintf(spec, sizeof(spec), "openocd:127.0.0.1:%d", c->tcl_port);
		tt_chain_open(c, spec, &opt);
	}
	tt_chain_wait_state(c, TT_PROBE_CONNECTED, 10000);
}

static void read_ok(struct tt_chain *c, uint32_t off, uint32_t len)
{
	uint8_t buf[4096];
	char err[256];
	int r = tt_chain_read1(c, CHAIN_BASE + off, len, buf, err, sizeof(err));

	if (r != 0)
		fprintf(stderr, "read 0x%x: %s\n", off, err);
	REQUIRE_EQ(r, 0);
	REQUIRE(memcmp(buf, c->ram + off, len) == 0);
}

static void case_kill(struct tt_chain *c, int spawn)
{
	uint8_t b[4];
	char err[256];
	const char *msg;
	int pid = 0, port = c->tcl_port;

	read_ok(c, 0, 64);
	if (spawn) {
		msg = strstr(c->last_msg, "(pid ");
		REQUIRE(msg != NULL);
		pid = atoi(msg + 5);
		REQUIRE(pid > 0 && kill(pid, SIGKILL) == 0);
	} else {
		tt_chain_kill(c, &c->ocd, SIGKILL);
	}
	msg = tt_chain_wait_state(c, TT_PROBE_DISCONNECTED, 10000);
	REQUIRE_SUBSTR(msg, spawn ? "killed by signal 9" : "connection lost");
	if (!spawn) {
		/* while it is away: fast -ENOTCONN with the reason, said once */
		REQUIRE_EQ(tt_chain_read1(c, CHAIN_BASE, 4, b, err, sizeof(err)), -ENOTCONN);
		REQUIRE_SUBSTR(err, "connection lost");
		REQUIRE(!strstr(strstr(err, "connection lost") + 1, "connection lost"));
		tt_chain_start_ocd(c, port); /* back on the same port */
	}
	msg = tt_chain_wait_state(c, TT_PROBE_CONNECTED, 15000);
	if (spawn)
		REQUIRE(strstr(msg, "(pid ") && atoi(strstr(msg, "(pid ") + 5) != pid);
	read_ok(c, 0x100, 256);
}

static void case_busfault(struct tt_chain *c)
{
	uint8_t b[64];
	char err[256];

	tt_chain_ctl(c, "busfault 0x20000100 4");
	REQUIRE_EQ(tt_chain_read1(c, CHAIN_BASE + 0xf0, 32, b, err, sizeof(err)), -EFAULT);
	REQUIRE_SUBSTR(err, "reading 0x200000f0 (+32 bytes, width 32) failed: ");
	read_ok(c, 0x104, 16);
	tt_chain_ctl(c, "busfault off");
	read_ok(c, 0xf0, 32);
	/* past the end of RAM; the first chunk of a plan works, the second faults */
	uint8_t a[8];
	struct tt_plan plan = { 2, { { .addr = CHAIN_BASE, .len = 8, .dst = a }, { .addr = CHAIN_BASE + CHAIN_SIZE, .len = 4, .dst = b } } };
	REQUIRE_EQ(tt_chain_read(c, &plan, err, sizeof(err)), -EFAULT);
	REQUIRE_SUBSTR(err, "reading 0x20010000 (+4 bytes, width 32) failed");
	read_ok(c, CHAIN_SIZE - 8, 8);
	REQUIRE_EQ(tt_probe_state(c->p), TT_PROBE_CONNECTED);
}

static void case_power(struct tt_chain *c)
{
	uint8_t b[4];
	char err[256];
	int r;

	tt_chain_ctl(c, "power cycle");
	REQUIRE_EQ(tt_chain_read1(c, CHAIN_BASE, 4, b, err, sizeof(err)), -EFAULT);
	REQUIRE_SUBSTR(err, "reading 0x20000000 (+4 bytes, width 32) failed");
	read_ok(c, 0, 4);
	tt_chain_ctl(c, "power off");
	for (int i = 0; i < 3; i++)
		REQUIRE_EQ(tt_chain_read1(c, CHAIN_BASE, 4, b, err, sizeof(err)), -EFAULT);
	tt_chain_ctl(c, "power on");
	r = tt_chain_read1(c, CHAIN_BASE, 4, b, err, sizeof(err));
	REQUIRE(r == 0 || r == -EFAULT); /* OpenOCD may need one failed read to notice */
	read_ok(c, 0, 4);
}

static void case_wait(struct tt_chain *c)
{
	const char *st;

	tt_chain_ctl(c, "wait 40");
	read_ok(c, 0x400, 256);
	tt_chain_ctl(c, "wait 10");
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + 0x3000, "\x01\x02\x03\x04\x05\x06\x07\x08", 8), 0);
	REQUIRE(memcmp(c->ram + 0x3000, "\x01\x02\x03\x04\x05\x06\x07\x08", 8) == 0);
	st = tt_chain_ctl(c, "stats");
	REQUIRE_SUBSTR(st, "wait_pending=0");
	REQUIRE(strstr(st, "waits=") && atoi(strstr(st, "waits=") + 6) >= 40);
}

/* --- a fake peer: answers each 0x1a-terminated command with the next scripted reply ------ */
struct fake {
	uv_tcp_t srv, conn;
	const char *const *script; /* NULL: say nothing more; "": hang up; "!x": say x, hang up */
	size_t next;
	int port, have_conn;
};

static void fake_write_cb(uv_write_t *w, int status)
{
	free(w);
}

static void fake_say(struct fake *f, const char *s, size_t n)
{
	uv_write_t *w = malloc(sizeof(*w));
	uv_buf_t b = uv_buf_init((char *)s, (unsigned)n);

	REQUIRE(w != NULL);
	REQUIRE_EQ(uv_write(w, (uv_stream_t *)&f->conn, &b, 1, fake_write_cb), 0);
}

static void fake_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	static char buf[65536];

	*b = uv_buf_init(buf, sizeof(buf));
}

static void fake_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct fake *f = s->data;

	if (n < 0) {
		uv_close((uv_handle_t *)s, NULL);
		f->have_conn = 0;
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		const char *r;
		if (b->base[i] != '\x1a' || f->script[f->next] == NULL)
			continue;
		r = f->script[f->next++];
		if (r[0] == '\0') {
			uv_close((uv_handle_t *)s, NULL);
			f->have_conn = 0;
			return;
		}
		if (r[0] == '!') { /* say the rest, then hang up */
			fake_say(f, r + 1, strlen(r + 1));
			uv_close((uv_handle_t *)s, NULL);
			f->have_conn = 0;
			return;
		}
		if (strcmp(r, "JUNK") == 0) {
			static char junk[256 * 1024];
			memset(junk, 'j', sizeof(junk));
			fake_say(f, junk, sizeof(junk));
		} else {
			fake_say(f, r, strlen(r));
		}
	}
}

static void fake_conn(uv_stream_t *srv, int status)
{
	struct fake *f = srv->data;

	REQUIRE_EQ(status, 0);
	REQUIRE(!f->have_conn); /* one at a time: the probe dropped the previous one first */
	uv_tcp_init(srv->loop, &f->conn);
	f->conn.data = f;
	REQUIRE_EQ(uv_accept(srv, (uv_stream_t *)&f->conn), 0);
	f->have_conn = 1;
	f->next = 0;
	uv_read_start((uv_stream_t *)&f->conn, fake_alloc, fake_read);
}

static void fake_start(struct fake *f, const char *const *script)
{
	struct sockaddr_in sa;
	struct sockaddr_storage ss;
	int len = sizeof(ss);

	memset(f, 0, sizeof(*f));
	f->script = script;
	uv_tcp_init(&loop, &f->srv);
	f->srv.data = f;
	uv_ip4_addr("127.0.0.1", 0, &sa);
	REQUIRE_EQ(uv_tcp_bind(&f->srv, (struct sockaddr *)&sa, 0), 0);
	REQUIRE_EQ(uv_listen((uv_stream_t *)&f->srv, 4, fake_conn), 0);
	REQUIRE_EQ(uv_tcp_getsockname(&f->srv, (struct sockaddr *)&ss, &len), 0);
	f->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void fake_stop(struct fake *f)
{
	if (f->have_conn)
		uv_close((uv_handle_t *)&f->conn, NULL);
	uv_close((uv_handle_t *)&f->srv, NULL);
}

/* Opens the probe on a fake peer; the first read fails with want and an error containing
 * what; the probe then reports DISCONNECTED. */
static void garbage_case(const char *const *script, int want, const char *what)
{
	struct tt_chain *c = &chain;
	struct tt_probe_options opt = { .timeout_ms = 300 };
	struct fake f;
	uint8_t b[8];
	char spec[64], err[256];

	fake_start(&f, script);
	c->loop = &loop;
	snprintf(spec, sizeof(spec), "openocd:127.0.0.1:%d", f.port);
	c->nstates = 0;
	tt_chain_open(c, spec, &opt);
	int r = tt_chain_read1(c, CHAIN_BASE, 8, b, err, sizeof(err));
	if (r != want || !strstr(err, what))
		fprintf(stderr, "fake peer: %d \"%s\", expected %d \"%s\"\n", r, err, want, what);
	REQUIRE_EQ(r, want);
	REQUIRE_SUBSTR(err, what);
	REQUIRE_EQ(tt_probe_state(c->p), TT_PROBE_DISCONNECTED);
	tt_chain_wait_state(c, TT_PROBE_DISCONNECTED, 5000);
	tt_probe_close(c->p, NULL, NULL);
	c->p = NULL;
	fake_stop(&f);
	tt_test_loop_done(&loop);
	REQUIRE_EQ(uv_loop_init(&loop), 0);
}

static void case_garbage(void)
{
	static const char *const http[] = { "HTTP/1.0 400 Bad Request\r\n\r\n\x1a", NULL };
	static const char *const closes[] = { "!SSH-2.0-OpenSSH_9.2\r\n", NULL };
	static const char *const junk[] = { "JUNK", NULL };
	static const char *const silent[] = { NULL };
	/* link-up: notifications, read_memory, `poll` (background polling on: reads go
	 * between poll off and poll on), the core's state; then the read */
	static const char *const badword[] = { "@1 0 \x1a", "@2 0 read_memory\x1a",
						 "@3 0 background polling: on\x1a",
						 "@4 0 running\x1a", "@5 0 0x1 0xzz\x1a", NULL };
	static const char *const fewwords[] = { "@1 0 \x1a", "@2 0 read_memory\x1a",
						  "@3 0 background polling: off\x1a",
						  "@4 0 running\x1a", "@5 0 0x1\x1a", NULL };
	static const char *const wrongtag[] = { "@1 0 \x1a", "@2 0 read_memory\x1a",
						  "@3 1 invalid command name \"poll\"\x1a",
						  "@4 0 running\x1a", "@7 0 0x1 0x2\x1a", NULL };
	static const char *const notify_then_bad[] = {
		"type target_event halted\x1a@1 0 \x1a", "@2 0 read_memory\x1a",
		"@3 0 background polling: on\x1a", "@4 0 running\x1a", "@5 0 \x01\x02\x1a", NULL };

	garbage_case(http, -EPROTO, "unexpected reply \"HTTP/1.0 400 Bad Request\\x0d\\x0a");
	garbage_case(closes, -EPROTO, "connection closed after \"SSH-2.0-OpenSSH_9.2");
	garbage_case(junk, -EPROTO, "bytes with no reply terminator: \"jjjjjjjj");
	garbage_case(silent, -ETIMEDOUT, "no reply within 300 ms while connecting");
	garbage_case(badword, -EPROTO, "word 1 is not hex: \"0xzz\"");
	garbage_case(fewwords, -EPROTO, "1 words where 2 were asked for");
	garbage_case(wrongtag, -EPROTO, "reply tagged @7 while waiting for @5");
	garbage_case(notify_then_bad, -EPROTO, "is not a 32-bit hex number: \"\\x01\\x02\"");
}

static void case_nocfg(const char *simexe, const char *cfg)
{
	static const char *const args[] = { "-f", "/nonexistent/board.cfg", NULL };
	struct tt_chain *c = &chain;
	struct tt_probe_options opt = { .openocd_args = args };
	uint8_t b[4];
	char err[256];

	tt_chain_init(c, &loop, simexe, cfg);
	tt_chain_open(c, "openocd-spawn", &opt);
	REQUIRE_EQ(tt_chain_read1(c, CHAIN_BASE, 4, b, err, sizeof(err)), -ENOTCONN);
	REQUIRE_SUBSTR(err, "openocd-spawn: OpenOCD exited with status 1");
	REQUIRE_SUBSTR(err, "/nonexistent/board.cfg");
	/* and a missing OpenOCD binary is an immediate error */
	struct tt_probe *p;
	opt.openocd_bin = "/nonexistent/openocd";
	REQUIRE_EQ(tt_probe_new(&loop, "openocd-spawn", &opt, &p, err, sizeof(err)), -ENOENT);
	REQUIRE_SUBSTR(err, "cannot run \"/nonexistent/openocd\"");
	REQUIRE_EQ(tt_probe_new(&loop, "openocd:localhost", &opt, &p, err, sizeof(err)), -EINVAL);
	REQUIRE_SUBSTR(err, "is not HOST:PORT");
}

int main(int argc, char **argv)
{
	const char *cs = argv[1];

	REQUIRE(argc == 4);
	REQUIRE_EQ(uv_loop_init(&loop), 0);
	signal(SIGPIPE, SIG_IGN); /* as any program that writes to pipes/sockets with libuv */
	if (strcmp(cs, "garbage") == 0) {
		case_garbage();
	} else if (strcmp(cs, "nocfg") == 0) {
		case_nocfg(argv[2], argv[3]);
		tt_chain_stop(&chain);
	} else {
		int spawn = strcmp(cs, "kill-spawn") == 0;
		start(&chain, spawn, argv[2], argv[3]);
		if (strncmp(cs, "kill-", 5) == 0)
			case_kill(&chain, spawn);
		else if (strcmp(cs, "busfault") == 0)
			case_busfault(&chain);
		else if (strcmp(cs, "power") == 0)
			case_power(&chain);
		else if (strcmp(cs, "wait") == 0)
			case_wait(&chain);
		else
			REQUIRE(!"unknown case");
		tt_chain_stop(&chain);
	}
	tt_test_loop_done(&loop);
	printf("ok\n");
	return tt_test_done();
}
