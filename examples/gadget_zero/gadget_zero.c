/*
 * gadget_zero.c - Linux's g_zero as a program: VID 0x0525 PID 0xa4a0 with
 * two configurations, "source/sink" (value 3, the SourceSink function) and
 * "loopback" (value 2, the Loopback function), served over USB/IP so that
 * Linux's usbtest driver can exercise a host stack against it.
 *
 *	gadget_zero [pattern=0|1|2] [buflen=N] [qlen=N] [ss_bulk_qlen=N]
 *		    [ss_iso_qlen=N] [isoc_interval=1..16] [isoc_maxpacket=0..1024]
 *		    [isoc_mult=0..2] [isoc_maxburst=0..15] [iso=0|1]
 *		    [loopdefault=0|1] [speed=full|high|super] [address=A] [port=P]
 *		    [busid=1-N] [winusb=0|1] [landing_page=URL] [capture=FILE|DIR]
 *		    [udc=usbip|gadgetfs[:NAME]]
 *
 * Parameters are g_zero's module parameters (same names, defaults and
 * ranges); iso=0 hides alternate setting 1. Beyond g_zero: winusb=1 tells
 * Windows to bind WinUSB to the SourceSink and Loopback interfaces (MS OS
 * 1.0 and 2.0 descriptors, compatible ID "WINUSB" and a
 * DeviceInterfaceGUIDs property; vendor code GZ_MS_VENDOR_CODE), and
 * landing_page=URL announces a WebUSB landing page (vendor code
 * GZ_WEBUSB_VENDOR_CODE), and capture= writes every URB to a pcap file
 * for Wireshark (DIR/usbip-BUSID.pcap for a directory; docs/capture.md).
 * Serves on 127.0.0.1:3240, busid 1-1, until SIGINT or SIGTERM, then exits
 * 0. udc=gadgetfs[:NAME] serves it on the machine's own controller instead
 * (examples/common/gadgetfs_run.c), with only the default configuration:
 * gadgetfs serves one.
 *
 * Owns only this program's options and signal handling; a POSIX program.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/composite.h"
#include "composite/f_loopback.h"
#include "composite/sourcesink.h"
#include "composite/usbip.h"
#include "gadgetfs_run.h"

#define GZ_VENDOR	0x0525	/* NetChip */
#define GZ_PRODUCT	0xa4a0	/* Linux-USB "Gadget Zero" */

struct gz_params {
	struct f_ss_opts ss;
	struct f_lb_opts lb;
	bool loopdefault;
	const char *address;
	unsigned port;
	enum usb_device_speed speed;
	unsigned device;	/* busid 1-(device+1) */
	bool winusb;
	const char *landing_page;
	const char *capture;	/* usbip_server_set_capture()'s path, or NULL */
	const char *gadgetfs;	/* udc=gadgetfs[:NAME]: NAME or ""; NULL: USB/IP */
};

static struct gz_params params;
static struct usb_function *func_ss, *func_lb;
static struct usbip_server *volatile server;

/* ---- descriptors and configurations -------------------------------------- */

static const struct usb_device_descriptor device_desc = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.bDeviceClass = USB_CLASS_VENDOR_SPEC,
	.idVendor = USB_CPU_TO_LE16(GZ_VENDOR),
	.idProduct = USB_CPU_TO_LE16(GZ_PRODUCT),
	.bcdDevice = USB_CPU_TO_LE16(0x0100),
};

/* The configurations' own strings (iConfiguration), as g_zero's. */
static struct usb_string config_strings[] = {
	{ 0, "source and sink data" },
	{ 0, "loop input to output" },
	{ 0, NULL }
};

static int sourcesink_config_bind(struct usb_configuration *c);
static int loopback_config_bind(struct usb_configuration *c);

static struct usb_configuration sourcesink_config = {
	.label = "source/sink",
	.bConfigurationValue = 3,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static struct usb_configuration loopback_config = {
	.label = "loopback",
	.bConfigurationValue = 2,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

/* ---- WinUSB and WebUSB (winusb=1, landing_page=URL) ------------------- */

#define GZ_MS_VENDOR_CODE	0x01	/* MS OS 1.0 and 2.0: told apart by wIndex */
#define GZ_WEBUSB_VENDOR_CODE	0x02

/* The interface GUID a WinUSB application opens Gadget Zero by. */
static const char gz_interface_guids[] = "{4a1d62c5-8b3e-4f70-9e21-6d0c5b7a3f18}\0";
static char gz_compat_id[2 * USB_OS_DESC_COMPAT_ID_LEN] = "WINUSB";
static struct usb_os_desc_ext_prop gz_guid_prop[2];
static struct usb_os_desc gz_os_desc[2];
static struct usb_os_desc_table gz_os_table[2];

/* The number of @f's (only) interface, from its descriptors. */
static int first_interface(const struct usb_function *f)
{
	struct usb_descriptor_header **d;

	for (d = f->fs_descriptors; d && *d; d++)
		if ((*d)->bDescriptorType == USB_DT_INTERFACE)
			return ((const struct usb_interface_descriptor *)(const void *)*d)
				->bInterfaceNumber;
	return -1;
}

/* After @f's bind: WINUSB for its interface (entry @k: one per configuration). */
static void winusb_describe(struct usb_function *f, unsigned k)
{
	struct usb_os_desc_ext_prop *p = &gz_guid_prop[k];

	p->type = USB_EXT_PROP_UNICODE_MULTI;
	p->name = "DeviceInterfaceGUIDs";
	p->data = gz_interface_guids;
	p->data_len = (int)sizeof(gz_interface_guids);
	gz_os_desc[k].ext_compat_id = gz_compat_id;
	INIT_LIST_HEAD(&gz_os_desc[k].ext_prop);
	list_add_tail(&p->entry, &gz_os_desc[k].ext_prop);
	gz_os_table[k].if_id = first_interface(f);
	gz_os_table[k].os_desc = &gz_os_desc[k];
	f->os_desc_table = &gz_os_table[k];
	f->os_desc_n = 1;
}

static void os_descriptors(struct usb_composite_dev *cdev, struct usb_configuration *first)
{
	if (params.winusb) {
		cdev->use_os_string = 1;
		cdev->b_vendor_code = GZ_MS_VENDOR_CODE;
		cdev->use_ms_os_20 = 1;
		cdev->b_ms_os_20_vendor_code = GZ_MS_VENDOR_CODE;
		cdev->os_desc_config = first;	/* Windows takes the first one */
	}
	if (params.landing_page) {
		cdev->use_webusb = 1;
		cdev->b_webusb_vendor_code = GZ_WEBUSB_VENDOR_CODE;
		/* Length checked when parsed; the core checks what is left
		 * once the scheme is dropped. */
		strncpy(cdev->landing_page, params.landing_page, sizeof(cdev->landing_page));
	}
}

/* ---- configurations ---------------------------------------------------------- */

static int sourcesink_config_bind(struct usb_configuration *c)
{
	int ret = sourcesink_alloc(&params.ss, &func_ss);

	if (ret)
		return ret;
	ret = usb_add_function(c, func_ss);
	if (ret) {
		sourcesink_free(func_ss);
		func_ss = NULL;
	} else if (params.winusb) {
		winusb_describe(func_ss, 0);
	}
	return ret;
}

static int loopback_config_bind(struct usb_configuration *c)
{
	int ret = loopback_alloc(&params.lb, &func_lb);

	if (ret)
		return ret;
	ret = usb_add_function(c, func_lb);
	if (ret) {
		loopback_free(func_lb);
		func_lb = NULL;
	} else if (params.winusb) {
		winusb_describe(func_lb, 1);
	}
	return ret;
}

static int add_config(struct usb_composite_dev *cdev, struct usb_configuration *c)
{
	int ret = usb_add_config(cdev, c, c == &sourcesink_config ?
				 sourcesink_config_bind : loopback_config_bind);

	/* Only one configuration is active at a time: the next one may reuse
	 * the same endpoints (as g_zero does). */
	usb_ep_autoconfig_reset(cdev->gadget);
	return ret;
}

static int zero_bind(struct usb_composite_dev *cdev)
{
	int ret = usb_string_ids_tab(cdev, config_strings);

	if (ret < 0)
		return ret;
	sourcesink_config.iConfiguration = config_strings[0].id;
	loopback_config.iConfiguration = config_strings[1].id;
	os_descriptors(cdev, params.loopdefault ? &loopback_config : &sourcesink_config);
	/* gadgetfs serves one configuration: the default one only. */
	if (params.loopdefault) {
		ret = add_config(cdev, &loopback_config);
		if (ret == 0 && !params.gadgetfs)
			ret = add_config(cdev, &sourcesink_config);
	} else {
		ret = add_config(cdev, &sourcesink_config);
		if (ret == 0 && !params.gadgetfs)
			ret = add_config(cdev, &loopback_config);
	}
	return ret;
}

static struct usb_gadget_strings config_stringtab = {
	.language = USB_LANGID_EN_US,
	.strings = config_strings,
};

static struct usb_gadget_strings *zero_strings[] = { &config_stringtab, NULL };

static struct usb_composite_driver zero_driver = {
	.name = "zero",
	.dev = &device_desc,
	.strings = zero_strings,
	.max_speed = USB_SPEED_SUPER,
	.iManufacturer = "libcomposite",
	.iProduct = "Gadget Zero",
	/* g_zero's: long enough to take two packets. */
	.iSerialNumber = "0123456789.0123456789.0123456789",
	.bind = zero_bind,
};

/* ---- options ------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: gadget_zero [pattern=0|1|2] [buflen=N] [qlen=N] [ss_bulk_qlen=N]\n"
	      "         [ss_iso_qlen=N] [isoc_interval=1..16] [isoc_maxpacket=0..1024]\n"
	      "         [isoc_mult=0..2] [isoc_maxburst=0..15] [iso=0|1] [loopdefault=0|1]\n"
	      "         [speed=full|high|super] [address=ADDR] [port=PORT] [busid=1-N]\n"
	      "         [winusb=0|1] [landing_page=URL] [capture=FILE|DIR]\n"
	      "         [udc=usbip|gadgetfs[:NAME]]\n", f);
}

static int parse_uint(const char *name, const char *s, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v > max) {
		fprintf(stderr, "gadget_zero: %s=%s: expected a number 0..%lu\n", name, s, max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[32];
	const char *val;
	unsigned v;
	size_t n;

	if (!eq || (n = (size_t)(eq - arg)) == 0 || n >= sizeof(name)) {
		fprintf(stderr, "gadget_zero: %s: expected name=value\n", arg);
		return -1;
	}
	memcpy(name, arg, n);
	name[n] = '\0';
	val = eq + 1;

#define UINT_PARAM(key, max, field) \
	if (strcmp(name, key) == 0) \
		return parse_uint(name, val, max, &(field))
	UINT_PARAM("pattern", 2, params.ss.pattern);
	UINT_PARAM("isoc_interval", 16, params.ss.isoc_interval);
	UINT_PARAM("isoc_maxpacket", 1024, params.ss.isoc_maxpacket);
	UINT_PARAM("isoc_mult", 2, params.ss.isoc_mult);
	UINT_PARAM("isoc_maxburst", 15, params.ss.isoc_maxburst);
	UINT_PARAM("ss_bulk_qlen", 256, params.ss.bulk_qlen);
	UINT_PARAM("ss_iso_qlen", 256, params.ss.iso_qlen);
	UINT_PARAM("qlen", 256, params.lb.qlen);
	UINT_PARAM("port", 65535, params.port);
#undef UINT_PARAM
	if (strcmp(name, "udc") == 0) {
		if (strcmp(val, "usbip") == 0) {
			params.gadgetfs = NULL;
			return 0;
		}
		if (strncmp(val, "gadgetfs", 8) == 0 && (!val[8] || val[8] == ':')) {
			params.gadgetfs = val[8] ? val + 9 : "";
			return 0;
		}
		fprintf(stderr, "gadget_zero: udc=%s: expected usbip or gadgetfs[:NAME]\n", val);
		return -1;
	}
	if (strcmp(name, "buflen") == 0) {
		if (parse_uint(name, val, 1024 * 1024, &v))
			return -1;
		params.ss.bulk_buflen = params.lb.bulk_buflen = v;
		return 0;
	}
	if (strcmp(name, "iso") == 0 || strcmp(name, "loopdefault") == 0 ||
	    strcmp(name, "winusb") == 0) {
		if (parse_uint(name, val, 1, &v))
			return -1;
		if (name[0] == 'i')
			params.ss.no_iso = !v;
		else if (name[0] == 'l')
			params.loopdefault = v;
		else
			params.winusb = v;
		return 0;
	}
	if (strcmp(name, "landing_page") == 0) {
		if (strlen(val) > WEBUSB_URL_RAW_MAX_LENGTH) {
			fprintf(stderr, "gadget_zero: landing_page: longer than %d bytes\n",
				WEBUSB_URL_RAW_MAX_LENGTH);
			return -1;
		}
		params.landing_page = val[0] ? val : NULL;
		return 0;
	}
	if (strcmp(name, "speed") == 0) {
		if (strcmp(val, "full") == 0)
			params.speed = USB_SPEED_FULL;
		else if (strcmp(val, "high") == 0)
			params.speed = USB_SPEED_HIGH;
		else if (strcmp(val, "super") == 0)
			params.speed = USB_SPEED_SUPER;
		else {
			fprintf(stderr, "gadget_zero: speed=%s: expected full, high or super\n", val);
			return -1;
		}
		return 0;
	}
	if (strcmp(name, "address") == 0) {
		params.address = val;
		return 0;
	}
	if (strcmp(name, "capture") == 0) {
		params.capture = *val ? val : NULL;
		return 0;
	}
	if (strcmp(name, "busid") == 0) {
		if (strncmp(val, "1-", 2) != 0 ||
		    parse_uint(name, val + 2, USBIP_MAX_DEVICES, &v) || v == 0)
			return -1;
		params.device = v - 1;
		return 0;
	}
	if (strncmp(name, "int_", 4) == 0) {
		/* Linux's f_sourcesink has no interrupt endpoints (support for
		 * them was reverted), so usbtest's interrupt cases cannot run
		 * against g_zero either. */
		fprintf(stderr, "gadget_zero: %s: SourceSink has no interrupt endpoints "
			"(neither has Linux's f_sourcesink)\n", name);
		return -1;
	}
	fprintf(stderr, "gadget_zero: unknown parameter %s\n", name);
	return -1;
}

/* ---- main ------------------------------------------------------------------ */

static void print_stats(void);

static void on_signal(int sig)
{
	struct usbip_server *srv = server;

	(void)sig;
	if (srv)
		usbip_server_stop(srv);	/* writes to a pipe: signal-safe */
}

static void on_event(void *ctx, const struct usbip_event *ev)
{
	(void)ctx;
	printf("gadget_zero: %s%s%s\n", ev->message, ev->peer && ev->peer[0] ? " from " : "",
	       ev->peer ? ev->peer : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct usbip_server_config cfg;
	struct usbip_server *srv = NULL;
	struct sigaction sa;
	int ret;

	f_ss_opts_init(&params.ss);
	f_lb_opts_init(&params.lb);
	params.address = "127.0.0.1";
	params.port = 3240;
	params.speed = USB_SPEED_HIGH;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (parse_arg(argv[i])) {
			usage(stderr);
			return 2;
		}
	}
	if (f_ss_opts_check(&params.ss) || f_lb_opts_check(&params.lb)) {
		fprintf(stderr, "gadget_zero: a parameter is out of range\n");
		return 2;
	}

	if (params.gadgetfs && params.capture) {
		fprintf(stderr, "gadget_zero: capture=: only with udc=usbip\n");
		return 2;
	}
	if (params.gadgetfs) {
		/* The statistics before the unregister frees the functions. */
		return example_gadgetfs_run("gadget_zero", params.gadgetfs, params.speed,
					    &zero_driver, print_stats);
	}
	usbip_server_config_init(&cfg);
	cfg.address = params.address;
	cfg.port = params.port;
	cfg.speed = params.speed;
	cfg.num_devices = params.device + 1;
	cfg.event = on_event;
	ret = usbip_server_create(&cfg, &srv);
	if (ret) {
		fprintf(stderr, "gadget_zero: cannot serve on %s:%u: %s\n", params.address,
			params.port, usb_strerror(ret));
		return 1;
	}
	server = srv;
	if (params.capture) {
		ret = usbip_server_set_capture(srv, params.device, params.capture);
		if (ret) {
			fprintf(stderr, "gadget_zero: cannot capture to %s: %s\n", params.capture,
				usb_strerror(ret));
			usbip_server_destroy(srv);
			return 1;
		}
	}

	zero_driver.udc_name = usbip_server_busid(srv, params.device);
	ret = usb_composite_probe(&zero_driver);
	if (ret) {
		fprintf(stderr, "gadget_zero: probe failed: %s\n", usb_strerror(ret));
		usbip_server_destroy(srv);
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	printf("gadget_zero: Gadget Zero %04x:%04x (%s first, pattern %u, buflen %u) "
	       "on %s:%u\n", GZ_VENDOR, GZ_PRODUCT,
	       params.loopdefault ? "loopback" : "source/sink", params.ss.pattern,
	       params.ss.bulk_buflen, params.address, usbip_server_port(srv));
	printf("gadget_zero: on the host: usbip attach -r %s -b %s\n", params.address,
	       zero_driver.udc_name);
	fflush(stdout);

	ret = usbip_server_run(srv);
	server = NULL;
	print_stats();
	usb_composite_unregister(&zero_driver);
	usbip_server_destroy(srv);
	if (ret) {
		fprintf(stderr, "gadget_zero: server failed: %s\n", usb_strerror(ret));
		return 1;
	}
	printf("gadget_zero: stopped\n");
	return 0;
}

static void print_stats(void)
{
	if (func_ss) {
		struct f_ss_stats st;

		sourcesink_get_stats(func_ss, &st);
		printf("gadget_zero: source/sink: in %llu bytes, out %llu bytes, iso in %llu, "
		       "iso out %llu, bad packets %llu, ctrl writes %llu, reads %llu\n",
		       (unsigned long long)st.in_bytes, (unsigned long long)st.out_bytes,
		       (unsigned long long)st.iso_in_bytes, (unsigned long long)st.iso_out_bytes,
		       (unsigned long long)st.bad_packets, (unsigned long long)st.ctrl_writes,
		       (unsigned long long)st.ctrl_reads);
	}
	if (func_lb) {
		struct f_lb_stats st;

		loopback_get_stats(func_lb, &st);
		printf("gadget_zero: loopback: out %llu bytes, in %llu bytes\n",
		       (unsigned long long)st.out_bytes, (unsigned long long)st.in_bytes);
	}
}
