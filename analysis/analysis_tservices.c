/* analysis/analysis_tservices.c: popular services per thread: how often each thread made each
 * event (a service call, for formats whose events are calls: ThreadX), beside the system-wide
 * counts of analysis.c. A bounded table of (thread, event id) pairs made at creation
 * (tt_analysis_limits.max_thread_services); a pair that does not fit is counted in
 * overflow.thread_services, never dropped silently. Only events a thread made count:
 * interrupts' and initialisation's are in the system-wide counts alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "analysis_int.h"

int tt_an_tservices_new(struct tt_analysis *a)
{
	a->tservice_slots = tt_an_slots(a->lim.max_thread_services);
	a->tservices = calloc(a->tservice_slots, sizeof(*a->tservices));
	return a->tservices ? 0 : -ENOMEM;
}

void tt_an_tservices_count(struct tt_analysis *a, uint32_t thread, uint32_t id)
{
	struct an_tservice **recent = &a->recent_tservice[(thread ^ thread >> 8 ^ id * 7) &
							 (AN_RECENT - 1)];
	unsigned slots = a->tservice_slots, i;

	if (*recent && (*recent)->thread == thread && (*recent)->id == id) {
		(*recent)->count++;
		return;
	}
	i = tt_an_first(tt_an_hash(thread * 0x9e3779b1u ^ id), slots);
	for (unsigned n = 0; n < slots; n++, i = tt_an_next(i, slots)) {
		struct an_tservice *s = &a->tservices[i];
		if (s->used && s->thread == thread && s->id == id) {
			s->count++;
			*recent = s;
			return;
		}
		if (!s->used) {
			if (a->ntservices >= a->lim.max_thread_services)
				break;
			*s = (struct an_tservice){ .used = true, .thread = thread, .id = id,
						   .count = 1 };
			a->ntservices++;
			*recent = s;
			return;
		}
	}
	a->t.overflow_thread_services++;
}

/* By thread, then the most made first, then by id. */
static int cmp(const void *x, const void *y)
{
	const struct an_tservice *p = *(const struct an_tservice *const *)x;
	const struct an_tservice *q = *(const struct an_tservice *const *)y;

	if (p->thread != q->thread)
		return p->thread < q->thread ? -1 : 1;
	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	return p->id < q->id ? -1 : p->id > q->id;
}

/* The pairs in that order (caller frees), or NULL when there are none (or no memory). */
static const struct an_tservice **sorted(const struct tt_analysis *a)
{
	const struct an_tservice **v = a->ntservices ? malloc(a->ntservices * sizeof(*v)) : NULL;
	unsigned n = 0;

	if (!v)
		return NULL;
	for (unsigned i = 0; i < a->tservice_slots; i++)
		if (a->tservices[i].used)
			v[n++] = &a->tservices[i];
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

int tt_analysis_thread_service_at(const struct tt_analysis *a, unsigned i, uint32_t *thread,
				  uint32_t *id, uint64_t *count)
{
	const struct an_tservice **v = sorted(a);
	int rc = -ENOENT;

	if (v && i < a->ntservices) {
		*thread = v[i]->thread;
		*id = v[i]->id;
		*count = v[i]->count;
		rc = 0;
	}
	free(v);
	return rc;
}

void tt_an_tservices_json(const struct tt_analysis *a, struct tt_an_out *o)
{
	const struct an_tservice **v = sorted(a);

	tt_an_put(o, ",\"thread_services\":[");
	for (unsigned i = 0; v && i < a->ntservices; i++)
		tt_an_put(o, "%s{\"thread\":%" PRIu32 ",\"id\":%" PRIu32 ",\"count\":%" PRIu64 "}",
			  i ? "," : "", v[i]->thread, v[i]->id, v[i]->count);
	tt_an_put(o, "]");
	free(v);
}

/* TraceX's Popular Services, per thread: each thread's services by count. name_of(id) names
 * the service (the system-wide table's name). */
void tt_an_tservices_text(const struct tt_analysis *a, struct tt_an_out *o,
			  const char *(*name_of)(const struct tt_analysis *a, uint32_t id))
{
	const struct an_tservice **v = sorted(a);

	if (!v)
		return;
	tt_an_put(o, "************** Popular Services per Thread ******************\n"
		     "   Thread / Service ID          Count \n");
	for (unsigned i = 0; i < a->ntservices; i++) {
		const struct an_thread *t;
		if (!i || v[i]->thread != v[i - 1]->thread) {
			t = tt_an_thread_find(a, v[i]->thread);
			if (t && t->name[0])
				tt_an_put(o, "\n %s\n", t->name);
			else
				tt_an_put(o, "\n 0x%08" PRIx32 "\n", v[i]->thread);
		}
		tt_an_put(o, "   %-26s(%5" PRIu32 ")   %8" PRIu64 "\n", name_of(a, v[i]->id),
			  v[i]->id, v[i]->count);
	}
	tt_an_put(o, "\n\n");
	free(v);
}
