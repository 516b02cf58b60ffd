/*
 * acm_instance.c - ACM in the function registry ("acm", as Linux's
 * configfs): a plain instance holding a struct f_acm_opts whose port
 * number is the lowest free one (0..ACM_MAX_PORTS-1, as Linux's gserial
 * lines), given back with the instance; port_num reads it (read-only).
 * Portable C11 on the public function API.
 */
#include <stdio.h>

#include "composite/acm.h"
#include "../common/fn_instance.h"
#include "../registry/builtin.h"

static bool port_used[ACM_MAX_PORTS];	/* the registry's thread only */

static struct f_acm_opts *acm_opts(struct usb_function_instance *fi)
{
	return fn_instance_of(fi)->opts;
}

static int port_num_show(struct usb_function_instance *fi, unsigned index, char *buf,
			 size_t size)
{
	(void)index;
	return snprintf(buf, size, "%u\n", acm_opts(fi)->port_num);
}

static const struct usb_function_attribute acm_attrs[] = {
	{ "port_num", port_num_show, NULL },
	{ NULL, NULL, NULL }
};

static void acm_init(void *opts)
{
	f_acm_opts_init(opts);
}

static int acm_alloc_plain(const void *opts, struct usb_function **out)
{
	return acm_alloc(opts, out);
}

static const struct fn_plain_ops acm_plain = {
	.opts_size = sizeof(struct f_acm_opts),
	.init = acm_init,
	.alloc = acm_alloc_plain,
	.free = acm_free,
	.attrs = acm_attrs,
};

static void acm_free_inst(struct usb_function_instance *fi)
{
	port_used[acm_opts(fi)->port_num] = false;
	fn_plain_free_inst(fi);
}

static struct usb_function_instance *acm_alloc_inst(void)
{
	int port = fn_number_take(port_used, ACM_MAX_PORTS);	/* as gserial_alloc_line() */
	struct usb_function_instance *fi;

	if (port < 0)
		return usb_err_ptr(port);
	fi = fn_plain_alloc_inst(&acm_plain);
	if (usb_is_err(fi)) {
		port_used[port] = false;
		return fi;
	}
	acm_opts(fi)->port_num = (unsigned)port;
	fi->free_func_inst = acm_free_inst;
	return fi;
}

struct f_acm_opts *f_acm_opts_from_instance(struct usb_function_instance *fi)
{
	return fi && !usb_is_err(fi) && fi->fd == &fn_driver_acm ? acm_opts(fi) : NULL;
}

const struct usb_function_driver fn_driver_acm = {
	.name = "acm",
	.alloc_inst = acm_alloc_inst,
	.alloc_func = fn_plain_alloc_func,
};
