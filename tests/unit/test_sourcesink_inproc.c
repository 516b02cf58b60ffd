/*
 * test_sourcesink_inproc.c - Gadget Zero as examples/gadget_zero builds it
 * (configuration 3 "source/sink", configuration 2 "loopback", endpoints
 * reused across them) driven by the in-process host, with a real
 * controller's packet rules: enumeration of both configurations, the source
 * pattern as read by a host, the sink check and its stall, vendor requests
 * 0x5b/0x5c, alternate setting 1 with isochronous data, the loopback echo
 * of many sizes (short packets, zero-length packets), and unplugging or
 * unconfiguring with transfers in flight.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/f_loopback.h"
#include "composite/inproc_host.h"
#include "composite/sourcesink.h"

#define TMO 2000

static struct f_ss_opts ss_opts;
static struct f_lb_opts lb_opts;
static struct usb_function *f_ss, *f_lb;

static int ss_cfg_bind(struct usb_configuration *c)
{
	int ret = sourcesink_alloc(&ss_opts, &f_ss);

	if (ret == 0 && (ret = usb_add_function(c, f_ss)) != 0) {
		sourcesink_free(f_ss);
		f_ss = NULL;
	}
	return ret;
}

static int lb_cfg_bind(struct usb_configuration *c)
{
	int ret = loopback_alloc(&lb_opts, &f_lb);

	if (ret == 0 && (ret = usb_add_function(c, f_lb)) != 0) {
		loopback_free(f_lb);
		f_lb = NULL;
	}
	return ret;
}

static struct usb_configuration ss_cfg = {
	.label = "source/sink", .bConfigurationValue = 3,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};
static struct usb_configuration lb_cfg = {
	.label = "loopback", .bConfigurationValue = 2,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int zero_bind(struct usb_composite_dev *cdev)
{
	int ret = usb_add_config(cdev, &ss_cfg, ss_cfg_bind);

	usb_ep_autoconfig_reset(cdev->gadget);
	if (ret == 0)
		ret = usb_add_config(cdev, &lb_cfg, lb_cfg_bind);
	return ret;
}

static const struct usb_device_descriptor zero_dd = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.bDeviceClass = USB_CLASS_VENDOR_SPEC,
	.idVendor = USB_CPU_TO_LE16(0x0525),
	.idProduct = USB_CPU_TO_LE16(0xa4a0),
};

static struct usb_composite_driver zero_driver = {
	.name = "zero-test",
	.dev = &zero_dd,
	.max_speed = USB_SPEED_HIGH,
	.udc_name = "gz-lb.0",
	.bind = zero_bind,
};

struct ctx {
	struct usb_inproc_host *h;
	uint8_t cfg[256];
	int cfg_len;
	uint8_t in, out, iso_in, iso_out;
};

static struct ctx C;

static int setup_host(void **state)
{
	struct usb_inproc_host_config hc = { .udc_name = "gz-lb.0",
					       .max_speed = USB_SPEED_HIGH };

	(void)state;
	memset(&C, 0, sizeof(C));
	f_ss = f_lb = NULL;
	f_ss_opts_init(&ss_opts);
	f_lb_opts_init(&lb_opts);
	return usb_inproc_host_create(&hc, &C.h) ? -1 : 0;
}

static int teardown_host(void **state)
{
	(void)state;
	usb_composite_unregister(&zero_driver);
	usb_inproc_host_destroy(C.h);
	C.h = NULL;
	return 0;
}

/* Enumerate configuration @value and note the endpoint addresses. */
static void enumerate(uint8_t value)
{
	struct usb_device_descriptor dd;
	unsigned alt = 0;

	/* Bound on first use, so that a test sets the options first. */
	if (!f_ss)
		assert_int_equal(usb_composite_probe(&zero_driver), 0);

	C.cfg_len = usb_inproc_host_enumerate(C.h, USB_SPEED_HIGH, value, &dd, C.cfg,
						sizeof(C.cfg), TMO);
	assert_true(C.cfg_len > 9);
	assert_int_equal(USB_LE16_TO_CPU(dd.idVendor), 0x0525);
	assert_int_equal(USB_LE16_TO_CPU(dd.idProduct), 0xa4a0);
	assert_int_equal(dd.bNumConfigurations, 2);
	for (int off = 0; off + 2 <= C.cfg_len && C.cfg[off] >= 2; off += C.cfg[off]) {
		const uint8_t *d = C.cfg + off;

		if (d[1] == USB_DT_INTERFACE)
			alt = d[3];
		if (d[1] != USB_DT_ENDPOINT)
			continue;
		if ((d[3] & 3) == USB_ENDPOINT_XFER_BULK && alt == 0)
			*(d[2] & USB_DIR_IN ? &C.in : &C.out) = d[2];
		if ((d[3] & 3) == USB_ENDPOINT_XFER_ISOC)
			*(d[2] & USB_DIR_IN ? &C.iso_in : &C.iso_out) = d[2];
	}
	assert_true(C.in & USB_DIR_IN);
	assert_true(C.out && !(C.out & USB_DIR_IN));
}

static int ctrl(uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *data,
		uint16_t len)
{
	struct usb_ctrlrequest s = {
		.bRequestType = type, .bRequest = req, .wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index), .wLength = USB_CPU_TO_LE16(len),
	};

	return usb_inproc_host_control(C.h, &s, data, TMO);
}

static void test_sourcesink_inproc_two_configurations(void **state)
{
	uint8_t head[9];

	(void)state;
	enumerate(3);
	assert_int_equal(C.cfg[5], 3);
	assert_true(C.iso_in && C.iso_out);	/* the in-process host has iso */
	/* Configuration index 1 is the loopback one, value 2. */
	assert_int_equal(ctrl(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8 | 1, 0,
			      head, 9), 9);
	assert_int_equal(head[5], 2);
	assert_int_equal(usb_get_le16(head + 2), 9 + 9 + 7 + 7);
	/* Switching configurations moves the endpoints between functions. */
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 2, 0, NULL, 0), 0);
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 3, 0, NULL, 0), 0);
}

static void test_sourcesink_inproc_source_pattern(void **state)
{
	uint8_t buf[4096];

	(void)state;
	ss_opts.pattern = 1;
	enumerate(3);
	/* Reads of several sizes: the pattern restarts with every packet. */
	for (unsigned k = 0; k < 6; k++) {
		size_t len = k % 2 ? 1024 : 4096;
		int n;

		memset(buf, 0xa5, sizeof(buf));
		n = usb_inproc_host_transfer(C.h, C.in, buf, len, USB_INPROC_SHORT_NOT_OK, TMO);
		assert_int_equal(n, (int)len);
		for (int i = 0; i < n; i++)
			assert_int_equal(buf[i], (i % 512) % 63);
	}
}

static void test_sourcesink_inproc_sink_and_stall(void **state)
{
	uint8_t buf[1000];
	struct f_ss_stats st;

	(void)state;
	ss_opts.pattern = 1;
	enumerate(3);
	for (int i = 0; i < 1000; i++)
		buf[i] = (uint8_t)((i % 512) % 63);
	/* 1000 bytes end with a short packet: one request each time. */
	for (int k = 0; k < 3; k++)
		assert_int_equal(usb_inproc_host_transfer(C.h, C.out, buf, sizeof(buf), 0, TMO),
				 1000);
	sourcesink_get_stats(f_ss, &st);
	assert_int_equal(st.out_bytes, 3000);
	assert_int_equal(st.bad_packets, 0);

	buf[777] ^= 1;
	assert_int_equal(usb_inproc_host_transfer(C.h, C.out, buf, sizeof(buf), 0, TMO), 1000);
	/* The device halted OUT: the next write stalls until cleared. */
	buf[777] ^= 1;
	assert_int_equal(usb_inproc_host_transfer(C.h, C.out, buf, sizeof(buf), 0, TMO),
			 -USB_EPIPE);
	assert_int_equal(usb_inproc_host_clear_halt(C.h, C.out, TMO), 0);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.out, buf, sizeof(buf), 0, TMO), 1000);
	sourcesink_get_stats(f_ss, &st);
	assert_int_equal(st.bad_packets, 1);
	assert_int_equal(st.out_bytes, 5000);
}

/* usbtest case 13: the host halts each endpoint, sees the stall, clears it. */
static void test_sourcesink_inproc_host_halt(void **state)
{
	uint8_t buf[512], st[2];

	(void)state;
	enumerate(3);
	for (int k = 0; k < 2; k++) {
		uint8_t ep = k ? C.out : C.in;

		assert_int_equal(ctrl(USB_DIR_IN | USB_RECIP_ENDPOINT, USB_REQ_GET_STATUS, 0, ep,
				      st, 2), 2);
		assert_int_equal(usb_get_le16(st), 0);
		assert_int_equal(ctrl(USB_DIR_OUT | USB_RECIP_ENDPOINT, USB_REQ_SET_FEATURE,
				      USB_ENDPOINT_HALT, ep, NULL, 0), 0);
		assert_int_equal(ctrl(USB_DIR_IN | USB_RECIP_ENDPOINT, USB_REQ_GET_STATUS, 0, ep,
				      st, 2), 2);
		assert_int_equal(usb_get_le16(st), 1);
		memset(buf, 0, sizeof(buf));
		assert_int_equal(usb_inproc_host_transfer(C.h, ep, buf, sizeof(buf), 0, TMO),
				 -USB_EPIPE);
		assert_int_equal(usb_inproc_host_clear_halt(C.h, ep, TMO), 0);
		assert_int_equal(usb_inproc_host_transfer(C.h, ep, buf, sizeof(buf), 0, TMO),
				 (int)sizeof(buf));
	}
}

static void test_sourcesink_inproc_vendor_requests(void **state)
{
	static uint8_t data[4096], back[4096];

	(void)state;
	enumerate(3);
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i ^ (i >> 5));
	for (unsigned len = 1; len <= 4096; len = len * 3 + 1) {
		assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 0, data,
				      (uint16_t)len), (int)len);
		memset(back, 0, sizeof(back));
		assert_int_equal(ctrl(USB_DIR_IN | USB_TYPE_VENDOR, 0x5c, 0, 0, back,
				      (uint16_t)len), (int)len);
		assert_memory_equal(back, data, len);
	}
	assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 2, data, 4), -USB_EPIPE);
	assert_int_equal(ctrl(USB_DIR_IN | USB_TYPE_VENDOR, 0x5c, 0, 0, back, 4096), 4096);
	/* The loopback configuration has no vendor requests. */
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 2, 0, NULL, 0), 0);
	assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 0, data, 4), -USB_EPIPE);
}

static void test_sourcesink_inproc_alt1_iso(void **state)
{
	uint8_t buf[1024], alt = 0xff;
	struct f_ss_stats st;

	(void)state;
	ss_opts.pattern = 1;
	ss_opts.isoc_maxpacket = 512;
	enumerate(3);
	assert_int_equal(usb_inproc_host_set_interface(C.h, 0, 1, TMO), 0);
	assert_int_equal(ctrl(USB_DIR_IN | USB_RECIP_INTERFACE, USB_REQ_GET_INTERFACE, 0, 0,
			      &alt, 1), 1);
	assert_int_equal(alt, 1);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.iso_in, buf, 512, 0, TMO), 512);
	for (int i = 0; i < 512; i++)
		assert_int_equal(buf[i], (i % 512) % 63);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.iso_out, buf, 300, 0, TMO), 300);
	/* Bulk still works in alternate 1. */
	assert_int_equal(usb_inproc_host_transfer(C.h, C.in, buf, 512, 0, TMO), 512);
	sourcesink_get_stats(f_ss, &st);
	assert_int_equal(st.cur_alt, 1);
	assert_int_equal(st.iso_in_bytes, 512);
	assert_int_equal(st.iso_out_bytes, 300);
	assert_int_equal(usb_inproc_host_set_interface(C.h, 0, 0, TMO), 0);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.iso_in, buf, 512, 0, 100),
			 -USB_ETIMEDOUT);
	assert_int_equal(usb_inproc_host_set_interface(C.h, 0, 2, TMO), -USB_EPIPE);
}

static void test_sourcesink_inproc_loopback_echo(void **state)
{
	static const unsigned sizes[] = { 1, 2, 63, 64, 100, 511, 512, 513, 1024, 1500,
					  2048, 3000, 4095, 4096 };
	static uint8_t out[4096], in[8192];
	struct f_lb_stats st;
	uint64_t total = 0;

	(void)state;
	enumerate(2);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned n = sizes[k];
		int r;

		for (unsigned i = 0; i < n; i++)
			out[i] = (uint8_t)(i * 7 + k);
		/* A ZLP after a packet-aligned write ends the device's request
		 * (buflen 4096); the echo then ends the same way. */
		r = usb_inproc_host_transfer(C.h, C.out, out, n, USB_INPROC_ZERO_PACKET, TMO);
		assert_int_equal(r, (int)n);
		memset(in, 0, sizeof(in));
		r = usb_inproc_host_transfer(C.h, C.in, in, sizeof(in), 0, TMO);
		assert_int_equal(r, (int)n);
		assert_memory_equal(in, out, n);
		total += n;
	}
	loopback_get_stats(f_lb, &st);
	assert_int_equal(st.out_bytes, total);
	assert_int_equal(st.in_bytes, total);
}

static void test_sourcesink_inproc_disable_during_transfers(void **state)
{
	struct usb_inproc_xfer *x = NULL;
	uint8_t buf[512];

	(void)state;
	enumerate(2);
	/* A read waiting for an echo, then the host unconfigures. */
	assert_int_equal(usb_inproc_host_submit(C.h, C.in, buf, sizeof(buf), 0, &x), 0);
	assert_int_equal(usb_inproc_host_wait(C.h, x, 50), -USB_ETIMEDOUT);
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 0, 0, NULL, 0), 0);
	assert_int_equal(usb_inproc_host_cancel(C.h, x), 0);
	usb_inproc_host_free(C.h, x);
	/* Source/sink with transfers in flight, then an unplug. */
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 3, 0, NULL, 0), 0);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.in, buf, sizeof(buf), 0, TMO), 512);
	assert_int_equal(usb_inproc_host_submit(C.h, C.in, buf, sizeof(buf), 0, &x), 0);
	assert_int_equal(usb_inproc_host_disconnect(C.h), 0);
	usb_inproc_host_free(C.h, x);
	/* Re-plugged, it enumerates and works again. */
	enumerate(3);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.in, buf, sizeof(buf), 0, TMO), 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_two_configurations,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_source_pattern,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_sink_and_stall,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_host_halt,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_vendor_requests,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_alt1_iso,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_loopback_echo,
						setup_host, teardown_host),
		cmocka_unit_test_setup_teardown(test_sourcesink_inproc_disable_during_transfers,
						setup_host, teardown_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
