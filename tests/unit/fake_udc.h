/*
 * fake_udc.h - a scripted backend for the core's tests and fuzzer: a
 * gadget with ep0 and eight endpoints whose ops only record what the core
 * asks (queue, halt, enable, address, test mode...). A test plays the
 * host: it feeds 8 SETUP bytes and sees either the bytes the core queued
 * on ep0 or a stall (fake_control()). Requests are given back only when a
 * test says so (fake_ep0_complete(), fake_ep_complete()), as a backend's
 * event context would. Plain C11 (no cmocka), so the fuzzer can use it.
 */
#ifndef FAKE_UDC_H
#define FAKE_UDC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/udc.h"

#define FAKE_MAX_EPS 8

/* fake_control() results besides a length >= 0. */
#define FAKE_STALL	(-1000)	/* the control transfer was stalled */
#define FAKE_PENDING	(-1001)	/* accepted, nothing queued yet (delayed status) */

struct fake_udc;

struct fake_ep {
	struct usb_ep ep;
	struct fake_udc *udc;
	char name[16];
	struct usb_request *queue[16];	/* in queue order */
	unsigned queued;
	bool hw_halted;
	int enable_calls, disable_calls, set_halt_calls, set_wedge_calls;
	int last_halt_value;	/* enum usb_ep_halt_value of the last call */
	atomic_int queue_calls;	/* ops->queue calls, from any thread */
};

struct fake_udc {
	struct usb_gadget gadget;
	struct fake_ep ep0;
	struct fake_ep eps[FAKE_MAX_EPS];
	struct usb_gadget_ops ops;
	struct usb_ep_ops ep_ops;
	int start_calls, stop_calls, start_ret;
	int pullup, pullup_calls;
	unsigned vbus_ma;
	int vbus_calls;
	int address, set_address_calls;
	int test_selector, test_mode_calls;
	int ep0_stalls;		/* ops->set_halt(ep0, USB_EP_HALT_SET) calls */
	int wakeup_calls;
	long live_requests;	/* allocated and not yet freed */
	unsigned long request_allocs;	/* alloc_request calls that gave one */
	bool fail_alloc;	/* alloc_request returns NULL */
};

/* Set up @u as UDC @name with the given fastest speed; not registered.
 * @u should have static storage: fake_udc_cleanup() may visit it later. */
void fake_udc_init(struct fake_udc *u, const char *name, enum usb_device_speed max_speed);

/* Unregister every fake that is still registered (a test that failed
 * half-way leaves its UDC bound): a cmocka teardown. Return: 0. */
int fake_udc_cleanup(void **state);

/* Report a bus reset at @speed (the device goes to the default state). */
void fake_udc_reset(struct fake_udc *u, enum usb_device_speed speed);

/* usb_gadget_setup() with 8 raw bytes; Return: its result. */
int fake_setup(struct fake_udc *u, const uint8_t setup[8]);

/* The request queued on ep0, or NULL. */
struct usb_request *fake_ep0_req(struct fake_udc *u);

/* Give back the ep0 request: @status, @actual set first. */
void fake_ep0_complete(struct fake_udc *u, int status, unsigned actual);

/*
 * One control transfer as the host sees it: SETUP, then the data stage
 * (@out: wLength bytes for OUT requests; @reply: room @cap for IN), then
 * the status stage. Return: the number of data bytes of an IN transfer
 * (0 for no-data), the wLength accepted for OUT, FAKE_STALL, or
 * FAKE_PENDING when the core accepted it but queued nothing yet.
 */
int fake_control(struct fake_udc *u, const uint8_t setup[8], const void *out,
		 void *reply, size_t cap);

/* Same, setup given by fields. */
int fake_ctrl(struct fake_udc *u, uint8_t type, uint8_t req, uint16_t value,
	      uint16_t index, uint16_t length, void *reply, size_t cap);

/* The fake endpoint with bEndpointAddress @addr (claimed), or NULL. */
struct fake_ep *fake_ep_by_addr(struct fake_udc *u, uint8_t addr);

/* Give back the oldest request queued on @ep. Return: false if none. */
bool fake_ep_complete(struct fake_ep *ep, int status, unsigned actual);

#endif /* FAKE_UDC_H */
