/*
 * startup_m4.c - the least start-up a Cortex-M4 image needs: a vector
 * table (initial stack pointer, reset, faults), .data copied and .bss
 * cleared, the FPU enabled (the image is hard-float), then main(); its
 * return value leaves qemu through semihosting (image_main.c). A fault
 * ends the run with a failure instead of hanging.
 */
#include <stdint.h>

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[], __stack_top[];

int main(void);
void fw_exit(int status);
void Reset_Handler(void);
void Fault_Handler(void);

void Reset_Handler(void)
{
	uint32_t *src = __data_load, *dst = __data_start;

	while (dst < __data_end)
		*dst++ = *src++;
	for (dst = __bss_start; dst < __bss_end; dst++)
		*dst = 0;
	/* CPACR: full access to CP10 and CP11 (the FPU). */
	*(volatile uint32_t *)0xe000ed88u |= 0xfu << 20;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	fw_exit(main());
}

void Fault_Handler(void)
{
	fw_exit(99);
}

/* Initial SP, then the handlers: reset, NMI, HardFault, MemManage,
 * BusFault, UsageFault. */
__attribute__((section(".vectors"), used))
static void (*const vectors[7])(void) = {
	(void (*)(void))(uintptr_t)__stack_top,
	Reset_Handler,
	Fault_Handler,
	Fault_Handler,
	Fault_Handler,
	Fault_Handler,
	Fault_Handler,
};
