/* tests/integration/chain.c: see chain.h. */
#include "chain.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ttest.h"

void tt_chain_init(struct tt_chain *c, uv_loop_t *loop, const char *simexe, const char *cfg)
{
	int fd;

	memset(c, 0, sizeof(*c));
	c->loop = loop;
	c->simexe = simexe;
	c->cfg = cfg;
	c->dir = tt_test_tmpdir();
	snprintf(c->ram_path, sizeof(c->ram_path), "%s/ram.bin", c->dir);
	snprintf(c->ctl_path, sizeof(c->ctl_path), "%s/ctl", c->dir);
	fd = open(c->ram_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, CHAIN_SIZE) == 0);
	c->ram = mmap(NULL, CHAIN_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(c->ram != MAP_FAILED);
	close(fd);
	for (uint32_t i = 0; i < CHAIN_SIZE / 4; i++)
		((uint32_t *)c->ram)[i] = 0xA5000000u + i;
}

static void child_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	static char buf[4096];

	*b = uv_buf_init(buf, sizeof(buf));
}

static void child_closed(uv_handle_t *h)
{
	struct tt_child *ch = h->data;

	ch->nopen--;
}

static void child_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct tt_child *ch = s->data;

	if (n < 0) {
		uv_close((uv_handle_t *)s, child_closed);
		return;
	}
	if (ch->loglen + (size_t)n >= sizeof(ch->log)) {
		size_t drop = ch->loglen + (size_t)n - sizeof(ch->log) + 1 + sizeof(ch->log) / 2;
		if (drop > ch->loglen)
			drop = ch->loglen;
		memmove(ch->log, ch->log + drop, ch->loglen - drop);
		ch->loglen -= drop;
	}
	if ((size_t)n >= sizeof(ch->log))
		n = sizeof(ch->log) - 1;
	memcpy(ch->log + ch->loglen, b->base, (size_t)n);
	ch->loglen += (size_t)n;
	ch->log[ch->loglen] = '\0';
}

static void child_exit(uv_process_t *p, int64_t status, int sig)
{
	struct tt_child *ch = p->data;

	ch->running = 0;
	ch->status = status;
	ch->sig = sig;
	uv_close((uv_handle_t *)p, child_closed);
}

static void child_spawn(uv_loop_t *loop, struct tt_child *ch, char **argv)
{
	uv_stdio_container_t io[3];
	uv_process_options_t po = { 0 };

	REQUIRE(ch->nopen == 0);
	ch->loglen = 0;
	ch->log[0] = '\0';
	uv_pipe_init(loop, &ch->out, 0);
	uv_pipe_init(loop, &ch->err, 0);
	ch->out.data = ch->err.data = ch->proc.data = ch;
	io[0].flags = UV_IGNORE;
	io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[1].data.stream = (uv_stream_t *)&ch->out;
	io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[2].data.stream = (uv_stream_t *)&ch->err;
	po.file = argv[0];
	po.args = argv;
	po.stdio = io;
	po.stdio_count = 3;
	po.exit_cb = child_exit;
	REQUIRE_EQ(uv_spawn(loop, &ch->proc, &po), 0);
	ch->running = 1;
	ch->nopen = 3;
	uv_read_start((uv_stream_t *)&ch->out, child_alloc, child_read);
	uv_read_start((uv_stream_t *)&ch->err, child_alloc, child_read);
}

struct log_wait {
	struct tt_child *ch;
	const char *key;
};

static int log_has(void *arg)
{
	struct log_wait *w = arg;

	return strstr(w->ch->log, w->key) != NULL || !w->ch->running;
}

/* Runs the loop until the child's output has key followed by a number; returns it. */
static int child_wait_int(struct tt_chain *c, struct tt_child *ch, const char *key, unsigned ms)
{
	struct log_wait w = { ch, key };
	const char *s;

	tt_test_wait_until(c->loop, log_has, &w, ms, key);
	s = strstr(ch->log, key);
	REQUIRE_MSG(s != NULL, "child exited before \"%s\"; its output:\n%s", key, ch->log);
	return atoi(s + strlen(key));
}

void tt_chain_start_sim(struct tt_chain *c)
{
	char base[32], size[32];
	char *argv[] = { (char *)c->simexe, "--port", "0", "--ctl", c->ctl_path, "--base", base,
			 "--size", size, "--ram", c->ram_path, NULL };

	snprintf(base, sizeof(base), "0x%x", CHAIN_BASE);
	snprintf(size, sizeof(size), "%u", CHAIN_SIZE);
	child_spawn(c->loop, &c->sim, argv);
	c->sim_port = child_wait_int(c, &c->sim, "listening port=", 10000);
}

const char *tt_chain_ctl(struct tt_chain *c, const char *cmd)
{
	static char reply[1024];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { 10, 0 };
	size_t len = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	REQUIRE(fd >= 0);
	REQUIRE(strlen(c->ctl_path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, c->ctl_path, strlen(c->ctl_path) + 1);
	REQUIRE(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0);
	REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	REQUIRE(write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) && write(fd, "\n", 1) == 1);
	while (len < sizeof(reply) - 1 && !memchr(reply, '\n', len)) {
		ssize_t n = read(fd, reply + len, sizeof(reply) - 1 - len);
		REQUIRE(n > 0);
		len += (size_t)n;
	}
	reply[len] = '\0';
	close(fd);
	REQUIRE_MSG(strncmp(reply, "ok", 2) == 0, "control command \"%s\": %s", cmd, reply);
	return reply;
}

void tt_chain_start_ocd(struct tt_chain *c, int port)
{
	char bb[64], tcl[64];
	char *argv[] = { "openocd", "-f", (char *)c->cfg, "-c", bb, "-c", tcl, "-c", "init", "-c",
			 (char *)c->ocd_after_init, NULL };

	if (!c->ocd_after_init)
		argv[7] = NULL;

	snprintf(bb, sizeof(bb), "remote_bitbang port %d", c->sim_port);
	snprintf(tcl, sizeof(tcl), "tcl_port %d", port);
	child_spawn(c->loop, &c->ocd, argv);
	c->tcl_port = child_wait_int(c, &c->ocd, "Listening on port ", 10000);
}

static int child_gone(void *arg)
{
	return ((struct tt_child *)arg)->nopen == 0;
}

void tt_chain_kill(struct tt_chain *c, struct tt_child *ch, int sig)
{
	if (ch->running)
		uv_process_kill(&ch->proc, sig);
	tt_test_wait_until(c->loop, child_gone, ch, 10000, "child exit");
}

static void chain_closed(struct tt_probe *p, void *arg)
{
	*(int *)arg = 1;
}

void tt_chain_stop(struct tt_chain *c)
{
	if (c->p) {
		int closed = 0;
		tt_probe_close(c->p, chain_closed, &closed);
		tt_test_wait(c->loop, &closed, 10000, "probe close");
		c->p = NULL;
	}
	tt_chain_kill(c, &c->ocd, SIGTERM);
	tt_chain_kill(c, &c->sim, SIGTERM);
	munmap(c->ram, CHAIN_SIZE);
	tt_test_rmdir(c->dir);
}

static void chain_state(struct tt_probe *p, enum tt_probe_state st, const char *msg, void *arg)
{
	struct tt_chain *c = arg;

	if (getenv("TT_VERBOSE"))
		fprintf(stderr, "state %s: %s\n", tt_probe_state_name(st), msg);
	if (!strncmp(msg, "target_", 7)) {	/* what the core did, not a link state */
		snprintf(c->last_notice, sizeof(c->last_notice), "%s", msg);
		return;
	}
	c->nstates++;
	c->last_state = st;
	snprintf(c->last_msg, sizeof(c->last_msg), "%s", msg);
}

void tt_chain_open(struct tt_chain *c, const char *spec, const struct tt_probe_options *opt)
{
	struct tt_probe_options o = opt ? *opt : (struct tt_probe_options){ 0 };
	char err[256];

	o.state_cb = chain_state;
	o.state_arg = c;
	REQUIRE_MSG(tt_probe_new(c->loop, spec, &o, &c->p, err, sizeof(err)) == 0,
		    "tt_probe_new(%s): %s", spec, err);
}

struct state_wait {
	struct tt_chain *c;
	enum tt_probe_state st;
	int seen;
};

static int state_reached(void *arg)
{
	struct state_wait *w = arg;

	return w->c->nstates > w->seen && w->c->last_state == w->st;
}

const char *tt_chain_wait_state(struct tt_chain *c, enum tt_probe_state st, unsigned ms)
{
	struct state_wait w = { c, st, c->nstates };

	if (tt_probe_state(c->p) == st && c->last_state == st)
		return c->last_msg;
	tt_test_wait_until(c->loop, state_reached, &w, ms, tt_probe_state_name(st));
	return c->last_msg;
}

struct chain_req {
	int done, status;
};

static void chain_done(struct tt_probe *p, int status, void *arg)
{
	struct chain_req *r = arg;

	r->done = 1;
	r->status = status;
}

int tt_chain_read(struct tt_chain *c, const struct tt_plan *plan, char *err, size_t errlen)
{
	struct chain_req r = { 0 };

	REQUIRE_EQ(tt_probe_read(c->p, plan, chain_done, &r), 0);
	tt_test_wait(c->loop, &r.done, 20000, "chain read");
	if (err)
		snprintf(err, errlen, "%s", tt_probe_error(c->p));
	return r.status;
}

int tt_chain_read1(struct tt_chain *c, uint64_t addr, uint32_t len, uint8_t *dst, char *err,
		   size_t errlen)
{
	struct tt_plan plan = { 1, { { .addr = addr, .len = len, .dst = dst } } };

	return tt_chain_read(c, &plan, err, errlen);
}

int tt_chain_write(struct tt_chain *c, uint64_t addr, const void *data, uint32_t len)
{
	struct chain_req r = { 0 };

	REQUIRE_EQ(tt_probe_write(c->p, addr, data, len, chain_done, &r), 0);
	tt_test_wait(c->loop, &r.done, 20000, "chain write");
	return r.status;
}

const char *const *tt_chain_ocd_args(struct tt_chain *c)
{
	static char bb[64];
	static const char *args[6];

	snprintf(bb, sizeof(bb), "remote_bitbang port %d", c->sim_port);
	args[0] = "-f";
	args[1] = c->cfg;
	args[2] = "-c";
	args[3] = bb;
	args[4] = NULL;
	return args;
}
