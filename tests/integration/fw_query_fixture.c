/* tests/integration/fw_query_fixture.c: linked with -g into a tiny static ELF whose DWARF
 * test_fw_query.c asks about (fw/fw.h's neutral queries). */
#include "fw_query_fixture.h"

struct tt_q_s tt_q_var = { .b = 1 };
union tt_q_u tt_q_un = { .i = 2 };
enum tt_q_e tt_q_en = TT_Q_B;
int *tt_q_ptr = &tt_q_var.b;
const char *const tt_q_strs[2] = { "hello fw", "world" };

void _start(void);
void _start(void)
{
	for (;;)
		;
}
