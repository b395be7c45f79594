/* tests/firmware/startup.c: reset handler and vector table for the Cortex-M3 of mps2-an385.
 * Copies .data, clears .bss, runs main(); unexpected exceptions stop in a loop a debugger can
 * see (PC inside fault_handler). */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);
void systick_handler(void);
void reset_handler(void);

static void fault_handler(void)
{
	for (;;)
		;
}

void reset_handler(void)
{
	uint32_t *src = &_sidata, *dst;

	for (dst = &_sdata; dst < &_edata;)
		*dst++ = *src++;
	for (dst = &_sbss; dst < &_ebss;)
		*dst++ = 0;
	main();
	fault_handler();
}

__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
	(void (*)(void))(uintptr_t)&_estack,
	reset_handler,
	fault_handler,	/* NMI */
	fault_handler,	/* HardFault */
	fault_handler,	/* MemManage */
	fault_handler,	/* BusFault */
	fault_handler,	/* UsageFault */
	0, 0, 0, 0,
	fault_handler,	/* SVCall */
	fault_handler,	/* DebugMonitor */
	0,
	fault_handler,	/* PendSV */
	systick_handler,
};
