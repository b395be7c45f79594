/* tests/nuttx/test_nuttx_decode.c: tt_nuttx_decode_image on images the writer built: empty,
 * partial, wrapped (records split across the end), every note type with names and arguments for
 * both pointer sizes, truncated syscall arguments, other releases' headers, big-endian, and the
 * record-stream form. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tt_test.h"
#include "nxtest.h"

#define BASE 0x20000000u

static struct nxlog lg;

static int decode(struct nxw *w, uint64_t tick_hz)
{
	char err[256] = "";
	int rc;

	nxlog_clear(&lg);
	rc = tt_nuttx_decode_image(w->ram, w->ram_len, w->base, w->drv, &w->lo, tick_hz, nxlog_cb,
				   &lg, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "decode: %s\n", err);
	return rc;
}

static void test_empty_and_partial(void)
{
	struct nxw w;
	uint8_t rec[256];

	nxw_init(&w, NULL, 8192, BASE, 0, 1024, 4096);
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 0);

	nxw_add(&w, rec, nxw_start(&w, rec, 3, 100, "nsh_main"));
	nxw_add(&w, rec, nxw_hdr(&w, rec, w.hdr + 1, 2, 3, 100, 0));
	nxw_add(&w, rec, nxw_simple(&w, rec, 3, 3, 100));
	CHECK_EQ(decode(&w, 1000000), 0);
	CHECK_EQ(lg.n, 3);
	CHECK_STR(lg.r[0].name, "NOTE_START");
	CHECK_STR(nxarg(&lg.r[0], "name"), "nsh_main");
	CHECK_STR(lg.r[0].thread_name, "nsh_main");
	CHECK_EQ(lg.r[0].thread, 3);
	CHECK_EQ(lg.r[0].prio, 100);
	CHECK_EQ(lg.r[0].core, 0);
	CHECK_EQ(lg.r[0].time, 1000);
	CHECK_EQ(lg.r[0].addr, BASE + 1024);
	CHECK_EQ(lg.r[0].nraw, (16 + 9 + 3) / 4);
	CHECK_STR(lg.r[1].name, "NOTE_SUSPEND");
	CHECK_STR(nxarg(&lg.r[1], "state"), "invalid");
	CHECK_STR(lg.r[1].thread_name, "nsh_main");
	CHECK_EQ(lg.r[1].addr, BASE + 1024 + 28); /* 25 bytes aligned to 4 */
	CHECK_STR(lg.r[2].name, "NOTE_RESUME");
	CHECK_EQ(lg.r[2].time, 3000);
	CHECK(lg.r[2].has_ns);
	CHECK_EQ(lg.r[2].ns, 2000u * 1000); /* 2000 ticks at 1 MHz */
	nxw_free(&w);
}

static void test_wrapped(void)
{
	struct nxw w;
	uint8_t rec[256];
	int split = 0;

	nxw_init(&w, NULL, 4096, BASE, 0, 512, 300);
	for (uint32_t i = 0; i < 200; i++) {
		unsigned len = nxw_any(&w, rec, i);
		uint32_t h = nxw_head(&w);
		if (h + len > w.size)
			split++;
		nxw_add(&w, rec, len);
	}
	CHECK(split > 3);
	CHECK(w.dropped > 150);
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, w.written - w.dropped);
	for (size_t i = 1; i < lg.n; i++)
		CHECK_EQ(lg.r[i].time, lg.r[i - 1].time + 1000);
	CHECK_EQ(lg.r[lg.n - 1].time, 1000u * 200);
	nxw_free(&w);
}

/* Every note type through the writer, for one layout. */
static void every_type(unsigned ptr)
{
	struct tt_nuttx_layout lo;
	struct nxw w;
	uint8_t rec[256];
	unsigned a, len, n = 0;
	uint64_t big = ptr == 8 ? 0x7f45e6343c10ull : 0x40003c00u;
	char hex[40];

	tt_nuttx_layout_default(&lo, ptr);
	lo.smp = true;
	nxw_init(&w, &lo, 16384, BASE, 64, 1024, 8192);
	a = (w.hdr + ptr - 1) / ptr * ptr;
	nxw_add(&w, rec, nxw_start(&w, rec, 7, 120, "worker")); n++;
	nxw_add(&w, rec, nxw_simple(&w, rec, 1, 7, 120)); n++;
	for (unsigned t = 4; t <= 9; t++) {
		len = nxw_hdr(&w, rec, (t % 2 == 0) ? w.hdr + 1 : w.hdr, t, 7, 120, 1);
		rec[w.hdr] = 1;
		nxw_add(&w, rec, len); n++;
	}
	for (unsigned t = 10; t <= 13; t++) {
		len = nxw_hdr(&w, rec, w.hdr + 2, t, 7, 120, 0);
		nxw_put(&w, rec + w.hdr, 5, 2);
		nxw_add(&w, rec, len); n++;
	}
	for (unsigned t = 14; t <= 17; t++) {
		len = nxw_hdr(&w, rec, a + ptr + 1, t, 7, 120, 0);
		nxw_put(&w, rec + a, big, ptr);
		rec[a + ptr] = 1;
		nxw_add(&w, rec, len); n++;
	}
	nxw_add(&w, rec, nxw_syscall_enter(&w, rec, 7, 42, 4,
					   (const uint64_t[]){ 0, 1, big, 0x11223344 })); n++;
	len = nxw_hdr(&w, rec, (w.hdr + 1 + ptr - 1) / ptr * ptr + ptr, 19, 7, 120, 0);
	rec[w.hdr] = 42;
	nxw_put(&w, rec + (w.hdr + 1 + ptr - 1) / ptr * ptr, big, ptr);
	nxw_add(&w, rec, len); n++;
	for (unsigned t = 20; t <= 21; t++) {
		len = nxw_hdr(&w, rec, a + ptr + 1, t, 7, 120, 0);
		nxw_put(&w, rec + a, 0x8001234, ptr);
		rec[a + ptr] = 14;
		nxw_add(&w, rec, len); n++;
	}
	for (unsigned t = 22; t <= 25; t++) {
		nxw_add(&w, rec, nxw_ptrs(&w, rec, t, 7, 2, (const uint64_t[]){ 0x8002000, big }));
		n++;
	}
	for (unsigned t = 26; t <= 29; t++) {
		nxw_add(&w, rec, nxw_ptrs(&w, rec, t, 7, 4,
					  (const uint64_t[]){ 0x20010000, big, 64, 4096 }));
		n++;
	}
	/* The note structs are aligned as their 8-byte clock_t (ARM EABI, x86-64): NuttX stores
	 * SIZEOF_NOTE_PRINTF(n) = sizeof(struct note_printf_s) + n - 1 and SIZEOF_NOTE_EVENT(n) =
	 * sizeof(struct note_event_s) + n bytes (a text without its NUL): the padding after the
	 * data is not data. DUMP_PRINTF: ip, fmt, tag, type, 4 bytes of data. */
	unsigned pfsz = (a + 2 * ptr + 8 + 1 + 7) / 8 * 8; /* sizeof(note_printf_s) */
	unsigned evsz = (a + ptr + 4 + 1 + 7) / 8 * 8;     /* sizeof(note_event_s) */
	memset(rec, 0xee, sizeof(rec)); /* stale bytes in the padding */
	len = nxw_hdr(&w, rec, pfsz + 4 - 1, 30, 7, 120, 0);
	nxw_put(&w, rec + a, 0x8003000, ptr);
	nxw_put(&w, rec + a + ptr, 0x8004000, ptr);
	nxw_put(&w, rec + a + 2 * ptr, 9, 4);
	nxw_put(&w, rec + a + 2 * ptr + 4, 0, 4);
	nxw_put(&w, rec + a + 2 * ptr + 8, 0xdeadbeef, 4);
	nxw_add(&w, rec, len); n++;
	/* DUMP_BEGIN/END/MARK with a name; BINARY; COUNTER */
	const char *strs[3] = { "sched_lock", "sched_lock", "mark here\n" }; /* nsh ends its
									  * command notes with a newline */
	for (unsigned t = 31; t <= 33; t++) {
		unsigned sl = (unsigned)strlen(strs[t - 31]);
		len = nxw_hdr(&w, rec, evsz + sl, t, 7, 120, 0);
		nxw_put(&w, rec + a, 0x8005000, ptr);
		nxw_put(&w, rec + a + ptr, 3, 4);
		memcpy(rec + a + ptr + 4, strs[t - 31], sl);
		nxw_add(&w, rec, len); n++;
	}
	len = nxw_hdr(&w, rec, evsz + 3, 34, 7, 120, 0);
	nxw_put(&w, rec + a, 0x8005000, ptr);
	memcpy(rec + a + ptr + 4, "\x01\x02\x03", 3);
	nxw_add(&w, rec, len); n++;
	len = nxw_hdr(&w, rec, a + ptr + 4 + ptr + 5, 35, 7, 120, 0);
	nxw_put(&w, rec + a, 0x8005000, ptr);
	nxw_put(&w, rec + a + ptr + 4, (uint64_t)-5, ptr);
	memcpy(rec + a + ptr + 4 + ptr, "fifo", 5);
	nxw_add(&w, rec, len); n++;
	nxw_add(&w, rec, nxw_simple(&w, rec, 77, 7, 120)); n++;
	/* task_spawn passes 6 arguments (MAX_SYSCALL_ARGS): all of them are shown */
	nxw_add(&w, rec, nxw_syscall_enter(&w, rec, 7, 27, 6,
					   (const uint64_t[]){ 1, 2, 3, 4, 5, 0x66778899 })); n++;

	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, n);
	for (size_t i = 0; i < lg.n; i++) {
		CHECK_STR(lg.r[i].thread_name, "worker");
		CHECK_EQ(lg.r[i].thread, 7);
		CHECK(lg.r[i].prio == 120 || lg.r[i].prio == 100);
		if (lg.r[i].id < 36)
			CHECK_STR(lg.r[i].name, tt_nuttx_type_name(1300, lg.r[i].id));
	}
	const struct nxrec *r = lg.r;
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)big);
	CHECK_STR(r[1].name, "NOTE_STOP");
	CHECK_STR(r[2].name, "NOTE_CPU_START");
	CHECK_STR(nxarg(&r[2], "target_cpu"), "1");
	CHECK_EQ(r[2].core, 1);
	CHECK_EQ(r[3].nargs, 0);
	CHECK_STR(nxarg(&r[8], "count"), "5");     /* PREEMPT_LOCK */
	CHECK_STR(nxarg(&r[10], "count"), "5");    /* CSECTION_ENTER (SMP) */
	CHECK_STR(r[12].name, "NOTE_SPINLOCK_LOCK");
	CHECK_STR(nxarg(&r[12], "spinlock"), hex);
	CHECK_STR(nxarg(&r[12], "value"), "1");
	const struct nxrec *sc = &r[16];
	CHECK_STR(sc->name, "NOTE_SYSCALL_ENTER");
	CHECK_STR(nxarg(sc, "nr"), "42");
	CHECK_STR(nxarg(sc, "arg0"), "0x0");
	CHECK_STR(nxarg(sc, "arg1"), "0x1");
	CHECK_STR(nxarg(sc, "arg2"), hex);
	/* the last argument lost its upper bytes in the ring (2 on 32-bit, 6 on 64-bit) */
	CHECK_STR(nxarg(sc, "arg3"), ptr == 8 ? "0x????????????3344" : "0x????3344");
	CHECK_STR(nxarg(&r[17], "result"), hex);
	CHECK_STR(r[18].name, "NOTE_IRQ_ENTER");
	CHECK_STR(nxarg(&r[18], "irq"), "14");
	CHECK_STR(nxarg(&r[18], "handler"), "0x8001234");
	CHECK_STR(r[20].name, "NOTE_WDOG_START");
	CHECK_STR(nxarg(&r[20], "arg"), hex);
	CHECK_STR(r[26].name, "NOTE_HEAP_ALLOC");
	CHECK_STR(nxarg(&r[26], "mem"), hex);
	CHECK_STR(nxarg(&r[26], "size"), "64");
	CHECK_STR(nxarg(&r[26], "used"), "4096");
	CHECK_STR(r[28].name, "NOTE_DUMP_PRINTF");
	CHECK_STR(nxarg(&r[28], "fmt"), "0x8004000");
	CHECK_STR(nxarg(&r[28], "tag"), "9");
	CHECK_STR(nxarg(&r[28], "data"), "efbeadde");
	CHECK_STR(r[29].name, "NOTE_DUMP_BEGIN");
	CHECK_STR(nxarg(&r[29], "text"), "sched_lock");
	CHECK_STR(nxarg(&r[29], "tag"), "3");
	CHECK_STR(nxarg(&r[31], "text"), "mark here\n");
	CHECK_STR(r[32].name, "NOTE_DUMP_BINARY");
	CHECK_STR(nxarg(&r[32], "data"), "010203");
	CHECK_STR(r[33].name, "NOTE_DUMP_COUNTER");
	CHECK_STR(nxarg(&r[33], "name"), "fifo");
	CHECK_STR(nxarg(&r[33], "value"), "18446744073709551611");
	CHECK_STR(r[34].name, "UNKNOWN");
	CHECK_EQ(r[35].nargs, 7);
	CHECK_STR(nxarg(&r[35], "arg4"), "0x5");
	CHECK_STR(nxarg(&r[35], "arg5"), ptr == 8 ? "0x????????????8899" : "0x????8899");
	nxw_free(&w);
}

static void other_releases(void)
{
	struct tt_nuttx_layout lo;
	struct nxw w;
	uint8_t rec[256];

	/* 12.8-12.13 with a 32-bit clock_t: 12-byte header, time wraps and is unwrapped */
	tt_nuttx_layout_default(&lo, 4);
	lo.release = 1210;
	lo.time64 = false;
	nxw_init(&w, &lo, 8192, BASE, 0, 1024, 4096);
	CHECK_EQ(w.hdr, 12);
	w.time = 0xFFFFF000u;
	nxw_add(&w, rec, nxw_start(&w, rec, 4, 100, "t4"));
	nxw_add(&w, rec, nxw_simple(&w, rec, 3, 4, 100));
	nxw_add(&w, rec, nxw_syscall_enter(&w, rec, 4, 7, 2, (const uint64_t[]){ 5, 0xabcd1234 }));
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 3);
	CHECK_EQ(lg.r[1].time, 0xFFFFF000ull + 1000);
	CHECK_EQ(lg.r[2].time, 0xFFFFF000ull + 2000); /* past 2^32 */
	CHECK_STR(nxarg(&lg.r[2], "arg1"), "0x????1234");
	nxw_free(&w);

	/* 12.6, SMP, packed records, sec/nsec time; 12.4-12.6 numbering (22 = DUMP_STRING) */
	lo.release = 1206;
	lo.smp = true;
	nxw_init(&w, &lo, 8192, BASE, 0, 1024, 4096);
	CHECK_EQ(w.hdr, 16);
	CHECK_EQ(w.align, 1);
	w.time = 2999999000ull;
	nxw_add(&w, rec, nxw_start(&w, rec, 9, 100, "abc"));
	unsigned len = nxw_hdr(&w, rec, w.hdr + 4 + 6, 22, 9, 100, 1);
	memcpy(rec + w.hdr + 4, "hello", 6);
	nxw_add(&w, rec, len);
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 2);
	CHECK_EQ(lg.r[1].addr, BASE + 1024 + 20); /* packed: 16 + 4 */
	CHECK_STR(lg.r[1].name, "NOTE_DUMP_STRING");
	CHECK_STR(nxarg(&lg.r[1], "text"), "hello");
	CHECK_EQ(lg.r[1].core, 1);
	CHECK_EQ(lg.r[1].time, 3000000000ull);
	CHECK(lg.r[1].has_ns);
	CHECK_EQ(lg.r[1].ns, 1000);
	CHECK_STR(tt_nuttx_type_name(1206, 28), "NOTE_DUMP_MARK");
	CHECK_STR(tt_nuttx_type_name(1210, 34), "NOTE_DUMP_COUNTER");
	CHECK_STR(tt_nuttx_type_name(1300, 34), "NOTE_DUMP_BINARY");
	nxw_free(&w);

	/* 13.x big-endian 32-bit */
	tt_nuttx_layout_default(&lo, 4);
	lo.big_endian = true;
	nxw_init(&w, &lo, 8192, BASE, 0, 1024, 4096);
	nxw_add(&w, rec, nxw_start(&w, rec, 0x1234, 100, "be"));
	nxw_add(&w, rec, nxw_ptrs(&w, rec, 28, 0x1234, 4,
				  (const uint64_t[]){ 0x20010000, 0x20020000, 64, 4096 }));
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 2);
	CHECK_EQ(lg.r[1].thread, 0x1234);
	CHECK_STR(lg.r[1].thread_name, "be");
	CHECK_STR(nxarg(&lg.r[1], "mem"), "0x20020000");
	CHECK_EQ(lg.r[1].time, 2000);
	nxw_free(&w);
}

static void stream_form(void)
{
	struct nxw w;
	uint8_t rec[256], img[512] = { 0 };
	struct tt_nuttx_layout lo;
	size_t o = 0;
	char err[200];

	nxw_init(&w, NULL, 4096, BASE, 0, 1024, 2048);
	for (uint32_t i = 0; i < 6; i++) {
		unsigned len = nxw_any(&w, rec, i);
		memcpy(img + o, rec, len);
		o += (len + 3) / 4 * 4;
	}
	tt_nuttx_layout_default(&lo, 4);
	nxlog_clear(&lg);
	CHECK_EQ(tt_nuttx_decode_image(img, sizeof(img), 0, 0, &lo, 0, nxlog_cb, &lg, err,
				       sizeof(err)), 0);
	CHECK_EQ(lg.n, 6);
	CHECK_EQ(lg.r[5].time, 6000);
	CHECK_EQ(lg.r[5].addr, 0);
	nxw_free(&w);
}

/* Before 12.4: g_noteram_info with the buffer inline (bufsize from the layout), header and
 * payload as little-endian byte arrays without padding, whatever the CPU's byte order; 2-byte
 * pid_t; sec+nsec (hires) or ticks; 22 DUMP_STRING, 23 DUMP_BINARY with an event byte. Every
 * offset below is counted by hand from the structs of that release. */
static void release_1203(bool hires, bool big)
{
	struct tt_nuttx_layout lo;
	struct nxw w;
	uint8_t rec[256];
	char err[160];
	unsigned len;

	tt_nuttx_layout_default(&lo, 4);
	CHECK_EQ(tt_nuttx_layout_set(&lo, "release", "12.3", err, sizeof(err)), 0);
	CHECK_EQ(tt_nuttx_layout_set(&lo, "pid_size", "2", err, sizeof(err)), 0);
	CHECK_EQ(tt_nuttx_layout_set(&lo, "time", hires ? "hires" : "ticks", err, sizeof(err)), 0);
	CHECK_EQ(tt_nuttx_layout_set(&lo, "bufsize", "1024", err, sizeof(err)), 0);
	CHECK_EQ(tt_nuttx_layout_set(&lo, "endian", big ? "big" : "little", err, sizeof(err)), 0);
	CHECK_EQ(lo.off_head, 4);
	CHECK_EQ(lo.off_buffer, 16);
	lo.smp = true;
	nxw_init(&w, &lo, 8192, BASE, 0x100, 0x110, 1024);
	/* u8 len, type, prio, cpu, pid[2], sec[4] + nsec[4] | ticks[4] */
	CHECK_EQ(w.hdr, (hires ? 14u : 10u));
	w.time = hires ? 2999999000ull : 0x11223344u;
	nxw_add(&w, rec, nxw_start(&w, rec, 0x1234, 100, "nsh"));
	len = nxw_hdr(&w, rec, w.hdr + 2, 10, 0x1234, 100, 1);	/* PREEMPT_LOCK u8 count[2] */
	rec[w.hdr] = 0x02;
	rec[w.hdr + 1] = 0x01;
	nxw_add(&w, rec, len);
	/* SYSCALL_ENTER: nr, argc, args[3 * 4] right after: nothing truncated */
	nxw_add(&w, rec, nxw_syscall_enter(&w, rec, 0x1234, 9, 3,
					   (const uint64_t[]){ 1, 0x40003c00, 0xdeadbeef }));
	len = nxw_hdr(&w, rec, w.hdr + 1 + 4, 19, 0x1234, 100, 1);	/* LEAVE nr, result[4] */
	rec[w.hdr] = 9;
	nxw_put(&w, rec + w.hdr + 1, 0xfffffffe, 4);
	nxw_add(&w, rec, len);
	len = nxw_hdr(&w, rec, w.hdr + 4 + 1, 20, 0x1234, 100, 0);	/* IRQ handler[4], irq */
	nxw_put(&w, rec + w.hdr, 0x8001234, 4);
	rec[w.hdr + 4] = 15;
	nxw_add(&w, rec, len);
	len = nxw_hdr(&w, rec, w.hdr + 4 + 3, 22, 0x1234, 100, 0);	/* DUMP_STRING ip, "hi" */
	nxw_put(&w, rec + w.hdr, 0x8000100, 4);
	memcpy(rec + w.hdr + 4, "hi", 3);
	nxw_add(&w, rec, len);
	len = nxw_hdr(&w, rec, w.hdr + 4 + 1 + 3, 23, 0x1234, 100, 0);	/* BINARY ip, event */
	nxw_put(&w, rec + w.hdr, 0x8000200, 4);
	rec[w.hdr + 4] = 7;
	memcpy(rec + w.hdr + 5, "\x0a\x0b\x0c", 3);
	nxw_add(&w, rec, len);
	CHECK_EQ(w.ram[0x110 + 0], w.hdr + 4);			/* START: header + "nsh\0" */
	CHECK_EQ(w.ram[0x110 + 4], 0x34);			/* pid, little-endian */
	CHECK_EQ(w.ram[0x110 + 5], 0x12);
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 7);
	CHECK_STR(lg.r[0].thread_name, "nsh");
	CHECK_EQ(lg.r[1].thread, 0x1234);
	CHECK_EQ(lg.r[1].core, 1);
	CHECK_STR(nxarg(&lg.r[1], "count"), "258");
	CHECK_EQ(lg.r[1].time, (hires ? 2999999000ull + 1000 : 0x11223344ull + 1000));
	CHECK_EQ(lg.r[2].addr, BASE + 0x110 + (hires ? 18 + 16 : 14 + 12)); /* packed */
	CHECK_STR(nxarg(&lg.r[2], "nr"), "9");
	CHECK_STR(nxarg(&lg.r[2], "arg2"), "0xdeadbeef");
	CHECK_STR(nxarg(&lg.r[3], "result"), "0xfffffffe");
	CHECK_STR(nxarg(&lg.r[4], "irq"), "15");
	CHECK_STR(nxarg(&lg.r[4], "handler"), "0x8001234");
	CHECK_STR(lg.r[5].name, "NOTE_DUMP_STRING");
	CHECK_STR(nxarg(&lg.r[5], "text"), "hi");
	CHECK_STR(lg.r[6].name, "NOTE_DUMP_BINARY");
	CHECK_STR(nxarg(&lg.r[6], "event"), "7");
	CHECK_STR(nxarg(&lg.r[6], "data"), "0a0b0c");
	/* no ring size: a clear error */
	lo.bufsize = 0;
	w.lo.bufsize = 0;
	CHECK_EQ(decode(&w, 0), -EINVAL);
	nxw_free(&w);
}

/* DUMP_PRINTF rendered with the format string from the ELF's read-only data and the arguments
 * packed as sched_note_vprintf_ip does (no alignment, target order): the expected text is
 * written by hand. A format with %%, a typed note (npt_type != 0), a cut argument list or a
 * format outside the read-only data keep the hex form only. */
static void printf_text(unsigned ptr, bool big)
{
	static const char fmts[] = "t=%d n=%lu s=%s c=%c p=%p f=%.2f w=%*d|%-4s|\n\0"
				   "100%% %d\0";
	const struct tt_nuttx_seg seg = { 0x08010000, sizeof(fmts), (const uint8_t *)fmts };
	const struct tt_nuttx_mem ro = { 1, &seg };
	struct tt_nuttx_layout lo;
	struct nxw w;
	uint8_t rec[256], *d;
	unsigned a, o, len;

	tt_nuttx_layout_default(&lo, ptr);
	lo.big_endian = big;
	nxw_init(&w, &lo, 8192, BASE, 0, 1024, 2048);
	w.lo.rodata = &ro;
	a = (w.hdr + ptr - 1) / ptr * ptr;
	o = a + 2 * ptr + 4; /* ip, fmt, tag, then npt_type */
	for (int k = 0; k < 5; k++) {
		uint8_t data[64];
		double f = 3.14159;
		uint64_t bits;

		d = data;
		len = 0;
		nxw_put(&w, d + len, (uint32_t)-7, 4), len += 4;
		nxw_put(&w, d + len, 123456, ptr), len += ptr;
		memcpy(d + len, "abc", 4), len += 4;
		nxw_put(&w, d + len, 'Z', 4), len += 4;
		nxw_put(&w, d + len, 0x20001234, ptr), len += ptr;
		memcpy(&bits, &f, 8);
		nxw_put(&w, d + len, bits, 8), len += 8;
		nxw_put(&w, d + len, 6, 4), len += 4;
		nxw_put(&w, d + len, 42, 4), len += 4;
		memcpy(d + len, "ok", 3), len += 3;
		if (k == 3)
			len -= 5; /* cut: the last string and part of the int are missing */
		/* SIZEOF_NOTE_PRINTF(len): the struct (8-aligned) + len - 1 */
		unsigned total = (o + 4 + 1 + 7) / 8 * 8 + len - 1;
		memset(rec, 0xee, sizeof(rec)); /* stale bytes after the data */
		nxw_hdr(&w, rec, total, 30, 3, 100, 0);
		memcpy(rec + o + 4, data, len);
		nxw_put(&w, rec + a, 0x08001000, ptr);
		/* the second string ("100%% %d") starts after the first's 45 characters + NUL */
		nxw_put(&w, rec + a + ptr, k == 1 ? 0x08010000 + 46 : k == 4 ? 0x09000000
								 : 0x08010000, ptr);
		nxw_put(&w, rec + o, k == 2 ? 0x11 : 0, 4); /* npt_type */
		nxw_add(&w, rec, total);
	}
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 5);
	CHECK_STR(nxarg(&lg.r[0], "text"), "t=-7 n=123456 s=abc c=Z p=0x20001234 f=3.14 w=    42|ok  |\n");
	CHECK(!nxarg(&lg.r[1], "text"));	/* "100%% %d" */
	CHECK(!nxarg(&lg.r[2], "text"));	/* typed */
	CHECK(!nxarg(&lg.r[3], "text"));	/* cut */
	CHECK(!nxarg(&lg.r[4], "text"));	/* format not in the ELF's data */
	CHECK(nxarg(&lg.r[0], "data") != NULL);
	nxw_free(&w);
}

/* %Le/%Lf/%Lg: the packed long double as the target stores it (the layout's long_double, from
 * the ELF's machine), bytes written by hand: 0.3 and -1.5 as x87 80-bit extended (in 16 bytes
 * on x86-64, 12 on i386), IEEE binary128 (big-endian here) and a plain double (32-bit ARM);
 * unknown: no text, the hex stays. */
static void printf_long_double(void)
{
	static const char fmt[] = "v=%Le %Lf %.3Lg|";
	const struct tt_nuttx_seg seg = { 0x08010000, sizeof(fmt), (const uint8_t *)fmt };
	const struct tt_nuttx_mem ro = { 1, &seg };
	static const struct { uint8_t ld; unsigned ptr; bool big; } cases[] = {
		{ TT_NUTTX_LDBL_X87_16, 8, false }, { TT_NUTTX_LDBL_X87_12, 4, false },
		{ TT_NUTTX_LDBL_QUAD, 8, true }, { TT_NUTTX_LDBL_DOUBLE, 4, false },
		{ TT_NUTTX_LDBL_NONE, 8, false },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tt_nuttx_layout lo;
		struct nxw w;
		uint8_t rec[256], data[64];
		unsigned ptr = cases[c].ptr, len = 0, sz = cases[c].ld == TT_NUTTX_LDBL_X87_12 ? 12 : 16;
		const double v[3] = { 0.3, -1.5, 0.3 };

		tt_nuttx_layout_default(&lo, ptr);
		lo.big_endian = cases[c].big;
		lo.long_double = cases[c].ld;
		nxw_init(&w, &lo, 8192, BASE, 0, 1024, 2048);
		w.lo.rodata = &ro;
		memset(data, 0x55, sizeof(data));
		for (int k = 0; k < 3; k++) {
			bool neg = v[k] < 0;
			if (cases[c].ld == TT_NUTTX_LDBL_DOUBLE) {
				nxw_put(&w, data + len, neg ? 0xBFF8000000000000ull : 0x3FD3333333333333ull,
					8);
				len += 8;
			} else if (cases[c].ld == TT_NUTTX_LDBL_QUAD) {
				nxw_put(&w, data + len, neg ? 0xBFFF800000000000ull : 0x3FFD333333333333ull,
					8); /* big-endian: the high half first */
				nxw_put(&w, data + len + 8, neg ? 0 : 0x3333333333333333ull, 8);
				len += 16;
			} else {
				uint64_t m = neg ? 0xC000000000000000ull : 0x999999999999999Aull;
				for (int b = 0; b < 8; b++)
					data[len + b] = (uint8_t)(m >> (8 * b));
				data[len + 8] = neg ? 0xFF : 0xFD;
				data[len + 9] = neg ? 0xBF : 0x3F;
				len += cases[c].ld ? sz : 16;
			}
		}
		unsigned a = (w.hdr + ptr - 1) / ptr * ptr, o = a + 2 * ptr + 4;
		unsigned total = (o + 4 + 1 + 7) / 8 * 8 + len - 1;
		memset(rec, 0xee, sizeof(rec));
		nxw_hdr(&w, rec, total, 30, 3, 100, 0);
		memcpy(rec + o + 4, data, len);
		nxw_put(&w, rec + a, 0x08001000, ptr);
		nxw_put(&w, rec + a + ptr, 0x08010000, ptr);
		nxw_put(&w, rec + o, 0, 4);
		CHECK(nxw_add(&w, rec, total));
		CHECK_EQ(decode(&w, 0), 0);
		CHECK_EQ(lg.n, 1);
		if (cases[c].ld)
			CHECK_MSG(nxarg(&lg.r[0], "text") &&
				  !strcmp(nxarg(&lg.r[0], "text"), "v=3.000000e-01 -1.500000 0.3|"),
				  "long double format %u: \"%s\"", cases[c].ld,
				  nxarg(&lg.r[0], "text") ? nxarg(&lg.r[0], "text") : "(none)");
		else
			CHECK(!nxarg(&lg.r[0], "text"));
		nxw_free(&w);
	}
}

/* The whole text argument of each event (the log keeps 169 characters of it). */
static char texts[2][600];
static size_t ntexts;

static void keep_text(void *arg, const struct tt_record *rec)
{
	if (rec->kind != TT_REC_EVENT || ntexts == 2)
		return;
	for (unsigned i = 0; i < rec->u.ev.nargs; i++)
		if (!strcmp(rec->u.ev.args[i].name, "text") && rec->u.ev.args[i].text)
			snprintf(texts[ntexts], sizeof(texts[0]), "%s", rec->u.ev.args[i].text);
	ntexts++;
}

/* A width or precision the target gives (`*`) is clamped to what the text can hold: `%*x` with
 * width 0x41414141 is the text's 511 characters, 504 spaces and the value cut (unclamped it is
 * 511 spaces, after printf padded a billion of them); a negative `*` precision is none. */
static void printf_huge_width(void)
{
	static const char fmts[] = "%*x|\0%.*d|\0";
	const struct tt_nuttx_seg seg = { 0x08010000, sizeof(fmts), (const uint8_t *)fmts };
	const struct tt_nuttx_mem ro = { 1, &seg };
	struct tt_nuttx_layout lo;
	struct nxw w;
	uint8_t rec[128];
	unsigned ptr = 4, a, o;
	char want[512], err[256] = "";

	tt_nuttx_layout_default(&lo, ptr);
	nxw_init(&w, &lo, 8192, BASE, 0, 1024, 2048);
	w.lo.rodata = &ro;
	a = (w.hdr + ptr - 1) / ptr * ptr;
	o = a + 2 * ptr + 4;
	for (int k = 0; k < 2; k++) {
		unsigned total = (o + 4 + 1 + 7) / 8 * 8 + 8 - 1;
		memset(rec, 0, sizeof(rec));
		nxw_hdr(&w, rec, total, 30, 3, 100, 0);
		nxw_put(&w, rec + a, 0x08001000, ptr);
		nxw_put(&w, rec + a + ptr, 0x08010000 + (k ? 5 : 0), ptr);
		nxw_put(&w, rec + o, 0, 4); /* npt_type */
		nxw_put(&w, rec + o + 4, k ? (uint32_t)-3 : 0x41414141, 4);
		nxw_put(&w, rec + o + 8, k ? 42 : 0x41414141, 4);
		nxw_add(&w, rec, total);
	}
	ntexts = 0;
	CHECK_EQ(tt_nuttx_decode_image(w.ram, w.ram_len, w.base, w.drv, &w.lo, 0, keep_text, NULL,
				       err, sizeof(err)), 0);
	CHECK_EQ(ntexts, 2);
	memset(want, ' ', 504);
	memcpy(want + 504, "4141414", 8);
	CHECK_STR(texts[0], want);
	CHECK_STR(texts[1], "42|");
	nxw_free(&w);
}

/* SYSCALL_ENTER/LEAVE nr named from g_funcnames[nr - CONFIG_SYS_RESERVED]: below the reserved
 * numbers, past the table, or at an unreadable entry the number stays. */
static void syscall_names(void)
{
	static const char *const names[] = { "_exit", NULL, "getpid" };
	const struct tt_nuttx_syscalls sc = { .n = 3, .names = names };
	static const char *const want[] = { "1", "_exit", "3", "getpid", "5", "getpid" };
	struct nxw w;
	uint8_t rec[256];
	uint64_t args[2] = { 7, 8 };

	nxw_init(&w, NULL, 8192, BASE, 0, 1024, 2048);
	w.lo.syscalls = &sc;
	w.lo.sys_reserved = 2;
	for (unsigned nr = 1; nr <= 5; nr++)
		nxw_add(&w, rec, nxw_syscall_enter(&w, rec, 1, nr, 2, args));
	unsigned len = nxw_hdr(&w, rec, (w.hdr + 1 + 3) / 4 * 4 + 4, 19, 1, 100, 0); /* LEAVE nr 4 */
	rec[w.hdr] = 4;
	nxw_add(&w, rec, len);
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_EQ(lg.n, 6);
	for (unsigned i = 0; i < lg.n && i < 6; i++)
		CHECK_STR(nxarg(&lg.r[i], "nr"), want[i]);
	CHECK_STR(nxarg(&lg.r[1], "arg0"), "0x7");
	/* unknown CONFIG_SYS_RESERVED: numbers only */
	w.lo.sys_reserved = -1;
	CHECK_EQ(decode(&w, 0), 0);
	CHECK_STR(nxarg(&lg.r[1], "nr"), "2");
	nxw_free(&w);
}

int main(void)
{
	test_empty_and_partial();
	test_wrapped();
	every_type(4);
	every_type(8);
	other_releases();
	stream_form();
	syscall_names();
	printf_text(4, false);
	printf_huge_width();
	printf_long_double();
	printf_text(8, true);
	release_1203(true, false);
	release_1203(false, true);
	free(lg.r);
	return tt_test_done();
}
