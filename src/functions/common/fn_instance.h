/*
 * fn_instance.h - what the shipped functions' registry instances share:
 * the instance with its count of living functions (an option cannot
 * change under a function made of it: -USB_EBUSY, as Linux's configfs
 * stores answer), and show/store pairs for unsigned options checked by
 * the function's own opts checker. Private to src/functions.
 */
#ifndef COMPOSITE_FN_INSTANCE_H
#define COMPOSITE_FN_INSTANCE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "composite/registry.h"

/*
 * How a function with a plain options struct (SourceSink, Loopback...)
 * makes instances and functions: the opts' size, their defaults, and the
 * function's alloc/free of its public API.
 */
struct fn_plain_ops {
	size_t opts_size;
	void (*init)(void *opts);
	int (*alloc)(const void *opts, struct usb_function **out);
	void (*free)(struct usb_function *f);
	const struct usb_function_attribute *attrs;
};

struct fn_instance {
	struct usb_function_instance fi;
	unsigned refcnt;	/* functions made of it and not yet put */
	const struct fn_plain_ops *ops;	/* NULL for instances of their own kind */
	void *opts;		/* plain instances: ops->opts_size bytes */
};

static inline struct fn_instance *fn_instance_of(struct usb_function_instance *fi)
{
	return usb_container_of(fi, struct fn_instance, fi);
}

/* A plain instance with @ops->init's defaults, or an error pointer. */
struct usb_function_instance *fn_plain_alloc_inst(const struct fn_plain_ops *ops);

/* Free a plain instance (its free_func_inst; a wrapper may call it). */
void fn_plain_free_inst(struct usb_function_instance *fi);

/*
 * Numbered instances (ACM ports, HID minors), as Linux's gserial lines:
 * the lowest number of @n that @used does not mark is taken. Return: the
 * number, or -USB_ENODEV when all are used. The registry's thread only.
 */
int fn_number_take(bool *used, unsigned n);

/* @ops->alloc of @fi's options; the function's free_func puts it back. */
struct usb_function *fn_plain_alloc_func(struct usb_function_instance *fi);

/*
 * FN_UINT_ATTR(prefix, type, field): prefix_field_show/_store for the
 * unsigned member @field of the options of @type that prefix_opts(fi)
 * returns; a store is checked with prefix_check(const type *) on a copy,
 * so the function's own ranges apply. FN_ATTR_RW() names the pair.
 */
#define FN_UINT_ATTR(prefix, type, field)					\
	static int prefix##_##field##_show(struct usb_function_instance *fi,	\
					   unsigned index, char *buf, size_t size) \
	{									\
		(void)index;							\
		return snprintf(buf, size, "%u\n", (unsigned)prefix##_opts(fi)->field); \
	}									\
	static int prefix##_##field##_store(struct usb_function_instance *fi,	\
					    unsigned index, const char *value)	\
	{									\
		type copy = *prefix##_opts(fi);					\
		unsigned v;							\
		int rc;								\
										\
		(void)index;							\
		if (fn_instance_of(fi)->refcnt)					\
			return -USB_EBUSY;					\
		rc = usb_attr_parse_uint(value, 0, UINT_MAX, &v);		\
		if (rc)								\
			return rc;						\
		copy.field = v;							\
		rc = prefix##_check(&copy);					\
		if (rc == 0)							\
			*prefix##_opts(fi) = copy;				\
		return rc;							\
	}

#define FN_ATTR_RW(prefix, field) { #field, prefix##_##field##_show, prefix##_##field##_store }

#endif
