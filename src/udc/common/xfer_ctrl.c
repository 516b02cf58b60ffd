/*
 * xfer_ctrl.c - the transfer engine's control transfers (xfer.h, "control
 * transfers"): one SETUP at a time on ep0, its data stage against the
 * request the core queues, the status stage (after the data stage's
 * completion when the backend set a status hook), stalls.
 *
 * Touches only ep0's struct udcx_ep and the transfers and requests on it;
 * packet movement is xfer.c's (xfer_engine.h).
 */
#include "udc/common/xfer_engine.h"

/* Control: the host moved to the status stage; end what is left of the
 * data-stage request: OUT, the one receiving (even if the host sent less
 * than wLength, or nothing); IN, one partly sent or still owing its ZLP. */
static void ctrl_status_stage(struct udcx_ep *ep, struct udcx_done *done)
{
	struct udcx_req *r = head_req(ep);

	if (r && (!ep->ctrl_in || r->req.actual > 0))
		udcx__req_finish(r, 0, done);
}

/* Control OUT, data stage ended: with a status hook, mark the request
 * that ended it (the last one of @ep finished) and hold the transfer until
 * its completion has run. Return true when held. */
static bool ctrl_hold_status(struct udcx_ep *ep, struct udcx_done *done)
{
	struct list_head *pos;

	if (ep->ctrl_in || !ep->ctrl_status_hook)
		return false;
	for (pos = done->reqs.prev; pos != &done->reqs; pos = pos->prev) {
		struct udcx_req *r = list_entry(pos, struct udcx_req, node);

		if (r->ep == ep) {
			r->status_after = true;
			ep->ctrl_status_due = true;
			return true;
		}
	}
	return false;
}

void udcx__ctrl_run(struct udcx_ep *ep, struct udcx_done *done)
{
	struct udcx_urb *u = ep->ctrl_cur;
	int status = 0;
	bool ended;

	if (!u || ep->ctrl_status_due || list_empty(&ep->reqs))
		return;
	if (USB_LE16_TO_CPU(u->setup.wLength) == 0) {
		/* No data stage: the zero-length request acknowledges. */
		udcx__req_finish(head_req(ep), 0, done);
		udcx__urb_finish(ep, u, 0, done);
		return;
	}
	ended = ep->ctrl_in ? udcx__in_fill(ep, u, &status, done) : udcx__out_drain(ep, u, &status, done);
	if (!ended)
		return;
	ctrl_status_stage(ep, done);
	if (!ctrl_hold_status(ep, done))
		udcx__urb_finish(ep, u, status, done);
}

/* ---- control transfers -------------------------------------------------- */

int udcx__ctrl_submit(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done)
{
	(void)done;
	if (!ep->control)
		return -USB_EINVAL;
	return udcx__urb_start(ep, u);
}

struct udcx_urb *udcx__ctrl_next_setup(struct udcx_ep *ep, struct udcx_done *done)
{
	struct udcx_urb *u;

	if (!ep->control || ep->ctrl_cur)
		return NULL;
	u = head_urb(ep);
	if (!u)
		return NULL;
	/* A new SETUP ends whatever the previous control transfer left. */
	udcx__ep_flush_reqs(ep, -USB_ECONNRESET, done);
	ep->halted = false;
	ep->ctrl_cur = u;
	ep->ctrl_in = (u->setup.bRequestType & USB_DIR_IN) != 0;
	u->limit = min_size(u->length, USB_LE16_TO_CPU(u->setup.wLength));
	return u;
}

void udcx__ctrl_setup_done(struct udcx_ep *ep, struct udcx_urb *u, int rc,
			   struct udcx_done *done)
{
	if (ep->ctrl_cur != u)
		return;	/* already finished, stalled or unlinked */
	if (rc < 0) {
		udcx__urb_finish(ep, u, -USB_EPIPE, done);
		return;
	}
	udcx__ctrl_run(ep, done);
}

struct udcx_urb *udcx__ctrl_current(const struct udcx_ep *ep)
{
	return ep->ctrl_cur;
}

void udcx__ctrl_set_status_hook(struct udcx_ep *ep, void (*hook)(struct udcx_ep *ep))
{
	ep->ctrl_status_hook = hook;
}

void udcx__ctrl_status(struct udcx_ep *ep, struct udcx_done *done)
{
	if (ep->ctrl_cur && ep->ctrl_status_due)
		udcx__urb_finish(ep, ep->ctrl_cur, 0, done);
}
