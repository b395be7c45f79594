/* proto/threadx_decode.c: one ThreadX trace slot -> one tt_event, the registry, and time.
 *
 * Owns everything about the meaning of bytes once the state machine (threadx.c) has decided a
 * slot is safe to publish: execution context, SMP core, event names and arguments, registry
 * parsing and lookups (names are untrusted target bytes: bounded and sanitised), and unwrapping
 * masked time stamps into a monotonic 64-bit tick count (narrow masks, a configurable modulus for
 * the Linux port's 10^9 wrap, up/down detection, constant-step counter detection used to count
 * lost events exactly). Nothing here allocates.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "threadx_int.h"

uint32_t tt_tx_ld32(const struct tt_threadx *rd, const uint8_t *p)
{
	if (rd->lay.big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

void tt_tx_slot_words(const struct tt_threadx *rd, uint32_t slot, uint32_t w[8])
{
	const uint8_t *p = rd->entbuf + (size_t)slot * TT_THREADX_ENTRY_SIZE;
	for (int i = 0; i < 8; i++)
		w[i] = tt_tx_ld32(rd, p + 4 * i);
}

/* ---- names ------------------------------------------------------------------------------ */

static const char *const tt_tx_states[] = {
	"ready", "completed", "terminated", "suspended", "sleep", "queue", "semaphore",
	"event_flag", "block_memory", "byte_memory", "io_driver", "file", "tcp_ip", "mutex",
	"priority_change",
};

const char *tt_threadx_state_name(uint32_t state)
{
	if (state < sizeof(tt_tx_states) / sizeof(tt_tx_states[0]))
		return tt_tx_states[state];
	return NULL;
}

/* ThreadX's types, then FileX (9, 10), NetX (11..14) and USBX (21..28) as their headers define
 * them (fx_api.h, nx_api.h, ux_api.h: FX_/NX_/UX_TRACE_*OBJECT_TYPE_*). */
static const char *const tt_tx_types[] = {
	NULL, "thread", "timer", "queue", "semaphore", "mutex", "event_flags", "block_pool",
	"byte_pool", "media", "file", "ip", "packet_pool", "tcp_socket", "udp_socket", NULL, NULL,
	NULL, NULL, NULL, NULL, "usb_host_device", "usb_host_interface", "usb_host_endpoint",
	"usb_host_class_instance", "usb_device_device", "usb_device_interface",
	"usb_device_endpoint", "usb_device_class_instance",
};

const char *tt_threadx_object_type_name(uint32_t type)
{
	if (type < sizeof(tt_tx_types) / sizeof(tt_tx_types[0]))
		return tt_tx_types[type];
	return NULL;
}

/* ---- registry ----------------------------------------------------------------------------- */

/* Entries of one pointer: the newest registration first (the parse that saw it written last),
 * then the live one, then registry order. */
static int tt_tx_obj_cmp(const void *a, const void *b, void *arg)
{
	const struct tt_threadx *rd = arg;
	const uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct tt_txobj *x = &rd->objs[i], *y = &rd->objs[j];
	if (x->ptr != y->ptr)
		return x->ptr < y->ptr ? -1 : 1;
	if (rd->regstamp[i] != rd->regstamp[j])
		return rd->regstamp[i] > rd->regstamp[j] ? -1 : 1;
	if (x->available != y->available)
		return (int)x->available - (int)y->available;
	return i < j ? -1 : 1;
}

/* One entry per pointer in objidx. ThreadX may leave several entries for one object: a
 * re-creation registers in the first never-used entry or the one holding the pointer, whichever
 * its search (from the last registration or unregistration) meets first, and an unregistration
 * flags only the lowest entry holding it, so older incarnations' entries can stay "live" for
 * good (upstream 6.4.2, an object created between a thread's delete and its re-creation). Which
 * of them the newest registration wrote is told by which was written last between two reads; when
 * that does not tell (the first read, two changed at once) and their names differ, the object
 * is left unnamed rather than given another incarnation's name. */
static void tt_tx_registry_dedup(struct tt_threadx *rd)
{
	uint32_t out = 0;
	for (uint32_t k = 0; k < rd->nidx;) {
		const uint32_t f = rd->objidx[k];
		bool ambiguous = false;
		uint32_t e = k + 1;
		for (; e < rd->nidx && rd->objs[rd->objidx[e]].ptr == rd->objs[f].ptr; e++) {
			const uint32_t o = rd->objidx[e];
			if (rd->regstamp[o] == rd->regstamp[f] && strcmp(rd->objs[o].name, rd->objs[f].name))
				ambiguous = true;
		}
		if (!ambiguous)
			rd->objidx[out++] = f;
		k = e;
	}
	rd->nidx = out;
}

void tt_tx_registry_parse(struct tt_threadx *rd)
{
	const uint32_t ns = rd->lay.name_size, esz = 16 + ns;
	rd->nidx = 0;
	rd->nparse++;
	for (uint32_t i = 0; i < rd->lay.nreg; i++) {
		const uint8_t *e = rd->regbuf + (size_t)i * esz;
		struct tt_txobj *o = &rd->objs[i];
		char *name = rd->names + (size_t)i * (ns + 1);
		/* written by a registration since the last parse: anything but the available flag
		 * changed, or it went live (an unregistration only sets the flag) */
		const uint8_t *was = rd->regraw + (size_t)i * esz;
		if (memcmp(e + 1, was + 1, esz - 1) != 0 || (was[0] != 0 && e[0] == 0))
			rd->regstamp[i] = rd->nparse;
		o->available = e[0];
		o->type = e[1];
		o->reserved[0] = e[2];
		o->reserved[1] = e[3];
		o->prio = (o->type == 1 && (e[2] & 0x80)) ? (int32_t)((e[2] & 0x7Fu) << 8 | e[3]) : -1;
		o->ptr = tt_tx_ld32(rd, e + 4);
		o->p1 = tt_tx_ld32(rd, e + 8);
		o->p2 = tt_tx_ld32(rd, e + 12);
		/* at most name_size - 1 characters, stop at NUL; printable ASCII only */
		uint32_t n = 0;
		for (; n + 1 < ns && e[16 + n] != 0; n++) {
			uint8_t c = e[16 + n];
			name[n] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
		}
		name[n] = 0;
		o->name = name;
		if (o->type != 0 && o->ptr != 0)
			rd->objidx[rd->nidx++] = i;
	}
	memcpy(rd->regraw, rd->regbuf, (size_t)rd->lay.nreg * esz);
	qsort_r(rd->objidx, rd->nidx, sizeof(rd->objidx[0]), tt_tx_obj_cmp, rd);
	tt_tx_registry_dedup(rd);
	rd->nmissing = 0;
	rd->missing_next = 0;
}

const struct tt_txobj *tt_tx_lookup_in(const struct tt_txobj *objs, const uint32_t *idx,
				       uint32_t n, uint32_t ptr)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct tt_txobj *o = &objs[idx[mid]];
		if (o->ptr < ptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && objs[idx[lo]].ptr == ptr)
		return &objs[idx[lo]];
	return NULL;
}

const struct tt_txobj *tt_tx_lookup(const struct tt_threadx *rd, uint32_t ptr)
{
	return tt_tx_lookup_in(rd->objs, rd->objidx, rd->nidx, ptr);
}

void tt_tx_obj_public(const struct tt_txobj *o, struct tt_threadx_object *obj)
{
	obj->ptr = o->ptr;
	obj->type = o->type;
	obj->deleted = o->available != 0;
	obj->prio = o->prio;
	obj->param1 = o->p1;
	obj->param2 = o->p2;
	obj->reserved[0] = o->reserved[0];
	obj->reserved[1] = o->reserved[1];
	obj->name = o->name;
}

int tt_threadx_header_info(const struct tt_threadx *rd, struct tt_threadx_header_info *out)
{
	if (!rd->attached)
		return -ENOENT;
	*out = (struct tt_threadx_header_info){ .timer_mask = rd->lay.mask,
						 .name_size = rd->lay.name_size,
						 .registry_entries = rd->lay.nreg,
						 .entries = rd->lay.nent };
	return 0;
}

int tt_threadx_registry_at(const struct tt_threadx *rd, uint32_t i, struct tt_threadx_object *obj)
{
	if (!rd->attached || i >= rd->lay.nreg)
		return -ENOENT;
	tt_tx_obj_public(&rd->objs[i], obj);
	return 0;
}

static bool tt_tx_is_missing(const struct tt_threadx *rd, uint32_t ptr)
{
	for (unsigned i = 0; i < rd->nmissing; i++)
		if (rd->missing[i] == ptr)
			return true;
	return false;
}

/* Calls fn for every object pointer slot words w reference (thread, interrupted thread, object
 * arguments); create marks the object a create event registered. Stops when fn returns true. */
static bool tt_tx_each_ptr(const struct tt_threadx *rd, const uint32_t w[8],
			   bool (*fn)(const struct tt_threadx *, uint32_t ptr, bool create, void *),
			   void *arg)
{
	if (w[0] == TT_TX_ISR_THREAD) {
		if (w[1] != 0 && fn(rd, w[1], false, arg))
			return true;
	} else if (w[0] != TT_TX_INIT_THREAD && w[0] != 0) {
		if (fn(rd, w[0], false, arg))
			return true;
	}
	const struct tt_txev *d = tt_txev_find(w[2] & 0xFFFFFFu);
	if (d == NULL)
		return false;
	for (int i = 0; i < 4; i++)
		if (d->args[i].kind == TT_TXK_OBJ && w[4 + i] != 0 &&
		    fn(rd, w[4 + i], i == 0 && (d->flags & TT_TXF_CREATE), arg))
			return true;
	return false;
}

static bool tt_tx_unnamed(const struct tt_threadx *rd, uint32_t ptr, bool create, void *arg)
{
	(void)arg;
	/* a create event's object was (re)registered just before, maybe under a new name at an
	 * old address: always worth a look (creates are rare) */
	if (create)
		return true;
	return tt_tx_lookup(rd, ptr) == NULL && !tt_tx_is_missing(rd, ptr);
}

bool tt_tx_needs_registry(const struct tt_threadx *rd, const uint32_t w[8])
{
	return tt_tx_each_ptr(rd, w, tt_tx_unnamed, NULL);
}

static bool tt_tx_add_missing(const struct tt_threadx *crd, uint32_t ptr, bool create, void *arg)
{
	struct tt_threadx *rd = arg;
	(void)crd;
	(void)create;
	if (tt_tx_lookup(rd, ptr) != NULL || tt_tx_is_missing(rd, ptr))
		return false;
	rd->missing[rd->missing_next] = ptr;
	rd->missing_next = (rd->missing_next + 1) % TT_TX_MISSING_MAX;
	if (rd->nmissing < TT_TX_MISSING_MAX)
		rd->nmissing++;
	return false;
}

void tt_tx_note_missing(struct tt_threadx *rd, uint32_t first, uint32_t count)
{
	uint32_t w[8];
	for (uint32_t i = 0; i < count; i++) {
		tt_tx_slot_words(rd, (first + i) % rd->lay.nent, w);
		if (w[0] != 0)
			tt_tx_each_ptr(rd, w, tt_tx_add_missing, rd);
	}
}

/* ---- time --------------------------------------------------------------------------------- */

void tt_tx_time_reset(struct tt_threadx *rd)
{
	struct tt_txtime *t = &rd->tm;
	double peak = t->peak;
	struct tt_loss_clock clock = t->clock;
	memset(t, 0, sizeof(*t));
	t->peak = peak;
	t->clock = clock;
	t->clock.h0 = 0; /* time restarts: nothing measured across the reset */
	t->mod = rd->cfg.time_wrap ? rd->cfg.time_wrap : (uint64_t)rd->lay.mask + 1;
	if (t->mod < 2)
		t->mod = (uint64_t)1 << 32; /* a zero mask: every stamp is 0 anyway */
	t->dir = rd->cfg.time_dir > 0 ? 1 : rd->cfg.time_dir < 0 ? -1 : 0;
	t->step_ok = true;
	tt_tx_run_reset(rd);
}

static uint64_t tt_tx_raw(const struct tt_threadx *rd, uint32_t ts)
{
	return (uint64_t)(ts & rd->lay.mask) % rd->tm.mod;
}

static uint64_t tt_tx_delta(const struct tt_txtime *t, uint64_t a, uint64_t b, int dir)
{
	return dir >= 0 ? (b + t->mod - a) % t->mod : (a + t->mod - b) % t->mod;
}

static void tt_tx_vote(struct tt_txtime *t, uint64_t a, uint64_t b)
{
	uint64_t up = tt_tx_delta(t, a, b, 1), down = tt_tx_delta(t, a, b, -1);
	if (up != down)
		t->votes += up < down ? 1 : -1;
}

/* Direction is decided once enough consecutive pairs agree; until then each delta takes the
 * shorter way round, which keeps the unwrapped time monotonic either way. */
#define TT_TX_VOTES 3

void tt_tx_time_prescan(struct tt_threadx *rd, uint32_t first, uint32_t count)
{
	struct tt_txtime *t = &rd->tm;
	uint32_t w[8];
	bool have = t->have && !t->gap; /* no vote across a gap: the time between is unknown */
	uint64_t prev = t->last;
	if (t->dir != 0)
		return;
	for (uint32_t i = 0; i < count; i++) {
		tt_tx_slot_words(rd, (first + i) % rd->lay.nent, w);
		if (w[0] == 0)
			continue;
		uint64_t v = tt_tx_raw(rd, w[3]);
		if (have)
			tt_tx_vote(t, prev, v);
		prev = v;
		have = true;
	}
	if (t->votes >= TT_TX_VOTES || t->votes <= -TT_TX_VOTES)
		t->dir = t->votes > 0 ? 1 : -1;
}

int64_t tt_tx_counter_lost(const struct tt_threadx *rd, const uint32_t anchor[8],
			   const uint32_t w[8])
{
	const struct tt_txtime *t = &rd->tm;
	if (anchor[0] == 0 || !t->step_ok || t->step_n < 2 || t->step == 0 || t->dir == 0)
		return -1;
	uint64_t d = tt_tx_delta(t, tt_tx_raw(rd, anchor[3]), tt_tx_raw(rd, w[3]), t->dir);
	if (d == 0 || d % t->step != 0)
		return -1;
	return (int64_t)(d / t->step) - 1;
}

bool tt_tx_counter_consistent(const struct tt_threadx *rd, uint32_t first, uint32_t count)
{
	const struct tt_txtime *t = &rd->tm;
	uint32_t w[8];
	uint64_t prev = 0;
	bool have = false;
	if (!t->step_ok || t->step_n < 2 || t->step == 0 || t->dir == 0)
		return true;
	for (uint32_t i = 0; i < count; i++) {
		tt_tx_slot_words(rd, (first + i) % rd->lay.nent, w);
		if (w[0] == 0)
			continue;
		uint64_t v = tt_tx_raw(rd, w[3]);
		if (have && tt_tx_delta(t, prev, v, t->dir) != t->step)
			return false;
		prev = v;
		have = true;
	}
	return true;
}

void tt_tx_time_gap(struct tt_threadx *rd, uint64_t lost, bool exact)
{
	struct tt_txtime *t = &rd->tm;
	tt_tx_run_reset(rd);
	t->gap = true;
	/* with a constant-step counter and an exact count, the ticks across the gap are known even
	 * when they exceed the modulus */
	t->gap_ticks = (exact && t->step_ok && t->step_n >= 2) ? (lost + 1) * t->step : 0;
}

/* ticks * 1e9 / hz without overflow: 128-bit intermediate (saturates past 584 years) */
static uint64_t tt_tx_ns(uint64_t ticks, uint64_t hz)
{
	__extension__ typedef unsigned __int128 u128;
	u128 ns = (u128)ticks * 1000000000u / hz;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* A time source counts per event, not per unit of time (ThreadX's simulated time): the host's
 * clock says nothing about it. */
static bool tt_tx_is_counter(const struct tt_txtime *t)
{
	return t->step_ok && t->step_n >= 2 && t->step != 0;
}

/* Host time from ns to now, in nominal ticks; 0 when unknown. */
static uint64_t tt_tx_host_ticks(const struct tt_threadx *rd, uint64_t now, uint64_t ns)
{
	if (rd->cfg.host_clock_unrelated)
		return 0;
	return tt_loss_host_ticks(now, ns, rd->cfg.tick_hz);
}

/* Ticks between an event published by the poll at host time host_from and the first event of the
 * batch read at host time tt_tx_host_at publishes, d apart modulo the time source's modulus, when the batch then
 * spans rest more ticks: d plus the whole wraps the host clock says the modulus hid (a narrow
 * time source wraps within a long gap or a quiet spell). The host time is counted in the
 * target's ticks at its clock rate measured against the host (tt_loss_clock; nominal until
 * measured), as the loss estimate counts it: a target clock at half the nominal rate wraps half
 * as often, and nominal ticks would add a wrap it never made (event times a wrap late). The
 * batch's newest event was written shortly before this poll read it (else an earlier poll would
 * have), so the host time between the polls is compared with d + rest, and the nearest number
 * of wraps taken: a writer that kept writing while the polls were far apart (a slow full read,
 * a stalled daemon) shows that time inside the batch and adds none. d as it is when the host
 * time or the tick rate is unknown, or for a counter. *host_ok: the host's clock was evidence and
 * allows d (the time between the polls at the measured rate is at least d less half a wrap). */
static uint64_t tt_tx_host_span(const struct tt_threadx *rd, uint64_t d, uint64_t rest,
				uint64_t host_from, bool *host_ok)
{
	const struct tt_txtime *t = &rd->tm;
	const uint64_t ticks = tt_tx_is_counter(t) ? 0 :
			       tt_tx_host_ticks(rd, tt_tx_host_at(rd), host_from);
	const double c = tt_loss_clock_ratio(&t->clock, rd->cfg.tick_hz);
	const double h = (double)ticks * (c > 0 ? c : 1.0), m = (double)t->mod;
	*host_ok = ticks && h + m / 2 >= (double)d;
	if (!ticks || h <= (double)d + (double)rest + m / 2)
		return d;
	double w = floor((h - (double)d - (double)rest) / m + 0.5), span = (double)d + w * m;
	return span > (double)(UINT64_MAX / 2) ? d : (uint64_t)span;
}

/* The forward delta from a to b: in the decided direction, else the shorter way round (as
 * tt_tx_time_event takes it). */
static uint64_t tt_tx_fwd(const struct tt_txtime *t, uint64_t a, uint64_t b)
{
	uint64_t up = tt_tx_delta(t, a, b, 1), down = tt_tx_delta(t, a, b, -1);
	if (t->dir != 0)
		return t->dir > 0 ? up : down;
	return up <= down ? up : down;
}

/* Ticks from the first to the last used slot of [first, first+count), summing the deltas between
 * neighbours (each under one wrap: they were written within one poll); *n deltas, *v0 the first
 * stamp. */
static uint64_t tt_tx_slots_span(const struct tt_threadx *rd, uint32_t first, uint32_t count,
				 uint64_t *n, uint64_t *v0)
{
	uint64_t ticks = 0, prev = 0;
	bool have = false;
	uint32_t w[8];
	*n = 0;
	for (uint32_t i = 0; i < count; i++) {
		tt_tx_slot_words(rd, (first + i) % rd->lay.nent, w);
		if (w[0] == 0)
			continue;
		uint64_t v = tt_tx_raw(rd, w[3]);
		if (have) {
			ticks += tt_tx_fwd(&rd->tm, prev, v);
			(*n)++;
		} else {
			*v0 = v;
		}
		prev = v;
		have = true;
	}
	return ticks;
}

/* Fewer consecutive deltas than this give no rate to estimate from. */
#define TT_TX_RATE_MIN 8u

void tt_tx_time_batch(struct tt_threadx *rd, uint32_t first, uint32_t count)
{
	uint64_t n, v0;
	rd->tm.batch_rest = tt_tx_slots_span(rd, first, count, &n, &v0);
	if (n >= TT_TX_RATE_MIN && rd->tm.batch_rest && !tt_tx_is_counter(&rd->tm) &&
	    (double)n / (double)rd->tm.batch_rest > rd->tm.peak)
		rd->tm.peak = (double)n / (double)rd->tm.batch_rest;
}

void tt_tx_clock_note(struct tt_threadx *rd, bool gap, uint32_t events)
{
	/* an idle poll: the newest event did not move with the host's clock */
	if (rd->tm.have && events)
		tt_loss_clock_note(&rd->tm.clock, tt_tx_host_at(rd), rd->tm.now, gap);
}

/* The rate is measured over about the last TT_TX_RATE_WINDOW events or 16 laps of the ring,
 * whichever is more (older ones count half): a gap is a lap or more, and a writer that paces
 * itself in bursts (or catches up after a stall) shows its rate only over many of them. */
#define TT_TX_RATE_WINDOW 2048u

static void tt_tx_rate_add(struct tt_txtime *t, uint64_t d, uint32_t nent)
{
	uint64_t window = (uint64_t)nent * 16 > TT_TX_RATE_WINDOW ? (uint64_t)nent * 16
								 : TT_TX_RATE_WINDOW;
	if (t->rate_n >= window) {
		t->rate_n /= 2;
		t->rate_ticks /= 2;
	}
	t->rate_n++;
	t->rate_ticks += d;
}

bool tt_tx_lap_estimate(const struct tt_threadx *rd, const uint32_t anchor[8], uint32_t first,
			uint32_t count, uint64_t lb, struct tt_loss_out *out)
{
	const struct tt_txtime *t = &rd->tm;
	uint64_t k = 0, v0 = 0;
	if ((anchor != NULL && anchor[0] == 0) || tt_tx_is_counter(t))
		return false;
	/* the events published after the gap measure the rate too (the pairs within them) */
	uint64_t after = tt_tx_slots_span(rd, first, count, &k, &v0);
	uint64_t n = t->rate_n + k, ticks = t->rate_ticks + after;
	if (k == 0 || n < TT_TX_RATE_MIN || ticks == 0)
		return false;
	struct tt_loss_in in = {
		.lb = lb, .lap = rd->lay.nent, .mod = t->mod, .rest = after,
		.clock = tt_loss_clock_ratio(&t->clock, rd->cfg.tick_hz), .rate = (double)n / (double)ticks, .peak = t->peak,
	};
	/* the batch after the gap raises the upper bound only: a writer that catches up after a
	 * stall (a process descheduled on a loaded host) writes its catch-up densely right after
	 * the gap, which a burst's second reading (loss_int.h) would take for the gap's pace */
	if (k >= TT_TX_RATE_MIN && (double)k / (double)after > in.peak)
		in.peak = (double)k / (double)after;
	if (anchor != NULL) {
		/* events strictly between the anchor and the first one after the gap: the
		 * ticks between the two less one event's */
		in.have_d = true;
		in.d = tt_tx_fwd(t, tt_tx_raw(rd, anchor[3]), v0);
		in.d = in.d > (uint64_t)((double)ticks / (double)n) ?
			       in.d - (uint64_t)((double)ticks / (double)n) : 0;
		/* the current read's time lies between its plan and this ingest: the earlier
		 * for the wraps the host's clock says (none too many), the later for the window
		 * the lost events were written in (none left out) */
		in.host = tt_tx_host_ticks(rd, tt_tx_host_at(rd), t->host_last);
		in.window = tt_tx_host_ticks(rd, rd->host_now, rd->host_proven);
	} else {
		in.window = tt_tx_host_ticks(rd, rd->host_now, rd->cfg.since_enable_ns);
	}
	tt_loss_estimate(&in, out);
	return out->from_time;
}

/* Lost-event count for a gap that ends at slot first (count slots published after it), when the
 * ring arithmetic says lb + j*N for an unknown number of whole laps j: exact when the time stamps
 * are a constant-step counter that agrees with it; else j estimated from the time across the gap
 * and the measured event rate (labelled with its basis); else lb, a lower bound. */
void tt_tx_pend_bound(struct tt_threadx *rd, uint64_t lb, const char *reason)
{
	rd->pend.gap = true;
	rd->pend.exact = false;
	rd->pend.basis = NULL;
	rd->pend.lost = lb;
	rd->pend.lower = lb;
	rd->pend.upper = TT_GAP_NO_UPPER;
	rd->pend.reason = reason;
}

void tt_tx_gap_count(struct tt_threadx *rd, uint64_t lb, uint32_t first, uint32_t count,
		     const char *reason)
{
	uint32_t wf[8];
	struct tt_loss_out est;
	tt_tx_slot_words(rd, first, wf);
	int64_t n = tt_tx_counter_lost(rd, rd->anchor, wf);
	rd->pend.exact = n >= 0 && (uint64_t)n >= lb && ((uint64_t)n - lb) % rd->lay.nent == 0;
	rd->pend.lost = rd->pend.exact ? (uint64_t)n : lb;
	rd->pend.lower = lb;
	rd->pend.upper = TT_GAP_NO_UPPER;
	if (!rd->pend.exact && tt_tx_lap_estimate(rd, rd->anchor, first, count, lb, &est)) {
		rd->pend.lost = est.est;
		rd->pend.lower = est.lower;
		rd->pend.upper = est.upper;
		rd->pend.basis = tt_loss_basis(&est, "time stamps and event rate");
	}
	rd->pend.gap = !(rd->pend.exact && rd->pend.lost == 0);
	rd->pend.reason = reason;
}

/* First full read of a buffer whose enabling we watched (since_enable): every event since
 * tx_trace_enable was promised. Enabling clears the thread pointers and starts at slot 0, so the
 * event in slot first is event first + j N since then, j the whole laps before it. A read that
 * stopped at a never-used slot proves j = 0 and first = 0: nothing lost. Otherwise j is
 * estimated like a lap's (tt_tx_lap_estimate, with no event before the gap: enabling happened
 * after the last read that saw tracing off); first (plus what failed attempts saw) is the lower
 * bound, and all there is when nothing measures the rate. */
void tt_tx_enable_gap(struct tt_threadx *rd, uint32_t first, uint32_t count, bool stop_empty)
{
	struct tt_loss_out est;
	uint64_t lb = stop_empty ? 0 : first;
	if (rd->pend.gap && rd->pend.lost > lb)
		lb = rd->pend.lost; /* events completed during failed attempts */
	if (stop_empty && !rd->pend.gap)
		return; /* proven: every event since enabling is published */
	tt_tx_pend_bound(rd, lb, "overwritten before the first read");
	if (!stop_empty && tt_tx_lap_estimate(rd, NULL, first, count, lb, &est)) {
		rd->pend.lost = est.est;
		rd->pend.lower = est.lower;
		rd->pend.upper = est.upper;
		rd->pend.basis = tt_loss_basis(&est, "host clock since tracing was off, and event rate");
	}
}

static void tt_tx_time_event(struct tt_threadx *rd, uint32_t ts, struct tt_event *ev)
{
	struct tt_txtime *t = &rd->tm;
	uint64_t v = tt_tx_raw(rd, ts);
	if (!t->have) {
		t->now = t->dir < 0 ? t->mod - 1 - v : v;
		t->first = t->now;
		t->have = true;
	} else {
		int dir = t->dir;
		if (dir == 0) {
			if (!t->gap)
				tt_tx_vote(t, t->last, v);
			dir = tt_tx_delta(t, t->last, v, 1) <= tt_tx_delta(t, t->last, v, -1) ? 1 : -1;
		}
		uint64_t d = tt_tx_delta(t, t->last, v, dir);
		bool host_ok;
		uint64_t span = tt_tx_host_span(rd, d, t->batch_rest, t->host_last, &host_ok);
		if (t->gap) {
			/* across a gap: the exact ticks when a constant-step counter and an exact
			 * count give them; the wraps the host's clock says the gap hid, or none
			 * when it allows the modular delta as it is (a gap of 0.5 to 1 wrap: the
			 * ThreadX Linux port's nanoseconds wrap every second); else the time
			 * between is unknown and the unwrap is re-seeded from this entry: it
			 * keeps the modular delta only while that is a plausible forward step
			 * (under half the modulus), never a near-2^32 jump */
			if (t->gap_ticks != 0 && t->gap_ticks % t->mod == d)
				d = t->gap_ticks;
			else if (span != d || host_ok)
				d = span;
			else if (d > t->mod / 2)
				d = 0;
		} else {
			if (t->step_n == 0 && t->step == 0)
				t->step = d;
			if (d == t->step && span == d)
				t->step_n++;
			else
				t->step_ok = false;
			d = span;
			tt_tx_rate_add(t, d, rd->lay.nent);
		}
		t->now += d;
	}
	t->gap = false;
	t->gap_ticks = 0;
	t->host_last = rd->host_now; /* late: the time since it counts no wrap too many */
	t->last = (uint32_t)v;
	ev->ts_raw = ts & rd->lay.mask;
	ev->time = t->now;
	ev->has_ns = rd->cfg.tick_hz != 0;
	ev->ns = ev->has_ns ? tt_tx_ns(t->now - t->first, rd->cfg.tick_hz) : 0;
}

/* ---- events ------------------------------------------------------------------------------- */

const char *tt_tx_obj_name(const struct tt_threadx *rd, uint32_t ptr)
{
	const struct tt_txobj *o = ptr ? tt_tx_name_lookup(rd, ptr) : NULL;
	return o ? o->name : NULL;
}

static void tt_tx_arg(const struct tt_threadx *rd, struct tt_arg *a, const char *name,
		      uint8_t kind, uint32_t v)
{
	static const char *const getopt[] = { "or", "or_clear", "and", "and_clear" };
	a->name = name;
	a->value = v;
	a->text = NULL;
	a->kind = TT_ARG_UINT;
	switch ((enum tt_txk)kind) {
	case TT_TXK_UINT:
		break;
	case TT_TXK_HEX:
		a->kind = TT_ARG_HEX;
		break;
	case TT_TXK_OBJ:
		a->kind = TT_ARG_OBJ;
		a->text = tt_tx_obj_name(rd, v);
		break;
	case TT_TXK_STATE:
		a->text = tt_threadx_state_name(v);
		break;
	case TT_TXK_WAIT:
		a->text = v == 0 ? "no_wait" : v == 0xFFFFFFFFu ? "wait_forever" : NULL;
		break;
	case TT_TXK_GETOPT:
		a->text = v < 4 ? getopt[v] : NULL;
		break;
	case TT_TXK_SETOPT:
		a->text = v == 0 ? "or" : v == 2 ? "and" : NULL;
		break;
	}
	if (kind != TT_TXK_OBJ && a->text != NULL)
		a->kind = TT_ARG_ENUM;
}

static const char *const tt_tx_info[] = { "info1", "info2", "info3", "info4" };

void tt_tx_decode(struct tt_threadx *rd, uint32_t slot, const uint32_t w[8], struct tt_event *ev)
{
	memcpy(rd->raw, w, sizeof(rd->raw));
	memset(ev, 0, sizeof(*ev));
	ev->raw = rd->raw;
	ev->nraw = 8;
	ev->addr = (uint64_t)rd->lay.ent_start + (uint64_t)slot * TT_THREADX_ENTRY_SIZE;
	/* SMP builds put the core in the top byte; non-SMP builds leave it 0, reported as core 0 */
	ev->core = (int16_t)(w[2] >> 24);
	ev->id = w[2] & 0xFFFFFFu;
	ev->prio = -1;
	ev->threshold = -1;
	if (w[0] == TT_TX_INIT_THREAD) {
		ev->ctx = TT_CTX_INIT;
	} else if (w[0] == TT_TX_ISR_THREAD) {
		ev->ctx = TT_CTX_ISR;
		ev->interrupted = w[1];
		ev->interrupted_name = tt_tx_obj_name(rd, w[1]);
	} else {
		ev->ctx = TT_CTX_THREAD;
		ev->thread = w[0];
		ev->thread_name = tt_tx_obj_name(rd, w[0]);
		ev->prio = (int32_t)(w[1] & 0x3FFu);
		/* ThreadX stores a threshold only with bit 31 set (priority | 0x80000000 |
		 * threshold << 16); older ports write the bare priority: no threshold then */
		if (w[1] & 0x80000000u)
			ev->threshold = (int32_t)((w[1] >> 16) & 0x3FFu);
	}
	tt_tx_time_event(rd, w[3], ev);
	tt_tx_run_event(rd, w, ev);

	const struct tt_txev *d = tt_txev_find(ev->id);
	if (d != NULL) {
		ev->name = d->name;
		for (int i = 0; i < 4; i++)
			if (d->args[i].name != NULL)
				tt_tx_arg(rd, &ev->args[ev->nargs++], d->args[i].name, d->args[i].kind,
					  w[4 + i]);
		return;
	}
	bool user = ev->id >= 4096 && ev->id <= 65535;
	ev->name = user ? "USER_EVENT" : "UNKNOWN";
	for (int i = 0; i < 4; i++)
		tt_tx_arg(rd, &ev->args[ev->nargs++], tt_tx_info[i], user ? TT_TXK_UINT : TT_TXK_HEX,
			  w[4 + i]);
}
