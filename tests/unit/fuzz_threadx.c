/* tests/unit/fuzz_threadx.c: fuzzes the ThreadX reader with untrusted target memory.
 *
 * LLVMFuzzerTestOneInput treats the input as target RAM at 0x20000000 with the header at its
 * start: it decodes it as a static image, then runs the live reader over it for a few poll
 * cycles, mutating the "RAM" between cycles from the input's own bytes (laps, resets, torn
 * headers, garbage pointers). Built with -DTT_LIBFUZZER for libFuzzer (-Dfuzzing=true, clang);
 * otherwise a small driver runs seeds written by tests/fw/txwriter plus bounded random mutations
 * so the harness runs as a smoke test under gcc in `meson test --suite unit`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadx.h"
#include "txwriter.h"

#define FZ_BASE 0x20000000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t fz_events;

/* Touches every field a consumer would, so sanitizers see bad pointers. */
static void fz_cb(void *arg, const struct tt_record *rec)
{
	size_t *sum = arg;
	if (rec->kind == TT_REC_EVENT) {
		const struct tt_event *ev = &rec->u.ev;
		*sum += strlen(ev->name) + (ev->thread_name ? strlen(ev->thread_name) : 0) +
			(ev->interrupted_name ? strlen(ev->interrupted_name) : 0);
		for (unsigned i = 0; i < ev->nargs; i++)
			*sum += strlen(ev->args[i].name) + (ev->args[i].text ? strlen(ev->args[i].text) : 0);
		for (unsigned i = 0; i < ev->nraw; i++)
			*sum += ev->raw[i];
		fz_events++;
	} else if (rec->kind == TT_REC_GAP) {
		*sum += strlen(rec->u.gap.reason);
	} else {
		*sum += strlen(rec->u.reset.reason);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	size_t sum = 0;
	struct tt_threadx_config cfg = { .max_buffer_bytes = 1 << 20, .tick_hz = 1000,
					 .header_every = 2, .hold_window = 3 };
	tt_threadx_decode_image(data, size, FZ_BASE, 0, &cfg, fz_cb, &sum, err, sizeof(err));

	uint8_t *ram = malloc(size ? size : 1);
	if (ram == NULL)
		return 0;
	memcpy(ram, data, size);
	struct tt_threadx *rd;
	cfg.header_addr = FZ_BASE;
	if (tt_threadx_new(&cfg, &rd) != 0) {
		free(ram);
		return 0;
	}
	size_t mut = size / 2;
	for (int cycle = 0; cycle < 12; cycle++) {
		for (int step = 0; step < 16; step++) {
			struct tt_plan p;
			bool failed = false;
			tt_threadx_plan(rd, &p);
			for (unsigned i = 0; i < p.n; i++) {
				uint64_t off = p.r[i].addr - FZ_BASE;
				if (p.r[i].addr < FZ_BASE || off > size || p.r[i].len > size - off) {
					failed = true;
					break;
				}
				memcpy(p.r[i].dst, ram + off, p.r[i].len);
			}
			if (failed) {
				tt_threadx_read_failed(rd, -5);
				break;
			}
			if (tt_threadx_ingest(rd, fz_cb, &sum) != TT_THREADX_MORE)
				break;
		}
		/* the "writer": copy a few input bytes over the RAM, at positions the input picks */
		for (int k = 0; k < 4 && size >= 8 && mut + 5 < size; k++, mut += 5) {
			size_t at = ((size_t)data[mut] << 8 | data[mut + 1]) % size;
			ram[at] = data[mut + 2];
			if (at + 1 < size)
				ram[at + 1] = data[mut + 3];
		}
	}
	tt_threadx_free(rd);
	free(ram);
	(void)sum;
	return 0;
}

#ifndef TT_LIBFUZZER
static uint64_t fz_rng = 0x9E3779B97F4A7C15ull;

static uint32_t fz_rand(void)
{
	fz_rng ^= fz_rng << 13;
	fz_rng ^= fz_rng >> 7;
	fz_rng ^= fz_rng << 17;
	return (uint32_t)fz_rng;
}

/* A valid buffer image: header at the start, registry, entries; wrapped or not. */
static size_t fz_seed(uint8_t *mem, size_t cap, bool big, uint32_t events, uint32_t mask)
{
	struct txw w;
	memset(mem, 0, cap);
	txw_init(&w, mem, FZ_BASE, cap, big);
	w.timer_mask = mask;
	if (txw_enable(&w, FZ_BASE, 48 + 3 * 48 + 24 * 32, 3) != 0)
		abort();
	txw_register(&w, 0x20001000, 1, "main", 0, 0, 4);
	txw_register(&w, 0x20002000, 4, "sem", 1, 0, 0);
	for (uint32_t i = 0; i < events; i++) {
		uint32_t id = (uint32_t[]){ 1, 2, 10, 20, 83, 100, 4096, 3, 999 }[i % 9];
		txw_insert(&w, i % 5 == 0 ? 0xFFFFFFFFu : 0x20001000, txw_prio_word(4, 4), id,
			   0x20002000, i, 0x20001000, i * 3, NULL);
	}
	return w.ent_end - FZ_BASE;
}

int main(int argc, char **argv)
{
	static uint8_t seed[4096], buf[4096];
	int iters = argc > 1 ? atoi(argv[1]) : 20000;
	const struct { bool big; uint32_t events, mask; } seeds[] = {
		{ false, 5, 0xFFFFFFFFu }, { true, 5, 0xFFFFFFFFu }, { false, 70, 0xFFFF },
		{ true, 70, 0xFFFFFFFFu }, { false, 0, 0xFF },
	};
	for (int it = 0; it < iters; it++) {
		const unsigned s = (unsigned)it % (sizeof(seeds) / sizeof(seeds[0]));
		size_t len = fz_seed(seed, sizeof(seed), seeds[s].big, seeds[s].events, seeds[s].mask);
		memcpy(buf, seed, len);
		/* the unmutated seed first, then 1..8 mutations: bytes, whole words, pointer-like
		 * words aimed inside the image, truncation */
		int nmut = it < 5 ? 0 : 1 + (int)(fz_rand() % 8);
		for (int m = 0; m < nmut && len >= 8; m++) {
			size_t at = fz_rand() % len;
			switch (fz_rand() % 4) {
			case 0:
				buf[at] ^= (uint8_t)(1u << (fz_rand() % 8));
				break;
			case 1:
				buf[at] = (uint8_t)fz_rand();
				break;
			case 2: {
				uint32_t v = FZ_BASE + (fz_rand() % (uint32_t)(len + 64));
				memcpy(buf + ((at & ~(size_t)3) % (len - 3)), &v, 4);
				break;
			}
			default:
				if (fz_rand() % 4 == 0)
					len = at;
				break;
			}
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	if (fz_events == 0) {
		fprintf(stderr, "fuzz smoke: no event was ever decoded: the seeds are broken\n");
		return 1;
	}
	printf("fuzz smoke: %d inputs, %llu events decoded\n", iters, (unsigned long long)fz_events);
	return 0;
}
#endif
