/*
 * gadgetd_posix.c - composite-gadgetd: gadgets composed at run time from
 * gadget schemes (libusbgx's format, composite/scheme.h), served over
 * USB/IP. Each SCHEME given is one gadget, busid 1-1, 1-2 ... in the order
 * given, all on one server (composite/usbip.h).
 *
 *   composite-gadgetd SCHEME... [--address A] [--port P] [--control PATH]
 *                     [--capture DIR] [--check] [--export]
 *
 * A SCHEME that is a directory stands for its *.scheme files in name
 * order (the systemd unit passes /etc/composite-gadgetd/).
 *
 * --check loads every scheme and binds it to the in-process host
 * (composite/inproc_host.h), reads its descriptors as a host would, and
 * exits 0, or 2 with every error as FILE:LINE: MESSAGE. --export does the
 * same and writes each gadget's scheme to stdout, preceded by a comment
 * line naming its busid and file. Otherwise it serves until SIGINT or
 * SIGTERM, then unbinds every gadget, closes every file and exits 0.
 * --control PATH answers requests on a Unix socket there (control.h,
 * composite-gadgetctl). --capture DIR writes every gadget's URBs from the
 * first one to DIR/usbip-BUSID.pcap (usbip_server_set_capture()).
 * Exit 1: the server could not start; 2: bad arguments or schemes.
 * POSIX: signals and stdio; owns the schemes and the server.
 */
#define _XOPEN_SOURCE 700	/* realpath */

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "composite/composite.h"
#include "composite/errors.h"
#include "composite/inproc_host.h"
#include "composite/scheme.h"
#include "composite/usbip.h"
#include "control.h"

static const char prog[] = "composite-gadgetd";

struct options {
	const char *address;
	unsigned port;
	const char *control;
	const char *capture;
	bool check;
	bool export;
	const char *schemes[USBIP_MAX_DEVICES];
	unsigned n_schemes;
	char *owned[USBIP_MAX_DEVICES];	/* paths found in directories */
	unsigned n_owned;
};

static struct usbip_server *server;
static struct gadgetd_control *control;

static void on_signal(int sig)
{
	(void)sig;
	if (server)
		usbip_server_stop(server);	/* writes a pipe: async-signal-safe */
}

static int usage(void)
{
	fprintf(stderr, "usage: %s SCHEME... [--address A] [--port P] [--control PATH]\n"
		"         [--capture DIR] [--check] [--export]\n"
		"  serves each scheme as one gadget (busids 1-1, 1-2 ...) over USB/IP;\n"
		"  a directory stands for its *.scheme files in name order;\n"
		"  --check: load and bind every scheme against the in-process host, exit 0 or 2\n"
		"  --export: as --check, then write each gadget's scheme to stdout\n"
		"  --control PATH: answer composite-gadgetctl on a Unix socket (mode 0600)\n"
		"  --capture DIR: every gadget's URBs to DIR/usbip-BUSID.pcap (usbmon pcap)\n"
		"  defaults: --address 127.0.0.1 --port %u\n", prog, USBIP_PORT_DEFAULT);
	return 2;
}

static int parse_port(const char *s, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 65535)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int add_scheme(struct options *o, const char *path)
{
	if (o->n_schemes == USBIP_MAX_DEVICES) {
		fprintf(stderr, "%s: at most %d schemes\n", prog, USBIP_MAX_DEVICES);
		return -1;
	}
	o->schemes[o->n_schemes++] = path;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A scheme file, or a directory: its *.scheme files in name order. */
static int add_scheme_arg(struct options *o, const char *arg)
{
	unsigned first = o->n_owned;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return add_scheme(o, arg);	/* a missing file: the loader says so */
	d = opendir(arg);
	if (!d) {
		fprintf(stderr, "%s: %s: cannot read the directory\n", prog, arg);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *path;

		if (n <= 7 || strcmp(e->d_name + n - 7, ".scheme") || e->d_name[0] == '.')
			continue;
		if (o->n_owned == USBIP_MAX_DEVICES) {
			fprintf(stderr, "%s: at most %d schemes\n", prog, USBIP_MAX_DEVICES);
			closedir(d);
			return -1;
		}
		path = malloc(strlen(arg) + n + 2);
		if (!path) {
			closedir(d);
			return -1;
		}
		sprintf(path, "%s/%s", arg, e->d_name);
		o->owned[o->n_owned++] = path;
	}
	closedir(d);
	qsort(o->owned + first, o->n_owned - first, sizeof(o->owned[0]), by_name);
	for (unsigned i = first; i < o->n_owned; i++)
		if (add_scheme(o, o->owned[i]))
			return -1;
	return 0;
}

static int parse_args(struct options *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--check")) {
			o->check = true;
		} else if (!strcmp(a, "--export")) {
			o->export = true;
		} else if (!strcmp(a, "--address") && i + 1 < argc) {
			o->address = argv[++i];
		} else if (!strcmp(a, "--port") && i + 1 < argc) {
			if (parse_port(argv[++i], &o->port)) {
				fprintf(stderr, "%s: --port %s: not a port (0..65535)\n", prog, argv[i]);
				return 2;
			}
		} else if (!strcmp(a, "--control") && i + 1 < argc) {
			o->control = argv[++i];
		} else if (!strcmp(a, "--capture") && i + 1 < argc) {
			o->capture = argv[++i];
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return usage();
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			return usage();
		} else if (add_scheme_arg(o, a)) {
			return 2;
		}
	}
	if (!o->n_schemes)
		fprintf(stderr, "%s: no scheme given (or none in the directories given)\n", prog);
	return o->n_schemes ? 0 : usage();
}

static void print_error(const struct gadget_scheme_error *err)
{
	if (err->line > 0)
		fprintf(stderr, "%s:%d: %s\n", err->file, err->line, err->message);
	else
		fprintf(stderr, "%s: %s\n", err->file, err->message);
}

/* Load every scheme, reporting every failure. Return 0 or 2. */
static int load_all(const struct options *o, struct gadget_scheme **s)
{
	int status = 0;

	for (unsigned i = 0; i < o->n_schemes; i++) {
		struct gadget_scheme_error err;

		if (gadget_scheme_load_file(o->schemes[i], &s[i], &err) < 0) {
			print_error(&err);
			s[i] = NULL;
			status = 2;
		}
	}
	return status;
}

/* ---- one file, one writer -------------------------------------------------- */

struct lun_use {
	char *path;		/* realpath of the file, or the file as given */
	bool ro;
	const char *label;
	unsigned index;
	const char *scheme_file;
	int line;
};

struct lun_uses {
	struct lun_use *v;
	unsigned n, cap;
};

static int collect_lun(void *ctx, const struct gadget_scheme_lun *lun)
{
	struct lun_uses *u = ctx;
	struct lun_use *e;

	if (u->n == u->cap) {
		unsigned cap = u->cap ? 2 * u->cap : 16;
		struct lun_use *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return -USB_ENOMEM;
		u->v = v;
		u->cap = cap;
	}
	e = &u->v[u->n];
	e->path = realpath(lun->file, NULL);
	if (!e->path)
		e->path = strdup(lun->file);
	if (!e->path)
		return -USB_ENOMEM;
	e->ro = lun->ro;
	e->label = lun->label;
	e->index = lun->index;
	e->scheme_file = lun->scheme_file;
	e->line = lun->line;
	u->n++;
	return 0;
}

/* Two LUNs (of any gadgets) on one file: refused unless both are
 * read-only, as two writers would corrupt it. Return 0 or 2. */
static int check_shared_files(const struct options *o, struct gadget_scheme **s)
{
	struct lun_uses u = { 0 };
	int status = 0;

	for (unsigned i = 0; i < o->n_schemes; i++)
		if (s[i] && gadget_scheme_for_each_lun(s[i], collect_lun, &u) < 0) {
			fprintf(stderr, "%s: out of memory\n", prog);
			status = 2;
		}
	for (unsigned i = 0; i < u.n; i++)
		for (unsigned k = 0; k < i; k++) {
			const struct lun_use *a = &u.v[k], *b = &u.v[i];

			if (strcmp(a->path, b->path) || (a->ro && b->ro))
				continue;
			fprintf(stderr, "%s:%d: function %s LUN %u: %s is also served by function %s "
				"LUN %u (%s:%d), not both read-only\n", b->scheme_file, b->line,
				b->label, b->index, a->path, a->label, a->index, a->scheme_file,
				a->line);
			status = 2;
		}
	for (unsigned i = 0; i < u.n; i++)
		free(u.v[i].path);
	free(u.v);
	return status;
}

/* A medium going into LUN @lun of @label in gadget @index: the file
 * may not be one another LUN serves unless both are read-only. */
struct medium_check {
	char *path;
	bool ro;
	struct gadget_scheme *self;
	const char *label;
	unsigned lun;
	struct gadget_scheme *current;
	char *msg;
	size_t size;
};

static int medium_conflict(void *ctx, const struct gadget_scheme_lun *lun)
{
	struct medium_check *m = ctx;
	char *path;
	int clash;

	if (m->current == m->self && !strcmp(lun->label, m->label) && lun->index == m->lun)
		return 0;	/* the medium it replaces */
	path = realpath(lun->file, NULL);
	clash = !strcmp(path ? path : lun->file, m->path) && !(m->ro && lun->ro);
	if (clash)
		snprintf(m->msg, m->size, "%s is served by function %s LUN %u of %s, not both "
			 "read-only", m->path, lun->label, lun->index, lun->scheme_file);
	free(path);
	return clash ? -USB_EBUSY : 0;
}

static struct gadget_scheme **served;	/* for the control socket */
static unsigned n_served;

static int control_set(void *ctx, unsigned index, const char *function, const char *attr,
		       const char *value, char *msg, size_t size)
{
	struct medium_check m = { .self = served[index], .label = function, .msg = msg,
				  .size = size };
	char leaf[16], ro[16];
	int rc = 0;

	(void)ctx;
	if (sscanf(attr, "lun.%u/%15s", &m.lun, leaf) == 2 && !strcmp(leaf, "file") && value[0]) {
		char ro_attr[32];

		snprintf(ro_attr, sizeof(ro_attr), "lun.%u/ro", m.lun);
		m.ro = gadget_scheme_show_attr(m.self, function, ro_attr, ro, sizeof(ro)) > 0 &&
		       ro[0] == '1';
		m.path = realpath(value, NULL);
		if (!m.path)
			m.path = strdup(value);
		for (unsigned i = 0; m.path && rc == 0 && i < n_served; i++) {
			m.current = served[i];
			rc = gadget_scheme_for_each_lun(served[i], medium_conflict, &m);
		}
		if (!m.path)
			rc = -USB_ENOMEM;
		free(m.path);
		if (rc)
			return rc;
	}
	rc = gadget_scheme_set_attr(m.self, function, attr, value);
	if (rc == -USB_ENOENT)
		snprintf(msg, size, "no function %s or no attribute %s", function, attr);
	else if (rc < 0)
		snprintf(msg, size, "%s %s: %s", function, attr, usb_strerror(rc));
	return rc;
}

/* What a host reads: the device and every configuration descriptor. */
static int read_back(struct usb_inproc_host *h, const char *name)
{
	struct usb_device_descriptor dev;
	uint8_t cfg[4096];
	int rc = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 0, &dev, cfg, sizeof(cfg), 2000);

	for (uint8_t i = 0; rc >= 0 && i < dev.bNumConfigurations; i++) {
		struct usb_ctrlrequest rq = {
			.bRequestType = USB_DIR_IN, .bRequest = USB_REQ_GET_DESCRIPTOR,
			.wValue = USB_CPU_TO_LE16((USB_DT_CONFIG << 8) | i),
			.wLength = USB_CPU_TO_LE16(sizeof(cfg)),
		};

		rc = usb_inproc_host_control(h, &rq, cfg, 2000);
		if (rc >= 0 && (rc < USB_DT_CONFIG_SIZE || cfg[1] != USB_DT_CONFIG))
			rc = -USB_EPROTO;
	}
	if (rc < 0)
		fprintf(stderr, "%s: the host cannot read its descriptors: %s\n", name,
			usb_strerror(rc));
	return rc < 0 ? rc : 0;
}

/* Bind @s to a fresh in-process host, read it back, optionally export. */
static int check_one(struct gadget_scheme *s, unsigned index, bool export)
{
	struct usb_inproc_host_config hc = { .udc_name = "gadgetd.check",
					     .max_speed = USB_SPEED_HIGH };
	struct usb_inproc_host *h;
	struct gadget_scheme_error err;
	int rc = usb_inproc_host_create(&hc, &h);

	if (rc < 0) {
		fprintf(stderr, "%s: in-process host: %s\n", prog, usb_strerror(rc));
		return rc;
	}
	rc = gadget_scheme_bind(s, hc.udc_name, &err);
	if (rc < 0)
		print_error(&err);
	else
		rc = read_back(h, gadget_scheme_name(s));
	if (rc == 0 && export) {
		printf("# busid 1-%u: %s\n", index + 1, gadget_scheme_name(s));
		rc = gadget_scheme_export(s, stdout);
		if (rc < 0)
			fprintf(stderr, "%s: export: %s\n", gadget_scheme_name(s), usb_strerror(rc));
	} else if (rc == 0) {
		printf("%s: OK\n", gadget_scheme_name(s));
	}
	gadget_scheme_unbind(s);
	usb_inproc_host_destroy(h);
	return rc;
}

static void on_event(void *ctx, const struct usbip_event *ev)
{
	(void)ctx;
	if (ev->device >= 0 && ev->type == USBIP_EVENT_HOST_CONNECTED)
		gadgetd_control_set_attached(control, (unsigned)ev->device, ev->peer);
	else if (ev->device >= 0 && ev->type == USBIP_EVENT_HOST_DISCONNECTED)
		gadgetd_control_set_attached(control, (unsigned)ev->device, NULL);
	printf("%s: %s%s%s\n", prog, ev->busid[0] ? ev->busid : "", ev->busid[0] ? ": " : "",
	       ev->message);
	fflush(stdout);
}

static void print_attach_lines(const struct options *o)
{
	unsigned port = usbip_server_port(server);

	printf("%s: listening on %s:%u\n", prog, o->address, port);
	for (unsigned i = 0; i < o->n_schemes; i++) {
		if (port == USBIP_PORT_DEFAULT)
			printf("%s: on the host: usbip attach -r %s -b %s\n", prog, o->address,
			       usbip_server_busid(server, i));
		else
			printf("%s: on the host: usbip --tcp-port %u attach -r %s -b %s\n", prog,
			       port, o->address, usbip_server_busid(server, i));
	}
}

static int serve(const struct options *o, struct gadget_scheme **s)
{
	struct usbip_server_config cfg;
	struct sigaction act;
	int rc;

	usbip_server_config_init(&cfg);
	cfg.address = o->address;
	cfg.port = o->port;
	cfg.num_devices = o->n_schemes;
	cfg.capture_dir = o->capture;
	cfg.event = on_event;
	rc = usbip_server_create(&cfg, &server);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot serve on %s:%u%s%s: %s\n", prog, o->address, o->port,
			o->capture ? " with --capture " : "", o->capture ? o->capture : "",
			usb_strerror(rc));
		return 1;
	}
	for (unsigned i = 0; rc == 0 && i < o->n_schemes; i++) {
		struct gadget_scheme_error err;

		rc = gadget_scheme_bind(s[i], usbip_server_busid(server, i), &err);
		if (rc < 0)
			print_error(&err);
		else
			printf("%s: %s is busid %s\n", prog, o->schemes[i],
			       usbip_server_busid(server, i));
	}
	if (rc == 0 && o->control) {
		const char *busids[USBIP_MAX_DEVICES];

		for (unsigned i = 0; i < o->n_schemes; i++)
			busids[i] = usbip_server_busid(server, i);
		served = s;
		n_served = o->n_schemes;
		rc = gadgetd_control_start(o->control, o->n_schemes, busids, o->schemes,
					   control_set, NULL, &control);
		if (rc < 0)
			fprintf(stderr, "%s: --control %s: %s\n", prog, o->control,
				rc == -USB_EADDRINUSE ? "in use (a daemon answers there, or it is no socket)"
						      : usb_strerror(rc));
	}
	if (rc == 0) {
		memset(&act, 0, sizeof(act));
		act.sa_handler = on_signal;
		sigemptyset(&act.sa_mask);
		sigaction(SIGINT, &act, NULL);
		sigaction(SIGTERM, &act, NULL);
		print_attach_lines(o);
		fflush(stdout);
		rc = usbip_server_run(server);
		if (rc < 0)
			fprintf(stderr, "%s: server: %s\n", prog, usb_strerror(rc));
	}
	gadgetd_control_stop(control);
	control = NULL;
	for (unsigned i = 0; i < o->n_schemes; i++)
		gadget_scheme_unbind(s[i]);
	usbip_server_destroy(server);
	server = NULL;
	if (rc == 0)
		printf("%s: stopped\n", prog);
	return rc == 0 ? 0 : rc == -USB_EIO ? 1 : 2;
}

int main(int argc, char **argv)
{
	struct options o = { .address = "127.0.0.1", .port = USBIP_PORT_DEFAULT };
	struct gadget_scheme *s[USBIP_MAX_DEVICES] = { NULL };
	int status = parse_args(&o, argc, argv);

	if (status == 0)
		status = load_all(&o, s);
	else
		goto out;
	if (check_shared_files(&o, s))
		status = 2;
	if (o.check || o.export) {
		for (unsigned i = 0; i < o.n_schemes; i++)
			if (s[i] && check_one(s[i], i, o.export) < 0)
				status = 2;
	} else if (status == 0) {
		status = serve(&o, s);
	}
	for (unsigned i = 0; i < o.n_schemes; i++)
		gadget_scheme_free(s[i]);
out:
	for (unsigned i = 0; i < o.n_owned; i++)
		free(o.owned[i]);
	fflush(stdout);
	return status;
}
