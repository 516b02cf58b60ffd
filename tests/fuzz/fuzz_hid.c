/*
 * fuzz_hid.c - libFuzzer target for the HID function (src/functions/hid):
 * its standard and class requests to the interface and its report queue
 * as a hostile host drives them through the in-process host. Each step's
 * first byte picks:
 *   0  a control transfer to the interface (request type, request, value,
 *      index, length and an OUT data stage from the input)
 *   1  an interrupt OUT report of input bytes, 2 an interrupt IN read
 *   3  hid_send_report() of input bytes, 4 SET_CONFIGURATION 0 or 1,
 *   5  enumeration again
 * What must hold besides ASan/UBSan: hid_send_report() answers 0 or a
 * documented error; every output report given to the gadget side is 1 to
 * report_length bytes; the queue never holds more than HID_REPORT_QUEUE+1.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/hid.h"
#include "composite/inproc_host.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TMO 2
#define REPORT_LENGTH 8

static struct usb_function *f_hid;
static struct f_hid_opts opts;

static void on_out(struct usb_function *f, void *ctx, const uint8_t *d, size_t n, bool set)
{
	(void)f;
	(void)ctx;
	(void)d;
	(void)set;
	CHECK(n >= 1 && n <= REPORT_LENGTH);
}

static const struct hid_ops ops = { .out_report = on_out };

static int cfg_bind(struct usb_configuration *c)
{
	int rc = hid_alloc(&opts, &f_hid);

	if (rc == 0 && (rc = usb_add_function(c, f_hid)) != 0)
		hid_free(f_hid);
	return rc;
}

static struct usb_configuration cfg = { .label = "hid", .bConfigurationValue = 1 };

static int drv_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &cfg, cfg_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200), .idVendor = USB_CPU_TO_LE16(0x1d6b),
};

static struct usb_composite_driver drv = {
	.name = "fuzz-hid", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "fuzz-hid.0", .bind = drv_bind,
};

static void step(struct usb_inproc_host *h, struct input *in)
{
	uint8_t buf[64];
	unsigned n;
	int rc;

	switch (in_u8(in) % 6) {
	case 0: {
		struct usb_ctrlrequest rq = {
			.bRequestType = (uint8_t)((in_u8(in) & 0xe0) | USB_RECIP_INTERFACE),
			.bRequest = in_u8(in),
			.wValue = USB_CPU_TO_LE16(in_le(in, 2)),
			.wIndex = USB_CPU_TO_LE16(in_u8(in) % 2),
			.wLength = USB_CPU_TO_LE16(in_u8(in) % 64),
		};

		for (unsigned i = 0; i < sizeof(buf); i++)
			buf[i] = in_u8(in);
		(void)usb_inproc_host_control(h, &rq, buf, TMO);
		break;
	}
	case 1:
		n = 1 + in_u8(in) % REPORT_LENGTH;
		for (unsigned i = 0; i < n; i++)
			buf[i] = in_u8(in);
		(void)usb_inproc_host_transfer(h, 0x02, buf, n, 0, TMO);
		break;
	case 2:
		(void)usb_inproc_host_transfer(h, 0x81, buf, REPORT_LENGTH, 0, TMO);
		break;
	case 3:
		n = in_u8(in) % (REPORT_LENGTH + 2);
		for (unsigned i = 0; i < n; i++)
			buf[i] = in_u8(in);
		rc = hid_send_report(f_hid, buf, n);
		CHECK(rc == 0 || rc == -USB_EAGAIN || rc == -USB_ENOTCONN || rc == -USB_EINVAL);
		CHECK(hid_reports_pending(f_hid) <= HID_REPORT_QUEUE + 1);
		break;
	case 4: {
		struct usb_ctrlrequest rq = { .bRequest = USB_REQ_SET_CONFIGURATION,
					      .wValue = USB_CPU_TO_LE16(in_u8(in) & 1) };

		(void)usb_inproc_host_control(h, &rq, NULL, TMO);
		break;
	}
	default:
		(void)usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, NULL, NULL, 0, TMO);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usb_inproc_host_config hc = { .udc_name = "fuzz-hid.0" };
	struct usb_inproc_host *h;
	struct input in = { data, size };

	usb_composite_set_log_handler(NULL, NULL);
	f_hid_opts_init(&opts);
	opts.subclass = 1;
	opts.protocol = 1;
	opts.report_length = REPORT_LENGTH;
	opts.report_desc = hid_boot_keyboard_report_desc;
	opts.report_desc_length = sizeof(hid_boot_keyboard_report_desc);
	opts.ops = &ops;
	CHECK(usb_inproc_host_create(&hc, &h) == 0);
	CHECK(usb_composite_probe(&drv) == 0);
	(void)usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, NULL, NULL, 0, TMO);
	for (unsigned steps = 0; in.left && steps < 64; steps++)
		step(h, &in);
	usb_composite_unregister(&drv);
	usb_inproc_host_destroy(h);
	return 0;
}
