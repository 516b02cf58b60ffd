/*
 * test_core_os_desc.c - MS OS 1.0 and 2.0 descriptors and WebUSB, byte
 * for byte against the layouts of the specifications (Microsoft OS
 * Descriptors 1.0: OS string, extended compat ID, extended properties;
 * Microsoft OS 2.0 Descriptors: platform capability, set header,
 * configuration and function subsets, compatible ID, registry property;
 * WebUSB API 4.x: platform capability, URL descriptor). The expected bytes
 * are written out here by hand, not produced by the code under test. Also:
 * the bcdUSB raise, requests that must stall, routing of other vendor
 * codes, and what bind refuses. On the fake UDC (test_core_fixture).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_core_fixture.h"

#define OS10_CODE 0x20
#define OS20_CODE 0x21
#define WEB_CODE  0x22
#define VENDOR_IN_DEV (USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)
#define VENDOR_IN_INTF (USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_INTERFACE)

static struct tdev d;
static struct tfunc fa, fb;
static int (*fixture_bind)(struct usb_composite_dev *);
static bool use_10, use_20, use_web;
static const char *landing = "https://example.com/x";

static const char guids[] = "{11111111-2222-3333-4444-555555555555}\0";
static const char dword[4] = { 0x78, 0x56, 0x34, 0x12 };
static char compat[16] = "WINUSB";
static struct usb_os_desc_ext_prop p_guids = {
	.type = USB_EXT_PROP_UNICODE_MULTI, .name = "DeviceInterfaceGUIDs",
	.data = guids, .data_len = sizeof(guids),
};
static struct usb_os_desc_ext_prop p_dword = {
	.type = USB_EXT_PROP_LE32, .name = "Idle", .data = dword, .data_len = 4,
};
static struct usb_os_desc os_desc;
static struct usb_os_desc_table table[1];

static int bind_with_os(struct usb_composite_dev *cdev)
{
	cdev->use_os_string = use_10;
	cdev->b_vendor_code = OS10_CODE;
	cdev->use_ms_os_20 = use_20;
	cdev->b_ms_os_20_vendor_code = OS20_CODE;
	cdev->use_webusb = use_web;
	cdev->b_webusb_vendor_code = WEB_CODE;
	strncpy(cdev->landing_page, landing, sizeof(cdev->landing_page));
	return fixture_bind(cdev);
}

/* fa: interfaces 0 and 1, WINUSB with two properties on 0; fb: interface 2. */
static void prepare(bool two_functions)
{
	tfunc_init(&fa, "fa");
	fa.n_intf = 2;
	tfunc_init(&fb, "fb");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &fa);
	if (two_functions)
		d.funcs[0][1] = &fb;
	else
		fa.n_intf = 1;
	fixture_bind = d.driver.bind;
	d.driver.bind = bind_with_os;
	memset(&os_desc, 0, sizeof(os_desc));
	os_desc.ext_compat_id = compat;
	INIT_LIST_HEAD(&os_desc.ext_prop);
	list_add_tail(&p_guids.entry, &os_desc.ext_prop);
	list_add_tail(&p_dword.entry, &os_desc.ext_prop);
	table[0].if_id = 0;
	table[0].os_desc = &os_desc;
	fa.func.os_desc_table = table;
	fa.func.os_desc_n = 1;
	use_10 = use_20 = use_web = true;
	landing = "https://example.com/x";
}

static void up(void)
{
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
}

static int teardown(void **state)
{
	(void)state;
	tdev_stop(&d);
	return 0;
}

static int get(uint8_t type, uint8_t req, uint16_t value, uint16_t index, uint16_t len,
	       uint8_t *buf)
{
	return fake_ctrl(&d.udc, type, req, value, index, len, buf, len);
}

/* ASCII as UTF-16LE with a NUL: the test's own encoder, for the expected bytes. */
static size_t u16(uint8_t *out, const char *s)
{
	size_t n = 0;

	do {
		out[n++] = (uint8_t)*s;
		out[n++] = 0;
	} while (*s++);
	return n;
}

static void le16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static void le32(uint8_t *p, unsigned long v)
{
	le16(p, (unsigned)(v & 0xffff));
	le16(p + 2, (unsigned)(v >> 16));
}

/* The MULTI_SZ value as Windows wants it: the string, its NUL, the list's NUL. */
static size_t guids_value(uint8_t *out)
{
	size_t n = u16(out, "{11111111-2222-3333-4444-555555555555}");

	out[n++] = 0;
	out[n++] = 0;
	return n;
}

static void test_os_string(void **state)
{
	static const uint8_t want[18] = { 18, 3, 'M', 0, 'S', 0, 'F', 0, 'T', 0, '1', 0,
					  '0', 0, '0', 0, OS10_CODE, 0 };
	uint8_t buf[64];

	(void)state;
	prepare(true);
	up();
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x03ee, 0, 255, buf), 18);
	assert_memory_equal(buf, want, 18);
	/* In a real language it is an ordinary (here unknown) string. */
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x03ee, 0x0409, 255, buf),
			 FAKE_STALL);
}

static void test_ext_compat_id(void **state)
{
	uint8_t want[40] = { 0 }, buf[64];

	(void)state;
	prepare(true);
	up();
	le32(want, 40);
	le16(want + 4, 0x0100);
	le16(want + 6, 4);
	want[8] = 1;			/* bCount: fa's interface 0 only */
	want[16] = 0;			/* bFirstInterfaceNumber */
	want[17] = 1;
	memcpy(want + 18, "WINUSB", 6);
	/* Windows reads the 16-byte header first, then the whole. */
	assert_int_equal(get(VENDOR_IN_DEV, OS10_CODE, 0, 4, 16, buf), 16);
	assert_memory_equal(buf, want, 16);
	assert_int_equal(get(VENDOR_IN_DEV, OS10_CODE, 0, 4, 64, buf), 40);
	assert_memory_equal(buf, want, 40);
	/* A page beyond 0: stall. */
	assert_int_equal(get(VENDOR_IN_DEV, OS10_CODE, 0x0100, 4, 64, buf), FAKE_STALL);
}

static void test_ext_properties(void **state)
{
	uint8_t want[512] = { 0 }, buf[512];
	size_t n = 10, p;

	(void)state;
	prepare(true);
	up();
	/* header: dwLength, bcdVersion, wIndex, wCount */
	le16(want + 4, 0x0100);
	le16(want + 6, 5);
	le16(want + 8, 2);
	/* DeviceInterfaceGUIDs, REG_MULTI_SZ */
	p = n;
	le32(want + p + 4, 7);
	n += 8;
	n += 2 + u16(want + n + 2, "DeviceInterfaceGUIDs");
	le16(want + p + 8, (unsigned)(n - p - 10));
	{
		size_t v = guids_value(want + n + 4);

		le32(want + n, v);
		n += 4 + v;
	}
	le32(want + p, n - p);
	/* Idle, REG_DWORD_LITTLE_ENDIAN */
	p = n;
	le32(want + p + 4, 4);
	n += 8;
	n += 2 + u16(want + n + 2, "Idle");
	le16(want + p + 8, 10);
	le32(want + n, 4);
	memcpy(want + n + 4, dword, 4);
	n += 8;
	le32(want + p, n - p);
	le32(want, n);

	assert_int_equal(get(VENDOR_IN_INTF, OS10_CODE, 0, 5, 10, buf), 10);
	assert_memory_equal(buf, want, 10);
	assert_int_equal(get(VENDOR_IN_INTF, OS10_CODE, 0, 5, sizeof(buf), buf), (int)n);
	assert_memory_equal(buf, want, n);
	/* An interface without properties: a header saying none. */
	assert_int_equal(get(VENDOR_IN_INTF, OS10_CODE, 2, 5, sizeof(buf), buf), 10);
	assert_int_equal(buf[0], 10);
	assert_int_equal(buf[8], 0);
	/* No such interface: stall. */
	assert_int_equal(get(VENDOR_IN_INTF, OS10_CODE, 3, 5, sizeof(buf), buf), FAKE_STALL);
}

/* The MS OS 2.0 set for the two-function device, by the specification. */
static size_t ms_os_20_set(uint8_t *w)
{
	size_t n = 0, cfg, fn, p;

	le16(w, 10); le16(w + 2, 0); le32(w + 4, 0x06030000); n = 10;
	cfg = n;
	le16(w + n, 8); le16(w + n + 2, 1); w[n + 4] = 0; w[n + 5] = 0; n += 8;
	fn = n;
	le16(w + n, 8); le16(w + n + 2, 2); w[n + 4] = 0; w[n + 5] = 0; n += 8;
	le16(w + n, 20); le16(w + n + 2, 3); memset(w + n + 4, 0, 16);
	memcpy(w + n + 4, "WINUSB", 6); n += 20;
	p = n;
	le16(w + n + 2, 4); le16(w + n + 4, 7);
	n += 8 + u16(w + n + 8, "DeviceInterfaceGUIDs");
	le16(w + p + 6, (unsigned)(n - p - 8));
	{
		size_t v = guids_value(w + n + 2);

		le16(w + n, (unsigned)v);
		n += 2 + v;
	}
	le16(w + p, (unsigned)(n - p));
	p = n;
	le16(w + n + 2, 4); le16(w + n + 4, 4);
	n += 8 + u16(w + n + 8, "Idle");
	le16(w + p + 6, 10);
	le16(w + n, 4); memcpy(w + n + 2, dword, 4); n += 6;
	le16(w + p, (unsigned)(n - p));
	le16(w + fn + 6, (unsigned)(n - fn));
	le16(w + cfg + 6, (unsigned)(n - cfg));
	le16(w + 8, (unsigned)n);
	return n;
}

static void test_bos_and_ms_os_20(void **state)
{
	static const uint8_t ms_uuid[16] = { 0xDF, 0x60, 0xDD, 0xD8, 0x89, 0x45, 0xC7, 0x4C,
					     0x9C, 0xD2, 0x65, 0x9D, 0x9E, 0x64, 0x8A, 0x9F };
	static const uint8_t web_uuid[16] = { 0x38, 0xB6, 0x08, 0x34, 0xA9, 0x09, 0xA0, 0x47,
					      0x8B, 0xFD, 0xA0, 0x76, 0x88, 0x15, 0xB6, 0x65 };
	uint8_t set[512] = { 0 }, buf[512], dev[18];
	size_t set_len = ms_os_20_set(set);

	(void)state;
	prepare(true);
	up();
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x0100, 0, 18, dev), 18);
	assert_int_equal(usb_get_le16(dev + 2), 0x0201);	/* raised for the BOS */
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x0f00, 0, 255, buf),
			 5 + 7 + 28 + 24);
	assert_int_equal(usb_get_le16(buf + 2), 64);
	assert_int_equal(buf[4], 3);			/* USB 2.0 extension + two platform */
	assert_int_equal(buf[12], 28);
	assert_int_equal(buf[13], 0x10);
	assert_int_equal(buf[14], 5);
	assert_int_equal(buf[15], 0);
	assert_memory_equal(buf + 16, ms_uuid, 16);
	assert_int_equal(usb_get_le32(buf + 32), 0x06030000);
	assert_int_equal(usb_get_le16(buf + 36), set_len);
	assert_int_equal(buf[38], OS20_CODE);
	assert_int_equal(buf[39], 0);
	assert_int_equal(buf[40], 24);
	assert_int_equal(buf[42], 5);
	assert_memory_equal(buf + 44, web_uuid, 16);
	assert_int_equal(usb_get_le16(buf + 60), 0x0100);
	assert_int_equal(buf[62], WEB_CODE);
	assert_int_equal(buf[63], 1);			/* iLandingPage */

	assert_int_equal(get(VENDOR_IN_DEV, OS20_CODE, 0, 7, (uint16_t)set_len, buf),
			 (int)set_len);
	assert_memory_equal(buf, set, set_len);
	/* Alternate enumeration (wIndex 8) is not offered; wValue must be 0. */
	assert_int_equal(get(VENDOR_IN_DEV, OS20_CODE, 0, 8, 64, buf), FAKE_STALL);
	assert_int_equal(get(VENDOR_IN_DEV, OS20_CODE, 1, 7, 64, buf), FAKE_STALL);
}

static void test_ms_os_20_single_interface(void **state)
{
	uint8_t buf[512];
	int n;

	(void)state;
	prepare(false);
	up();
	n = get(VENDOR_IN_DEV, OS20_CODE, 0, 7, sizeof(buf), buf);
	assert_true(n > 30);
	assert_int_equal(usb_get_le16(buf + 8), n);
	/* No subsets: the compatible ID follows the header. */
	assert_int_equal(usb_get_le16(buf + 10), 20);
	assert_int_equal(usb_get_le16(buf + 12), 3);
	assert_memory_equal(buf + 14, "WINUSB\0\0", 8);
	assert_int_equal(usb_get_le16(buf + 32), 4);	/* then a registry property */
	tdev_stop(&d);

	/* A second configuration: the features go in a configuration subset
	 * (index 0), still with no function subset. */
	prepare(false);
	d.n_cfg = 2;
	d.funcs[1][0] = &fb;
	up();
	n = get(VENDOR_IN_DEV, OS20_CODE, 0, 7, sizeof(buf), buf);
	assert_int_equal(usb_get_le16(buf + 8), n);
	assert_int_equal(usb_get_le16(buf + 10), 8);
	assert_int_equal(usb_get_le16(buf + 12), 1);
	assert_int_equal(buf[14], 0);
	assert_int_equal(usb_get_le16(buf + 16), n - 10);
	assert_int_equal(usb_get_le16(buf + 18), 20);
	assert_int_equal(usb_get_le16(buf + 20), 3);
}

static void test_webusb_url(void **state)
{
	uint8_t buf[255];

	(void)state;
	prepare(true);
	up();
	assert_int_equal(get(VENDOR_IN_DEV, WEB_CODE, 1, 2, 255, buf), 16);
	assert_int_equal(buf[0], 16);
	assert_int_equal(buf[1], 3);
	assert_int_equal(buf[2], 1);			/* https:// */
	assert_memory_equal(buf + 3, "example.com/x", 13);
	assert_int_equal(get(VENDOR_IN_DEV, WEB_CODE, 2, 2, 255, buf), FAKE_STALL);
	tdev_stop(&d);

	prepare(true);
	landing = "http://h";
	up();
	assert_int_equal(get(VENDOR_IN_DEV, WEB_CODE, 1, 2, 255, buf), 4);
	assert_int_equal(buf[2], 0);
	assert_int_equal(buf[3], 'h');
}

/* Without the flags: no OS string, no BOS, vendor codes reach the function. */
static void test_off(void **state)
{
	uint8_t buf[64], dev[18];

	(void)state;
	prepare(true);
	use_10 = use_20 = use_web = false;
	up();
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x03ee, 0, 255, buf),
			 FAKE_STALL);
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x0100, 0, 18, dev), 18);
	assert_int_equal(usb_get_le16(dev + 2), 0x0200);
	assert_int_equal(get(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, 0x0f00, 0, 255, buf),
			 FAKE_STALL);
	assert_int_equal(get(VENDOR_IN_DEV, OS10_CODE, 0, 4, 64, buf), FAKE_STALL);
}

/* With the flags on, a vendor request of another code, or of the OS code
 * with another wIndex, still goes to the function that owns the interface. */
static void test_other_vendor_requests_routed(void **state)
{
	uint8_t buf[64];

	(void)state;
	prepare(true);
	up();
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 1), 0);
	assert_int_equal(get(VENDOR_IN_INTF, TF_VENDOR_IN, 3, 0, 3, buf), 3);
	assert_int_equal(buf[2], 2);
	assert_int_equal(fa.setup_calls, 1);
}

static void test_bind_refuses(void **state)
{
	static const char three[3] = { 1, 2, 3 };
	char long_url[300];

	(void)state;
	/* A table entry naming another function's interface. */
	prepare(true);
	table[0].if_id = 2;
	assert_int_equal(tdev_start(&d), -USB_EINVAL);
	tdev_stop(&d);
	/* A 32-bit value of 3 bytes. */
	prepare(true);
	p_dword.data = three;
	p_dword.data_len = 3;
	assert_int_equal(tdev_start(&d), -USB_EINVAL);
	tdev_stop(&d);
	p_dword.data = dword;
	p_dword.data_len = 4;
	/* A landing page beyond the URL descriptor's 252 bytes (no scheme to
	 * strip). */
	prepare(true);
	memset(long_url, 'a', sizeof(long_url));
	long_url[253] = '\0';
	landing = long_url;
	assert_int_equal(tdev_start(&d), -USB_EINVAL);
	tdev_stop(&d);
	/* "https://" and 252 bytes fill the whole array, with no NUL: fine. */
	prepare(true);
	memset(long_url, 'a', sizeof(long_url));
	memcpy(long_url, "https://", 8);
	long_url[8 + 252] = '\0';
	landing = long_url;
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(d.cdev->landing_page[sizeof(d.cdev->landing_page) - 1], 'a');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_os_string, teardown),
		cmocka_unit_test_teardown(test_ext_compat_id, teardown),
		cmocka_unit_test_teardown(test_ext_properties, teardown),
		cmocka_unit_test_teardown(test_bos_and_ms_os_20, teardown),
		cmocka_unit_test_teardown(test_ms_os_20_single_interface, teardown),
		cmocka_unit_test_teardown(test_webusb_url, teardown),
		cmocka_unit_test_teardown(test_off, teardown),
		cmocka_unit_test_teardown(test_other_vendor_requests_routed, teardown),
		cmocka_unit_test_teardown(test_bind_refuses, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, fake_udc_cleanup);
}
