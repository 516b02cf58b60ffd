/*
 * bulk_pair.c - a bulk IN/OUT endpoint pair and its descriptors at every
 * speed (bulk_pair.h). Touches only the pair and the gadget's endpoints
 * through autoconfig.
 */
#include "functions/common/bulk_pair.h"

#include <string.h>

static void init_ep(struct usb_endpoint_descriptor *d, uint8_t address, uint16_t maxpacket)
{
	memset(d, 0, sizeof(*d));
	d->bLength = USB_DT_ENDPOINT_SIZE;
	d->bDescriptorType = USB_DT_ENDPOINT;
	d->bEndpointAddress = address;
	d->bmAttributes = USB_ENDPOINT_XFER_BULK;
	d->wMaxPacketSize = USB_CPU_TO_LE16(maxpacket);
}

int fn_bulk_pair_bind(struct fn_bulk_pair *p, struct usb_gadget *gadget, uint16_t fs_maxpacket)
{
	init_ep(&p->fs_in, USB_DIR_IN, 0);
	init_ep(&p->fs_out, USB_DIR_OUT, 0);
	p->in = usb_ep_autoconfig(gadget, &p->fs_in);
	if (!p->in)
		return -USB_ENODEV;
	p->out = usb_ep_autoconfig(gadget, &p->fs_out);
	if (!p->out) {
		usb_ep_autoconfig_release(p->in);
		p->in = NULL;
		return -USB_ENODEV;
	}
	if (fs_maxpacket) {
		p->fs_in.wMaxPacketSize = USB_CPU_TO_LE16(fs_maxpacket);
		p->fs_out.wMaxPacketSize = USB_CPU_TO_LE16(fs_maxpacket);
	}
	/* High speed: 512-byte packets (USB 2.0 5.8.3); SuperSpeed: 1024,
	 * no bursts, as Linux's functions default to. */
	init_ep(&p->hs_in, p->fs_in.bEndpointAddress, 512);
	init_ep(&p->hs_out, p->fs_out.bEndpointAddress, 512);
	init_ep(&p->ss_in, p->fs_in.bEndpointAddress, 1024);
	init_ep(&p->ss_out, p->fs_out.bEndpointAddress, 1024);
	memset(&p->ss_in_comp, 0, sizeof(p->ss_in_comp));
	p->ss_in_comp.bLength = USB_DT_SS_EP_COMP_SIZE;
	p->ss_in_comp.bDescriptorType = USB_DT_SS_ENDPOINT_COMP;
	p->ss_out_comp = p->ss_in_comp;
	return 0;
}

void fn_bulk_pair_release(struct fn_bulk_pair *p)
{
	if (p->out)
		usb_ep_autoconfig_release(p->out);
	if (p->in)
		usb_ep_autoconfig_release(p->in);
	p->in = p->out = NULL;
}

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

size_t fn_bulk_pair_descs(struct fn_bulk_pair *p, enum usb_device_speed speed,
			  struct usb_descriptor_header **v)
{
#ifndef COMPOSITE_NO_SUPERSPEED
	if (speed >= USB_SPEED_SUPER) {
		v[0] = DH(&p->ss_in);
		v[1] = DH(&p->ss_in_comp);
		v[2] = DH(&p->ss_out);
		v[3] = DH(&p->ss_out_comp);
		return 4;
	}
#endif
	v[0] = DH(speed == USB_SPEED_HIGH ? &p->hs_in : &p->fs_in);
	v[1] = DH(speed == USB_SPEED_HIGH ? &p->hs_out : &p->fs_out);
	return 2;
}
