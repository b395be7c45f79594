/* tests/unit/fuzz_threadx.c: the ThreadX reader harness (tests/fuzz/fuzz_reader.c) as a bounded
 * smoke test under gcc in `meson test --suite unit`: seeds written by tests/fw/txwriter (valid
 * buffer images, wrapped or not, both byte orders), each run unmutated and then with a few
 * random mutations. The libFuzzer build of the same harness is tests/fuzz (clang).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "txwriter.h"

#define FZ_BASE 0x20000000u

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

static const struct { bool big; uint32_t events, mask; } seeds[] = {
	{ false, 5, 0xFFFFFFFFu }, { true, 5, 0xFFFFFFFFu }, { false, 70, 0xFFFF },
	{ true, 70, 0xFFFFFFFFu }, { false, 0, 0xFF },
};

/* --write-seeds DIR: the unmutated seeds as files, the libFuzzer harness's starting corpus. */
static int write_seeds(const char *dir)
{
	static uint8_t seed[4096];
	char path[4096];

	for (unsigned s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		size_t len = fz_seed(seed, sizeof(seed), seeds[s].big, seeds[s].events, seeds[s].mask);
		snprintf(path, sizeof(path), "%s/txwriter-%u.bin", dir, s);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(seed, 1, len, f) != len || fclose(f) != 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t seed[4096], buf[4096];
	int iters = argc > 1 ? atoi(argv[1]) : 20000;

	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		return write_seeds(argv[2]);
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
