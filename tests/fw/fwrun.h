/* tests/fw/fwrun.h: what the simulated-target workloads (tt-fw-threadx, tt-fw-nuttx,
 * tt-fw-qnx) share: their RAM (the simulator's RAM file, or this process's own memory at the
 * target address) and their pacing (events per second in bursts, on absolute deadlines). */
#ifndef TT_FWRUN_H
#define TT_FWRUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Maps size bytes of RAM: the file at path (MAP_SHARED, created or extended to size), or with
 * path NULL anonymous memory at the target address base itself (MAP_FIXED_NOREPLACE), readable
 * by any ptracer (tt-simtarget --pid). 0 or -errno. */
int fw_map_ram(const char *path, uint64_t base, size_t size, uint8_t **ram);

/* Nanoseconds since a (CLOCK_MONOTONIC). */
uint64_t fw_ns_since(const struct timespec *a);

struct fw_pace {
	uint64_t rate;      /* events per second; 0 = as fast as possible */
	uint64_t count;     /* stop after this many events; 0 = no limit */
	double duration;    /* stop after this many seconds; 0 = no limit */
	uint64_t burst;     /* events between sleeps (default: ceil(rate / 2000)) */
	uint64_t in_burst;
	struct timespec start, next;
};

/* Starts the clock (rate, count, duration and burst set by the caller; burst 0 = default). */
void fw_pace_start(struct fw_pace *p);
/* After each event (events = how many so far): true when the run is over (count reached,
 * duration passed, *stop set); else sleeps when a burst is complete, until it is due. */
bool fw_pace(struct fw_pace *p, uint64_t events, volatile sig_atomic_t *stop);

#endif
