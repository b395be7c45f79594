/* tests/integration/test_replay_threadx.c: real ThreadX, replayed through the daemon.
 *
 * The threadx-cm3 fixture is 39 snapshots of a real ThreadX trace buffer (Cortex-M3 on QEMU)
 * and a final dump, with the guest's true event count at each. They are written one by one into
 * a file that `tracetapd --probe file:` follows (each by rename, as a whole); after each, the test
 * waits until the daemon has published that snapshot's newest entry (a condition on the stream,
 * with a deadline), then writes the next. The stream must then hold, in order, each event at most
 * once, every one with the raw words of its slot in a snapshot (nothing invented), and between
 * two consecutive events either nothing lost or a gap record whose count is the truth (exact
 * gaps) or within 25% of it (estimates). The fixture has six intervals where the writer lapped
 * the buffer (one or two whole laps): each must be one such gap, and no other interval a gap.
 *
 * With STRIDE k > 1 only every k-th snapshot (and the final dump) is written: the daemon sees
 * fewer, longer intervals, up to several laps each, and every one that overflowed the ring
 * must again be one gap record within 25% of the truth.
 *
 * usage: test-replay-threadx TRACETAPD SOURCE_ROOT [STRIDE]
 * Fixtures: $TT_FIXTURES, else SOURCE_ROOT/../shared/fixtures; exit 77 (skipped) without them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ttest.h"

extern char **environ;

#define REGION_BASE 0x21000000u
#define REGION_SIZE 33024u
#define ENT_START 0x210006d0u
#define NENT 977u
#define MAX_SNAPS 64
#define MAX_EVENTS 40000

struct snap {
	uint8_t mem[REGION_SIZE];
	uint64_t total;   /* events written since reset */
	uint32_t cur;     /* current index */
	int final;
};

static struct snap snaps[MAX_SNAPS];
static int nsnaps;

/* What the daemon published: events (global index, found in a snapshot) and gaps. */
struct rec {
	int gap;          /* 1: a gap record */
	uint64_t g;       /* event: global index (0 = the first event after tx_trace_enable) */
	uint64_t lost;    /* gap */
	int exact;
	char basis[64];
	uint64_t lower, upper; /* gap: the range stated (upper UINT64_MAX: none above) */
};

static struct rec recs[MAX_EVENTS];
static int nrecs;
static char linebuf[1 << 20];
static size_t linelen;
static int last_snap_written;

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void run(char *const argv[])
{
	pid_t pid;
	int st;
	REQUIRE(posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) == 0);
	REQUIRE(waitpid(pid, &st, 0) == pid);
	REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void load(const char *path, uint8_t *dst, size_t n)
{
	FILE *f = fopen(path, "rb");
	REQUIRE_MSG(f != NULL, "%s: %s", path, strerror(errno));
	REQUIRE(fread(dst, 1, n, f) == n);
	fclose(f);
}

/* snapshots.jsonl: one line per snapshot, the last one the final dump. */
static void load_snaps(const char *fx, const char *tmp)
{
	char path[1200], line[4096];
	snprintf(path, sizeof(path), "%s/snapshots.jsonl", fx);
	FILE *f = fopen(path, "r");
	REQUIRE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		cJSON *j = cJSON_Parse(line);
		REQUIRE(j != NULL && nsnaps < MAX_SNAPS);
		struct snap *s = &snaps[nsnaps++];
		const char *file = cJSON_GetObjectItem(j, "file")->valuestring;
		s->final = cJSON_IsTrue(cJSON_GetObjectItem(j, "final"));
		s->total = (uint64_t)cJSON_GetObjectItem(j, "events_total")->valuedouble;
		s->cur = (uint32_t)cJSON_GetObjectItem(j, "current_index")->valuedouble;
		snprintf(path, sizeof(path), "%s/%s", s->final ? fx : tmp, file);
		load(path, s->mem, REGION_SIZE);
		/* the fixture's own numbers agree with the buffer's current pointer */
		REQUIRE_EQ((ld32(s->mem + 0x100 + 32) - ENT_START) / 32, s->cur);
		cJSON_Delete(j);
	}
	fclose(f);
	REQUIRE(nsnaps == 40);
}

/* The global index of the event at slot s of snapshot k, or -1 when the slot is unused there. */
static int64_t global_of(const struct snap *k, uint32_t s)
{
	uint64_t back = (k->cur + NENT - s - 1) % NENT; /* 0 for the newest */
	if (back >= k->total)
		return -1;
	return (int64_t)(k->total - 1 - back);
}

/* The event whose raw words were published at address addr: the global index from the newest
 * written snapshot that holds exactly those words in that slot. */
static int64_t find_event(uint64_t addr, const uint32_t raw[8])
{
	REQUIRE(addr >= ENT_START && (addr - ENT_START) % 32 == 0);
	uint32_t s = (uint32_t)((addr - ENT_START) / 32);
	REQUIRE(s < NENT);
	for (int k = last_snap_written; k >= 0; k--) {
		const uint8_t *p = snaps[k].mem + (addr - REGION_BASE);
		int same = 1;
		for (int i = 0; i < 8; i++)
			same = same && ld32(p + 4 * i) == raw[i];
		if (same && global_of(&snaps[k], s) >= 0)
			return global_of(&snaps[k], s);
	}
	return -1;
}

static void on_line(const char *line)
{
	cJSON *j = cJSON_Parse(line);
	REQUIRE_MSG(j != NULL, "not JSON: %s", line);
	const char *type = cJSON_GetObjectItem(j, "type")->valuestring;
	REQUIRE(nrecs < MAX_EVENTS);
	struct rec *r = &recs[nrecs];
	if (!strcmp(type, "gap")) {
		cJSON *b = cJSON_GetObjectItem(j, "basis");
		r->gap = 1;
		r->lost = (uint64_t)cJSON_GetObjectItem(j, "lost")->valuedouble;
		r->exact = cJSON_IsTrue(cJSON_GetObjectItem(j, "exact"));
		snprintf(r->basis, sizeof(r->basis), "%s", b ? b->valuestring : "");
		cJSON *lo = cJSON_GetObjectItem(j, "lower"), *up = cJSON_GetObjectItem(j, "upper");
		r->lower = lo ? (uint64_t)lo->valuedouble : r->lost;
		r->upper = up ? (uint64_t)up->valuedouble : r->exact ? r->lost : UINT64_MAX;
		nrecs++;
	} else if (!strcmp(type, "event")) {
		uint32_t raw[8];
		cJSON *a = cJSON_GetObjectItem(j, "raw");
		REQUIRE(cJSON_GetArraySize(a) == 8);
		for (int i = 0; i < 8; i++)
			raw[i] = (uint32_t)cJSON_GetArrayItem(a, i)->valuedouble;
		uint64_t addr = strtoull(cJSON_GetObjectItem(j, "addr")->valuestring, NULL, 16);
		int64_t g = find_event(addr, raw);
		REQUIRE_MSG(g >= 0, "published an entry no snapshot holds: %s", line);
		r->g = (uint64_t)g;
		nrecs++;
	} else {
		REQUIRE_MSG(0, "unexpected record: %s", line);
	}
	cJSON_Delete(j);
}

/* Reads what the daemon wrote so far (waiting at most ms for something). */
static void pump(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, ms) <= 0)
		return;
	ssize_t k = read(fd, linebuf + linelen, sizeof(linebuf) - 1 - linelen);
	REQUIRE(k > 0); /* EOF: the daemon died */
	linelen += (size_t)k;
	char *start = linebuf, *nl;
	while ((nl = memchr(start, '\n', linelen - (size_t)(start - linebuf))) != NULL) {
		*nl = 0;
		on_line(start);
		start = nl + 1;
	}
	linelen -= (size_t)(start - linebuf);
	memmove(linebuf, start, linelen);
	REQUIRE(linelen < sizeof(linebuf) - 1);
}

static int published(uint64_t g)
{
	for (int i = nrecs - 1; i >= 0; i--)
		if (!recs[i].gap && recs[i].g == g)
			return 1;
	return 0;
}

static void write_snap(const char *dir, int k)
{
	char tmp[1200], dst[1200];
	snprintf(tmp, sizeof(tmp), "%s/ram.tmp", dir);
	snprintf(dst, sizeof(dst), "%s/ram.bin", dir);
	tt_test_write_file(tmp, snaps[k].mem, REGION_SIZE);
	REQUIRE(rename(tmp, dst) == 0);
	last_snap_written = k;
}

/* The stream against the truth: increasing global indices; between two events either
 * consecutive, or one gap record counting the loss (exact: equal; estimate: within 25%). */
static void check_stream(int expect_gaps)
{
	uint64_t prev = 0, lost = 0;
	int have = 0, gaps = 0, in_gap = 0, exact = 0;
	for (int i = 0; i < nrecs; i++) {
		const struct rec *r = &recs[i];
		if (r->gap) {
			REQUIRE(!in_gap);
			in_gap = 1;
			lost = r->lost;
			exact = r->exact;
			continue;
		}
		uint64_t expect = have ? prev + 1 : 0;
		if (!have)
			REQUIRE_EQ(r->g, 0); /* the history from the first RUNNING on */
		REQUIRE(r->g >= expect);  /* nothing duplicated or reordered */
		uint64_t truth = r->g - expect;
		if (in_gap) {
			gaps++;
			const struct rec *gr = &recs[i - 1];
			printf("gap before event %llu: reported %llu (%s%s%s), true %llu, range "
			       "[%llu, %s%llu]\n", (unsigned long long)r->g, (unsigned long long)lost,
			       exact ? "exact" : "estimate", exact ? "" : ", basis: ",
			       exact ? "" : gr->basis, (unsigned long long)truth,
			       (unsigned long long)gr->lower, gr->upper == UINT64_MAX ? ">" : "",
			       (unsigned long long)(gr->upper == UINT64_MAX ? gr->lower : gr->upper));
			REQUIRE(truth > 0);
			/* one gap record: its range holds the truth */
			REQUIRE(exact || (gr->lower <= truth && truth <= gr->upper));
			if (exact)
				REQUIRE_EQ(lost, truth);
			else
				REQUIRE(recs[i - 1].basis[0] && 4 * (lost > truth ? lost - truth
									       : truth - lost) <= truth);
		} else {
			REQUIRE_MSG(truth == 0, "events %llu..%llu lost with no gap record",
				    (unsigned long long)expect, (unsigned long long)r->g - 1);
		}
		prev = r->g;
		have = 1;
		in_gap = 0;
	}
	REQUIRE(!in_gap);
	REQUIRE_EQ(prev, snaps[nsnaps - 1].total - 1);
	REQUIRE_EQ(gaps, expect_gaps);
}

int main(int argc, char **argv)
{
	char fx[1024], arch[1200], spec[1200];
	REQUIRE(argc == 3 || argc == 4);
	int stride = argc == 4 ? atoi(argv[3]) : 1;
	REQUIRE(stride >= 1);
	setvbuf(stdout, NULL, _IOLBF, 0); /* what was checked shows before a failure's abort */
	const char *env = getenv("TT_FIXTURES");
	snprintf(fx, sizeof(fx), "%s/threadx-cm3", env && *env ? env : "");
	if (!env || !*env)
		snprintf(fx, sizeof(fx), "%s/../shared/fixtures/threadx-cm3", argv[2]);
	snprintf(arch, sizeof(arch), "%s/snapshots.tar.xz", fx);
	if (access(arch, R_OK) < 0)
		tt_test_skip("no ThreadX fixtures at %s (set TT_FIXTURES)", fx);
	char *dir = tt_test_tmpdir();
	char *tar[] = { "tar", "-xJf", arch, "-C", dir, NULL };
	run(tar);
	load_snaps(fx, dir);

	write_snap(dir, 0);
	snprintf(spec, sizeof(spec), "file:%s/ram.bin", dir);
	int pfd[2];
	REQUIRE(pipe(pfd) == 0);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	char *dargv[] = { argv[1], "--probe", spec, "--base", "0x21000000", "--pointer",
			  "0x21000000", "--tick-hz", "25M", "--poll-min", "1", "--poll-max", "5",
			  "--no-server", "--stdout", NULL };
	pid_t pid;
	REQUIRE(posix_spawn(&pid, argv[1], &fa, NULL, dargv, environ) == 0);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);

	int expect_gaps = 0;
	for (int k = 0; k < nsnaps; k++) {
		if (k > 0 && k % stride != 0 && k != nsnaps - 1)
			continue;
		/* more than N - 1 written since the last snapshot written: the ring overflowed */
		if (k > 0 && snaps[k].total - snaps[last_snap_written].total > NENT - 1)
			expect_gaps++;
		if (k > 0)
			write_snap(dir, k);
		/* the daemon has polled snapshot k once it published its newest entry */
		uint64_t newest = snaps[k].total - 1, end = now_ms() + 20000;
		while (!published(newest)) {
			if (now_ms() > end) {
				fprintf(stderr, "snapshot %d: event %llu not published in 20 s\n", k,
					(unsigned long long)newest);
				kill(pid, SIGKILL);
				abort();
			}
			pump(pfd[0], 100);
		}
	}
	kill(pid, SIGTERM);
	int st;
	REQUIRE(waitpid(pid, &st, 0) == pid);
	check_stream(expect_gaps);
	printf("ok: %d records; every published entry is its slot in a snapshot, in order, once\n",
	       nrecs);
	tt_test_rmdir(dir);
	return tt_test_done();
}
