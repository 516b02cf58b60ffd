/*
 * net_reqs.h - the bulk requests of a network function's data interface,
 * shared by ECM and NCM: a pool of IN requests (each carrying some frames
 * of net_port's ring; busy flags are atomics, as the pool is filled from
 * the sender's thread too) and OUT requests kept queued while the link is
 * open. Private to src/functions.
 */
#ifndef COMPOSITE_NET_REQS_H
#define COMPOSITE_NET_REQS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/gadget.h"

struct net_reqs {
	struct usb_ep *in, *out;
	unsigned n;		/* requests each way (2 * qmult) */
	unsigned qlen;		/* in use at the current speed */
	size_t out_len;
	struct usb_request **in_req, **out_req;
	atomic_bool *in_busy;
	unsigned *in_frames;	/* frames in_req[i] carries */
	size_t *in_bytes;	/* and their bytes */
};

/* @n requests each way, @in_len / @out_len bytes each, completions and
 * their context set (bind). Return: 0 or -USB_ENOMEM (nothing kept). */
int net_reqs_alloc(struct net_reqs *r, struct usb_ep *in, struct usb_ep *out, unsigned n,
		   size_t in_len, size_t out_len, void *ctx,
		   void (*in_complete)(struct usb_ep *, struct usb_request *),
		   void (*out_complete)(struct usb_ep *, struct usb_request *));
void net_reqs_free(struct net_reqs *r);

/* The link opened at @g's speed: Linux's qlen() (2 below high speed),
 * and every OUT request queued. */
void net_reqs_start(struct net_reqs *r, const struct usb_gadget *g);

/* An idle IN request, marked busy (its index in *@index), or NULL. */
struct usb_request *net_reqs_claim_in(struct net_reqs *r, unsigned *index);

/* IN requests claimed and not yet given back: on their way to the host. */
unsigned net_reqs_in_flight(struct net_reqs *r);

/* Give back IN request @index (not queued after all, or completed). */
void net_reqs_release_in(struct net_reqs *r, unsigned index);

/* The index of IN request @req, or -USB_ENOENT when @req is none of
 * this ring's (no index is guessed: releasing another slot would let two
 * transfers share one buffer). */
int net_reqs_in_index(const struct net_reqs *r, const struct usb_request *req);

/* After an OUT completion: queue @req again unless the endpoint went. */
void net_reqs_requeue_out(struct net_reqs *r, struct usb_request *req, bool link_open);

#endif
