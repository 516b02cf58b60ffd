/*
 * giveback.c - hands the requests the transfer engine finished back to the
 * core (usb_gadget_giveback_request()). Kept apart from xfer.c so the
 * engine itself depends on nothing but list and request types, and its
 * unit test links without the core.
 *
 * Call without the backend's lock held (completions may queue again).
 */
#include "udc/common/xfer.h"

void udcx__giveback_list(struct list_head *reqs)
{
	while (!list_empty(reqs)) {
		struct udcx_req *r = list_first_entry(reqs, struct udcx_req, node);

		struct udcx_ep *ep = r->ep;
		bool status_after = r->status_after;

		/* Unlink first: the completion may queue this request again. */
		list_del_init(&r->node);
		r->status_after = false;
		usb_gadget_giveback_request(ep->usb_ep, &r->req);
		if (status_after && ep->ctrl_status_hook)
			ep->ctrl_status_hook(ep);
	}
}

void udcx__done_giveback(struct udcx_done *done)
{
	udcx__giveback_list(&done->reqs);
}
