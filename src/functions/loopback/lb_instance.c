/*
 * lb_instance.c - Loopback in the function registry ("Loopback", as
 * Linux's configfs): a plain instance holding a struct f_lb_opts, and its
 * attributes by Linux's names. Portable C11 on the public function API.
 */
#include "composite/f_loopback.h"
#include "../common/fn_instance.h"
#include "../registry/builtin.h"

static struct f_lb_opts *lb_opts(struct usb_function_instance *fi)
{
	return fn_instance_of(fi)->opts;
}

static int lb_check(const struct f_lb_opts *o)
{
	return f_lb_opts_check(o);
}

FN_UINT_ATTR(lb, struct f_lb_opts, bulk_buflen)
FN_UINT_ATTR(lb, struct f_lb_opts, qlen)

static const struct usb_function_attribute lb_attrs[] = {
	FN_ATTR_RW(lb, bulk_buflen),
	FN_ATTR_RW(lb, qlen),
	{ NULL, NULL, NULL }
};

static void lb_init(void *opts)
{
	f_lb_opts_init(opts);
}

static int lb_alloc(const void *opts, struct usb_function **out)
{
	return loopback_alloc(opts, out);
}

static const struct fn_plain_ops lb_plain = {
	.opts_size = sizeof(struct f_lb_opts),
	.init = lb_init,
	.alloc = lb_alloc,
	.free = loopback_free,
	.attrs = lb_attrs,
};

static struct usb_function_instance *lb_alloc_inst(void)
{
	return fn_plain_alloc_inst(&lb_plain);
}

struct f_lb_opts *f_lb_opts_from_instance(struct usb_function_instance *fi)
{
	return fi && !usb_is_err(fi) && fi->fd == &fn_driver_loopback ? lb_opts(fi) : NULL;
}

const struct usb_function_driver fn_driver_loopback = {
	.name = "Loopback",
	.alloc_inst = lb_alloc_inst,
	.alloc_func = fn_plain_alloc_func,
};
