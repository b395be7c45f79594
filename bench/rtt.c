/* bench/rtt.c: tt-bench-rtt, the client of OpenOCD's RTT TCP server (`rtt server start PORT 0`)
 * in the RTT rows of bench/run.sh. The stream is tt-fw-threadx's --rtt records (32 bytes: u32
 * sequence number, u32 0, u64 ns since the workload's start, 16 bytes of zeros; see
 * tests/sim/fw_threadx.c): records are counted by their sequence numbers (a jump = records
 * lost: the writer found the up-buffer full and dropped them), and each record's latency is its
 * arrival (CLOCK_MONOTONIC, stamped as read) minus the workload's start plus its time stamp.
 *
 * usage: tt-bench-rtt PORT SECONDS SKIP_S MONO_START_NS
 *   reads for SECONDS; latency and losses count only records written after SKIP_S
 * Prints: rtt records=N secs=S rate=R missing=M p50_ms=.. p99_ms=.. last_seq=Q
 * Exit 1 when it cannot connect or the stream is not whole records in order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REC 32

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int dial(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "tt-bench-rtt: connect 127.0.0.1:%d: %s\n", port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

struct acc {
	uint64_t start_ns, skip_ns, expect, records, missing;
	uint64_t *lat;
	size_t nlat, cap;
};

/* One record: 0, or -1 when the stream is not records in order. */
static int take(struct acc *a, const uint8_t *r, uint64_t now)
{
	uint32_t seq;
	uint64_t ns;

	memcpy(&seq, r, 4);
	memcpy(&ns, r + 8, 8);
	if (seq < a->expect || (a->expect && seq == 0)) {
		fprintf(stderr, "tt-bench-rtt: record %" PRIu32 " after %" PRIu64 ": not in order\n",
			seq, a->expect - 1);
		return -1;
	}
	a->records++;
	if (ns >= a->skip_ns) {
		if (a->expect)
			a->missing += seq - a->expect;
		if (a->nlat == a->cap) {
			a->cap = a->cap ? a->cap * 2 : 4096;
			a->lat = realloc(a->lat, a->cap * sizeof(*a->lat));
			if (!a->lat)
				return -1;
		}
		a->lat[a->nlat++] = now - (a->start_ns + ns);
	}
	a->expect = (uint64_t)seq + 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct acc a = { 0 };
	uint8_t buf[65536];
	size_t have = 0;
	uint64_t t0, end;
	double secs;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: tt-bench-rtt PORT SECONDS SKIP_S MONO_START_NS\n");
		return 2;
	}
	secs = strtod(argv[2], NULL);
	a.skip_ns = (uint64_t)(strtod(argv[3], NULL) * 1e9);
	a.start_ns = strtoull(argv[4], NULL, 0);
	fd = dial(atoi(argv[1]));
	if (fd < 0)
		return 1;
	t0 = mono_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	for (uint64_t now = t0; now < end; now = mono_ns()) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, (int)((end - now) / 1000000u) + 1) <= 0)
			continue;
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n <= 0) {
			fprintf(stderr, "tt-bench-rtt: the RTT server closed the stream\n");
			return 1;
		}
		now = mono_ns();
		have += (size_t)n;
		size_t off = 0;
		for (; have - off >= REC; off += REC)
			if (take(&a, buf + off, now) < 0)
				return 1;
		memmove(buf, buf + off, have - off);
		have -= off;
	}
	close(fd);
	qsort(a.lat, a.nlat, sizeof(*a.lat), cmp_u64);
	printf("rtt records=%" PRIu64 " secs=%.2f rate=%.0f missing=%" PRIu64 " p50_ms=%.1f"
	       " p99_ms=%.1f last_seq=%" PRIu64 "\n", a.records, secs, a.records / secs, a.missing,
	       a.nlat ? a.lat[a.nlat / 2] / 1e6 : 0, a.nlat ? a.lat[a.nlat * 99 / 100] / 1e6 : 0,
	       a.expect ? a.expect - 1 : 0);
	free(a.lat);
	return 0;
}
