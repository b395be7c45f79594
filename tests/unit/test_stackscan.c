/* tests/unit/test_stackscan.c: stack high-water marks from painted stacks (proto/stackscan.h),
 * on a RAM image this test paints and uses by hand: the depths are the test's own constants.
 * Plans are carried out by reading the image, as the daemon's probe would; every plan's bytes
 * are checked against the budget given. Then the analysis's labels (analysis/): the painted
 * figure beside the traced one in JSON, text and /metrics, and "no fill pattern" with no number.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "stackscan.h"
#include "threadx.h"
#include "../tt_test.h"

#define BASE 0x20000000u
#define RAM 0x4000u
#define FILL 0xEFEFEFEFu

static uint8_t ram[RAM];
static uint64_t bytes_read;

static void paint(uint32_t start, uint32_t size)
{
	memset(ram + (start - BASE), 0xEF, size);
}

/* The thread used its stack down to depth bytes below its end (a non-fill word there). */
static void use(uint32_t start, uint32_t size, uint32_t depth)
{
	uint32_t at = start + size - depth - BASE;

	for (uint32_t i = at; i < start + size - BASE; i++)
		ram[i] = (uint8_t)(0x11 + i);
}

/* One plan read from the image, within budget; -EFAULT outside it (as a probe would). */
static uint32_t step(struct tt_stackscan *s, uint32_t budget)
{
	struct tt_plan p;
	uint32_t n = tt_stackscan_plan(s, budget, &p), sum = 0;
	int st = 0;

	CHECK(n <= budget);
	for (unsigned i = 0; i < p.n; i++) {
		sum += p.r[i].len;
		if (p.r[i].addr < BASE || p.r[i].addr + p.r[i].len > BASE + RAM)
			st = -EFAULT;
		else
			memcpy(p.r[i].dst, ram + (p.r[i].addr - BASE), p.r[i].len);
	}
	CHECK_EQ(sum, n);
	bytes_read += n;
	if (n)
		tt_stackscan_ingest(s, st);
	return n;
}

static struct tt_stack_painted fig(const struct tt_stackscan *s, uint32_t id)
{
	struct tt_stack_painted p = { 0 };

	for (unsigned i = 0; tt_stackscan_at(s, i, &p) == 0; i++)
		if (p.id == id)
			return p;
	FAIL("thread 0x%x not followed", id);
	return p;
}

static void run(struct tt_stackscan *s, uint32_t budget, unsigned steps)
{
	for (unsigned i = 0; i < steps; i++)
		step(s, budget);
}

static struct tt_stackscan sc;

static void test_depths(void)
{
	/* A: 1024 bytes used to 200; B: 2048 used to 2040 (8 bytes of margin); C: never
	 * painted; D: painted, used to 0 (nothing below its end) */
	memset(ram, 0, sizeof(ram));
	paint(0x20000400, 1024);
	use(0x20000400, 1024, 200);
	paint(0x20000800, 2048);
	use(0x20000800, 2048, 2040);
	use(0x20001000, 512, 64);
	paint(0x20001400, 256);
	tt_stackscan_init(&sc, FILL);
	tt_stackscan_begin(&sc);
	tt_stackscan_thread(&sc, 0xA, 0x20000400, 1024);
	tt_stackscan_thread(&sc, 0xB, 0x20000800, 2048);
	tt_stackscan_thread(&sc, 0xC, 0x20001000, 512);
	tt_stackscan_thread(&sc, 0xD, 0x20001400, 256);
	/* a small budget: the first scans go in pieces of at most 300 bytes a plan */
	bytes_read = 0;
	for (unsigned i = 0; i < 40; i++)
		CHECK(step(&sc, 300) <= 300);
	struct tt_stack_painted a = fig(&sc, 0xA), b = fig(&sc, 0xB), c = fig(&sc, 0xC),
				d = fig(&sc, 0xD);
	CHECK_EQ(a.state, TT_PAINT_OK);
	CHECK_EQ(a.used, 200);
	CHECK_EQ(a.free, 824);
	CHECK_EQ(b.state, TT_PAINT_OK);
	CHECK_EQ(b.used, 2040);
	CHECK_EQ(b.free, 8);
	CHECK(!b.overflow);
	CHECK_EQ(c.state, TT_PAINT_ABSENT);
	CHECK_EQ(c.used, 0);
	CHECK_EQ(d.state, TT_PAINT_OK);
	CHECK_EQ(d.used, 0);
	CHECK_EQ(d.free, 256);

	/* the high-water moves down: A used to 400, B to its very start (overflow) */
	use(0x20000400, 1024, 400);
	use(0x20000800, 2048, 2048);
	uint64_t before = bytes_read;
	run(&sc, 300, 8);
	a = fig(&sc, 0xA);
	b = fig(&sc, 0xB);
	CHECK_EQ(a.used, 400);
	CHECK_EQ(a.free, 624);
	CHECK_EQ(b.used, 2048);
	CHECK_EQ(b.free, 0);
	CHECK(b.overflow);
	/* then only windows below the marks: at most a window per thread per plan */
	before = bytes_read;
	unsigned plans = 0;
	while (plans < 10 && step(&sc, 4096))
		plans++;
	CHECK_EQ(plans, 10);
	CHECK((bytes_read - before) / plans <= 2 * TT_STACKSCAN_WINDOW);
	/* a word of the used part that later holds the fill does not undo the use (ThreadX's
	 * highest-use pointer only moves down) */
	memset(ram + (0x20000400 + 1024 - 400 - BASE), 0xEF, 4);
	run(&sc, 4096, 4);
	CHECK_EQ(fig(&sc, 0xA).used, 400);
}

static void test_recreated(void)
{
	/* the same control block with a new stack starts over; a reset does too */
	paint(0x20002000, 1024);
	use(0x20002000, 1024, 100);
	tt_stackscan_begin(&sc);
	tt_stackscan_thread(&sc, 0xA, 0x20002000, 1024);
	CHECK_EQ(fig(&sc, 0xA).state, TT_PAINT_PENDING);
	run(&sc, 4096, 6);
	CHECK_EQ(fig(&sc, 0xA).used, 100);
	CHECK_EQ(fig(&sc, 0xA).scans, 2);
	paint(0x20002000, 1024);
	use(0x20002000, 1024, 48);
	tt_stackscan_restart(&sc);
	run(&sc, 4096, 6);
	CHECK_EQ(fig(&sc, 0xA).used, 48);
	/* a read that fails: a stack with no figure yet says unreadable, no number */
	tt_stackscan_begin(&sc);
	tt_stackscan_thread(&sc, 0xE, 0x30000000, 512);
	run(&sc, 4096, 3);
	CHECK_EQ(fig(&sc, 0xE).state, TT_PAINT_UNREADABLE);
	CHECK_EQ(fig(&sc, 0xE).used, 0);
	/* bounds that wrap, or no stack: not followed */
	tt_stackscan_thread(&sc, 0xF, UINT64_MAX - 8, 512);
	tt_stackscan_thread(&sc, 0x10, 0, 0);
	struct tt_stack_painted p;
	unsigned n = 0;
	while (tt_stackscan_at(&sc, n, &p) == 0)
		n++;
	CHECK_EQ(n, 5);
}

static void test_budget_round_robin(void)
{
	/* 64 stacks of 4 KiB each, all free: a budget of 512 bytes a plan never goes over and
	 * reaches every stack (the first scans take turns) */
	static struct tt_stackscan s2;
	tt_stackscan_init(&s2, FILL);
	tt_stackscan_begin(&s2);
	memset(ram, 0xEF, sizeof(ram));
	for (uint32_t i = 0; i < 4; i++)
		tt_stackscan_thread(&s2, 100 + i, BASE + i * 0x1000, 0x1000);
	for (unsigned k = 0; k < 64; k++)
		CHECK(step(&s2, 512) <= 512);
	for (uint32_t i = 0; i < 4; i++) {
		CHECK_EQ(fig(&s2, 100 + i).state, TT_PAINT_OK);
		CHECK_EQ(fig(&s2, 100 + i).free, 0x1000);
	}
	/* more threads than followed: counted */
	for (uint32_t i = 0; i < TT_STACKSCAN_THREADS + 3; i++)
		tt_stackscan_thread(&s2, 1000 + i, BASE, 64);
	CHECK_EQ(s2.overflow, 7);
}

/* The analysis: each figure with its source, everywhere it is shown. */
static void test_labels(void)
{
	struct tt_analysis *a;
	static char buf[65536];
	const char *names[] = { "t" };

	REQUIRE(tt_analysis_new(&tt_threadx_analysis, NULL, &a) == 0);
	tt_analysis_thread(a, &(struct tt_an_thread){ .id = 0xA, .name = "sensor", .prio = 5,
						       .stack_start = 0x20000400, .stack_size = 1024 });
	tt_analysis_thread(a, &(struct tt_an_thread){ .id = 0xC, .name = "nofill", .prio = 6,
						       .stack_start = 0x20001000, .stack_size = 512 });
	tt_analysis_stack_painted(a, &(struct tt_stack_painted){ .id = 0xA, .start = 0x20000400,
		.size = 1024, .state = TT_PAINT_OK, .free = 624, .used = 400 });
	tt_analysis_stack_painted(a, &(struct tt_stack_painted){ .id = 0xC, .start = 0x20001000,
		.size = 512, .state = TT_PAINT_ABSENT });
	tt_analysis_scan_cost(a, &(struct tt_analysis_scan_cost){ .budget = 512, .bytes = 4096,
		.bytes_per_s = 400.5, .threads = 2 });
	REQUIRE(tt_analysis_json(a, buf, sizeof(buf)) < sizeof(buf));
	CHECK_SUBSTR(buf, "\"painted\":{\"source\":\"painted stack\",\"state\":\"painted\","
			  "\"free\":624,\"used\":400,\"overflow\":false}");
	CHECK_SUBSTR(buf, "\"painted\":{\"source\":\"painted stack\",\"state\":\"no fill pattern\"}");
	CHECK_SUBSTR(buf, "\"stack_scan\":{\"budget_bytes_per_s\":512,\"bytes\":4096,"
			  "\"bytes_per_s\":400.5,\"threads\":2,\"threads_not_scanned\":0}");
	REQUIRE(tt_analysis_text(a, buf, sizeof(buf)) < sizeof(buf));
	CHECK_SUBSTR(buf, "Thread Stack High-Water (painted stack, read from RAM)");
	CHECK_SUBSTR(buf, "     1024          400       624     sensor\n");
	CHECK_SUBSTR(buf, "no fill pattern");
	const struct tt_analysis *an[] = { a };
	REQUIRE(tt_analysis_metrics(names, an, 1, buf, sizeof(buf)) < sizeof(buf));
	CHECK_SUBSTR(buf, "tracetap_thread_stack_free_bytes{target=\"t\",thread=\"sensor\","
			  "id=\"0x0000000a\",source=\"painted\"} 624\n");
	CHECK(!strstr(buf, "thread=\"nofill\",id=\"0x0000000c\",source=\"painted\""));
	tt_analysis_free(a);
}

int main(void)
{
	test_depths();
	test_recreated();
	test_budget_round_robin();
	test_labels();
	return tt_test_done();
}
