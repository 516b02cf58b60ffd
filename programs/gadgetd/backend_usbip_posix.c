/*
 * backend_usbip_posix.c - composite-gadgetd's default backend
 * (backend.h): one USB/IP server (composite/usbip.h) whose devices are
 * the table's slots, busid 1-1, 1-2 ... A host attaches with `usbip
 * attach`; detach and capture are the server's. Owns the server.
 * POSIX: stdio.
 */
#include <stdio.h>

#include "backend.h"
#include "composite/errors.h"
#include "composite/usbip.h"

static const char prog[] = "composite-gadgetd";

/* Busids exported without --max-gadgets when the schemes are fewer: room
 * for a few gadgets added at run time, not the server's whole limit (each
 * busid is a UDC, and with --capture a file). */
#define GADGETD_DEFAULT_GADGETS 16u

static struct usbip_server *server;
static struct gadgetd_gadgets *const *table;
static const char *address;

static unsigned capacity(const struct gadgetd_backend_options *o)
{
	if (o->max_gadgets)
		return o->max_gadgets;
	return o->n_schemes > GADGETD_DEFAULT_GADGETS ? o->n_schemes : GADGETD_DEFAULT_GADGETS;
}

static int check(const struct gadgetd_backend_options *o)
{
	if (o->n_schemes <= capacity(o))
		return 0;
	fprintf(stderr, "%s: %u schemes, more than --max-gadgets %u\n", prog, o->n_schemes,
		capacity(o));
	return 2;
}

/* Server threads. */
static void on_event(void *ctx, const struct usbip_event *ev)
{
	(void)ctx;
	gadgetd_gadgets_event(*table, ev);
	printf("%s: %s%s%s\n", prog, ev->busid[0] ? ev->busid : "", ev->busid[0] ? ": " : "",
	       ev->message);
	fflush(stdout);
}

static const char *name(void *ctx, unsigned i)
{
	(void)ctx;
	return usbip_server_busid(server, i);
}

static int detach(void *ctx, unsigned i)
{
	(void)ctx;
	return usbip_server_detach(server, i);
}

static int capture(void *ctx, unsigned i, const char *path)
{
	(void)ctx;
	return usbip_server_set_capture(server, i, path);
}

static int open_server(const struct gadgetd_backend_options *o,
		       struct gadgetd_gadgets *const *gadgets, struct gadgetd_udcs *udcs)
{
	struct usbip_server_config cfg;
	int rc;

	table = gadgets;
	address = o->address;
	usbip_server_config_init(&cfg);
	cfg.address = o->address;
	cfg.port = o->port;
	cfg.num_devices = capacity(o);
	cfg.capture_dir = o->capture;
	cfg.event = on_event;
	rc = usbip_server_create(&cfg, &server);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot serve on %s:%u%s%s: %s\n", prog, o->address, o->port,
			o->capture ? " with --capture " : "", o->capture ? o->capture : "",
			usb_strerror(rc));
		return 1;
	}
	*udcs = (struct gadgetd_udcs){ .n = usbip_server_num_devices(server), .kind = "busid",
				       .full = "all served; see --max-gadgets", .name = name,
				       .detach = detach, .capture = capture };
	return 0;
}

static void announce(unsigned n)
{
	unsigned port = usbip_server_port(server);

	printf("%s: listening on %s:%u\n", prog, address, port);
	for (unsigned i = 0; i < n; i++) {
		if (port == USBIP_PORT_DEFAULT)
			printf("%s: on the host: usbip attach -r %s -b %s\n", prog, address,
			       usbip_server_busid(server, i));
		else
			printf("%s: on the host: usbip --tcp-port %u attach -r %s -b %s\n", prog,
			       port, address, usbip_server_busid(server, i));
	}
}

static int run(void)
{
	int rc = usbip_server_run(server);

	if (rc < 0) {
		fprintf(stderr, "%s: server: %s\n", prog, usb_strerror(rc));
		return 1;
	}
	return 0;
}

static void stop(void)
{
	usbip_server_stop(server);
}

static void close_server(void)
{
	usbip_server_destroy(server);
	server = NULL;
}

static void export_heading(unsigned index, const char *name)
{
	printf("# busid 1-%u: %s\n", index + 1, name);
}

const struct gadgetd_backend gadgetd_backend_usbip = {
	.check = check,
	.open = open_server,
	.export_heading = export_heading,
	.announce = announce,
	.run = run,
	.stop = stop,
	.close = close_server,
};
