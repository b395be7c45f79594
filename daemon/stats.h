/* daemon/stats.h: a target's live analysis in the daemon (analysis/analysis.h): one per
 * supervisor, a consumer of every record the target's hub stores (like the server and the MQTT
 * publisher), so /api/stats of a stream equals `tracetap analyze` of the same records; and the
 * Prometheus lines of /metrics drawn from it.
 *
 * The analysis is made with the format's ops at the first record and made again when the
 * target's format changes (a reload). The threads the target registered come from its reader's
 * state when asked (tt_stats_refresh). Single-threaded: the loop thread.
 */
#ifndef TT_STATS_H
#define TT_STATS_H

#include <stddef.h>
#include <stdint.h>

#define TT_STATS_MAX 64 /* targets one /metrics covers (the server's TT_MAX_TARGETS) */

#include "../analysis/analysis.h"
#include "../proto/reader.h"

struct tt_stats;

/* 0 or -ENOMEM. Free with tt_stats_free. */
int tt_stats_new(struct tt_stats **out);
void tt_stats_free(struct tt_stats *s);
/* The stack high-water marks read from RAM (daemon/stackread.h) and what reading them costs,
 * into the analysis. Both borrowed for the call. */
void tt_stats_stacks(struct tt_stats *s, const struct tt_stackscan *scan,
		     const struct tt_analysis_scan_cost *cost);
/* A record the target's reader r emitted, stored by its hub under seq. */
void tt_stats_record(struct tt_stats *s, const struct tt_reader_ops *r, const struct tt_record *rec,
		     uint64_t seq);
/* The registered threads, from reader r's state rd (NULL: none now). */
void tt_stats_refresh(struct tt_stats *s, const struct tt_reader_ops *r, const void *rd);
/* The analysis (NULL before the first record). Borrowed. */
const struct tt_analysis *tt_stats_analysis(const struct tt_stats *s);

/* Runs kept of the map from the analysis's event numbers to the hub's seqs. */
#define TT_STATS_RUNS 256
/* The analysis numbers its events from 0; the hub numbers every record (gaps and resets too).
 * Each run of consecutive events is one [event, seq] pair: event e of a run that starts at
 * [E, S] is seq S + e - E. The newest TT_STATS_RUNS runs, oldest first, as a JSON array
 * ("seqs" of the stats message). Like snprintf. */
size_t tt_stats_seqs_json(const struct tt_stats *s, char *buf, size_t len);

/* The `stats` message of target (proto/PROTOCOL.md),
 * {"type":"stats","target":T,"seqs":[...],"stats":{...}},
 * as a frame of kind TT_FRAME_OTHER (a new ref for the caller; the WebSocket clients and the
 * MQTT publisher send the same bytes), or NULL: no analysis yet, or out of memory. A target has
 * one name for its life: the message is built at most once per TT_STATS_SHARE_MS of the loop's
 * clock now_ms, and again only when the analysis changed: the server's and the publisher's
 * ticks, both once a second from the daemon's start, share one. */
#define TT_STATS_SHARE_MS 250
struct tt_frame;
struct tt_frame *tt_stats_frame(struct tt_stats *s, const char *target, uint64_t now_ms);

/* The /metrics lines (tt_analysis_metrics) of n targets (at most TT_STATS_MAX) (names[i], st[i]; st[i] may be NULL: nothing), each family
 * with its HELP and TYPE once. Like snprintf: returns the length the whole needs. */
size_t tt_stats_metrics(const char *const *names, const struct tt_stats *const *st, size_t n,
			char *buf, size_t len);

#endif
