/* tests/integration/test_chain.c: the openocd backends through the real chain (tt-simtarget +
 * a real OpenOCD): known patterns at every width and alignment, across 1 KiB TAR blocks and
 * chunk boundaries, writes read back, and reads racing a writer (never a torn word).
 * Mode "no-read-memory": over TCP to an OpenOCD whose read_memory and write_memory were renamed
 * away after init, as OpenOCD before 0.12 lacks them: the probe must notice and use mdw/mww.
 * Mode "tcp" goes through a proxy that counts the commands the probe sends: the reads of a plan
 * are one command (one round trip), however many ranges it has.
 * Usage: test_chain tcp|spawn|no-read-memory SIMTARGET OPENOCD_CFG */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include <signal.h>

#include "../../probe/tcl.h"
#include "chain.h"
#include "ttest.h"

static struct tt_chain chain;

/* A TCP proxy between the probe and OpenOCD's TCL port that counts the probe's commands (each
 * ends with TT_TCL_TERM). One connection. */
struct proxy {
	uv_tcp_t lis, down, up; /* down: the probe's side; up: OpenOCD's */
	uv_connect_t conn;
	int port, nopen;
	unsigned commands;
	char buf[2][65536];
};
static struct proxy px;

static void px_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	(void)hint;
	*b = uv_buf_init(px.buf[h == (uv_handle_t *)&px.up], sizeof(px.buf[0]));
}

static void px_closed(uv_handle_t *h)
{
	(void)h;
	px.nopen--;
}

static void px_close_all(void)
{
	uv_handle_t *hs[3] = { (uv_handle_t *)&px.lis, (uv_handle_t *)&px.down,
			       (uv_handle_t *)&px.up };

	for (int i = 0; i < 3; i++)
		if (hs[i]->loop && !uv_is_closing(hs[i]))
			uv_close(hs[i], px_closed);
}

/* Copies what one side sent to the other, counting the probe's command terminators. */
static void px_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	uv_stream_t *to = s == (uv_stream_t *)&px.up ? (uv_stream_t *)&px.down
						     : (uv_stream_t *)&px.up;
	uv_buf_t out = uv_buf_init(b->base, (unsigned)(n > 0 ? n : 0));

	if (n < 0) {
		px_close_all();
		return;
	}
	if (s == (uv_stream_t *)&px.down)
		for (ssize_t i = 0; i < n; i++)
			px.commands += b->base[i] == TT_TCL_TERM;
	/* small writes to loopback: try_write takes them whole or the test says so */
	if (n > 0)
		REQUIRE_EQ(uv_try_write(to, &out, 1), (int)n);
}

static void px_up_connected(uv_connect_t *c, int status)
{
	(void)c;
	REQUIRE_EQ(status, 0);
	uv_read_start((uv_stream_t *)&px.up, px_alloc, px_read);
	uv_read_start((uv_stream_t *)&px.down, px_alloc, px_read);
}

static void px_accept(uv_stream_t *lis, int status)
{
	struct sockaddr_in a;

	REQUIRE_EQ(status, 0);
	uv_tcp_init(lis->loop, &px.down);
	uv_tcp_init(lis->loop, &px.up);
	px.nopen += 2;
	REQUIRE_EQ(uv_accept(lis, (uv_stream_t *)&px.down), 0);
	uv_ip4_addr("127.0.0.1", chain.tcl_port, &a);
	REQUIRE_EQ(uv_tcp_connect(&px.conn, &px.up, (struct sockaddr *)&a, px_up_connected), 0);
}

static void px_start(uv_loop_t *loop)
{
	struct sockaddr_in a;
	int len = sizeof(a);

	uv_ip4_addr("127.0.0.1", 0, &a);
	uv_tcp_init(loop, &px.lis);
	px.nopen = 1;
	REQUIRE_EQ(uv_tcp_bind(&px.lis, (struct sockaddr *)&a, 0), 0);
	REQUIRE_EQ(uv_listen((uv_stream_t *)&px.lis, 1, px_accept), 0);
	uv_tcp_getsockname(&px.lis, (struct sockaddr *)&a, &len);
	px.port = ntohs(a.sin_port);
}

/* A plan of 6 ranges that continue nothing (6 runs) is read in one command; one of 3 ranges
 * of 3 KiB each (more than the 4 KiB a command holds) in 3, one per chunk. */
static void test_batch(struct tt_chain *c)
{
	static uint8_t d[6][3072];
	struct tt_plan six = { 6, { { 0 } } }, big = { 3, { { 0 } } };
	unsigned before;

	for (unsigned i = 0; i < 6; i++)
		six.r[i] = (struct tt_range){ .addr = CHAIN_BASE + 0x4000 - i * 0x100 + (i & 1),
					      .len = 40 + i, .dst = d[i] };
	before = px.commands;
	REQUIRE_EQ(tt_chain_read(c, &six, NULL, 0), 0);
	REQUIRE_MSG(px.commands - before == 1, "a plan of 6 ranges took %u commands",
		    px.commands - before);
	for (unsigned i = 0; i < 6; i++)
		REQUIRE(memcmp(d[i], c->ram + (six.r[i].addr - CHAIN_BASE), six.r[i].len) == 0);
	for (unsigned i = 0; i < 3; i++)
		big.r[i] = (struct tt_range){ .addr = CHAIN_BASE + 0x8000 + i * 0x1000, .len = 3072,
					      .dst = d[i] };
	before = px.commands;
	REQUIRE_EQ(tt_chain_read(c, &big, NULL, 0), 0);
	REQUIRE_MSG(px.commands - before == 3, "3 x 3 KiB took %u commands", px.commands - before);
	for (unsigned i = 0; i < 3; i++)
		REQUIRE(memcmp(d[i], c->ram + 0x8000 + i * 0x1000, 3072) == 0);
}

/* A write pointer, the ring bytes up to it and an anchor (a TT_RANGE_TO_PTR range between two
 * fixed ones): the pointer's word and what it points to in one command (the proxy counts them,
 * when there is one), the ring read round its end into a mirror, nothing else of it touched;
 * every probe (a spawned OpenOCD, one without read_memory) reads the same bytes. */
static void test_ring(struct tt_chain *c)
{
	static uint8_t ring[1024];
	uint8_t cur[8], anchor[32];
	const uint32_t ring_off = 0xa000, ptr_off = 0x9000;
	uint32_t ptr = CHAIN_BASE + ring_off + 64, used[2] = { 0x11111111, 0 };
	struct tt_plan plan = { 3, { { .addr = CHAIN_BASE + ptr_off, .len = 8, .dst = cur },
				     { .addr = CHAIN_BASE + ring_off, .len = sizeof(ring), .dst = ring,
				       .kind = TT_RANGE_TO_PTR, .ptr_range = 0, .ptr_off = 4,
				       .ptr_base = CHAIN_BASE + ring_off, .align = 32, .from = 960,
				       .max = sizeof(ring) },
				     { .addr = CHAIN_BASE + ring_off + 928, .len = 32, .dst = anchor } } };
	uint64_t bytes;
	unsigned before;

	used[1] = ptr;
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + ptr_off, used, sizeof(used)), 0);
	memset(ring, 0xee, sizeof(ring));
	bytes = c->p->bytes_read;
	before = px.commands;
	REQUIRE_EQ(tt_chain_read(c, &plan, NULL, 0), 0);
	REQUIRE_MSG(!px.port || px.commands - before == 1, "pointer, ring and anchor took %u commands",
		    px.commands - before);
	REQUIRE(memcmp(ring + 960, c->ram + ring_off + 960, 64) == 0);
	REQUIRE(memcmp(ring, c->ram + ring_off, 64) == 0);
	REQUIRE(ring[64] == 0xee && ring[959] == 0xee);
	REQUIRE(memcmp(anchor, c->ram + ring_off + 928, 32) == 0);
	REQUIRE_EQ(c->p->bytes_read - bytes, 8 + 128 + 32);
	/* a pointer outside the ring: nothing of it read */
	used[1] = CHAIN_BASE + ring_off + sizeof(ring);
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + ptr_off, used, sizeof(used)), 0);
	memset(ring, 0xee, sizeof(ring));
	bytes = c->p->bytes_read;
	REQUIRE_EQ(tt_chain_read(c, &plan, NULL, 0), 0);
	REQUIRE(ring[0] == 0xee && ring[960] == 0xee && ring[1023] == 0xee);
	REQUIRE_EQ(c->p->bytes_read - bytes, 8 + 32);
}

static void check_read(struct tt_chain *c, uint32_t off, uint32_t len)
{
	static uint8_t buf[CHAIN_SIZE];
	char err[256];
	int r = tt_chain_read1(c, CHAIN_BASE + off, len, buf, err, sizeof(err));

	if (r != 0)
		fprintf(stderr, "read 0x%x +%u: %d %s\n", off, len, r, err);
	REQUIRE_EQ(r, 0);
	REQUIRE_MSG(memcmp(buf, c->ram + off, len) == 0, "read 0x%x +%u: wrong data", off, len);
}

static void test_patterns(struct tt_chain *c)
{
	uint8_t a[64], b[64], d[6];
	struct tt_plan plan = { 3, { { .addr = CHAIN_BASE, .len = 64, .dst = a },
				     { .addr = CHAIN_BASE + 64, .len = 64, .dst = b },
				     { .addr = CHAIN_BASE + 1, .len = 6, .dst = d } } };

	REQUIRE_EQ(tt_chain_read(c, &plan, NULL, 0), 0);
	REQUIRE(memcmp(a, c->ram, 64) == 0 && memcmp(b, c->ram + 64, 64) == 0 &&
	      memcmp(d, c->ram + 1, 6) == 0);
	for (uint32_t off = 0; off < 4; off++)
		for (uint32_t len = 1; len <= 9; len++)
			check_read(c, 0x101 * 4 + off, len);
	check_read(c, 0x3f0, 2400);        /* two 1 KiB boundaries */
	check_read(c, 0x7fd, 0x405);       /* unaligned head and tail around 1 KiB blocks */
	check_read(c, 0x1002, 10 * 1024);  /* several 4 KiB chunks */
	check_read(c, CHAIN_SIZE - 4, 4);
}

static void test_writes(struct tt_chain *c)
{
	uint8_t big[4099];

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 13 + 7);
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + 0x2001, "\x11\x22\x33\x44\x55", 5), 0);
	REQUIRE(memcmp(c->ram + 0x2001, "\x11\x22\x33\x44\x55", 5) == 0);
	REQUIRE_EQ(c->ram[0x2000], 0x00); /* neighbours untouched: word 0x800 = 0xA5000800 */
	REQUIRE_EQ(c->ram[0x2007], 0xa5);
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + 0x2008, "\xef\xbe", 2), 0);
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + 0x200c, "\x78\x56\x34\x12", 4), 0);
	REQUIRE(memcmp(c->ram + 0x2008, "\xef\xbe\x00\xa5\x78\x56\x34\x12", 8) == 0);
	REQUIRE_EQ(tt_chain_write(c, CHAIN_BASE + 0x2101, big, sizeof(big)), 0);
	REQUIRE(memcmp(c->ram + 0x2101, big, sizeof(big)) == 0);
	check_read(c, 0x2000, 0x1200);
}

/* The writer: word i of the region holds (gen, f(gen, i)); a torn word breaks the relation. */
#define RACE_OFF 0x8000u
#define RACE_WORDS 1024u
static atomic_int race_stop;
static atomic_uint race_gens;

static uint32_t race_word(uint32_t gen, uint32_t i)
{
	uint32_t lo = gen & 0xffff;

	return ((((lo * 31u + i) ^ 0xA5A5u) & 0xffffu) << 16) | lo;
}

static void *race_writer(void *arg)
{
	uint32_t *w = (uint32_t *)(chain.ram + RACE_OFF);

	for (uint32_t gen = 1; !atomic_load(&race_stop); gen++) {
		for (uint32_t i = 0; i < RACE_WORDS; i++)
			__atomic_store_n(&w[i], race_word(gen, i), __ATOMIC_RELAXED);
		atomic_store(&race_gens, gen);
	}
	return NULL;
}

static void test_race(struct tt_chain *c)
{
	static uint32_t buf[RACE_WORDS];
	uint32_t *w = (uint32_t *)(c->ram + RACE_OFF), first_gen = 0;
	int mixed = 0;
	pthread_t th;

	for (uint32_t i = 0; i < RACE_WORDS; i++)
		w[i] = race_word(0, i);
	REQUIRE_EQ(pthread_create(&th, NULL, race_writer, NULL), 0);
	for (int k = 0; k < 40; k++) {
		REQUIRE_EQ(tt_chain_read1(c, CHAIN_BASE + RACE_OFF, sizeof(buf), (uint8_t *)buf,
					 NULL, 0), 0);
		for (uint32_t i = 0; i < RACE_WORDS; i++) {
			REQUIRE_MSG(buf[i] == race_word(buf[i], i), "torn word %u: 0x%08x", i,
				    buf[i]);
			if (i == 0)
				first_gen = buf[0] & 0xffff;
			else if ((buf[i] & 0xffff) != first_gen)
				mixed = 1;
		}
	}
	atomic_store(&race_stop, 1);
	pthread_join(th, NULL);
	REQUIRE(atomic_load(&race_gens) > 40);
	REQUIRE(mixed); /* reads really raced the writer */
}

int main(int argc, char **argv)
{
	uv_loop_t loop;
	struct tt_chain *c = &chain;
	struct tt_probe_options opt = { 0 };
	char spec[64], log[600];
	const char *msg;
	int spawn, old_ocd;

	REQUIRE(argc == 4);
	signal(SIGPIPE, SIG_IGN); /* as any program that writes to pipes/sockets with libuv */
	old_ocd = strcmp(argv[1], "no-read-memory") == 0;
	spawn = strcmp(argv[1], "spawn") == 0;
	REQUIRE_EQ(uv_loop_init(&loop), 0);
	tt_chain_init(c, &loop, argv[2], argv[3]);
	tt_chain_start_sim(c);
	if (spawn) {
		snprintf(log, sizeof(log), "%s/openocd.log", c->dir);
		opt.openocd_args = tt_chain_ocd_args(c);
		opt.openocd_log = log;
		tt_chain_open(c, "openocd-spawn", &opt);
	} else {
		/* the commands exist only once the targets are initialised */
		if (old_ocd)
			c->ocd_after_init = "rename read_memory {}; rename write_memory {}";
		tt_chain_start_ocd(c, 0);
		if (!old_ocd)
			px_start(&loop);
		snprintf(spec, sizeof(spec), "openocd:127.0.0.1:%d", old_ocd ? c->tcl_port : px.port);
		tt_chain_open(c, spec, &opt);
	}
	msg = tt_chain_wait_state(c, TT_PROBE_CONNECTED, 10000);
	REQUIRE(!old_ocd == !strstr(msg, "reading with mdw"));
	/* the core's state, asked for at link-up (a mem_ap target always runs) */
	REQUIRE(strcmp(c->last_notice, "target_state state running") == 0);
	test_patterns(c);
	if (px.port)
		test_batch(c);
	test_writes(c);
	test_ring(c);
	test_race(c);
	REQUIRE(c->p->reads > 40 && c->p->read_errors == 0);
	tt_chain_stop(c);
	if (px.port)
		px_close_all();
	tt_test_loop_done(&loop);
	printf("ok\n");
	return tt_test_done();
}
