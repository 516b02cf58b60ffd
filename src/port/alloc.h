/*
 * alloc.h - the library's one door to memory (private to src/): every
 * object the library creates is allocated and freed through these three,
 * never through malloc() directly. Hosted builds: malloc, calloc, free.
 * COMPOSITE_NO_HEAP builds: the firmware's static pool
 * (usb_port_pool_init() in composite/port.h, implemented on pool.h); the
 * heap is then never referenced (ctest firmware.no_heap).
 *
 * Thread context only (probe, bind, unbind, create, destroy): nothing is
 * allocated in a completion, a setup callback or an interrupt.
 */
#ifndef COMPOSITE_PORT_ALLOC_H
#define COMPOSITE_PORT_ALLOC_H

#include <stddef.h>

/* @size bytes aligned for any object, or NULL (out of memory). */
void *composite__malloc(size_t size);
/* @n x @size zeroed bytes, or NULL (out of memory or overflow). */
void *composite__calloc(size_t n, size_t size);
/* Give back what one of the two returned; NULL is ignored. */
void composite__free(void *p);
/* Successful allocations so far, any thread: the tests' check
 * that nothing is allocated after bind, in both builds. */
unsigned long composite__alloc_count(void);

#endif /* COMPOSITE_PORT_ALLOC_H */
