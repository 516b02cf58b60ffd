/*
 * byte_ring.c - the single-producer single-consumer byte ring
 * (byte_ring.h). Portable C11: the indexes are atomics, released by the
 * side that owns them and acquired by the other, so the bytes they cover
 * are visible before the index moves.
 */
#include <string.h>

#include "byte_ring.h"

void fn_ring_init(struct fn_ring *r, uint8_t *buf, size_t size)
{
	r->buf = buf;
	r->size = size;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
}

size_t fn_ring_used(const struct fn_ring *r)
{
	size_t tail = atomic_load_explicit(&((struct fn_ring *)r)->tail, memory_order_acquire);
	size_t head = atomic_load_explicit(&((struct fn_ring *)r)->head, memory_order_acquire);

	return head - tail;
}

size_t fn_ring_room(const struct fn_ring *r)
{
	return r->size - fn_ring_used(r);
}

size_t fn_ring_put(struct fn_ring *r, const void *data, size_t len)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	size_t room = r->size - (head - tail), at = head & (r->size - 1), first;

	if (len > room)
		len = room;
	first = r->size - at < len ? r->size - at : len;
	memcpy(r->buf + at, data, first);
	memcpy(r->buf, (const uint8_t *)data + first, len - first);
	atomic_store_explicit(&r->head, head + len, memory_order_release);
	return len;
}

size_t fn_ring_take(struct fn_ring *r, void *out, size_t len)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t used = head - tail, at = tail & (r->size - 1), first;

	if (len > used)
		len = used;
	first = r->size - at < len ? r->size - at : len;
	if (out) {
		memcpy(out, r->buf + at, first);
		memcpy((uint8_t *)out + first, r->buf, len - first);
	}
	atomic_store_explicit(&r->tail, tail + len, memory_order_release);
	return len;
}
