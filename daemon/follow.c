/* daemon/follow.c: follow a growing file in a format's own layout (see follow.h): the format's
 * reader, created on the file as a stream source, plans the reads through its ops;
 * probe/filesrc.h does them. */
#include "follow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../probe/filesrc.h"

struct tt_follow {
	const struct tt_reader_ops *r;
	char *path;         /* the reader's, for its messages */
	struct tt_filesrc *src;
	void *rd;
	const uint8_t *hdr; /* a header accepted during the last step, or NULL */
	size_t hdr_len;
	uint8_t *taken;     /* the header new_header returned */
};

int tt_follow_new(const struct tt_reader_ops *r, const char *path, uint64_t tick_hz,
		  struct tt_follow **out)
{
	struct tt_follow *f = calloc(1, sizeof(*f));
	int rc = -ENOMEM;

	if (f && (f->path = strdup(path)) && (f->src = tt_filesrc_new(path, 0, 1))) {
		const struct tt_reader_config c = { .tick_hz = tick_hz, .file_source = true,
						    .stream = f->path };
		f->r = r;
		rc = r->create(&c, &f->rd);
	}
	if (rc < 0) {
		if (f) {
			tt_filesrc_free(f->src);
			free(f->path);
		}
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* A header the reader accepted: copied, since its buffer is reused at the next plan. Whether
 * there was one. */
static bool keep_header(struct tt_follow *f)
{
	size_t hl = 0;
	const uint8_t *h = f->r->stream_header ? f->r->stream_header(f->rd, &hl) : NULL;

	if (!h)
		return false;
	free((void *)f->hdr);
	uint8_t *c = malloc(hl ? hl : 1);
	if (c)
		memcpy(c, h, hl);
	f->hdr = c;
	f->hdr_len = c ? hl : 0;
	return true;
}

int tt_follow_step(struct tt_follow *f, tt_emit_cb cb, void *arg, char *err, size_t errlen)
{
	struct tt_plan p;
	int rc;

	for (;;) {
		f->r->plan(f->rd, &p);
		rc = tt_filesrc_read(f->src, &p);
		if (rc == -EFAULT) { /* cut since its length was read: seen at the next look */
			f->r->read_failed(f->rd, rc);
			return TT_FOLLOW_READING;
		}
		if (rc < 0) {
			snprintf(err, errlen, "%s", tt_filesrc_error(f->src));
			return rc;
		}
		rc = f->r->ingest(f->rd, cb, arg);
		/* a new header ends the step: the caller shows it before the records after it */
		if (keep_header(f) && rc >= 0)
			return TT_FOLLOW_READING;
		if (rc == -EAGAIN)
			return TT_FOLLOW_WAITING;
		if (rc < 0) {
			snprintf(err, errlen, "%s", f->r->error(f->rd));
			return rc;
		}
		if (rc == TT_READER_DONE)
			return TT_FOLLOW_READING;
	}
}

const uint8_t *tt_follow_new_header(struct tt_follow *f, size_t *len)
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

void tt_follow_free(struct tt_follow *f, tt_emit_cb cb, void *arg)
{
	if (!f)
		return;
	if (cb && f->r->finish)
		f->r->finish(f->rd, cb, arg);
	tt_filesrc_free(f->src);
	f->r->destroy(f->rd);
	free((void *)f->hdr);
	free(f->taken);
	free(f->path);
	free(f);
}
