/* tests/fuzz/fuzz_reader.c: one trace format's reader (FZ_FORMAT: "threadx", "nuttx", "qnx")
 * through proto/reader.h, on untrusted target memory.
 *
 * The input is target RAM at 0x20000000 with the format's control structure (ThreadX trace
 * header, NuttX noteram driver) at its start. It is decoded as an image twice: located at its
 * start, and with no address (a .trx whose header says its own base, a NuttX record stream, a
 * .kev file). Then, for a format that follows live memory, the live reader polls it for a few
 * cycles while the "target" rewrites bytes between cycles, taken from the input's second half
 * (laps, resets, torn headers, garbage pointers); a range planned outside the RAM is a failed
 * read, as a probe would report it. NuttX also looks task names up in TCBs the input holds
 * (g_pidhash at +0x40, g_npidhash at +0x48) and in NuttX's own cache of exited tasks' names
 * (g_note_taskname at +0x80, 64 bytes), live and in the image. Every record also goes through
 * the live analysis with the format's rules (analysis/: one per process with small tables, a
 * reset record at each input's start), whose JSON and text are rendered after the inputs whose
 * middle byte is a multiple of 8. The threads the image registered go to the analysis with the
 * high-water marks of the painted stacks the image holds (tt_analysis_image_threads), and live,
 * the stacks the reader's registry names are scanned in the changing RAM (proto/stackscan.h,
 * small budgets, failed reads outside it). Built as a libFuzzer target by
 * tests/fuzz/meson.build, and with the gcc smoke driver tests/unit/fuzz_threadx.c (seeds from
 * tests/fw/txwriter).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "fuzz.h"
#include "nuttx.h"
#include "reader.h"
#include "stackscan.h"

#ifndef FZ_FORMAT
#error "FZ_FORMAT must name a format"
#endif
#define FZ_BASE 0x20000000u

/* NuttX: the default layout, and task names from TCBs the input holds. */
static const void *fz_format_cfg(struct tt_nuttx_layout *lo)
{
	if (strcmp(FZ_FORMAT, "nuttx"))
		return NULL;
	tt_nuttx_layout_default(lo, 4);
	lo->pidhash_addr = FZ_BASE + 0x40;
	lo->npidhash_addr = FZ_BASE + 0x48;
	lo->tcb_off_pid = 12;
	lo->tcb_off_name = 48;
	lo->tcb_name_size = 32;
	lo->taskname_addr = FZ_BASE + 0x80;
	lo->taskname_size = 64;
	lo->tcb_off_stack_base = 16; /* the task table's walk for stacks, live and in the image */
	lo->tcb_off_stack_size = 20;
	lo->stack_color = 0xdeadbeefu;
	return lo;
}

static struct tt_analysis *fz_an;

/* fz_record's checks, then the analysis. */
static void fz_analysed(void *arg, const struct tt_record *rec)
{
	fz_record(arg, rec);
	if (fz_an)
		tt_analysis_record(fz_an, rec);
}

/* The analysis's reports, into a buffer that may be too small (the bound must hold). */
static void fz_report(void)
{
	static char buf[16384];

	if (!fz_an)
		return;
	(void)tt_analysis_json(fz_an, buf, sizeof(buf));
	(void)tt_analysis_text(fz_an, buf, sizeof(buf));
}

static void fz_stack_thread(void *arg, const struct tt_an_thread *t)
{
	tt_stackscan_thread(arg, t->id, t->stack_start, t->stack_size);
}

/* One stack read of the live reader's threads from ram, as the daemon does at a cycle's end. */
static void fz_stacks(const struct tt_reader_ops *ops, const void *rd, struct tt_stackscan *sc,
		      const uint8_t *ram, size_t size, uint32_t budget)
{
	struct tt_stack_painted pt;
	struct tt_plan p;
	int st = 0;

	if (!ops->analysis || !ops->analysis->threads || !ops->analysis->stack_fill)
		return;
	tt_stackscan_begin(sc);
	if (ops->analysis->threads(rd, fz_stack_thread, sc) < 0 ||
	    !tt_stackscan_plan(sc, budget, &p))
		return;
	for (unsigned i = 0; i < p.n && !st; i++) {
		uint64_t off = p.r[i].addr - FZ_BASE;
		if (p.r[i].addr < FZ_BASE || off > size || p.r[i].len > size - off)
			st = -5;
		else
			memcpy(p.r[i].dst, ram + off, p.r[i].len);
	}
	tt_stackscan_ingest(sc, st);
	for (unsigned i = 0; tt_stackscan_at(sc, i, &pt) == 0; i++)
		if (pt.state == TT_PAINT_OK && pt.free + pt.used != pt.size)
			abort(); /* the figures add up to the stack */
}

static void fz_live(const struct tt_reader_ops *ops, const uint8_t *data, size_t size)
{
	static struct tt_stackscan sc;
	struct tt_nuttx_layout lo;
	/* the input's last byte: a file source, and how far the host's clock moves per cycle (so
	 * wraps the host clock adds and lap estimates see untrusted time stamps too) */
	uint8_t last = size ? data[size - 1] : 0;
	struct tt_reader_config cfg = { .address = FZ_BASE, .tick_hz = 1000,
					.format_cfg = fz_format_cfg(&lo), .file_source = last & 1 };
	uint8_t *ram;
	void *rd;
	size_t mut = size / 2;

	if (!ops->create || ops->create(&cfg, &rd) != 0)
		return;
	ram = malloc(size ? size : 1);
	if (!ram) {
		ops->destroy(rd);
		return;
	}
	memcpy(ram, data, size);
	uint32_t fill = 0;
	if (ops->analysis && ops->analysis->stack_fill)
		(void)ops->analysis->stack_fill(cfg.format_cfg, &fill);
	tt_stackscan_init(&sc, fill);
	for (int cycle = 0; cycle < 12; cycle++) {
		for (int step = 0; step < 16; step++) {
			struct tt_plan p;
			bool failed = false;
			ops->plan(rd, &p);
			for (unsigned i = 0; i < p.n; i++) {
				uint64_t off = p.r[i].addr - FZ_BASE;
				if (p.r[i].addr < FZ_BASE || off > size || p.r[i].len > size - off) {
					failed = true;
					break;
				}
				memcpy(p.r[i].dst, ram + off, p.r[i].len);
			}
			if (failed) {
				ops->read_failed(rd, -5);
				break;
			}
			if (ops->set_host_time)
				ops->set_host_time(rd, 1000000000ull + (uint64_t)cycle * last * 7919000ull);
			if (ops->ingest(rd, fz_analysed, NULL) != TT_READER_MORE)
				break;
		}
		fz_stacks(ops, rd, &sc, ram, size, 64u << (cycle % 7));
		/* the "writer": copy a few input bytes over the RAM, at positions the input picks */
		for (int k = 0; k < 4 && size >= 8 && mut + 5 < size; k++, mut += 5) {
			size_t at = ((size_t)data[mut] << 8 | data[mut + 1]) % size;
			ram[at] = data[mut + 2];
			if (at + 1 < size)
				ram[at + 1] = data[mut + 3];
		}
	}
	struct tt_reader_stats st;
	ops->stats(rd, &st);
	(void)ops->error(rd);
	ops->destroy(rd);
	free(ram);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct tt_reader_ops *ops;
	struct tt_nuttx_layout lo;
	struct tt_reader_config at_start = { .address = FZ_BASE, .tick_hz = 1000,
					     .format_cfg = fz_format_cfg(&lo) };
	struct tt_reader_config own = { .tick_hz = 0 };
	char err[256];

	if (!ops && !(ops = tt_reader_find(FZ_FORMAT)))
		abort();
	/* small tables: their overflow is reached, and the reports stay cheap per input */
	if (!fz_an && tt_analysis_new(ops->analysis, &(struct tt_analysis_limits){
					      .max_threads = 16, .max_services = 32,
					      .max_inversions = 4, .max_calls = 16, .max_irqs = 8 },
				      &fz_an) < 0)
		abort();
	tt_analysis_record(fz_an, &(struct tt_record){ .kind = TT_REC_RESET,
						       .u.reset.reason = "next input" });
	(void)tt_reader_detect(data, size);
	ops->decode_image(data, size, FZ_BASE, &at_start, fz_analysed, NULL, err, sizeof(err));
	(void)tt_analysis_image_threads(fz_an, data, size, FZ_BASE, &at_start);
	ops->decode_image(data, size, 0, &own, fz_analysed, NULL, err, sizeof(err));
	fz_live(ops, data, size);
	if (size && data[size / 2] % 8 == 0) /* rendering is slow under the sanitizers: one in 8 */
		fz_report();
	return 0;
}
