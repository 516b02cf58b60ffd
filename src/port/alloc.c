/*
 * alloc.c - see alloc.h: the library's allocations, from the heap or, in
 * COMPOSITE_NO_HEAP builds, from the firmware's pool (usb_port_pool_*() of
 * composite/port.h). Portable C11. Owns the one global pool.
 */
#include "port/alloc.h"

#include <stdint.h>
#include <string.h>

#include "composite/errors.h"
#include "composite/port.h"
#include "port/pool.h"

#ifdef COMPOSITE_NO_HEAP

static struct composite__pool pool;

int usb_port_pool_init(void *mem, size_t size)
{
	if (pool.live)
		return -USB_EBUSY;
	return composite__pool_init(&pool, mem, size);
}

int usb_port_pool_stats(struct usb_port_pool_stats *st)
{
	if (!st)
		return -USB_EINVAL;
	st->size = pool.size;
	st->used = pool.top;
	st->peak = pool.peak;
	st->allocs = pool.allocs;
	return 0;
}

void *composite__malloc(size_t size)
{
	return composite__pool_alloc(&pool, size);
}

void *composite__calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = composite__pool_alloc(&pool, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void composite__free(void *p)
{
	composite__pool_free(&pool, p);
}

unsigned long composite__alloc_count(void)
{
	return pool.allocs;
}

#else /* !COMPOSITE_NO_HEAP */

#include <stdatomic.h>
#include <stdlib.h>

/* Relaxed: a count for tests, ordered with nothing. */
static atomic_ulong heap_allocs;

static void *counted(void *p)
{
	if (p)
		atomic_fetch_add_explicit(&heap_allocs, 1, memory_order_relaxed);
	return p;
}

int usb_port_pool_init(void *mem, size_t size)
{
	(void)mem;
	(void)size;
	return -USB_EOPNOTSUPP;
}

int usb_port_pool_stats(struct usb_port_pool_stats *st)
{
	(void)st;
	return -USB_EOPNOTSUPP;
}

void *composite__malloc(size_t size)
{
	return counted(malloc(size));
}

void *composite__calloc(size_t n, size_t size)
{
	return counted(calloc(n, size));	/* the host's: large zeroed regions stay lazy */
}

void composite__free(void *p)
{
	free(p);
}

unsigned long composite__alloc_count(void)
{
	return atomic_load_explicit(&heap_allocs, memory_order_relaxed);
}

#endif /* COMPOSITE_NO_HEAP */
