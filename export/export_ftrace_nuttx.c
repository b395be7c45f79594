/* export/export_ftrace_nuttx.c: NuttX notes in the form of NuttX's own `trace dump`
 * (drivers/note/noteram_driver.c noteram_dump_one; shared/reference/nuttx-note.md), with the
 * values NuttX gets wrong shown as the reader decoded them (a truncated syscall argument stays
 * "0x????3c10"). */
#include "export_int.h"

static struct ft_task *ft_task(struct tt_export *e, int32_t pid)
{
	return &e->ft.tasks[(uint32_t)pid % FT_NTASKS];
}

static const char *ft_name(struct tt_export *e, int32_t pid)
{
	struct ft_task *t = ft_task(e, pid);

	return t->used && t->pid == pid ? t->name : "<noname>";
}

static unsigned ft_pid(const struct tt_export *e, int32_t pid)
{
	return pid >= 0 && (unsigned)pid < e->ft.ncpus ? 0 : (unsigned)pid; /* idle tasks: 0 */
}

/* NuttX's get_task_state: 0 'X', up to running 'R', else 'S' (the decoded state names) */
static char ft_state(int s)
{
	return s == 0 ? 'X' : s > 0 && s < 100 ? 'R' : 'S';
}

static int ft_state_of(const cJSON *v)
{
	static const char *const run[] = { "pending", "ready", "assigned", "running" };

	if (cJSON_IsNumber(v))
		return v->valuedouble == 0 ? 0 : 100; /* configuration-dependent beyond the names */
	if (!cJSON_IsString(v) || !strcmp(v->valuestring, "invalid"))
		return 0;
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++)
		if (!strcmp(v->valuestring, run[i]))
			return 1;
	return 100;
}

/* An argument as NuttX prints a uintptr_t with 0x%PRIxPTR: hex without leading zeros; a
 * string that is not plain hex (a truncated argument, a name) as it is. */
static void ft_hex(const cJSON *v, char *out, size_t cap)
{
	char *end;

	if (cJSON_IsNumber(v)) {
		snprintf(out, cap, "0x%llx", (unsigned long long)tt_json_u64(v->valuedouble));
	} else if (cJSON_IsString(v) && !strncmp(v->valuestring, "0x", 2) &&
		   v->valuestring[2] && (strtoull(v->valuestring + 2, &end, 16), !*end)) {
		snprintf(out, cap, "0x%llx", strtoull(v->valuestring + 2, NULL, 16));
	} else {
		snprintf(out, cap, "%.40s", cJSON_IsString(v) ? v->valuestring : "?");
	}
}

static const cJSON *ft_arg(const cJSON *rec, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rec, "args"), k);
}

static const char *ft_str(const cJSON *rec, const char *k, char *buf, size_t cap)
{
	const cJSON *v = ft_arg(rec, k);

	if (cJSON_IsString(v))
		return v->valuestring;
	snprintf(buf, cap, "%.0f", cJSON_IsNumber(v) ? v->valuedouble : 0);
	return buf;
}

/* The word NuttX prints for a note's suffix: pairs { suffix, word }, NULL-terminated. */
static const char *ft_word(const char *const *pairs, const char *suffix)
{
	for (; pairs[0]; pairs += 2)
		if (!strcmp(pairs[0], suffix))
			return pairs[1];
	return "?";
}

static void ft_header(struct tt_export *e, const cJSON *rec, int32_t pid, unsigned cpu)
{
	double ns = num(rec, "ns", -1);
	uint64_t t = ns >= 0 ? tt_json_u64(ns) : tt_json_u64(num(rec, "time", 0));

	putf(e, "%8s-%-3u [%u] %3llu.%09llu: ", ft_name(e, pid), ft_pid(e, pid), cpu,
	     (unsigned long long)(t / 1000000000u), (unsigned long long)(t % 1000000000u));
}

static void ft_switch(struct tt_export *e, struct ft_cpu *c)
{
	putf(e, "sched_switch: prev_comm=%s prev_pid=%u prev_prio=%u prev_state=%c ==> "
		"next_comm=%s next_pid=%u next_prio=%u\n", ft_name(e, c->cur_pid),
	     ft_pid(e, c->cur_pid), (unsigned)c->cur_prio & 0xff, ft_state(c->state),
	     ft_name(e, c->next_pid), ft_pid(e, c->next_pid), (unsigned)c->next_prio & 0xff);
	c->cur_pid = c->next_pid;
	c->cur_prio = c->next_prio;
	c->pending = false;
}

/* Tasks starting, stopping and switching. */
static bool ft_sched(struct tt_export *e, const cJSON *rec, const char *name, int32_t pid,
		     unsigned cpu)
{
	struct ft_cpu *c = &e->ft.cpu[cpu];

	if (!strcmp(name, "START")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "sched_wakeup_new: comm=%s pid=%u target_cpu=%u\n", ft_name(e, pid),
		     ft_pid(e, pid), cpu);
	} else if (!strcmp(name, "STOP")) {
		c->state = 0;
	} else if (!strcmp(name, "SUSPEND")) {
		c->state = ft_state_of(ft_arg(rec, "state"));
	} else if (!strcmp(name, "RESUME")) {
		c->next_pid = pid;
		c->next_prio = tt_json_i32(num(rec, "prio", 0));
		ft_header(e, rec, pid, cpu);
		if (!c->intr_nest) {
			ft_switch(e, c);
		} else {
			putf(e, "sched_waking: comm=%s pid=%u target_cpu=%u\n", ft_name(e, pid),
			     ft_pid(e, pid), cpu);
			c->pending = true;
		}
	} else {
		return false;
	}
	return true;
}

/* System calls and interrupts. */
static bool ft_sys_irq(struct tt_export *e, const cJSON *rec, const char *name, int32_t pid,
		       unsigned cpu)
{
	struct ft_cpu *c = &e->ft.cpu[cpu];
	char b1[48], b2[48];

	if (!strcmp(name, "SYSCALL_ENTER")) {
		const char *nr = ft_str(rec, "nr", b1, sizeof(b1));
		char args[400];
		size_t n = 0;

		args[0] = 0;
		for (int i = 0; i < 6; i++) {
			char k[8];
			snprintf(k, sizeof(k), "arg%d", i);
			if (!ft_arg(rec, k))
				break;
			ft_hex(ft_arg(rec, k), b2, sizeof(b2));
			n += (size_t)snprintf(args + n, sizeof(args) - n, "%sarg%d: %s",
					      i ? ", " : "", i, b2);
		}
		ft_header(e, rec, pid, cpu);
		putf(e, "sys_%s(%s)\n", nr, args);
	} else if (!strcmp(name, "SYSCALL_LEAVE")) {
		ft_hex(ft_arg(rec, "result"), b2, sizeof(b2));
		ft_header(e, rec, pid, cpu);
		putf(e, "sys_%s -> %s\n", ft_str(rec, "nr", b1, sizeof(b1)), b2);
	} else if (!strcmp(name, "IRQ_ENTER")) {
		ft_hex(ft_arg(rec, "handler"), b2, sizeof(b2));
		ft_header(e, rec, pid, cpu);
		putf(e, "irq_handler_entry: irq=%s name=%s\n", ft_str(rec, "irq", b1, sizeof(b1)),
		     b2);
		c->intr_nest++;
	} else if (!strcmp(name, "IRQ_LEAVE")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "irq_handler_exit: irq=%s ret=handled\n", ft_str(rec, "irq", b1,
									  sizeof(b1)));
		if (--c->intr_nest <= 0) {
			c->intr_nest = 0;
			if (c->pending) {
				ft_header(e, rec, pid, cpu);
				ft_switch(e, c);
			}
		}
	} else {
		return false;
	}
	return true;
}

/* Watchdogs, critical sections and the scheduler lock. */
static bool ft_marks(struct tt_export *e, const cJSON *rec, const char *name, int32_t pid,
		     unsigned cpu)
{
	char b1[48], b2[48], b3[48];

	if (!strncmp(name, "WDOG_", 5)) {
		static const char *const wd[] = { "START", "start", "CANCEL", "cancel", "ENTER",
						  "enter", "LEAVE", "leave", NULL };
		const char *w = ft_word(wd, name + 5);
		ft_hex(ft_arg(rec, "handler"), b2, sizeof(b2));
		ft_hex(ft_arg(rec, "arg"), b3, sizeof(b3));
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: I|%u|wdog: %s-%s %s\n", ft_pid(e, pid), w, b2, b3);
	} else if (!strncmp(name, "CSECTION_", 9)) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: %c|%u|critical_section\n",
		     !strcmp(name + 9, "ENTER") ? 'B' : 'E', ft_pid(e, pid));
	} else if (!strncmp(name, "PREEMPT_", 8)) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: %c|%u|sched_lock:%s\n",
		     !strcmp(name + 8, "LOCK") ? 'B' : 'E', ft_pid(e, pid),
		     ft_str(rec, "count", b1, sizeof(b1)));
	} else {
		return false;
	}
	return true;
}

/* What the firmware wrote itself (dump notes) and heap use. */
static bool ft_dump(struct tt_export *e, const cJSON *rec, const char *name, int32_t pid,
		    unsigned cpu)
{
	char b1[48], b2[48], b3[48];

	if (!strcmp(name, "DUMP_BEGIN") || !strcmp(name, "DUMP_END")) {
		const cJSON *t = ft_arg(rec, "text");
		ft_hex(ft_arg(rec, "ip"), b2, sizeof(b2));
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: %c|%u|%.511s\n", name[5] == 'B' ? 'B' : 'E',
		     ft_pid(e, pid), cJSON_IsString(t) && *t->valuestring ? t->valuestring : b2);
	} else if (!strcmp(name, "DUMP_MARK") || !strcmp(name, "DUMP_STRING")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: I|%u|%.511s\n", ft_pid(e, pid),
		     ft_str(rec, "text", b1, sizeof(b1)));
	} else if (!strcmp(name, "DUMP_COUNTER")) {
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: C|%u|%.64s|%s\n", ft_pid(e, pid),
		     ft_str(rec, "name", b1, sizeof(b1)), ft_str(rec, "value", b2, sizeof(b2)));
	} else if (!strcmp(name, "DUMP_PRINTF")) {
		/* the text rendered with the ELF's format string (NuttX prints it as it is; a
		 * trailing newline is the line's end), else the format's address and the packed
		 * arguments in hex */
		const cJSON *t = ft_arg(rec, "text");
		ft_header(e, rec, pid, cpu);
		if (cJSON_IsString(t)) {
			size_t n = strlen(t->valuestring);
			n -= n && t->valuestring[n - 1] == '\n';
			putf(e, "tracing_mark_write: %.*s\n", (int)(n < 511 ? n : 511),
			     t->valuestring);
		} else {
			ft_hex(ft_arg(rec, "fmt"), b2, sizeof(b2));
			putf(e, "tracing_mark_write: %s %.511s\n", b2,
			     ft_str(rec, "data", b1, sizeof(b1)));
		}
	} else if (!strncmp(name, "HEAP_", 5)) {
		static const char *const hp[] = { "ADD", "add", "REMOVE", "remove", "ALLOC",
						  "malloc", "FREE", "free", NULL };
		const char *h = ft_word(hp, name + 5);
		char b4[48];
		ft_hex(ft_arg(rec, "heap"), b2, sizeof(b2));
		ft_hex(ft_arg(rec, "mem"), b3, sizeof(b3));
		ft_header(e, rec, pid, cpu);
		putf(e, "tracing_mark_write: C|%u|Heap Usage|%s|%s: heap: %s size:%s, address: "
			"%s\n", ft_pid(e, pid), ft_str(rec, "used", b1, sizeof(b1)), h, b2,
		     ft_str(rec, "size", b4, sizeof(b4)), b3);
	} else {
		return false;
	}
	return true;
}

void tt_export_ftrace_nuttx_reset(struct tt_export *e)
{
	for (unsigned i = 0; i < FT_NCPUS; i++)
		e->ft.cpu[i] = (struct ft_cpu){ .state = 1, .cur_pid = -1, .next_pid = -1,
					     .cur_prio = -1, .next_prio = -1 };
}

void tt_export_ftrace_nuttx(struct tt_export *e, const cJSON *rec, const char *name)
{
	int32_t pid = (int32_t)hexnum(rec, "thread");
	double core = num(rec, "core", 0);
	unsigned cpu = core >= 0 && core < FT_NCPUS ? (unsigned)core : 0;
	struct ft_cpu *c = &e->ft.cpu[cpu];
	const char *tn = str(rec, "thread_name");

	if (cpu + 1 > e->ft.ncpus)
		e->ft.ncpus = cpu + 1;
	if (tn) { /* NuttX's copy_task_name: spaces become '_' */
		struct ft_task *t = ft_task(e, pid);
		t->pid = pid;
		t->used = true;
		snprintf(t->name, sizeof(t->name), "%s", tn);
		for (char *s = t->name; *s; s++)
			if (*s == ' ')
				*s = '_';
	}
	if (c->cur_pid < 0)
		c->cur_pid = pid;
	name += 5; /* "NOTE_" */
	/* CPU_*, SPINLOCK_*, DUMP_BINARY and unknown notes: no line, as in NuttX's dump */
	if (!ft_sched(e, rec, name, pid, cpu) && !ft_sys_irq(e, rec, name, pid, cpu) &&
	    !ft_marks(e, rec, name, pid, cpu))
		ft_dump(e, rec, name, pid, cpu);
}
