/*
 * gadgetd_posix.c - composite-gadgetd: gadgets composed at run time from
 * gadget schemes (libusbgx's format, composite/scheme.h), served over
 * USB/IP: each SCHEME given is one gadget, busid 1-1, 1-2 ... in the order
 * given, all on one server (composite/usbip.h). Or, with --udc
 * gadgetfs[:NAME], one SCHEME served on the machine's own device
 * controller through Linux's gadgetfs (backend.h).
 *
 *   composite-gadgetd SCHEME... [--udc usbip|gadgetfs[:NAME]]
 *                     [--address A] [--port P] [--control PATH]
 *                     [--capture DIR] [--max-gadgets N] [--run-dir DIR]
 *                     [--check] [--export]
 *
 * A SCHEME that is a directory stands for its *.scheme files in name
 * order (the systemd unit passes /etc/composite-gadgetd/).
 *
 * --check loads every scheme and binds it to the in-process host
 * (composite/inproc_host.h), reads its descriptors as a host would, and
 * exits 0, or 2 with every error as FILE:LINE: MESSAGE (with --udc
 * gadgetfs also what gadgetfs cannot serve). --export does the
 * same and writes each gadget's scheme to stdout, preceded by a comment
 * line naming its busid and file. Otherwise it serves until SIGINT or
 * SIGTERM, then unbinds every gadget, closes every file and exits 0;
 * SIGHUP rereads the schemes given (gadgets.h, gadgetd_gadgets_reload()).
 * --control PATH answers requests on a Unix socket there (control.h,
 * composite-gadgetctl). --capture DIR writes every gadget's URBs from the
 * first one to DIR/usbip-BUSID.pcap (usbip_server_set_capture()).
 * --max-gadgets N: the busids the server exports (default 16, or the
 * number of schemes when more; at most USBIP_MAX_DEVICES): room for
 * gadgets added at run time. --run-dir DIR: where the gadget-side ends
 * go (ends.h: DIR/BUSID/acm.INSTANCE, hid.INSTANCE; default systemd's
 * $RUNTIME_DIRECTORY, else /run/composite-gadgetd).
 * Exit 1: the server or the controller could not start, or the
 * controller failed; 2: bad arguments or schemes.
 * Threads: main runs the backend; one thread takes the signals (all
 * blocked elsewhere) and runs the reload; the control socket has its own.
 * POSIX: signals, threads and stdio; owns the backend and the gadget table.
 */
#define _XOPEN_SOURCE 700	/* realpath */

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "composite/composite.h"
#include "composite/errors.h"
#include "composite/inproc_host.h"
#include "composite/scheme.h"
#include "composite/usbip.h"
#include "backend.h"
#include "control.h"
#include "ends.h"
#include "gadgets.h"

static const char prog[] = "composite-gadgetd";

/* Scheme files, owned. */
struct path_list {
	char **v;
	unsigned n, cap;
};

struct options {
	struct gadgetd_backend_options backend;
	const struct gadgetd_backend *serve;	/* the backend --udc chose */
	const char *control;
	const char *run_dir;
	char *run_dir_owned;		/* run_dir made absolute, when it was not */
	bool check;
	bool export;
	const char **args;		/* the SCHEME arguments (argv's) */
	unsigned n_args;
	struct path_list schemes;	/* args with directories expanded */
};

static struct gadgetd_gadgets *gadgets;

static int usage(void)
{
	fprintf(stderr, "usage: %s SCHEME... [--udc usbip|gadgetfs[:NAME]] [--address A]\n"
		"         [--port P] [--control PATH] [--capture DIR] [--max-gadgets N]\n"
		"         [--run-dir DIR] [--check] [--export]\n"
		"  serves each scheme as one gadget (busids 1-1, 1-2 ...) over USB/IP;\n"
		"  a directory stands for its *.scheme files in name order;\n"
		"  --udc gadgetfs[:NAME]: one scheme, on this machine's device controller\n"
		"     NAME (default: the one gadgetfs offers) through Linux's gadgetfs\n"
		"  --check: load and bind every scheme against the in-process host, exit 0 or 2\n"
		"  --export: as --check, then write each gadget's scheme to stdout\n"
		"  --control PATH: answer composite-gadgetctl on a Unix socket (mode 0600)\n"
		"  --capture DIR: every gadget's URBs to DIR/usbip-BUSID.pcap (usbmon pcap)\n"
		"  --max-gadgets N: busids exported, room for gadgets added at run time\n"
		"     (default %d or the number of schemes, whichever is larger; at most %d)\n"
		"  --run-dir DIR: the gadgets' ptys and HID FIFOs go to DIR/BUSID/ (DIR/NAME/)\n"
		"     (default $RUNTIME_DIRECTORY, else " GADGETD_RUN_DIR_DEFAULT ")\n"
		"  SIGHUP rereads the schemes; defaults: --address 127.0.0.1 --port %u\n", prog,
		USBIP_MAX_DEVICES, USBIP_MAX_DEVICES, USBIP_PORT_DEFAULT);
	return 2;
}

static int parse_uint(const char *s, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > max || s[0] == '-')
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int add_path(struct path_list *l, const char *path)
{
	char *copy = strdup(path);

	if (copy && l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			free(copy);
			return -1;
		}
		l->v = v;
		l->cap = cap;
	}
	if (!copy)
		return -1;
	l->v[l->n++] = copy;
	return 0;
}

static void free_paths(struct path_list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct path_list){ 0 };
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A scheme file, or a directory: its *.scheme files in name order.
 * Return 0, or -1 with the reason on stderr. */
static int expand_arg(struct path_list *l, const char *arg)
{
	unsigned first = l->n;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return add_path(l, arg);	/* a missing file: the loader says so */
	d = opendir(arg);
	if (!d) {
		fprintf(stderr, "%s: %s: cannot read the directory\n", prog, arg);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		char *path;
		int rc;

		if (n <= 7 || strcmp(e->d_name + n - 7, ".scheme") || e->d_name[0] == '.')
			continue;
		path = malloc(strlen(arg) + n + 2);
		if (!path)
			break;
		sprintf(path, "%s/%s", arg, e->d_name);
		rc = add_path(l, path);
		free(path);
		if (rc)
			break;
	}
	closedir(d);
	if (e) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	qsort(l->v + first, l->n - first, sizeof(l->v[0]), by_name);
	return 0;
}

static int expand_args(const struct options *o, struct path_list *l)
{
	for (unsigned i = 0; i < o->n_args; i++)
		if (expand_arg(l, o->args[i])) {
			free_paths(l);
			return -1;
		}
	return 0;
}

/* --udc usbip (the default) or gadgetfs[:NAME]. 0, or 2 after a message. */
static int take_udc(struct options *o, const char *v)
{
	if (!strcmp(v, "usbip")) {
		o->serve = &gadgetd_backend_usbip;
		o->backend.udc = NULL;
		return 0;
	}
	if (!strncmp(v, "gadgetfs", 8) && (!v[8] || v[8] == ':')) {
		o->serve = &gadgetd_backend_gadgetfs;
		o->backend.udc = v[8] ? v + 9 : "";
		return 0;
	}
	fprintf(stderr, "%s: --udc %s: not usbip or gadgetfs[:NAME]\n", prog, v);
	return 2;
}

static int parse_args(struct options *o, int argc, char **argv)
{
	o->args = calloc((size_t)argc, sizeof(*o->args));
	if (!o->args)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--check")) {
			o->check = true;
		} else if (!strcmp(a, "--export")) {
			o->export = true;
		} else if (!strcmp(a, "--udc") && i + 1 < argc) {
			if (take_udc(o, argv[++i]))
				return 2;
		} else if (!strcmp(a, "--address") && i + 1 < argc) {
			o->backend.address = argv[++i];
			o->backend.usbip_only = a;
		} else if (!strcmp(a, "--port") && i + 1 < argc) {
			o->backend.usbip_only = a;
			if (parse_uint(argv[++i], 65535, &o->backend.port)) {
				fprintf(stderr, "%s: --port %s: not a port (0..65535)\n", prog, argv[i]);
				return 2;
			}
		} else if (!strcmp(a, "--max-gadgets") && i + 1 < argc) {
			o->backend.usbip_only = a;
			if (parse_uint(argv[++i], USBIP_MAX_DEVICES, &o->backend.max_gadgets) ||
			    !o->backend.max_gadgets) {
				fprintf(stderr, "%s: --max-gadgets %s: not a number 1..%d\n", prog,
					argv[i], USBIP_MAX_DEVICES);
				return 2;
			}
		} else if (!strcmp(a, "--control") && i + 1 < argc) {
			o->control = argv[++i];
		} else if (!strcmp(a, "--capture") && i + 1 < argc) {
			o->backend.capture = argv[++i];
			o->backend.usbip_only = a;
		} else if (!strcmp(a, "--run-dir") && i + 1 < argc) {
			o->run_dir = argv[++i];
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return usage();
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option %s\n", prog, a);
			return usage();
		} else {
			o->args[o->n_args++] = a;
		}
	}
	if (!o->run_dir || !o->run_dir[0])
		o->run_dir = getenv("RUNTIME_DIRECTORY");	/* systemd's RuntimeDirectory= */
	if (!o->run_dir || !o->run_dir[0])
		o->run_dir = GADGETD_RUN_DIR_DEFAULT;
	if (o->run_dir[0] != '/') {
		/* The list names the places: absolute, for a CLI in another folder. */
		char *cwd = getcwd(NULL, 0);

		o->run_dir_owned = cwd ? malloc(strlen(cwd) + strlen(o->run_dir) + 2) : NULL;
		if (o->run_dir_owned)
			sprintf(o->run_dir_owned, "%s/%s", cwd, o->run_dir);
		free(cwd);
		if (!o->run_dir_owned) {
			fprintf(stderr, "%s: --run-dir %s: cannot make it absolute\n", prog,
				o->run_dir);
			return 2;
		}
		o->run_dir = o->run_dir_owned;
	}
	if (expand_args(o, &o->schemes))
		return 2;
	if (!o->schemes.n)
		fprintf(stderr, "%s: no scheme given (or none in the directories given)\n", prog);
	return o->schemes.n ? 0 : usage();
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

	for (unsigned i = 0; i < o->schemes.n; i++) {
		struct gadget_scheme_error err;

		if (gadget_scheme_load_file(o->schemes.v[i], &s[i], &err) < 0) {
			print_error(&err);
			s[i] = NULL;
			status = 2;
		}
	}
	return status;
}

static void report_clash(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

/* Two LUNs (of any gadgets) on one file: refused unless both are
 * read-only, as two writers would corrupt it. Return 0 or 2. */
static int check_shared_files(const struct options *o, struct gadget_scheme **s)
{
	int status = 0;

	for (unsigned i = 0; i < o->schemes.n; i++) {
		int rc = s[i] ? gadgetd_file_conflicts(s[i], s, i, report_clash, NULL) : 0;

		if (rc == -USB_ENOMEM)
			fprintf(stderr, "%s: out of memory\n", prog);
		if (rc != 0)
			status = 2;
	}
	return status;
}

/* What a host reads: the device and every configuration descriptor;
 * *@n_configs of them, the first's bmAttributes in *@attributes. */
static int read_back(struct usb_inproc_host *h, const char *name, unsigned *n_configs,
		     unsigned *attributes)
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
		if (rc >= 0 && i == 0)
			*attributes = cfg[7];	/* bmAttributes */
	}
	*n_configs = rc >= 0 ? dev.bNumConfigurations : 0;
	if (rc < 0)
		fprintf(stderr, "%s: the host cannot read its descriptors: %s\n", name,
			usb_strerror(rc));
	return rc < 0 ? rc : 0;
}

/* Bind @s to a fresh in-process host, read it back (against @serve's
 * limits too), optionally export. */
static int check_one(struct gadget_scheme *s, unsigned index, bool export,
		     const struct gadgetd_backend *serve)
{
	unsigned n_configs = 0, attributes = 0;
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
		rc = read_back(h, gadget_scheme_name(s), &n_configs, &attributes);
	if (rc == 0 && serve->check_device &&
	    serve->check_device(gadget_scheme_name(s), n_configs, attributes))
		rc = -USB_EOPNOTSUPP;
	if (rc == 0 && export) {
		serve->export_heading(index, gadget_scheme_name(s));
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

/* SIGHUP: the schemes given, read again. */
static void reload(const struct options *o)
{
	struct path_list now = { 0 };

	printf("%s: SIGHUP: reloading\n", prog);
	fflush(stdout);
	if (expand_args(o, &now)) {
		fprintf(stderr, "%s: reload abandoned, every gadget kept\n", prog);
		return;
	}
	gadgetd_gadgets_reload(gadgets, (const char *const *)now.v, now.n);
	free_paths(&now);
}

/* The signals' thread: SIGHUP reloads, SIGINT or SIGTERM stop the backend
 * (and this thread). The signals are blocked in every other thread. */
static void *signal_thread(void *arg)
{
	const struct options *o = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig != SIGHUP)
			break;
		reload(o);
	}
	o->serve->stop();
	return NULL;
}

/* Bind every loaded scheme (owned from here: s[i] is cleared) and open
 * the control socket. Return 0, or the exit status. */
static int set_up(const struct options *o, const struct gadgetd_udcs *udcs,
		  struct gadget_scheme **s, struct gadgetd_control **control)
{
	char msg[GADGETD_CONTROL_MSG_MAX];
	int rc = gadgetd_gadgets_create(udcs, o->run_dir, &gadgets);

	if (rc < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (unsigned i = 0; i < o->schemes.n; i++) {
		rc = gadgetd_gadgets_adopt(gadgets, s[i], o->schemes.v[i], true, msg, sizeof(msg));
		s[i] = NULL;
		if (rc < 0) {
			fprintf(stderr, "%s\n", msg);
			return 2;
		}
	}
	if (!o->control)
		return 0;
	rc = gadgetd_control_start(o->control, &gadgetd_gadgets_control_ops, gadgets, control);
	if (rc < 0) {
		fprintf(stderr, "%s: --control %s: %s\n", prog, o->control,
			rc == -USB_EADDRINUSE ? "in use (a daemon answers there, or it is no socket)"
					      : usb_strerror(rc));
		return 2;
	}
	return 0;
}

static int serve(const struct options *o, struct gadget_scheme **s)
{
	struct gadgetd_control *control = NULL;
	struct gadgetd_udcs udcs;
	pthread_t signals;
	sigset_t set;
	int status;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* every thread from here on */
	status = o->serve->open(&o->backend, &gadgets, &udcs);
	if (status != 0)
		return status;
	status = set_up(o, &udcs, s, &control);
	if (status == 0 && pthread_create(&signals, NULL, signal_thread, (void *)o) != 0) {
		fprintf(stderr, "%s: cannot start a thread\n", prog);
		status = 1;
	}
	if (status == 0) {
		o->serve->announce(o->schemes.n);
		fflush(stdout);
		status = o->serve->run();
		pthread_kill(signals, SIGTERM);	/* ends it if the backend failed */
		pthread_join(signals, NULL);
	}
	gadgetd_control_stop(control);
	gadgetd_gadgets_destroy(gadgets);
	gadgets = NULL;
	o->serve->close();
	if (status == 0)
		printf("%s: stopped\n", prog);
	return status;
}

int main(int argc, char **argv)
{
	struct options o = { .backend = { .address = "127.0.0.1", .port = USBIP_PORT_DEFAULT },
			     .serve = &gadgetd_backend_usbip };
	struct gadget_scheme **s = NULL;
	int status = parse_args(&o, argc, argv);

	o.backend.n_schemes = o.schemes.n;
	if (status == 0)
		status = o.serve->check(&o.backend);
	if (status == 0) {
		s = calloc(o.schemes.n, sizeof(*s));
		status = s ? load_all(&o, s) : 1;
	}
	if (s && check_shared_files(&o, s))
		status = 2;
	if (s && (o.check || o.export)) {
		for (unsigned i = 0; i < o.schemes.n; i++)
			if (s[i] && check_one(s[i], i, o.export, o.serve) < 0)
				status = 2;
	} else if (status == 0) {
		status = serve(&o, s);
	}
	for (unsigned i = 0; s && i < o.schemes.n; i++)
		gadget_scheme_free(s[i]);
	free(s);
	free_paths(&o.schemes);
	free(o.run_dir_owned);
	free(o.args);
	fflush(stdout);
	return status;
}
