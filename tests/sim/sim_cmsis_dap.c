/* tests/sim/sim_cmsis_dap.c: a CMSIS-DAP v2 probe's command interpreter over the simulated SW-DP.
 *
 * What a probe's firmware does between the USB packet and the SWD wire: it hides posted AP
 * reads (an AP read's response word is that read's own result), retries WAIT acknowledgements
 * up to the configured count, and stops a transfer list at the first access that is not OK,
 * reporting how many completed. Packet layouts follow the CMSIS-DAP v2 command reference; the
 * SWD semantics (DPIDR, ABORT, sticky flags, power) live in sim_dap.c.
 */
#include "sim_cmsis_dap.h"

#include <string.h>

enum {
	DAP_INFO = 0x00, DAP_HOST_STATUS = 0x01, DAP_CONNECT = 0x02, DAP_DISCONNECT = 0x03,
	DAP_TRANSFER_CONFIGURE = 0x04, DAP_TRANSFER = 0x05, DAP_TRANSFER_BLOCK = 0x06,
	DAP_TRANSFER_ABORT = 0x07, DAP_WRITE_ABORT = 0x08, DAP_DELAY = 0x09,
	DAP_RESET_TARGET = 0x0A, DAP_SWJ_PINS = 0x10, DAP_SWJ_CLOCK = 0x11,
	DAP_SWJ_SEQUENCE = 0x12, DAP_SWD_CONFIGURE = 0x13, DAP_SWD_SEQUENCE = 0x1D,
	DAP_INVALID = 0xFF,
};

#define DAP_OK 0x00
#define DAP_ERROR 0xFF

/* transfer request bits */
#define REQ_APNDP 0x01u
#define REQ_RNW 0x02u
#define REQ_A32 0x0Cu
#define REQ_MATCH_VALUE 0x10u
#define REQ_MATCH_MASK 0x20u
#define REQ_TIMESTAMP 0x80u
/* transfer response bits above the 3-bit ACK */
#define RESP_MISMATCH 0x10u

#define CAP_SWD 0x01u

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void tt_sim_cmsis_dap_init(struct tt_sim_cmsis_dap *c, struct tt_sim_dap *dap)
{
	*c = (struct tt_sim_cmsis_dap){ .dap = dap, .pins = 0xFF,
					.wait_retry = 100, .clock_hz = 1000000 };
	dap->swd = true;
}

/* DAP_Info: strings with their NUL counted, as probes send them; unknown ids have length 0. */
static size_t info(uint8_t id, uint8_t *r, size_t cap)
{
	const char *s = NULL;
	size_t n = 0;

	switch (id) {
	case 0x01: s = "tracetap"; break;
	case 0x02: s = "tracetap simulated CMSIS-DAP"; break;
	case 0x03: s = TT_SIM_DAP_SERIAL; break;
	case 0x04: s = "2.1.0"; break;	/* the CMSIS-DAP protocol version */
	case 0xF0: r[2] = CAP_SWD; n = 1; break;
	case 0xFE: r[2] = TT_SIM_DAP_PACKET_COUNT; n = 1; break;
	case 0xFF: r[2] = (uint8_t)cap; r[3] = (uint8_t)(cap >> 8); n = 2; break;
	default: break;
	}
	if (s) {
		n = strlen(s) + 1;
		if (n > cap - 2)
			n = cap - 2;
		memcpy(r + 2, s, n - 1);
		r[2 + n - 1] = 0;
	}
	r[1] = (uint8_t)n;
	return 2 + n;
}

/* One access with the probe's WAIT retries. */
static int dap_access(struct tt_sim_cmsis_dap *c, uint8_t req, uint32_t data, uint32_t *val)
{
	int ack;
	unsigned tries = 0;

	do
		ack = tt_sim_dap_swd_access(c->dap, req & REQ_APNDP, req & REQ_RNW, req & REQ_A32,
					    data, val);
	while (ack == TT_SIM_SWD_WAIT && tries++ < c->wait_retry);
	c->transfers++;
	return ack;
}

/* A read with value match: repeated until (value & mask) == match or the retries run out. */
static int match_read(struct tt_sim_cmsis_dap *c, uint8_t req, uint32_t match, uint8_t *ack)
{
	uint32_t v;
	unsigned tries = 0;

	for (;;) {
		*ack = (uint8_t)dap_access(c, req, 0, &v);
		if (*ack != TT_SIM_SWD_OK)
			return -1;
		if ((v & c->match_mask) == match)
			return 0;
		if (tries++ >= c->match_retry) {
			*ack |= RESP_MISMATCH;
			return -1;
		}
	}
}

/* DAP_Transfer: [0x05, index, count, {request, [data]}...] -> [0x05, done, ack, {data}...] */
static size_t transfer(struct tt_sim_cmsis_dap *c, const uint8_t *q, size_t len, uint8_t *r,
		       size_t cap)
{
	size_t in = 3, out = 3;
	unsigned count = len >= 3 ? q[2] : 0, done = 0;
	uint8_t ack = 0;

	for (; done < count && c->port && in < len; done++) {
		uint8_t req = q[in++];
		bool data_in = !(req & REQ_RNW) || (req & REQ_MATCH_VALUE);
		uint32_t data = 0, v = 0;

		if (data_in) {
			if (len - in < 4)
				break;	/* truncated: the list ends here */
			data = get32(q + in);
			in += 4;
		}
		if ((req & REQ_RNW) && !(req & REQ_MATCH_VALUE) &&
		    cap - out < ((req & REQ_TIMESTAMP) ? 8u : 4u))
			break;	/* no room for the answer in one packet */
		if (req & REQ_RNW && req & REQ_MATCH_VALUE) {
			if (match_read(c, req, data, &ack) < 0)
				break;
		} else if (req & REQ_MATCH_MASK) {
			c->match_mask = data;
			ack = TT_SIM_SWD_OK;
		} else {
			ack = (uint8_t)dap_access(c, req, data, &v);
			if (ack != TT_SIM_SWD_OK)
				break;
			if (req & REQ_RNW) {
				if (req & REQ_TIMESTAMP) {	/* no test-domain timer: 0 */
					put32(r + out, 0);
					out += 4;
				}
				put32(r + out, v);
				out += 4;
			}
		}
	}
	r[1] = (uint8_t)done;
	r[2] = ack;
	return out;
}

/* DAP_TransferBlock: [0x06, index, count16, request, {data}...] -> [0x06, done16, ack, {data}] */
static size_t transfer_block(struct tt_sim_cmsis_dap *c, const uint8_t *q, size_t len,
			     uint8_t *r, size_t cap)
{
	unsigned count = len >= 5 ? q[2] | q[3] << 8 : 0, done = 0;
	uint8_t req = len >= 5 ? q[4] : 0, ack = 0;
	size_t in = 5, out = 4;

	for (; done < count && c->port; done++) {
		uint32_t data = 0, v;

		if (req & REQ_RNW) {
			if (cap - out < 4)
				break;
		} else {
			if (len - in < 4)
				break;
			data = get32(q + in);
			in += 4;
		}
		ack = (uint8_t)dap_access(c, req & (REQ_APNDP | REQ_RNW | REQ_A32), data, &v);
		if (ack != TT_SIM_SWD_OK)
			break;
		if (req & REQ_RNW) {
			put32(r + out, v);
			out += 4;
		}
	}
	r[1] = (uint8_t)done;
	r[2] = (uint8_t)(done >> 8);
	r[3] = ack;
	return out;
}

/* DAP_SWD_Sequence: [0x1D, count, {info, [data]}...] -> [0x1D, status, {data}...]. The line
 * is idle (SWDIO low) whenever the probe samples it. */
static size_t swd_sequence(const uint8_t *q, size_t len, uint8_t *r, size_t cap)
{
	unsigned count = len >= 2 ? q[1] : 0;
	size_t in = 2, out = 2;

	r[1] = DAP_OK;
	for (unsigned i = 0; i < count; i++) {
		if (in >= len) {
			r[1] = DAP_ERROR;
			break;
		}
		uint8_t inf = q[in++];
		unsigned bits = inf & 0x3F ? inf & 0x3F : 64, bytes = (bits + 7) / 8;

		if (inf & 0x80) {	/* input */
			if (cap - out < bytes) {
				r[1] = DAP_ERROR;
				break;
			}
			memset(r + out, 0, bytes);
			out += bytes;
		} else if (len - in < bytes) {
			r[1] = DAP_ERROR;
			break;
		} else {
			in += bytes;
		}
	}
	return out;
}

static size_t status(uint8_t *r, uint8_t st)
{
	r[1] = st;
	return 2;
}

/* The commands that set the probe up or drive the SWJ pins: always one status byte or two. */
static size_t control(struct tt_sim_cmsis_dap *c, const uint8_t *req, size_t len, uint8_t *resp)
{
	unsigned bits = len >= 2 && req[1] ? req[1] : 256;	/* DAP_SWJ_Sequence: 0 = 256 */
	uint32_t v;

	switch (req[0]) {
	case DAP_SWJ_SEQUENCE:	/* [0x12, bit count, bits LSB first] */
		if (len < 2 || len - 2 < (bits + 7) / 8)
			return status(resp, DAP_ERROR);
		tt_sim_dap_swj(c->dap, req + 2, bits);
		return status(resp, DAP_OK);
	case DAP_TRANSFER_CONFIGURE:	/* [0x04, idle cycles, WAIT retry, match retry] */
		if (len >= 6) {
			c->wait_retry = (uint16_t)(req[2] | req[3] << 8);
			c->match_retry = (uint16_t)(req[4] | req[5] << 8);
		}
		return status(resp, len >= 6 ? DAP_OK : DAP_ERROR);
	case DAP_HOST_STATUS: case DAP_DELAY: case DAP_SWD_CONFIGURE:
		return status(resp, DAP_OK);
	case DAP_CONNECT:	/* 0 = default port = SWD; JTAG (2) is not there */
		c->port = len >= 2 && req[1] <= 1 ? 1 : 0;
		return status(resp, c->port);
	case DAP_DISCONNECT:
		c->port = 0;
		return status(resp, DAP_OK);
	case DAP_WRITE_ABORT:	/* [0x08, index, u32] */
		return status(resp, len >= 6 && tt_sim_dap_swd_access(c->dap, false, false, 0,
			get32(req + 2), &v) == TT_SIM_SWD_OK ? DAP_OK : DAP_ERROR);
	case DAP_RESET_TARGET:	/* no device-specific reset sequence: execute = 0 */
		resp[2] = 0;
		return status(resp, DAP_OK) + 1;
	case DAP_SWJ_PINS:	/* [0x10, output, select, wait u32] -> the pins read back */
		if (len >= 3)
			c->pins = (uint8_t)((c->pins & ~req[2]) | (req[1] & req[2]));
		return status(resp, c->pins);
	case DAP_SWJ_CLOCK:
		if (len < 5 || !get32(req + 1))
			return status(resp, DAP_ERROR);
		c->clock_hz = get32(req + 1);
		return status(resp, DAP_OK);
	default:
		resp[0] = DAP_INVALID;
		return 1;
	}
}

size_t tt_sim_cmsis_dap_command(struct tt_sim_cmsis_dap *c, const uint8_t *req, size_t len,
				uint8_t *resp, size_t cap)
{
	size_t n;

	if (!len)
		return 0;
	c->commands++;
	c->bytes_out += len;
	resp[0] = req[0];
	switch (req[0]) {
	case DAP_INFO:
		n = len >= 2 ? info(req[1], resp, cap) : status(resp, 0);
		break;
	case DAP_TRANSFER:
		n = transfer(c, req, len, resp, cap);
		break;
	case DAP_TRANSFER_BLOCK:
		n = transfer_block(c, req, len, resp, cap);
		break;
	case DAP_TRANSFER_ABORT:
		n = 0;	/* no response, by the protocol */
		break;
	case DAP_SWD_SEQUENCE:
		n = swd_sequence(req, len, resp, cap);
		break;
	default:
		n = control(c, req, len, resp);
		break;
	}
	c->bytes_in += n;
	return n;
}
