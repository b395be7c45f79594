/* tests/server/synth.c: the synthetic record source (see synth.h). */
#include "synth.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>
#include <time.h>

const uint32_t synth_threads[3] = { 0x20000500u, 0x20000600u, 0x20000700u };
const char *const synth_thread_names[3] = { "producer", "consumer", "idle" };

static const char *const state_names[] = { "ready", "completed", "terminated", "suspended",
					   "sleep", "queue" };

const struct tt_record *synth_event(struct synth *s, unsigned kind)
{
	struct tt_record *r = &s->rec;
	struct tt_event *ev = &r->u.ev;
	unsigned cur = (unsigned)(s->n % 3), nxt = (unsigned)((s->n + 1) % 3);

	s->n++;
	s->time += 10;
	memset(r, 0, sizeof(*r));
	r->kind = TT_REC_EVENT;
	ev->core = 0;
	ev->ctx = TT_CTX_THREAD;
	ev->thread = synth_threads[cur];
	ev->thread_name = synth_thread_names[cur];
	ev->prio = (int32_t)(4 + cur);
	ev->threshold = ev->prio;
	ev->ts_raw = (uint32_t)s->time;
	ev->time = s->time;
	ev->addr = 0x20001000u + 32u * (uint32_t)(s->n % 128);
	s->raw[0] = ev->thread;
	s->raw[1] = 0x80000000u | ((uint32_t)ev->threshold << 16) | (uint32_t)ev->prio;
	s->raw[3] = (uint32_t)s->time;
	switch (kind % 5) {
	case 0:
	case 1: /* THREAD_RESUME / THREAD_SUSPEND: a context switch to nxt */
		ev->id = kind % 5 == 0 ? 1 : 2;
		ev->name = ev->id == 1 ? "THREAD_RESUME" : "THREAD_SUSPEND";
		ev->nargs = 4;
		ev->args[0] = (struct tt_arg){ "thread", synth_thread_names[nxt],
					       synth_threads[nxt], TT_ARG_OBJ };
		ev->args[1] = (struct tt_arg){ "previous_state", state_names[kind % 6],
					       kind % 6, TT_ARG_ENUM };
		ev->args[2] = (struct tt_arg){ "stack_ptr", NULL, 0x20003f10u, TT_ARG_HEX };
		ev->args[3] = (struct tt_arg){ "next_thread", synth_thread_names[nxt],
					       synth_threads[nxt], TT_ARG_OBJ };
		s->raw[4] = synth_threads[nxt];
		s->raw[5] = kind % 6;
		s->raw[6] = 0x20003f10u;
		s->raw[7] = synth_threads[nxt];
		break;
	case 2: /* QUEUE_SEND */
		ev->id = 80;
		ev->name = "QUEUE_SEND";
		ev->nargs = 4;
		ev->args[0] = (struct tt_arg){ "queue", "work_q", SYNTH_QUEUE, TT_ARG_OBJ };
		ev->args[1] = (struct tt_arg){ "source", NULL, 0x20004000u, TT_ARG_HEX };
		ev->args[2] = (struct tt_arg){ "wait_option", NULL, 0, TT_ARG_UINT };
		ev->args[3] = (struct tt_arg){ "enqueued", NULL, (uint32_t)(s->n % 7), TT_ARG_UINT };
		s->raw[4] = SYNTH_QUEUE;
		s->raw[5] = 0x20004000u;
		s->raw[6] = 0;
		s->raw[7] = (uint32_t)(s->n % 7);
		break;
	case 3: /* USER_EVENT */
		ev->id = 4096 + (uint32_t)(s->n % 4);
		ev->name = "USER_EVENT";
		ev->nargs = 4;
		for (unsigned i = 0; i < 4; i++) {
			static const char *const in[] = { "info1", "info2", "info3", "info4" };
			ev->args[i] = (struct tt_arg){ in[i], NULL, (uint32_t)(s->n * (i + 1)),
						       TT_ARG_UINT };
			s->raw[4 + i] = (uint32_t)(s->n * (i + 1));
		}
		break;
	default: /* ISR_ENTER, interrupting cur */
		ev->id = 3;
		ev->name = "ISR_ENTER";
		ev->ctx = TT_CTX_ISR;
		ev->thread = 0xFFFFFFFFu;
		ev->thread_name = NULL;
		ev->interrupted = synth_threads[cur];
		ev->interrupted_name = synth_thread_names[cur];
		ev->prio = -1;
		ev->threshold = -1;
		ev->nargs = 2;
		ev->args[0] = (struct tt_arg){ "stack_ptr", NULL, 0x20003e00u, TT_ARG_HEX };
		ev->args[1] = (struct tt_arg){ "isr_number", NULL, 15, TT_ARG_UINT };
		s->raw[0] = 0xFFFFFFFFu;
		s->raw[1] = synth_threads[cur];
		s->raw[4] = 0x20003e00u;
		s->raw[5] = 15;
		s->raw[6] = 0;
		s->raw[7] = 0;
		break;
	}
	s->raw[2] = ev->id;
	ev->raw = s->raw;
	ev->nraw = 8;
	return r;
}

const struct tt_record *synth_next(struct synth *s)
{
	if (s->n % 1000 == 999) {
		s->n++;
		memset(&s->rec, 0, sizeof(s->rec));
		s->rec.kind = TT_REC_GAP;
		s->rec.u.gap.lost = 5;
		s->rec.u.gap.exact = true;
		s->rec.u.gap.reason = "lapped";
		return &s->rec;
	}
	return synth_event(s, (unsigned)(s->n % 7));
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int synth_buf_put(void *arg, const void *data, size_t len)
{
	struct synth_buf *b = arg;

	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

bool synth_json_same(const char *a, const char *b, const char *const *skip, size_t nskip)
{
	cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
	bool same = ja && jb;

	for (size_t i = 0; same && i < nskip; i++) {
		cJSON_DeleteItemFromObject(ja, skip[i]);
		cJSON_DeleteItemFromObject(jb, skip[i]);
	}
	same = same && cJSON_Compare(ja, jb, 1);
	if (!same)
		fprintf(stderr, "differ:\n  %s\n  %s\n", a, b);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	return same;
}
