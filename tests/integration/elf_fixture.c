/* tests/integration/elf_fixture.c: linked at build time into a tiny static ELF with a known
 * absolute symbol (--defsym tt_known_sym=0x20001234) and a data symbol. */
int tt_data_sym[4] = { 1, 2, 3, 4 };
static int tt_local_twin __attribute__((used)) = 5;

void _start(void);
void _start(void)
{
	for (;;)
		;
}
