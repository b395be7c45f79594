/* daemon/hub.c: seq numbering, history ring, batching and per-client queues for one target.
 *
 * History: a ring of slots (one per record: seq, where its JSON lives, filter metadata) over a
 * byte ring holding the encoded JSON contiguously. Seqs skipped by tt_hub_publish_at (holes)
 * have no slot: a record's slot is its rank among the records. Appending evicts the oldest records that
 * overlap the bytes needed (or exceed the record count). Records published since the last flush
 * are never evicted before that flush (batches are bounded well below the history limits).
 *
 * Frames are built by copying record JSON from the byte ring into one allocation, with the
 * message header written last in front of the records (the header needs first/last seq, known
 * only after filtering): the records start at a fixed offset and the data pointer is moved back
 * over the header.
 *
 * Frames themselves (allocation, reference counts, the pool) are in frame.c, client filters in
 * hub_filter.c.
 */
#include "hub_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../proto/json.h"
#include "target.h"

/* ---- hub ---- */

static size_t def(size_t v, size_t d)
{
	return v ? v : d;
}

int tt_hub_new(const struct tt_hub_config *cfg, struct tt_hub **out)
{
	struct tt_hub *h;

	if (!cfg || !cfg->target || !*cfg->target)
		return -EINVAL;
	if (strlen(cfg->target) > TT_JSON_MAX_NAME)
		return -ENAMETOOLONG;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->cfg = *cfg;
	h->cfg.history = def(cfg->history, 100000);
	/* ThreadX records encode to 300-450 bytes: 512 per record keeps the record count the
	 * binding limit without touching (RSS) much more than the history needs. */
	h->cfg.history_bytes = def(cfg->history_bytes, h->cfg.history * 512);
	h->cfg.batch_records = def(cfg->batch_records, 1024);
	/* The cost is per frame (one send() each: lws sends a whole frame at once); bench_pipeline
	 * with 16 KiB frames: ~20% fewer events/s to 1 client, ~30% fewer to each of 10. */
	h->cfg.batch_bytes = def(cfg->batch_bytes, 64 * 1024);
	h->cfg.client_frames = def(cfg->client_frames, 1024);
	h->cfg.client_bytes = def(cfg->client_bytes, 8 * 1024 * 1024);
	/* A batch must fit in the history so pending records are never evicted. */
	if (h->cfg.batch_records > h->cfg.history)
		h->cfg.batch_records = h->cfg.history;
	if (h->cfg.history_bytes < 4 * (h->cfg.batch_bytes + TT_JSON_MAX_RECORD))
		h->cfg.history_bytes = 4 * (h->cfg.batch_bytes + TT_JSON_MAX_RECORD);
	if (h->cfg.client_frames < 4)
		h->cfg.client_frames = 4;
	h->target = strdup(cfg->target);
	h->format = strdup(cfg->format ? cfg->format : "");
	h->probe = strdup(cfg->probe ? cfg->probe : "");
	h->nslots = h->cfg.history;
	h->nbytes = h->cfg.history_bytes;
	h->slots = calloc(h->nslots, sizeof(*h->slots));
	h->bytes = malloc(h->nbytes);
	if (!h->target || !h->format || !h->probe || !h->slots || !h->bytes) {
		tt_hub_free(h);
		return -ENOMEM;
	}
	h->target_json_len = tt_json_string(h->target_json, sizeof(h->target_json), h->target,
					    TT_JSON_MAX_NAME);
	*out = h;
	return 0;
}

void tt_hub_free(struct tt_hub *h)
{
	if (!h)
		return;
	while (h->clients)
		tt_hub_client_free(h->clients);
	for (size_t i = 0; i < h->ninterned; i++)
		free(h->interned[i]);
	free(h->interned);
	free(h->holes);
	free(h->slots);
	free(h->bytes);
	free(h->target);
	free(h->format);
	free(h->probe);
	free(h);
	tt_frame_pool_drain(); /* frames freed later (the server's last ones) may refill it: reachable */
}

const char *tt_hub_target(const struct tt_hub *h)
{
	return h->target;
}

void tt_hub_export_prepare(const struct tt_hub *h, struct tt_export *e)
{
	if (h->cfg.export_prepare)
		h->cfg.export_prepare(h->cfg.export_prepare_arg, e);
}

const struct tt_target_status *tt_hub_target_status(const struct tt_hub *h)
{
	return h->cfg.status ? h->cfg.status(h->cfg.status_arg) : NULL;
}

/* The slot of the record seq (a seq that is no hole). */
static struct slot *slot_of(const struct tt_hub *h, uint64_t seq)
{
	return &h->slots[hub_rank(h, seq) % h->nslots];
}

static const char *intern(struct tt_hub *h, const char *s)
{
	size_t lo = 0, hi = h->ninterned;

	if (!s)
		return NULL;
	while (lo < hi) { /* sorted array: names are few (the target's threads) */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(h->interned[mid], s);
		if (c == 0)
			return h->interned[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (h->ninterned >= MAX_INTERNED)
		return NULL;
	if (h->ninterned % 64 == 0) {
		char **n = realloc(h->interned, (h->ninterned + 64) * sizeof(*n));
		if (!n)
			return NULL;
		h->interned = n;
	}
	char *copy = strndup(s, TT_JSON_MAX_NAME);
	if (!copy)
		return NULL;
	memmove(&h->interned[lo + 1], &h->interned[lo], (h->ninterned - lo) * sizeof(char *));
	h->interned[lo] = copy;
	h->ninterned++;
	return copy;
}

static void evict_oldest(struct tt_hub *h)
{
	struct slot *s = slot_of(h, h->oldest);

	h->hist_bytes -= s->len;
	if (h->oldest == h->last) {
		h->oldest = 0;
		h->tail = 0;
	} else {
		h->oldest = hub_skip_hole(h, h->oldest + 1); /* never rests on a hole */
	}
}

static bool overlaps(const struct slot *s, size_t off, size_t len)
{
	return s->off < off + len && off < (size_t)s->off + s->len;
}

/* Makes room for len bytes and returns their offset in the byte ring. */
static size_t reserve(struct tt_hub *h, size_t len)
{
	size_t off = h->tail;

	if (h->oldest && hub_records_in(h, h->oldest, h->last) >= h->nslots)
		evict_oldest(h);
	if (off + len > h->nbytes) {
		/* Wrap: records lying beyond the tail are older than those at the start. */
		while (h->oldest && slot_of(h, h->oldest)->off >= off)
			evict_oldest(h);
		off = 0;
	}
	while (h->oldest && overlaps(slot_of(h, h->oldest), off, len))
		evict_oldest(h);
	h->tail = off + len;
	return off;
}

uint64_t tt_hub_publish(struct tt_hub *h, const struct tt_record *rec)
{
	return tt_hub_publish_at(h, rec, h->last + 1);
}

uint64_t tt_hub_publish_at(struct tt_hub *h, const struct tt_record *rec, uint64_t seq)
{
	char buf[TT_JSON_MAX_RECORD];
	int n;

	if (seq <= h->last || seq > TT_HUB_SEQ_MAX)
		return 0;
	n = tt_json_record(buf, sizeof(buf), rec, h->target, seq);
	if (n < 0)
		return 0;
	if (seq > h->last + 1 && hub_add_hole(h, h->last + 1, seq - 1) < 0)
		return 0;
	if (h->pending >= h->cfg.batch_records ||
	    h->pending_bytes + (size_t)n + 1 > h->cfg.batch_bytes)
		tt_hub_flush(h);
	size_t off = reserve(h, (size_t)n);
	memcpy(h->bytes + off, buf, (size_t)n);
	h->last = seq;
	if (!h->oldest)
		h->oldest = seq;
	struct slot *s = slot_of(h, seq);
	memset(s, 0, sizeof(*s));
	s->seq = seq;
	s->off = (uint32_t)off;
	s->len = (uint32_t)n;
	s->kind = (uint8_t)rec->kind;
	if (rec->kind == TT_REC_EVENT) {
		const struct tt_event *ev = &rec->u.ev;
		s->id = ev->id;
		s->name = intern(h, ev->name);
		if (ev->ctx == TT_CTX_THREAD) {
			s->thread = ev->thread;
			s->thread_name = intern(h, ev->thread_name);
		}
	}
	h->hist_bytes += (size_t)n;
	h->pending_bytes += (size_t)n + 1;
	if (h->pending++ == 0 && h->cfg.need_flush)
		h->cfg.need_flush(h->cfg.need_flush_arg);
	return seq;
}

/* ---- filters (hub_filter.c) ---- */

int tt_hub_client_set_filter(struct tt_hub_client *c, const struct tt_hub_filter *in)
{
	struct filter *f;
	int rc = hub_filter_new(in, &f);

	if (rc < 0)
		return rc;
	hub_filter_free(c->filter);
	c->filter = f;
	return 0;
}

/* ---- frame building ---- */

/* Builds an events frame from seqs [from, to] (clamped to history), at most max_records records
 * and about max_bytes bytes. *end = the last seq considered. NULL when nothing matched (or on
 * allocation failure: then *end = from - 1). */
static struct tt_frame *build_events(struct tt_hub *h, uint64_t from, uint64_t to,
				     const struct filter *flt, size_t max_records,
				     size_t max_bytes, uint64_t *end)
{
	size_t room = 0, n = 0;
	uint64_t seq, first = 0, last = 0;
	struct tt_frame *f;
	char *p;

	*end = from - 1;
	if (!h->oldest || from < h->oldest)
		return NULL;
	if (to > h->last)
		to = h->last;
	for (seq = hub_skip_hole(h, from); seq <= to && n < max_records && room < max_bytes;
	     seq = hub_skip_hole(h, seq + 1), n++)
		room += slot_of(h, seq)->len + 1;
	to = seq - 1;
	f = tt_frame_new(HDR_ROOM + room + 2);
	if (!f)
		return NULL;
	f->kind = TT_FRAME_EVENTS;
	p = f->data + HDR_ROOM;
	for (seq = hub_skip_hole(h, from); seq <= to; seq = hub_skip_hole(h, seq + 1)) {
		const struct slot *s = slot_of(h, seq);
		const char *json = h->bytes + s->off;
		if (!hub_filter_match(flt, s, json))
			continue;
		if (first)
			*p++ = ',';
		else
			first = seq;
		memcpy(p, json, s->len);
		p += s->len;
		last = seq;
	}
	*end = to;
	if (!first) {
		tt_frame_unref(f);
		return NULL;
	}
	*p++ = ']';
	*p++ = '}';
	char hdr[HDR_ROOM];
	int hl = snprintf(hdr, sizeof(hdr),
			  "{\"type\":\"events\",\"target\":%.*s,\"first\":%" PRIu64
			  ",\"last\":%" PRIu64 ",\"records\":[",
			  h->target_json_len, h->target_json, first, last);
	memcpy(f->data + HDR_ROOM - hl, hdr, (size_t)hl);
	f->data += HDR_ROOM - hl;
	f->len = (size_t)(p - f->data);
	f->from = from;
	f->to = to;
	h->st.frames_built++;
	return f;
}

/* A gap message for [from, to]; lost counts the records in it. */
static struct tt_frame *gap_frame(struct tt_hub *h, uint8_t kind, uint64_t from, uint64_t to,
				  const char *reason)
{
	struct tt_frame *f = tt_frame_printf(kind,
		"{\"type\":\"gap\",\"target\":%.*s,\"from\":%" PRIu64 ",\"to\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"reason\":\"%s\"}",
		h->target_json_len, h->target_json, from, to, hub_records_in(h, from, to), reason);
	if (f) {
		f->from = from;
		f->to = to;
	}
	return f;
}

/* ---- client queues ---- */

static struct tt_frame **qat(const struct tt_hub_client *c, size_t i)
{
	return &c->q[(c->qhead + i) % c->qcap];
}

static int qpush(struct tt_hub_client *c, struct tt_frame *f)
{
	if (c->qn == c->qcap) {
		size_t ncap = c->qcap ? c->qcap * 2 : 16;
		struct tt_frame **nq = malloc(ncap * sizeof(*nq));
		if (!nq)
			return -ENOMEM;
		for (size_t i = 0; i < c->qn; i++)
			nq[i] = *qat(c, i);
		free(c->q);
		c->q = nq;
		c->qcap = ncap;
		c->qhead = 0;
	}
	*qat(c, c->qn) = f;
	c->qn++;
	c->qbytes += f->len;
	return 0;
}

/* Slow client: drops every queued events frame; each run of dropped frames becomes one
 * "slow client" gap message in its place (merged with an adjacent earlier one). The queue is
 * compacted in place: the write index k never passes the read index i. */
static void skip_ahead(struct tt_hub_client *c)
{
	struct tt_hub *h = c->hub;
	size_t n = c->qn, k = 0;
	bool in_run = false;
	uint64_t rfrom = 0, rto = 0;

	c->qbytes = 0;
	for (size_t i = 0; i <= n; i++) {
		struct tt_frame *f = i < n ? *qat(c, i) : NULL;
		if (f && f->kind == TT_FRAME_EVENTS) {
			if (!in_run)
				rfrom = f->from;
			rto = f->to;
			in_run = true;
			tt_frame_unref(f);
			continue;
		}
		if (in_run) {
			struct tt_frame *prev = NULL;
			size_t pi = k;
			while (pi > 0 && (*qat(c, pi - 1))->kind == TT_FRAME_STATUS)
				pi--;
			if (pi > 0)
				prev = *qat(c, pi - 1);
			h->st.slow_lost += hub_records_in(h, rfrom, rto);
			h->st.slow_gaps++;
			if (prev && prev->kind == TT_FRAME_GAP_SLOW && prev->to + 1 == rfrom) {
				rfrom = prev->from;
				c->qbytes -= prev->len;
				for (size_t j = pi - 1; j + 1 < k; j++)
					*qat(c, j) = *qat(c, j + 1);
				k--;
				tt_frame_unref(prev);
			}
			struct tt_frame *g = gap_frame(h, TT_FRAME_GAP_SLOW, rfrom, rto, "slow client");
			if (g) {
				*qat(c, k++) = g;
				c->qbytes += g->len;
			}
			in_run = false;
		}
		if (f) {
			*qat(c, k++) = f;
			c->qbytes += f->len;
		}
	}
	c->qn = k;
}

void hub_enqueue(struct tt_hub_client *c, struct tt_frame *f, bool wake)
{
	const struct tt_hub_config *cfg = &c->hub->cfg;
	bool was_empty = c->qn == 0;

	if (f->kind == TT_FRAME_EVENTS && c->qn &&
	    (c->qn + 1 > cfg->client_frames || c->qbytes + f->len > cfg->client_bytes))
		skip_ahead(c);
	if (f->kind == TT_FRAME_STATUS) { /* a newer status replaces a queued one */
		for (size_t i = 0; i < c->qn; i++) {
			struct tt_frame **slot = qat(c, i);
			if ((*slot)->kind == TT_FRAME_STATUS) {
				c->qbytes += f->len;
				c->qbytes -= (*slot)->len;
				tt_frame_unref(*slot);
				tt_frame_ref(f);
				*slot = f;
				return;
			}
		}
	}
	tt_frame_ref(f);
	if (qpush(c, f) < 0) {
		tt_frame_unref(f);
		return;
	}
	if (was_empty && wake && c->wake)
		c->wake(c, c->arg);
}

void tt_hub_flush(struct tt_hub *h)
{
	struct tt_frame *shared = NULL;
	uint64_t from = h->flushed + 1, to = h->last, end;

	if (!h->pending)
		return;
	for (struct tt_hub_client *c = h->clients; c; c = c->next) {
		if (c->state != C_LIVE)
			continue;
		struct tt_frame *f;
		if (!c->filter) {
			if (!shared)
				shared = build_events(h, from, to, NULL, SIZE_MAX, SIZE_MAX, &end);
			f = shared;
			if (f)
				tt_frame_ref(f);
		} else {
			f = build_events(h, from, to, c->filter, SIZE_MAX, SIZE_MAX, &end);
		}
		if (f) {
			hub_enqueue(c, f, true);
			tt_frame_unref(f);
		}
		c->next_seq = to + 1;
	}
	tt_frame_unref(shared);
	h->flushed = to;
	h->pending = 0;
	h->pending_bytes = 0;
}

void tt_hub_get_stats(const struct tt_hub *h, struct tt_hub_stats *st)
{
	*st = h->st;
	st->last_seq = h->last;
	st->oldest_seq = h->oldest;
	st->history_records = h->oldest ? (size_t)hub_records_in(h, h->oldest, h->last) : 0;
	st->history_bytes = h->hist_bytes;
	st->clients = h->nclients;
}

int tt_hub_history_foreach(const struct tt_hub *h,
			   int (*cb)(void *arg, uint64_t seq, const char *json, size_t len),
			   void *arg)
{
	if (!h->oldest)
		return 0;
	for (uint64_t seq = h->oldest; seq <= h->last; seq = hub_skip_hole(h, seq + 1)) {
		const struct slot *s = slot_of(h, seq);
		int rc = cb(arg, seq, h->bytes + s->off, s->len);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t tt_hub_history_range(const struct tt_hub *h, uint64_t from, size_t max,
			      int (*cb)(void *arg, uint64_t seq, const char *json, size_t len),
			      void *arg, int *rc)
{
	uint64_t seq = from;

	if (rc)
		*rc = 0;
	if (!h->oldest)
		return seq > h->last ? seq : h->last + 1;
	if (seq < h->oldest)
		seq = h->oldest;
	for (seq = hub_skip_hole(h, seq); seq <= h->last && max; seq = hub_skip_hole(h, seq + 1), max--) {
		const struct slot *s = slot_of(h, seq);
		int r = cb(arg, seq, h->bytes + s->off, s->len);
		if (r) {
			if (rc)
				*rc = r;
			return seq + 1;
		}
	}
	return seq;
}

/* ---- clients ---- */

int tt_hub_client_new(struct tt_hub *h, tt_hub_wake_cb wake, void *arg,
		      struct tt_hub_client **out)
{
	struct tt_hub_client *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->hub = h;
	c->wake = wake;
	c->arg = arg;
	c->next = h->clients;
	if (h->clients)
		h->clients->prev = c;
	h->clients = c;
	h->nclients++;
	*out = c;
	return 0;
}

void tt_hub_client_free(struct tt_hub_client *c)
{
	struct tt_hub *h;

	if (!c)
		return;
	h = c->hub;
	if (c->prev)
		c->prev->next = c->next;
	else
		h->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	h->nclients--;
	for (size_t i = 0; i < c->qn; i++)
		tt_frame_unref(*qat(c, i));
	free(c->q);
	hub_filter_free(c->filter);
	free(c);
}

void tt_hub_client_start(struct tt_hub_client *c, enum tt_hub_start how, uint64_t arg)
{
	struct tt_hub *h = c->hub;
	uint64_t cursor;

	switch (how) {
	case TT_HUB_RESUME:
		cursor = arg > h->last ? 1 : arg + 1;
		break;
	case TT_HUB_NEWEST:
		cursor = h->flushed >= arg ? h->flushed - arg + 1 : 1;
		if (h->oldest && cursor < h->oldest)
			cursor = h->oldest;
		if (h->oldest && h->oldest <= h->flushed && arg &&
		    hub_records_in(h, h->oldest, h->flushed) > arg) /* the newest arg records */
			cursor = h->slots[(hub_rank(h, h->flushed) - arg + 1) % h->nslots].seq;
		break;
	default:
		cursor = h->flushed + 1;
		break;
	}
	if (c->started && cursor < c->next_seq)
		cursor = c->next_seq; /* never send a seq twice on one connection */
	c->started = true;
	c->next_seq = cursor;
	if (cursor > h->flushed) {
		c->next_seq = h->flushed + 1;
		c->state = C_LIVE;
		return;
	}
	c->state = C_CATCHUP;
	if (c->qn == 0 && c->wake)
		c->wake(c, c->arg);
}

void tt_hub_client_pause(struct tt_hub_client *c)
{
	if (c->state == C_LIVE || c->state == C_CATCHUP)
		c->state = C_PAUSED;
}

void tt_hub_client_resume_live(struct tt_hub_client *c)
{
	struct tt_hub *h = c->hub;

	if (c->state != C_PAUSED)
		return;
	c->state = C_LIVE;
	if (c->next_seq <= h->flushed && hub_records_in(h, c->next_seq, h->flushed)) {
		struct tt_frame *g = gap_frame(h, TT_FRAME_GAP, c->next_seq, h->flushed, "paused");
		if (g) {
			hub_enqueue(c, g, true);
			tt_frame_unref(g);
		}
	}
	c->next_seq = h->flushed + 1;
}

/* Catch-up: queue the next history frame (or the history gap before it). */
static void refill(struct tt_hub_client *c)
{
	struct tt_hub *h = c->hub;

	while (c->state == C_CATCHUP && c->qn == 0) {
		if (c->next_seq > h->flushed) {
			c->next_seq = h->flushed + 1;
			c->state = C_LIVE;
			return;
		}
		uint64_t held = h->oldest ? h->oldest : h->flushed + 1;
		if (c->next_seq < held) {
			uint64_t to = held - 1 < h->flushed ? held - 1 : h->flushed;
			if (!hub_records_in(h, c->next_seq, to)) { /* only holes: told already */
				c->next_seq = to + 1;
				continue;
			}
			struct tt_frame *g = gap_frame(h, TT_FRAME_GAP, c->next_seq, to, "history");
			if (!g)
				return;
			h->st.history_gaps++;
			hub_enqueue(c, g, false);
			tt_frame_unref(g);
			c->next_seq = to + 1;
			return;
		}
		uint64_t end;
		struct tt_frame *f = build_events(h, c->next_seq, h->flushed, c->filter,
						  h->cfg.batch_records, h->cfg.batch_bytes, &end);
		if (end < c->next_seq)
			return; /* out of memory: try again at the next peek */
		c->next_seq = end + 1;
		if (f) {
			hub_enqueue(c, f, false);
			tt_frame_unref(f);
		}
	}
}

struct tt_frame *tt_hub_client_peek(struct tt_hub_client *c)
{
	if (c->qn == 0)
		refill(c);
	return c->qn ? *qat(c, 0) : NULL;
}

void tt_hub_client_pop(struct tt_hub_client *c)
{
	struct tt_frame *f;

	if (!c->qn)
		return;
	f = *qat(c, 0);
	c->qhead = (c->qhead + 1) % c->qcap;
	c->qn--;
	c->qbytes -= f->len;
	tt_frame_unref(f);
}

void tt_hub_client_queued(const struct tt_hub_client *c, size_t *frames, size_t *bytes)
{
	if (frames)
		*frames = c->qn;
	if (bytes)
		*bytes = c->qbytes;
}
