/*
 * test_core_headers_linux_first.c - a program that includes Linux's
 * <linux/usb/ch9.h> before the library's headers compiles, uses Linux's
 * types, and works with the library.
 */
#include <linux/usb/ch9.h>

#include "composite/composite.h"
#include "composite/function.h"
#include "composite/udc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#ifndef COMPOSITE_CH9_FROM_LINUX
#error "after <linux/usb/ch9.h> the library's header must use its types"
#endif

static void test_core_headers_linux_first_compile(void **state)
{
	struct usb_endpoint_descriptor d = {
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN | 1,
		.bmAttributes = USB_ENDPOINT_XFER_BULK,
		.wMaxPacketSize = USB_CPU_TO_LE16(512),
	};
	__le16 w = d.wMaxPacketSize;	/* Linux's own type name */

	(void)state;
	assert_int_equal(usb_endpoint_maxp(&d), 512);
	assert_true(usb_endpoint_is_bulk_in(&d));
	assert_int_equal(USB_LE16_TO_CPU(w), 512);
	assert_string_equal(usb_strerror(-USB_ESHUTDOWN), "ESHUTDOWN (endpoint shut down)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_headers_linux_first_compile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
