/*
 * udc.c - the UDC registry and the backend entry points (udc.h): which
 * gadgets exist and which composite device each is bound to, and the three
 * calls a backend makes into the core (setup, bus event, giveback).
 * It owns the registry list and its lock; it touches a gadget's
 * udc_priv, driver_data and state, and each endpoint's gadget pointer.
 */
#include <assert.h>
#include <stdatomic.h>
#include <string.h>

#include "core.h"
#ifdef COMPOSITE_IRQ_HOOKS
#include "composite/port.h"
#endif

/* Registry of gadgets, linked through usb_gadget.udc_priv. A spinlock: the
 * critical sections are a few pointer operations and never call out. */
static struct list_head udc_list = USB_LIST_HEAD_INIT(udc_list);
#ifdef COMPOSITE_IRQ_HOOKS
/* Bare metal: the port's critical section (composite/port.h), so that an
 * interrupt never spins on a lock its own core holds. Not nested. */
static unsigned long udc_lock_flags;

void composite__registry_lock(void)
{
	unsigned long flags = usb_port_irq_save();

	udc_lock_flags = flags;
}

void composite__registry_unlock(void)
{
	usb_port_irq_restore(udc_lock_flags);
}
#else
static atomic_flag udc_lock = ATOMIC_FLAG_INIT;

void composite__registry_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&udc_lock, memory_order_acquire))
		;
}

void composite__registry_unlock(void)
{
	atomic_flag_clear_explicit(&udc_lock, memory_order_release);
}
#endif

void usb_gadget_init(struct usb_gadget *gadget)
{
	memset(gadget, 0, sizeof(*gadget));
	INIT_LIST_HEAD(&gadget->ep_list);
	INIT_LIST_HEAD(&gadget->udc_priv);
	gadget->speed = USB_SPEED_UNKNOWN;
	gadget->max_speed = USB_SPEED_FULL;
	gadget->state = USB_STATE_NOTATTACHED;
}

void usb_ep_init(struct usb_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	INIT_LIST_HEAD(&ep->ep_list);
	atomic_init(&ep->halted, false);
	atomic_init(&ep->wedged, false);
}

static bool ep_ops_ok(const struct usb_ep *ep, bool is_ep0)
{
	const struct usb_ep_ops *o = ep->ops;

	if (!o || !o->alloc_request || !o->free_request || !o->queue ||
	    !o->dequeue || !o->set_halt)
		return false;
	/* ep0 is never enabled or disabled through its ops. */
	return is_ep0 || (o->enable && o->disable);
}

/* strcmp() == 0, written out: the registry's only string comparison, and
 * newlib's strcmp for ARMv7-M is 732 bytes of unrolled code that a
 * firmware with one UDC would link for it alone. */
static bool same_name(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* Caller holds the registry lock. */
static struct usb_gadget *find_locked(const char *name)
{
	struct list_head *pos;

	list_for_each(pos, &udc_list) {
		struct usb_gadget *g = usb_container_of(pos, struct usb_gadget, udc_priv);

		if (same_name(g->name, name))
			return g;
	}
	return NULL;
}

static bool registered_locked(const struct usb_gadget *gadget)
{
	const struct list_head *pos;

	list_for_each(pos, &udc_list)
		if (pos == &gadget->udc_priv)
			return true;
	return false;
}

int usb_udc_register(struct usb_gadget *gadget)
{
	struct list_head *pos;
	int ret = 0;

	if (!gadget || !gadget->name || !gadget->name[0] || !gadget->ops ||
	    !gadget->ops->start || !gadget->ops->stop || !gadget->ep0 ||
	    !ep_ops_ok(gadget->ep0, true))
		return -USB_EINVAL;
	list_for_each(pos, &gadget->ep_list) {
		struct usb_ep *ep = usb_container_of(pos, struct usb_ep, ep_list);

		if (ep == gadget->ep0 || !ep_ops_ok(ep, false) || !ep->name)
			return -USB_EINVAL;
	}

	composite__registry_lock();
	if (registered_locked(gadget) || find_locked(gadget->name)) {
		ret = -USB_EINVAL;
		goto out;
	}
	gadget->ep0->gadget = gadget;
	gadget->ep0->address = 0;
	gadget->ep0->enabled = true;	/* ep0 takes requests from the start */
	list_for_each(pos, &gadget->ep_list)
		usb_container_of(pos, struct usb_ep, ep_list)->gadget = gadget;
	gadget->driver_data = NULL;
	gadget->state = USB_STATE_NOTATTACHED;
	list_add_tail(&gadget->udc_priv, &udc_list);
out:
	composite__registry_unlock();
	return ret;
}

void usb_udc_unregister(struct usb_gadget *gadget)
{
	struct usb_composite_dev *cdev;

	if (!gadget)
		return;
	composite__registry_lock();
	if (!registered_locked(gadget)) {
		composite__registry_unlock();
		return;
	}
	cdev = gadget->driver_data;
	composite__registry_unlock();

	/* Unbinding calls back into the driver: not under the spinlock. */
	if (cdev && cdev->driver)
		usb_composite_unregister(cdev->driver);

	composite__registry_lock();
	list_del_init(&gadget->udc_priv);
	composite__registry_unlock();
}

struct usb_gadget *usb_udc_find(const char *name)
{
	struct usb_gadget *g;

	if (!name)
		return NULL;
	composite__registry_lock();
	g = find_locked(name);
	composite__registry_unlock();
	return g;
}

struct usb_gadget *composite__udc_claim(const char *name, struct usb_composite_dev *cdev)
{
	struct usb_gadget *found = NULL;
	struct list_head *pos;

	composite__registry_lock();
	if (name) {
		found = find_locked(name);
		if (found && found->driver_data)
			found = NULL;
	} else {
		list_for_each(pos, &udc_list) {
			struct usb_gadget *g = usb_container_of(pos, struct usb_gadget, udc_priv);

			if (!g->driver_data) {
				found = g;
				break;
			}
		}
	}
	if (found)
		found->driver_data = cdev;
	composite__registry_unlock();
	return found;
}

void composite__udc_release(struct usb_gadget *gadget)
{
	composite__registry_lock();
	gadget->driver_data = NULL;
	composite__registry_unlock();
}

bool usb_udc_is_bound(struct usb_gadget *gadget)
{
	bool bound;

	if (!gadget)
		return false;
	composite__registry_lock();
	bound = gadget->driver_data != NULL;
	composite__registry_unlock();
	return bound;
}

struct usb_composite_dev *get_gadget_data(struct usb_gadget *gadget)
{
	return gadget ? gadget->driver_data : NULL;
}

int usb_gadget_setup(struct usb_gadget *gadget, const struct usb_ctrlrequest *ctrl)
{
	struct usb_composite_dev *cdev;

	if (!gadget || !ctrl)
		return -USB_EINVAL;
	cdev = gadget->driver_data;
	if (!cdev || !cdev->started)
		return -USB_EOPNOTSUPP;	/* nothing bound: stall */
	return composite__setup(cdev, ctrl);
}

void usb_gadget_event(struct usb_gadget *gadget, enum usb_gadget_event event)
{
	struct usb_composite_dev *cdev;

	if (!gadget)
		return;
	cdev = gadget->driver_data;
	if (cdev && cdev->started) {
		composite__event(cdev, event);
		return;
	}
	/* No driver: keep the chapter 9 state only. */
	if (event == USB_GADGET_EVENT_RESET)
		gadget->state = USB_STATE_DEFAULT;
	else if (event == USB_GADGET_EVENT_DISCONNECT)
		gadget->state = USB_STATE_NOTATTACHED;
}

void usb_gadget_giveback_request(struct usb_ep *ep, struct usb_request *req)
{
	bool was_queued;

	assert(ep && req);
	was_queued = atomic_exchange(&req->queued, false);
	/* A backend bug, not a host action: a request is given back once. */
	assert(was_queued && "request given back twice or never queued");
	if (!was_queued)
		return;
	req->complete(ep, req);
}
