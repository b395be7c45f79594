/* tests/server/test_trigger.c: trigger conditions (daemon/trigger.h) parsed from the compact
 * syntax and from the configuration file, matched against records made by hand: each kind
 * fires on the record it names and not on others; bad text is refused naming the part. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../tt_test.h"
#include "config.h"
#include "trigger.h"

static struct tt_trig_def parse_ok(const char *spec)
{
	struct tt_trig_def d;
	char err[512] = "";

	if (tt_trig_parse(spec, &d, err, sizeof(err)) < 0)
		FAIL("'%s' refused: %s", spec, err);
	return d;
}

static void parse_bad(const char *spec, const char *want)
{
	struct tt_trig_def d;
	char err[512] = "";

	CHECK_EQ(tt_trig_parse(spec, &d, err, sizeof(err)), -EINVAL);
	CHECK_SUBSTR(err, want);
}

/* A user event as the ThreadX reader emits it (info1..info4 named args). */
static struct tt_record user_event(uint32_t id, uint32_t info1, const char *thread, int prio)
{
	static const char *const names[] = { "info1", "info2", "info3", "info4" };
	struct tt_record r = { .kind = TT_REC_EVENT };

	r.u.ev.id = id;
	r.u.ev.name = "USER_EVENT";
	r.u.ev.thread = 0x20000500;
	r.u.ev.thread_name = thread;
	r.u.ev.prio = prio;
	r.u.ev.core = 0;
	r.u.ev.nargs = 4;
	for (int i = 0; i < 4; i++)
		r.u.ev.args[i] = (struct tt_arg){ names[i], NULL, i ? 7u : info1, TT_ARG_UINT };
	return r;
}

static void events(void)
{
	struct tt_trig_def d = parse_ok("boom: USER_EVENT id=0x1000 info1>=5; holdoff=2s limit=3");
	struct tt_record r = user_event(4096, 5, "producer", 8);

	CHECK_STR(d.name, "boom");
	CHECK_STR(d.cond, "USER_EVENT id=0x1000 info1>=5");
	CHECK_EQ(d.holdoff_ms, 2000);
	CHECK_EQ(d.limit, 3);
	CHECK(tt_trig_match(&d, "b1", &r));
	r.u.ev.args[0].value = 4; /* info1 below 5 */
	CHECK(!tt_trig_match(&d, "b1", &r));
	r = user_event(4097, 9, "producer", 8); /* another id */
	CHECK(!tt_trig_match(&d, "b1", &r));

	d = parse_ok("t: 4096 thread=producer prio<10");
	r = user_event(4096, 0, "producer", 8);
	CHECK(d.by_id && d.id == 4096);
	CHECK(tt_trig_match(&d, "b1", &r));
	r.u.ev.prio = 12;
	CHECK(!tt_trig_match(&d, "b1", &r));
	r = user_event(4096, 0, "consumer", 8);
	CHECK(!tt_trig_match(&d, "b1", &r));
	d = parse_ok("t: * thread=0x20000500; target=b2");
	CHECK(!tt_trig_match(&d, "b1", &r));
	CHECK(tt_trig_match(&d, "b2", &r));

	/* a NuttX printf note: its text holds "assert" */
	struct tt_record p = { .kind = TT_REC_EVENT };
	p.u.ev.name = "NOTE_DUMP_PRINTF";
	p.u.ev.prio = -1;
	p.u.ev.nargs = 1;
	p.u.ev.args[0] = (struct tt_arg){ "text", "up_assert: Assertion failed", 0, TT_ARG_OBJ };
	d = parse_ok("nx: * text~assert");
	CHECK(tt_trig_match(&d, "n", &p));
	d = parse_ok("nx: NOTE_DUMP_PRINTF text~\"Assertion failed\"");
	CHECK(tt_trig_match(&d, "n", &p));
	p.u.ev.args[0].text = "hello";
	CHECK(!tt_trig_match(&d, "n", &p));
	d = parse_ok("nx: * text!=hello");
	CHECK(!tt_trig_match(&d, "n", &p));
	/* prio on an event without one never holds */
	d = parse_ok("p: * prio>=0");
	CHECK(!tt_trig_match(&d, "n", &p));
}

static void stream(void)
{
	struct tt_record gap = { .kind = TT_REC_GAP }, reset = { .kind = TT_REC_RESET };
	struct tt_record ev = user_event(4096, 1, "a", 1);
	struct tt_trig_def d;

	gap.u.gap.lost = 12;
	d = parse_ok("g: gap");
	CHECK(d.kind == TT_TRIG_GAP && tt_trig_match(&d, "b", &gap));
	CHECK(!tt_trig_match(&d, "b", &reset) && !tt_trig_match(&d, "b", &ev));
	d = parse_ok("g: gap lost>=100");
	CHECK(!tt_trig_match(&d, "b", &gap));
	gap.u.gap.lost = 100;
	CHECK(tt_trig_match(&d, "b", &gap));
	d = parse_ok("r: reset");
	CHECK(tt_trig_match(&d, "b", &reset) && !tt_trig_match(&d, "b", &gap));
	d = parse_ok("h: halt; halt=false capture before=2s after=500");
	CHECK(d.kind == TT_TRIG_HALT && !tt_trig_match(&d, "b", &ev) && !d.halt && d.capture);
	CHECK(d.before_ms == 2000 && d.before_records == 0 && d.after_records == 500 && !d.after_ms);
	d = parse_ok("d: disconnect; command=/bin/true command_timeout=1m");
	CHECK(d.kind == TT_TRIG_DISCONNECT && d.ncommand == 1 && d.command_timeout_ms == 60000);
}

static void refused(void)
{
	parse_bad("no colon here", "expected NAME: CONDITION");
	parse_bad("a b: reset", "name 'a b'");
	parse_bad("x: user_event", "expected an event name");
	parse_bad("x: USER_EVENT info1=>5", "starts with an operator");
	parse_bad("x: USER_EVENT info1", "no operator");
	parse_bad("x: USER_EVENT info1<abc", "compares numbers");
	parse_bad("x: reset lost>1", "reset takes no predicate");
	parse_bad("x: gap info1=2", "gap takes no predicate but lost");
	parse_bad("x: USER_EVENT; holdoff=5", "holdoff: '5': expected a duration with a unit");
	parse_bad("x: USER_EVENT; before=2 weeks", "unknown option 'weeks'");
	parse_bad("x: USER_EVENT; command=sh", "expected an absolute path");
	parse_bad("x: USER_EVENT text~\"open", "quote is not closed");
	parse_bad("x:", "no condition");
}

static void config(void)
{
	static const char text[] =
		"{\"capture_dir\":\"/tmp/c\",\"capture_max_files\":3,\"capture_max_bytes\":\"1M\","
		"\"triggers\":[{\"name\":\"boom\",\"when\":\"USER_EVENT info1=500\",\"holdoff\":\"5s\","
		"\"limit\":2,\"capture\":true,\"before\":100,\"after\":\"1s\",\"command\":[\"/bin/echo\","
		"\"hi\"]},{\"name\":\"lost\",\"when\":\"gap\",\"target\":\"b1\"}],\"targets\":[]}";
	struct tt_config c;
	struct tt_trig_set s;
	char err[512] = "";

	REQUIRE(tt_config_parse(text, sizeof(text) - 1, "t.json", &c, err, sizeof(err)) == 0);
	tt_trig_set_init(&s);
	REQUIRE_MSG(tt_trig_set_from_json(&s, c.triggers, "t.json", err, sizeof(err)) == 0, "%s",
		    err);
	CHECK_EQ(s.n, 2);
	CHECK_STR(s.capture_dir, "/tmp/c");
	CHECK_EQ(s.capture_max_files, 3);
	CHECK_EQ(s.capture_max_bytes, 1000000); /* k/M/G are decimal (proto/parse.h) */
	CHECK(s.defs[0].capture && s.defs[0].before_records == 100 && s.defs[0].after_ms == 1000);
	CHECK(s.defs[0].limit == 2 && s.defs[0].holdoff_ms == 5000 && s.defs[0].ncommand == 2);
	CHECK_STR(s.defs[1].target, "b1");
	CHECK(tt_trig_set_check(&s, err, sizeof(err)) == 0);
	s.capture_dir[0] = 0;
	CHECK(tt_trig_set_check(&s, err, sizeof(err)) == -EINVAL);
	CHECK_SUBSTR(err, "trigger boom: capture needs a capture directory");
	tt_trig_set_free(&s);
	tt_config_free(&c);

	static const struct { const char *text, *want; } bad[] = {
		{ "{\"triggers\":[{\"name\":\"a\",\"when\":\"reset\",\"holdoff\":\"x\"}]}",
		  "t.json: triggers[0] (a): holdoff: 'x'" },
		{ "{\"triggers\":[{\"name\":\"a\"}]}", "t.json: triggers[0] (a): no condition "
		  "(\"when\" is required)" },
		{ "{\"triggers\":[{\"name\":\"a\",\"when\":\"reset\"},{\"name\":\"a\",\"when\":"
		  "\"gap\"}]}", "t.json: triggers[1]: trigger a: a trigger of that name exists" },
		{ "{\"triggers\":[{\"name\":\"b\",\"when\":\"FOO x~\",\"bogus\":1}]}",
		  "t.json: triggers[0] (b): unknown option 'bogus'" },
		{ "{\"triggers\":{}}", "t.json: triggers: expected an array" },
		{ "{\"capture_max_files\":0}", "t.json: capture_max_files: expected a positive" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		REQUIRE(tt_config_parse(bad[i].text, strlen(bad[i].text), "t.json", &c, err,
					sizeof(err)) == 0);
		tt_trig_set_init(&s);
		CHECK_EQ(tt_trig_set_from_json(&s, c.triggers, "t.json", err, sizeof(err)), -EINVAL);
		CHECK_SUBSTR(err, bad[i].want);
		tt_trig_set_free(&s);
		tt_config_free(&c);
	}
}

/* The statistics conditions on samples made by hand: each fires on the change it names, once,
 * and not while the condition is absent. */
static bool sample(const struct tt_trig_def *d, const struct tt_trig_sample *s, uint64_t ms,
		 struct tt_trig_stat_state *st)
{
	char why[300] = "";
	bool f = tt_trig_stat_match(d, s, ms, st, why, sizeof(why));

	if (f)
		printf("fired: %s: %s\n", d->cond, why);
	return f;
}

/* d at sample s, after checking that n (a bound no inversion reaches) does not fire. */
static bool both(const struct tt_trig_def *d, const struct tt_trig_def *n,
		 const struct tt_trig_sample *s, uint64_t ms, struct tt_trig_stat_state *st,
		 struct tt_trig_stat_state *never)
{
	CHECK(!sample(n, s, ms, never));
	return sample(d, s, ms, st);
}

/* inversion longer>T: once per inversion, while open (its age) or once closed (its duration)
 * or cut (what was seen), whichever sample first shows it over T; never for one within T. */
static void inversion_longer(void)
{
	struct tt_trig_inv_sample inv[64] = { { 0 } };
	struct tt_trig_sample s = { .inv = inv };
	struct tt_trig_stat_state st = { .primed = true }, never = { .primed = true };
	struct tt_trig_def d = parse_ok("long: inversion longer>1000");
	struct tt_trig_def n = parse_ok("never: inversion longer>100000");
	char why[300] = "";

#define BOTH(ms) both(&d, &n, &s, ms, &st, &never)
	CHECK(tt_trig_is_stat(&d));
	CHECK(!BOTH(0)); /* none yet */
	s.inversions = s.ninv = 1;
	inv[0] = (struct tt_trig_inv_sample){ .number = 0, .deterministic = true,
					      .state = TT_TRIG_INV_OPEN, .ticks = 500 };
	CHECK(!BOTH(1000)); /* open for 500 */
	inv[0].ticks = 1500;
	CHECK(tt_trig_stat_match(&d, &s, 2000, &st, why, sizeof(why)));
	CHECK_SUBSTR(why, "inversion 0: thread ? (blocked at seq 0) on mutex 0x0 of thread ? open "
			  "for 1500 ticks (longer than 1000)");
	inv[0].ticks = 1800;
	CHECK(!BOTH(3000)); /* once per inversion */
	inv[0].state = TT_TRIG_INV_CLOSED;
	inv[0].ticks = 2000;
	CHECK(!BOTH(4000));
	/* two more: one within T, one over it, both closed between two samples */
	s.inversions = s.ninv = 3;
	inv[1] = (struct tt_trig_inv_sample){ .number = 1, .deterministic = true,
					      .state = TT_TRIG_INV_CLOSED, .ticks = 1000 };
	inv[2] = (struct tt_trig_inv_sample){ .number = 2, .deterministic = true,
					      .state = TT_TRIG_INV_CLOSED, .ticks = 1001,
					      .start_seq = 77, .blocked = 1 };
	struct tt_trig_thread_sample th = { "sensor", 1, 0, 0, -1, false };
	s.threads = &th;
	s.nthreads = 1;
	CHECK(tt_trig_stat_match(&d, &s, 5000, &st, why, sizeof(why)));
	CHECK_SUBSTR(why, "inversion 2: thread sensor (blocked at seq 77) on mutex 0x0 of thread ? "
			  "lasted 1001 ticks");
	CHECK(!BOTH(6000));
	/* two over T in one sample (a closed and a cut one): one firing per sample, each once */
	s.inversions = s.ninv = 5;
	inv[3] = (struct tt_trig_inv_sample){ .number = 3, .state = TT_TRIG_INV_CUT,
					      .ticks = 3000, .deterministic = true };
	inv[4] = (struct tt_trig_inv_sample){ .number = 4, .state = TT_TRIG_INV_CLOSED,
					      .ticks = 5000, .deterministic = false };
	CHECK(BOTH(7000));
	CHECK(BOTH(8000));
	CHECK(!BOTH(9000));
	/* the ring moved on: 100 inversions, the 64 newest kept, all within T, the newest open */
	s.inversions = 100;
	s.ninv = 64;
	for (unsigned i = 0; i < 64; i++)
		inv[i] = (struct tt_trig_inv_sample){ .number = 36 + i, .deterministic = true,
						      .state = TT_TRIG_INV_CLOSED, .ticks = 10 };
	inv[63].state = TT_TRIG_INV_OPEN;
	CHECK(!BOTH(10000));
	inv[63].ticks = 1002; /* it has lasted longer than T */
	CHECK(BOTH(11000));
	CHECK(!BOTH(12000));
#undef BOTH
	/* bad: only non-deterministic ones */
	d = parse_ok("nd: inversion bad longer>1000");
	st = (struct tt_trig_stat_state){ .primed = true };
	s.inversions = s.ninv = 2;
	inv[0] = (struct tt_trig_inv_sample){ .number = 0, .deterministic = true,
					      .state = TT_TRIG_INV_CLOSED, .ticks = 5000 };
	inv[1] = (struct tt_trig_inv_sample){ .number = 1, .deterministic = true,
					      .state = TT_TRIG_INV_OPEN, .ticks = 5000 };
	CHECK(!sample(&d, &s, 0, &st));
	inv[1].deterministic = false; /* a third thread ran meanwhile */
	CHECK(sample(&d, &s, 1000, &st));
	/* added by a reload: inversions before it do not fire */
	st = (struct tt_trig_stat_state){ 0 };
	d = parse_ok("long: inversion longer>1000");
	CHECK(!sample(&d, &s, 0, &st));
	s.inversions = s.ninv = 3;
	inv[2] = (struct tt_trig_inv_sample){ .number = 2, .state = TT_TRIG_INV_OPEN,
					      .ticks = 1001 };
	CHECK(sample(&d, &s, 1000, &st));
	parse_bad("x: inversion longer<5", "needs longer>TICKS");
	parse_bad("x: inversion longer=5", "needs longer>TICKS");
	parse_bad("x: inversion shorter>5", "inversion takes longer>TICKS");
}

static void stats(void)
{
	struct tt_trig_thread_sample th[2] = { { "sensor", 1, 0, 10, 900, false },
						 { "comms", 2, 0, 5, -1, false } };
	struct tt_trig_sample s = { .threads = th, .nthreads = 2 };
	struct tt_trig_stat_state st = { 0 };
	struct tt_trig_def d;

	/* stack: a new low below the bound fires, the same low again does not */
	d = parse_ok("st: stack free<512 thread=sensor");
	CHECK(tt_trig_is_stat(&d) && !sample(&d, &s, 0, &st));
	th[0].stack_free = 400;
	CHECK(sample(&d, &s, 1000, &st));
	CHECK(!sample(&d, &s, 2000, &st));
	th[0].stack_free = 100;
	CHECK(sample(&d, &s, 3000, &st));
	/* inversions: each one opened */
	memset(&st, 0, sizeof(st));
	d = parse_ok("inv: inversion");
	s.inversions = 2;
	CHECK(!sample(&d, &s, 0, &st)); /* what was before the trigger */
	CHECK(!sample(&d, &s, 1000, &st));
	s.inversions = 3;
	CHECK(sample(&d, &s, 2000, &st));
	d = parse_ok("inv: inversion bad");
	memset(&st, 0, sizeof(st));
	CHECK(!sample(&d, &s, 0, &st));
	s.inversions = 4;
	CHECK(!sample(&d, &s, 1000, &st)); /* not a non-deterministic one */
	s.bad_inversions = 1;
	CHECK(sample(&d, &s, 2000, &st));
	/* CPU share over a 5 s window: 90% of the span is sensor's */
	d = parse_ok("hog: cpu share>80 thread=sensor window=5s");
	memset(&st, 0, sizeof(st));
	s.span_ticks = 1000;
	th[0].ticks = 100;
	CHECK(!sample(&d, &s, 0, &st));
	s.span_ticks = 2000;
	th[0].ticks = 1000;
	CHECK(!sample(&d, &s, 4000, &st)); /* the window is not over */
	CHECK(sample(&d, &s, 5000, &st));
	s.span_ticks = 3000;
	th[0].ticks = 1500; /* 50% in the next window */
	CHECK(!sample(&d, &s, 10000, &st));
	/* the longest interrupt / system call, over the bound */
	d = parse_ok("isr: irq max>100");
	memset(&st, 0, sizeof(st));
	s.irq_max = 50;
	CHECK(!sample(&d, &s, 0, &st));
	s.irq_max = 90;
	CHECK(!sample(&d, &s, 1000, &st));
	s.irq_max = 150;
	s.irq_nr = 15;
	CHECK(sample(&d, &s, 2000, &st));
	CHECK(!sample(&d, &s, 3000, &st));
	d = parse_ok("sc: syscall max>100");
	memset(&st, 0, sizeof(st));
	s.call_max = 10;
	s.call_name = "nxsem_wait";
	CHECK(!sample(&d, &s, 0, &st));
	s.call_max = 500;
	CHECK(sample(&d, &s, 1000, &st));
	/* a silent thread: once per silence */
	d = parse_ok("quiet: silent thread=comms for=3s");
	memset(&st, 0, sizeof(st));
	CHECK(!sample(&d, &s, 0, &st));
	CHECK(!sample(&d, &s, 2000, &st));
	CHECK(sample(&d, &s, 3000, &st));
	CHECK(!sample(&d, &s, 9000, &st));
	th[1].events = 6; /* heard from */
	CHECK(!sample(&d, &s, 9500, &st));
	CHECK(sample(&d, &s, 12500, &st));
	/* a record never matches a statistics condition */
	struct tt_record r = user_event(4096, 1, "sensor", 1);
	CHECK(!tt_trig_match(&d, "b", &r));

	parse_bad("x: stack thread=a", "stack thread=a needs free<BYTES");
	parse_bad("x: cpu share>120", "expected a percentage");
	parse_bad("x: silent thread=a for=5", "for=5: expected a duration");
	parse_bad("x: irq info1>3", "irq takes max>TICKS");
	parse_bad("x: stack free>5", "needs free<BYTES");
}

int main(void)
{
	events();
	stats();
	inversion_longer();
	stream();
	refused();
	config();
	return tt_test_done();
}
