/* proto/qnx_kev.c: a .kev file followed while tracelogger writes it, like `tail -f`, as a live
 * reader (qnx.h: tt_qnx_kev_*): it plans reads of the file as other readers plan reads of RAM.
 *
 * A cycle reads the file's length and generation (plan.h: TT_PLAN_FILE_STAT), then the header
 * once it is whole, then every whole 16-byte event appended since the last cycle (a partial
 * trailing event waits for the rest). Another file at the path (a new generation: tracelogger
 * started again) or one cut shorter gives a reset record and is decoded again from its header.
 * No file yet, or a header still being written, is an error saying it waits (-EAGAIN).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qnx.h"
#include "reader.h"

#define HEAD_MAX (TT_QNX_MAX_HEADER + (16u << 20)) /* header + syspage */
#define CHUNK (64u * 1024u)                         /* events read per plan */

enum kev_step { K_STAT, K_HEADER, K_EVENTS };

struct tt_qnx_kev {
	const char *path; /* borrowed for the reader's life */
	uint64_t tick_hz;
	enum kev_step step;
	uint64_t gen, size; /* from the last stat */
	bool have_hdr;
	uint64_t off;       /* next event's file offset */
	uint32_t n;         /* bytes the last plan asked for */
	uint8_t stat[TT_PLAN_FILE_STAT_LEN];
	uint8_t *hdr;       /* header read buffer (grows with the file, at most HEAD_MAX) */
	size_t hdr_cap;
	struct tt_qnx q;
	struct tt_reader_stats st;
	size_t hdr_len;     /* of the header just accepted, until new_header takes it */
	char err[448];
	uint8_t buf[CHUNK];
};

int tt_qnx_kev_new(const char *path, uint64_t tick_hz, struct tt_qnx_kev **out)
{
	struct tt_qnx_kev *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->path = path ? path : "(kev)";
	k->tick_hz = tick_hz;
	*out = k;
	return 0;
}

void tt_qnx_kev_free(struct tt_qnx_kev *k)
{
	if (!k)
		return;
	free(k->hdr);
	free(k);
}

void tt_qnx_kev_plan(struct tt_qnx_kev *k, struct tt_plan *p)
{
	p->n = 1;
	if (k->step == K_STAT) {
		p->r[0] = (struct tt_range){ .addr = TT_PLAN_FILE_STAT, .len = TT_PLAN_FILE_STAT_LEN,
					     .dst = k->stat };
		return;
	}
	p->r[0] = (struct tt_range){ .addr = k->step == K_HEADER ? 0 : k->off, .len = k->n,
				     .dst = k->step == K_HEADER ? k->hdr : k->buf };
	k->st.bytes_planned += k->n;
}

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static int waiting(struct tt_qnx_kev *k)
{
	snprintf(k->err, sizeof(k->err), "waiting for %s and its whole header", k->path);
	return -EAGAIN;
}

static void start_over(struct tt_qnx_kev *k, tt_emit_cb cb, void *arg)
{
	struct tt_record r = { .kind = TT_REC_RESET };

	if (k->have_hdr)
		tt_qnx_finish(&k->q, cb, arg);
	r.u.reset.reason = "file truncated or replaced: decoding it again";
	cb(arg, &r);
	k->st.resets++;
	k->off = 0;
	k->have_hdr = false;
}

/* After the stat: what to read next (MORE), nothing new (DONE), or waiting. */
static int after_stat(struct tt_qnx_kev *k, tt_emit_cb cb, void *arg)
{
	uint64_t size = le64(k->stat), gen = le64(k->stat + 8);

	if ((k->gen && gen != k->gen) || (k->have_hdr && size < k->off))
		start_over(k, cb, arg);
	k->gen = gen;
	k->size = size;
	if (!gen)
		return waiting(k);
	if (!k->have_hdr) {
		size_t n = size < HEAD_MAX ? (size_t)size : HEAD_MAX;
		if (!n)
			return waiting(k);
		if (n > k->hdr_cap) {
			uint8_t *h = realloc(k->hdr, n);
			if (!h) {
				snprintf(k->err, sizeof(k->err), "%s: out of memory for a %zu-byte "
					 "header", k->path, n);
				return -ENOMEM;
			}
			k->hdr = h;
			k->hdr_cap = n;
		}
		k->n = (uint32_t)n;
		k->step = K_HEADER;
		return TT_READER_MORE;
	}
	if (size - k->off < TT_QNX_EVENT_SIZE)
		return TT_READER_DONE;
	k->n = size - k->off < CHUNK ? (uint32_t)(size - k->off) : CHUNK;
	k->n -= k->n % TT_QNX_EVENT_SIZE;
	k->step = K_EVENTS;
	return TT_READER_MORE;
}

static int after_header(struct tt_qnx_kev *k)
{
	struct tt_qnx_header h;
	char why[384];

	k->step = K_STAT;
	if (tt_qnx_parse_header(k->hdr, k->n, &h, why, sizeof(why)) < 0) {
		if (h.need_more && k->n < HEAD_MAX)
			return waiting(k);
		snprintf(k->err, sizeof(k->err), "%s: %s", k->path, why);
		return -EPROTO;
	}
	tt_qnx_init(&k->q, &h, k->tick_hz);
	k->hdr_len = h.header_len;
	k->off = h.events_off;
	k->have_hdr = true;
	return TT_READER_MORE;
}

int tt_qnx_kev_ingest(struct tt_qnx_kev *k, tt_emit_cb cb, void *arg)
{
	size_t n;

	switch (k->step) {
	case K_STAT:
		k->st.polls++;
		return after_stat(k, cb, arg);
	case K_HEADER:
		return after_header(k);
	case K_EVENTS:
		break;
	}
	n = k->n / TT_QNX_EVENT_SIZE;
	tt_qnx_feed(&k->q, k->buf, n, cb, arg);
	k->off += k->n;
	k->st.events += n;
	k->st.last_new = (uint32_t)n;
	k->step = K_STAT;
	return TT_READER_MORE;
}

void tt_qnx_kev_read_failed(struct tt_qnx_kev *k, int err)
{
	(void)err;
	k->step = K_STAT; /* a file cut between the stat and the read: the next stat says so */
}

const uint8_t *tt_qnx_kev_new_header(struct tt_qnx_kev *k, size_t *len)
{
	*len = k->hdr_len;
	k->hdr_len = 0;
	return *len ? k->hdr : NULL;
}

void tt_qnx_kev_finish(struct tt_qnx_kev *k, tt_emit_cb cb, void *arg)
{
	if (k->have_hdr)
		tt_qnx_finish(&k->q, cb, arg);
}

const char *tt_qnx_kev_error(const struct tt_qnx_kev *k)
{
	return k->err;
}

void tt_qnx_kev_stats(const struct tt_qnx_kev *k, struct tt_reader_stats *out)
{
	*out = k->st;
}
