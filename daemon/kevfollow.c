/* daemon/kevfollow.c: follow a growing QNX .kev file (see kevfollow.h): the QNX reader's
 * stream mode (proto/qnx.h: tt_qnx_kev_*) plans the reads, done here with blocking pread. */
#include "kevfollow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../proto/qnx.h"
#include "../proto/reader.h"

struct tt_kev_follow {
	char *path;
	int fd;
	struct stat id;    /* of fd */
	uint64_t gen;      /* files opened at the path */
	uint64_t bytes;    /* event bytes decoded */
	struct tt_qnx_kev *k;
	const uint8_t *hdr; /* a header accepted during the last step, or NULL */
	size_t hdr_len;
	uint8_t *taken;     /* the header new_header returned */
};

int tt_kev_follow_new(const char *path, uint64_t tick_hz, struct tt_kev_follow **out)
{
	struct tt_kev_follow *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(path)) || tt_qnx_kev_new(f->path, tick_hz, &f->k) < 0) {
		if (f)
			free(f->path);
		free(f);
		return -ENOMEM;
	}
	f->fd = -1;
	*out = f;
	return 0;
}

/* The file's length and generation (plan.h's TT_PLAN_FILE_STAT): opens the file at the path
 * when it is another one; a missing file is length 0, generation 0 until one is opened. */
static int file_stat(struct tt_kev_follow *f, uint8_t *dst, char *err, size_t errlen)
{
	struct stat now;
	bool open_now;

	if (stat(f->path, &now) == 0 && (f->fd < 0 || now.st_ino != f->id.st_ino ||
					 now.st_dev != f->id.st_dev)) {
		int fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &f->id) < 0 || !S_ISREG(f->id.st_mode)) {
			int e = fd < 0 ? errno : EINVAL;
			snprintf(err, errlen, "%s: %s", f->path,
				 fd < 0 ? strerror(e) : "not a regular file");
			if (fd >= 0)
				close(fd);
			return -e;
		}
		if (f->fd >= 0)
			close(f->fd);
		f->fd = fd;
		f->gen++;
	}
	open_now = f->fd >= 0 && fstat(f->fd, &f->id) == 0;
	tt_plan_file_stat_put(dst, open_now ? (uint64_t)f->id.st_size : 0, open_now ? f->gen : 0);
	return 0;
}

static int read_range(struct tt_kev_follow *f, const struct tt_range *r, char *err,
		      size_t errlen)
{
	ssize_t k;

	if (r->addr == TT_PLAN_FILE_STAT)
		return file_stat(f, r->dst, err, errlen);
	k = pread(f->fd, r->dst, r->len, (off_t)r->addr);
	return k == (ssize_t)r->len ? 0 : -EIO; /* shrank meanwhile: seen at the next stat */
}

int tt_kev_follow_step(struct tt_kev_follow *f, tt_emit_cb cb, void *arg, char *err,
		       size_t errlen)
{
	struct tt_reader_stats st;
	struct tt_plan p;
	int rc;

	for (;;) {
		tt_qnx_kev_plan(f->k, &p);
		rc = read_range(f, &p.r[0], err, errlen);
		if (rc == -EIO) {
			tt_qnx_kev_read_failed(f->k, rc);
			return TT_KEV_FOLLOWING;
		}
		if (rc < 0)
			return rc;
		rc = tt_qnx_kev_ingest(f->k, cb, arg);
		size_t hl;
		const uint8_t *h = tt_qnx_kev_new_header(f->k, &hl);
		if (h) { /* the reader's buffer: copied before the next plan reuses it */
			free((void *)f->hdr);
			uint8_t *c = malloc(hl ? hl : 1);
			if (c)
				memcpy(c, h, hl);
			f->hdr = c;
			f->hdr_len = c ? hl : 0;
		}
		tt_qnx_kev_stats(f->k, &st);
		f->bytes = st.events * TT_QNX_EVENT_SIZE;
		if (rc == -EAGAIN)
			return TT_KEV_WAITING;
		if (rc < 0) {
			snprintf(err, errlen, "%s", tt_qnx_kev_error(f->k));
			return rc;
		}
		if (rc == TT_READER_DONE)
			return TT_KEV_FOLLOWING;
	}
}

const uint8_t *tt_kev_follow_new_header(struct tt_kev_follow *f, size_t *len)
{
	const uint8_t *h = f->hdr;

	*len = f->hdr_len;
	f->hdr = NULL; /* kept until the next one or free (taken once) */
	f->hdr_len = 0;
	if (h) {
		free(f->taken);
		f->taken = (uint8_t *)h;
	}
	return h;
}

uint64_t tt_kev_follow_bytes(const struct tt_kev_follow *f)
{
	return f->bytes;
}

void tt_kev_follow_free(struct tt_kev_follow *f, tt_emit_cb cb, void *arg)
{
	if (!f)
		return;
	if (cb)
		tt_qnx_kev_finish(f->k, cb, arg);
	if (f->fd >= 0)
		close(f->fd);
	tt_qnx_kev_free(f->k);
	free((void *)f->hdr);
	free(f->taken);
	free(f->path);
	free(f);
}
