/* tests/integration/bench_link.c: tt-bench-link, raw read throughput through the chain
 * (tt-simtarget + real OpenOCD + the openocd backend) for 64 B, 1 KiB and 4 KiB reads.
 * Usage: tt-bench-link SIMTARGET OPENOCD_CFG [tcp|spawn] [seconds per size] */
#include <signal.h>

#include "chain.h"
#include "ttest.h"

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 1024, 4096 };
	static uint8_t buf[4096];
	struct tt_probe_options opt = { 0 };
	struct tt_chain c;
	uv_loop_t loop;
	char spec[64];
	int spawn = argc > 3 && strcmp(argv[3], "spawn") == 0;
	double secs = argc > 4 ? atof(argv[4]) : 2.0;

	REQUIRE(argc >= 3);
	signal(SIGPIPE, SIG_IGN); /* as any program that writes to pipes/sockets with libuv */
	REQUIRE_EQ(uv_loop_init(&loop), 0);
	tt_chain_init(&c, &loop, argv[1], argv[2]);
	tt_chain_start_sim(&c);
	if (spawn) {
		opt.openocd_args = tt_chain_ocd_args(&c);
		tt_chain_open(&c, "openocd-spawn", &opt);
	} else {
		tt_chain_start_ocd(&c, 0);
		snprintf(spec, sizeof(spec), "openocd:127.0.0.1:%d", c.tcl_port);
		tt_chain_open(&c, spec, &opt);
	}
	tt_chain_wait_state(&c, TT_PROBE_CONNECTED, 10000);
	printf("link: %s (tt-simtarget, OpenOCD 0.12 remote_bitbang, mem_ap)\n",
	       spawn ? "openocd-spawn (pipes)" : "openocd:127.0.0.1 (TCP)");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t t0 = uv_hrtime(), t;
		unsigned n = 0;
		do {
			REQUIRE_EQ(tt_chain_read1(&c, CHAIN_BASE + (n * sizes[s]) % 0x8000, sizes[s], buf,
						 NULL, 0), 0);
			n++;
			t = uv_hrtime() - t0;
		} while (t < (uint64_t)(secs * 1e9));
		printf("read %5u B: %5u reads in %.2f s, %7.3f ms/read, %6.1f KiB/s\n", sizes[s], n,
		       t / 1e9, t / 1e6 / n, (double)n * sizes[s] / 1024.0 / (t / 1e9));
	}
	tt_chain_stop(&c);
	tt_test_loop_done(&loop);
	return 0;
}
