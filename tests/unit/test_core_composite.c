/*
 * test_core_composite.c - the composite device's life through the public
 * API: probe and unregister (arguments, UDC choice, failing binds undone,
 * repeated cycles), configurations and functions (mandatory ops,
 * multi-configuration devices, alternate settings), delayed status, bus
 * events, function (de)activation and the UDC registry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_core_fixture.h"

static int get_config(struct tdev *d)
{
	uint8_t v = 0xee;

	if (fake_ctrl(&d->udc, 0x80, USB_REQ_GET_CONFIGURATION, 0, 0, 1, &v, 1) != 1)
		return -1;
	return v;
}

static void test_core_composite_probe_args(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	int (*bind)(struct usb_composite_dev *);

	(void)state;
	tfunc_init(&f, "f");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(usb_composite_probe(NULL), -USB_EINVAL);
	/* No UDC registered. */
	assert_int_equal(usb_composite_probe(&d.driver), -USB_ENODEV);
	assert_null(get_gadget_data(&d.udc.gadget));
	assert_int_equal(usb_udc_register(&d.udc.gadget), 0);
	bind = d.driver.bind;
	d.driver.bind = NULL;
	assert_int_equal(usb_composite_probe(&d.driver), -USB_EINVAL);
	d.driver.bind = bind;
	d.driver.dev = NULL;
	assert_int_equal(usb_composite_probe(&d.driver), -USB_EINVAL);
	d.driver.dev = &d.dd;
	d.driver.udc_name = "no-such-udc";
	assert_int_equal(usb_composite_probe(&d.driver), -USB_ENODEV);
	d.driver.udc_name = "fake.0";
	assert_int_equal(usb_composite_probe(&d.driver), 0);
	assert_int_equal(d.udc.start_calls, 1);
	assert_ptr_equal(get_gadget_data(&d.udc.gadget), d.cdev);
	assert_non_null(d.cdev->req);
	assert_non_null(d.cdev->req->buf);
	assert_int_equal(usb_composite_probe(&d.driver), -USB_EBUSY);
	tdev_stop(&d);
	assert_int_equal(d.udc.stop_calls, 1);
	assert_null(get_gadget_data(&d.udc.gadget));
	assert_int_equal(f.unbind_calls, 1);
	assert_int_equal(f.free_calls, 1);
	assert_int_equal(d.unbind_calls, 1);
	assert_int_equal(d.cfg_unbind_calls, 1);
	assert_int_equal(d.udc.live_requests, 0);
	/* Idempotent. */
	usb_composite_unregister(&d.driver);
	assert_int_equal(d.udc.stop_calls, 1);
	assert_int_equal(d.unbind_calls, 1);
}

static void test_core_composite_bind_by_name_or_first_free(void **state)
{
	static struct tdev a, b;
	static struct tfunc fa, fb;

	(void)state;
	tfunc_init(&fa, "fa");
	tfunc_init(&fb, "fb");
	tdev_init(&a, USB_SPEED_HIGH, 0x0200, &fa);
	tdev_init(&b, USB_SPEED_HIGH, 0x0200, &fb);
	b.udc.gadget.name = "fake.1";
	assert_int_equal(usb_udc_register(&a.udc.gadget), 0);
	assert_int_equal(usb_udc_register(&b.udc.gadget), 0);
	assert_ptr_equal(usb_udc_find("fake.1"), &b.udc.gadget);
	assert_null(usb_udc_find("fake.2"));
	/* b's driver binds by name to fake.1; a's takes the first free. */
	b.driver.udc_name = "fake.1";
	assert_int_equal(usb_composite_probe(&b.driver), 0);
	assert_ptr_equal(b.cdev->gadget, &b.udc.gadget);
	assert_int_equal(usb_composite_probe(&a.driver), 0);
	assert_ptr_equal(a.cdev->gadget, &a.udc.gadget);
	/* Both taken: a third driver finds no free UDC. */
	{
		static struct tdev c;
		static struct tfunc fc;

		tfunc_init(&fc, "fc");
		tdev_init(&c, USB_SPEED_HIGH, 0x0200, &fc);
		assert_int_equal(usb_composite_probe(&c.driver), -USB_ENODEV);
		c.driver.udc_name = "fake.1";
		assert_int_equal(usb_composite_probe(&c.driver), -USB_ENODEV);
	}
	/* Unregistering a UDC unbinds its driver first. */
	usb_udc_unregister(&b.udc.gadget);
	assert_null(get_gadget_data(&b.udc.gadget));
	assert_int_equal(b.unbind_calls, 1);
	assert_int_equal(b.udc.stop_calls, 1);
	tdev_stop(&a);
}

static void test_core_composite_register_checks_ops(void **state)
{
	static struct fake_udc u;

	(void)state;
	fake_udc_init(&u, "fake.ops", USB_SPEED_HIGH);
	assert_int_equal(usb_udc_register(NULL), -USB_EINVAL);
	u.ops.start = NULL;
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	u.ops = (struct usb_gadget_ops){ 0 };
	fake_udc_init(&u, "fake.ops", USB_SPEED_HIGH);
	u.ops.stop = NULL;
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	fake_udc_init(&u, "fake.ops", USB_SPEED_HIGH);
	u.gadget.ep0 = NULL;
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	fake_udc_init(&u, "fake.ops", USB_SPEED_HIGH);
	u.ep_ops.queue = NULL;
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	fake_udc_init(&u, "fake.ops", USB_SPEED_HIGH);
	u.ep_ops.enable = NULL;
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	fake_udc_init(&u, NULL, USB_SPEED_HIGH);
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	fake_udc_init(&u, "fake.ops", USB_SPEED_HIGH);
	assert_int_equal(usb_udc_register(&u.gadget), 0);
	/* Twice, and a second gadget with the same name. */
	assert_int_equal(usb_udc_register(&u.gadget), -USB_EINVAL);
	{
		static struct fake_udc v;

		fake_udc_init(&v, "fake.ops", USB_SPEED_HIGH);
		assert_int_equal(usb_udc_register(&v.gadget), -USB_EINVAL);
	}
	usb_udc_unregister(&u.gadget);
	assert_null(usb_udc_find("fake.ops"));
	usb_udc_unregister(&u.gadget);	/* not registered: ignored */
}

static void test_core_composite_bind_failures_undo(void **state)
{
	static struct tdev d;
	static struct tfunc f1, f2;

	(void)state;
	/* The driver's bind fails after adding a configuration. */
	tfunc_init(&f1, "f1");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.bind_ret = -USB_EIO;
	assert_int_equal(tdev_start(&d), -USB_EIO);
	assert_null(get_gadget_data(&d.udc.gadget));
	assert_null(get_gadget_data(&d.udc.gadget));
	assert_int_equal(f1.unbind_calls, 1);
	assert_int_equal(f1.free_calls, 1);
	assert_int_equal(d.cfg_unbind_calls, 1);
	assert_int_equal(d.unbind_calls, 0);	/* its bind did not succeed */
	assert_int_equal(d.udc.start_calls, 0);
	assert_int_equal(d.udc.live_requests, 0);

	/* The second function's bind fails: the first is unbound, the
	 * second is not (its free_func is not called: the caller owns it). */
	tfunc_init(&f1, "f1");
	tfunc_init(&f2, "f2");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.funcs[0][1] = &f2;
	f2.bind_ret = -USB_EINVAL;
	assert_int_equal(tdev_start(&d), -USB_EINVAL);
	assert_int_equal(f1.unbind_calls, 1);
	assert_int_equal(f1.free_calls, 1);
	assert_int_equal(f2.bind_calls, 1);
	assert_int_equal(f2.unbind_calls, 0);
	assert_int_equal(f2.free_calls, 0);
	assert_null(f2.func.config);
	assert_int_equal(d.cfg_unbind_calls, 0);	/* config bind failed */
	/* Endpoints were released: every one is free again. */
	{
		unsigned i;

		for (i = 0; i < FAKE_MAX_EPS; i++)
			assert_false(d.udc.eps[i].ep.claimed);
	}

	/* The backend's start fails. */
	tfunc_init(&f1, "f1");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.udc.start_ret = -USB_EIO;
	assert_int_equal(tdev_start(&d), -USB_EIO);
	assert_int_equal(d.unbind_calls, 1);
	assert_int_equal(f1.free_calls, 1);
	assert_int_equal(d.udc.stop_calls, 0);
	assert_null(get_gadget_data(&d.udc.gadget));

	/* No memory for the ep0 request. */
	tfunc_init(&f1, "f1");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.udc.fail_alloc = true;
	assert_int_equal(tdev_start(&d), -USB_ENOMEM);
	assert_int_equal(d.bind_calls, 0);
}

static void test_core_composite_function_mandatory_ops(void **state)
{
	static struct tdev d;
	static struct tfunc f, g;
	struct usb_configuration *c;

	(void)state;
	tfunc_init(&f, "f");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	c = &d.cfg[0];
	tfunc_init(&g, "g");
	g.func.name = NULL;
	assert_int_equal(usb_add_function(c, &g.func), -USB_EINVAL);
	tfunc_init(&g, "g");
	g.func.bind = NULL;
	assert_int_equal(usb_add_function(c, &g.func), -USB_EINVAL);
	tfunc_init(&g, "g");
	g.func.set_alt = NULL;
	assert_int_equal(usb_add_function(c, &g.func), -USB_EINVAL);
	tfunc_init(&g, "g");
	g.func.disable = NULL;
	assert_int_equal(usb_add_function(c, &g.func), -USB_EINVAL);
	assert_int_equal(g.bind_calls, 0);
	/* Already added. */
	assert_int_equal(usb_add_function(c, &f.func), -USB_EINVAL);
	/* Configuration values: 0 and duplicates refused, bind needed. */
	{
		struct usb_configuration c0 = { .label = "zero" }, dup = { .bConfigurationValue = 1 };
		struct usb_configuration nob = { .bConfigurationValue = 7 };

		assert_int_equal(usb_add_config(d.cdev, &c0, d.cfg[0].bind), -USB_EINVAL);
		c0.bind = NULL;
		assert_int_equal(usb_add_config_only(d.cdev, &c0), -USB_EINVAL);
		assert_int_equal(usb_add_config_only(d.cdev, &dup), -USB_EINVAL);
		assert_int_equal(usb_add_config(d.cdev, &nob, NULL), -USB_EINVAL);
	}
	tdev_stop(&d);
}

static int last_status;

static void record_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	last_status = req->status;
}

static void test_core_composite_repeated_cycles(void **state)
{
	static uint8_t buf[64];
	struct usb_request *r;
	unsigned i;

	(void)state;
	for (i = 0; i < 50; i++) {
		static struct tdev d;
		static struct tfunc f1, f2;

		tfunc_init(&f1, "f1");
		tfunc_init(&f2, "f2");
		f2.free_on_unbind = (i % 2) != 0;	/* the core frees copies then */
		tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
		d.funcs[0][1] = &f2;
		assert_int_equal(tdev_start(&d), 0);
		assert_int_equal(tdev_enumerate(&d, i % 3 ? USB_SPEED_HIGH : USB_SPEED_FULL, 1), 0);
		/* Leave a request queued on an endpoint and one on ep0: the
		 * function's disable and the core give them back at unregister. */
		r = usb_ep_alloc_request(f1.in, USB_GFP_KERNEL);
		assert_non_null(r);
		r->buf = buf;
		r->length = sizeof(buf);
		r->complete = record_complete;
		assert_int_equal(usb_ep_queue(f1.in, r, USB_GFP_KERNEL), 0);
		last_status = 1;
		assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0x80, 6, 0, 1, 0, 0, 18, 0 }), 0);
		tdev_stop(&d);
		assert_int_equal(last_status, -USB_ESHUTDOWN);
		usb_ep_free_request(&d.udc.eps[0].ep, r);
		assert_int_equal(f1.disable_calls, 1);
		assert_int_equal(f2.disable_calls, 1);
		assert_int_equal(f1.free_calls, 1);
		assert_int_equal(d.udc.live_requests, 0);
		assert_null(f2.func.fs_descriptors);	/* its copies were freed */
	}
}

static void test_core_composite_multi_config(void **state)
{
	static struct tdev d;
	static struct tfunc a, b, c;
	uint8_t buf[256];
	int n;

	(void)state;
	tfunc_init(&a, "a");
	tfunc_init(&b, "b");
	tfunc_init(&c, "c");
	b.n_intf = 2;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &a);
	d.n_cfg = 2;
	d.funcs[1][0] = &b;
	d.funcs[1][1] = &c;
	d.cfg[1].bConfigurationValue = 7;
	d.cfg[1].label = "second";
	d.cfg[1].bmAttributes = USB_CONFIG_ATT_SELFPOWER;
	d.cfg[1].MaxPower = 0;
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);

	n = fake_ctrl(&d.udc, 0x80, 6, 0x0100, 0, 18, buf, sizeof(buf));
	assert_int_equal(n, 18);
	assert_int_equal(buf[17], 2);	/* bNumConfigurations */

	/* Configuration index 1: value 7, interfaces 0 and 1 of b, 2 of c.
	 * Endpoints are shared between configurations: b gets 0x81/0x02 again. */
	n = fake_ctrl(&d.udc, 0x80, 6, 0x0201, 0, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(n, 9 + (9 + 7 + 7 + 9) + (9 + 7 + 7));
	{
		const uint8_t hdr[9] = { 9, 2, (uint8_t)n, 0, 3, 7, 6, 0xc0, 1 };

		assert_memory_equal(buf, hdr, 9);
	}
	assert_int_equal(buf[9 + 2], 0);		/* b: interface 0 */
	assert_int_equal(buf[9 + 9 + 2], 0x81);
	assert_int_equal(buf[9 + 16 + 2], 0x02);
	assert_int_equal(buf[9 + 23 + 2], 1);		/* b: interface 1 */
	assert_int_equal(buf[9 + 32 + 2], 2);		/* c: interface 2 */
	assert_int_equal(buf[9 + 41 + 2], 0x83);	/* c's endpoints */
	assert_int_equal(buf[9 + 48 + 2], 0x04);
	/* The label is string 6: Maker 1, Thing 2, a 3, b 4, c 5. */
	assert_int_equal(buf[6], 6);
	n = fake_ctrl(&d.udc, 0x80, 6, 0x0306, 0x0409, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(n, 2 + 2 * 6);
	assert_int_equal(buf[2], 's');

	/* Select 7: b and c get set_alt for each interface, a nothing. */
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 7, 0, 0, NULL, 0), 0);
	assert_int_equal(get_config(&d), 7);
	assert_int_equal(b.set_alt_calls, 2);
	assert_int_equal(c.set_alt_calls, 1);
	assert_int_equal(a.set_alt_calls, 0);
	assert_int_equal(d.udc.vbus_ma, 2);	/* MaxPower 0: the default */
	/* Self-powered by the configuration's attributes. */
	n = fake_ctrl(&d.udc, 0x80, 0, 0, 0, 2, buf, 2);
	assert_int_equal(n, 2);
	assert_int_equal(buf[0], 1);
	/* Switch to 1: b and c disabled, a set. */
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), 0);
	assert_int_equal(b.disable_calls, 1);
	assert_int_equal(c.disable_calls, 1);
	assert_int_equal(a.set_alt_calls, 1);
	assert_int_equal(d.udc.vbus_ma, 100);
	/* Interface 2 does not exist in configuration 1. */
	assert_int_equal(fake_ctrl(&d.udc, 0x81, 0x0a, 0, 2, 1, buf, 1), FAKE_STALL);
	tdev_stop(&d);
	assert_int_equal(d.cfg_unbind_calls, 2);
}

static void test_core_composite_alternate_settings(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	uint8_t buf[128];
	int n;

	(void)state;
	tfunc_init(&f, "alts");
	f.two_alts = true;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
	n = fake_ctrl(&d.udc, 0x80, 6, 0x0200, 0, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(n, 9 + 2 * (9 + 7 + 7));
	assert_int_equal(buf[4], 1);			/* one interface, two alts */
	assert_int_equal(buf[9 + 23 + 3], 1);		/* bAlternateSetting */
	assert_int_equal(fake_ctrl(&d.udc, 0x01, 0x0b, 1, 0, 0, NULL, 0), 0);
	assert_int_equal(f.last_set_alt_alt, 1);
	assert_int_equal(fake_ctrl(&d.udc, 0x81, 0x0a, 0, 0, 1, buf, 1), 1);
	assert_int_equal(buf[0], 1);
	assert_int_equal(f.get_alt_calls, 1);
	/* Alternate 2 does not exist. */
	assert_int_equal(fake_ctrl(&d.udc, 0x01, 0x0b, 2, 0, 0, NULL, 0), FAKE_STALL);
	assert_int_equal(f.set_alt_calls, 2);
	/* A set_alt that fails stalls. */
	f.set_alt_ret = -USB_EINVAL;
	assert_int_equal(fake_ctrl(&d.udc, 0x01, 0x0b, 0, 0, 0, NULL, 0), FAKE_STALL);
	/* SET_CONFIGURATION whose set_alt fails: unconfigured, stall. */
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), FAKE_STALL);
	assert_int_equal(get_config(&d), 0);
	assert_int_equal(d.udc.gadget.state, USB_STATE_ADDRESS);
	/* Without get_alt, only alternate 0 exists for the core. */
	f.set_alt_ret = 0;
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), 0);
	f.func.get_alt = NULL;
	assert_int_equal(fake_ctrl(&d.udc, 0x01, 0x0b, 1, 0, 0, NULL, 0), FAKE_STALL);
	assert_int_equal(fake_ctrl(&d.udc, 0x81, 0x0a, 0, 0, 1, buf, 1), 1);
	assert_int_equal(buf[0], 0);
	tdev_stop(&d);
}

static void test_core_composite_delayed_status(void **state)
{
	static struct tdev d;
	static struct tfunc f1, f2;
	struct usb_composite_dev *cdev;

	(void)state;
	tfunc_init(&f1, "f1");
	tfunc_init(&f2, "f2");
	f1.set_alt_ret = USB_GADGET_DELAYED_STATUS;
	f2.set_alt_ret = USB_GADGET_DELAYED_STATUS;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.funcs[0][1] = &f2;
	assert_int_equal(tdev_start(&d), 0);
	cdev = d.cdev;
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	/* Two functions delay: the status waits for both. */
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), FAKE_PENDING);
	usb_composite_setup_continue(cdev);
	assert_null(fake_ep0_req(&d.udc));
	usb_composite_setup_continue(cdev);
	assert_non_null(fake_ep0_req(&d.udc));
	assert_int_equal(fake_ep0_req(&d.udc)->length, 0);
	fake_ep0_complete(&d.udc, 0, 0);
	/* Extra calls are ignored. */
	usb_composite_setup_continue(cdev);
	assert_null(fake_ep0_req(&d.udc));

	/* One of two delays. */
	f1.set_alt_ret = 0;
	f2.set_alt_ret = USB_GADGET_DELAYED_STATUS;
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), FAKE_PENDING);
	usb_composite_setup_continue(cdev);
	assert_non_null(fake_ep0_req(&d.udc));
	fake_ep0_complete(&d.udc, 0, 0);

	/* Class request returning DELAYED, then continue. */
	assert_int_equal(fake_ctrl(&d.udc, 0x21, TF_CLASS_DELAY, 0, 0, 0, NULL, 0), FAKE_PENDING);
	usb_composite_setup_continue(cdev);
	assert_non_null(fake_ep0_req(&d.udc));
	fake_ep0_complete(&d.udc, 0, 0);

	/* A new SETUP abandons a pending delay: a late continue is ignored. */
	assert_int_equal(fake_ctrl(&d.udc, 0x21, TF_CLASS_DELAY, 0, 0, 0, NULL, 0), FAKE_PENDING);
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 8, 0, 0, 1, NULL, 0), 1);
	usb_composite_setup_continue(cdev);
	assert_null(fake_ep0_req(&d.udc));
	tdev_stop(&d);
}

/* set_alt that calls usb_composite_setup_continue() itself before it
 * returns USB_GADGET_DELAYED_STATUS: the race the guard exists for. */
static int early_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	(void)intf;
	(void)alt;
	usb_composite_setup_continue(f->config->cdev);
	return USB_GADGET_DELAYED_STATUS;
}

static void test_core_composite_delayed_status_early_continue(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	struct usb_request *r;

	(void)state;
	tfunc_init(&f, "early");
	f.func.set_alt = early_set_alt;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0, 9, 1, 0, 0, 0, 0, 0 }), 0);
	r = fake_ep0_req(&d.udc);
	assert_non_null(r);	/* exactly one status, sent by the dispatcher */
	assert_int_equal(r->length, 0);
	fake_ep0_complete(&d.udc, 0, 0);
	assert_null(fake_ep0_req(&d.udc));
	assert_int_equal(get_config(&d), 1);
	tdev_stop(&d);
}

static void test_core_composite_bus_events(void **state)
{
	static struct tdev d;
	static struct tfunc f;

	(void)state;
	tfunc_init(&f, "ev");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
	assert_true(f.in->enabled);
	assert_int_equal(d.udc.gadget.state, USB_STATE_CONFIGURED);

	usb_gadget_event(&d.udc.gadget, USB_GADGET_EVENT_SUSPEND);
	assert_true(d.cdev->suspended);
	assert_int_equal(f.suspend_calls, 1);
	assert_int_equal(d.suspend_calls, 1);
	usb_gadget_event(&d.udc.gadget, USB_GADGET_EVENT_RESUME);
	assert_false(d.cdev->suspended);
	assert_int_equal(f.resume_calls, 1);
	assert_int_equal(d.resume_calls, 1);
	usb_gadget_event(&d.udc.gadget, USB_GADGET_EVENT_RESUME);	/* not suspended */
	assert_int_equal(d.resume_calls, 1);

	/* Reset: configuration disabled, default state, disconnect called. */
	d.disconnect_calls = 0;
	fake_udc_reset(&d.udc, USB_SPEED_FULL);
	assert_int_equal(f.disable_calls, 1);
	assert_false(f.in->enabled);
	assert_null(d.cdev->config);
	assert_int_equal(d.udc.gadget.state, USB_STATE_DEFAULT);
	assert_int_equal(d.disconnect_calls, 1);
	/* Enumerate again at full speed; then disconnect. */
	assert_int_equal(fake_ctrl(&d.udc, 0, 5, 3, 0, 0, NULL, 0), 0);
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), 0);
	assert_int_equal(f.in->maxpacket, 64);	/* full-speed descriptors */
	usb_gadget_event(&d.udc.gadget, USB_GADGET_EVENT_DISCONNECT);
	assert_int_equal(f.disable_calls, 2);
	assert_int_equal(d.disconnect_calls, 2);
	assert_int_equal(d.udc.gadget.state, USB_STATE_NOTATTACHED);
	tdev_stop(&d);
}

static void test_core_composite_activate(void **state)
{
	static struct tdev d;
	static struct tfunc f;

	(void)state;
	tfunc_init(&f, "act");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	d.udc.pullup = 1;
	assert_int_equal(usb_function_activate(&f.func), -USB_EINVAL);
	assert_int_equal(usb_function_deactivate(&f.func), 0);
	assert_int_equal(d.udc.pullup, 0);
	assert_int_equal(usb_function_deactivate(&f.func), 0);
	assert_int_equal(d.udc.pullup_calls, 1);
	assert_int_equal(usb_function_activate(&f.func), 0);
	assert_int_equal(d.udc.pullup, 0);	/* one still deactivated */
	assert_int_equal(usb_function_activate(&f.func), 0);
	assert_int_equal(d.udc.pullup, 1);
	assert_int_equal(d.udc.pullup_calls, 2);
	tdev_stop(&d);
}

static void test_core_composite_remove_function(void **state)
{
	static struct tdev d;
	static struct tfunc f1, f2;
	uint8_t buf[128];

	(void)state;
	tfunc_init(&f1, "f1");
	tfunc_init(&f2, "f2");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.funcs[0][1] = &f2;
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
	usb_remove_function(&d.cfg[0], &f2.func);
	assert_int_equal(f2.disable_calls, 1);
	assert_int_equal(f2.unbind_calls, 1);
	assert_int_equal(f2.free_calls, 1);
	assert_null(f2.func.config);
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 6, 0x0200, 0, sizeof(buf), buf, sizeof(buf)),
			 9 + 9 + 7 + 7);
	assert_int_equal(buf[4], 1);
	usb_remove_function(&d.cfg[0], &f2.func);	/* not there: ignored */
	assert_int_equal(f2.unbind_calls, 1);
	/* Removing the active configuration unconfigures the device. */
	usb_remove_config(d.cdev, &d.cfg[0]);
	assert_int_equal(f1.disable_calls, 1);
	assert_int_equal(d.udc.gadget.state, USB_STATE_ADDRESS);
	assert_int_equal(d.cfg_unbind_calls, 1);
	assert_int_equal(get_config(&d), 0);
	tdev_stop(&d);
	assert_int_equal(d.cfg_unbind_calls, 1);
}

static void test_core_composite_driver_strings(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	uint8_t buf[256];
	int n;

	(void)state;
	tfunc_init(&f, "s");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	d.driver.iSerialNumber = "0123";
	d.driver.iProduct = "Prod\xc3\xa9";	/* e-acute */
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	n = fake_ctrl(&d.udc, 0x80, 6, 0x0100, 0, 18, buf, sizeof(buf));
	assert_int_equal(n, 18);
	/* Driver fields got ids 1 and 2 before bind; they override bind's. */
	assert_int_equal(buf[14], 3);	/* iManufacturer from bind: Maker = 3 */
	assert_int_equal(buf[15], 1);	/* iProduct */
	assert_int_equal(buf[16], 2);	/* iSerialNumber */
	n = fake_ctrl(&d.udc, 0x80, 6, 0x0301, 0x0409, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(n, 12);
	assert_int_equal(buf[10], 0xe9);
	assert_int_equal(buf[11], 0x00);
	tdev_stop(&d);
}


static int config_setup_calls;

static int config_setup(struct usb_configuration *c, const struct usb_ctrlrequest *ctrl)
{
	struct usb_request *req = c->cdev->req;
	const uint8_t *raw = (const void *)ctrl;

	config_setup_calls++;
	if (raw[1] != 0x33)
		return -USB_EOPNOTSUPP;
	((uint8_t *)req->buf)[0] = 0xc5;
	req->length = 1;
	return usb_ep_queue(c->cdev->gadget->ep0, req, USB_GFP_ATOMIC);
}

static void test_core_composite_routing(void **state)
{
	static struct tdev d;
	static struct tfunc f1, f2;
	uint8_t b[8];

	(void)state;
	tfunc_init(&f1, "r1");
	tfunc_init(&f2, "r2");
	f2.match = true;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	d.funcs[0][1] = &f2;
	d.cfg[0].setup = config_setup;
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	config_setup_calls = 0;
	/* Unconfigured: req_match is asked (config0) and f2 claims it. */
	assert_int_equal(fake_ctrl(&d.udc, 0xc0, TF_MATCH_REQ, 0, 0, 8, b, sizeof(b)), 1);
	assert_int_equal(b[0], 0x5a);
	assert_int_equal(f2.setup_calls, 1);
	assert_int_equal(f1.setup_calls, 0);
	/* The configuration's setup is asked only when configured. */
	assert_int_equal(fake_ctrl(&d.udc, 0xc0, 0x33, 0, 0, 8, b, sizeof(b)), FAKE_STALL);
	assert_int_equal(config_setup_calls, 0);
	assert_int_equal(fake_ctrl(&d.udc, 0, 9, 1, 0, 0, NULL, 0), 0);
	assert_int_equal(fake_ctrl(&d.udc, 0xc0, 0x33, 0, 0, 8, b, sizeof(b)), 1);
	assert_int_equal(b[0], 0xc5);
	assert_int_equal(config_setup_calls, 1);
	/* Interface 1 is f2's: addressed by recipient, f2 answers without
	 * being asked req_match; interface 0 is f1's. */
	assert_int_equal(fake_ctrl(&d.udc, 0xc1, TF_VENDOR_IN, 2, 1, 8, b, sizeof(b)), 2);
	assert_int_equal(f2.setup_calls, 2);
	assert_int_equal(fake_ctrl(&d.udc, 0xc1, TF_VENDOR_IN, 2, 0, 8, b, sizeof(b)), 2);
	assert_int_equal(f1.setup_calls, 1);
	/* f2's endpoints (0x83, 0x04) route to f2. */
	assert_int_equal(fake_ctrl(&d.udc, 0xc2, TF_VENDOR_IN, 1, 0x83, 8, b, sizeof(b)), 1);
	assert_int_equal(f2.setup_calls, 3);
	/* Nobody claims: the configuration's setup refuses: stall. */
	assert_int_equal(fake_ctrl(&d.udc, 0x40, 0x44, 0, 0, 0, NULL, 0), FAKE_STALL);
	assert_int_equal(config_setup_calls, 2);
	/* Self-powered from the gadget as well. */
	d.udc.gadget.is_selfpowered = 1;
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 0, 0, 0, 2, b, 2), 2);
	assert_int_equal(b[0], 1);
	tdev_stop(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_core_composite_probe_args, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_bind_by_name_or_first_free, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_register_checks_ops, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_bind_failures_undo, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_function_mandatory_ops, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_repeated_cycles, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_multi_config, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_alternate_settings, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_delayed_status, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_delayed_status_early_continue, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_bus_events, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_activate, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_remove_function, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_driver_strings, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_composite_routing, fake_udc_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
