/*
 * inproc_host.h - an in-process USB host wired to a software UDC, for
 * tests and fuzzers of gadget drivers and functions (POSIX builds).
 *
 * usb_inproc_host_create() registers a UDC (default name "inproc.0")
 * that a composite driver binds to as to any other. The thread calling the
 * usb_inproc_host_*() functions then plays the host: it resets the bus,
 * sends control transfers and moves bulk/interrupt/isochronous data, packet
 * by packet with a real controller's rules (short packets, zero-length
 * packets, babble, stalls; src/udc/common/xfer.h). Interrupt endpoints
 * are polled at their service interval, as a host controller would: one
 * transaction (wMaxPacketSize x mult) per bInterval ms at full/low speed,
 * per 2^(bInterval-1) x 125 us above, so a transfer on one may wait up
 * to an interval (within its timeout_ms) after the previous one.
 *
 * Thread model
 * - The host thread is the gadget's event context: SETUP handling, bus
 *   events and request completions run in it, inside the host call that
 *   caused them (or in usb_inproc_host_poll()). One host call runs at a
 *   time; a second thread calling in waits for the first to return.
 * - Functions may queue, dequeue and halt from any thread (their worker
 *   threads): a host call waiting for that endpoint wakes up.
 * - Every wait is bounded by the call's timeout_ms (0: do not wait).
 * - Do not call usb_inproc_host_*() from gadget callbacks: such calls
 *   return -USB_EBUSY instead of deadlocking.
 *
 * Results are as everywhere in the library: >= 0 a byte count or 0, or a
 * negated USB_E* value (-USB_EPIPE: stalled; -USB_ETIMEDOUT: no answer in
 * time; -USB_ENODEV: not connected / no driver; -USB_EOVERFLOW: babble;
 * -USB_EREMOTEIO: short with USB_INPROC_SHORT_NOT_OK).
 */
#ifndef COMPOSITE_INPROC_HOST_H
#define COMPOSITE_INPROC_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "composite/gadget.h"

#ifdef __cplusplus
extern "C" {
#endif

struct usb_inproc_host;
struct usb_inproc_xfer;

/* Transfer flags (the URB flags of the same names). */
#define USB_INPROC_SHORT_NOT_OK 0x0001u	/* IN: ending short is an error */
#define USB_INPROC_ZERO_PACKET 0x0040u	/* OUT: end a multiple of maxpacket with a ZLP */

/**
 * struct usb_inproc_ep_config - one endpoint of the simulated controller.
 * @address: endpoint number 1..15, with USB_DIR_IN for an IN endpoint.
 *	Names are "ep<n>in" / "ep<n>out".
 * @bulk, @intr, @iso: transfer types it can take (none set: all three).
 * @maxpacket_limit: largest wMaxPacketSize it takes (0: 1024).
 */
struct usb_inproc_ep_config {
	uint8_t address;
	unsigned bulk : 1;
	unsigned intr : 1;
	unsigned iso : 1;
	uint16_t maxpacket_limit;
};

/**
 * struct usb_inproc_host_config - what to simulate. All-zero is valid.
 * @udc_name: UDC name (copied; at most 31 bytes). NULL: "inproc.0".
 * @max_speed: fastest speed (USB_SPEED_LOW..USB_SPEED_SUPER_PLUS).
 *	USB_SPEED_UNKNOWN: USB_SPEED_HIGH.
 * @ep0_maxpacket: ep0 packet size at full/high speed: 8, 16, 32 or 64
 *	(0: 64). Low speed uses 8, SuperSpeed 512.
 * @endpoints, @num_endpoints: the endpoints (copied). None: ep1in..ep15in
 *	and ep1out..ep15out, every type, limit 1024.
 */
struct usb_inproc_host_config {
	const char *udc_name;
	enum usb_device_speed max_speed;
	unsigned ep0_maxpacket;
	const struct usb_inproc_ep_config *endpoints;
	size_t num_endpoints;
};

/**
 * usb_inproc_host_create() - create the controller and register its UDC.
 * @config: may be NULL (all defaults).
 * @out: receives the host (owned by the caller; free with _destroy()).
 * Return: 0; -USB_EINVAL for a bad configuration or a UDC name already
 * registered; -USB_ENOMEM; -USB_EIO if a thread primitive fails.
 */
int usb_inproc_host_create(const struct usb_inproc_host_config *config,
			     struct usb_inproc_host **out);

/*
 * Unregister the UDC (unbinding a composite driver bound to it) and free
 * it. Free every transfer first (usb_inproc_host_free()). No host call
 * may be running. NULL is ignored.
 */
void usb_inproc_host_destroy(struct usb_inproc_host *h);

/* The simulated UDC (borrowed: valid until _destroy()). */
struct usb_gadget *usb_inproc_host_gadget(struct usb_inproc_host *h);

/**
 * usb_inproc_host_connect() - attach (if needed) and reset the bus at
 * @speed: pending transfers end with -USB_ECONNRESET, queued requests with
 * -USB_ESHUTDOWN, the gadget gets USB_GADGET_EVENT_RESET.
 * Return: 0; -USB_EINVAL for a speed above max_speed or unknown;
 * -USB_ENODEV if no driver is bound or the pullup is off.
 */
int usb_inproc_host_connect(struct usb_inproc_host *h, enum usb_device_speed speed);

/*
 * Unplug: pending transfers end with -USB_ESHUTDOWN, queued requests with
 * -USB_ESHUTDOWN, the gadget gets USB_GADGET_EVENT_DISCONNECT.
 * Return: 0 (also when not connected), or -USB_EBUSY from a callback.
 */
int usb_inproc_host_disconnect(struct usb_inproc_host *h);

/* Bus suspend / resume events. Return: 0, -USB_ENODEV if not connected. */
int usb_inproc_host_suspend(struct usb_inproc_host *h);
int usb_inproc_host_resume(struct usb_inproc_host *h);

/**
 * usb_inproc_host_control() - one control transfer on ep0.
 * @setup: the SETUP packet (wValue, wIndex, wLength little-endian, as on
 *	the wire).
 * @data: wLength bytes: filled by an IN transfer, sent by an OUT one. May
 *	be NULL when wLength is 0.
 * @timeout_ms: how long to wait for the device's answer (data or status
 *	stage, e.g. a delayed status).
 * Return: bytes of the data stage (0 without data); -USB_EPIPE if the
 * device stalled; -USB_ETIMEDOUT if it did not answer in time (the
 * transfer is abandoned; a late answer is discarded at the next SETUP);
 * -USB_ENODEV if not connected; -USB_EINVAL for @data NULL with wLength.
 */
int usb_inproc_host_control(struct usb_inproc_host *h,
			      const struct usb_ctrlrequest *setup, void *data,
			      unsigned timeout_ms);

/**
 * usb_inproc_host_transfer() - one bulk/interrupt/isochronous transfer
 * on endpoint @ep (bEndpointAddress: USB_DIR_IN set for IN), synchronous.
 * @buf, @len: data to send or room to receive.
 * @flags: USB_INPROC_* flags.
 * Return: bytes transferred, or as usb_inproc_host_wait(). On a timeout
 * the transfer is cancelled (an IN transfer's partial data is lost).
 */
int usb_inproc_host_transfer(struct usb_inproc_host *h, uint8_t ep, void *buf,
			       size_t len, unsigned flags, unsigned timeout_ms);

/**
 * usb_inproc_host_submit() - start a transfer and return at once, for
 * several transfers in flight (one per endpoint or many on one: they are
 * served in order).
 * @out: receives the transfer (owned by the caller: _free() it).
 * @buf: borrowed until the transfer has finished or been cancelled.
 * Return: 0; -USB_EINVAL for no such endpoint, ep0, or @buf NULL with
 * @len; -USB_ENODEV if not connected; -USB_ENOMEM.
 */
int usb_inproc_host_submit(struct usb_inproc_host *h, uint8_t ep, void *buf,
			     size_t len, unsigned flags, struct usb_inproc_xfer **out);

/**
 * usb_inproc_host_wait() - wait up to @timeout_ms for @x to finish.
 * Return: its byte count when it succeeded; its error when it failed
 * (-USB_EPIPE stall, -USB_EOVERFLOW babble, -USB_EREMOTEIO, -USB_ESHUTDOWN
 * device gone, -USB_ECONNRESET cancelled or bus reset); -USB_ETIMEDOUT if
 * still pending (it stays pending).
 */
int usb_inproc_host_wait(struct usb_inproc_host *h, struct usb_inproc_xfer *x,
			   unsigned timeout_ms);

/*
 * Cancel @x. Return: 0 if it was pending (it ends with -USB_ECONNRESET,
 * keeping the bytes already moved); -USB_EALREADY if it had finished.
 */
int usb_inproc_host_cancel(struct usb_inproc_host *h, struct usb_inproc_xfer *x);

/* Bytes moved by @x so far (also after an error). */
size_t usb_inproc_xfer_actual(const struct usb_inproc_xfer *x);

/* Cancel @x if pending, and free it. NULL is ignored. */
void usb_inproc_host_free(struct usb_inproc_host *h, struct usb_inproc_xfer *x);

/*
 * Run what is pending for the event context: completions of requests that
 * a worker thread's queueing finished, an unplug requested by the pullup.
 * Return: the number of requests given back.
 */
int usb_inproc_host_poll(struct usb_inproc_host *h);

/**
 * usb_inproc_host_enumerate() - what a host does on attach: reset at
 * @speed, GET_DESCRIPTOR(device, 64), SET_ADDRESS(1), GET_DESCRIPTOR
 * (device, 18), the 9-byte head of each configuration, then the whole
 * configuration whose bConfigurationValue is @config_value, then
 * SET_CONFIGURATION(@config_value). @config_value 0: read configuration
 * index 0 and stay in the address state.
 * @device: receives the device descriptor (may be NULL).
 * @config, @config_size: receive the configuration's descriptors (cut to
 *	@config_size; may be NULL/0).
 * Each control transfer waits up to @timeout_ms.
 * Return: the configuration's wTotalLength; -USB_ENOENT if no
 * configuration has @config_value; -USB_EPROTO for malformed descriptors;
 * or the error of the failing step.
 */
int usb_inproc_host_enumerate(struct usb_inproc_host *h, enum usb_device_speed speed,
				uint8_t config_value, struct usb_device_descriptor *device,
				void *config, size_t config_size, unsigned timeout_ms);

/*
 * CLEAR_FEATURE(ENDPOINT_HALT) to endpoint @ep (as a host does after a
 * stall). Return: as usb_inproc_host_control().
 */
int usb_inproc_host_clear_halt(struct usb_inproc_host *h, uint8_t ep,
				 unsigned timeout_ms);

/* SET_INTERFACE(@intf, @alt). Return: as usb_inproc_host_control(). */
int usb_inproc_host_set_interface(struct usb_inproc_host *h, uint8_t intf,
				    uint8_t alt, unsigned timeout_ms);

/**
 * struct usb_inproc_host_info - what the gadget told its controller.
 * @connected: attached to the host.
 * @pullup: the gadget shows itself (usb_gadget_connect()).
 * @address: set by the core after SET_ADDRESS.
 * @vbus_mA: from usb_gadget_vbus_draw().
 * @wakeups: remote wakeup signals.
 * @test_mode: the test selector entered, 0 if none.
 * @selfpowered: from usb_gadget_set_selfpowered().
 */
struct usb_inproc_host_info {
	int connected;
	int pullup;
	unsigned address;
	unsigned vbus_mA;
	unsigned wakeups;
	unsigned test_mode;
	int selfpowered;
};

/* Fill @info. Safe from any thread. */
void usb_inproc_host_info(struct usb_inproc_host *h, struct usb_inproc_host_info *info);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_INPROC_HOST_H */
