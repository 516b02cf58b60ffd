/*
 * test_core_fixture.h - test functions and a test driver for the core's
 * unit tests and fuzzer, on top of fake_udc. A tfunc is a function with
 * one or two interfaces (optionally a second alternate setting), a bulk IN
 * and a bulk OUT endpoint, descriptors for full, high and SuperSpeed, a
 * string, and a vendor/class request handler:
 *   vendor IN  0x01: reply wValue bytes 0,1,2... (ep0 request)
 *   vendor OUT 0x02: receive wLength bytes into .received
 *   class  OUT 0x03: USB_GADGET_DELAYED_STATUS
 *   anything else: stall
 * Counters record every callback. Plain C11.
 */
#ifndef TEST_CORE_FIXTURE_H
#define TEST_CORE_FIXTURE_H

#include "composite/function.h"
#include "fake_udc.h"

#define TF_VENDOR_IN	0x01
#define TF_VENDOR_OUT	0x02
#define TF_CLASS_DELAY	0x03
#define TF_MATCH_REQ	0x10	/* claimed by req_match when .match is set */

struct tfunc {
	struct usb_function func;
	/* settings, before usb_add_function() */
	unsigned n_intf;	/* 1 or 2 */
	bool two_alts;		/* interface 0 has alternate 1 too */
	bool no_assign;		/* use static lists instead of usb_assign_descriptors() */
	bool match;		/* req_match claims TF_MATCH_REQ */
	int bind_ret;		/* error returned by bind (after claiming) */
	int set_alt_ret;	/* returned by set_alt (DELAYED status too) */
	bool free_on_unbind;	/* leave copies to the core */
	bool lazy_ep_config;	/* f_acm's habit: config_ep_by_speed() only
				 * while ep->desc is NULL */
	/* state */
	int intf_id[2];
	unsigned alt[2];
	struct usb_ep *in, *out;
	uint8_t received[64];
	unsigned received_len;
	int bind_calls, unbind_calls, set_alt_calls, get_alt_calls, disable_calls;
	int setup_calls, suspend_calls, resume_calls, free_calls;
	unsigned last_set_alt_intf, last_set_alt_alt;
	/* descriptor templates */
	struct usb_interface_descriptor intf0, intf0_alt1, intf1;
	struct usb_endpoint_descriptor fs_in, fs_out, hs_in, hs_out, ss_in, ss_out;
	struct usb_ss_ep_comp_descriptor ss_comp_in, ss_comp_out;
	struct usb_descriptor_header *fs[8], *hs[8], *ss[10];
	struct usb_string str[2];
	struct usb_gadget_strings gstr;
	struct usb_gadget_strings *gstrs[2];
};

/* Prepare @t (name borrowed) with default settings. */
void tfunc_init(struct tfunc *t, const char *name);

/* A driver with up to two configurations, each of up to three functions. */
struct tdev {
	struct fake_udc udc;
	struct usb_composite_driver driver;
	struct usb_device_descriptor dd;
	struct usb_configuration cfg[2];
	struct tfunc *funcs[2][3];
	unsigned n_cfg;
	int bind_ret;
	int bind_calls, unbind_calls, disconnect_calls, suspend_calls, resume_calls;
	int cfg_unbind_calls;
	struct usb_string dev_str[3];
	struct usb_gadget_strings dev_gstr;
	struct usb_gadget_strings *dev_gstrs[3];	/* room for a second language */
	struct usb_composite_dev *cdev;
};

/* Prepare @d: UDC "fake.0" at @max_speed, vendor 0x1d6b product 0x0104,
 * bcdUSB @bcd, one configuration (value 1) holding @f (may be NULL). */
void tdev_init(struct tdev *d, enum usb_device_speed max_speed, uint16_t bcd,
	       struct tfunc *f);

/* Register the UDC and probe the driver. Return: the probe's result. */
int tdev_start(struct tdev *d);

/* Unregister driver and UDC. */
void tdev_stop(struct tdev *d);

/* Reset at @speed and run SET_ADDRESS(5) (and SET_CONFIGURATION(@config)
 * if non-zero). Return: 0 when every step answered. */
int tdev_enumerate(struct tdev *d, enum usb_device_speed speed, unsigned config);

#endif /* TEST_CORE_FIXTURE_H */
