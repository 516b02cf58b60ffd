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
 */
#ifndef COMPOSITE_PORT_H
#define COMPOSITE_PORT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Enter a critical section; return the state to restore (e.g. PRIMASK). */
unsigned long usb_port_irq_save(void);
/* Leave it: restore what the matching usb_port_irq_save() returned. */
void usb_port_irq_restore(unsigned long flags);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_PORT_H */
