/* tests/integration/test_elf.c: tt_elf_symbol on ELFs built by the C compiler at build time.
 * Usage: test_elf FIXTURE STRIPPED NOT_AN_ELF */
#include <errno.h>

#include "fw.h"
#include "ttest.h"

int main(int argc, char **argv)
{
	char err[512];
	uint64_t v = 0;

	CHECK(argc == 4);
	CHECK_INT(tt_elf_symbol(argv[1], "tt_known_sym", &v, err, sizeof(err)), 0);
	CHECK_INT(v, 0x20001234);
	CHECK_INT(tt_elf_symbol(argv[1], "tt_data_sym", &v, err, sizeof(err)), 0);
	CHECK(v != 0);
	CHECK_INT(tt_elf_symbol(argv[1], "tt_local_twin", &v, err, sizeof(err)), 0);
	CHECK_INT(tt_elf_symbol(argv[1], "_tx_trace_header_ptr", &v, err, sizeof(err)), -ENOENT);
	CHECK_HAS(err, argv[1]);
	CHECK_HAS(err, "symbol \"_tx_trace_header_ptr\" not found");
	CHECK_INT(tt_elf_symbol(argv[2], "tt_known_sym", &v, err, sizeof(err)), -ENODATA);
	CHECK_HAS(err, "no symbol table");
	CHECK_INT(tt_elf_symbol(argv[3], "tt_known_sym", &v, err, sizeof(err)), -ENOEXEC);
	CHECK_HAS(err, "not an ELF file");
	CHECK_INT(tt_elf_symbol("/nonexistent.elf", "x", &v, err, sizeof(err)), -ENOENT);
	CHECK_HAS(err, "/nonexistent.elf: cannot open");
	printf("ok\n");
	return 0;
}
