/*
 * module_posix.c - the module runner: main() for a driver file written as
 * a kernel module (module_init()/module_exit(), module_param(),
 * FSG_MODULE_PARAMETERS(); see composite/module.h). It plays the kernel's
 * module loader and UDC: takes the module's key=value parameters and the
 * server's (address=, default 127.0.0.1; port=, default 3240;
 * speed=full|high|super, default high; capture=FILE or DIR, the device's
 * URBs to a usbmon pcap file, DIR/usbip-1-1.pcap for a directory;
 * capture_max_data=BYTES, the data kept per URB, default all; udc=usbip,
 * the default, or udc=gadgetfs[:NAME]: the machine's own controller
 * through gadgetfs, composite/gadgetfs_udc.h), starts the USB/IP server
 * (busid 1-1), calls the init function, prints the `usbip attach` line, and on
 * SIGINT/SIGTERM, or once the driver has unregistered itself, calls the
 * exit function and exits 0. The host's connections and configurations
 * are printed as they happen ("PROG: host connected (...)"). An unknown
 * parameter or a bad value: a message (listing the valid keys), exit 2;
 * a failing init: exit 1.
 * POSIX: signals, stdio, nanosleep. Owns nothing but its own state.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "composite/composite.h"
#ifdef __linux__
#include "composite/gadgetfs_udc.h"
#endif
#include "composite/mass_storage.h"
#include "composite/module.h"
#include "composite/udc.h"
#include "composite/usbip.h"

#pragma weak composite_module_exit_fn
extern const struct composite_module_param __start_composite_modparam[]
	__attribute__((weak));
extern const struct composite_module_param __stop_composite_modparam[]
	__attribute__((weak));

static const char *const fsg_keys[] = {
	"file", "ro", "removable", "cdrom", "nofua", "luns", "stall",
	"inquiry_string", "num_buffers", "buflen",
};

static const char *prog = "module";
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static size_t param_count(void)
{
	if (!__start_composite_modparam || !__stop_composite_modparam)
		return 0;
	return (size_t)(__stop_composite_modparam - __start_composite_modparam);
}

static void list_valid(void)
{
	fprintf(stderr, "%s: valid parameters: address= port= speed= capture= capture_max_data= udc=",
		prog);
	for (size_t i = 0; i < param_count(); i++) {
		const struct composite_module_param *p = &__start_composite_modparam[i];

		if (p->type != COMPOSITE_PARAM_FSG) {
			fprintf(stderr, " %s=", p->name);
			continue;
		}
		for (size_t k = 0; k < sizeof(fsg_keys) / sizeof(fsg_keys[0]); k++)
			fprintf(stderr, " %s%s=", p->name, fsg_keys[k]);
	}
	fputc('\n', stderr);
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	*out = strtoul(s, &end, 0);
	return *end || *out > max ? -1 : 0;
}

static int parse_bool(const char *s, bool *out)
{
	return usb_attr_parse_bool(s, out) ? -1 : 0;
}

/* Store @val in a plain module_param. 0, or -1 for a bad value. */
static int set_param(const struct composite_module_param *p, char *val)
{
	unsigned long u;
	long l;
	char *end;

	switch (p->type) {
	case COMPOSITE_PARAM_BOOL:
		return parse_bool(val, p->arg);
	case COMPOSITE_PARAM_CHARP:
		*(char **)p->arg = val;
		return 0;
	case COMPOSITE_PARAM_UINT:
		if (parse_ulong(val, 0xffffffffUL, &u))
			return -1;
		*(unsigned *)p->arg = (unsigned)u;
		return 0;
	case COMPOSITE_PARAM_USHORT:
		if (parse_ulong(val, 0xffffUL, &u))
			return -1;
		*(unsigned short *)p->arg = (unsigned short)u;
		return 0;
	case COMPOSITE_PARAM_ULONG:
		if (parse_ulong(val, (unsigned long)-1, &u))
			return -1;
		*(unsigned long *)p->arg = u;
		return 0;
	case COMPOSITE_PARAM_INT:
	case COMPOSITE_PARAM_LONG:
		l = strtol(val, &end, 0);
		if (!*val || *end)
			return -1;
		if (p->type == COMPOSITE_PARAM_LONG)
			*(long *)p->arg = l;
		else if (l < -0x7fffffffL - 1 || l > 0x7fffffffL)
			return -1;
		else
			*(int *)p->arg = (int)l;
		return 0;
	case COMPOSITE_PARAM_FSG:
		break;
	}
	return -1;
}

/* The Mass Storage keys after @p's prefix: taken out of @args (set to
 * NULL). 0, or 2 after a message. */
static int take_fsg(const struct composite_module_param *p, char **args, int n)
{
	struct fsg_module_parameters *mp = p->arg;
	size_t plen = strlen(p->name);
	char **sub = calloc((size_t)n + 1, sizeof(*sub));
	int *idx = calloc((size_t)n + 1, sizeof(*idx));
	int m = 0, left;
	char err[256];

	if (!sub || !idx) {
		free(sub);
		free(idx);
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (args[i] && !strncmp(args[i], p->name, plen)) {
			idx[m] = i;
			sub[m++] = args[i] + plen;
		}
	mp->exit_on_signal = true;	/* a program may take its signals */
	left = fsg_module_parameters_parse(mp, m, sub, err, sizeof(err));
	if (left < 0) {
		fprintf(stderr, "%s: %s%s\n", prog, p->name, err);
		free(sub);
		free(idx);
		return 2;
	}
	/* Taken ones are those not among the @left kept (in order) at the front. */
	for (int k = 0; k < m; k++) {
		bool kept = false;

		for (int j = 0; j < left; j++)
			kept = kept || sub[j] == args[idx[k]] + plen;
		if (!kept)
			args[idx[k]] = NULL;
	}
	free(sub);
	free(idx);
	return 0;
}

struct server_args {
	const char *address;
	unsigned long port;
	enum usb_device_speed speed;
	const char *capture;
	unsigned long capture_max_data;
	const char *gadgetfs;	/* udc=gadgetfs[:NAME]: NAME or ""; NULL: USB/IP */
};

/* udc=usbip (the default) or udc=gadgetfs[:NAME]. 0, or 2 after a message. */
static int take_udc_arg(struct server_args *sa, const char *v)
{
	if (!strcmp(v, "usbip")) {
		sa->gadgetfs = NULL;
		return 0;
	}
	if (!strncmp(v, "gadgetfs", 8) && (!v[8] || v[8] == ':')) {
#ifdef __linux__
		sa->gadgetfs = v[8] ? v + 9 : "";
		return 0;
#else
		fprintf(stderr, "%s: udc=gadgetfs: gadgetfs is Linux only\n", prog);
		return 2;
#endif
	}
	fprintf(stderr, "%s: udc: bad value \"%s\" (usbip or gadgetfs[:NAME])\n", prog, v);
	return 2;
}

static int take_server_arg(struct server_args *sa, const char *arg)
{
	if (!strncmp(arg, "udc=", 4)) {
		return take_udc_arg(sa, arg + 4);
	} else if (!strncmp(arg, "address=", 8)) {
		sa->address = arg + 8;
	} else if (!strncmp(arg, "port=", 5)) {
		if (parse_ulong(arg + 5, 65535, &sa->port)) {
			fprintf(stderr, "%s: port: bad value \"%s\"\n", prog, arg + 5);
			return 2;
		}
	} else if (!strncmp(arg, "capture=", 8)) {
		sa->capture = arg + 8;
	} else if (!strncmp(arg, "capture_max_data=", 17)) {
		if (parse_ulong(arg + 17, 0xffffffffUL, &sa->capture_max_data)) {
			fprintf(stderr, "%s: capture_max_data: bad value \"%s\"\n", prog, arg + 17);
			return 2;
		}
	} else if (!strncmp(arg, "speed=", 6)) {
		const char *v = arg + 6;

		sa->speed = !strcmp(v, "full") ? USB_SPEED_FULL :
			    !strcmp(v, "high") ? USB_SPEED_HIGH :
			    !strcmp(v, "super") ? USB_SPEED_SUPER : USB_SPEED_UNKNOWN;
		if (sa->speed == USB_SPEED_UNKNOWN) {
			fprintf(stderr, "%s: speed: bad value \"%s\" (full, high or super)\n",
				prog, v);
			return 2;
		}
	} else {
		return 1;
	}
	return 0;
}

/* Every argument goes to the server, a module parameter, or is an error. */
static int parse_args(struct server_args *sa, int argc, char **argv)
{
	int n = argc - 1, rc;
	char **args = argv + 1;

	for (int i = 0; i < n; i++) {
		rc = take_server_arg(sa, args[i]);
		if (rc == 2)
			return 2;
		if (rc == 0)
			args[i] = NULL;
	}
	for (size_t k = 0; k < param_count(); k++)
		if (__start_composite_modparam[k].type == COMPOSITE_PARAM_FSG &&
		    take_fsg(&__start_composite_modparam[k], args, n))
			return 2;
	for (int i = 0; i < n; i++) {
		char *eq = args[i] ? strchr(args[i], '=') : NULL;
		bool taken = false;

		for (size_t k = 0; eq && !taken && k < param_count(); k++) {
			const struct composite_module_param *p = &__start_composite_modparam[k];

			if (p->type == COMPOSITE_PARAM_FSG || strlen(p->name) != (size_t)(eq - args[i]) ||
			    strncmp(p->name, args[i], (size_t)(eq - args[i])))
				continue;
			if (set_param(p, eq + 1)) {
				fprintf(stderr, "%s: %s: bad value \"%s\"\n", prog, p->name, eq + 1);
				return 2;
			}
			taken = true;
		}
		if (args[i] && !taken) {
			fprintf(stderr, "%s: unknown parameter \"%s\"\n", prog, args[i]);
			list_valid();
			return 2;
		}
	}
	return 0;
}

/* The host's comings and goings, as a module's kernel log would show them
 * (server thread). */
static void on_event(void *ctx, const struct usbip_event *ev)
{
	(void)ctx;
	switch (ev->type) {
	case USBIP_EVENT_HOST_CONNECTED:
		printf("%s: host connected (%s, %s)\n", prog, ev->peer, ev->busid);
		break;
	case USBIP_EVENT_CONFIGURED:
		printf("%s: configured (configuration %u)\n", prog, ev->config);
		break;
	case USBIP_EVENT_UNCONFIGURED:
		printf("%s: unconfigured\n", prog);
		break;
	case USBIP_EVENT_HOST_DISCONNECTED:
		printf("%s: disconnected (%s)\n", prog, ev->peer);
		break;
	case USBIP_EVENT_PROTOCOL_ERROR:
		printf("%s: %s\n", prog, ev->message);
		break;
	}
	fflush(stdout);
}

static void print_attach_line(struct usbip_server *srv, const char *address)
{
	unsigned port = usbip_server_port(srv);
	const char *busid = usbip_server_busid(srv, 0);

	printf("%s: serving %s on %s:%u\n", prog, busid, address, port);
	if (port == USBIP_PORT_DEFAULT)
		printf("%s: on the host: usbip attach -r %s -b %s\n", prog, address, busid);
	else
		printf("%s: on the host: usbip --tcp-port %u attach -r %s -b %s\n", prog, port,
		       address, busid);
	fflush(stdout);
}

/* capture=: the file, or DIR/usbip-1-1.pcap (the server logs which);
 * from the first URB on. */
static int start_capture(struct usbip_server *srv, const char *capture)
{
	int rc;

	if (!capture || !*capture)
		return 0;
	rc = usbip_server_set_capture(srv, 0, capture);
	if (rc < 0)
		fprintf(stderr, "%s: cannot capture to %s: %s\n", prog, capture, usb_strerror(rc));
	return rc;
}

static void wait_for_the_end(struct usb_gadget *gadget)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };

	while (!stop_signal && usb_udc_is_bound(gadget))
		nanosleep(&tick, NULL);
}

static void call_exit(void)
{
	if (&composite_module_exit_fn && composite_module_exit_fn)
		composite_module_exit_fn();
}

#ifdef __linux__
static void on_gadgetfs_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s: %s\n", prog, line);
	fflush(stdout);
}

/* udc=gadgetfs[:NAME]: the module on the machine's own controller. */
static int run_gadgetfs(const struct server_args *sa)
{
	struct usb_gadgetfs_udc_config cfg = { 0 };
	struct usb_gadgetfs_udc *udc;
	struct usb_gadget *g;
	int rc;

	if (sa->speed == USB_SPEED_SUPER) {
		fprintf(stderr, "%s: speed=super: gadgetfs serves full and high speed only\n", prog);
		return 2;
	}
	if (sa->capture) {
		/* The capture records USB/IP's URBs: gadgetfs has none to give. */
		fprintf(stderr, "%s: capture=: only with udc=usbip\n", prog);
		return 2;
	}
	cfg.udc = sa->gadgetfs;
	cfg.log = on_gadgetfs_line;
	rc = usb_gadgetfs_udc_create(&cfg, &udc);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot use gadgetfs: %s\n", prog, usb_strerror(rc));
		return 1;
	}
	g = usb_gadgetfs_udc_gadget(udc);
	g->max_speed = sa->speed;
	rc = composite_module_init_fn();
	if (rc < 0) {
		fprintf(stderr, "%s: init failed: %s\n", prog, usb_strerror(rc));
		usb_gadgetfs_udc_destroy(udc);
		return 1;
	}
	printf("%s: serving on controller %s through gadgetfs (%s)\n", prog, g->name,
	       usb_gadgetfs_udc_mount_point(udc));
	fflush(stdout);
	{
		const struct timespec tick = { 0, 50 * 1000 * 1000 };

		while (!stop_signal && usb_udc_is_bound(g) && !usb_gadgetfs_udc_error(udc))
			nanosleep(&tick, NULL);
	}
	rc = usb_gadgetfs_udc_error(udc);
	call_exit();
	usb_gadgetfs_udc_destroy(udc);
	if (rc < 0) {
		fprintf(stderr, "%s: stopped: the controller failed: %s\n", prog, usb_strerror(rc));
		return 1;
	}
	printf("%s: stopped\n", prog);
	return 0;
}
#endif

int main(int argc, char **argv)
{
	struct server_args sa = { "127.0.0.1", USBIP_PORT_DEFAULT, USB_SPEED_HIGH, NULL, 0, NULL };
	struct usbip_server_config cfg;
	struct usbip_server *srv;
	struct sigaction act;
	int rc;

	if (argc > 0 && argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		prog = slash ? slash + 1 : argv[0];
	}
	rc = parse_args(&sa, argc, argv);
	if (rc)
		return rc;

	memset(&act, 0, sizeof(act));
	act.sa_handler = on_signal;
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
#ifdef __linux__
	if (sa.gadgetfs)
		return run_gadgetfs(&sa);
#endif

	usbip_server_config_init(&cfg);
	cfg.address = sa.address;
	cfg.port = (unsigned)sa.port;
	cfg.speed = sa.speed;
	cfg.event = on_event;
	cfg.capture_max_data = sa.capture_max_data;
	rc = usbip_server_create(&cfg, &srv);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot serve on %s:%lu: %s\n", prog, sa.address, sa.port,
			usb_strerror(rc));
		return 1;
	}
	if (start_capture(srv, sa.capture) < 0) {
		usbip_server_destroy(srv);
		return 1;
	}
	rc = usbip_server_start(srv);
	if (rc == 0)
		rc = composite_module_init_fn();
	if (rc < 0) {
		fprintf(stderr, "%s: init failed: %s\n", prog, usb_strerror(rc));
		usbip_server_stop(srv);
		usbip_server_destroy(srv);
		return 1;
	}
	print_attach_line(srv, sa.address);
	wait_for_the_end(usbip_server_gadget(srv, 0));
	call_exit();
	usbip_server_stop(srv);
	usbip_server_destroy(srv);
	printf("%s: stopped\n", prog);
	return 0;
}
