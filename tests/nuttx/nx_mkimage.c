/* tests/nuttx/nx_mkimage.c: writes a RAM image (64 KiB at BASE, default 0x20000000) holding
 * g_noteram_driver at the base and a 2 KiB ring at base + 0x1000 that has wrapped, filled by the
 * test writer in noteram_add's order. Prints "driver=0x... written=N held=M last_time=T".
 * LAYOUT is nx_fixture's line ("layout release=R ptr=P be=B smp=S time64=T hdr=H align=A
 * off=B,S,H,T[,O] [bufsize=N pid=N hires=H]"); default: tt_nuttx_layout_default(4). Before
 * 12.4 the image holds g_noteram_info at the base with its bufsize-byte buffer inline.
 * usage: nx_mkimage OUT [COUNT [BASE [LAYOUT]]]
 *        nx_mkimage --dump OUT COUNT: COUNT records of the default layout back to back,
 *        unpadded, as NuttX's binary read mode returns them (noteram_get, one note of
 *        nc_length bytes per read: `trace dump -b`); prints "records=N last_time=T".
 *        nx_mkimage --tasks OUT COUNT: the default image without START notes
 *        (nxw_any_unnamed) and the task table of pids 0-5 at base + 0x2000
 *        (nxw_tasks_default); also prints "tasks pidhash=0x... npidhash=0x... tcb_pid=N
 *        tcb_name=N tcb_name_size=N" (the format options that locate it). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nxwriter.h"

static int parse_layout(const char *s, struct tt_nuttx_layout *lo)
{
	unsigned r, p, be, smp, t64, hdr, al, o[5], bs = 0, pid = 0, hires = 0;

	if (!strncmp(s, "layout ", 7))
		s += 7;
	int n = sscanf(s, "release=%u ptr=%u be=%u smp=%u time64=%u hdr=%u align=%u "
		       "off=%u,%u,%u,%u,%u bufsize=%u pid=%u hires=%u", &r, &p, &be, &smp, &t64, &hdr,
		       &al, &o[0], &o[1], &o[2], &o[3], &o[4], &bs, &pid, &hires);

	if (n != 11 && n != 12 && n != 15)
		return -1;
	*lo = (struct tt_nuttx_layout){
		.release = (uint16_t)r, .ptr_size = (uint8_t)p, .big_endian = be, .smp = smp,
		.time64 = t64, .header_size = (uint8_t)hdr, .align = (uint8_t)al,
		.off_buffer = (uint16_t)o[0], .off_bufsize = (uint16_t)o[1],
		.off_head = (uint16_t)o[2], .off_tail = (uint16_t)o[3],
		.off_overwrite = n >= 12 ? (uint16_t)o[4] : 0, .bufsize = bs,
		.pid_size = (uint8_t)pid, .hires = hires, .sys_reserved = -1,
	};
	return 0;
}

int main(int argc, char **argv)
{
	struct nxw w;
	struct tt_nuttx_layout lo;
	uint8_t rec[256];
	unsigned count = argc > 2 ? (unsigned)atoi(argv[2]) : 500;
	uint64_t base = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x20000000u;
	FILE *f;

	if (argc == 4 && !strcmp(argv[1], "--dump")) {
		unsigned n = (unsigned)atoi(argv[3]);
		nxw_init(&w, NULL, 4096, 0x20000000u, 0, 0x1000 - 2048, 2048);
		f = fopen(argv[2], "wb");
		for (unsigned i = 0; f && i < n; i++) {
			unsigned len = nxw_any(&w, rec, i);
			if (fwrite(rec, 1, len, f) != len)
				break;
		}
		if (!f || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
		printf("records=%u last_time=%llu\n", n, (unsigned long long)(w.time - w.step));
		nxw_free(&w);
		return 0;
	}
	bool tasks = argc == 4 && !strcmp(argv[1], "--tasks");
	if (tasks) { /* the arguments after the flag */
		argv++;
		argc--;
		count = (unsigned)atoi(argv[2]);
		base = 0x20000000u;
	}
	if (argc < 2 || (argc > 4 && parse_layout(argv[4], &lo) < 0)) {
		fprintf(stderr, "usage: nx_mkimage OUT [COUNT [BASE [LAYOUT]]]\n");
		return 2;
	}
	if (argc > 4 && lo.release < 1204) /* g_noteram_info at base, its buffer inline */
		nxw_init(&w, &lo, 65536, base, 0, lo.off_buffer, lo.bufsize);
	else
		nxw_init(&w, argc > 4 ? &lo : NULL, 65536, base, 0, 0x1000, 2048);
	if (tasks)
		nxw_tasks_default(&w, 0x2000);
	for (unsigned i = 0; i < count; i++)
		nxw_add(&w, rec, tasks ? nxw_any_unnamed(&w, rec, i) : nxw_any(&w, rec, i));
	f = fopen(argv[1], "wb");
	if (!f || fwrite(w.ram, 1, w.ram_len, f) != w.ram_len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	printf("driver=0x%llx written=%llu held=%llu last_time=%llu\n",
	       (unsigned long long)w.drv, (unsigned long long)w.written,
	       (unsigned long long)(w.written - w.dropped), (unsigned long long)(w.time - w.step));
	if (tasks)
		printf("tasks pidhash=0x%llx npidhash=0x%llx tcb_pid=%u tcb_name=%u tcb_name_size=%u\n",
		       (unsigned long long)w.lo.pidhash_addr, (unsigned long long)w.lo.npidhash_addr,
		       w.lo.tcb_off_pid, w.lo.tcb_off_name, w.lo.tcb_name_size);
	nxw_free(&w);
	return 0;
}
