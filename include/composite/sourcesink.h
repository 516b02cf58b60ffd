/*
 * sourcesink.h - the SourceSink function of Gadget Zero: a vendor-specific
 * interface whose bulk IN endpoint sources a data pattern and whose bulk
 * OUT endpoint sinks (and checks) it, with an alternate setting 1 that adds
 * an isochronous IN/OUT pair, and the vendor control requests 0x5b (write
 * the function's buffer) and 0x5c (read it back). The host side is Linux's
 * usbtest driver (or tests/unit). Behaviour and defaults follow Linux's
 * f_sourcesink, so the same host tests pass against both.
 *
 * Usage: fill a struct f_ss_opts (f_ss_opts_init() gives the defaults),
 * sourcesink_alloc() a function, and usb_add_function() it to a
 * configuration in that configuration's bind. From then on the core owns
 * it (it is freed after unbind); if usb_add_function() fails, free it with
 * sourcesink_free().
 */
#ifndef COMPOSITE_SOURCESINK_H
#define COMPOSITE_SOURCESINK_H

#include <stdbool.h>
#include <stdint.h>

#include "composite/function.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults, as Linux's g_zero.h. */
#define GZERO_BULK_BUFLEN	4096
#define GZERO_QLEN		32
#define GZERO_ISOC_INTERVAL	4
#define GZERO_ISOC_MAXPACKET	1024
#define GZERO_SS_BULK_QLEN	1
#define GZERO_SS_ISO_QLEN	8

/* The vendor requests (bRequestType vendor, recipient device, wValue and
 * wIndex 0, wLength at most USB_COMP_EP0_BUFSIZ). */
#define GZERO_REQ_CTRL_WRITE	0x5b	/* host-to-device: fill the buffer */
#define GZERO_REQ_CTRL_READ	0x5c	/* device-to-host: return it */

/* Data patterns. */
enum sourcesink_pattern {
	SS_PATTERN_ZERO = 0,	/* all zeroes */
	SS_PATTERN_MOD63 = 1,	/* byte i of a packet is i % 63 */
	SS_PATTERN_NONE = 2	/* IN data unspecified, OUT data unchecked */
};

/**
 * struct f_ss_opts - parameters of one SourceSink instance.
 * @pattern: enum sourcesink_pattern (0..2).
 * @isoc_interval: bInterval of the iso endpoints, 1..16.
 * @isoc_maxpacket: 0..1024 (full speed uses at most 1023).
 * @isoc_mult: 0..2, extra transactions per microframe (high/super speed).
 * @isoc_maxburst: 0..15, super speed only.
 * @bulk_buflen: bytes per bulk request, 1..1048576.
 * @bulk_qlen: bulk requests kept queued per endpoint, 1..256.
 * @iso_qlen: iso requests kept queued per endpoint, 1..256.
 * @no_iso: do not offer alternate setting 1 even if the backend has
 *	isochronous endpoints.
 */
struct f_ss_opts {
	unsigned pattern;
	unsigned isoc_interval;
	unsigned isoc_maxpacket;
	unsigned isoc_mult;
	unsigned isoc_maxburst;
	unsigned bulk_buflen;
	unsigned bulk_qlen;
	unsigned iso_qlen;
	bool no_iso;
};

/* Fill @opts with the defaults (pattern 0, GZERO_* above). */
void f_ss_opts_init(struct f_ss_opts *opts);

/* Return: 0 if every field of @opts is in range, else -USB_EINVAL. */
int f_ss_opts_check(const struct f_ss_opts *opts);

/**
 * sourcesink_alloc() - a new SourceSink function with a copy of @opts.
 * Return: 0 and the function in @out (owned by the caller until
 * usb_add_function() succeeds); -USB_EINVAL for options out of range;
 * -USB_ENOMEM.
 */
int sourcesink_alloc(const struct f_ss_opts *opts, struct usb_function **out);

/* Free a function from sourcesink_alloc() that was never added (or whose
 * usb_add_function() failed). NULL is ignored. */
void sourcesink_free(struct usb_function *f);

/**
 * struct f_ss_stats - what one SourceSink instance has done.
 * @in_bytes, @out_bytes: bulk bytes sourced to / sunk from the host.
 * @iso_in_bytes, @iso_out_bytes: the same on the iso endpoints.
 * @bad_packets: OUT transfers whose data broke the pattern (the OUT
 *	endpoint was halted for each, as Linux does).
 * @ctrl_writes, @ctrl_reads: vendor requests 0x5b / 0x5c answered.
 * @cur_alt: the current alternate setting, or -1 when disabled.
 * @has_iso: alternate setting 1 is offered.
 */
struct f_ss_stats {
	uint64_t in_bytes;
	uint64_t out_bytes;
	uint64_t iso_in_bytes;
	uint64_t iso_out_bytes;
	uint64_t bad_packets;
	uint64_t ctrl_writes;
	uint64_t ctrl_reads;
	int cur_alt;
	bool has_iso;
};

/* A snapshot of @f's counters. Safe from any thread. @f must be a
 * SourceSink function. */
void sourcesink_get_stats(struct usb_function *f, struct f_ss_stats *st);

/* True if @f was made by sourcesink_alloc(). */
bool sourcesink_is(const struct usb_function *f);

/*
 * The options of a registry instance of "SourceSink" (composite/registry.h),
 * for typed setting before usb_get_function(); NULL for any other
 * instance. Its attributes are these fields by their names; fields set
 * here are checked when the function is made (-USB_EINVAL then).
 */
struct f_ss_opts *f_ss_opts_from_instance(struct usb_function_instance *fi);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_SOURCESINK_H */
