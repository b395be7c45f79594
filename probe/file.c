/* probe/file.c: the file:PATH backend.
 *
 * A raw binary image (byte 0 at opt->file_base), Intel HEX or Motorola S-record, detected by
 * content. All file I/O runs on the libuv thread pool (one work item per read) so a slow disk or
 * a huge HEX file never blocks the loop. Raw images are read with pread on every read, after a
 * stat of the path: a file rewritten in place is followed byte for byte, one replaced by rename
 * is reopened. HEX/SREC images are parsed again when the file's identity, size or mtime change.
 *
 * The kev:PATH backend is the same reader of raw files for a file read while it is written: no
 * file yet is not an error, the content is never taken for HEX/SREC, byte 0 is at address 0,
 * and plan.h's TT_PLAN_FILE_STAT answers the file's length and generation (a count of the
 * files seen at the path; a file removed but still open is followed until another appears).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "probe_int.h"

#define FILE_TEXT_MAX (256u << 20) /* largest HEX/SREC file parsed */

struct file_probe {
	struct tt_probe base;
	char *path;
	uint64_t file_base;
	uv_work_t work;
	int working, close_wanted;
	/* owned by the work item while working */
	int fd;
	struct stat id;        /* identity the cached format/image belong to */
	int have_id;
	enum tt_image_format fmt;
	struct tt_image img;
	int wstatus;
	char werr[256];
	int follow;            /* kev:PATH */
	uint64_t gen;          /* files opened at the path (kev:) */
};

static int file_err(struct file_probe *f, int status, const char *what)
{
	snprintf(f->werr, sizeof(f->werr), "file %s: %s: %s", f->path, what, strerror(-status));
	return status;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int unchanged(const struct stat *a, const struct stat *b)
{
	return same_file(a, b) && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Reads the text of a HEX/SREC file and parses it into f->img. */
static int file_parse(struct file_probe *f, const struct stat *st)
{
	char perrbuf[192];
	char *text;
	size_t n = (size_t)st->st_size, got = 0;
	int r;

	if (st->st_size > FILE_TEXT_MAX) {
		snprintf(f->werr, sizeof(f->werr), "file %s: %jd bytes of text is too large",
			 f->path, (intmax_t)st->st_size);
		return -EFBIG;
	}
	text = malloc(n ? n : 1);
	if (text == NULL)
		return file_err(f, -ENOMEM, "reading");
	while (got < n) {
		ssize_t k = pread(f->fd, text + got, n - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* shrank meanwhile: parse what is there, the next stat sees it */
		got += (size_t)k;
	}
	tt_image_free(&f->img);
	r = tt_image_parse(f->fmt, text, got, &f->img, perrbuf, sizeof(perrbuf));
	free(text);
	if (r < 0)
		snprintf(f->werr, sizeof(f->werr), "file %s: %s", f->path, perrbuf);
	return r;
}

/* Follows the path: reopens a replaced file, re-detects and re-parses a changed one. */
static int file_refresh(struct file_probe *f, struct stat *st)
{
	char head[1024];
	ssize_t k;
	int r;

	if (stat(f->path, st) < 0) {
		int e = errno;
		if (!f->follow || e != ENOENT)
			return file_err(f, -e, "cannot stat");
		if (f->fd < 0) { /* no file yet */
			memset(st, 0, sizeof(*st));
			return 0;
		}
		if (fstat(f->fd, st) < 0) /* removed while open: still read */
			return file_err(f, -errno, "cannot stat");
	}
	if (f->fd < 0 || !same_file(st, &f->id)) {
		int fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return file_err(f, -errno, "cannot open");
		if (f->fd >= 0)
			close(f->fd);
		f->fd = fd;
		f->have_id = 0;
		f->gen++;
		if (fstat(fd, st) < 0)
			return file_err(f, -errno, "cannot stat");
	}
	if (f->have_id && unchanged(st, &f->id))
		return 0;
	do
		k = pread(f->fd, head, sizeof(head), 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return file_err(f, -errno, "cannot read");
	f->fmt = f->follow ? TT_IMAGE_RAW : tt_image_detect(head, (size_t)k);
	if (f->fmt != TT_IMAGE_RAW && (r = file_parse(f, st)) < 0)
		return r;
	f->id = *st;
	f->have_id = 1;
	return 0;
}

static int file_read_raw(struct file_probe *f, const struct stat *st, const struct tt_range *r)
{
	uint64_t hi = f->file_base + (uint64_t)st->st_size;
	size_t got = 0;
	char msg[160];

	if (r->addr < f->file_base || r->addr + r->len > hi)
		goto outside;
	while (got < r->len) {
		ssize_t k = pread(f->fd, r->dst + got, r->len - got,
				  (off_t)(r->addr - f->file_base + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return file_err(f, -errno, "cannot read");
		if (k == 0)
			goto outside; /* truncated since the stat */
		got += (size_t)k;
	}
	return 0;
outside:
	tt_image_outside(msg, sizeof(msg), r->addr, r->len, f->file_base, hi);
	snprintf(f->werr, sizeof(f->werr), "file %s: %s", f->path, msg);
	return -EFAULT;
}

static void file_work(uv_work_t *w)
{
	struct file_probe *f = w->data;
	const struct tt_plan *plan = &f->base.plan;
	struct stat st;
	char msg[200];
	int r = file_refresh(f, &st);

	for (unsigned i = 0; i < plan->n && r == 0; i++) {
		const struct tt_range *rg = &plan->r[i];
		if (f->follow && rg->addr == TT_PLAN_FILE_STAT && rg->len == TT_PLAN_FILE_STAT_LEN) {
			tt_plan_file_stat_put(rg->dst, f->fd < 0 ? 0 : (uint64_t)st.st_size,
					      f->fd < 0 ? 0 : f->gen);
		} else if (f->fmt == TT_IMAGE_RAW) {
			r = file_read_raw(f, &st, rg);
		} else if ((r = tt_image_copy(&f->img, rg->addr, rg->len, rg->dst, msg,
					      sizeof(msg))) < 0) {
			snprintf(f->werr, sizeof(f->werr), "file %s: %s", f->path, msg);
		}
	}
	f->wstatus = r;
}

static void file_free(struct file_probe *f)
{
	if (f->fd >= 0)
		close(f->fd);
	tt_image_free(&f->img);
	free(f->path);
	tt_probe__close_done(&f->base);
}

static void file_after_work(uv_work_t *w, int status)
{
	struct file_probe *f = w->data;

	f->working = 0;
	if (f->close_wanted) {
		file_free(f);
		return;
	}
	if (f->wstatus < 0)
		tt_probe__seterr(&f->base, "%s", f->werr);
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
	f->path = strdup(arg);
	if (f->path == NULL)
		return -ENOMEM;
	f->fd = -1;
	f->file_base = opt->file_base;
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
	f->path = strdup(arg);
	if (f->path == NULL)
		return -ENOMEM;
	f->fd = -1;
	f->follow = 1;
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

int tt_probe_file_head(const char *path, uint8_t *buf, size_t len, size_t *got, uint64_t *addr,
		       int *raw, char *err, size_t errlen)
{
	struct file_probe f = { .path = (char *)path, .fd = -1 };
	struct stat st;
	ssize_t k;
	int r = file_refresh(&f, &st);

	*got = 0;
	*addr = 0;
	*raw = f.fmt == TT_IMAGE_RAW;
	if (r == 0 && *raw) {
		do
			k = pread(f.fd, buf, len, 0);
		while (k < 0 && errno == EINTR);
		if (k < 0)
			r = file_err(&f, -errno, "cannot read");
		else
			*got = (size_t)k;
	} else if (r == 0 && f.img.nseg > 0) {
		*got = f.img.seg[0].len < len ? f.img.seg[0].len : len;
		memcpy(buf, f.img.seg[0].data, *got);
		*addr = f.img.seg[0].addr;
	}
	if (r < 0)
		snprintf(err, errlen, "%s", f.werr);
	if (f.fd >= 0)
		close(f.fd);
	tt_image_free(&f.img);
	return r;
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
