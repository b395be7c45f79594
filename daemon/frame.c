/* daemon/frame.c: refcounted message frames (hub.h) and the pool that keeps large ones.
 * Single-threaded, like the hub (the loop thread). */
#include "hub.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Large frames freed are kept for reuse (a few). With glibc, freeing each 64 KiB events frame
 * as soon as it was written shrinks the heap top (trim threshold 128 KiB) and the next frame
 * faults its pages back in: measured with bench_pipeline, 15-35% of the daemon thread's time
 * to 1 client. A block is reused for a request that needs at most 1/4 less (full batches have
 * about the same size). Single-threaded, like the rest of this file (the loop thread). */
#define POOL_MIN (16 * 1024)
#define POOL_MAX 8

static struct {
	void *p;
	size_t size;
} pool[POOL_MAX];
static size_t npool;

static void *frame_alloc(size_t need)
{
	if (need >= POOL_MIN)
		for (size_t i = npool; i-- > 0;)
			if (pool[i].size >= need && pool[i].size - need <= need / 4) {
				void *p = pool[i].p;
				pool[i] = pool[--npool];
				return p;
			}
	return malloc(need);
}

static void frame_free(void *p)
{
	size_t size = malloc_usable_size(p);

	if (size < POOL_MIN) {
		free(p);
		return;
	}
	if (npool == POOL_MAX) { /* drop the oldest */
		free(pool[0].p);
		memmove(pool, pool + 1, (POOL_MAX - 1) * sizeof(pool[0]));
		npool--;
	}
	pool[npool].p = p;
	pool[npool].size = size;
	npool++;
}

void tt_frame_pool_drain(void)
{
	while (npool)
		free(pool[--npool].p);
}

struct tt_frame *tt_frame_new(size_t cap)
{
	struct tt_frame *f = frame_alloc(sizeof(*f) + TT_FRAME_PRE + cap + 1);

	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->refs = 1;
	f->cap = cap;
	f->data = f->mem + TT_FRAME_PRE;
	return f;
}

struct tt_frame *tt_frame_printf(uint8_t kind, const char *fmt, ...)
{
	va_list ap;
	int n;
	struct tt_frame *f;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	f = tt_frame_new((size_t)n);
	if (!f)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(f->data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	f->len = (size_t)n;
	f->kind = kind;
	return f;
}

void tt_frame_ref(struct tt_frame *f)
{
	f->refs++;
}

void tt_frame_unref(struct tt_frame *f)
{
	if (f && --f->refs == 0)
		frame_free(f);
}

