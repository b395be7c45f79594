/* tests/live/holdread.c: tt-holdread, holds a reader of a live process at a chosen read.
 *
 * tracetapd's process: probe reads target memory with process_vm_readv, one call per range of
 * a plan, on its main thread. A test that must make the target act between two of those reads
 * (a writer that laps its ring after the reader read the head and before it reads the data)
 * cannot get there by timing; this follows the reader's system calls (ptrace, the main thread
 * only) and stops it at the entry of a chosen read until the test lets it go, so the order is
 * forced. The reader itself is not changed: it only waits, as under a debugger.
 *
 * usage: tt-holdread --pid PID --arm ADDR:LEN --hold ADDR:LEN [--holds N] [--first]
 *                    [--timeout S]
 *   A read whose remote range starts in the --arm range (the control words) arms it; the reads
 *   after it that start in the --hold range (the ring), with no read elsewhere between, are
 *   held at their entry (with --first only the first of them: one read a cycle's plan), N in
 *   all (default 1): `held n=K addr=0x... len=L` on stdout, then the reader waits until
 *   SIGUSR1 comes here. After the N-th hold the reader is let go and left (`released`), and
 *   tt-holdread exits 0. Exits 1 when the reader exits, on a ptrace error, or after --timeout
 *   seconds (default 30) without the N holds; the kernel lets the reader go whenever
 *   tt-holdread exits.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

struct span {
	uint64_t addr, len;
};

static pid_t g_pid;

static bool in_span(const struct span *s, uint64_t a)
{
	return a >= s->addr && a - s->addr < s->len;
}

static int parse_span(const char *arg, struct span *s)
{
	char *end;

	s->addr = strtoull(arg, &end, 0);
	if (*end != ':')
		return -1;
	s->len = strtoull(end + 1, &end, 0);
	return *end || !s->len ? -1 : 0;
}

static void die(const char *what)
{
	fprintf(stderr, "tt-holdread: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The remote iovec's first element of the process_vm_readv the tracee entered. */
static int remote_range(const struct __ptrace_syscall_info *si, uint64_t *addr, uint64_t *len)
{
	long w[2];

	errno = 0;
	w[0] = ptrace(PTRACE_PEEKDATA, g_pid, (void *)(uintptr_t)si->entry.args[3], NULL);
	w[1] = ptrace(PTRACE_PEEKDATA, g_pid, (void *)(uintptr_t)(si->entry.args[3] + sizeof(long)), NULL);
	if (errno)
		return -1;
	*addr = (uint64_t)w[0];
	*len = (uint64_t)w[1];
	return 0;
}

/* Waits for SIGUSR1 (blocked, so it is never lost) while the tracee sits in its stop. */
static void wait_release(const sigset_t *set)
{
	int sig;

	if (sigwait(set, &sig) != 0)
		die("sigwait");
}

/* Next stop of the tracee; exits when it is gone. Returns the waitpid status. */
static int next_stop(void)
{
	int st;

	for (;;) {
		if (waitpid(g_pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid");
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			fprintf(stderr, "tt-holdread: the reader (pid %d) exited before the holds\n",
				(int)g_pid);
			exit(1);
		}
		return st;
	}
}

int main(int argc, char **argv)
{
	struct span arm = { 0 }, hold = { 0 };
	unsigned holds = 1, timeout = 30, held = 0;
	bool armed = false, first = false;
	sigset_t set;

	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },   { "arm", required_argument, NULL, 'a' },
		{ "hold", required_argument, NULL, 'h' },  { "holds", required_argument, NULL, 'n' },
		{ "first", no_argument, NULL, 'f' },       { "timeout", required_argument, NULL, 't' },
		{ 0 },
	};
	int o;
	bool bad = false;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p': g_pid = (pid_t)strtol(optarg, NULL, 10); break;
		case 'a': bad |= parse_span(optarg, &arm) < 0; break;
		case 'h': bad |= parse_span(optarg, &hold) < 0; break;
		case 'n': holds = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'f': first = true; break;
		case 't': timeout = (unsigned)strtoul(optarg, NULL, 0); break;
		default: bad = true; break;
		}
	}
	if (bad || optind != argc || g_pid <= 0 || !arm.len || !hold.len || !holds) {
		fprintf(stderr, "usage: tt-holdread --pid PID --arm ADDR:LEN --hold ADDR:LEN "
				"[--holds N] [--first] [--timeout S]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(timeout); /* SIGALRM's default action ends this process: the reader goes on */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ptrace(PTRACE_SEIZE, g_pid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD) < 0)
		die("PTRACE_SEIZE");
	if (ptrace(PTRACE_INTERRUPT, g_pid, NULL, NULL) < 0)
		die("PTRACE_INTERRUPT");
	int st0 = next_stop(), sig = WSTOPSIG(st0) != SIGTRAP && st0 >> 16 == 0 ? WSTOPSIG(st0) : 0;
	printf("attached pid=%d\n", (int)g_pid);
	for (;;) {
		int st;

		if (ptrace(PTRACE_SYSCALL, g_pid, NULL, (void *)(long)sig) < 0)
			die("PTRACE_SYSCALL");
		sig = 0;
		st = next_stop();
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			/* a signal for the reader is passed on; a group stop or the interrupt's
			 * event stop (status >> 16 set) is not a signal to deliver */
			if (st >> 16 == 0)
				sig = WSTOPSIG(st);
			continue;
		}
		struct __ptrace_syscall_info si;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, g_pid, (void *)sizeof(si), &si) < 0)
			die("PTRACE_GET_SYSCALL_INFO");
		if (si.op != PTRACE_SYSCALL_INFO_ENTRY || si.entry.nr != SYS_process_vm_readv)
			continue;
		uint64_t addr, len;
		if (remote_range(&si, &addr, &len) < 0)
			die("reading the reader's iovec");
		if (in_span(&arm, addr)) {
			armed = true;
		} else if (armed && in_span(&hold, addr)) {
			printf("held n=%u addr=0x%" PRIx64 " len=%" PRIu64 "\n", held + 1, addr, len);
			wait_release(&set);
			if (++held == holds)
				break;
			armed = !first;
		} else {
			armed = false;
		}
	}
	if (ptrace(PTRACE_DETACH, g_pid, NULL, NULL) < 0)
		die("PTRACE_DETACH");
	printf("released\n");
	return 0;
}
