/* export/export.c: the exporters' driver (see export.h, export_int.h): the format table,
 * parsing each record once and handing it to its format, and the names learned from records.
 */
#include <errno.h>

#include "export_int.h"

static const struct tt_export_ops *const formats[] = {
	[TT_EXPORT_JSONL] = &tt_export_jsonl,
	[TT_EXPORT_TRX] = &tt_export_trx,
	[TT_EXPORT_PERFETTO] = &tt_export_perfetto,
	[TT_EXPORT_FTRACE] = &tt_export_ftrace,
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

int tt_export_format_parse(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (name && !strcmp(name, formats[i]->name))
			return (int)i;
	return -EINVAL;
}

const char *tt_export_format_name(enum tt_export_format fmt)
{
	return (unsigned)fmt < NFORMATS ? formats[fmt]->name : "?";
}

const char *tt_export_content_type(enum tt_export_format fmt)
{
	return (unsigned)fmt < NFORMATS ? formats[fmt]->content_type : "text/plain";
}

const char *tt_export_file_ext(enum tt_export_format fmt)
{
	return (unsigned)fmt < NFORMATS ? formats[fmt]->ext : ".txt";
}

int tt_export_new(enum tt_export_format fmt, tt_export_write_cb write, void *arg,
		  struct tt_export **out)
{
	struct tt_export *e;

	if ((unsigned)fmt >= NFORMATS || !write)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->ops = formats[fmt];
	e->write = write;
	e->arg = arg;
	*out = e;
	return 0;
}

void tt_export_free(struct tt_export *e)
{
	if (!e)
		return;
	if (e->ops->free)
		e->ops->free(e);
	free(e);
}

uint64_t tt_export_written(const struct tt_export *e)
{
	return e->written;
}

uint64_t tt_export_skipped(const struct tt_export *e)
{
	return e->skipped;
}

struct obj *tt_export_obj_find(struct tt_export *e, uint32_t ptr)
{
	for (size_t i = 0; i < e->nobjs; i++)
		if (e->objs[i].ptr == ptr)
			return &e->objs[i];
	return NULL;
}

static void obj_add(struct tt_export *e, uint32_t ptr, uint8_t type, const char *name)
{
	struct obj *o;

	if (!ptr || !name || !*name || ptr == 0xFFFFFFFFu || ptr == 0xF0F0F0F0u)
		return;
	o = tt_export_obj_find(e, ptr);
	if (!o) {
		if (e->nobjs == MAX_OBJS)
			return;
		o = &e->objs[e->nobjs++];
		o->ptr = ptr;
	}
	o->type = type;
	snprintf(o->name, sizeof(o->name), "%s", name);
}

/* Registry object type (threadx-trace.md) of an object argument, by its name. */
static uint8_t obj_type(const char *arg, uint32_t id)
{
	if (strstr(arg, "thread"))
		return 1;
	if (!strcmp(arg, "timer"))
		return 2;
	if (!strcmp(arg, "queue"))
		return 3;
	if (!strcmp(arg, "semaphore"))
		return 4;
	if (!strcmp(arg, "mutex"))
		return 5;
	if (!strcmp(arg, "group"))
		return 6;
	if (!strcmp(arg, "pool"))
		return id >= 20 && id < 30 ? 8 : 7;
	return 2;
}

/* Learns names: the running/interrupted thread, and object arguments whose raw word is a
 * pointer (large, not TX_WAIT_FOREVER) and whose value was rendered as a name. */
void tt_export_learn(struct tt_export *e, const cJSON *rec, const uint32_t w[8], int nw)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(rec, "args"), *a;
	int i = 0;

	obj_add(e, hexnum(rec, "thread"), 1, str(rec, "thread_name"));
	obj_add(e, hexnum(rec, "interrupted"), 1, str(rec, "interrupted_name"));
	obj_add(e, hexnum(rec, "run_thread"), 1, str(rec, "run_name"));
	if (nw < 8)
		return;
	cJSON_ArrayForEach(a, args) {
		if (i >= 4)
			break;
		uint32_t v = w[4 + i++];
		if (cJSON_IsString(a) && strncmp(a->valuestring, "0x", 2) && v >= 0x1000 &&
		    v != 0xFFFFFFFFu)
			obj_add(e, v, obj_type(a->string, tt_json_u32(num(rec, "id", 0))),
				a->valuestring);
	}
}

int tt_export_record(struct tt_export *e, const char *json, size_t len)
{
	cJSON *rec;
	const char *type;
	int rc;

	if (e->err)
		return e->err;
	if (e->ops->wire)
		return e->ops->wire(e, json, len);
	rec = cJSON_ParseWithLength(json, len);
	type = rec ? str(rec, "type") : NULL;
	if (!type || (strcmp(type, "event") && strcmp(type, "gap") && strcmp(type, "reset"))) {
		cJSON_Delete(rec);
		e->skipped++;
		return -EINVAL;
	}
	rc = e->ops->record(e, rec, type);
	cJSON_Delete(rec);
	if (rc == -EINVAL)
		e->skipped++;
	else if (!rc)
		e->written++;
	return rc ? rc : e->err;
}

int tt_export_finish(struct tt_export *e)
{
	return e->ops->finish ? e->ops->finish(e) : e->err;
}
