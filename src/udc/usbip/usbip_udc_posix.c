/*
 * usbip_udc_posix.c - one exported device as a UDC: the gadget and endpoint ops
 * the core calls (udc.h), and the event side the connection thread drives
 * (attach, processing what the transfer engine finished, detach).
 *
 * Owns struct usbip__dev and its endpoints. Touches the transfer engine
 * (src/udc/common/xfer.h) under dev->lock, and the core only through the
 * udc.h entry points, always without dev->lock. ops->queue never completes
 * a request: what the engine finishes waits in dev->done until the
 * connection thread (the event context) gives it back.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "usbip_priv.h"

static struct usbip__ep *to_ep(struct usb_ep *ep)
{
	return usb_container_of(ep, struct usbip__ep, ep);
}

static struct usbip__dev *to_dev(struct usb_gadget *g)
{
	return usb_container_of(g, struct usbip__dev, gadget);
}

/* Lock held. Wake the connection so it hands out what the engine finished,
 * or sleeps no longer than a paced endpoint's slot now held. */
static void kick_locked(struct usbip__dev *dev)
{
	uint64_t due;

	if (!dev->conn)
		return;
	if (!udcx__done_empty(&dev->done) ||
	    (atomic_load_explicit(&dev->n_paced, memory_order_relaxed) &&
	     udcx__pacer_next(&dev->pacer, &due) && due < dev->pace_armed)) {
		dev->pace_armed = 0;	/* woken: it looks again */
		usbip__conn_wake(dev->conn);
	}
}

/* ---- gadget ops ---------------------------------------------------------- */

static int g_start(struct usb_gadget *g)
{
	struct usbip__dev *dev = to_dev(g);

	pthread_mutex_lock(&dev->lock);
	dev->started = true;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/* Unplug any host and wait until its connection thread is out of the
 * core: udc.h wants no entry point running once stop returns. */
static void g_stop(struct usb_gadget *g)
{
	struct usbip__dev *dev = to_dev(g);

	pthread_mutex_lock(&dev->lock);
	dev->started = false;
	if (dev->conn) {
		dev->stopping = true;
		usbip__conn_kill(dev->conn);
		while (dev->conn)
			pthread_cond_wait(&dev->cond, &dev->lock);
		dev->stopping = false;
	}
	pthread_mutex_unlock(&dev->lock);
}

static int g_pullup(struct usb_gadget *g, int is_on)
{
	(void)g;
	(void)is_on;
	return 0;	/* attachability is the server's busid list */
}

static int g_set_selfpowered(struct usb_gadget *g, int is_selfpowered)
{
	(void)g;
	(void)is_selfpowered;
	return 0;
}

static int g_vbus_draw(struct usb_gadget *g, unsigned mA)
{
	(void)g;
	(void)mA;
	return 0;
}

static const struct usb_gadget_ops gadget_ops = {
	.start = g_start,
	.stop = g_stop,
	.pullup = g_pullup,
	.set_selfpowered = g_set_selfpowered,
	.vbus_draw = g_vbus_draw,
	/* no wakeup: vhci cannot carry remote wakeup */
};

/* ---- endpoint ops -------------------------------------------------------- */

static int ep_enable(struct usb_ep *uep, const struct usb_endpoint_descriptor *desc)
{
	struct usbip__ep *ep = to_ep(uep);
	struct usbip__dev *dev = ep->dev;
	unsigned mp = USB_LE16_TO_CPU(desc->wMaxPacketSize) & 0x7ffu;
	bool in = (desc->bEndpointAddress & USB_DIR_IN) != 0;
	int rc;

	if (ep->num == 0 || mp == 0 || in != ep->dir_in ||
	    (desc->bEndpointAddress & 0x0f) != ep->num ||
	    (desc->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK) == USB_ENDPOINT_XFER_CONTROL)
		return -USB_EINVAL;
	pthread_mutex_lock(&dev->lock);
	rc = udcx__ep_enable(&ep->x, in, mp);
	if (rc == 0) {
		ep->type = desc->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK;
		/* vhci passes interrupt URBs at once: keep the interval the
		 * host controller would poll at, for this speed. */
		if (udcx__ep_pace_desc(&ep->x, &dev->pacer, desc, uep->comp_desc,
				       dev->gadget.speed) && !ep->paced) {
			ep->paced = true;
			atomic_fetch_add(&dev->n_paced, 1u);
		} else if (!udcx__ep_is_paced(&ep->x) && ep->paced) {
			ep->paced = false;
			atomic_fetch_sub(&dev->n_paced, 1u);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

/* Give back, in the caller's thread, what the engine finished for @ep:
 * disable and dequeue must complete before they return (udc.h). */
static int ep_disable(struct usb_ep *uep)
{
	struct usbip__ep *ep = to_ep(uep);
	struct usbip__dev *dev = ep->dev;
	struct udcx_done done;
	USB_LIST_HEAD(reqs);

	udcx__done_init(&done);
	pthread_mutex_lock(&dev->lock);
	udcx__done_take_ep(&dev->done, &ep->x, &reqs);
	udcx__ep_disable(&ep->x, &done);	/* unpaced too */
	if (ep->paced) {
		ep->paced = false;
		atomic_fetch_sub(&dev->n_paced, 1u);
	}
	/* Host transfers stay pending (the host unlinks them); only the
	 * requests are ours to finish here. */
	udcx__done_take_ep(&done, &ep->x, &reqs);
	udcx__done_splice(&dev->done, &done);
	kick_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	udcx__giveback_list(&reqs);
	return 0;
}

static int ep_queue(struct usb_ep *uep, struct usb_request *req)
{
	struct usbip__ep *ep = to_ep(uep);
	struct usbip__dev *dev = ep->dev;
	int rc;

	pthread_mutex_lock(&dev->lock);
	if (!dev->conn) {
		pthread_mutex_unlock(&dev->lock);
		return -USB_ESHUTDOWN;
	}
	rc = udcx__ep_queue(&ep->x, udcx__req_of(req), &dev->done);
	kick_locked(dev);
	if (dev->rx_starved == ep) {
		dev->rx_starved = NULL;
		usbip__conn_wake(dev->conn);	/* its payload may come in now */
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

static int ep_dequeue(struct usb_ep *uep, struct usb_request *req)
{
	struct usbip__ep *ep = to_ep(uep);
	struct usbip__dev *dev = ep->dev;
	struct udcx_req *r = udcx__req_of(req);
	struct udcx_done done;
	USB_LIST_HEAD(reqs);
	int rc = 0;

	udcx__done_init(&done);
	pthread_mutex_lock(&dev->lock);
	/* Finished but not given back yet: it completes now, with its status. */
	if (!udcx__done_take_req(&dev->done, r, &reqs)) {
		rc = udcx__ep_dequeue(&ep->x, r, &done);
		if (rc == 0)
			udcx__done_take_req(&done, r, &reqs);
		udcx__done_splice(&dev->done, &done);
		kick_locked(dev);
	}
	pthread_mutex_unlock(&dev->lock);
	udcx__giveback_list(&reqs);
	return rc;
}

static int ep_set_halt(struct usb_ep *uep, enum usb_ep_halt_value value)
{
	struct usbip__ep *ep = to_ep(uep);
	struct usbip__dev *dev = ep->dev;
	int rc;

	pthread_mutex_lock(&dev->lock);
	rc = udcx__ep_set_halt(&ep->x, value, &dev->done);
	kick_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

/* ep0's status hook (xfer.h): the OUT data stage's completion has run
 * (no lock held); the status stage goes now, unless it halted ep0. */
static void ep0_status(struct udcx_ep *x)
{
	struct usbip__dev *dev = usb_container_of(x, struct usbip__ep, x)->dev;

	pthread_mutex_lock(&dev->lock);
	udcx__ctrl_status(x, &dev->done);
	kick_locked(dev);
	pthread_mutex_unlock(&dev->lock);
}

static const struct usb_ep_ops ep_ops = {
	.enable = ep_enable,
	.disable = ep_disable,
	.alloc_request = udcx__alloc_request,
	.free_request = udcx__free_request,
	.queue = ep_queue,
	.dequeue = ep_dequeue,
	.set_halt = ep_set_halt,
};

/* ---- creation ------------------------------------------------------------ */

/* ep0's packet size at @speed: 512 at SuperSpeed, else 64. */
static unsigned ep0_maxpacket(enum usb_device_speed speed)
{
	return speed >= USB_SPEED_SUPER ? 512u : 64u;
}

static void ep_setup(struct usbip__dev *dev, struct usbip__ep *ep, unsigned num, bool in)
{
	/* ep0 as large as the server's speed allows; usbip__dev_attach()
	 * sets the size of the speed it enumerates at. */
	unsigned mp0 = ep0_maxpacket(dev->server->cfg.speed);

	usb_ep_init(&ep->ep);
	ep->dev = dev;
	ep->num = num;
	ep->dir_in = in;
	if (num == 0)
		snprintf(ep->name, sizeof(ep->name), "ep0");
	else
		snprintf(ep->name, sizeof(ep->name), "ep%u%s", num & 0xfu, in ? "in" : "out");
	ep->ep.name = ep->name;
	ep->ep.ops = &ep_ops;
	ep->ep.caps.type_control = num == 0;
	ep->ep.caps.type_bulk = num != 0;
	ep->ep.caps.type_int = num != 0;
	ep->ep.caps.type_iso = num != 0;
	ep->ep.caps.dir_in = num == 0 || in;
	ep->ep.caps.dir_out = num == 0 || !in;
	usb_ep_set_maxpacket_limit(&ep->ep, num == 0 ? mp0 : 1024);
	udcx__ep_init(&ep->x, &ep->ep, num == 0, num == 0 ? mp0 : 0);
	if (num == 0)
		udcx__ctrl_set_status_hook(&ep->x, ep0_status);
}

uint32_t usbip__dev_busnum(const struct usbip__dev *dev)
{
	return dev->server->cfg.busnum + dev->index / USBIP_DEVS_PER_BUS;
}

uint32_t usbip__dev_devnum(const struct usbip__dev *dev)
{
	return dev->index % USBIP_DEVS_PER_BUS + 1;
}

uint32_t usbip__dev_devid(const struct usbip__dev *dev)
{
	return usbip__dev_busnum(dev) << 16 | usbip__dev_devnum(dev);
}

enum usb_device_speed usbip__dev_speed(struct usbip__dev *dev)
{
	/* gadget.max_speed is the server's speed; the core caps it by the
	 * driver's (a high-speed-only driver on a SuperSpeed server enumerates
	 * at high speed, with its 64-byte ep0). */
	return usb_gadget_max_speed(&dev->gadget);
}

int usbip__dev_create(struct usbip_server *srv, unsigned index, struct usbip__dev **out)
{
	struct usbip__dev *dev = calloc(1, sizeof(*dev));
	int rc;

	if (!dev)
		return -USB_ENOMEM;
	dev->server = srv;
	dev->index = index;
	snprintf(dev->busid, sizeof(dev->busid), "%u-%u", srv->cfg.busnum, index + 1);
	if (pthread_mutex_init(&dev->lock, NULL) != 0) {
		rc = -USB_ENOMEM;
		goto fail_free;
	}
	if (pthread_mutex_init(&dev->cap_lock, NULL) != 0) {
		rc = -USB_ENOMEM;
		goto fail_mutex;
	}
	atomic_init(&dev->capturing, false);
	{
		/* dev->cond is waited on with deadlines (usbip__dev_claim). */
		pthread_condattr_t ca;
		bool ok = pthread_condattr_init(&ca) == 0;

		ok = ok && pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
		     pthread_cond_init(&dev->cond, &ca) == 0;
		pthread_condattr_destroy(&ca);
		if (!ok) {
			rc = -USB_ENOMEM;
			goto fail_cap_mutex;
		}
	}
	udcx__done_init(&dev->done);
	udcx__pacer_init(&dev->pacer, &udcx__clock_monotonic);
	dev->pace_armed = UINT64_MAX;
	atomic_init(&dev->n_paced, 0u);
	usb_gadget_init(&dev->gadget);
	dev->gadget.ops = &gadget_ops;
	dev->gadget.name = dev->busid;
	dev->gadget.max_speed = srv->cfg.speed;
	dev->gadget.speed = USB_SPEED_UNKNOWN;
	ep_setup(dev, &dev->ep0, 0, false);
	dev->gadget.ep0 = &dev->ep0.ep;
	/* IN and OUT of each number interleaved, so autoconfig of a bulk
	 * pair takes ep1in + ep1out as on most controllers. */
	for (unsigned n = 1; n <= USBIP_MAX_ENDPOINT; n++) {
		for (unsigned in = 0; in < 2; in++) {
			struct usbip__ep *ep = &dev->eps[in ^ 1][n - 1];

			ep_setup(dev, ep, n, (in ^ 1) != 0);
			list_add_tail(&ep->ep.ep_list, &dev->gadget.ep_list);
		}
	}
	rc = usb_udc_register(&dev->gadget);
	if (rc < 0) {
		rc = rc == -USB_EINVAL && usb_udc_find(dev->busid) ? -USB_EEXIST : rc;
		goto fail_cond;
	}
	dev->registered = true;
	*out = dev;
	return 0;

fail_cond:
	pthread_cond_destroy(&dev->cond);
fail_cap_mutex:
	pthread_mutex_destroy(&dev->cap_lock);
fail_mutex:
	pthread_mutex_destroy(&dev->lock);
fail_free:
	free(dev);
	return rc;
}

void usbip__dev_destroy(struct usbip__dev *dev)
{
	if (!dev)
		return;
	if (dev->registered)
		usb_udc_unregister(&dev->gadget);	/* unbinds: ops->stop */
	usbip__cap_fini(dev);
	pthread_mutex_destroy(&dev->cap_lock);
	pthread_cond_destroy(&dev->cond);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

/*
 * A host that detaches and attaches again at once can ask for the device
 * before the previous connection has let it go: its thread has to see the
 * EOF, then unplug the gadget (usbip__dev_detach(): pending requests
 * flushed, the functions disabled). The import waits for that instead of
 * answering "device busy": CLAIM_GRACE_MS for the old connection to begin
 * its teardown, CLAIM_TEARDOWN_MS (from the request) for it to finish.
 * A device that stays in use is refused after CLAIM_GRACE_MS.
 */
#define CLAIM_GRACE_MS 100
#define CLAIM_TEARDOWN_MS 5000

static void add_ms(struct timespec *t, const struct timespec *from, unsigned ms)
{
	t->tv_sec = from->tv_sec + (time_t)(ms / 1000u);
	t->tv_nsec = from->tv_nsec + (long)(ms % 1000u) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

int usbip__dev_claim(struct usbip__dev *dev, struct usbip__conn *conn)
{
	struct timespec start, until, now;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	pthread_mutex_lock(&dev->lock);
	for (;;) {
		if (!dev->started) {
			rc = -USB_ENODEV;
			break;
		}
		if (!dev->conn) {
			dev->conn = conn;
			break;
		}
		/* The limit grows once the old connection begins its unplug. */
		add_ms(&until, &start, dev->unplugging ? CLAIM_TEARDOWN_MS : CLAIM_GRACE_MS);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > until.tv_sec ||
		    (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec)) {
			rc = -USB_EBUSY;
			break;
		}
		pthread_cond_timedwait(&dev->cond, &dev->lock, &until);
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

void usbip__dev_release(struct usbip__dev *dev)
{
	pthread_mutex_lock(&dev->lock);
	dev->conn = NULL;
	dev->unplugging = false;
	pthread_cond_broadcast(&dev->cond);
	pthread_mutex_unlock(&dev->lock);
}

struct usbip__ep *usbip__dev_ep(struct usbip__dev *dev, unsigned num, bool dir_in)
{
	if (num == 0)
		return &dev->ep0;
	if (num > USBIP_MAX_ENDPOINT)
		return NULL;
	return &dev->eps[dir_in ? 1 : 0][num - 1];
}

uint8_t usbip__dev_ep_type(struct usbip__dev *dev, unsigned num, bool dir_in)
{
	struct usbip__ep *ep = usbip__dev_ep(dev, num, dir_in);
	uint8_t type;

	if (num == 0)
		return USB_ENDPOINT_XFER_CONTROL;
	if (!ep)
		return USBIP_EP_DISABLED;
	pthread_mutex_lock(&dev->lock);
	type = udcx__ep_is_enabled(&ep->x) ? ep->type : USBIP_EP_DISABLED;
	pthread_mutex_unlock(&dev->lock);
	return type;
}

/* ---- the event side (connection thread) -------------------------------- */

long long usbip__dev_pace(struct usbip__dev *dev)
{
	long long wait = -1;
	uint64_t due, now;

	if (!atomic_load_explicit(&dev->n_paced, memory_order_relaxed))
		return -1;
	pthread_mutex_lock(&dev->lock);
	if (udcx__pacer_run(&dev->pacer, &dev->done) > 0 && !udcx__done_empty(&dev->done))
		wait = 0;	/* answer what the slots finished first */
	if (udcx__pacer_next(&dev->pacer, &due)) {
		now = udcx__clock_monotonic.now_ns(NULL);
		if (wait < 0)
			wait = due > now ? (long long)(due - now) : 0;
		dev->pace_armed = due;
	} else {
		dev->pace_armed = UINT64_MAX;
	}
	pthread_mutex_unlock(&dev->lock);
	return wait;
}

/* Move finished host URBs onto @out; local transfers (no context) are
 * just unlinked: their owner looks at them on the stack. */
static void collect_urbs(struct list_head *urbs, struct list_head *out)
{
	while (!list_empty(urbs)) {
		struct udcx_urb *u = list_first_entry(urbs, struct udcx_urb, node);

		if (u->context)
			list_move_tail(&u->node, out);
		else
			list_del_init(&u->node);
	}
}

/* Tell the program when the host (un)configures the device. */
static void report_state(struct usbip__dev *dev)
{
	unsigned config = usb_gadget_config_value(&dev->gadget);
	char msg[64];

	if (config == dev->last_config)
		return;
	pthread_mutex_lock(&dev->lock);	/* read by DEVLIST threads */
	dev->last_config = config;
	pthread_mutex_unlock(&dev->lock);
	if (config) {
		snprintf(msg, sizeof(msg), "configured (configuration %u)", config);
		usbip__emit(dev->server, USBIP_EVENT_CONFIGURED, dev, NULL, config, msg);
	} else {
		usbip__emit(dev->server, USBIP_EVENT_UNCONFIGURED, dev, NULL, 0, "unconfigured");
	}
}

void usbip__dev_process(struct usbip__dev *dev, struct list_head *done_urbs)
{
	struct usbip__ep *ep0 = &dev->ep0;

	for (;;) {
		struct udcx_done done;
		struct udcx_urb *setup;
		int rc;

		udcx__done_init(&done);
		pthread_mutex_lock(&dev->lock);
		udcx__done_splice(&done, &dev->done);
		setup = udcx__ctrl_next_setup(&ep0->x, &done);
		pthread_mutex_unlock(&dev->lock);
		/* Requests first: an OUT data stage completes before the host
		 * sees its status stage. */
		udcx__done_giveback(&done);
		collect_urbs(&done.urbs, done_urbs);
		if (!setup)
			break;
		rc = usb_gadget_setup(&dev->gadget, &setup->setup);
		pthread_mutex_lock(&dev->lock);
		udcx__ctrl_setup_done(&ep0->x, setup, rc, &dev->done);
		pthread_mutex_unlock(&dev->lock);
	}
	report_state(dev);
}

int usbip__dev_attach(struct usbip__dev *dev, unsigned devnum)
{
	struct usbip__ep *ep0 = &dev->ep0;
	struct udcx_urb local;
	struct udcx_done done;
	struct udcx_urb *setup;
	int rc;

	pthread_mutex_lock(&dev->lock);
	dev->last_config = 0;
	pthread_mutex_unlock(&dev->lock);
	dev->gadget.speed = usbip__dev_speed(dev);
	pthread_mutex_lock(&dev->lock);
	udcx__ep_set_maxpacket(&ep0->x, ep0_maxpacket(dev->gadget.speed));
	pthread_mutex_unlock(&dev->lock);
	usb_gadget_event(&dev->gadget, USB_GADGET_EVENT_RESET);

	/* vhci completes SET_ADDRESS on the host: play it to the core. */
	udcx__urb_init(&local, NULL, 0, 0);
	local.context = NULL;
	local.setup.bRequestType = USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE;
	local.setup.bRequest = USB_REQ_SET_ADDRESS;
	local.setup.wValue = USB_CPU_TO_LE16((uint16_t)devnum);
	local.setup.wIndex = 0;
	local.setup.wLength = 0;
	udcx__done_init(&done);
	pthread_mutex_lock(&dev->lock);
	rc = udcx__ctrl_submit(&ep0->x, &local, &done);
	setup = rc == 0 ? udcx__ctrl_next_setup(&ep0->x, &done) : NULL;
	pthread_mutex_unlock(&dev->lock);
	udcx__done_giveback(&done);
	if (setup != &local) {
		rc = -USB_EPROTO;
		goto out;
	}
	rc = usb_gadget_setup(&dev->gadget, &local.setup);
	pthread_mutex_lock(&dev->lock);
	udcx__ctrl_setup_done(&ep0->x, &local, rc, &dev->done);
	if (udcx__urb_unlink(&ep0->x, &local) == 0)
		rc = -USB_EPROTO;	/* the core queued nothing for it */
	else if (rc >= 0)
		rc = local.status;
	pthread_mutex_unlock(&dev->lock);
out:
	/* Only what SET_ADDRESS finished is there: give it back. */
	udcx__done_init(&done);
	pthread_mutex_lock(&dev->lock);
	udcx__done_splice(&done, &dev->done);
	pthread_mutex_unlock(&dev->lock);
	udcx__done_giveback(&done);
	{
		USB_LIST_HEAD(stray);	/* stays empty: no host URB exists yet */
		collect_urbs(&done.urbs, &stray);
	}
	return rc < 0 ? rc : 0;
}

void usbip__dev_detach(struct usbip__dev *dev, struct list_head *done_urbs)
{
	struct udcx_done done;
	bool stopping;

	udcx__done_init(&done);
	pthread_mutex_lock(&dev->lock);
	dev->unplugging = true;	/* an import may wait for the release */
	pthread_cond_broadcast(&dev->cond);
	udcx__ep_flush_urbs(&dev->ep0.x, -USB_ESHUTDOWN, &dev->done);
	for (unsigned in = 0; in < 2; in++)
		for (unsigned n = 0; n < USBIP_MAX_ENDPOINT; n++)
			udcx__ep_flush_urbs(&dev->eps[in][n].x, -USB_ESHUTDOWN, &dev->done);
	udcx__done_splice(&done, &dev->done);
	stopping = dev->stopping;
	pthread_mutex_unlock(&dev->lock);
	udcx__done_giveback(&done);
	collect_urbs(&done.urbs, done_urbs);

	/* While ops->stop waits, the core is unbinding in another thread:
	 * it disables the functions itself. */
	if (!stopping)
		usb_gadget_event(&dev->gadget, USB_GADGET_EVENT_DISCONNECT);

	pthread_mutex_lock(&dev->lock);
	if (!stopping)
		udcx__ep_flush_reqs(&dev->ep0.x, -USB_ESHUTDOWN, &dev->done);
	udcx__done_splice(&done, &dev->done);
	pthread_mutex_unlock(&dev->lock);
	udcx__done_giveback(&done);
	collect_urbs(&done.urbs, done_urbs);
	dev->gadget.speed = USB_SPEED_UNKNOWN;
	pthread_mutex_lock(&dev->lock);
	dev->last_config = 0;
	pthread_mutex_unlock(&dev->lock);
}
