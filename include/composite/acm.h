/*
 * acm.h - the CDC ACM function ("acm", as Linux's f_acm): a serial port
 * the host's cdc-acm driver binds (/dev/ttyACM0). One interface
 * association of a communication interface (CDC header, call management,
 * ACM and union descriptors; an interrupt IN endpoint for SERIAL_STATE
 * notifications) and a data interface (bulk IN and OUT). It answers
 * SET_LINE_CODING, GET_LINE_CODING, SET_CONTROL_LINE_STATE and SEND_BREAK.
 *
 * The gadget side is a byte stream: acm_write() puts bytes in a transmit
 * buffer the host reads; acm_read() takes the bytes the host wrote. Both
 * are non-blocking and lose nothing: when the transmit buffer is full,
 * acm_write() takes fewer bytes (the ops->writable callback says when
 * there is room again); when the receive buffer is full, the function
 * stops asking the host for data (the host's writes wait, NAKed) until
 * acm_read() makes room. composite/acm_pty.h bridges a port to a
 * pseudo-terminal, as Linux's /dev/ttyGS0.
 *
 * Threads: acm_write() from one thread at a time, acm_read() from one
 * thread at a time (each may be any thread, the callbacks' included);
 * the other calls from any thread. The callbacks run in the backend's
 * event context (they must not block), one at a time.
 */
#ifndef COMPOSITE_ACM_H
#define COMPOSITE_ACM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/cdc.h"
#include "composite/function.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ports the registry numbers (Linux's MAX_U_SERIAL_PORTS). */
#define ACM_MAX_PORTS 4

/* SET_CONTROL_LINE_STATE wValue bits (Linux's ACM_CTRL_DTR/RTS). */
#define ACM_CTRL_DTR 0x01
#define ACM_CTRL_RTS 0x02

#define ACM_BUF_DEFAULT (64u * 1024u)	/* each direction's buffer */
#define ACM_BUF_MIN 4096u
#define ACM_BUF_MAX (4u * 1024u * 1024u)

/**
 * struct acm_port_ops - what the gadget side hears of the host. All
 * optional; event context; @ctx is f_acm_opts.ctx.
 * @open: the host raised DTR (cdc-acm: the tty was opened).
 * @close: DTR dropped (the tty closed), or the configuration went away
 *	(SET_CONFIGURATION, reset, disconnect) while DTR was up.
 * @line_coding: the host sent SET_LINE_CODING (stty's speed, parity...).
 * @control_lines: SET_CONTROL_LINE_STATE: ACM_CTRL_DTR | ACM_CTRL_RTS.
 * @send_break: SEND_BREAK of @duration_ms (0: end it; 0xffff: until ended).
 * @readable: bytes arrived for acm_read().
 * @writable: room came in the transmit buffer after an acm_write() that
 *	took less than it was given.
 * @unbind: the function is being unbound: stop calling acm_read() and
 *	acm_write() on it before returning (a bridge joins its thread here).
 *	Context: the thread in usb_composite_unregister() or
 *	usb_remove_function(), not the event context.
 */
struct acm_port_ops {
	void (*open)(struct usb_function *f, void *ctx);
	void (*close)(struct usb_function *f, void *ctx);
	void (*line_coding)(struct usb_function *f, void *ctx,
			    const struct usb_cdc_line_coding *coding);
	void (*control_lines)(struct usb_function *f, void *ctx, unsigned lines);
	void (*send_break)(struct usb_function *f, void *ctx, unsigned duration_ms);
	void (*readable)(struct usb_function *f, void *ctx);
	void (*writable)(struct usb_function *f, void *ctx);
	void (*unbind)(struct usb_function *f, void *ctx);
};

/**
 * struct f_acm_opts - options of one port.
 * @port_num: the port's number (the registry gives 0..ACM_MAX_PORTS-1;
 *	names the interface strings and the pty bridge's default link).
 * @rx_buflen, @tx_buflen: each direction's buffer, a power of two in
 *	ACM_BUF_MIN..ACM_BUF_MAX (0: ACM_BUF_DEFAULT).
 * @ops, @ctx: the callbacks (borrowed; may be NULL).
 */
struct f_acm_opts {
	unsigned port_num;
	size_t rx_buflen;
	size_t tx_buflen;
	const struct acm_port_ops *ops;
	void *ctx;
};

/* Defaults: port 0, ACM_BUF_DEFAULT each way, no callbacks. */
void f_acm_opts_init(struct f_acm_opts *opts);

/* Return: 0 if @opts is in range, else -USB_EINVAL. */
int f_acm_opts_check(const struct f_acm_opts *opts);

/**
 * acm_alloc() - a new ACM function for usb_add_function().
 * Return: 0 and *@out (freed by the core after unbind, or acm_free()
 * if never added); -USB_EINVAL; -USB_ENOMEM.
 */
int acm_alloc(const struct f_acm_opts *opts, struct usb_function **out);

/* Free a function from acm_alloc() that was never added. */
void acm_free(struct usb_function *f);

/* True if @f is an ACM function. */
bool acm_is(const struct usb_function *f);

/**
 * acm_write() - queue up to @len bytes for the host.
 * Return: the bytes taken (0..@len: fewer when the buffer is full; wait
 * for ops->writable); -USB_ENOTCONN when the data interface is not
 * enabled (not configured), so the bytes would have no host to go to.
 */
long acm_write(struct usb_function *f, const void *buf, size_t len);

/* Bytes waiting in the transmit buffer (not yet sent to the host). */
size_t acm_write_pending(struct usb_function *f);

/**
 * acm_read() - take up to @len bytes the host wrote.
 * Return: the bytes taken (0: none waiting; ops->readable says when).
 * Bytes received before a disconnect stay readable.
 */
long acm_read(struct usb_function *f, void *buf, size_t len);

/* The line coding the host set last (9600 8N1 until it sets one). */
void acm_get_line_coding(struct usb_function *f, struct usb_cdc_line_coding *out);

/* The control lines the host set last: ACM_CTRL_DTR | ACM_CTRL_RTS. */
unsigned acm_get_control_lines(struct usb_function *f);

/**
 * acm_notify_serial_state() - send SERIAL_STATE (USB_CDC_SERIAL_STATE_*
 * bits: DCD, DSR, break, ring, framing, parity, overrun) to the host.
 * DCD | DSR is sent by itself when the host configures the port. Sent at
 * once, or when the notification before it has gone.
 * Return: 0; -USB_ENOTCONN when not configured.
 */
int acm_notify_serial_state(struct usb_function *f, unsigned state);

struct f_acm_stats {
	uint64_t rx_bytes;	/* from the host */
	uint64_t tx_bytes;	/* to the host */
	uint64_t tx_discarded;	/* in the transmit buffer when the configuration went */
	uint64_t notifications;	/* SERIAL_STATE sent */
	uint64_t line_codings;	/* SET_LINE_CODING received */
	bool connected;		/* the data interface is enabled */
};

/* A snapshot of @f's counters; safe from any thread. */
void acm_get_stats(struct usb_function *f, struct f_acm_stats *st);

/*
 * The options of a registry instance of "acm" (composite/registry.h),
 * for typed setting before usb_get_function(); NULL for any other
 * instance. Its one attribute, port_num, is read-only: the registry
 * gives each instance the lowest free number, as Linux's gserial does.
 */
struct f_acm_opts *f_acm_opts_from_instance(struct usb_function_instance *fi);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_ACM_H */
