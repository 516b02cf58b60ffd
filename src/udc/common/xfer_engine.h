/*
 * xfer_engine.h - what the transfer engine's files (xfer.c, xfer_ctrl.c,
 * xfer_zero_copy.c) share and nobody else uses: finishing requests and
 * host transfers, the packet movers, the heads of an endpoint's queues,
 * byte and list helpers. Backends include
 * xfer.h only.
 */
#ifndef UDC_COMMON_XFER_ENGINE_H
#define UDC_COMMON_XFER_ENGINE_H

#include <stdint.h>
#include <string.h>

#include "udc/common/xfer.h"

static inline size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

static inline void splice_tail(struct list_head *dst, struct list_head *src)
{
	while (!list_empty(src))
		list_move_tail(src->next, dst);
}

/* @buf + @off; a zero-length transfer or request may have no buffer at
 * all, and NULL + 0 is undefined behaviour in C. */
static inline uint8_t *bytes_at(void *buf, size_t off)
{
	return buf ? (uint8_t *)buf + off : NULL;
}

/* Move @n bytes between a request and a host transfer. */
static inline void copy_bytes(void *dst, const void *src, size_t n)
{
	if (dst != src && n > 0)
		memcpy(dst, src, n);
}

static inline struct udcx_req *head_req(struct udcx_ep *ep)
{
	return list_first_entry_or_null(&ep->reqs, struct udcx_req, node);
}

static inline struct udcx_urb *head_urb(struct udcx_ep *ep)
{
	return list_first_entry_or_null(&ep->urbs, struct udcx_urb, node);
}

/* Move @r (status @status) / @u onto @done; @u stops being ep0's current
 * control transfer. */
void udcx__req_finish(struct udcx_req *r, int status, struct udcx_done *done);
void udcx__urb_finish(struct udcx_ep *ep, struct udcx_urb *u, int status,
		      struct udcx_done *done);

/* Move @u's packets (IN: from the requests into it; OUT: from it into the
 * requests). Return true when @u has ended, its status in *@status. */
bool udcx__in_fill(struct udcx_ep *ep, struct udcx_urb *u, int *status,
		   struct udcx_done *done);
bool udcx__out_drain(struct udcx_ep *ep, struct udcx_urb *u, int *status,
		     struct udcx_done *done);

/* Queue @u on @ep (checks it; nothing moves yet). Return 0 or -USB_EINVAL. */
int udcx__urb_start(struct udcx_ep *ep, struct udcx_urb *u);

/* ep0: move the current control transfer's data stage as far as the
 * queued request allows (xfer_ctrl.c). */
void udcx__ctrl_run(struct udcx_ep *ep, struct udcx_done *done);

#endif /* UDC_COMMON_XFER_ENGINE_H */
