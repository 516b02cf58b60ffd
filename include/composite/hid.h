/*
 * hid.h - the HID function ("hid", as Linux's f_hid): one interface of
 * class 3 with its HID class descriptor, an interrupt IN endpoint and,
 * unless no_out_endpoint, an interrupt OUT one. It answers
 * GET_DESCRIPTOR(HID) and GET_DESCRIPTOR(Report) to the interface,
 * GET_REPORT (the last input report sent), SET_REPORT (an output report,
 * up to report_length bytes), GET_IDLE/SET_IDLE and GET_PROTOCOL/
 * SET_PROTOCOL (boot or report protocol). The host's usbhid driver binds
 * (/dev/hidrawN, and the input layer for keyboards and mice).
 *
 * Gadget side: hid_send_report() queues one input report (a queue of
 * HID_REPORT_QUEUE; full: -USB_EAGAIN and ops->writable later, nothing
 * dropped); output reports (interrupt OUT or SET_REPORT) arrive through
 * ops->out_report. composite/hidg.h bridges a function to named pipes, as
 * Linux's /dev/hidg0.
 *
 * Threads: hid_send_report() from one thread at a time (any thread); the
 * callbacks run in the backend's event context, one at a time.
 */
#ifndef COMPOSITE_HID_H
#define COMPOSITE_HID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/function.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Class descriptor types and requests (HID 1.11, Linux's names). */
#define HID_DT_HID		0x21
#define HID_DT_REPORT		0x22
#define HID_REQ_GET_REPORT	0x01
#define HID_REQ_GET_IDLE	0x02
#define HID_REQ_GET_PROTOCOL	0x03
#define HID_REQ_SET_REPORT	0x09
#define HID_REQ_SET_IDLE	0x0a
#define HID_REQ_SET_PROTOCOL	0x0b

#define HID_REPORT_PROTOCOL	1	/* GET/SET_PROTOCOL values */
#define HID_BOOT_PROTOCOL	0

#define HID_REPORT_QUEUE	16	/* input reports waiting for the host */
#define HID_REPORT_DESC_MAX	4096
#define HID_REPORT_LENGTH_MAX	1024

/* The boot keyboard's report descriptor (HID 1.11 appendix B.1): 8-byte
 * input reports (modifiers, reserved, six key codes), a 1-byte LED output
 * report. For f_hid_opts: subclass 1, protocol 1, report_length 8. */
extern const uint8_t hid_boot_keyboard_report_desc[63];

/**
 * struct hid_ops - what the gadget side hears. All optional; event
 * context; @ctx is f_hid_opts.ctx.
 * @out_report: an output report of @len bytes (the interrupt OUT
 *	endpoint, or SET_REPORT when @set_report). Copy it before returning.
 * @writable: the input queue has room again after -USB_EAGAIN.
 * @idle: the host set the idle period (SET_IDLE) to @ms (0: none).
 * @unbind: the function is being unbound: stop calling
 *	hid_send_report() before returning. Context: the thread in
 *	usb_composite_unregister()/usb_remove_function().
 */
struct hid_ops {
	void (*out_report)(struct usb_function *f, void *ctx, const uint8_t *data, size_t len,
			   bool set_report);
	void (*writable)(struct usb_function *f, void *ctx);
	void (*idle)(struct usb_function *f, void *ctx, unsigned ms);
	void (*unbind)(struct usb_function *f, void *ctx);
};

/**
 * struct f_hid_opts - Linux's f_hid options.
 * @subclass: bInterfaceSubClass (1: boot interface).
 * @protocol: bInterfaceProtocol (1 keyboard, 2 mouse, 0 none).
 * @report_length: bytes of one input report, 1..HID_REPORT_LENGTH_MAX
 *	(also the endpoints' wMaxPacketSize; at most 64 at full speed).
 * @report_desc, @report_desc_length: the report descriptor (borrowed
 *	until the function is made, which copies it), 1..HID_REPORT_DESC_MAX.
 * @no_out_endpoint: no interrupt OUT endpoint (output reports then come
 *	by SET_REPORT only).
 * @minor: the number of /dev/hidgN-style names (the registry gives
 *	0, 1...; the bridge's default pipe names use it).
 * @ops, @ctx: the callbacks (borrowed; may be NULL).
 */
struct f_hid_opts {
	uint8_t subclass;
	uint8_t protocol;
	uint16_t report_length;
	const uint8_t *report_desc;
	size_t report_desc_length;
	bool no_out_endpoint;
	unsigned minor;
	const struct hid_ops *ops;
	void *ctx;
};

/* Defaults: all zero (no report descriptor: set one). */
void f_hid_opts_init(struct f_hid_opts *opts);

/* Return: 0 if @opts makes a function, else -USB_EINVAL. */
int f_hid_opts_check(const struct f_hid_opts *opts);

/* A new HID function (copies the report descriptor). Return: 0 and *@out;
 * -USB_EINVAL; -USB_ENOMEM. Freed by the core after unbind, or hid_free(). */
int hid_alloc(const struct f_hid_opts *opts, struct usb_function **out);
void hid_free(struct usb_function *f);
bool hid_is(const struct usb_function *f);

/**
 * hid_send_report() - queue one input report of @len bytes (1 to
 * report_length; a shorter one is sent as is).
 * Return: 0; -USB_EAGAIN (HID_REPORT_QUEUE reports are waiting: the host
 * is not reading; ops->writable comes when one has gone); -USB_ENOTCONN
 * (not configured); -USB_EINVAL (@len out of range).
 */
int hid_send_report(struct usb_function *f, const void *report, size_t len);

/* Input reports queued and not yet taken by the host. */
unsigned hid_reports_pending(struct usb_function *f);

/* The idle period the host set (SET_IDLE), in ms; 0: report on change
 * only. The function does not repeat reports itself (it has no clock): a
 * gadget side that honours idle sends its last report again after this
 * long without a new one (the hidg bridge does). */
unsigned hid_get_idle_ms(struct usb_function *f);

/* HID_BOOT_PROTOCOL or HID_REPORT_PROTOCOL, as the host set it (report
 * protocol until it sets one). */
unsigned hid_get_protocol(struct usb_function *f);

struct f_hid_stats {
	uint64_t in_reports;	/* taken by the host */
	uint64_t out_reports;	/* interrupt OUT and SET_REPORT */
	uint64_t get_reports;
	bool connected;
};

void hid_get_stats(struct usb_function *f, struct f_hid_stats *st);

/*
 * The options of a registry instance of "hid" (composite/registry.h),
 * NULL for any other. Attributes: protocol, subclass, report_length,
 * no_out_endpoint, and report_desc as hex text ("05 01 09 06 ..."; spaces
 * and newlines between bytes ignored), since an attribute value is a C
 * string and configfs's raw bytes would hold NULs. dev (read-only): the
 * instance's minor.
 */
struct f_hid_opts *f_hid_opts_from_instance(struct usb_function_instance *fi);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_HID_H */
