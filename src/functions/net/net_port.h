/*
 * net_port.h - the gadget side of a USB network function, shared by ECM
 * (and NCM to come), as Linux's u_ether is: the frames the user queues
 * for the host (a single-producer ring of whole frames, drained by the
 * function's IN path), delivery of the host's frames with their checks,
 * the link state, the counters. The function supplies how queued frames
 * become IN requests (@fill).
 *
 * Threads: net_port_send() from the user's one sending thread; @fill
 * runs one at a time (fn_kick) in that thread or the event context;
 * net_port_rx(), net_port_link() and net_port_tx_done() in the event
 * context. Private to src/functions; portable C11 (atomics, the heap).
 */
#ifndef COMPOSITE_NET_PORT_H
#define COMPOSITE_NET_PORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "composite/ether.h"

#define NET_PORT_SLOTS 32	/* frames the user may queue */

struct net_port {
	struct usb_function *f;
	const struct usb_net_ops *ops;
	void *ctx;
	void (*fill)(struct net_port *p);	/* queued frames -> IN requests */

	uint8_t *slot;			/* NET_PORT_SLOTS * USB_NET_FRAME_MAX */
	uint16_t slot_len[NET_PORT_SLOTS];
	atomic_uint head, tail;		/* producer: head; consumer (fill): tail */
	atomic_uint kicks;
	atomic_bool up, want_writable;
	atomic_uint filter;
	atomic_uint_least64_t rx_frames, rx_bytes, tx_frames, tx_bytes;
	atomic_uint_least64_t rx_short, rx_long, rx_errors, tx_dropped;
};

/* Set up @p for function @f (ring on the heap). Return: 0 or -USB_ENOMEM. */
int net_port_init(struct net_port *p, struct usb_function *f, const struct usb_net_ops *ops,
		  void *ctx, void (*fill)(struct net_port *p));
void net_port_free(struct net_port *p);

/* usb_net_send() for @p. */
int net_port_send(struct net_port *p, const void *frame, size_t len);

/* Run @fill now or once more (whoever runs it). */
void net_port_kick(struct net_port *p);

/* For @fill: the oldest queued frame (NULL: none), then drop it once taken. */
const uint8_t *net_port_peek(struct net_port *p, size_t *len);
void net_port_pop(struct net_port *p);

/* For @fill: how many frames are queued. */
unsigned net_port_queued(struct net_port *p);

/* An IN transfer of @frames frames, @bytes in all, went out (@ok) or
 * failed: count them, refill, tell a waiting sender. */
void net_port_tx_done(struct net_port *p, unsigned frames, size_t bytes, bool ok);

/* An OUT transfer of @len bytes with @status: checked, delivered, counted. */
void net_port_rx(struct net_port *p, const void *frame, size_t len, int status);

/* The host opened or closed the link; closing drops what is queued. */
void net_port_link(struct net_port *p, bool up);

void net_port_stats(struct net_port *p, struct usb_net_stats *st);


/* The port of a network function, or NULL for any other function. */
struct net_port *ecm__port(struct usb_function *f);
struct net_port *ncm__port(struct usb_function *f);

/* NCM: the NTBs its parser dropped (0 for any other function). */
uint64_t ncm__ntbs_dropped(struct usb_function *f);

#endif
