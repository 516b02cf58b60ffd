/*
 * net_port.c - the gadget side of a USB network function (net_port.h):
 * the frame ring, rx checks, link state and counters. Portable C11.
 */
#include <string.h>

#include "net_port.h"
#include "functions/common/fn_kick.h"
#include "port/alloc.h"

int net_port_init(struct net_port *p, struct usb_function *f, const struct usb_net_ops *ops,
		  void *ctx, void (*fill)(struct net_port *p))
{
	memset(p, 0, sizeof(*p));
	p->slot = composite__malloc((size_t)NET_PORT_SLOTS * USB_NET_FRAME_MAX);
	if (!p->slot)
		return -USB_ENOMEM;
	p->f = f;
	p->ops = ops;
	p->ctx = ctx;
	p->fill = fill;
	return 0;
}

void net_port_free(struct net_port *p)
{
	composite__free(p->slot);
	p->slot = NULL;
}

/* The consumer side: while the link is down, queued frames go, counted
 * (here, so that only one runner ever moves the tail). */
static void run_fill(void *arg)
{
	struct net_port *p = arg;
	size_t len;

	if (atomic_load(&p->up)) {
		p->fill(p);
		return;
	}
	while (net_port_peek(p, &len)) {
		net_port_pop(p);
		atomic_fetch_add(&p->tx_dropped, 1);
	}
}

void net_port_kick(struct net_port *p)
{
	fn_kick(&p->kicks, run_fill, p);
}

int net_port_send(struct net_port *p, const void *frame, size_t len)
{
	unsigned head = atomic_load(&p->head);

	if (!frame || len < USB_NET_HLEN || len > USB_NET_FRAME_MAX)
		return -USB_EMSGSIZE;
	if (!atomic_load(&p->up))
		return -USB_ENOTCONN;
	if (head - atomic_load(&p->tail) >= NET_PORT_SLOTS) {
		atomic_store(&p->want_writable, true);
		/* The queue may have drained meanwhile: look once more. */
		if (head - atomic_load(&p->tail) >= NET_PORT_SLOTS)
			return -USB_EAGAIN;
	}
	memcpy(p->slot + (size_t)(head % NET_PORT_SLOTS) * USB_NET_FRAME_MAX, frame, len);
	p->slot_len[head % NET_PORT_SLOTS] = (uint16_t)len;
	atomic_store(&p->head, head + 1);
	net_port_kick(p);
	return 0;
}

const uint8_t *net_port_peek(struct net_port *p, size_t *len)
{
	unsigned tail = atomic_load(&p->tail);

	if (tail == atomic_load(&p->head))
		return NULL;
	*len = p->slot_len[tail % NET_PORT_SLOTS];
	return p->slot + (size_t)(tail % NET_PORT_SLOTS) * USB_NET_FRAME_MAX;
}

void net_port_pop(struct net_port *p)
{
	atomic_fetch_add(&p->tail, 1);
}

unsigned net_port_queued(struct net_port *p)
{
	return atomic_load(&p->head) - atomic_load(&p->tail);
}

void net_port_tx_done(struct net_port *p, unsigned frames, size_t bytes, bool ok)
{
	if (ok) {
		atomic_fetch_add(&p->tx_frames, frames);
		atomic_fetch_add(&p->tx_bytes, bytes);
	} else {
		atomic_fetch_add(&p->tx_dropped, frames);
	}
	net_port_kick(p);
	if (atomic_load(&p->want_writable) &&
	    atomic_load(&p->head) - atomic_load(&p->tail) < NET_PORT_SLOTS) {
		atomic_store(&p->want_writable, false);
		if (p->ops && p->ops->writable)
			p->ops->writable(p->f, p->ctx);
	}
}

void net_port_rx(struct net_port *p, const void *frame, size_t len, int status)
{
	if (status == -USB_EOVERFLOW || (status == 0 && len > USB_NET_FRAME_MAX)) {
		atomic_fetch_add(&p->rx_long, 1);
		return;
	}
	if (status) {
		/* Endpoint shut down or the host went: no frame, not an error. */
		if (status != -USB_ESHUTDOWN && status != -USB_ECONNRESET)
			atomic_fetch_add(&p->rx_errors, 1);
		return;
	}
	if (len < USB_NET_HLEN) {
		atomic_fetch_add(&p->rx_short, 1);
		return;
	}
	atomic_fetch_add(&p->rx_frames, 1);
	atomic_fetch_add(&p->rx_bytes, len);
	if (p->ops && p->ops->rx)
		p->ops->rx(p->f, p->ctx, frame, len);
}

void net_port_link(struct net_port *p, bool up)
{
	bool was = atomic_exchange(&p->up, up);

	/* Down: nobody to send to; the runner drops what is queued. */
	net_port_kick(p);
	if (was != up && p->ops && p->ops->link)
		p->ops->link(p->f, p->ctx, up);
}

void net_port_stats(struct net_port *p, struct usb_net_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->rx_frames = atomic_load(&p->rx_frames);
	st->rx_bytes = atomic_load(&p->rx_bytes);
	st->tx_frames = atomic_load(&p->tx_frames);
	st->tx_bytes = atomic_load(&p->tx_bytes);
	st->rx_dropped_short = atomic_load(&p->rx_short);
	st->rx_dropped_long = atomic_load(&p->rx_long);
	st->rx_errors = atomic_load(&p->rx_errors);
	st->tx_dropped = atomic_load(&p->tx_dropped);
	st->packet_filter = (uint16_t)atomic_load(&p->filter);
	st->link_up = atomic_load(&p->up);
}
