/*
 * test_hid.c - the HID function through the in-process host: a boot
 * keyboard's descriptors byte for byte, GET_DESCRIPTOR(HID/Report) to
 * the interface, GET/SET_REPORT, GET/SET_IDLE, GET/SET_PROTOCOL (good,
 * oversized, wrong interface or value: stall), input reports with the
 * queue full (-USB_EAGAIN, then writable), output reports by interrupt
 * OUT and SET_REPORT, the registry's attributes (report_desc as hex), and
 * the hidg pipes (whole reports only, the idle period repeated, output
 * reports out of their pipe).
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/hid.h"
#include "composite/hidg.h"
#include "composite/inproc_host.h"
#include "composite/registry.h"

#define TMO 2000

struct events {
	unsigned out, set_reports, writable;
	uint8_t last[16];
	size_t last_len;
};

static struct events ev;

static void ev_out(struct usb_function *f, void *ctx, const uint8_t *d, size_t n, bool set_report)
{
	(void)f;
	(void)ctx;
	ev.out++;
	ev.set_reports += set_report;
	ev.last_len = n < sizeof(ev.last) ? n : sizeof(ev.last);
	memcpy(ev.last, d, ev.last_len);
}

static void ev_writable(struct usb_function *f, void *ctx)
{
	(void)f;
	(void)ctx;
	ev.writable++;
}

static const struct hid_ops ev_ops = { .out_report = ev_out, .writable = ev_writable };

static struct f_hid_opts hid_opts;
static struct usb_function *f_hid;

static int cfg_bind(struct usb_configuration *c)
{
	int rc = hid_alloc(&hid_opts, &f_hid);

	if (rc == 0 && (rc = usb_add_function(c, f_hid)) != 0)
		hid_free(f_hid);
	return rc;
}

static struct usb_configuration cfg = { .label = "hid", .bConfigurationValue = 1 };

static int drv_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &cfg, cfg_bind);
}

static const struct usb_device_descriptor dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200), .idVendor = USB_CPU_TO_LE16(0x1d6b),
	.idProduct = USB_CPU_TO_LE16(0x0104),
};

static struct usb_composite_driver drv = {
	.name = "hid-test", .dev = &dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "hid.0", .bind = drv_bind,
};

static struct usb_inproc_host *H;
static uint8_t C[256];
static int C_len;
static uint8_t EP_IN, EP_OUT;

static int setup(void **state)
{
	struct usb_inproc_host_config hc = { .udc_name = "hid.0", .max_speed = USB_SPEED_HIGH };

	(void)state;
	memset(&ev, 0, sizeof(ev));
	f_hid_opts_init(&hid_opts);
	hid_opts.subclass = 1;
	hid_opts.protocol = 1;
	hid_opts.report_length = 8;
	hid_opts.report_desc = hid_boot_keyboard_report_desc;
	hid_opts.report_desc_length = sizeof(hid_boot_keyboard_report_desc);
	hid_opts.ops = &ev_ops;
	return usb_inproc_host_create(&hc, &H) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	usb_composite_unregister(&drv);
	usb_inproc_host_destroy(H);
	return 0;
}

static void start_at(enum usb_device_speed speed)
{
	assert_int_equal(usb_composite_probe(&drv), 0);
	C_len = usb_inproc_host_enumerate(H, speed, 1, NULL, C, sizeof(C), TMO);
	assert_true(C_len > 9);
	EP_IN = EP_OUT = 0;
	for (int off = 0; off + 2 <= C_len && C[off] >= 2; off += C[off])
		if (C[off + 1] == USB_DT_ENDPOINT)
			*(C[off + 2] & USB_DIR_IN ? &EP_IN : &EP_OUT) = C[off + 2];
}

static void start(void)
{
	start_at(USB_SPEED_HIGH);
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

#define STD_IN (USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_INTERFACE)
#define CLS_IN (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE)
#define CLS_OUT (USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE)

static void test_descriptors(void **state)
{
	static const uint8_t intf[8] = { 9, 4, 0, 0, 2, 3, 1, 1 };
	/* bcdHID 1.01, as Linux's f_hid. */
	static const uint8_t hid[9] = { 9, 0x21, 0x01, 0x01, 0, 1, 0x22, 63, 0 };
	uint8_t buf[128];

	(void)state;
	start();
	assert_memory_equal(C + 9, intf, sizeof(intf));
	assert_int_not_equal(C[9 + 8], 0);	/* iInterface: "HID Interface" */
	assert_memory_equal(C + 18, hid, sizeof(hid));
	/* Interrupt IN, 8 bytes, 2^(4-1) microframes; then OUT alike. */
	assert_memory_equal(C + 27 + 3, ((uint8_t[]){ 3, 8, 0, 4 }), 4);
	assert_int_equal(C[27 + 2], EP_IN);
	assert_memory_equal(C + 34 + 3, ((uint8_t[]){ 3, 8, 0, 4 }), 4);
	assert_int_equal(C_len, 41);

	assert_int_equal(ctrl(STD_IN, USB_REQ_GET_DESCRIPTOR, 0x2200, 0, buf, sizeof(buf)), 63);
	assert_memory_equal(buf, hid_boot_keyboard_report_desc, 63);
	assert_int_equal(ctrl(STD_IN, USB_REQ_GET_DESCRIPTOR, 0x2100, 0, buf, sizeof(buf)), 9);
	assert_memory_equal(buf, hid, 9);
	assert_int_equal(ctrl(STD_IN, USB_REQ_GET_DESCRIPTOR, 0x2200, 0, buf, 10), 10);
	assert_int_equal(ctrl(STD_IN, USB_REQ_GET_DESCRIPTOR, 0x2300, 0, buf, 10), -USB_EPIPE);
	assert_int_equal(ctrl(STD_IN, USB_REQ_GET_DESCRIPTOR, 0x2200, 1, buf, 10), -USB_EPIPE);
}

static void test_class_requests(void **state)
{
	uint8_t buf[16];
	static const uint8_t keys[8] = { 0x02, 0, 0x04, 0, 0, 0, 0, 0 };	/* shift+a */

	(void)state;
	start();
	/* GET_REPORT: zeros before the first report, then the last one sent. */
	assert_int_equal(ctrl(CLS_IN, HID_REQ_GET_REPORT, 0x0100, 0, buf, 8), 8);
	assert_memory_equal(buf, ((uint8_t[8]){ 0 }), 8);
	assert_int_equal(hid_send_report(f_hid, keys, sizeof(keys)), 0);
	assert_int_equal(usb_inproc_host_transfer(H, EP_IN, buf, 8, 0, TMO), 8);
	assert_memory_equal(buf, keys, 8);
	assert_int_equal(ctrl(CLS_IN, HID_REQ_GET_REPORT, 0x0100, 0, buf, 16), 8);
	assert_memory_equal(buf, keys, 8);

	/* Idle: 4 ms units. */
	assert_int_equal(ctrl(CLS_IN, HID_REQ_GET_IDLE, 0, 0, buf, 1), 1);
	assert_int_equal(buf[0], 0);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_IDLE, 0x7d00, 0, NULL, 0), 0);
	assert_int_equal(hid_get_idle_ms(f_hid), 500);
	assert_int_equal(ctrl(CLS_IN, HID_REQ_GET_IDLE, 0, 0, buf, 1), 1);
	assert_int_equal(buf[0], 0x7d);

	/* Protocol: report until the host chooses boot. */
	assert_int_equal(ctrl(CLS_IN, HID_REQ_GET_PROTOCOL, 0, 0, buf, 1), 1);
	assert_int_equal(buf[0], HID_REPORT_PROTOCOL);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_PROTOCOL, HID_BOOT_PROTOCOL, 0, NULL, 0), 0);
	assert_int_equal(hid_get_protocol(f_hid), HID_BOOT_PROTOCOL);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_PROTOCOL, 2, 0, NULL, 0), -USB_EPIPE);

	/* SET_REPORT: an LED report; oversized, empty, or to another interface: stall. */
	buf[0] = 0x02;	/* caps lock */
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_REPORT, 0x0200, 0, buf, 1), 1);
	assert_int_equal(ev.set_reports, 1);
	assert_int_equal(ev.last_len, 1);
	assert_int_equal(ev.last[0], 0x02);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_REPORT, 0x0200, 0, buf, 9), -USB_EPIPE);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_REPORT, 0x0200, 0, NULL, 0), -USB_EPIPE);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_REPORT, 0x0200, 1, buf, 1), -USB_EPIPE);
	assert_int_equal(ctrl(CLS_OUT, 0x05, 0, 0, NULL, 0), -USB_EPIPE);
	assert_int_equal(ev.set_reports, 1);

	/* An output report by interrupt OUT. */
	buf[0] = 0x01;
	assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, buf, 1, 0, TMO), 1);
	assert_int_equal(ev.out, 2);
	assert_int_equal(ev.set_reports, 1);
	assert_int_equal(ev.last[0], 0x01);
}

static void test_queue_full(void **state)
{
	uint8_t r[8] = { 0 }, buf[8];
	unsigned sent = 0;
	int rc;

	(void)state;
	start();
	assert_int_equal(hid_send_report(f_hid, r, 9), -USB_EINVAL);
	assert_int_equal(hid_send_report(f_hid, r, 0), -USB_EINVAL);
	while ((rc = hid_send_report(f_hid, (r[2] = (uint8_t)sent, r), 8)) == 0)
		sent++;
	assert_int_equal(rc, -USB_EAGAIN);
	assert_int_equal(sent, HID_REPORT_QUEUE + 1);	/* the queue and one in flight */
	assert_int_equal(hid_reports_pending(f_hid), sent);
	for (unsigned i = 0; i < sent; i++) {
		assert_int_equal(usb_inproc_host_transfer(H, EP_IN, buf, 8, 0, TMO), 8);
		assert_int_equal(buf[2], i);	/* in order, none lost */
	}
	assert_true(ev.writable >= 1);
	assert_int_equal(hid_reports_pending(f_hid), 0);
	assert_int_equal(ctrl(USB_DIR_OUT, USB_REQ_SET_CONFIGURATION, 0, 0, NULL, 0), 0);
	assert_int_equal(hid_send_report(f_hid, r, 8), -USB_ENOTCONN);
}

static void test_registry(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("hid.usb0");
	struct f_hid_opts *o;
	struct usb_function *f;
	char buf[64];

	(void)state;
	assert_false(usb_is_err(fi));
	o = f_hid_opts_from_instance(fi);
	assert_non_null(o);
	assert_int_equal(usb_function_instance_set(fi, "protocol", "1"), 0);
	assert_int_equal(usb_function_instance_set(fi, "subclass", "256"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "report_length", "0"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "report_length", "8"), 0);
	/* No descriptor yet: no function. */
	assert_int_equal(usb_ptr_err(usb_get_function(fi)), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "report_desc", "05 01 09 06 a1 01 c0\n"), 0);
	assert_int_equal(o->report_desc_length, 7);
	assert_int_equal(usb_function_instance_show(fi, "report_desc", buf, sizeof(buf)), 21);
	assert_string_equal(buf, "05 01 09 06 a1 01 c0\n");
	assert_int_equal(usb_function_instance_set(fi, "report_desc", "05 0"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "report_desc", "zz"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "report_desc", ""), -USB_EINVAL);
	assert_int_equal(o->report_desc_length, 7);
	assert_int_equal(usb_function_instance_show(fi, "dev", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "hidg:0\n");
	assert_int_equal(usb_function_instance_set(fi, "dev", "1"), -USB_EACCES);
	f = usb_get_function(fi);
	assert_true(hid_is(f));
	assert_int_equal(usb_function_instance_set(fi, "protocol", "2"), -USB_EBUSY);
	usb_put_function(f);
	usb_put_function_instance(fi);
}

/* ---- the hidg pipes ------------------------------------------------------------------ */

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_hidg(void **state)
{
	char in_path[64], out_path[64];
	struct hidg *g;
	uint8_t buf[8], got[8];
	int fd_in, fd_out;
	unsigned long long ins, outs, drops;
	long long t0;
	unsigned repeats = 0;

	(void)state;
	snprintf(in_path, sizeof(in_path), "/tmp/test_hidg.%d", (int)getpid());
	snprintf(out_path, sizeof(out_path), "/tmp/test_hidg_out.%d", (int)getpid());
	assert_int_equal(hidg_create(&g, &hid_opts, in_path, out_path), 0);
	start();
	assert_int_equal(hidg_start(g, f_hid), 0);
	fd_in = open(in_path, O_WRONLY);
	fd_out = open(out_path, O_RDONLY | O_NONBLOCK);
	assert_true(fd_in >= 0 && fd_out >= 0);

	/* Half a report: nothing is sent; the other half makes it whole. */
	memcpy(buf, ((uint8_t[8]){ 0, 0, 0x0b, 0x0c, 0, 0, 0, 0 }), 8);
	assert_int_equal(write(fd_in, buf, 4), 4);
	assert_int_equal(usb_inproc_host_transfer(H, EP_IN, got, 8, 0, 100), -USB_ETIMEDOUT);
	assert_int_equal(write(fd_in, buf + 4, 4), 4);
	assert_int_equal(usb_inproc_host_transfer(H, EP_IN, got, 8, 0, TMO), 8);
	assert_memory_equal(got, buf, 8);

	/* Idle 20 ms (5 units): the last report comes again and again. */
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_IDLE, 5 << 8, 0, NULL, 0), 0);
	t0 = ms_now();
	while (ms_now() - t0 < 200)
		if (usb_inproc_host_transfer(H, EP_IN, got, 8, 0, 50) == 8)
			repeats++;
	if (getenv("HID_DEBUG"))
		fprintf(stderr, "repeats %u\n", repeats);
	assert_memory_equal(got, buf, 8);
	/* 10 periods in 200 ms: allow for the machine's scheduling. */
	assert_true(repeats >= 3 && repeats <= 11);
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_IDLE, 0, 0, NULL, 0), 0);

	/* An output report comes out of its pipe whole. */
	got[0] = 0x04;
	assert_int_equal(ctrl(CLS_OUT, HID_REQ_SET_REPORT, 0x0200, 0, got, 1), 1);
	assert_int_equal(read(fd_out, got, sizeof(got)), 1);
	assert_int_equal(got[0], 0x04);
	hidg_counts(g, &ins, &outs, &drops);
	assert_true(ins >= 2);
	assert_int_equal(outs, 1);
	assert_int_equal(drops, 0);
	close(fd_in);
	close(fd_out);
	usb_composite_unregister(&drv);
	hidg_destroy(g);
	assert_int_equal(access(in_path, F_OK), -1);
	assert_int_equal(access(out_path, F_OK), -1);
}

static uint64_t ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Reports at the endpoint's interval (the host paces interrupt endpoints
 * as a host controller polls them): @n reports, all ready before the
 * host asks, take at least (n - 1) intervals to read, in order, none
 * lost. Only a lower bound: how fast beyond that is the benchmarks'
 * business (a loaded machine may be slower at will).
 */
static void paced_in(enum usb_device_speed speed, unsigned n, uint64_t interval_ns)
{
	uint8_t r[8] = { 0 }, buf[8];
	unsigned sent = 0;
	uint64_t t0, took;

	start_at(speed);
	while (sent < n && hid_send_report(f_hid, (r[2] = (uint8_t)sent, r), 8) == 0)
		sent++;
	t0 = ns_now();
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(usb_inproc_host_transfer(H, EP_IN, buf, 8, 0, TMO), 8);
		assert_int_equal(buf[2], (uint8_t)i);
		while (sent < n && hid_send_report(f_hid, (r[2] = (uint8_t)sent, r), 8) == 0)
			sent++;
	}
	took = ns_now() - t0;
	if (getenv("HID_DEBUG"))
		fprintf(stderr, "%u reports at speed %d: %.3f ms (interval %.3f ms)\n", n,
			(int)speed, took / 1e6, interval_ns / 1e6);
	if (took < (uint64_t)(n - 1) * interval_ns)
		fail_msg("%u reports in %.3f ms: faster than one a %.3f ms interval", n,
			 took / 1e6, interval_ns / 1e6);
}

/* High speed, bInterval 4: 2^3 microframes, 1 ms. */
static void test_hid_paced_high_speed(void **state)
{
	(void)state;
	paced_in(USB_SPEED_HIGH, 50, 1000000u);
}

/* Full speed, bInterval 10: 10 ms. */
static void test_hid_paced_full_speed(void **state)
{
	(void)state;
	paced_in(USB_SPEED_FULL, 12, 10000000u);
}

/* Output reports by interrupt OUT keep the interval too. */
static void test_hid_paced_out(void **state)
{
	uint8_t led = 0x02;
	uint64_t t0, took;
	unsigned n = 20;

	(void)state;
	start();
	t0 = ns_now();
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(usb_inproc_host_transfer(H, EP_OUT, &led, 1, 0, TMO), 1);
	took = ns_now() - t0;
	assert_true(took >= (uint64_t)(n - 1) * 1000000u);
	assert_int_equal(ev.out, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_full, setup, teardown),
		cmocka_unit_test(test_registry),
		cmocka_unit_test_setup_teardown(test_hidg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hid_paced_high_speed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hid_paced_full_speed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hid_paced_out, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
