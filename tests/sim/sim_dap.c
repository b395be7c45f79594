/* tests/sim/sim_dap.c: the JTAG TAP, ADIv5 JTAG-DP and AHB MEM-AP model behind tt-simtarget.
 *
 * Owns the debug-port semantics OpenOCD 0.12 relies on: posted reads (a DPACC/APACC scan
 * captures the result of the previous read), power-up ACKs that mirror their requests, sticky
 * error flags that make the DP drop AP accesses, and MEM-AP auto-increment that wraps inside
 * 1 KiB like real AHB-APs. Memory goes through struct tt_sim_mem_ops so the same model serves a
 * shared RAM file and a live process.
 */
#include "sim_dap.h"

#include <errno.h>

enum {
	TLR, RTI, SELDR, CAPDR, SHDR, EX1DR, PAUSEDR, EX2DR, UPDDR,
	SELIR, CAPIR, SHIR, EX1IR, PAUSEIR, EX2IR, UPDIR,
};

/* next state for TMS = 0 / 1 (IEEE 1149.1 figure 6-1) */
static const uint8_t tap_next[16][2] = {
	[TLR] = {RTI, TLR},       [RTI] = {RTI, SELDR},
	[SELDR] = {CAPDR, SELIR}, [CAPDR] = {SHDR, EX1DR},
	[SHDR] = {SHDR, EX1DR},   [EX1DR] = {PAUSEDR, UPDDR},
	[PAUSEDR] = {PAUSEDR, EX2DR}, [EX2DR] = {SHDR, UPDDR},
	[UPDDR] = {RTI, SELDR},   [SELIR] = {CAPIR, TLR},
	[CAPIR] = {SHIR, EX1IR},  [SHIR] = {SHIR, EX1IR},
	[EX1IR] = {PAUSEIR, UPDIR}, [PAUSEIR] = {PAUSEIR, EX2IR},
	[EX2IR] = {SHIR, UPDIR},  [UPDIR] = {RTI, SELDR},
};

enum { IR_ABORT = 0x8, IR_DPACC = 0xA, IR_APACC = 0xB, IR_IDCODE = 0xE, IR_BYPASS = 0xF };

#define ACK_OK 0x2u   /* OK/FAULT: JTAG-DP reports faults through CTRL/STAT only */
#define ACK_WAIT 0x1u

#define CS_ORUNDETECT (1u << 0)
#define CS_STICKYORUN (1u << 1)
#define CS_STICKYCMP (1u << 4)
#define CS_STICKYERR (1u << 5)
#define CS_READOK (1u << 6)
#define CS_WDATAERR (1u << 7)
#define CS_CDBGPWRUPACK (1u << 29)
#define CS_ACKS ((1u << 31) | (1u << 29) | (1u << 27))
#define CS_W1C (CS_STICKYORUN | CS_STICKYCMP | CS_STICKYERR)

#define SWD_ABORT_DAPABORT (1u << 0)
#define SWD_ABORT_STKCMPCLR (1u << 1)
#define SWD_ABORT_STKERRCLR (1u << 2)
#define SWD_ABORT_WDERRCLR (1u << 3)
#define SWD_ABORT_ORUNERRCLR (1u << 4)

#define CSW_DEVICEEN (1u << 6)
#define CSW_TRINPROG (1u << 7)

void tt_sim_dap_init(struct tt_sim_dap *d, const struct tt_sim_mem_ops *mem)
{
	*d = (struct tt_sim_dap){ .state = TLR, .ir = IR_IDCODE, .powered = true, .mem = *mem,
				  .swj_armed = -1 };
}

void tt_sim_dap_trst(struct tt_sim_dap *d)
{
	d->state = TLR;
	d->ir = IR_IDCODE;
}

void tt_sim_dap_wait_storm(struct tt_sim_dap *d, uint32_t accesses)
{
	d->wait_accesses = accesses;
}

static void update_acks(struct tt_sim_dap *d)
{
	/* ACK bits sit one above their REQ bits: 30->31, 28->29, 26->27 */
	d->ctrl_stat &= ~CS_ACKS;
	if (d->powered)
		d->ctrl_stat |= (d->ctrl_stat << 1) & CS_ACKS;
}

void tt_sim_dap_power(struct tt_sim_dap *d, bool on)
{
	d->powered = on;
	if (!on)	/* a power loss resets the requests too: the debugger must re-power */
		d->ctrl_stat &= ~(CS_ACKS | (CS_ACKS >> 1));
	update_acks(d);
}

static bool in_bus_fault(const struct tt_sim_dap *d, uint32_t addr, unsigned size)
{
	return d->bf_on && (uint64_t)addr + size > d->bf_addr &&
	       (uint64_t)addr < (uint64_t)d->bf_addr + d->bf_len;
}

static int mem_access(struct tt_sim_dap *d, bool rnw, uint32_t addr, unsigned size, uint32_t *v)
{
	if (in_bus_fault(d, addr, size))
		return -EFAULT;
	if (d->cm && addr >= TT_SIM_CM_PPB && addr < TT_SIM_CM_PPB_END) {
		d->stats.ppb_accesses++;
		return rnw ? tt_sim_cm_read(d->cm, addr, size, v)
			   : tt_sim_cm_write(d->cm, addr, size, *v);
	}
	if (rnw) {
		d->stats.ap_reads++;
		d->stats.bytes_read += size;
		return d->mem.read(d->mem.ctx, addr, size, v);
	}
	d->stats.ap_writes++;
	d->stats.bytes_written += size;
	return d->mem.write(d->mem.ctx, addr, size, *v);
}

/* DRW: one access of CSW.Size, or with packed transfers (AddrInc = 2) as many items as fit in
 * 32 bits; each item travels in byte lane 8 * (address & 3). */
static uint32_t ap_drw(struct tt_sim_dap *d, bool rnw, uint32_t data)
{
	unsigned sz = d->csw & 7, inc = (d->csw >> 4) & 3;
	unsigned nbytes = sz > 2 ? 4 : 1u << sz;
	unsigned n = inc == 2 ? 4 / nbytes : 1;
	uint32_t out = 0, addr = d->tar;

	for (unsigned i = 0; i < n; i++) {
		uint32_t a = addr & ~(nbytes - 1), lane = 8 * (a & 3), v;
		uint32_t mask = nbytes == 4 ? 0xFFFFFFFFu : (1u << 8 * nbytes) - 1;

		v = (data >> lane) & mask;
		if (mem_access(d, rnw, a, nbytes, &v) < 0) {
			d->ctrl_stat |= CS_STICKYERR;
			d->stats.bus_faults++;
			return 0;
		}
		out |= (v & mask) << lane;
		addr += nbytes;
	}
	if (inc) {
		uint32_t wrap = d->cm ? 0xFFFu : 0x3FFu;

		d->tar = (d->tar & ~wrap) | ((d->tar + nbytes * n) & wrap);
	}
	return out;
}

static uint32_t ap_access(struct tt_sim_dap *d, bool rnw, unsigned a, uint32_t data)
{
	unsigned reg = (d->select & 0xF0) | a;
	uint32_t v = 0;

	if (d->select >> 24)	/* only AP 0 exists */
		return 0;
	switch (reg) {
	case 0x00:
		if (!rnw)
			d->csw = data & ~(CSW_DEVICEEN | CSW_TRINPROG);
		return d->csw | CSW_DEVICEEN;
	case 0x04:
		if (!rnw)
			d->tar = data;
		return d->tar;
	case 0x0C:
		return ap_drw(d, rnw, data);
	case 0x10: case 0x14: case 0x18: case 0x1C:
		v = data;
		if (mem_access(d, rnw, (d->tar & ~0xFu) + (reg - 0x10), 4, &v) < 0) {
			d->ctrl_stat |= CS_STICKYERR;
			d->stats.bus_faults++;
			return 0;
		}
		return v;
	case 0xF8:
		/* BASE: the ROM table (format bit, present), or none (entry not present) */
		return d->cm ? TT_SIM_CM_ROM | 0x3 : 0x2;
	case 0xFC:
		return TT_SIM_AP_IDR;
	default:
		return 0;	/* CFG (0xF4) = 0: little-endian, 32-bit addresses */
	}
}

/* DAPABORT cancels a WAIT storm (JTAG: the ABORT scan chain; SWD: DP register 0 written). */
static void dap_abort(struct tt_sim_dap *d)
{
	d->stats.waits_aborted += d->wait_accesses;
	d->wait_accesses = 0;
}

/* SW-DP ABORT: DAPABORT, then the sticky-flag clear bits (SWD cannot clear them through
 * CTRL/STAT, where they are read-only). */
static void swd_abort(struct tt_sim_dap *d, uint32_t data)
{
	if (data & SWD_ABORT_DAPABORT)
		dap_abort(d);
	if (data & SWD_ABORT_STKCMPCLR)
		d->ctrl_stat &= ~CS_STICKYCMP;
	if (data & SWD_ABORT_STKERRCLR)
		d->ctrl_stat &= ~CS_STICKYERR;
	if (data & SWD_ABORT_WDERRCLR)
		d->ctrl_stat &= ~CS_WDATAERR;
	if (data & SWD_ABORT_ORUNERRCLR)
		d->ctrl_stat &= ~CS_STICKYORUN;
}

/* DP registers. JTAG-DP (DPv0): 0x0 reserved, 0x4 CTRL/STAT (sticky bits write-1-to-clear),
 * 0x8 SELECT, 0xC RDBUFF (the scan chain carries the posted result; reads 0 here). SW-DP
 * (DPv1): 0x0 DPIDR / ABORT, 0x4 CTRL/STAT (sticky bits read-only), 0x8 SELECT / RESEND,
 * 0xC RDBUFF (the last AP read's result). */
static uint32_t dp_access(struct tt_sim_dap *d, bool rnw, unsigned a, uint32_t data)
{
	if (rnw) {
		switch (a) {
		case 0x0: return d->swd ? TT_SIM_SWD_DPIDR : 0;
		case 0x4: return d->ctrl_stat;
		case 0x8: return d->swd ? d->rdbuf : d->select;
		default: return d->swd ? d->rdbuf : 0;
		}
	}
	if (a == 0x0 && d->swd) {
		swd_abort(d, data);
	} else if (a == 0x4) {
		uint32_t w1c = d->swd ? 0 : CS_W1C & data;
		uint32_t keep = d->ctrl_stat & (CS_W1C | CS_WDATAERR) & ~w1c;

		d->ctrl_stat = (data & ~(CS_W1C | CS_ACKS | CS_READOK | CS_WDATAERR)) | keep;
		update_acks(d);
	} else if (a == 0x8) {
		d->select = data;
	}
	return 0;
}

#define SWJ_JTAG_TO_SWD 0xE79Eu
#define SWJ_SWD_TO_JTAG 0xE73Cu

void tt_sim_dap_swj(struct tt_sim_dap *d, const uint8_t *bits, unsigned nbits)
{
	for (unsigned i = 0; i < nbits; i++) {
		unsigned bit = bits[i / 8] >> (i % 8) & 1;

		d->swj_sel = (uint16_t)(d->swj_sel >> 1 | bit << 15);
		if (bit && ++d->swj_ones == 50) {	/* line reset: DPBANKSEL = 0 too */
			if (d->line != TT_SIM_LINE_JTAG)
				d->line = TT_SIM_LINE_SWD_RESET;
			d->select &= ~0xFu;
		}
		if (!bit) {
			if (d->swj_ones >= 50)
				d->swj_armed = 0;
			d->swj_ones = 0;
		}
		if (d->swj_armed >= 0 && ++d->swj_armed == 16) {
			if (d->swj_sel == SWJ_JTAG_TO_SWD)
				d->line = TT_SIM_LINE_SWD_RESET;
			else if (d->swj_sel == SWJ_SWD_TO_JTAG)
				d->line = TT_SIM_LINE_JTAG;
			d->swj_armed = -1;
		}
	}
}

int tt_sim_dap_swd_access(struct tt_sim_dap *d, bool ap, bool rnw, unsigned a, uint32_t data,
			  uint32_t *val)
{
	uint32_t v;

	*val = 0;
	if (d->line != TT_SIM_LINE_SWD) {	/* the target does not drive SWDIO */
		if (d->line == TT_SIM_LINE_JTAG || ap || !rnw || (a & 0xC))
			return TT_SIM_SWD_NOACK;
		d->line = TT_SIM_LINE_SWD;	/* the DPIDR read ends the reset state */
	}
	if (!ap) {
		v = dp_access(d, rnw, a & 0xC, data);
		if (rnw)
			*val = v;
		return TT_SIM_SWD_OK;
	}
	/* OpenOCD never enables overrun detection over CMSIS-DAP, so a WAIT leaves no sticky
	 * flag: the probe retries (DAP_TransferConfigure's WAIT retry count) and the storm is
	 * spent one attempt at a time. */
	if (d->wait_accesses) {
		d->wait_accesses--;
		d->stats.waits++;
		if (d->ctrl_stat & CS_ORUNDETECT)
			d->ctrl_stat |= CS_STICKYORUN;
		return TT_SIM_SWD_WAIT;
	}
	if (d->ctrl_stat & (CS_STICKYERR | CS_STICKYORUN | CS_STICKYCMP | CS_WDATAERR)) {
		d->stats.ignored++;
		return TT_SIM_SWD_FAULT;
	}
	if (!(d->ctrl_stat & CS_CDBGPWRUPACK)) {
		d->ctrl_stat |= CS_STICKYERR;
		d->stats.bus_faults++;
		return TT_SIM_SWD_FAULT;
	}
	v = ap_access(d, rnw, a & 0xC, data);
	/* A bus fault of this access: a real probe sees it as FAULT on the RDBUFF read that
	 * follows the posted access (DAP_Transfer checks the last write the same way). */
	if (d->ctrl_stat & CS_STICKYERR)
		return TT_SIM_SWD_FAULT;
	if (rnw)
		*val = d->rdbuf = v;
	return TT_SIM_SWD_OK;
}

static void xacc_update(struct tt_sim_dap *d, bool ap)
{
	bool rnw = d->dr_sr & 1;
	unsigned a = (unsigned)((d->dr_sr >> 1) & 3) << 2;
	uint32_t data = (uint32_t)(d->dr_sr >> 3), v;

	if (d->scan_wait)
		return;
	if (!ap) {
		v = dp_access(d, rnw, a, data);
		if (rnw)
			d->rdbuf = v;
		return;
	}
	/* OpenOCD's WAIT/overrun recovery depends on AP accesses being dropped while sticky */
	if (d->ctrl_stat & (CS_STICKYERR | CS_STICKYORUN)) {
		d->stats.ignored++;
		return;
	}
	if (!(d->ctrl_stat & CS_CDBGPWRUPACK)) {
		d->ctrl_stat |= CS_STICKYERR;
		d->stats.bus_faults++;
		return;
	}
	v = ap_access(d, rnw, a, data);
	if (rnw)
		d->rdbuf = v;
}

static void dr_capture(struct tt_sim_dap *d)
{
	d->scan_wait = false;
	switch (d->ir) {
	case IR_IDCODE:
		d->dr_sr = TT_SIM_IDCODE;
		d->dr_len = 32;
		break;
	case IR_DPACC:
	case IR_APACC:
		d->dr_len = 35;
		/* A WAIT storm answers the next APACC scans WAIT, one scan each: the AP is "busy"
		 * only until that scan ends. remote_bitbang costs a network round trip per scan, so
		 * a busy period in clocks or microseconds would never be seen by the next scan, and
		 * one that outlived a scan would swallow the CTRL/STAT write OpenOCD uses to clear
		 * STICKYORUN (it never checks that ACK), silently dropping the replayed accesses.
		 * The WAIT scan leaves rdbuf alone, so OpenOCD recovers a pending read from the
		 * next OK scan as it does on hardware. */
		if (d->ir == IR_APACC && d->wait_accesses) {
			d->wait_accesses--;
			d->scan_wait = true;
			d->stats.waits++;
			if (d->ctrl_stat & CS_ORUNDETECT)
				d->ctrl_stat |= CS_STICKYORUN;
			d->dr_sr = ACK_WAIT;
		} else {
			d->dr_sr = ACK_OK | (uint64_t)d->rdbuf << 3;
		}
		break;
	case IR_ABORT:
		d->dr_sr = 0;
		d->dr_len = 35;
		break;
	default:	/* BYPASS and every unknown instruction */
		d->dr_sr = 0;
		d->dr_len = 1;
		break;
	}
}

static void dr_update(struct tt_sim_dap *d)
{
	switch (d->ir) {
	case IR_DPACC:
		xacc_update(d, false);
		break;
	case IR_APACC:
		xacc_update(d, true);
		break;
	case IR_ABORT:
		if (d->dr_sr & (1u << 3))	/* DAPABORT */
			dap_abort(d);
		break;
	default:
		break;
	}
}

void tt_sim_dap_pins(struct tt_sim_dap *d, int tck, int tms, int tdi)
{
	bool rising = tck && !d->tck;

	d->tck = (uint8_t)tck;
	if (!rising)
		return;
	d->clk++;
	if (d->state == SHDR)
		d->dr_sr = (d->dr_sr >> 1) | ((uint64_t)(tdi & 1) << (d->dr_len - 1));
	else if (d->state == SHIR)
		d->ir_sr = (uint8_t)((d->ir_sr >> 1) | ((tdi & 1) << 3));
	d->state = tap_next[d->state][tms & 1];
	switch (d->state) {
	case TLR: d->ir = IR_IDCODE; break;
	case CAPDR: dr_capture(d); break;
	case UPDDR: dr_update(d); break;
	case CAPIR: d->ir_sr = 0x1; break;	/* OpenOCD checks the 0b0001 capture */
	case UPDIR: d->ir = d->ir_sr & 0xF; break;
	default: break;
	}
}

int tt_sim_dap_tdo(const struct tt_sim_dap *d)
{
	if (d->state == SHDR)
		return (int)(d->dr_sr & 1);
	if (d->state == SHIR)
		return d->ir_sr & 1;
	return 0;
}
