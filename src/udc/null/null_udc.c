/*
 * null_udc.c - the null backend (composite/null_udc.h): the smallest
 * correct UDC, and the template to copy for a new one. It owns its gadget,
 * endpoints and requests; it calls the core only through the entry points
 * of udc.h. Portable C11: the one lock is a C11 atomic_flag on hosted
 * systems and, with COMPOSITE_IRQ_HOOKS (bare metal), the port's critical
 * section (composite/port.h): "mask the USB interrupt", safe against it.
 *
 * How to read it as a template (docs/writing-a-backend.md walks through
 * it): section 1 is your per-controller state, 2 the lock, 3 the endpoint
 * ops, 4 the gadget ops, 5 what your interrupt handler does, 6 probe and
 * remove. Every place where real hardware would be programmed says
 * "HW:". The rules that matter:
 * - Requests belong to the backend from queue() until given back; each is
 *   given back exactly once, with usb_gadget_giveback_request(), never
 *   with the lock held and never inside queue().
 * - disable() and dequeue() give back before they return (ESHUTDOWN,
 *   ECONNRESET); everything else gives back from the event context.
 * - Errors are negated USB_E* values.
 */
#include "composite/null_udc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#ifdef COMPOSITE_IRQ_HOOKS
#include "composite/port.h"
#endif
#include "port/alloc.h"

/* ---- 1. state ------------------------------------------------------------ */

/* Per-request state: the public request plus the backend's queue link. */
struct null_req {
	struct usb_request req;
	struct list_head queue;	/* on null_ep.queue while queued */
};

struct null_ep {
	struct usb_ep ep;
	struct usb_null_udc *udc;
	char name[16];
	struct list_head queue;	/* struct null_req, oldest first */
	bool in;		/* direction wired in the hardware */
	bool halted;
};

#define NULL_MAX_PAIRS 15

struct usb_null_udc {
	struct usb_gadget gadget;
	char name[32];
#ifdef COMPOSITE_IRQ_HOOKS
	unsigned long irq_flags;	/* what udc_unlock() restores */
#else
	atomic_flag lock;
#endif
	struct null_ep ep0;
	unsigned neps;
	bool registered;
	bool started;
	bool pullup;
	bool ep0_stalled;
	struct null_ep eps[];	/* neps of them: only the pairs asked for */
};

static struct usb_null_udc *udc_of(struct usb_gadget *g)
{
	return usb_container_of(g, struct usb_null_udc, gadget);
}

static struct null_ep *nep_of(struct usb_ep *ep)
{
	return usb_container_of(ep, struct null_ep, ep);
}

static struct null_req *nreq_of(struct usb_request *req)
{
	return usb_container_of(req, struct null_req, req);
}

/* ---- 2. the lock ------------------------------------------------------- */

/* Critical sections are a few list operations and never call out. */
#ifdef COMPOSITE_IRQ_HOOKS
/* Interrupts masked: the handler cannot run on this core meanwhile. */
static void udc_lock(struct usb_null_udc *udc)
{
	unsigned long flags = usb_port_irq_save();

	udc->irq_flags = flags;
}

static void udc_unlock(struct usb_null_udc *udc)
{
	usb_port_irq_restore(udc->irq_flags);
}
#else
static void udc_lock(struct usb_null_udc *udc)
{
	while (atomic_flag_test_and_set_explicit(&udc->lock, memory_order_acquire))
		;	/* HW: mask the USB interrupt instead (COMPOSITE_IRQ_HOOKS) */
}

static void udc_unlock(struct usb_null_udc *udc)
{
	atomic_flag_clear_explicit(&udc->lock, memory_order_release);
}
#endif

/*
 * Move every request queued on @nep onto @out with @status. Lock held.
 * The caller gives them back after unlocking (give_back()).
 */
static void take_all(struct null_ep *nep, int status, struct list_head *out)
{
	while (!list_empty(&nep->queue)) {
		struct null_req *r = list_first_entry(&nep->queue, struct null_req, queue);

		r->req.status = status;
		list_move_tail(&r->queue, out);
	}
}

/* Give back what take_all() collected. Lock NOT held. */
static void give_back(struct null_ep *nep, struct list_head *list)
{
	while (!list_empty(list)) {
		struct null_req *r = list_first_entry(list, struct null_req, queue);

		/* Unlink first: the completion may queue the request again. */
		list_del_init(&r->queue);
		usb_gadget_giveback_request(&nep->ep, &r->req);
	}
}

/* ---- 3. endpoint ops --------------------------------------------------- */

static int null_ep_enable(struct usb_ep *ep, const struct usb_endpoint_descriptor *desc)
{
	struct null_ep *nep = nep_of(ep);
	unsigned mp = USB_LE16_TO_CPU(desc->wMaxPacketSize) & USB_ENDPOINT_MAXP_MASK;

	/* The core checked type and caps; the direction is ours to check. */
	if (((desc->bEndpointAddress & USB_DIR_IN) != 0) != nep->in || mp == 0)
		return -USB_EINVAL;
	udc_lock(nep->udc);
	nep->halted = false;
	/* HW: program type, maxpacket and address; reset the data toggle. */
	udc_unlock(nep->udc);
	return 0;
}

static int null_ep_disable(struct usb_ep *ep)
{
	struct null_ep *nep = nep_of(ep);
	struct list_head done;

	INIT_LIST_HEAD(&done);
	udc_lock(nep->udc);
	/* HW: stop the endpoint, abort DMA. */
	take_all(nep, -USB_ESHUTDOWN, &done);
	nep->halted = false;
	udc_unlock(nep->udc);
	give_back(nep, &done);
	return 0;
}

static struct usb_request *null_alloc_request(struct usb_ep *ep)
{
	struct null_req *r = composite__calloc(1, sizeof(*r));

	(void)ep;
	if (!r)
		return NULL;
	INIT_LIST_HEAD(&r->req.list);
	INIT_LIST_HEAD(&r->queue);
	return &r->req;
}

static void null_free_request(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	composite__free(nreq_of(req));
}

static int null_queue(struct usb_ep *ep, struct usb_request *req)
{
	struct null_ep *nep = nep_of(ep);
	struct null_req *r = nreq_of(req);
	int rc = 0;

	udc_lock(nep->udc);
	if (!nep->udc->started)
		rc = -USB_ESHUTDOWN;
	else if (!list_empty(&r->queue))
		rc = -USB_EBUSY;	/* the core catches this first */
	else
		list_add_tail(&r->queue, &nep->queue);
	/* HW: if the endpoint was idle, start this request's transfer. Never
	 * complete it here, even if the hardware is done at once: give it
	 * back from the interrupt. */
	udc_unlock(nep->udc);
	return rc;
}

static int null_dequeue(struct usb_ep *ep, struct usb_request *req)
{
	struct null_ep *nep = nep_of(ep);
	struct null_req *r = nreq_of(req);
	struct list_head done, *pos;
	int rc = -USB_EINVAL;

	INIT_LIST_HEAD(&done);
	udc_lock(nep->udc);
	list_for_each(pos, &nep->queue) {
		if (pos == &r->queue) {
			/* HW: if it is the active one, abort its transfer and
			 * keep the byte count in req->actual. */
			r->req.status = -USB_ECONNRESET;
			list_move_tail(&r->queue, &done);
			rc = 0;
			break;
		}
	}
	udc_unlock(nep->udc);
	give_back(nep, &done);
	return rc;
}

static int null_set_halt(struct usb_ep *ep, enum usb_ep_halt_value value)
{
	struct null_ep *nep = nep_of(ep);
	struct usb_null_udc *udc = nep->udc;
	int rc = 0;

	udc_lock(udc);
	if (nep == &udc->ep0) {
		/* A protocol stall of this control transfer only. */
		if (value != USB_EP_HALT_CLEAR)
			udc->ep0_stalled = true;	/* HW: set the ep0 STALL bit */
	} else if (value == USB_EP_HALT_SET && nep->in && !list_empty(&nep->queue)) {
		/* IN data still queued: Linux semantics for a function's halt
		 * (USB_EP_HALT_HOST, the host's SET_FEATURE, is never refused). */
		rc = -USB_EAGAIN;
	} else {
		nep->halted = value != USB_EP_HALT_CLEAR;
		/* HW: set/clear STALL; clearing also resets the data toggle. */
	}
	udc_unlock(udc);
	return rc;
}

static int null_fifo_status(struct usb_ep *ep)
{
	(void)ep;
	return 0;	/* HW: bytes left in the endpoint FIFO */
}

static void null_fifo_flush(struct usb_ep *ep)
{
	(void)ep;	/* HW: flush the FIFO (not the queued requests) */
}

static const struct usb_ep_ops null_ep_ops = {
	.enable = null_ep_enable,
	.disable = null_ep_disable,
	.alloc_request = null_alloc_request,
	.free_request = null_free_request,
	.queue = null_queue,
	.dequeue = null_dequeue,
	.set_halt = null_set_halt,
	.fifo_status = null_fifo_status,
	.fifo_flush = null_fifo_flush,
};

/* ---- 4. gadget ops ----------------------------------------------------- */

static int null_start(struct usb_gadget *g)
{
	struct usb_null_udc *udc = udc_of(g);

	udc_lock(udc);
	udc->started = true;	/* HW: enable the controller's interrupts */
	udc_unlock(udc);
	return 0;
}

static void null_stop(struct usb_gadget *g)
{
	struct usb_null_udc *udc = udc_of(g);

	udc_lock(udc);
	/* HW: disable interrupts and wait for a running handler to finish, so
	 * no entry point runs once stop() returns. Queued requests stay: the
	 * core dequeues ep0's, functions disable their endpoints. */
	udc->started = false;
	udc_unlock(udc);
}

static int null_pullup(struct usb_gadget *g, int is_on)
{
	struct usb_null_udc *udc = udc_of(g);

	udc_lock(udc);
	udc->pullup = is_on != 0;	/* HW: D+ pull-up resistor */
	udc_unlock(udc);
	return 0;
}

static const struct usb_gadget_ops null_gadget_ops = {
	.start = null_start,
	.stop = null_stop,
	.pullup = null_pullup,
	/* Optional ops left out: the core answers USB_EOPNOTSUPP or a
	 * stall for them (wakeup, test_mode) or ignores them (vbus_draw). */
};

/* ---- 5. the interrupt side: calling the entry points ----------------- */

static bool owns(struct usb_null_udc *udc, struct usb_ep *ep)
{
	if (ep == &udc->ep0.ep)
		return true;
	for (unsigned i = 0; i < udc->neps; i++)
		if (ep == &udc->eps[i].ep)
			return true;
	return false;
}

int usb_null_udc_setup(struct usb_null_udc *udc, const struct usb_ctrlrequest *ctrl)
{
	struct list_head done;
	bool started;
	int rc;

	if (!udc || !ctrl)
		return -USB_EINVAL;
	INIT_LIST_HEAD(&done);
	udc_lock(udc);
	started = udc->started;
	/* A new SETUP ends whatever the last control transfer left queued. */
	take_all(&udc->ep0, -USB_ECONNRESET, &done);
	udc->ep0_stalled = false;
	udc_unlock(udc);
	give_back(&udc->ep0, &done);
	if (!started)
		return -USB_ENODEV;
	rc = usb_gadget_setup(&udc->gadget, ctrl);
	if (rc < 0) {
		udc_lock(udc);
		udc->ep0_stalled = true;	/* HW: stall the data/status stage */
		udc_unlock(udc);
	}
	return rc;
}

int usb_null_udc_event(struct usb_null_udc *udc, enum usb_gadget_event event,
		       enum usb_device_speed speed)
{
	if (!udc)
		return -USB_EINVAL;
	if (event == USB_GADGET_EVENT_RESET &&
	    (speed < USB_SPEED_LOW || speed > udc->gadget.max_speed))
		return -USB_EINVAL;
	udc_lock(udc);
	if (!udc->started) {
		udc_unlock(udc);
		return -USB_ENODEV;
	}
	udc_unlock(udc);
	if (event == USB_GADGET_EVENT_DISCONNECT || event == USB_GADGET_EVENT_RESET) {
		struct list_head done;

		/* The host is gone (or starts over): nothing queued survives. */
		for (unsigned i = 0; i <= udc->neps; i++) {
			struct null_ep *nep = i == 0 ? &udc->ep0 : &udc->eps[i - 1];

			INIT_LIST_HEAD(&done);
			udc_lock(udc);
			take_all(nep, -USB_ESHUTDOWN, &done);
			udc_unlock(udc);
			give_back(nep, &done);
		}
		udc->gadget.speed = event == USB_GADGET_EVENT_RESET ? speed : USB_SPEED_UNKNOWN;
		/* HW: on reset, ep0's maxpacket follows the speed. */
		if (event == USB_GADGET_EVENT_RESET)
			usb_ep_set_maxpacket_limit(&udc->ep0.ep, speed >= USB_SPEED_SUPER ? 512u
								: speed == USB_SPEED_LOW ? 8u : 64u);
	}
	usb_gadget_event(&udc->gadget, event);
	return 0;
}

int usb_null_udc_complete(struct usb_null_udc *udc, struct usb_ep *ep, unsigned actual,
			  int status)
{
	struct null_ep *nep;
	struct list_head done;
	struct null_req *r;

	if (!udc || !ep || !owns(udc, ep) || status > 0)
		return -USB_EINVAL;
	nep = nep_of(ep);
	INIT_LIST_HEAD(&done);
	udc_lock(udc);
	r = list_first_entry_or_null(&nep->queue, struct null_req, queue);
	if (r) {
		r->req.actual = actual < r->req.length ? actual : r->req.length;
		r->req.status = status;
		list_move_tail(&r->queue, &done);
	}
	udc_unlock(udc);
	if (!r)
		return -USB_ENOENT;
	give_back(nep, &done);
	return 0;
}

struct usb_request *usb_null_udc_head(struct usb_null_udc *udc, struct usb_ep *ep)
{
	struct null_req *r = NULL;

	if (!udc || !ep || !owns(udc, ep))
		return NULL;
	udc_lock(udc);
	r = list_first_entry_or_null(&nep_of(ep)->queue, struct null_req, queue);
	udc_unlock(udc);
	return r ? &r->req : NULL;
}

size_t usb_null_udc_queued(struct usb_null_udc *udc, struct usb_ep *ep)
{
	struct list_head *pos;
	size_t n = 0;

	if (!udc || !ep || !owns(udc, ep))
		return 0;
	udc_lock(udc);
	list_for_each(pos, &nep_of(ep)->queue)
		n++;
	udc_unlock(udc);
	return n;
}

int usb_null_udc_ep0_stalled(struct usb_null_udc *udc)
{
	int v;

	if (!udc)
		return 0;
	udc_lock(udc);
	v = udc->ep0_stalled;
	udc_unlock(udc);
	return v;
}

/* ---- 6. probe and remove ----------------------------------------------- */

static void init_ep(struct usb_null_udc *udc, struct null_ep *nep, unsigned num, bool in)
{
	char *name;

	usb_ep_init(&nep->ep);
	nep->udc = udc;
	nep->in = in;
	INIT_LIST_HEAD(&nep->queue);
	/* "ep0", "ep<num>in", "ep<num>out" (no printf: firmware has none). */
	memcpy(nep->name, "ep", 2);
	name = nep->name + 2;
	if (num >= 10)
		*name++ = (char)('0' + num / 10u);
	*name++ = (char)('0' + num % 10u);
	memcpy(name, num == 0 ? "" : in ? "in" : "out", num == 0 ? 1 : in ? 3 : 4);
	nep->ep.name = nep->name;	/* "ep<n>in": autoconfig uses number n */
	nep->ep.ops = &null_ep_ops;
	if (num == 0) {
		nep->ep.caps.type_control = 1;
		nep->ep.caps.dir_in = 1;
		nep->ep.caps.dir_out = 1;
		usb_ep_set_maxpacket_limit(&nep->ep, 64);
		return;
	}
	nep->ep.caps.type_bulk = 1;
	nep->ep.caps.type_int = 1;
	nep->ep.caps.type_iso = 1;
	nep->ep.caps.dir_in = in;
	nep->ep.caps.dir_out = !in;
	usb_ep_set_maxpacket_limit(&nep->ep, 1024);
	list_add_tail(&nep->ep.ep_list, &udc->gadget.ep_list);
}

int usb_null_udc_create(const struct usb_null_udc_config *config, struct usb_null_udc **out)
{
	static const struct usb_null_udc_config defaults;
	struct usb_null_udc *udc;
	const char *name;
	size_t name_len;
	unsigned pairs;
	int rc;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	if (!config)
		config = &defaults;
	pairs = config->num_pairs ? config->num_pairs : 3;
	name = config->name ? config->name : "null.0";
	name_len = strlen(name);
	if (pairs > NULL_MAX_PAIRS || config->max_speed > USB_SPEED_SUPER_PLUS ||
	    name_len == 0 || name_len >= 32)
		return -USB_EINVAL;
	udc = composite__calloc(1, sizeof(*udc) + 2 * pairs * sizeof(udc->eps[0]));
	if (!udc)
		return -USB_ENOMEM;
#ifndef COMPOSITE_IRQ_HOOKS
	atomic_flag_clear(&udc->lock);
#endif
	memcpy(udc->name, name, name_len + 1);	/* length checked */

	/* usb_gadget_init() first: it clears the structure. */
	usb_gadget_init(&udc->gadget);
	udc->gadget.ops = &null_gadget_ops;
	udc->gadget.name = udc->name;
	udc->gadget.max_speed = config->max_speed ? config->max_speed : USB_SPEED_HIGH;
	init_ep(udc, &udc->ep0, 0, false);
	udc->gadget.ep0 = &udc->ep0.ep;
	for (unsigned i = 0; i < pairs; i++) {
		init_ep(udc, &udc->eps[2 * i], i + 1, true);
		init_ep(udc, &udc->eps[2 * i + 1], i + 1, false);
	}
	udc->neps = 2 * pairs;
	udc->pullup = true;

	rc = usb_udc_register(&udc->gadget);
	if (rc) {
		composite__free(udc);
		return rc;
	}
	udc->registered = true;
	*out = udc;
	return 0;
}

void usb_null_udc_destroy(struct usb_null_udc *udc)
{
	if (!udc)
		return;
	if (udc->registered)
		usb_udc_unregister(&udc->gadget);
	composite__free(udc);
}

struct usb_gadget *usb_null_udc_gadget(struct usb_null_udc *udc)
{
	return udc ? &udc->gadget : NULL;
}
