/*
 * fuzz_acm.c - libFuzzer target for the CDC ACM function
 * (src/functions/acm): its class requests and its byte stream as a
 * hostile host drives them through the in-process host. The input is a
 * script; each step's first byte picks:
 *   0  a control transfer to the function: bRequestType/bRequest/wValue/
 *      wIndex/wLength from the input, an OUT data stage from the input
 *   1  a bulk OUT write of up to 4 KiB of input bytes
 *   2  a bulk IN read (host side), 3 a notify read
 *   4  acm_write() of input bytes, 5 acm_read()
 *   6  SET_CONFIGURATION 0 or 1, 7 a bus reset and enumeration again
 * What must hold besides ASan/UBSan: the bytes acm_read() returns are
 * the bytes the host's OUT transfers carried, in order; what the host
 * reads on bulk IN is a prefix-ordered run of what acm_write() took.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "composite/acm.h"
#include "composite/composite.h"
#include "composite/inproc_host.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TMO 2
#define LOG_MAX (256 * 1024)

static struct usb_function *f_acm;
static struct f_acm_opts opts;

static int cfg_bind(struct usb_configuration *c)
{
	int rc = acm_alloc(&opts, &f_acm);

	if (rc == 0 && (rc = usb_add_function(c, f_acm)) != 0)
		acm_free(f_acm);
	return rc;
}

static struct usb_configuration cfg = { .label = "acm", .bConfigurationValue = 1 };

static int drv_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &cfg, cfg_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200), .idVendor = USB_CPU_TO_LE16(0x1d6b),
};

static struct usb_composite_driver drv = {
	.name = "fuzz-acm", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "fuzz-acm.0", .bind = drv_bind,
};

/* What the host sent and what the gadget read, each in order. */
static uint8_t *sent, *got;
static size_t n_sent, n_got;

static void enumerate(struct usb_inproc_host *h)
{
	(void)usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, NULL, NULL, 0, TMO);
}

static void step(struct usb_inproc_host *h, struct input *in)
{
	uint8_t buf[4096];
	unsigned n;

	switch (in_u8(in) % 8) {
	case 0: {
		struct usb_ctrlrequest rq = {
			.bRequestType = (uint8_t)(USB_TYPE_CLASS | USB_RECIP_INTERFACE |
						  (in_u8(in) & 0x80)),
			.bRequest = in_u8(in),
			.wValue = USB_CPU_TO_LE16(in_le(in, 2)),
			.wIndex = USB_CPU_TO_LE16(in_u8(in) % 3),
			.wLength = USB_CPU_TO_LE16(in_u8(in) % 16),
		};

		for (unsigned i = 0; i < 16; i++)
			buf[i] = in_u8(in);
		(void)usb_inproc_host_control(h, &rq, buf, TMO);
		break;
	}
	case 1:
		n = in_le(in, 2) % sizeof(buf);
		for (unsigned i = 0; i < n; i++)
			buf[i] = in_u8(in);
		/* ep 2 OUT: the data interface's (interrupt IN is ep1in). */
		if (n_sent + n <= LOG_MAX) {
			int r = usb_inproc_host_transfer(h, 0x02, buf, n, USB_INPROC_ZERO_PACKET, TMO);

			/* A timed-out OUT transfer may have moved part of it. */
			if (r > 0) {
				memcpy(sent + n_sent, buf, (size_t)r);
				n_sent += (size_t)r;
			}
			if (r < 0)
				in->left = 0;	/* the stream's order is unknown now */
		}
		break;
	case 2:
		(void)usb_inproc_host_transfer(h, 0x82, buf, in_le(in, 2) % sizeof(buf), 0, TMO);
		break;
	case 3:
		(void)usb_inproc_host_transfer(h, 0x81, buf, 10, 0, TMO);
		break;
	case 4:
		n = in_le(in, 2) % sizeof(buf);
		for (unsigned i = 0; i < n; i++)
			buf[i] = in_u8(in);
		CHECK(acm_write(f_acm, buf, n) <= (long)n);
		break;
	case 5: {
		long r = acm_read(f_acm, got + n_got, LOG_MAX - n_got);

		CHECK(r >= 0);
		n_got += (size_t)r;
		CHECK(n_got <= n_sent && memcmp(got, sent, n_got) == 0);
		break;
	}
	case 6: {
		struct usb_ctrlrequest rq = { .bRequest = USB_REQ_SET_CONFIGURATION,
					      .wValue = USB_CPU_TO_LE16(in_u8(in) & 1) };

		(void)usb_inproc_host_control(h, &rq, NULL, TMO);
		break;
	}
	default:
		enumerate(h);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usb_inproc_host_config hc = { .udc_name = "fuzz-acm.0" };
	struct usb_inproc_host *h;
	struct input in = { data, size };

	if (!sent) {
		sent = malloc(LOG_MAX);
		got = malloc(LOG_MAX);
		usb_composite_set_log_handler(NULL, NULL);
	}
	n_sent = n_got = 0;
	f_acm_opts_init(&opts);
	opts.rx_buflen = ACM_BUF_MIN;	/* small, so backpressure comes soon */
	opts.tx_buflen = ACM_BUF_MIN;
	CHECK(usb_inproc_host_create(&hc, &h) == 0);
	CHECK(usb_composite_probe(&drv) == 0);
	enumerate(h);
	for (unsigned steps = 0; in.left && steps < 64; steps++)
		step(h, &in);
	usb_composite_unregister(&drv);
	usb_inproc_host_destroy(h);
	return 0;
}
