/*
 * net_opts.c - the options every network function takes (struct
 * usb_net_opts: addresses, interface name, queue multiplier, callbacks):
 * their defaults and their checks. Portable C11.
 */
#include <string.h>

#include "net_addr.h"

void usb_net_opts_init(struct usb_net_opts *o)
{
	memset(o, 0, sizeof(*o));
	net_random_addr(o->dev_addr);
	do
		net_random_addr(o->host_addr);
	while (memcmp(o->host_addr, o->dev_addr, USB_NET_ALEN) == 0);
	strcpy(o->ifname, "usb%d");
	o->qmult = USB_NET_QMULT_DEFAULT;
}

int usb_net_opts_check(const struct usb_net_opts *o)
{
	if (!o || o->qmult < 1 || o->qmult > USB_NET_QMULT_MAX || !net_addr_usable(o->dev_addr) ||
	    !net_addr_usable(o->host_addr) ||
	    memcmp(o->dev_addr, o->host_addr, USB_NET_ALEN) == 0 || !o->ifname[0] ||
	    !memchr(o->ifname, '\0', sizeof(o->ifname)))
		return -USB_EINVAL;
	return 0;
}
