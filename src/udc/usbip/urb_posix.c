/*
 * urb_posix.c - USB/IP URBs as host transfers of the transfer engine
 * (src/udc/common/xfer.h): creation from a CMD_SUBMIT, submission to the
 * endpoint it names, unlink; and the table that finds a connection's
 * unanswered URBs by seqnum.
 *
 * Owns struct usbip__urb (its buffer and ISO descriptors) and struct
 * usbip__urb_table (its buckets, not the URBs on them). Touches the
 * engine's endpoint state under dev->lock; never calls the core. The
 * packet semantics (one URB from several requests and the reverse, short
 * packets, ZLPs, halts) are the engine's; this file only maps URB fields
 * onto it.
 */
#include <stdlib.h>
#include <string.h>

#include "usbip_priv.h"

static void urb_free_memory(struct usbip__urb *urb)
{
	free(urb->pk);
	free(urb->iso);
	free(urb->buf);
	free(urb);
}

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
	urb->interval = c->interval;
	urb->xfer_flags = c->transfer_flags;
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
	/* Bulk and interrupt IN replies go out of the requests' buffers. */
	urb->gather = urb->dir_in && urb->epnum != 0 && !is_iso;
	if (urb->gather)
		udcx__urb_set_gather(&urb->x, urb->segs, USBIP_URB_SEGS);
	memcpy(&urb->x.setup, c->setup, sizeof(urb->x.setup));
	return urb;

fail:
	urb_free_memory(urb);
	return NULL;
}

void usbip__urb_free(struct usbip__dev *dev, struct usbip__urb *urb)
{
	if (!urb)
		return;
	if (urb->gather) {
		/* What it held waits in dev->done for the connection thread
		 * (or a disable) to give back. */
		pthread_mutex_lock(&dev->lock);
		udcx__urb_release(&urb->x, &dev->done);
		pthread_mutex_unlock(&dev->lock);
	}
	urb_free_memory(urb);
}


int usbip__urb_take_iso(struct usbip__urb *urb, const uint8_t *wire)
{
	for (uint32_t i = 0; i < urb->number_of_packets; i++) {
		usbip__decode_iso_desc(wire + (size_t)i * USBIP_ISO_DESC_SIZE, USBIP_ISO_DESC_SIZE,
				       &urb->iso[i]);
		urb->pk[i] = (struct udcx_iso_packet){ .offset = urb->iso[i].offset,
						       .length = urb->iso[i].length };
	}
	if (!udcx__iso_layout_valid(urb->pk, urb->number_of_packets, urb->length))
		return -USB_EPROTO;
	udcx__urb_set_iso(&urb->x, urb->pk, urb->number_of_packets);
	return 0;
}

void usbip__urb_iso_finish(struct usbip__urb *urb)
{
	uint32_t packed = 0;

	for (uint32_t i = 0; i < urb->number_of_packets; i++) {
		struct udcx_iso_packet *p = &urb->pk[i];
		/* The layout was checked at submit; this bound holds even if
		 * it had not been, so the packing stays inside the buffer. */
		size_t room = p->offset <= urb->length ? urb->length - p->offset : 0;
		size_t actual = p->actual < room ? p->actual : room;

		if (urb->dir_in && actual > urb->length - packed)
			actual = urb->length - packed;
		urb->iso[i].actual_length = (uint32_t)actual;
		urb->iso[i].status = p->status;
		/* IN data goes on the wire packed: vhci spreads it back out to
		 * the offsets by the descriptors (usbip_pad_iso()). */
		if (urb->dir_in && actual) {
			memmove(urb->buf + packed, urb->buf + p->offset, actual);
			packed += (uint32_t)actual;
		}
	}
	if (urb->dir_in)
		urb->x.actual = packed;
}

static int urb_submit(struct usbip__dev *dev, struct usbip__urb *urb, bool stream)
{
	struct usbip__ep *ep = usbip__dev_ep(dev, urb->epnum, urb->dir_in);
	int rc;

	if (!ep)
		return -USB_EPIPE;
	pthread_mutex_lock(&dev->lock);
	if (urb->epnum == 0) {
		rc = stream ? -USB_EINVAL : udcx__ctrl_submit(&ep->x, &urb->x, &dev->done);
	} else if (!udcx__ep_is_enabled(&ep->x)) {
		/* No such endpoint in the current configuration: a real
		 * device leaves the token unanswered and the host controller
		 * reports a transaction error, rather than a URB pending
		 * forever. */
		rc = -USB_EPROTO;
	} else if (stream) {
		rc = udcx__urb_submit_stream(&ep->x, &urb->x, &dev->done);
	} else {
		rc = udcx__urb_submit(&ep->x, &urb->x, &dev->done);
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

int usbip__urb_submit(struct usbip__dev *dev, struct usbip__urb *urb)
{
	return urb_submit(dev, urb, false);
}

int usbip__urb_submit_stream(struct usbip__dev *dev, struct usbip__urb *urb)
{
	int rc = urb_submit(dev, urb, true);

	urb->streaming = rc == 0;
	return rc;
}

size_t usbip__urb_rx_begin(struct usbip__dev *dev, struct usbip__urb *urb,
			   struct udcx_window *win, size_t max, bool *starved)
{
	struct usbip__ep *ep = usbip__dev_ep(dev, urb->epnum, urb->dir_in);

	pthread_mutex_lock(&dev->lock);
	*starved = udcx__urb_rx_starved(&ep->x, &urb->x);
	dev->rx_starved = *starved ? ep : NULL;	/* ep_queue() wakes us */
	return udcx__urb_rx_windows(&ep->x, &urb->x, win, max);
}

void usbip__urb_rx_end(struct usbip__dev *dev, struct usbip__urb *urb, size_t n)
{
	struct usbip__ep *ep = usbip__dev_ep(dev, urb->epnum, urb->dir_in);
	USB_LIST_HEAD(reqs);

	if (n > 0)
		udcx__urb_rx_commit(&ep->x, &urb->x, n, &dev->done);
	/* Filled requests go back now, not after the rest of the read: the
	 * function's completion queues the next one for the bytes to come. */
	while (!list_empty(&dev->done.reqs))
		list_move_tail(dev->done.reqs.next, &reqs);
	pthread_mutex_unlock(&dev->lock);
	udcx__giveback_list(&reqs);
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

/* ---- URBs by seqnum ------------------------------------------------------ */

int usbip__urb_table_init(struct usbip__urb_table *t, size_t capacity, uint32_t key)
{
	size_t n = 16;

	/* About four URBs a bucket when full; a power of two for the mask. */
	while (n < capacity / 4 && n < (1u << 20))
		n *= 2;
	t->buckets = malloc(n * sizeof(*t->buckets));
	if (!t->buckets)
		return -USB_ENOMEM;
	for (size_t i = 0; i < n; i++)
		INIT_LIST_HEAD(&t->buckets[i]);
	t->mask = (uint32_t)(n - 1);
	t->key = key | 1u;
	t->count = 0;
	return 0;
}

void usbip__urb_table_fini(struct usbip__urb_table *t)
{
	free(t->buckets);
	t->buckets = NULL;
	t->count = 0;
}

/* Multiplicative hashing with the connection's secret odd key: the top
 * bits of the product, which depend on every bit of the seqnum. */
static struct list_head *bucket(const struct usbip__urb_table *t, uint32_t seqnum)
{
	uint32_t h = seqnum * t->key;

	return &t->buckets[(h ^ (h >> 16)) & t->mask];
}

void usbip__urb_table_add(struct usbip__urb_table *t, struct usbip__urb *urb)
{
	list_add_tail(&urb->conn_link, bucket(t, urb->seqnum));
	t->count++;
}

struct usbip__urb *usbip__urb_table_find(const struct usbip__urb_table *t, uint32_t seqnum)
{
	struct list_head *head = bucket(t, seqnum), *pos;

	list_for_each(pos, head) {
		struct usbip__urb *urb = usb_container_of(pos, struct usbip__urb, conn_link);

		if (urb->seqnum == seqnum)
			return urb;
	}
	return NULL;
}

bool usbip__urb_table_remove(struct usbip__urb_table *t, struct usbip__urb *urb)
{
	if (list_empty(&urb->conn_link))
		return false;
	list_del_init(&urb->conn_link);
	t->count--;
	return true;
}

void usbip__urb_table_forget(struct usbip__urb_table *t)
{
	if (!t->buckets)
		return;
	for (size_t i = 0; i <= t->mask; i++)
		INIT_LIST_HEAD(&t->buckets[i]);
	t->count = 0;
}
