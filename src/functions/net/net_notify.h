/*
 * net_notify.h - the notifications of a CDC network function's interrupt
 * endpoint, shared by ECM and NCM: NETWORK_CONNECTION and
 * CONNECTION_SPEED_CHANGE after each choice of the data interface's
 * alternate (ECM sends the connection first, as Linux's f_ecm; NCM the
 * speed first, as Linux's f_ncm), one at a time, a newer state replacing
 * one not yet sent. Event context only. Private to src/functions.
 */
#ifndef COMPOSITE_NET_NOTIFY_H
#define COMPOSITE_NET_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "composite/gadget.h"

#define NET_NOTIFY_BYTES 16	/* header + CONNECTION_SPEED_CHANGE's 8 bytes */

struct net_notify {
	struct usb_ep *ep;
	struct usb_request *req;
	uint8_t intf;		/* the control interface, wIndex */
	bool speed_first;
	bool on, busy, connected;
	unsigned pending;
	uint32_t bitrate;
};

/* The request for @ep (bind). Return: 0 or -USB_ENOMEM. */
int net_notify_alloc(struct net_notify *n, struct usb_ep *ep);
void net_notify_free(struct net_notify *n);

/* The endpoint was enabled (@on) or disabled: nothing is sent while off. */
void net_notify_enable(struct net_notify *n, bool on);

/* Tell the host the link is @connected and its @bitrate (bit/s each way). */
void net_notify_link(struct net_notify *n, bool connected, uint32_t bitrate);

/* Linux's ecm_bitrate(): what a link of @g's speed is said to carry. */
uint32_t net_bitrate(const struct usb_gadget *g);

#endif
