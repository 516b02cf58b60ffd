/*
 * ep.c - the endpoint and gadget calls of gadget.h, and endpoint
 * allocation for functions (usb_ep_autoconfig*() of function.h).
 * It checks arguments, keeps the halt/wedge state of each endpoint and the
 * queued flag of each request, and calls the backend's ops. It touches
 * usb_ep fields (claimed, enabled, address, maxpacket, halt state) and
 * usb_request.queued/status/actual; nothing of the composite device.
 */
#include <assert.h>
#include <stdatomic.h>

#include "core.h"

static bool is_ep0(const struct usb_ep *ep)
{
	return ep->gadget && ep->gadget->ep0 == ep;
}

/* wMaxPacketSize's size bits (without the high-bandwidth multiplier). */
static unsigned desc_maxp(const struct usb_endpoint_descriptor *d)
{
	return USB_LE16_TO_CPU(d->wMaxPacketSize) & USB_ENDPOINT_MAXP_MASK;
}

static bool caps_fit(const struct usb_ep *ep, unsigned type, bool in)
{
	switch (type) {
	case USB_ENDPOINT_XFER_BULK:
		if (!ep->caps.type_bulk)
			return false;
		break;
	case USB_ENDPOINT_XFER_INT:
		if (!ep->caps.type_int)
			return false;
		break;
	case USB_ENDPOINT_XFER_ISOC:
		if (!ep->caps.type_iso)
			return false;
		break;
	default:
		return false;	/* control endpoints other than ep0: not offered */
	}
	return in ? ep->caps.dir_in : ep->caps.dir_out;
}

int usb_ep_enable(struct usb_ep *ep)
{
	const struct usb_endpoint_descriptor *d;
	int ret;

	if (!ep || !ep->ops || is_ep0(ep))
		return -USB_EINVAL;
	d = ep->desc;
	if (!d || d->bDescriptorType != USB_DT_ENDPOINT ||
	    d->bLength < USB_DT_ENDPOINT_SIZE)
		return -USB_EINVAL;
	if (ep->enabled)
		return -USB_EBUSY;
	if (!caps_fit(ep, d->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK,
		      (d->bEndpointAddress & USB_DIR_IN) != 0))
		return -USB_EINVAL;
	if (ep->address && ep->address != d->bEndpointAddress)
		return -USB_EINVAL;
	if (desc_maxp(d) == 0 || (ep->maxpacket_limit && desc_maxp(d) > ep->maxpacket_limit))
		return -USB_EINVAL;

	ret = ep->ops->enable(ep, d);
	if (ret)
		return ret;
	ep->maxpacket = desc_maxp(d);
	ep->mult = USB_EP_MAXP_MULT(USB_LE16_TO_CPU(d->wMaxPacketSize));
	ep->maxburst = ep->comp_desc ? (ep->comp_desc->bMaxBurst & 0x1fu) : 0;
	atomic_store(&ep->halted, false);
	atomic_store(&ep->wedged, false);
	ep->enabled = true;
	return 0;
}

int usb_ep_disable(struct usb_ep *ep)
{
	int ret;

	if (!ep || !ep->ops || is_ep0(ep) || !ep->enabled)
		return -USB_EINVAL;
	/* Cleared first, so a completion queueing again sees ESHUTDOWN. */
	ep->enabled = false;
	ret = ep->ops->disable(ep);
	atomic_store(&ep->halted, false);
	atomic_store(&ep->wedged, false);
	/* As Linux UDCs do: the next set_alt picks descriptors afresh (the
	 * f_acm habit "if (!ep->desc) config_ep_by_speed()"), and no pointer
	 * into a function's descriptor copies outlives its unbind. */
	ep->desc = NULL;
	ep->comp_desc = NULL;
	return ret;
}

struct usb_request *usb_ep_alloc_request(struct usb_ep *ep, usb_gfp_t gfp_flags)
{
	struct usb_request *req;

	(void)gfp_flags;
	if (!ep || !ep->ops)
		return NULL;
	req = ep->ops->alloc_request(ep);
	if (!req)
		return NULL;
	atomic_store(&req->queued, false);
	INIT_LIST_HEAD(&req->list);
	return req;
}

void usb_ep_free_request(struct usb_ep *ep, struct usb_request *req)
{
	if (!ep || !req)
		return;
	assert(!atomic_load(&req->queued) && "freeing a queued request");
	ep->ops->free_request(ep, req);
}

int usb_ep_queue(struct usb_ep *ep, struct usb_request *req, usb_gfp_t gfp_flags)
{
	bool expected = false;
	int ret;

	(void)gfp_flags;
	if (!ep || !req || !req->complete || (!req->buf && req->length))
		return -USB_EINVAL;
	if (!ep->enabled)
		return -USB_ESHUTDOWN;
	if (!atomic_compare_exchange_strong(&req->queued, &expected, true))
		return -USB_EBUSY;
	req->status = -USB_EINPROGRESS;
	req->actual = 0;
	ret = ep->ops->queue(ep, req);
	if (ret)
		atomic_store(&req->queued, false);
	return ret;
}

int usb_ep_dequeue(struct usb_ep *ep, struct usb_request *req)
{
	if (!ep || !req || !atomic_load(&req->queued))
		return -USB_EINVAL;
	return ep->ops->dequeue(ep, req);
}

static int halt_checks(const struct usb_ep *ep)
{
	if (!ep || !ep->ops)
		return -USB_EINVAL;
	if (is_ep0(ep))
		return 0;
	if (!ep->enabled || !ep->desc)
		return -USB_EINVAL;
	if (usb_endpoint_xfer_isoc(ep->desc))
		return -USB_EINVAL;
	return 0;
}

int usb_ep_set_halt(struct usb_ep *ep)
{
	int ret = halt_checks(ep);
	bool was;

	if (ret)
		return ret;
	/* ep0: a protocol stall of the current transfer, not a state. */
	if (is_ep0(ep))
		return ep->ops->set_halt(ep, USB_EP_HALT_SET);
	/*
	 * The state first: once the backend stalls, the host may ask
	 * GET_STATUS in the event context at once, before this thread runs on.
	 */
	was = atomic_exchange(&ep->halted, true);
	ret = ep->ops->set_halt(ep, USB_EP_HALT_SET);
	if (ret)
		atomic_store(&ep->halted, was);
	return ret;
}

int usb_ep_clear_halt(struct usb_ep *ep)
{
	int ret = halt_checks(ep);

	if (ret)
		return ret;
	if (is_ep0(ep))
		return 0;
	ret = ep->ops->set_halt(ep, USB_EP_HALT_CLEAR);
	if (!ret) {
		atomic_store(&ep->wedged, false);
		atomic_store(&ep->halted, false);
	}
	return ret;
}

int usb_ep_set_wedge(struct usb_ep *ep)
{
	int ret = halt_checks(ep);
	bool was_wedged, was_halted;

	if (ret)
		return ret;
	if (is_ep0(ep))
		return ep->ops->set_halt(ep, USB_EP_HALT_SET);
	/*
	 * Wedge and halt state first: a host CLEAR_FEATURE racing with us
	 * must not win, and a GET_STATUS answered as soon as the backend
	 * stalls must already see the halt.
	 */
	was_wedged = atomic_exchange(&ep->wedged, true);
	was_halted = atomic_exchange(&ep->halted, true);
	ret = ep->ops->set_halt(ep, USB_EP_HALT_SET);
	if (ret) {
		atomic_store(&ep->halted, was_halted);
		atomic_store(&ep->wedged, was_wedged);
		return ret;
	}
	if (ep->ops->set_wedge)
		(void)ep->ops->set_wedge(ep);
	return 0;
}

int composite__ep_host_halt(struct usb_ep *ep, bool halt)
{
	int ret;

	if (is_ep0(ep))
		return 0;	/* ep0 halts only for one transfer */
	if (!halt && atomic_load(&ep->wedged))
		return 0;	/* wedged: the host cannot clear it */
	/* The host's request, which the backend may not refuse. */
	ret = ep->ops->set_halt(ep, halt ? USB_EP_HALT_HOST : USB_EP_HALT_CLEAR);
	if (!ret)
		atomic_store(&ep->halted, halt);
	return ret;
}

int usb_ep_fifo_status(struct usb_ep *ep)
{
	if (!ep || !ep->ops || !ep->ops->fifo_status)
		return -USB_EOPNOTSUPP;
	return ep->ops->fifo_status(ep);
}

void usb_ep_fifo_flush(struct usb_ep *ep)
{
	if (ep && ep->ops && ep->ops->fifo_flush)
		ep->ops->fifo_flush(ep);
}

/* ---- gadget calls ----------------------------------------------------- */

int usb_gadget_wakeup(struct usb_gadget *gadget)
{
	if (!gadget || !gadget->ops)
		return -USB_EINVAL;
	if (!gadget->ops->wakeup)
		return -USB_EOPNOTSUPP;
	if (!gadget->remote_wakeup_armed)
		return -USB_EINVAL;	/* the host did not allow it */
	return gadget->ops->wakeup(gadget);
}

int usb_gadget_set_selfpowered(struct usb_gadget *gadget, int is_on)
{
	int ret = 0;

	if (!gadget || !gadget->ops)
		return -USB_EINVAL;
	if (gadget->ops->set_selfpowered)
		ret = gadget->ops->set_selfpowered(gadget, is_on ? 1 : 0);
	if (!ret)
		gadget->is_selfpowered = is_on ? 1u : 0u;
	return ret;
}

static int pullup(struct usb_gadget *gadget, int on)
{
	if (!gadget || !gadget->ops)
		return -USB_EINVAL;
	if (!gadget->ops->pullup)
		return -USB_EOPNOTSUPP;
	return gadget->ops->pullup(gadget, on);
}

int usb_gadget_connect(struct usb_gadget *gadget)
{
	return pullup(gadget, 1);
}

int usb_gadget_disconnect(struct usb_gadget *gadget)
{
	return pullup(gadget, 0);
}

int usb_gadget_vbus_draw(struct usb_gadget *gadget, unsigned mA)
{
	if (!gadget || !gadget->ops)
		return -USB_EINVAL;
	if (!gadget->ops->vbus_draw)
		return -USB_EOPNOTSUPP;
	return gadget->ops->vbus_draw(gadget, mA);
}

struct usb_ep *usb_gadget_find_ep(struct usb_gadget *gadget, uint8_t address)
{
	struct list_head *pos;

	if (!gadget)
		return NULL;
	if ((address & USB_ENDPOINT_NUMBER_MASK) == 0)
		return (address & ~USB_DIR_IN) == 0 ? gadget->ep0 : NULL;
	list_for_each(pos, &gadget->ep_list) {
		struct usb_ep *ep = usb_container_of(pos, struct usb_ep, ep_list);

		if (ep->address == address)
			return ep;
	}
	return NULL;
}

/* ---- autoconfig ------------------------------------------------------- */

/* The endpoint number in a backend name "ep<n>..." (1..15), or 0. */
static unsigned name_number(const char *name)
{
	unsigned n = 0;
	int digits = 0;

	if (!name || name[0] != 'e' || name[1] != 'p')
		return 0;
	for (name += 2; *name >= '0' && *name <= '9' && digits < 3; name++, digits++)
		n = n * 10u + (unsigned)(*name - '0');
	return digits && n >= 1 && n <= 15 ? n : 0;
}

static bool address_taken(struct usb_gadget *g, const struct usb_ep *self, uint8_t address)
{
	struct list_head *pos;

	list_for_each(pos, &g->ep_list) {
		struct usb_ep *ep = usb_container_of(pos, struct usb_ep, ep_list);

		if (ep != self && ep->address == address)
			return true;
	}
	return false;
}

/* The address @ep would get for direction @in, or 0 if none is free. */
static uint8_t pick_address(struct usb_gadget *g, const struct usb_ep *ep, bool in)
{
	uint8_t dir = in ? USB_DIR_IN : 0;
	unsigned n = name_number(ep->name);

	if (n)
		return address_taken(g, ep, (uint8_t)(dir | n)) ? 0 : (uint8_t)(dir | n);
	for (n = 1; n <= 15; n++)
		if (!address_taken(g, ep, (uint8_t)(dir | n)))
			return (uint8_t)(dir | n);
	return 0;
}

struct usb_ep *usb_ep_autoconfig_ss(struct usb_gadget *gadget,
				    struct usb_endpoint_descriptor *desc,
				    struct usb_ss_ep_comp_descriptor *comp)
{
	struct list_head *pos;
	unsigned type, want, dflt;
	bool in;

	if (!gadget || !desc || desc->bDescriptorType != USB_DT_ENDPOINT)
		return NULL;
	type = desc->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK;
	in = (desc->bEndpointAddress & USB_DIR_IN) != 0;
	want = desc_maxp(desc);

	list_for_each(pos, &gadget->ep_list) {
		struct usb_ep *ep = usb_container_of(pos, struct usb_ep, ep_list);
		uint8_t address;

		if (ep->claimed || !caps_fit(ep, type, in))
			continue;
		if (want && ep->maxpacket_limit && want > ep->maxpacket_limit)
			continue;
		address = pick_address(gadget, ep, in);
		if (!address)
			continue;

		ep->claimed = true;
		ep->address = address;
		desc->bEndpointAddress = address;
		if (!want) {
			/* Full-speed defaults: 64 bulk and interrupt, 1023 iso. */
			dflt = type == USB_ENDPOINT_XFER_ISOC ? 1023u : 64u;
			if (ep->maxpacket_limit && dflt > ep->maxpacket_limit)
				dflt = ep->maxpacket_limit;
			desc->wMaxPacketSize = USB_CPU_TO_LE16((uint16_t)dflt);
		}
		if (comp && gadget_is_superspeed(gadget))
			ep->maxburst = comp->bMaxBurst & 0x1fu;
		return ep;
	}
	return NULL;
}

struct usb_ep *usb_ep_autoconfig(struct usb_gadget *gadget,
				 struct usb_endpoint_descriptor *desc)
{
	return usb_ep_autoconfig_ss(gadget, desc, NULL);
}

void usb_ep_autoconfig_release(struct usb_ep *ep)
{
	if (!ep)
		return;
	ep->claimed = false;
	ep->driver_data = NULL;
}

void usb_ep_autoconfig_reset(struct usb_gadget *gadget)
{
	struct list_head *pos;

	if (!gadget)
		return;
	list_for_each(pos, &gadget->ep_list) {
		struct usb_ep *ep = usb_container_of(pos, struct usb_ep, ep_list);

		ep->claimed = false;
		if (!ep->enabled) {
			ep->desc = NULL;
			ep->comp_desc = NULL;
		}
	}
}

void composite__ep_release_function(struct usb_gadget *g, struct usb_function *f)
{
	unsigned bit;

	for (bit = 0; bit < 32; bit++) {
		struct usb_ep *ep;

		if (!(f->endpoints & (1u << bit)) || (bit & 0x0f) == 0)
			continue;
		ep = usb_gadget_find_ep(g, (uint8_t)(((bit & 0x10) ? USB_DIR_IN : 0) | (bit & 0x0f)));
		if (ep)
			usb_ep_autoconfig_release(ep);
	}
}
