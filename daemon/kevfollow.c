/* daemon/kevfollow.c: follow a growing QNX .kev file (see kevfollow.h). */
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

#define HEAD_MAX (TT_QNX_MAX_HEADER + (16u << 20)) /* header + syspage */
#define CHUNK (64u * 1024u)                         /* events read per pread */

struct tt_kev_follow {
	char *path;
	uint64_t tick_hz;
	int fd;
	struct stat st;        /* of fd when opened */
	bool have_hdr;
	uint64_t off;          /* next event's file offset */
	uint64_t bytes;        /* event bytes decoded */
	uint8_t *hdr;          /* the header's bytes, while not yet taken by new_header */
	size_t hdr_len;
	uint8_t *taken;        /* the header new_header returned (valid until the next one) */
	struct tt_qnx q;
	uint8_t buf[CHUNK];
};

int tt_kev_follow_new(const char *path, uint64_t tick_hz, struct tt_kev_follow **out)
{
	struct tt_kev_follow *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(path))) {
		free(f);
		return -ENOMEM;
	}
	f->fd = -1;
	f->tick_hz = tick_hz;
	*out = f;
	return 0;
}

static void start_over(struct tt_kev_follow *f, tt_emit_cb cb, void *arg)
{
	struct tt_record r = { .kind = TT_REC_RESET };

	if (f->have_hdr)
		tt_qnx_finish(&f->q, cb, arg);
	r.u.reset.reason = "file truncated or replaced: decoding it again";
	cb(arg, &r);
	close(f->fd);
	f->fd = -1;
	f->off = 0;
	f->have_hdr = false;
}

/* Reads and parses the header: 1 when done, 0 when the file is still too short, -errno. */
static int read_header(struct tt_kev_follow *f, char *err, size_t errlen)
{
	size_t n = (uint64_t)f->st.st_size < HEAD_MAX ? (size_t)f->st.st_size : HEAD_MAX;
	uint8_t *buf = malloc(n ? n : 1);
	struct tt_qnx_header h;
	char why[384];
	ssize_t k;

	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", f->path);
		return -ENOMEM;
	}
	k = pread(f->fd, buf, n, 0);
	if (k < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(e));
		free(buf);
		return -e;
	}
	if (tt_qnx_parse_header(buf, (size_t)k, &h, why, sizeof(why)) < 0) {
		free(buf);
		if (h.need_more && (size_t)k < HEAD_MAX)
			return 0;
		snprintf(err, errlen, "%s: %s", f->path, why);
		return -EPROTO;
	}
	tt_qnx_init(&f->q, &h, f->tick_hz);
	f->off = h.events_off;
	f->have_hdr = true;
	free(f->hdr);
	f->hdr = realloc(buf, h.header_len ? h.header_len : 1);
	if (!f->hdr)
		f->hdr = buf;
	f->hdr_len = h.header_len;
	return 1;
}

int tt_kev_follow_step(struct tt_kev_follow *f, tt_emit_cb cb, void *arg, char *err,
		       size_t errlen)
{
	struct stat now;
	int rc;

	if (f->fd < 0) {
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
		if (f->fd < 0) {
			int e = errno;
			if (e == ENOENT)
				return TT_KEV_WAITING;
			snprintf(err, errlen, "%s: %s", f->path, strerror(e));
			return -e;
		}
		if (fstat(f->fd, &f->st) < 0 || !S_ISREG(f->st.st_mode)) {
			snprintf(err, errlen, "%s: not a regular file", f->path);
			close(f->fd);
			f->fd = -1;
			return -EINVAL;
		}
	}
	/* another file at the path (tracelogger started again), or this one cut shorter */
	if ((stat(f->path, &now) == 0 &&
	     (now.st_ino != f->st.st_ino || now.st_dev != f->st.st_dev)) ||
	    fstat(f->fd, &f->st) < 0 || (uint64_t)f->st.st_size < f->off) {
		start_over(f, cb, arg);
		return TT_KEV_WAITING;
	}
	if (!f->have_hdr && (rc = read_header(f, err, errlen)) <= 0)
		return rc;
	while ((uint64_t)f->st.st_size - f->off >= TT_QNX_EVENT_SIZE) {
		uint64_t avail = (uint64_t)f->st.st_size - f->off;
		size_t n = avail < CHUNK ? (size_t)avail : CHUNK;
		ssize_t k = pread(f->fd, f->buf, n - n % TT_QNX_EVENT_SIZE, (off_t)f->off);
		if (k < TT_QNX_EVENT_SIZE)
			break; /* shrank meanwhile: seen at the next step */
		n = (size_t)k / TT_QNX_EVENT_SIZE;
		tt_qnx_feed(&f->q, f->buf, n, cb, arg);
		f->off += n * TT_QNX_EVENT_SIZE;
		f->bytes += n * TT_QNX_EVENT_SIZE;
	}
	return TT_KEV_FOLLOWING;
}

const uint8_t *tt_kev_follow_new_header(struct tt_kev_follow *f, size_t *len)
{
	const uint8_t *h = f->hdr;

	*len = f->hdr_len;
	f->hdr = NULL; /* kept until free (taken once) */
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
	if (f->have_hdr && cb)
		tt_qnx_finish(&f->q, cb, arg);
	if (f->fd >= 0)
		close(f->fd);
	free(f->hdr);
	free(f->taken);
	free(f->path);
	free(f);
}
