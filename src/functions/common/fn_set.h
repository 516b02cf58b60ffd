/*
 * fn_set.h - the functions a gadget-side bridge (a pty, FIFOs, a TAP
 * interface) serves: one per configuration linking the instance the
 * bridge was made for, all sharing its options (ops, ctx). The host uses
 * one configuration at a time, so one of them is current: the one the
 * host last spoke through, or the one that took the bridge's last data.
 * Lock-free: one thread adds (before and while the bridge's thread
 * runs), any thread reads and follows. Private to src/functions; C11
 * atomics.
 */
#ifndef COMPOSITE_FN_SET_H
#define COMPOSITE_FN_SET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "composite/errors.h"

struct usb_function;

/* Configurations one instance may be linked into and still be bridged. */
#define FN_SET_MAX 8

struct fn_set {
	struct usb_function *f[FN_SET_MAX];
	atomic_uint n;		/* f[0..n) are set; released after the slot */
	atomic_uint cur;	/* index of the current function */
};

static inline void fn_set_init(struct fn_set *s)
{
	atomic_init(&s->n, 0);
	atomic_init(&s->cur, 0);
}

static inline unsigned fn_set_count(struct fn_set *s)
{
	return atomic_load_explicit(&s->n, memory_order_acquire);
}

/* Return: 0; -USB_EBUSY (@f is in already); -USB_ENOSPC (FN_SET_MAX). */
static inline int fn_set_add(struct fn_set *s, struct usb_function *f)
{
	unsigned n = fn_set_count(s);

	for (unsigned i = 0; i < n; i++)
		if (s->f[i] == f)
			return -USB_EBUSY;
	if (n == FN_SET_MAX)
		return -USB_ENOSPC;
	s->f[n] = f;
	atomic_store_explicit(&s->n, n + 1, memory_order_release);
	return 0;
}

/* The current function; NULL while the set is empty. */
static inline struct usb_function *fn_set_current(struct fn_set *s)
{
	return fn_set_count(s) ? s->f[atomic_load(&s->cur)] : NULL;
}

/* The @i-th function (0 <= @i < fn_set_count()). */
static inline struct usb_function *fn_set_at(struct fn_set *s, unsigned i)
{
	return s->f[i];
}

/* The host spoke through @f: make it current. Return: whether @f is in
 * the set (callers ignore a callback from a function they were not
 * started on). */
static inline bool fn_set_follow(struct fn_set *s, const struct usb_function *f)
{
	unsigned n = fn_set_count(s);

	for (unsigned i = 0; i < n; i++) {
		if (s->f[i] == f) {
			atomic_store(&s->cur, i);
			return true;
		}
	}
	return false;
}

/* Whether @f is the current function. */
static inline bool fn_set_is_current(struct fn_set *s, const struct usb_function *f)
{
	return fn_set_count(s) && fn_set_current(s) == f;
}

/* The bytes a bridge hands over through fn_set_try(): @op's @arg. */
struct fn_set_bytes {
	const void *data;
	size_t len;
};

/*
 * Hand data to the current function with @op; when it answers
 * -USB_ENOTCONN (its configuration is not the host's), to the others in
 * turn, and the first that takes it becomes current.
 * Return: what @op returned for the function that took it, or
 * -USB_ENOTCONN when none did (also for an empty set).
 */
static inline long fn_set_try(struct fn_set *s,
			      long (*op)(struct usb_function *f, void *arg), void *arg)
{
	unsigned n = fn_set_count(s), cur = atomic_load(&s->cur);

	for (unsigned k = 0; k < n; k++) {
		unsigned i = (cur + k) % n;
		long rc = op(s->f[i], arg);

		if (rc != -USB_ENOTCONN) {
			if (i != cur)
				atomic_store(&s->cur, i);
			return rc;
		}
	}
	return -USB_ENOTCONN;
}

#endif
