/* proto/stackscan.c: stack high-water marks from painted stacks (stackscan.h). */
#include "stackscan.h"

#include <errno.h>
#include <string.h>

void tt_stackscan_init(struct tt_stackscan *s, uint32_t fill)
{
	memset(s, 0, sizeof(*s));
	s->fill = fill;
}

void tt_stackscan_begin(struct tt_stackscan *s)
{
	for (unsigned i = 0; i < s->n; i++)
		s->t[i].present = false;
}

/* The words scanned: from the start rounded up to 4 to the end rounded down to 4. */
static uint64_t lo_word(const struct tt_stack_painted *p)
{
	return (p->start + 3) & ~(uint64_t)3;
}

static uint64_t hi_word(const struct tt_stack_painted *p)
{
	return (p->start + p->size) & ~(uint64_t)3;
}

static void start_over(struct tt_stackscan_thread *t)
{
	t->gen++;
	t->p.state = TT_PAINT_PENDING;
	t->p.free = t->p.used = 0;
	t->p.overflow = false;
	t->first_done = false;
	t->scanned = 0;
	t->mark = 0;
}

void tt_stackscan_thread(struct tt_stackscan *s, uint32_t id, uint64_t start, uint32_t size)
{
	struct tt_stackscan_thread *t = NULL;

	if (size < 8 || !start || start + size < start)
		return;
	for (unsigned i = 0; i < s->n && !t; i++)
		if (s->t[i].p.id == id)
			t = &s->t[i];
	if (!t) {
		if (s->n == TT_STACKSCAN_THREADS) {
			s->overflow++;
			return;
		}
		t = &s->t[s->n++];
		memset(t, 0, sizeof(*t));
		t->p.id = id;
	} else if (t->p.start == start && t->p.size == size) {
		t->present = true;
		return;
	}
	t->p.start = start;
	t->p.size = size;
	t->present = true;
	start_over(t);
}

void tt_stackscan_restart(struct tt_stackscan *s)
{
	for (unsigned i = 0; i < s->n; i++)
		start_over(&s->t[i]);
}

static uint32_t word_at(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Whether thread t has anything to read: no when it has no fill pattern, or its fill is gone
 * down to its start (nothing lower to find). */
static bool wants(const struct tt_stackscan_thread *t)
{
	return t->present && t->p.state != TT_PAINT_ABSENT && hi_word(&t->p) > lo_word(&t->p) &&
	       !(t->first_done && t->mark == lo_word(&t->p));
}

/* The next read of thread t (wants(t)), at most budget bytes: its address and length (0: it
 * does not fit). */
static uint32_t next_range(const struct tt_stackscan_thread *t, uint32_t budget, uint64_t *addr,
			   bool *window)
{
	uint64_t lo = lo_word(&t->p), hi = hi_word(&t->p);

	budget &= ~3u;
	if (!t->first_done) {
		uint64_t left = hi - (lo + t->scanned);
		*addr = lo + t->scanned;
		*window = false;
		return (uint32_t)(left < budget ? left : budget);
	}
	*addr = t->mark - lo > TT_STACKSCAN_WINDOW ? t->mark - TT_STACKSCAN_WINDOW : lo;
	*window = true;
	return t->mark - *addr <= budget ? (uint32_t)(t->mark - *addr) : 0;
}

uint32_t tt_stackscan_plan(struct tt_stackscan *s, uint32_t budget, struct tt_plan *p)
{
	uint32_t total = 0;
	unsigned i, k;

	p->n = 0;
	s->plan.n = 0;
	if (budget > TT_STACKSCAN_BUF)
		budget = TT_STACKSCAN_BUF;
	for (k = 0; k < s->n && p->n < TT_PLAN_MAX; k++) {
		i = (s->next + k) % s->n;
		struct tt_stackscan_thread *t = &s->t[i];
		uint64_t addr = 0;
		bool window = false;
		uint32_t len;

		if (!wants(t))
			continue;
		len = next_range(t, budget - total, &addr, &window);
		if (!len)
			break; /* its turn comes first when the budget allows */
		p->r[p->n] = (struct tt_range){ .addr = addr, .len = len, .dst = s->buf + total };
		s->who[p->n] = (uint16_t)i;
		s->gen[p->n] = t->gen;
		s->window[p->n++] = window;
		total += len;
	}
	s->next = s->n ? (s->next + k) % s->n : 0;
	s->plan = *p;
	return total;
}

/* The figure from the mark. */
static void set_mark(struct tt_stackscan_thread *t, uint64_t mark)
{
	t->mark = mark;
	t->first_done = true;
	t->p.state = TT_PAINT_OK;
	t->p.free = (uint32_t)(mark - t->p.start);
	t->p.used = t->p.size - t->p.free;
	t->p.overflow = mark == lo_word(&t->p);
}

static void ingest_one(struct tt_stackscan *s, struct tt_stackscan_thread *t,
		       const struct tt_range *r, bool window)
{
	uint64_t lo = lo_word(&t->p);

	for (uint32_t off = 0; off + 4 <= r->len; off += 4)
		if (word_at(r->dst + off) != s->fill) {
			if (!window && r->addr + off == lo)
				t->p.state = TT_PAINT_ABSENT;
			else
				set_mark(t, r->addr + off);
			if (!window)
				t->p.scans++;
			return;
		}
	if (window)
		return; /* all fill: the mark holds */
	t->scanned += r->len;
	if (t->p.state == TT_PAINT_UNREADABLE)
		t->p.state = TT_PAINT_PENDING;
	if (lo + t->scanned >= hi_word(&t->p)) {
		set_mark(t, hi_word(&t->p)); /* never used below its end */
		t->p.scans++;
	}
}

void tt_stackscan_ingest(struct tt_stackscan *s, int status)
{
	const struct tt_plan *p = &s->plan;

	for (unsigned j = 0; j < p->n; j++) {
		struct tt_stackscan_thread *t = &s->t[s->who[j]];

		if (t->gen != s->gen[j])
			continue; /* started over since the plan */
		if (status < 0) {
			if (!t->first_done)
				t->p.state = TT_PAINT_UNREADABLE;
			continue;
		}
		ingest_one(s, t, &p->r[j], s->window[j]);
	}
	s->plan.n = 0;
}

void tt_stackscan_image_thread(struct tt_stackscan *s, uint64_t base, size_t len, uint32_t id,
			       uint64_t start, uint32_t size)
{
	if (start >= base && start - base <= len && size <= len - (start - base))
		tt_stackscan_thread(s, id, start, size);
}

void tt_stackscan_image(struct tt_stackscan *s, const uint8_t *img, size_t len, uint64_t base)
{
	struct tt_plan p;

	while (tt_stackscan_scanning(s) && tt_stackscan_plan(s, TT_STACKSCAN_BUF, &p)) {
		int st = 0;
		for (unsigned i = 0; i < p.n; i++) {
			if (p.r[i].addr < base || p.r[i].addr - base > len ||
			    p.r[i].len > len - (p.r[i].addr - base)) {
				st = -EFAULT; /* not followed: tt_stackscan_image_thread keeps them out */
				break;
			}
			memcpy(p.r[i].dst, img + (p.r[i].addr - base), p.r[i].len);
		}
		tt_stackscan_ingest(s, st);
		if (st < 0)
			break;
	}
}

bool tt_stackscan_scanning(const struct tt_stackscan *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (wants(&s->t[i]) && !s->t[i].first_done &&
		    s->t[i].p.state != TT_PAINT_UNREADABLE) /* retried once a round */
			return true;
	return false;
}

unsigned tt_stackscan_readable(const struct tt_stackscan *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->n; i++)
		n += wants(&s->t[i]);
	return n;
}

int tt_stackscan_at(const struct tt_stackscan *s, unsigned i, struct tt_stack_painted *out)
{
	if (i >= s->n)
		return -ENOENT;
	*out = s->t[i].p;
	return 0;
}
