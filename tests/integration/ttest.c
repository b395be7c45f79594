/* tests/integration/ttest.c: see ttest.h. */
#include "ttest.h"

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

struct wait {
	int (*pred)(void *);
	void *arg;
	int expired;
};

static void wait_timer_cb(uv_timer_t *t)
{
	struct wait *w = t->data;

	w->expired = 1;
	uv_stop(t->loop);
}

/* Runs before the loop blocks for I/O: a condition made true by any callback of this pass
 * stops it. */
static void wait_prepare_cb(uv_prepare_t *h)
{
	struct wait *w = h->data;

	if (w->pred(w->arg))
		uv_stop(h->loop);
}

void tt_test_wait_until(uv_loop_t *loop, int (*pred)(void *), void *arg, unsigned ms,
			const char *what)
{
	struct wait w = { pred, arg, 0 };
	uv_timer_t t;
	uv_prepare_t pr;

	uv_timer_init(loop, &t);
	uv_prepare_init(loop, &pr);
	t.data = pr.data = &w;
	uv_timer_start(&t, wait_timer_cb, ms, 0);
	uv_prepare_start(&pr, wait_prepare_cb);
	while (!pred(arg) && !w.expired)
		uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&t, NULL);
	uv_close((uv_handle_t *)&pr, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
	REQUIRE_MSG(pred(arg), "deadline: %s did not happen within %u ms", what, ms);
}

static int flag_set(void *arg)
{
	return *(const int *)arg != 0;
}

void tt_test_wait(uv_loop_t *loop, const int *flag, unsigned ms, const char *what)
{
	tt_test_wait_until(loop, flag_set, (void *)(uintptr_t)flag, ms, what);
}

static void walk_cb(uv_handle_t *h, void *arg)
{
	fprintf(stderr, "leaked handle: %s%s\n", uv_handle_type_name(h->type),
		uv_is_closing(h) ? " (closing)" : "");
}

static void leak_timer_cb(uv_timer_t *t)
{
	fprintf(stderr, "loop still busy after 10 s:\n");
	uv_walk(t->loop, walk_cb, NULL);
	abort();
}

void tt_test_loop_done(uv_loop_t *loop)
{
	uv_timer_t t;

	/* An unreferenced deadline: the loop ends when only it is left, else it fires. */
	uv_timer_init(loop, &t);
	uv_timer_start(&t, leak_timer_cb, 10000, 0);
	uv_unref((uv_handle_t *)&t);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	if (uv_loop_close(loop) != 0) {
		uv_walk(loop, walk_cb, NULL);
		abort();
	}
}

void tt_test_write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	REQUIRE(f != NULL);
	REQUIRE(fwrite(data, 1, n, f) == n);
	REQUIRE(fclose(f) == 0);
}

char *tt_test_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char tmpl[512];
	char *d;

	snprintf(tmpl, sizeof(tmpl), "%s/tt-probe.XXXXXX", t ? t : "/tmp");
	d = mkdtemp(tmpl);
	REQUIRE(d != NULL);
	return strdup(d);
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void tt_test_rmdir(char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}
