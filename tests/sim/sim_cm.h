/* tests/sim/sim_cm.h: the Cortex-M3 debug model behind tt-simtarget's AHB-AP, as a pure model.
 *
 * The private peripheral bus (0xE0000000-0xE00FFFFF) of a Cortex-M3 r2p1 as OpenOCD's `cortex_m`
 * target sees it: the ROM table and CoreSight IDs, SCS (CPUID, AIRCR, DFSR, DHCSR, DCRSR/DCRDR,
 * DEMCR), DWT and FPB with their real IDs, everything else plain storage. Halting, resuming,
 * stepping and resetting the core are handed to struct tt_sim_core_ops, so the same model drives
 * a host workload (stopped with signals) or an emulator. No I/O here.
 */
#ifndef TT_SIM_CM_H
#define TT_SIM_CM_H

#include <stdbool.h>
#include <stdint.h>

#define TT_SIM_CM_PPB 0xE0000000u
#define TT_SIM_CM_PPB_END 0xE0100000u
#define TT_SIM_CM_ROM 0xE00FF000u
#define TT_SIM_CM_CPUID 0x412FC231u /* Cortex-M3 r2p1, as on STM32F1 and QEMU's mps2-an385 */
#define TT_SIM_CM_NREGS 0x22        /* DCRSR REGSEL 0..0x21 */

/* What the firmware side does when the debugger acts. Each hook returns 0 or -errno (the debug
 * state still follows the debugger: a core that cannot be stopped is a test failure to see). */
struct tt_sim_core_ops {
	int (*halt)(void *ctx);
	int (*resume)(void *ctx);
	/* A system reset: the firmware starts again; halt = stay halted at the reset vector. */
	int (*reset)(void *ctx, bool halt);
	/* The core's real state when it can change behind the debugger's back (an emulator):
	 * 1 halted, 0 running, < 0 unknown (keep the model's). May be NULL. */
	int (*halted)(void *ctx);
	/* The halted core's registers, when it has real ones (an emulator): fills what it knows of
	 * regs[TT_SIM_CM_NREGS] (DCRSR numbering). May be NULL: the model's own register file. */
	void (*regs)(void *ctx, uint32_t *regs);
	void *ctx;
};

struct tt_sim_cm {
	uint32_t dhcsr;        /* C_* control bits as last written */
	bool halted, reset_st, retired;
	uint32_t dfsr, demcr, dcrdr, aircr, fp_ctrl;
	uint32_t regs[TT_SIM_CM_NREGS];
	uint32_t reset_sp, reset_pc; /* SP and PC after a reset (the vector table's first words) */
	uint64_t halts, resumes, steps, resets;
	uint32_t *store;       /* 1 MiB of plain PPB storage (owned) */
	struct tt_sim_core_ops core;
	/* Reads the halfword at PC (a BKPT instruction there halts at once); may be NULL. */
	int (*read16)(void *ctx, uint32_t addr, uint32_t *val);
	void *read16_ctx;
};

/* Running, out of reset, debug disabled; SP and PC as after a reset. core is copied (every hook
 * may be NULL). 0 or -ENOMEM. */
int tt_sim_cm_init(struct tt_sim_cm *cm, const struct tt_sim_core_ops *core, uint32_t reset_sp,
		   uint32_t reset_pc);
void tt_sim_cm_free(struct tt_sim_cm *cm);
/* One aligned 1/2/4-byte access inside the PPB. 0 (never faults: the PPB is all there). */
int tt_sim_cm_read(struct tt_sim_cm *cm, uint32_t addr, unsigned size, uint32_t *val);
int tt_sim_cm_write(struct tt_sim_cm *cm, uint32_t addr, unsigned size, uint32_t val);
/* A reset from outside (the control socket): as AIRCR.SYSRESETREQ. */
void tt_sim_cm_reset(struct tt_sim_cm *cm);

#endif
