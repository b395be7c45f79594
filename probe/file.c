/* probe/file.c: the file:PATH and kev:PATH backends (the reads: filesrc.h).
 *
 * file:PATH serves a raw binary image (byte 0 at opt->file_base), Intel HEX or Motorola
 * S-record; kev:PATH follows a file while it is written (a QNX .kev from tracelogger). All file
 * I/O runs on the libuv thread pool (one work item per read) so a slow disk or a huge HEX file
 * never blocks the loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filesrc.h"
#include "probe_int.h"

struct file_probe {
	struct tt_probe base;
	struct tt_filesrc *src; /* used by the work item while working */
	uv_work_t work;
	int working, close_wanted;
	int wstatus;
};

static void file_work(uv_work_t *w)
{
	struct file_probe *f = w->data;

	f->wstatus = tt_filesrc_read(f->src, &f->base.plan);
}

static void file_free(struct file_probe *f)
{
	tt_filesrc_free(f->src);
	tt_probe__close_done(&f->base);
}

static void file_after_work(uv_work_t *w, int status)
{
	struct file_probe *f = w->data;

	(void)status;
	f->working = 0;
	if (f->close_wanted) {
		file_free(f);
		return;
	}
	if (f->wstatus < 0)
		tt_probe__seterr(&f->base, "%s", tt_filesrc_error(f->src));
	tt_probe__read_done(&f->base, f->wstatus);
}

static int file_read(struct tt_probe *p)
{
	struct file_probe *f = (struct file_probe *)p;
	int r;

	f->work.data = f;
	r = uv_queue_work(p->loop, &f->work, file_work, file_after_work);
	if (r < 0)
		return r;
	f->working = 1;
	return 0;
}

static int file_open(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt)
{
	struct file_probe *f = (struct file_probe *)p;

	if (arg[0] == '\0') {
		tt_probe__seterr(p, "file: no path given (use file:PATH)");
		return -EINVAL;
	}
	/* A missing or unreadable file is an error at once, not at the first poll. */
	if (access(arg, R_OK) < 0) {
		int e = errno;
		tt_probe__seterr(p, "file %s: cannot open: %s", arg, strerror(e));
		return -e;
	}
	if (!(f->src = tt_filesrc_new(arg, opt->file_base, 0)))
		return -ENOMEM;
	tt_probe__set_state(p, TT_PROBE_CONNECTED, "file opened");
	return 0;
}

static int kev_open(struct tt_probe *p, const char *arg, const struct tt_probe_options *opt)
{
	struct file_probe *f = (struct file_probe *)p;

	(void)opt;
	if (arg[0] == '\0') {
		tt_probe__seterr(p, "kev: needs a path (kev:/path/to/trace.kev)");
		return -EINVAL;
	}
	if (!(f->src = tt_filesrc_new(arg, 0, 1)))
		return -ENOMEM;
	tt_probe__set_state(p, TT_PROBE_CONNECTED, "following the file");
	return 0;
}

static void file_close(struct tt_probe *p)
{
	struct file_probe *f = (struct file_probe *)p;

	if (f->working) {
		f->close_wanted = 1;
		uv_cancel((uv_req_t *)&f->work); /* after_work runs either way */
		return;
	}
	file_free(f);
}

const struct tt_probe_ops tt_probe_file_ops = {
	.name = "file",
	.size = sizeof(struct file_probe),
	.open = file_open,
	.read = file_read,
	.close = file_close,
};

const struct tt_probe_ops tt_probe_kev_ops = {
	.name = "kev",
	.size = sizeof(struct file_probe),
	.open = kev_open,
	.read = file_read,
	.close = file_close,
};
