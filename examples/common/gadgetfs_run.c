/*
 * gadgetfs_run.c - example_gadgetfs_run() (gadgetfs_run.h): the
 * gadgetfs UDC's life around one composite driver, with signal handling.
 * POSIX; the backend itself is Linux only. Owns the UDC it creates.
 */
#define _POSIX_C_SOURCE 200809L

#include "gadgetfs_run.h"

#include <signal.h>
#include <stdio.h>
#include <time.h>

#ifdef __linux__
#include "composite/gadgetfs_udc.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_line(void *ctx, const char *line)
{
	printf("%s: %s\n", (const char *)ctx, line);
	fflush(stdout);
}

int example_gadgetfs_run(const char *prog, const char *udc, enum usb_device_speed speed,
			 struct usb_composite_driver *driver, void (*before_unbind)(void))
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	struct usb_gadgetfs_udc_config cfg = { 0 };
	struct usb_gadgetfs_udc *gfs;
	struct usb_gadget *g;
	struct sigaction sa = { 0 };
	int rc;

	if (speed >= USB_SPEED_SUPER) {
		fprintf(stderr, "%s: speed=super: gadgetfs serves full and high speed only\n", prog);
		return 2;
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cfg.udc = udc;
	cfg.log = on_line;
	cfg.log_ctx = (void *)prog;
	rc = usb_gadgetfs_udc_create(&cfg, &gfs);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot use gadgetfs: %s\n", prog, usb_strerror(rc));
		return 1;
	}
	g = usb_gadgetfs_udc_gadget(gfs);
	g->max_speed = speed;
	driver->udc_name = g->name;
	rc = usb_composite_probe(driver);
	if (rc < 0) {
		fprintf(stderr, "%s: probe failed: %s\n", prog, usb_strerror(rc));
		usb_gadgetfs_udc_destroy(gfs);
		return 1;
	}
	printf("%s: serving on controller %s through gadgetfs (%s)\n", prog, g->name,
	       usb_gadgetfs_udc_mount_point(gfs));
	fflush(stdout);
	while (!stop_signal && !usb_gadgetfs_udc_error(gfs))
		nanosleep(&tick, NULL);
	rc = usb_gadgetfs_udc_error(gfs);
	if (before_unbind)
		before_unbind();
	usb_composite_unregister(driver);
	usb_gadgetfs_udc_destroy(gfs);
	if (rc < 0) {
		fprintf(stderr, "%s: stopped: the controller failed: %s\n", prog, usb_strerror(rc));
		return 1;
	}
	printf("%s: stopped\n", prog);
	return 0;
}
#else
int example_gadgetfs_run(const char *prog, const char *udc, enum usb_device_speed speed,
			 struct usb_composite_driver *driver, void (*before_unbind)(void))
{
	(void)udc;
	(void)speed;
	(void)driver;
	(void)before_unbind;
	fprintf(stderr, "%s: udc=gadgetfs: gadgetfs is Linux only\n", prog);
	return 2;
}
#endif
