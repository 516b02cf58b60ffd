/*
 * ends.h - composite-gadgetd's gadget-side ends (ends_posix.c): for each
 * function of a served gadget that has a data side, what the user's
 * programs talk to, named as configfs names the function (TYPE.INSTANCE):
 *
 *	acm	a pseudo-terminal (composite/acm_pty.h), reached through the
 *		symlink RUN_DIR/BUSID/acm.INSTANCE (as Linux's /dev/ttyGS0)
 *	hid	two FIFOs (composite/hidg.h): RUN_DIR/BUSID/hid.INSTANCE takes
 *		input reports for the host (as writes to /dev/hidg0), the host's
 *		output reports come out of RUN_DIR/BUSID/hid.INSTANCE.out
 *	ecm, ncm
 *		a TAP interface (composite/net_tap.h) named by the function's
 *		ifname attribute (default usb%d, the kernel's next usbN), left
 *		down as Linux leaves usb0
 *
 * An end that cannot be made (no CAP_NET_ADMIN, a run folder that cannot
 * be written) is logged on stderr naming the gadget and the function; the
 * gadget is served all the same, that function's data going nowhere.
 *
 * Life: gadgetd_ends_create() before the scheme is bound (the adapters'
 * callbacks go into the instances' options, which the functions copy when
 * they are made), gadgetd_ends_start() once it is bound,
 * gadgetd_ends_destroy() after it is unbound (the adapters' threads stop
 * at unbind). The instances' ops and ctx stay set to the destroyed
 * adapters: the scheme is bound again only after a new create.
 * Threads: the caller's, one call at a time per gadget; each adapter has a
 * thread of its own from start to unbind.
 */
#ifndef GADGETD_ENDS_H
#define GADGETD_ENDS_H

#include <stddef.h>

#include "composite/scheme.h"

struct gadgetd_ends;

/* The run folder without --run-dir: systemd's $RUNTIME_DIRECTORY, else this. */
#define GADGETD_RUN_DIR_DEFAULT "/run/composite-gadgetd"

/**
 * gadgetd_ends_create() - make the ends of @s's linked acm, hid, ecm and
 * ncm functions, the files under @run_dir/@busid (both borrowed; the
 * folders are made, mode 0755, when missing). Each made or failed end is
 * logged (stdout, stderr) as "composite-gadgetd: BUSID: TYPE.INSTANCE ...".
 * Return: 0 and *@out (also when some ends failed: they are listed
 * without a place), or -USB_ENOMEM.
 */
int gadgetd_ends_create(struct gadget_scheme *s, const char *run_dir, const char *busid,
			struct gadgetd_ends **out);

/* Start moving data for every end made, on the functions @s (bound) made
 * of them. A failure is logged and leaves that end idle. */
void gadgetd_ends_start(struct gadgetd_ends *e, struct gadget_scheme *s);

/**
 * gadgetd_ends_describe() - the ends as the list reply's fields: for each,
 * a TAB then TYPE.INSTANCE=PLACE (the symlink, the input FIFO, the
 * interface name; "-" for one that could not be made), in @buf (@size
 * bytes, NUL-terminated; "" for none). NULL @e: "".
 * Return: the length, or -USB_ENOSPC when @buf is too short.
 */
int gadgetd_ends_describe(const struct gadgetd_ends *e, char *buf, size_t size);

/* Close every end and remove its files, then the busid's folder (when
 * empty). After the scheme is unbound; NULL is ignored. */
void gadgetd_ends_destroy(struct gadgetd_ends *e);

#endif /* GADGETD_ENDS_H */
