/*
 * mass_storage.c - the seed article's g_my_mass_storage, served over
 * USB/IP: a gadget driver with one configuration ("Linux Mass Storage")
 * holding the Mass Storage Function, bound to the USB/IP server's busid
 * 1-1. The driver part keeps the Linux driver's shape (msg_bind,
 * msg_do_config, fsg_add, fsg_common_put, msg_thread_exits -> msg_exit);
 * main() adds what a kernel module gets from its loader: parameters from
 * the command line and a USB/IP server instead of a UDC.
 *
 *   mass_storage [file=disk.img[,b.img]] [ro=0,1] [removable=1] [luns=2]
 *                [cdrom=..] [nofua=..] [stall=1] [inquiry_string=..]
 *                [address=127.0.0.1] [port=3240] [control=FIFO]
 *                [control_reuse=1] [speed=full|high|super]
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
 * removable unless removable= is given, as in the article's host log.
 * speed= is what the device tells vhci_hcd (default high, as in the
 * article); super puts it on vhci's USB 3 root hub, where usb-storage
 * allows 1 MiB per command instead of 120 KiB (vhci's 32 scatter-gather
 * segments still cut requests of scattered pages at 128 KiB).
 * SIGINT/SIGTERM: the MSF worker closes the files and calls thread_exits;
 * msg_exit() unregisters the driver once and stops the server; exit 0.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "composite/composite.h"
#include "composite/mass_storage.h"
#include "composite/usbip.h"
#include "medium_control.h"

#define DRIVER_DESC "Mass Storage Gadget"
#define DRIVER_VERSION "2009/09/11"
#define FSG_VENDOR_ID 0x0525	/* NetChip */
#define FSG_PRODUCT_ID 0xa4a5	/* Linux-USB File-backed Storage Gadget */

static struct usb_device_descriptor msg_device_desc = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.bDeviceClass = USB_CLASS_PER_INTERFACE,
	.idVendor = USB_CPU_TO_LE16(FSG_VENDOR_ID),
	.idProduct = USB_CPU_TO_LE16(FSG_PRODUCT_ID),
	.bNumConfigurations = 1,
};

static struct fsg_module_parameters mod_data;
static atomic_bool msg_registered;
static struct usbip_server *volatile usbip_server;

static void msg_exit(void);

static int msg_thread_exits(struct fsg_common *common)
{
	(void)common;
	msg_exit();
	return 0;
}

static int msg_do_config(struct usb_configuration *c)
{
	static const struct fsg_operations ops = {
		.thread_exits = msg_thread_exits,
	};
	struct fsg_common *common;
	struct fsg_config config;
	int ret;

	fsg_config_from_params(&config, &mod_data);
	config.ops = &ops;

	ret = fsg_common_create(&common, c->cdev, &config);
	if (ret)
		return ret;

	ret = fsg_add(c->cdev, c, common);
	if (ret == 0)
		medium_control_attach(common);	/* fsg_add's reference keeps it */
	fsg_common_put(common);
	return ret;
}

static struct usb_configuration msg_config_driver = {
	.label = "Linux Mass Storage",
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int msg_bind(struct usb_composite_dev *cdev)
{
	int status;

	status = usb_add_config(cdev, &msg_config_driver, msg_do_config);
	if (status < 0)
		return status;

	fprintf(stderr, "mass_storage: " DRIVER_DESC ", version: " DRIVER_VERSION "\n");
	atomic_store(&msg_registered, true);
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
	.udc_name = "1-1",
	.bind = msg_bind,
};

/* Unregister exactly once, whoever gets here first (the MSF worker on a
 * signal, or main when the server stops); then let main() go on. */
static void msg_exit(void)
{
	struct usbip_server *srv = usbip_server;

	if (atomic_exchange(&msg_registered, false)) {
		medium_control_attach(NULL);
		usb_composite_unregister(&msg_driver);
	}
	if (srv)
		usbip_server_stop(srv);
}

/* ---- the program around the driver --------------------------------------- */

static void on_event(void *ctx, const struct usbip_event *ev)
{
	(void)ctx;
	switch (ev->type) {
	case USBIP_EVENT_HOST_CONNECTED:
		printf("mass_storage: host connected (%s, %s)\n", ev->peer, ev->busid);
		break;
	case USBIP_EVENT_CONFIGURED:
		printf("mass_storage: configured (configuration %u)\n", ev->config);
		break;
	case USBIP_EVENT_UNCONFIGURED:
		printf("mass_storage: unconfigured\n");
		break;
	case USBIP_EVENT_HOST_DISCONNECTED:
		printf("mass_storage: disconnected (%s)\n", ev->peer);
		break;
	case USBIP_EVENT_PROTOCOL_ERROR:
		printf("mass_storage: %s\n", ev->message);
		break;
	}
	fflush(stdout);
}

/* The article's dd: a 64 MiB file of zeros (sparse), unless it exists. */
static int ensure_default_image(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	if (ftruncate(fd, 64L << 20) < 0) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	printf("mass_storage: created %s (64 MiB)\n", path);
	return 0;
}

/* speed=: USB_SPEED_UNKNOWN for anything but full, high or super. */
static enum usb_device_speed parse_speed(const char *s)
{
	if (strcmp(s, "full") == 0)
		return USB_SPEED_FULL;
	if (strcmp(s, "high") == 0)
		return USB_SPEED_HIGH;
	if (strcmp(s, "super") == 0)
		return USB_SPEED_SUPER;
	return USB_SPEED_UNKNOWN;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mass_storage [file=PATH[,PATH...]] [ro=0|1,...] [removable=0|1,...]\n"
		"                    [cdrom=..] [nofua=..] [luns=N] [stall=0|1]\n"
		"                    [inquiry_string=..] [address=127.0.0.1] [port=3240]\n"
		"                    [control=FIFO]  (then: echo lun0.file=PATH > FIFO)\n"
		"                    [control_reuse=0|1]  (1: FIFO may be an existing FIFO of\n"
		"                     yours that only you may write; else it must not exist)\n"
		"                    [speed=full|high|super]\n");
}

int main(int argc, char **argv)
{
	struct usbip_server_config cfg;
	struct usbip_server *srv = NULL;
	const char *address = "127.0.0.1";
	const char *control = NULL;
	bool control_reuse = false;
	unsigned long port = USBIP_PORT_DEFAULT;
	enum usb_device_speed speed = USB_SPEED_HIGH;
	char err[256];
	int left, rc;

	fsg_module_parameters_init(&mod_data);
	/* A program, unlike a library, may take its own signals: SIGINT and
	 * SIGTERM end the MSF worker, which closes the files (thread_exits). */
	mod_data.exit_on_signal = true;
	left = fsg_module_parameters_parse(&mod_data, argc, argv, err, sizeof(err));
	if (left < 0) {
		fprintf(stderr, "mass_storage: %s\n", err);
		usage();
		return 2;
	}
	for (int i = 1; i < left; i++) {
		char *end;

		if (strncmp(argv[i], "address=", 8) == 0) {
			address = argv[i] + 8;
		} else if (strncmp(argv[i], "control=", 8) == 0 && argv[i][8]) {
			control = argv[i] + 8;
		} else if (strncmp(argv[i], "control_reuse=", 14) == 0) {
			const char *v = argv[i] + 14;

			if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
				fprintf(stderr, "mass_storage: control_reuse: bad value \"%s\" (0 or 1)\n",
					v);
				return 2;
			}
			control_reuse = v[0] == '1';
		} else if (strncmp(argv[i], "speed=", 6) == 0) {
			speed = parse_speed(argv[i] + 6);
			if (speed == USB_SPEED_UNKNOWN) {
				fprintf(stderr, "mass_storage: speed: bad value \"%s\" (full, high or super)\n",
					argv[i] + 6);
				return 2;
			}
		} else if (strncmp(argv[i], "port=", 5) == 0) {
			port = strtoul(argv[i] + 5, &end, 10);
			if (*end || end == argv[i] + 5 || port > 65535) {
				fprintf(stderr, "mass_storage: port: bad value \"%s\"\n", argv[i] + 5);
				return 2;
			}
		} else {
			fprintf(stderr, "mass_storage: unknown parameter \"%s\"\n", argv[i]);
			usage();
			return 2;
		}
	}
	/* The article's host log says "Attached SCSI removable disk": its
	 * module's LUNs are removable unless removable= says otherwise (as
	 * the kernel's configfs mass_storage LUNs are by default). */
	if (mod_data.removable_count == 0) {
		for (unsigned i = 0; i < FSG_MAX_LUNS; i++)
			mod_data.removable[i] = true;
		mod_data.removable_count = FSG_MAX_LUNS;
	}
	if (mod_data.file_count == 0) {
		if (ensure_default_image("disk.img") < 0) {
			perror("mass_storage: disk.img");
			return 1;
		}
		mod_data.file[0] = "disk.img";
		mod_data.file_count = 1;
	}

	usbip_server_config_init(&cfg);
	cfg.address = address;
	cfg.port = (unsigned)port;
	cfg.speed = speed;
	cfg.event = on_event;
	rc = usbip_server_create(&cfg, &srv);
	if (rc < 0) {
		fprintf(stderr, "mass_storage: cannot serve on %s:%lu: %s\n", address, port,
			usb_strerror(rc));
		return 1;
	}
	usbip_server = srv;
	rc = usb_composite_probe(&msg_driver);
	if (rc < 0) {
		fprintf(stderr, "mass_storage: bind failed: %s\n", usb_strerror(rc));
		usbip_server = NULL;
		usbip_server_destroy(srv);
		return 1;
	}
	printf("mass_storage: serving %s on %s:%u\n", usbip_server_busid(srv, 0), address,
	       usbip_server_port(srv));
	if (usbip_server_port(srv) == USBIP_PORT_DEFAULT)
		printf("mass_storage: on the host: usbip attach -r %s -b %s\n", address,
		       usbip_server_busid(srv, 0));
	else
		printf("mass_storage: on the host: usbip --tcp-port %u attach -r %s -b %s\n",
		       usbip_server_port(srv), address, usbip_server_busid(srv, 0));
	fflush(stdout);

	if (control) {
		rc = medium_control_start(control, control_reuse);
		if (rc < 0) {	/* medium_control_start() said why */
			msg_exit();
			usbip_server = NULL;
			usbip_server_destroy(srv);
			return 1;
		}
		printf("mass_storage: media: echo lun0.file=PATH > %s (empty PATH ejects)\n",
		       control);
		fflush(stdout);
	}

	rc = usbip_server_run(srv);
	msg_exit();
	medium_control_stop();
	usbip_server = NULL;
	usbip_server_destroy(srv);
	printf("mass_storage: stopped\n");
	return rc < 0 ? 1 : 0;
}
