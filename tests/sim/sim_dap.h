/* tests/sim/sim_dap.h: a JTAG TAP, an ADIv5 JTAG-DP or SW-DP and one AHB MEM-AP, as a pure model.
 *
 * No I/O: the owner feeds it remote_bitbang pin writes and TDO samples (JTAG), or DP/AP register
 * accesses as a CMSIS-DAP probe performs them over SWD, and supplies memory access callbacks. Everything OpenOCD 0.12 needs for `mem_ap` targets and nothing more (see
 * shared/reference/openocd-simulated-target.md). Fault hooks (WAIT storms, bus-fault windows,
 * power loss) are plain fields and functions so the simulator's control socket can drive them.
 */
#ifndef TT_SIM_DAP_H
#define TT_SIM_DAP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_cm.h"

#define TT_SIM_IDCODE 0x4BA00477u
#define TT_SIM_AP_IDR 0x24770011u /* AHB-AP */
#define TT_SIM_SWD_DPIDR 0x1BA01477u /* SW-DP v1, as on STM32F1 (target/stm32f1x.cfg's SWD id) */

/* SWD acknowledgements (3 bits, LSB first on the wire), as CMSIS-DAP reports them */
enum { TT_SIM_SWD_OK = 1, TT_SIM_SWD_WAIT = 2, TT_SIM_SWD_FAULT = 4, TT_SIM_SWD_NOACK = 7 };

/* The SWJ-DP's wire state: JTAG selected (power-on), SWD after a line reset (only a DPIDR read
 * answers), SWD active. */
enum { TT_SIM_LINE_JTAG = 0, TT_SIM_LINE_SWD_RESET, TT_SIM_LINE_SWD };

/* One naturally aligned 1, 2 or 4 byte access at target address addr (data in the low bits).
 * Returns 0, or -EFAULT for a bus fault (the model then sets STICKYERR). */
struct tt_sim_mem_ops {
	int (*read)(void *ctx, uint32_t addr, unsigned size, uint32_t *val);
	int (*write)(void *ctx, uint32_t addr, unsigned size, uint32_t val);
	void *ctx;
};

struct tt_sim_stats {
	uint64_t ap_reads, ap_writes;     /* MEM-AP data accesses performed (DRW/BDx) */
	uint64_t bytes_read, bytes_written;
	uint64_t waits;                   /* scans answered WAIT */
	uint64_t waits_aborted;           /* WAITs of a storm that OpenOCD's DAPABORT cancelled */
	uint64_t bus_faults;              /* accesses that set STICKYERR (bus fault or power) */
	uint64_t ignored;                 /* AP accesses dropped while a sticky flag was set */
	uint64_t ppb_accesses;            /* Cortex-M system space accesses (not above) */
};

struct tt_sim_dap {
	/* TAP */
	uint8_t state, tck, ir, ir_sr;
	uint64_t dr_sr;
	unsigned dr_len;
	bool scan_wait;          /* this DPACC/APACC scan captured WAIT: its update is dropped */
	uint64_t clk;            /* TCK rising edges */
	/* DP */
	uint32_t ctrl_stat, select, rdbuf;
	bool powered;            /* false: power-up ACKs cannot rise (`power off`) */
	bool swd;                /* an SW-DP (DPIDR, ABORT at DP 0x0), not a JTAG-DP */
	uint8_t line;            /* TT_SIM_LINE_*: what the SWJ sequences selected */
	uint16_t swj_sel;        /* the last 16 SWJ bits, LSB first */
	uint32_t swj_ones;       /* consecutive SWDIO/TMS-high bits */
	int swj_armed;           /* bits since a run of >= 50 ones ended, or -1 */
	/* MEM-AP */
	uint32_t csw, tar;
	/* WAIT storm: the next wait_accesses APACC scans are answered WAIT (see sim_dap.c) */
	uint32_t wait_accesses;
	/* bus-fault window [bf_addr, bf_addr + bf_len) */
	bool bf_on;
	uint32_t bf_addr, bf_len;
	struct tt_sim_stats stats;
	struct tt_sim_mem_ops mem;
	/* A Cortex-M3 behind the AP (sim_cm.h), or NULL for a bare MEM-AP over RAM. With it the
	 * AP's BASE points at its ROM table and TAR auto-increment wraps within 4 KiB, as on
	 * Cortex-M3/M4 (OpenOCD's cortex_m assumes that block size for these cores). */
	struct tt_sim_cm *cm;
};

/* Power-on state: TAP in Test-Logic-Reset, DP powered down, no faults armed. mem is copied. */
void tt_sim_dap_init(struct tt_sim_dap *d, const struct tt_sim_mem_ops *mem);
/* A remote_bitbang '0'..'7' write; the TAP advances on a TCK rising edge. */
void tt_sim_dap_pins(struct tt_sim_dap *d, int tck, int tms, int tdi);
/* A remote_bitbang 'R' sample: the LSB of the active shift register. */
int tt_sim_dap_tdo(const struct tt_sim_dap *d);
/* TRST asserted: the TAP goes to Test-Logic-Reset (DP and AP state are kept). */
void tt_sim_dap_trst(struct tt_sim_dap *d);
/* SWD: nbits of SWJ sequence (SWDIO/TMS, LSB first) clocked into the SWJ-DP: a line reset
 * (>= 50 high bits) puts SWD into its reset state; after one, the JTAG-to-SWD select sequence
 * (0xE79E) selects SWD and SWD-to-JTAG (0xE73C) JTAG, as on an SWJ-DP (ADIv5 B5.2). */
void tt_sim_dap_swj(struct tt_sim_dap *d, const uint8_t *bits, unsigned nbits);
/* SWD: one DP or AP register access (a = register offset 0x0/0x4/0x8/0xC) as a CMSIS-DAP
 * probe completes it, posting hidden: an AP read's *val is its own result. Returns
 * TT_SIM_SWD_OK, TT_SIM_SWD_WAIT (a WAIT storm; nothing done), TT_SIM_SWD_FAULT (a sticky
 * flag was set, or this access set STICKYERR: bus fault, DAP unpowered) or TT_SIM_SWD_NOACK
 * (SWD not selected, or in its reset state and this is not the DPIDR read that ends it).
 * Needs d->swd. */
int tt_sim_dap_swd_access(struct tt_sim_dap *d, bool ap, bool rnw, unsigned a, uint32_t data,
			  uint32_t *val);
/* Fault hooks. */
void tt_sim_dap_wait_storm(struct tt_sim_dap *d, uint32_t accesses);
void tt_sim_dap_power(struct tt_sim_dap *d, bool on);

#endif
