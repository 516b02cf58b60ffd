/*
 * test_core_headers_own.c - the library's headers first, then (where the
 * system has it) Linux's <linux/usb/ch9.h>, which must be skipped without
 * a redefinition: the headers compile, the helpers work, and the kernel's
 * type names stay usable.
 */
#include "composite/composite.h"
#include "composite/function.h"
#include "composite/udc.h"

#if defined(__has_include)
#if __has_include(<linux/usb/ch9.h>)
#include <linux/usb/ch9.h>
#define HAVE_LINUX_SECOND 1
#endif
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#ifndef COMPOSITE_CH9_OWN_H
#error "ch9_own.h not included"
#endif

static void test_core_headers_own_compile(void **state)
{
	struct usb_endpoint_descriptor d = {
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = 0x02,
		.bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = USB_CPU_TO_LE16(0x0800 | 64),	/* 2 per microframe */
	};
	struct usb_ctrlrequest c = { USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
				     USB_CPU_TO_LE16(USB_DT_DEVICE << 8), 0, USB_CPU_TO_LE16(18) };
	uint8_t b[4];

	(void)state;
#ifdef HAVE_LINUX_SECOND
	{
		__le16 w = d.wMaxPacketSize;	/* Linux's own type name */

		assert_int_equal(usb_endpoint_maxp(&d), w & 0x7ff);
	}
#endif
	assert_int_equal(usb_endpoint_maxp(&d), 64);
	assert_int_equal(usb_endpoint_maxp_mult(&d), 2);
	assert_true(usb_endpoint_is_int_out(&d));
	assert_int_equal(usb_endpoint_num(&d), 2);
	assert_int_equal(sizeof(c), 8);
	usb_put_le32(b, 0x01020304u);
	assert_int_equal(b[0], 4);
	assert_int_equal(usb_get_le32(b), 0x01020304u);
	usb_put_le16(b, 0xabcd);
	assert_int_equal(usb_get_le16(b), 0xabcd);
	assert_string_equal(usb_strerror(USB_ENODEV), "ENODEV (no such device)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_headers_own_compile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
