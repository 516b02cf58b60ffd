/*
 * f_loopback.h - the Loopback function of Gadget Zero: a vendor-specific
 * interface that echoes every bulk OUT transfer back on its bulk IN
 * endpoint, one IN transfer per OUT transfer, with the same length (and a
 * zero-length packet after a short-terminated transfer whose length is a
 * multiple of the packet size). Up to qlen transfers are buffered; while
 * all qlen are waiting for the host to read them back, OUT transfers wait
 * (NAK), as on Linux's f_loopback.
 *
 * Usage as sourcesink.h: f_lb_opts_init(), loopback_alloc(),
 * usb_add_function() in a configuration's bind; loopback_free() only if
 * usb_add_function() failed.
 */
#ifndef COMPOSITE_F_LOOPBACK_H
#define COMPOSITE_F_LOOPBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "composite/function.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct f_lb_opts - parameters of one Loopback instance.
 * @bulk_buflen: bytes per transfer buffer, 1..1048576 (default 4096); an
 *	OUT transfer longer than this is echoed in pieces of this size.
 * @qlen: transfer buffers, 1..256 (default 32).
 */
struct f_lb_opts {
	unsigned bulk_buflen;
	unsigned qlen;
};

/* Fill @opts with the defaults (GZERO_BULK_BUFLEN, GZERO_QLEN: 4096, 32). */
void f_lb_opts_init(struct f_lb_opts *opts);

/* Return: 0 if @opts is in range, else -USB_EINVAL. */
int f_lb_opts_check(const struct f_lb_opts *opts);

/**
 * loopback_alloc() - a new Loopback function with a copy of @opts.
 * Return: 0 and the function in @out; -USB_EINVAL; -USB_ENOMEM.
 */
int loopback_alloc(const struct f_lb_opts *opts, struct usb_function **out);

/* Free a function from loopback_alloc() that was never added. */
void loopback_free(struct usb_function *f);

/**
 * struct f_lb_stats - what one Loopback instance has done.
 * @out_bytes: received from the host.
 * @in_bytes: echoed back to the host (and acknowledged).
 * @enabled: the interface is active.
 */
struct f_lb_stats {
	uint64_t out_bytes;
	uint64_t in_bytes;
	bool enabled;
};

/* A snapshot of @f's counters; safe from any thread. */
void loopback_get_stats(struct usb_function *f, struct f_lb_stats *st);

/* True if @f was made by loopback_alloc(). */
bool loopback_is(const struct usb_function *f);

/*
 * The options of a registry instance of "Loopback" (composite/registry.h),
 * for typed setting before usb_get_function(); NULL for any other
 * instance. Its attributes are these fields by their names; fields set
 * here are checked when the function is made (-USB_EINVAL then).
 */
struct f_lb_opts *f_lb_opts_from_instance(struct usb_function_instance *fi);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_F_LOOPBACK_H */
