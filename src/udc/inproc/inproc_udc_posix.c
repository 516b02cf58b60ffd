/*
 * inproc_udc_posix.c - the controller side of the in-process backend: creating
 * and registering the simulated UDC, its gadget and endpoint ops, and the
 * event-context plumbing the host side uses (inproc_priv.h).
 *
 * It owns the usb_inproc_host structure, its endpoints and requests; it
 * moves data only through the transfer engine (udc/common/xfer.h) and
 * calls the core only through usb_udc_register()/unregister() and, in
 * disable/dequeue, usb_gadget_giveback_request(). POSIX (pthreads).
 */
#define _POSIX_C_SOURCE 200809L

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "udc/inproc/inproc_priv.h"

static struct usb_inproc_host *host_of_gadget(struct usb_gadget *g)
{
	return usb_container_of(g, struct usb_inproc_host, gadget);
}

static struct ih_ep *lep_of(struct usb_ep *ep)
{
	return usb_container_of(ep, struct ih_ep, ep);
}

/* ---- event-context plumbing ------------------------------------------- */

/* Tries of the lock before sleeping on it: short next to the two context
 * switches that sleeping on it costs. */
#define LB_LOCK_TRIES 1024u

void ih__lock(struct usb_inproc_host *h)
{
	if (pthread_mutex_trylock(&h->lock) == 0)
		return;
	atomic_fetch_add_explicit(&h->lock_waiters, 1u, memory_order_relaxed);
	for (unsigned i = 0; h->multi_cpu && i < LB_LOCK_TRIES; i++) {
		if (pthread_mutex_trylock(&h->lock) == 0) {
			atomic_fetch_sub_explicit(&h->lock_waiters, 1u, memory_order_relaxed);
			return;
		}
	}
	pthread_mutex_lock(&h->lock);
	atomic_fetch_sub_explicit(&h->lock_waiters, 1u, memory_order_relaxed);
}

void ih__kick(struct usb_inproc_host *h)
{
	atomic_fetch_add_explicit(&h->changes, 1u, memory_order_release);
	pthread_cond_broadcast(&h->cond);
}

void ih__settle(struct usb_inproc_host *h, struct udcx_done *done)
{
	while (!list_empty(&done->reqs))
		list_move_tail(done->reqs.next, &h->pending.reqs);
	/* Host transfers are waited on through their pending flag. */
	while (!list_empty(&done->urbs))
		list_del_init(done->urbs.next);
	ih__kick(h);
}

bool ih__enter(struct usb_inproc_host *h)
{
	if (!h->started)
		return false;
	h->in_event++;
	pthread_mutex_unlock(&h->lock);
	return true;
}

void ih__leave(struct usb_inproc_host *h)
{
	ih__lock(h);
	h->in_event--;
	ih__kick(h);
}

void ih__defer(struct usb_inproc_host *h, struct ih_ep *lep)
{
	lep->run_deferred = true;
	h->deferred = true;
}

/*
 * Move a chunk of the data left to the host thread (by ih_queue() or a
 * cut run) on every endpoint. Lock held.
 */
static void run_deferred(struct usb_inproc_host *h)
{
	struct udcx_done done;

	if (!h->deferred)
		return;
	h->deferred = false;
	udcx__done_init(&done);
	for (size_t i = 0; i < h->neps; i++) {
		if (h->eps[i].run_deferred) {
			h->eps[i].run_deferred = false;
			if (udcx__ep_run_some(&h->eps[i].x, &done, IH_RUN_BUDGET))
				ih__defer(h, &h->eps[i]);
		}
	}
	ih__settle(h, &done);
}

/* Move the transactions of paced endpoints whose slot has come. Lock held. */
static void run_paced(struct usb_inproc_host *h)
{
	struct udcx_done done;

	udcx__done_init(&done);
	if (udcx__pacer_run(&h->pacer, &done))
		ih__settle(h, &done);
}

int ih__run_completions(struct usb_inproc_host *h)
{
	int n = 0;

	for (;;) {
		struct list_head mine;
		int batch = 0;

		run_paced(h);
		run_deferred(h);	/* completions may queue more: loop */
		if (list_empty(&h->pending.reqs)) {
			if (!h->deferred)
				break;
			/*
			 * A chunk moved: let a waiter at the lock, which an
			 * unlock and lock in a row would not (the mutex is not
			 * fair): wait until it has it, or give it our CPU.
			 */
			pthread_mutex_unlock(&h->lock);
			if (atomic_load_explicit(&h->lock_waiters, memory_order_relaxed)) {
				if (!h->multi_cpu)
					sched_yield();
				for (unsigned i = 0; h->multi_cpu && i < LB_LOCK_TRIES &&
				     atomic_load_explicit(&h->lock_waiters, memory_order_relaxed); i++)
					;
			}
			ih__lock(h);
			continue;
		}

		INIT_LIST_HEAD(&mine);
		while (!list_empty(&h->pending.reqs))
			list_move_tail(h->pending.reqs.next, &mine);
		for (struct list_head *p = mine.next; p != &mine; p = p->next)
			batch++;
		if (!ih__enter(h)) {
			/* Stopped: leave them for disable/dequeue to find. */
			while (!list_empty(&mine))
				list_move_tail(mine.next, &h->pending.reqs);
			return n;	/* these were not given back */
		}
		udcx__giveback_list(&mine);
		ih__leave(h);
		n += batch;
		h->given_back += (unsigned long)batch;
	}
	return n;
}

void ih__flush_all(struct usb_inproc_host *h, int req_status, int urb_status,
		   struct udcx_done *done)
{
	udcx__ep_flush_reqs(&h->ep0.x, req_status, done);
	udcx__ep_flush_urbs(&h->ep0.x, urb_status, done);
	for (size_t i = 0; i < h->neps; i++) {
		udcx__ep_flush_reqs(&h->eps[i].x, req_status, done);
		udcx__ep_flush_urbs(&h->eps[i].x, urb_status, done);
	}
}

/* ---- endpoint ops ------------------------------------------------------- */

/* ep0's status hook (xfer.h): the OUT data stage's completion has run
 * (no lock held); the status stage goes now, unless it halted ep0. */
static void ih_ep0_status(struct udcx_ep *x)
{
	struct usb_inproc_host *h = usb_container_of(x, struct ih_ep, x)->h;
	struct udcx_done done;

	udcx__done_init(&done);
	ih__lock(h);
	udcx__ctrl_status(x, &done);
	ih__settle(h, &done);
	pthread_mutex_unlock(&h->lock);
}

static int ih_ep_enable(struct usb_ep *ep, const struct usb_endpoint_descriptor *desc)
{
	struct ih_ep *lep = lep_of(ep);
	struct usb_inproc_host *h = lep->h;
	unsigned mp = USB_LE16_TO_CPU(desc->wMaxPacketSize) & USB_ENDPOINT_MAXP_MASK;
	bool in = (desc->bEndpointAddress & USB_DIR_IN) != 0;
	int rc;

	/* The direction is wired in the hardware. */
	if (in != ((lep->hw_address & USB_DIR_IN) != 0))
		return -USB_EINVAL;
	ih__lock(h);
	rc = udcx__ep_enable(&lep->x, in, mp);
	if (!rc) {
		lep->host_address = desc->bEndpointAddress;
		/* As a host controller polls it: one transaction a service
		 * interval at the speed connected. */
		(void)udcx__ep_pace_desc(&lep->x, &h->pacer, desc, ep->comp_desc, h->gadget.speed);
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

static int ih_ep_disable(struct usb_ep *ep)
{
	struct ih_ep *lep = lep_of(ep);
	struct usb_inproc_host *h = lep->h;
	struct udcx_done done;
	struct list_head back;

	udcx__done_init(&done);
	INIT_LIST_HEAD(&back);
	ih__lock(h);
	/* Finished earlier but not given back yet: they go first. */
	udcx__done_take_ep(&h->pending, &lep->x, &back);
	udcx__ep_disable(&lep->x, &done);
	while (!list_empty(&done.reqs))
		list_move_tail(done.reqs.next, &back);
	lep->host_address = 0;
	ih__settle(h, &done);
	pthread_mutex_unlock(&h->lock);
	udcx__giveback_list(&back);
	return 0;
}

static int ih_queue(struct usb_ep *ep, struct usb_request *req)
{
	struct ih_ep *lep = lep_of(ep);
	struct usb_inproc_host *h = lep->h;
	struct udcx_done done;
	int rc;

	udcx__done_init(&done);
	ih__lock(h);
	if (!h->connected) {
		rc = -USB_ESHUTDOWN;
	} else if (h->host_busy && !lep->x.control && !lep->x.is_in &&
		   udcx__ep_pending(&lep->x) > 0) {
		/*
		 * OUT, a host call running and a transfer waiting: the host
		 * thread, which has the data hot, moves the bytes
		 * (ih__run_completions()) as a controller's DMA would, and the
		 * queueing worker goes on meanwhile (it writes the previous
		 * buffer). IN data is hot in the worker, which copies it
		 * itself; moving that to the host measured slower (bench_msf).
		 */
		rc = udcx__ep_queue_only(&lep->x, udcx__req_of(req));
		if (rc == 0) {
			ih__defer(h, lep);
			ih__kick(h);
		}
	} else {
		rc = udcx__ep_queue(&lep->x, udcx__req_of(req), &done);
		ih__settle(h, &done);
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

static int ih_dequeue(struct usb_ep *ep, struct usb_request *req)
{
	struct ih_ep *lep = lep_of(ep);
	struct usb_inproc_host *h = lep->h;
	struct udcx_req *r = udcx__req_of(req);
	struct udcx_done done;
	struct list_head back;
	int rc = 0;

	udcx__done_init(&done);
	INIT_LIST_HEAD(&back);
	ih__lock(h);
	if (udcx__ep_dequeue(&lep->x, r, &done) == 0)
		list_move_tail(&r->node, &back);	/* the rest: event context */
	else if (!udcx__done_take_req(&h->pending, r, &back))
		rc = -USB_EINVAL;	/* finished and being given back */
	ih__settle(h, &done);
	pthread_mutex_unlock(&h->lock);
	udcx__giveback_list(&back);
	return rc;
}

static int ih_set_halt(struct usb_ep *ep, enum usb_ep_halt_value value)
{
	struct ih_ep *lep = lep_of(ep);
	struct usb_inproc_host *h = lep->h;
	struct udcx_done done;
	int rc;

	udcx__done_init(&done);
	ih__lock(h);
	rc = udcx__ep_set_halt(&lep->x, value, &done);
	ih__settle(h, &done);
	pthread_mutex_unlock(&h->lock);
	return rc;
}

static int ih_fifo_status(struct usb_ep *ep)
{
	(void)ep;
	return 0;	/* data moves straight between buffers: no FIFO */
}

static const struct usb_ep_ops ih_ep_ops = {
	.enable = ih_ep_enable,
	.disable = ih_ep_disable,
	.alloc_request = udcx__alloc_request,
	.free_request = udcx__free_request,
	.queue = ih_queue,
	.dequeue = ih_dequeue,
	.set_halt = ih_set_halt,
	.fifo_status = ih_fifo_status,
};

/* ---- gadget ops ------------------------------------------------------- */

static int ih_start(struct usb_gadget *g)
{
	struct usb_inproc_host *h = host_of_gadget(g);

	ih__lock(h);
	h->started = true;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static void ih_stop(struct usb_gadget *g)
{
	struct usb_inproc_host *h = host_of_gadget(g);
	struct udcx_done done;
	bool self;

	udcx__done_init(&done);
	ih__lock(h);
	h->started = false;
	h->connected = false;
	h->unplug_pending = false;
	g->speed = USB_SPEED_UNKNOWN;
	/* The host's transfers fail; requests stay for disable/dequeue. */
	for (size_t i = 0; i < h->neps; i++)
		udcx__ep_flush_urbs(&h->eps[i].x, -USB_ESHUTDOWN, &done);
	udcx__ep_flush_urbs(&h->ep0.x, -USB_ESHUTDOWN, &done);
	ih__settle(h, &done);
	/* Called from a callback in the host thread (a misuse) we cannot
	 * wait for ourselves. */
	self = h->host_busy && pthread_equal(h->host_owner, pthread_self());
	while (h->in_event > 0 && !self)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

static int ih_pullup(struct usb_gadget *g, int is_on)
{
	struct usb_inproc_host *h = host_of_gadget(g);

	ih__lock(h);
	h->pullup = is_on != 0;
	h->info.pullup = h->pullup;
	if (!h->pullup && h->connected)
		h->unplug_pending = true;	/* the host thread reports it */
	ih__kick(h);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int ih_set_selfpowered(struct usb_gadget *g, int is_selfpowered)
{
	struct usb_inproc_host *h = host_of_gadget(g);

	ih__lock(h);
	h->info.selfpowered = is_selfpowered;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int ih_wakeup(struct usb_gadget *g)
{
	struct usb_inproc_host *h = host_of_gadget(g);
	int rc = 0;

	ih__lock(h);
	if (!h->connected)
		rc = -USB_ENOTCONN;
	else
		h->info.wakeups++;
	pthread_mutex_unlock(&h->lock);
	return rc;
}

/* Record what the gadget told its controller, for usb_inproc_host_info(). */
static int record_info(struct usb_gadget *g, unsigned *field_of_info, unsigned value)
{
	struct usb_inproc_host *h = host_of_gadget(g);

	ih__lock(h);
	*field_of_info = value;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int ih_vbus_draw(struct usb_gadget *g, unsigned mA)
{
	return record_info(g, &host_of_gadget(g)->info.vbus_mA, mA);
}

static int ih_set_address(struct usb_gadget *g, unsigned address)
{
	return record_info(g, &host_of_gadget(g)->info.address, address);
}

static int ih_test_mode(struct usb_gadget *g, unsigned selector)
{
	return record_info(g, &host_of_gadget(g)->info.test_mode, selector);
}

static const struct usb_gadget_ops ih_gadget_ops = {
	.start = ih_start,
	.stop = ih_stop,
	.pullup = ih_pullup,
	.set_selfpowered = ih_set_selfpowered,
	.wakeup = ih_wakeup,
	.vbus_draw = ih_vbus_draw,
	.set_address = ih_set_address,
	.test_mode = ih_test_mode,
};

/* ---- create / destroy --------------------------------------------------- */

/* The default controller: ep1..ep15, one IN and one OUT each, every type. */
#define LB_EP_PAIR(n) { .address = USB_DIR_IN | (n) }, { .address = (n) }
static const struct usb_inproc_ep_config default_eps[] = {
	LB_EP_PAIR(1), LB_EP_PAIR(2), LB_EP_PAIR(3), LB_EP_PAIR(4), LB_EP_PAIR(5),
	LB_EP_PAIR(6), LB_EP_PAIR(7), LB_EP_PAIR(8), LB_EP_PAIR(9), LB_EP_PAIR(10),
	LB_EP_PAIR(11), LB_EP_PAIR(12), LB_EP_PAIR(13), LB_EP_PAIR(14), LB_EP_PAIR(15),
};

static int check_config(const struct usb_inproc_host_config *c)
{
	if (c->udc_name && (!c->udc_name[0] || strlen(c->udc_name) >= 32))
		return -USB_EINVAL;
	if (c->max_speed > USB_SPEED_SUPER_PLUS || c->max_speed == USB_SPEED_WIRELESS)
		return -USB_EINVAL;
	if (c->ep0_maxpacket && c->ep0_maxpacket != 8 && c->ep0_maxpacket != 16 &&
	    c->ep0_maxpacket != 32 && c->ep0_maxpacket != 64)
		return -USB_EINVAL;
	if (c->num_endpoints && !c->endpoints)
		return -USB_EINVAL;
	for (size_t i = 0; i < c->num_endpoints; i++) {
		const struct usb_inproc_ep_config *e = &c->endpoints[i];
		unsigned num = e->address & USB_ENDPOINT_NUMBER_MASK;

		if (num == 0 || (e->address & ~(USB_DIR_IN | USB_ENDPOINT_NUMBER_MASK)) ||
		    e->maxpacket_limit > 1024)
			return -USB_EINVAL;
		for (size_t j = 0; j < i; j++)
			if (c->endpoints[j].address == e->address)
				return -USB_EINVAL;
	}
	return 0;
}

static void init_ep(struct usb_inproc_host *h, struct ih_ep *lep,
		    const struct usb_inproc_ep_config *e)
{
	bool all = !e->bulk && !e->intr && !e->iso;
	unsigned num = e->address & USB_ENDPOINT_NUMBER_MASK;
	bool in = (e->address & USB_DIR_IN) != 0;

	usb_ep_init(&lep->ep);
	lep->h = h;
	lep->hw_address = e->address;
	snprintf(lep->name, sizeof(lep->name), "ep%u%s", num, in ? "in" : "out");
	lep->ep.name = lep->name;
	lep->ep.ops = &ih_ep_ops;
	lep->ep.caps.type_bulk = all || e->bulk;
	lep->ep.caps.type_int = all || e->intr;
	lep->ep.caps.type_iso = all || e->iso;
	lep->ep.caps.dir_in = in;
	lep->ep.caps.dir_out = !in;
	usb_ep_set_maxpacket_limit(&lep->ep, e->maxpacket_limit ? e->maxpacket_limit : 1024);
	udcx__ep_init(&lep->x, &lep->ep, false, lep->ep.maxpacket_limit);
	list_add_tail(&lep->ep.ep_list, &h->gadget.ep_list);
}

int usb_inproc_host_create(const struct usb_inproc_host_config *config,
			     struct usb_inproc_host **out)
{
	static const struct usb_inproc_host_config defaults;
	const struct usb_inproc_ep_config *eps;
	struct usb_inproc_host *h;
	pthread_condattr_t ca;
	size_t neps;
	int rc;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	if (!config)
		config = &defaults;
	rc = check_config(config);
	if (rc)
		return rc;
	eps = config->endpoints;
	neps = config->num_endpoints;
	if (neps == 0) {
		eps = default_eps;
		neps = sizeof(default_eps) / sizeof(default_eps[0]);
	}

	h = calloc(1, sizeof(*h));
	if (!h)
		return -USB_ENOMEM;
	h->multi_cpu = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	h->eps = calloc(neps, sizeof(*h->eps));
	if (!h->eps) {
		rc = -USB_ENOMEM;
		goto fail_free;
	}
	h->neps = neps;
	rc = -USB_EIO;
	if (pthread_mutex_init(&h->host_mutex, NULL))
		goto fail_free;
	if (pthread_mutex_init(&h->lock, NULL))
		goto fail_host_mutex;
	if (pthread_condattr_init(&ca))
		goto fail_lock;
	if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) || pthread_cond_init(&h->cond, &ca)) {
		pthread_condattr_destroy(&ca);
		goto fail_lock;
	}
	pthread_condattr_destroy(&ca);

	snprintf(h->name, sizeof(h->name), "%s", config->udc_name ? config->udc_name : "inproc.0");
	h->max_speed = config->max_speed ? config->max_speed : USB_SPEED_HIGH;
	h->ep0_mp = config->ep0_maxpacket ? config->ep0_maxpacket : 64;
	h->pullup = true;
	h->info.pullup = 1;
	udcx__done_init(&h->pending);
	udcx__pacer_init(&h->pacer, &udcx__clock_monotonic);

	usb_gadget_init(&h->gadget);
	h->gadget.ops = &ih_gadget_ops;
	h->gadget.name = h->name;
	h->gadget.max_speed = h->max_speed;

	usb_ep_init(&h->ep0.ep);
	h->ep0.h = h;
	snprintf(h->ep0.name, sizeof(h->ep0.name), "ep0");
	h->ep0.ep.name = h->ep0.name;
	h->ep0.ep.ops = &ih_ep_ops;
	h->ep0.ep.caps.type_control = 1;
	h->ep0.ep.caps.dir_in = 1;
	h->ep0.ep.caps.dir_out = 1;
	usb_ep_set_maxpacket_limit(&h->ep0.ep, h->ep0_mp);
	udcx__ep_init(&h->ep0.x, &h->ep0.ep, true, h->ep0_mp);
	udcx__ctrl_set_status_hook(&h->ep0.x, ih_ep0_status);
	h->gadget.ep0 = &h->ep0.ep;
	for (size_t i = 0; i < neps; i++)
		init_ep(h, &h->eps[i], &eps[i]);

	rc = usb_udc_register(&h->gadget);
	if (rc)
		goto fail_cond;
	h->registered = true;
	*out = h;
	return 0;

fail_cond:
	pthread_cond_destroy(&h->cond);
fail_lock:
	pthread_mutex_destroy(&h->lock);
fail_host_mutex:
	pthread_mutex_destroy(&h->host_mutex);
fail_free:
	free(h->eps);
	free(h);
	return rc;
}

void usb_inproc_host_destroy(struct usb_inproc_host *h)
{
	if (!h)
		return;
	if (h->registered)
		usb_udc_unregister(&h->gadget);
	/* Host transfers still pending belong to their callers; unhook them. */
	ih__lock(h);
	{
		struct udcx_done done;

		udcx__done_init(&done);
		ih__flush_all(h, -USB_ESHUTDOWN, -USB_ESHUTDOWN, &done);
		/* Requests left queued belong to no driver any more: drop them
		 * without completing (their owner is gone). */
		INIT_LIST_HEAD(&done.reqs);
		ih__settle(h, &done);
		INIT_LIST_HEAD(&h->pending.reqs);
	}
	pthread_mutex_unlock(&h->lock);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->host_mutex);
	free(h->eps);
	free(h);
}

struct usb_gadget *usb_inproc_host_gadget(struct usb_inproc_host *h)
{
	return h ? &h->gadget : NULL;
}

void usb_inproc_host_info(struct usb_inproc_host *h, struct usb_inproc_host_info *info)
{
	if (!h || !info)
		return;
	ih__lock(h);
	*info = h->info;
	info->connected = h->connected;
	pthread_mutex_unlock(&h->lock);
}
