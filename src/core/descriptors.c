/*
 * descriptors.c - the descriptors the host reads, assembled per speed:
 * device, configuration and other-speed configuration (from the
 * functions' lists), device qualifier and BOS; and the function helpers
 * that copy and pick descriptor lists (usb_assign_descriptors(),
 * usb_copy_descriptors(), config_ep_by_speed()). It reads the composite
 * device and its functions; it writes only into the buffers it is given,
 * into a function's descriptor pointers and into an endpoint's desc.
 */
#include <string.h>

#include "core.h"
#include "port/alloc.h"

enum usb_device_speed composite__speed(const struct usb_composite_dev *cdev)
{
	const struct usb_gadget *g = cdev->gadget;

	if (g->speed != USB_SPEED_UNKNOWN)
		return g->speed;
	return g->max_speed != USB_SPEED_UNKNOWN ? g->max_speed : USB_SPEED_FULL;
}

bool composite__dualspeed(const struct usb_composite_dev *cdev)
{
	enum usb_device_speed max = cdev->driver->max_speed;

	return gadget_is_dualspeed(cdev->gadget) &&
	       (max == USB_SPEED_UNKNOWN || max >= USB_SPEED_HIGH);
}

struct usb_descriptor_header **composite__function_descs(const struct usb_function *f,
							 enum usb_device_speed speed)
{
	switch (speed) {
	case USB_SPEED_SUPER_PLUS:
#ifndef COMPOSITE_NO_SUPERSPEED	/* else refused at probe */
		if (f->ssp_descriptors)
			return f->ssp_descriptors;
#endif
		/* fall through */
	case USB_SPEED_SUPER:
#ifndef COMPOSITE_NO_SUPERSPEED
		if (f->ss_descriptors)
			return f->ss_descriptors;
#endif
		/* fall through */
	case USB_SPEED_HIGH:
		if (f->hs_descriptors)
			return f->hs_descriptors;
		/* fall through */
	default:
		return f->fs_descriptors;
	}
}

/* What bcdUSB the device descriptor carries at the current speed. */
static uint16_t bcd_usb(const struct usb_composite_dev *cdev)
{
	uint16_t bcd = USB_LE16_TO_CPU(cdev->desc.bcdUSB);

	if (composite__super(composite__speed(cdev)))
		return bcd < 0x0300 ? 0x0320 : bcd;
	/* A USB 3 device running at high or full speed reports 2.10. */
	if (bcd >= 0x0300)
		return 0x0210;
	/* Platform capabilities live in the BOS, which needs 2.01. */
	if (composite__os_bos_caps(cdev) && bcd < 0x0201)
		return 0x0201;
	return bcd ? bcd : 0x0200;
}

bool composite__has_bos(const struct usb_composite_dev *cdev)
{
	return bcd_usb(cdev) >= 0x0201;
}

static uint8_t ep0_maxpacket(const struct usb_composite_dev *cdev)
{
	unsigned mp = cdev->gadget->ep0->maxpacket;

	if (composite__super(composite__speed(cdev)))
		return 9;	/* 2^9 = 512 */
	return (uint8_t)(mp && mp <= 64 ? mp : 64);
}

int composite__device_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	struct usb_device_descriptor d = cdev->desc;

	if (cap < USB_DT_DEVICE_SIZE)
		return -USB_ENOSPC;
	d.bLength = USB_DT_DEVICE_SIZE;
	d.bDescriptorType = USB_DT_DEVICE;
	d.bcdUSB = USB_CPU_TO_LE16(bcd_usb(cdev));
	d.bMaxPacketSize0 = ep0_maxpacket(cdev);
	d.bNumConfigurations = (uint8_t)composite__count_configs(cdev);
	memcpy(buf, &d, USB_DT_DEVICE_SIZE);
	return USB_DT_DEVICE_SIZE;
}

int composite__qualifier_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	struct usb_qualifier_descriptor q;
	unsigned mp = cdev->gadget->ep0->maxpacket;

	if (cap < sizeof(q))
		return -USB_ENOSPC;
	memset(&q, 0, sizeof(q));
	q.bLength = sizeof(q);
	q.bDescriptorType = USB_DT_DEVICE_QUALIFIER;
	q.bcdUSB = USB_CPU_TO_LE16(bcd_usb(cdev));
	q.bDeviceClass = cdev->desc.bDeviceClass;
	q.bDeviceSubClass = cdev->desc.bDeviceSubClass;
	q.bDeviceProtocol = cdev->desc.bDeviceProtocol;
	q.bMaxPacketSize0 = (uint8_t)(mp && mp <= 64 ? mp : 64);
	q.bNumConfigurations = (uint8_t)composite__count_configs(cdev);
	q.bRESERVED = 0;
	memcpy(buf, &q, sizeof(q));
	return (int)sizeof(q);
}

/* Append one descriptor list; Return: new length or an error. */
static int append(uint8_t *buf, size_t cap, size_t len,
		  const struct usb_descriptor_header *const *v)
{
	for (; v && *v; v++) {
		size_t n = (*v)->bLength;

		if (n < 2)
			return -USB_EINVAL;	/* a broken list: a bug of its owner */
		if (len + n > cap || len + n > 0xffffu)
			return -USB_ENOSPC;
		memcpy(buf + len, *v, n);
		len += n;
	}
	return (int)len;
}

static uint8_t max_power(const struct usb_configuration *c, enum usb_device_speed speed)
{
	unsigned ma = c->MaxPower ? c->MaxPower : COMPOSITE__DEFAULT_MA;
	unsigned unit = composite__super(speed) ? 8u : 2u;
	unsigned v = (ma + unit - 1u) / unit;

	return (uint8_t)(v > 0xffu ? 0xffu : v);
}

int composite__config_desc(struct usb_composite_dev *cdev, struct usb_configuration *c,
			   enum usb_device_speed speed, uint8_t type,
			   uint8_t *buf, size_t cap)
{
	struct usb_config_descriptor h;
	struct usb_function *f;
	int len = USB_DT_CONFIG_SIZE;

	(void)cdev;
	if (cap < USB_DT_CONFIG_SIZE)
		return -USB_ENOSPC;
	len = append(buf, cap, (size_t)len,
		     (const struct usb_descriptor_header *const *)c->descriptors);
	list_for_each_entry_t(f, &c->functions, struct usb_function, list) {
		if (len < 0)
			break;
		len = append(buf, cap, (size_t)len,
			     (const struct usb_descriptor_header *const *)
			     composite__function_descs(f, speed));
	}
	if (len < 0)
		return len;

	memset(&h, 0, sizeof(h));
	h.bLength = USB_DT_CONFIG_SIZE;
	h.bDescriptorType = type;
	h.wTotalLength = USB_CPU_TO_LE16((uint16_t)len);
	h.bNumInterfaces = c->next_interface_id;
	h.bConfigurationValue = c->bConfigurationValue;
	h.iConfiguration = c->iConfiguration ? c->iConfiguration : c->label_id;
	h.bmAttributes = (uint8_t)(USB_CONFIG_ATT_ONE | c->bmAttributes);
	h.bMaxPower = max_power(c, speed);
	memcpy(buf, &h, USB_DT_CONFIG_SIZE);
	return len;
}

#if defined(COMPOSITE_NO_SUPERSPEED) && defined(COMPOSITE_NO_OS_DESC)
/* The minimal profile: no SuperSpeed and no platform capability, so the
 * BOS is always the same 12 bytes (the USB 2.0 extension, no LPM). */
int composite__bos_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	static const uint8_t bos[USB_DT_BOS_SIZE + USB_DT_USB_EXT_CAP_SIZE] = {
		USB_DT_BOS_SIZE, USB_DT_BOS,
		USB_DT_BOS_SIZE + USB_DT_USB_EXT_CAP_SIZE, 0,	/* wTotalLength */
		1,						/* bNumDeviceCaps */
		USB_DT_USB_EXT_CAP_SIZE, USB_DT_DEVICE_CAPABILITY, USB_CAP_TYPE_EXT,
		0, 0, 0, 0,					/* bmAttributes */
	};

	(void)cdev;
	if (cap < sizeof(bos))
		return -USB_ENOSPC;
	memcpy(buf, bos, sizeof(bos));
	return (int)sizeof(bos);
}
#else
int composite__bos_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	struct usb_bos_descriptor bos;
	struct usb_ext_cap_descriptor ext;
	struct usb_ss_cap_descriptor ss;
	size_t len = USB_DT_BOS_SIZE;
	bool super = composite__super(cdev->gadget->max_speed) &&
		     (cdev->driver->max_speed == USB_SPEED_UNKNOWN ||
		      cdev->driver->max_speed >= USB_SPEED_SUPER);

	int plat;

	if (cap < USB_DT_BOS_SIZE + USB_DT_USB_EXT_CAP_SIZE + USB_DT_USB_SS_CAP_SIZE)
		return -USB_ENOSPC;
	memset(&bos, 0, sizeof(bos));
	bos.bLength = USB_DT_BOS_SIZE;
	bos.bDescriptorType = USB_DT_BOS;

	/* USB 2.0 extension: no link power management offered. */
	memset(&ext, 0, sizeof(ext));
	ext.bLength = USB_DT_USB_EXT_CAP_SIZE;
	ext.bDescriptorType = USB_DT_DEVICE_CAPABILITY;
	ext.bDevCapabilityType = USB_CAP_TYPE_EXT;
	ext.bmAttributes = USB_CPU_TO_LE32(0);
	memcpy(buf + len, &ext, USB_DT_USB_EXT_CAP_SIZE);
	len += USB_DT_USB_EXT_CAP_SIZE;
	bos.bNumDeviceCaps = 1;

	if (super) {
		memset(&ss, 0, sizeof(ss));
		ss.bLength = USB_DT_USB_SS_CAP_SIZE;
		ss.bDescriptorType = USB_DT_DEVICE_CAPABILITY;
		ss.bDevCapabilityType = USB_SS_CAP_TYPE;
		ss.bmAttributes = 0;
		ss.wSpeedSupported = USB_CPU_TO_LE16(USB_FULL_SPEED_OPERATION |
						 USB_HIGH_SPEED_OPERATION |
						 USB_5GBPS_OPERATION);
		ss.bFunctionalitySupport = 1;	/* full speed: lowest with all functions */
		ss.bU1devExitLat = 0x01;
		ss.bU2DevExitLat = USB_CPU_TO_LE16(0x01f4);
		memcpy(buf + len, &ss, USB_DT_USB_SS_CAP_SIZE);
		len += USB_DT_USB_SS_CAP_SIZE;
		bos.bNumDeviceCaps++;
	}
	plat = composite__os_bos_desc(cdev, buf + len, cap - len);
	if (plat < 0)
		return plat;
	len += (size_t)plat;
	bos.bNumDeviceCaps = (uint8_t)(bos.bNumDeviceCaps + composite__os_bos_caps(cdev));
	bos.wTotalLength = USB_CPU_TO_LE16((uint16_t)len);
	memcpy(buf, &bos, USB_DT_BOS_SIZE);
	return (int)len;
}
#endif /* the minimal profile's BOS */

bool composite__has_alt(const struct usb_function *f, enum usb_device_speed speed,
			unsigned intf, unsigned alt)
{
	struct usb_descriptor_header **v = composite__function_descs(f, speed);

	for (; v && *v; v++) {
		const struct usb_interface_descriptor *d = (const void *)*v;

		if ((*v)->bDescriptorType == USB_DT_INTERFACE &&
		    (*v)->bLength >= USB_DT_INTERFACE_SIZE &&
		    d->bInterfaceNumber == intf && d->bAlternateSetting == alt)
			return true;
	}
	return false;
}

static uint32_t list_bits(struct usb_descriptor_header **v)
{
	uint32_t bits = 0;

	for (; v && *v; v++) {
		const struct usb_endpoint_descriptor *d = (const void *)*v;

		if ((*v)->bDescriptorType != USB_DT_ENDPOINT ||
		    (*v)->bLength < USB_DT_ENDPOINT_SIZE)
			continue;
		bits |= 1u << (((d->bEndpointAddress & USB_DIR_IN) ? 0x10u : 0u) |
			       (d->bEndpointAddress & USB_ENDPOINT_NUMBER_MASK));
	}
	return bits;
}

uint32_t composite__endpoint_bits(const struct usb_function *f)
{
	return list_bits(f->fs_descriptors) | list_bits(f->hs_descriptors) |
	       list_bits(f->ss_descriptors) | list_bits(f->ssp_descriptors);
}

/* ---- descriptor copies ------------------------------------------------- */

struct usb_descriptor_header **usb_copy_descriptors(struct usb_descriptor_header **src)
{
	struct usb_descriptor_header **v, **ret;
	size_t n = 0, bytes = 0, ptrs;
	uint8_t *mem;

	if (!src)
		return NULL;
	for (v = src; *v; v++) {
		n++;
		bytes += (*v)->bLength;
	}
	/* One block: the pointer array, then the descriptors (byte-aligned
	 * packed structures). */
	ptrs = (n + 1) * sizeof(*ret);
	mem = composite__malloc(ptrs + bytes);
	if (!mem)
		return NULL;
	ret = (struct usb_descriptor_header **)(void *)mem;
	mem += ptrs;
	for (n = 0, v = src; *v; v++, n++) {
		memcpy(mem, *v, (*v)->bLength);
		ret[n] = (struct usb_descriptor_header *)(void *)mem;
		mem += (*v)->bLength;
	}
	ret[n] = NULL;
	return ret;
}

void usb_free_descriptors(struct usb_descriptor_header **v)
{
	composite__free(v);
}

void usb_free_all_descriptors(struct usb_function *f)
{
	if (!f || !f->descriptors_owned)
		return;
	usb_free_descriptors(f->fs_descriptors);
	usb_free_descriptors(f->hs_descriptors);
	usb_free_descriptors(f->ss_descriptors);
	usb_free_descriptors(f->ssp_descriptors);
	f->fs_descriptors = f->hs_descriptors = NULL;
	f->ss_descriptors = f->ssp_descriptors = NULL;
	f->descriptors_owned = false;
}

int usb_assign_descriptors(struct usb_function *f,
			   struct usb_descriptor_header **fs,
			   struct usb_descriptor_header **hs,
			   struct usb_descriptor_header **ss,
			   struct usb_descriptor_header **ssp)
{
#ifdef COMPOSITE_NO_SUPERSPEED
	struct usb_descriptor_header **src[4] = { fs, hs, NULL, NULL };	/* never used */
#else
	struct usb_descriptor_header **src[4] = { fs, hs, ss, ssp };
#endif
	struct usb_descriptor_header **copy[4] = { NULL, NULL, NULL, NULL };
	unsigned i;

	if (!f)
		return -USB_EINVAL;
	for (i = 0; i < 4; i++) {
		if (!src[i])
			continue;
		copy[i] = usb_copy_descriptors(src[i]);
		if (!copy[i])
			goto fail;
	}
	usb_free_all_descriptors(f);
	f->fs_descriptors = copy[0];
	f->hs_descriptors = copy[1];
	f->ss_descriptors = copy[2];
	f->ssp_descriptors = copy[3];
	f->descriptors_owned = true;
	return 0;
fail:
	for (i = 0; i < 4; i++)
		usb_free_descriptors(copy[i]);
	return -USB_ENOMEM;
}

int config_ep_by_speed(struct usb_gadget *g, struct usb_function *f, struct usb_ep *ep)
{
	struct usb_descriptor_header **v;
	enum usb_device_speed speed;

	if (!g || !f || !ep)
		return -USB_EINVAL;
	speed = g->speed != USB_SPEED_UNKNOWN ? g->speed : g->max_speed;
	for (v = composite__function_descs(f, speed); v && *v; v++) {
		const struct usb_endpoint_descriptor *d = (const void *)*v;

		if ((*v)->bDescriptorType != USB_DT_ENDPOINT ||
		    (*v)->bLength < USB_DT_ENDPOINT_SIZE ||
		    d->bEndpointAddress != ep->address)
			continue;
		ep->desc = d;
		ep->comp_desc = NULL;
		ep->maxburst = 0;
		if (composite__super(speed) && v[1] &&
		    v[1]->bDescriptorType == USB_DT_SS_ENDPOINT_COMP &&
		    v[1]->bLength >= USB_DT_SS_EP_COMP_SIZE) {
			ep->comp_desc = (const void *)v[1];
			ep->maxburst = ep->comp_desc->bMaxBurst & 0x1fu;
		}
		return 0;
	}
	return -USB_EINVAL;
}
