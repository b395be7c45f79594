/* tests/e2e/latency.c: tt-e2e-latency, the delay from the workload writing an entry to tracetapd
 * printing it. Reads `tracetapd --stdout` records on stdin; tt-fw-threadx --time cycles stamps
 * each entry with ticks since its CLOCK_MONOTONIC start (its `mono_start_ns=` start-up field), so
 * an event written at time stamp T (unwrapped `time`) was written at start + T / tick_hz; the
 * record's arrival is CLOCK_MONOTONIC when its line is read here (same clock, same host).
 *
 * usage: tt-e2e-latency START_NS TICK_HZ SKIP_MS [ARRIVALS]    (reads until EOF)
 * Events written in the first SKIP_MS after the workload started (attach history) are skipped.
 * ARRIVALS: a file to write "seq time arrival_ns" into, one line per event counted (the
 * per-stage breakdown of bench/stages.py joins it with tracetapd's stage lines).
 * Prints: latency n=N p50_ms=X p90_ms=X p99_ms=X max_ms=X
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: tt-e2e-latency START_NS TICK_HZ SKIP_MS [ARRIVALS] < records.jsonl\n");
		return 2;
	}
	uint64_t start = strtoull(argv[1], NULL, 0);
	double hz = strtod(argv[2], NULL), skip_ms = strtod(argv[3], NULL);
	size_t n = 0, cap = 1 << 16;
	double *lat = malloc(cap * sizeof(*lat));
	char *line = NULL;
	size_t lcap = 0;
	FILE *arr = argc > 4 ? fopen(argv[4], "w") : NULL;

	if (!lat || hz <= 0 || (argc > 4 && !arr))
		return 2;
	while (getline(&line, &lcap, stdin) > 0) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!strstr(line, "\"type\":\"event\""))
			continue;
		const char *p = strstr(line, "\"time\":");
		if (!p)
			continue;
		uint64_t t = strtoull(p + 7, NULL, 10);
		/* `time` starts at the first raw value the reader saw: ticks since the workload's
		 * start as long as the run is shorter than the counter's wrap (43 s at 100 MHz) */
		double written_ms = (double)t / hz * 1e3;
		if (written_ms < skip_ms)
			continue;
		double now_ms = ((double)now.tv_sec * 1e9 + now.tv_nsec - (double)start) / 1e6;
		if (n == cap && !(lat = realloc(lat, (cap *= 2) * sizeof(*lat))))
			return 2;
		lat[n++] = now_ms - written_ms;
		if (arr) {
			const char *s = strstr(line, "\"seq\":");
			fprintf(arr, "%llu %llu %llu\n", s ? strtoull(s + 6, NULL, 10) : 0ull,
				(unsigned long long)t,
				(unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
		}
	}
	if (!n) {
		printf("latency n=0\n");
		if (arr)
			fclose(arr);
		return 1;
	}
	qsort(lat, n, sizeof(*lat), cmp);
	printf("latency n=%zu p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", n, lat[n / 2],
	       lat[n * 9 / 10], lat[n * 99 / 100], lat[n - 1]);
	free(line);
	free(lat);
	return arr && fclose(arr) != 0 ? 2 : 0;
}
