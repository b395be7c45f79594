/* tests/integration/chain.h: drives the real chain for the probe tests: tt-simtarget (over a
 * RAM file this test maps too, so it can check and change target memory directly), a real
 * OpenOCD started by the test (tcl_port 0, port read from its log) and the probe under test.
 * Everything binds to 127.0.0.1, waits with deadlines and is stopped by tt_chain_stop. */
#ifndef TT_CHAIN_H
#define TT_CHAIN_H

#include <stdint.h>
#include <uv.h>

#include "probe.h"

#define CHAIN_BASE 0x20000000u
#define CHAIN_SIZE 0x10000u

struct tt_child {
	uv_process_t proc;
	uv_pipe_t out, err;
	int running, nopen;
	int64_t status;
	int sig;
	char log[16384];  /* stdout + stderr, the end kept */
	size_t loglen;
};

struct tt_chain {
	uv_loop_t *loop;
	char *dir;
	char ram_path[512], ctl_path[100];
	uint8_t *ram;     /* the target RAM, shared with tt-simtarget */
	const char *simexe, *cfg;
	const char *ocd_after_init; /* tt_chain_start_ocd: a command run after `init`, or NULL */
	struct tt_child sim, ocd;
	int sim_port, tcl_port;
	/* the probe */
	struct tt_probe *p;
	int nstates;
	enum tt_probe_state last_state;
	char last_msg[256];
	char last_notice[256];  /* the last "target_..." report (what OpenOCD saw the core do) */
};

/* RAM file: word i = 0xA5000000 + i. */
void tt_chain_init(struct tt_chain *c, uv_loop_t *loop, const char *simexe, const char *cfg);
void tt_chain_start_sim(struct tt_chain *c);
/* One control command; returns the reply line (static buffer); aborts unless it is "ok...". */
const char *tt_chain_ctl(struct tt_chain *c, const char *cmd);
/* OpenOCD with tcl_port PORT (0 = ephemeral); sets c->tcl_port from its log. */
void tt_chain_start_ocd(struct tt_chain *c, int port);
void tt_chain_kill(struct tt_chain *c, struct tt_child *ch, int sig);
/* Closes the probe (if any), stops both programs, removes the files. */
void tt_chain_stop(struct tt_chain *c);

/* Probe helpers. */
void tt_chain_open(struct tt_chain *c, const char *spec, const struct tt_probe_options *opt);
/* Waits until the probe reports state st (deadline ms) and returns its message. */
const char *tt_chain_wait_state(struct tt_chain *c, enum tt_probe_state st, unsigned ms);
int tt_chain_read(struct tt_chain *c, const struct tt_plan *plan, char *err, size_t errlen);
int tt_chain_read1(struct tt_chain *c, uint64_t addr, uint32_t len, uint8_t *dst, char *err,
		   size_t errlen);
int tt_chain_write(struct tt_chain *c, uint64_t addr, const void *data, uint32_t len);
/* Spawn options for the simulator: -f cfg -c "remote_bitbang port N" (static storage). */
const char *const *tt_chain_ocd_args(struct tt_chain *c);

#endif
