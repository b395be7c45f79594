/* tests/nuttx/test_nuttx_live.c: the live reader (plan/ingest) against a target the writer fills
 * in noteram_add's order: attach with history, probe bytes per poll, start_at_now, laps with exact
 * (constant-step clock) and estimated (irregular clock: within 25%) gap counts, resets (buffer cleared,
 * ring moved), and a random interleaving where the writer adds records (in two steps: tail+copy,
 * then head) between the chunks of every range of every plan: every record arrives once, in
 * order, or inside a correctly counted gap (check_sequence, nxlive.c: a gap that states a range
 * must hold the true loss and its estimate in it). test_nuttx_loss.c: the host's clock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "nxlive.h"

static void test_basic(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	reset_log();
	nxw_init(&w, NULL, 16384, BASE, 0, 1024, 4096);
	write_n(&w, 5);
	rd = reader(&w, false);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 5);
	CHECK_STR(lg.r[0].name, "NOTE_START");
	/* idle poll: the control words only (20 bytes); when busy polls are one read, the first
	 * poll after notes is one (the control words, the anchor, the control words again) */
	uint64_t b0 = tt_nuttx_stats(rd)->bytes_planned;
	if (getenv("NX_PTR_RANGES")) {
		CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
		CHECK_EQ(tt_nuttx_stats(rd)->bytes_planned - b0, 20 + 16 + 20);
		b0 = tt_nuttx_stats(rd)->bytes_planned;
	}
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(tt_nuttx_stats(rd)->bytes_planned - b0, 20);
	CHECK_EQ(lg.n, 5);
	/* 3 new records: control words, the new bytes, the 16-byte anchor, control words */
	uint32_t h0 = nxw_head(&w);
	write_n(&w, 3);
	uint32_t nb = (nxw_head(&w) - h0 + w.size) % w.size;
	b0 = tt_nuttx_stats(rd)->bytes_planned;
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(tt_nuttx_stats(rd)->bytes_planned - b0, 20 + nb + 16 + 20);
	CHECK_EQ(tt_nuttx_stats(rd)->last_new, 3);
	CHECK_EQ(check_sequence(false), 8);
	CHECK_EQ(lg.n, 8);
	tt_nuttx_free(rd);

	/* start_at_now: the history is skipped */
	nxlog_clear(&lg);
	rd = reader(&w, true);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 0);
	write_n(&w, 2);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 2);
	CHECK_EQ(seq_of(lg.r[0].time), 8);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

static void test_laps(uint64_t step)
{
	struct nxw w;
	struct tt_nuttx *rd;
	int exact = 0, bound = 0;

	reset_log();
	nxw_init(&w, NULL, 16384, BASE, 0, 1024, 1024);
	w.step = step;
	rd = reader(&w, false);
	write_n(&w, 10);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	for (unsigned k = 1; k <= 12; k++) {
		write_n(&w, 30 * k); /* from under a ring to several rings */
		CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	}
	check_sequence(false);
	for (size_t i = 0; i < lg.n; i++)
		if (lg.r[i].kind == TT_REC_GAP) {
			exact += lg.r[i].exact;
			bound += !lg.r[i].exact;
			CHECK_STR(lg.r[i].reason, "lapped");
			/* not exact: an estimate (within 25%: check_sequence) saying what it rests on,
			 * never a bare floor */
			CHECK(lg.r[i].exact || lg.r[i].basis[0]);
		}
	if (step) {
		CHECK(exact >= 8);
		CHECK_EQ(bound, 0);
	} else {
		CHECK_EQ(exact, 0);
		CHECK(bound >= 8);
	}
	/* the newest record always arrives */
	CHECK_EQ(seq_of(lg.r[lg.n - 1].time), (long)ntw - 1);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, (uint64_t)(exact + bound));
	tt_nuttx_free(rd);
	nxw_free(&w);
}

static void test_resets(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	reset_log();
	nxw_init(&w, NULL, 16384, BASE, 0, 1024, 4096);
	rd = reader(&w, false);
	write_n(&w, 4);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	write_n(&w, 3);
	/* NOTERAM_CLEAR (`trace start`): tail = head; then two more notes. The three written
	 * before the clear are still in the ring, before the tail: delivered, then the reset */
	nxw_set_tail(&w, nxw_head(&w));
	write_n(&w, 2);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 4 + 3 + 1 + 2);
	CHECK_EQ(seq_of(lg.r[6].time), 6);
	CHECK_EQ(lg.r[7].kind, TT_REC_RESET);
	CHECK_SUBSTR(lg.r[7].reason, "cleared");
	CHECK_EQ(seq_of(lg.r[8].time), 7);
	/* re-initialised (head = tail = 0): what lies after our position is not notes newer than
	 * ours (zeros here): nothing delivered from there, the reset, the new note */
	nxw_set_head(&w, 0);
	nxw_set_tail(&w, 0);
	write_n(&w, 1);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 12);
	CHECK_EQ(lg.r[10].kind, TT_REC_RESET);
	CHECK_EQ(seq_of(lg.r[11].time), 9);
	/* the ring moved (another boot, another build) */
	nxw_put(&w, w.ram + w.lo.off_buffer, BASE + 8192, 4);
	w.buf = BASE + 8192;
	nxw_set_head(&w, 0);
	nxw_set_tail(&w, 0);
	write_n(&w, 2);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 15);
	CHECK_EQ(lg.r[12].kind, TT_REC_RESET);
	CHECK_SUBSTR(lg.r[12].reason, "moved");
	CHECK_EQ(lg.r[13].addr, BASE + 8192);
	CHECK_EQ(tt_nuttx_stats(rd)->resets, 3);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 0);
	check_sequence(true);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* `trace start` clears the ring (tail = head); a fast writer then fills it before the next
 * poll, so the ring is full and the tail has passed us, as in a lap: never reported as
 * "lapped" when nothing was overwritten (the anchor is intact); the notes written before the
 * clear are delivered. A real lap in a full ring stays a lap. */
static void test_clear_then_full(void)
{
	struct nxw w;
	struct tt_nuttx *rd;

	reset_log();
	nxw_init(&w, NULL, 16384, BASE, 0, 1024, 2048);
	w.step = 0; /* a real clock: no exact count from the time stamps */
	rd = reader(&w, false);
	write_n(&w, 10);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	write_n(&w, 2);                      /* since the last poll */
	nxw_set_tail(&w, nxw_head(&w));      /* trace start */
	uint32_t clear_at = nxw_tail(&w);
	do                                   /* up to a full ring (as the reader sees one) */
		write_n(&w, 1);
	while ((nxw_tail(&w) + w.size - nxw_head(&w)) % w.size > 500);
	CHECK_EQ(nxw_tail(&w), clear_at);    /* nothing dropped yet: the notes are all there */
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 0);
	CHECK_EQ(tt_nuttx_stats(rd)->resets, 1);
	for (size_t i = 0; i < lg.n; i++)
		CHECK(lg.r[i].kind != TT_REC_GAP);
	CHECK_EQ(seq_of(lg.r[11].time), 11); /* the two before the clear */
	CHECK_EQ(lg.r[12].kind, TT_REC_RESET);
	check_sequence(true);
	/* a lap: 3 rings' worth between two polls */
	write_n(&w, 300);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 1);
	CHECK_EQ(tt_nuttx_stats(rd)->resets, 1);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* ni_overwrite 0: the ring fills, the target stops recording (mode 2): one gap (lower bound 1,
 * reason naming it) after the stored records, not repeated while the mode stays 2; after
 * NOTERAM_CLEAR (tail = head, mode 0) reading goes on; the next overflow is a new gap. */
static void test_overflow(void)
{
	struct nxw w;
	struct tt_nuttx *rd;
	size_t n0;

	reset_log();
	nxw_init(&w, NULL, 16384, BASE, 0, 1024, 4096);
	nxw_set_overwrite(&w, 0);
	rd = reader(&w, false);
	write_n(&w, 20);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, 20);
	write_n(&w, 400);	/* about 180 fit in 4 KiB */
	CHECK_EQ(w.overwrite, 2);
	CHECK_EQ(nxw_tail(&w), 0);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);	/* the stored records */
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);	/* then the gap */
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);	/* once */
	n0 = lg.n;
	CHECK_EQ(lg.r[n0 - 1].kind, TT_REC_GAP);
	CHECK_EQ(lg.r[n0 - 1].lost, 1);
	CHECK(!lg.r[n0 - 1].exact);
	CHECK_SUBSTR(lg.r[n0 - 1].reason, "noteram full, overwrite disabled");
	CHECK_EQ(n0 - 1, w.written);
	/* NOTERAM_CLEAR */
	nxw_set_tail(&w, nxw_head(&w));
	nxw_set_overwrite(&w, 0);
	write_n(&w, 10);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.n, n0 + 10);
	CHECK_EQ(lg.r[n0].kind, TT_REC_EVENT);
	/* a second overflow, seen in the same poll as its records */
	write_n(&w, 400);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(lg.r[lg.n - 1].kind, TT_REC_GAP);
	CHECK_EQ(tt_nuttx_stats(rd)->gaps, 2);
	CHECK_EQ(tt_nuttx_stats(rd)->resets, 0);
	CHECK_EQ(check_sequence(false), w.written);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

struct rand_ctx {
	uint32_t budget; /* bytes the writer may still write during this plan */
};

static void rand_hook(struct nxw *w, void *arg)
{
	struct rand_ctx *c = arg;
	uint32_t n = rnd(4);

	if (w->pending && rnd(2)) {
		nxw_commit(w);
		return;
	}
	while (n-- && c->budget > 256) {
		if (w->pending)
			nxw_commit(w);
		write_one(w, (uint32_t)ntw, rnd(3) != 0);
		c->budget -= 256;
	}
}

/* release 1203: g_noteram_info (buffer inline, byte-array records), else 13.x */
static void test_random(unsigned ptr, uint64_t step, uint32_t seed, unsigned release)
{
	struct tt_nuttx_layout lo;
	struct nxw w;
	struct tt_nuttx *rd;
	struct rand_ctx c;
	size_t events;
	int rc;

	reset_log();
	rnd_state = seed;
	tt_nuttx_layout_default(&lo, ptr);
	uint32_t size = 2048 + 8 * rnd(64);
	if (release == 1203) {
		char err[128], v[16];
		CHECK_EQ(tt_nuttx_layout_set(&lo, "release", "12.3", err, sizeof(err)), 0);
		snprintf(v, sizeof(v), "%u", (unsigned)size);
		CHECK_EQ(tt_nuttx_layout_set(&lo, "bufsize", v, err, sizeof(err)), 0);
		nxw_init(&w, &lo, 65536, BASE, 4096 - 16, 4096, size);
	} else {
		nxw_init(&w, &lo, 65536, BASE, 0, 4096, size);
	}
	w.step = step;
	rd = reader(&w, false);
	for (int poll = 0; poll < 3000; poll++) {
		c.budget = w.size / 2;
		rc = cycle(rd, &w, rand_hook, &c);
		if (rc < 0) {
			FAIL("poll %d: %s", poll, tt_nuttx_error(rd));
			break;
		}
		/* between polls: sometimes a burst of up to three rings */
		if (rnd(20) == 0) {
			if (w.pending)
				nxw_commit(&w);
			write_n(&w, rnd(3 * w.size / 24));
		}
	}
	if (w.pending)
		nxw_commit(&w);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	events = check_sequence(false);
	CHECK_EQ(seq_of(lg.r[lg.n - 1].time), (long)ntw - 1);
	const struct tt_nuttx_stats *st = tt_nuttx_stats(rd);
	/* exact counts and estimates together: within 10% of what was lost */
	uint64_t truly = ntw - events;
	CHECK(st->lost * 10 >= truly * 9 && st->lost * 10 <= truly * 11);
	printf("random release=%u ptr=%u step=%llu: %zu written, %zu events, %llu gaps, %llu lost\n",
	       release ? release : 1300, ptr, (unsigned long long)step, ntw, events, (unsigned long long)st->gaps,
	       (unsigned long long)st->lost);
	CHECK(events > ntw / 3);
	CHECK(st->gaps > 0);
	tt_nuttx_free(rd);
	nxw_free(&w);
}

/* Task names read from the target's TCBs (g_pidhash) for pids no START note named. */
/* Stores a NOTE_RESUME of pid (name: a NOTE_START naming it). */
static void resume(struct nxw *w, int32_t pid, const char *name)
{
	uint8_t rec[256];

	if (ntw == captw) {
		captw = captw ? 2 * captw : 1024;
		tw = realloc(tw, captw * sizeof(*tw));
		if (!tw)
			abort();
	}
	tw[ntw++] = w->time;
	CHECK(nxw_add(w, rec, name ? nxw_start(w, rec, pid, 100, name)
				   : nxw_simple(w, rec, 3, pid, 100)));
}

/* thread_name of the last record of pid in lg ("" when none). */
static const char *name_of(int32_t pid)
{
	for (size_t i = lg.n; i-- > 0;)
		if (lg.r[i].kind == TT_REC_EVENT && lg.r[i].thread == (uint32_t)pid)
			return lg.r[i].thread_name;
	return "(no record)";
}

/* A cycle whose reads fail outside RAM, as a probe reports them. */
static int cycle_failing(struct tt_nuttx *rd, struct nxw *w)
{
	for (int guard = 0; guard < 100; guard++) {
		struct tt_plan p;
		int rc;

		tt_nuttx_plan(rd, &p);
		for (unsigned i = 0; i < p.n; i++)
			if (read_range(w, &p, i, NULL, NULL) < 0) {
				tt_nuttx_read_failed(rd, -EIO);
				return -EIO;
			}
		rc = tt_nuttx_ingest(rd, nxlog_cb, &lg);
		if (rc != TT_NUTTX_MORE)
			return rc;
	}
	CHECK(!"cycle did not end");
	return -1;
}

/* NuttX's task name cache (g_note_taskname) at RAM offset off, as note_record_taskname leaves
 * it: size_t head, tail, then 128 bytes of {pid_t pid; uint8_t size; char name[]} entries,
 * each NOTE_ALIGNed; the first entry starts at 'first' (older ones were dropped) and an
 * invalid filler (pid -1) skips the buffer's end when one does not fit. Sets the layout. */
static void write_cache(struct nxw *w, uint32_t off, uint32_t first, unsigned n,
			const int32_t *pids, const char *const *names)
{
	uint8_t *c = w->ram + off, *buf = c + 2 * w->ptr;
	uint32_t at = first;

	memset(c, 0, 2 * w->ptr + 128);
	for (unsigned i = 0; i < n; i++) {
		unsigned size = (unsigned)(5 + strlen(names[i]) + 1 + w->ptr - 1) / w->ptr * w->ptr;
		if (at + size > 128) { /* a filler to the end, then from 0 */
			nxw_put(w, buf + at, (uint32_t)-1, 4);
			buf[at + 4] = (uint8_t)(128 - at);
			at = 0;
		}
		nxw_put(w, buf + at, (uint32_t)pids[i], 4);
		buf[at + 4] = (uint8_t)size;
		memcpy(buf + at + 5, names[i], strlen(names[i]) + 1);
		at = (at + size) % 128;
	}
	nxw_put(w, c, at, w->ptr);          /* head */
	nxw_put(w, c + w->ptr, first, w->ptr); /* tail */
	w->lo.taskname_addr = w->base + off;
	w->lo.taskname_size = 128;
}

static void test_names(unsigned ptr)
{
	static const int32_t pids[] = { 0, 3, 5, 9, 25, 7 };
	static const char *const names[] = { "Idle_Task", "nsh_main", "app", "old", "reused",
					     "a_task_name_longer_than_31_characters" };
	struct tt_nuttx_layout lo;
	struct nxw w;
	struct tt_nuttx *rd;
	const char *why = NULL;
	reset_log();
	tt_nuttx_layout_default(&lo, ptr);
	nxw_init(&w, &lo, 16384, BASE, 0, 1024, 4096);
	nxw_tasks(&w, 8192, 16, 6, pids, names); /* pid 25 takes pid 9's slot */
	resume(&w, 5, "app_note");
	resume(&w, 0, NULL);
	resume(&w, 3, NULL);
	resume(&w, 5, NULL);
	resume(&w, 9, NULL);
	resume(&w, 11, NULL); /* no task in its slot */
	resume(&w, 7, NULL);
	rd = reader(&w, false);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(check_sequence(false), 7);
	/* the names a batch needs are read before it is emitted (NX_WANT (4) pids a round: 0, 3,
	 * 9, 11, then 7): every record of the first batch is named; the START note's name is not
	 * replaced */
	CHECK_STR(name_of(0), "Idle_Task");
	CHECK_STR(name_of(3), "nsh_main");
	CHECK_STR(name_of(5), "app_note");
	CHECK_STR(name_of(9), "");  /* its slot holds pid 25's TCB: it exited */
	CHECK_STR(name_of(11), ""); /* empty slot */
	CHECK_STR(name_of(7), "a_task_name_longer_than_31_char"); /* name[32] holds 31 */
	for (size_t i = 0; i < lg.n; i++)
		CHECK_MSG(lg.r[i].kind != TT_REC_EVENT || lg.r[i].thread_name[0] ||
			  lg.r[i].thread == 9 || lg.r[i].thread == 11,
			  "record %zu of pid %u unnamed", i, lg.r[i].thread);
	nxlog_clear(&lg);
	for (unsigned i = 0; i < 6; i++)
		resume(&w, pids[i] == 25 ? 11 : pids[i], NULL);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_STR(name_of(0), "Idle_Task");
	CHECK_STR(name_of(3), "nsh_main");
	CHECK_STR(name_of(9), "");
	nxlog_clear(&lg);
	resume(&w, 7, NULL);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_STR(name_of(7), "a_task_name_longer_than_31_char");
	/* pids without a name in the target are not looked up again: a data poll's bytes only */
	nxlog_clear(&lg);
	uint64_t b0 = tt_nuttx_stats(rd)->bytes_planned;
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	if (getenv("NX_PTR_RANGES")) { /* that was the one-read poll after notes */
		b0 = tt_nuttx_stats(rd)->bytes_planned;
		CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	}
	uint64_t ctl = tt_nuttx_stats(rd)->bytes_planned - b0; /* an idle poll */
	uint32_t h0 = nxw_head(&w);
	resume(&w, 9, NULL);
	resume(&w, 11, NULL);
	uint32_t nb = (nxw_head(&w) - h0 + w.size) % w.size;
	b0 = tt_nuttx_stats(rd)->bytes_planned;
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_EQ(tt_nuttx_stats(rd)->bytes_planned - b0, 2 * ctl + nb + w.hdr);
	CHECK_STR(name_of(9), "");
	tt_nuttx_free(rd);

	/* Exited tasks from NuttX's own cache, as its trace dump names them: pid 9 (its slot
	 * reused) and 11 (its slot empty); a TCB's name goes first (3); a cache that wraps */
	static const int32_t cpids[] = { 3, 11, 9 };
	static const char *const cnames[] = { "cached_nsh", "gone_task_with_a_long_name", "old" };
	write_cache(&w, 12288, 72, 3, cpids, cnames);
	nxlog_clear(&lg);
	rd = reader(&w, false);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	nxlog_clear(&lg);
	resume(&w, 3, NULL);
	resume(&w, 9, NULL);
	resume(&w, 11, NULL);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_STR(name_of(3), "nsh_main");
	CHECK_STR(name_of(9), "old");
	CHECK_STR(name_of(11), "gone_task_with_a_long_name");
	tt_nuttx_free(rd);
	/* a cache whose entry sizes run past its end gives no name (and no crash) */
	w.ram[12288 + 2 * w.ptr + 72 + 4] = 200;
	nxlog_clear(&lg);
	rd = reader(&w, false);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	nxlog_clear(&lg);
	resume(&w, 9, NULL);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_STR(name_of(9), "");
	tt_nuttx_free(rd);
	w.lo.taskname_addr = 0;
	w.lo.taskname_size = 0;

	/* g_npidhash not a power of two (wrong address, scheduler not started): no names */
	nxw_put(&w, w.ram + 8192 + w.ptr, 12, 4);
	nxlog_clear(&lg);
	rd = reader(&w, false);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	resume(&w, 3, NULL);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	CHECK_STR(name_of(3), "");
	tt_nuttx_free(rd);

	/* reads that fail (g_pidhash outside RAM): the pids stay unnamed; after 3 lookups in a
	 * row names are turned off, with a message */
	w.lo.pidhash_addr = 0x30000000u;
	nxlog_clear(&lg);
	rd = reader(&w, true);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE);
	for (int32_t k = 0; k < 3; k++) {
		resume(&w, 100 + k, NULL);
		CHECK_EQ(cycle_failing(rd, &w), -EIO);
	}
	/* said once, as the error of the next poll */
	CHECK_EQ(cycle(rd, &w, NULL, NULL), -EPROTO);
	CHECK(strstr(tt_nuttx_error(rd), "task names from the target are off") != NULL);
	resume(&w, 200, NULL);
	CHECK_EQ(cycle(rd, &w, NULL, NULL), TT_NUTTX_DONE); /* no lookup planned */
	CHECK_STR(name_of(100), "");
	tt_nuttx_free(rd);

	/* a partial configuration is refused */
	struct tt_nuttx_config c = { .driver_addr = w.drv, .layout = w.lo };
	c.layout.tcb_name_size = 0;
	CHECK_EQ(tt_nuttx_new(&c, &rd, &why), -EINVAL);
	CHECK(why && strstr(why, "tcb_name_size"));
	nxw_free(&w);
}

int main(void)
{
	test_basic();
	test_laps(1000);
	test_laps(0);
	test_resets();
	test_clear_then_full();
	test_overflow();
	test_random(4, 1000, 1, 0);
	test_random(8, 1000, 2, 0);
	test_random(4, 0, 3, 0);
	test_random(8, 0, 4, 0);
	test_random(4, 1000, 5, 1203);
	test_random(8, 0, 6, 1203);
	test_names(4);
	test_names(8);
	free(lg.r);
	free(tw);
	return tt_test_done();
}
