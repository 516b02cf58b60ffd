/*
 * test_sourcesink_fixture.c - the Gadget Zero test device of
 * test_sourcesink_fixture.h. Touches only its own struct gz_dev and the
 * fake UDC inside it.
 */
#include "test_sourcesink_fixture.h"

#include <stdio.h>
#include <string.h>

#include "port/alloc.h"

static struct gz_dev *gz_live;	/* started and not yet stopped */

static int gz_config_bind(struct usb_configuration *c)
{
	struct gz_dev *d = usb_container_of(c, struct gz_dev, config);
	int ret;

	ret = d->loopback ? loopback_alloc(&d->lb, &d->func) : sourcesink_alloc(&d->ss, &d->func);
	if (ret)
		return ret;
	ret = usb_add_function(c, d->func);
	d->bind_ret = ret;
	if (ret) {
		if (d->loopback)
			loopback_free(d->func);
		else
			sourcesink_free(d->func);
		d->func = NULL;
	}
	return ret;
}

static int gz_driver_bind(struct usb_composite_dev *cdev)
{
	struct gz_dev *d = usb_container_of(cdev->driver, struct gz_dev, driver);

	return usb_add_config(cdev, &d->config, gz_config_bind);
}

void gz_init(struct gz_dev *d, bool loopback)
{
	static unsigned serial;

	memset(d, 0, sizeof(*d));
	d->loopback = loopback;
	f_ss_opts_init(&d->ss);
	f_lb_opts_init(&d->lb);
	d->lb.qlen = 8;		/* the fake holds 16 requests per endpoint */
	snprintf(d->name, sizeof(d->name), "gz.%u", serial++);

	d->dd.bLength = USB_DT_DEVICE_SIZE;
	d->dd.bDescriptorType = USB_DT_DEVICE;
	d->dd.bcdUSB = USB_CPU_TO_LE16(0x0200);
	d->dd.bDeviceClass = USB_CLASS_VENDOR_SPEC;
	d->dd.idVendor = USB_CPU_TO_LE16(0x0525);
	d->dd.idProduct = USB_CPU_TO_LE16(0xa4a0);
	d->driver.name = "gz-test";
	d->driver.dev = &d->dd;
	d->driver.max_speed = USB_SPEED_SUPER;
	d->driver.iProduct = "Gadget Zero";
	d->driver.bind = gz_driver_bind;
	d->config.label = loopback ? "loopback" : "source/sink";
	d->config.bConfigurationValue = GZ_CONFIG_VALUE;
	d->config.bmAttributes = USB_CONFIG_ATT_SELFPOWER;
}

int gz_get_descriptor(struct gz_dev *d, uint8_t type, uint8_t index, void *buf, uint16_t len)
{
	return fake_ctrl(&d->udc, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR,
			 (uint16_t)(type << 8 | index), type == USB_DT_STRING ? 0x0409 : 0,
			 len, buf, len);
}

const struct usb_endpoint_descriptor *gz_find_ep_desc(const uint8_t *cfg, unsigned len,
						       unsigned alt, uint8_t addr)
{
	unsigned cur_alt = ~0u;

	for (unsigned off = 0; off + 2 <= len && cfg[off] >= 2; off += cfg[off]) {
		if (cfg[off + 1] == USB_DT_INTERFACE && off + 4 <= len)
			cur_alt = cfg[off + 3];
		if (cfg[off + 1] == USB_DT_ENDPOINT && cur_alt == alt && off + 7 <= len &&
		    cfg[off + 2] == addr)
			return (const struct usb_endpoint_descriptor *)(const void *)(cfg + off);
	}
	return NULL;
}

/* Endpoint addresses from the configuration descriptor. */
static void gz_scan(struct gz_dev *d, const uint8_t *cfg, unsigned len)
{
	unsigned alt = 0;

	d->num_alts = 0;
	for (unsigned off = 0; off + 2 <= len && cfg[off] >= 2; off += cfg[off]) {
		if (cfg[off + 1] == USB_DT_INTERFACE) {
			alt = cfg[off + 3];
			d->num_alts++;
		}
		if (cfg[off + 1] != USB_DT_ENDPOINT)
			continue;
		uint8_t a = cfg[off + 2], type = cfg[off + 3] & 3;

		if (type == USB_ENDPOINT_XFER_BULK && alt == 0) {
			if (a & USB_DIR_IN)
				d->in_addr = a;
			else
				d->out_addr = a;
		} else if (type == USB_ENDPOINT_XFER_ISOC) {
			if (a & USB_DIR_IN)
				d->iso_in_addr = a;
			else
				d->iso_out_addr = a;
		}
	}
}

int gz_start(struct gz_dev *d, enum usb_device_speed speed)
{
	uint8_t buf[512];
	int ret;

	fake_udc_init(&d->udc, d->name, speed > USB_SPEED_HIGH ? speed : USB_SPEED_HIGH);
	ret = usb_udc_register(&d->udc.gadget);
	if (ret)
		return ret;
	gz_live = d;
	d->driver.udc_name = d->name;
	ret = usb_composite_probe(&d->driver);
	if (ret) {
		usb_udc_unregister(&d->udc.gadget);
		gz_live = NULL;
		return ret;
	}
	d->bound_allocs = gz_allocs(d);
	fake_udc_reset(&d->udc, speed);
	ret = gz_get_descriptor(d, USB_DT_DEVICE, 0, buf, 18);
	if (ret < 0)
		return ret;
	ret = fake_ctrl(&d->udc, USB_DIR_OUT, USB_REQ_SET_ADDRESS, 5, 0, 0, NULL, 0);
	if (ret < 0)
		return ret;
	ret = gz_get_descriptor(d, USB_DT_CONFIG, 0, buf, sizeof(buf));
	if (ret < 9)
		return ret < 0 ? ret : FAKE_STALL;
	gz_scan(d, buf, (unsigned)ret);
	return gz_set_config(d, GZ_CONFIG_VALUE);
}

unsigned long gz_allocs(const struct gz_dev *d)
{
	return composite__alloc_count() + d->udc.request_allocs;
}

void gz_stop(struct gz_dev *d)
{
	usb_composite_unregister(&d->driver);
	usb_udc_unregister(&d->udc.gadget);
	if (gz_live == d)
		gz_live = NULL;
}

int gz_teardown(void **state)
{
	(void)state;
	if (gz_live)
		gz_stop(gz_live);
	return 0;
}

int gz_set_config(struct gz_dev *d, unsigned value)
{
	return fake_ctrl(&d->udc, USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, (uint16_t)value, 0, 0,
			 NULL, 0);
}

int gz_set_interface(struct gz_dev *d, unsigned intf, unsigned alt)
{
	return fake_ctrl(&d->udc, USB_DIR_OUT | USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
			 (uint16_t)alt, (uint16_t)intf, 0, NULL, 0);
}

int gz_get_interface(struct gz_dev *d, unsigned intf)
{
	uint8_t alt = 0xff;
	int ret = fake_ctrl(&d->udc, USB_DIR_IN | USB_RECIP_INTERFACE, USB_REQ_GET_INTERFACE, 0,
			    (uint16_t)intf, 1, &alt, 1);

	return ret == 1 ? alt : (ret < 0 ? ret : FAKE_STALL);
}

int gz_clear_halt(struct gz_dev *d, uint8_t ep_addr)
{
	return fake_ctrl(&d->udc, USB_DIR_OUT | USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			 USB_ENDPOINT_HALT, ep_addr, 0, NULL, 0);
}

struct fake_ep *gz_ep(struct gz_dev *d, uint8_t addr)
{
	return fake_ep_by_addr(&d->udc, addr);
}

struct usb_request *gz_head(struct gz_dev *d, uint8_t addr)
{
	struct fake_ep *e = gz_ep(d, addr);

	return e && e->queued ? e->queue[0] : NULL;
}
