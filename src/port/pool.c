/*
 * pool.c - see pool.h. Portable C11; touches only the caller's region.
 */
#include "port/pool.h"

#include <stdint.h>

#include "composite/errors.h"

#define POOL_ALIGN _Alignof(max_align_t)

/* A block's header: what freeing needs and no more (8 bytes on a 32-bit
 * core, one per object the library keeps; the payload's size is never
 * needed again, as the top only comes down to a block's own start). */
struct block {
	size_t below;	/* the pool's "last" before this block went on */
	bool freed;
};

static size_t round_up(size_t n)
{
	return (n + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
}

#define HEADER_BYTES ((sizeof(struct block) + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN)

size_t composite__pool_block_bytes(size_t size)
{
	return HEADER_BYTES + round_up(size ? size : 1);
}

int composite__pool_init(struct composite__pool *pool, void *mem, size_t size)
{
	uintptr_t at = (uintptr_t)mem, skip = (POOL_ALIGN - at % POOL_ALIGN) % POOL_ALIGN;

	if (!pool || !mem || size < skip || size - skip < HEADER_BYTES + POOL_ALIGN)
		return -USB_EINVAL;
	*pool = (struct composite__pool){
		.base = (unsigned char *)mem + skip,
		.size = (size - skip) / POOL_ALIGN * POOL_ALIGN,
	};
	return 0;
}

void *composite__pool_alloc(struct composite__pool *pool, size_t size)
{
	struct block *b;
	size_t need;

	if (!pool->base || size > pool->size)
		return NULL;
	need = composite__pool_block_bytes(size);
	if (pool->size - pool->top < need)
		return NULL;
	b = (struct block *)(void *)(pool->base + pool->top);
	b->below = pool->last;
	b->freed = false;
	pool->last = pool->top + 1;
	pool->top += need;
	if (pool->top > pool->peak)
		pool->peak = pool->top;
	pool->allocs++;
	pool->live++;
	return (unsigned char *)b + HEADER_BYTES;
}

/* The block whose payload is @p, or NULL if @p is not one the pool
 * handed out: the chain from the top is walked (tens of blocks at most),
 * so a pointer into the middle of an object is never taken for one. */
static struct block *block_of(struct composite__pool *pool, void *p)
{
	for (size_t at = pool->last; at;) {
		struct block *b = (struct block *)(void *)(pool->base + at - 1);

		if ((unsigned char *)b + HEADER_BYTES == (unsigned char *)p)
			return b;
		at = b->below;
	}
	return NULL;
}

void composite__pool_free(struct composite__pool *pool, void *p)
{
	struct block *b;

	if (!p)
		return;
	b = block_of(pool, p);
	if (!b || b->freed) {
		pool->rejected++;	/* a caller's bug: counted, never a crash */
		return;
	}
	b->freed = true;
	pool->live--;
	/* Bring the top down over every freed block on it. */
	while (pool->last) {
		struct block *t = (struct block *)(void *)(pool->base + pool->last - 1);

		if (!t->freed)
			break;
		pool->top = pool->last - 1;
		pool->last = t->below;
	}
}
