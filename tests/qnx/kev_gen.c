/* tests/qnx/kev_gen.c: writes a sample .kev file for the CLI test.
 * usage: kev_gen OUT.kev [be] [cut N] [tp|long]  (be: big-endian; cut: drop the last N bytes; tp:
 * the events of the traceprinter example in QNX's documentation, then a MsgSendv call and exit;
 * long: one user string event of 100 characters, "0123456789" ten times) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kevw.h"

int main(int argc, char **argv)
{
	struct kev_opts o = { .cps = 1000000000u, .cpus = 2, .os_major = 6, .syspage_len = 1024 };
	struct kevw k;
	uint32_t w[2];
	size_t cut = 0;
	bool tp = false, lng = false;

	if (argc < 2) {
		fprintf(stderr, "usage: kev_gen OUT.kev [be] [cut N]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "be"))
			o.be = true;
		else if (!strcmp(argv[i], "cut") && i + 1 < argc)
			cut = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "tp"))
			tp = true;
		else if (!strcmp(argv[i], "long"))
			lng = true;
	}
	kevw_init(&k, &o);
	if (lng) {
		char s[101];
		for (int i = 0; i < 100; i++)
			s[i] = (char)('0' + i % 10);
		s[100] = 0;
		kevw_combine_str(&k, 0, K_USER, 7, 0x5000, NULL, 0, s);
		goto save;
	}
	if (tp) {
		kevw_simple(&k, 0, K_CONTROL, 1, 0x4f81e320, 0x37b0, 0x4f81e014);
		kevw_simple(&k, 0, K_PRTH, 24, 0x4f820f9a, 1, 1); /* THCREATE (6.4: state 24) */
		kevw_simple(&k, 0, K_PRTH, 2, 0x4f821358, 1, 1);  /* THREADY */
		kevw_simple(&k, 0, K_PRTH, 5, 0x4f821787, 1, 2);  /* THRECEIVE */
		kevw_simple(&k, 1, K_KER, 11, 0x4f821800, 3, 0x1000);
		kevw_simple(&k, 1, K_KER, 128 + 11, 0x4f821900, 0xffffffffu, 3);
		goto save;
	}
	kevw_simple(&k, 0, K_CONTROL, 1, 0x1000, 0x37b0, 0x1000);
	kevw_simple(&k, 0, K_CONTROL, 2, 0x1001, 1, 0);
	w[0] = 1, w[1] = 8200;
	kevw_combine_str(&k, 0, K_PRTH, 192, 0x1010, w, 2, "/usr/sbin/io-pkt");
	w[0] = 8200, w[1] = 3;
	kevw_combine_str(&k, 0, K_PRTH, 320, 0x1020, w, 2, "rx");
	kevw_simple(&k, 0, K_PRTH, 1, 0x1030, 8200, 3);
	kevw_simple(&k, 0, K_KER, 14, 0x1040, 0x12, 0);
	kevw_simple(&k, 0, K_INT, 1, 0x1050, 11, 0x80001234u);
	kevw_simple(&k, 0, K_INT, 2, 0x1060, 11, 1);
	kevw_simple(&k, 0, K_KER, 128 + 14, 0x1070, 0, 0x40);
	kevw_simple(&k, 0, K_PRTH, 2, 0x1080, 8200, 1);
	kevw_simple(&k, 0, K_CONTROL, 2, 0x2000, 4, 0); /* buffers 2 and 3 lost */
	kevw_combine_str(&k, 1, K_USER, 5, 0x2010, NULL, 0, "checkpoint A");
	kevw_simple(&k, 1, K_USER, 6, 0x2020, 42, 43);
save:
	if (cut > k.len)
		cut = k.len;
	k.len -= cut;
	if (kevw_save(&k, argv[1]) < 0) {
		perror(argv[1]);
		return 1;
	}
	kevw_free(&k);
	return 0;
}
