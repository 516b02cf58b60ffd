/*
 * mass_storage.c - the seed article's g_my_mass_storage as a module: one
 * configuration ("Linux Mass Storage") holding the Mass Storage Function,
 * in the Linux driver's shape (msg_bind, msg_do_config, fsg_common_init,
 * fsg_add, fsg_common_put, msg_thread_exits -> msg_exit). The module
 * runner (composite::module) makes a program of it: it parses the
 * parameters, serves busid 1-1 over USB/IP, calls msg_init(), prints the
 * `usbip attach` line and the host's comings and goings, and on
 * SIGINT/SIGTERM (the MSF worker closes the files and calls thread_exits)
 * or once the driver has unregistered itself calls msg_exit(); exit 0.
 *
 *   mass_storage [file=disk.img[,b.img]] [ro=0,1] [removable=1] [luns=2]
 *                [cdrom=..] [nofua=..] [stall=1] [inquiry_string=..]
 *                [address=127.0.0.1] [port=3240] [control=FIFO]
 *                [control_reuse=1] [speed=full|high|super]
 *                [capture=FILE|DIR] [capture_max_data=BYTES]
 *
 * control=FIFO reads media changes, one per line, as g_mass_storage takes
 * them through sysfs: "lun0.file=PATH" inserts, "lun0.file=" ejects,
 * "lun0.forced_eject=1" ejects even when the host prevented removal.
 * Whoever may write the FIFO may serve any file this process can open, so
 * it is created here (mode 0600) and removed at exit; an existing path is
 * refused, unless control_reuse=1 and it is a FIFO of the effective user
 * that group and others may not write (then it is left at exit).
 * With no file= it uses ./disk.img, creating a 64 MiB one when missing
 * (the article's `dd if=/dev/zero of=disk.img bs=1M count=64`). LUNs are
 * removable unless removable= is given, as in the article's host log
 * (examples/common/default_image.c).
 * speed= (the runner's) is what the device tells vhci_hcd (default high,
 * as in the article); super puts it on vhci's USB 3 root hub, where
 * usb-storage allows 1 MiB per command instead of 120 KiB.
 * capture= (the runner's) writes every URB to a pcap file of usbmon
 * records for Wireshark (DIR/usbip-1-1.pcap for a directory), from the
 * first URB, so the dissectors see the enumeration; capture_max_data=
 * keeps only that many data bytes of each URB (docs/capture.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <sys/stat.h>

#include "composite/linux.h"
#include "composite/mass_storage.h"
#include "medium_control.h"
#include "../common/default_image.h"

#define DRIVER_DESC "Mass Storage Gadget"
#define DRIVER_VERSION "2009/09/11"

static struct usb_device_descriptor msg_device_desc = {
	.bLength = sizeof msg_device_desc,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = cpu_to_le16(0x0200),
	.bDeviceClass = USB_CLASS_PER_INTERFACE,
	.idVendor = cpu_to_le16(FSG_VENDOR_ID),
	.idProduct = cpu_to_le16(FSG_PRODUCT_ID),
};

static struct fsg_module_parameters mod_data = { .stall = 1 };
FSG_MODULE_PARAMETERS(/* no prefix */, mod_data);

static char *control;
module_param(control, charp, S_IRUSR);
MODULE_PARM_DESC(control, "FIFO taking lunN.file=PATH lines (media changes)");
static bool control_reuse;
module_param(control_reuse, bool, S_IRUSR);
MODULE_PARM_DESC(control_reuse, "control= may be an existing FIFO of this user's alone");

static unsigned long msg_registered;
static struct fsg_common msg_fsg_common;
static struct usb_composite_driver msg_driver;

static void msg_exit(void);

/* Unregister exactly once, whoever gets here first: the MSF worker on a
 * signal (thread_exits) or msg_exit() at the end. */
static void msg_unregister(void)
{
	if (test_and_clear_bit(0, &msg_registered)) {
		medium_control_attach(NULL);
		usb_composite_unregister(&msg_driver);
	}
}

/* The article's msg_thread_exits() calls msg_exit(); here msg_exit() also
 * joins the FIFO reader, which only the runner's thread may do. */
static int msg_thread_exits(struct fsg_common *common)
{
	(void)common;
	msg_unregister();
	return 0;
}

static int __init msg_do_config(struct usb_configuration *c)
{
	struct fsg_common *retp;
	struct fsg_config config;
	int ret;

	fsg_config_from_params(&config, &mod_data);
	config.thread_exits = msg_thread_exits;
	retp = fsg_common_init(&msg_fsg_common, c->cdev, &config);
	if (IS_ERR(retp))
		return PTR_ERR(retp);

	ret = fsg_add(c->cdev, c, &msg_fsg_common);
	if (ret == 0)
		medium_control_attach(&msg_fsg_common);	/* fsg_add's reference keeps it */
	fsg_common_put(&msg_fsg_common);
	return ret;
}

static struct usb_configuration msg_config_driver = {
	.label = "Linux Mass Storage",
	.bind = msg_do_config,
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int __ref msg_bind(struct usb_composite_dev *cdev)
{
	int status;

	status = usb_add_config(cdev, &msg_config_driver);
	if (status < 0)
		return status;

	INFO(cdev, DRIVER_DESC ", version: " DRIVER_VERSION "\n");
	set_bit(0, &msg_registered);
	return 0;
}

static struct usb_composite_driver msg_driver = {
	.name = "g_mass_storage",
	.dev = &msg_device_desc,
	.max_speed = USB_SPEED_SUPER,
	.needs_serial = 1,
	.iManufacturer = "libcomposite",
	.iProduct = DRIVER_DESC,
	.iSerialNumber = "0123456789AB",
	.bind = msg_bind,
};

static int __init msg_init(void)
{
	int ret = example_storage_defaults(&mod_data, "mass_storage");

	if (ret == 0)
		ret = usb_composite_register(&msg_driver);
	if (ret < 0 || !control || !*control)
		return ret;
	ret = medium_control_start(control, control_reuse);
	if (ret < 0) {	/* medium_control_start() said why */
		msg_exit();
		return ret;
	}
	printf("mass_storage: media: echo lun0.file=PATH > %s (empty PATH ejects)\n", control);
	fflush(stdout);
	return 0;
}

/* The runner's thread, once, at the end (or msg_init() failing). */
static void msg_exit(void)
{
	msg_unregister();
	medium_control_stop();
}

module_init(msg_init);
module_exit(msg_exit);
MODULE_LICENSE("GPL");
