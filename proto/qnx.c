/* proto/qnx.c: the .kev container (header, syspage, 16-byte events), time, combine-event
 * reassembly and buffer-loss gaps. What each event means (names, arguments, thread tracking)
 * is in qnx_events.c.
 */
#include "qnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char hdr_begin[] = "TRACE_HEADER_BEGIN::";
static const char hdr_end[] = "TRACE_HEADER_END::";
#define BEGIN_LEN (sizeof(hdr_begin) - 1)
#define END_LEN (sizeof(hdr_end) - 1)

/* ---- header ---- */

static bool is_key_char(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Length of "TRACE_<KEY>::" at p (p < end), or 0 when p does not start an item. */
static size_t item_start(const uint8_t *p, const uint8_t *end)
{
	if ((size_t)(end - p) < 8 || memcmp(p, "TRACE_", 6))
		return 0;
	const uint8_t *k = p + 6;
	while (k < end && is_key_char(*k))
		k++;
	if (k == p + 6 || end - k < 2 || k[0] != ':' || k[1] != ':')
		return 0;
	return (size_t)(k + 2 - p);
}

/* The value starting at v runs to the next item or to stop (TRACE_HEADER_END::); returns that
 * end, with *trim = the end without trailing NUL/CR/LF/spaces. */
static const uint8_t *item_value(const uint8_t *v, const uint8_t *stop, const uint8_t **trim)
{
	const uint8_t *ve = v, *vt;

	while (ve < stop && !item_start(ve, stop + END_LEN))
		ve++;
	vt = ve;
	while (vt > v && (vt[-1] == 0 || vt[-1] == '\n' || vt[-1] == '\r' || vt[-1] == ' '))
		vt--;
	*trim = vt;
	return ve;
}

static const uint8_t *find_bytes(const uint8_t *p, const uint8_t *end, const char *s, size_t n)
{
	for (; (size_t)(end - p) >= n; p++)
		if (*p == (uint8_t)s[0] && !memcmp(p, s, n))
			return p;
	return NULL;
}

/* Decimal or 0x hex, at most 2^40 - 1 (no attribute needs more; keeps sums from overflowing). */
static int parse_num(const uint8_t *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	unsigned base = 10;
	size_t i = 0;

	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		unsigned d;
		if (v[i] >= '0' && v[i] <= '9')
			d = v[i] - '0';
		else if (base == 16 && v[i] >= 'a' && v[i] <= 'f')
			d = v[i] - 'a' + 10;
		else if (base == 16 && v[i] >= 'A' && v[i] <= 'F')
			d = v[i] - 'A' + 10;
		else
			return -1;
		x = x * base + d;
		if (x >= (UINT64_C(1) << 40))
			return -1;
	}
	*out = x;
	return 0;
}

static bool key_is(const uint8_t *k, size_t kn, const char *s)
{
	return kn == strlen(s) && !memcmp(k, s, kn);
}

/* TRACE_SYS_RELEASE "MAJOR.MINOR[.PATCH]" (uname's release): the OS version that decides event
 * and kernel-call numbering. Anything else leaves it unknown (0): it is informational text. */
static void release(struct tt_qnx_header *h, const uint8_t *v, size_t vn)
{
	uint32_t major = 0, minor = 0;
	size_t i = 0;

	while (i < vn && i < 5 && v[i] >= '0' && v[i] <= '9')
		major = major * 10 + (uint32_t)(v[i++] - '0');
	if (!i || (i < vn && v[i] != '.'))
		return;
	for (size_t j = i + 1; j < vn && j < i + 6 && v[j] >= '0' && v[j] <= '9'; j++)
		minor = minor * 10 + (uint32_t)(v[j] - '0');
	h->os_major = major;
	h->os_minor = minor;
}

/* Applies one attribute. vo = byte offset of the value, for messages. */
static int header_attr(struct tt_qnx_header *h, const uint8_t *k, size_t kn, const uint8_t *v,
		       size_t vn, size_t vo, int *order, char *err, size_t errlen)
{
	uint64_t x;
	uint64_t *num = NULL;
	uint32_t *num32 = NULL;

	if (key_is(k, kn, "LITTLE_ENDIAN") || key_is(k, kn, "BIG_ENDIAN")) {
		if (vn == 4 && !memcmp(v, "TRUE", 4)) {
			int o = k[0] == 'B' ? 2 : 1;
			if (*order && *order != o) {
				snprintf(err, errlen, "header at byte %zu: both TRACE_LITTLE_ENDIAN "
					 "and TRACE_BIG_ENDIAN are TRUE", vo);
				return -EPROTO;
			}
			*order = o;
		}
		return 0;
	}
	if (key_is(k, kn, "ENCODING")) {
		if (vn && (vn < 2 || memcmp(v, "16", 2))) {
			snprintf(err, errlen, "header at byte %zu: TRACE_ENCODING '%.*s' is not "
				 "supported (only 16 byte events)", vo, (int)(vn > 40 ? 40 : vn), v);
			return -EPROTO;
		}
		return 0;
	}
	if (key_is(k, kn, "SYS_RELEASE")) {
		release(h, v, vn);
		return 0;
	}
	if (key_is(k, kn, "CYCLES_PER_SEC"))
		num = &h->cycles_per_sec;
	else if (key_is(k, kn, "SYSPAGE_LEN"))
		num = &h->syspage_len;
	else if (key_is(k, kn, "VER_MAJOR"))
		num32 = &h->ver_major;
	else if (key_is(k, kn, "VER_MINOR"))
		num32 = &h->ver_minor;
	else if (key_is(k, kn, "CPU_NUM"))
		num32 = &h->cpu_num;
	else
		return 0; /* informational (FILE_NAME, DATE, SYSNAME, ...) or a user attribute */
	if (parse_num(v, vn, &x) < 0 || (num32 && x > UINT32_MAX)) {
		snprintf(err, errlen, "header at byte %zu: TRACE_%.*s value '%.*s' is not a number",
			 vo, (int)kn, k, (int)(vn > 40 ? 40 : vn), v);
		return -EPROTO;
	}
	if (num)
		*num = x;
	else
		*num32 = (uint32_t)x;
	return 0;
}

int tt_qnx_parse_header(const uint8_t *buf, size_t len, struct tt_qnx_header *h, char *err,
			size_t errlen)
{
	int order = 0, rc;

	memset(h, 0, sizeof(*h));
	if (len < BEGIN_LEN || memcmp(buf, hdr_begin, BEGIN_LEN)) {
		h->need_more = len < BEGIN_LEN && !memcmp(buf, hdr_begin, len);
		if (!len)
			snprintf(err, errlen, "empty file: no TRACE_HEADER_BEGIN:: at byte 0");
		else if (h->need_more)
			snprintf(err, errlen, "truncated header: the file ends at byte %zu inside "
				 "TRACE_HEADER_BEGIN::", len);
		else
			snprintf(err, errlen, "not a QNX .kev file: no TRACE_HEADER_BEGIN:: at "
				 "byte 0");
		return -EPROTO;
	}
	const uint8_t *end = buf + (len < TT_QNX_MAX_HEADER ? len : TT_QNX_MAX_HEADER);
	const uint8_t *stop = find_bytes(buf + BEGIN_LEN, end, hdr_end, END_LEN);
	if (!stop) {
		h->need_more = len < TT_QNX_MAX_HEADER;
		snprintf(err, errlen, "truncated header: no TRACE_HEADER_END:: in the first %zu "
			 "bytes%s", (size_t)(end - buf),
			 len > TT_QNX_MAX_HEADER ? " (the header size limit)" : " (the whole file)");
		return -EPROTO;
	}
	h->nattrs = 2;
	const uint8_t *p = buf + BEGIN_LEN;
	while (p < stop) {
		if (*p == 0 || *p == '\n' || *p == '\r' || *p == ' ') {
			p++;
			continue;
		}
		size_t kl = item_start(p, stop + END_LEN);
		if (!kl || p + kl > stop) {
			snprintf(err, errlen, "malformed header at byte %zu: expected "
				 "TRACE_<KEY>::<value>", (size_t)(p - buf));
			return -EPROTO;
		}
		const uint8_t *v = p + kl, *vt, *ve = item_value(v, stop, &vt);
		rc = header_attr(h, p + 6, kl - 8, v, (size_t)(vt - v), (size_t)(v - buf), &order,
				 err, errlen);
		if (rc < 0)
			return rc;
		h->nattrs++;
		p = ve;
	}
	h->header_len = (size_t)(stop + END_LEN - buf);
	if (!order) {
		snprintf(err, errlen, "header (bytes 0-%zu) has neither TRACE_LITTLE_ENDIAN::TRUE "
			 "nor TRACE_BIG_ENDIAN::TRUE: byte order unknown", h->header_len);
		return -EPROTO;
	}
	h->big_endian = order == 2;
	if (h->syspage_len > len - h->header_len) {
		h->need_more = true;
		snprintf(err, errlen, "TRACE_SYSPAGE_LEN %llu runs past the end of the file: the "
			 "syspage would start at byte %zu but the file is %zu bytes (truncated file?)",
			 (unsigned long long)h->syspage_len, h->header_len, len);
		return -EPROTO;
	}
	h->events_off = h->header_len + (size_t)h->syspage_len;
	return 0;
}

void tt_qnx_header_items(const uint8_t *buf, size_t len,
			 void (*cb)(void *arg, const char *key, size_t klen, const char *val,
				    size_t vlen),
			 void *arg)
{
	const uint8_t *end = buf + (len < TT_QNX_MAX_HEADER ? len : TT_QNX_MAX_HEADER);
	const uint8_t *stop = len >= BEGIN_LEN ? find_bytes(buf + BEGIN_LEN, end, hdr_end, END_LEN)
					       : NULL;
	const uint8_t *p = buf + BEGIN_LEN;

	while (stop && p < stop) {
		size_t kl = item_start(p, stop + END_LEN);
		if (!kl) {
			p++;
			continue;
		}
		const uint8_t *v = p + kl, *vt, *ve = item_value(v, stop, &vt);
		cb(arg, (const char *)p + 6, kl - 8, (const char *)v, (size_t)(vt - v));
		p = ve;
	}
}

/* ---- events ---- */

static uint32_t word_at(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

void tt_qnx_init(struct tt_qnx *q, const struct tt_qnx_header *h, uint64_t tick_hz)
{
	memset(q, 0, sizeof(*q));
	q->hdr = *h;
	q->tick_hz = tick_hz ? tick_hz : h->cycles_per_sec;
	q->max_th_state = h->os_major >= 8 ? 63 : 26;
	q->names_gen = 1;
}

/* The 64-bit time of a low cycle word. Each word is read as a signed step from the newest time
 * (t_ref): forward steps (including across a wrap of the low word) move t_ref; a backward step
 * (another CPU's slightly older stamp) yields an earlier time without moving it. CONTROL/TIME
 * events set t_ref from their msb:lsb pair. */
static uint64_t unwrap(struct tt_qnx *q, uint32_t low)
{
	if (!q->have_time) {
		q->have_time = true;
		q->t_ref = low;
		return low;
	}
	int32_t d = (int32_t)(low - (uint32_t)q->t_ref);
	if (d >= 0) {
		q->t_ref += (uint32_t)d;
		return q->t_ref;
	}
	uint64_t back = (uint64_t)-(int64_t)d;
	return back > q->t_ref ? 0 : q->t_ref - back;
}

static void emit_event(struct tt_qnx *q, const struct tt_qnx_ev *e, uint32_t ts, uint64_t time,
		       tt_emit_cb cb, void *arg)
{
	struct tt_record rec = { .kind = TT_REC_EVENT };
	struct tt_event *ev = &rec.u.ev;

	if (!q->have_first) {
		q->have_first = true;
		q->t_first = time;
	}
	ev->id = e->header & 0x7fff;
	ev->core = e->cpu;
	ev->prio = -1;
	ev->threshold = -1;
	ev->ts_raw = ts;
	ev->time = time;
	if (q->tick_hz) {
		__extension__ typedef unsigned __int128 u128;
		uint64_t dt = time > q->t_first ? time - q->t_first : 0;
		ev->ns = (uint64_t)((u128)dt * 1000000000u / q->tick_hz);
		ev->has_ns = true;
	}
	q->raw[0] = e->header;
	q->raw[1] = ts;
	for (unsigned i = 0; i < e->nw; i++)
		q->raw[2 + i] = e->w[i];
	ev->raw = q->raw;
	ev->nraw = (uint8_t)(2 + e->nw);
	tt_qnx_describe(q, e, ev);
	q->stats.events++;
	cb(arg, &rec);
}

static void fill_ev(struct tt_qnx_ev *e, uint32_t header)
{
	e->header = header;
	e->event = header & 0x3ff;
	e->cls = (header >> 10) & 0x1f;
	e->cpu = (header >> 24) & 0x3f;
}

/* Emits a reassembled (or partly reassembled) combine event and frees its slot. */
static void comb_emit(struct tt_qnx *q, struct tt_qnx_combine *c, bool incomplete, tt_emit_cb cb,
		      void *arg)
{
	uint32_t w[TT_QNX_COMBINE_WORDS];
	struct tt_qnx_ev e = { 0 };

	fill_ev(&e, c->header);
	for (unsigned i = 0; i < c->nbytes / 4; i++)
		w[i] = word_at(c->bytes + 4 * i, q->hdr.big_endian);
	e.w = w;
	e.nw = c->nbytes / 4;
	e.bytes = c->bytes;
	e.combine = true;
	e.incomplete = incomplete;
	e.truncated = c->truncated;
	q->stats.incomplete += incomplete;
	q->stats.truncated += c->truncated;
	c->used = false;
	emit_event(q, &e, c->ts, c->time, cb, arg);
}

static struct tt_qnx_combine *comb_find(struct tt_qnx *q, uint8_t cpu, uint16_t key)
{
	for (unsigned i = 0; i < TT_QNX_COMBINE_SLOTS; i++)
		if (q->comb[i].used && q->comb[i].cpu == cpu && q->comb[i].key == key)
			return &q->comb[i];
	return NULL;
}

static void comb_flush_all(struct tt_qnx *q, tt_emit_cb cb, void *arg)
{
	for (;;) { /* oldest first */
		struct tt_qnx_combine *old = NULL;
		for (unsigned i = 0; i < TT_QNX_COMBINE_SLOTS; i++)
			if (q->comb[i].used && (!old || q->comb[i].age < old->age))
				old = &q->comb[i];
		if (!old)
			return;
		comb_emit(q, old, true, cb, arg);
	}
}

static void comb_append(struct tt_qnx_combine *c, const uint8_t *part)
{
	if (c->nbytes + 8 > sizeof(c->bytes)) {
		c->truncated = true;
		return;
	}
	memcpy(c->bytes + c->nbytes, part, 8);
	c->nbytes += 8;
}

static void comb_begin(struct tt_qnx *q, uint32_t header, uint32_t ts, uint64_t time,
		       const uint8_t *part, tt_emit_cb cb, void *arg)
{
	uint8_t cpu = (header >> 24) & 0x3f;
	uint16_t key = header & 0x7fff;
	struct tt_qnx_combine *c = comb_find(q, cpu, key), *old = NULL;

	if (c) /* a begin while the previous one never ended */
		comb_emit(q, c, true, cb, arg);
	c = NULL;
	for (unsigned i = 0; i < TT_QNX_COMBINE_SLOTS && !c; i++) {
		if (!q->comb[i].used)
			c = &q->comb[i];
		else if (!old || q->comb[i].age < old->age)
			old = &q->comb[i];
	}
	if (!c) {
		comb_emit(q, old, true, cb, arg);
		c = old;
	}
	*c = (struct tt_qnx_combine){
		.used = true, .cpu = cpu, .key = key, .header = header, .ts = ts, .time = time,
		.age = q->comb_age++,
	};
	comb_append(c, part);
}

/* A continue or end part with no begin: emitted on its own, flagged incomplete. */
static void orphan_part(struct tt_qnx *q, uint32_t header, uint32_t ts, uint64_t time,
			const uint8_t *part, tt_emit_cb cb, void *arg)
{
	uint32_t w[2] = { word_at(part, q->hdr.big_endian), word_at(part + 4, q->hdr.big_endian) };
	struct tt_qnx_ev e = { .w = w, .nw = 2, .bytes = part, .combine = true, .incomplete = true };

	fill_ev(&e, header);
	q->stats.incomplete++;
	emit_event(q, &e, ts, time, cb, arg);
}

/* CONTROL/BUFFER (data[1] the buffer's sequence number, data[2] its num_events: the events in
 * it, this one included, filled in when the kernel hands a buffer to tracelogger; 0 in a ring
 * that was never flushed). A sequence number that skips means whole kernel buffers were lost:
 * each is counted as the most events seen in one buffer so far (the kernel hands a buffer on at
 * 714 events; a few more can land before the hand-on, a forced flush hands on fewer), or 714
 * when no buffer told its size yet. An estimate, labelled so. */
static void buffer_seq(struct tt_qnx *q, uint32_t seq, uint32_t num, tt_emit_cb cb, void *arg)
{
	if (q->have_seq) {
		uint32_t skipped = seq - q->last_seq - 1;
		if (!skipped) {
			if (q->since_buffer > q->buf_events)
				q->buf_events = q->since_buffer;
		} else if (skipped < 0x80000000u) {
			struct tt_record rec = { .kind = TT_REC_GAP };
			uint64_t per = q->buf_events > num ? q->buf_events : num;
			comb_flush_all(q, cb, arg);
			rec.u.gap.lost = (uint64_t)skipped * (per ? per : TT_QNX_HAND_ON);
			rec.u.gap.exact = false;
			rec.u.gap.basis = per ? "events per kernel buffer (CONTROL/BUFFER num_events)"
					      : "the kernel's hand-on at 714 events per buffer";
			rec.u.gap.reason = "kernel buffers lost";
			q->stats.gaps++;
			q->stats.lost += rec.u.gap.lost;
			cb(arg, &rec);
		} else {
			struct tt_record rec = { .kind = TT_REC_RESET };
			comb_flush_all(q, cb, arg);
			rec.u.reset.reason = "buffer sequence went backwards: tracing restarted";
			q->stats.resets++;
			q->run_known = 0;
			cb(arg, &rec);
		}
	}
	if (num > q->buf_events)
		q->buf_events = num;
	q->have_seq = true;
	q->last_seq = seq;
	q->since_buffer = 0;
}

void tt_qnx_feed(struct tt_qnx *q, const uint8_t *p, size_t n, tt_emit_cb cb, void *arg)
{
	const bool be = q->hdr.big_endian;

	for (size_t i = 0; i < n; i++, p += TT_QNX_EVENT_SIZE) {
		uint32_t header = word_at(p, be), ts = word_at(p + 4, be);
		uint32_t stype = header >> 30;
		uint32_t cls = (header >> 10) & 0x1f, event = header & 0x3ff;

		q->stats.records++;
		if (stype == 0 && cls == TT_QNX_C_CONTROL) {
			if (event == 1) { /* TIME: msb, lsb */
				q->t_ref = (uint64_t)word_at(p + 8, be) << 32 | word_at(p + 12, be);
				q->have_time = true;
			} else if (event == 2 && !q->seq_external) {
				buffer_seq(q, word_at(p + 8, be), word_at(p + 12, be), cb, arg);
			}
		}
		q->since_buffer++;
		uint64_t time = unwrap(q, ts);
		if (stype == 0) {
			uint32_t w[2] = { word_at(p + 8, be), word_at(p + 12, be) };
			struct tt_qnx_ev e = { .w = w, .nw = 2, .bytes = p + 8 };
			fill_ev(&e, header);
			emit_event(q, &e, ts, time, cb, arg);
			continue;
		}
		if (stype == 1) {
			comb_begin(q, header, ts, time, p + 8, cb, arg);
			continue;
		}
		/* The kernel stamps every part with the begin part's time, and QNX's traceparser
		 * joins parts by it: a part of another time belongs to another event. */
		struct tt_qnx_combine *c = comb_find(q, (header >> 24) & 0x3f, header & 0x7fff);
		if (!c || c->ts != ts) {
			orphan_part(q, header, ts, time, p + 8, cb, arg);
			continue;
		}
		comb_append(c, p + 8);
		if (stype == 3)
			comb_emit(q, c, false, cb, arg);
	}
}

void tt_qnx_finish(struct tt_qnx *q, tt_emit_cb cb, void *arg)
{
	comb_flush_all(q, cb, arg);
}

int tt_qnx_decode_file(const uint8_t *img, size_t len, uint64_t tick_hz, tt_emit_cb cb,
		       void *arg, struct tt_qnx_stats *stats, char *err, size_t errlen)
{
	struct tt_qnx_header h;
	int rc = tt_qnx_parse_header(img, len, &h, err, errlen);

	if (rc < 0)
		return rc;
	struct tt_qnx *q = malloc(sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "out of memory for the QNX decoder state");
		return -ENOMEM;
	}
	tt_qnx_init(q, &h, tick_hz);
	size_t n = (len - h.events_off) / TT_QNX_EVENT_SIZE;
	size_t rest = (len - h.events_off) % TT_QNX_EVENT_SIZE;
	tt_qnx_feed(q, img + h.events_off, n, cb, arg);
	tt_qnx_finish(q, cb, arg);
	if (stats)
		*stats = q->stats;
	free(q);
	if (rest) {
		snprintf(err, errlen, "trailing partial event: %zu bytes at byte offset %zu after %zu "
			 "whole events (the file was cut while being written?)", rest,
			 h.events_off + n * TT_QNX_EVENT_SIZE, n);
		return -ENODATA; /* cut short: the whole events before it are sound */
	}
	return 0;
}
