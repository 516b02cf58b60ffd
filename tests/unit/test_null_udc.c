/*
 * test_null_udc.c - the null backend (src/udc/null), the template
 * UDC: registration, every mandatory op through the core's usb_ep_*()
 * calls, and its "interrupt" entry points driving a small composite
 * device (SETUP, reset, disconnect, request completion).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/function.h"
#include "composite/null_udc.h"

struct done_log {
	int status[16];
	unsigned actual[16];
	struct usb_request *req[16];
	int n;
};

static struct done_log dlog;

static void log_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	if (dlog.n < 16) {
		dlog.status[dlog.n] = req->status;
		dlog.actual[dlog.n] = req->actual;
		dlog.req[dlog.n] = req;
		dlog.n++;
	}
}

/* ---- a minimal function: one bulk IN, one bulk OUT ---------------------- */

static struct {
	struct usb_function f;
	struct usb_ep *in, *out;
	bool enabled;
	int set_alt_calls;
	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor ein, eout, hin, hout;
	struct usb_descriptor_header *fs[4], *hs[4];
} fn;

static int fn_bind(struct usb_configuration *c, struct usb_function *f)
{
	int id = usb_interface_id(c, f);

	if (id < 0)
		return id;
	fn.intf.bInterfaceNumber = (uint8_t)id;
	fn.in = usb_ep_autoconfig(c->cdev->gadget, &fn.ein);
	fn.out = usb_ep_autoconfig(c->cdev->gadget, &fn.eout);
	if (!fn.in || !fn.out)
		return -USB_ENODEV;
	fn.hin.bEndpointAddress = fn.ein.bEndpointAddress;
	fn.hout.bEndpointAddress = fn.eout.bEndpointAddress;
	return usb_assign_descriptors(f, fn.fs, fn.hs, NULL, NULL);
}

static void fn_unbind(struct usb_configuration *c, struct usb_function *f)
{
	(void)c;
	usb_free_all_descriptors(f);
}

static void fn_disable(struct usb_function *f)
{
	(void)f;
	if (fn.enabled) {
		usb_ep_disable(fn.in);
		usb_ep_disable(fn.out);
		fn.enabled = false;
	}
}

static int fn_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	struct usb_gadget *g = f->config->cdev->gadget;

	(void)intf;
	(void)alt;
	fn.set_alt_calls++;
	fn_disable(f);
	assert_int_equal(config_ep_by_speed(g, f, fn.in), 0);
	assert_int_equal(config_ep_by_speed(g, f, fn.out), 0);
	assert_int_equal(usb_ep_enable(fn.in), 0);
	assert_int_equal(usb_ep_enable(fn.out), 0);
	fn.enabled = true;
	return 0;
}

static void fn_init(void)
{
	memset(&fn, 0, sizeof(fn));
	fn.f.name = "null-test";
	fn.f.bind = fn_bind;
	fn.f.unbind = fn_unbind;
	fn.f.set_alt = fn_set_alt;
	fn.f.disable = fn_disable;
	fn.intf.bLength = USB_DT_INTERFACE_SIZE;
	fn.intf.bDescriptorType = USB_DT_INTERFACE;
	fn.intf.bNumEndpoints = 2;
	fn.intf.bInterfaceClass = USB_CLASS_VENDOR_SPEC;
	fn.ein.bLength = fn.eout.bLength = USB_DT_ENDPOINT_SIZE;
	fn.ein.bDescriptorType = fn.eout.bDescriptorType = USB_DT_ENDPOINT;
	fn.ein.bEndpointAddress = USB_DIR_IN;
	fn.ein.bmAttributes = fn.eout.bmAttributes = USB_ENDPOINT_XFER_BULK;
	fn.hin = fn.ein;
	fn.hout = fn.eout;
	fn.hin.wMaxPacketSize = fn.hout.wMaxPacketSize = USB_CPU_TO_LE16(512);
	fn.fs[0] = fn.hs[0] = (struct usb_descriptor_header *)&fn.intf;
	fn.fs[1] = (struct usb_descriptor_header *)&fn.ein;
	fn.fs[2] = (struct usb_descriptor_header *)&fn.eout;
	fn.hs[1] = (struct usb_descriptor_header *)&fn.hin;
	fn.hs[2] = (struct usb_descriptor_header *)&fn.hout;
}

static struct usb_configuration config = {
	.label = "null",
	.bConfigurationValue = 1,
};

static int config_bind(struct usb_configuration *c)
{
	return usb_add_function(c, &fn.f);
}

static int driver_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &config, config_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x1234),
	.idProduct = USB_CPU_TO_LE16(0x5678),
};

static struct usb_composite_driver driver = {
	.name = "null-test",
	.dev = &dd,
	.udc_name = "null.0",
	.bind = driver_bind,
};

static struct usb_ctrlrequest setup_pkt(uint8_t type, uint8_t req, uint16_t value,
					uint16_t index, uint16_t length)
{
	struct usb_ctrlrequest s = {
		.bRequestType = type,
		.bRequest = req,
		.wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index),
		.wLength = USB_CPU_TO_LE16(length),
	};

	return s;
}

/* ---- tests -------------------------------------------------------------- */

static void test_null_udc_register(void **state)
{
	struct usb_null_udc *a = NULL, *b = NULL;
	struct usb_null_udc_config c = { .name = "null.x", .num_pairs = 16 };
	struct usb_ctrlrequest s = setup_pkt(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x100, 0, 18);
	struct list_head *pos;
	unsigned n = 0;

	(void)state;
	assert_int_equal(usb_null_udc_create(&c, &a), -USB_EINVAL);
	c.num_pairs = 2;
	assert_int_equal(usb_null_udc_create(&c, &a), 0);
	assert_int_equal(usb_null_udc_create(&c, &b), -USB_EINVAL);
	assert_null(b);
	assert_ptr_equal(usb_udc_find("null.x"), usb_null_udc_gadget(a));
	list_for_each(pos, &usb_null_udc_gadget(a)->ep_list)
		n++;
	assert_int_equal(n, 4);
	/* Nothing bound: no events go anywhere. */
	assert_int_equal(usb_null_udc_setup(a, &s), -USB_ENODEV);
	assert_int_equal(usb_null_udc_event(a, USB_GADGET_EVENT_RESET, USB_SPEED_HIGH),
			 -USB_ENODEV);
	usb_null_udc_destroy(a);
	assert_null(usb_udc_find("null.x"));
	usb_null_udc_destroy(NULL);
}

static void test_null_udc_device(void **state)
{
	struct usb_null_udc *u = NULL;
	struct usb_gadget *g;
	struct usb_request *r, *r2;
	struct usb_ctrlrequest s;
	uint8_t buf[64];

	(void)state;
	fn_init();
	memset(&dlog, 0, sizeof(dlog));
	assert_int_equal(usb_null_udc_create(NULL, &u), 0);
	g = usb_null_udc_gadget(u);
	assert_int_equal(usb_composite_probe(&driver), 0);
	assert_int_equal(usb_null_udc_event(u, USB_GADGET_EVENT_RESET, USB_SPEED_SUPER),
			 -USB_EINVAL);
	assert_int_equal(usb_null_udc_event(u, USB_GADGET_EVENT_RESET, USB_SPEED_HIGH), 0);
	assert_int_equal(g->speed, USB_SPEED_HIGH);

	/* GET_DESCRIPTOR(device): the core queues the 18 bytes on ep0. */
	s = setup_pkt(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0, 64);
	assert_int_equal(usb_null_udc_setup(u, &s), 0);
	r = usb_null_udc_head(u, g->ep0);
	assert_non_null(r);
	assert_int_equal(r->length, 18);
	memcpy(buf, r->buf, 18);
	assert_int_equal(buf[1], USB_DT_DEVICE);
	assert_int_equal(usb_get_le16(buf + 8), 0x1234);
	assert_int_equal(usb_null_udc_complete(u, g->ep0, 18, 0), 0);
	assert_int_equal(usb_null_udc_queued(u, g->ep0), 0);
	assert_int_equal(usb_null_udc_complete(u, g->ep0, 0, 0), -USB_ENOENT);

	/* SET_ADDRESS, then leave a request on ep0: the next SETUP takes it
	 * back first (the core's completion sees ECONNRESET). */
	s = setup_pkt(0, USB_REQ_SET_ADDRESS, 3, 0, 0);
	assert_int_equal(usb_null_udc_setup(u, &s), 0);
	assert_int_equal(usb_null_udc_head(u, g->ep0)->length, 0);
	assert_int_equal(usb_null_udc_complete(u, g->ep0, 0, 0), 0);
	s = setup_pkt(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, 9);
	assert_int_equal(usb_null_udc_setup(u, &s), 0);
	assert_int_equal(usb_null_udc_queued(u, g->ep0), 1);
	s = setup_pkt(0, USB_REQ_SET_CONFIGURATION, 1, 0, 0);
	assert_int_equal(usb_null_udc_setup(u, &s), 0);
	assert_int_equal(usb_null_udc_queued(u, g->ep0), 1);
	assert_int_equal(fn.set_alt_calls, 1);
	assert_true(fn.in->enabled);
	assert_int_equal(usb_null_udc_complete(u, g->ep0, 0, 0), 0);

	/* A request the core does not know: stall. */
	s = setup_pkt(USB_DIR_IN | USB_TYPE_CLASS, 0x55, 0, 0, 4);
	assert_true(usb_null_udc_setup(u, &s) < 0);
	assert_true(usb_null_udc_ep0_stalled(u));

	/* Queue, complete in order, dequeue, halt rules. */
	r = usb_ep_alloc_request(fn.in, USB_GFP_KERNEL);
	r2 = usb_ep_alloc_request(fn.in, USB_GFP_KERNEL);
	assert_non_null(r);
	assert_non_null(r2);
	r->buf = r2->buf = buf;
	r->length = r2->length = 32;
	r->complete = r2->complete = log_complete;
	assert_int_equal(usb_ep_queue(fn.in, r, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_ep_queue(fn.in, r, USB_GFP_ATOMIC), -USB_EBUSY);
	assert_int_equal(usb_ep_queue(fn.in, r2, USB_GFP_ATOMIC), 0);
	assert_int_equal(dlog.n, 0);	/* never inside queue */
	assert_int_equal(usb_ep_set_halt(fn.in), -USB_EAGAIN);
	assert_int_equal(usb_null_udc_complete(u, fn.in, 100, 0), 0);
	assert_int_equal(dlog.n, 1);
	assert_ptr_equal(dlog.req[0], r);
	assert_int_equal(dlog.actual[0], 32);	/* cut to the length */
	assert_int_equal(usb_ep_dequeue(fn.in, r2), 0);
	assert_int_equal(dlog.status[1], -USB_ECONNRESET);
	assert_int_equal(usb_ep_dequeue(fn.in, r2), -USB_EINVAL);
	assert_int_equal(usb_ep_set_halt(fn.in), 0);
	assert_true(usb_ep_is_halted(fn.in));
	assert_int_equal(usb_ep_clear_halt(fn.in), 0);

	/* Disable gives back with ESHUTDOWN; so does a disconnect. */
	assert_int_equal(usb_ep_queue(fn.in, r, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_ep_queue(fn.in, r2, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_ep_disable(fn.in), 0);
	fn.enabled = false;
	assert_int_equal(dlog.n, 4);
	assert_int_equal(dlog.status[2], -USB_ESHUTDOWN);
	assert_int_equal(dlog.status[3], -USB_ESHUTDOWN);
	assert_int_equal(usb_ep_queue(fn.in, r, USB_GFP_ATOMIC), -USB_ESHUTDOWN);
	assert_null(fn.in->desc);	/* disable forgot it, as on Linux */
	assert_int_equal(config_ep_by_speed(g, &fn.f, fn.in), 0);
	assert_int_equal(usb_ep_enable(fn.in), 0);
	fn.enabled = true;
	assert_int_equal(usb_ep_queue(fn.in, r, USB_GFP_ATOMIC), 0);
	assert_int_equal(usb_null_udc_event(u, USB_GADGET_EVENT_DISCONNECT, USB_SPEED_UNKNOWN), 0);
	assert_int_equal(dlog.n, 5);
	assert_int_equal(dlog.status[4], -USB_ESHUTDOWN);
	assert_false(fn.in->enabled);
	assert_int_equal(usb_null_udc_complete(u, fn.in, 0, 1), -USB_EINVAL);

	usb_ep_free_request(fn.in, r);
	usb_ep_free_request(fn.in, r2);
	usb_composite_unregister(&driver);
	usb_null_udc_destroy(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_udc_register),
		cmocka_unit_test(test_null_udc_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
