/*
 * gadget.h - the device side of the bus as functions see it: the gadget
 * (one USB device controller, "UDC"), its endpoints and the requests queued
 * on them. Shapes and names follow Linux's <linux/usb/gadget.h>.
 *
 * Backends (include/composite/udc.h) allocate and own gadgets, endpoints and
 * requests; the core and the functions use them through the usb_ep_*()
 * calls below. Which thread may call what is stated in composite.h
 * ("Thread model") and on each call.
 */
#ifndef COMPOSITE_GADGET_H
#define COMPOSITE_GADGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/ch9.h"
#include "composite/errors.h"
#include "composite/list.h"

/* Fields private to the core are declared COMPOSITE_PRIVATE(name): the
 * plain name inside src/core (built with COMPOSITE_BUILDING_CORE), a
 * mangled one elsewhere, so that a read from outside fails to compile
 * (ctest core_private_members). */
#ifdef COMPOSITE_BUILDING_CORE
#define COMPOSITE_PRIVATE(name) name
#else
#define COMPOSITE_PRIVATE(name) composite__private_##name
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Allocation flags, accepted for source compatibility with Linux gadget
 * code and ignored: nothing here sleeps in an allocator on the caller's
 * behalf. composite/linux/types.h spells them gfp_t, GFP_ATOMIC and
 * GFP_KERNEL, as in usb_ep_queue(ep, req, GFP_ATOMIC).
 */
typedef unsigned int usb_gfp_t;
#define USB_GFP_ATOMIC 0u
#define USB_GFP_KERNEL 0u

struct usb_ep;
struct usb_gadget;
struct usb_gadget_ops;
struct usb_ep_ops;

/**
 * struct usb_request - one transfer buffer queued on an endpoint.
 * @buf: data to send (IN) or space to receive into (OUT). Borrowed: the
 *	owner of the request owns the buffer.
 * @length: bytes to send, or room in @buf.
 * @no_interrupt: hint that the completion may be delayed (ignored).
 * @zero: IN only: end with a zero-length packet when @length is a non-zero
 *	multiple of the endpoint's maxpacket.
 * @short_not_ok: OUT only: a short packet completes the request with
 *	-USB_EREMOTEIO instead of 0.
 * @complete: called exactly once when the request is given back: after the
 *	transfer, or with -USB_ESHUTDOWN when the endpoint is disabled or the
 *	device disconnects, or -USB_ECONNRESET when dequeued. Mandatory.
 *	Context: the backend's event context, or synchronously within
 *	usb_ep_dequeue(), usb_ep_disable() or usb_ep_fifo_flush() in that
 *	caller's thread; never within usb_ep_queue(). It must not block; it
 *	may queue requests (this one too) or free this one with
 *	usb_ep_free_request(): nothing touches it after the callback. Once
 *	it runs, the request and @buf belong to the function again.
 * @context: for @complete's use.
 * @list: for the request owner's use while it holds the request.
 * @status: 0, or a negative USB_E* value; -USB_EINPROGRESS while queued.
 * @actual: bytes transferred.
 *
 * From usb_ep_queue() until @complete runs the request belongs to the
 * backend: do not touch it or free it.
 */
struct usb_request {
	void *buf;
	unsigned length;
	unsigned no_interrupt : 1;
	unsigned zero : 1;
	unsigned short_not_ok : 1;
	void (*complete)(struct usb_ep *ep, struct usb_request *req);
	void *context;
	struct list_head list;
	int status;
	unsigned actual;
	/* Private to the core: set while COMPOSITE_PRIVATE(queued), to catch double queue/complete. */
	atomic_bool queued;
};

/**
 * struct usb_ep_caps - what an endpoint of the backend can be.
 */
struct usb_ep_caps {
	unsigned type_control : 1;
	unsigned type_iso : 1;
	unsigned type_bulk : 1;
	unsigned type_int : 1;
	unsigned dir_in : 1;
	unsigned dir_out : 1;
};

/**
 * struct usb_ep - one endpoint of a gadget (ep0 included).
 * @driver_data: for the function that claimed it.
 * @name: backend's name ("ep1in", "ep2out", "ep3"...).
 * @ops: backend operations. Do not call directly: use usb_ep_*().
 * @ep_list: the gadget's list of non-control endpoints.
 * @caps: set by the backend, read by usb_ep_autoconfig().
 * @claimed: set by usb_ep_autoconfig(), cleared when the functions unbind.
 * @enabled: true between usb_ep_enable() and usb_ep_disable().
 * @maxpacket: current max packet size (from @desc once enabled).
 * @maxpacket_limit: the most the hardware takes, set by the backend.
 * @mult, @maxburst: from the descriptors for the current speed.
 * @address: bEndpointAddress once claimed (0 for ep0).
 * @desc: descriptor for the current speed: set by config_ep_by_speed() or
 *	by hand before usb_ep_enable(). Borrowed.
 * @comp_desc: SuperSpeed companion, or NULL. Borrowed.
 * @halted, @wedged: halt state, kept by the core (usb_ep_set_halt(),
 *	usb_ep_set_wedge(), CLEAR_FEATURE from the host); read with
 *	usb_ep_is_halted(). The backend is told through ops->set_halt.
 */
struct usb_ep {
	void *driver_data;
	const char *name;
	const struct usb_ep_ops *ops;
	struct list_head ep_list;
	struct usb_ep_caps caps;
	bool claimed;
	bool enabled;
	unsigned maxpacket : 16;
	unsigned maxpacket_limit : 16;
	unsigned mult : 2;
	unsigned maxburst : 5;
	uint8_t address;
	const struct usb_endpoint_descriptor *desc;
	const struct usb_ss_ep_comp_descriptor *comp_desc;
	atomic_bool halted;
	atomic_bool wedged;
	/* Private to the core: the gadget @ep belongs to, set by usb_udc_register(). */
	struct usb_gadget *COMPOSITE_PRIVATE(gadget);
};

/**
 * struct usb_gadget - one USB device controller as seen by the core.
 * @ops: backend operations (udc.h).
 * @ep0: the control endpoint; its maxpacket gives bMaxPacketSize0.
 * @ep_list: every other endpoint, linked through usb_ep.ep_list.
 * @speed: speed of the current connection (USB_SPEED_UNKNOWN when none);
 *	set by the backend before it reports USB_GADGET_EVENT_RESET.
 * @max_speed: the fastest the backend can run.
 * @state: chapter 9 device state, kept by the core.
 * @name: unique UDC name ("1-1", "inproc.0"): composite drivers bind by it.
 * @is_selfpowered: current self-powered status (GET_STATUS bit 0).
 * @remote_wakeup_armed: set by the host with SET_FEATURE(REMOTE_WAKEUP).
 * @udc_priv: private to the core (registry and binding).
 * @driver_data: private to the core (the bound usb_composite_dev).
 *
 * The backend embeds this in its own structure and reaches it with
 * container_of().
 */
struct usb_gadget {
	const struct usb_gadget_ops *ops;
	struct usb_ep *ep0;
	struct list_head ep_list;
	enum usb_device_speed speed;
	enum usb_device_speed max_speed;
	enum usb_device_state state;
	const char *name;
	unsigned is_selfpowered : 1;
	unsigned remote_wakeup_armed : 1;
	unsigned sg_supported : 1;
	struct list_head COMPOSITE_PRIVATE(udc_priv);
	void *COMPOSITE_PRIVATE(driver_data);
};

static inline bool gadget_is_dualspeed(const struct usb_gadget *g)
{
	return g->max_speed >= USB_SPEED_HIGH;
}

static inline bool gadget_is_superspeed(const struct usb_gadget *g)
{
	return g->max_speed >= USB_SPEED_SUPER;
}

static inline bool gadget_is_superspeed_plus(const struct usb_gadget *g)
{
	return g->max_speed >= USB_SPEED_SUPER_PLUS;
}

static inline bool gadget_is_otg(const struct usb_gadget *g)
{
	(void)g;
	return false;
}

/* ---- endpoint calls ------------------------------------------------------
 * Each is safe from any thread, including a function's own worker thread:
 * the backend serialises them. Not from a signal handler.
 */

/**
 * usb_ep_enable() - configure @ep from @ep->desc and start accepting requests.
 * Return: 0; -USB_EINVAL if @ep->desc is unset or does not fit the endpoint;
 * -USB_EBUSY if already enabled; a backend error.
 */
int usb_ep_enable(struct usb_ep *ep);

/**
 * usb_ep_disable() - stop @ep. Every queued request completes with
 * -USB_ESHUTDOWN before this returns; halt and wedge are cleared, and
 * @ep->desc and @ep->comp_desc are set to NULL (as Linux UDCs do), so the
 * next usb_ep_enable() needs config_ep_by_speed() or a new ->desc.
 * Return: 0, or -USB_EINVAL if @ep was not enabled.
 */
int usb_ep_disable(struct usb_ep *ep);

/**
 * usb_ep_alloc_request() - a new request for @ep, zeroed but for backend
 * state. Free it with usb_ep_free_request() on the same endpoint.
 * Return: the request (owned by the caller), or NULL when out of memory.
 */
struct usb_request *usb_ep_alloc_request(struct usb_ep *ep, usb_gfp_t gfp_flags);

/* Free a request that is not queued. @req may be NULL. */
void usb_ep_free_request(struct usb_ep *ep, struct usb_request *req);

/**
 * usb_ep_queue() - hand @req to the backend for a transfer on @ep.
 * @req->complete runs exactly once, later (never inside this call).
 * Requests on one endpoint complete in the order they were queued.
 * Queueing on a halted endpoint is allowed: the request waits for the
 * host to clear the halt.
 * Return: 0 (the request now belongs to the backend); -USB_ESHUTDOWN if
 * @ep is not enabled or the device is not connected; -USB_EBUSY if @req is
 * already queued; -USB_EINVAL for a request without buffer or completion.
 * On error @complete is not called and the request stays the caller's.
 */
int usb_ep_queue(struct usb_ep *ep, struct usb_request *req, usb_gfp_t gfp_flags);

/**
 * usb_ep_dequeue() - cancel a queued request. If it had not completed yet
 * it completes with -USB_ECONNRESET (possibly with some data transferred,
 * see @actual), before this call returns.
 * Return: 0, or -USB_EINVAL if @req was not queued on @ep.
 */
int usb_ep_dequeue(struct usb_ep *ep, struct usb_request *req);

/**
 * usb_ep_set_halt() - stall @ep: the host's transfers fail with a stall
 * until it sends CLEAR_FEATURE(ENDPOINT_HALT) (or usb_ep_clear_halt()).
 * Return: 0; -USB_EAGAIN if @ep is IN and requests are still queued (wait
 * for them to complete, as on Linux); -USB_EINVAL for an isochronous
 * endpoint or one not enabled.
 */
int usb_ep_set_halt(struct usb_ep *ep);

/* Clear halt and wedge. Return: 0, or as usb_ep_set_halt(). */
int usb_ep_clear_halt(struct usb_ep *ep);

/**
 * usb_ep_set_wedge() - halt @ep so that the host's CLEAR_FEATURE(HALT) does
 * not clear it (it stays halted until usb_ep_clear_halt() or disable), as
 * Bulk-Only Transport requires after an invalid CBW.
 * Return: as usb_ep_set_halt().
 */
int usb_ep_set_wedge(struct usb_ep *ep);

/* True while @ep is halted (set by either side). */
static inline bool usb_ep_is_halted(const struct usb_ep *ep)
{
	return atomic_load((atomic_bool *)&ep->halted);
}

/**
 * usb_ep_fifo_status() - bytes sitting in the endpoint's FIFO.
 * Return: a count >= 0, or -USB_EOPNOTSUPP when the backend cannot tell.
 */
int usb_ep_fifo_status(struct usb_ep *ep);

/* Discard FIFO contents (not queued requests). No-op if unsupported. */
void usb_ep_fifo_flush(struct usb_ep *ep);

/* Set maxpacket_limit and maxpacket together (backends, at setup time). */
static inline void usb_ep_set_maxpacket_limit(struct usb_ep *ep, unsigned limit)
{
	ep->maxpacket_limit = limit & 0xffffu;
	ep->maxpacket = limit & 0xffffu;
}

/* ---- gadget calls ----------------------------------------------------- */

/* Ask the host to resume the bus. Return: 0, -USB_EOPNOTSUPP, -USB_EINVAL. */
int usb_gadget_wakeup(struct usb_gadget *gadget);

/* Report self-powered (1) or bus-powered (0). Return: 0 or backend error. */
int usb_gadget_set_selfpowered(struct usb_gadget *gadget, int is_on);

/* Make the device visible to the host (1) or not (0). Return: 0 or error. */
int usb_gadget_connect(struct usb_gadget *gadget);
int usb_gadget_disconnect(struct usb_gadget *gadget);

/* Tell the backend how much VBUS current the configuration may draw. */
int usb_gadget_vbus_draw(struct usb_gadget *gadget, unsigned mA);

/* Look up an endpoint of @gadget by its bEndpointAddress (0 or 0x80: ep0). */
struct usb_ep *usb_gadget_find_ep(struct usb_gadget *gadget, uint8_t address);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_GADGET_H */
