/*
 * xfer.c - the transfer engine (xfer.h): packet-by-packet matching of host
 * transfers with queued requests on one endpoint, halt, cancellation,
 * zero copy and pacing; the stages of ep0's control transfers are in
 * xfer_ctrl.c.
 *
 * Owns nothing but the lists inside struct udcx_ep; touches the requests
 * and host transfers handed to it (buffers, actual, status) and nothing
 * else. Portable C11: no locks (the caller holds its own), no allocation,
 * never calls a completion (finished items go onto the caller's lists).
 */
#include "udc/common/xfer_engine.h"

#include <stdint.h>
#include <string.h>

void udcx__done_init(struct udcx_done *done)
{
	INIT_LIST_HEAD(&done->reqs);
	INIT_LIST_HEAD(&done->urbs);
}

bool udcx__done_empty(const struct udcx_done *done)
{
	return list_empty(&done->reqs) && list_empty(&done->urbs);
}

void udcx__done_splice(struct udcx_done *dst, struct udcx_done *src)
{
	splice_tail(&dst->reqs, &src->reqs);
	splice_tail(&dst->urbs, &src->urbs);
}

void udcx__done_take_ep(struct udcx_done *src, struct udcx_ep *ep,
			struct list_head *dst)
{
	struct list_head *pos, *tmp;

	list_for_each_safe(pos, tmp, &src->reqs) {
		struct udcx_req *r = list_entry(pos, struct udcx_req, node);

		if (r->ep == ep)
			list_move_tail(pos, dst);
	}
}

bool udcx__done_take_req(struct udcx_done *src, struct udcx_req *req,
			 struct list_head *dst)
{
	struct list_head *pos;

	list_for_each(pos, &src->reqs) {
		if (pos == &req->node) {
			list_move_tail(pos, dst);
			return true;
		}
	}
	return false;
}

/* ---- finishing ---------------------------------------------------------- */

void udcx__req_finish(struct udcx_req *r, int status, struct udcx_done *done)
{
	r->req.status = status;
	list_move_tail(&r->node, &done->reqs);
}

void udcx__urb_finish(struct udcx_ep *ep, struct udcx_urb *u, int status,
		       struct udcx_done *done)
{
	u->status = status;
	u->pending = false;
	if (ep->ctrl_cur == u) {
		ep->ctrl_cur = NULL;
		ep->ctrl_status_due = false;
	}
	list_move_tail(&u->node, &done->urbs);
}

/* ---- packet movement ---------------------------------------------------- */

/*
 * Cut a run of @run bytes (whole packets of @mp) to the run's budget;
 * 0 when it is spent (the run then stops, marked cut).
 */
static size_t budget_run(struct udcx_ep *ep, size_t run, size_t mp)
{
	if (run > ep->budget_left) {
		run = ep->budget_left / mp * mp;
		if (run == 0)
			ep->run_cut = true;
	}
	ep->budget_left -= run;
	return run;
}

/* Pacing: cut a run of whole packets to what the slot being served may
 * still carry (unpaced: pace_left is SIZE_MAX, nothing is cut). */
static size_t pace_cap(const struct udcx_ep *ep, size_t run, size_t mp)
{
	if (!ep->pacer)
		return run;	/* bulk: not even a division */
	return run / mp > ep->pace_left ? ep->pace_left * mp : run;
}

static void pace_took(struct udcx_ep *ep, size_t packets)
{
	if (ep->pacer)
		ep->pace_left -= packets;
}

/* ---- zero copy: gathering IN, streamed OUT ---------------------------- */

static void lend(struct udcx_ep *ep, struct udcx_urb *u)
{
	if (!u->lending) {
		list_add_tail(&u->lend_node, &ep->lenders);
		u->lending = true;
	}
}

/*
 * IN: @n bytes at @src (a request's) become @u's next bytes: copied into
 * @u->buf, or for a gathering transfer recorded as a run (merged with the
 * last one where contiguous). The last run is kept for copies, so a
 * transfer out of runs goes on by copying into one run of its own buffer.
 */
static void in_put(struct udcx_ep *ep, struct udcx_urb *u, const uint8_t *src, size_t n)
{
	uint8_t *own = bytes_at(u->buf, u->actual);
	struct udcx_seg *last = u->seg_count ? &u->segs[u->seg_count - 1] : NULL;

	if (n == 0)
		return;
	if (u->segs && last && last->borrowed && last->p + last->len == src) {
		last->len += n;
		return;
	}
	if (u->segs && u->seg_count + 1 < u->seg_max) {
		u->segs[u->seg_count++] = (struct udcx_seg){ src, n, true };
		lend(ep, u);
		return;
	}
	copy_bytes(own, src, n);
	if (!u->segs)
		return;
	if (last && !last->borrowed && last->p + last->len == own)
		last->len += n;
	else
		u->segs[u->seg_count++] = (struct udcx_seg){ own, n, false };
}

/* IN: @r is finished; a gathering transfer holds it while it uses its bytes. */
static void in_req_finish(struct udcx_urb *u, struct udcx_req *r, struct udcx_done *done)
{
	r->req.status = 0;
	list_move_tail(&r->node, u->segs ? &u->held : &done->reqs);
}

/* OUT: where bytes [u->actual, ...) of @u are for request @r: already in
 * place (received straight into it), or in @u's own buffer. */
static const uint8_t *out_src(const struct udcx_urb *u, struct udcx_req *r)
{
	if (u->actual < u->direct_end)
		return bytes_at(r->req.buf, r->req.actual);
	return bytes_at(u->buf, u->actual);
}

/* IN: does @r end with a zero-length packet after its data? */
static bool in_needs_zlp(const struct udcx_req *r, size_t mp)
{
	return r->req.length == 0 || (r->req.zero && r->req.length % mp == 0);
}

/*
 * IN: fill @u from the queued requests, packet by packet (a run of full
 * packets in one copy). Return true when @u has ended (its status in
 * *status); false while it waits for data.
 */
bool udcx__in_fill(struct udcx_ep *ep, struct udcx_urb *u, int *status,
		    struct udcx_done *done)
{
	size_t mp = ep->maxpacket;
	struct udcx_req *r;

	while ((r = head_req(ep)) != NULL && ep->pace_left > 0) {
		size_t rem = (size_t)r->req.length - r->req.actual;
		size_t room = u->limit - u->actual;
		size_t run = pace_cap(ep, min_size(rem, room) / mp * mp, mp);
		size_t pkt, n;

		if (run > 0 && (run = budget_run(ep, run, mp)) == 0)
			return false;
		if (run > 0) {
			/* A run of full packets in one copy: none ends anything
			 * but the request (when it needs no ZLP) or the transfer. */
			pace_took(ep, run / mp);
			in_put(ep, u, bytes_at(r->req.buf, r->req.actual), run);
			u->actual += run;
			r->req.actual += (unsigned)run;
			if (r->req.actual == r->req.length && !in_needs_zlp(r, mp))
				in_req_finish(u, r, done);
			if (u->actual == u->limit) {
				*status = 0;
				return true;
			}
			continue;
		}
		pkt = min_size(rem, mp);
		n = min_size(pkt, room);

		pace_took(ep, 1);
		in_put(ep, u, bytes_at(r->req.buf, r->req.actual), n);
		u->actual += n;
		/* The device sent the whole packet, even if the host babbled. */
		r->req.actual += (unsigned)pkt;
		if (pkt == 0 || (r->req.actual == r->req.length && !in_needs_zlp(r, mp)))
			in_req_finish(u, r, done);

		if (pkt > room) {
			*status = -USB_EOVERFLOW;
			return true;
		}
		if (pkt < mp) {
			*status = (u->flags & UDCX_URB_SHORT_NOT_OK) && u->actual < u->limit ?
					  -USB_EREMOTEIO : 0;
			return true;
		}
		if (u->actual == u->limit) {
			*status = 0;
			return true;
		}
	}
	/* Waiting for more data, or for the next service interval: the
	 * requests it holds must not wait with it (their function may need
	 * them back to queue the rest), so the bytes borrowed so far become
	 * the transfers' own. */
	if (!list_empty(&u->held))
		udcx__ep_unborrow(ep, done);
	return false;
}

/* OUT: does @u end with a zero-length packet after its data? */
static bool out_needs_zlp(const struct udcx_ep *ep, const struct udcx_urb *u)
{
	if (ep->control)
		return false;	/* a control data stage ends at wLength */
	return u->limit == 0 || ((u->flags & UDCX_URB_ZERO_PACKET) && u->limit % ep->maxpacket == 0);
}

static bool out_all_taken(const struct udcx_ep *ep, const struct udcx_urb *u)
{
	return u->actual == u->limit && (u->zlp_done || !out_needs_zlp(ep, u));
}

/*
 * OUT: hand @u's packets to the queued requests. Return true when every
 * packet has been taken (status 0 in *status); false while it waits for a
 * request (the host is NAKed).
 */
bool udcx__out_drain(struct udcx_ep *ep, struct udcx_urb *u, int *status,
		      struct udcx_done *done)
{
	size_t mp = ep->maxpacket;
	/* What has arrived: all of it, unless the transfer is streamed. */
	size_t avail = min_size(u->arrived, u->limit);
	struct udcx_req *r;

	while (!out_all_taken(ep, u) && (r = head_req(ep)) != NULL) {
		size_t room = (size_t)r->req.length - r->req.actual;
		size_t run = pace_cap(ep, min_size(avail - u->actual, room) / mp * mp, mp);
		size_t pkt, n;

		if (ep->pace_left == 0)
			return false;	/* the rest in the next service interval */
		if (run > 0 && (run = budget_run(ep, run, mp)) == 0)
			return false;
		if (run > 0) {
			/* A run of full packets that all fit: one copy, or
			 * none for bytes received in place. */
			pace_took(ep, run / mp);
			copy_bytes(bytes_at(r->req.buf, r->req.actual), out_src(u, r), run);
			r->req.actual += (unsigned)run;
			u->actual += run;
			if (r->req.actual == r->req.length)
				udcx__req_finish(r, 0, done);
			continue;
		}
		pkt = min_size(u->limit - u->actual, mp);
		n = min_size(pkt, room);
		if (u->actual + pkt > avail)
			return false;	/* the packet is still arriving */

		pace_took(ep, 1);
		copy_bytes(bytes_at(r->req.buf, r->req.actual), out_src(u, r), n);
		r->req.actual += (unsigned)n;
		u->actual += pkt;
		if (pkt == 0)
			u->zlp_done = true;

		if (pkt > room)
			udcx__req_finish(r, -USB_EOVERFLOW, done);
		else if (pkt < mp)
			udcx__req_finish(r, r->req.short_not_ok && r->req.actual < r->req.length ?
					      -USB_EREMOTEIO : 0, done);
		else if (r->req.actual == r->req.length)
			udcx__req_finish(r, 0, done);
	}
	if (!out_all_taken(ep, u))
		return false;
	*status = 0;
	return true;
}

/*
 * Isochronous: one request per packet (one service interval each), no
 * short-packet rules. Return true once every packet has been served.
 */
static bool iso_run(struct udcx_ep *ep, struct udcx_urb *u, int *status,
		    struct udcx_done *done)
{
	struct udcx_req *r;

	while (u->iso_next < u->iso_count && (r = head_req(ep)) != NULL) {
		struct udcx_iso_packet *p = &u->iso[u->iso_next++];
		size_t room = (size_t)r->req.length - r->req.actual;
		uint8_t *at = bytes_at(u->buf, p->offset);

		if (ep->is_in) {
			p->actual = min_size(room, p->length);
			if (p->actual)
				memcpy(at, bytes_at(r->req.buf, r->req.actual), p->actual);
			p->status = room > p->length ? -USB_EOVERFLOW : 0;
			/* The request went out in its interval, even if babbled. */
			r->req.actual = r->req.length;
			udcx__req_finish(r, 0, done);
		} else {
			size_t n = min_size(p->length, room);

			if (n)
				memcpy(bytes_at(r->req.buf, r->req.actual), at, n);
			r->req.actual += (unsigned)n;
			p->actual = p->length;
			p->status = 0;
			udcx__req_finish(r, p->length > room ? -USB_EOVERFLOW : 0, done);
		}
		u->actual += p->actual;
	}
	*status = 0;
	return u->iso_next == u->iso_count;
}

/* ---- pacing --------------------------------------------------------------- */

static void pace_hold(struct udcx_ep *ep)
{
	if (!ep->pace_held) {
		list_add_tail(&ep->pace_node, &ep->pacer->held);
		ep->pace_held = true;
	}
}

static void pace_release(struct udcx_ep *ep)
{
	if (ep->pace_held) {
		list_del_init(&ep->pace_node);
		ep->pace_held = false;
	}
}

/* Off the pacer's held list unless a transfer can still move: after
 * calls that may leave nothing to wait for (a stale entry would only
 * cost the backend a needless wakeup). */
static void pace_settle(struct udcx_ep *ep)
{
	if (ep->pace_held && (!ep->enabled || ep->halted || list_empty(&ep->urbs) ||
			      list_empty(&ep->reqs)))
		pace_release(ep);
}

/*
 * A transaction was served at @now, in the slot due at ep->pace_next or
 * later. The next slot is one interval after that slot, not after @now:
 * the backend's timer being late, or the host's transfer (or the
 * function's data) coming a little after the slot, does not add up over
 * the slots. Unless @now is a whole interval or more past it (the
 * endpoint idle longer than an interval): then the schedule starts again
 * from @now, and slots missed are not made up in a burst.
 */
static void pace_served(struct udcx_ep *ep, uint64_t now)
{
	uint64_t slot = now;

	if (ep->pace_started && now - ep->pace_next < ep->pace_interval)
		slot = ep->pace_next;
	ep->pace_next = slot + ep->pace_interval;
	ep->pace_started = true;
}

/* ep_run() of a paced endpoint: one transaction per service interval. */
static void paced_run(struct udcx_ep *ep, struct udcx_done *done)
{
	uint64_t now = ep->pacer->clock->now_ns(ep->pacer->clock->ctx);
	struct udcx_urb *u;

	while ((u = head_urb(ep)) != NULL && !list_empty(&ep->reqs)) {
		int status = 0;
		bool ended;

		if (ep->pace_started && now < ep->pace_next) {
			pace_hold(ep);	/* data ready, slot not come */
			return;
		}
		ep->pace_left = ep->pace_packets;
		ended = ep->is_in ? udcx__in_fill(ep, u, &status, done) : udcx__out_drain(ep, u, &status, done);
		if (ep->pace_left < ep->pace_packets)
			pace_served(ep, now);
		if (ended)
			udcx__urb_finish(ep, u, status, done);
		else if (ep->pace_left > 0)
			break;	/* waiting for data: no slot taken */
		/* Ended, or cut at the slot's packets: the next transaction
		 * waits for the next slot (a short packet ends a transfer
		 * and its transaction). */
	}
	ep->pace_left = SIZE_MAX;
	pace_release(ep);
}

void udcx__ep_set_pacing(struct udcx_ep *ep, struct udcx_pacer *p, uint64_t interval_ns,
			 unsigned packets)
{
	pace_release(ep);
	ep->pacer = p && interval_ns > 0 && !ep->control ? p : NULL;
	ep->pace_interval = interval_ns;
	ep->pace_packets = packets > 0 ? packets : 1;
	ep->pace_started = false;
	ep->pace_next = 0;
	ep->pace_left = SIZE_MAX;
}

bool udcx__ep_is_paced(const struct udcx_ep *ep)
{
	return ep->pacer != NULL;
}

static void ep_run(struct udcx_ep *ep, struct udcx_done *done)
{
	struct udcx_urb *u;

	if (ep->control) {
		udcx__ctrl_run(ep, done);
		return;
	}
	if (!ep->enabled || ep->halted)
		return;
	if (ep->pacer) {
		paced_run(ep, done);
		return;
	}
	while ((u = head_urb(ep)) != NULL && !list_empty(&ep->reqs)) {
		int status = 0;
		bool ended = u->iso ? iso_run(ep, u, &status, done)
			     : ep->is_in ? udcx__in_fill(ep, u, &status, done)
					 : udcx__out_drain(ep, u, &status, done);

		if (!ended)
			break;
		udcx__urb_finish(ep, u, status, done);
	}
}

/* ---- endpoint ----------------------------------------------------------- */

void udcx__ep_init(struct udcx_ep *ep, struct usb_ep *usb_ep, bool control,
		   unsigned maxpacket)
{
	memset(ep, 0, sizeof(*ep));
	ep->usb_ep = usb_ep;
	INIT_LIST_HEAD(&ep->reqs);
	INIT_LIST_HEAD(&ep->urbs);
	INIT_LIST_HEAD(&ep->lenders);
	INIT_LIST_HEAD(&ep->pace_node);
	ep->pace_left = SIZE_MAX;
	ep->control = control;
	ep->enabled = control;
	ep->maxpacket = maxpacket ? maxpacket : 64;
	ep->budget_left = SIZE_MAX;
}

void udcx__ep_set_maxpacket(struct udcx_ep *ep, unsigned maxpacket)
{
	if (maxpacket > 0)
		ep->maxpacket = maxpacket;
}

int udcx__ep_enable(struct udcx_ep *ep, bool is_in, unsigned maxpacket)
{
	if (ep->control || maxpacket == 0)
		return -USB_EINVAL;
	ep->is_in = is_in;
	ep->maxpacket = maxpacket;
	ep->halted = false;
	ep->enabled = true;
	udcx__ep_set_pacing(ep, NULL, 0, 1);	/* the backend paces it anew */
	return 0;
}

void udcx__ep_disable(struct udcx_ep *ep, struct udcx_done *done)
{
	udcx__ep_flush_reqs(ep, -USB_ESHUTDOWN, done);
	ep->halted = false;
	if (!ep->control) {
		ep->enabled = false;
		udcx__ep_set_pacing(ep, NULL, 0, 1);
	}
}

void udcx__req_init(struct udcx_req *r)
{
	memset(r, 0, sizeof(*r));
	INIT_LIST_HEAD(&r->req.list);
	INIT_LIST_HEAD(&r->node);
}

int udcx__ep_queue_only(struct udcx_ep *ep, struct udcx_req *r)
{
	if (!ep->enabled)
		return -USB_ESHUTDOWN;
	if ((r->req.length > 0 && !r->req.buf) || !list_empty(&r->node))
		return -USB_EINVAL;
	r->ep = ep;
	r->req.actual = 0;
	r->req.status = -USB_EINPROGRESS;
	list_add_tail(&r->node, &ep->reqs);
	return 0;
}

int udcx__ep_queue(struct udcx_ep *ep, struct udcx_req *r, struct udcx_done *done)
{
	int rc = udcx__ep_queue_only(ep, r);

	if (rc == 0)
		ep_run(ep, done);
	return rc;
}

void udcx__ep_run(struct udcx_ep *ep, struct udcx_done *done)
{
	ep->budget_left = SIZE_MAX;
	ep_run(ep, done);
}

bool udcx__ep_run_some(struct udcx_ep *ep, struct udcx_done *done, size_t budget)
{
	/* A packet at least, or a caller looping on the result never ends. */
	ep->budget_left = budget < ep->maxpacket ? ep->maxpacket : budget;
	ep->run_cut = false;
	ep_run(ep, done);
	ep->budget_left = SIZE_MAX;
	return ep->run_cut;
}

int udcx__ep_dequeue(struct udcx_ep *ep, struct udcx_req *r, struct udcx_done *done)
{
	struct udcx_done given_up;
	struct list_head *pos;
	bool held = false;

	udcx__done_init(&given_up);
	udcx__ep_unborrow(ep, &given_up);
	/* Held by a gathering transfer: finished, and just given up. */
	list_for_each(pos, &given_up.reqs)
		held = held || pos == &r->node;
	udcx__done_splice(done, &given_up);
	if (held)
		return 0;
	list_for_each(pos, &ep->reqs) {
		if (pos == &r->node) {
			udcx__req_finish(r, -USB_ECONNRESET, done);
			/* An OUT transfer may now go to the next request. */
			ep_run(ep, done);
			pace_settle(ep);
			return 0;
		}
	}
	return -USB_EINVAL;
}

int udcx__ep_set_halt(struct udcx_ep *ep, enum usb_ep_halt_value value,
		      struct udcx_done *done)
{
	if (ep->control) {
		if (value != USB_EP_HALT_CLEAR && ep->ctrl_cur)
			udcx__urb_finish(ep, ep->ctrl_cur, -USB_EPIPE, done);
		return 0;
	}
	if (value == USB_EP_HALT_CLEAR) {
		ep->halted = false;
		ep_run(ep, done);
		return 0;
	}
	if (value == USB_EP_HALT_SET && ep->is_in && !list_empty(&ep->reqs))
		return -USB_EAGAIN;
	ep->halted = true;
	udcx__ep_flush_urbs(ep, -USB_EPIPE, done);	/* and off the pacer */
	return 0;
}

void udcx__ep_flush_reqs(struct udcx_ep *ep, int status, struct udcx_done *done)
{
	struct udcx_req *r;

	udcx__ep_unborrow(ep, done);
	while ((r = head_req(ep)) != NULL)
		udcx__req_finish(r, status, done);
	pace_settle(ep);
}

void udcx__ep_flush_urbs(struct udcx_ep *ep, int status, struct udcx_done *done)
{
	struct udcx_urb *u;

	while ((u = head_urb(ep)) != NULL)
		udcx__urb_finish(ep, u, status, done);
	pace_settle(ep);
}

bool udcx__ep_is_halted(const struct udcx_ep *ep)
{
	return ep->halted;
}

bool udcx__ep_is_enabled(const struct udcx_ep *ep)
{
	return ep->enabled;
}

static size_t count_list(const struct list_head *head)
{
	size_t n = 0;
	const struct list_head *pos;

	for (pos = head->next; pos != head; pos = pos->next)
		n++;
	return n;
}

size_t udcx__ep_queued(const struct udcx_ep *ep)
{
	return count_list(&ep->reqs);
}

size_t udcx__ep_pending(const struct udcx_ep *ep)
{
	return count_list(&ep->urbs);
}

/* ---- host transfers ----------------------------------------------------- */

void udcx__urb_init(struct udcx_urb *u, void *buf, size_t length, unsigned flags)
{
	memset(u, 0, sizeof(*u));
	u->buf = buf;
	u->length = length;
	u->flags = flags;
	INIT_LIST_HEAD(&u->node);
	INIT_LIST_HEAD(&u->held);
	INIT_LIST_HEAD(&u->lend_node);
}

void udcx__urb_set_iso(struct udcx_urb *u, struct udcx_iso_packet *packets, size_t count)
{
	u->iso = count ? packets : NULL;
	u->iso_count = count;
}

bool udcx__iso_layout_valid(const struct udcx_iso_packet *packets, size_t count, size_t length)
{
	size_t end = 0;	/* where the previous packet ends */

	for (size_t i = 0; i < count; i++) {
		const struct udcx_iso_packet *p = &packets[i];

		if (p->offset < end || p->offset > length || p->length > length - p->offset)
			return false;
		end = p->offset + p->length;
	}
	return true;
}

int udcx__urb_start(struct udcx_ep *ep, struct udcx_urb *u)
{
	if (u->pending || (u->length > 0 && !u->buf))
		return -USB_EINVAL;
	if (!udcx__iso_layout_valid(u->iso, u->iso_count, u->length))
		return -USB_EINVAL;
	u->iso_next = 0;
	/* The node may still sit on a caller's done list: take it off. */
	list_del_init(&u->node);
	u->ep = ep;
	u->actual = 0;
	u->limit = u->length;
	u->zlp_done = false;
	u->arrived = u->stream ? 0 : u->length;
	u->direct_end = 0;
	u->seg_count = 0;
	u->status = -USB_EINPROGRESS;
	u->pending = true;
	list_add_tail(&u->node, &ep->urbs);
	return 0;
}

int udcx__urb_submit_only(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done)
{
	int rc;

	if (ep->control)
		return -USB_EINVAL;
	rc = udcx__urb_start(ep, u);
	if (rc)
		return rc;
	if (ep->halted)
		udcx__urb_finish(ep, u, -USB_EPIPE, done);
	return 0;
}

int udcx__urb_submit(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done)
{
	int rc = udcx__urb_submit_only(ep, u, done);

	if (rc == 0 && u->pending)
		udcx__ep_run(ep, done);
	return rc;
}

int udcx__urb_unlink(struct udcx_ep *ep, struct udcx_urb *u)
{
	if (!u->pending || u->ep != ep)
		return -USB_EALREADY;
	if (ep->ctrl_cur == u) {
		ep->ctrl_cur = NULL;
		ep->ctrl_status_due = false;
	}
	list_del_init(&u->node);
	u->pending = false;
	u->status = -USB_ECONNRESET;
	pace_settle(ep);
	return 0;
}
