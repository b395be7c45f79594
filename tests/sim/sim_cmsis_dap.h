/* tests/sim/sim_cmsis_dap.h: the command side of a CMSIS-DAP v2 probe wired to the simulated
 * SW-DP (sim_dap.h), as a pure model.
 *
 * One call per USB command packet: DAP_Info, DAP_HostStatus, DAP_Connect (SWD only),
 * DAP_Disconnect, DAP_TransferConfigure, DAP_Transfer (with WAIT retries, value match and match
 * mask), DAP_TransferBlock, DAP_WriteABORT, DAP_Delay, DAP_ResetTarget, DAP_SWJ_Pins,
 * DAP_SWJ_Clock, DAP_SWJ_Sequence, DAP_SWD_Configure, DAP_SWD_Sequence; anything else
 * (JTAG, SWO, UART, atomic commands) is answered "invalid command" (0xFF), as a probe without
 * those capabilities does. No I/O: the owner moves packets (tt-simtarget's --cmsis-dap link).
 */
#ifndef TT_SIM_CMSIS_DAP_H
#define TT_SIM_CMSIS_DAP_H

#include <stddef.h>
#include <stdint.h>

#include "sim_dap.h"

#define TT_SIM_DAP_PACKET_COUNT 4 /* commands the probe buffers (DAP_Info 0xFE) */
#define TT_SIM_DAP_SERIAL "TTSIM0001" /* DAP_Info and the USB serial string descriptor */
#define TT_SIM_DAP_MAX_PACKET 1024 /* largest packet size a link may ask for */

struct tt_sim_cmsis_dap {
	struct tt_sim_dap *dap;   /* borrowed; its swd flag is set by init */
	uint8_t port;             /* 0 disconnected, 1 SWD */
	uint8_t pins;             /* DAP_SWJ_Pins output state (bit 7 nRESET) */
	uint16_t wait_retry, match_retry;
	uint32_t match_mask, clock_hz;
	/* commands and SWD transfers executed; command bytes received (USB OUT) and response
	 * bytes sent (USB IN) */
	uint64_t commands, transfers, bytes_out, bytes_in;
};

/* Disconnected, defaults of the CMSIS-DAP firmware (WAIT retry 100, match retry 0). Sets
 * dap->swd. */
void tt_sim_cmsis_dap_init(struct tt_sim_cmsis_dap *c, struct tt_sim_dap *dap);

/* Executes one command packet req[0..len) and writes its response into resp; cap is the
 * probe's packet size (DAP_Info 0xFF reports it; 64..TT_SIM_DAP_MAX_PACKET). Returns the response length, 0 for a
 * command that has none (DAP_TransferAbort, an empty packet). Malformed packets get a defined
 * answer (a truncated transfer list stops where its data ends), never a read past req. */
size_t tt_sim_cmsis_dap_command(struct tt_sim_cmsis_dap *c, const uint8_t *req, size_t len,
				uint8_t *resp, size_t cap);

#endif
