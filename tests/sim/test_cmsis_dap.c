/* tests/sim/test_cmsis_dap.c: the simulated CMSIS-DAP probe's command interpreter and SW-DP on
 * the model alone, checked against the CMSIS-DAP v2 command layouts and ADIv5's SWJ-DP rules:
 * what OpenOCD 0.12 never sends (DAP_TransferBlock, value match, packets cut short, accesses
 * before the JTAG-to-SWD switch) and so the chain tests cannot show.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../tt_test.h"
#include "sim_cmsis_dap.h"

#define BASE 0x20000000u

static uint8_t ram[1024];
static uint8_t resp[TT_SIM_DAP_MAX_PACKET];
static struct tt_sim_dap dap;
static struct tt_sim_cmsis_dap probe;

static int mem_read(void *ctx, uint32_t addr, unsigned size, uint32_t *val)
{
	(void)ctx;
	if (addr < BASE || addr - BASE + size > sizeof(ram))
		return -EFAULT;
	*val = 0;
	memcpy(val, ram + (addr - BASE), size);
	return 0;
}

static int mem_write(void *ctx, uint32_t addr, unsigned size, uint32_t val)
{
	(void)ctx;
	if (addr < BASE || addr - BASE + size > sizeof(ram))
		return -EFAULT;
	memcpy(ram + (addr - BASE), &val, size);
	return 0;
}

static size_t cmd(const uint8_t *q, size_t n, size_t cap)
{
	memset(resp, 0xAA, sizeof(resp));
	return tt_sim_cmsis_dap_command(&probe, q, n, resp, cap);
}

static uint32_t word(size_t at)
{
	return resp[at] | (uint32_t)resp[at + 1] << 8 | (uint32_t)resp[at + 2] << 16 |
	       (uint32_t)resp[at + 3] << 24;
}

static uint32_t ram_word(unsigned i)
{
	uint32_t v;

	memcpy(&v, ram + 4 * i, 4);
	return v;
}

/* DAP_Transfer of requests without data (reads): [0x05, 0, n, req...] */
static size_t reads(const uint8_t *req, uint8_t n)
{
	uint8_t q[64] = { 0x05, 0, n };

	memcpy(q + 3, req, n);
	return cmd(q, 3u + n, 512);
}

/* OpenOCD 0.12's swd_seq_jtag_to_swd and swd_seq_line_reset */
static const uint8_t jtag_to_swd[] = { 0x12, 136, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x9e, 0xe7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
static const uint8_t line_reset[] = { 0x12, 64, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0 };

static void connect_and_power(void)
{
	static const uint8_t conn[] = { 0x02, 0x00 };
	/* CTRL/STAT = CSYSPWRUPREQ | CDBGPWRUPREQ; SELECT = 0; CSW = word, auto-increment;
	 * TAR = BASE */
	static const uint8_t setup[] = { 0x05, 0, 5, 0x02, 0x04, 0x00, 0x00, 0x00, 0x50,
		0x08, 0, 0, 0, 0, 0x01, 0x12, 0, 0, 0, 0x05, 0x00, 0x00, 0x00, 0x20 };

	REQUIRE_EQ(cmd(conn, sizeof(conn), 512), 2);
	CHECK_EQ(resp[1], 1);	/* SWD */
	CHECK_EQ(reads((const uint8_t[]){ 0x02 }, 1), 3);	/* JTAG still selected */
	CHECK_EQ(resp[1], 0);
	CHECK_EQ(resp[2], TT_SIM_SWD_NOACK);
	REQUIRE_EQ(cmd(jtag_to_swd, sizeof(jtag_to_swd), 512), 2);
	CHECK_EQ(resp[1], 0);
	REQUIRE_EQ(cmd(setup, sizeof(setup), 512), 7);
	CHECK_EQ(resp[1], 5);
	CHECK_EQ(resp[2], TT_SIM_SWD_OK);
	CHECK_EQ(word(3), TT_SIM_SWD_DPIDR);
	CHECK_EQ(reads((const uint8_t[]){ 0x06 }, 1), 7);	/* CTRL/STAT: the ACKs rose */
	CHECK_EQ(word(3) & 0xA0000000u, 0xA0000000u);
}

static void info(void)
{
	static const uint8_t psize[] = { 0x00, 0xFF }, pcount[] = { 0x00, 0xFE },
			     product[] = { 0x00, 0x02 }, caps[] = { 0x00, 0xF0 };

	CHECK_EQ(cmd(psize, 2, 64), 4);
	CHECK_EQ(resp[1], 2);
	CHECK_EQ(resp[2] | resp[3] << 8, 64);
	CHECK_EQ(cmd(pcount, 2, 512), 3);
	CHECK_EQ(resp[2], TT_SIM_DAP_PACKET_COUNT);
	CHECK_EQ(cmd(caps, 2, 512), 3);
	CHECK_EQ(resp[2], 0x01);	/* SWD only */
	CHECK(cmd(product, 2, 512) > 2 && resp[1] == strlen((char *)resp + 2) + 1);
	CHECK_SUBSTR((char *)resp + 2, "CMSIS-DAP");
	CHECK_EQ(cmd((const uint8_t[]){ 0x14, 1, 0 }, 3, 512), 1);	/* DAP_JTAG_Sequence */
	CHECK_EQ(resp[0], 0xFF);
}

static void transfer_block(void)
{
	uint8_t q[5 + 4 * 4] = { 0x06, 0, 20, 0, 0x0F };
	static const uint8_t tar[] = { 0x05, 0, 1, 0x05, 0x00, 0x00, 0x00, 0x20 };

	for (unsigned i = 0; i < sizeof(ram) / 4; i++)
		memcpy(ram + 4 * i, &(uint32_t){ 0xA5000000u + i }, 4);
	cmd(tar, sizeof(tar), 512);
	REQUIRE_EQ(cmd(q, 5, 512), 4 + 20 * 4);
	CHECK_EQ(resp[1] | resp[2] << 8, 20);
	CHECK_EQ(resp[3], TT_SIM_SWD_OK);
	for (unsigned i = 0; i < 20; i++)
		CHECK_EQ(word(4 + 4 * i), 0xA5000000u + i);
	/* a 64-byte packet holds 15 answers: the block stops there, OK, and says so */
	cmd(tar, sizeof(tar), 512);
	CHECK_EQ(cmd(q, 5, 64), 64);
	CHECK_EQ(resp[1] | resp[2] << 8, 15);
	CHECK_EQ(resp[3], TT_SIM_SWD_OK);
	/* 4 writes; the last word's data cut short: 3 done */
	q[2] = 4;
	q[4] = 0x0D;
	for (unsigned i = 0; i < 4; i++)
		memcpy(q + 5 + 4 * i, &(uint32_t){ 0x11111111u * (i + 1) }, 4);
	cmd(tar, sizeof(tar), 512);
	CHECK_EQ(cmd(q, sizeof(q) - 1, 512), 4);
	CHECK_EQ(resp[1], 3);
	CHECK_EQ(ram_word(0), 0x11111111u);
	CHECK_EQ(ram_word(2), 0x33333333u);
	CHECK_EQ(ram_word(3), 0xA5000003u);
}

static void faults_and_match(void)
{
	static const uint8_t far[] = { 0x05, 0, 2, 0x05, 0x00, 0x10, 0x00, 0x20, 0x0F };
	static const uint8_t clear[] = { 0x08, 0, 0x04, 0, 0, 0 };	/* STKERRCLR */
	static const uint8_t near[] = { 0x05, 0, 2, 0x05, 0x08, 0x00, 0x00, 0x20, 0x0F };
	uint8_t match[] = { 0x05, 0, 3, 0x05, 0x08, 0x00, 0x00, 0x20, 0x20, 0xFF, 0xFF, 0, 0,
			    0x1F, 0x02, 0, 0, 0 };

	CHECK_EQ(cmd(far, sizeof(far), 512), 3);	/* beyond RAM: FAULT on the read */
	CHECK_EQ(resp[1], 1);
	CHECK_EQ(resp[2], TT_SIM_SWD_FAULT);
	CHECK_EQ(cmd(near, sizeof(near), 512), 3);	/* sticky: no AP access at all */
	CHECK_EQ(resp[1], 0);
	CHECK_EQ(resp[2], TT_SIM_SWD_FAULT);
	CHECK_EQ(cmd(clear, sizeof(clear), 512), 2);	/* DAP_WriteABORT */
	CHECK_EQ(cmd(near, sizeof(near), 512), 7);
	CHECK_EQ(resp[2], TT_SIM_SWD_OK);
	CHECK_EQ(word(3), 0x33333333u);
	/* value match on the low halfword: 0x3333 is not 0x0002 (no retries: mismatch) */
	CHECK_EQ(cmd(match, sizeof(match), 512), 3);
	CHECK_EQ(resp[1], 2);
	CHECK_EQ(resp[2], TT_SIM_SWD_OK | 0x10);
	match[14] = 0x33;
	match[15] = 0x33;
	CHECK_EQ(cmd(match, sizeof(match), 512), 3);
	CHECK_EQ(resp[1], 3);
	CHECK_EQ(resp[2], TT_SIM_SWD_OK);
	/* a transfer list cut in its data: ends there, nothing read past the packet */
	CHECK_EQ(cmd(far, 6, 512), 3);
	CHECK_EQ(resp[1], 0);
}

static void waits_and_line_reset(void)
{
	static const uint8_t retry10[] = { 0x04, 0, 10, 0, 0, 0 };
	static const uint8_t one[] = { 0x05, 0, 2, 0x05, 0x00, 0x00, 0x00, 0x20, 0x0F };

	tt_sim_dap_wait_storm(&dap, 5);	/* retried by the probe: invisible */
	CHECK_EQ(cmd(one, sizeof(one), 512), 7);
	CHECK_EQ(resp[2], TT_SIM_SWD_OK);
	CHECK_EQ(dap.stats.waits, 5);
	CHECK_EQ(cmd(retry10, sizeof(retry10), 512), 2);
	tt_sim_dap_wait_storm(&dap, 200);	/* more than the 10 retries: WAIT reported */
	CHECK_EQ(cmd(one, sizeof(one), 512), 3);
	CHECK_EQ(resp[1], 0);
	CHECK_EQ(resp[2], TT_SIM_SWD_WAIT);
	CHECK_EQ(cmd((const uint8_t[]){ 0x08, 0, 0x01, 0, 0, 0 }, 6, 512), 2);	/* DAPABORT */
	CHECK_EQ(dap.wait_accesses, 0);
	/* a line reset: nothing but the DPIDR read answers, then all does again */
	CHECK_EQ(cmd(line_reset, sizeof(line_reset), 512), 2);
	CHECK_EQ(cmd(one, sizeof(one), 512), 3);
	CHECK_EQ(resp[1], 0);
	CHECK_EQ(resp[2], TT_SIM_SWD_NOACK);
	CHECK_EQ(reads((const uint8_t[]){ 0x02, 0x06 }, 2), 11);
	CHECK_EQ(word(3), TT_SIM_SWD_DPIDR);
	CHECK_EQ(cmd(one, sizeof(one), 512), 7);
	CHECK_EQ(word(3), 0x11111111u);
}

int main(void)
{
	tt_sim_dap_init(&dap, &(struct tt_sim_mem_ops){ mem_read, mem_write, NULL });
	tt_sim_cmsis_dap_init(&probe, &dap);
	CHECK_EQ(reads((const uint8_t[]){ 0x02 }, 1), 3);	/* not connected: nothing done */
	CHECK_EQ(resp[1], 0);
	info();
	connect_and_power();
	transfer_block();
	faults_and_match();
	waits_and_line_reset();
	CHECK_EQ(cmd((const uint8_t[]){ 0x07 }, 1, 512), 0);	/* DAP_TransferAbort: no answer */
	CHECK_EQ(cmd(NULL, 0, 512), 0);
	return tt_test_done();
}
