/*
 * acm_pty.h - an ACM port as a pseudo-terminal, like Linux's /dev/ttyGS0
 * (POSIX builds): what the host writes to its /dev/ttyACM0 comes out of
 * the pty, what a program writes to the pty goes to the host. The pty
 * starts in raw mode (no echo, no line editing: Linux's ttyGS0 starts
 * cooked, and most users run `stty raw -echo` first). Flow control is end
 * to end: a program that does not read the pty holds the host's writes
 * back (NAKed, nothing dropped); a host that does not read makes the
 * program's writes to the pty block once the buffers are full.
 *
 * Use: acm_pty_create() fills the callbacks of the port's options, the
 * function is made of them (acm_alloc() or usb_get_function()), then
 * acm_pty_start(); acm_pty_destroy() after the function is unbound
 * (usb_composite_unregister()). The bridge's thread stops at unbind.
 * Host events (DTR up and down, line coding, break) are logged, one line
 * each, through usb_composite_log() as "ttyGS<port_num>: ...".
 */
#ifndef COMPOSITE_ACM_PTY_H
#define COMPOSITE_ACM_PTY_H

#include "composite/acm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct acm_pty;

/**
 * acm_pty_create() - open a pty for the port @opts describes and set
 * @opts->ops and @opts->ctx to the bridge's.
 * @link: a path to make a symlink to the pty (an existing symlink there
 *	is replaced, anything else refused), or NULL.
 * Return: 0 and *@out; -USB_EEXIST (@link exists and is no symlink);
 * -USB_ENOMEM; -USB_EIO (no pty), or the errno of symlink() negated.
 */
int acm_pty_create(struct acm_pty **out, struct f_acm_opts *opts, const char *link);

/* The pty's own path (/dev/pts/N). */
const char *acm_pty_path(const struct acm_pty *p);

/**
 * acm_pty_start() - start moving bytes between the pty and @f, a
 * function made of the options acm_pty_create() filled. Call it again
 * for each other function made of them (one per configuration linking
 * the instance): bytes go through the function of the configuration the
 * host chose. Context: one thread at a time, before the functions are
 * unbound.
 * Return: 0; -USB_EINVAL (@f is no ACM function); -USB_EBUSY (started on
 * @f already); -USB_ENOSPC (more than 8 functions); -USB_EAGAIN (no
 * thread).
 */
int acm_pty_start(struct acm_pty *p, struct usb_function *f);

/* Bytes moved so far, each way. */
void acm_pty_counts(const struct acm_pty *p, unsigned long long *to_host,
		    unsigned long long *from_host);

/* Close the pty and remove the link. After the function is unbound; NULL is ignored. */
void acm_pty_destroy(struct acm_pty *p);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_ACM_PTY_H */
