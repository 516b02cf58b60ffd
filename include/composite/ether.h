/*
 * ether.h - USB networking functions, the gadget side of a network link:
 * "ecm" (CDC ECM, as Linux's f_ecm; the host's cdc_ether binds it) and
 * "ncm" (CDC NCM 1.0, as Linux's f_ncm, NTB16 and NTB32 without CRCs; the
 * host's cdc_ncm binds it: several frames per transfer). The
 * host sees an Ethernet interface; the gadget side sends and receives
 * Ethernet frames (destination, source, type, payload: no FCS) through
 * the calls below, or through a TAP interface (composite/net_tap.h), as
 * Linux's usb0.
 *
 * Frames are whole or not at all: usb_net_send() takes a frame of
 * 14..USB_NET_FRAME_MAX bytes or refuses it with an error; a frame from
 * the host shorter than an Ethernet header or longer than the function
 * announced is dropped and counted (struct usb_net_stats), never cut.
 *
 * Threads: usb_net_send() from one thread at a time (any thread); the
 * other calls from any thread. The callbacks run in the backend's event
 * context (they must not block), one at a time, except unbind.
 */
#ifndef COMPOSITE_ETHER_H
#define COMPOSITE_ETHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/cdc.h"
#include "composite/function.h"

#ifdef __cplusplus
extern "C" {
#endif

#define USB_NET_ALEN		6
#define USB_NET_HLEN		14	/* destination, source, EtherType */
#define USB_NET_MTU		1500
#define USB_NET_FRAME_MAX	(USB_NET_HLEN + USB_NET_MTU)	/* wMaxSegmentSize */
#define USB_NET_IFNAMSIZ	16	/* Linux's IFNAMSIZ, NUL included */
#define USB_NET_QMULT_DEFAULT	5	/* Linux's qmult: requests at high speed and above */
#define USB_NET_QMULT_MAX	100

/**
 * struct usb_net_ops - what the gadget side hears of the host. All
 * optional; @ctx is the options' ctx.
 * @rx: a frame from the host (@len USB_NET_HLEN..USB_NET_FRAME_MAX);
 *	borrowed until return. Event context.
 * @link: the host opened (@up: the data interface's alternate 1 was
 *	chosen) or closed the link (alternate 0, reset, disconnect). Frames
 *	queued for the host when it goes down are dropped and counted.
 *	Event context.
 * @writable: room came back after usb_net_send() returned -USB_EAGAIN.
 *	Event context.
 * @unbind: the function is being unbound: stop calling usb_net_send()
 *	on it before returning. The thread in usb_composite_unregister().
 */
struct usb_net_ops {
	void (*rx)(struct usb_function *f, void *ctx, const void *frame, size_t len);
	void (*link)(struct usb_function *f, void *ctx, bool up);
	void (*writable)(struct usb_function *f, void *ctx);
	void (*unbind)(struct usb_function *f, void *ctx);
};

/**
 * struct usb_net_opts - options of one network function (Linux's f_ecm_opts
 *	and f_ncm_opts, which have the same fields).
 * @dev_addr: the gadget side's MAC address (the TAP interface's).
 * @host_addr: the host side's MAC address, sent as the iMACAddress string
 *	(the host's interface takes it).
 * @ifname: the TAP bridge's interface name, a template with "%d" or a
 *	name ("usb%d" by default, as Linux).
 * @qmult: requests per direction at high speed and above are 2 * @qmult
 *	(2 at full speed), 1..USB_NET_QMULT_MAX.
 * @ops, @ctx: the callbacks (borrowed; may be NULL).
 */
struct usb_net_opts {
	uint8_t dev_addr[USB_NET_ALEN];
	uint8_t host_addr[USB_NET_ALEN];
	char ifname[USB_NET_IFNAMSIZ];
	unsigned qmult;
	const struct usb_net_ops *ops;
	void *ctx;
};

/* Defaults: random, locally administered unicast addresses (different
 * for dev and host), ifname "usb%d", qmult USB_NET_QMULT_DEFAULT. */
void usb_net_opts_init(struct usb_net_opts *opts);

/* Return: 0 if @opts is usable, else -USB_EINVAL (qmult out of range, a
 * multicast or all-zero address, equal addresses, an empty ifname). */
int usb_net_opts_check(const struct usb_net_opts *opts);

/**
 * ecm_alloc() - a new ECM function for usb_add_function().
 * Return: 0 and *@out (freed by the core after unbind, or ecm_free() if
 * never added); -USB_EINVAL; -USB_ENOMEM.
 */
int ecm_alloc(const struct usb_net_opts *opts, struct usb_function **out);

/* Free a function from ecm_alloc() that was never added. */
void ecm_free(struct usb_function *f);

/* True if @f is an ECM function. */
bool ecm_is(const struct usb_function *f);

/**
 * ncm_alloc() - a new NCM function for usb_add_function().
 * Return: as ecm_alloc().
 */
int ncm_alloc(const struct usb_net_opts *opts, struct usb_function **out);

/* Free a function from ncm_alloc() that was never added. */
void ncm_free(struct usb_function *f);

/* True if @f is an NCM function. */
bool ncm_is(const struct usb_function *f);

/*
 * The options of a registry instance of "ecm" or "ncm" (composite/registry.h),
 * for typed setting before usb_get_function(); NULL for any other
 * instance. Attributes: dev_addr, host_addr (xx:xx:xx:xx:xx:xx), ifname,
 * qmult, as Linux's configfs.
 */
struct usb_net_opts *usb_net_opts_from_instance(struct usb_function_instance *fi);

/**
 * usb_net_send() - queue one frame for the host.
 * @f: an ECM or NCM function.
 * Return: 0 (copied; @frame is the caller's again); -USB_EMSGSIZE (not
 * 14..USB_NET_FRAME_MAX bytes); -USB_ENOTCONN (the host has not opened
 * the link); -USB_EAGAIN (the queue is full: ops->writable says when
 * there is room); -USB_EINVAL (@f is no network function).
 */
int usb_net_send(struct usb_function *f, const void *frame, size_t len);

/* True while the host has the link open. */
bool usb_net_link_up(struct usb_function *f);

struct usb_net_stats {
	uint64_t rx_frames, rx_bytes;	/* from the host, delivered */
	uint64_t tx_frames, tx_bytes;	/* to the host, sent */
	uint64_t rx_dropped_short;	/* shorter than an Ethernet header */
	uint64_t rx_dropped_long;	/* longer than USB_NET_FRAME_MAX, or overflowed */
	uint64_t rx_errors;		/* OUT requests that failed otherwise */
	uint64_t rx_ntbs_dropped;	/* NCM: malformed NTBs, dropped whole */
	uint64_t tx_dropped;		/* queued when the link went down */
	uint16_t packet_filter;		/* the host's SET_ETHERNET_PACKET_FILTER */
	bool link_up;
};

/* A snapshot of @f's counters; safe from any thread. */
void usb_net_get_stats(struct usb_function *f, struct usb_net_stats *st);

/* @addr as "xx:xx:xx:xx:xx:xx" into @buf (at least 18 bytes). */
void usb_net_format_addr(const uint8_t addr[USB_NET_ALEN], char *buf);

/* Parse "xx:xx:xx:xx:xx:xx" (hex, either case). Return: 0, or -USB_EINVAL. */
int usb_net_parse_addr(const char *s, uint8_t addr[USB_NET_ALEN]);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_ETHER_H */
