/* tests/live/check_seq.c: proves that a JSONL record stream holds every sequence-numbered event
 * exactly once and in order, or inside a gap whose count matches the missing numbers.
 *
 * Reads records (proto/PROTOCOL.md) from a file or stdin. By default every event is numbered by
 * its unwrapped time stamp (`time`): the project's writers can run ThreadX's simulated time
 * source, a counter that advances by one per event, which makes the time stamp a sequence number
 * over all events (tests/live/live_writer.c, tt-fw-threadx --time counter). With --key user
 * only user events (id 4096) are checked, by the sequence number in their info 1; gap counts
 * then cover other events too, so only "no missing number without a gap" is checked. Between two numbered events, the numbers missing must equal the
 * sum of the exact gap counts reported in between (or be at least the sum when a gap is only a
 * lower bound); missing numbers with no gap, a repeat or a step backwards fail (a reset record
 * allows the numbering to go on from anywhere).
 *
 * With --key seq every event of tests/live/live_writer.c is numbered (info 1 of user events,
 * info 3 of its resume/suspend and thread delete/create events), whatever its time source: then each gap's range (`lower`,
 * `upper`) must hold the numbers missing, and its estimate must lie in the range; a gap before
 * the first event covers the numbers below it plus --before-first N events (the writer's own
 * before number 1). Each such gap is printed: reported, true, range; --within P fails when the
 * largest gap's reported count is more than P percent off its truth (a test's forced loss;
 * others, on a loaded host, only have to lie in their range).
 *
 * --ranges does the same for the time key (each gap's range must hold its truth; an exact count
 * must be the truth). Time keys for writers whose time stamps are not a +1 counter (the record
 * numbered n, from 1, is the one whose time stamp is the n-th of this sequence): --clock nxw
 * (tests/nuttx/nxwriter.c's irregular clock: from 1, steps of 1 + (r >> 16) % 5000 with
 * r = r * 1103515245 + 12345 from r = 12345, one per record); --jump N:J (repeatable) adds J
 * ticks before record N + 1 (a clock that ran while the writer was stopped, tt-fw-nuttx
 * --clock-runs); --fast N:M (repeatable): records N + 1 to N + M stepped by a thousandth of that
 * (1 + (r >> 16) % 5000 / 1000: a burst, tt-fw-nuttx --burst-after). A time not in the sequence
 * fails. --across-resets: a reset record does not let the numbering go on from anywhere (a
 * writer that numbers its records across a clear of its buffer, as tt-fw-nuttx does across
 * NOTERAM_CLEAR: every record before and after the reset is streamed or inside a gap).
 *
 * usage: check_seq [--key time|user|seq] [--ranges] [--clock nxw] [--jump N:J]... [--last N]
 *                  [--fast N:M]... [--lossless] [--min-events N] [--before-first N] [--within P]
 *                  [--across-resets] [FILE]
 * Prints one summary line; exits 1 with the first violation described.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int key_user, key_seq;
static unsigned long long jump_at[64], jump_by[64], fast_at[64], fast_n[64];
static unsigned njump, nfast;

/* The divisor of the step after record index i (0-based). */
static unsigned step_div(size_t i)
{
	for (unsigned k = 0; k < nfast; k++)
		if (i >= fast_at[k] && i - fast_at[k] < fast_n[k])
			return 1000;
	return 1;
}
static int clock_nxw;
/* The writer's time stamps, record by record (times[i]: record i + 1), as far as needed. */
static unsigned long long *times;
static size_t ntimes, captimes;
static unsigned clock_r = 12345;

static void times_add(void)
{
	unsigned long long t = ntimes ? times[ntimes - 1] : 1;

	if (ntimes) {
		if (clock_nxw) {
			clock_r = clock_r * 1103515245u + 12345u;
			t += 1 + (clock_r >> 16) % 5000 / step_div(ntimes - 1);
		} else {
			t++;
		}
	}
	for (unsigned i = 0; i < njump; i++)
		if (jump_at[i] == ntimes)
			t += jump_by[i];
	if (ntimes == captimes) {
		captimes = captimes ? 2 * captimes : 4096;
		times = realloc(times, captimes * sizeof(*times));
		if (!times) {
			perror("check_seq");
			exit(2);
		}
	}
	times[ntimes++] = t;
}

/* The number of the record with time stamp t, 0 when no record has it. */
static unsigned long long number_of(unsigned long long t)
{
	if (!clock_nxw && !njump && !nfast)
		return t;
	while (!ntimes || (times[ntimes - 1] < t && ntimes < (1u << 28)))
		times_add();
	size_t lo = 0, hi = ntimes;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (times[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ntimes && times[lo] == t ? lo + 1 : 0;
}

static int seq_of(const cJSON *rec, unsigned long long *seq)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(rec, "id");
	const cJSON *raw = cJSON_GetObjectItemCaseSensitive(rec, "raw");
	const cJSON *w;

	if (key_seq) {
		const cJSON *r0 = cJSON_GetArrayItem(raw, 4), *r2 = cJSON_GetArrayItem(raw, 6);
		if (!cJSON_IsNumber(id) || !cJSON_IsNumber(r0) || !cJSON_IsNumber(r2))
			return 0;
		if (id->valuedouble == 4096)
			*seq = (unsigned long long)r0->valuedouble;
		else if (id->valuedouble == 1 || id->valuedouble == 2 || id->valuedouble == 100 ||
			 id->valuedouble == 101)
			*seq = (unsigned long long)r2->valuedouble;
		else
			return 0;
		return 1;
	}
	if (!key_user) {
		w = cJSON_GetObjectItemCaseSensitive(rec, "time");
		if (!cJSON_IsNumber(w))
			return 0;
		*seq = number_of((unsigned long long)w->valuedouble);
		if (!*seq && (clock_nxw || njump || nfast)) {
			fprintf(stderr, "check_seq: time %.0f is no record's time on the writer's "
					"clock\n", w->valuedouble);
			exit(1);
		}
		return 1;
	}
	if (!cJSON_IsNumber(id) || !cJSON_IsArray(raw) || id->valuedouble != 4096)
		return 0;
	w = cJSON_GetArrayItem(raw, 4);
	if (!cJSON_IsNumber(w))
		return 0;
	*seq = (unsigned long long)w->valuedouble;
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long want_last = 0, min_events = 1, before_first = 0, within = 0;
	unsigned long long big_truth = 0, big_reported = 0, big_seq = 0; /* the largest gap */
	unsigned long long lo_sum = 0, up_sum = 0; /* the ranges of the gaps since the last event */
	int lossless = 0, ranges = 0, across_resets = 0;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--last") && i + 1 < argc)
			want_last = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--min-events") && i + 1 < argc)
			min_events = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
			key_user = !strcmp(argv[++i], "user");
			key_seq = !strcmp(argv[i], "seq");
		} else if (!strcmp(argv[i], "--within") && i + 1 < argc)
			within = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--before-first") && i + 1 < argc)
			before_first = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--lossless"))
			lossless = 1;
		else if (!strcmp(argv[i], "--ranges"))
			ranges = 1;
		else if (!strcmp(argv[i], "--across-resets"))
			across_resets = 1;
		else if (!strcmp(argv[i], "--fast") && i + 1 < argc && nfast < 64) {
			char *end;
			fast_at[nfast] = strtoull(argv[++i], &end, 0);
			fast_n[nfast++] = *end == ':' ? strtoull(end + 1, NULL, 0) : 0;
		} else if (!strcmp(argv[i], "--clock") && i + 1 < argc)
			clock_nxw = !strcmp(argv[++i], "nxw");
		else if (!strcmp(argv[i], "--jump") && i + 1 < argc && njump < 64) {
			char *end;
			jump_at[njump] = strtoull(argv[++i], &end, 0);
			jump_by[njump++] = *end == ':' ? strtoull(end + 1, NULL, 0) : 0;
		}
		else
			path = argv[i];
	}
	ranges = ranges || key_seq;
	FILE *f = path ? fopen(path, "r") : stdin;
	if (!f) {
		perror(path);
		return 2;
	}
	char *line = NULL;
	size_t cap = 0;
	unsigned long long lineno = 0, prev = 0, first = 0, numbered = 0, gaps = 0, lost_sum = 0;
	unsigned long long missing_total = 0, gap_lost_total = 0, resets = 0;
	int inexact = 0, have_prev = 0, fail = 0;

	while (getline(&line, &cap, f) > 0) {
		lineno++;
		cJSON *rec = cJSON_Parse(line);
		if (!rec) {
			fprintf(stderr, "check_seq: line %llu: not JSON: %.80s\n", lineno, line);
			fail = 1;
			break;
		}
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(rec, "type");
		const char *ty = cJSON_IsString(type) ? type->valuestring : "";
		unsigned long long s;
		if (!strcmp(ty, "gap")) {
			const cJSON *lost = cJSON_GetObjectItemCaseSensitive(rec, "lost");
			const cJSON *exact = cJSON_GetObjectItemCaseSensitive(rec, "exact");
			const cJSON *lo = cJSON_GetObjectItemCaseSensitive(rec, "lower");
			const cJSON *up = cJSON_GetObjectItemCaseSensitive(rec, "upper");
			unsigned long long n = cJSON_IsNumber(lost) ? (unsigned long long)lost->valuedouble : 0;
			gaps++;
			lost_sum += n;
			if (!cJSON_IsTrue(exact))
				inexact = 1;
			/* the range: exact is [n, n]; a bare lower bound [n, no limit] */
			unsigned long long l = cJSON_IsTrue(exact) || !cJSON_IsNumber(lo) ? n
					       : (unsigned long long)lo->valuedouble;
			unsigned long long u = cJSON_IsTrue(exact) ? n : cJSON_IsNumber(up) ?
					       (unsigned long long)up->valuedouble : ~0ull;
			if (ranges && (l > n || n > u)) {
				fprintf(stderr, "check_seq: line %llu: estimate %llu outside its range "
						"[%llu, %llu]\n", lineno, n, l, u);
				fail = 1;
			}
			lo_sum += l;
			up_sum = up_sum + u < up_sum || u == ~0ull ? ~0ull : up_sum + u;
		} else if (!strcmp(ty, "reset")) {
			resets++;
			if (across_resets) {
				cJSON_Delete(rec);
				continue;
			}
			have_prev = 0;
			lost_sum = 0;
			lo_sum = up_sum = 0;
			inexact = 0;
		} else if (!strcmp(ty, "event") && seq_of(rec, &s)) {
			numbered++;
			if (!first)
				first = s;
			if (ranges && (have_prev || lost_sum)) {
				/* the truth of the gaps before this event, against their range */
				unsigned long long truth = have_prev ? (s > prev ? s - prev - 1 : 0)
								     : s - 1 + before_first;
				if (lost_sum || truth)
					printf("gap before seq %llu: reported %llu, true %llu, range "
					       "[%llu, %llu]\n", s, lost_sum, truth, lo_sum, up_sum);
				if ((lost_sum || truth) && (truth < lo_sum || truth > up_sum)) {
					fprintf(stderr, "check_seq: line %llu: %llu missing before seq "
							"%llu, outside the range [%llu, %llu]\n", lineno,
						truth, s, lo_sum, up_sum);
					fail = 1;
				}
				if ((lost_sum || truth) && truth >= big_truth) {
					big_truth = truth;
					big_reported = lost_sum;
					big_seq = s;
				}
			}
			if (have_prev) {
				if (s <= prev) {
					fprintf(stderr, "check_seq: line %llu: seq %llu after %llu "
							"(duplicate or out of order)\n", lineno, s, prev);
					fail = 1;
				} else {
					unsigned long long missing = s - prev - 1;
					missing_total += missing;
					gap_lost_total += lost_sum;
					if (missing && !lost_sum && !inexact) {
						fprintf(stderr, "check_seq: line %llu: seq %llu..%llu "
								"missing with no gap reported\n",
							lineno, prev + 1, s - 1);
						fail = 1;
					} else if (!key_user && !key_seq && !inexact && missing != lost_sum) {
						fprintf(stderr, "check_seq: line %llu: %llu missing before "
								"seq %llu but exact gaps say %llu\n",
							lineno, missing, s, lost_sum);
						fail = 1;
					} else if (!key_user && !ranges && inexact && missing < lost_sum) {
						fprintf(stderr, "check_seq: line %llu: %llu missing before "
								"seq %llu but the lower bound says %llu\n",
							lineno, missing, s, lost_sum);
						fail = 1;
					}
				}
			}
			prev = s;
			have_prev = 1;
			lost_sum = 0;
			lo_sum = up_sum = 0;
			inexact = 0;
		}
		cJSON_Delete(rec);
		if (fail)
			break;
	}
	free(line);
	free(times);
	if (path)
		fclose(f);
	unsigned long long off = big_reported > big_truth ? big_reported - big_truth
							 : big_truth - big_reported;
	if (!fail && within && off * 100 > big_truth * within) {
		fprintf(stderr, "check_seq: the largest gap (before seq %llu): reported %llu, true "
				"%llu: more than %llu%% off\n", big_seq, big_reported, big_truth, within);
		fail = 1;
	}
	if (!fail && numbered < min_events) {
		fprintf(stderr, "check_seq: only %llu numbered events (want at least %llu)\n",
			numbered, min_events);
		fail = 1;
	}
	if (!fail && want_last && prev != want_last) {
		fprintf(stderr, "check_seq: last seq %llu, expected %llu\n", prev, want_last);
		fail = 1;
	}
	if (!fail && lossless && (gaps || missing_total)) {
		fprintf(stderr, "check_seq: %llu gaps, %llu missing: expected lossless\n", gaps,
			missing_total);
		fail = 1;
	}
	printf("check_seq: numbered=%llu first=%llu last=%llu gaps=%llu missing=%llu "
	       "gap_lost=%llu resets=%llu %s\n", numbered, first, prev, gaps, missing_total,
	       gap_lost_total, resets, fail ? "FAIL" : "ok");
	return fail;
}
