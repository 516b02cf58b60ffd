/*
 * image_main.c - the firmware scenario (scenario.h) as a bare-metal image:
 * output and the exit status through Arm semihosting (qemu
 * -semihosting-config enable=on), and the port's critical-section hooks
 * (composite/port.h) on PRIMASK. There is no heap: the library's objects
 * come from a static pool (usb_port_pool_init()), whose allocation count
 * lets the scenario check that nothing is allocated after bind, and the
 * link leaves malloc, calloc, realloc and free undefined (CMakeLists.txt).
 */
#include <stddef.h>
#include <stdint.h>

#ifndef FW_POOL_BYTES
#define FW_POOL_BYTES 16384
#endif

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

/* The library's storage (COMPOSITE_NO_HEAP: the image has no heap at all;
 * the link makes malloc and friends undefined). Sized from the peak this
 * scenario reports, with room to spare. */
static _Alignas(8) unsigned char pool[FW_POOL_BYTES];

static unsigned long allocs(void)
{
	struct usb_port_pool_stats st;

	return usb_port_pool_stats(&st) ? 0 : st.allocs;
}

int main(void)
{
	struct usb_port_pool_stats st;
	int rc;

	if (usb_port_pool_init(pool, sizeof(pool))) {
		say("FAILED: usb_port_pool_init");
		return 1;
	}
	rc = fw_scenario_run(say, allocs);
	if (usb_port_pool_stats(&st) == 0) {
		fw_say_num("static pool peak (bytes): ", (unsigned long)st.peak);
		fw_say_num("static pool in use after unregister (bytes): ", (unsigned long)st.used);
		if (st.used) {
			say("FAILED: objects left in the pool");
			rc = 1;
		}
	}

	say(rc ? "FAILED" : "passed");
	return rc ? 1 : 0;
}
