/*
 * inproc_host_posix.c - the host side of the in-process backend: the calls of
 * composite/inproc_host.h that reset the bus, run control transfers and
 * move data. The calling thread is the gadget's event context: it calls
 * usb_gadget_setup()/usb_gadget_event() and gives requests back, always
 * with the backend lock dropped (ih__enter()/ih__leave()).
 *
 * It touches the state in inproc_priv.h under its lock and drives the
 * transfer engine; it owns the usb_inproc_xfer objects it hands out.
 * POSIX (pthreads, CLOCK_MONOTONIC).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "udc/inproc/inproc_priv.h"

/* ---- waiting ------------------------------------------------------------ */

static void deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(ms / 1000u);
	ts->tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/*
 * Adaptive polling before sleeping, as a host controller would see a
 * request the moment it is queued: waking this thread from another CPU
 * costs more than the gadget's whole answer when it comes within
 * microseconds (bench_msf). Polling lasts up to LB_SPIN_NS while it keeps
 * paying off; each time it does not, the next one is an eighth shorter, so
 * a gadget that keeps the host waiting soon costs only LB_SPIN_MIN_NS.
 */
#define LB_SPIN_NS 500000L
#define LB_SPIN_MIN_NS 2000L
#define LB_YIELD_AFTER_NS 20000L

static long elapsed_ns(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

/* Poll h->changes with the lock dropped. Return: true if it moved. */
static bool spin_for_change(struct usb_inproc_host *h)
{
	unsigned seen = atomic_load_explicit(&h->changes, memory_order_relaxed);
	long budget = h->spin_ns < LB_SPIN_MIN_NS ? LB_SPIN_MIN_NS : h->spin_ns;
	struct timespec t0;
	bool moved = false;

	pthread_mutex_unlock(&h->lock);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 1; !moved; i++) {
		moved = atomic_load_explicit(&h->changes, memory_order_acquire) != seen;
		if (i % 64u == 0 && !moved) {
			long ns = elapsed_ns(&t0);

			if (ns > budget)
				break;
			/* The thread we wait for may share our CPU: let it run.
			 * Not at once: a yield costs more than a quick answer. */
			if (ns > LB_YIELD_AFTER_NS)
				sched_yield();
		}
	}
	ih__lock(h);
	h->spin_ns = moved ? LB_SPIN_NS : budget - budget / 8;
	/* A change between the last poll and the lock broadcast to nobody. */
	return moved || atomic_load_explicit(&h->changes, memory_order_relaxed) != seen;
}

/* Wait for a broadcast or the deadline. Return: false once it has passed. */
static bool wait_until(struct usb_inproc_host *h, const struct timespec *deadline)
{
	struct timespec slot;
	uint64_t due;

	if (udcx__pacer_next(&h->pacer, &due)) {
		/* A paced endpoint has its data and waits for its service
		 * interval: sleep until then (or a broadcast), no polling;
		 * the pacer clock is CLOCK_MONOTONIC, as the deadline's. */
		slot.tv_sec = (time_t)(due / 1000000000u);
		slot.tv_nsec = (long)(due % 1000000000u);
		if (slot.tv_sec < deadline->tv_sec ||
		    (slot.tv_sec == deadline->tv_sec && slot.tv_nsec < deadline->tv_nsec)) {
			(void)pthread_cond_timedwait(&h->cond, &h->lock, &slot);
			return true;	/* the caller runs the pacer and looks again */
		}
	}
	if (spin_for_change(h))
		return true;
	return pthread_cond_timedwait(&h->cond, &h->lock, deadline) != ETIMEDOUT;
}

/* ---- host calls: entry and exit ----------------------------------------- */

static void do_disconnect(struct usb_inproc_host *h);

/*
 * Start a host call: serialise with other host calls, then take the lock.
 * Return: 0 with both held, or -USB_EBUSY when called from a gadget
 * callback running inside a host call of this thread.
 */
static int host_begin(struct usb_inproc_host *h)
{
	ih__lock(h);
	if (h->host_busy && pthread_equal(h->host_owner, pthread_self())) {
		pthread_mutex_unlock(&h->lock);
		return -USB_EBUSY;
	}
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_lock(&h->host_mutex);
	ih__lock(h);
	h->host_busy = true;
	h->host_owner = pthread_self();
	if (h->unplug_pending)
		do_disconnect(h);
	ih__run_completions(h);
	return 0;
}

static void host_end(struct usb_inproc_host *h)
{
	ih__run_completions(h);
	h->host_busy = false;
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_unlock(&h->host_mutex);
}

/* ---- bus events ---------------------------------------------------------- */

static void send_event(struct usb_inproc_host *h, enum usb_gadget_event event)
{
	if (ih__enter(h)) {
		usb_gadget_event(&h->gadget, event);
		ih__leave(h);
	}
	ih__run_completions(h);
}

/* Unplug. Lock held. */
static void do_disconnect(struct usb_inproc_host *h)
{
	struct udcx_done done;

	h->unplug_pending = false;
	if (!h->connected)
		return;
	h->connected = false;
	udcx__done_init(&done);
	ih__flush_all(h, -USB_ESHUTDOWN, -USB_ESHUTDOWN, &done);
	ih__settle(h, &done);
	ih__run_completions(h);
	send_event(h, USB_GADGET_EVENT_DISCONNECT);
	h->gadget.speed = USB_SPEED_UNKNOWN;
}

static bool speed_ok(const struct usb_inproc_host *h, enum usb_device_speed speed)
{
	return speed >= USB_SPEED_LOW && speed <= h->max_speed && speed != USB_SPEED_WIRELESS;
}

int usb_inproc_host_connect(struct usb_inproc_host *h, enum usb_device_speed speed)
{
	struct udcx_done done;
	unsigned mp;
	int rc;

	if (!h)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	if (!speed_ok(h, speed)) {
		rc = -USB_EINVAL;
		goto out;
	}
	if (!h->started || !h->pullup) {
		rc = -USB_ENODEV;
		goto out;
	}
	if (h->connected) {
		/* A bus reset aborts whatever was in flight. */
		udcx__done_init(&done);
		ih__flush_all(h, -USB_ESHUTDOWN, -USB_ECONNRESET, &done);
		ih__settle(h, &done);
		ih__run_completions(h);
	}
	mp = speed >= USB_SPEED_SUPER ? 512u : speed == USB_SPEED_LOW ? 8u : h->ep0_mp;
	if (speed == USB_SPEED_HIGH)
		mp = 64u;	/* the only ep0 size high speed allows */
	usb_ep_set_maxpacket_limit(&h->ep0.ep, mp);
	udcx__ep_set_maxpacket(&h->ep0.x, mp);
	h->gadget.speed = speed;
	h->info.address = 0;
	h->connected = true;
	if (!h->started) {
		rc = -USB_ENODEV;
		goto out;
	}
	send_event(h, USB_GADGET_EVENT_RESET);
	rc = h->connected ? 0 : -USB_ENODEV;
out:
	host_end(h);
	return rc;
}

int usb_inproc_host_disconnect(struct usb_inproc_host *h)
{
	int rc;

	if (!h)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	do_disconnect(h);
	host_end(h);
	return 0;
}

static int suspend_resume(struct usb_inproc_host *h, enum usb_gadget_event event)
{
	int rc;

	if (!h)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	if (h->connected)
		send_event(h, event);
	else
		rc = -USB_ENODEV;
	host_end(h);
	return rc;
}

int usb_inproc_host_suspend(struct usb_inproc_host *h)
{
	return suspend_resume(h, USB_GADGET_EVENT_SUSPEND);
}

int usb_inproc_host_resume(struct usb_inproc_host *h)
{
	return suspend_resume(h, USB_GADGET_EVENT_RESUME);
}

int usb_inproc_host_poll(struct usb_inproc_host *h)
{
	unsigned long before;
	int rc;

	if (!h)
		return -USB_EINVAL;
	ih__lock(h);
	before = h->given_back;
	pthread_mutex_unlock(&h->lock);
	rc = host_begin(h);	/* an unplug and completions happen here */
	if (rc)
		return rc;
	ih__run_completions(h);
	rc = (int)(h->given_back - before);
	host_end(h);
	return rc;
}

/* ---- waiting for a host transfer --------------------------------------- */

/*
 * Wait (lock held) until @u has finished, giving back completions as they
 * come. Return: true if it finished, false on timeout (still pending).
 */
static bool wait_urb(struct usb_inproc_host *h, struct udcx_urb *u, unsigned timeout_ms)
{
	struct timespec deadline;
	bool in_time = true;

	deadline_in(&deadline, timeout_ms);
	for (;;) {
		if (h->unplug_pending)
			do_disconnect(h);
		ih__run_completions(h);
		if (!u->pending)
			return true;
		if (!in_time || timeout_ms == 0)
			return false;
		/* Completions may be pending again after the lock was dropped. */
		if ((h->started && !list_empty(&h->pending.reqs)) || h->unplug_pending)
			continue;
		in_time = wait_until(h, &deadline);
	}
}

static int urb_result(const struct udcx_urb *u)
{
	if (u->status != 0)
		return u->status;
	return u->actual > (size_t)INT32_MAX ? INT32_MAX : (int)u->actual;
}

/* ---- control transfers -------------------------------------------------- */

/* One control transfer. Lock and host_mutex held. */
static int do_control(struct usb_inproc_host *h, const struct usb_ctrlrequest *setup,
		      void *data, unsigned timeout_ms)
{
	uint16_t wlength = USB_LE16_TO_CPU(setup->wLength);
	struct udcx_done done;
	struct udcx_urb u, *next;
	int rc;

	if (wlength && !data)
		return -USB_EINVAL;
	if (!h->connected)
		return -USB_ENODEV;
	udcx__done_init(&done);
	udcx__urb_init(&u, data, wlength, 0);
	memcpy(&u.setup, setup, sizeof(u.setup));
	rc = udcx__ctrl_submit(&h->ep0.x, &u, &done);
	if (rc)
		return rc;
	while ((next = udcx__ctrl_next_setup(&h->ep0.x, &done)) != NULL) {
		/* Leftovers of an abandoned transfer go back before the SETUP. */
		ih__settle(h, &done);
		ih__run_completions(h);
		if (!ih__enter(h)) {
			(void)udcx__urb_unlink(&h->ep0.x, next);
			return -USB_ENODEV;	/* the driver went away */
		}
		rc = usb_gadget_setup(&h->gadget, &next->setup);
		ih__leave(h);
		udcx__ctrl_setup_done(&h->ep0.x, next, rc, &done);
		ih__settle(h, &done);
	}
	if (u.pending && !wait_urb(h, &u, timeout_ms)) {
		(void)udcx__urb_unlink(&h->ep0.x, &u);
		return -USB_ETIMEDOUT;
	}
	return urb_result(&u);
}

int usb_inproc_host_control(struct usb_inproc_host *h,
			      const struct usb_ctrlrequest *setup, void *data,
			      unsigned timeout_ms)
{
	int rc;

	if (!h || !setup)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	rc = do_control(h, setup, data, timeout_ms);
	host_end(h);
	return rc;
}

static int control(struct usb_inproc_host *h, uint8_t type, uint8_t request,
		   uint16_t value, uint16_t index, uint16_t length, void *data,
		   unsigned timeout_ms)
{
	struct usb_ctrlrequest s;

	s.bRequestType = type;
	s.bRequest = request;
	s.wValue = USB_CPU_TO_LE16(value);
	s.wIndex = USB_CPU_TO_LE16(index);
	s.wLength = USB_CPU_TO_LE16(length);
	return do_control(h, &s, data, timeout_ms);
}

/* A standard no-data request, as a host call of its own. */
static int standard_no_data(struct usb_inproc_host *h, uint8_t recip, uint8_t request,
			    uint16_t value, uint16_t index, unsigned timeout_ms)
{
	int rc;

	if (!h)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	rc = control(h, USB_DIR_OUT | USB_TYPE_STANDARD | recip, request, value, index,
		     0, NULL, timeout_ms);
	host_end(h);
	return rc;
}

int usb_inproc_host_clear_halt(struct usb_inproc_host *h, uint8_t ep, unsigned timeout_ms)
{
	return standard_no_data(h, USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
				USB_ENDPOINT_HALT, ep, timeout_ms);
}

int usb_inproc_host_set_interface(struct usb_inproc_host *h, uint8_t intf,
				    uint8_t alt, unsigned timeout_ms)
{
	return standard_no_data(h, USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE, alt, intf,
				timeout_ms);
}

/* ---- enumeration -------------------------------------------------------- */

static int get_descriptor(struct usb_inproc_host *h, uint8_t type, uint8_t index,
			  void *buf, uint16_t len, unsigned timeout_ms)
{
	return control(h, USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		       USB_REQ_GET_DESCRIPTOR, (uint16_t)(type << 8 | index), 0, len, buf,
		       timeout_ms);
}

/* After connect: everything but the reset. Lock and host_mutex held. */
static int enumerate(struct usb_inproc_host *h, uint8_t config_value,
		     struct usb_device_descriptor *device, void *config,
		     size_t config_size, unsigned timeout_ms)
{
	uint8_t dev[64], head[USB_DT_CONFIG_SIZE];
	uint8_t *full = NULL;
	unsigned total = 0, nconf;
	int rc, found = -1;

	rc = get_descriptor(h, USB_DT_DEVICE, 0, dev, sizeof(dev), timeout_ms);
	if (rc < 0)
		return rc;
	if (rc < 8 || dev[1] != USB_DT_DEVICE)
		return -USB_EPROTO;
	rc = control(h, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		     USB_REQ_SET_ADDRESS, 1, 0, 0, NULL, timeout_ms);
	if (rc < 0)
		return rc;
	rc = get_descriptor(h, USB_DT_DEVICE, 0, dev, USB_DT_DEVICE_SIZE, timeout_ms);
	if (rc < 0)
		return rc;
	if (rc != USB_DT_DEVICE_SIZE || dev[0] != USB_DT_DEVICE_SIZE || dev[1] != USB_DT_DEVICE)
		return -USB_EPROTO;
	if (device)
		memcpy(device, dev, USB_DT_DEVICE_SIZE);
	nconf = dev[17];
	for (unsigned i = 0; i < nconf && found < 0; i++) {
		rc = get_descriptor(h, USB_DT_CONFIG, (uint8_t)i, head, sizeof(head), timeout_ms);
		if (rc < 0)
			return rc;
		if (rc != USB_DT_CONFIG_SIZE || head[1] != USB_DT_CONFIG ||
		    usb_get_le16(head + 2) < USB_DT_CONFIG_SIZE)
			return -USB_EPROTO;
		if (head[5] == config_value || (config_value == 0 && i == 0)) {
			found = (int)i;
			total = usb_get_le16(head + 2);
		}
	}
	if (found < 0)
		return -USB_ENOENT;
	full = malloc(total);
	if (!full)
		return -USB_ENOMEM;
	rc = get_descriptor(h, USB_DT_CONFIG, (uint8_t)found, full, (uint16_t)total, timeout_ms);
	if (rc >= 0 && (unsigned)rc != total)
		rc = -USB_EPROTO;
	if (rc >= 0 && config && config_size)
		memcpy(config, full, config_size < total ? config_size : total);
	free(full);
	if (rc < 0)
		return rc;
	if (config_value) {
		rc = control(h, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
			     USB_REQ_SET_CONFIGURATION, config_value, 0, 0, NULL, timeout_ms);
		if (rc < 0)
			return rc;
	}
	return (int)total;
}

int usb_inproc_host_enumerate(struct usb_inproc_host *h, enum usb_device_speed speed,
				uint8_t config_value, struct usb_device_descriptor *device,
				void *config, size_t config_size, unsigned timeout_ms)
{
	int rc;

	if (!h || (config_size && !config))
		return -USB_EINVAL;
	rc = usb_inproc_host_connect(h, speed);
	if (rc)
		return rc;
	rc = host_begin(h);
	if (rc)
		return rc;
	rc = enumerate(h, config_value, device, config, config_size, timeout_ms);
	host_end(h);
	return rc;
}

/* ---- data transfers ----------------------------------------------------- */

/* The endpoint the host means by @address. Lock held. */
static struct ih_ep *find_ep(struct usb_inproc_host *h, uint8_t address)
{
	for (size_t i = 0; i < h->neps; i++)
		if (udcx__ep_is_enabled(&h->eps[i].x) && h->eps[i].host_address == address)
			return &h->eps[i];
	for (size_t i = 0; i < h->neps; i++)
		if (h->eps[i].hw_address == address)
			return &h->eps[i];
	return NULL;
}

/* Lock and host_mutex held. */
static int do_submit(struct usb_inproc_host *h, uint8_t ep, void *buf, size_t len,
		     unsigned flags, struct usb_inproc_xfer **out)
{
	struct usb_inproc_xfer *x;
	struct udcx_done done;
	struct ih_ep *lep;
	int rc;

	if ((len && !buf) || !(ep & USB_ENDPOINT_NUMBER_MASK))
		return -USB_EINVAL;
	lep = find_ep(h, ep);
	if (!lep)
		return -USB_EINVAL;
	if (!h->connected)
		return -USB_ENODEV;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -USB_ENOMEM;
	x->lep = lep;
	udcx__done_init(&done);
	udcx__urb_init(&x->u, buf, len,
		       flags & (UDCX_URB_SHORT_NOT_OK | UDCX_URB_ZERO_PACKET));
	rc = udcx__urb_submit_only(&lep->x, &x->u, &done);
	if (rc) {
		free(x);
		return rc;
	}
	/* The first chunk now; the rest in ih__run_completions(), which
	 * lets the device side at the lock between chunks. */
	if (x->u.pending && udcx__ep_run_some(&lep->x, &done, IH_RUN_BUDGET))
		ih__defer(h, lep);
	ih__settle(h, &done);
	*out = x;
	return 0;
}

int usb_inproc_host_submit(struct usb_inproc_host *h, uint8_t ep, void *buf,
			     size_t len, unsigned flags, struct usb_inproc_xfer **out)
{
	int rc;

	if (!h || !out)
		return -USB_EINVAL;
	*out = NULL;
	rc = host_begin(h);
	if (rc)
		return rc;
	rc = do_submit(h, ep, buf, len, flags, out);
	host_end(h);
	return rc;
}

int usb_inproc_host_wait(struct usb_inproc_host *h, struct usb_inproc_xfer *x,
			   unsigned timeout_ms)
{
	int rc;

	if (!h || !x)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	rc = wait_urb(h, &x->u, timeout_ms) ? urb_result(&x->u) : -USB_ETIMEDOUT;
	host_end(h);
	return rc;
}

int usb_inproc_host_cancel(struct usb_inproc_host *h, struct usb_inproc_xfer *x)
{
	int rc;

	if (!h || !x)
		return -USB_EINVAL;
	ih__lock(h);
	rc = udcx__urb_unlink(&x->lep->x, &x->u);
	pthread_mutex_unlock(&h->lock);
	return rc;
}

size_t usb_inproc_xfer_actual(const struct usb_inproc_xfer *x)
{
	struct usb_inproc_host *h;
	size_t n;

	if (!x)
		return 0;
	h = x->lep->h;
	ih__lock(h);
	n = x->u.actual;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void usb_inproc_host_free(struct usb_inproc_host *h, struct usb_inproc_xfer *x)
{
	if (!h || !x)
		return;
	(void)usb_inproc_host_cancel(h, x);
	free(x);
}

int usb_inproc_host_transfer(struct usb_inproc_host *h, uint8_t ep, void *buf,
			       size_t len, unsigned flags, unsigned timeout_ms)
{
	struct usb_inproc_xfer *x = NULL;
	int rc;

	if (!h)
		return -USB_EINVAL;
	rc = host_begin(h);
	if (rc)
		return rc;
	rc = do_submit(h, ep, buf, len, flags, &x);
	if (rc == 0) {
		if (wait_urb(h, &x->u, timeout_ms)) {
			rc = urb_result(&x->u);
		} else {
			(void)udcx__urb_unlink(&x->lep->x, &x->u);
			rc = -USB_ETIMEDOUT;
		}
		free(x);
	}
	host_end(h);
	return rc;
}
