/* tests/integration/test_process.c: the process: backend reading (and writing) a child's
 * memory below and above 4 GiB (a 64-bit target such as NuttX's default sim keeps its heap and
 * TCBs there), partial reads, a process that exits, and the EPERM message (as root: from a
 * child that dropped to "nobody"). */
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "ttest.h"

#define LOW_ADDR 0x30000000ul
#define LOW_SIZE 0x2000ul
#define HIGH_ADDR 0x7e5a00000000ull /* above 4 GiB */

static uv_loop_t loop;

struct req {
	int done, status;
	char err[256];
};

static void done_cb(struct tt_probe *p, int status, void *arg)
{
	struct req *r = arg;

	r->done = 1;
	r->status = status;
	snprintf(r->err, sizeof(r->err), "%s", tt_probe_error(p));
}

static int read1(struct tt_probe *p, uint64_t addr, uint32_t len, uint8_t *dst, struct req *r)
{
	struct tt_plan plan = { 1, { { .addr = addr, .len = len, .dst = dst } } };

	*r = (struct req){ 0 };
	REQUIRE_EQ(tt_probe_read(p, &plan, done_cb, r), 0);
	tt_test_wait(&loop, &r->done, 5000, "process read");
	return r->status;
}

static void closed_cb(struct tt_probe *p, void *arg)
{
	*(int *)arg = 1;
}

static void close_probe(struct tt_probe *p)
{
	int closed = 0;

	tt_probe_close(p, closed_cb, &closed);
	tt_test_wait(&loop, &closed, 5000, "close");
}

static struct tt_probe *open_pid(pid_t pid)
{
	struct tt_probe *p;
	char spec[64], err[256];

	snprintf(spec, sizeof(spec), "process:%d", (int)pid);
	REQUIRE_EQ(tt_probe_new(&loop, spec, NULL, &p, err, sizeof(err)), 0);
	return p;
}

/* A child whose low mapping holds its own pattern; it lives until the pipe closes. */
static pid_t start_child(int *wfd)
{
	int ready[2], hold[2];
	pid_t pid;
	char c;

	REQUIRE(pipe(ready) == 0 && pipe(hold) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		uint32_t *w = (uint32_t *)LOW_ADDR;
		for (unsigned i = 0; i < LOW_SIZE / 4; i++)
			w[i] = 0xC0DE0000u + i;
		((uint32_t *)(uintptr_t)HIGH_ADDR)[3] = 0x64B17AD5u;
		close(ready[0]);
		close(hold[1]);
		REQUIRE(write(ready[1], "r", 1) == 1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	REQUIRE(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	*wfd = hold[1];
	return pid;
}

static void test_read_write(void)
{
	uint8_t buf[LOW_SIZE];
	struct req r;
	int hold, st;
	pid_t pid = start_child(&hold);
	struct tt_probe *p = open_pid(pid);
	uint32_t w[4];

	REQUIRE_EQ(read1(p, LOW_ADDR + 16, 16, (uint8_t *)w, &r), 0);
	REQUIRE(w[0] == 0xC0DE0004u && w[3] == 0xC0DE0007u);
	REQUIRE_EQ(tt_probe_state(p), TT_PROBE_CONNECTED);
	REQUIRE_EQ(read1(p, LOW_ADDR, LOW_SIZE, buf, &r), 0);
	REQUIRE(((uint32_t *)buf)[LOW_SIZE / 4 - 1] == 0xC0DE0000u + LOW_SIZE / 4 - 1);
	/* partial: the mapping ends at LOW_ADDR + LOW_SIZE */
	REQUIRE_EQ(read1(p, LOW_ADDR + LOW_SIZE - 8, 16, buf, &r), -EFAULT);
	REQUIRE_SUBSTR(r.err, "address 0x30002000 (+8) is not mapped");
	/* above 4 GiB: read as any other address; an unmapped one says so */
	REQUIRE_EQ(read1(p, HIGH_ADDR + 12, 4, (uint8_t *)w, &r), 0);
	REQUIRE_EQ(w[0], 0x64B17AD5u);
	REQUIRE_EQ(read1(p, HIGH_ADDR + 4096 - 2, 4, buf, &r), -EFAULT);
	REQUIRE_SUBSTR(r.err, "address 0x7e5a00001000 (+2) is not mapped");
	REQUIRE_EQ(read1(p, 0xfffffffeull, 4, buf, &r), -EFAULT);
	/* write then read back */
	r = (struct req){ 0 };
	REQUIRE_EQ(tt_probe_write(p, LOW_ADDR + 4, (const uint8_t *)"\x11\x22\x33\x44", 4, done_cb,
				 &r), 0);
	tt_test_wait(&loop, &r.done, 5000, "write");
	REQUIRE_EQ(r.status, 0);
	REQUIRE_EQ(read1(p, LOW_ADDR + 4, 4, (uint8_t *)w, &r), 0);
	REQUIRE_EQ(w[0], 0x44332211u);
	/* the target exits: -ENOTCONN, disconnected */
	close(hold);
	REQUIRE(waitpid(pid, &st, 0) == pid);
	REQUIRE_EQ(read1(p, LOW_ADDR, 4, buf, &r), -ENOTCONN);
	REQUIRE_SUBSTR(r.err, "no such process");
	REQUIRE_EQ(tt_probe_state(p), TT_PROBE_DISCONNECTED);
	close_probe(p);

	char err[256];
	struct tt_probe *q;
	REQUIRE_EQ(tt_probe_new(&loop, "process:abc", NULL, &q, err, sizeof(err)), -EINVAL);
	REQUIRE_EQ(tt_probe_new(&loop, "process:999999999", NULL, &q, err, sizeof(err)), -ESRCH);
	REQUIRE_SUBSTR(err, "no such process");
}

/* Reads pid's memory without permission: -EPERM and a message with the fix. Run in a process
 * that may not ptrace pid. */
static int expect_eperm(pid_t pid)
{
	uint8_t b[4];
	struct req r;
	struct tt_probe *p;

	uv_loop_init(&loop);
	p = open_pid(pid);
	REQUIRE_EQ(read1(p, LOW_ADDR, 4, b, &r), -EPERM);
	REQUIRE_SUBSTR(r.err, "permission denied reading memory (ptrace)");
	REQUIRE_SUBSTR(r.err, "ptrace_scope");
	REQUIRE_SUBSTR(r.err, "CAP_SYS_PTRACE");
	close_probe(p);
	tt_test_loop_done(&loop);
	return 0;
}

static void test_eperm(void)
{
	pid_t self = getpid(), pid;
	int st;

	if (geteuid() != 0) {
		REQUIRE_EQ(expect_eperm(1), 0);
		return;
	}
	/* root may read anything: check from a child that dropped to nobody, reading us */
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		_exit(expect_eperm(self));
	}
	REQUIRE(waitpid(pid, &st, 0) == pid);
	REQUIRE(WIFEXITED(st));
	REQUIRE_EQ(WEXITSTATUS(st), 0);
}

int main(void)
{
	void *m = mmap((void *)LOW_ADDR, LOW_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	REQUIRE(m == (void *)LOW_ADDR);
	/* the page after the mapping must be unmapped for the partial-read check */
	REQUIRE(mmap((void *)(LOW_ADDR + LOW_SIZE), 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_FIXED_NOREPLACE, -1, 0) == (void *)(LOW_ADDR + LOW_SIZE));
	REQUIRE(munmap((void *)(LOW_ADDR + LOW_SIZE), 4096) == 0);
	REQUIRE(mmap((void *)(uintptr_t)HIGH_ADDR, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		   MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == (void *)(uintptr_t)HIGH_ADDR);
	REQUIRE_EQ(uv_loop_init(&loop), 0);
	test_read_write();
	tt_test_loop_done(&loop);
	test_eperm();
	printf("ok\n");
	return tt_test_done();
}
