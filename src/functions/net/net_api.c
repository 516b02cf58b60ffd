/*
 * net_api.c - the public calls of composite/ether.h that every network
 * function answers (usb_net_send(), usb_net_link_up(),
 * usb_net_get_stats()), routed to the function's net_port. Portable C11.
 */
#include <string.h>

#include "net_port.h"

static struct net_port *port_of(struct usb_function *f)
{
	struct net_port *p = ecm__port(f);

	return p ? p : ncm__port(f);
}

int usb_net_send(struct usb_function *f, const void *frame, size_t len)
{
	struct net_port *p = port_of(f);

	return p ? net_port_send(p, frame, len) : -USB_EINVAL;
}

bool usb_net_link_up(struct usb_function *f)
{
	struct net_port *p = port_of(f);

	return p && atomic_load(&p->up);
}

void usb_net_get_stats(struct usb_function *f, struct usb_net_stats *st)
{
	struct net_port *p = port_of(f);

	if (p)
		net_port_stats(p, st);
	else
		memset(st, 0, sizeof(*st));
	st->rx_ntbs_dropped = ncm__ntbs_dropped(f);
}
