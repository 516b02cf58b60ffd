/*
 * bulk_pair.h - one bulk IN and one bulk OUT endpoint with their
 * descriptors at every speed, as Mass Storage, Loopback and SourceSink
 * each have in their interface: autoconfig of the two (neither claimed
 * if the second fails) and the per-speed copies of what autoconfig chose.
 * Private to src/functions; uses only the public function API.
 */
#ifndef FUNCTIONS_BULK_PAIR_H
#define FUNCTIONS_BULK_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "composite/function.h"

struct fn_bulk_pair {
	struct usb_endpoint_descriptor fs_in, fs_out, hs_in, hs_out, ss_in, ss_out;
	struct usb_ss_ep_comp_descriptor ss_in_comp, ss_out_comp;
	struct usb_ep *in, *out;	/* claimed from the gadget, or NULL */
};

/*
 * Claim a bulk IN and a bulk OUT endpoint of @gadget for @p and fill in
 * their descriptors: full speed with @fs_maxpacket (0: what autoconfig
 * chose), high speed 512, SuperSpeed 1024 with no bursts. Bind context.
 * Return: 0, or -USB_ENODEV (no such pair left; nothing claimed).
 */
int fn_bulk_pair_bind(struct fn_bulk_pair *p, struct usb_gadget *gadget, uint16_t fs_maxpacket);

/* Give both endpoints back to autoconfig (a later step of bind failed). */
void fn_bulk_pair_release(struct fn_bulk_pair *p);

/*
 * Put the pair's descriptors for @speed at @v: IN and OUT, at SuperSpeed
 * each followed by its companion. Return: how many (2 or 4).
 */
size_t fn_bulk_pair_descs(struct fn_bulk_pair *p, enum usb_device_speed speed,
			  struct usb_descriptor_header **v);

#endif /* FUNCTIONS_BULK_PAIR_H */
