/* daemon/hub_int.h: what hub.c shares with hub_filter.c (not part of the hub's interface). */
#ifndef TT_HUB_INT_H
#define TT_HUB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../proto/json.h"
#include "hub.h"

#define MAX_FILTER_ITEMS 64 /* ids, names and threads each */

/* One history record: where its JSON lives in the byte ring, and what filters look at. */
struct slot {
	uint64_t seq;
	uint32_t off, len;
	uint32_t id;
	uint32_t thread;
	const char *name;        /* interned (a remote record's name dies with its message), or NULL */
	const char *thread_name; /* interned, or NULL */
	uint8_t kind;            /* enum tt_rec_kind */
};

struct filter {
	uint32_t *ids;
	size_t nids;
	char **names;
	size_t nnames;
	char **threads;
	size_t nthreads;
	char *text;
	size_t textlen;
};

/* A copy of in; *out = NULL when in selects everything. -EINVAL: over MAX_FILTER_ITEMS. */
int hub_filter_new(const struct tt_hub_filter *in, struct filter **out);
void hub_filter_free(struct filter *f); /* NULL is ignored */
/* Whether the record in s (JSON at json) passes f (NULL: everything passes). */
bool hub_filter_match(const struct filter *f, const struct slot *s, const char *json);


#define HDR_ROOM 512        /* room for the events header in front of the records */
#define MAX_INTERNED 4096
#define MAX_HOLES 65536     /* beyond this, holes before the history are folded */

enum cstate { C_IDLE = 0, C_LIVE, C_CATCHUP, C_PAUSED };

struct tt_hub_client {
	struct tt_hub *hub;
	struct tt_hub_client *prev, *next;
	tt_hub_wake_cb wake;
	void *arg;
	enum cstate state;
	bool started;
	uint64_t next_seq;
	struct filter *filter; /* NULL: everything */
	struct tt_frame **q;   /* ring */
	size_t qcap, qhead, qn, qbytes;
};

struct tt_hub {
	struct tt_hub_config cfg;
	char *target, *format, *probe;
	char target_json[TT_JSON_MAX_NAME * 6 + 3]; /* the name as a JSON string literal */
	int target_json_len;
	struct slot *slots;
	size_t nslots;
	char *bytes;
	size_t nbytes, tail;
	uint64_t oldest, last, flushed; /* oldest = 0: history empty; else a record, not a hole */
	size_t hist_bytes;
	/* The holes, ascending; before = hole seqs in the earlier ones (folded ones included).
	 * Holes wholly before the history are folded (MAX_HOLES): fold_sum seqs up to fold_to. */
	struct hole { uint64_t from, to, before; } *holes;
	size_t nholes;
	uint64_t fold_to, fold_sum;
	size_t pending, pending_bytes;
	struct tt_hub_client *clients;
	size_t nclients;
	char **interned;
	size_t ninterned;
	struct tt_hub_stats st;
};

/* Holes (hub_hole.c): seqs tt_hub_publish_at skipped. */
uint64_t hub_holes_upto(const struct tt_hub *h, uint64_t seq);
uint64_t hub_skip_hole(const struct tt_hub *h, uint64_t seq);
uint64_t hub_records_in(const struct tt_hub *h, uint64_t from, uint64_t to);
int hub_add_hole(struct tt_hub *h, uint64_t from, uint64_t to);
/* Records in [1, seq]. */
static inline uint64_t hub_rank(const struct tt_hub *h, uint64_t seq)
{
	if (!h->nholes && !h->fold_sum) /* a local target's hub: no search, no call */
		return seq;
	return seq - hub_holes_upto(h, seq);
}

/* Queues frame f for client c (a reference taken), waking it when wake. */
void hub_enqueue(struct tt_hub_client *c, struct tt_frame *f, bool wake);

#endif
