/*
 * inproc_string.h - GET_DESCRIPTOR(STRING) through the in-process host,
 * for the unit tests that read strings back as a host does (test_registry,
 * test_scheme). ASCII only: every other UTF-16 byte is dropped.
 */
#ifndef TEST_INPROC_STRING_H
#define TEST_INPROC_STRING_H

#include <stddef.h>
#include <stdint.h>

#include "composite/errors.h"
#include "composite/inproc_host.h"

/* String @index in @lang into @out (ASCII, NUL-terminated; "" on failure).
 * Return: the descriptor's length, or a negative error. */
static inline int inproc_get_string(struct usb_inproc_host *h, uint8_t index, uint16_t lang,
				    char *out, size_t size)
{
	struct usb_ctrlrequest rq = {
		.bRequestType = USB_DIR_IN, .bRequest = USB_REQ_GET_DESCRIPTOR,
		.wValue = USB_CPU_TO_LE16((USB_DT_STRING << 8) | index),
		.wIndex = USB_CPU_TO_LE16(lang), .wLength = USB_CPU_TO_LE16(255),
	};
	uint8_t buf[255];
	int n = usb_inproc_host_control(h, &rq, buf, 2000);
	size_t k = 0;

	out[0] = '\0';
	if (n < 2)
		return n < 0 ? n : -USB_EPROTO;
	for (int i = 2; i + 1 < n && k + 1 < size; i += 2)
		out[k++] = (char)buf[i];
	out[k] = '\0';
	return n;
}

#endif /* TEST_INPROC_STRING_H */
