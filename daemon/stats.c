/* daemon/stats.c: a target's live analysis, the map from its event numbers to the hub's seqs
 * (so a client can find the events a statistic names), its stats message and its /metrics lines
 * (stats.h). */
#include "stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/json.h"
#include "hub.h"

struct tt_stats {
	const struct tt_reader_ops *fmt; /* the format the analysis was made for */
	struct tt_analysis *an;
	uint64_t events;          /* event records given to an */
	bool in_run;              /* the last record was an event */
	uint64_t nruns;           /* runs ever started (the ring holds the newest) */
	struct { uint64_t event, seq; } runs[TT_STATS_RUNS];
	uint64_t gen;             /* bumped by whatever changes the analysis */
	struct tt_frame *frame;   /* the last stats message built (one ref held), or NULL */
	uint64_t frame_gen, frame_ms;
};

int tt_stats_new(struct tt_stats **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

void tt_stats_free(struct tt_stats *s)
{
	if (s) {
		tt_analysis_free(s->an);
		tt_frame_unref(s->frame);
	}
	free(s);
}

void tt_stats_record(struct tt_stats *s, const struct tt_reader_ops *r, const struct tt_record *rec,
		     uint64_t seq)
{
	if (!s->an || s->fmt != r) {
		struct tt_analysis *an;
		if (tt_analysis_new(r ? r->analysis : NULL, NULL, &an) < 0)
			return; /* out of memory: no analysis until it can be made */
		tt_analysis_free(s->an);
		tt_frame_unref(s->frame); /* the old analysis's message */
		s->frame = NULL;
		s->an = an;
		s->fmt = r;
		s->events = s->nruns = 0;
		s->in_run = false;
	}
	if (rec->kind == TT_REC_EVENT) {
		if (!s->in_run) {
			s->runs[s->nruns % TT_STATS_RUNS].event = s->events;
			s->runs[s->nruns++ % TT_STATS_RUNS].seq = seq;
		}
		s->events++;
	}
	s->in_run = rec->kind == TT_REC_EVENT;
	tt_analysis_record_seq(s->an, rec, seq);
	s->gen++;
}

size_t tt_stats_seqs_json(const struct tt_stats *s, char *buf, size_t len)
{
	uint64_t first = s->nruns > TT_STATS_RUNS ? s->nruns - TT_STATS_RUNS : 0;
	size_t pos = 0;
	int n;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		n = snprintf(pos < len ? buf + pos : NULL, pos < len ? len - pos : 0, __VA_ARGS__); \
		pos += n > 0 ? (size_t)n : 0;                                                      \
	} while (0)
	PUT("[");
	for (uint64_t i = first; i < s->nruns; i++)
		PUT("%s[%" PRIu64 ",%" PRIu64 "]", i > first ? "," : "",
		    s->runs[i % TT_STATS_RUNS].event, s->runs[i % TT_STATS_RUNS].seq);
	PUT("]");
#undef PUT
	return pos;
}

void tt_stats_refresh(struct tt_stats *s, const struct tt_reader_ops *r, const void *rd)
{
	if (s->an && r == s->fmt && rd && r && r->analysis && r->analysis->threads) {
		(void)r->analysis->threads(rd, tt_analysis_thread_cb, s->an);
		s->gen++;
	}
}

void tt_stats_stacks(struct tt_stats *s, const struct tt_stackscan *scan,
		     const struct tt_analysis_scan_cost *cost)
{
	struct tt_stack_painted p;

	if (!s->an)
		return;
	for (unsigned i = 0; tt_stackscan_at(scan, i, &p) == 0; i++)
		tt_analysis_stack_painted(s->an, &p);
	tt_analysis_scan_cost(s->an, cost);
	s->gen++;
}

const struct tt_analysis *tt_stats_analysis(const struct tt_stats *s)
{
	return s->an;
}

/* The stats message built afresh. */
static struct tt_frame *stats_build(const struct tt_stats *s, const char *target)
{
	char name[TT_JSON_MAX_NAME * 6 + 3];
	struct tt_frame *f;
	size_t n, m;
	int k;

	if ((k = tt_json_string(name, sizeof(name), target, TT_JSON_MAX_NAME)) < 0)
		return NULL;
	n = tt_analysis_json(s->an, NULL, 0);
	m = tt_stats_seqs_json(s, NULL, 0);
	if (!(f = tt_frame_new((size_t)k + m + n + 56)))
		return NULL;
	f->kind = TT_FRAME_OTHER;
	f->len = (size_t)snprintf(f->data, f->cap, "{\"type\":\"stats\",\"target\":%.*s,\"seqs\":",
				  k, name);
	f->len += tt_stats_seqs_json(s, f->data + f->len, f->cap - f->len);
	f->len += (size_t)snprintf(f->data + f->len, f->cap - f->len, ",\"stats\":");
	f->len += tt_analysis_json(s->an, f->data + f->len, f->cap - f->len);
	f->len += (size_t)snprintf(f->data + f->len, f->cap - f->len, "}");
	return f;
}

struct tt_frame *tt_stats_frame(struct tt_stats *s, const char *target, uint64_t now_ms)
{
	struct tt_frame *f;

	if (!s || !s->an)
		return NULL;
	if (!s->frame || (s->frame_gen != s->gen && now_ms - s->frame_ms >= TT_STATS_SHARE_MS)) {
		if (!(f = stats_build(s, target)))
			return NULL;
		tt_frame_unref(s->frame);
		s->frame = f;
		s->frame_gen = s->gen;
		s->frame_ms = now_ms;
	}
	tt_frame_ref(s->frame);
	return s->frame;
}

size_t tt_stats_metrics(const char *const *names, const struct tt_stats *const *st, size_t n,
			char *buf, size_t len)
{
	const struct tt_analysis *an[TT_STATS_MAX];

	if (n > TT_STATS_MAX)
		n = TT_STATS_MAX;
	for (size_t i = 0; i < n; i++)
		an[i] = st[i] ? st[i]->an : NULL;
	return tt_analysis_metrics(names, an, n, buf, len);
}
