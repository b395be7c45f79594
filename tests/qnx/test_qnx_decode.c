/* tests/qnx/test_qnx_decode.c: .kev files built event by event, in both byte orders, decode to
 * the expected names, arguments, thread names, times and gaps. */
#include <string.h>

#include "../tt_test.h"
#include "kevw.h"

#define PID 4099u
#define MHZ 1000000u /* 1 MHz: one cycle is 1000 ns */

/* A small session: time base, processes and threads named, a thread running, a kernel call,
 * an interrupt, user events, the other classes, an unknown class. */
static void build_session(struct kevw *k, bool be)
{
	struct kev_opts o = { .be = be, .cps = MHZ, .cpus = 2, .os_major = 6, .syspage_len = 301 };
	uint32_t w[4];

	kevw_init(k, &o);
	kevw_simple(k, 0, K_CONTROL, 1, 0x100, 1, 0x100);        /* TIME msb 1 */
	kevw_simple(k, 0, K_CONTROL, 2, 0x101, 1, 0);            /* BUFFER seq 1 */
	w[0] = 1, w[1] = PID;
	kevw_combine_str(k, 0, K_PRTH, 192, 0x110, w, 2, "/usr/bin/app"); /* PROCCREATE_NAME */
	w[0] = PID, w[1] = 2;
	kevw_combine_str(k, 0, K_PRTH, 320, 0x120, w, 2, "worker"); /* THREAD_NAME */
	kevw_simple(k, 0, K_PRTH, 1, 0x130, PID, 1);             /* THREAD_RUNNING app/1 */
	kevw_simple(k, 0, K_KER, 11, 0x140, 0x5, 0x20001000);    /* KER_CALL MSG_SENDV */
	kevw_simple(k, 0, K_INT, 1, 0x150, 33, 0xc0ffee);        /* INT_ENTRY */
	kevw_simple(k, 0, K_INT, 2, 0x151, 33, 0);               /* INT_EXIT */
	kevw_simple(k, 0, K_KER, 128 + 11, 0x160, 0xffffffffu, 3); /* KER_EXIT MSG_SENDV errno */
	kevw_simple(k, 0, K_PRTH, 2, 0x170, PID, 2);             /* THREAD_READY app/worker */
	kevw_simple(k, 0, K_PRTH, 26 + 5, 0x171, PID, 3);        /* VTHREAD_RECEIVE */
	kevw_simple(k, 0, K_KER, 99, 0x180, 7, 8);               /* unnamed: 6.4 spare 99 */
	kevw_simple(k, 0, K_USER, 12, 0x190, 1111, 2222);        /* USER_EVENT */
	kevw_combine_str(k, 0, K_USER, 13, 0x1a0, NULL, 0, "hello, trace");
	kevw_simple(k, 0, K_COMM, 3, 0x1b0, 9, 10);
	kevw_simple(k, 0, K_SYSTEM, 4, 0x1c0, 11, 12);
	kevw_simple(k, 0, 20, 5, 0x1d0, 13, 14);                 /* no such class */
	w[0] = PID, w[1] = 1, w[2] = 10, w[3] = 2;
	kevw_combine(k, 1, K_PRTH, 1, 0x1e0, w, 4);              /* wide THREAD_RUNNING on CPU 1 */
	kevw_simple(k, 1, K_KER, 14, 0x1f0, 0, 0);               /* KER_CALL on CPU 1 */
	kevw_simple(k, 0, K_PRTH, 25, 0x200, PID, 2);            /* THREAD_DESTROY */
}

static void check_session(bool be)
{
	struct kevw k;
	struct klog l = { 0 };
	struct tt_qnx_stats st;
	char err[256];
	const struct krec *r;

	build_session(&k, be);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 20);
	CHECK_EQ(st.events, 20);
	CHECK_EQ(st.gaps, 0);

	r = &l.v[0];
	CHECK_STR(r->name, "CONTROL_TIME");
	CHECK_EQ(r->ev.id, 1 << 10 | 1);
	CHECK_EQ(r->ev.time, (UINT64_C(1) << 32) | 0x100);
	CHECK_EQ(r->ev.ns, 0);
	CHECK(r->ev.has_ns);
	CHECK_EQ(r->ev.ctx, TT_CTX_UNKNOWN);
	CHECK_EQ(krec_u(r, "msb"), 1);
	CHECK_EQ(r->ev.nraw, 4);
	CHECK_EQ(r->raw[0], 1 << 10 | 1);
	CHECK_EQ(r->raw[1], 0x100);
	CHECK_EQ(r->raw[2], 1);

	r = klog_find(&l, 0, "CONTROL_BUFFER");
	CHECK(r && krec_u(r, "seq") == 1);

	r = klog_find(&l, 0, "PROCCREATE_NAME");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(krec_u(r, "ppid"), 1);
		CHECK_EQ(krec_u(r, "pid"), PID);
		CHECK_STR(krec_s(r, "name"), "/usr/bin/app");
		CHECK_EQ(r->ev.time, (UINT64_C(1) << 32) | 0x110);
		CHECK_EQ(r->ev.ns, 0x10 * 1000);
		CHECK_EQ(r->ev.nraw, 2 + 6); /* 8 + 13 bytes in 3 parts of 2 words */
		CHECK_EQ(r->raw[0], (uint32_t)(1u << 30 | 4 << 10 | 192));
		CHECK_EQ(r->raw[2], 1);
		CHECK_EQ(r->raw[3], PID);
		CHECK(!krec_has(r, "incomplete"));
	}
	r = klog_find(&l, 0, "THREAD_NAME");
	CHECK(r && krec_u(r, "tid") == 2 && krec_s(r, "name") && !strcmp(krec_s(r, "name"), "worker"));

	r = klog_find(&l, 0, "THREAD_RUNNING");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(r->ev.ctx, TT_CTX_THREAD);
		CHECK_EQ(r->ev.thread, (PID & 0xffff) << 16 | 1);
		CHECK_STR(r->ev.thread_name, "app/1");
		CHECK_EQ(krec_u(r, "pid"), PID);
		CHECK_EQ(krec_u(r, "tid"), 1);
		CHECK_STR(krec_s(r, "state"), "running");
		CHECK_STR(krec_s(r, "thread"), "app/1");
		CHECK_EQ(r->ev.core, 0);
	}
	r = klog_find(&l, 0, "KER_CALL_MSG_SENDV");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(r->ev.id, 2 << 10 | 11);
		CHECK_STR(krec_s(r, "call"), "MSG_SENDV");
		CHECK_EQ(krec_u(r, "call"), 11);
		CHECK_EQ(krec_u(r, "word1"), 5);
		CHECK_EQ(krec_u(r, "word2"), 0x20001000);
		CHECK_STR(r->ev.thread_name, "app/1");
		CHECK_EQ(r->ev.ns, 0x40 * 1000);
	}
	r = klog_find(&l, 0, "INT_ENTRY");
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(r->ev.ctx, TT_CTX_ISR);
		CHECK_EQ(krec_u(r, "irq"), 33);
		CHECK_EQ(krec_u(r, "ip"), 0xc0ffee);
		CHECK_EQ(r->ev.interrupted, (PID & 0xffff) << 16 | 1);
		CHECK_STR(r->ev.interrupted_name, "app/1");
	}
	r = klog_find(&l, 0, "INT_EXIT");
	CHECK(r && krec_u(r, "in_kernel") == 0 && r->ev.ctx == TT_CTX_ISR);
	r = klog_find(&l, 0, "KER_EXIT_MSG_SENDV");
	CHECK(r && krec_u(r, "ret_val") == 0xffffffffu && krec_u(r, "errno") == 3);
	r = klog_find(&l, 0, "THREAD_READY");
	CHECK(r != NULL);
	if (r) {
		CHECK_STR(krec_s(r, "thread"), "app/worker");
		CHECK_STR(r->ev.thread_name, "app/1"); /* the running thread wrote it */
		CHECK_STR(krec_s(r, "state"), "ready");
	}
	r = klog_find(&l, 0, "VTHREAD_RECEIVE");
	CHECK(r && krec_u(r, "tid") == 3 && !strcmp(krec_s(r, "state"), "receive"));
	r = klog_find(&l, 0, "KER_CALL");
	CHECK(r && krec_u(r, "call") == 99 && !krec_s(r, "call") && krec_u(r, "word1") == 7);
	r = klog_find(&l, 0, "USER_EVENT");
	CHECK(r && krec_u(r, "event") == 12 && krec_u(r, "word1") == 1111 &&
	      krec_u(r, "word2") == 2222);
	r = r ? klog_find(&l, (size_t)(r - l.v) + 1, "USER_EVENT") : NULL;
	CHECK(r && krec_u(r, "event") == 13 && krec_s(r, "text") &&
	      !strcmp(krec_s(r, "text"), "hello, trace"));
	r = klog_find(&l, 0, "COMM");
	CHECK(r && krec_u(r, "event") == 3 && krec_u(r, "word1") == 9);
	r = klog_find(&l, 0, "SYSTEM");
	CHECK(r && krec_u(r, "event") == 4 && krec_u(r, "word2") == 12);
	r = klog_find(&l, 0, "UNKNOWN");
	CHECK(r && krec_u(r, "class") == 20 && krec_u(r, "event") == 5);
	if (r)
		CHECK_EQ(r->ev.id, 20 << 10 | 5);

	/* CPU 1: a wide THREAD_RUNNING (combine: pid, tid, priority, policy) sets CPU 1's thread. */
	r = klog_find(&l, 0, "THREAD_RUNNING");
	r = r ? klog_find(&l, (size_t)(r - l.v) + 1, "THREAD_RUNNING") : NULL;
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(r->ev.core, 1);
		CHECK_EQ(krec_u(r, "prio"), 10);
		CHECK_EQ(krec_u(r, "policy"), 2);
		CHECK_EQ(r->ev.prio, 10);
	}
	r = klog_find(&l, 0, "KER_CALL_MSG_RECEIVEV");
	CHECK(r && r->ev.core == 1 && !strcmp(r->ev.thread_name, "app/1"));
	r = klog_find(&l, 0, "THREAD_DESTROY");
	CHECK(r && !strcmp(krec_s(r, "state"), "destroy"));
	klog_free(&l);
	kevw_free(&k);
}

/* Both byte orders decode to the same records (JSON bytes equal). */
static void check_byte_orders(void)
{
	struct kevw le, be;
	struct klog a = { 0 }, b = { 0 };
	char err[256];

	build_session(&le, false);
	build_session(&be, true);
	CHECK(memcmp(le.buf + 200, be.buf + 200, 64) != 0 || le.len != be.len);
	CHECK_EQ(kev_decode(&le, 0, &a, NULL, err, sizeof(err)), 0);
	CHECK_EQ(kev_decode(&be, 0, &b, NULL, err, sizeof(err)), 0);
	CHECK_EQ(a.n, b.n);
	/* Everything but raw: string payload words read differently in the other byte order. */
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		char *ra = strstr(a.v[i].json, ",\"raw\""), *rb = strstr(b.v[i].json, ",\"raw\"");
		if (ra && rb)
			*ra = *rb = 0;
		CHECK_STR(a.v[i].json, b.v[i].json);
	}
	klog_free(&a);
	klog_free(&b);
	kevw_free(&le);
	kevw_free(&be);
}

/* The low cycle word wraps without a TIME event; an older stamp from another CPU; a TIME event
 * re-bases; --tick-hz overrides the header. */
static void check_time(void)
{
	struct kev_opts o = { .cps = 1000000000u, .cpus = 2, .os_major = 7, .syspage_len = 16 };
	struct kevw k;
	struct klog l = { 0 };
	char err[256];

	kevw_init(&k, &o);
	kevw_simple(&k, 0, K_USER, 1, 0xfffffff0u, 0, 0);
	kevw_simple(&k, 0, K_USER, 1, 0x00000010u, 0, 0); /* wrapped */
	kevw_simple(&k, 1, K_USER, 1, 0x00000008u, 0, 0); /* older, other CPU */
	kevw_simple(&k, 1, K_USER, 1, 0xfffffff8u, 0, 0); /* older, before the wrap */
	kevw_simple(&k, 0, K_USER, 1, 0x00000020u, 0, 0);
	kevw_simple(&k, 0, K_USER, 1, 0x70000000u, 0, 0); /* big forward steps */
	kevw_simple(&k, 0, K_USER, 1, 0xe0000000u, 0, 0);
	kevw_simple(&k, 0, K_USER, 1, 0x00000100u, 0, 0); /* wraps again */
	kevw_simple(&k, 0, K_CONTROL, 1, 0x00000200u, 7, 0x00000200u); /* TIME: msb 7 */
	kevw_simple(&k, 0, K_USER, 1, 0x00000300u, 0, 0);
	CHECK_EQ(kev_decode(&k, 0, &l, NULL, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 10);
	if (l.n == 10) {
		uint64_t want[] = { 0xfffffff0u, 0x100000010u, 0x100000008u, 0xfffffff8u,
				    0x100000020u, 0x170000000u, 0x1e0000000u, 0x200000100u,
				    0x700000200u, 0x700000300u };
		for (int i = 0; i < 10; i++)
			CHECK_EQ(l.v[i].ev.time, want[i]);
		CHECK_EQ(l.v[1].ev.ns, 0x20);
		CHECK_EQ(l.v[3].ev.ns, 8);
		CHECK_EQ(l.v[7].ev.ns, 0x200000100u - 0xfffffff0u);
		CHECK_EQ(l.v[1].ev.ts_raw, 0x10);
	}
	CHECK_EQ(kev_decode(&k, 1000, &l, NULL, err, sizeof(err)), 0); /* 1 kHz override */
	CHECK_EQ(l.n, 10);
	if (l.n == 10)
		CHECK_EQ(l.v[1].ev.ns, 0x20 * 1000000u);
	kevw_free(&k);

	/* No CYCLES_PER_SEC: no ns. */
	o.cps = 0;
	kevw_init(&k, &o);
	kevw_simple(&k, 0, K_USER, 1, 5, 0, 0);
	CHECK_EQ(kev_decode(&k, 0, &l, NULL, err, sizeof(err)), 0);
	CHECK(l.n == 1 && !l.v[0].ev.has_ns && !strstr(l.v[0].json, "\"ns\""));
	kevw_free(&k);
	klog_free(&l);
}

/* Combine events interleaved across CPUs and classes, too long, missing parts, too many. */
static void check_combine(void)
{
	struct kev_opts o = { .cpus = 2, .os_major = 6 };
	struct kevw k;
	struct klog l = { 0 };
	struct tt_qnx_stats st;
	char err[256];
	uint32_t w[80];

	for (unsigned i = 0; i < 80; i++)
		w[i] = 1000 + i;
	kevw_init(&k, &o);
	/* Two wide kernel calls on CPU 0 and 1 and a user string, parts interleaved; every part
	 * carries its begin part's time, as the kernel writes them. */
	kevw_event(&k, kevw_hdr(K_BEGIN, 0, K_KER, 11), 10, 1, 2);
	kevw_event(&k, kevw_hdr(K_BEGIN, 1, K_KER, 11), 11, 21, 22);
	kevw_event(&k, kevw_hdr(K_BEGIN, 0, K_USER, 3), 12, 0x6c6c6568, 0x6f); /* "hello" LE */
	kevw_event(&k, kevw_hdr(K_CONT, 0, K_KER, 11), 10, 3, 4);
	kevw_simple(&k, 0, K_USER, 4, 14, 77, 78);
	kevw_event(&k, kevw_hdr(K_END, 1, K_KER, 11), 11, 23, 24);
	kevw_event(&k, kevw_hdr(K_END, 0, K_KER, 11), 10, 5, 6);
	kevw_event(&k, kevw_hdr(K_END, 0, K_USER, 3), 12, 0, 0);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 4);
	if (l.n == 4) {
		CHECK_STR(l.v[0].name, "USER_EVENT"); /* the simple one completes first */
		CHECK_EQ(krec_u(&l.v[0], "event"), 4);
		CHECK_STR(l.v[1].name, "KER_CALL_MSG_SENDV");
		CHECK_EQ(l.v[1].ev.core, 1);
		CHECK_EQ(krec_u(&l.v[1], "word1"), 21);
		CHECK_EQ(krec_u(&l.v[1], "word4"), 24);
		CHECK_EQ(l.v[1].ev.ts_raw, 11); /* the begin part's time */
		CHECK_STR(l.v[2].name, "KER_CALL_MSG_SENDV");
		CHECK_EQ(l.v[2].ev.core, 0);
		CHECK_EQ(l.v[2].ev.nraw, 2 + 6);
		CHECK_EQ(l.v[2].raw[7], 6);
		CHECK_EQ(krec_u(&l.v[2], "word5"), 5);
		CHECK_STR(krec_s(&l.v[3], "text"), "hello");
	}
	CHECK_EQ(st.records, 8);
	CHECK_EQ(st.incomplete, 0);
	kevw_free(&k);

	/* kevw writes what the kernel writes: every part of a combine event stamped with the begin
	 * part's time (QNX's traceparser joins parts by it and drops parts stamped otherwise). */
	kevw_init(&k, &o);
	size_t at = k.len;
	kevw_combine(&k, 1, K_USER, 9, 0x1234, w, 7);
	CHECK_EQ((k.len - at) / 16, 4);
	for (size_t i = at; i + 16 <= k.len; i += 16)
		CHECK_EQ(k.buf[i + 4] | k.buf[i + 5] << 8 | k.buf[i + 6] << 16 | k.buf[i + 7] << 24,
			 0x1234);
	/* Parts of one key stamped t, t+1 are two events, not one (each incomplete). */
	kevw_event(&k, kevw_hdr(K_BEGIN, 0, K_KER, 11), 50, 1, 2);
	kevw_event(&k, kevw_hdr(K_END, 0, K_KER, 11), 51, 3, 4);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 3);
	if (l.n == 3) {
		CHECK_EQ(l.v[0].ev.nraw, 2 + 8);
		CHECK(!krec_has(&l.v[0], "incomplete"));
		CHECK_EQ(krec_u(&l.v[1], "incomplete"), 1);
		CHECK_EQ(l.v[1].ev.ts_raw, 51); /* the end part alone, emitted as it came */
		CHECK_EQ(krec_u(&l.v[2], "incomplete"), 1);
		CHECK_EQ(l.v[2].ev.ts_raw, 50); /* the begin, never ended: at the end of the file */
	}
	kevw_free(&k);

	/* Longer than TT_QNX_COMBINE_WORDS: truncated, flagged; the next event decodes normally. */
	kevw_init(&k, &o);
	kevw_combine(&k, 0, K_USER, 9, 100, w, 80);
	kevw_simple(&k, 0, K_USER, 10, 200, 1, 2);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 2);
	if (l.n == 2) {
		CHECK_EQ(krec_u(&l.v[0], "truncated"), 1);
		CHECK_EQ(l.v[0].ev.nraw, 2 + TT_QNX_COMBINE_WORDS);
		CHECK_EQ(l.v[0].raw[2 + TT_QNX_COMBINE_WORDS - 1], 1000 + TT_QNX_COMBINE_WORDS - 1);
		CHECK_EQ(krec_u(&l.v[1], "event"), 10);
	}
	CHECK_EQ(st.truncated, 1);
	kevw_free(&k);

	/* A continue with no begin, a begin that never ends (end of file), a second begin of the
	 * same key, and more begins in flight than slots: all emitted, flagged incomplete. */
	kevw_init(&k, &o);
	kevw_event(&k, kevw_hdr(K_CONT, 0, K_KER, 14), 1, 5, 6);        /* orphan */
	kevw_event(&k, kevw_hdr(K_BEGIN, 0, K_KER, 15), 2, 7, 8);
	kevw_event(&k, kevw_hdr(K_BEGIN, 0, K_KER, 15), 3, 9, 10);       /* restarts */
	for (unsigned i = 0; i < TT_QNX_COMBINE_SLOTS + 2; i++)
		kevw_event(&k, kevw_hdr(K_BEGIN, 1, K_USER, 100 + i), 10 + i, i, i);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 1 + 2 + TT_QNX_COMBINE_SLOTS + 2);
	CHECK_EQ(st.incomplete, l.n);
	if (l.n >= 3) {
		CHECK_STR(l.v[0].name, "KER_CALL_MSG_RECEIVEV");
		CHECK_EQ(krec_u(&l.v[0], "incomplete"), 1);
		CHECK_STR(l.v[1].name, "KER_CALL_MSG_REPLYV");
		CHECK_EQ(krec_u(&l.v[1], "word1"), 7);
		CHECK_EQ(krec_u(&l.v[1], "incomplete"), 1);
	}
	/* every record is one of the inputs, each once */
	unsigned seen = 0;
	for (size_t i = 0; i < l.n; i++)
		if (!strcmp(l.v[i].name, "USER_EVENT"))
			seen |= 1u << (krec_u(&l.v[i], "event") - 100);
	CHECK_EQ(seen, (1u << (TT_QNX_COMBINE_SLOTS + 2)) - 1);
	kevw_free(&k);
	klog_free(&l);
}

/* CONTROL/BUFFER sequence numbers that skip: a gap of skipped x the most events seen in one
 * buffer (here counted: the buffers' num_events are 0, as in a ring never flushed). */
static void check_gaps(void)
{
	struct kev_opts o = { .cpus = 1, .os_major = 6 };
	struct kevw k;
	struct klog l = { 0 };
	struct tt_qnx_stats st;
	char err[256];
	uint32_t t = 0;

	kevw_init(&k, &o);
	/* Buffers 1 and 2 hold 4 events each; 3 and 4 are lost; then 5; then 9 (4 buffers); then
	 * the sequence restarts at 1. */
	uint32_t seqs[] = { 1, 2, 5, 9, 1 };
	for (unsigned b = 0; b < 5; b++) {
		kevw_simple(&k, 0, K_CONTROL, 2, t++, seqs[b], 0);
		for (unsigned i = 0; i < 3; i++)
			kevw_simple(&k, 0, K_USER, 1, t++, b, i);
	}
	/* A combine event cut by lost buffers: its begin before the gap, its end after. */
	kevw_event(&k, kevw_hdr(K_BEGIN, 0, K_KER, 11), t++, 1, 2);
	kevw_simple(&k, 0, K_CONTROL, 2, t++, 4, 0);
	kevw_event(&k, kevw_hdr(K_END, 0, K_KER, 11), t++, 3, 4);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	size_t gi = 0;
	const struct krec *g[3] = { 0 }, *reset = NULL;
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].kind == TT_REC_GAP && gi < 3)
			g[gi++] = &l.v[i];
		if (l.v[i].kind == TT_REC_RESET && !reset)
			reset = &l.v[i];
	}
	CHECK_EQ(gi, 3);
	if (gi == 3) {
		CHECK_EQ(g[0]->lost, 2 * 4);
		CHECK(!g[0]->exact);
		CHECK_STR(g[0]->reason, "kernel buffers lost");
		CHECK_SUBSTR(g[0]->json, "\"type\":\"gap\",\"seq\":9,\"lost\":8,\"exact\":false,"
					 "\"basis\":\"events per kernel buffer");
		CHECK_EQ(g[1]->lost, 3 * 4);
		CHECK_EQ(g[2]->lost, 2 * 4); /* 1 -> 4 */
		/* the gap comes right before its CONTROL_BUFFER */
		CHECK_STR(g[0][1].name, "CONTROL_BUFFER");
		CHECK_EQ(krec_u(&g[0][1], "seq"), 5);
		/* the cut combine event: the begin alone, flagged, before the gap; the end alone */
		CHECK_STR(g[2][-1].name, "KER_CALL_MSG_SENDV");
		CHECK_EQ(krec_u(&g[2][-1], "incomplete"), 1);
		CHECK_EQ(krec_u(&l.v[l.n - 1], "incomplete"), 1);
		CHECK_EQ(krec_u(&l.v[l.n - 1], "word1"), 3);
	}
	CHECK(reset != NULL);
	if (reset)
		CHECK_SUBSTR(reset->reason, "buffer sequence");
	CHECK_EQ(st.gaps, 3);
	CHECK_EQ(st.lost, 28);
	CHECK_EQ(st.resets, 1);

	/* Before any buffer told or showed its size, a lost buffer counts as the kernel's hand-on
	 * point, 714 events (an estimate with that basis). */
	kevw_free(&k);
	kevw_init(&k, &o);
	kevw_simple(&k, 0, K_CONTROL, 2, 1, 10, 0);
	kevw_simple(&k, 0, K_CONTROL, 2, 2, 13, 0);
	CHECK_EQ(kev_decode(&k, 0, &l, &st, err, sizeof(err)), 0);
	CHECK(l.n == 3 && l.v[1].kind == TT_REC_GAP && l.v[1].lost == 2 * 714);
	CHECK_SUBSTR(l.v[1].json, "\"basis\":\"the kernel's hand-on at 714 events per buffer\"");
	kevw_free(&k);
	klog_free(&l);
}

/* Version 8: 63 thread states (CREATE/DESTROY at 61/62), BAD is kernel call 107. */
static void check_v8(void)
{
	struct kev_opts o = { .be = true, .cpus = 1, .os_major = 8 };
	struct kevw k;
	struct klog l = { 0 };
	char err[256];

	kevw_init(&k, &o);
	kevw_simple(&k, 0, K_PRTH, 61, 1, 5, 1);
	kevw_simple(&k, 0, K_PRTH, 63 + 2, 2, 5, 1);  /* no VTHREAD class in 8.0 */
	kevw_simple(&k, 0, K_KER, 107, 3, 0, 0);
	kevw_simple(&k, 0, K_KER, 101, 4, 0, 0);
	kevw_simple(&k, 0, K_KER, 0x200 | 11, 5, 0, 0); /* 64-bit arguments flag */
	kevw_simple(&k, 0, K_KER, 256 + 15, 6, 0, 0);
	kevw_simple(&k, 0, K_PRTH, 64, 7, 1, 5);       /* PROCCREATE (8.0: 64 < 2 * 63) */
	kevw_simple(&k, 0, K_PRTH, 128, 8, 1, 5);      /* PROCDESTROY */
	CHECK_EQ(kev_decode(&k, 0, &l, NULL, err, sizeof(err)), 0);
	CHECK_EQ(l.n, 8);
	if (l.n == 8) {
		CHECK_STR(l.v[0].name, "THREAD_CREATE");
		CHECK_STR(l.v[1].name, "PR_TH");
		CHECK_STR(l.v[6].name, "PROCCREATE");
		CHECK_STR(l.v[7].name, "PROCDESTROY");
		CHECK_STR(l.v[2].name, "KER_CALL_BAD");
		CHECK_STR(l.v[3].name, "KER_CALL");
		CHECK_STR(l.v[4].name, "KER_CALL_MSG_SENDV");
		CHECK_EQ(l.v[4].ev.id, 2 << 10 | 0x200 | 11);
		CHECK_STR(l.v[5].name, "KER_INT_MSG_REPLYV");
	}
	kevw_free(&k);
	klog_free(&l);
}

/* Kernel call names: QNX 6.4's table (VER_MAJOR 6) against the numbers of its open-source
 * kercalls.h, written here by hand; a 7.x file names only the calls every version shares. */
static void check_kercall_names(void)
{
	static const struct {
		uint32_t n;
		const char *v6;
	} want[] = {
		{ 0, "NOP" }, { 1, "TRACE_EVENT" }, { 3, NULL }, { 10, "MSG_CURRENT" },
		{ 11, "MSG_SENDV" }, { 25, "MSG_VERIFY_EVENT" }, { 26, "SIGNAL_KILL" },
		{ 34, NULL }, { 35, "CHANNEL_CREATE" }, { 43, "CONNECT_FLAGS" },
		{ 46, "THREAD_CREATE" }, { 52, "THREAD_CTL" }, { 55, "INTERRUPT_ATTACH" },
		{ 60, "INTERRUPT_UNMASK" }, { 64, NULL }, { 65, "CLOCK_TIME" }, { 68, "CLOCK_ID" },
		{ 70, "TIMER_CREATE" }, { 75, "TIMER_TIMEOUT" }, { 78, "SYNC_CREATE" },
		{ 80, "SYNC_MUTEX_LOCK" }, { 87, "SYNC_MUTEX_REVIVE" }, { 88, "SCHED_GET" },
		{ 92, "SCHED_CTL" }, { 93, "NET_CRED" }, { 97, "NET_SIGNAL_KILL" }, { 99, NULL },
		{ 100, "MT_CTL" }, { 101, "BAD" }, { 102, NULL }, { 107, NULL },
	};
	const size_t nw = sizeof(want) / sizeof(want[0]);
	char name[64], err[256];

	for (unsigned ver = 6; ver <= 7; ver++) {
		struct kev_opts o = { .cpus = 1, .os_major = ver };
		struct kevw k;
		struct klog l = { 0 };

		kevw_init(&k, &o);
		for (size_t i = 0; i < nw; i++) {
			kevw_simple(&k, 0, K_KER, want[i].n, (uint32_t)(3 * i), 1, 2);
			kevw_simple(&k, 0, K_KER, 128 + want[i].n, (uint32_t)(3 * i + 1), 0, 0);
			kevw_simple(&k, 0, K_KER, 256 + want[i].n, (uint32_t)(3 * i + 2), 0, 0);
		}
		CHECK_EQ(kev_decode(&k, 0, &l, NULL, err, sizeof(err)), 0);
		CHECK_EQ(l.n, 3 * nw);
		for (size_t i = 0; i < nw && l.n == 3 * nw; i++) {
			const char *v = ver == 6 || want[i].n == 11 ? want[i].v6 : NULL;
			static const char *const kinds[] = { "KER_CALL", "KER_EXIT", "KER_INT" };
			for (unsigned j = 0; j < 3; j++) {
				if (v)
					snprintf(name, sizeof(name), "%s_%s", kinds[j], v);
				else
					snprintf(name, sizeof(name), "%s", kinds[j]);
				CHECK_STR(l.v[3 * i + j].name, name);
			}
		}
		kevw_free(&k);
		klog_free(&l);
	}
}

int main(void)
{
	check_kercall_names();
	check_session(false);
	check_session(true);
	check_byte_orders();
	check_time();
	check_combine();
	check_gaps();
	check_v8();
	return tt_test_done();
}
