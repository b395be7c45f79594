/* daemon/kevfollow.c: follow a growing QNX .kev file (see kevfollow.h): the QNX reader's
 * stream mode (proto/qnx.h: tt_qnx_kev_*) plans the reads, probe/filesrc.h does them. */
#include "kevfollow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../probe/filesrc.h"
#include "../proto/qnx.h"
#include "../proto/reader.h"

struct tt_kev_follow {
	char *path;        /* the reader's, for its messages */
	struct tt_filesrc *src;
	uint64_t bytes;    /* event bytes decoded */
	struct tt_qnx_kev *k;
	const uint8_t *hdr; /* a header accepted during the last step, or NULL */
	size_t hdr_len;
	uint8_t *taken;     /* the header new_header returned */
};

int tt_kev_follow_new(const char *path, uint64_t tick_hz, struct tt_kev_follow **out)
{
	struct tt_kev_follow *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(path)) || !(f->src = tt_filesrc_new(path, 0, 1)) ||
	    tt_qnx_kev_new(f->path, tick_hz, &f->k) < 0) {
		if (f) {
			tt_filesrc_free(f->src);
			free(f->path);
		}
		free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

int tt_kev_follow_step(struct tt_kev_follow *f, tt_emit_cb cb, void *arg, char *err,
		       size_t errlen)
{
	struct tt_reader_stats st;
	struct tt_plan p;
	int rc;

	for (;;) {
		tt_qnx_kev_plan(f->k, &p);
		rc = tt_filesrc_read(f->src, &p);
		if (rc == -EFAULT) { /* cut since its length was read: seen at the next look */
			tt_qnx_kev_read_failed(f->k, rc);
			return TT_KEV_FOLLOWING;
		}
		if (rc < 0) {
			snprintf(err, errlen, "%s", tt_filesrc_error(f->src));
			return rc;
		}
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
	tt_filesrc_free(f->src);
	tt_qnx_kev_free(f->k);
	free((void *)f->hdr);
	free(f->taken);
	free(f->path);
	free(f);
}
