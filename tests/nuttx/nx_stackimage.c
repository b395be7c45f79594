/* tests/nuttx/nx_stackimage.c: writes a NuttX RAM image (64 KiB at 0x20000000) whose tasks have
 * stacks coloured as CONFIG_STACK_COLORATION colours them, for `tracetap analyze`'s painted
 * high-water marks (stacks.sh). The noteram driver and a ring of notes at the base (the test
 * writer), a task table at +0x2000 (nxw_tasks: pids 1, 2, 3), and in each TCB the two members
 * the stack check reads, at offsets of this test's own choosing: stack_base_ptr at
 * STK_BASE_OFF, adj_stack_size at STK_SIZE_OFF. Task 1 and 2: stacks filled with the colour
 * (little-endian 0xdeadbeef, as on arm), then used from the top down to a fixed depth (with one
 * word in the used part that holds the colour by chance, and garbage beyond the mark only where
 * a stack really writes); task 3: a stack never coloured (zeros).
 * Prints "driver=0x... pidhash=0x... npidhash=0x..." and one "task PID NAME SIZE USED" per
 * coloured task, USED being the depth written here.
 * usage: nx_stackimage OUT */
#include <stdio.h>
#include <string.h>

#include "nxwriter.h"

#define BASE 0x20000000u
#define STK_BASE_OFF 16 /* between pid (12) and name (48) in nxw_tasks's TCB */
#define STK_SIZE_OFF 20
#define COLOR 0xdeadbeefu

static const struct {
	int32_t pid;
	const char *name;
	uint32_t off, size, used; /* used 0: never coloured */
} tasks[3] = {
	{ 1, "painted_a", 0x4000, 1024, 296 },
	{ 2, "painted_b", 0x5000, 2048, 1000 },
	{ 3, "plain", 0x6000, 512, 0 },
};

static void stack(struct nxw *w, unsigned i)
{
	uint8_t *s = w->ram + tasks[i].off;
	uint32_t size = tasks[i].size, used = tasks[i].used;

	memset(s, 0, size);
	if (!used)
		return;
	for (uint32_t a = 0; a < size; a += 4)
		nxw_put(w, s + a, COLOR, 4);
	for (uint32_t a = size - used; a < size; a += 4)
		nxw_put(w, s + a, 0x1000u + a, 4); /* frames: anything but the colour */
	nxw_put(w, s + size - used + 8, COLOR, 4); /* the colour by chance in a used word */
}

int main(int argc, char **argv)
{
	struct nxw w;
	uint8_t rec[256];
	int32_t pids[3];
	const char *names[3];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: nx_stackimage OUT\n");
		return 2;
	}
	nxw_init(&w, NULL, 65536, BASE, 0, 0x1000, 2048);
	for (unsigned i = 0; i < 3; i++) {
		pids[i] = tasks[i].pid;
		names[i] = tasks[i].name;
	}
	nxw_tasks(&w, 0x2000, 8, 3, pids, names);
	for (unsigned i = 0; i < 3; i++) {
		/* nxw_tasks: g_pidhash, g_npidhash, 8 slots, then the TCBs in order */
		uint8_t *tcb = w.ram + 0x2000 + 2 * w.ptr + 8 * w.ptr + i * NXW_TCB_SIZE;
		nxw_put(&w, tcb + STK_BASE_OFF, BASE + tasks[i].off, 4);
		nxw_put(&w, tcb + STK_SIZE_OFF, tasks[i].size, 4);
		stack(&w, i);
	}
	for (unsigned i = 0; i < 60; i++)
		nxw_add(&w, rec, nxw_any(&w, rec, i));
	f = fopen(argv[1], "wb");
	if (!f || fwrite(w.ram, 1, w.ram_len, f) != w.ram_len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	printf("driver=0x%llx pidhash=0x%llx npidhash=0x%llx tcb_pid=%u tcb_name=%u "
	       "tcb_name_size=%u tcb_stack_base=%u tcb_stack_size=%u\n",
	       (unsigned long long)w.drv, (unsigned long long)w.lo.pidhash_addr,
	       (unsigned long long)w.lo.npidhash_addr, w.lo.tcb_off_pid, w.lo.tcb_off_name,
	       w.lo.tcb_name_size, STK_BASE_OFF, STK_SIZE_OFF);
	for (unsigned i = 0; i < 3; i++)
		if (tasks[i].used)
			printf("task %d %s %u %u\n", (int)tasks[i].pid, tasks[i].name, tasks[i].size,
			       tasks[i].used);
	nxw_free(&w);
	return 0;
}
