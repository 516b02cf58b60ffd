/*
 * net_notify.c - NETWORK_CONNECTION and CONNECTION_SPEED_CHANGE on a CDC
 * network function's interrupt endpoint (net_notify.h). Portable C11.
 */
#include "net_notify.h"

#include "composite/cdc.h"
#include "functions/common/fn_request.h"

enum { NOTIFY_CONNECT = 1, NOTIFY_SPEED = 2 };

static void notify_complete(struct usb_ep *ep, struct usb_request *req);

int net_notify_alloc(struct net_notify *n, struct usb_ep *ep)
{
	n->ep = ep;
	n->req = fn_request_alloc(ep, NET_NOTIFY_BYTES, n, notify_complete);
	return n->req ? 0 : -USB_ENOMEM;
}

void net_notify_free(struct net_notify *n)
{
	fn_request_free(n->ep, &n->req);
}

uint32_t net_bitrate(const struct usb_gadget *g)
{
	if (g->speed >= USB_SPEED_SUPER)
		return 13u * 1024u * 8u * 1000u * 8u;
	if (g->speed == USB_SPEED_HIGH)
		return 13u * 512u * 8u * 1000u * 8u;
	return 19u * 64u * 1u * 1000u * 8u;
}

static void send_next(struct net_notify *n)
{
	struct usb_request *req = n->req;
	struct usb_cdc_notification *h = req->buf;
	uint8_t *data = (uint8_t *)req->buf + sizeof(*h);
	bool speed = (n->pending & NOTIFY_SPEED) &&
		     (n->speed_first || !(n->pending & NOTIFY_CONNECT));

	if (!n->on || n->busy || !n->pending)
		return;
	h->bmRequestType = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	h->wIndex = USB_CPU_TO_LE16(n->intf);
	if (speed) {
		n->pending &= ~(unsigned)NOTIFY_SPEED;
		h->bNotificationType = USB_CDC_NOTIFY_SPEED_CHANGE;
		h->wValue = 0;
		h->wLength = USB_CPU_TO_LE16(8);
		usb_put_le32(data, n->bitrate);
		usb_put_le32(data + 4, n->bitrate);
		req->length = NET_NOTIFY_BYTES;
	} else {
		n->pending &= ~(unsigned)NOTIFY_CONNECT;
		h->bNotificationType = USB_CDC_NOTIFY_NETWORK_CONNECTION;
		h->wValue = USB_CPU_TO_LE16(n->connected ? 1 : 0);
		h->wLength = 0;
		req->length = sizeof(*h);
	}
	n->busy = true;
	if (usb_ep_queue(n->ep, req, USB_GFP_ATOMIC))
		n->busy = false;
}

static void notify_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct net_notify *n = req->context;

	(void)ep;
	n->busy = false;
	if (req->status == 0)
		send_next(n);
}

void net_notify_enable(struct net_notify *n, bool on)
{
	n->on = on;
	n->busy = false;
	if (!on)
		n->pending = 0;
}

void net_notify_link(struct net_notify *n, bool connected, uint32_t bitrate)
{
	n->connected = connected;
	n->bitrate = bitrate;
	n->pending |= NOTIFY_CONNECT | NOTIFY_SPEED;
	send_next(n);
}
