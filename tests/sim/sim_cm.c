/* tests/sim/sim_cm.c: the Cortex-M3 private peripheral bus behind tt-simtarget (sim_cm.h).
 *
 * Register semantics follow the ARMv7-M Architecture Reference Manual (C1.6 debug registers,
 * B3.2 SCS) and what OpenOCD 0.12's cortex_m.c relies on: DHCSR writes need the debug key and
 * C_DEBUGEN, S_RESET_ST and S_RETIRE_ST are sticky and clear on read, DCRSR transfers complete
 * at once (S_REGRDY always set), a reset with DEMCR.VC_CORERESET halts at the reset vector.
 * Component IDs are those of a real Cortex-M3, so `dap info` walks a real-looking ROM table.
 */
#include "sim_cm.h"

#include <errno.h>
#include <stdlib.h>

#define DHCSR 0xE000EDF0u
#define DCRSR 0xE000EDF4u
#define DCRDR 0xE000EDF8u
#define DEMCR 0xE000EDFCu
#define CPUID 0xE000ED00u
#define AIRCR 0xE000ED0Cu
#define DFSR 0xE000ED30u
#define DWT_CTRL 0xE0001000u
#define FP_CTRL 0xE0002000u
#define FP_COMP0 0xE0002008u
#define FP_NCOMP 8

#define DBGKEY 0xA05Fu
#define VECTKEY 0x05FAu
#define C_DEBUGEN (1u << 0)
#define C_HALT (1u << 1)
#define C_STEP (1u << 2)
#define C_CTRL_MASK 0x2Fu        /* C_DEBUGEN, C_HALT, C_STEP, C_MASKINTS, C_SNAPSTALL */
#define S_REGRDY (1u << 16)
#define S_HALT (1u << 17)
#define S_RETIRE_ST (1u << 24)
#define S_RESET_ST (1u << 25)
#define DFSR_HALTED (1u << 0)
#define DFSR_BKPT (1u << 1)
#define DFSR_VCATCH (1u << 3)
#define VC_CORERESET (1u << 0)
#define REGWNR (1u << 16)
#define REG_PC 15
#define REG_XPSR 16
#define REG_MSP 17

/* DWT with 4 comparators; FPB with 6 code and 2 literal comparators, revision 1 */
#define DWT_CTRL_VAL 0x40000000u
#define FP_CTRL_VAL 0x00000260u

struct component {
	uint32_t base;
	uint8_t pidr[5];          /* PIDR0..PIDR4 */
	uint8_t cls;              /* CIDR1: 0x10 ROM table, 0xE0 generic IP */
};

/* ARM (JEP106 0x3B, continuation 4) Cortex-M3 parts: ROM table 0x4C3, SCS 0x000, ITM 0x001,
 * DWT 0x002, FPB 0x003. The ROM table lists the four others, in this order. */
static const struct component components[] = {
	{ TT_SIM_CM_ROM, { 0xC3, 0xB4, 0x0B, 0x00, 0x04 }, 0x10 },
	{ 0xE000E000u, { 0x00, 0xB0, 0x0B, 0x00, 0x04 }, 0xE0 },
	{ 0xE0001000u, { 0x02, 0xB0, 0x3B, 0x00, 0x04 }, 0xE0 },
	{ 0xE0002000u, { 0x03, 0xB0, 0x2B, 0x00, 0x04 }, 0xE0 },
	{ 0xE0000000u, { 0x01, 0xB0, 0x3B, 0x00, 0x04 }, 0xE0 },
};
#define NCOMP (sizeof(components) / sizeof(components[0]))

/* A CoreSight ID register or ROM table word at addr; false when addr is neither. */
static bool id_reg(uint32_t addr, uint32_t *v)
{
	for (unsigned i = 0; i < NCOMP; i++) {
		const struct component *c = &components[i];
		uint32_t off = addr - c->base;

		if (addr < c->base || off >= 0x1000)
			continue;
		if (off >= 0xFD0 && off < 0xFE0) {
			*v = off == 0xFD0 ? c->pidr[4] : 0;
			return true;
		}
		if (off >= 0xFE0 && off < 0xFF0) {
			*v = c->pidr[(off - 0xFE0) / 4];
			return true;
		}
		if (off >= 0xFF0) {
			static const uint8_t cid[4] = { 0x0D, 0, 0x05, 0xB1 };
			*v = off == 0xFF4 ? c->cls : cid[(off - 0xFF0) / 4];
			return true;
		}
		if (i != 0)
			return false;
		if (off == 0xFCC) {	/* MEMTYPE: system memory on this bus */
			*v = 1;
			return true;
		}
		/* entries: offset from the ROM table, present, 32-bit format; then 0 = end */
		*v = off / 4 + 1 < NCOMP ? components[off / 4 + 1].base - TT_SIM_CM_ROM + 3 : 0;
		return off < 0xF00;
	}
	return false;
}

int tt_sim_cm_init(struct tt_sim_cm *cm, const struct tt_sim_core_ops *core, uint32_t reset_sp,
		   uint32_t reset_pc)
{
	*cm = (struct tt_sim_cm){ .reset_sp = reset_sp, .reset_pc = reset_pc,
				  .fp_ctrl = FP_CTRL_VAL };
	if (core)
		cm->core = *core;
	cm->store = calloc((TT_SIM_CM_PPB_END - TT_SIM_CM_PPB) / 4, sizeof(uint32_t));
	if (!cm->store)
		return -ENOMEM;
	cm->regs[13] = cm->regs[REG_MSP] = reset_sp;
	cm->regs[REG_PC] = reset_pc;
	cm->regs[REG_XPSR] = 0x01000000u;	/* Thumb */
	cm->regs[14] = 0xFFFFFFFFu;
	return 0;
}

void tt_sim_cm_free(struct tt_sim_cm *cm)
{
	free(cm->store);
	cm->store = NULL;
}

static void core_regs(struct tt_sim_cm *cm)
{
	if (cm->core.regs)
		cm->core.regs(cm->core.ctx, cm->regs);
}

static void core_halt(struct tt_sim_cm *cm)
{
	cm->halted = true;
	cm->dfsr |= DFSR_HALTED;
	cm->halts++;
	if (cm->core.halt)
		cm->core.halt(cm->core.ctx);
	core_regs(cm);
}

/* A breakpoint at PC: an enabled FPB comparator (revision 1 format: word address in bits 28:2)
 * or a BKPT instruction (0xBExx) in memory, as OpenOCD sets for addresses FPB rev 1 cannot
 * match. OpenOCD's step relies on it: it resumes onto a breakpoint at PC to let pending
 * interrupts run, and waits for the core to halt there. */
static bool bkpt_at_pc(struct tt_sim_cm *cm)
{
	uint32_t pc = cm->regs[REG_PC], insn;

	if (cm->fp_ctrl & 1) {
		for (unsigned i = 0; i < FP_NCOMP; i++) {
			uint32_t c = cm->store[(FP_COMP0 + 4 * i - TT_SIM_CM_PPB) / 4];

			if ((c & 1) && (c & 0x1FFFFFFCu) == (pc & 0x1FFFFFFCu) && pc < 0x20000000u)
				return true;
		}
	}
	return cm->read16 && cm->read16(cm->read16_ctx, pc & ~1u, &insn) == 0 &&
	       (insn & 0xFF00) == 0xBE00;
}

static void core_resume(struct tt_sim_cm *cm)
{
	if (bkpt_at_pc(cm)) {	/* the core stops again before the firmware runs */
		cm->resumes++;
		cm->halts++;
		cm->retired = true;
		cm->dfsr |= DFSR_BKPT;
		return;
	}
	cm->halted = false;
	cm->retired = true;
	cm->resumes++;
	if (cm->core.resume)
		cm->core.resume(cm->core.ctx);
}

void tt_sim_cm_reset(struct tt_sim_cm *cm)
{
	bool halt = (cm->dhcsr & C_DEBUGEN) && (cm->demcr & VC_CORERESET);

	for (unsigned i = 0; i < TT_SIM_CM_NREGS; i++)
		cm->regs[i] = 0;
	cm->regs[13] = cm->regs[REG_MSP] = cm->reset_sp;
	cm->regs[REG_PC] = cm->reset_pc;
	cm->regs[REG_XPSR] = 0x01000000u;
	cm->regs[14] = 0xFFFFFFFFu;
	cm->reset_st = true;
	cm->resets++;
	cm->halted = halt;
	if (halt) {
		cm->dhcsr |= C_HALT;
		cm->dfsr |= DFSR_VCATCH;
	} else {
		cm->dhcsr &= ~C_HALT;
		cm->retired = true;
	}
	if (cm->core.reset)
		cm->core.reset(cm->core.ctx, halt);
}

static void dhcsr_write(struct tt_sim_cm *cm, uint32_t v)
{
	uint32_t c = v & C_CTRL_MASK;

	if (v >> 16 != DBGKEY)
		return;	/* without the key the write is ignored */
	if (!(c & C_DEBUGEN)) {
		cm->dhcsr = 0;	/* halting debug off: C_HALT and C_STEP mean nothing */
		if (cm->halted)
			core_resume(cm);
		return;
	}
	cm->dhcsr = c;
	if ((c & C_HALT) && !cm->halted) {
		core_halt(cm);
	} else if (!(c & C_HALT) && cm->halted) {
		core_resume(cm);
		if (c & C_STEP) {	/* one instruction, then Debug state again */
			cm->regs[REG_PC] += 2;	/* unless the core knows better (core_regs) */
			cm->steps++;
			core_halt(cm);
		}
	}
}

static uint32_t dhcsr_read(struct tt_sim_cm *cm)
{
	int h = cm->core.halted ? cm->core.halted(cm->core.ctx) : -1;
	uint32_t v;

	if (h >= 0 && (bool)h != cm->halted) {
		/* stopped or continued behind the debugger (QEMU started with -S, its monitor):
		 * a stopped core shows as halted in debug state, so a debugger that attaches finds
		 * it halted and leaves it so until it resumes it */
		cm->halted = h;
		if (h) {
			cm->dhcsr |= C_DEBUGEN | C_HALT;
			cm->dfsr |= DFSR_HALTED;
			core_regs(cm);
		} else {
			cm->dhcsr &= ~C_HALT;
			cm->retired = true;
		}
	}
	v = cm->dhcsr | S_REGRDY;
	if (cm->halted)
		v |= S_HALT;
	if (cm->retired || !cm->halted)
		v |= S_RETIRE_ST;
	if (cm->reset_st)
		v |= S_RESET_ST;
	cm->retired = cm->reset_st = false;	/* sticky: cleared by this read */
	return v;
}

static void dcrsr_write(struct tt_sim_cm *cm, uint32_t v)
{
	unsigned sel = v & 0x7F;

	if (sel >= TT_SIM_CM_NREGS)
		return;
	if (v & REGWNR)
		cm->regs[sel] = cm->dcrdr;
	else
		cm->dcrdr = cm->regs[sel];
}

/* A word register at addr: true and *v when addr is one with its own read semantics. */
static bool reg_read(struct tt_sim_cm *cm, uint32_t addr, uint32_t *v)
{
	switch (addr) {
	case CPUID: *v = TT_SIM_CM_CPUID; return true;
	case AIRCR: *v = (uint32_t)0xFA05u << 16 | (cm->aircr & 0x700); return true;
	case DFSR: *v = cm->dfsr; return true;
	case DHCSR: *v = dhcsr_read(cm); return true;
	case DCRSR: *v = 0; return true;
	case DCRDR: *v = cm->dcrdr; return true;
	case DEMCR: *v = cm->demcr; return true;
	case DWT_CTRL: *v = DWT_CTRL_VAL; return true;
	case FP_CTRL: *v = cm->fp_ctrl; return true;
	default: return id_reg(addr, v);
	}
}

static bool reg_write(struct tt_sim_cm *cm, uint32_t addr, uint32_t v)
{
	switch (addr) {
	case AIRCR:
		if (v >> 16 != VECTKEY)
			return true;
		cm->aircr = v & 0x700;
		if (v & 0x5)	/* SYSRESETREQ or VECTRESET */
			tt_sim_cm_reset(cm);
		return true;
	case DFSR: cm->dfsr &= ~v; return true;
	case DHCSR: dhcsr_write(cm, v); return true;
	case DCRSR: dcrsr_write(cm, v); return true;
	case DCRDR: cm->dcrdr = v; return true;
	case DEMCR: cm->demcr = v; return true;
	case FP_CTRL:
		if (v & 2)	/* KEY: ENABLE is written only with it */
			cm->fp_ctrl = (cm->fp_ctrl & ~1u) | (v & 1);
		return true;
	case CPUID: case DWT_CTRL: return true;	/* read-only */
	default: {
		uint32_t dummy;
		return id_reg(addr, &dummy);	/* read-only */
	}
	}
}

int tt_sim_cm_read(struct tt_sim_cm *cm, uint32_t addr, unsigned size, uint32_t *val)
{
	uint32_t w, word = addr & ~3u, lane = 8 * (addr & 3);

	if (!reg_read(cm, word, &w))
		w = cm->store[(word - TT_SIM_CM_PPB) / 4];
	*val = size == 4 ? w : (w >> lane) & ((1u << 8 * size) - 1);
	return 0;
}

int tt_sim_cm_write(struct tt_sim_cm *cm, uint32_t addr, unsigned size, uint32_t val)
{
	uint32_t word = addr & ~3u, lane = 8 * (addr & 3), *p;

	if (size == 4 && reg_write(cm, word, val))
		return 0;
	p = &cm->store[(word - TT_SIM_CM_PPB) / 4];
	if (size == 4) {
		*p = val;
	} else {
		uint32_t mask = ((1u << 8 * size) - 1) << lane;
		*p = (*p & ~mask) | ((val << lane) & mask);
	}
	return 0;
}
