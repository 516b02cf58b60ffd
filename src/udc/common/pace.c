/*
 * pace.c - pacing of interrupt endpoints (xfer.h, "pacing"): the service
 * interval an endpoint descriptor asks for at a speed, and the pacer that
 * tells a backend when a held endpoint may move again. The per-endpoint
 * schedule itself is in xfer.c, beside the packet movement it limits.
 *
 * Portable C11: time comes from the backend's struct udcx_clock; the
 * caller holds its lock around every call, as for the rest of the engine.
 */
#include "udc/common/xfer.h"

#define UFRAME_NS 125000u	/* a high-speed microframe */
#define FRAME_NS 1000000u	/* a full-speed frame */

/* 1 + the index of the highest bit set in @v; 0 for 0. */
static unsigned top_bit(unsigned v)
{
	unsigned n = 0;

	while (v) {
		n++;
		v >>= 1;
	}
	return n;
}

uint64_t udcx__interval_ns(const struct usb_endpoint_descriptor *desc,
			   enum usb_device_speed speed)
{
	unsigned b;

	if (!desc || (desc->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK) != USB_ENDPOINT_XFER_INT)
		return 0;
	b = desc->bInterval;
	if (speed >= USB_SPEED_HIGH) {
		/* A full-speed value (in ms) where an exponent belongs is
		 * taken as that many ms, rounded down to a power of two, as
		 * Linux's host reads such descriptors. */
		if (b < 1 || b > 16)
			b = b ? top_bit(b * 8u) : 7u;
		if (b > 16)
			b = 16;
		return (uint64_t)UFRAME_NS << (b - 1);
	}
	return (uint64_t)FRAME_NS * (b ? b : 10u);
}

unsigned udcx__interval_packets(const struct usb_endpoint_descriptor *desc,
				const struct usb_ss_ep_comp_descriptor *comp,
				enum usb_device_speed speed)
{
	unsigned n = 1;

	if (!desc)
		return 1;
	if (speed >= USB_SPEED_SUPER)
		n = comp ? (comp->bMaxBurst & 0x1fu) + 1u : 1u;
	else if (speed == USB_SPEED_HIGH)
		n = (unsigned)usb_endpoint_maxp_mult(desc);
	return n > 3 ? 3 : n;
}

void udcx__pacer_init(struct udcx_pacer *p, const struct udcx_clock *clock)
{
	p->clock = clock;
	INIT_LIST_HEAD(&p->held);
}

bool udcx__ep_pace_desc(struct udcx_ep *ep, struct udcx_pacer *p,
			const struct usb_endpoint_descriptor *desc,
			const struct usb_ss_ep_comp_descriptor *comp, enum usb_device_speed speed)
{
	udcx__ep_set_pacing(ep, p, udcx__interval_ns(desc, speed),
			    udcx__interval_packets(desc, comp, speed));
	return udcx__ep_is_paced(ep);
}

bool udcx__pacer_next(const struct udcx_pacer *p, uint64_t *due)
{
	const struct list_head *pos;
	bool any = false;

	for (pos = p->held.next; pos != &p->held; pos = pos->next) {
		const struct udcx_ep *ep = list_entry(pos, struct udcx_ep, pace_node);

		if (!any || ep->pace_next < *due)
			*due = ep->pace_next;
		any = true;
	}
	return any;
}

unsigned udcx__pacer_run(struct udcx_pacer *p, struct udcx_done *done)
{
	struct list_head *pos, *tmp, due;
	unsigned n = 0;
	uint64_t now;

	if (list_empty(&p->held))
		return 0;
	now = p->clock->now_ns(p->clock->ctx);
	INIT_LIST_HEAD(&due);
	/* Off the list first: a run holds its endpoint again if it must. */
	list_for_each_safe(pos, tmp, &p->held) {
		struct udcx_ep *ep = list_entry(pos, struct udcx_ep, pace_node);

		if (ep->pace_next <= now) {
			list_move_tail(pos, &due);
			ep->pace_held = false;
		}
	}
	while (!list_empty(&due)) {
		struct udcx_ep *ep = list_first_entry(&due, struct udcx_ep, pace_node);

		list_del_init(&ep->pace_node);
		udcx__ep_run(ep, done);
		n++;
	}
	return n;
}
