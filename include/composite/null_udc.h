/*
 * null_udc.h - the null backend: a UDC with ep0 and a few endpoints that
 * accepts everything and moves no bytes by itself. It is the template for
 * new backends (src/udc/null/null_udc.c, docs/writing-a-backend.md) and a
 * minimal controller for tests: the caller plays the hardware interrupt
 * with usb_null_udc_setup(), _event() and _complete(), and is the event
 * context while doing so. Portable C11 (no POSIX): builds for firmware.
 */
#ifndef COMPOSITE_NULL_UDC_H
#define COMPOSITE_NULL_UDC_H

#include <stddef.h>

#include "composite/udc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct usb_null_udc;

/**
 * struct usb_null_udc_config - all-zero is valid.
 * @name: UDC name (copied, at most 31 bytes). NULL: "null.0".
 * @max_speed: USB_SPEED_UNKNOWN: USB_SPEED_HIGH.
 * @num_pairs: endpoint pairs ep<n>in/ep<n>out, 1..15 (0: 3). Bulk,
 *	interrupt and isochronous, maxpacket_limit 1024.
 */
struct usb_null_udc_config {
	const char *name;
	enum usb_device_speed max_speed;
	unsigned num_pairs;
};

/*
 * Create and register the UDC. Return: 0; -USB_EINVAL (bad config, name
 * taken); -USB_ENOMEM. @out receives it (free with _destroy()).
 */
int usb_null_udc_create(const struct usb_null_udc_config *config, struct usb_null_udc **out);

/* Unregister (unbinding a bound driver) and free. NULL is ignored. */
void usb_null_udc_destroy(struct usb_null_udc *udc);

/* The gadget (borrowed, valid until _destroy()). */
struct usb_gadget *usb_null_udc_gadget(struct usb_null_udc *udc);

/*
 * "Interrupt": the host sent SETUP @ctrl. Requests still queued on ep0 are
 * given back with -USB_ECONNRESET first. Return: what usb_gadget_setup()
 * returned (negative: the backend stalled the transfer); -USB_ENODEV when
 * not started.
 */
int usb_null_udc_setup(struct usb_null_udc *udc, const struct usb_ctrlrequest *ctrl);

/*
 * "Interrupt": bus event. For USB_GADGET_EVENT_RESET, @speed is the new
 * speed; for DISCONNECT every queued request (ep0 included) is given back
 * with -USB_ESHUTDOWN first. Return: 0, -USB_EINVAL, -USB_ENODEV.
 */
int usb_null_udc_event(struct usb_null_udc *udc, enum usb_gadget_event event,
		       enum usb_device_speed speed);

/*
 * "Interrupt": the oldest request queued on @ep is done with @status
 * (0 or negative) and @actual bytes (cut to its length): give it back.
 * Return: 0; -USB_ENOENT if nothing is queued; -USB_EINVAL for an
 * endpoint of another gadget.
 */
int usb_null_udc_complete(struct usb_null_udc *udc, struct usb_ep *ep, unsigned actual,
			  int status);

/* The oldest request queued on @ep (still the backend's: read only), or NULL. */
struct usb_request *usb_null_udc_head(struct usb_null_udc *udc, struct usb_ep *ep);

/* Requests queued on @ep. */
size_t usb_null_udc_queued(struct usb_null_udc *udc, struct usb_ep *ep);

/* ep0 was stalled (set_halt(ep0) or a failed setup) since the last SETUP. */
int usb_null_udc_ep0_stalled(struct usb_null_udc *udc);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_NULL_UDC_H */
