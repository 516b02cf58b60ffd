/*
 * req_heap.c - ops->alloc_request and ops->free_request for a backend on
 * the transfer engine (USB/IP, the in-process host): a struct udcx_req
 * from the library's allocator (port/alloc.h). Kept apart from xfer.c,
 * which allocates nothing, so a backend can bring its own pool instead.
 */

#include "udc/common/xfer.h"
#include "port/alloc.h"

struct usb_request *udcx__alloc_request(struct usb_ep *ep)
{
	struct udcx_req *r = composite__malloc(sizeof(*r));

	(void)ep;
	if (!r)
		return NULL;
	udcx__req_init(r);
	return &r->req;
}

void udcx__free_request(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	composite__free(udcx__req_of(req));
}
