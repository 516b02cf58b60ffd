/*
 * describe.c - the describe seam of udc.h: what a backend may learn about
 * the composite device bound to its gadget (maximum speed, device and
 * configuration descriptors, interface classes, configured state) without
 * reading the core's structures. It only reads; the descriptor bytes come
 * from the builders that answer GET_DESCRIPTOR (descriptors.c).
 */
#include <string.h>

#include "core.h"

_Static_assert(USB_GADGET_MAX_INTERFACES == MAX_CONFIG_INTERFACES,
	       "udc.h and composite.h disagree on the interface limit");

static struct usb_composite_dev *bound(struct usb_gadget *gadget)
{
	return gadget ? get_gadget_data(gadget) : NULL;
}

enum usb_device_speed usb_gadget_max_speed(struct usb_gadget *gadget)
{
	struct usb_composite_dev *cdev = bound(gadget);
	enum usb_device_speed speed = gadget->max_speed;
	enum usb_device_speed drv;

	if (!cdev || !cdev->driver)
		return speed;
	/* As Linux's UDC core: never faster than the driver can go, and a
	 * driver's "low speed" still gets a full-speed bus. */
	drv = cdev->driver->max_speed;
	if (drv != USB_SPEED_UNKNOWN && drv < speed)
		speed = drv < USB_SPEED_FULL ? USB_SPEED_FULL : drv;
	return speed;
}

int usb_gadget_device_descriptor(struct usb_gadget *gadget, struct usb_device_descriptor *out)
{
	struct usb_composite_dev *cdev = bound(gadget);

	if (!cdev)
		return -USB_ENODEV;
	*out = cdev->desc;
	out->bLength = USB_DT_DEVICE_SIZE;
	out->bDescriptorType = USB_DT_DEVICE;
	out->bNumConfigurations = (uint8_t)composite__count_configs(cdev);
	return 0;
}

int usb_gadget_config_count(struct usb_gadget *gadget)
{
	struct usb_composite_dev *cdev = bound(gadget);

	return cdev ? (int)composite__count_configs(cdev) : -USB_ENODEV;
}

int usb_gadget_config_index(struct usb_gadget *gadget, unsigned value)
{
	struct usb_composite_dev *cdev = bound(gadget);
	struct usb_configuration *c;
	int i = 0;

	if (!cdev)
		return -USB_ENODEV;
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list) {
		if (c->bConfigurationValue == value)
			return i;
		i++;
	}
	return -USB_ENOENT;
}

int usb_gadget_config_descriptor(struct usb_gadget *gadget, unsigned index,
				 enum usb_device_speed speed, void *buf, size_t cap)
{
	struct usb_composite_dev *cdev = bound(gadget);
	struct usb_configuration *c;

	if (!cdev)
		return -USB_ENODEV;
	c = composite__config_at(cdev, index);
	if (!c)
		return -USB_ENOENT;
	return composite__config_desc(cdev, c, speed, USB_DT_CONFIG, buf, cap);
}

/* The alternate-0 interface descriptor numbered @num in @list. */
static const struct usb_interface_descriptor *find_intf(struct usb_descriptor_header **list,
							unsigned num)
{
	for (; list && *list; list++) {
		const struct usb_interface_descriptor *d = (const void *)*list;

		if (d->bDescriptorType == USB_DT_INTERFACE && d->bInterfaceNumber == num &&
		    d->bAlternateSetting == 0)
			return d;
	}
	return NULL;
}

int usb_gadget_interface_classes(struct usb_gadget *gadget, unsigned index,
				 enum usb_device_speed speed, struct usb_gadget_config_info *out)
{
	struct usb_composite_dev *cdev = bound(gadget);
	struct usb_configuration *c;
	unsigned n = 0;

	if (!cdev)
		return -USB_ENODEV;
	c = composite__config_at(cdev, index);
	if (!c)
		return -USB_ENOENT;
	memset(out, 0, sizeof(*out));
	out->bConfigurationValue = c->bConfigurationValue;
	for (unsigned i = 0; i < MAX_CONFIG_INTERFACES; i++) {
		const struct usb_interface_descriptor *d;

		if (!c->interface[i])
			continue;
		d = find_intf(composite__function_descs(c->interface[i], speed), i);
		out->intf[n].bInterfaceNumber = (uint8_t)i;
		out->intf[n].bInterfaceClass = d ? d->bInterfaceClass : 0xff;
		out->intf[n].bInterfaceSubClass = d ? d->bInterfaceSubClass : 0;
		out->intf[n].bInterfaceProtocol = d ? d->bInterfaceProtocol : 0;
		n++;
	}
	out->bNumInterfaces = (uint8_t)n;
	return (int)n;
}

unsigned usb_gadget_config_value(struct usb_gadget *gadget)
{
	struct usb_composite_dev *cdev = bound(gadget);

	return cdev && cdev->config ? cdev->config->bConfigurationValue : 0;
}
