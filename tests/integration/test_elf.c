/* tests/integration/test_elf.c: tt_elf_symbol on ELFs built by the C compiler at build time.
 * Usage: test_elf FIXTURE STRIPPED NOT_AN_ELF */
#include <errno.h>

#include "fw.h"
#include "ttest.h"

int main(int argc, char **argv)
{
	char err[512];
	uint64_t v = 0;

	REQUIRE(argc == 4);
	REQUIRE_EQ(tt_elf_symbol(argv[1], "tt_known_sym", &v, err, sizeof(err)), 0);
	REQUIRE_EQ(v, 0x20001234);
	REQUIRE_EQ(tt_elf_symbol(argv[1], "tt_data_sym", &v, err, sizeof(err)), 0);
	REQUIRE(v != 0);
	REQUIRE_EQ(tt_elf_symbol(argv[1], "tt_local_twin", &v, err, sizeof(err)), 0);
	REQUIRE_EQ(tt_elf_symbol(argv[1], "_tx_trace_header_ptr", &v, err, sizeof(err)), -ENOENT);
	REQUIRE_SUBSTR(err, argv[1]);
	REQUIRE_SUBSTR(err, "symbol \"_tx_trace_header_ptr\" not found");
	REQUIRE_EQ(tt_elf_symbol(argv[2], "tt_known_sym", &v, err, sizeof(err)), -ENODATA);
	REQUIRE_SUBSTR(err, "no symbol table");
	REQUIRE_EQ(tt_elf_symbol(argv[3], "tt_known_sym", &v, err, sizeof(err)), -ENOEXEC);
	REQUIRE_SUBSTR(err, "not an ELF file");
	REQUIRE_EQ(tt_elf_symbol("/nonexistent.elf", "x", &v, err, sizeof(err)), -ENOENT);
	REQUIRE_SUBSTR(err, "/nonexistent.elf: cannot open");
	printf("ok\n");
	return tt_test_done();
}
