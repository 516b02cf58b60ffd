/*
 * usbip.h - the USB/IP server backend: serves gadgets to a USB/IP host
 * (Linux vhci-hcd with `usbip attach`, usbip-win2) over TCP.
 *
 * A server owns one or more UDCs named "1-1", "1-2", ... (the USB/IP
 * busids), registered with usb_udc_register() when the server is created.
 * A composite driver binds to one with udc_name = "1-1". The host lists
 * them with OP_REQ_DEVLIST (`usbip list -r ADDRESS`), imports one with
 * OP_REQ_IMPORT (`usbip attach -r ADDRESS -b 1-1`), and the connection then
 * carries the device's URBs until it closes (`usbip detach`), which
 * unplugs the device and makes it importable again.
 *
 * Threads: the server runs its accept loop in the thread that calls
 * usbip_server_run() (or in a thread of its own after usbip_server_start())
 * and serves each connection in a thread of its own; an imported
 * connection's thread is the event context of that gadget (udc.h).
 * Event callbacks run in those threads and must not block for long.
 * A device's capture (usbip_server_set_capture()) writes its file from a
 * thread of its own; the @log callback may also be called from there.
 *
 * Typical program:
 *	struct usbip_server_config cfg;
 *	usbip_server_config_init(&cfg);
 *	usbip_server_create(&cfg, &srv);      // registers UDC "1-1"
 *	usb_composite_probe(&driver);         // driver.udc_name = "1-1"
 *	usbip_server_run(srv);                // until usbip_server_stop()
 *	usb_composite_unregister(&driver);
 *	usbip_server_destroy(srv);
 */
#ifndef COMPOSITE_USBIP_H
#define COMPOSITE_USBIP_H

#include <stddef.h>
#include <stdint.h>

#include "composite/gadget.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The IANA port of USB/IP, the default of usbip_server_config.port. */
#define USBIP_PORT_DEFAULT 3240u

/*
 * Most devices (busids 1-1 .. 1-256) one server exports. A server
 * allocates only the devices it is configured with. A USB address is
 * 1..127, so the devices are listed 127 to a bus: device i (busid
 * "@busnum-(i + 1)") has busnum @busnum + i / 127 and devnum i % 127 + 1
 * in OP_REP_DEVLIST / OP_REP_IMPORT (and in the URBs' devid). The limit
 * itself is one thread per imported device (docs/performance.md, "Scale").
 */
#define USBIP_MAX_DEVICES 256

struct usbip_server;

/* What happened, for status lines ("host connected", "configured"...). */
enum usbip_event_type {
	/* A host imported the device (OP_REQ_IMPORT answered OK). */
	USBIP_EVENT_HOST_CONNECTED,
	/* The host selected configuration @config (SET_CONFIGURATION n > 0). */
	USBIP_EVENT_CONFIGURED,
	/* The device went back to unconfigured while attached. */
	USBIP_EVENT_UNCONFIGURED,
	/* The import connection ended (detach, EOF, reset, server stop). */
	USBIP_EVENT_HOST_DISCONNECTED,
	/* A connection was closed for breaking the protocol (@message says
	 * why); the server goes on serving the others. */
	USBIP_EVENT_PROTOCOL_ERROR
};

/**
 * struct usbip_event - one event, borrowed for the callback's duration.
 * @type: what happened.
 * @device: index of the device (0 for busid "1-1"), or -1 when the event
 *	concerns a connection that imported nothing.
 * @busid: the device's busid, or "" with @device -1.
 * @peer: the host, "ADDRESS:PORT".
 * @config: the bConfigurationValue for USBIP_EVENT_CONFIGURED, else 0.
 * @message: a human-readable description, never NULL.
 */
struct usbip_event {
	enum usbip_event_type type;
	int device;
	const char *busid;
	const char *peer;
	unsigned config;
	const char *message;
};

/**
 * struct usbip_server_config - how to serve; fill with
 * usbip_server_config_init() and change what you need.
 * @address: IPv4 or IPv6 literal or host name to listen on. Borrowed
 *	until usbip_server_create() returns. Default "127.0.0.1": USB/IP
 *	has no authentication, so any other address (0.0.0.0 included) logs
 *	a warning that the devices are reachable from the network.
 * @port: TCP port; default 3240; 0 lets the system choose (read it back
 *	with usbip_server_port()).
 * @num_devices: devices (UDCs) to export, 1..USBIP_MAX_DEVICES. Default 1.
 * @busnum: the bus number of the busids ("@busnum-1"...), 1..255, and of
 *	the first 127 devices; devices past 127 take the next bus numbers
 *	(see USBIP_MAX_DEVICES), which must stay within 255. Default 1.
 * @speed: the fastest speed reported to hosts: USB_SPEED_FULL,
 *	USB_SPEED_HIGH (default) or USB_SPEED_SUPER (vhci_hcd attaches the
 *	device to its USB 3 root hub; 512-byte ep0, SuperSpeed descriptors
 *	and BOS). A bound driver with a lower max_speed caps it.
 * @op_timeout_ms: how long a connection may take, from its accept, to
 *	send its whole op request (OP_REQ_DEVLIST, or OP_REQ_IMPORT and its
 *	busid) and take the reply; bytes arriving do not extend it. Past it
 *	the connection is closed. Default 10000 (10 s); at least 1.
 * @max_op_connections: connections in the op phase at once (imported
 *	devices' connections are not counted: at most @num_devices).
 *	Default 32. When all are taken, a new connection closes the oldest
 *	one still reading its request, of the address holding the most.
 * @max_op_connections_per_peer: op-phase connections at once from one
 *	address; a new one past it closes that address's oldest one still
 *	reading its request. Default 8; 1..@max_op_connections.
 * @max_urb_bytes: largest transfer_buffer_length one URB may claim; a
 *	larger claim closes the connection. Default 4 MiB.
 * @max_pending_bytes: most URB buffer memory one connection may hold at
 *	once (URBs submitted and not yet answered). Default 64 MiB.
 * @max_pending_urbs: most URBs one connection may hold at once, whatever
 *	their length (zero-length ones count too); one more closes the
 *	connection. Default 4096, far more than Linux's drivers keep queued.
 * @capture_dir: optional directory: when set, every device captures its
 *	URBs from the start to "@capture_dir/usbip-BUSID.pcap" (created or
 *	truncated; see usbip_server_set_capture()). Borrowed until
 *	usbip_server_create() returns. Default NULL (no capture).
 * @capture_max_data: data bytes a capture keeps of each URB (the rest is
 *	counted in the record's length, not written, as usbmon does past its
 *	buffer); 0 (default) keeps them all. A few KiB keep every class
 *	protocol's headers (CBW, CSW, SCSI replies, CDC and HID reports)
 *	and spare the disk the bulk payloads.
 * @event: optional status callback (see struct usbip_event).
 * @log: optional log sink, one line without newline per call, from any
 *	of the server's threads (accept loop, connections, captures'
 *	writers), at times from two at once; NULL logs to stderr prefixed
 *	"usbip: ".
 * @ctx: passed to @event and @log.
 */
struct usbip_server_config {
	const char *address;
	unsigned port;
	unsigned num_devices;
	unsigned busnum;
	enum usb_device_speed speed;
	unsigned op_timeout_ms;
	unsigned max_op_connections;
	unsigned max_op_connections_per_peer;
	size_t max_urb_bytes;
	size_t max_pending_bytes;
	size_t max_pending_urbs;
	const char *capture_dir;
	size_t capture_max_data;
	void (*event)(void *ctx, const struct usbip_event *event);
	void (*log)(void *ctx, const char *line);
	void *ctx;
};

/* Fill @cfg with the defaults documented on struct usbip_server_config. */
void usbip_server_config_init(struct usbip_server_config *cfg);

/**
 * usbip_server_create() - open the listening socket and register the
 * devices' UDCs. Nothing is served until usbip_server_run() or
 * usbip_server_start().
 * @out: receives the server (owned by the caller: usbip_server_destroy()).
 * Context: any thread.
 * Return: 0; -USB_EINVAL for a bad configuration; -USB_EADDRNOTAVAIL when
 * @address does not resolve or is not an address of this machine (the
 * resolver's own message and the name go to @log), -USB_EAGAIN when the
 * resolver failed for now; -USB_EADDRINUSE when the port is taken;
 * -USB_EEXIST when a UDC of the same name is already registered;
 * -USB_ENOMEM; -USB_EIO for other socket errors; with @capture_dir, the
 * errors of usbip_server_set_capture() (the file is named in @log). On
 * error nothing stays registered or open.
 */
int usbip_server_create(const struct usbip_server_config *cfg,
			struct usbip_server **out);

/* The TCP port the server listens on (useful with port 0). */
unsigned usbip_server_port(const struct usbip_server *server);

/* The number of devices, as configured. */
unsigned usbip_server_num_devices(const struct usbip_server *server);

/* The UDC of device @index (borrowed; NULL when out of range). */
struct usb_gadget *usbip_server_gadget(struct usbip_server *server, unsigned index);

/* The busid of device @index ("1-1"...; NULL when out of range). */
const char *usbip_server_busid(const struct usbip_server *server, unsigned index);

/**
 * usbip_server_set_capture() - start, switch or stop the capture of device
 * @index's URBs to a pcap file in Linux usbmon format
 * (LINKTYPE_USB_LINUX_MMAPPED): Wireshark and tshark read it as a capture
 * of usbmon on the host, each URB an 'S' record when the host submits it
 * (setup packet, OUT data) and a 'C' record when it is answered (status,
 * IN data), unlinked URBs with status -ECONNRESET. Start it before the
 * host attaches for the dissectors to see the descriptors (Wireshark
 * learns the interface classes from them); one file covers every host
 * that attaches until the capture stops.
 * @path: the file, created (mode 0644 before the umask) or truncated, or
 *	a directory, where the file is "@path/usbip-BUSID.pcap" (the
 *	server's log names the file); borrowed. NULL stops the capture of
 *	@index (no capture: no effect).
 * A running capture's file is closed when it is switched or stopped, and
 * at usbip_server_destroy(). Records are copied into a ring in memory
 * and written by the capture's own thread: they reach the file within a
 * second, when a host disconnects and when the file is closed. A write
 * that fails later (disk full, I/O error) is reported through the
 * server's @log and stops that capture; the device goes on serving.
 * Context: any thread, also while the device is attached (a host's URBs
 * from then on are captured).
 * Return: 0; -USB_EINVAL when @index is out of range; the error of
 * creating the file: -USB_ENOENT, -USB_EACCES, -USB_EROFS, -USB_ENOSPC,
 * -USB_ENAMETOOLONG, -USB_ENOMEM, -USB_EIO.
 * On error the capture is as it was.
 */
int usbip_server_set_capture(struct usbip_server *server, unsigned index, const char *path);

/**
 * usbip_server_detach() - close the import connection of device @index,
 * as `usbip detach` on the host would: the host sees an unplug, the
 * driver a disconnect, and the device stays exported, importable again
 * (the event callback reports USBIP_EVENT_HOST_DISCONNECTED once the
 * connection has ended). Returns before the connection has ended.
 * Context: any thread but a server thread or callback (it takes the
 * device's lock).
 * Return: 0; -USB_EINVAL when @index is out of range; -USB_ENOTCONN when
 * no host has the device imported (or its connection is already ending).
 */
int usbip_server_detach(struct usbip_server *server, unsigned index);

/**
 * usbip_server_run() - serve in the calling thread until
 * usbip_server_stop(). Every connection is closed (attached hosts see an
 * unplug) before it returns.
 * Return: 0 after a stop; -USB_EBUSY if already serving; -USB_EIO on a
 * failure of the listening socket.
 */
int usbip_server_run(struct usbip_server *server);

/**
 * usbip_server_start() - serve in a background thread (as
 * usbip_server_run()). Stop it with usbip_server_stop() and
 * usbip_server_destroy(). Return: 0, -USB_EBUSY or -USB_ENOMEM.
 */
int usbip_server_start(struct usbip_server *server);

/**
 * usbip_server_stop() - ask the server to stop serving. Only writes to a
 * pipe: safe from a signal handler and from any thread; returns at once.
 * Extra calls are harmless.
 */
void usbip_server_stop(struct usbip_server *server);

/**
 * usbip_server_destroy() - stop serving, wait for the background thread
 * (if started), close every socket, unregister the UDCs (unbinding any
 * composite driver still bound, as usb_udc_unregister() does) and free the
 * server. NULL is ignored. Context: not a server thread, not a callback.
 */
void usbip_server_destroy(struct usbip_server *server);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_USBIP_H */
