/*
 * fn_request.c - requests with their own buffers (fn_request.h).
 */

#include "fn_request.h"
#include "port/alloc.h"

struct usb_request *fn_request_alloc(struct usb_ep *ep, size_t len, void *context,
				     void (*complete)(struct usb_ep *, struct usb_request *))
{
	struct usb_request *req = usb_ep_alloc_request(ep, USB_GFP_KERNEL);

	if (!req)
		return NULL;
	req->buf = composite__malloc(len);
	if (!req->buf) {
		usb_ep_free_request(ep, req);
		return NULL;
	}
	req->complete = complete;
	req->context = context;
	return req;
}

void fn_request_free(struct usb_ep *ep, struct usb_request **req)
{
	if (*req) {
		composite__free((*req)->buf);
		usb_ep_free_request(ep, *req);
		*req = NULL;
	}
}
