/*
 * xfer_zero_copy.c - the transfer engine's zero copy (xfer.h, "Zero copy"):
 * gathering IN transfers (runs of the requests' own bytes, held until the
 * caller has sent them) and streamed OUT transfers (bytes received straight
 * into the head request where whole packets fit it), and the copy that
 * ends every borrowing when requests leave the queue another way.
 *
 * Touches the transfers and requests of one endpoint; packet movement is
 * xfer.c's (xfer_engine.h).
 */
#include "udc/common/xfer_engine.h"

void udcx__urb_set_gather(struct udcx_urb *u, struct udcx_seg *segs, size_t max)
{
	u->segs = max ? segs : NULL;
	u->seg_max = max;
	u->seg_count = 0;
}

void udcx__urb_release(struct udcx_urb *u, struct udcx_done *done)
{
	if (u->lending) {
		list_del_init(&u->lend_node);
		u->lending = false;
	}
	splice_tail(&done->reqs, &u->held);
}

/* A gathering transfer's borrowed runs, copied into its own buffer. */
static void gather_own(struct udcx_urb *u)
{
	size_t off = 0;

	for (size_t i = 0; i < u->seg_count; i++) {
		struct udcx_seg *sg = &u->segs[i];

		if (sg->borrowed) {
			copy_bytes(bytes_at(u->buf, off), sg->p, sg->len);
			sg->p = bytes_at(u->buf, off);
			sg->borrowed = false;
		}
		off += sg->len;
	}
}

void udcx__ep_unborrow(struct udcx_ep *ep, struct udcx_done *done)
{
	struct udcx_urb *u = head_urb(ep);

	if (u && u->stream) {
		/* Received into the head request, not taken yet: bytes of a
		 * packet in progress, which another request may take. */
		if (u->actual < u->direct_end && u->arrived > u->actual)
			copy_bytes(bytes_at(u->buf, u->actual),
				   bytes_at(head_req(ep)->req.buf, head_req(ep)->req.actual),
				   u->arrived - u->actual);
		u->direct_end = u->actual;
	}
	while (!list_empty(&ep->lenders)) {
		u = list_first_entry(&ep->lenders, struct udcx_urb, lend_node);
		gather_own(u);
		udcx__urb_release(u, done);
	}
}

int udcx__urb_submit_stream(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done)
{
	u->stream = true;	/* even on error: the window then says u->buf */
	if (ep->is_in || u->iso)
		return -USB_EINVAL;
	/* As udcx__urb_submit(): nothing may move yet, except the ZLP that
	 * is all of a zero-length transfer. */
	return udcx__urb_submit(ep, u, done);
}

/*
 * Direct windows from URB offset @pos on, starting in the head request
 * at its byte @fill: one per request, each ending on a packet boundary
 * inside the request; the next request is only reached when one is
 * filled exactly (a request ends when full). Return the count.
 */
static size_t direct_windows(struct udcx_ep *ep, struct udcx_urb *u, size_t pos, size_t fill,
			     struct udcx_window *win, size_t max)
{
	size_t mp = ep->maxpacket, n = 0, reach = pos;
	struct list_head *pos_req = ep->reqs.next;

	while (n < max && pos < u->length && pos_req != &ep->reqs) {
		struct udcx_req *r = list_entry(pos_req, struct udcx_req, node);
		size_t room = (size_t)r->req.length - fill;
		size_t end = pos + min_size(u->length - pos, room);

		if (end < u->length)
			end = end / mp * mp;	/* packets that fit whole */
		if (end <= pos)
			break;
		win[n++] = (struct udcx_window){ bytes_at(r->req.buf, fill), end - pos, true };
		reach = end;
		if (fill + (end - pos) < r->req.length)
			break;	/* the next packet is this request's, and overflows it */
		pos = end;
		fill = 0;
		pos_req = pos_req->next;
		if (pos_req != &ep->reqs)
			fill = list_entry(pos_req, struct udcx_req, node)->req.actual;
	}
	if (n > 0)
		u->direct_end = reach;
	return n;
}

size_t udcx__urb_rx_windows(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_window *win,
			    size_t max)
{
	size_t due = u->length - u->arrived;
	struct udcx_req *r = head_req(ep);
	size_t n = 0;

	if (due == 0 || max == 0)
		return 0;
	if (u->pending && head_urb(ep) == u && r && ep->enabled && !ep->halted) {
		/* Everything taken (so at a packet boundary), or inside the
		 * windows opened before: then the bytes not yet taken are a
		 * packet in progress, in the head request. */
		if (u->arrived == u->actual)
			n = direct_windows(ep, u, u->arrived, r->req.actual, win, max);
		else if (u->arrived < u->direct_end)
			n = direct_windows(ep, u, u->arrived,
					   r->req.actual + (u->arrived - u->actual), win, max);
	}
	if (n == 0)
		win[n++] = (struct udcx_window){ bytes_at(u->buf, u->arrived), due, false };
	return n;
}

bool udcx__urb_rx_starved(const struct udcx_ep *ep, const struct udcx_urb *u)
{
	return u->stream && u->pending && u->arrived < u->length && u->arrived == u->actual &&
	       list_empty(&ep->reqs) && !list_empty(&ep->urbs) &&
	       list_first_entry(&ep->urbs, struct udcx_urb, node) == u && ep->enabled && !ep->halted;
}

void udcx__urb_rx_commit(struct udcx_ep *ep, struct udcx_urb *u, size_t n,
			 struct udcx_done *done)
{
	u->arrived += min_size(n, u->length - u->arrived);
	if (u->pending)
		udcx__ep_run(ep, done);
}
