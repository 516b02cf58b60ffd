/*
 * image_main.c - the firmware scenario (scenario.h) as a bare-metal image:
 * output and the exit status through Arm semihosting (qemu
 * -semihosting-config enable=on), and the port's critical-section hooks
 * (composite/port.h) on PRIMASK. The heap is counted (the link wraps
 * malloc, calloc and realloc) so the scenario can check that nothing is
 * allocated after bind.
 */
#include <stddef.h>
#include <stdint.h>

#include "composite/port.h"
#include "scenario.h"

void fw_exit(int status);

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u

static uintptr_t semihost(uintptr_t op, uintptr_t arg)
{
	register uintptr_t r0 __asm__("r0") = op;
	register uintptr_t r1 __asm__("r1") = arg;

	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

static void write0(const char *s)
{
	(void)semihost(SYS_WRITE0, (uintptr_t)s);
}

static void say(const char *line)
{
	write0("firmware scenario: ");
	write0(line);
	write0("\n");
}

void fw_exit(int status)
{
	/* qemu exits 0 for ApplicationExit, 1 for any other reason. */
	(void)semihost(SYS_EXIT, status ? ADP_STOPPED_RUNTIME_ERROR :
					  ADP_STOPPED_APPLICATION_EXIT);
	for (;;)
		;
}

unsigned long usb_port_irq_save(void)
{
	unsigned long primask;

	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) :: "memory");
	return primask;
}

void usb_port_irq_restore(unsigned long flags)
{
	__asm__ volatile("msr primask, %0" :: "r"(flags) : "memory");
}

static unsigned long heap_allocs, heap_bytes;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_malloc(size_t size)
{
	heap_allocs++;
	heap_bytes += size;
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	heap_allocs++;
	heap_bytes += n * size;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
	heap_allocs++;
	heap_bytes += size;
	return __real_realloc(p, size);
}

static unsigned long allocs(void)
{
	return heap_allocs;
}

int main(void)
{
	int rc = fw_scenario_run(say, allocs);

	fw_say_num("heap requested in all (bytes): ", heap_bytes);

	say(rc ? "FAILED" : "passed");
	return rc ? 1 : 0;
}
