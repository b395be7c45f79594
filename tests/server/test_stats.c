/* tests/server/test_stats.c: the map from the live analysis's event numbers to the hub's seqs
 * (daemon/stats.h, the `seqs` of the stream's stats message). The analysis numbers events only;
 * the hub numbers gap and reset records too, so each run of consecutive events is one
 * [first event, its seq] pair; the pairs worked out by hand here. The ring keeps the newest
 * TT_STATS_RUNS runs; a new analysis (another format) starts the map over.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../tt_test.h"
#include "../../daemon/hub.h"
#include "../../daemon/stats.h"

static void rec(struct tt_stats *s, enum tt_rec_kind kind, uint64_t seq)
{
	struct tt_record r = { .kind = kind };

	if (kind == TT_REC_EVENT)
		r.u.ev = (struct tt_event){ .name = "E", .core = -1, .prio = -1, .threshold = -1,
					    .time = seq };
	else if (kind == TT_REC_GAP)
		r.u.gap = (struct tt_gap){ .lost = 3, .exact = true, .reason = "lapped" };
	else
		r.u.reset = (struct tt_reset){ .reason = "tracing re-enabled" };
	tt_stats_record(s, NULL, &r, seq);
}

int main(void)
{
	struct tt_stats *s;
	char buf[16384];
	size_t n;

	REQUIRE(tt_stats_new(&s) == 0);
	CHECK_EQ(tt_stats_seqs_json(s, buf, sizeof(buf)), 2);
	CHECK_STR(buf, "[]");
	/* seq: 1 ev0, 2 ev1, 3 gap, 4 ev2, 5 reset, 6 ev3, 7 ev4, 8 gap, 9 gap, 10 ev5 */
	rec(s, TT_REC_EVENT, 1);
	rec(s, TT_REC_EVENT, 2);
	rec(s, TT_REC_GAP, 3);
	rec(s, TT_REC_EVENT, 4);
	rec(s, TT_REC_RESET, 5);
	rec(s, TT_REC_EVENT, 6);
	rec(s, TT_REC_EVENT, 7);
	rec(s, TT_REC_GAP, 8);
	rec(s, TT_REC_GAP, 9);
	rec(s, TT_REC_EVENT, 10);
	n = tt_stats_seqs_json(s, buf, sizeof(buf));
	CHECK_STR(buf, "[[0,1],[2,4],[3,6],[5,10]]");
	CHECK_EQ(n, strlen(buf));
	/* snprintf-like: a short buffer holds what fits, the length is the whole */
	CHECK_EQ(tt_stats_seqs_json(s, buf, 6), n);
	CHECK_STR(buf, "[[0,1");

	/* a run per gap, many more than kept: the newest TT_STATS_RUNS, oldest first */
	for (uint64_t i = 0; i < 2 * TT_STATS_RUNS; i++) {
		rec(s, TT_REC_GAP, 11 + 2 * i);
		rec(s, TT_REC_EVENT, 12 + 2 * i);
	}
	tt_stats_seqs_json(s, buf, sizeof(buf));
	/* loop i made run 4 + i: event 6 + i at seq 12 + 2 i; of the 4 + 2 * TT_STATS_RUNS runs the
	 * oldest kept is i = TT_STATS_RUNS, the newest i = 2 * TT_STATS_RUNS - 1 */
	char want[64];
	snprintf(want, sizeof(want), "[[%d,%d],", 6 + TT_STATS_RUNS, 12 + 2 * TT_STATS_RUNS);
	CHECK_MSG(!strncmp(buf, want, strlen(want)), "oldest kept: %.40s, want %s", buf, want);
	snprintf(want, sizeof(want), ",[%d,%d]]", 5 + 2 * TT_STATS_RUNS, 10 + 4 * TT_STATS_RUNS);
	CHECK_MSG(strlen(buf) > strlen(want) && !strcmp(buf + strlen(buf) - strlen(want), want),
		  "newest: %s, want %s", buf + strlen(buf) - 20, want);

	/* the stats message: one frame serves the server's and the publisher's ticks of one
	 * moment; a change is in the message built TT_STATS_SHARE_MS later */
	struct tt_frame *f1 = tt_stats_frame(s, "t", 1000), *f2, *f3, *f4;
	REQUIRE(f1 && f1->len > 0 && f1->kind == TT_FRAME_OTHER);
	CHECK_MSG(strstr(f1->data, "\"type\":\"stats\"") != NULL, "%.200s", f1->data);
	rec(s, TT_REC_EVENT, 10000);
	f2 = tt_stats_frame(s, "t", 1000 + TT_STATS_SHARE_MS - 1);
	CHECK_MSG(f2 == f1, "within the share window: the same frame");
	f3 = tt_stats_frame(s, "t", 1000 + TT_STATS_SHARE_MS);
	REQUIRE(f3);
	CHECK_MSG(f3 != f1 && strcmp(f3->data, f1->data) != 0, "a change after the window: rebuilt");
	f4 = tt_stats_frame(s, "t", 1000 + 10 * TT_STATS_SHARE_MS); /* nothing changed since */
	CHECK_MSG(f4 == f3, "unchanged analysis: the same frame");
	CHECK_EQ(f1->refs, 2); /* f1 and f2 here; the stats let it go for f3 */
	tt_frame_unref(f1);
	tt_frame_unref(f2);
	tt_frame_unref(f3);
	tt_frame_unref(f4);
	tt_stats_free(s);
	return tt_test_done();
}
