/* tests/qnx/test_qnx_kev.c: the QNX reader's stream mode (a .kev followed while it is written,
 * proto/qnx_kev.c) through reader.h's ops, over a file kept in memory that answers plan.h's
 * TT_PLAN_FILE_STAT: no file and a partial header wait (-EAGAIN, saying so), a partial last
 * event waits, every event comes once and as decoding the whole file gives it, more than one
 * read's worth of events comes in one poll, a file cut shorter or replaced (a new generation)
 * gives a reset record and is decoded again, a malformed file is an error naming it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "kevw.h"
#include "reader.h"

struct mfile {
	const uint8_t *data;
	size_t len;
	uint64_t gen;
};

/* One poll cycle: plan, serve, ingest until DONE or an error (its rc). */
static int poll_once(const struct tt_reader_ops *r, void *rd, const struct mfile *f,
		     struct klog *l)
{
	for (int steps = 0; steps < 1000; steps++) {
		struct tt_plan p;
		int rc, bad = 0;

		r->plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++) {
			struct tt_range *g = &p.r[i];
			if (g->addr == TT_PLAN_FILE_STAT && g->len == TT_PLAN_FILE_STAT_LEN)
				tt_plan_file_stat_put(g->dst, f->len, f->gen);
			else if (g->addr <= f->len && f->len - g->addr >= g->len)
				memcpy(g->dst, f->data + g->addr, g->len);
			else
				bad = 1;
		}
		if (bad) {
			r->read_failed(rd, -EFAULT);
			return -EFAULT;
		}
		rc = r->ingest(rd, klog_cb, l);
		if (rc != TT_READER_MORE)
			return rc;
	}
	FAIL("the reader never ended its poll cycle");
	return -1;
}

static void build(struct kevw *k, bool be, unsigned n)
{
	struct kev_opts o = { .be = be, .cps = 1000000, .cpus = 1, .os_major = 1,
			      .syspage_len = 64 };

	kevw_init(k, &o);
	for (unsigned i = 0; i < n; i++)
		kevw_simple(k, 0, K_KER, 1 + i % 7, 100 + i, i, 2 * i);
}

/* The streamed records from index from equal decoding the whole file. */
static void same_as_file(const struct kevw *k, const struct klog *got, size_t from)
{
	struct klog want = { 0 };
	char err[256];

	REQUIRE_EQ(kev_decode(k, 0, &want, NULL, err, sizeof(err)), 0);
	REQUIRE_EQ(got->n - from, want.n);
	for (size_t i = 0; i < want.n; i++) {
		/* the record's position in its log (seq) differs: compare past it */
		const char *a = strstr(got->v[from + i].json, "\"id\"");
		const char *b = strstr(want.v[i].json, "\"id\"");
		REQUIRE(a && b);
		REQUIRE_STR(a, b);
	}
	klog_free(&want);
}

int main(void)
{
	const struct tt_reader_ops *r = tt_reader_find("qnx");
	struct tt_reader_config cfg = { .stream = "mem.kev" };
	struct kevw le, be;
	struct klog l = { 0 };
	struct mfile f = { 0 };
	void *rd;
	size_t hdr;

	REQUIRE(r && r->create);
	REQUIRE(tt_reader_for_stream("kev:/x.kev") == r);
	REQUIRE(tt_reader_for_stream("kevx:/x.kev") == NULL);
	build(&le, false, 5000); /* 80,000 bytes of events: more than one read */
	build(&be, true, 20);
	REQUIRE_EQ(r->create(&cfg, &rd), 0);

	/* no file yet; then a header cut short */
	REQUIRE_EQ(poll_once(r, rd, &f, &l), -EAGAIN);
	REQUIRE_SUBSTR(r->error(rd), "waiting for mem.kev and its whole header");
	f = (struct mfile){ le.buf, 40, 1 };
	REQUIRE_EQ(poll_once(r, rd, &f, &l), -EAGAIN);
	REQUIRE_EQ(l.n, 0);
	/* the events but the last 8 bytes: the partial event waits, then comes */
	f.len = le.len - 8;
	REQUIRE_EQ(poll_once(r, rd, &f, &l), TT_READER_DONE);
	REQUIRE_EQ(l.n, 4999);
	REQUIRE_EQ(poll_once(r, rd, &f, &l), TT_READER_DONE);
	REQUIRE_EQ(l.n, 4999);
	f.len = le.len;
	REQUIRE_EQ(poll_once(r, rd, &f, &l), TT_READER_DONE);
	same_as_file(&le, &l, 0);

	/* cut shorter in place (same generation): a reset, then decoded again */
	hdr = le.len - 5000 * TT_QNX_EVENT_SIZE;
	f.len = hdr + 10 * TT_QNX_EVENT_SIZE;
	REQUIRE_EQ(poll_once(r, rd, &f, &l), TT_READER_DONE);
	REQUIRE_EQ(l.v[5000].kind, TT_REC_RESET);
	REQUIRE_SUBSTR(l.v[5000].reason, "file truncated or replaced");
	REQUIRE_EQ(l.n, 5011);

	/* another file at the path (a new generation), even a longer one: a reset, then it */
	f = (struct mfile){ be.buf, be.len, 2 };
	REQUIRE_EQ(poll_once(r, rd, &f, &l), TT_READER_DONE);
	REQUIRE_EQ(l.v[5011].kind, TT_REC_RESET);
	same_as_file(&be, &l, 5012);

	/* not a .kev: an error naming the file, retried at the next poll */
	static const uint8_t junk[4096] = { 'x' };
	f = (struct mfile){ junk, sizeof(junk), 3 };
	REQUIRE_EQ(poll_once(r, rd, &f, &l), -EPROTO);
	REQUIRE_SUBSTR(r->error(rd), "mem.kev: not a QNX .kev file");
	REQUIRE_EQ(poll_once(r, rd, &f, &l), -EPROTO);
	r->destroy(rd);
	klog_free(&l);
	kevw_free(&le);
	kevw_free(&be);
	printf("ok\n");
	return tt_test_done();
}
