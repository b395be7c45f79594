/* daemon/stats.c: a target's live analysis, and its /metrics lines (stats.h). */
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tt_stats {
	const struct tt_reader_ops *fmt; /* the format the analysis was made for */
	struct tt_analysis *an;
};

int tt_stats_new(struct tt_stats **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

void tt_stats_free(struct tt_stats *s)
{
	if (s)
		tt_analysis_free(s->an);
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
		s->an = an;
		s->fmt = r;
	}
	tt_analysis_record_seq(s->an, rec, seq);
}

void tt_stats_refresh(struct tt_stats *s, const struct tt_reader_ops *r, const void *rd)
{
	if (s->an && r == s->fmt && rd && r && r->analysis && r->analysis->threads)
		(void)r->analysis->threads(rd, tt_analysis_thread_cb, s->an);
}

const struct tt_analysis *tt_stats_analysis(const struct tt_stats *s)
{
	return s->an;
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
