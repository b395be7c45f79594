/* bench/decode.c: tt-bench-decode, decode + JSON encode per trace format on one core.
 *
 * Every format's reader decodes a whole image (the same decode_image entry the daemon's file
 * paths and `tracetap decode` use) and every record is encoded with tt_json_record into one
 * reused buffer; the time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other load on
 * the machine does not count. Images come from the project's writers:
 *   threadx: a RAM file written by tt-fw-threadx (--time counter, the simulator workload's mix)
 *   nuttx:   a noteram ring filled by tests/nuttx/nxwriter (nxw_any: switches, syscalls, irqs)
 *   qnx:     a .kev built in memory by tests/qnx/kevw (kernel calls, interrupts, thread states)
 * usage: tt-bench-decode SECONDS THREADX_RAM BASE HEADER [NUTTX_RECORDS [QNX_EVENTS]]
 * Prints two lines per format:
 *   decode format=F records=N image_bytes=B passes=P cpu_s=S records_per_s=X json_mb_per_s=Y
 *   analysis format=F decode_per_s=X with_analysis_per_s=Y overhead_pct=Z analysis_ns=A
 *            daemon_path_pct=P memory_bytes=M memory_10min_bytes=M10
 * the second comparing decode alone (records counted) with decode + the live analysis
 * (analysis/analysis.h, the format's ops, default limits: 256 threads), the analysis's own ns
 * per record and that as a share of the daemon's path per record (decode + JSON), and its
 * memory, all of it allocated at creation (and with 10 minutes of CPU load history).
 * and exits 1 when an image does not decode (that is a broken benchmark, not a slow one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "json.h"
#include "kevw.h"
#include "nxwriter.h"
#include "reader.h"

struct sink {
	uint64_t records, bytes;
	char buf[TT_JSON_MAX_RECORD];
};

static void on_record(void *arg, const struct tt_record *rec)
{
	struct sink *s = arg;
	int n = tt_json_record(s->buf, sizeof(s->buf), rec, "bench", s->records + 1);

	if (n > 0)
		s->bytes += (uint64_t)n;
	s->records++;
}

static void count_record(void *arg, const struct tt_record *rec)
{
	(void)rec;
	(*(uint64_t *)arg)++;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Records per second of CPU decoding img for at least secs, each record to cb. */
static double rate(const struct tt_reader_ops *ops, const uint8_t *img, size_t len, uint64_t base,
		   const struct tt_reader_config *cfg, tt_emit_cb cb, void *arg,
		   const uint64_t *n, double secs)
{
	char err[256];
	uint64_t n0 = *n;
	double t0 = cpu_now(), dt;

	do {
		if (ops->decode_image(img, len, base, cfg, cb, arg, err, sizeof(err)) < 0)
			return -1;
		dt = cpu_now() - t0;
	} while (dt < secs);
	return (double)(*n - n0) / dt;
}

struct analysed {
	struct tt_analysis *an;
	uint64_t n;
};

static void count_analysed(void *arg, const struct tt_record *rec)
{
	struct analysed *x = arg;

	tt_analysis_record(x->an, rec);
	x->n++;
}

/* Decode alone against decode + analysis, alternated three times (the best of each: the
 * machine's other load only ever slows a run down). */
static int bench_analysis(const struct tt_reader_ops *ops, const uint8_t *img, size_t len,
			  uint64_t base, const struct tt_reader_config *cfg, double secs,
			  double json_rate)
{
	struct analysed x = { 0 };
	uint64_t n = 0;
	double best_d = 0, best_a = 0;

	if (tt_analysis_new(ops->analysis, NULL, &x.an) < 0)
		return -1;
	for (int k = 0; k < 3; k++) {
		double d = rate(ops, img, len, base, cfg, count_record, &n, &n, secs / 3);
		double a = rate(ops, img, len, base, cfg, count_analysed, &x, &x.n, secs / 3);
		best_d = d > best_d ? d : best_d;
		best_a = a > best_a ? a : best_a;
	}
	/* 256 threads and 10 minutes of CPU load history (6000 buckets of 100 ms) */
	struct tt_analysis *ten;
	size_t mem10 = tt_analysis_new(ops->analysis, &(struct tt_analysis_limits){
					       .max_threads = 256, .series_buckets = 6000 },
				       &ten) == 0 ? tt_analysis_memory(ten) : 0;
	tt_analysis_free(ten);
	/* the analysis's own time per record, and that against the daemon's path per record
	 * (decode + JSON, the decode line's rate) */
	double an_ns = best_a > 0 && best_d > 0 ? 1e9 / best_a - 1e9 / best_d : 0;
	printf("analysis format=%s decode_per_s=%.0f with_analysis_per_s=%.0f overhead_pct=%.1f "
	       "analysis_ns=%.1f daemon_path_pct=%.1f memory_bytes=%zu memory_10min_bytes=%zu\n",
	       ops->name, best_d, best_a, best_d > 0 ? 100.0 * (best_d - best_a) / best_d : 0.0,
	       an_ns, json_rate > 0 ? 100.0 * an_ns / (1e9 / json_rate) : 0.0,
	       tt_analysis_memory(x.an), mem10);
	tt_analysis_free(x.an);
	return best_a > 0 ? 0 : -1;
}

/* Decodes img again and again for at least secs of CPU time. */
static int bench(const char *format, const uint8_t *img, size_t len, uint64_t base,
		 uint64_t address, double secs)
{
	const struct tt_reader_ops *ops = tt_reader_find(format);
	struct tt_reader_config cfg = { .address = address };
	struct sink s = { 0 };
	char err[256];
	unsigned passes = 0;
	double t0, dt;

	if (!ops || !ops->decode_image) {
		fprintf(stderr, "tt-bench-decode: no image decoder for %s\n", format);
		return -1;
	}
	t0 = cpu_now();
	do {
		if (ops->decode_image(img, len, base, &cfg, on_record, &s, err, sizeof(err)) < 0) {
			fprintf(stderr, "tt-bench-decode: %s image: %s\n", format, err);
			return -1;
		}
		passes++;
		dt = cpu_now() - t0;
	} while (dt < secs);
	printf("decode format=%s records=%llu image_bytes=%zu passes=%u cpu_s=%.2f "
	       "records_per_s=%.0f json_mb_per_s=%.1f\n", format,
	       (unsigned long long)(s.records / passes), len, passes, dt, (double)s.records / dt,
	       (double)s.bytes / dt / 1e6);
	return s.records ? bench_analysis(ops, img, len, base, &cfg, secs, (double)s.records / dt)
			 : -1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(p = malloc((size_t)n)) || fread(p, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "tt-bench-decode: cannot read %s\n", path);
		free(p);
		p = NULL;
	}
	*len = p ? (size_t)n : 0;
	if (f)
		fclose(f);
	return p;
}

static int bench_threadx(const char *path, uint64_t base, uint64_t hdr, double secs)
{
	size_t len;
	uint8_t *img = read_file(path, &len);
	int rc = img ? bench("threadx", img, len, base, hdr, secs) : -1;

	free(img);
	return rc;
}

/* A ring large enough for n typical records (about 20 bytes each), filled without wrapping. */
static int bench_nuttx(unsigned n, double secs)
{
	uint32_t ring = n * 40u + 4096u;
	uint8_t rec[256];
	struct nxw w;
	int rc;

	nxw_init(&w, NULL, ring + 0x1000u, 0x20000000u, 0, 0x1000, ring);
	for (unsigned i = 0; i < n; i++)
		nxw_add(&w, rec, nxw_any(&w, rec, i));
	if (w.dropped)
		fprintf(stderr, "tt-bench-decode: nuttx ring dropped %llu records\n",
			(unsigned long long)w.dropped);
	rc = bench("nuttx", w.ram, w.ram_len, w.base, w.drv, secs);
	nxw_free(&w);
	return rc;
}

/* A kernel's day: thread running/ready, kernel call enter/exit, interrupt enter/exit. */
static int bench_qnx(unsigned n, double secs)
{
	struct kev_opts o = { .cps = 1000000000u, .cpus = 2, .os_major = 6, .syspage_len = 1024 };
	uint32_t ts = 0x1000, w[2] = { 1, 8200 };
	struct kevw k;
	int rc;

	kevw_init(&k, &o);
	kevw_combine_str(&k, 0, K_PRTH, 192, ts++, w, 2, "/usr/sbin/io-pkt");
	w[0] = 8200, w[1] = 3;
	kevw_combine_str(&k, 0, K_PRTH, 320, ts++, w, 2, "rx");
	for (unsigned i = 0; i < n; i++, ts += 37) {
		unsigned cpu = i & 1;
		switch (i % 6) {
		case 0: kevw_simple(&k, cpu, K_PRTH, 1, ts, 8200, 3); break;
		case 1: kevw_simple(&k, cpu, K_KER, 14, ts, 0x12, 0); break;
		case 2: kevw_simple(&k, cpu, K_INT, 1, ts, 11, 0x80001234u); break;
		case 3: kevw_simple(&k, cpu, K_INT, 2, ts, 11, 1); break;
		case 4: kevw_simple(&k, cpu, K_KER, 128 + 14, ts, 0, 0x40); break;
		default: kevw_simple(&k, cpu, K_PRTH, 2, ts, 8200, 1); break;
		}
	}
	rc = bench("qnx", k.buf, k.len, 0, 0, secs);
	kevw_free(&k);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: tt-bench-decode SECONDS THREADX_RAM BASE HEADER "
			"[NUTTX_RECORDS [QNX_EVENTS]]\n");
		return 2;
	}
	double secs = atof(argv[1]);
	unsigned nx = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 0) : 1000000;
	unsigned qx = argc > 6 ? (unsigned)strtoul(argv[6], NULL, 0) : 1000000;
	int rc = 0;

	rc |= bench_threadx(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0), secs);
	rc |= bench_nuttx(nx, secs);
	rc |= bench_qnx(qx, secs);
	return rc ? 1 : 0;
}
