/*
 * gadgetfs_udc.h - the Linux gadgetfs backend: a UDC that is a real
 * device controller of the machine (dwc2 on a Raspberry Pi, musb,
 * chipidea, or dummy_hcd's dummy_udc for tests), reached through the
 * kernel's gadgetfs (drivers/usb/gadget/legacy/inode.c). The core answers
 * every request gadgetfs passes up (strings, GET_STATUS where the
 * controller does not answer it, class and vendor requests); gadgetfs
 * itself answers GET_DESCRIPTOR(DEVICE/CONFIG/QUALIFIER/OTHER_SPEED) from
 * the descriptors this backend writes when a composite driver binds, and
 * the backend keeps the core in step (RESET at connect, SET_ADDRESS fed
 * the core, SET_CONFIGURATION passed on). Data moves with Linux AIO on the
 * endpoint files, several requests in flight per endpoint.
 *
 * Linux only (POSIX threads, Linux AIO). docs/gadgetfs.md lists what
 * gadgetfs refuses (one configuration, no remote wakeup, no SuperSpeed,
 * 7-byte endpoint descriptors) and the board recipe.
 *
 * Typical program:
 *	struct usb_gadgetfs_udc_config cfg = { 0 };
 *	usb_gadgetfs_udc_create(&cfg, &udc);	// finds the UDC, registers it
 *	driver.udc_name = usb_gadgetfs_udc_gadget(udc)->name;
 *	usb_composite_probe(&driver);		// the host sees the device
 *	while (!stop && usb_gadgetfs_udc_error(udc) == 0) sleep...
 *	usb_composite_unregister(&driver);
 *	usb_gadgetfs_udc_destroy(udc);
 */
#ifndef COMPOSITE_GADGETFS_UDC_H
#define COMPOSITE_GADGETFS_UDC_H

#include <stddef.h>

#include "composite/udc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct usb_gadgetfs_udc;

/* Where gadgetfs is mounted when it is not mounted yet. */
#define USB_GADGETFS_MOUNT_DEFAULT "/dev/gadget"

/**
 * struct usb_gadgetfs_udc_config - all-zero is valid.
 * @udc: the controller: its UDC name (/sys/class/udc, "dummy_udc.0") or
 *	its gadgetfs file name ("dummy_udc"). NULL or "": the one gadgetfs
 *	offers (gadgetfs serves one controller, chosen when it is mounted).
 * @mount_point: NULL: where gadgetfs is mounted already, else
 *	USB_GADGETFS_MOUNT_DEFAULT (created and mounted). A path: gadgetfs
 *	there (mounted if it is not).
 * @log: optional. Called with one line for each connect, configuration,
 *	disconnect and for each error, with the reason (event thread or the
 *	calling thread). Borrowed message.
 * @log_ctx: passed to @log.
 */
struct usb_gadgetfs_udc_config {
	const char *udc;
	const char *mount_point;
	void (*log)(void *ctx, const char *line);
	void *log_ctx;
};

/**
 * usb_gadgetfs_udc_create() - find or mount gadgetfs, check the controller
 * is there and free, learn its endpoints (a short bind: the host may log a
 * device that connects and goes), and register the UDC (named as the
 * gadgetfs file, e.g. "dummy_udc"). Context: not an event context.
 * Return: 0 and *@out; -USB_ENODEV (gadgetfs not in the kernel, no such
 * controller, no controller), -USB_EBUSY (another program holds it),
 * -USB_EACCES/-USB_EPERM (mount or open refused), -USB_ENOMEM, -USB_EIO.
 * Each failure is also said through @config->log.
 */
int usb_gadgetfs_udc_create(const struct usb_gadgetfs_udc_config *config,
			    struct usb_gadgetfs_udc **out);

/* Unregister (unbinding a bound driver), close every file, free. NULL is
 * ignored. Does not unmount what create mounted (other programs may use
 * it). */
void usb_gadgetfs_udc_destroy(struct usb_gadgetfs_udc *udc);

/* The gadget (borrowed, valid until _destroy()). */
struct usb_gadget *usb_gadgetfs_udc_gadget(struct usb_gadgetfs_udc *udc);

/* The mount point in use (borrowed). */
const char *usb_gadgetfs_udc_mount_point(struct usb_gadgetfs_udc *udc);

/*
 * 0 while the backend works; a negative error once its event thread gave
 * up (the controller went away: -USB_ENODEV; an ep0 file error: its
 * errno), said through the log with the reason. Any thread.
 */
int usb_gadgetfs_udc_error(struct usb_gadgetfs_udc *udc);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_GADGETFS_UDC_H */
