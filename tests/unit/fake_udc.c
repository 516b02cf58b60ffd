/*
 * fake_udc.c - the scripted test backend of fake_udc.h. Every op records
 * and returns; nothing completes a request unless a test asks. It follows
 * the backend rules of udc.h (disable/dequeue give back before returning,
 * set_halt refuses an IN endpoint with requests queued).
 */
#include "fake_udc.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct fake_ep *fep(struct usb_ep *ep)
{
	return usb_container_of(ep, struct fake_ep, ep);
}

static struct fake_udc *fudc(struct usb_gadget *g)
{
	return usb_container_of(g, struct fake_udc, gadget);
}

static int f_start(struct usb_gadget *g)
{
	fudc(g)->start_calls++;
	return fudc(g)->start_ret;
}

static void f_stop(struct usb_gadget *g)
{
	fudc(g)->stop_calls++;
}

static int f_pullup(struct usb_gadget *g, int on)
{
	fudc(g)->pullup = on;
	fudc(g)->pullup_calls++;
	return 0;
}

static int f_vbus(struct usb_gadget *g, unsigned ma)
{
	fudc(g)->vbus_ma = ma;
	fudc(g)->vbus_calls++;
	return 0;
}

static int f_set_address(struct usb_gadget *g, unsigned address)
{
	fudc(g)->address = (int)address;
	fudc(g)->set_address_calls++;
	return 0;
}

static int f_test_mode(struct usb_gadget *g, unsigned sel)
{
	fudc(g)->test_selector = (int)sel;
	fudc(g)->test_mode_calls++;
	return 0;
}

static int f_wakeup(struct usb_gadget *g)
{
	fudc(g)->wakeup_calls++;
	return 0;
}

static int f_enable(struct usb_ep *ep, const struct usb_endpoint_descriptor *d)
{
	(void)d;
	fep(ep)->enable_calls++;
	return 0;
}

static void giveback_all(struct fake_ep *e, int status)
{
	while (e->queued) {
		struct usb_request *r = e->queue[0];

		memmove(e->queue, e->queue + 1, (e->queued - 1) * sizeof(e->queue[0]));
		e->queued--;
		r->status = status;
		usb_gadget_giveback_request(&e->ep, r);
	}
}

static int f_disable(struct usb_ep *ep)
{
	fep(ep)->disable_calls++;
	fep(ep)->hw_halted = false;
	giveback_all(fep(ep), -USB_ESHUTDOWN);
	return 0;
}

static struct usb_request *f_alloc(struct usb_ep *ep)
{
	struct usb_request *r;

	if (fep(ep)->udc->fail_alloc)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (r) {
		fep(ep)->udc->live_requests++;
		fep(ep)->udc->request_allocs++;
	}
	return r;
}

static void f_free(struct usb_ep *ep, struct usb_request *r)
{
	fep(ep)->udc->live_requests--;
	free(r);
}

static int f_queue(struct usb_ep *ep, struct usb_request *r)
{
	struct fake_ep *e = fep(ep);

	atomic_fetch_add(&e->queue_calls, 1);
	assert(r->status == -USB_EINPROGRESS && r->actual == 0);
	if (e->queued == sizeof(e->queue) / sizeof(e->queue[0]))
		return -USB_ENOMEM;
	/* ep0 carries one control transfer at a time. */
	if (ep == e->udc->gadget.ep0 && e->queued)
		return -USB_EBUSY;
	e->queue[e->queued++] = r;
	return 0;
}

static int f_dequeue(struct usb_ep *ep, struct usb_request *r)
{
	struct fake_ep *e = fep(ep);
	unsigned i;

	for (i = 0; i < e->queued; i++) {
		if (e->queue[i] != r)
			continue;
		memmove(e->queue + i, e->queue + i + 1, (e->queued - i - 1) * sizeof(e->queue[0]));
		e->queued--;
		r->status = -USB_ECONNRESET;
		usb_gadget_giveback_request(ep, r);
		return 0;
	}
	return -USB_EINVAL;
}

static int f_set_halt(struct usb_ep *ep, enum usb_ep_halt_value value)
{
	struct fake_ep *e = fep(ep);

	e->set_halt_calls++;
	e->last_halt_value = (int)value;
	if (ep == e->udc->gadget.ep0) {
		if (value != USB_EP_HALT_CLEAR)
			e->udc->ep0_stalls++;
		return 0;
	}
	if (value == USB_EP_HALT_SET && e->queued && (ep->address & USB_DIR_IN))
		return -USB_EAGAIN;
	e->hw_halted = value != USB_EP_HALT_CLEAR;
	return 0;
}

static int f_set_wedge(struct usb_ep *ep)
{
	fep(ep)->set_wedge_calls++;
	return 0;
}

static int f_fifo_status(struct usb_ep *ep)
{
	(void)ep;
	return 0;
}

static void ep_setup(struct fake_udc *u, struct fake_ep *e, const char *name)
{
	usb_ep_init(&e->ep);
	e->udc = u;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->ep.name = e->name;
	e->ep.ops = &u->ep_ops;
}

/* Every fake ever set up, for fake_udc_cleanup(). */
static struct fake_udc *fakes[128];
static unsigned n_fakes;

int fake_udc_cleanup(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < n_fakes; i++)
		usb_udc_unregister(&fakes[i]->gadget);
	return 0;
}

void fake_udc_init(struct fake_udc *u, const char *name, enum usb_device_speed max_speed)
{
	static const char *names[FAKE_MAX_EPS] = {
		"ep1in", "ep2out", "ep3in", "ep4out", "ep5in", "ep6out", "ep7in", "ep8out"
	};
	unsigned i;

	for (i = 0; i < n_fakes && fakes[i] != u; i++)
		;
	if (i == n_fakes && n_fakes < sizeof(fakes) / sizeof(fakes[0]))
		fakes[n_fakes++] = u;
	memset(u, 0, sizeof(*u));
	u->ops.start = f_start;
	u->ops.stop = f_stop;
	u->ops.pullup = f_pullup;
	u->ops.vbus_draw = f_vbus;
	u->ops.set_address = f_set_address;
	u->ops.test_mode = f_test_mode;
	u->ops.wakeup = f_wakeup;
	u->ep_ops.enable = f_enable;
	u->ep_ops.disable = f_disable;
	u->ep_ops.alloc_request = f_alloc;
	u->ep_ops.free_request = f_free;
	u->ep_ops.queue = f_queue;
	u->ep_ops.dequeue = f_dequeue;
	u->ep_ops.set_halt = f_set_halt;
	u->ep_ops.set_wedge = f_set_wedge;
	u->ep_ops.fifo_status = f_fifo_status;

	usb_gadget_init(&u->gadget);
	u->gadget.ops = &u->ops;
	u->gadget.name = name;
	u->gadget.max_speed = max_speed;
	ep_setup(u, &u->ep0, "ep0");
	u->ep0.ep.caps.type_control = 1;
	u->ep0.ep.caps.dir_in = u->ep0.ep.caps.dir_out = 1;
	usb_ep_set_maxpacket_limit(&u->ep0.ep, 64);
	u->gadget.ep0 = &u->ep0.ep;
	for (i = 0; i < FAKE_MAX_EPS; i++) {
		struct fake_ep *e = &u->eps[i];

		ep_setup(u, e, names[i]);
		e->ep.caps.type_bulk = 1;
		e->ep.caps.type_int = 1;
		/* The last two also do isochronous; 5 and 6 only interrupt. */
		if (i >= 6)
			e->ep.caps.type_iso = 1;
		if (i == 4 || i == 5)
			e->ep.caps.type_bulk = 0;
		if (i % 2 == 0)
			e->ep.caps.dir_in = 1;
		else
			e->ep.caps.dir_out = 1;
		usb_ep_set_maxpacket_limit(&e->ep, 1024);
		list_add_tail(&e->ep.ep_list, &u->gadget.ep_list);
	}
}

void fake_udc_reset(struct fake_udc *u, enum usb_device_speed speed)
{
	u->gadget.speed = speed;
	usb_ep_set_maxpacket_limit(&u->ep0.ep, speed >= USB_SPEED_SUPER ? 512 : 64);
	usb_gadget_event(&u->gadget, USB_GADGET_EVENT_RESET);
}

int fake_setup(struct fake_udc *u, const uint8_t setup[8])
{
	struct usb_ctrlrequest ctrl;

	/* As a backend would: a new SETUP cancels the old transfer. */
	if (u->ep0.queued)
		(void)f_dequeue(&u->ep0.ep, u->ep0.queue[0]);
	memcpy(&ctrl, setup, sizeof(ctrl));
	return usb_gadget_setup(&u->gadget, &ctrl);
}

struct usb_request *fake_ep0_req(struct fake_udc *u)
{
	return u->ep0.queued ? u->ep0.queue[0] : NULL;
}

void fake_ep0_complete(struct fake_udc *u, int status, unsigned actual)
{
	struct usb_request *r = fake_ep0_req(u);

	assert(r);
	u->ep0.queued = 0;
	r->status = status;
	r->actual = actual;
	usb_gadget_giveback_request(&u->ep0.ep, r);
}

int fake_control(struct fake_udc *u, const uint8_t setup[8], const void *out,
		 void *reply, size_t cap)
{
	uint16_t w_length = usb_get_le16(setup + 6);
	bool in = (setup[0] & USB_DIR_IN) != 0;
	int stalls = u->ep0_stalls;
	struct usb_request *r;
	unsigned n;
	int ret;

	ret = fake_setup(u, setup);
	if (ret < 0 || u->ep0_stalls != stalls) {
		if (u->ep0.queued)	/* the stall ends the transfer */
			(void)f_dequeue(&u->ep0.ep, u->ep0.queue[0]);
		return FAKE_STALL;
	}
	r = fake_ep0_req(u);
	if (!r)
		return FAKE_PENDING;
	if (in && w_length) {
		/* The EP0 contract: length <= wLength. */
		assert(r->length <= w_length);
		n = r->length;
		if (reply)
			memcpy(reply, r->buf, n < cap ? n : cap);
		fake_ep0_complete(u, 0, n);
		return (int)n;
	}
	if (!in && w_length) {
		assert(r->length == w_length);
		if (out)
			memcpy(r->buf, out, w_length);
		fake_ep0_complete(u, 0, w_length);
		return w_length;
	}
	assert(r->length == 0);
	fake_ep0_complete(u, 0, 0);
	return 0;
}

int fake_ctrl(struct fake_udc *u, uint8_t type, uint8_t req, uint16_t value,
	      uint16_t index, uint16_t length, void *reply, size_t cap)
{
	uint8_t s[8] = { type, req, 0, 0, 0, 0, 0, 0 };

	usb_put_le16(s + 2, value);
	usb_put_le16(s + 4, index);
	usb_put_le16(s + 6, length);
	return fake_control(u, s, NULL, reply, cap);
}

struct fake_ep *fake_ep_by_addr(struct fake_udc *u, uint8_t addr)
{
	struct usb_ep *ep = usb_gadget_find_ep(&u->gadget, addr);

	return ep && ep != &u->ep0.ep ? fep(ep) : NULL;
}

bool fake_ep_complete(struct fake_ep *e, int status, unsigned actual)
{
	struct usb_request *r;

	if (!e->queued)
		return false;
	r = e->queue[0];
	memmove(e->queue, e->queue + 1, (e->queued - 1) * sizeof(e->queue[0]));
	e->queued--;
	r->status = status;
	r->actual = actual;
	usb_gadget_giveback_request(&e->ep, r);
	return true;
}
