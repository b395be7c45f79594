/* export/export_ftrace.c: text in the style of Linux ftrace's `trace` file (see export.h). */
#include "export_int.h"

/* A small stable pid per thread, as ftrace viewers expect (1, 2, ... in the order first
 * seen; past FT_NTASKS threads, FT_NTASKS + 1 + the pointer's low bits). */
static unsigned ft_tid(struct tt_export *e, uint32_t thread)
{
	for (unsigned i = 0; i < e->ft.nthreads; i++)
		if (e->ft.threads[i] == thread)
			return i + 1;
	if (e->ft.nthreads == FT_NTASKS)
		return FT_NTASKS + 1 + (thread >> 2 & 0x7fff);
	e->ft.threads[e->ft.nthreads++] = thread;
	return e->ft.nthreads;
}

/* A task name as ftrace writes comm: at most 15 characters, no spaces or dashes' ambiguity
 * with the pid (spaces and control characters become '_'). */
static void ft_comm(char *out, size_t cap, const char *name)
{
	size_t n = 0;

	for (; *name && n + 1 < cap && n < 15; name++)
		out[n++] = (unsigned char)*name <= ' ' ? '_' : *name;
	out[n] = '\0';
}

/* Appends to line[0..cap) at n, cut to leave room for a '\n'; returns the new length. */
static size_t ft_add(char *line, size_t cap, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t ft_add(char *line, size_t cap, size_t n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (n + 2 > cap)
		return n;
	va_start(ap, fmt);
	k = vsnprintf(line + n, cap - 1 - n, fmt, ap);
	va_end(ap);
	if (k < 0)
		return n;
	return n + (size_t)k < cap - 2 ? n + (size_t)k : cap - 2;
}

static int ft_record(struct tt_export *e, const cJSON *rec, const char *type)
{
	double ns = num(rec, "ns", -1);
	double secs = ns >= 0 ? ns / 1e9 : num(rec, "time", 0) / 1e6;
	char task[80], line[2048];
	size_t n;
	const char *name = str(rec, "name");
	bool nuttx = !strcmp(type, "event") && name && !strncmp(name, "NOTE_", 5);

	if (!e->written && nuttx) {
		e->ft.nuttx = true;
		tt_export_ftrace_nuttx_reset(e);
		putf(e, "# tracer: nop\n#\n");
	}
	if (e->ft.nuttx && nuttx) {
		tt_export_ftrace_nuttx(e, rec, name);
		return 0;
	}
	if (e->ft.nuttx && !strcmp(type, "reset")) /* another boot: the dump starts over */
		tt_export_ftrace_nuttx_reset(e);
	if (!e->written && !e->ft.nuttx)
		putf(e, "# tracer: nop\n#\n# tracetap export (times: ns when the tick rate is "
			"known, else ticks as microseconds)\n#\n#           TASK-PID     CPU#  "
			"TIMESTAMP  FUNCTION\n#              | |         |       |         |\n");
	if (strcmp(type, "event")) {
		putf(e, "%16s-%-7d [000] %12.6f: tracetap_%s: seq=%.0f lost=%.0f reason=\"%.200s\"\n",
		     "<tracetap>", 0, secs, type, num(rec, "seq", 0), num(rec, "lost", 0),
		     str(rec, "reason") ? str(rec, "reason") : "");
		return 0;
	}
	const char *ctx = str(rec, "ctx");
	if (ctx && !strcmp(ctx, "thread")) {
		char comm[16];
		ft_comm(comm, sizeof(comm), str(rec, "thread_name") ? str(rec, "thread_name")
								    : "thread");
		snprintf(task, sizeof(task), "%s-%u", comm,
			 ft_tid(e, (uint32_t)hexnum(rec, "thread")));
	} else
		snprintf(task, sizeof(task), "<%s>-0", ctx ? ctx : "unknown");
	/* Fields from the wire are cut to fit one line: n stays below the end, the '\n' fits. */
	n = ft_add(line, sizeof(line), 0, "%24s [%03.0f] %12.6f: %.200s:", task,
		   num(rec, "core", 0), secs, str(rec, "name") ? str(rec, "name") : "?");
	const cJSON *a;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(rec, "args")) {
		if (cJSON_IsString(a))
			n = ft_add(line, sizeof(line), n, " %.60s=%.60s", a->string, a->valuestring);
		else
			n = ft_add(line, sizeof(line), n, " %.60s=%.0f", a->string, a->valuedouble);
	}
	line[n++] = '\n';
	put(e, line, n);
	return 0;
}

const struct tt_export_ops tt_export_ftrace = {
	.name = "ftrace", .content_type = "text/plain", .ext = ".txt", .record = ft_record,
};
