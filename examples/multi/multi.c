/*
 * multi.c - a multi-function gadget in the shape of Linux's g_multi: one
 * configuration holding mass storage, a CDC ACM serial port and a HID
 * boot keyboard, and (ecm=1, the default) a second one holding CDC ECM, a
 * second serial port and the same mass storage (one fsg_common in both
 * configurations: the same LUNs, the same files), each function taken
 * from the function registry by its configfs name
 * (usb_get_function_instance("mass_storage"), ("acm"), ("hid"), ("ecm"))
 * as g_multi does. The host picks a configuration (Linux: sysfs
 * bConfigurationValue). The serial port is a pseudo-terminal, linked at tty=
 * (default ./ttyGS0), as Linux's /dev/ttyGS0; the keyboard's input
 * reports are written to the pipe hidg= (default ./hidg0, 8 bytes a
 * report), its output reports (LEDs) come out of hid_out= (default
 * ./hidg0_out), as Linux's /dev/hidg0. The second configuration's port
 * is linked at tty2= (default ./ttyGS1), its network interface is a TAP
 * interface named ifname= (default usb%d; needs CAP_NET_ADMIN: ecm=0
 * leaves the configuration out). The module runner makes a program of
 * it: it serves busid 1-1 over USB/IP, prints the `usbip attach` line,
 * and on SIGINT/SIGTERM unregisters, closes the files and exits 0.
 *
 *   multi [file=disk.img[,b.img]] [ro=..] [removable=..] [luns=..] [cdrom=..]
 *         [nofua=..] [stall=1] [inquiry_string=..] [tty=./ttyGS0]
 *         [hidg=./hidg0] [hid_out=./hidg0_out] [ecm=0|1] [tty2=./ttyGS1]
 *         [ifname=usb%d]
 *         [address=127.0.0.1] [port=3240] [speed=full|high|super]
 *
 * With no file= it uses ./disk.img, creating a 64 MiB one when missing.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <sys/stat.h>

#include "composite/acm_pty.h"
#include "composite/ether.h"
#include "composite/hidg.h"
#include "composite/linux.h"
#include "composite/mass_storage.h"
#include "composite/net_tap.h"
#include "composite/registry.h"
#include "../common/default_image.h"

#define DRIVER_DESC "Multifunction Composite Gadget"

static struct usb_device_descriptor device_desc = {
	.bLength = sizeof device_desc,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = cpu_to_le16(0x0200),
	/* Interface associations (the ACM port): EF/02/01. */
	.bDeviceClass = USB_CLASS_MISC,
	.bDeviceSubClass = 2,
	.bDeviceProtocol = 1,
	.idVendor = cpu_to_le16(0x1d6b),	/* Linux Foundation */
	.idProduct = cpu_to_le16(0x0104),	/* Multifunction Composite Gadget */
};

static struct fsg_module_parameters fsg_mod_data = { .stall = 1 };
FSG_MODULE_PARAMETERS(/* no prefix */, fsg_mod_data);

static char *tty = "./ttyGS0";
module_param(tty, charp, S_IRUSR);
MODULE_PARM_DESC(tty, "symlink to make to the serial port's pty");

static char *hidg = "./hidg0";
module_param(hidg, charp, S_IRUSR);
MODULE_PARM_DESC(hidg, "pipe whose 8-byte writes become keyboard input reports");
static char *hid_out = "./hidg0_out";
module_param(hid_out, charp, S_IRUSR);
MODULE_PARM_DESC(hid_out, "pipe the keyboard's output reports (LEDs) come out of");

static bool ecm = true;
module_param(ecm, bool, S_IRUSR);
MODULE_PARM_DESC(ecm, "a second configuration: CDC ECM, serial port, mass storage");
static char *tty2 = "./ttyGS1";
module_param(tty2, charp, S_IRUSR);
MODULE_PARM_DESC(tty2, "symlink to make to the second configuration's serial port");
static char *ifname = "usb%d";
module_param(ifname, charp, S_IRUSR);
MODULE_PARM_DESC(ifname, "the second configuration's TAP interface name or template");

static unsigned long multi_registered;
static struct usb_function_instance *fi_msg, *fi_acm, *fi_hid, *fi_acm2, *fi_ecm;
static struct usb_function *f_msg, *f_acm, *f_hid, *f_msg2, *f_acm2, *f_ecm;
static struct acm_pty *pty, *pty2;
static struct hidg *hid_pipes;
static struct net_tap *tap;
static struct usb_composite_driver multi_driver;

static void multi_unregister(void)
{
	if (test_and_clear_bit(0, &multi_registered))
		usb_composite_unregister(&multi_driver);
}

/* The MSF worker after SIGINT/SIGTERM: the files are closed; go. */
static int multi_thread_exits(struct fsg_common *common)
{
	(void)common;
	multi_unregister();
	return 0;
}

static int add_function(struct usb_configuration *c, struct usb_function_instance *fi,
			struct usb_function **out)
{
	struct usb_function *f = usb_get_function(fi);
	int status;

	if (IS_ERR(f))
		return PTR_ERR(f);
	status = usb_add_function(c, f);
	if (status < 0) {
		usb_put_function(f);
		return status;
	}
	*out = f;
	return 0;
}

static int __init multi_do_config(struct usb_configuration *c)
{
	int status = add_function(c, fi_msg, &f_msg);

	if (status == 0)
		status = add_function(c, fi_acm, &f_acm);
	return status ? status : add_function(c, fi_hid, &f_hid);
}

static struct usb_configuration multi_config = {
	.label = "Multifunction: storage, serial, keyboard",
	.bind = multi_do_config,
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

/* The second configuration, as g_multi's CDC one: its mass storage is a
 * second function of the same instance, so it shares the fsg_common. */
static int __init multi_ecm_do_config(struct usb_configuration *c)
{
	int status = add_function(c, fi_ecm, &f_ecm);

	if (status == 0)
		status = add_function(c, fi_acm2, &f_acm2);
	return status ? status : add_function(c, fi_msg, &f_msg2);
}

static struct usb_configuration multi_ecm_config = {
	.label = "Multifunction with CDC ECM",
	.bind = multi_ecm_do_config,
	.bConfigurationValue = 2,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int __ref multi_bind(struct usb_composite_dev *cdev)
{
	int status = usb_add_config(cdev, &multi_config);

	if (status == 0 && ecm)
		status = usb_add_config(cdev, &multi_ecm_config);
	if (status < 0)
		return status;
	INFO(cdev, DRIVER_DESC "\n");
	set_bit(0, &multi_registered);
	return 0;
}

static struct usb_composite_driver multi_driver = {
	.name = "g_multi",
	.dev = &device_desc,
	.max_speed = USB_SPEED_SUPER,
	.needs_serial = 1,
	.iManufacturer = "libcomposite",
	.iProduct = DRIVER_DESC,
	.iSerialNumber = "0123456789AB",
	.bind = multi_bind,
};

/* The boot keyboard (subclass 1, protocol 1, 8-byte reports) and its pipes. */
static int make_keyboard(void)
{
	struct f_hid_opts *o;
	int status;

	fi_hid = usb_get_function_instance("hid");
	if (IS_ERR(fi_hid))
		return PTR_ERR(fi_hid);
	o = f_hid_opts_from_instance(fi_hid);
	o->subclass = 1;
	o->protocol = 1;
	o->report_length = 8;
	o->report_desc = hid_boot_keyboard_report_desc;
	o->report_desc_length = sizeof(hid_boot_keyboard_report_desc);
	status = hidg_create(&hid_pipes, o, hidg, hid_out && *hid_out ? hid_out : NULL);
	if (status < 0)
		fprintf(stderr, "multi: hidg=%s hid_out=%s: %s\n", hidg, hid_out,
			usb_strerror(status));
	return status;
}

/* The second configuration's serial port and network interface. */
static int make_network(void)
{
	struct usb_net_opts *o;
	int status;

	fi_acm2 = usb_get_function_instance("acm");
	if (IS_ERR(fi_acm2))
		return PTR_ERR(fi_acm2);
	status = acm_pty_create(&pty2, f_acm_opts_from_instance(fi_acm2), tty2);
	if (status < 0) {
		fprintf(stderr, "multi: tty2=%s: %s\n", tty2, usb_strerror(status));
		return status;
	}
	fi_ecm = usb_get_function_instance("ecm");
	if (IS_ERR(fi_ecm))
		return PTR_ERR(fi_ecm);
	status = usb_function_instance_set(fi_ecm, "ifname", ifname);
	if (status < 0) {
		fprintf(stderr, "multi: ifname=%s: %s\n", ifname, usb_strerror(status));
		return status;
	}
	o = usb_net_opts_from_instance(fi_ecm);
	status = net_tap_create(&tap, o->ifname, o->dev_addr, &o->ops, &o->ctx);
	if (status < 0)
		fprintf(stderr, "multi: TAP interface %s: %s (ecm=0 leaves the network "
			"configuration out)\n", ifname, usb_strerror(status));
	return status;
}

/* The instances, as g_multi's: mass storage's common object of the
 * module parameters, the serial port's pty. */
static int make_instances(void)
{
	struct fsg_config config;
	int status;

	fi_msg = usb_get_function_instance("mass_storage");
	if (IS_ERR(fi_msg))
		return PTR_ERR(fi_msg);
	fsg_config_from_params(&config, &fsg_mod_data);
	config.thread_exits = multi_thread_exits;
	status = fsg_opts_set_config(fsg_opts_from_func_inst(fi_msg), &config);
	if (status < 0)
		return status;
	fi_acm = usb_get_function_instance("acm");
	if (IS_ERR(fi_acm))
		return PTR_ERR(fi_acm);
	status = acm_pty_create(&pty, f_acm_opts_from_instance(fi_acm), tty);
	if (status < 0) {
		fprintf(stderr, "multi: tty=%s: %s\n", tty, usb_strerror(status));
		return status;
	}
	status = make_keyboard();
	return status == 0 && ecm ? make_network() : status;
}

static void put_instance(struct usb_function_instance **fi)
{
	if (!IS_ERR_OR_NULL(*fi))
		usb_put_function_instance(*fi);
	*fi = NULL;
}

static void put_all(void)
{
	usb_put_function(f_ecm);
	usb_put_function(f_acm2);
	usb_put_function(f_msg2);
	usb_put_function(f_hid);
	usb_put_function(f_acm);
	usb_put_function(f_msg);
	f_ecm = f_acm2 = f_msg2 = f_hid = f_acm = f_msg = NULL;
	acm_pty_destroy(pty);
	acm_pty_destroy(pty2);
	pty = pty2 = NULL;
	hidg_destroy(hid_pipes);
	hid_pipes = NULL;
	net_tap_destroy(tap);
	tap = NULL;
	put_instance(&fi_ecm);
	put_instance(&fi_acm2);
	put_instance(&fi_hid);
	put_instance(&fi_acm);
	put_instance(&fi_msg);
}

static int __init multi_init(void)
{
	int status = example_storage_defaults(&fsg_mod_data, "multi");

	if (status == 0)
		status = make_instances();
	if (status == 0)
		status = usb_composite_register(&multi_driver);
	if (status == 0)
		status = acm_pty_start(pty, f_acm);
	if (status == 0)
		status = hidg_start(hid_pipes, f_hid);
	if (status == 0 && ecm)
		status = acm_pty_start(pty2, f_acm2);
	if (status == 0 && ecm)
		status = net_tap_start(tap, f_ecm);
	if (status < 0) {
		multi_unregister();
		put_all();
		return status;
	}
	printf("multi: serial port: %s -> %s\n", tty, acm_pty_path(pty));
	printf("multi: keyboard: input reports to %s, output reports from %s\n", hidg,
	       hid_out && *hid_out ? hid_out : "(none)");
	if (ecm)
		printf("multi: configuration 2: network interface %s, serial port %s -> %s\n",
		       net_tap_name(tap), tty2, acm_pty_path(pty2));
	fflush(stdout);
	return 0;
}

static void multi_exit(void)
{
	multi_unregister();
	put_all();
}

module_init(multi_init);
module_exit(multi_exit);
MODULE_LICENSE("GPL");
