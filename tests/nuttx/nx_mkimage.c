/* tests/nuttx/nx_mkimage.c: writes a RAM image (64 KiB at 0x20000000) holding g_noteram_driver
 * at the base and a 2 KiB ring at base + 0x1000 that has wrapped, filled by the test writer in
 * noteram_add's order. Prints "driver=0x... written=N held=M last_time=T".
 * usage: nx_mkimage OUT [COUNT] */
#include <stdio.h>
#include <stdlib.h>

#include "nxwriter.h"

int main(int argc, char **argv)
{
	struct nxw w;
	uint8_t rec[256];
	unsigned count = argc > 2 ? (unsigned)atoi(argv[2]) : 500;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: nx_mkimage OUT [COUNT]\n");
		return 2;
	}
	nxw_init(&w, NULL, 65536, 0x20000000u, 0, 0x1000, 2048);
	for (unsigned i = 0; i < count; i++)
		nxw_add(&w, rec, nxw_any(&w, rec, i));
	f = fopen(argv[1], "wb");
	if (!f || fwrite(w.ram, 1, w.ram_len, f) != w.ram_len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	printf("driver=0x%llx written=%llu held=%llu last_time=%llu\n",
	       (unsigned long long)w.drv, (unsigned long long)w.written,
	       (unsigned long long)(w.written - w.dropped), (unsigned long long)(w.time - w.step));
	nxw_free(&w);
	return 0;
}
