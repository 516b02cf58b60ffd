/*
 * ss_instance.c - SourceSink in the function registry ("SourceSink", as
 * Linux's configfs): a plain instance holding a struct f_ss_opts, and its
 * attributes by Linux's names. Portable C11 on the public function API.
 */
#include "composite/sourcesink.h"
#include "../common/fn_instance.h"
#include "../registry/builtin.h"

static struct f_ss_opts *ss_opts(struct usb_function_instance *fi)
{
	return fn_instance_of(fi)->opts;
}

static int ss_check(const struct f_ss_opts *o)
{
	return f_ss_opts_check(o);
}

FN_UINT_ATTR(ss, struct f_ss_opts, pattern)
FN_UINT_ATTR(ss, struct f_ss_opts, isoc_interval)
FN_UINT_ATTR(ss, struct f_ss_opts, isoc_maxpacket)
FN_UINT_ATTR(ss, struct f_ss_opts, isoc_mult)
FN_UINT_ATTR(ss, struct f_ss_opts, isoc_maxburst)
FN_UINT_ATTR(ss, struct f_ss_opts, bulk_buflen)
FN_UINT_ATTR(ss, struct f_ss_opts, bulk_qlen)
FN_UINT_ATTR(ss, struct f_ss_opts, iso_qlen)

static const struct usb_function_attribute ss_attrs[] = {
	FN_ATTR_RW(ss, pattern),
	FN_ATTR_RW(ss, isoc_interval),
	FN_ATTR_RW(ss, isoc_maxpacket),
	FN_ATTR_RW(ss, isoc_mult),
	FN_ATTR_RW(ss, isoc_maxburst),
	FN_ATTR_RW(ss, bulk_buflen),
	FN_ATTR_RW(ss, bulk_qlen),
	FN_ATTR_RW(ss, iso_qlen),
	{ NULL, NULL, NULL }
};

static void ss_init(void *opts)
{
	f_ss_opts_init(opts);
}

static int ss_alloc(const void *opts, struct usb_function **out)
{
	return sourcesink_alloc(opts, out);
}

static const struct fn_plain_ops ss_plain = {
	.opts_size = sizeof(struct f_ss_opts),
	.init = ss_init,
	.alloc = ss_alloc,
	.free = sourcesink_free,
	.attrs = ss_attrs,
};

static struct usb_function_instance *ss_alloc_inst(void)
{
	return fn_plain_alloc_inst(&ss_plain);
}

struct f_ss_opts *f_ss_opts_from_instance(struct usb_function_instance *fi)
{
	return fi && !usb_is_err(fi) && fi->fd == &fn_driver_sourcesink ? ss_opts(fi) : NULL;
}

const struct usb_function_driver fn_driver_sourcesink = {
	.name = "SourceSink",
	.alloc_inst = ss_alloc_inst,
	.alloc_func = fn_plain_alloc_func,
};
