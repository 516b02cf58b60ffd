/*
 * kref.h - a reference count with a release callback, for state that truly
 * has several owners (a function's common state shared by every
 * configuration it is added to, as fsg_common is). Linux's names and
 * semantics. Header-only, C11 atomics: get and put are safe from any thread.
 */
#ifndef COMPOSITE_KREF_H
#define COMPOSITE_KREF_H

#include <assert.h>
#include <stdatomic.h>

struct kref {
	atomic_uint refcount;
};

/* Start at one reference, owned by the caller. */
static inline void kref_init(struct kref *kref)
{
	atomic_init(&kref->refcount, 1u);
}

/* Take another reference; the caller must already hold one. */
static inline void kref_get(struct kref *kref)
{
	unsigned old = atomic_fetch_add_explicit(&kref->refcount, 1u,
						 memory_order_relaxed);
	assert(old != 0 && "kref_get on a released object");
	(void)old;
}

/*
 * Drop a reference. The last one calls release(kref) in the caller's
 * thread, which must free the containing object.
 * Return: 1 if the object was released, 0 otherwise.
 */
static inline int kref_put(struct kref *kref, void (*release)(struct kref *kref))
{
	unsigned old = atomic_fetch_sub_explicit(&kref->refcount, 1u,
						 memory_order_acq_rel);
	assert(old != 0 && "kref_put on a released object");
	if (old == 1u) {
		release(kref);
		return 1;
	}
	return 0;
}

static inline unsigned kref_read(const struct kref *kref)
{
	return atomic_load_explicit((atomic_uint *)&kref->refcount,
				    memory_order_relaxed);
}

#endif /* COMPOSITE_KREF_H */
