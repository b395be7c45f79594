/* tests/nuttx/test_nuttx_ftrace.c: the ftrace export of NuttX records (export/export.c) against
 * text written by hand from NuttX's noteram_dump_one (shared/reference/nuttx-note.md, ftrace
 * section): `# tracer: nop`, the `%8s-%-3u [%d] %3u.%09u: ` prefix, sched_wakeup_new, a
 * SUSPEND+RESUME pair as sched_switch (prev_prio 255 for the unknown first task, as NuttX
 * prints it), a RESUME inside an interrupt as sched_waking with the switch at the interrupt's
 * exit, sys_NAME(arg...) / sys_NAME -> result with the truncated argument kept as "0x????3c10"
 * (NuttX prints invented upper bytes), tracing_mark_write B|/E|/I|/C| lines, no line for
 * spinlocks, a printf note as its rendered text (or, without the ELF, the format address and the
 * packed bytes), and a gap record as tracetap's own line. The records are the wire JSON the
 * daemon sends for NuttX notes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../tt_test.h"

#include "export.h"

struct buf {
	char p[8192];
	size_t len;
};

static int collect(void *arg, const void *data, size_t len)
{
	struct buf *b = arg;

	if (b->len + len >= sizeof(b->p))
		return -1;
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

#define EV(ns, pid, prio, name, extra) \
	"{\"type\":\"event\",\"name\":\"NOTE_" name "\",\"ctx\":\"thread\",\"core\":0," \
	"\"thread\":\"0x0000000" #pid "\"," extra "\"prio\":" #prio ",\"ns\":" #ns ","

static const char *const recs[] = {
	EV(1000000000, 0, 0, "START", "\"thread_name\":\"Idle Task\",")
		"\"args\":{\"name\":\"Idle Task\"}}",
	EV(1000001000, 2, 224, "START", "\"thread_name\":\"hpwork\",") "\"args\":{\"name\":\"hpwork\"}}",
	EV(1000002000, 4, 100, "START", "\"thread_name\":\"nsh_main\",")
		"\"args\":{\"name\":\"nsh_main\"}}",
	EV(2550100000, 0, 0, "SUSPEND", "") "\"args\":{\"state\":\"ready\"}}",
	EV(2550107141, 2, 224, "RESUME", "") "\"args\":{}}",
	EV(2600000000, 2, 224, "IRQ_ENTER", "") "\"args\":{\"irq\":14,\"handler\":\"0x4002d13a\"}}",
	EV(2600000100, 2, 224, "SUSPEND", "") "\"args\":{\"state\":\"wait_sem\"}}",
	EV(2600000200, 4, 100, "RESUME", "") "\"args\":{}}",
	EV(2600000300, 2, 224, "IRQ_LEAVE", "") "\"args\":{\"irq\":14,\"handler\":\"0x4002d13a\"}}",
	EV(3000000000, 4, 100, "SYSCALL_ENTER", "") "\"args\":{\"nr\":\"clock_nanosleep\","
		"\"arg0\":\"0x00000000\",\"arg1\":\"0x00000000\",\"arg2\":\"0x????3c10\"}}",
	EV(3560084651, 4, 100, "SYSCALL_LEAVE", "") "\"args\":{\"nr\":\"clock_nanosleep\","
		"\"result\":\"0x00000000\"}}",
	EV(3560090000, 4, 100, "SYSCALL_ENTER", "") "\"args\":{\"nr\":61,\"arg0\":\"0x00000003\"}}",
	EV(3600000000, 4, 100, "PREEMPT_LOCK", "") "\"args\":{\"count\":1}}",
	EV(3600000001, 4, 100, "CSECTION_ENTER", "") "\"args\":{}}",
	EV(3600000002, 4, 100, "SPINLOCK_LOCK", "") "\"args\":{\"spinlock\":\"0x20000040\",\"value\":0}}",
	EV(3600000003, 4, 100, "CSECTION_LEAVE", "") "\"args\":{}}",
	EV(3600000004, 4, 100, "PREEMPT_UNLOCK", "") "\"args\":{\"count\":0}}",
	EV(3700000000, 4, 100, "DUMP_COUNTER", "") "\"args\":{\"ip\":\"0x08005000\",\"tag\":0,"
		"\"value\":-5,\"name\":\"fifo\"}}",
	EV(3700000001, 4, 100, "DUMP_BEGIN", "") "\"args\":{\"ip\":\"0x08005000\",\"tag\":0}}",
	EV(3700000002, 4, 100, "DUMP_END", "") "\"args\":{\"ip\":\"0x08005000\",\"tag\":0,"
		"\"text\":\"work\"}}",
	EV(3700000003, 4, 100, "DUMP_MARK", "") "\"args\":{\"ip\":\"0x08005000\",\"tag\":0,"
		"\"text\":\"hello\"}}",
	EV(3800000000, 4, 100, "HEAP_ALLOC", "") "\"args\":{\"heap\":\"0x20010000\","
		"\"mem\":\"0x20010100\",\"size\":64,\"used\":512}}",
	EV(3900000000, 4, 100, "WDOG_START", "") "\"args\":{\"handler\":\"0x08001000\","
		"\"arg\":\"0x00000007\"}}",
	EV(3900000001, 4, 100, "DUMP_PRINTF", "") "\"args\":{\"ip\":\"0x08001000\","
		"\"fmt\":\"0x08010000\",\"tag\":0,\"arg_types\":\"0x00000000\",\"data\":\"2a000000\","
		"\"text\":\"answer=42\\n\"}}",
	EV(3900000002, 4, 100, "DUMP_PRINTF", "") "\"args\":{\"ip\":\"0x08001000\","
		"\"fmt\":\"0x08010000\",\"tag\":0,\"arg_types\":\"0x00000000\",\"data\":\"2a000000\"}}",
	"{\"type\":\"gap\",\"lost\":3,\"exact\":true,\"reason\":\"lapped\"}",
};

static const char want[] =
	"# tracer: nop\n"
	"#\n"
	"Idle_Task-0   [0]   1.000000000: sched_wakeup_new: comm=Idle_Task pid=0 target_cpu=0\n"
	"  hpwork-2   [0]   1.000001000: sched_wakeup_new: comm=hpwork pid=2 target_cpu=0\n"
	"nsh_main-4   [0]   1.000002000: sched_wakeup_new: comm=nsh_main pid=4 target_cpu=0\n"
	"  hpwork-2   [0]   2.550107141: sched_switch: prev_comm=Idle_Task prev_pid=0 prev_prio=255 "
	"prev_state=R ==> next_comm=hpwork next_pid=2 next_prio=224\n"
	"  hpwork-2   [0]   2.600000000: irq_handler_entry: irq=14 name=0x4002d13a\n"
	"nsh_main-4   [0]   2.600000200: sched_waking: comm=nsh_main pid=4 target_cpu=0\n"
	"  hpwork-2   [0]   2.600000300: irq_handler_exit: irq=14 ret=handled\n"
	"  hpwork-2   [0]   2.600000300: sched_switch: prev_comm=hpwork prev_pid=2 prev_prio=224 "
	"prev_state=S ==> next_comm=nsh_main next_pid=4 next_prio=100\n"
	"nsh_main-4   [0]   3.000000000: sys_clock_nanosleep(arg0: 0x0, arg1: 0x0, arg2: 0x????3c10)\n"
	"nsh_main-4   [0]   3.560084651: sys_clock_nanosleep -> 0x0\n"
	"nsh_main-4   [0]   3.560090000: sys_61(arg0: 0x3)\n"
	"nsh_main-4   [0]   3.600000000: tracing_mark_write: B|4|sched_lock:1\n"
	"nsh_main-4   [0]   3.600000001: tracing_mark_write: B|4|critical_section\n"
	"nsh_main-4   [0]   3.600000003: tracing_mark_write: E|4|critical_section\n"
	"nsh_main-4   [0]   3.600000004: tracing_mark_write: E|4|sched_lock:0\n"
	"nsh_main-4   [0]   3.700000000: tracing_mark_write: C|4|fifo|-5\n"
	"nsh_main-4   [0]   3.700000001: tracing_mark_write: B|4|0x8005000\n"
	"nsh_main-4   [0]   3.700000002: tracing_mark_write: E|4|work\n"
	"nsh_main-4   [0]   3.700000003: tracing_mark_write: I|4|hello\n"
	"nsh_main-4   [0]   3.800000000: tracing_mark_write: C|4|Heap Usage|512|malloc: heap: "
	"0x20010000 size:64, address: 0x20010100\n"
	"nsh_main-4   [0]   3.900000000: tracing_mark_write: I|4|wdog: start-0x8001000 0x7\n"
	"nsh_main-4   [0]   3.900000001: tracing_mark_write: answer=42\n"
	"nsh_main-4   [0]   3.900000002: tracing_mark_write: 0x8010000 2a000000\n"
	"      <tracetap>-0       [000]     0.000000: tracetap_gap: seq=0 lost=3 reason=\"lapped\"\n";

int main(void)
{
	static struct buf out;
	struct tt_export *e;

	REQUIRE(tt_export_new(TT_EXPORT_FTRACE, collect, &out, &e) >= 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		if (tt_export_record(e, recs[i], strlen(recs[i])) < 0)
			FAIL("record %zu refused: %s", i, recs[i]);
	CHECK(tt_export_finish(e) >= 0);
	tt_export_free(e);
	if (strcmp(out.p, want)) {
		const char *a = out.p, *b = want;
		while (*a && *a == *b)
			a++, b++;
		FAIL("ftrace differs at byte %zu\n--- got\n%s--- want\n%s", (size_t)(a - out.p),
		     out.p, want);
	}
	printf("nuttx ftrace: %zu bytes, %s\n", out.len, tt_test_failures ? "FAIL" : "ok");
	return tt_test_done();
}
