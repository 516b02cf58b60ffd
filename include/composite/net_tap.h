/*
 * net_tap.h - a network function's gadget side as a Linux TAP interface
 * (/dev/net/tun, POSIX builds on Linux), like Linux's usb0: frames the
 * host sends come out of the interface, frames routed into it go to the
 * host. The interface gets the function's dev_addr and MTU USB_NET_MTU;
 * its carrier follows the link (up while the host has the data interface
 * open), and it is left down for the user to configure (ip link set up),
 * as Linux leaves usb0. Needs CAP_NET_ADMIN.
 *
 * Use: net_tap_create() with the function's options, the function is made
 * of them (ecm_alloc() or usb_get_function()), then net_tap_start();
 * net_tap_destroy() after the function is unbound. Frames routed into the
 * interface while the host has the link closed are dropped and counted;
 * when the host is slow, the bridge waits (the interface's queue fills,
 * the kernel drops as for any full device queue).
 */
#ifndef COMPOSITE_NET_TAP_H
#define COMPOSITE_NET_TAP_H

#include "composite/ether.h"

#ifdef __cplusplus
extern "C" {
#endif

struct net_tap;

/**
 * net_tap_create() - make the TAP interface for a function.
 * @ifname: in: a name or a template with "%d" ("usb%d"); out: the name
 *	the kernel gave (what the registry's ifname attribute then reads).
 * @dev_addr: the interface's MAC address.
 * @ops, @ctx: set to the bridge's callbacks, for the function's options.
 * Return: 0 and *@out; -USB_ENOMEM; the errno of opening /dev/net/tun or
 * of its ioctls, negated (-USB_EPERM without CAP_NET_ADMIN, -USB_ENOENT
 * without /dev/net/tun, -USB_EBUSY for a name in use).
 */
int net_tap_create(struct net_tap **out, char ifname[USB_NET_IFNAMSIZ],
		   const uint8_t dev_addr[USB_NET_ALEN], const struct usb_net_ops **ops,
		   void **ctx);

/* The interface's name. */
const char *net_tap_name(const struct net_tap *t);

/**
 * net_tap_start() - start moving frames between the interface and @f, a
 * function made of the options net_tap_create() filled. Call it again
 * for each other function made of them (one per configuration linking
 * the instance, as the same configfs function linked into several
 * configurations): frames go to the host through the function of the
 * configuration the host chose, and the carrier follows that function's
 * link. Context: one thread at a time, before the functions are unbound.
 * Return: 0; -USB_EBUSY (started on @f already); -USB_ENOSPC (more than
 * 8 functions); -USB_EAGAIN (no thread).
 */
int net_tap_start(struct net_tap *t, struct usb_function *f);

/* Frames moved so far each way, and those dropped going to the host. */
void net_tap_counts(const struct net_tap *t, unsigned long long *to_host,
		    unsigned long long *from_host, unsigned long long *dropped);

/* Remove the interface. After the function is unbound; NULL is ignored. */
void net_tap_destroy(struct net_tap *t);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_NET_TAP_H */
