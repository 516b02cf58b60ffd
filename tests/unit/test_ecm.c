/*
 * test_ecm.c - the CDC ECM function through the in-process host: its
 * descriptors byte for byte (IAD, CDC header/union/Ethernet, the MAC
 * string, the empty alternate 0), the notifications when the host opens
 * and closes the link (NETWORK_CONNECTION, then CONNECTION_SPEED_CHANGE),
 * SET_ETHERNET_PACKET_FILTER and the requests that stall, frames both
 * ways (a packet multiple ends with a zero-length packet), frames from the
 * host too short or too long dropped and counted, usb_net_send()'s
 * errors and the writable callback, and the registry's "ecm" attributes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/ether.h"
#include "composite/inproc_host.h"
#include "composite/registry.h"
#include "functions/net/net_reqs.h"
#include "port/alloc.h"

#define TMO 2000

struct events {
	unsigned rx, links_up, links_down, writable;
	uint8_t last[2048];
	size_t last_len;
};

static struct events ev;

static void ev_rx(struct usb_function *f, void *ctx, const void *frame, size_t len)
{
	(void)f;
	(void)ctx;
	ev.rx++;
	ev.last_len = len;
	memcpy(ev.last, frame, len);
}

static void ev_link(struct usb_function *f, void *ctx, bool up)
{
	(void)f;
	(void)ctx;
	if (up)
		ev.links_up++;
	else
		ev.links_down++;
}

static void ev_writable(struct usb_function *f, void *ctx)
{
	(void)f;
	(void)ctx;
	ev.writable++;
}

static const struct usb_net_ops ev_ops = { .rx = ev_rx, .link = ev_link, .writable = ev_writable };

static struct usb_net_opts opts;
static struct usb_function *f_ecm;

static int cfg_bind(struct usb_configuration *c)
{
	int rc = ecm_alloc(&opts, &f_ecm);

	if (rc == 0 && (rc = usb_add_function(c, f_ecm)) != 0)
		ecm_free(f_ecm);
	return rc;
}

static struct usb_configuration cfg = { .label = "ecm", .bConfigurationValue = 1 };

static int drv_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &cfg, cfg_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200), .bDeviceClass = USB_CLASS_COMM,
	.idVendor = USB_CPU_TO_LE16(0x0525), .idProduct = USB_CPU_TO_LE16(0xa4a1),
};

static struct usb_composite_driver drv = {
	.name = "ecm-test", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "ecm.0", .bind = drv_bind,
};

static struct usb_inproc_host *H;
static uint8_t C[512];
static int C_len;
static uint8_t EP_NOTIFY, EP_IN, EP_OUT;

static const uint8_t host_mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t dev_mac[6] = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };

static int setup(void **state)
{
	struct usb_inproc_host_config hc = { .udc_name = "ecm.0", .max_speed = USB_SPEED_HIGH };

	(void)state;
	memset(&ev, 0, sizeof(ev));
	usb_net_opts_init(&opts);
	memcpy(opts.host_addr, host_mac, 6);
	memcpy(opts.dev_addr, dev_mac, 6);
	opts.ops = &ev_ops;
	return usb_inproc_host_create(&hc, &H) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	usb_composite_unregister(&drv);
	usb_inproc_host_destroy(H);
	return 0;
}

static int ctrl(uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *data,
		uint16_t len)
{
	struct usb_ctrlrequest rq = {
		.bRequestType = type, .bRequest = req, .wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index), .wLength = USB_CPU_TO_LE16(len),
	};

	return usb_inproc_host_control(H, &rq, data, TMO);
}

static const uint8_t *find_desc(uint8_t type, uint8_t subtype, unsigned nth)
{
	for (int off = 0; off + 2 <= C_len && C[off] >= 2; off += C[off]) {
		const uint8_t *d = C + off;

		if (d[1] == type && (type != USB_DT_CS_INTERFACE || d[2] == subtype) && nth-- == 0)
			return d;
	}
	return NULL;
}

/* The library's allocations right after the bind (port/alloc.h). */
static unsigned long bound_allocs;

static void start(void)
{
	assert_int_equal(usb_composite_probe(&drv), 0);
	bound_allocs = composite__alloc_count();
	C_len = usb_inproc_host_enumerate(H, USB_SPEED_HIGH, 1, NULL, C, sizeof(C), TMO);
	assert_true(C_len > 9);
	EP_NOTIFY = EP_IN = EP_OUT = 0;
	for (int off = 0; off + 2 <= C_len && C[off] >= 2; off += C[off]) {
		const uint8_t *d = C + off;

		if (d[1] != USB_DT_ENDPOINT)
			continue;
		if ((d[3] & 3) == USB_ENDPOINT_XFER_INT)
			EP_NOTIFY = d[2];
		else
			*(d[2] & USB_DIR_IN ? &EP_IN : &EP_OUT) = d[2];
	}
	assert_true(EP_NOTIFY && EP_IN && EP_OUT);
}

/* After each choice of the data interface's alternate, as Linux:
 * NETWORK_CONNECTION (@connected), then CONNECTION_SPEED_CHANGE. */
static void expect_notifications(bool connected)
{
	uint8_t n[16];

	assert_int_equal(usb_inproc_host_transfer(H, EP_NOTIFY, n, sizeof(n), 0, TMO), 8);
	assert_memory_equal(n, ((uint8_t[]){ 0xa1, 0x00, connected, 0, 0, 0, 0, 0 }), 8);
	assert_int_equal(usb_inproc_host_transfer(H, EP_NOTIFY, n, sizeof(n), 0, TMO), 16);
	assert_memory_equal(n, ((uint8_t[]){ 0xa1, 0x2a, 0, 0, 0, 0, 8, 0 }), 8);
	/* 13 * 512 * 8 * 1000 * 8 bit/s each way, as Linux at high speed */
	assert_int_equal(usb_get_le32(n + 8), 13u * 512u * 8u * 1000u * 8u);
	assert_int_equal(usb_get_le32(n + 12), 13u * 512u * 8u * 1000u * 8u);
}

/* The host opens the link: alternate 1. */
static void open_link(void)
{
	expect_notifications(false);	/* SET_CONFIGURATION chose alternate 0 */
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 1, TMO), 0);
	expect_notifications(true);
	assert_true(usb_net_link_up(f_ecm));
}

static void test_descriptors(void **state)
{
	static const uint8_t iad[8] = { 8, 0x0b, 0, 2, 2, 6, 0, 0 };
	static const uint8_t ctrl_intf[8] = { 9, 4, 0, 0, 1, 2, 6, 0 };
	static const uint8_t header[5] = { 5, 0x24, 0x00, 0x10, 0x01 };
	static const uint8_t un[5] = { 5, 0x24, 0x06, 0, 1 };
	const uint8_t *d;
	uint8_t s[64];
	char mac[13];
	int n;

	(void)state;
	start();
	d = find_desc(USB_DT_INTERFACE_ASSOCIATION, 0, 0);
	assert_non_null(d);
	assert_memory_equal(d, iad, 7);			/* iFunction aside */
	assert_memory_equal(d + 8, ctrl_intf, 8);	/* the interface right after */
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x00, 0), header, 5);
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x06, 0), un, 5);
	d = find_desc(USB_DT_CS_INTERFACE, 0x0f, 0);
	assert_non_null(d);
	assert_int_equal(d[0], 13);
	assert_int_equal(usb_get_le32(d + 4), 0);	/* no statistics */
	assert_int_equal(usb_get_le16(d + 8), 1514);	/* wMaxSegmentSize */
	assert_int_equal(usb_get_le16(d + 10), 0);
	assert_int_equal(d[12], 0);
	/* iMACAddress: the host's address as 12 hex digits */
	n = ctrl(USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, (uint16_t)(0x0300 | d[3]), 0x0409, s, 64);
	assert_int_equal(n, 26);
	for (int i = 0; i < 12; i++)
		mac[i] = (char)s[2 + 2 * i];
	mac[12] = '\0';
	assert_string_equal(mac, "021122334455");
	/* Data interface: alternate 0 empty, alternate 1 with the bulk pair. */
	d = find_desc(USB_DT_INTERFACE, 0, 1);
	assert_memory_equal(d, ((uint8_t[]){ 9, 4, 1, 0, 0, 0x0a, 0, 0 }), 8);
	d = find_desc(USB_DT_INTERFACE, 0, 2);
	assert_memory_equal(d, ((uint8_t[]){ 9, 4, 1, 1, 2, 0x0a, 0, 0 }), 8);
	/* Notify endpoint: interrupt, 16 bytes, 32 ms at high speed. */
	for (unsigned i = 0; (d = find_desc(USB_DT_ENDPOINT, 0, i)) != NULL; i++)
		if (d[2] == EP_NOTIFY)
			break;
	assert_memory_equal(d + 3, ((uint8_t[]){ 3, 16, 0, 9 }), 4);
}

static void test_link_and_requests(void **state)
{
	uint8_t n[16];

	(void)state;
	start();
	assert_false(usb_net_link_up(f_ecm));
	assert_int_equal(usb_net_send(f_ecm, n, 14), -USB_ENOTCONN);
	open_link();
	assert_int_equal(ev.links_up, 1);
	/* The packet filter is taken; the optional requests stall. */
	assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0x43, 0x000e,
			      0, NULL, 0), 0);
	{
		struct usb_net_stats st;

		usb_net_get_stats(f_ecm, &st);
		assert_int_equal(st.packet_filter, 0x000e);
	}
	assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0x40, 0, 0,
			      NULL, 0), -USB_EPIPE);
	assert_int_equal(ctrl(USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0x44, 1, 0, n,
			      4), -USB_EPIPE);
	/* To the data interface, or with data: stall. */
	assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, 0x43, 0x000e,
			      1, NULL, 0), -USB_EPIPE);
	/* Alternate 2 does not exist. */
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 2, TMO), -USB_EPIPE);
	/* Closing: the link goes down and the host is told. */
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 0, TMO), 0);
	expect_notifications(false);
	assert_false(usb_net_link_up(f_ecm));
	assert_int_equal(ev.links_down, 1);
	/* Unconfigured, configured, the link opened and closed again: the
	 * requests and buffers are the bind's; nothing is allocated after it. */
	assert_int_equal(ctrl(0, USB_REQ_SET_CONFIGURATION, 0, 0, NULL, 0), 0);
	assert_int_equal(ctrl(0, USB_REQ_SET_CONFIGURATION, 1, 0, NULL, 0), 0);
	open_link();
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 0, TMO), 0);
	expect_notifications(false);
	assert_int_equal(composite__alloc_count(), bound_allocs);
}

static void fill_frame(uint8_t *f, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seed + i * 7);
}

static void test_frames(void **state)
{
	static const size_t sizes[] = { 14, 60, 511, 512, 1024, 1513, 1514 };
	uint8_t out[2048], in[2048];
	struct usb_net_stats st;

	(void)state;
	start();
	open_link();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i];
		int got;

		/* host -> gadget: a packet multiple ends with a ZLP */
		fill_frame(out, len, (uint8_t)i);
		got = usb_inproc_host_transfer(H, EP_OUT, out, len, USB_INPROC_ZERO_PACKET, TMO);
		assert_int_equal(got, (int)len);
		assert_int_equal(ev.last_len, len);
		assert_memory_equal(ev.last, out, len);
		/* gadget -> host: one frame per transfer, whole */
		fill_frame(out, len, (uint8_t)(i + 100));
		assert_int_equal(usb_net_send(f_ecm, out, len), 0);
		got = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
		assert_int_equal(got, (int)len);
		assert_memory_equal(in, out, len);
	}
	assert_int_equal(ev.rx, sizeof(sizes) / sizeof(sizes[0]));
	/* Too short and too long from the host: dropped, counted. */
	assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, out, 13, 0, TMO), 13);
	assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, out, 1515, 0, TMO), 1515);
	(void)usb_inproc_host_transfer(H, EP_OUT, out, 2000, 0, TMO);
	usb_net_get_stats(f_ecm, &st);
	assert_int_equal(st.rx_dropped_short, 1);
	assert_int_equal(st.rx_dropped_long, 2);
	assert_int_equal(ev.rx, sizeof(sizes) / sizeof(sizes[0]));
	assert_int_equal(st.tx_frames, sizeof(sizes) / sizeof(sizes[0]));
	/* The gadget's own limits. */
	assert_int_equal(usb_net_send(f_ecm, out, 13), -USB_EMSGSIZE);
	assert_int_equal(usb_net_send(f_ecm, out, 1515), -USB_EMSGSIZE);
	assert_int_equal(usb_net_send(NULL, out, 60), -USB_EINVAL);
}

/* A host that does not read: the queue fills, -USB_EAGAIN, then writable. */
static void test_backpressure(void **state)
{
	uint8_t frame[100], in[2048];
	unsigned sent = 0;
	struct usb_net_stats st;

	(void)state;
	start();
	open_link();
	fill_frame(frame, sizeof(frame), 1);
	while (usb_net_send(f_ecm, frame, sizeof(frame)) == 0)
		sent++;
	assert_int_equal(usb_net_send(f_ecm, frame, sizeof(frame)), -USB_EAGAIN);
	assert_true(sent >= 32);
	for (unsigned i = 0; i < sent; i++)
		assert_int_equal(usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO), 100);
	assert_true(ev.writable >= 1);
	assert_int_equal(usb_net_send(f_ecm, frame, sizeof(frame)), 0);
	/* Closing drops what is queued, counted. */
	(void)usb_net_send(f_ecm, frame, sizeof(frame));
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 0, TMO), 0);
	usb_net_get_stats(f_ecm, &st);
	assert_int_equal(st.tx_frames + st.tx_dropped, sent + 2);
}

/* A completion for a request that is not the ring's gets no slot's index
 * (once it got 0, and releasing slot 0 let two transfers share it). */
static void test_reqs_unknown_index(void **state)
{
	struct usb_request a = { 0 }, b = { 0 }, stranger = { 0 };
	struct usb_request *in[2] = { &a, &b };
	struct net_reqs r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.n = 2;
	r.in_req = in;
	assert_int_equal(net_reqs_in_index(&r, &a), 0);
	assert_int_equal(net_reqs_in_index(&r, &b), 1);
	assert_int_equal(net_reqs_in_index(&r, &stranger), -USB_ENOENT);
}

static void test_registry(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("ecm");
	struct usb_function_instance *fi2 = usb_get_function_instance("ecm");
	struct usb_function *f;
	char a[64], b[64];

	(void)state;
	assert_false(usb_is_err(fi));
	assert_false(usb_is_err(fi2));
	assert_non_null(usb_net_opts_from_instance(fi));
	/* Random, locally administered, unicast, different per instance. */
	assert_true(usb_function_instance_show(fi, "dev_addr", a, sizeof(a)) > 0);
	assert_true(usb_function_instance_show(fi2, "dev_addr", b, sizeof(b)) > 0);
	assert_string_not_equal(a, b);
	assert_int_equal(strlen(a), 18);
	assert_int_equal(usb_net_opts_from_instance(fi)->dev_addr[0] & 3, 2);
	/* Stable: read again, the same. */
	assert_true(usb_function_instance_show(fi, "dev_addr", b, sizeof(b)) > 0);
	assert_string_equal(a, b);
	assert_int_equal(usb_function_instance_set(fi, "host_addr", "02:00:00:00:00:01\n"), 0);
	assert_true(usb_function_instance_show(fi, "host_addr", a, sizeof(a)) > 0);
	assert_string_equal(a, "02:00:00:00:00:01\n");
	assert_int_equal(usb_function_instance_set(fi, "host_addr", "01:00:00:00:00:01"),
			 -USB_EINVAL);	/* multicast */
	assert_int_equal(usb_function_instance_set(fi, "host_addr", "02:00:00:00:00"),
			 -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "ifname", "eth%d"), 0);
	assert_true(usb_function_instance_show(fi, "ifname", a, sizeof(a)) > 0);
	assert_string_equal(a, "eth%d\n");
	assert_int_equal(usb_function_instance_set(fi, "ifname", "a-name-far-too-long"),
			 -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "qmult", "0"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "qmult", "10"), 0);
	f = usb_get_function(fi);
	assert_false(usb_is_err(f));
	assert_true(ecm_is(f));
	assert_int_equal(usb_function_instance_set(fi, "qmult", "5"), -USB_EBUSY);
	usb_put_function(f);
	usb_put_function_instance(fi2);
	usb_put_function_instance(fi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_and_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown),
		cmocka_unit_test(test_reqs_unknown_index),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
