/* tests/sim/rtt_up.c: the RTT up-buffer writer (see rtt_up.h). */
#include "rtt_up.h"

#include <string.h>

#define UP0 24u
#define WROFF (UP0 + 12u)
#define RDOFF (UP0 + 16u)

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void rttw_init(struct rttw *r, uint8_t *ram, uint32_t base, uint32_t off, uint32_t size)
{
	uint8_t *b = ram + off;
	uint32_t addr = base + off;

	memset(b, 0, RTTW_HDR);
	put32(b + 16, 1);
	put32(b + 20, 0);
	put32(b + UP0 + 0, addr + 48);
	put32(b + UP0 + 4, addr + RTTW_HDR);
	put32(b + UP0 + 8, size);
	memcpy(b + 48, "Trace", 6);
	/* the ID last, as SEGGER's init does: a debugger that finds it finds a whole block */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(b, "SEGGER RTT", 11);
	r->blk = b;
	r->size = size;
	r->dropped = 0;
}

bool rttw_put(struct rttw *r, const void *data, uint32_t len)
{
	uint32_t wr = __atomic_load_n((uint32_t *)(r->blk + WROFF), __ATOMIC_RELAXED);
	uint32_t rd = __atomic_load_n((uint32_t *)(r->blk + RDOFF), __ATOMIC_ACQUIRE);
	uint32_t room = rd > wr ? rd - wr - 1 : r->size - wr + rd - 1;
	uint32_t first = len < r->size - wr ? len : r->size - wr;
	uint8_t *buf = r->blk + RTTW_HDR;

	if (rd >= r->size || wr >= r->size || len > room) {
		r->dropped++;
		return false;
	}
	memcpy(buf + wr, data, first);
	memcpy(buf, (const uint8_t *)data + first, len - first);
	__atomic_store_n((uint32_t *)(r->blk + WROFF), (wr + len) % r->size, __ATOMIC_RELEASE);
	return true;
}
