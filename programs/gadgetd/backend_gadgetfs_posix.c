/*
 * backend_gadgetfs_posix.c - composite-gadgetd on the machine's own USB
 * device controller (backend.h, --udc gadgetfs[:NAME]): the gadgetfs UDC
 * (composite/gadgetfs_udc.h) is the table's one slot, its id the
 * controller's gadgetfs name ("dummy_udc", "20980000.usb"). gadgetfs
 * serves one gadget of one configuration, full or high speed, without
 * remote wakeup: more schemes, or a scheme beyond that, are refused with
 * the limit named. It cannot let the host go while the gadget stays
 * bound, nor capture: detach and capture are refused with the reason.
 * Owns the gadgetfs UDC. Linux only; elsewhere --udc gadgetfs is refused.
 * POSIX: stdio, nanosleep.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <time.h>

#include "backend.h"
#include "composite/ch9.h"
#include "composite/errors.h"

static const char prog[] = "composite-gadgetd";

static int check_device(const char *name, unsigned n_configs, unsigned attributes)
{
	if (n_configs != 1) {
		fprintf(stderr, "%s: %u configurations; gadgetfs serves exactly one\n", name,
			n_configs);
		return 2;
	}
	if (attributes & USB_CONFIG_ATT_WAKEUP) {
		fprintf(stderr, "%s: the configuration asks for remote wakeup, which gadgetfs "
			"refuses\n", name);
		return 2;
	}
	return 0;
}

/* --udc gadgetfs's NAME ("" any), for export_heading(); set by check. */
static const char *udc_named;

static int check_options(const struct gadgetd_backend_options *o)
{
	udc_named = o->udc;
	if (o->usbip_only) {
		fprintf(stderr, "%s: %s is USB/IP's; --udc gadgetfs serves one gadget on the "
			"controller\n", prog, o->usbip_only);
		return 2;
	}
	if (o->n_schemes != 1) {
		fprintf(stderr, "%s: %u schemes; gadgetfs serves one gadget on its controller\n",
			prog, o->n_schemes);
		return 2;
	}
	return 0;
}

#ifdef __linux__
#include "composite/gadgetfs_udc.h"

static struct usb_gadgetfs_udc *gfs;
static int stopping;	/* set by stop(), read by run(): __atomic builtins */

static void on_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s: %s\n", prog, line);
	fflush(stdout);
}

static const char *name(void *ctx, unsigned i)
{
	(void)ctx;
	(void)i;
	return usb_gadgetfs_udc_gadget(gfs)->name;
}

/* Connected: the backend's event thread sets the gadget's speed at
 * CONNECT and clears it at DISCONNECT; one int, read relaxed. */
static bool host(void *ctx, unsigned i, char *peer, size_t size)
{
	enum usb_device_speed speed =
		__atomic_load_n(&usb_gadgetfs_udc_gadget(gfs)->speed, __ATOMIC_RELAXED);

	(void)ctx;
	(void)i;
	if (speed == USB_SPEED_UNKNOWN)
		return false;
	snprintf(peer, size, "%s-speed-host", speed == USB_SPEED_HIGH ? "high" :
					      speed == USB_SPEED_FULL ? "full" : "low");
	return true;
}

static int open_udc(const struct gadgetd_backend_options *o,
		    struct gadgetd_gadgets *const *gadgets, struct gadgetd_udcs *udcs)
{
	struct usb_gadgetfs_udc_config cfg = { .udc = o->udc, .log = on_line };
	int rc = usb_gadgetfs_udc_create(&cfg, &gfs);

	(void)gadgets;
	if (rc < 0) {
		fprintf(stderr, "%s: --udc gadgetfs%s%s: cannot use gadgetfs: %s\n", prog,
			o->udc[0] ? ":" : "", o->udc, usb_strerror(rc));
		return 1;
	}
	*udcs = (struct gadgetd_udcs){
		.n = 1, .kind = "controller", .name = name, .host = host,
		.full = "gadgetfs serves one gadget; remove it first",
		.why_not = "gadgetfs has no way to let the host go while the gadget stays "
			   "bound, nor to capture (remove the gadget; capture with usbmon on "
			   "the host)",
	};
	return 0;
}

static void announce(unsigned n)
{
	(void)n;
	printf("%s: serving on controller %s through gadgetfs (%s)\n", prog,
	       usb_gadgetfs_udc_gadget(gfs)->name, usb_gadgetfs_udc_mount_point(gfs));
}

/* Until stop() or the backend's failure (the controller went away). */
static int run(void)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	int rc;

	while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE) && !usb_gadgetfs_udc_error(gfs))
		nanosleep(&tick, NULL);
	rc = usb_gadgetfs_udc_error(gfs);
	if (rc == 0)
		return 0;
	fprintf(stderr, "%s: the controller %s failed: %s\n", prog,
		usb_gadgetfs_udc_gadget(gfs)->name, usb_strerror(rc));
	return 1;
}

static void stop(void)
{
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
}

static void close_udc(void)
{
	usb_gadgetfs_udc_destroy(gfs);
	gfs = NULL;
}

#else

static int open_udc(const struct gadgetd_backend_options *o,
		    struct gadgetd_gadgets *const *gadgets, struct gadgetd_udcs *udcs)
{
	(void)o;
	(void)gadgets;
	(void)udcs;
	fprintf(stderr, "%s: --udc gadgetfs: gadgetfs is Linux only\n", prog);
	return 2;
}

static void announce(unsigned n)
{
	(void)n;
}

static int run(void)
{
	return 1;
}

static void stop(void)
{
}

static void close_udc(void)
{
}
#endif

/* gadgetfs has no busids: the one gadget is on the controller. */
static void export_heading(unsigned index, const char *name)
{
	(void)index;
	printf("# gadgetfs controller %s: %s\n", udc_named && udc_named[0] ? udc_named : "(any)",
	       name);
}

const struct gadgetd_backend gadgetd_backend_gadgetfs = {
	.check = check_options,
	.check_device = check_device,
	.open = open_udc,
	.export_heading = export_heading,
	.announce = announce,
	.run = run,
	.stop = stop,
	.close = close_udc,
};
