/*
 * udc.h - the seam between the core and a backend that moves bytes (a
 * USB/IP server, the in-process host, a real controller). For
 * backend authors. src/udc/null/null_udc.c is the template to start from.
 *
 * A backend fills a struct usb_gadget with its ops, ep0 and ep_list,
 * registers it with usb_udc_register(), and then reports what the host
 * does through three entry points: usb_gadget_setup() (a SETUP packet),
 * usb_gadget_event() (bus reset, disconnect, suspend, resume) and
 * usb_gadget_giveback_request() (a request is done). The core answers every
 * chapter 9 request itself; the backend only moves bytes, stalls when told,
 * and gives requests back.
 *
 * Event context: the backend calls the three entry points for one gadget
 * from one thread at a time, never with its own locks held (the core calls
 * back into the backend from them).
 *
 * EP0 contract: when usb_gadget_setup() returns 0, exactly one request is
 * (or, with delayed status, will be, possibly from another thread) queued on
 * ep0 for that SETUP:
 * - wLength > 0 and IN: it is the data stage (length <= wLength; send a
 *   zero-length packet after it if req->zero and the length is a multiple
 *   of ep0's maxpacket); the status stage follows by itself.
 * - wLength > 0 and OUT: it receives the data stage (length == wLength);
 *   the backend completes it, then acknowledges the status stage.
 * - wLength == 0: a zero-length request: acknowledge the status stage.
 * Instead of queueing, the core may call ops->set_halt(ep0, USB_EP_HALT_SET): stall this
 * control transfer (a protocol stall; ep0 un-halts itself at the next
 * SETUP). When usb_gadget_setup() returns a negative value, stall the
 * transfer. A new SETUP while an ep0 request is still queued completes
 * that request with -USB_ECONNRESET first.
 *
 * Device state: the core follows chapter 9 strictly: after
 * USB_GADGET_EVENT_RESET the device is in the default state, where only
 * GET_DESCRIPTOR, SET_ADDRESS and SET_FEATURE(TEST_MODE) are answered. A
 * backend whose host completes SET_ADDRESS itself (USB/IP: vhci_hcd never
 * forwards it) feeds the core a SET_ADDRESS SETUP of its own (00 05 nn 00
 * 00 00 00 00) and gives back the zero-length request it gets, so that the
 * device reaches the address state.
 */
#ifndef COMPOSITE_UDC_H
#define COMPOSITE_UDC_H

#include "composite/gadget.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct usb_gadget_ops - gadget-wide operations of a backend.
 * @start: mandatory. A composite device was bound: begin reporting host
 *	activity (usually: make the device attachable). Context: the
 *	binding thread. Return 0 or a negative error (the bind fails).
 * @stop: mandatory. The composite device is being unbound: stop reporting
 *	events. When it returns, no entry point call for this gadget is
 *	running or will run until the next @start. Queued requests are not
 *	given back by @stop (functions disable their endpoints first).
 *	Context: the unbinding thread, never the event context.
 * @pullup: optional. Show (1) or hide (0) the device to the host.
 * @set_selfpowered: optional. Return 0 or an error.
 * @wakeup: optional. Signal remote wakeup. Without it: -USB_EOPNOTSUPP.
 * @vbus_draw: optional. The configuration's bMaxPower, in mA.
 * @set_address: optional. The host assigned @address (after the status
 *	stage of SET_ADDRESS). Context: event context.
 * @test_mode: optional. Enter test mode @selector after the status stage
 *	(SET_FEATURE(TEST_MODE)); without it the request stalls.
 *
 * Every op other than @start and @stop may be called from any thread;
 * the backend serialises them with its own lock.
 */
struct usb_gadget_ops {
	int (*start)(struct usb_gadget *gadget);
	void (*stop)(struct usb_gadget *gadget);
	int (*pullup)(struct usb_gadget *gadget, int is_on);
	int (*set_selfpowered)(struct usb_gadget *gadget, int is_selfpowered);
	int (*wakeup)(struct usb_gadget *gadget);
	int (*vbus_draw)(struct usb_gadget *gadget, unsigned mA);
	int (*set_address)(struct usb_gadget *gadget, unsigned address);
	int (*test_mode)(struct usb_gadget *gadget, unsigned selector);
};

/* What ops->set_halt is asked to do (see struct usb_ep_ops). */
enum usb_ep_halt_value {
	USB_EP_HALT_CLEAR,	/* resume; the data toggle resets */
	USB_EP_HALT_SET,	/* a function's halt: may be refused (-USB_EAGAIN) */
	USB_EP_HALT_HOST	/* the host's SET_FEATURE(ENDPOINT_HALT): never refused */
};

/**
 * struct usb_ep_ops - per-endpoint operations of a backend. The core calls
 * them through usb_ep_*() after checking arguments, from any thread: the
 * backend serialises them with its own lock. None of them may call a
 * request's completion, except @disable, @dequeue and @fifo_flush, which
 * give back (through usb_gadget_giveback_request()) before returning,
 * without holding the backend's lock while doing so.
 * @enable: mandatory. Configure for @desc (type, direction, maxpacket).
 *	@desc is the descriptor for the connected speed (@ep->comp_desc its
 *	SuperSpeed companion). A backend whose host does not schedule
 *	interrupt transfers itself (USB/IP, the in-process host) paces them
 *	at @desc's bInterval as a host controller would (src/udc/common/
 *	xfer.h, "pacing").
 * @disable: mandatory. Give back every queued request with -USB_ESHUTDOWN.
 * @alloc_request: mandatory. A zeroed request (embed it in your own
 *	structure for per-request state); NULL when out of memory.
 * @free_request: mandatory.
 * @queue: mandatory. Accept @req; give it back later from the event
 *	context once the transfer is done. The core has set status to
 *	-USB_EINPROGRESS and actual to 0.
 * @dequeue: mandatory. Give back @req with -USB_ECONNRESET if still
 *	queued; -USB_EINVAL if it is not.
 * @set_halt: mandatory. @value (enum usb_ep_halt_value) USB_EP_HALT_SET:
 *	fail the host's transfers on this endpoint with a stall; for an IN
 *	endpoint with requests queued, refuse with -USB_EAGAIN.
 *	USB_EP_HALT_CLEAR: resume (and reset the data toggle).
 *	USB_EP_HALT_HOST: the host's own SET_FEATURE(ENDPOINT_HALT) (from the
 *	core): halt as for USB_EP_HALT_SET but never refuse (chapter 9 gives
 *	the device no choice). For ep0 (always USB_EP_HALT_SET): stall the
 *	current control transfer only.
 * @set_wedge: optional. The core keeps wedge state itself; a controller
 *	that implements wedge in hardware is told here.
 * @fifo_status: optional. Bytes in the FIFO; -USB_EOPNOTSUPP otherwise.
 * @fifo_flush: optional.
 */
struct usb_ep_ops {
	int (*enable)(struct usb_ep *ep, const struct usb_endpoint_descriptor *desc);
	int (*disable)(struct usb_ep *ep);
	struct usb_request *(*alloc_request)(struct usb_ep *ep);
	void (*free_request)(struct usb_ep *ep, struct usb_request *req);
	int (*queue)(struct usb_ep *ep, struct usb_request *req);
	int (*dequeue)(struct usb_ep *ep, struct usb_request *req);
	int (*set_halt)(struct usb_ep *ep, enum usb_ep_halt_value value);
	int (*set_wedge)(struct usb_ep *ep);
	int (*fifo_status)(struct usb_ep *ep);
	void (*fifo_flush)(struct usb_ep *ep);
};

/**
 * usb_udc_register() - make @gadget available to composite drivers. The
 * core checks the mandatory ops of the gadget, ep0 and every endpoint,
 * and that @gadget->name is set and unique.
 * Context: any thread, not a backend's event context.
 * Return: 0; -USB_EINVAL for a missing mandatory op, name, ep0 or a
 * name already registered.
 */
int usb_udc_register(struct usb_gadget *gadget);

/**
 * usb_udc_unregister() - withdraw @gadget. A composite driver bound to it is
 * unbound first (as by usb_composite_unregister()). Context: as register.
 */
void usb_udc_unregister(struct usb_gadget *gadget);

/**
 * usb_gadget_setup() - entry point: the host sent SETUP packet @ctrl to ep0
 * (the 8 bytes as on the wire: multi-byte fields little-endian).
 * Context: event context.
 * Return: 0 when a request is or will be queued on ep0 for it (see the
 * EP0 contract above), or a negative error: stall the control transfer.
 */
int usb_gadget_setup(struct usb_gadget *gadget, const struct usb_ctrlrequest *ctrl);

/* Bus events a backend reports. */
enum usb_gadget_event {
	/* Bus reset: gadget->speed holds the new speed. The device returns to
	 * the default state; an active configuration is disabled. */
	USB_GADGET_EVENT_RESET,
	/* The host went away: functions are disabled, driver->disconnect runs. */
	USB_GADGET_EVENT_DISCONNECT,
	USB_GADGET_EVENT_SUSPEND,
	USB_GADGET_EVENT_RESUME
};

/* Entry point: report bus event @event. Context: event context. */
void usb_gadget_event(struct usb_gadget *gadget, enum usb_gadget_event event);

/**
 * usb_gadget_giveback_request() - entry point: @req on @ep is done; set
 * @req->status and @req->actual first. Calls @req->complete. Each queued
 * request must be given back exactly once (the core asserts it).
 * Context: event context, or within the ops->disable/dequeue/fifo_flush
 * call that gave it back. Never with the backend's lock held.
 */
void usb_gadget_giveback_request(struct usb_ep *ep, struct usb_request *req);

/* Initialise the list heads and state of @gadget (call before filling it). */
void usb_gadget_init(struct usb_gadget *gadget);

/* Initialise @ep for a backend (state cleared, list head ready). */
void usb_ep_init(struct usb_ep *ep);

/* Find a registered UDC by name (NULL if none). Context: not event context. */
struct usb_gadget *usb_udc_find(const char *name);

/* True while a composite driver is bound to @gadget (between a successful
 * usb_composite_probe() and usb_composite_unregister()). Any thread. */
bool usb_udc_is_bound(struct usb_gadget *gadget);

/* ---- describe: the bound composite device, as a backend may see it ----
 * Each call below reads the composite device bound to @gadget (NULL-safe
 * for an unbound gadget: -USB_ENODEV or the stated default). Context: any
 * thread while the gadget is started (between ops->start and ops->stop:
 * the configuration list does not change then); usb_gadget_config_value()
 * only from the event context. No call allocates; output goes into caller
 * memory. */

/* The most the interfaces of one configuration report (Linux's value). */
#define USB_GADGET_MAX_INTERFACES 16

/**
 * struct usb_gadget_config_info - one configuration as OP_REP_DEVLIST-style
 * listings need it: its value and the class triple of each interface
 * (alternate setting 0), in interface-number order.
 */
struct usb_gadget_config_info {
	uint8_t bConfigurationValue;
	uint8_t bNumInterfaces;
	struct {
		uint8_t bInterfaceNumber;
		uint8_t bInterfaceClass;	/* 0xff when no descriptor says */
		uint8_t bInterfaceSubClass;
		uint8_t bInterfaceProtocol;
	} intf[USB_GADGET_MAX_INTERFACES];
};

/* The speed to connect at: @gadget->max_speed, capped by the bound
 * driver's max_speed (never below full speed), as Linux's UDC core does.
 * Unbound: @gadget->max_speed. */
enum usb_device_speed usb_gadget_max_speed(struct usb_gadget *gadget);

/* The driver's device descriptor into @out, bLength, bDescriptorType and
 * bNumConfigurations filled (bcdUSB and bMaxPacketSize0 as the driver set
 * them: their per-speed values go out only in GET_DESCRIPTOR).
 * Return: 0 or -USB_ENODEV (nothing bound). */
int usb_gadget_device_descriptor(struct usb_gadget *gadget, struct usb_device_descriptor *out);

/* Number of configurations. Return: >= 0 or -USB_ENODEV. */
int usb_gadget_config_count(struct usb_gadget *gadget);

/* Index (0-based, the order of GET_DESCRIPTOR(CONFIG)) of the
 * configuration with bConfigurationValue @value.
 * Return: the index, -USB_ENOENT or -USB_ENODEV. */
int usb_gadget_config_index(struct usb_gadget *gadget, unsigned value);

/* The configuration descriptor @index with all its functions' descriptors
 * for @speed (each function falling back to its next slower list, as the
 * core answers GET_DESCRIPTOR(CONFIG)), into @buf (room @cap).
 * Return: the length, -USB_ENOSPC, -USB_ENOENT or -USB_ENODEV. */
int usb_gadget_config_descriptor(struct usb_gadget *gadget, unsigned index,
				 enum usb_device_speed speed, void *buf, size_t cap);

/* Configuration @index at @speed summarised into @out.
 * Return: the interface count, -USB_ENOENT or -USB_ENODEV. */
int usb_gadget_interface_classes(struct usb_gadget *gadget, unsigned index,
				 enum usb_device_speed speed, struct usb_gadget_config_info *out);

/* bConfigurationValue of the active configuration; 0: unconfigured (or
 * nothing bound). Context: event context. */
unsigned usb_gadget_config_value(struct usb_gadget *gadget);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_UDC_H */
