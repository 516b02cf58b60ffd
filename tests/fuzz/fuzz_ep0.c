/*
 * fuzz_ep0.c - libFuzzer target for the core's control endpoint: a
 * gadget with two configurations of test functions (alternates, two
 * interfaces, req_match, vendor/class handlers, delayed status) on the
 * fake UDC of tests/unit, fed a script read from the input:
 *   op 0..4  one control transfer: 8 SETUP bytes, then for an OUT data
 *            stage wLength bytes (as much as the input has, zero-padded)
 *   op 5     a bus event (reset at some speed, disconnect, suspend, resume)
 *   op 6     give back the oldest request of some data endpoint
 *   op 7     usb_composite_setup_continue()
 * With bit 5 of the first byte, the device also answers MS OS 1.0 and 2.0
 * descriptors (for the second function's interfaces) and WebUSB, on
 * vendor codes that the test functions' own vendor requests use too.
 * The fake asserts the EP0 contract (reply <= wLength, OUT length ==
 * wLength, one request at a time); ASan/UBSan catch the rest. Each input
 * runs on a freshly probed device that is unregistered at the end, so
 * leaks show as well.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "test_core_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tdev dev;
static struct tfunc f1, f2, f3;

static const char guid[] = "{00000000-0000-0000-0000-000000000000}\0";
static char compat[16] = "WINUSB";
static struct usb_os_desc_ext_prop prop;
static struct usb_os_desc os_desc;
static struct usb_os_desc_table table;
static int (*fixture_bind)(struct usb_composite_dev *);

static int bind_with_os(struct usb_composite_dev *cdev)
{
	cdev->use_os_string = cdev->use_ms_os_20 = cdev->use_webusb = 1;
	cdev->b_vendor_code = TF_VENDOR_IN;
	cdev->b_ms_os_20_vendor_code = TF_VENDOR_OUT;
	cdev->b_webusb_vendor_code = TF_VENDOR_IN;
	strcpy(cdev->landing_page, "https://example.com/");
	return fixture_bind(cdev);
}

/* f2's first interface (1: f1 has 0) gets WINUSB and one property. */
static void os_descriptors(void)
{
	prop.type = USB_EXT_PROP_UNICODE_MULTI;
	prop.name = "DeviceInterfaceGUIDs";
	prop.data = guid;
	prop.data_len = (int)sizeof(guid);
	os_desc.ext_compat_id = compat;
	INIT_LIST_HEAD(&os_desc.ext_prop);
	list_add_tail(&prop.entry, &os_desc.ext_prop);
	table.if_id = 1;
	table.os_desc = &os_desc;
	f2.func.os_desc_table = &table;
	f2.func.os_desc_n = 1;
	fixture_bind = dev.driver.bind;
	dev.driver.bind = bind_with_os;
}

static void transfer(const uint8_t *setup, const uint8_t *out, size_t out_len)
{
	static uint8_t reply[USB_COMP_EP0_BUFSIZ];
	uint8_t data[USB_COMP_EP0_BUFSIZ];
	uint16_t w_length = usb_get_le16(setup + 6);
	size_t n = w_length < sizeof(data) ? w_length : sizeof(data);

	memset(data, 0, n);
	if (out_len && n)	/* @out may be NULL when empty */
		memcpy(data, out, out_len < n ? out_len : n);
	if (!(setup[0] & USB_DIR_IN) && w_length > sizeof(data))
		return;	/* more than the ep0 buffer: a host would not send it */
	(void)fake_control(&dev.udc, setup, data, reply, sizeof(reply));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum usb_device_speed speeds[4] = {
		USB_SPEED_FULL, USB_SPEED_HIGH, USB_SPEED_SUPER, USB_SPEED_SUPER_PLUS
	};
	size_t i = 0;

	if (size < 1)
		return 0;
	/* The core's diagnostics (an extra setup_continue...) would flood stderr. */
	usb_composite_set_log_handler(NULL, NULL);
	tfunc_init(&f1, "alts");
	f1.two_alts = true;
	tfunc_init(&f2, "two");
	f2.n_intf = 2;
	f2.match = true;
	tfunc_init(&f3, "delay");
	f3.set_alt_ret = data[0] & 1 ? USB_GADGET_DELAYED_STATUS : 0;
	tdev_init(&dev, data[0] & 2 ? USB_SPEED_SUPER : USB_SPEED_HIGH,
		  data[0] & 4 ? 0x0210 : 0x0200, &f1);
	dev.funcs[0][1] = &f2;
	dev.n_cfg = 2;
	dev.funcs[1][0] = &f3;
	dev.cfg[1].label = "second";
	if (data[0] & 0x20)
		os_descriptors();
	if (tdev_start(&dev) != 0)
		__builtin_trap();
	fake_udc_reset(&dev.udc, speeds[(data[0] >> 3) & 3]);
	i = 1;

	while (i < size) {
		uint8_t op = data[i++] & 7;

		if (op <= 4) {
			uint8_t setup[8] = { 0 };
			size_t n = size - i < 8 ? size - i : 8;
			uint16_t w_length;
			size_t out_len = 0;

			memcpy(setup, data + i, n);
			i += n;
			w_length = usb_get_le16(setup + 6);
			if (!(setup[0] & USB_DIR_IN)) {
				out_len = size - i < w_length ? size - i : w_length;
				transfer(setup, data + i, out_len);
				i += out_len;
			} else {
				transfer(setup, NULL, 0);
			}
		} else if (op == 5 && i < size) {
			uint8_t e = data[i++];

			if ((e & 3) == 0)
				fake_udc_reset(&dev.udc, speeds[(e >> 2) & 3]);
			else
				usb_gadget_event(&dev.udc.gadget, (enum usb_gadget_event)(e & 3));
		} else if (op == 6 && i < size) {
			uint8_t e = data[i++];

			(void)fake_ep_complete(&dev.udc.eps[e % FAKE_MAX_EPS],
					       e & 0x80 ? -USB_EPROTO : 0, 0);
		} else if (op == 7) {
			usb_composite_setup_continue(get_gadget_data(&dev.udc.gadget));
			/* The status it may have queued goes out now. */
			if (fake_ep0_req(&dev.udc))
				fake_ep0_complete(&dev.udc, 0, 0);
		}
	}
	tdev_stop(&dev);
	if (dev.udc.live_requests != 0)
		__builtin_trap();
	return 0;
}
