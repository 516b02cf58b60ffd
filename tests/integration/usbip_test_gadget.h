/*
 * usbip_test_gadget.h - a composite gadget for the USB/IP tests and bench:
 * one vendor interface with
 *   ep "loop" bulk OUT/IN: every OUT request (4096 B, 8 of them) is echoed
 *       on IN with the length received;
 *   ep "sink" bulk OUT: 2 requests of 16 KiB (or tg_probe_bulk()'s), bytes counted;
 *   ep "source" bulk IN: as many, of a known pattern, always queued;
 *   ep "intr" interrupt IN: idle unless vendor request 0x02 queues data;
 *   ep "isrc" isochronous IN: 4 requests of TG_ISO_LEN bytes (byte k of
 *       request n: n + k), always queued;
 *   ep "isink" isochronous OUT: 4 requests of 1024 bytes, counted;
 * and vendor requests to the interface (bRequestType 0x41/0xc1, wIndex 0):
 *   0x5b OUT: store the data stage (up to 4096 bytes);
 *   0x5c IN: return what 0x5b stored (up to wLength);
 *   0x01 no data: halt the endpoint whose address is wValue;
 *   0x02 no data: queue wValue bytes (<= 64) on the interrupt endpoint;
 *   anything else stalls.
 */
#ifndef USBIP_TEST_GADGET_H
#define USBIP_TEST_GADGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/function.h"

#define TG_LOOP_N 8
#define TG_LOOP_LEN 4096
#define TG_BIG_LEN 16384	/* sink and source requests, by default two */
#define TG_BIG_MAX 8
#define TG_CTL_LEN 4096
#define TG_ISO_LEN 256
#define TG_NEPS 7

struct tg {
	struct usb_composite_driver driver;
	struct usb_device_descriptor dev_desc;
	struct usb_configuration config;
	struct usb_function func;
	char udc[32];

	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor fs_ep[TG_NEPS], hs_ep[TG_NEPS];
	struct usb_descriptor_header *fs[TG_NEPS + 2], *hs[TG_NEPS + 2];

	struct usb_ep *loop_out, *loop_in, *sink, *source, *intr, *isrc, *isink;
	struct usb_request *isrc_req[4], *isink_req[4];
	_Atomic unsigned iso_in_reqs, iso_out_reqs, iso_out_bytes;
	struct usb_request *lo[TG_LOOP_N], *li[TG_LOOP_N];
	struct usb_request *sink_req[TG_BIG_MAX], *src_req[TG_BIG_MAX], *intr_req;
	unsigned big_len, big_n;
	uint8_t ctl_buf[TG_CTL_LEN];
	unsigned ctl_len;
	_Atomic unsigned set_alts, disables;
	_Atomic unsigned long long sunk, sourced;
	_Atomic int active;
	/* bench: refill nothing on requeue (the pattern costs more than the
	 * transport being measured) */
	bool no_refill;
};

/* Bind a test gadget with idProduct @pid to UDC @udc. Return 0 or error. */
int tg_probe(struct tg *g, const char *udc, uint16_t pid);

/* The same with @n (<= TG_BIG_MAX) sink and source requests of @len
 * bytes each instead of two of TG_BIG_LEN. */
int tg_probe_bulk(struct tg *g, const char *udc, uint16_t pid, unsigned len, unsigned n);

/* Unregister it (idempotent). */
void tg_remove(struct tg *g);

/* Byte @i of the source pattern. */
static inline uint8_t tg_pattern(uint64_t i)
{
	return (uint8_t)(i % 251u);
}

/* Endpoint addresses as autoconfig chose them. */
uint8_t tg_addr(const struct usb_ep *ep);

#endif /* USBIP_TEST_GADGET_H */
