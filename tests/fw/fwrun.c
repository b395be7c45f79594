/* tests/fw/fwrun.c: RAM and pacing of the simulated-target workloads (fwrun.h). */
#include "fwrun.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

int fw_map_ram(const char *path, uint64_t base, size_t size, uint8_t **ram)
{
	struct stat st;
	void *p;
	int fd;

	if (!path) {
		/* RAM in this process at the target address itself, so tt-simtarget --pid reads
		 * it with target address == virtual address. Yama's ptrace_scope 1 only lets
		 * ancestors read us; the simulator is usually a sibling, so allow any tracer. */
		p = mmap((void *)(uintptr_t)base, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		if (p != (void *)(uintptr_t)base)
			return -EEXIST; /* kernels before 4.17 treat the flag as a hint */
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
		*ram = p;
		return 0;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (st.st_size < (off_t)size && ftruncate(fd, (off_t)size) < 0)) {
		int e = -errno;
		close(fd);
		return e;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	*ram = p;
	return 0;
}

uint64_t fw_ns_since(const struct timespec *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - a->tv_sec) * 1000000000u + (uint64_t)now.tv_nsec -
	       (uint64_t)a->tv_nsec;
}

void fw_pace_start(struct fw_pace *p)
{
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->next = p->start;
	p->in_burst = 0;
	if (!p->burst)
		p->burst = p->rate ? (p->rate + 1999) / 2000 : 1; /* at most ~2000 sleeps a second */
}

bool fw_pace(struct fw_pace *p, uint64_t events, volatile sig_atomic_t *stop)
{
	if (*stop || (p->count && events >= p->count) ||
	    (p->duration > 0 && fw_ns_since(&p->start) >= p->duration * 1e9))
		return true;
	if (!p->rate || ++p->in_burst < p->burst)
		return false;
	/* sleep until the next burst is due: absolute deadlines, so no drift accumulates */
	p->in_burst = 0;
	uint64_t ns = (uint64_t)p->next.tv_nsec + p->burst * 1000000000u / p->rate;
	p->next.tv_sec += (time_t)(ns / 1000000000u);
	p->next.tv_nsec = (long)(ns % 1000000000u);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &p->next, NULL) == EINTR && !*stop)
		;
	return false;
}
