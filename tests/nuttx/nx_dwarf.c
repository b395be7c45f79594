/* tests/nuttx/nx_dwarf.c: prints the NuttX layout tt_nuttx_layout_from_fw reads from an ELF, in
 * nx_fixture's format, or its error message (exit 1).
 *   layout release=R ptr=P be=B smp=S time64=T hdr=H align=A off=B,S,H,T
 *   tasks pidhash=0xADDR npidhash=0xADDR pid=OFF,SIZE name=OFF,SIZE   (or: tasks none)
 *   stacks base=OFF size=OFF color=0xWORD   (or: stacks none)
 * usage: nx_dwarf ELF */
#include <stdio.h>

#include "../../daemon/fwglue.h"
#include "../../proto/nuttx.h"

static int layout_fn(const struct tt_fw_query *q, void *arg, char *err, size_t errlen)
{
	return tt_nuttx_layout_from_fw(q, arg, err, errlen);
}

int main(int argc, char **argv)
{
	struct tt_nuttx_layout lo;
	char err[512];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: nx_dwarf ELF\n");
		return 2;
	}
	rc = tt_fw_query_run(argv[1], "the NuttX note layout", layout_fn, &lo, err, sizeof(err));
	if (rc < 0) {
		printf("error %d: %s\n", rc, err);
		return 1;
	}
	printf("layout release=%u ptr=%u be=%d smp=%d time64=%d hdr=%u align=%u off=%u,%u,%u,%u,%u "
	       "bufsize=%u pid=%u hires=%d\n",
	       lo.release, lo.ptr_size, lo.big_endian, lo.smp, lo.time64, lo.header_size, lo.align,
	       lo.off_buffer, lo.off_bufsize, lo.off_head, lo.off_tail, lo.off_overwrite,
	       (unsigned)lo.bufsize, lo.pid_size, lo.hires);
	if (lo.pidhash_addr)
		printf("tasks pidhash=0x%llx npidhash=0x%llx pid=%u,%u name=%u,%u\n",
		       (unsigned long long)lo.pidhash_addr, (unsigned long long)lo.npidhash_addr,
		       lo.tcb_off_pid, lo.tcb_pid_size, lo.tcb_off_name, lo.tcb_name_size);
	else
		printf("tasks none\n");
	if (lo.tcb_off_stack_base)
		printf("stacks base=%u size=%u color=0x%08x\n", lo.tcb_off_stack_base,
		       lo.tcb_off_stack_size, (unsigned)lo.stack_color);
	else
		printf("stacks none\n");
	if (lo.taskname_addr || lo.struct_align)
		printf("notes taskname=0x%llx,%u struct_align=%u\n",
		       (unsigned long long)lo.taskname_addr, lo.taskname_size, lo.struct_align);
	else
		printf("notes none\n");
	return 0;
}
