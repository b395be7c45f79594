/* probe/process.c: the process:PID backend.
 *
 * Reads a live Linux process's memory with process_vm_readv (the ThreadX Linux port and NuttX's
 * sim build run RTOS kernels as processes). The call copies memory without blocking on I/O, so it
 * runs inline; probe.c defers the callback. Addresses are the process's own, 64-bit on a 64-bit
 * host (NuttX's 64-bit sim keeps its heap and TCBs above 4 GiB); a range that does not fit the
 * host's address space is refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "probe_int.h"

struct process_probe {
	struct tt_probe base;
	pid_t pid;
};

/* Turns a failed or short transfer of [addr, addr+len) into a status and a message. */
static int process_fail(struct process_probe *pp, int e, uint64_t addr, uint32_t len,
			const char *verb)
{
	struct tt_probe *p = &pp->base;

	switch (e) {
	case EPERM:
		tt_probe__seterr(p, "process %d: permission denied %s memory (ptrace): run "
				 "tracetapd as the same user with /proc/sys/kernel/yama/ptrace_scope"
				 " = 0, or as root, or with CAP_SYS_PTRACE", (int)pp->pid, verb);
		return -EPERM;
	case ESRCH:
		tt_probe__seterr(p, "process %d: no such process (it exited; restart the target "
				 "and tracetapd with its new PID)", (int)pp->pid);
		if (p->state != TT_PROBE_DISCONNECTED)
			tt_probe__set_state(p, TT_PROBE_DISCONNECTED, p->err);
		return -ENOTCONN;
	case EFAULT:
		tt_probe__seterr(p, "process %d: address 0x%" PRIx64 " (+%" PRIu32 ") is not "
				 "mapped%s", (int)pp->pid, addr, len,
				 e == EFAULT && *verb == 'w' ? " writable" : "");
		return -EFAULT;
	default:
		tt_probe__seterr(p, "process %d: %s memory at 0x%" PRIx64 ": %s", (int)pp->pid,
				 verb, addr, strerror(e));
		return -e;
	}
}

/* One transfer; a short count means the rest is unmapped. */
static int process_xfer(struct process_probe *pp, uint64_t addr, uint8_t *buf, uint32_t len,
			int write)
{
	const char *verb = write ? "writing" : "reading";
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (addr > UINTPTR_MAX || len - 1 > UINTPTR_MAX - addr) {
		tt_probe__seterr(&pp->base, "process %d: address 0x%" PRIx64 " (+%" PRIu32 ") does "
				 "not fit this host's %zu-bit address space", (int)pp->pid, addr, len,
				 sizeof(uintptr_t) * 8);
		return -EFAULT;
	}
	n = write ? process_vm_writev(pp->pid, &local, 1, &remote, 1, 0)
		  : process_vm_readv(pp->pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return process_fail(pp, errno, addr, len, verb);
	if ((size_t)n < len)
		return process_fail(pp, EFAULT, addr + (uint64_t)n, len - (uint32_t)n, verb);
	return 0;
}

static int process_read(struct tt_probe *p)
{
	struct process_probe *pp = (struct process_probe *)p;
	int r = 0;

	for (unsigned i = 0; i < p->plan.n && r == 0; i++)
		r = process_xfer(pp, p->plan.r[i].addr, p->plan.r[i].dst, p->plan.r[i].len, 0);
	if (r == 0 && p->state != TT_PROBE_CONNECTED)
		tt_probe__set_state(p, TT_PROBE_CONNECTED, "process memory readable");
	tt_probe__read_done(p, r);
	return 0;
}

static int process_write(struct tt_probe *p, uint64_t addr, const uint8_t *data, uint32_t len)
{
	struct process_probe *pp = (struct process_probe *)p;

	/* process_vm_writev does not write through local; the cast only fits the iovec type. */
	tt_probe__write_done(p, process_xfer(pp, addr, (uint8_t *)(uintptr_t)data, len, 1));
	return 0;
}

static int process_open(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt)
{
	struct process_probe *pp = (struct process_probe *)p;
	char *end;
	long pid;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (arg[0] == '\0' || *end != '\0' || errno || pid <= 0 || pid > INT32_MAX) {
		tt_probe__seterr(p, "process: \"%s\" is not a process id (use process:PID)", arg);
		return -EINVAL;
	}
	pp->pid = (pid_t)pid;
	if (kill(pp->pid, 0) < 0 && errno == ESRCH) {
		tt_probe__seterr(p, "process %ld: no such process", pid);
		return -ESRCH;
	}
	/* Connected once a read works: permission is only known then. */
	return 0;
}

static void process_close(struct tt_probe *p)
{
	tt_probe__close_done(p);
}

const struct tt_probe_ops tt_probe_process_ops = {
	.name = "process",
	.size = sizeof(struct process_probe),
	.open = process_open,
	.read = process_read,
	.write = process_write,
	.close = process_close,
};
