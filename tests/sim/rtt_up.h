/* tests/sim/rtt_up.h: a SEGGER RTT control block with one up-buffer in the simulated target's
 * RAM, written as the SEGGER library writes it, so that OpenOCD's `rtt setup/start/server` reads
 * it as it reads a real firmware's. Layout (little-endian, all offsets from the block):
 *   0  acID[16]            "SEGGER RTT"
 *   16 MaxNumUpBuffers     1
 *   20 MaxNumDownBuffers   0
 *   24 aUp[0]: sName (pointer), pBuffer (pointer), SizeOfBuffer, WrOff, RdOff, Flags (24 bytes)
 *   48 the channel name    "Trace"
 *   64 the buffer          SizeOfBuffer bytes
 * The firmware advances WrOff, the debugger RdOff. Flags 0 = SEGGER_RTT_MODE_NO_BLOCK_SKIP: a
 * record that does not fit whole is dropped, so the stream never carries a partial record.
 */
#ifndef TT_SIM_RTT_UP_H
#define TT_SIM_RTT_UP_H

#include <stdbool.h>
#include <stdint.h>

#define RTTW_HDR 64u /* bytes before the buffer */

struct rttw {
	uint8_t *blk;    /* the control block in the mapped RAM */
	uint32_t size;   /* SizeOfBuffer */
	uint64_t dropped;
};

/* Lays out the block at RAM offset off (target address base + off) with a size-byte buffer. */
void rttw_init(struct rttw *r, uint8_t *ram, uint32_t base, uint32_t off, uint32_t size);
/* Appends len bytes whole, or drops them (counted) when the reader has not left room. */
bool rttw_put(struct rttw *r, const void *data, uint32_t len);

#endif
