/*
 * atomic_irq.c - the compiler's out-of-line atomic helpers (libatomic's
 * ABI: __atomic_load_N, _store_N, _exchange_N, _compare_exchange_N and the
 * fetch-and-op family) for bare-metal targets whose libgcc lacks them,
 * built on the port's critical-section hooks (composite/port.h).
 *
 * Built only with COMPOSITE_IRQ_HOOKS. A size gets helpers only where the
 * compiler cannot do its atomics inline (__GCC_ATOMIC_*_LOCK_FREE < 2):
 * bytes to words on ARMv6-M, 64-bit values on ARMv7-M too. Each helper is
 * its own section, so an image keeps only those its code calls. The C
 * names carry the private prefix; the asm label gives the ABI name.
 * Touches nothing but the object it is handed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "composite/port.h"

/*
 * A read-modify-write in a critical section: @abi's helper for size @n
 * stores NEW (an expression of old and v) and returns RET (old or val).
 */
#define ATOMIC_IRQ_RMW(T, N, CNAME, ABI, NEW, RET)                                     \
	T CNAME##_##N(volatile void *p, T v, int m) __asm__(ABI #N);                   \
	T CNAME##_##N(volatile void *p, T v, int m)                                    \
	{                                                                              \
		unsigned long f = usb_port_irq_save();                                 \
		T old = *(volatile T *)p;                                              \
		T val = (T)(NEW);                                                      \
		(void)m;                                                               \
		(void)old;                                                             \
		*(volatile T *)p = val;                                                \
		usb_port_irq_restore(f);                                               \
		return RET;                                                            \
	}

/* __atomic_fetch_<op>_N returns the old value, __atomic_<op>_fetch_N the new. */
#define ATOMIC_IRQ_FETCH_OP(T, N, NAME, OP)                                            \
	ATOMIC_IRQ_RMW(T, N, composite__atomic_fetch_##NAME, "__atomic_fetch_" #NAME "_", \
		       old OP v, old)                                                  \
	ATOMIC_IRQ_RMW(T, N, composite__atomic_##NAME##_fetch, "__atomic_" #NAME "_fetch_", \
		       old OP v, val)

#define ATOMIC_IRQ_SIZE(T, N)                                                          \
	T composite__atomic_load_##N(const volatile void *p, int m)                    \
		__asm__("__atomic_load_" #N);                                          \
	void composite__atomic_store_##N(volatile void *p, T v, int m)                 \
		__asm__("__atomic_store_" #N);                                         \
	bool composite__atomic_compare_exchange_##N(volatile void *p, void *expected,  \
						    T desired, int ms, int mf)         \
		__asm__("__atomic_compare_exchange_" #N);                              \
	T composite__atomic_load_##N(const volatile void *p, int m)                    \
	{                                                                              \
		unsigned long f = usb_port_irq_save();                                 \
		T v = *(const volatile T *)p;                                          \
		(void)m;                                                               \
		usb_port_irq_restore(f);                                               \
		return v;                                                              \
	}                                                                              \
	void composite__atomic_store_##N(volatile void *p, T v, int m)                 \
	{                                                                              \
		unsigned long f = usb_port_irq_save();                                 \
		(void)m;                                                               \
		*(volatile T *)p = v;                                                  \
		usb_port_irq_restore(f);                                               \
	}                                                                              \
	bool composite__atomic_compare_exchange_##N(volatile void *p, void *expected,  \
						    T desired, int ms, int mf)         \
	{                                                                              \
		unsigned long f = usb_port_irq_save();                                 \
		T cur = *(volatile T *)p, want;                                        \
		bool ok;                                                               \
		(void)ms;                                                              \
		(void)mf;                                                              \
		memcpy(&want, expected, sizeof(want));                                 \
		ok = cur == want;                                                      \
		if (ok)                                                                \
			*(volatile T *)p = desired;                                    \
		usb_port_irq_restore(f);                                               \
		if (!ok)                                                               \
			memcpy(expected, &cur, sizeof(cur));                           \
		return ok;                                                             \
	}                                                                              \
	ATOMIC_IRQ_RMW(T, N, composite__atomic_exchange, "__atomic_exchange_", v, old) \
	ATOMIC_IRQ_FETCH_OP(T, N, add, +)                                              \
	ATOMIC_IRQ_FETCH_OP(T, N, sub, -)                                              \
	ATOMIC_IRQ_FETCH_OP(T, N, and, &)                                              \
	ATOMIC_IRQ_FETCH_OP(T, N, or, |)                                               \
	ATOMIC_IRQ_FETCH_OP(T, N, xor, ^)

#if defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE < 2
ATOMIC_IRQ_SIZE(uint8_t, 1)
ATOMIC_IRQ_SIZE(uint16_t, 2)
ATOMIC_IRQ_SIZE(uint32_t, 4)
#endif
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE < 2
ATOMIC_IRQ_SIZE(uint64_t, 8)
#endif

/* An empty translation unit is not C11; a marker keeps this one valid. */
typedef int composite__atomic_irq_unit;
