/* probe/filesrc.c: a plan's reads from a file at a path (see filesrc.h). */
#include "filesrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"

#define FILE_TEXT_MAX (256u << 20) /* largest HEX/SREC file parsed */

struct tt_filesrc {
	char *path;
	uint64_t file_base;
	int follow;
	int fd;
	struct stat id; /* identity the cached format/image belong to */
	int have_id;
	enum tt_image_format fmt;
	struct tt_image img;
	uint64_t gen;   /* files opened at the path */
	char err[256];
};

static int init(struct tt_filesrc *s, const char *path, uint64_t file_base, int follow)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->follow = follow;
	s->file_base = follow ? 0 : file_base;
	s->path = strdup(path);
	return s->path ? 0 : -ENOMEM;
}

static void fini(struct tt_filesrc *s)
{
	if (s->fd >= 0)
		close(s->fd);
	tt_image_free(&s->img);
	free(s->path);
}

struct tt_filesrc *tt_filesrc_new(const char *path, uint64_t file_base, int follow)
{
	struct tt_filesrc *s = malloc(sizeof(*s));

	if (s && init(s, path, file_base, follow) < 0) {
		free(s);
		s = NULL;
	}
	return s;
}

void tt_filesrc_free(struct tt_filesrc *s)
{
	if (s) {
		fini(s);
		free(s);
	}
}

const char *tt_filesrc_error(const struct tt_filesrc *s)
{
	return s->err;
}

static int file_err(struct tt_filesrc *s, int status, const char *what)
{
	snprintf(s->err, sizeof(s->err), "file %s: %s: %s", s->path, what, strerror(-status));
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

/* Reads the text of a HEX/SREC file and parses it into s->img. */
static int file_parse(struct tt_filesrc *s, const struct stat *st)
{
	char perrbuf[192];
	char *text;
	size_t n = (size_t)st->st_size, got = 0;
	int r;

	if (st->st_size > FILE_TEXT_MAX) {
		snprintf(s->err, sizeof(s->err), "file %s: %jd bytes of text is too large",
			 s->path, (intmax_t)st->st_size);
		return -EFBIG;
	}
	text = malloc(n ? n : 1);
	if (text == NULL)
		return file_err(s, -ENOMEM, "reading");
	while (got < n) {
		ssize_t k = pread(s->fd, text + got, n - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* shrank meanwhile: parse what is there, the next stat sees it */
		got += (size_t)k;
	}
	tt_image_free(&s->img);
	r = tt_image_parse(s->fmt, text, got, &s->img, perrbuf, sizeof(perrbuf));
	free(text);
	if (r < 0)
		snprintf(s->err, sizeof(s->err), "file %s: %s", s->path, perrbuf);
	return r;
}

/* Follows the path: reopens a replaced file, re-detects and re-parses a changed one. */
static int file_refresh(struct tt_filesrc *s, struct stat *st)
{
	char head[1024];
	ssize_t k;
	int r;

	if (stat(s->path, st) < 0) {
		int e = errno;
		if (!s->follow || e != ENOENT)
			return file_err(s, -e, "cannot stat");
		if (s->fd < 0) { /* no file yet */
			memset(st, 0, sizeof(*st));
			return 0;
		}
		if (fstat(s->fd, st) < 0) /* removed while open: still read */
			return file_err(s, -errno, "cannot stat");
	}
	if (s->fd < 0 || !same_file(st, &s->id)) {
		int fd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return file_err(s, -errno, "cannot open");
		if (s->fd >= 0)
			close(s->fd);
		s->fd = fd;
		s->have_id = 0;
		s->gen++;
		if (fstat(fd, st) < 0)
			return file_err(s, -errno, "cannot stat");
	}
	if (s->have_id && unchanged(st, &s->id))
		return 0;
	do
		k = pread(s->fd, head, sizeof(head), 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return file_err(s, -errno, "cannot read");
	s->fmt = s->follow ? TT_IMAGE_RAW : tt_image_detect(head, (size_t)k);
	if (s->fmt != TT_IMAGE_RAW && (r = file_parse(s, st)) < 0)
		return r;
	s->id = *st;
	s->have_id = 1;
	return 0;
}

static int file_read_raw(struct tt_filesrc *s, const struct stat *st, const struct tt_range *r)
{
	uint64_t hi = s->file_base + (uint64_t)st->st_size;
	size_t got = 0;
	char msg[160];

	if (r->addr < s->file_base || r->addr + r->len > hi)
		goto outside;
	while (got < r->len) {
		ssize_t k = pread(s->fd, r->dst + got, r->len - got,
				  (off_t)(r->addr - s->file_base + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return file_err(s, -errno, "cannot read");
		if (k == 0)
			goto outside; /* truncated since the stat */
		got += (size_t)k;
	}
	return 0;
outside:
	tt_image_outside(msg, sizeof(msg), r->addr, r->len, s->file_base, hi);
	snprintf(s->err, sizeof(s->err), "file %s: %s", s->path, msg);
	return -EFAULT;
}

/* Whether r asks for the file's length and generation (answered when following). */
static int is_stat(const struct tt_range *r)
{
	return r->addr == TT_PLAN_FILE_STAT && r->len == TT_PLAN_FILE_STAT_LEN;
}

static int asks_stat(const struct tt_plan *plan)
{
	for (unsigned i = 0; i < plan->n; i++)
		if (is_stat(&plan->r[i]))
			return 1;
	return 0;
}

int tt_filesrc_read(struct tt_filesrc *s, const struct tt_plan *plan)
{
	struct stat st;
	char msg[200];
	int r;

	/* A followed file's bytes come from the file whose length the reader was last given: a
	 * file that replaced it is opened at the next length, which tells the reader so. */
	if (s->follow && s->fd >= 0 && !asks_stat(plan))
		r = fstat(s->fd, &st) < 0 ? file_err(s, -errno, "cannot stat") : 0;
	else
		r = file_refresh(s, &st);

	for (unsigned i = 0; i < plan->n && r == 0; i++) {
		const struct tt_range *rg = &plan->r[i];
		if (s->follow && is_stat(rg)) {
			tt_plan_file_stat_put(rg->dst, s->fd < 0 ? 0 : (uint64_t)st.st_size,
					      s->fd < 0 ? 0 : s->gen);
		} else if (s->fmt == TT_IMAGE_RAW) {
			r = file_read_raw(s, &st, rg);
		} else if ((r = tt_image_copy(&s->img, rg->addr, rg->len, rg->dst, msg,
					      sizeof(msg))) < 0) {
			snprintf(s->err, sizeof(s->err), "file %s: %s", s->path, msg);
		}
	}
	return r;
}

int tt_filesrc_head(const char *path, uint8_t *buf, size_t len, size_t *got, uint64_t *addr,
		    int *raw, char *err, size_t errlen)
{
	struct tt_filesrc s;
	struct stat st;
	ssize_t k;
	int r = init(&s, path, 0, 0);

	*got = 0;
	*addr = 0;
	*raw = 0;
	if (r < 0) {
		snprintf(err, errlen, "file %s: out of memory", path);
		return r;
	}
	r = file_refresh(&s, &st);
	*raw = s.fmt == TT_IMAGE_RAW;
	if (r == 0 && *raw) {
		do
			k = pread(s.fd, buf, len, 0);
		while (k < 0 && errno == EINTR);
		if (k < 0)
			r = file_err(&s, -errno, "cannot read");
		else
			*got = (size_t)k;
	} else if (r == 0 && s.img.nseg > 0) {
		*got = s.img.seg[0].len < len ? s.img.seg[0].len : len;
		memcpy(buf, s.img.seg[0].data, *got);
		*addr = s.img.seg[0].addr;
	}
	if (r < 0)
		snprintf(err, errlen, "%s", s.err);
	fini(&s);
	return r;
}
