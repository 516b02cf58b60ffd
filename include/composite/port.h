/*
 * port.h - what a bare-metal port supplies to the library (audience: the
 * firmware author). Only a build with COMPOSITE_IRQ_HOOKS (cmake option,
 * on by default for Generic targets) calls these; hosted builds never do.
 *
 * The two hooks make a critical section: on a single-core MCU, mask
 * interrupts (Cortex-M: read PRIMASK, then cpsid i; restore PRIMASK). On
 * a multi-core part they must also take a spinlock the other core honours.
 * They are called from thread and interrupt context, nest (restore gives
 * back the state save returned), and never sleep. The library's critical
 * sections are a few loads and stores long.
 *
 * What uses them:
 * - the null template UDC's lock and the UDC registry's lock, which must be
 *   safe against the USB interrupt (a spin lock taken by thread code and
 *   then by an interrupt on the same core would deadlock);
 * - on cores without atomic read-modify-write (ARMv6-M: Cortex-M0/M0+)
 *   and for 64-bit atomics (no LDREXD on ARMv7-M), the __atomic_* helper
 *   calls the compiler emits for C11 atomics, which libgcc does not have
 *   there: src/port/atomic_irq.c implements them with these hooks.
 *
 * Static storage: a COMPOSITE_NO_HEAP build (cmake option, on by default
 * for Generic targets) never references malloc, calloc, realloc or free.
 * Every object the library creates (the composite device and its ep0
 * buffer, string and descriptor copies, the MSF's common object, function
 * and requests, function instances, the null UDC and its requests, a RAM
 * disk) comes from one region the firmware gives with usb_port_pool_init()
 * before the first usb_null_udc_create() or usb_composite_probe(): a static
 * array. Sizes are in docs/firmware.md; usb_port_pool_stats() reports the
 * peak a device really used. The library allocates only at create, probe
 * and bind, so running out shows there (-USB_ENOMEM), never later.
 */
#ifndef COMPOSITE_PORT_H
#define COMPOSITE_PORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enter a critical section; return the state to restore (e.g. PRIMASK). */
unsigned long usb_port_irq_save(void);
/* Leave it: restore what the matching usb_port_irq_save() returned. */
void usb_port_irq_restore(unsigned long flags);

/* What the pool holds (usb_port_pool_stats()). */
struct usb_port_pool_stats {
	size_t size;		/* usable bytes of the region */
	size_t used;		/* bytes taken now, block headers included */
	size_t peak;		/* the most ever taken: size a region from this */
	unsigned long allocs;	/* allocations so far */
};

/*
 * Give the library its storage: @size bytes at @mem (any alignment; the
 * start is rounded up). Thread context, while the library holds nothing
 * (before the first create or probe, or after everything is destroyed).
 * The region must outlive every object the library creates.
 * Returns 0; -USB_EINVAL if @mem is NULL or @size too small for one object;
 * -USB_EBUSY while objects from the current region are live;
 * -USB_EOPNOTSUPP in builds with the heap (no COMPOSITE_NO_HEAP).
 */
int usb_port_pool_init(void *mem, size_t size);
/* Fill @st. 0; -USB_EINVAL if @st is NULL; -USB_EOPNOTSUPP with the heap. */
int usb_port_pool_stats(struct usb_port_pool_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_PORT_H */
