/* tests/unit/test_reader.c: the reader registry and the ops the daemon calls instead of comparing
 * format names (proto/reader.h): the default format, the options' help of every format, the ELF
 * symbol a configuration asks for, a layout's log lines, NuttX's stack fill per target. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "analysis_ops.h"
#include "nuttx.h"
#include "reader.h"

static void test_registry(void)
{
	const struct tt_reader_ops *tx = tt_reader_find("threadx");

	CHECK(tx != NULL);
	CHECK(tt_reader_default() == tx);
	CHECK(tt_reader_find("nosuch") == NULL);
}

static void test_help(void)
{
	static const char *const names[] = { "threadx", "nuttx", "qnx" };
	char buf[4096], small[16];
	size_t need = tt_reader_help(buf, sizeof(buf)), want = 0;
	const char *at = buf;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *h = tt_reader_find(names[i])->cfg_help;
		if (!h)
			continue;
		/* each format's help, in registry order */
		CHECK_MSG(strstr(at, h) != NULL, "%s's help missing or out of order", names[i]);
		if (strstr(at, h))
			at = strstr(at, h) + strlen(h);
		want += strlen(h);
	}
	CHECK(want > 0);
	CHECK_EQ(need, want);
	CHECK_EQ(strlen(buf), want);
	/* too small: cut short, still a string, and the length it needed */
	memset(small, 'x', sizeof(small));
	CHECK_EQ(tt_reader_help(small, sizeof(small)), want);
	CHECK(memchr(small, 0, sizeof(small)) != NULL);
}

static void test_elf_symbol(void)
{
	const struct tt_reader_ops *nx = tt_reader_find("nuttx");
	struct tt_nuttx_layout lo;

	CHECK(!strcmp(tt_reader_elf_symbol(tt_reader_find("threadx"), NULL),
		      "_tx_trace_header_ptr"));
	CHECK(tt_reader_elf_symbol(tt_reader_find("qnx"), NULL) == NULL);
	CHECK(!strcmp(tt_reader_elf_symbol(nx, NULL), "g_noteram_driver"));
	tt_nuttx_layout_default(&lo, 4);
	CHECK(!strcmp(tt_reader_elf_symbol(nx, &lo), "g_noteram_driver"));
	lo.release = 1203; /* before 12.4: struct noteram_info_s */
	CHECK(!strcmp(tt_reader_elf_symbol(nx, &lo), "g_noteram_info"));
}

static void test_describe(void)
{
	const struct tt_reader_ops *nx = tt_reader_find("nuttx");
	struct tt_nuttx_layout lo;
	char buf[1024];

	CHECK(nx->cfg_describe != NULL);
	CHECK(tt_reader_find("qnx")->no_address_hint != NULL);
	CHECK(tt_reader_find("threadx")->no_address_hint == NULL);
	tt_nuttx_layout_default(&lo, 8);
	nx->cfg_describe(&lo, "fw.elf", buf, sizeof(buf));
	CHECK_MSG(!strncmp(buf, "NuttX layout from fw.elf: release family ", 41), "%s", buf);
	CHECK_MSG(strstr(buf, ", 64-bit, ") != NULL, "%s", buf);
	CHECK(strchr(buf, '\n') == NULL); /* no task table: one line */
	lo.pidhash_addr = 0x1000;
	lo.npidhash_addr = 0x2000;
	nx->cfg_describe(&lo, NULL, buf, sizeof(buf));
	CHECK_MSG(!strncmp(buf, "NuttX layout: release family ", 29), "%s", buf);
	CHECK_MSG(strstr(buf, "\nNuttX task names from the target: g_pidhash at 0x1000, "
			      "g_npidhash at 0x2000") != NULL, "%s", buf);
	/* painted stacks: why there are none, or where they come from */
	CHECK_MSG(strstr(buf, "\nNuttX painted stacks: none (no stack_base_ptr") != NULL, "%s", buf);
	lo.tcb_off_stack_base = 40;
	lo.tcb_off_stack_size = 32;
	nx->cfg_describe(&lo, NULL, buf, sizeof(buf));
	CHECK_MSG(strstr(buf, "\nNuttX painted stacks: none (STACK_COLOR not known") != NULL, "%s",
		  buf);
	lo.stack_color = 0xdeaddeadu;
	nx->cfg_describe(&lo, NULL, buf, sizeof(buf));
	CHECK_MSG(strstr(buf, "\nNuttX painted stacks: tcb_s stack_base_ptr at 40, adj_stack_size "
			      "at 32, colour 0xdeaddead") != NULL, "%s", buf);
}

/* NuttX's STACK_COLOR by the ELF's machine, and the fill the stack reader compares with: the
 * colour as a little-endian word, so a big-endian target's bytes swapped; none without the
 * colour, the stack members or the task table. */
static void test_nuttx_stack_fill(void)
{
	const struct tt_analysis_ops *an = tt_reader_find("nuttx")->analysis;
	struct tt_nuttx_layout lo;
	uint32_t fill = 0;

	CHECK(tt_nuttx_stack_color_of_machine(40) == 0xdeadbeefu);  /* EM_ARM */
	CHECK(tt_nuttx_stack_color_of_machine(243) == 0xdeadbeefu); /* EM_RISCV */
	CHECK(tt_nuttx_stack_color_of_machine(62) == 0xdeadbeefu);  /* EM_X86_64: the sim */
	CHECK(tt_nuttx_stack_color_of_machine(183) == 0xdeaddeadu); /* EM_AARCH64 */
	CHECK(tt_nuttx_stack_color_of_machine(94) == 0);            /* EM_XTENSA: not known */
	tt_nuttx_layout_default(&lo, 4);
	CHECK(an->stack_fill(&lo, &fill) == -ENOENT);
	CHECK(an->stack_fill(NULL, &fill) == -ENOENT);
	lo.pidhash_addr = 0x1000;
	lo.npidhash_addr = 0x1004;
	lo.tcb_off_stack_base = 16;
	lo.tcb_off_stack_size = 20;
	CHECK(an->stack_fill(&lo, &fill) == -ENOENT); /* no colour */
	lo.stack_color = 0xdeadbeefu;
	CHECK(an->stack_fill(&lo, &fill) == 0 && fill == 0xdeadbeefu);
	lo.big_endian = true;
	CHECK_MSG(an->stack_fill(&lo, &fill) == 0 && fill == 0xefbeaddeu, "0x%08x", fill);
}

int main(void)
{
	test_nuttx_stack_fill();
	test_registry();
	test_help();
	test_elf_symbol();
	test_describe();
	return tt_test_done();
}
