/* tests/nuttx/nx_fixture.c: a stand-in for a NuttX firmware ELF. Declares NuttX's note types the
 * way include/nuttx/sched_note.h and drivers/note/noteram_driver.c do for one configuration
 * (compiled with -g, -D below) and defines g_noteram_driver. Run, it prints what the compiler
 * itself made of them, for tests/nuttx/dwarf.sh to compare with what tracetap reads from the
 * DWARF:
 *   layout release=R ptr=P be=0 smp=S time64=T hdr=H align=A off=B,S,H,T,O bufsize=N pid=N
 *     hires=H
 *   driver=0xADDR          (address of g_noteram_driver: link with -no-pie)
 *   tasks pidhash=0xADDR npidhash=0xADDR pid=OFF,SIZE name=OFF,SIZE   (or: tasks none)
 *   notes taskname=0xADDR,SIZE struct_align=A    (or: notes none)
 *
 * -DFIX_RELEASE=1204|1207|1208|1213|1300, -DFIX_SMP, -DFIX_TIME64 (CONFIG_SYSTEM_TIME64),
 * -DFIX_FILTER (CONFIG_SCHED_INSTRUMENTATION_FILTER: name and filter in note_driver_s),
 * -DFIX_NONE (no noteram driver at all: a firmware built without CONFIG_DRIVERS_NOTERAM),
 * FIX_RELEASE=1203: g_noteram_info (struct noteram_info_s, 2 KiB buffer inline) and byte-array
 * headers; -DFIX_HIRES (sec + nsec arrays, else ticks), -DFIX_PID2 (16-bit pid_t).
 * -DFIX_SYSCALLS (CONFIG_SCHED_INSTRUMENTATION_SYSCALL with CONFIG_SYS_RESERVED 4: the syscall
 * enum as include/sys/syscall.h makes it, and syscall/syscall_names.c's g_funcnames[], the
 * first 60 names of NuttX's list in order).
 * -DFIX_TASKS (task names from the target: g_pidhash, g_npidhash, struct tcb_s with pid and
 * name[24]; from 12.4 also NuttX's task name cache g_note_taskname and struct note_event_s,
 * whose size gives the note structs' alignment; and the stack members the stack check reads,
 * adj_stack_size and stack_base_ptr, whose colour on this host's sim is 0xdeadbeef).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FIX_RELEASE
#define FIX_RELEASE 1300
#endif

#ifdef FIX_PID2
typedef int16_t pid_t_;
#else
typedef int32_t pid_t_;
#endif
#if FIX_RELEASE >= 1300 || defined(FIX_TIME64)
typedef uint64_t clock_t_;
typedef int64_t time_t_;
#else
typedef uint32_t clock_t_;
typedef int32_t time_t_;
#endif

enum note_type_e {
	NOTE_START = 0, NOTE_STOP, NOTE_SUSPEND, NOTE_RESUME, NOTE_CPU_START, NOTE_CPU_STARTED,
	NOTE_CPU_PAUSE, NOTE_CPU_PAUSED, NOTE_CPU_RESUME, NOTE_CPU_RESUMED, NOTE_PREEMPT_LOCK,
	NOTE_PREEMPT_UNLOCK, NOTE_CSECTION_ENTER, NOTE_CSECTION_LEAVE, NOTE_SPINLOCK_LOCK,
	NOTE_SPINLOCK_LOCKED, NOTE_SPINLOCK_UNLOCK, NOTE_SPINLOCK_ABORT, NOTE_SYSCALL_ENTER,
	NOTE_SYSCALL_LEAVE, NOTE_IRQ_ENTER, NOTE_IRQ_LEAVE,
#if FIX_RELEASE < 1204
	NOTE_DUMP_STRING, NOTE_DUMP_BINARY,
#elif FIX_RELEASE < 1207
	NOTE_DUMP_STRING, NOTE_DUMP_BINARY, NOTE_DUMP_BEGIN, NOTE_DUMP_END,
	NOTE_DUMP_MARK = 28, NOTE_DUMP_COUNTER,
#else
	NOTE_WDOG_START, NOTE_WDOG_CANCEL, NOTE_WDOG_ENTER, NOTE_WDOG_LEAVE, NOTE_HEAP_ADD,
	NOTE_HEAP_REMOVE, NOTE_HEAP_ALLOC, NOTE_HEAP_FREE, NOTE_DUMP_PRINTF, NOTE_DUMP_BEGIN,
	NOTE_DUMP_END, NOTE_DUMP_MARK,
#if FIX_RELEASE >= 1213
	NOTE_DUMP_BINARY,
#endif
	NOTE_DUMP_COUNTER,
#endif
	NOTE_TYPE_LAST
};

struct note_common_s {
	uint8_t nc_length;
	uint8_t nc_type;
	uint8_t nc_priority;
#if FIX_RELEASE >= 1208 || defined(FIX_SMP)
	uint8_t nc_cpu;
#endif
#if FIX_RELEASE < 1204
	uint8_t nc_pid[sizeof(pid_t_)];
#ifdef FIX_HIRES
	uint8_t nc_systime_sec[sizeof(time_t_)];
	uint8_t nc_systime_nsec[sizeof(long)];
#else
	uint8_t nc_systime[sizeof(clock_t_)];
#endif
#else
	pid_t_ nc_pid;
#endif
#if FIX_RELEASE < 1204
#elif FIX_RELEASE >= 1208
	clock_t_ nc_systime;
#else
	time_t_ nc_systime_sec;
	long nc_systime_nsec;
#endif
};

struct note_csection_s {
	struct note_common_s ncs_cmn;
#ifdef FIX_SMP
	uint16_t ncs_count;
#endif
};

struct note_irqhandler_s {
	struct note_common_s nih_cmn;
#if FIX_RELEASE >= 1203 && FIX_RELEASE < 1204
	uint8_t nih_handler[sizeof(uintptr_t)];
	uint8_t nih_irq;
#else
	uintptr_t nih_handler;
	uint8_t nih_irq;
#endif
};
volatile struct note_irqhandler_s g_irqnote;

#if FIX_RELEASE < 1204
struct noteram_info_s {
	unsigned int ni_overwrite;
	volatile unsigned int ni_head;
	volatile unsigned int ni_tail;
	volatile unsigned int ni_read;
	uint8_t ni_buffer[2048];
};
static struct noteram_info_s g_noteram_info;
#elif !defined(FIX_NONE)
struct note_driver_ops_s;
struct note_filter_s {
	uint32_t mode;
	uint8_t irq_mask[32];
	uint8_t syscall_mask[64];
};
struct note_driver_s {
#ifdef FIX_FILTER
	const char *name;
	struct note_filter_s filter;
#endif
	const struct note_driver_ops_s *ops;
};
struct noteram_driver_s {
	struct note_driver_s driver;
	uint8_t *ni_buffer;
	size_t ni_bufsize;
	unsigned int ni_overwrite;
	volatile unsigned int ni_head;
	volatile unsigned int ni_tail;
	volatile unsigned int ni_read;
};
struct noteram_driver_s g_noteram_driver;
#endif

#ifdef FIX_SMP
volatile uint32_t g_cpu_irqset;
#endif

volatile struct note_csection_s g_note;

#ifdef FIX_SYSCALLS
#define CONFIG_SYS_RESERVED 4
enum {
	SYS__exit = CONFIG_SYS_RESERVED, SYS_exit, SYS_get_errno, SYS_getpid,
	SYS_maxsyscall = CONFIG_SYS_RESERVED + 60
};
const char *g_funcnames[SYS_maxsyscall - CONFIG_SYS_RESERVED] = {
	"_exit", "exit", "get_errno", "getpid", "sched_getparam", "sched_getscheduler",
	"sched_lock", "sched_lockcount", "sched_rr_get_interval", "sched_setparam",
	"sched_setscheduler", "sched_unlock", "sched_yield", "set_errno", "uname", "sem_destroy",
	"sem_post", "sem_timedwait", "sem_trywait", "sem_wait", "task_create", "task_delete",
	"task_restart", "up_assert", "vfork", "atexit", "on_exit", "waitpid", "wait", "waitid",
	"kill", "sigaction", "sigpending", "sigprocmask", "sigqueue", "sigsuspend", "sigtimedwait",
	"sigwaitinfo", "nanosleep", "clock_systimer", "clock_getres", "clock_gettime",
	"clock_settime", "timer_create", "timer_delete", "timer_getoverrun", "timer_gettime",
	"timer_settime", "close", "ioctl", "read", "write", "pread", "pwrite", "poll", "select",
	"boardctl", "closedir", "dup", "dup2",
};
#endif

#ifdef FIX_TASKS
/* sched/sched/sched.h: the pid hash (a pointer since NuttX 10.3) and include/nuttx/sched.h's
 * struct tcb_s, cut to what comes before name[] in a typical configuration */
#define CONFIG_TASK_NAME_SIZE 23
struct tcb_s {
	struct tcb_s *flink, *blink;
	void *group;
	pid_t_ pid;
	uint8_t sched_priority, init_priority, task_state, flags;
	void *start, *entry;
	size_t adj_stack_size;
	void *stack_alloc_ptr, *stack_base_ptr;
	uint32_t waitdog[6];
	char name[CONFIG_TASK_NAME_SIZE + 1];
};
struct tcb_s **g_pidhash;
volatile int g_npidhash;
static struct tcb_s idle_tcb = { .pid = 0, .name = "Idle_Task" };
static struct tcb_s *hash_storage[4];
#if FIX_RELEASE >= 1204
/* drivers/note/note_driver.c (CONFIG_DRIVERS_NOTE_TASKNAME_BUFSIZE 96) */
struct note_taskname_s {
	size_t head, tail;
	char buffer[96];
};
struct note_taskname_s g_note_taskname;
struct note_event_s { /* include/nuttx/sched_note.h */
	struct note_common_s nev_cmn;
	uintptr_t nev_ip;
	uint8_t nev_data[1];
};
volatile struct note_event_s g_event;
struct note_preempt_s { /* its size tells the structs' alignment: 20 on i386, 24 elsewhere */
	struct note_common_s npr_cmn;
	uint16_t npr_count;
};
volatile struct note_preempt_s g_preempt;
#endif
#endif

int main(void)
{
	unsigned release = FIX_RELEASE >= 1213 ? 1213 : FIX_RELEASE;
	unsigned ptr = (unsigned)sizeof(void *);

	g_note.ncs_cmn.nc_type = NOTE_CSECTION_ENTER; /* the enumerators are used, as in NuttX */
#ifdef FIX_SYSCALLS
	if (g_funcnames[SYS_getpid - CONFIG_SYS_RESERVED][0] != 'g')
		return 1;
#endif
	if (g_note.ncs_cmn.nc_type == NOTE_TYPE_LAST - 1)
		return 1;
#ifdef FIX_NONE
	printf("layout none\n");
#else
#if FIX_RELEASE < 1204
	printf("layout release=%u ptr=%u be=0 smp=%d time64=%d hdr=%u align=1 off=%u,0,%u,%u,%u "
	       "bufsize=%u pid=%u hires=%d\n", FIX_RELEASE, ptr,
#ifdef FIX_SMP
	       1,
#else
	       0,
#endif
#ifdef FIX_HIRES
	       sizeof(((struct note_common_s *)0)->nc_systime_sec) == 8,
#else
	       sizeof(((struct note_common_s *)0)->nc_systime) == 8,
#endif
	       (unsigned)sizeof(struct note_common_s),
	       (unsigned)offsetof(struct noteram_info_s, ni_buffer),
	       (unsigned)offsetof(struct noteram_info_s, ni_head),
	       (unsigned)offsetof(struct noteram_info_s, ni_tail),
	       (unsigned)offsetof(struct noteram_info_s, ni_overwrite),
	       (unsigned)sizeof(g_noteram_info.ni_buffer), (unsigned)sizeof(pid_t_),
#ifdef FIX_HIRES
	       1);
#else
	       0);
#endif
	printf("driver=0x%lx\n", (unsigned long)(uintptr_t)&g_noteram_info);
#else
	printf("layout release=%u ptr=%u be=0 smp=%d time64=%d hdr=%u align=%u off=%u,%u,%u,%u,%u "
	       "bufsize=0 pid=0 hires=0\n",
	       release, ptr,
#ifdef FIX_SMP
	       1,
#else
	       0,
#endif
	       sizeof(((struct note_common_s *)0)->
#if FIX_RELEASE >= 1208
		      nc_systime
#else
		      nc_systime_sec
#endif
		      ) == 8,
	       (unsigned)sizeof(struct note_common_s), release < 1207 ? 1 : ptr,
	       (unsigned)offsetof(struct noteram_driver_s, ni_buffer),
	       (unsigned)offsetof(struct noteram_driver_s, ni_bufsize),
	       (unsigned)offsetof(struct noteram_driver_s, ni_head),
	       (unsigned)offsetof(struct noteram_driver_s, ni_tail),
	       (unsigned)offsetof(struct noteram_driver_s, ni_overwrite));
	printf("driver=0x%lx\n", (unsigned long)(uintptr_t)&g_noteram_driver);
#endif
#endif
#ifdef FIX_TASKS
	g_pidhash = hash_storage;
	g_npidhash = 4;
	g_pidhash[0] = &idle_tcb;
	printf("tasks pidhash=0x%lx npidhash=0x%lx pid=%u,%u name=%u,%u\n",
	       (unsigned long)(uintptr_t)&g_pidhash, (unsigned long)(uintptr_t)&g_npidhash,
	       (unsigned)offsetof(struct tcb_s, pid), (unsigned)sizeof(pid_t_),
	       (unsigned)offsetof(struct tcb_s, name), (unsigned)sizeof(idle_tcb.name));
	printf("stacks base=%u size=%u color=0xdeadbeef\n",
	       (unsigned)offsetof(struct tcb_s, stack_base_ptr),
	       (unsigned)offsetof(struct tcb_s, adj_stack_size));
#else
	printf("tasks none\nstacks none\n");
#endif
#if defined(FIX_TASKS) && FIX_RELEASE >= 1204
	/* tracetap's struct_align: 4 where it differs from the default (8 with a 64-bit clock) */
	printf("notes taskname=0x%lx,%u struct_align=%u\n",
	       (unsigned long)(uintptr_t)&g_note_taskname,
	       (unsigned)sizeof(g_note_taskname.buffer),
	       _Alignof(struct note_preempt_s) < 8 && sizeof(clock_t_) == 8 ? 4u : 0u);
#else
	printf("notes none\n");
#endif
	return 0;
}
