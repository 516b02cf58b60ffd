/*
 * test_usbip_server.c - integration tests of the USB/IP server backend over
 * real sockets on 127.0.0.1 (label "integration"): a server with three
 * devices (1-1 and 1-2 bound to the test gadget, 1-3 unbound), driven by
 * the userspace client in usbip_client.c as vhci-hcd would drive it, and
 * by Debian's `usbip` tool where installed; usbip_server_detach() unplugs
 * a host as `usbip detach` would. Every device is captured
 * meanwhile (capture_dir): the teardown has tshark read each file whole,
 * ISO, interrupt, unlinks and hostile streams included.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "usbip_client.h"
#include "usbip_test_gadget.h"

/* ---- fixture: one server for the whole run ------------------------------ */

#define MAX_EVENTS 256
/* The server's max_pending_urbs (within the client's UC_MAX_OUTSTANDING). */
#define TEST_MAX_PENDING_URBS 128

static struct usbip_server *srv;
static unsigned port;
static struct tg gadgets[2];
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static struct { enum usbip_event_type type; int device; unsigned config; } events[MAX_EVENTS];
static unsigned nevents;

static void on_event(void *ctx, const struct usbip_event *ev)
{
	(void)ctx;
	pthread_mutex_lock(&ev_lock);
	if (nevents < MAX_EVENTS) {
		events[nevents].type = ev->type;
		events[nevents].device = ev->device;
		events[nevents].config = ev->config;
		nevents++;
	}
	pthread_cond_broadcast(&ev_cond);
	pthread_mutex_unlock(&ev_lock);
}

static void on_log(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "[server] %s\n", line);
}

static unsigned event_mark(void)
{
	unsigned n;

	pthread_mutex_lock(&ev_lock);
	n = nevents;
	pthread_mutex_unlock(&ev_lock);
	return n;
}

/* Wait (bounded: a missing event fails, it never hangs) for an event of
 * @type on @device after mark @from. */
static bool wait_event(unsigned from, enum usbip_event_type type, int device)
{
	struct timespec until;
	bool found = false;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&ev_lock);
	while (!found) {
		for (unsigned i = from; i < nevents && !found; i++)
			found = events[i].type == type && events[i].device == device;
		if (found || pthread_cond_timedwait(&ev_cond, &ev_lock, &until) == ETIMEDOUT)
			break;
	}
	for (unsigned i = from; i < nevents && !found; i++)
		found = events[i].type == type && events[i].device == device;
	pthread_mutex_unlock(&ev_lock);
	return found;
}

static char cap_dir[64];

/* tshark reads @file to its end without complaint (exit 0, nothing on
 * stderr but its root warning); *@frames: its records, *@iso: the ISO
 * ones. Return 0, or -1. */
static int tshark_reads(const char *file, long *frames, long *iso)
{
	char cmd[512], line[256];
	FILE *p;
	int rc = 0;

	*frames = *iso = 0;
	snprintf(cmd, sizeof(cmd), "tshark -r '%s' -T fields -e usb.transfer_type 2>'%s.err'",
		 file, file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		(*frames)++;
		*iso += strtol(line, NULL, 0) == 0 && line[0] == '0';
	}
	if (pclose(p) != 0)
		rc = -1;
	snprintf(cmd, sizeof(cmd), "grep -v 'Running as user' '%s.err' | grep -q .", file);
	if (system(cmd) == 0) {
		snprintf(cmd, sizeof(cmd), "cat '%s.err' >&2", file);
		(void)!system(cmd);
		rc = -1;
	}
	snprintf(cmd, sizeof(cmd), "%s.err", file);
	unlink(cmd);
	return rc;
}

/* The captures of the whole run: complete, and holding the ISO URBs of
 * test_usbip_server_iso_in_and_out (device 1-1). */
static int check_captures(void)
{
	char file[128];
	long frames, iso;
	int rc = 0;

	for (int i = 1; i <= 3; i++) {
		snprintf(file, sizeof(file), "%s/usbip-1-%d.pcap", cap_dir, i);
		if (system("tshark -v >/dev/null 2>&1") == 0) {
			if (tshark_reads(file, &frames, &iso) != 0) {
				fprintf(stderr, "capture %s: tshark failed\n", file);
				rc = -1;
			}
			fprintf(stderr, "capture %s: %ld records, %ld ISO\n", file, frames, iso);
			if ((i == 1 && (frames < 100 || iso < 4)) || (i == 3 && frames != 0))
				rc = -1;
		}
		unlink(file);
	}
	rmdir(cap_dir);
	return rc;
}

static int group_setup(void **state)
{
	struct usbip_server_config cfg;

	(void)state;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.num_devices = 3;
	cfg.max_urb_bytes = 1u << 20;
	cfg.max_pending_urbs = TEST_MAX_PENDING_URBS;
	cfg.event = on_event;
	cfg.log = on_log;
	snprintf(cap_dir, sizeof(cap_dir), "%s", "/tmp/usbip-server-capture-XXXXXX");
	if (!mkdtemp(cap_dir))
		return -1;
	cfg.capture_dir = cap_dir;
	if (usbip_server_create(&cfg, &srv) != 0)
		return -1;
	port = usbip_server_port(srv);
	if (tg_probe(&gadgets[0], "1-1", 0x0104) != 0 || tg_probe(&gadgets[1], "1-2", 0x0105) != 0)
		return -1;
	return usbip_server_start(srv);
}

static int group_teardown(void **state)
{
	(void)state;
	usbip_server_stop(srv);
	tg_remove(&gadgets[0]);
	tg_remove(&gadgets[1]);
	usbip_server_destroy(srv);
	if (check_captures() != 0)
		return -1;
	return 0;
}

/* Import @busid, check the record, set configuration 1. */
static void attach_configured(struct uc *c, const char *busid, int device)
{
	struct usbip_device_info info;
	unsigned mark = event_mark();

	assert_int_equal(uc_import(c, port, busid, &info), 0);
	assert_true(wait_event(mark, USBIP_EVENT_HOST_CONNECTED, device));
	assert_int_equal(uc_control(c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL), 0);
	assert_true(wait_event(mark, USBIP_EVENT_CONFIGURED, device));
}

/* attach_configured() to 1-1, and the numbers of its loopback endpoints. */
static void attach_loopback(struct uc *c, unsigned *lo, unsigned *li)
{
	attach_configured(c, "1-1", 0);
	*lo = tg_addr(gadgets[0].loop_out) & 0x0f;
	*li = tg_addr(gadgets[0].loop_in) & 0x0f;
}

/* Detach and wait until the server has let the device go. */
static void detach(struct uc *c, int device)
{
	unsigned mark = event_mark();

	uc_close(c);
	assert_true(wait_event(mark, USBIP_EVENT_HOST_DISCONNECTED, device));
}

/* ---- op phase ------------------------------------------------------------ */

static void test_usbip_server_devlist_lists_bound_devices(void **state)
{
	struct uc_devrec devs[4];
	int n;

	(void)state;
	n = uc_devlist(port, devs, 4);
	assert_int_equal(n, 2);	/* 1-3 has no driver: not offered */
	assert_string_equal(devs[0].info.busid, "1-1");
	assert_string_equal(devs[1].info.busid, "1-2");
	assert_int_equal(devs[0].info.idVendor, 0x1d6b);
	assert_int_equal(devs[0].info.idProduct, 0x0104);
	assert_int_equal(devs[1].info.idProduct, 0x0105);
	assert_int_equal(devs[0].info.bcdDevice, 0x0123);
	assert_int_equal(devs[0].info.speed, 3);
	assert_int_equal(devs[0].info.busnum, 1);
	assert_int_equal(devs[0].info.devnum, 1);
	assert_int_equal(devs[1].info.devnum, 2);
	assert_int_equal(devs[0].info.bNumConfigurations, 1);
	assert_int_equal(devs[0].info.bConfigurationValue, 1);
	assert_int_equal(devs[0].info.bNumInterfaces, 1);
	assert_int_equal(devs[0].intf[0].bInterfaceClass, 0xff);
	assert_int_equal(devs[0].intf[0].bInterfaceSubClass, 0x42);
	assert_int_equal(devs[0].intf[0].bInterfaceProtocol, 0x07);
}

static void test_usbip_server_import_refusals(void **state)
{
	struct usbip_device_info info;
	struct uc a, b;

	(void)state;
	assert_int_equal(uc_import(&b, port, "9-9", &info), USBIP_ST_NODEV);
	assert_int_equal(uc_import(&b, port, "1-3", &info), USBIP_ST_NODEV);	/* unbound */
	assert_int_equal(uc_import(&a, port, "1-1", &info), 0);
	assert_int_equal(info.idProduct, 0x0104);
	assert_int_equal(info.bNumInterfaces, 1);
	assert_int_equal(uc_import(&b, port, "1-1", &info), USBIP_ST_DEV_BUSY);
	detach(&a, 0);
	/* Importable again after the unplug. */
	assert_int_equal(uc_import(&a, port, "1-1", &info), 0);
	detach(&a, 0);
}

/* ---- enumeration --------------------------------------------------------- */

static void test_usbip_server_enumerates(void **state)
{
	uint8_t buf[512];
	uint32_t actual;
	struct uc c;
	struct usbip_device_info info;
	unsigned mark = event_mark();

	(void)state;
	assert_int_equal(uc_import(&c, port, "1-2", &info), 0);
	/* What vhci forwards: GET_DESCRIPTOR(DEVICE, 64) answered with 18. */
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0, 64,
				    buf, &actual), 0);
	assert_int_equal(actual, 18);
	assert_int_equal(buf[0], 18);
	assert_int_equal(buf[1], USB_DT_DEVICE);
	assert_int_equal(buf[7], 64);			/* bMaxPacketSize0 */
	assert_int_equal(buf[8] | buf[9] << 8, 0x1d6b);
	assert_int_equal(buf[10] | buf[11] << 8, 0x0105);
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, 9,
				    buf, &actual), 0);
	assert_int_equal(actual, 9);
	{
		unsigned total = buf[2] | buf[3] << 8;

		assert_int_equal(total, 9 + 9 + TG_NEPS * 7);
		assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0,
					    (uint16_t)total, buf, &actual), 0);
		assert_int_equal(actual, total);
		assert_int_equal(buf[9 + 1], USB_DT_INTERFACE);
		/* High speed: bulk endpoints of 512 bytes. */
		assert_int_equal(buf[18 + 4] | buf[18 + 5] << 8, 512);
	}
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_STRING << 8, 0, 255,
				    buf, &actual), 0);
	assert_int_equal(actual, 4);
	assert_int_equal(buf[2] | buf[3] << 8, 0x0409);
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_CONFIGURATION, 0, 0, 1, buf, &actual), 0);
	assert_int_equal(buf[0], 0);
	assert_int_equal(uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL), 0);
	assert_true(wait_event(mark, USBIP_EVENT_CONFIGURED, 1));
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_CONFIGURATION, 0, 0, 1, buf, &actual), 0);
	assert_int_equal(buf[0], 1);
	/* A configuration that does not exist stalls. */
	assert_int_equal(uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 7, 0, 0, NULL, NULL), -32);
	/* So does a vendor request nobody knows. */
	assert_int_equal(uc_control(&c, 0xc1, 0x77, 0, 0, 8, buf, &actual), -32);
	detach(&c, 1);
}

static void test_usbip_server_control_data_stages(void **state)
{
	uint8_t out[300], in[300];
	uint32_t actual;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-1", 0);
	for (unsigned i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 1);
	/* Multi-packet OUT data stage, then IN (wLength > what is there). */
	assert_int_equal(uc_control(&c, 0x41, 0x5b, 0, 0, sizeof(out), out, &actual), 0);
	assert_int_equal(actual, sizeof(out));
	memset(in, 0, sizeof(in));
	assert_int_equal(uc_control(&c, 0xc1, 0x5c, 0, 0, sizeof(in), in, &actual), 0);
	assert_int_equal(actual, sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	/* A short IN request: wLength 10 gets 10. */
	assert_int_equal(uc_control(&c, 0xc1, 0x5c, 0, 0, 10, in, &actual), 0);
	assert_int_equal(actual, 10);
	detach(&c, 0);
}

/* ---- bulk ---------------------------------------------------------------- */

static void test_usbip_server_bulk_loopback(void **state)
{
	static uint8_t out[3 * TG_LOOP_LEN], in[3 * TG_LOOP_LEN];
	unsigned lo, li;
	uint32_t actual;
	struct uc c;

	(void)state;
	attach_loopback(&c, &lo, &li);
	for (unsigned i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i ^ (i >> 8));
	/* A short transfer: one request ends on the short packet. */
	assert_int_equal(uc_transfer(&c, lo, false, out, 1000, 0, &actual), 0);
	assert_int_equal(actual, 1000);
	assert_int_equal(uc_transfer(&c, li, true, in, sizeof(in), 0, &actual), 0);
	assert_int_equal(actual, 1000);
	assert_memory_equal(in, out, 1000);
	/* One OUT URB fills three requests; one IN URB takes three. */
	assert_int_equal(uc_transfer(&c, lo, false, out, sizeof(out), 0, &actual), 0);
	assert_int_equal(actual, sizeof(out));
	memset(in, 0, sizeof(in));
	/* The echoes end with full packets: the IN URB stops when full. */
	assert_int_equal(uc_transfer(&c, li, true, in, sizeof(in), 0, &actual), 0);
	assert_int_equal(actual, sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	/* One request from several URBs: 2048 + 2048 make one 4096 request,
	 * then a 100-byte URB ends the next one short. */
	assert_int_equal(uc_transfer(&c, lo, false, out, 2048, 0, &actual), 0);
	assert_int_equal(uc_transfer(&c, lo, false, out + 2048, 2048, 0, &actual), 0);
	assert_int_equal(uc_transfer(&c, lo, false, out + 4096, 100, 0, &actual), 0);
	assert_int_equal(uc_transfer(&c, li, true, in, sizeof(in), 0, &actual), 0);
	assert_int_equal(actual, 4196);
	assert_memory_equal(in, out, 4196);
	/* URB_ZERO_PACKET: 512 bytes + ZLP end a request at 512. */
	assert_int_equal(uc_transfer(&c, lo, false, out, 512, USBIP_URB_ZERO_PACKET, &actual), 0);
	assert_int_equal(actual, 512);
	assert_int_equal(uc_transfer(&c, lo, false, out + 512, 10, 0, &actual), 0);
	assert_int_equal(uc_transfer(&c, li, true, in, 512, 0, &actual), 0);
	assert_int_equal(actual, 512);
	assert_int_equal(uc_transfer(&c, li, true, in, 512, 0, &actual), 0);
	assert_int_equal(actual, 10);
	assert_memory_equal(in, out + 512, 10);
	detach(&c, 0);
}

/*
 * Submit a 1000- and a 3000-byte OUT transfer (both end short) and two IN
 * transfers for their echoes, sending the bytes of all four CMD_SUBMITs
 * in one write (@split false) or one byte per write (@split true); then
 * check that each reply carries its own bytes.
 */
static void echo_stream(struct uc *c, unsigned lo, unsigned li, const uint8_t *out, bool split)
{
	static uint8_t stream[8192], in[2][TG_LOOP_LEN], buf[TG_LOOP_LEN];
	struct uc_reply r;
	uint32_t in_seq[2];
	int sv[2], server = c->fd, outs = 0;
	ssize_t len;

	/* The client writes its PDUs into a socketpair; they are then sent
	 * to the server as one stream. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c->fd = sv[0];
	assert_int_not_equal(uc_submit(c, lo, false, NULL, out, 1000, 0), 0);
	assert_int_not_equal(uc_submit(c, lo, false, NULL, out + 1000, 3000, 0), 0);
	in_seq[0] = uc_submit(c, li, true, NULL, NULL, TG_LOOP_LEN, 0);
	in_seq[1] = uc_submit(c, li, true, NULL, NULL, TG_LOOP_LEN, 0);
	assert_true(in_seq[0] && in_seq[1]);
	c->fd = server;
	close(sv[0]);
	len = read(sv[1], stream, sizeof(stream));
	close(sv[1]);
	assert_int_equal(len, 4 * USBIP_URB_HEADER_SIZE + 4000);
	if (!split) {
		assert_int_equal(uc_write_all(server, stream, (size_t)len), 0);
	} else {
		for (ssize_t i = 0; i < len; i++) {
			assert_int_equal(uc_write_all(server, stream + i, 1), 0);
			if (i % 64 == 0)	/* let the server take pieces */
				nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
		}
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(uc_recv(c, &r, buf, sizeof(buf)), 0);
		assert_int_equal(r.h.command, USBIP_RET_SUBMIT);
		assert_int_equal(r.h.u.ret_submit.status, 0);
		if (r.h.seqnum == in_seq[0] || r.h.seqnum == in_seq[1])
			memcpy(in[r.h.seqnum == in_seq[1]], buf, r.data_len);
		else
			outs++;
		if (r.h.seqnum == in_seq[0])
			assert_int_equal(r.data_len, 1000);
		if (r.h.seqnum == in_seq[1])
			assert_int_equal(r.data_len, 3000);
	}
	assert_int_equal(outs, 2);
	assert_memory_equal(in[0], out, 1000);
	assert_memory_equal(in[1], out + 1000, 3000);
}

/* The server reads ahead: several PDUs per recv, and headers and payloads
 * cut anywhere, come out as the same URBs. */
static void test_usbip_server_pdus_batched_and_split(void **state)
{
	static uint8_t out[4000 + 2];	/* three runs, each one byte further */
	unsigned lo, li;
	struct uc c;

	(void)state;
	attach_loopback(&c, &lo, &li);
	for (unsigned i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 13u + 7u);
	echo_stream(&c, lo, li, out, false);
	echo_stream(&c, lo, li, out + 1, true);
	echo_stream(&c, lo, li, out + 2, false);
	detach(&c, 0);
}

static void test_usbip_server_source_and_sink(void **state)
{
	struct tg *g = &gadgets[1];
	static uint8_t buf[65536];
	unsigned long long sunk;
	uint32_t actual;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-2", 1);
	sunk = atomic_load(&g->sunk);
	assert_int_equal(uc_transfer(&c, tg_addr(g->sink) & 0x0f, false, buf, sizeof(buf), 0,
				     &actual), 0);
	assert_int_equal(actual, sizeof(buf));
	assert_int_equal(atomic_load(&g->sunk) - sunk, sizeof(buf));
	/* The source's requests are 16 KiB of full packets: a 64 KiB URB
	 * is filled from four of them. */
	assert_int_equal(uc_transfer(&c, tg_addr(g->source) & 0x0f, true, buf, sizeof(buf), 0,
				     &actual), 0);
	assert_int_equal(actual, sizeof(buf));
	/* One contiguous stretch of the pattern stream. */
	for (unsigned i = 1; i < sizeof(buf); i++)
		assert_int_equal(buf[i], (buf[i - 1] + 1) % 251);
	detach(&c, 1);
}

/* An IN URB on an idle endpoint stays pending (never answered early with
 * zero bytes) and blocks nothing: a control transfer submitted after it is
 * answered first; data queued later completes it. */
static void test_usbip_server_in_waits_for_data(void **state)
{
	struct tg *g = &gadgets[0];
	uint8_t buf[64];
	struct uc_reply r;
	uint32_t seq_in, seq_ctl;
	struct uc c;
	uint8_t setup[8] = { 0x41, 0x02, 13, 0, 0, 0, 0, 0 };	/* queue 13 bytes */
	uint8_t get_status[8] = { 0x80, USB_REQ_GET_STATUS, 0, 0, 0, 0, 2, 0 };

	(void)state;
	attach_configured(&c, "1-1", 0);
	seq_in = uc_submit(&c, tg_addr(g->intr) & 0x0f, true, NULL, NULL, 64, 0);
	seq_ctl = uc_submit(&c, 0, true, get_status, NULL, 2, 0);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.seqnum, seq_ctl);	/* not the idle IN */
	assert_int_equal(r.h.u.ret_submit.status, 0);
	assert_int_equal(r.h.u.ret_submit.actual_length, 2);
	seq_ctl = uc_submit(&c, 0, false, setup, NULL, 0, 0);
	/* Both complete: the control transfer, and the IN with 13 bytes. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
		assert_int_equal(r.h.u.ret_submit.status, 0);
		if (r.h.seqnum == seq_in) {
			assert_int_equal(r.data_len, 13);
			assert_int_equal(buf[12], 0xa5);
		} else {
			assert_int_equal(r.h.seqnum, seq_ctl);
		}
	}
	detach(&c, 0);
}

static uint64_t ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The interrupt endpoint keeps its interval (bInterval 4 at high speed:
 * 1 ms), as a host controller would poll it, although vhci (and this
 * client) hand the URBs over at once: 50 reports, each queued by a
 * vendor request beside its pending URB, take at least 49 ms. A lower
 * bound only: speed is for the benchmarks.
 */
static void test_usbip_server_interrupt_paced(void **state)
{
	struct tg *g = &gadgets[0];
	unsigned ep = tg_addr(g->intr) & 0x0f, n = 50, reports = 0;
	uint8_t setup[8] = { 0x41, 0x02, 8, 0, 0, 0, 0, 0 };	/* queue 8 bytes */
	uint8_t buf[64];
	struct uc_reply r;
	uint64_t t0, took;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-1", 0);
	t0 = ns_now();
	for (unsigned i = 0; i < n; i++) {
		uint32_t seq_in = uc_submit(&c, ep, true, NULL, NULL, 64, 0);
		uint32_t seq_ctl = uc_submit(&c, 0, false, setup, NULL, 0, 0);

		assert_true(seq_in != 0 && seq_ctl != 0);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
			assert_int_equal(r.h.u.ret_submit.status, 0);
			if (r.h.seqnum == seq_in) {
				assert_int_equal(r.data_len, 8);
				reports++;
			} else {
				assert_int_equal(r.h.seqnum, seq_ctl);
			}
		}
	}
	took = ns_now() - t0;
	assert_int_equal(reports, n);
	if (getenv("USBIP_DEBUG"))
		fprintf(stderr, "%u interrupt reports: %.3f ms\n", n, took / 1e6);
	if (took < (uint64_t)(n - 1) * 1000000u)
		fail_msg("%u reports in %.3f ms: faster than one a 1 ms interval", n, took / 1e6);
	detach(&c, 0);
}

/* ---- isochronous --------------------------------------------------------- */

static void test_usbip_server_iso_in_and_out(void **state)
{
	struct tg *g = &gadgets[0];
	static struct uc_reply r;
	struct usbip_iso_desc d[3];
	static uint8_t buf[3 * 1024];
	unsigned out_reqs, out_bytes;
	uint32_t seq;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-1", 0);
	/* IN: three packets of 1024 bytes of room; each gets one 256-byte
	 * request, packed on the wire, descriptors keep their offsets. */
	for (unsigned i = 0; i < 3; i++)
		d[i] = (struct usbip_iso_desc){ i * 1024, 1024, 0, 0 };
	seq = uc_submit_iso(&c, tg_addr(g->isrc) & 0x0f, true, NULL, sizeof(buf), d, 3);
	assert_true(seq != 0);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.seqnum, seq);
	assert_int_equal(r.h.u.ret_submit.status, 0);
	assert_int_equal(r.h.u.ret_submit.actual_length, 3 * TG_ISO_LEN);
	assert_int_equal(r.h.u.ret_submit.number_of_packets, 3);
	assert_int_equal(r.h.u.ret_submit.error_count, 0);
	assert_int_equal(r.npackets, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(r.iso[i].offset, i * 1024);
		assert_int_equal(r.iso[i].actual_length, TG_ISO_LEN);
		assert_int_equal(r.iso[i].status, 0);
		/* request n's byte k is n + k: packets are consecutive requests */
		assert_int_equal(buf[i * TG_ISO_LEN + 1], (uint8_t)(buf[i * TG_ISO_LEN] + 1));
	}
	assert_int_equal((uint8_t)(buf[TG_ISO_LEN] - buf[0]), 1);
	/* A packet smaller than the request: babble for that packet only. */
	d[0] = (struct usbip_iso_desc){ 0, 100, 0, 0 };
	seq = uc_submit_iso(&c, tg_addr(g->isrc) & 0x0f, true, NULL, 100, d, 1);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.u.ret_submit.actual_length, 100);
	assert_int_equal(r.iso[0].status, -75);
	assert_int_equal(r.h.u.ret_submit.error_count, 1);
	/* OUT: two packets of 100 and 200 bytes go to two requests. */
	out_reqs = atomic_load(&g->iso_out_reqs);
	out_bytes = atomic_load(&g->iso_out_bytes);
	memset(buf, 0x11, 300);
	d[0] = (struct usbip_iso_desc){ 0, 100, 0, 0 };
	d[1] = (struct usbip_iso_desc){ 100, 200, 0, 0 };
	seq = uc_submit_iso(&c, tg_addr(g->isink) & 0x0f, false, buf, 300, d, 2);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.seqnum, seq);
	assert_int_equal(r.h.u.ret_submit.status, 0);
	assert_int_equal(r.h.u.ret_submit.actual_length, 300);
	assert_int_equal(r.data_len, 0);	/* nothing follows an OUT reply but descriptors */
	assert_int_equal(r.iso[0].actual_length, 100);
	assert_int_equal(r.iso[1].actual_length, 200);
	assert_int_equal(atomic_load(&g->iso_out_reqs) - out_reqs, 2);
	assert_int_equal(atomic_load(&g->iso_out_bytes) - out_bytes, 300);
	detach(&c, 0);
}

/* ---- unlink -------------------------------------------------------------- */

static void test_usbip_server_unlink_pending_and_completed(void **state)
{
	struct tg *g = &gadgets[0];
	uint8_t buf[64] = { 0 };
	struct uc_reply r;
	uint32_t seq, useq;
	uint32_t actual;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-1", 0);
	/* Pending: RET_UNLINK -ECONNRESET, and never a RET_SUBMIT after. */
	seq = uc_submit(&c, tg_addr(g->intr) & 0x0f, true, NULL, NULL, 64, 0);
	useq = uc_unlink(&c, seq);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.command, USBIP_RET_UNLINK);
	assert_int_equal(r.h.seqnum, useq);
	assert_int_equal(r.h.u.ret_unlink.status, -104);
	/* Data queued now must not revive the unlinked URB. */
	assert_int_equal(uc_control(&c, 0x41, 0x02, 5, 0, 0, NULL, NULL), 0);
	seq = uc_submit(&c, tg_addr(g->intr) & 0x0f, true, NULL, NULL, 64, 0);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.command, USBIP_RET_SUBMIT);
	assert_int_equal(r.h.seqnum, seq);
	assert_int_equal(r.data_len, 5);
	/* Completed: its RET_SUBMIT came first, then RET_UNLINK 0. */
	assert_int_equal(uc_transfer(&c, tg_addr(g->sink) & 0x0f, false, buf, 64, 0, &actual), 0);
	seq = uc_submit(&c, tg_addr(g->sink) & 0x0f, false, NULL, buf, 16, 0);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.seqnum, seq);
	useq = uc_unlink(&c, seq);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.command, USBIP_RET_UNLINK);
	assert_int_equal(r.h.seqnum, useq);
	assert_int_equal(r.h.u.ret_unlink.status, 0);
	/*
	 * Ahead of its submit (vhci's tx thread sent the CMD_UNLINK first):
	 * no answer until the CMD_SUBMIT comes, since vhci only finds the URB
	 * after it has sent that; then RET_UNLINK -ECONNRESET and no
	 * RET_SUBMIT for it.
	 */
	{
		uint32_t target = c.next_seq + 1;
		struct pollfd p = { c.fd, POLLIN, 0 };

		c.next_seq = target;
		useq = uc_unlink(&c, target);
		assert_int_equal(poll(&p, 1, 200), 0);
		c.next_seq = target - 2;
		assert_int_equal(uc_submit(&c, tg_addr(g->sink) & 0x0f, false, NULL, buf, 16, 0),
				 target);
		assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
		assert_int_equal(r.h.command, USBIP_RET_UNLINK);
		assert_int_equal(r.h.seqnum, useq);
		assert_int_equal(r.h.u.ret_unlink.status, -104);
		/* A target whose submit never comes: answered when a newer
		 * CMD_SUBMIT shows it never will, ahead of that one's reply. */
		target = useq + 1;
		c.next_seq = target;
		useq = uc_unlink(&c, target);
		seq = uc_submit(&c, tg_addr(g->sink) & 0x0f, false, NULL, buf, 16, 0);
		assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
		assert_int_equal(r.h.command, USBIP_RET_UNLINK);
		assert_int_equal(r.h.seqnum, useq);
		assert_int_equal(r.h.u.ret_unlink.status, -104);
		assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
		assert_int_equal(r.h.command, USBIP_RET_SUBMIT);
		assert_int_equal(r.h.seqnum, seq);
	}
	/* A pending control transfer can be unlinked too. */
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_STATUS, 0, 0, 2, buf, &actual), 0);
	detach(&c, 0);
}

/* ---- halt ---------------------------------------------------------------- */

static void test_usbip_server_halt_until_clear_feature(void **state)
{
	struct tg *g = &gadgets[1];
	unsigned sink = tg_addr(g->sink);
	uint8_t buf[64] = { 0 };
	static uint8_t big[512];
	uint32_t actual;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-2", 1);
	assert_int_equal(uc_control(&c, 0x41, 0x01, (uint16_t)sink, 0, 0, NULL, NULL), 0);
	assert_int_equal(uc_transfer(&c, sink & 0x0f, false, buf, 64, 0, &actual), -32);
	assert_int_equal(uc_transfer(&c, sink & 0x0f, false, buf, 64, 0, &actual), -32);
	assert_int_equal(uc_control(&c, 0x82, USB_REQ_GET_STATUS, 0, (uint16_t)sink, 2, buf, &actual), 0);
	assert_int_equal(buf[0], 1);
	assert_int_equal(uc_control(&c, 0x02, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
				    (uint16_t)sink, 0, NULL, NULL), 0);
	assert_int_equal(uc_control(&c, 0x82, USB_REQ_GET_STATUS, 0, (uint16_t)sink, 2, buf, &actual), 0);
	assert_int_equal(buf[0], 0);
	assert_int_equal(uc_transfer(&c, sink & 0x0f, false, buf, 64, 0, &actual), 0);
	assert_int_equal(actual, 64);
	/* The host may halt it too (SET_FEATURE), with the same effect. */
	assert_int_equal(uc_control(&c, 0x02, USB_REQ_SET_FEATURE, USB_ENDPOINT_HALT,
				    (uint16_t)sink, 0, NULL, NULL), 0);
	assert_int_equal(uc_transfer(&c, sink & 0x0f, false, buf, 64, 0, &actual), -32);
	assert_int_equal(uc_control(&c, 0x02, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
				    (uint16_t)sink, 0, NULL, NULL), 0);
	assert_int_equal(uc_transfer(&c, sink & 0x0f, false, buf, 64, 0, &actual), 0);
	/* The host's SET_FEATURE(HALT) on an IN endpoint with data queued is
	 * never refused (a function's halt would be, with EAGAIN). */
	{
		unsigned source = tg_addr(g->source);

		assert_int_equal(uc_control(&c, 0x02, USB_REQ_SET_FEATURE, USB_ENDPOINT_HALT,
					    (uint16_t)source, 0, NULL, NULL), 0);
		assert_int_equal(uc_transfer(&c, source & 0x0f, true, big, 512, 0, &actual), -32);
		assert_int_equal(uc_control(&c, 0x02, USB_REQ_CLEAR_FEATURE, USB_ENDPOINT_HALT,
					    (uint16_t)source, 0, NULL, NULL), 0);
		assert_int_equal(uc_transfer(&c, source & 0x0f, true, big, 512, 0, &actual), 0);
		assert_int_equal(actual, 512);
		/* A buffer that is not a whole packet: babble, as on a bus. */
		assert_int_equal(uc_transfer(&c, source & 0x0f, true, big, 100, 0, &actual),
				 -75);
	}
	detach(&c, 1);
}

/* ---- disconnect ---------------------------------------------------------- */

static void test_usbip_server_disconnect_resets_device(void **state)
{
	struct tg *g = &gadgets[0];
	uint8_t buf[8];
	uint32_t actual;
	unsigned disables;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-1", 0);
	/* Leave an IN URB pending: the unplug must cope with it. */
	assert_true(uc_submit(&c, tg_addr(g->intr) & 0x0f, true, NULL, NULL, 64, 0) != 0);
	disables = atomic_load(&g->disables);
	detach(&c, 0);
	assert_true(atomic_load(&g->disables) > disables);
	assert_int_equal(atomic_load(&g->active), 0);
	/* Back to unconfigured for the next host. */
	struct usbip_device_info info;
	assert_int_equal(uc_import(&c, port, "1-1", &info), 0);
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_CONFIGURATION, 0, 0, 1, buf, &actual), 0);
	assert_int_equal(buf[0], 0);
	detach(&c, 0);
}

/* usbip_server_detach(): the host sees its connection end, the driver a
 * disconnect, and the device is importable again; nothing attached (or an
 * unbound device) is -USB_ENOTCONN, a bad index -USB_EINVAL. */
static void test_usbip_server_detach_unplugs_host(void **state)
{
	struct tg *g = &gadgets[1];
	struct usbip_device_info info;
	unsigned disables, mark;
	struct uc c;

	(void)state;
	assert_int_equal(usbip_server_detach(srv, 1), -USB_ENOTCONN);
	assert_int_equal(usbip_server_detach(srv, 2), -USB_ENOTCONN);	/* 1-3: unbound */
	assert_int_equal(usbip_server_detach(srv, 3), -USB_EINVAL);
	assert_int_equal(usbip_server_detach(NULL, 0), -USB_EINVAL);
	attach_configured(&c, "1-2", 1);
	disables = atomic_load(&g->disables);
	mark = event_mark();
	assert_int_equal(usbip_server_detach(srv, 1), 0);
	assert_true(wait_event(mark, USBIP_EVENT_HOST_DISCONNECTED, 1));
	assert_true(uc_peer_closed(c.fd));
	assert_true(atomic_load(&g->disables) > disables);
	assert_int_equal(usbip_server_detach(srv, 1), -USB_ENOTCONN);
	uc_close(&c);
	/* Importable again, and only the detached device was touched. */
	attach_configured(&c, "1-2", 1);
	detach(&c, 1);
	assert_int_equal(uc_import(&c, port, "1-2", &info), 0);
	detach(&c, 1);
}

/* ---- many at once -------------------------------------------------------- */

struct worker {
	const char *busid;
	int device;
	struct tg *g;
	int failures;
};

static void *loop_worker(void *arg)
{
	struct worker *w = arg;
	static _Thread_local uint8_t out[8192], in[8192];
	struct usbip_device_info info;
	uint32_t actual;
	struct uc c;

	if (uc_import(&c, port, w->busid, &info) != 0 ||
	    uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL) != 0) {
		w->failures++;
		return NULL;
	}
	for (unsigned round = 0; round < 50; round++) {
		uint32_t len = 1 + (round * 997) % 8192;

		if (len % 512 == 0)
			len++;	/* a short packet ends the echo */

		for (unsigned i = 0; i < len; i++)
			out[i] = (uint8_t)(i + round + (unsigned)w->device);
		if (uc_transfer(&c, tg_addr(w->g->loop_out) & 0xf, false, out, len, 0, &actual) != 0 ||
		    actual != len)
			w->failures++;
		/* Read back until a short packet ends the echo. */
		uint32_t got = 0;
		while (got < len) {
			uint32_t want = 8192 - got;
			if (uc_transfer(&c, tg_addr(w->g->loop_in) & 0xf, true, in + got, want, 0,
					&actual) != 0) {
				w->failures++;
				break;
			}
			got += actual;
			if (actual % 512 || actual == 0)
				break;
		}
		if (got != len || memcmp(in, out, len) != 0)
			w->failures++;
	}
	uc_close(&c);
	return NULL;
}

static void test_usbip_server_two_devices_at_once(void **state)
{
	struct worker w[2] = { { "1-1", 0, &gadgets[0], 0 }, { "1-2", 1, &gadgets[1], 0 } };
	pthread_t t[2];
	struct uc_devrec devs[4];

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, loop_worker, &w[i]), 0);
	/* Listing goes on while both are busy. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(uc_devlist(port, devs, 4), 2);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
	/* Both come free again. */
	for (int d = 0; d < 2; d++) {
		struct uc c;
		struct usbip_device_info info;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		int rc;

		for (int tries = 0; (rc = uc_import(&c, port, d ? "1-2" : "1-1", &info)) ==
				    USBIP_ST_DEV_BUSY && tries < 500; tries++)
			nanosleep(&ts, NULL);
		assert_int_equal(rc, 0);
		detach(&c, d);
	}
}

/* ---- hostile input ------------------------------------------------------- */

/* Send @bytes on a fresh connection (after importing 1-2 when @import)
 * and expect the server to close it. */
static void expect_closed(const void *bytes, size_t len, bool import)
{
	unsigned mark = event_mark();
	struct usbip_device_info info;
	struct uc c;
	int fd;

	if (import) {
		assert_int_equal(uc_import(&c, port, "1-2", &info), 0);
		fd = c.fd;
	} else {
		fd = uc_connect(port);
		assert_true(fd >= 0);
	}
	assert_int_equal(uc_write_all(fd, bytes, len), 0);
	shutdown(fd, SHUT_WR);	/* EOF after the bytes: truncation */
	assert_true(uc_peer_closed(fd));
	close(fd);
	assert_true(wait_event(mark, USBIP_EVENT_PROTOCOL_ERROR, import ? 1 : -1));
	if (import)
		assert_true(wait_event(mark, USBIP_EVENT_HOST_DISCONNECTED, 1));
}

/* As expect_closed() after import, on a configured device (ISO endpoints
 * exist only then). */
static void expect_closed_configured(const void *bytes, size_t len)
{
	unsigned mark;
	struct uc c;

	attach_configured(&c, "1-2", 1);
	mark = event_mark();
	assert_int_equal(uc_write_all(c.fd, bytes, len), 0);
	shutdown(c.fd, SHUT_WR);
	assert_true(uc_peer_closed(c.fd));
	uc_close(&c);
	assert_true(wait_event(mark, USBIP_EVENT_PROTOCOL_ERROR, 1));
	assert_true(wait_event(mark, USBIP_EVENT_HOST_DISCONNECTED, 1));
}

static void put_header(uint8_t *b, uint32_t cmd, uint32_t seq, uint32_t dir, uint32_t ep)
{
	memset(b, 0, USBIP_URB_HEADER_SIZE);
	usbip__put_be32(b, cmd);
	usbip__put_be32(b + 4, seq);
	usbip__put_be32(b + 8, 0x00010002);
	usbip__put_be32(b + 12, dir);
	usbip__put_be32(b + 16, ep);
}

static void test_usbip_server_hostile_input_closes_connection(void **state)
{
	static const uint8_t bad_version[8] = { 0x01, 0x06, 0x80, 0x05, 0, 0, 0, 0 };
	static const uint8_t bad_op[8] = { 0x01, 0x11, 0x80, 0x77, 0, 0, 0, 0 };
	static const uint8_t short_op[5] = { 0x01, 0x11, 0x80, 0x03, 0 };
	uint8_t b[USBIP_URB_HEADER_SIZE + 16] = { 0 };
	struct uc_devrec devs[4];
	struct tg *g = &gadgets[1];
	unsigned sink = tg_addr(g->sink) & 0x0f;

	(void)state;
	expect_closed(bad_version, sizeof(bad_version), false);
	expect_closed(bad_op, sizeof(bad_op), false);
	expect_closed(short_op, sizeof(short_op), false);
	/* Unknown command in the URB phase. */
	put_header(b, 7, 1, 0, 0);
	expect_closed(b, USBIP_URB_HEADER_SIZE, true);
	/* A RET_SUBMIT from the host. */
	put_header(b, USBIP_RET_SUBMIT, 1, 0, 0);
	expect_closed(b, USBIP_URB_HEADER_SIZE, true);
	/* Direction 2; endpoint 16. */
	put_header(b, USBIP_CMD_SUBMIT, 1, 2, 0);
	expect_closed(b, USBIP_URB_HEADER_SIZE, true);
	put_header(b, USBIP_CMD_SUBMIT, 1, 0, 16);
	expect_closed(b, USBIP_URB_HEADER_SIZE, true);
	/* A length over the cap: nothing is allocated for it. */
	put_header(b, USBIP_CMD_SUBMIT, 1, 0, sink);
	usbip__put_be32(b + 0x18, 0xfffffff0u);
	expect_closed(b, USBIP_URB_HEADER_SIZE, true);
	/* ISO descriptors on a bulk endpoint. */
	put_header(b, USBIP_CMD_SUBMIT, 1, 0, sink);
	usbip__put_be32(b + 0x18, 16);
	usbip__put_be32(b + 0x20, 1);
	expect_closed(b, USBIP_URB_HEADER_SIZE + 16, true);
	/* An ISO packet descriptor reaching past the buffer. */
	{
		struct tg *g0 = &gadgets[1];
		unsigned isink = tg_addr(g0->isink) & 0x0f;

		put_header(b, USBIP_CMD_SUBMIT, 1, 0, isink);
		usbip__put_be32(b + 0x18, 0);		/* no data */
		usbip__put_be32(b + 0x20, 1);		/* one packet */
		usbip__put_be32(b + USBIP_URB_HEADER_SIZE + 4, 64);	/* length 64 > 0 */
		expect_closed_configured(b, USBIP_URB_HEADER_SIZE + 16);
	}
	/* Truncated: 16 bytes promised, 8 sent, then EOF. */
	put_header(b, USBIP_CMD_SUBMIT, 1, 0, sink);
	usbip__put_be32(b + 0x18, 16);
	expect_closed(b, USBIP_URB_HEADER_SIZE + 8, true);
	/* Truncated header. */
	put_header(b, USBIP_CMD_SUBMIT, 1, 0, sink);
	expect_closed(b, 20, true);
	/* Two pending URBs with one seqnum (IN on the idle interrupt endpoint). */
	{
		unsigned intr = tg_addr(gadgets[1].intr) & 0x0f;
		uint8_t two[2 * USBIP_URB_HEADER_SIZE] = { 0 };

		put_header(two, USBIP_CMD_SUBMIT, 9, 1, intr);
		usbip__put_be32(two + 0x18, 64);
		memcpy(two + USBIP_URB_HEADER_SIZE, two, USBIP_URB_HEADER_SIZE);
		expect_closed_configured(two, sizeof(two));
	}
	/* Unlink of a URB never submitted. */
	put_header(b, USBIP_CMD_UNLINK, 5, 0, 0);
	usbip__put_be32(b + 0x14, 99);
	expect_closed(b, USBIP_URB_HEADER_SIZE, true);
	/* The server still serves. */
	assert_int_equal(uc_devlist(port, devs, 4), 2);
	{
		struct uc c;
		uint32_t actual;
		uint8_t d[18];

		attach_configured(&c, "1-2", 1);
		assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0,
					    18, d, &actual), 0);
		detach(&c, 1);
	}
}

/* An ISO CMD_SUBMIT to 1-2 with @n descriptors (offset, length) of a
 * @len-byte transfer, OUT data 0x5a, into @b; return its size. */
static size_t iso_pdu(uint8_t *b, bool in, uint32_t len, const uint32_t (*d)[2], unsigned n)
{
	struct tg *g = &gadgets[1];
	unsigned ep = tg_addr(in ? g->isrc : g->isink) & 0x0f;
	size_t off = USBIP_URB_HEADER_SIZE;

	put_header(b, USBIP_CMD_SUBMIT, 1, in ? 1 : 0, ep);
	usbip__put_be32(b + 0x14, USBIP_URB_ISO_ASAP | (in ? USBIP_URB_DIR_IN : 0));
	usbip__put_be32(b + 0x18, len);
	usbip__put_be32(b + 0x20, n);
	if (!in) {
		memset(b + off, 0x5a, len);
		off += len;
	}
	for (unsigned i = 0; i < n; i++, off += USBIP_ISO_DESC_SIZE) {
		memset(b + off, 0, USBIP_ISO_DESC_SIZE);
		usbip__put_be32(b + off, d[i][0]);
		usbip__put_be32(b + off + 4, d[i][1]);
	}
	return off;
}

/*
 * Packet layouts no host sends close the connection before anything is
 * queued: overlapping packets once made the server pack (N-1) x 1024
 * bytes past a 1024-byte IN buffer and send them, and report 4096 bytes
 * done for a 1024-byte OUT transfer.
 */
static void test_usbip_server_hostile_iso_layouts(void **state)
{
	static const uint32_t same[5][2] = { { 0, 1024 }, { 0, 1024 }, { 0, 1024 }, { 0, 1024 },
					     { 0, 1024 } };
	static const uint32_t backwards[2][2] = { { 512, 512 }, { 0, 512 } };
	static const uint32_t overlap[2][2] = { { 0, 600 }, { 500, 524 } };
	static const uint32_t gaps[3][2] = { { 0, 1024 }, { 1024, 0 }, { 2048, 1024 } };
	static uint8_t b[USBIP_URB_HEADER_SIZE + 4096 + 8 * USBIP_ISO_DESC_SIZE];
	uint8_t buf[3072];
	struct uc_reply r;
	struct uc c;

	(void)state;
	expect_closed_configured(b, iso_pdu(b, true, 1024, same, 5));
	expect_closed_configured(b, iso_pdu(b, false, 1024, same, 4));
	expect_closed_configured(b, iso_pdu(b, true, 1024, backwards, 2));
	expect_closed_configured(b, iso_pdu(b, false, 1024, overlap, 2));
	/* Gaps and an empty packet are what drivers may send: served. */
	attach_configured(&c, "1-2", 1);
	assert_int_not_equal(uc_submit_iso(&c, tg_addr(gadgets[1].isrc) & 0x0f, true, NULL,
				       sizeof(buf),
				       (const struct usbip_iso_desc[]){ { gaps[0][0], gaps[0][1], 0, 0 },
									{ gaps[1][0], gaps[1][1], 0, 0 },
									{ gaps[2][0], gaps[2][1], 0, 0 } },
				       3), 0);
	assert_int_equal(uc_recv(&c, &r, buf, sizeof(buf)), 0);
	assert_int_equal(r.h.u.ret_submit.status, 0);
	assert_int_equal(r.npackets, 3);
	assert_int_equal(r.iso[1].actual_length, 0);
	assert_int_equal(r.h.u.ret_submit.actual_length,
			 r.iso[0].actual_length + r.iso[2].actual_length);
	assert_true(r.h.u.ret_submit.actual_length <= sizeof(buf));
	detach(&c, 1);
}

/* Zero-length URBs count against max_pending_urbs as others do: one past
 * it closes the connection. */
static void test_usbip_server_urb_count_capped(void **state)
{
	unsigned intr = tg_addr(gadgets[1].intr) & 0x0f;
	uint32_t first = 0;
	unsigned mark;
	struct uc_reply r;
	struct uc c;

	(void)state;
	attach_configured(&c, "1-2", 1);
	mark = event_mark();
	/* IN on the idle interrupt endpoint: they stay pending. */
	for (unsigned i = 0; i < TEST_MAX_PENDING_URBS; i++) {
		uint32_t seq = uc_submit(&c, intr, true, NULL, NULL, 0, 0);

		assert_int_not_equal(seq, 0);
		first = first ? first : seq;
	}
	/* Still served: one unlinked (-ECONNRESET) leaves room for one. */
	assert_int_not_equal(uc_unlink(&c, first), 0);
	assert_int_equal(uc_recv(&c, &r, NULL, 0), 0);
	assert_int_equal(r.h.command, USBIP_RET_UNLINK);
	assert_int_equal(r.h.u.ret_unlink.status, -104);
	assert_int_not_equal(uc_submit(&c, intr, true, NULL, NULL, 0, 0), 0);
	assert_int_not_equal(uc_submit(&c, intr, true, NULL, NULL, 0, 0), 0);
	assert_true(uc_peer_closed(c.fd));
	uc_close(&c);
	assert_true(wait_event(mark, USBIP_EVENT_PROTOCOL_ERROR, 1));
	assert_true(wait_event(mark, USBIP_EVENT_HOST_DISCONNECTED, 1));
}

/* A CMD_SUBMIT or CMD_UNLINK naming another devid than the imported
 * device's closes the connection, as Linux's stub does. */
static void test_usbip_server_devid_checked(void **state)
{
	uint8_t b[USBIP_URB_HEADER_SIZE];
	struct tg *g = &gadgets[1];

	(void)state;
	put_header(b, USBIP_CMD_SUBMIT, 1, 1, tg_addr(g->intr) & 0x0f);
	usbip__put_be32(b + 8, 0xdeadbeefu);
	expect_closed_configured(b, sizeof(b));
	put_header(b, USBIP_CMD_SUBMIT, 1, 1, tg_addr(g->intr) & 0x0f);
	usbip__put_be32(b + 8, 0x00010001);	/* 1-1's, not the imported 1-2's */
	expect_closed_configured(b, sizeof(b));
	put_header(b, USBIP_CMD_UNLINK, 5, 0, 0);
	usbip__put_be32(b + 8, 0xdeadbeefu);
	usbip__put_be32(b + 0x14, 4);
	expect_closed_configured(b, sizeof(b));
}

/* ---- Debian's usbip tool ------------------------------------------------- */

static const char *usbip_tool(void)
{
	static const char *paths[] = { "/usr/sbin/usbip", "/usr/bin/usbip", "/sbin/usbip" };

	for (unsigned i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

static void run_tool(const char *args, char *out, size_t size)
{
	char cmd[256];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "timeout 20 %s --tcp-port %u %s 2>&1", usbip_tool(), port, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < size && fgets(out + n, (int)(size - n), p))
		n += strlen(out + n);
	out[n] = 0;
	pclose(p);
	fprintf(stderr, "$ usbip --tcp-port %u %s\n%s", port, args, out);
}

static void test_usbip_server_debian_usbip_list(void **state)
{
	char out[4096];

	(void)state;
	if (!usbip_tool()) {
		fprintf(stderr, "SKIP: no usbip binary (Debian package usbip)\n");
		skip();
	}
	run_tool("list -r 127.0.0.1", out, sizeof(out));
	assert_non_null(strstr(out, "1-1:"));
	assert_non_null(strstr(out, "1-2:"));
	assert_non_null(strstr(out, "(1d6b:0104)"));
	assert_non_null(strstr(out, "(1d6b:0105)"));
	assert_non_null(strstr(out, "(ff/42/07)"));
	assert_null(strstr(out, "1-3:"));
}

static void test_usbip_server_debian_usbip_attach_unknown_busid(void **state)
{
	char out[4096];

	(void)state;
	if (!usbip_tool()) {
		fprintf(stderr, "SKIP: no usbip binary (Debian package usbip)\n");
		skip();
	}
	/* The tool asks before it needs vhci_hcd: the refusal gets through. */
	run_tool("attach -r 127.0.0.1 -b 9-9", out, sizeof(out));
	assert_non_null(strstr(out, "Attach Request for 9-9 failed - Device not found"));
	/* A device another host holds: DEV_BUSY. */
	{
		struct usbip_device_info info;
		struct uc c;

		assert_int_equal(uc_import(&c, port, "1-1", &info), 0);
		run_tool("attach -r 127.0.0.1 -b 1-1", out, sizeof(out));
		assert_non_null(strstr(out, "Attach Request for 1-1 failed - Device busy"));
		detach(&c, 0);
	}
}

/* ---- stop ---------------------------------------------------------------- */

static void test_usbip_server_stop_unplugs_hosts(void **state)
{
	struct usbip_server_config cfg;
	struct usbip_server *s;
	struct usbip_device_info info;
	struct tg g;
	struct uc c;
	unsigned p;

	(void)state;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.busnum = 2;
	cfg.log = on_log;
	assert_int_equal(usbip_server_create(&cfg, &s), 0);
	assert_string_equal(usbip_server_busid(s, 0), "2-1");
	assert_null(usbip_server_busid(s, 1));
	p = usbip_server_port(s);
	assert_int_equal(tg_probe(&g, "2-1", 0x0200), 0);
	assert_int_equal(usbip_server_start(s), 0);
	assert_int_equal(usbip_server_start(s), -USB_EBUSY);
	{
		unsigned saved = port;

		port = p;
		assert_int_equal(uc_import(&c, port, "2-1", &info), 0);
		assert_int_equal(uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL), 0);
		port = saved;
	}
	usbip_server_stop(s);
	assert_true(uc_peer_closed(c.fd));
	uc_close(&c);
	/* Unregistering while stopped; then the server goes. */
	tg_remove(&g);
	usbip_server_destroy(s);
	/* A second server may take the same port at once. */
	cfg.port = p;
	assert_int_equal(usbip_server_create(&cfg, &s), 0);
	usbip_server_destroy(s);
}

static void test_usbip_server_create_rejects_bad_config(void **state)
{
	struct usbip_server_config cfg;
	struct usbip_server *s = NULL;

	(void)state;
	usbip_server_config_init(&cfg);
	cfg.num_devices = 0;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	usbip_server_config_init(&cfg);
	cfg.num_devices = USBIP_MAX_DEVICES + 1;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	usbip_server_config_init(&cfg);
	cfg.speed = USB_SPEED_SUPER_PLUS;	/* vhci_hcd refuses it */
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	usbip_server_config_init(&cfg);
	cfg.speed = USB_SPEED_LOW;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	usbip_server_config_init(&cfg);
	cfg.address = "not an address!";
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EADDRNOTAVAIL);
	/* The fixture's port is taken. */
	usbip_server_config_init(&cfg);
	cfg.port = port;
	cfg.busnum = 3;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EADDRINUSE);
	/* The busids "1-1".. are registered by the fixture. */
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EEXIST);
	assert_null(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_server_devlist_lists_bound_devices),
		cmocka_unit_test(test_usbip_server_import_refusals),
		cmocka_unit_test(test_usbip_server_enumerates),
		cmocka_unit_test(test_usbip_server_control_data_stages),
		cmocka_unit_test(test_usbip_server_bulk_loopback),
		cmocka_unit_test(test_usbip_server_pdus_batched_and_split),
		cmocka_unit_test(test_usbip_server_source_and_sink),
		cmocka_unit_test(test_usbip_server_in_waits_for_data),
		cmocka_unit_test(test_usbip_server_interrupt_paced),
		cmocka_unit_test(test_usbip_server_iso_in_and_out),
		cmocka_unit_test(test_usbip_server_unlink_pending_and_completed),
		cmocka_unit_test(test_usbip_server_halt_until_clear_feature),
		cmocka_unit_test(test_usbip_server_disconnect_resets_device),
		cmocka_unit_test(test_usbip_server_detach_unplugs_host),
		cmocka_unit_test(test_usbip_server_two_devices_at_once),
		cmocka_unit_test(test_usbip_server_hostile_input_closes_connection),
		cmocka_unit_test(test_usbip_server_hostile_iso_layouts),
		cmocka_unit_test(test_usbip_server_urb_count_capped),
		cmocka_unit_test(test_usbip_server_devid_checked),
		cmocka_unit_test(test_usbip_server_debian_usbip_list),
		cmocka_unit_test(test_usbip_server_debian_usbip_attach_unknown_busid),
		cmocka_unit_test(test_usbip_server_stop_unplugs_hosts),
		cmocka_unit_test(test_usbip_server_create_rejects_bad_config),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
