/* export/export_perfetto.c: Chrome trace event JSON for ui.perfetto.dev (see export.h). */
#include <inttypes.h>

#include "export_int.h"
#include "tt_config.h"

static double time_us(const cJSON *rec)
{
	double ns = num(rec, "ns", -1);

	return ns >= 0 ? ns / 1000.0 : num(rec, "time", 0); /* ticks shown as us */
}

static void pf_event(struct tt_export *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pf_event(struct tt_export *e, const char *fmt, ...)
{
	va_list ap;

	if (e->pf.started)
		put(e, ",\n", 2);
	e->pf.started = true;
	va_start(ap, fmt);
	vputf(e, fmt, ap);
	va_end(ap);
}

static void pf_thread_name(struct tt_export *e, uint32_t tid, const char *name)
{
	char b[512];

	pf_event(e, "{\"ph\":\"M\",\"pid\":1,\"tid\":%" PRIu32 ",\"name\":\"thread_name\","
		    "\"args\":{\"name\":%s}}", tid, jstr(b, sizeof(b), name));
}

/* Track of the init context (no thread pointer is 1). */
#define PF_INIT_TID 1u

static void pf_close_slice(struct tt_export *e)
{
	const struct obj *o;
	const char *name;
	char b[512], hex[16];

	if (!e->pf.slice_open)
		return;
	e->pf.slice_open = false;
	o = tt_export_obj_find(e, e->pf.slice_tid);
	snprintf(hex, sizeof(hex), "0x%08" PRIx32, e->pf.slice_tid);
	name = e->pf.slice_tid == 0 ? "ISR" : e->pf.slice_tid == PF_INIT_TID ? "init" :
	       o ? o->name : hex;
	pf_event(e, "{\"ph\":\"X\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":%.3f,\"dur\":%.3f,"
		    "\"name\":%s,\"cat\":\"running\"}", e->pf.slice_tid, e->pf.slice_start,
		 e->pf.slice_end - e->pf.slice_start, jstr(b, sizeof(b), name));
}

/* The record's `run` (who ran since the previous record, which the reader derived) extends the
 * running slice or starts the next one; unknown or idle time closes it. */
static void pf_run(struct tt_export *e, const cJSON *rec, double ts)
{
	const char *run = str(rec, "run");
	double seq = num(rec, "seq", -1);
	uint32_t tid = 0;
	bool known = run && e->pf.prev_ok && seq == e->pf.prev_seq + 1;

	if (known && !strcmp(run, "thread"))
		tid = hexnum(rec, "run_thread");
	else if (known && !strcmp(run, "init"))
		tid = PF_INIT_TID;
	else if (!known || strcmp(run, "isr"))
		known = false; /* idle, or not known: no slice */
	if (known && tid == PF_INIT_TID && !e->pf.init_named) {
		e->pf.init_named = true;
		pf_thread_name(e, PF_INIT_TID, "init");
	}
	if (known && e->pf.slice_open && e->pf.slice_tid == tid &&
	    e->pf.slice_end == e->pf.prev_us) {
		e->pf.slice_end = ts;
	} else {
		pf_close_slice(e);
		if (known) {
			e->pf.slice_open = true;
			e->pf.slice_tid = tid;
			e->pf.slice_start = e->pf.prev_us;
			e->pf.slice_end = ts;
		}
	}
	e->pf.prev_ok = true;
	e->pf.prev_us = ts;
	e->pf.prev_seq = seq;
}

static void pf_record(struct tt_export *e, const cJSON *rec, const char *type)
{
	double ts = strcmp(type, "event") ? e->pf.last_us : time_us(rec);
	char b1[512], b2[512];

	if (!e->pf.named_process) {
		e->pf.named_process = true;
		pf_event(e, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":%s}}",
			 jstr(b1, sizeof(b1), str(rec, "target") ? str(rec, "target") : "target"));
		pf_event(e, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_name\","
			    "\"args\":{\"name\":\"ISR\"}}");
	}
	if (!strcmp(type, "gap")) {
		pf_close_slice(e);
		e->pf.prev_ok = false;
		e->pf.lost += tt_json_u64(num(rec, "lost", 0));
		pf_event(e, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
			    "\"name\":\"gap\",\"args\":{\"lost\":%.0f,\"reason\":%s,\"seq\":%.0f}}",
			 ts, num(rec, "lost", 0), jstr(b1, sizeof(b1), str(rec, "reason")),
			 num(rec, "seq", 0));
		pf_event(e, "{\"ph\":\"C\",\"pid\":1,\"ts\":%.3f,\"name\":\"events lost\","
			    "\"args\":{\"lost\":%" PRIu64 "}}", ts, e->pf.lost);
		return;
	}
	if (!strcmp(type, "reset")) {
		pf_close_slice(e);
		e->pf.prev_ok = false;
		pf_event(e, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
			    "\"name\":\"reset\",\"args\":{\"reason\":%s}}", ts,
			 jstr(b1, sizeof(b1), str(rec, "reason")));
		return;
	}
	uint32_t w[8] = { 0 };
	int nw = raw_words(rec, w);
	size_t before = e->nobjs;
	tt_export_learn(e, rec, w, nw);
	for (size_t i = before; i < e->nobjs; i++)
		if (e->objs[i].type == 1)
			pf_thread_name(e, e->objs[i].ptr, e->objs[i].name);
	const char *ctx = str(rec, "ctx");
	uint32_t tid = ctx && !strcmp(ctx, "thread") ? hexnum(rec, "thread") : 0;
	uint32_t id = tt_json_u32(num(rec, "id", 0));
	e->pf.last_us = ts;
	pf_run(e, rec, ts);
	char *args = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(rec, "args"));
	pf_event(e, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%" PRIu32 ",\"ts\":%.3f,"
		    "\"name\":%s,\"cat\":\"rtos\",\"args\":{\"seq\":%.0f,\"id\":%" PRIu32
		    ",\"args\":%s}}", tid, ts, jstr(b2, sizeof(b2), str(rec, "name")),
		 num(rec, "seq", 0), id, args ? args : "{}");
	cJSON_free(args);
}

static int pf_add(struct tt_export *e, const cJSON *rec, const char *type)
{
	if (!e->pf.started && !e->written)
		put(e, PF_HEAD, sizeof(PF_HEAD) - 1);
	pf_record(e, rec, type);
	return 0;
}

static int pf_finish(struct tt_export *e)
{
	if (!e->written)
		put(e, PF_HEAD, sizeof(PF_HEAD) - 1);
	pf_close_slice(e);
	putf(e, "\n],\"metadata\":{\"exporter\":\"tracetap %s\",\"records\":%" PRIu64
		",\"skipped\":%" PRIu64 "}}\n", TT_VERSION, e->written, e->skipped);
	return e->err;
}

const struct tt_export_ops tt_export_perfetto = {
	.name = "perfetto", .content_type = "application/json", .ext = ".json",
	.record = pf_add, .finish = pf_finish,
};
