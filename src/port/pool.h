/*
 * pool.h - a fixed region carved into objects, for builds without a heap
 * (private to src/port; alloc.c's COMPOSITE_NO_HEAP form and the unit test
 * test_port_pool use it). Owns only the region the caller hands it.
 *
 * The library allocates at probe and bind and frees at unbind and
 * unregister, roughly in reverse order, so the pool is a stack: an
 * allocation goes on top; a freed block is only marked, and the top comes
 * down over every marked block under it. Memory freed under a live block
 * is reused once the blocks above it are freed. No locking: one thread
 * context uses it (see alloc.h).
 */
#ifndef COMPOSITE_PORT_POOL_H
#define COMPOSITE_PORT_POOL_H

#include <stdbool.h>
#include <stddef.h>

struct composite__pool {
	unsigned char *base;	/* aligned start of the region */
	size_t size;		/* usable bytes from base */
	size_t top;		/* first free byte */
	size_t last;		/* 1 + offset of the topmost block's header; 0: none */
	size_t peak;		/* highest top seen */
	unsigned long allocs;	/* successful allocations so far */
	unsigned long live;	/* blocks not freed */
	unsigned long rejected;	/* frees of pointers that were not live blocks */
};

/* Bytes a block of @size takes in the pool, its header included: what a
 * caller adds up to size a region. */
size_t composite__pool_block_bytes(size_t size);
/* Take @mem (@size bytes, any alignment) as the pool's region; previous
 * contents are forgotten. -USB_EINVAL if @mem is NULL or too small for one
 * block, 0 otherwise. */
int composite__pool_init(struct composite__pool *pool, void *mem, size_t size);
/* @size bytes aligned for any object, or NULL: no region, or too few bytes left. */
void *composite__pool_alloc(struct composite__pool *pool, size_t size);
/* Give back @p (from this pool; NULL ignored). A pointer the pool did not
 * hand out, or one freed twice, changes nothing but pool->rejected. */
void composite__pool_free(struct composite__pool *pool, void *p);

#endif /* COMPOSITE_PORT_POOL_H */
