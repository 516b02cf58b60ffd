/*
 * urb.c - USB/IP URBs as host transfers of the transfer engine
 * (src/udc/common/xfer.h): creation from a CMD_SUBMIT, submission to the
 * endpoint it names, unlink.
 *
 * Owns struct usbip__urb (its buffer and ISO descriptors). Touches the
 * engine's endpoint state under dev->lock; never calls the core. The
 * packet semantics (one URB from several requests and the reverse, short
 * packets, ZLPs, halts) are the engine's; this file only maps URB fields
 * onto it.
 */
#include <stdlib.h>
#include <string.h>

#include "usbip_priv.h"

struct usbip__urb *usbip__urb_new(const struct usbip_header *h, bool is_iso)
{
	const struct usbip_cmd_submit *c = &h->u.cmd_submit;
	struct usbip__urb *urb = calloc(1, sizeof(*urb));
	unsigned flags = 0;

	if (!urb)
		return NULL;
	urb->seqnum = h->seqnum;
	urb->devid = h->devid;
	urb->epnum = h->ep;
	urb->dir_in = h->direction == USBIP_DIR_IN;
	urb->is_iso = is_iso;
	urb->length = c->transfer_buffer_length;
	urb->start_frame = c->start_frame;
	INIT_LIST_HEAD(&urb->conn_link);
	if (urb->length) {
		/* Bounded by the connection's cap before we get here. */
		urb->buf = malloc(urb->length);
		if (!urb->buf)
			goto fail;
	}
	if (is_iso) {
		/* number_of_packets is at most 1024 (usbip__submit_payload()). */
		urb->number_of_packets = c->number_of_packets;
		urb->iso = calloc(urb->number_of_packets, sizeof(*urb->iso));
		urb->pk = calloc(urb->number_of_packets, sizeof(*urb->pk));
		if (!urb->iso || !urb->pk)
			goto fail;
	}
	if (c->transfer_flags & USBIP_URB_SHORT_NOT_OK)
		flags |= UDCX_URB_SHORT_NOT_OK;
	if (c->transfer_flags & USBIP_URB_ZERO_PACKET)
		flags |= UDCX_URB_ZERO_PACKET;
	udcx__urb_init(&urb->x, urb->buf, urb->length, flags);
	urb->x.context = urb;
	memcpy(&urb->x.setup, c->setup, sizeof(urb->x.setup));
	return urb;

fail:
	free(urb->pk);
	free(urb->iso);
	free(urb->buf);
	free(urb);
	return NULL;
}

void usbip__urb_free(struct usbip__urb *urb)
{
	if (!urb)
		return;
	free(urb->pk);
	free(urb->iso);
	free(urb->buf);
	free(urb);
}

void usbip__urb_iso_finish(struct usbip__urb *urb)
{
	uint32_t packed = 0;

	for (uint32_t i = 0; i < urb->number_of_packets; i++) {
		struct udcx_iso_packet *p = &urb->pk[i];

		urb->iso[i].actual_length = (uint32_t)p->actual;
		urb->iso[i].status = p->status;
		/* IN data goes on the wire packed: vhci spreads it back out to
		 * the offsets by the descriptors (usbip_pad_iso()). */
		if (urb->dir_in && p->actual) {
			memmove(urb->buf + packed, urb->buf + p->offset, p->actual);
			packed += (uint32_t)p->actual;
		}
	}
	if (urb->dir_in)
		urb->x.actual = packed;
}

int usbip__urb_submit(struct usbip__dev *dev, struct usbip__urb *urb)
{
	struct usbip__ep *ep = usbip__dev_ep(dev, urb->epnum, urb->dir_in);
	int rc;

	if (!ep)
		return -USB_EPIPE;
	if (urb->is_iso) {
		for (uint32_t i = 0; i < urb->number_of_packets; i++) {
			urb->pk[i].offset = urb->iso[i].offset;
			urb->pk[i].length = urb->iso[i].length;
		}
		udcx__urb_set_iso(&urb->x, urb->pk, urb->number_of_packets);
	}
	pthread_mutex_lock(&dev->lock);
	if (urb->epnum == 0) {
		rc = udcx__ctrl_submit(&ep->x, &urb->x, &dev->done);
	} else if (!udcx__ep_is_enabled(&ep->x)) {
		/* No such endpoint in the current configuration: a real
		 * device leaves the token unanswered and the host controller
		 * reports a transaction error, rather than a URB pending
		 * forever. */
		rc = -USB_EPROTO;
	} else {
		rc = udcx__urb_submit(&ep->x, &urb->x, &dev->done);
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

bool usbip__urb_unlink(struct usbip__dev *dev, struct usbip__urb *urb)
{
	struct usbip__ep *ep = usbip__dev_ep(dev, urb->epnum, urb->dir_in);
	bool pending;

	if (!ep)
		return false;
	pthread_mutex_lock(&dev->lock);
	pending = udcx__urb_unlink(&ep->x, &urb->x) == 0;
	pthread_mutex_unlock(&dev->lock);
	return pending;
}
