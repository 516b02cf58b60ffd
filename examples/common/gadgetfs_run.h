/*
 * gadgetfs_run.h - udc=gadgetfs[:NAME] for the examples with a main() of
 * their own (gadget_zero; the module-runner examples get it from
 * src/module): the composite driver served on the machine's own device
 * controller through gadgetfs (composite/gadgetfs_udc.h) instead of
 * USB/IP, the same driver code either way.
 */
#ifndef EXAMPLES_GADGETFS_RUN_H
#define EXAMPLES_GADGETFS_RUN_H

#include "composite/composite.h"

/*
 * Find the controller @udc ("" for the one gadgetfs offers), bind @driver
 * to it at @speed (full or high), print what happens as "PROG: ...", and
 * serve until SIGINT/SIGTERM or the controller fails. @before_unbind
 * (may be NULL) runs in the caller's thread once serving ended, while the
 * driver's functions still exist (usb_composite_unregister() frees them):
 * the place to read their statistics. Return: the exit status: 0 after
 * a signal; 1 when the controller cannot be used or fails (the reason
 * printed); 2 for speed=super.
 */
int example_gadgetfs_run(const char *prog, const char *udc, enum usb_device_speed speed,
			 struct usb_composite_driver *driver, void (*before_unbind)(void));

#endif
