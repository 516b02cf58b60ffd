/*
 * test_f_loopback.c - the Loopback function through the core and the
 * scripted fake backend: enumeration, echo of many transfer sizes (with
 * the zero-length-packet rule), qlen back-pressure and ordering, disable
 * with transfers in flight, bad options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_sourcesink_fixture.h"

static void start(struct gz_dev *d, enum usb_device_speed speed)
{
	assert_int_equal(gz_start(d, speed), 0);
	assert_non_null(d->func);
	assert_true(loopback_is(d->func));
}

static void fill(uint8_t *b, unsigned n, unsigned seed)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)((i * 31u + seed * 17u) ^ (i >> 8));
}

static void test_f_loopback_opts_invalid(void **state)
{
	struct f_lb_opts o;
	struct usb_function *f;

	(void)state;
	f_lb_opts_init(&o);
	assert_int_equal(o.bulk_buflen, 4096);
	assert_int_equal(o.qlen, 32);
	o.qlen = 0;
	assert_int_equal(loopback_alloc(&o, &f), -USB_EINVAL);
	assert_null(f);
	f_lb_opts_init(&o);
	o.bulk_buflen = 0;
	assert_int_equal(loopback_alloc(&o, &f), -USB_EINVAL);
	o.bulk_buflen = 1024 * 1024 + 1;
	assert_int_equal(f_lb_opts_check(&o), -USB_EINVAL);
	f_lb_opts_init(&o);
	assert_int_equal(loopback_alloc(&o, &f), 0);
	assert_false(sourcesink_is(f));
	loopback_free(f);
}

static void test_f_loopback_enumerate(void **state)
{
	static struct gz_dev d;
	uint8_t cfg[128];
	const struct usb_endpoint_descriptor *e;
	int len;

	(void)state;
	gz_init(&d, true);
	start(&d, USB_SPEED_HIGH);
	len = gz_get_descriptor(&d, USB_DT_CONFIG, 0, cfg, sizeof(cfg));
	assert_int_equal(len, 9 + 9 + 2 * 7);
	assert_int_equal(d.num_alts, 1);
	assert_int_equal(cfg[9 + 5], USB_CLASS_VENDOR_SPEC);
	e = gz_find_ep_desc(cfg, (unsigned)len, 0, d.in_addr);
	assert_non_null(e);
	assert_int_equal(usb_get_le16(&e->wMaxPacketSize), 512);
	/* Every buffer waits for OUT data; nothing is queued IN. */
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 8);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 0);
	assert_int_equal(gz_head(&d, d.out_addr)->length, 4096);
	/* No alternate 1, and vendor requests are SourceSink's, not ours. */
	assert_int_equal(gz_set_interface(&d, 0, 1), FAKE_STALL);
	assert_int_equal(fake_ctrl(&d.udc, USB_DIR_IN | USB_TYPE_VENDOR, 0x5c, 0, 0, 8, cfg, 8),
			 FAKE_STALL);
	gz_stop(&d);
	assert_int_equal(d.udc.live_requests, 0);
}

static void test_f_loopback_echo_sizes(void **state)
{
	static const unsigned sizes[] = { 0, 1, 2, 63, 64, 65, 511, 512, 513, 1000, 1023,
					  1024, 2048, 4000, 4095, 4096 };
	static struct gz_dev d;
	struct f_lb_stats st;
	uint64_t total = 0;

	(void)state;
	gz_init(&d, true);
	start(&d, USB_SPEED_HIGH);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned n = sizes[k];
		struct usb_request *out = gz_head(&d, d.out_addr), *in;
		uint8_t expect[4096];

		assert_non_null(out);
		fill(out->buf, n, (unsigned)k);
		memcpy(expect, out->buf, n);
		assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), 0, n));
		assert_int_equal(gz_ep(&d, d.out_addr)->queued, 7);
		in = gz_head(&d, d.in_addr);
		assert_non_null(in);
		assert_int_equal(in->length, n);
		/* A transfer that ended short ends short on IN too. */
		assert_int_equal(in->zero, n < 4096);
		if (n)
			assert_memory_equal(in->buf, expect, n);
		assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), 0, n));
		assert_int_equal(gz_ep(&d, d.in_addr)->queued, 0);
		assert_int_equal(gz_ep(&d, d.out_addr)->queued, 8);
		total += n;
	}
	loopback_get_stats(d.func, &st);
	assert_int_equal(st.out_bytes, total);
	assert_int_equal(st.in_bytes, total);
	assert_true(st.enabled);
	gz_stop(&d);
}

static void test_f_loopback_qlen_backpressure_order(void **state)
{
	static struct gz_dev d;

	(void)state;
	gz_init(&d, true);
	d.lb.bulk_buflen = 512;
	start(&d, USB_SPEED_HIGH);
	/* The host writes 8 transfers and reads none back: every buffer now
	 * waits on IN and OUT has nothing queued (the host sees NAKs). */
	for (unsigned k = 0; k < 8; k++) {
		struct usb_request *out = gz_head(&d, d.out_addr);

		assert_non_null(out);
		fill(out->buf, 100 + k, k);
		assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), 0, 100 + k));
	}
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 8);
	/* Read back in order: each is the transfer written in that place. */
	for (unsigned k = 0; k < 8; k++) {
		struct usb_request *in = gz_head(&d, d.in_addr);
		uint8_t expect[512];

		assert_int_equal(in->length, 100 + k);
		fill(expect, 100 + k, k);
		assert_memory_equal(in->buf, expect, 100 + k);
		assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), 0, in->length));
		assert_int_equal(gz_ep(&d, d.out_addr)->queued, k + 1);
	}
	/* A transfer cancelled on IN (host unlink) frees its buffer too. */
	assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), 0, 10));
	assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), -USB_ECONNRESET, 0));
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 8);
	gz_stop(&d);
}

static void test_f_loopback_disable_during_transfers(void **state)
{
	static struct gz_dev d;
	struct f_lb_stats st;

	(void)state;
	gz_init(&d, true);
	start(&d, USB_SPEED_FULL);
	for (unsigned k = 0; k < 3; k++)
		assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), 0, 64));
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 3);
	assert_int_equal(gz_set_config(&d, 0), 0);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 0);
	/* The pairs stay until unbind: ep0's request and 8 x (OUT, IN). */
	assert_int_equal(d.udc.live_requests, 1 + 2 * 8);
	loopback_get_stats(d.func, &st);
	assert_false(st.enabled);
	/* SET_INTERFACE 0 restarts with the whole pool. */
	assert_int_equal(gz_set_config(&d, GZ_CONFIG_VALUE), 0);
	assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), 0, 64));
	assert_int_equal(gz_set_interface(&d, 0, 0), 0);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 8);
	/* A bus reset and a new configuration: the same pool again. */
	fake_udc_reset(&d.udc, USB_SPEED_HIGH);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 0);
	assert_int_equal(fake_ctrl(&d.udc, USB_DIR_OUT, USB_REQ_SET_ADDRESS, 6, 0, 0, NULL, 0), 0);
	assert_int_equal(gz_set_config(&d, GZ_CONFIG_VALUE), 0);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 8);
	assert_int_equal(gz_head(&d, d.out_addr)->length, 4096);
	/* Nothing was allocated after bind (heap or pool, requests included). */
	assert_int_equal(gz_allocs(&d), d.bound_allocs);
	gz_stop(&d);
	assert_int_equal(d.udc.live_requests, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_f_loopback_opts_invalid, gz_teardown),
		cmocka_unit_test_teardown(test_f_loopback_enumerate, gz_teardown),
		cmocka_unit_test_teardown(test_f_loopback_echo_sizes, gz_teardown),
		cmocka_unit_test_teardown(test_f_loopback_qlen_backpressure_order, gz_teardown),
		cmocka_unit_test_teardown(test_f_loopback_disable_during_transfers, gz_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
