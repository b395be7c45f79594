/* daemon/hub_int.h: what hub.c shares with hub_filter.c (not part of the hub's interface). */
#ifndef TT_HUB_INT_H
#define TT_HUB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "hub.h"

#define MAX_FILTER_ITEMS 64 /* ids, names and threads each */

/* One history record: where its JSON lives in the byte ring, and what filters look at. */
struct slot {
	uint64_t seq;
	uint32_t off, len;
	uint32_t id;
	uint32_t thread;
	const char *name;        /* static, from the reader */
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

#endif
