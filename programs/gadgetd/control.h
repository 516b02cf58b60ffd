/*
 * control.h - composite-gadgetd's control socket (control_posix.c): a
 * Unix stream socket, mode 0600, one request line per connection, one
 * reply. The protocol (docs/gadgetd.md):
 *
 *	list		-> "ok N" then N lines BUSID TAB attached|detached TAB
 *			   PEER (or -) TAB SCHEME, each ending with a newline
 *	set BUSID FUNCTION ATTR [VALUE]
 *			-> "ok", or "error MESSAGE": the attribute written
 *			   (VALUE: the rest of the line, may be empty)
 *	anything else	-> "error MESSAGE"
 *
 * Threads: the socket is served by a thread of its own; the attach state
 * is set from the USB/IP server's connection threads (its event
 * callback), under a mutex.
 */
#ifndef GADGETD_CONTROL_H
#define GADGETD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

struct gadgetd_control;

/* What the daemon does for a set request: 0, or a negative error with a
 * sentence in @msg. Runs in the control thread. */
typedef int (*gadgetd_control_set_fn)(void *ctx, unsigned index, const char *function,
				       const char *attr, const char *value, char *msg,
				       size_t size);

/* Longest request line, newline included. */
#define GADGETD_CONTROL_LINE_MAX 256

/**
 * gadgetd_control_start() - listen on @path (a stale socket there is
 * replaced; a live one, or a file that is no socket, is not) for @n
 * gadgets named by @busids and @schemes (borrowed until
 * gadgetd_control_stop()); @set (with @ctx) answers set requests.
 * Return: 0; -USB_EADDRINUSE (a daemon answers on @path, or it is no
 * socket); -USB_ENAMETOOLONG;
 * -USB_ENOMEM; -USB_EIO (a socket or thread call failed).
 */
int gadgetd_control_start(const char *path, unsigned n, const char *const *busids,
			  const char *const *schemes, gadgetd_control_set_fn set, void *ctx,
			  struct gadgetd_control **out);

/* Gadget @index is attached by @peer ("ADDRESS:PORT"), or detached (NULL). */
void gadgetd_control_set_attached(struct gadgetd_control *c, unsigned index, const char *peer);

/* Stop serving, join the thread, remove the socket, free. NULL is ignored. */
void gadgetd_control_stop(struct gadgetd_control *c);

#endif /* GADGETD_CONTROL_H */
