/*
 * control.h - composite-gadgetd's control socket (control_posix.c): a
 * Unix stream socket, mode 0600, one request line per connection, one
 * reply. The protocol (docs/gadgetd.md); words are separated by one
 * space, PATH and VALUE are the rest of the line:
 *
 *	list		-> "ok N" then N lines BUSID TAB attached|detached TAB
 *			   PEER (or -) TAB SCHEME, then for each gadget-side
 *			   end TAB TYPE.INSTANCE=PLACE (PLACE: a path, an
 *			   interface, or - when it could not be made), each
 *			   line ending with a newline
 *	set BUSID FUNCTION ATTR [VALUE]
 *			-> "ok": the attribute written (VALUE may be empty)
 *	add PATH	-> "ok BUSID": the scheme at PATH loaded and served
 *	remove BUSID	-> "ok": unbound (a host sees an unplug), files closed
 *	detach BUSID	-> "ok": the host's import connection closed
 *	capture BUSID PATH|off
 *			-> "ok": URBs to PATH (a file or a directory), or no
 *			   capture
 *	anything else, or a refusal
 *			-> "error MESSAGE" (add: "error FILE:LINE: MESSAGE"
 *			   where the scheme is at fault)
 *
 * Threads: the socket is served by a thread of its own, one request at a
 * time; the ops run in that thread.
 */
#ifndef GADGETD_CONTROL_H
#define GADGETD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

struct gadgetd_control;

/* One gadget of a list reply; strings borrowed for the call, @peer NULL
 * while detached, @ends the fields after SCHEME, each with its leading
 * TAB ("" for none). Return 0, or -USB_ENOMEM to end the list. */
typedef int (*gadgetd_control_row_fn)(void *row_ctx, const char *busid, const char *peer,
				      const char *scheme, const char *ends);

/*
 * What the daemon does for each request. Every op runs in the control
 * thread, one at a time; its strings are borrowed for the call. Each
 * returns 0, or a negative error (-USB_E*) with one line (no newline) in
 * @msg, which holds @size bytes; add puts the busid there on success.
 * All are mandatory.
 */
struct gadgetd_control_ops {
	int (*list)(void *ctx, gadgetd_control_row_fn row, void *row_ctx);
	int (*set)(void *ctx, const char *busid, const char *function, const char *attr,
		   const char *value, char *msg, size_t size);
	int (*add)(void *ctx, const char *path, char *msg, size_t size);
	int (*remove)(void *ctx, const char *busid, char *msg, size_t size);
	int (*detach)(void *ctx, const char *busid, char *msg, size_t size);
	/* @path NULL: stop the capture. */
	int (*capture)(void *ctx, const char *busid, const char *path, char *msg, size_t size);
};

/* Longest request line, newline included (a PATH_MAX path fits). */
#define GADGETD_CONTROL_LINE_MAX 4224

/* Room for a list row's ends (gadgetd_ends_describe()). */
#define GADGETD_CONTROL_ENDS_MAX 8192

/* Room for an op's message. */
#define GADGETD_CONTROL_MSG_MAX 1024

/**
 * gadgetd_control_start() - listen on @path (a stale socket there is
 * replaced; a live one, or a file that is no socket, is not) and answer
 * requests with @ops (borrowed until gadgetd_control_stop()) and @ctx.
 * Return: 0; -USB_EADDRINUSE (a daemon answers on @path, or it is no
 * socket); -USB_ENAMETOOLONG; -USB_ENOMEM; -USB_EIO (a socket or thread
 * call failed).
 */
int gadgetd_control_start(const char *path, const struct gadgetd_control_ops *ops, void *ctx,
			  struct gadgetd_control **out);

/* Stop serving, join the thread, remove the socket, free. NULL is ignored. */
void gadgetd_control_stop(struct gadgetd_control *c);

#endif /* GADGETD_CONTROL_H */
