/*
 * net_instance.c - the network functions in the function registry
 * ("ecm" and "ncm", as Linux's configfs): plain instances holding a
 * struct usb_net_opts, their addresses random and fixed for the
 * instance's life unless set; attributes dev_addr, host_addr, ifname,
 * qmult (stores refused with -USB_EBUSY while a function made of it
 * lives, as Linux's). Portable C11.
 */
#include <stdio.h>
#include <string.h>

#include "composite/ether.h"
#include "../common/fn_instance.h"
#include "../registry/builtin.h"

static struct usb_net_opts *net_opts(struct usb_function_instance *fi)
{
	return fn_instance_of(fi)->opts;
}

static int net_check(const struct usb_net_opts *o)
{
	return usb_net_opts_check(o);
}

FN_UINT_ATTR(net, struct usb_net_opts, qmult)

static int addr_show(const uint8_t *a, char *buf, size_t size)
{
	char text[18];

	usb_net_format_addr(a, text);
	return snprintf(buf, size, "%s\n", text);
}

/* Store into a copy, check the whole, then keep it. */
static int addr_store(struct usb_function_instance *fi, const char *value, bool dev)
{
	struct usb_net_opts copy = *net_opts(fi);
	int rc;

	if (fn_instance_of(fi)->refcnt)
		return -USB_EBUSY;
	rc = usb_net_parse_addr(value, dev ? copy.dev_addr : copy.host_addr);
	if (rc == 0)
		rc = net_check(&copy);
	if (rc == 0)
		*net_opts(fi) = copy;
	return rc;
}

static int dev_addr_show(struct usb_function_instance *fi, unsigned index, char *buf, size_t size)
{
	(void)index;
	return addr_show(net_opts(fi)->dev_addr, buf, size);
}

static int dev_addr_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	(void)index;
	return addr_store(fi, value, true);
}

static int host_addr_show(struct usb_function_instance *fi, unsigned index, char *buf, size_t size)
{
	(void)index;
	return addr_show(net_opts(fi)->host_addr, buf, size);
}

static int host_addr_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	(void)index;
	return addr_store(fi, value, false);
}

static int ifname_show(struct usb_function_instance *fi, unsigned index, char *buf, size_t size)
{
	(void)index;
	return snprintf(buf, size, "%s\n", net_opts(fi)->ifname);
}

static int ifname_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	struct usb_net_opts *o = net_opts(fi);
	size_t n = strlen(value);

	(void)index;
	if (fn_instance_of(fi)->refcnt)
		return -USB_EBUSY;
	if (n && value[n - 1] == '\n')
		n--;
	if (n == 0 || n >= sizeof(o->ifname) || memchr(value, '/', n) || memchr(value, ' ', n))
		return -USB_EINVAL;
	memcpy(o->ifname, value, n);
	o->ifname[n] = '\0';
	return 0;
}

static const struct usb_function_attribute net_attrs[] = {
	{ "dev_addr", dev_addr_show, dev_addr_store },
	{ "host_addr", host_addr_show, host_addr_store },
	{ "ifname", ifname_show, ifname_store },
	FN_ATTR_RW(net, qmult),
	{ NULL, NULL, NULL }
};

static void net_init(void *opts)
{
	usb_net_opts_init(opts);
}

static int ecm_alloc_plain(const void *opts, struct usb_function **out)
{
	return ecm_alloc(opts, out);
}

static const struct fn_plain_ops ecm_plain = {
	.opts_size = sizeof(struct usb_net_opts),
	.init = net_init,
	.alloc = ecm_alloc_plain,
	.free = ecm_free,
	.attrs = net_attrs,
};

static struct usb_function_instance *ecm_alloc_inst(void)
{
	return fn_plain_alloc_inst(&ecm_plain);
}

static int ncm_alloc_plain(const void *opts, struct usb_function **out)
{
	return ncm_alloc(opts, out);
}

static const struct fn_plain_ops ncm_plain = {
	.opts_size = sizeof(struct usb_net_opts),
	.init = net_init,
	.alloc = ncm_alloc_plain,
	.free = ncm_free,
	.attrs = net_attrs,
};

static struct usb_function_instance *ncm_alloc_inst(void)
{
	return fn_plain_alloc_inst(&ncm_plain);
}

struct usb_net_opts *usb_net_opts_from_instance(struct usb_function_instance *fi)
{
	if (!fi || usb_is_err(fi) || (fi->fd != &fn_driver_ecm && fi->fd != &fn_driver_ncm))
		return NULL;
	return net_opts(fi);
}

const struct usb_function_driver fn_driver_ecm = {
	.name = "ecm",
	.alloc_inst = ecm_alloc_inst,
	.alloc_func = fn_plain_alloc_func,
};

const struct usb_function_driver fn_driver_ncm = {
	.name = "ncm",
	.alloc_inst = ncm_alloc_inst,
	.alloc_func = fn_plain_alloc_func,
};
