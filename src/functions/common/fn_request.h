/*
 * fn_request.h - a request with a buffer of its own, as the stream
 * functions (ACM, HID) allocate them at bind and free them at unbind.
 * Private to src/functions; the public gadget API and the heap.
 */
#ifndef COMPOSITE_FN_REQUEST_H
#define COMPOSITE_FN_REQUEST_H

#include <stddef.h>

#include "composite/gadget.h"

/* A request of @ep with a @len-byte buffer, @complete and @context set; NULL without memory. */
struct usb_request *fn_request_alloc(struct usb_ep *ep, size_t len, void *context,
				     void (*complete)(struct usb_ep *, struct usb_request *));

/* Free *@req (buffer included) and clear it; NULL is ignored. */
void fn_request_free(struct usb_ep *ep, struct usb_request **req);

#endif
