/* tests/unit/test_threadx_decode.c: what a ThreadX event decodes to (context, core, names,
 * arguments, raw words), the registry (churn, deleted objects, untrusted names, re-read before
 * emitting), both byte orders, and time (narrow masks, down counters, the Linux 10^9 wrap, ns). */
#include <stdio.h>
#include <stdlib.h>

#include "../tt_test.h"
#include "txtest.h"

#define BUF (TXT_BASE + 0x1000)
#define T_MAIN 0x20008000u
#define T_WORK 0x20008400u

static void setup(struct txt *t, bool big, uint32_t nent, const struct tt_threadx_config *cfg)
{
	txt_init(t, big);
	CHECK_EQ(txw_enable(&t->w, BUF, 48 + 8 * 48 + nent * 32, 8), 0);
	txt_reader(t, cfg);
}

static const struct txt_rec *nth_event(const struct txt_log *l, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == TT_REC_EVENT && n-- == 0)
			return &l->v[i];
	return NULL;
}

static void fields(bool big)
{
	struct txt t;
	setup(&t, big, 64, NULL);
	txw_register(&t.w, T_MAIN, 1, "main", 0x20010000, 1024, 5);
	txw_register(&t.w, 0x20009000, 4, "sem", 1, 0, 0);
	txw_insert(&t.w, T_MAIN, txw_prio_word(7, 3), 100, T_MAIN, 7, 0x20010000, 1024, NULL);
	txw_insert(&t.w, TXW_ISR_THREAD, T_MAIN, 3, 0x2000FF00, 15, 1, 0, NULL);
	txw_insert(&t.w, T_MAIN, txw_prio_word(7, 3), (2u << 24) | 2, T_MAIN, 6, 0x2000FE00, 0,
		   NULL);
	txw_insert(&t.w, T_MAIN, txw_prio_word(7, 3), 83, 0x20009000, 0xFFFFFFFFu, 0, 0, NULL);
	txw_insert(&t.w, T_MAIN, txw_prio_word(7, 3), 32, 0x2000A000, 0x5, 0x1, 3, NULL);
	txw_insert(&t.w, T_MAIN, txw_prio_word(7, 3), 5000, 1, 2, 3, 4, NULL);
	txw_insert(&t.w, T_MAIN, 7, 500, 0xA, 0xB, 0xC, 0xD, NULL); /* bit 31 clear */
	/* filler so the suspend (patchable) is outside the hold window */
	for (uint32_t s = 1; s <= 8; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(txt_count(&t.log, TT_REC_EVENT), 2 + 7 + 8);

	const struct txt_rec *r = nth_event(&t.log, 0);
	CHECK_STR(r->name, "RUNNING");
	CHECK_EQ(r->ev.ctx, TT_CTX_INIT);
	CHECK_EQ(r->ev.nargs, 0);
	CHECK_EQ(r->ev.prio, -1);
	CHECK_EQ(r->ev.addr, t.w.ent_start);

	r = nth_event(&t.log, 2);
	CHECK_STR(r->name, "THREAD_CREATE");
	CHECK_EQ(r->ev.ctx, TT_CTX_THREAD);
	CHECK_EQ(r->ev.thread, T_MAIN);
	CHECK_STR(r->thread_name, "main");
	CHECK_EQ(r->ev.prio, 7);
	CHECK_EQ(r->ev.threshold, 3);
	CHECK_EQ(r->ev.core, 0);
	CHECK_EQ(r->ev.nargs, 4);
	CHECK_STR(r->arg_name[0], "thread");
	CHECK_EQ(r->ev.args[0].kind, TT_ARG_OBJ);
	CHECK_STR(r->arg_text[0], "main");
	CHECK_STR(r->arg_name[1], "priority");
	CHECK_EQ(r->ev.args[1].value, 7);
	CHECK_STR(r->arg_name[3], "stack_size");
	CHECK_EQ(r->raw[0], T_MAIN);
	CHECK_EQ(r->raw[1], txw_prio_word(7, 3));
	CHECK_EQ(r->raw[2], 100);
	CHECK_EQ(r->raw[7], 1024);
	CHECK_EQ(r->ev.addr, t.w.ent_start + 2 * 32);

	r = nth_event(&t.log, 3);
	CHECK_STR(r->name, "ISR_ENTER");
	CHECK_EQ(r->ev.ctx, TT_CTX_ISR);
	CHECK_EQ(r->ev.thread, 0);
	CHECK_EQ(r->ev.interrupted, T_MAIN);
	CHECK_STR(r->interrupted_name, "main");
	CHECK_STR(r->arg_name[1], "isr_number");
	CHECK_EQ(r->ev.args[1].value, 15);

	r = nth_event(&t.log, 4);
	CHECK_STR(r->name, "THREAD_SUSPEND");
	CHECK_EQ(r->ev.core, 2);
	CHECK_EQ(r->ev.id, 2);
	CHECK_STR(r->arg_name[1], "new_state");
	CHECK_EQ(r->ev.args[1].kind, TT_ARG_ENUM);
	CHECK_STR(r->arg_text[1], "semaphore"); /* state 6 */
	CHECK_EQ(r->ev.args[2].kind, TT_ARG_HEX);
	CHECK_STR(r->arg_name[2], "stack_ptr");
	CHECK_STR(r->arg_name[3], "next_thread");
	CHECK_EQ(r->ev.args[3].kind, TT_ARG_OBJ);
	CHECK(!r->arg_has_text[3]); /* next thread 0: none */

	r = nth_event(&t.log, 5);
	CHECK_STR(r->name, "SEMAPHORE_GET");
	CHECK_STR(r->arg_text[0], "sem");
	CHECK_STR(r->arg_name[1], "wait_option");
	CHECK_STR(r->arg_text[1], "wait_forever");

	r = nth_event(&t.log, 6);
	CHECK_STR(r->name, "EVENT_FLAGS_GET");
	CHECK(!r->arg_has_text[0]); /* unregistered group */
	CHECK_STR(r->arg_text[3], "and_clear");
	CHECK_EQ(r->ev.args[1].kind, TT_ARG_HEX);

	r = nth_event(&t.log, 7);
	CHECK_STR(r->name, "USER_EVENT");
	CHECK_EQ(r->ev.id, 5000);
	CHECK_EQ(r->ev.nargs, 4);
	CHECK_STR(r->arg_name[0], "info1");
	CHECK_EQ(r->ev.args[3].value, 4);
	CHECK_EQ(r->ev.args[3].kind, TT_ARG_UINT);

	r = nth_event(&t.log, 8);
	CHECK_STR(r->name, "UNKNOWN");
	CHECK_EQ(r->ev.nargs, 4);
	CHECK_EQ(r->ev.prio, 7);
	CHECK_EQ(r->ev.threshold, -1); /* bit 31 clear: no threshold recorded */
	CHECK_EQ(r->ev.args[0].kind, TT_ARG_HEX);
	CHECK_EQ(r->ev.args[2].value, 0xC);
	CHECK(txt_seq_range(&t.log, 1, 8));

	struct tt_threadx_object o;
	CHECK_EQ(tt_threadx_object(t.rd, T_MAIN, &o), 0);
	CHECK_EQ(o.type, 1);
	CHECK_EQ(o.prio, 5);
	CHECK_EQ(o.param2, 1024);
	CHECK_STR(o.name, "main");
	CHECK_STR(tt_threadx_object_type_name(o.type), "thread");
	txt_free(&t);
}

static void test_fields(void)
{
	fields(false);
	fields(true);
	CHECK_STR(tt_threadx_state_name(3), "suspended");
	CHECK_STR(tt_threadx_state_name(14), "priority_change");
	CHECK(tt_threadx_state_name(15) == NULL);
}

static void test_registry_churn(void)
{
	struct txt t;
	setup(&t, false, 64, NULL);
	txw_register(&t.w, T_MAIN, 1, "main", 0, 0, 5);
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 100, T_MAIN, 5, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	const struct tt_threadx_stats *st = tt_threadx_stats(t.rd);

	/* created after attach: the registry is re-read before the poll's events are emitted */
	uint64_t b0 = st->bytes_planned;
	txw_register(&t.w, T_WORK, 1, "worker", 0, 0, 9);
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 100, T_WORK, 9, 0, 0, NULL);
	txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 1, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 2);
	CHECK_STR(t.log.v[0].arg_text[0], "worker");
	CHECK_STR(t.log.v[1].thread_name, "worker");
	/* current, slots, anchor, the registry and current again (written since?) */
	CHECK_EQ(st->bytes_planned - b0, 4 + 3 * 32 + 8 * 48 + 4);

	/* deleted: the registry keeps the name, old and new events still resolve */
	txt_log_clear(&t.log);
	txw_unregister(&t.w, T_WORK);
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 101, T_WORK, 0, 0, 0, NULL);
	tt_threadx_refresh_registry(t.rd);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_STR(t.log.v[0].name, "THREAD_DELETE");
	CHECK_STR(t.log.v[0].arg_text[0], "worker");
	struct tt_threadx_object o;
	CHECK_EQ(tt_threadx_object(t.rd, T_WORK, &o), 0);
	CHECK(o.deleted);

	/* recreated at the same address under a new name: the create event triggers a re-read */
	txt_log_clear(&t.log);
	txw_register(&t.w, T_WORK, 1, "worker2", 0, 0, 9);
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 100, T_WORK, 9, 0, 0, NULL);
	txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 2, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_STR(t.log.v[0].arg_text[0], "worker2");
	CHECK_STR(t.log.v[1].thread_name, "worker2");
	CHECK_EQ(tt_threadx_object(t.rd, T_WORK, &o), 0);
	CHECK(!o.deleted);

	/* a pointer the registry never names costs one re-read, not one per poll */
	txt_log_clear(&t.log);
	b0 = st->bytes_planned;
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 88, 0x2000C000, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(st->bytes_planned - b0, 4 + 2 * 32 + 8 * 48 + 4);
	b0 = st->bytes_planned;
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 88, 0x2000C000, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(st->bytes_planned - b0, 4 + 2 * 32);
	CHECK_EQ(t.log.n, 2);
	CHECK(!t.log.v[1].arg_has_text[0]);

	/* untrusted names: non-printable bytes replaced, no NUL within name_size: truncated */
	txt_log_clear(&t.log);
	txw_register(&t.w, 0x2000D000, 3, "q\x01\x7f" "ueue", 0, 0, 0);
	uint32_t e = t.w.reg_start + 3 * 48; /* 4th slot: main, worker, (none), this */
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t a = t.w.reg_start + i * 48;
		if (txw_load32(&t.w, a + 4) == 0x2000D000)
			e = a;
	}
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 60, 0x2000D000, 4, 0, 16, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_STR(t.log.v[0].arg_text[0], "q??ueue");
	txt_log_clear(&t.log);
	for (uint32_t i = 0; i < 32; i += 4)
		txw_store32(&t.w, e + 16 + i, 0x41414141u);
	txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 60, 0x2000D000, 4, 0, 16, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_STR(t.log.v[0].arg_text[0], "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); /* 31 chars */
	txt_free(&t);
}

/* Events' unwrapped times must be exactly base + k * step. */
static void check_times(const struct txt_log *l, uint64_t first, uint64_t step)
{
	uint64_t k = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].kind != TT_REC_EVENT)
			continue;
		CHECK_EQ(l->v[i].ev.time, first + k * step);
		k++;
	}
	CHECK(k > 0);
}

static void test_time(void)
{
	struct txt t;
	/* narrow mask: wraps every 65 events at step 1000 */
	setup(&t, false, 64, NULL);
	t.w.timer_mask = 0xFFFF;
	CHECK_EQ(txw_enable(&t.w, BUF, 48 + 8 * 48 + 64 * 32, 8), 0);
	t.w.time_step = 1000;
	for (uint32_t s = 1; s <= 30; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	for (uint32_t poll = 0; poll < 10; poll++) {
		for (uint32_t s = 31 + poll * 40; s < 71 + poll * 40; s++)
			txt_user(&t, s);
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	}
	/* the two RUNNING events stamped 1 and 2 (step 1), then step 1000 */
	CHECK_EQ(t.log.v[2].ev.time - t.log.v[1].ev.time, 1000 - 2 + 2);
	CHECK_EQ(t.log.v[t.log.n - 1].ev.time, 4 + 430 * 1000); /* RUNNING x2 at 3, 4 */
	CHECK_EQ(t.log.v[t.log.n - 1].ev.ts_raw, (4 + 430 * 1000) & 0xFFFF);
	CHECK(txt_seq_range(&t.log, 1, 430));
	txt_free(&t);

	/* a down counter, detected from the history; ns at 1 kHz */
	struct tt_threadx_config cfg = { .tick_hz = 1000 };
	setup(&t, false, 64, &cfg);
	t.w.time_mode = TXW_TIME_DOWN;
	t.w.time_step = 7;
	t.w.time = 100;
	CHECK_EQ(txw_enable(&t.w, BUF, 48 + 8 * 48 + 64 * 32, 8), 0);
	for (uint32_t s = 1; s <= 20; s++) /* goes below 0: wraps at 2^32 */
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	uint64_t first = t.log.v[0].ev.time;
	check_times(&t.log, first, 7);
	CHECK_EQ(t.log.v[0].ev.ns, 0);
	CHECK(t.log.v[0].ev.has_ns);
	CHECK_EQ(t.log.v[3].ev.ns, 3 * 7 * 1000000ull);
	txt_free(&t);

}

static uint32_t linux_ns(void *arg)
{
	uint64_t *c = arg;
	*c += 300000000u; /* 0.3 s per event */
	return (uint32_t)(*c % 1000000000u);
}

static void test_linux_wrap(void)
{
	struct txt t;
	uint64_t clk = 999000000u;
	struct tt_threadx_config lin = { .time_wrap = 1000000000u, .tick_hz = 1000000000u };
	txt_init(&t, false);
	t.w.time_mode = TXW_TIME_CALLBACK;
	t.w.now = linux_ns;
	t.w.now_arg = &clk;
	CHECK_EQ(txw_enable(&t.w, BUF, 48 + 8 * 48 + 64 * 32, 8), 0);
	txt_reader(&t, &lin);
	for (uint32_t s = 1; s <= 10; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	for (uint32_t s = 11; s <= 20; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 22);
	check_times(&t.log, t.log.v[0].ev.time, 300000000u);
	CHECK_EQ(t.log.v[21].ev.ns, 21 * 300000000ull);
	CHECK(t.log.v[21].ev.ts_raw < 1000000000u);
	txt_free(&t);
}

static void test_static_image(void)
{
	struct txt t;
	setup(&t, true, 16, NULL);
	txw_register(&t.w, 0x1000, 1, "main", 0, 0, 5);
	for (uint32_t s = 1; s <= 40; s++)
		txt_user(&t, s);
	/* a file trusts the slot at current: all 16, oldest first */
	struct txt_log l = { 0 };
	char err[256];
	size_t len = t.w.ent_end - TXT_BASE;
	int rc = tt_threadx_decode_image(t.mem, len, TXT_BASE, BUF - TXT_BASE, NULL, txt_log_cb, &l,
					 err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_STR(err, "");
	CHECK(txt_seq_range(&l, 25, 40));
	/* a .trx: the image starts at the header */
	txt_log_clear(&l);
	rc = tt_threadx_decode_image(t.mem + (BUF - TXT_BASE), t.w.ent_end - BUF, BUF, 0, NULL,
				     txt_log_cb, &l, err, sizeof(err));
	CHECK_EQ(rc, 0);
	CHECK_EQ(l.n, 16);
	CHECK_STR(l.v[0].thread_name, "main");
	free(l.v);
	txt_free(&t);
}

/* A thread deleted and created again at the same address under a new name, all within one poll:
 * ThreadX rewrote the registry entry in place, so the re-read names only the new thread. The old
 * thread's last events, its TERMINATE and DELETE keep the old name (the registry as read before);
 * the CREATE and what follows carry the new one. Created twice in one poll: the thread in
 * between was never in a registry the reader saw, and is left unnamed. Offline, the image's
 * registry holds only the newest name: events before the create are left unnamed, not misnamed. */
static void recreate_batch(struct txt *t, const char *name, uint32_t seq)
{
	txw_insert(&t->w, T_WORK, txw_prio_word(9, 9), 4096, seq, 0, 0, 0, NULL);
	txw_insert(&t->w, T_WORK, txw_prio_word(9, 9), 115, T_WORK, 2, 0, 0, NULL);
	txw_insert(&t->w, T_MAIN, txw_prio_word(5, 5), 101, T_WORK, 0, 0, 0, NULL);
	txw_unregister(&t->w, T_WORK);
	txw_register(&t->w, T_WORK, 1, name, 0, 0, 9);
	txw_insert(&t->w, T_MAIN, txw_prio_word(5, 5), 100, T_WORK, 9, 0, 0, NULL);
	txw_insert(&t->w, T_WORK, txw_prio_word(9, 9), 4096, seq + 1, 0, 0, 0, NULL);
}

/* A buffer with main and a worker named name registered, and a reader not attached yet. */
static void main_and_worker(struct txt *t, const char *name)
{
	setup(t, false, 64, NULL);
	txw_register(&t->w, T_MAIN, 1, "main", 0, 0, 5);
	txw_register(&t->w, T_WORK, 1, name, 0, 0, 9);
}

/* A reader attached to main and a worker named name, one event of the worker read and named. */
static void worker_named(struct txt *t, const char *name)
{
	main_and_worker(t, name);
	txw_insert(&t->w, T_WORK, txw_prio_word(9, 9), 4096, 1, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(t), TT_THREADX_DONE);
	CHECK_STR(nth_event(&t->log, 2)->thread_name, name);
	txt_log_clear(&t->log);
}

static void test_recreate_names(void)
{
	struct txt t;
	worker_named(&t, "worker");

	recreate_batch(&t, "worker2", 2);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 5);
	CHECK_STR(t.log.v[0].thread_name, "worker");    /* its last event */
	CHECK_STR(t.log.v[1].name, "THREAD_TERMINATE");
	CHECK_STR(t.log.v[1].thread_name, "worker");
	CHECK_STR(t.log.v[1].arg_text[0], "worker");
	CHECK_STR(t.log.v[2].name, "THREAD_DELETE");
	CHECK_STR(t.log.v[2].arg_text[0], "worker");
	CHECK_STR(t.log.v[3].name, "THREAD_CREATE");
	CHECK_STR(t.log.v[3].arg_text[0], "worker2");
	CHECK_STR(t.log.v[4].thread_name, "worker2");

	/* twice in one poll: worker3 lived between the creates and no registry read saw it */
	txt_log_clear(&t.log);
	recreate_batch(&t, "worker3", 4);
	recreate_batch(&t, "worker4", 6);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(t.log.n, 10);
	CHECK_STR(t.log.v[0].thread_name, "worker2");
	CHECK_STR(t.log.v[2].arg_text[0], "worker2");
	CHECK_STR(t.log.v[3].arg_text[0], "");
	for (int i = 3; i < 8; i++)
		CHECK_MSG(!t.log.v[i].arg_has_text[0] && t.log.v[i].thread_name[0] != 'w',
			  "record %d names worker3's time \"%s\" \"%s\"", i, t.log.v[i].thread_name,
			  t.log.v[i].arg_text[0]);
	CHECK_STR(t.log.v[8].arg_text[0], "worker4");
	CHECK_STR(t.log.v[9].thread_name, "worker4");

	/* offline: the same buffer as a static image */
	struct txt_log l = { 0 };
	char err[256];
	size_t len = t.w.ent_end - TXT_BASE;
	CHECK_EQ(tt_threadx_decode_image(t.mem, len, TXT_BASE, BUF - TXT_BASE, NULL, txt_log_cb, &l,
					 err, sizeof(err)), 0);
	size_t n = 0;
	for (size_t i = 0; i < l.n; i++) {
		const struct txt_rec *r = &l.v[i];
		bool worker = r->raw[0] == T_WORK || (r->ev.id >= 100 && r->raw[4] == T_WORK);
		if (r->kind != TT_REC_EVENT || !worker)
			continue;
		/* from the last create on: worker4; before it: never a name */
		const char *name = r->raw[0] == T_WORK ? r->thread_name : r->arg_text[0];
		CHECK_MSG(n >= 14 ? !strcmp(name, "worker4") : !name[0],
			  "offline record %zu (%s): \"%s\"", n, r->name, name);
		n++;
	}
	CHECK_EQ(n, 16);
	free(l.v);
	txt_free(&t);
}

/* The registry re-read after a batch that re-creates the worker comes too late: between the
 * batch's read and the registry's, the worker was deleted and created again (as a live reader
 * on a busy target sees it). The registry then names that next incarnation: the batch's
 * incarnation (its create, its events, its delete) is left unnamed, never given the next one's
 * name, and so are the next incarnation's events before its create in the next poll; from its
 * create on, the next one is named. */
static void recreate_before_registry(struct txt *t, unsigned i, const struct tt_plan *p)
{
	uint32_t *seq = t->hook_arg;
	if (*seq == 0 || p->r[i].addr != t->w.reg_start)
		return;
	txw_insert(&t->w, T_WORK, txw_prio_word(9, 9), 4096, *seq, 0, 0, 0, NULL);
	recreate_batch(t, "job-233", *seq + 1);
	*seq = 0;
}

/* Re-created across a gap: job-2's create was overwritten before the reader came back, then
 * job-3 is created in the batch after the gap. The registry read before the gap names job-1,
 * but job-2 ran between the gap and job-3's create: its events are left unnamed, never given
 * job-1's name (before: named job-1, an older generation's name, as a live run on a loaded host
 * showed). */
static void test_recreate_across_gap(void)
{
	struct txt t;
	worker_named(&t, "job-1");
	recreate_batch(&t, "job-2", 2);
	for (uint32_t i = 0; i < 80; i++) /* a lap and more: job-2's create is overwritten */
		txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 4096, 10 + i, 0, 0, 0, NULL);
	for (uint32_t i = 0; i < 3; i++)
		txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 90 + i, 0, 0, 0, NULL);
	recreate_batch(&t, "job-3", 100);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	bool gap = false, created = false;
	unsigned work = 0;
	for (size_t i = 0; i < t.log.n; i++) {
		const struct txt_rec *r = &t.log.v[i];
		gap = gap || r->kind == TT_REC_GAP;
		if (r->kind != TT_REC_EVENT)
			continue;
		if (r->ev.id == 100)
			created = true;
		if (r->raw[0] != T_WORK)
			continue;
		work++;
		CHECK_MSG(created ? !strcmp(r->thread_name, "job-3") : !r->thread_name[0],
			  "event %zu (%s, info1 %u) of the worker named \"%s\"", i, r->name,
			  r->raw[4], r->thread_name);
	}
	CHECK(gap && created);
	CHECK_EQ(work, 6); /* job-2's 3, its TERMINATE by the worker, job-3's first */
	txt_free(&t);
}

static void test_recreate_before_registry(void)
{
	struct txt t;
	uint32_t seq = 0;
	main_and_worker(&t, "job-231");
	txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 1, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	txt_log_clear(&t.log);
	recreate_batch(&t, "job-232", 2); /* job-231's end, job-232's create and first event */
	seq = 10;
	t.hook = recreate_before_registry;
	t.hook_arg = &seq;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(seq, 0); /* the registry was re-read, after job-233 replaced job-232 */
	CHECK_EQ(t.log.n, 5);
	CHECK_STR(t.log.v[0].thread_name, "job-231");
	CHECK_STR(t.log.v[2].arg_text[0], "job-231");
	CHECK_STR(t.log.v[3].name, "THREAD_CREATE");
	CHECK_MSG(!t.log.v[3].arg_has_text[0], "job-232's create named \"%s\"",
		  t.log.v[3].arg_text[0]);
	CHECK_MSG(t.log.v[4].thread_name[0] == '\0', "job-232's event named \"%s\"",
		  t.log.v[4].thread_name);
	t.hook = NULL;
	txt_log_clear(&t.log);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	/* job-232's last events, terminate, delete: unnamed; job-233's create on: named */
	CHECK_EQ(t.log.n, 6);
	for (int i = 0; i < 4; i++)
		CHECK_MSG((t.log.v[i].raw[0] != T_WORK || t.log.v[i].thread_name[0] == '\0') &&
			  !t.log.v[i].arg_has_text[0],
			  "record %d (%s) of job-232 named \"%s\" \"%s\"", i, t.log.v[i].name,
			  t.log.v[i].thread_name, t.log.v[i].arg_text[0]);
	CHECK_STR(t.log.v[4].name, "THREAD_CREATE");
	CHECK_STR(t.log.v[4].arg_text[0], "job-233");
	CHECK_STR(t.log.v[5].thread_name, "job-233");
	txt_free(&t);
}

/* Re-created between the attach's registry read and its full read (upstream ThreadX on QEMU,
 * a worker re-created every 0.1 s, tracing enabled late: the first batch's last generation was
 * named as the one before it). The registry read at attach comes before the slots the full read
 * publishes, so it names the incarnation before a create among them: the events from that
 * create on are named by a registry read after the batch, or not at all, never the older name. */
static void recreate_after_attach_registry(struct txt *t, unsigned i, const struct tt_plan *p)
{
	int *st = t->hook_arg;
	if (*st == 0 && p->r[i].addr == t->w.reg_start)
		*st = 1; /* the attach's registry read is being copied now */
	else if (*st == 1 && p->r[i].addr != t->w.reg_start) {
		recreate_batch(t, "job-2", 10); /* after it, before the full read */
		*st = 2;
	}
}

static void test_recreate_after_attach_registry(void)
{
	struct txt t;
	int st = 0;
	main_and_worker(&t, "job-1");
	for (uint32_t i = 0; i < 3; i++)
		txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 1 + i, 0, 0, 0, NULL);
	t.hook = recreate_after_attach_registry;
	t.hook_arg = &st;
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	CHECK_EQ(st, 2);
	bool created = false;
	unsigned after = 0;
	for (size_t i = 0; i < t.log.n; i++) {
		const struct txt_rec *r = &t.log.v[i];
		if (r->kind != TT_REC_EVENT)
			continue;
		if (r->ev.id == 100) {
			created = true;
			CHECK_MSG(!strcmp(r->arg_text[0], "job-2") || !r->arg_has_text[0],
				  "job-2's create named \"%s\"", r->arg_text[0]);
		}
		if (created && r->raw[0] == T_WORK) {
			after++;
			CHECK_MSG(!strcmp(r->thread_name, "job-2"),
				  "event %zu (%s) of job-2 named \"%s\"", i, r->name, r->thread_name);
		}
	}
	CHECK(created);
	CHECK_EQ(after, 1);
	txt_free(&t);
}

/* ThreadX 6.4.2's _tx_trace_object_register and _unregister step for step
 * (tx_trace_object_register.c, tx_trace_object_unregister.c): the search starts where the last
 * registration or unregistration left it and takes the first entry never used or holding the
 * object, else the first available one; an unregistration flags the lowest entry holding the
 * object and starts the next search there. txw_register takes the object's entry first: with
 * another object registered between a thread's delete and its re-creation, ThreadX does not. */
struct upreg {
	uint32_t search, avail;
};

static uint32_t up_entry(const struct txt *t, uint32_t i)
{
	return t->w.reg_start + i * 48;
}

static void up_register(struct txt *t, struct upreg *u, uint32_t obj, uint8_t type,
			const char *name)
{
	const uint32_t n = t->w.nreg;
	uint32_t found = n, i = u->search;
	if (u->avail == 0)
		return;
	do {
		uint32_t e = up_entry(t, i), p = txw_load32(&t->w, e + 4);
		if (p == 0 || p == obj) {
			found = i;
			break;
		}
		if (t->mem[e - TXT_BASE] == 1 &&
		    (found == n || t->mem[up_entry(t, found) + 1 - TXT_BASE] != 0))
			found = i;
		i = (i + 1) % n;
	} while (i != u->search);
	if (found == n)
		return;
	u->avail--;
	u->search = (found + 1) % n;
	uint32_t e = up_entry(t, found);
	uint8_t *m = t->mem + (e - TXT_BASE);
	m[0] = 0;
	m[1] = type;
	m[2] = type == 1 ? 0x80 : 0;
	m[3] = type == 1 ? 9 : 0;
	txw_store32(&t->w, e + 4, obj);
	txw_store32(&t->w, e + 8, 0);
	txw_store32(&t->w, e + 12, 0);
	size_t k = 0;
	for (; name[k] && k < 31; k++)
		m[16 + k] = (uint8_t)name[k];
	m[16 + k] = 0;
}

static void up_unregister(struct txt *t, struct upreg *u, uint32_t obj)
{
	for (uint32_t i = 0; i < t->w.nreg; i++) {
		uint32_t e = up_entry(t, i);
		if (txw_load32(&t->w, e + 4) == obj) {
			t->mem[e - TXT_BASE] = 1;
			u->avail++;
			u->search = i;
			return;
		}
	}
}

/* Upstream ThreadX on QEMU, a worker deleted and created again as job-G with a semaphore (one of
 * four) created in between: the registry fills with entries for the worker, several of them live
 * with older generations' names. Every worker event is named as its own generation (its user
 * events carry G in info 2) or not named, never as another; most of them are named. */
static void test_recreate_upstream_registry(void)
{
	struct txt t;
	struct upreg u = { 0, 8 };
	unsigned named = 0, all = 0;
	setup(&t, false, 64, NULL);
	up_register(&t, &u, T_MAIN, 1, "main");
	up_register(&t, &u, T_WORK, 1, "job-0");
	txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 1, 0, 0, 0, NULL);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	for (uint32_t g = 1; g <= 16; g++) {
		char name[16];
		uint32_t sem = 0x20009000u + 0x40 * (g % 4);
		snprintf(name, sizeof(name), "job-%u", g);
		txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 2 * g, g - 1, 0, 0, NULL);
		txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 101, T_WORK, 0, 0, 0, NULL);
		up_unregister(&t, &u, T_WORK);
		up_register(&t, &u, sem, 4, "sem_tmp");
		up_register(&t, &u, T_WORK, 1, name);
		txw_insert(&t.w, T_MAIN, txw_prio_word(5, 5), 100, T_WORK, 9, 0, 0, NULL);
		txw_insert(&t.w, T_WORK, txw_prio_word(9, 9), 4096, 2 * g + 1, g, 0, 0, NULL);
		up_unregister(&t, &u, sem);
		CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	}
	for (size_t i = 0; i < t.log.n; i++) {
		const struct txt_rec *r = &t.log.v[i];
		char want[16];
		if (r->kind != TT_REC_EVENT || r->raw[0] != T_WORK || r->ev.id != 4096)
			continue;
		snprintf(want, sizeof(want), "job-%u", r->raw[5]);
		all++;
		named += r->thread_name[0] != '\0';
		CHECK_MSG(!r->thread_name[0] || !strcmp(r->thread_name, want),
			  "user event %u of %s named \"%s\"", r->raw[4], want, r->thread_name);
	}
	CHECK_EQ(all, 33);
	CHECK_MSG(named * 2 >= all, "%u of %u named", named, all);
	txt_free(&t);
}

/* FileX, NetX Duo and USBX events decode with TraceX's names and argument labels, and their
 * objects (media, IP instance, socket, packet pool) are named from the registry. */
static void test_middleware(void)
{
	struct txt t;
	const uint32_t media = 0x20009100u, ip = 0x20009200u, pool = 0x20009300u;
	const uint32_t sock = 0x20009400u;

	setup(&t, false, 64, NULL);
	txw_register(&t.w, T_MAIN, 1, "main", 0x20010000, 1024, 5);
	txw_register(&t.w, media, 9, "RAM DISK", 0, 0, 0);
	txw_register(&t.w, ip, 11, "NetX IP Instance 0", 0, 0, 0);
	txw_register(&t.w, pool, 12, "NetX Main Packet Pool", 1536, 32, 0);
	txw_register(&t.w, sock, 13, "Server Socket", 0, 0, 0);
	txw_insert(&t.w, T_MAIN, 5, 206, media, 12, 1, 0x2001B3E0u, NULL);
	txw_insert(&t.w, T_MAIN, 5, 391, pool, 1536, 0x20030000u, 49152, NULL);
	txw_insert(&t.w, T_MAIN, 5, 323, ip, sock, 4, 5, NULL);
	txw_insert(&t.w, T_MAIN, 5, 999, 0x12, 3, 0, 0, NULL);
	txw_insert(&t.w, T_MAIN, 5, 1999, 1, 2, 3, 4, NULL); /* no table has it */
	for (uint32_t s = 1; s <= 4; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);

	/* after the writer's two RUNNING events (txw_enable) */
	const struct txt_rec *r = nth_event(&t.log, 2);
	CHECK_STR(r->name, "FX_INTERNAL_IO_DRIVER_READ");
	CHECK_EQ(r->ev.nargs, 4);
	CHECK_STR(r->arg_name[0], "media");
	CHECK_EQ(r->ev.args[0].kind, TT_ARG_OBJ);
	CHECK_STR(r->arg_text[0], "RAM DISK");
	CHECK_STR(r->arg_name[1], "sector");
	CHECK_EQ(r->ev.args[1].value, 12);
	CHECK_STR(r->arg_name[2], "number_of_sectors");
	CHECK_STR(r->arg_name[3], "buffer");
	CHECK_EQ(r->ev.args[3].kind, TT_ARG_HEX);

	r = nth_event(&t.log, 3);
	CHECK_STR(r->name, "NX_PACKET_POOL_CREATE");
	CHECK_STR(r->arg_name[0], "pool");
	CHECK_STR(r->arg_text[0], "NetX Main Packet Pool");

	r = nth_event(&t.log, 4);
	CHECK_STR(r->name, "NX_INTERNAL_TCP_STATE_CHANGE");
	CHECK_STR(r->arg_text[0], "NetX IP Instance 0");
	CHECK_STR(r->arg_name[1], "socket");
	CHECK_STR(r->arg_text[1], "Server Socket");
	CHECK_STR(r->arg_name[2], "previous_state");
	CHECK_EQ(r->ev.args[2].kind, TT_ARG_UINT); /* a TCP state, not a thread state */

	r = nth_event(&t.log, 5);
	CHECK_STR(r->name, "UX_ERROR");
	CHECK_STR(r->arg_name[0], "usbx_error");

	r = nth_event(&t.log, 6);
	CHECK_STR(r->name, "UNKNOWN");
	CHECK_STR(tt_threadx_object_type_name(9), "media");
	CHECK_STR(tt_threadx_object_type_name(13), "tcp_socket");
	CHECK_STR(tt_threadx_object_type_name(24), "usb_host_class_instance");
	CHECK(tt_threadx_object_type_name(15) == NULL);
	CHECK(tt_threadx_object_type_name(29) == NULL);
	txt_free(&t);
}

/* Who runs (threadx_run.c), rule by rule: each event's run is who ran since the one before. */
static void test_run(void)
{
	static const struct { uint32_t ctx, w1, id, i1, i4; uint8_t run; uint32_t thread; } seq[] = {
		{ T_MAIN, 5, 69, 0, 0, TT_RUN_NONE, 0 },           /* nothing before the first */
		{ T_MAIN, 5, 2, T_MAIN, 0, TT_RUN_THREAD, T_MAIN },  /* suspend, next thread 0 */
		{ TXW_ISR_THREAD, 0, 3, 0, 0, TT_RUN_IDLE, 0 },      /* ...was idle up to the ISR */
		{ TXW_ISR_THREAD, 0, 5, T_WORK, 0, TT_RUN_ISR, 0 },  /* time slice from the ISR */
		{ TXW_ISR_THREAD, 0, 4, 0, 0, TT_RUN_ISR, 0 },       /* nested: still the ISR */
		{ TXW_ISR_THREAD, 0, 3, 0, 0, TT_RUN_THREAD, T_WORK }, /* between two ISRs: the time
									  * slice's thread */
		{ TXW_ISR_THREAD, 0, 4, 0, 0, TT_RUN_ISR, 0 },
		{ T_WORK, 5, 109, 0, 0, TT_RUN_THREAD, T_WORK },     /* out of it: the next context */
		{ T_MAIN, 5, 69, 0, 0, TT_RUN_THREAD, T_MAIN },      /* relinquish, info 2 = main */
		{ TXW_ISR_THREAD, T_WORK, 3, 0, 0, TT_RUN_THREAD, T_WORK }, /* ISR names who it interrupted */
		{ TXW_ISR_THREAD, T_WORK, 4, 0, 0, TT_RUN_ISR, 0 },
		{ T_MAIN, 5, 1, T_WORK, 0, TT_RUN_THREAD, T_MAIN },  /* resume, next not recorded */
		{ T_WORK, 5, 69, 0, 0, TT_RUN_THREAD, T_WORK },      /* ...the resumed thread came next */
		{ T_WORK, 5, 2, T_WORK, T_MAIN, TT_RUN_THREAD, T_WORK },
		{ T_WORK, 5, 69, 0, 0, TT_RUN_THREAD, T_WORK },      /* self-suspend then own event */
	};
	const size_t n = sizeof(seq) / sizeof(seq[0]);
	struct txt t;

	setup(&t, false, 64, NULL);
	txw_register(&t.w, T_MAIN, 1, "main", 0x20010000, 1024, 5);
	txw_register(&t.w, T_WORK, 1, "work", 0x20011000, 1024, 5);
	for (size_t i = 0; i < n; i++) {
		uint32_t i2 = seq[i].id == 109 ? T_MAIN : 0; /* relinquish: info 2 = next thread */
		txw_insert(&t.w, seq[i].ctx, seq[i].w1, seq[i].id, seq[i].i1, i2, 0, seq[i].i4, NULL);
	}
	for (uint32_t s = 1; s <= 4; s++)
		txt_user(&t, s);
	CHECK_EQ(txt_cycle(&t), TT_THREADX_DONE);
	for (size_t i = 0; i < n; i++) {
		/* after the writer's two RUNNING events: the first of ours follows one, so it has a
		 * run too (init): check from the second on, and the first's own rule separately */
		const struct txt_rec *r = nth_event(&t.log, 2 + i);
		CHECK(r != NULL);
		if (!r || i == 0)
			continue;
		CHECK_MSG(r->ev.run == seq[i].run, "event %zu: run %d, want %d", i, r->ev.run, seq[i].run);
		if (seq[i].run == TT_RUN_THREAD)
			CHECK_MSG(r->ev.run_thread == seq[i].thread, "event %zu: 0x%x", i, r->ev.run_thread);
	}
	CHECK_EQ(nth_event(&t.log, 0)->ev.run, TT_RUN_NONE);
	CHECK_EQ(nth_event(&t.log, 1)->ev.run, TT_RUN_INIT);
	CHECK_STR(nth_event(&t.log, 2 + 8)->run_name, "main");
	txt_free(&t);
}

int main(void)
{
	test_fields();
	test_middleware();
	test_run();
	test_registry_churn();
	test_recreate_names();
	test_recreate_before_registry();
	test_recreate_across_gap();
	test_recreate_after_attach_registry();
	test_recreate_upstream_registry();
	test_time();
	test_linux_wrap();
	test_static_image();
	return tt_test_done();
}
