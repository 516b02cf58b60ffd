/*
 * byte_ring.h - a single-producer single-consumer byte ring on C11
 * atomics: what the stream functions (ACM) keep between the USB side (one
 * context at a time) and the user's thread without a lock. One thread may
 * put while another takes; neither may be called from two threads at once.
 * Private to src/functions.
 */
#ifndef COMPOSITE_BYTE_RING_H
#define COMPOSITE_BYTE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct fn_ring {
	uint8_t *buf;
	size_t size;		/* a power of two */
	atomic_size_t head;	/* bytes ever put (the producer's) */
	atomic_size_t tail;	/* bytes ever taken (the consumer's) */
};

/* Use @buf of @size bytes (a power of two, > 0). */
void fn_ring_init(struct fn_ring *r, uint8_t *buf, size_t size);

/* Bytes to take; room to put. Either side may ask. */
size_t fn_ring_used(const struct fn_ring *r);
size_t fn_ring_room(const struct fn_ring *r);

/* Producer: put up to @len bytes; Return: how many went in. */
size_t fn_ring_put(struct fn_ring *r, const void *data, size_t len);

/* Consumer: take up to @len bytes into @out (NULL: drop them); Return: how many. */
size_t fn_ring_take(struct fn_ring *r, void *out, size_t len);

#endif
