/*
 * test_acm.c - the CDC ACM function through the in-process host: its
 * descriptors byte for byte (IAD numbered from the interface ids behind a
 * mass storage function, CDC functional descriptors, notify endpoint), the
 * SERIAL_STATE notification at configuration, the class requests (good,
 * short, oversized, wrong recipient or interface: stall), the byte stream
 * both ways with the receive side full (the host's writes wait, nothing is
 * lost), -USB_ENOTCONN and discarded counts when unconfigured, the
 * registry's port numbers, and the pty bridge.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/acm.h"
#include "composite/acm_pty.h"
#include "composite/composite.h"
#include "composite/inproc_host.h"
#include "composite/registry.h"

#define TMO 2000

/* ---- the gadget: [SourceSink?] + ACM in configuration 1 ------------------- */

struct events {
	unsigned opens, closes, codings, breaks, readable, writable, lines;
	struct usb_cdc_line_coding coding;
	unsigned break_ms;
};

static struct events ev;

static void ev_open(struct usb_function *f, void *ctx) { (void)f; (void)ctx; ev.opens++; }
static void ev_close(struct usb_function *f, void *ctx) { (void)f; (void)ctx; ev.closes++; }
static void ev_readable(struct usb_function *f, void *ctx) { (void)f; (void)ctx; ev.readable++; }
static void ev_writable(struct usb_function *f, void *ctx) { (void)f; (void)ctx; ev.writable++; }

static void ev_coding(struct usb_function *f, void *ctx, const struct usb_cdc_line_coding *lc)
{
	(void)f;
	(void)ctx;
	ev.codings++;
	ev.coding = *lc;
}

static void ev_lines(struct usb_function *f, void *ctx, unsigned lines)
{
	(void)f;
	(void)ctx;
	ev.lines = lines;
}

static void ev_break(struct usb_function *f, void *ctx, unsigned ms)
{
	(void)f;
	(void)ctx;
	ev.breaks++;
	ev.break_ms = ms;
}

static const struct acm_port_ops ev_ops = {
	.open = ev_open, .close = ev_close, .line_coding = ev_coding,
	.control_lines = ev_lines, .send_break = ev_break,
	.readable = ev_readable, .writable = ev_writable,
};

static struct f_acm_opts acm_opts;
static struct usb_function *f_acm, *f_first;
static struct usb_function_instance *fi_first;
static bool with_first;	/* a SourceSink before the ACM function */

static int cfg_bind(struct usb_configuration *c)
{
	int rc;

	if (with_first) {
		f_first = usb_get_function(fi_first);
		if (usb_is_err(f_first))
			return (int)usb_ptr_err(f_first);
		rc = usb_add_function(c, f_first);
		if (rc)
			return rc;
	}
	rc = acm_alloc(&acm_opts, &f_acm);
	if (rc)
		return rc;
	rc = usb_add_function(c, f_acm);
	if (rc)
		acm_free(f_acm);
	return rc;
}

static struct usb_configuration cfg = { .label = "acm", .bConfigurationValue = 1,
					.bmAttributes = USB_CONFIG_ATT_SELFPOWER };

static int drv_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &cfg, cfg_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200), .bDeviceClass = USB_CLASS_MISC,
	.bDeviceSubClass = 2, .bDeviceProtocol = 1,
	.idVendor = USB_CPU_TO_LE16(0x1d6b), .idProduct = USB_CPU_TO_LE16(0x0104),
};

static struct usb_composite_driver drv = {
	.name = "acm-test", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "acm.0", .bind = drv_bind,
};

struct ctx {
	struct usb_inproc_host *h;
	uint8_t cfg[512];
	int cfg_len;
	uint8_t notify, in, out;
	uint8_t ctrl_id;
};

static struct ctx C;

static int setup(void **state)
{
	struct usb_inproc_host_config hc = { .udc_name = "acm.0", .max_speed = USB_SPEED_HIGH };

	(void)state;
	memset(&C, 0, sizeof(C));
	memset(&ev, 0, sizeof(ev));
	f_acm_opts_init(&acm_opts);
	acm_opts.ops = &ev_ops;
	with_first = false;
	f_first = NULL;
	fi_first = usb_get_function_instance("SourceSink");
	return usb_inproc_host_create(&hc, &C.h) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	usb_composite_unregister(&drv);
	usb_put_function(f_first);
	usb_put_function_instance(fi_first);
	usb_inproc_host_destroy(C.h);
	return 0;
}

/* Probe, enumerate configuration 1, note the ACM endpoints. */
static void start(void)
{
	assert_int_equal(usb_composite_probe(&drv), 0);
	C.cfg_len = usb_inproc_host_enumerate(C.h, USB_SPEED_HIGH, 1, NULL, C.cfg,
					      sizeof(C.cfg), TMO);
	assert_true(C.cfg_len > 9);
	for (int off = 0, intf = -1; off + 2 <= C.cfg_len && C.cfg[off] >= 2; off += C.cfg[off]) {
		const uint8_t *d = C.cfg + off;

		if (d[1] == USB_DT_INTERFACE)
			intf = d[5];	/* class */
		if (d[1] == USB_DT_INTERFACE && d[5] == USB_CLASS_COMM)
			C.ctrl_id = d[2];
		if (d[1] != USB_DT_ENDPOINT)
			continue;
		if (intf == USB_CLASS_COMM)
			C.notify = d[2];
		else if (intf == USB_CLASS_CDC_DATA && (d[2] & USB_DIR_IN))
			C.in = d[2];
		else if (intf == USB_CLASS_CDC_DATA)
			C.out = d[2];
	}
	assert_true(C.notify && C.in && C.out);
}

static int ctrl(uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *data,
		uint16_t len)
{
	struct usb_ctrlrequest rq = {
		.bRequestType = type, .bRequest = req, .wValue = USB_CPU_TO_LE16(value),
		.wIndex = USB_CPU_TO_LE16(index), .wLength = USB_CPU_TO_LE16(len),
	};

	return usb_inproc_host_control(C.h, &rq, data, TMO);
}

#define CLASS_OUT (USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE)
#define CLASS_IN (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE)

/* ---- descriptors ------------------------------------------------------------------ */

static const uint8_t *find_desc(uint8_t type, uint8_t subtype, unsigned nth)
{
	for (int off = 0; off + 2 <= C.cfg_len && C.cfg[off] >= 2; off += C.cfg[off]) {
		const uint8_t *d = C.cfg + off;

		if (d[1] == type && (type != USB_DT_CS_INTERFACE || d[2] == subtype) && nth-- == 0)
			return d;
	}
	return NULL;
}

static void check_acm_descs(uint8_t first)
{
	static const uint8_t header[] = { 5, 0x24, 0x00, 0x10, 0x01 };
	const uint8_t *iad = find_desc(USB_DT_INTERFACE_ASSOCIATION, 0, 0);
	const uint8_t *d;

	assert_non_null(iad);
	assert_int_equal(iad[0], 8);
	assert_int_equal(iad[2], first);		/* bFirstInterface */
	assert_int_equal(iad[3], 2);			/* bInterfaceCount */
	assert_memory_equal(iad + 4, ((uint8_t[]){ 2, 2, 1 }), 3);
	assert_int_not_equal(iad[7], 0);		/* iFunction */
	/* The IAD comes right before the interface it starts. */
	assert_int_equal(iad[8 + 1], USB_DT_INTERFACE);
	assert_int_equal(iad[8 + 2], first);
	assert_memory_equal(iad + 8 + 4, ((uint8_t[]){ 1, 2, 2, 1 }), 4);
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x00, 0), header, sizeof(header));
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x01, 0),
			    ((uint8_t[]){ 5, 0x24, 0x01, 0x00, (uint8_t)(first + 1) }), 5);
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x02, 0),
			    ((uint8_t[]){ 4, 0x24, 0x02, 0x02 }), 4);
	assert_memory_equal(find_desc(USB_DT_CS_INTERFACE, 0x06, 0),
			    ((uint8_t[]){ 5, 0x24, 0x06, first, (uint8_t)(first + 1) }), 5);
	/* Notify: interrupt IN, 10 bytes, 2^(9-1) microframes (32 ms). */
	for (unsigned i = 0; (d = find_desc(USB_DT_ENDPOINT, 0, i)) != NULL; i++)
		if (d[2] == C.notify)
			break;
	assert_non_null(d);
	assert_memory_equal(d + 3, ((uint8_t[]){ USB_ENDPOINT_XFER_INT, 10, 0, 9 }), 4);
}

static void test_descriptors(void **state)
{
	(void)state;
	start();
	check_acm_descs(0);
	assert_int_equal(C.ctrl_id, 0);
}

static void test_iad_after_another_function(void **state)
{
	(void)state;
	with_first = true;
	start();
	check_acm_descs(1);
	assert_int_equal(C.ctrl_id, 1);
}

/* ---- notification, class requests ---------------------------------------------- */

static void test_serial_state_at_configuration(void **state)
{
	static const uint8_t want[10] = { 0xa1, 0x20, 0, 0, 0, 0, 2, 0, 0x03, 0 };
	uint8_t buf[16];
	struct f_acm_stats st;

	(void)state;
	start();
	assert_int_equal(usb_inproc_host_transfer(C.h, C.notify, buf, 10, 0, TMO), 10);
	assert_memory_equal(buf, want, sizeof(want));
	/* And one the gadget side sends: DCD only, plus ring. */
	assert_int_equal(acm_notify_serial_state(f_acm, USB_CDC_SERIAL_STATE_DCD |
						 USB_CDC_SERIAL_STATE_RING_SIGNAL), 0);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.notify, buf, 10, 0, TMO), 10);
	assert_int_equal(buf[8], 0x09);
	acm_get_stats(f_acm, &st);
	assert_int_equal(st.notifications, 2);
}

static void test_line_coding(void **state)
{
	uint8_t set[7] = { 0x00, 0xc2, 0x01, 0x00, 2, USB_CDC_EVEN_PARITY, 7 };	/* 115200 7E2 */
	uint8_t got[8], dflt[7] = { 0x80, 0x25, 0, 0, 0, 0, 8 };			/* 9600 8N1 */
	struct usb_cdc_line_coding lc;

	(void)state;
	start();
	assert_int_equal(ctrl(CLASS_IN, USB_CDC_REQ_GET_LINE_CODING, 0, C.ctrl_id, got, 7), 7);
	assert_memory_equal(got, dflt, 7);
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_LINE_CODING, 0, C.ctrl_id, set, 7), 7);
	assert_int_equal(ev.codings, 1);
	assert_int_equal(USB_LE32_TO_CPU(ev.coding.dwDTERate), 115200);
	assert_int_equal(ev.coding.bDataBits, 7);
	acm_get_line_coding(f_acm, &lc);
	assert_memory_equal(&lc, set, 7);
	assert_int_equal(ctrl(CLASS_IN, USB_CDC_REQ_GET_LINE_CODING, 0, C.ctrl_id, got, 8), 7);
	assert_memory_equal(got, set, 7);
	/* A short read gets the head. */
	assert_int_equal(ctrl(CLASS_IN, USB_CDC_REQ_GET_LINE_CODING, 0, C.ctrl_id, got, 4), 4);

	/* Oversized, short, wrong interface, wrong recipient: stalls, nothing set. */
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_LINE_CODING, 0, C.ctrl_id, got, 8),
			 -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_LINE_CODING, 0, C.ctrl_id, got, 6),
			 -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_LINE_CODING, 0, C.ctrl_id + 1, set, 7),
			 -USB_EPIPE);
	assert_int_equal(ctrl(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_DEVICE,
			      USB_CDC_REQ_SET_LINE_CODING, 0, C.ctrl_id, set, 7), -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_IN, USB_CDC_REQ_SET_LINE_CODING, 0, C.ctrl_id, got, 7),
			 -USB_EPIPE);
	assert_int_equal(ctrl(CLASS_OUT, 0x42, 0, C.ctrl_id, NULL, 0), -USB_EPIPE);
	assert_int_equal(ev.codings, 1);
	/* The control pipe still works after the stalls. */
	assert_int_equal(ctrl(CLASS_IN, USB_CDC_REQ_GET_LINE_CODING, 0, C.ctrl_id, got, 7), 7);
}

static void test_control_lines_and_break(void **state)
{
	(void)state;
	start();
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_CONTROL_LINE_STATE, 3, C.ctrl_id, NULL, 0), 0);
	assert_int_equal(ev.opens, 1);
	assert_int_equal(ev.lines, ACM_CTRL_DTR | ACM_CTRL_RTS);
	assert_int_equal(acm_get_control_lines(f_acm), 3);
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_CONTROL_LINE_STATE, 2, C.ctrl_id, NULL, 0), 0);
	assert_int_equal(ev.closes, 1);
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SET_CONTROL_LINE_STATE, 1, C.ctrl_id, NULL, 0), 0);
	assert_int_equal(ev.opens, 2);
	assert_int_equal(ctrl(CLASS_OUT, USB_CDC_REQ_SEND_BREAK, 250, C.ctrl_id, NULL, 0), 0);
	assert_int_equal(ev.breaks, 1);
	assert_int_equal(ev.break_ms, 250);
	/* Unconfiguring with DTR up closes the port. */
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 0, 0, NULL, 0), 0);
	assert_int_equal(ev.closes, 2);
	assert_int_equal(acm_get_control_lines(f_acm), 0);
}

/* ---- the stream -------------------------------------------------------------------- */

static void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131u + seed) >> 3);
}

static void test_host_to_gadget_backpressure(void **state)
{
	enum { N = 300 * 1024 };
	uint8_t *sent = malloc(N), *got = malloc(N);
	struct usb_inproc_xfer *x;
	size_t have = 0;
	struct f_acm_stats st;

	(void)state;
	start();
	fill_pattern(sent, N, 7);
	/* Nobody reads: the 64 KiB ring fills and the host's transfer waits. */
	assert_int_equal(usb_inproc_host_submit(C.h, C.out, sent, N, 0, &x), 0);
	assert_int_equal(usb_inproc_host_wait(C.h, x, 200), -USB_ETIMEDOUT);
	acm_get_stats(f_acm, &st);
	assert_int_equal(st.rx_bytes, ACM_BUF_DEFAULT);	/* exactly what fits */
	assert_true(ev.readable > 0);
	/* Reading lets it through, every byte in order. */
	while (have < N) {
		long n = acm_read(f_acm, got + have, N - have);

		assert_true(n >= 0);
		have += (size_t)n;
		if (n == 0)
			(void)usb_inproc_host_poll(C.h);
		(void)usb_inproc_host_wait(C.h, x, have < N ? 1 : TMO);
	}
	assert_int_equal(usb_inproc_host_wait(C.h, x, TMO), N);
	assert_memory_equal(got, sent, N);
	assert_int_equal(acm_read(f_acm, got, 1), 0);
	usb_inproc_host_free(C.h, x);
	free(sent);
	free(got);
}

static void test_gadget_to_host(void **state)
{
	enum { N = 200 * 1024 };
	uint8_t *sent = malloc(N), *got = malloc(N + 16384);
	size_t off = 0, have = 0;

	(void)state;
	start();
	fill_pattern(sent, N, 3);
	while (have < N) {
		long n = 0;
		int r;

		if (off < N) {
			n = acm_write(f_acm, sent + off, N - off);
			assert_true(n >= 0);
			off += (size_t)n;
		}
		/* A full ring takes less and promises a writable callback. */
		if (off < N)
			assert_true(acm_write_pending(f_acm) > 0);
		r = usb_inproc_host_transfer(C.h, C.in, got + have, 16384, 0, TMO);
		assert_true(r >= 0);	/* 0: the ZLP ending a 16 KiB request */
		have += (size_t)r;
	}
	assert_int_equal(have, N);
	assert_memory_equal(got, sent, N);
	assert_true(ev.writable > 0);
	free(sent);
	free(got);
}

static void test_unconfigured(void **state)
{
	struct f_acm_stats st;
	uint8_t buf[100] = { 1 };

	(void)state;
	start();
	assert_int_equal(acm_write(f_acm, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 0, 0, NULL, 0), 0);
	acm_get_stats(f_acm, &st);
	assert_false(st.connected);
	assert_int_equal(st.tx_discarded, sizeof(buf));	/* counted, not silent */
	assert_int_equal(acm_write(f_acm, buf, sizeof(buf)), -USB_ENOTCONN);
	assert_int_equal(acm_notify_serial_state(f_acm, 0), -USB_ENOTCONN);
	/* Configured again: it works again. */
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 1, 0, NULL, 0), 0);
	assert_int_equal(acm_write(f_acm, buf, 5), 5);
	assert_int_equal(usb_inproc_host_transfer(C.h, C.in, buf, sizeof(buf), 0, TMO), 5);
}

/* ---- registry ---------------------------------------------------------------------- */

static void test_registry_ports(void **state)
{
	struct usb_function_instance *fi[ACM_MAX_PORTS + 1];
	char buf[8];

	(void)state;
	for (unsigned i = 0; i < ACM_MAX_PORTS; i++) {
		fi[i] = usb_get_function_instance("acm.gs");
		assert_false(usb_is_err(fi[i]));
		assert_int_equal(f_acm_opts_from_instance(fi[i])->port_num, i);
	}
	assert_int_equal(usb_ptr_err(usb_get_function_instance("acm")), -USB_ENODEV);
	assert_int_equal(usb_function_instance_show(fi[2], "port_num", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "2\n");
	assert_int_equal(usb_function_instance_set(fi[2], "port_num", "0"), -USB_EACCES);
	usb_put_function_instance(fi[1]);
	fi[1] = usb_get_function_instance("acm");
	assert_int_equal(f_acm_opts_from_instance(fi[1])->port_num, 1);
	for (unsigned i = 0; i < ACM_MAX_PORTS; i++)
		usb_put_function_instance(fi[i]);
}

/* ---- the pty bridge ------------------------------------------------------------------ */

/* Read @n bytes from @fd while the host (which moves bytes only when
 * called: it is the event context) runs @x. */
static int read_all(int fd, uint8_t *buf, size_t n, struct usb_inproc_xfer *x)
{
	size_t have = 0;

	for (unsigned idle = 0; have < n && idle < 2 * TMO; idle++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r = 0;

		(void)usb_inproc_host_wait(C.h, x, 0);
		if (poll(&p, 1, 1) == 1)
			r = read(fd, buf + have, n - have);
		if (r < 0)
			return -1;
		if (r > 0)
			idle = 0;
		have += (size_t)r;
	}
	return have == n ? 0 : -1;
}

static void test_pty_bridge(void **state)
{
	enum { N = 100 * 1024 };
	struct acm_pty *pty;
	struct usb_inproc_xfer *x;
	char link[64];
	uint8_t *sent = malloc(N), *got = malloc(N);
	size_t have = 0;
	int fd;

	(void)state;
	snprintf(link, sizeof(link), "/tmp/test_acm_tty.%d", (int)getpid());
	assert_int_equal(acm_pty_create(&pty, &acm_opts, link), 0);
	start();
	assert_int_equal(acm_pty_start(pty, f_acm), 0);
	fd = open(link, O_RDWR | O_NOCTTY);
	assert_true(fd >= 0);

	/* Host -> tty: more than the pty holds, so the host waits for the reader. */
	fill_pattern(sent, N, 11);
	assert_int_equal(usb_inproc_host_submit(C.h, C.out, sent, N, 0, &x), 0);
	assert_int_equal(read_all(fd, got, N, x), 0);
	assert_int_equal(usb_inproc_host_wait(C.h, x, TMO), N);
	usb_inproc_host_free(C.h, x);
	assert_memory_equal(got, sent, N);

	/* Tty -> host: the program's writes wait while the host does not read. */
	fill_pattern(sent, N, 5);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	for (size_t off = 0; have < N;) {
		ssize_t w = off < N ? write(fd, sent + off, N - off) : 0;
		int r;

		if (w > 0)
			off += (size_t)w;
		r = usb_inproc_host_transfer(C.h, C.in, got + have, N - have, 0, 20);
		assert_true(r >= 0 || r == -USB_ETIMEDOUT);
		if (r > 0)
			have += (size_t)r;
	}
	assert_memory_equal(got, sent, N);
	close(fd);
	usb_composite_unregister(&drv);		/* stops the bridge's thread */
	acm_pty_destroy(pty);
	assert_int_equal(access(link, F_OK), -1);
	free(sent);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iad_after_another_function, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serial_state_at_configuration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_coding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_lines_and_break, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_to_gadget_backpressure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gadget_to_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unconfigured, setup, teardown),
		cmocka_unit_test(test_registry_ports),
		cmocka_unit_test_setup_teardown(test_pty_bridge, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
