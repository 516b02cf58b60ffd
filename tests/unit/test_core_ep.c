/*
 * test_core_ep.c - the endpoint calls of gadget.h on the fake backend:
 * enable/disable checks, request queueing and the exactly-once giveback,
 * dequeue, halt and wedge (from the function and from the host),
 * fifo calls, gadget calls, find_ep, and usb_ep_autoconfig() choosing
 * endpoints by type, direction and packet size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_core_fixture.h"

static int completions, last_status;
static unsigned last_actual;

static void count_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	completions++;
	last_status = req->status;
	last_actual = req->actual;
}

/* A registered fake UDC with no driver. */
static void setup_udc(struct fake_udc *u)
{
	fake_udc_init(u, "fake.ep", USB_SPEED_HIGH);
	assert_int_equal(usb_udc_register(&u->gadget), 0);
	completions = 0;
	last_status = 1;
}

static struct usb_endpoint_descriptor bulk(uint8_t addr, uint16_t mps)
{
	struct usb_endpoint_descriptor d;

	memset(&d, 0, sizeof(d));
	d.bLength = USB_DT_ENDPOINT_SIZE;
	d.bDescriptorType = USB_DT_ENDPOINT;
	d.bEndpointAddress = addr;
	d.bmAttributes = USB_ENDPOINT_XFER_BULK;
	d.wMaxPacketSize = USB_CPU_TO_LE16(mps);
	return d;
}

static void test_core_ep_enable_checks(void **state)
{
	static struct fake_udc u;
	struct usb_endpoint_descriptor d = bulk(USB_DIR_IN, 512), bad;
	struct usb_ep *ep;

	(void)state;
	setup_udc(&u);
	ep = usb_ep_autoconfig(&u.gadget, &d);
	assert_ptr_equal(ep, &u.eps[0].ep);
	assert_int_equal(d.bEndpointAddress, 0x81);
	assert_int_equal(usb_ep_enable(ep), -USB_EINVAL);	/* no desc */
	bad = bulk(0x02, 512);
	ep->desc = &bad;
	assert_int_equal(usb_ep_enable(ep), -USB_EINVAL);	/* wrong direction/address */
	bad = bulk(0x81, 2048);
	assert_int_equal(usb_ep_enable(ep), -USB_EINVAL);	/* over the limit */
	bad = bulk(0x81, 512);
	bad.bmAttributes = USB_ENDPOINT_XFER_ISOC;	/* ep1in cannot do iso */
	assert_int_equal(usb_ep_enable(ep), -USB_EINVAL);
	ep->desc = &d;
	assert_int_equal(usb_ep_enable(ep), 0);
	assert_true(ep->enabled);
	assert_int_equal(ep->maxpacket, 512);
	assert_int_equal(usb_ep_enable(ep), -USB_EBUSY);
	assert_int_equal(usb_ep_disable(ep), 0);
	assert_int_equal(usb_ep_disable(ep), -USB_EINVAL);
	assert_int_equal(u.eps[0].enable_calls, 1);
	assert_int_equal(u.eps[0].disable_calls, 1);
	/* ep0 is not enabled through the API. */
	assert_int_equal(usb_ep_enable(u.gadget.ep0), -USB_EINVAL);
	assert_int_equal(usb_ep_disable(u.gadget.ep0), -USB_EINVAL);
	usb_udc_unregister(&u.gadget);
}

static void test_core_ep_queue_and_giveback(void **state)
{
	static struct fake_udc u;
	struct usb_endpoint_descriptor d = bulk(USB_DIR_OUT, 512);
	struct usb_request *r, *r2;
	struct usb_ep *ep;
	uint8_t buf[512];

	(void)state;
	setup_udc(&u);
	ep = usb_ep_autoconfig(&u.gadget, &d);
	assert_ptr_equal(ep, &u.eps[1].ep);
	r = usb_ep_alloc_request(ep, USB_GFP_ATOMIC);
	r2 = usb_ep_alloc_request(ep, USB_GFP_ATOMIC);
	assert_non_null(r);
	r->buf = buf;
	r->length = sizeof(buf);
	r->complete = count_complete;
	*r2 = *r;
	/* Not enabled: ESHUTDOWN, no completion. */
	assert_int_equal(usb_ep_queue(ep, r, USB_GFP_ATOMIC), -USB_ESHUTDOWN);
	ep->desc = &d;
	assert_int_equal(usb_ep_enable(ep), 0);
	/* Missing completion or buffer: EINVAL. */
	r->complete = NULL;
	assert_int_equal(usb_ep_queue(ep, r, USB_GFP_ATOMIC), -USB_EINVAL);
	r->complete = count_complete;
	r->buf = NULL;
	assert_int_equal(usb_ep_queue(ep, r, USB_GFP_ATOMIC), -USB_EINVAL);
	r->buf = buf;
	assert_int_equal(usb_ep_queue(ep, r, USB_GFP_ATOMIC), 0);
	assert_int_equal(r->status, -USB_EINPROGRESS);
	assert_int_equal(usb_ep_queue(ep, r, USB_GFP_ATOMIC), -USB_EBUSY);	/* already queued */
	assert_int_equal(usb_ep_queue(ep, r2, USB_GFP_ATOMIC), 0);
	assert_int_equal(completions, 0);	/* never inside queue */
	assert_true(fake_ep_complete(&u.eps[1], 0, 100));
	assert_int_equal(completions, 1);
	assert_int_equal(last_status, 0);
	assert_int_equal(last_actual, 100);
	/* Dequeue: ECONNRESET before the call returns; then not queued. */
	assert_int_equal(usb_ep_dequeue(ep, r2), 0);
	assert_int_equal(completions, 2);
	assert_int_equal(last_status, -USB_ECONNRESET);
	assert_int_equal(usb_ep_dequeue(ep, r2), -USB_EINVAL);
	/* Disable gives back what is queued with ESHUTDOWN. */
	assert_int_equal(usb_ep_queue(ep, r, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_ep_disable(ep), 0);
	assert_int_equal(completions, 3);
	assert_int_equal(last_status, -USB_ESHUTDOWN);
	usb_ep_free_request(ep, r);
	usb_ep_free_request(ep, r2);
	usb_ep_free_request(ep, NULL);
	assert_int_equal(u.live_requests, 0);
	usb_udc_unregister(&u.gadget);
}

static void test_core_ep_halt_and_wedge(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	struct usb_ep *in, *out;
	uint8_t st[2];

	(void)state;
	tfunc_init(&f, "h");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
	in = f.in;
	out = f.out;

	/* Function halts; host clears. */
	assert_int_equal(usb_ep_set_halt(out), 0);
	assert_true(usb_ep_is_halted(out));
	assert_true(d.udc.eps[1].hw_halted);
	assert_int_equal(fake_ctrl(&d.udc, 0x82, 0, 0, 0x02, 2, st, 2), 2);
	assert_int_equal(st[0], 1);
	assert_int_equal(fake_ctrl(&d.udc, 0x02, 1, 0, 0x02, 0, NULL, 0), 0);
	assert_false(usb_ep_is_halted(out));
	assert_false(d.udc.eps[1].hw_halted);

	/* Wedge: the host's CLEAR_FEATURE(HALT) is acknowledged but the
	 * endpoint stays halted; usb_ep_clear_halt() clears it. */
	assert_int_equal(usb_ep_set_wedge(out), 0);
	assert_int_equal(d.udc.eps[1].set_wedge_calls, 1);
	assert_int_equal(fake_ctrl(&d.udc, 0x02, 1, 0, 0x02, 0, NULL, 0), 0);
	assert_true(usb_ep_is_halted(out));
	assert_true(d.udc.eps[1].hw_halted);
	assert_int_equal(fake_ctrl(&d.udc, 0x82, 0, 0, 0x02, 2, st, 2), 2);
	assert_int_equal(st[0], 1);
	assert_int_equal(usb_ep_clear_halt(out), 0);
	assert_false(usb_ep_is_halted(out));
	assert_false(atomic_load(&out->wedged));
	assert_false(d.udc.eps[1].hw_halted);

	/* Host halts; disable clears halt and wedge. */
	assert_int_equal(fake_ctrl(&d.udc, 0x02, 3, 0, 0x81, 0, NULL, 0), 0);
	assert_true(usb_ep_is_halted(in));
	assert_int_equal(usb_ep_set_wedge(in), 0);
	assert_int_equal(usb_ep_disable(in), 0);
	assert_false(usb_ep_is_halted(in));
	assert_false(atomic_load(&in->wedged));
	assert_null(in->desc);
	/* Not enabled now: halting it is refused, from either side. */
	assert_int_equal(usb_ep_set_halt(in), -USB_EINVAL);
	assert_int_equal(fake_ctrl(&d.udc, 0x02, 3, 0, 0x81, 0, NULL, 0), FAKE_STALL);

	/* An IN endpoint with a request queued refuses to halt (EAGAIN). */
	{
		struct usb_request *r = usb_ep_alloc_request(out, USB_GFP_ATOMIC);
		static uint8_t buf[8];

		assert_int_equal(usb_ep_enable(in), -USB_EINVAL);	/* no desc */
		assert_int_equal(config_ep_by_speed(&d.udc.gadget, &f.func, in), 0);
		assert_int_equal(usb_ep_enable(in), 0);
		r->buf = buf;
		r->length = sizeof(buf);
		r->complete = count_complete;
		assert_int_equal(usb_ep_queue(in, r, USB_GFP_ATOMIC), 0);
		assert_int_equal(usb_ep_set_halt(in), -USB_EAGAIN);
		assert_false(usb_ep_is_halted(in));
		assert_int_equal(usb_ep_set_wedge(in), -USB_EAGAIN);
		assert_false(atomic_load(&in->wedged));
		/* The host's SET_FEATURE(HALT) is not refusable: value 2. */
		assert_int_equal(fake_ctrl(&d.udc, 0x02, 3, 0, 0x81, 0, NULL, 0), 0);
		assert_int_equal(d.udc.eps[0].last_halt_value, USB_EP_HALT_HOST);
		assert_true(usb_ep_is_halted(in));
		assert_int_equal(fake_ctrl(&d.udc, 0x02, 1, 0, 0x81, 0, NULL, 0), 0);
		assert_int_equal(d.udc.eps[0].last_halt_value, USB_EP_HALT_CLEAR);
		assert_false(usb_ep_is_halted(in));
		assert_true(fake_ep_complete(&d.udc.eps[0], 0, 8));
		usb_ep_free_request(out, r);
	}
	/* ep0: set_halt stalls the current transfer only. */
	assert_int_equal(usb_ep_set_halt(d.udc.gadget.ep0), 0);
	assert_int_equal(d.udc.ep0_stalls, 1);
	assert_false(usb_ep_is_halted(d.udc.gadget.ep0));
	tdev_stop(&d);
}

static void test_core_ep_isochronous_halt_refused(void **state)
{
	static struct fake_udc u;
	struct usb_endpoint_descriptor d = bulk(USB_DIR_IN, 0);
	struct usb_ep *ep;

	(void)state;
	setup_udc(&u);
	d.bmAttributes = USB_ENDPOINT_XFER_ISOC;
	ep = usb_ep_autoconfig(&u.gadget, &d);
	assert_ptr_equal(ep, &u.eps[6].ep);	/* ep7in: the first iso IN */
	assert_int_equal(d.bEndpointAddress, 0x87);
	assert_int_equal(USB_LE16_TO_CPU(d.wMaxPacketSize), 1023);
	ep->desc = &d;
	assert_int_equal(usb_ep_enable(ep), 0);
	assert_int_equal(usb_ep_set_halt(ep), -USB_EINVAL);
	assert_int_equal(usb_ep_disable(ep), 0);
	usb_udc_unregister(&u.gadget);
}

static void test_core_ep_autoconfig(void **state)
{
	static struct fake_udc u;
	struct usb_endpoint_descriptor d[10];
	struct usb_ep *ep;
	unsigned i, n = 0;

	(void)state;
	setup_udc(&u);
	/* Interrupt IN with no size: 64 by default; the first IN that can
	 * do interrupt is ep1in. */
	d[0] = bulk(USB_DIR_IN, 0);
	d[0].bmAttributes = USB_ENDPOINT_XFER_INT;
	ep = usb_ep_autoconfig(&u.gadget, &d[0]);
	assert_ptr_equal(ep, &u.eps[0].ep);
	assert_true(ep->claimed);
	assert_int_equal(USB_LE16_TO_CPU(d[0].wMaxPacketSize), 64);
	/* A size over every limit: none. */
	d[1] = bulk(USB_DIR_OUT, 1536);
	assert_null(usb_ep_autoconfig(&u.gadget, &d[1]));
	/* Control endpoints are never handed out. */
	d[1] = bulk(USB_DIR_OUT, 64);
	d[1].bmAttributes = USB_ENDPOINT_XFER_CONTROL;
	assert_null(usb_ep_autoconfig(&u.gadget, &d[1]));
	/* Claim every bulk-capable IN: ep3in, ep7in (ep5in is interrupt only). */
	for (i = 0; i < 4; i++) {
		d[2 + i] = bulk(USB_DIR_IN, 512);
		if (usb_ep_autoconfig(&u.gadget, &d[2 + i]))
			n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(d[2].bEndpointAddress, 0x83);
	assert_int_equal(d[3].bEndpointAddress, 0x87);
	/* Release one and it is found again. */
	usb_ep_autoconfig_release(&u.eps[2].ep);
	d[6] = bulk(USB_DIR_IN, 512);
	assert_ptr_equal(usb_ep_autoconfig(&u.gadget, &d[6]), &u.eps[2].ep);
	/* find_ep by address; ep0 by 0 and 0x80. */
	assert_ptr_equal(usb_gadget_find_ep(&u.gadget, 0x83), &u.eps[2].ep);
	assert_ptr_equal(usb_gadget_find_ep(&u.gadget, 0x00), u.gadget.ep0);
	assert_ptr_equal(usb_gadget_find_ep(&u.gadget, 0x80), u.gadget.ep0);
	assert_null(usb_gadget_find_ep(&u.gadget, 0x85));
	assert_null(usb_gadget_find_ep(&u.gadget, 0x40));
	usb_ep_autoconfig_reset(&u.gadget);
	for (i = 0; i < FAKE_MAX_EPS; i++)
		assert_false(u.eps[i].ep.claimed);
	usb_udc_unregister(&u.gadget);
}

/* Endpoints a backend names without numbers get free numbers. */
static void test_core_ep_autoconfig_unnumbered_names(void **state)
{
	static struct fake_udc u;
	struct usb_endpoint_descriptor a = bulk(USB_DIR_IN, 64), b = bulk(USB_DIR_IN, 64);

	(void)state;
	fake_udc_init(&u, "fake.names", USB_SPEED_FULL);
	snprintf(u.eps[0].name, sizeof(u.eps[0].name), "bulk-in-a");
	snprintf(u.eps[2].name, sizeof(u.eps[2].name), "bulk-in-b");
	assert_int_equal(usb_udc_register(&u.gadget), 0);
	assert_non_null(usb_ep_autoconfig(&u.gadget, &a));
	assert_non_null(usb_ep_autoconfig(&u.gadget, &b));
	assert_int_equal(a.bEndpointAddress, 0x81);
	assert_int_equal(b.bEndpointAddress, 0x82);
	usb_udc_unregister(&u.gadget);
}

/* usb_ep_disable() forgets the descriptor, as Linux UDCs do: a function
 * that picks descriptors only while ep->desc is NULL (f_acm's habit) gets
 * the new speed's after a high-to-full-speed reconnect. */
static void test_core_ep_disable_forgets_descriptor(void **state)
{
	static struct tfunc t;
	static struct tdev d;

	(void)state;
	tfunc_init(&t, "lazy");
	t.lazy_ep_config = true;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &t);
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
	assert_int_equal(t.in->maxpacket, 512);
	assert_int_equal(t.out->maxpacket, 512);
	usb_gadget_event(&d.udc.gadget, USB_GADGET_EVENT_DISCONNECT);
	assert_false(t.in->enabled);
	assert_null(t.in->desc);
	assert_null(t.out->desc);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_FULL, 1), 0);
	assert_int_equal(t.in->maxpacket, 64);
	assert_int_equal(t.out->maxpacket, 64);
	tdev_stop(&d);
}

/* After an unbind no endpoint points into the freed descriptor copies, so
 * a second probe on the same UDC enables from fresh ones (valgrind: no
 * invalid read in usb_ep_enable()). */
static void test_core_ep_second_probe_fresh_descriptors(void **state)
{
	static struct tfunc t;
	static struct tdev d;
	int round;

	(void)state;
	for (round = 0; round < 2; round++) {
		tfunc_init(&t, "lazy");
		t.lazy_ep_config = true;
		tdev_init(&d, USB_SPEED_HIGH, 0x0200, &t);
		assert_int_equal(tdev_start(&d), 0);
		assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
		assert_true(t.in->enabled);
		assert_int_equal(t.in->maxpacket, 512);
		tdev_stop(&d);
		assert_null(t.in->desc);
		assert_null(t.out->desc);
		assert_null(t.in->comp_desc);
	}
}

static void test_core_ep_gadget_calls(void **state)
{
	static struct fake_udc u;

	(void)state;
	setup_udc(&u);
	assert_int_equal(usb_gadget_wakeup(&u.gadget), -USB_EINVAL);	/* not armed */
	u.gadget.remote_wakeup_armed = 1;
	assert_int_equal(usb_gadget_wakeup(&u.gadget), 0);
	assert_int_equal(u.wakeup_calls, 1);
	u.ops.wakeup = NULL;
	assert_int_equal(usb_gadget_wakeup(&u.gadget), -USB_EOPNOTSUPP);
	assert_int_equal(usb_gadget_set_selfpowered(&u.gadget, 1), 0);
	assert_true(u.gadget.is_selfpowered);
	assert_int_equal(usb_gadget_connect(&u.gadget), 0);
	assert_int_equal(u.pullup, 1);
	assert_int_equal(usb_gadget_disconnect(&u.gadget), 0);
	assert_int_equal(u.pullup, 0);
	u.ops.pullup = NULL;
	assert_int_equal(usb_gadget_connect(&u.gadget), -USB_EOPNOTSUPP);
	assert_int_equal(usb_gadget_vbus_draw(&u.gadget, 500), 0);
	assert_int_equal(u.vbus_ma, 500);
	assert_int_equal(usb_ep_fifo_status(&u.eps[0].ep), 0);
	u.ep_ops.fifo_status = NULL;
	assert_int_equal(usb_ep_fifo_status(&u.eps[0].ep), -USB_EOPNOTSUPP);
	usb_ep_fifo_flush(&u.eps[0].ep);	/* unsupported: a no-op */
	usb_udc_unregister(&u.gadget);
}

static void test_core_ep_strerror(void **state)
{
	(void)state;
	assert_string_equal(usb_strerror(-USB_EPIPE), "EPIPE (stall)");
	assert_string_equal(usb_strerror(USB_EPIPE), "EPIPE (stall)");
	assert_string_equal(usb_strerror(0), "success");
	assert_string_equal(usb_strerror(-9999), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_core_ep_enable_checks, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_queue_and_giveback, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_halt_and_wedge, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_isochronous_halt_refused, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_autoconfig, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_autoconfig_unnumbered_names, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_disable_forgets_descriptor, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_second_probe_fresh_descriptors, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_gadget_calls, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep_strerror, fake_udc_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
