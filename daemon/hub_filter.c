/* daemon/hub_filter.c: the server-side filters of hub clients (tt_hub_client_set_filter). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hub_int.h"

bool hub_filter_match(const struct filter *f, const struct slot *s, const char *json)
{
	bool ok;

	if (!f || s->kind != TT_REC_EVENT)
		return true;
	if (f->nids) {
		ok = false;
		for (size_t i = 0; i < f->nids && !ok; i++)
			ok = f->ids[i] == s->id;
		if (!ok)
			return false;
	}
	if (f->nnames) {
		ok = false;
		for (size_t i = 0; i < f->nnames && !ok; i++)
			ok = s->name && strcmp(f->names[i], s->name) == 0;
		if (!ok)
			return false;
	}
	if (f->nthreads) {
		char hex[16];
		ok = false;
		snprintf(hex, sizeof(hex), "0x%08" PRIx32, s->thread);
		for (size_t i = 0; i < f->nthreads && !ok; i++)
			ok = (s->thread_name && strcmp(f->threads[i], s->thread_name) == 0) ||
			     (s->thread && strcasecmp(f->threads[i], hex) == 0);
		if (!ok)
			return false;
	}
	if (f->textlen && !memmem(json, s->len, f->text, f->textlen))
		return false;
	return true;
}

void hub_filter_free(struct filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i]);
	for (size_t i = 0; i < f->nthreads; i++)
		free(f->threads[i]);
	free(f->names);
	free(f->threads);
	free(f->ids);
	free(f->text);
	free(f);
}

static int copy_strs(char ***dst, const char *const *src, size_t n)
{
	if (!n)
		return 0;
	*dst = calloc(n, sizeof(char *));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!((*dst)[i] = strdup(src[i])))
			return -ENOMEM;
	return 0;
}

int hub_filter_new(const struct tt_hub_filter *in, struct filter **out)
{
	struct filter *f;

	*out = NULL;
	if (!in || (!in->nids && !in->nnames && !in->nthreads && (!in->text || !*in->text)))
		return 0;
	if (in->nids > MAX_FILTER_ITEMS || in->nnames > MAX_FILTER_ITEMS ||
	    in->nthreads > MAX_FILTER_ITEMS)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->nnames = in->nnames;
	f->nthreads = in->nthreads;
	if (copy_strs(&f->names, in->names, in->nnames) < 0 ||
	    copy_strs(&f->threads, in->threads, in->nthreads) < 0)
		goto fail;
	if (in->nids) {
		f->ids = malloc(in->nids * sizeof(uint32_t));
		if (!f->ids)
			goto fail;
		memcpy(f->ids, in->ids, in->nids * sizeof(uint32_t));
		f->nids = in->nids;
	}
	if (in->text && *in->text) {
		if (!(f->text = strdup(in->text)))
			goto fail;
		f->textlen = strlen(f->text);
	}
	*out = f;
	return 0;
fail:
	if (!f->names)
		f->nnames = 0;
	if (!f->threads)
		f->nthreads = 0;
	hub_filter_free(f);
	return -ENOMEM;
}

