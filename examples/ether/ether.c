/*
 * ether.c - a USB network card in the shape of Linux's g_ether (CDC ECM,
 * vendor 0x0525 product 0xa4a1, "Linux-USB Ethernet Gadget"), or with
 * ncm=1 of Linux's g_ncm (CDC NCM, the same ids): the ecm or ncm function
 * taken from the function registry, its gadget side a TAP interface
 * (ifname=, default usb%d: the name the kernel gives is printed). The
 * host's cdc_ether (cdc_ncm) binds it. The module runner makes a
 * program of it: it serves busid 1-1 over USB/IP, prints the `usbip
 * attach` line, and on SIGINT/SIGTERM unregisters, removes the interface
 * and exits 0. Needs CAP_NET_ADMIN (the TAP interface).
 *
 *   ether [ncm=0|1] [ifname=usb%d] [dev_addr=xx:xx:xx:xx:xx:xx] [host_addr=...]
 *         [qmult=5] [address=127.0.0.1] [port=3240] [speed=full|high|super]
 *
 * Addresses not given are random (locally administered), as Linux's.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "composite/ether.h"
#include "composite/linux.h"
#include "composite/net_tap.h"
#include "composite/registry.h"

#define DRIVER_DESC "Ethernet Gadget"

static struct usb_device_descriptor device_desc = {
	.bLength = sizeof device_desc,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = cpu_to_le16(0x0200),
	.bDeviceClass = USB_CLASS_COMM,
	.idVendor = cpu_to_le16(0x0525),	/* NetChip */
	.idProduct = cpu_to_le16(0xa4a1),	/* Linux-USB Ethernet Gadget */
	.bcdDevice = cpu_to_le16(0x0100),
};

static bool ncm;
module_param(ncm, bool, S_IRUSR);
MODULE_PARM_DESC(ncm, "CDC NCM instead of CDC ECM (Linux's g_ncm)");
static char *ifname = "usb%d";
module_param(ifname, charp, S_IRUSR);
MODULE_PARM_DESC(ifname, "the TAP interface's name or template");
static char *dev_addr;
module_param(dev_addr, charp, S_IRUSR);
MODULE_PARM_DESC(dev_addr, "the gadget side's MAC address");
static char *host_addr;
module_param(host_addr, charp, S_IRUSR);
MODULE_PARM_DESC(host_addr, "the host side's MAC address");
static unsigned qmult = USB_NET_QMULT_DEFAULT;
module_param(qmult, uint, S_IRUSR);
MODULE_PARM_DESC(qmult, "queue length multiplier at high speed and above");

static unsigned long ether_registered;
static struct usb_function_instance *fi_net;
static struct usb_function *f_net;
static struct net_tap *tap;
static struct usb_composite_driver eth_driver;

static int __init eth_do_config(struct usb_configuration *c)
{
	int status;

	f_net = usb_get_function(fi_net);
	if (IS_ERR(f_net)) {
		status = PTR_ERR(f_net);
		f_net = NULL;
		return status;
	}
	status = usb_add_function(c, f_net);
	if (status < 0) {
		usb_put_function(f_net);
		f_net = NULL;
	}
	return status;
}

static struct usb_configuration eth_config = {
	.label = "CDC Ethernet (ECM)",
	.bind = eth_do_config,
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int __ref eth_bind(struct usb_composite_dev *cdev)
{
	int status = usb_add_config(cdev, &eth_config);

	if (status < 0)
		return status;
	INFO(cdev, "%s, version: 2026-12\n", DRIVER_DESC);
	set_bit(0, &ether_registered);
	return 0;
}

static struct usb_composite_driver eth_driver = {
	.name = "g_ether",
	.dev = &device_desc,
	.max_speed = USB_SPEED_SUPER,
	.iManufacturer = "libcomposite",
	.iProduct = DRIVER_DESC,
	.bind = eth_bind,
};

/* The module parameters into the instance, through its attributes (the
 * registry checks them, as Linux's configfs would). */
static int set_attr(const char *attr, const char *value)
{
	int status;

	if (!value)
		return 0;
	status = usb_function_instance_set(fi_net, attr, value);
	if (status < 0)
		fprintf(stderr, "ether: %s=%s: %s\n", attr, value, usb_strerror(status));
	return status;
}

static int make_instance(void)
{
	struct usb_net_opts *o;
	char q[16];
	int status;

	if (ncm) {
		/* g_ncm's configuration label and device class */
		eth_config.label = "CDC Ethernet (NCM)";
		device_desc.bDeviceClass = USB_CLASS_COMM;
	}
	fi_net = usb_get_function_instance(ncm ? "ncm" : "ecm");
	if (IS_ERR(fi_net))
		return PTR_ERR(fi_net);
	snprintf(q, sizeof(q), "%u", qmult);
	status = set_attr("ifname", ifname);
	if (status == 0)
		status = set_attr("dev_addr", dev_addr);
	if (status == 0)
		status = set_attr("host_addr", host_addr);
	if (status == 0)
		status = set_attr("qmult", q);
	if (status < 0)
		return status;
	o = usb_net_opts_from_instance(fi_net);
	status = net_tap_create(&tap, o->ifname, o->dev_addr, &o->ops, &o->ctx);
	if (status < 0)
		fprintf(stderr, "ether: TAP interface %s: %s\n", o->ifname, usb_strerror(status));
	return status;
}

static void put_all(void)
{
	usb_put_function(f_net);
	f_net = NULL;
	net_tap_destroy(tap);
	tap = NULL;
	if (!IS_ERR_OR_NULL(fi_net))
		usb_put_function_instance(fi_net);
	fi_net = NULL;
}

static void eth_unregister(void)
{
	if (test_and_clear_bit(0, &ether_registered))
		usb_composite_unregister(&eth_driver);
}

static int __init eth_init(void)
{
	struct usb_net_opts *o;
	char dev[18], host[18];
	int status = make_instance();

	if (status == 0)
		status = usb_composite_register(&eth_driver);
	if (status == 0)
		status = net_tap_start(tap, f_net);
	if (status < 0) {
		eth_unregister();
		put_all();
		return status;
	}
	o = usb_net_opts_from_instance(fi_net);
	usb_net_format_addr(o->dev_addr, dev);
	usb_net_format_addr(o->host_addr, host);
	printf("ether: interface %s, gadget %s, host %s\n", net_tap_name(tap), dev, host);
	fflush(stdout);
	return 0;
}

static void eth_exit(void)
{
	eth_unregister();
	put_all();
}

module_init(eth_init);
module_exit(eth_exit);
MODULE_LICENSE("GPL");
