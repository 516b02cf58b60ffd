/*
 * test_ncm.c - the CDC NCM function through the in-process host: its
 * descriptors (NCM functional descriptor, data protocol NTB), the NCM
 * requests (GET_NTB_PARAMETERS, GET/SET_NTB_INPUT_SIZE with a bad size
 * not taken, GET/SET_NTB_FORMAT only at alternate 0, GET/SET_CRC_MODE),
 * NTB16 and NTB32 from the host (several datagrams delivered; malformed
 * NTBs dropped whole and counted) and to the host (several frames in one
 * NTB, read back by this file's own NTH/NDP walk, not by the codec under
 * test).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/ether.h"
#include "composite/inproc_host.h"
#include "port/alloc.h"

#define TMO 2000
#define CLASS_OUT (USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE)
#define CLASS_IN (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE)

static unsigned rx_count;
static uint8_t rx_last[2048];
static size_t rx_len;

static void ev_rx(struct usb_function *f, void *ctx, const void *frame, size_t len)
{
	(void)f;
	(void)ctx;
	rx_count++;
	rx_len = len;
	memcpy(rx_last, frame, len);
}

static const struct usb_net_ops ev_ops = { .rx = ev_rx };
static struct usb_net_opts opts;
static struct usb_function *f_ncm;

static int cfg_bind(struct usb_configuration *c)
{
	int rc = ncm_alloc(&opts, &f_ncm);

	if (rc == 0 && (rc = usb_add_function(c, f_ncm)) != 0)
		ncm_free(f_ncm);
	return rc;
}

static struct usb_configuration cfg = { .label = "ncm", .bConfigurationValue = 1 };

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
	.name = "ncm-test", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "ncm.0", .bind = drv_bind,
};

static struct usb_inproc_host *H;
static uint8_t C[512];
static int C_len;
static uint8_t EP_NOTIFY, EP_IN, EP_OUT;

static int setup(void **state)
{
	struct usb_inproc_host_config hc = { .udc_name = "ncm.0", .max_speed = USB_SPEED_HIGH };

	(void)state;
	rx_count = 0;
	usb_net_opts_init(&opts);
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

static int ctrl(uint8_t type, uint8_t req, uint16_t value, void *data, uint16_t len)
{
	struct usb_ctrlrequest rq = {
		.bRequestType = type, .bRequest = req, .wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(0), .wLength = USB_CPU_TO_LE16(len),
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

/* Two notifications after each data alternate: speed first, as Linux's f_ncm. */
static void expect_notifications(bool connected)
{
	uint8_t n[16];

	assert_int_equal(usb_inproc_host_transfer(H, EP_NOTIFY, n, sizeof(n), 0, TMO), 16);
	assert_int_equal(n[1], 0x2a);
	assert_int_equal(usb_inproc_host_transfer(H, EP_NOTIFY, n, sizeof(n), 0, TMO), 8);
	assert_memory_equal(n, ((uint8_t[]){ 0xa1, 0x00, connected, 0, 0, 0, 0, 0 }), 8);
}

static void open_link(void)
{
	expect_notifications(false);
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 1, TMO), 0);
	expect_notifications(true);
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }

/* An NTB16 of @n frames of @len bytes: NTH, frames at 16, 16 + len..., NDP
 * after them (4-aligned). Return: its length. */
static size_t ntb16(uint8_t *b, unsigned n, size_t len, uint8_t seed)
{
	size_t off = 12, ndp, at[16];
	unsigned i;

	assert_true(n <= 16);
	memcpy(b, "NCMH", 4);
	put16(b + 4, 12);
	put16(b + 6, 0);
	for (i = 0; i < n; i++) {
		off = (off + 3) & ~(size_t)3;
		for (size_t k = 0; k < len; k++)
			b[off + k] = (uint8_t)(seed + i + k);
		at[i] = off;
		off += len;
	}
	ndp = (off + 3) & ~(size_t)3;
	memcpy(b + ndp, "NCM0", 4);
	put16(b + ndp + 4, (unsigned)(8 + 4 * (n + 1)));
	put16(b + ndp + 6, 0);
	for (i = 0; i < n; i++) {
		put16(b + ndp + 8 + 4 * i, (unsigned)at[i]);
		put16(b + ndp + 10 + 4 * i, (unsigned)len);
	}
	put16(b + ndp + 8 + 4 * n, 0);
	put16(b + ndp + 10 + 4 * n, 0);
	put16(b + 10, (unsigned)ndp);
	put16(b + 8, (unsigned)(ndp + 8 + 4 * (n + 1)));
	return ndp + 8 + 4 * (n + 1);
}

static void test_descriptors_and_requests(void **state)
{
	uint8_t buf[64];
	const uint8_t *d;

	(void)state;
	start();
	d = find_desc(USB_DT_INTERFACE_ASSOCIATION, 0, 0);
	assert_memory_equal(d, ((uint8_t[]){ 8, 0x0b, 0, 2, 2, 0x0d, 0 }), 7);
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x1a, 0),
			    ((uint8_t[]){ 6, 0x24, 0x1a, 0x00, 0x01, 0x11 }), 6);
	assert_non_null(find_desc(USB_DT_CS_INTERFACE, 0x0f, 0));
	d = find_desc(USB_DT_INTERFACE, 0, 2);
	assert_memory_equal(d, ((uint8_t[]){ 9, 4, 1, 1, 2, 0x0a, 0, 1 }), 8);
	/* GET_NTB_PARAMETERS: NTB16 | NTB32, 16 KiB each way, divisor 4, alignment 4. */
	assert_int_equal(ctrl(CLASS_IN, 0x80, 0, buf, 64), 28);
	assert_int_equal(usb_get_le16(buf), 28);
	assert_int_equal(usb_get_le16(buf + 2), 3);
	assert_int_equal(usb_get_le32(buf + 4), 16384);
	assert_int_equal(usb_get_le16(buf + 8), 4);
	assert_int_equal(usb_get_le16(buf + 12), 4);
	assert_int_equal(usb_get_le32(buf + 16), 16384);
	/* Input size: set, read back; too small or too big stalls. */
	put32(buf, 8192);
	assert_int_equal(ctrl(CLASS_OUT, 0x86, 0, buf, 4), 4);
	assert_int_equal(ctrl(CLASS_IN, 0x85, 0, buf, 4), 4);
	assert_int_equal(usb_get_le32(buf), 8192);
	/* Out of range: not taken, and the status stage stalls (f_ncm halts
	 * ep0 in the data stage's completion, as Linux's). */
	put32(buf, 1024);
	assert_int_equal(ctrl(CLASS_OUT, 0x86, 0, buf, 4), -USB_EPIPE);
	put32(buf, 65536);
	assert_int_equal(ctrl(CLASS_OUT, 0x86, 0, buf, 4), -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_OUT, 0x86, 0, buf, 3), -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_IN, 0x85, 0, buf, 4), 4);
	assert_int_equal(usb_get_le32(buf), 8192);
	/* Format: NTB32 at alternate 0, read back; CRC mode: only "none". */
	assert_int_equal(ctrl(CLASS_OUT, 0x84, 1, NULL, 0), 0);
	assert_int_equal(ctrl(CLASS_IN, 0x83, 0, buf, 2), 2);
	assert_int_equal(usb_get_le16(buf), 1);
	assert_int_equal(ctrl(CLASS_OUT, 0x84, 2, NULL, 0), -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_OUT, 0x8a, 0, NULL, 0), 0);
	assert_int_equal(ctrl(CLASS_OUT, 0x8a, 1, NULL, 0), -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_IN, 0x89, 0, buf, 2), 2);
	assert_int_equal(usb_get_le16(buf), 0);
	assert_int_equal(ctrl(CLASS_OUT, 0x43, 0x0c, NULL, 0), 0);
	assert_int_equal(ctrl(CLASS_IN, 0x87, 0, buf, 2), -USB_EPIPE);	/* not announced */
	/* While the link is open the format cannot change. */
	open_link();
	assert_int_equal(ctrl(CLASS_OUT, 0x84, 0, NULL, 0), -USB_EPIPE);
	/* Alternate 0 again: the negotiation starts afresh (NTB16, 16 KiB). */
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 0, TMO), 0);
	assert_int_equal(ctrl(CLASS_IN, 0x83, 0, buf, 2), 2);
	assert_int_equal(usb_get_le16(buf), 0);
	assert_int_equal(ctrl(CLASS_IN, 0x85, 0, buf, 4), 4);
	assert_int_equal(usb_get_le32(buf), 16384);
	/* Unconfigured, configured, the link opened and closed again: the
	 * requests and buffers are the bind's; nothing is allocated after it. */
	assert_int_equal(ctrl(0, USB_REQ_SET_CONFIGURATION, 0, NULL, 0), 0);
	assert_int_equal(ctrl(0, USB_REQ_SET_CONFIGURATION, 1, NULL, 0), 0);
	open_link();
	assert_int_equal(usb_inproc_host_set_interface(H, 1, 0, TMO), 0);
	expect_notifications(false);
	assert_int_equal(composite__alloc_count(), bound_allocs);
}

static void test_out_ntbs(void **state)
{
	static uint8_t b[4096];
	struct usb_net_stats st;
	size_t n;

	(void)state;
	start();
	open_link();
	n = ntb16(b, 3, 100, 7);
	assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, b, n, USB_INPROC_ZERO_PACKET, TMO),
			 (int)n);
	assert_int_equal(rx_count, 3);
	assert_int_equal(rx_len, 100);
	assert_int_equal(rx_last[0], 7 + 2);
	/* Malformed: bad signature, then a datagram past the block. */
	n = ntb16(b, 2, 60, 1);
	memcpy(b, "NCMX", 4);
	assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, b, n, USB_INPROC_ZERO_PACKET, TMO),
			 (int)n);
	n = ntb16(b, 2, 60, 1);
	put16(b + usb_get_le16(b + 10) + 10, 3000);
	assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, b, n, USB_INPROC_ZERO_PACKET, TMO),
			 (int)n);
	assert_int_equal(rx_count, 3);
	usb_net_get_stats(f_ncm, &st);
	assert_int_equal(st.rx_ntbs_dropped, 2);
	assert_int_equal(st.rx_frames, 3);
}

/* The host's view of an IN NTB16: every datagram checked against @want. */
static unsigned walk_ntb16(const uint8_t *b, size_t n, const uint8_t *want, size_t len)
{
	size_t ndp, i;
	unsigned count = 0;

	assert_memory_equal(b, "NCMH", 4);
	assert_int_equal(usb_get_le16(b + 4), 12);
	assert_int_equal(usb_get_le16(b + 8), n);
	ndp = usb_get_le16(b + 10);
	assert_true(ndp % 4 == 0 && ndp + 8 <= n);
	assert_memory_equal(b + ndp, "NCM0", 4);
	for (i = ndp + 8; usb_get_le16(b + i) && usb_get_le16(b + i + 2); i += 4) {
		size_t off = usb_get_le16(b + i), dl = usb_get_le16(b + i + 2);

		assert_true(off % 4 == 0 && off + dl <= n);
		assert_int_equal(dl, len);
		assert_memory_equal(b + off, want, len);
		count++;
	}
	return count;
}

static void test_in_ntbs(void **state)
{
	static uint8_t frame[200], in[16384];
	unsigned got = 0, ntbs = 0;
	int n;

	(void)state;
	start();
	open_link();
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 3);
	/* One frame alone: an NTB of its own, at once. */
	assert_int_equal(usb_net_send(f_ncm, frame, sizeof(frame)), 0);
	n = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
	assert_true(n > 0);
	assert_int_equal(walk_ntb16(in, (size_t)n, frame, sizeof(frame)), 1);
	/* Many queued while the host is not reading: fewer NTBs than frames. */
	for (int i = 0; i < 30; i++)
		assert_int_equal(usb_net_send(f_ncm, frame, sizeof(frame)), 0);
	while (got < 30) {
		n = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
		assert_true(n > 0);
		got += walk_ntb16(in, (size_t)n, frame, sizeof(frame));
		ntbs++;
	}
	assert_int_equal(got, 30);
	assert_true(ntbs < 30);
}

/* While an NTB is on its way, a few frames wait and then share the next
 * one (a TCP receiver's ACKs): without the cork each took an NTB alone. */
static void test_in_ntbs_cork(void **state)
{
	static uint8_t frame[64], in[16384];
	int n;

	(void)state;
	start();
	open_link();
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 5);
	assert_int_equal(usb_net_send(f_ncm, frame, sizeof(frame)), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(usb_net_send(f_ncm, frame, sizeof(frame)), 0);
	n = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
	assert_true(n > 0);
	assert_int_equal(walk_ntb16(in, (size_t)n, frame, sizeof(frame)), 1);
	n = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
	assert_true(n > 0);
	assert_int_equal(walk_ntb16(in, (size_t)n, frame, sizeof(frame)), 3);
	/* Alone again: at once, in an NTB of its own. */
	assert_int_equal(usb_net_send(f_ncm, frame, sizeof(frame)), 0);
	n = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
	assert_int_equal(walk_ntb16(in, (size_t)n, frame, sizeof(frame)), 1);
}

static void test_ntb32(void **state)
{
	static uint8_t frame[100], in[16384];
	int n;

	(void)state;
	start();
	assert_int_equal(ctrl(CLASS_OUT, 0x84, 1, NULL, 0), 0);
	open_link();
	memset(frame, 0x5a, sizeof(frame));
	assert_int_equal(usb_net_send(f_ncm, frame, sizeof(frame)), 0);
	n = usb_inproc_host_transfer(H, EP_IN, in, sizeof(in), 0, TMO);
	assert_true(n >= 16 + 16 + 100);
	assert_memory_equal(in, "ncmh", 4);
	assert_int_equal(usb_get_le16(in + 4), 16);
	assert_int_equal(usb_get_le32(in + 8), n);
	assert_memory_equal(in + usb_get_le32(in + 12), "ncm0", 4);
	/* An NTB16 now is a bad signature: dropped, counted. */
	{
		static uint8_t b[4096];
		struct usb_net_stats st;
		size_t len = ntb16(b, 1, 60, 0);

		(void)usb_inproc_host_transfer(H, EP_OUT, b, len, USB_INPROC_ZERO_PACKET, TMO);
		usb_net_get_stats(f_ncm, &st);
		assert_int_equal(st.rx_ntbs_dropped, 1);
		assert_int_equal(rx_count, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_descriptors_and_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_ntbs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_ntbs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_ntbs_cork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ntb32, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
