/*
 * fn_instance.c - plain registry instances: an options struct the
 * function's own alloc takes, allocated with the instance, and the count
 * of functions made of it. Portable C11 (heap).
 */

#include "fn_instance.h"
#include "port/alloc.h"

void fn_plain_free_inst(struct usb_function_instance *fi)
{
	composite__free(fn_instance_of(fi));
}

struct usb_function_instance *fn_plain_alloc_inst(const struct fn_plain_ops *ops)
{
	struct fn_instance *in = composite__calloc(1, sizeof(*in) + ops->opts_size);

	if (!in)
		return usb_err_ptr(-USB_ENOMEM);
	in->ops = ops;
	in->opts = in + 1;
	ops->init(in->opts);
	in->fi.attrs = ops->attrs;
	in->fi.free_func_inst = fn_plain_free_inst;
	return &in->fi;
}

static void plain_put_func(struct usb_function *f)
{
	struct fn_instance *in = fn_instance_of(f->fi);

	in->refcnt--;
	in->ops->free(f);
}

struct usb_function *fn_plain_alloc_func(struct usb_function_instance *fi)
{
	struct fn_instance *in = fn_instance_of(fi);
	struct usb_function *f;
	int rc = in->ops->alloc(in->opts, &f);

	if (rc)
		return usb_err_ptr(rc);
	f->free_func = plain_put_func;
	in->refcnt++;
	return f;
}

int fn_number_take(bool *used, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!used[i]) {
			used[i] = true;
			return (int)i;
		}
	return -USB_ENODEV;
}
