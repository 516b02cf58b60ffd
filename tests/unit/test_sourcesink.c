/*
 * test_sourcesink.c - the SourceSink function through the core and the
 * scripted fake backend: enumeration and descriptors per speed, the source
 * patterns, the sink check (good and bad data, the stall, clearing it),
 * vendor requests 0x5b/0x5c, alternate settings 0/1, disable with requests
 * queued, and bad options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_sourcesink_fixture.h"

static uint8_t mod63(unsigned i, unsigned mp)
{
	return (uint8_t)((i % mp) % 63u);
}

static void start(struct gz_dev *d, enum usb_device_speed speed)
{
	assert_int_equal(gz_start(d, speed), 0);
	assert_non_null(d->func);
	assert_true(sourcesink_is(d->func));
}

static void test_sourcesink_opts_invalid(void **state)
{
	struct f_ss_opts o;
	struct usb_function *f = (struct usb_function *)1;

	(void)state;
	f_ss_opts_init(&o);
	assert_int_equal(f_ss_opts_check(&o), 0);
#define BAD(field, value) do { \
		f_ss_opts_init(&o); \
		o.field = value; \
		assert_int_equal(sourcesink_alloc(&o, &f), -USB_EINVAL); \
		assert_null(f); \
	} while (0)
	BAD(pattern, 3);
	BAD(isoc_interval, 0);
	BAD(isoc_interval, 17);
	BAD(isoc_maxpacket, 1025);
	BAD(isoc_mult, 3);
	BAD(isoc_maxburst, 16);
	BAD(bulk_buflen, 0);
	BAD(bulk_qlen, 0);
	BAD(iso_qlen, 257);
#undef BAD
	assert_int_equal(sourcesink_alloc(NULL, &f), -USB_EINVAL);
	f_ss_opts_init(&o);
	assert_int_equal(sourcesink_alloc(&o, &f), 0);
	assert_true(sourcesink_is(f));
	sourcesink_free(f);
}

static void test_sourcesink_enumerate(void **state)
{
	static struct gz_dev d;
	uint8_t dev[18], cfg[256], str[128];
	const struct usb_endpoint_descriptor *e;
	const char *name = "source and sink data";
	int len;

	(void)state;
	gz_init(&d, false);
	start(&d, USB_SPEED_HIGH);

	assert_int_equal(gz_get_descriptor(&d, USB_DT_DEVICE, 0, dev, 18), 18);
	assert_int_equal(usb_get_le16(dev + 8), 0x0525);
	assert_int_equal(usb_get_le16(dev + 10), 0xa4a0);
	assert_int_equal(dev[4], USB_CLASS_VENDOR_SPEC);

	len = gz_get_descriptor(&d, USB_DT_CONFIG, 0, cfg, sizeof(cfg));
	/* config + alt 0 (intf, 2 bulk) + alt 1 (intf, 2 bulk, 2 iso) */
	assert_int_equal(len, 9 + 9 + 2 * 7 + 9 + 4 * 7);
	assert_int_equal(usb_get_le16(cfg + 2), len);
	assert_int_equal(cfg[4], 1);			/* bNumInterfaces */
	assert_int_equal(cfg[5], GZ_CONFIG_VALUE);
	assert_int_equal(cfg[9 + 5], USB_CLASS_VENDOR_SPEC);
	assert_int_equal(d.num_alts, 2);
	assert_true(d.in_addr & USB_DIR_IN);
	assert_false(d.out_addr & USB_DIR_IN);
	e = gz_find_ep_desc(cfg, (unsigned)len, 0, d.in_addr);
	assert_non_null(e);
	assert_int_equal(usb_get_le16(&e->wMaxPacketSize), 512);
	e = gz_find_ep_desc(cfg, (unsigned)len, 1, d.iso_in_addr);
	assert_non_null(e);
	assert_int_equal(e->bmAttributes & 3, USB_ENDPOINT_XFER_ISOC);
	assert_int_equal(usb_get_le16(&e->wMaxPacketSize), 1024);
	assert_int_equal(e->bInterval, GZERO_ISOC_INTERVAL);
	assert_non_null(gz_find_ep_desc(cfg, (unsigned)len, 1, d.iso_out_addr));

	/* The interface string. */
	len = gz_get_descriptor(&d, USB_DT_STRING, cfg[9 + 8], str, sizeof(str));
	assert_int_equal(len, 2 + 2 * (int)strlen(name));
	for (size_t i = 0; i < strlen(name); i++)
		assert_int_equal(usb_get_le16(str + 2 + 2 * i), (uint16_t)name[i]);

	/* Configured: one request queued per bulk endpoint (bulk_qlen 1). */
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 1);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 1);
	assert_int_equal(gz_head(&d, d.in_addr)->length, GZERO_BULK_BUFLEN);
	assert_int_equal(gz_get_interface(&d, 0), 0);
	gz_stop(&d);
	assert_int_equal(d.udc.live_requests, 0);
}

static void test_sourcesink_descriptors_full_and_super(void **state)
{
	static struct gz_dev d;
	uint8_t cfg[256];
	const struct usb_endpoint_descriptor *e;
	int len;

	(void)state;
	gz_init(&d, false);
	start(&d, USB_SPEED_FULL);
	len = gz_get_descriptor(&d, USB_DT_CONFIG, 0, cfg, sizeof(cfg));
	e = gz_find_ep_desc(cfg, (unsigned)len, 0, d.out_addr);
	assert_non_null(e);
	assert_int_equal(usb_get_le16(&e->wMaxPacketSize), 64);
	/* Full speed iso: at most 1023 bytes. */
	e = gz_find_ep_desc(cfg, (unsigned)len, 1, d.iso_out_addr);
	assert_non_null(e);
	assert_int_equal(usb_get_le16(&e->wMaxPacketSize), 1023);
	gz_stop(&d);

	gz_init(&d, false);
	d.ss.isoc_mult = 2;
	d.ss.isoc_maxburst = 3;
	d.ss.isoc_maxpacket = 512;
	start(&d, USB_SPEED_SUPER);
	len = gz_get_descriptor(&d, USB_DT_CONFIG, 0, cfg, sizeof(cfg));
	/* Every endpoint is followed by its companion. */
	assert_int_equal(len, 9 + 9 + 2 * (7 + 6) + 9 + 4 * (7 + 6));
	e = gz_find_ep_desc(cfg, (unsigned)len, 0, d.in_addr);
	assert_non_null(e);
	assert_int_equal(usb_get_le16(&e->wMaxPacketSize), 1024);
	e = gz_find_ep_desc(cfg, (unsigned)len, 1, d.iso_in_addr);
	assert_non_null(e);
	{
		const uint8_t *comp = (const uint8_t *)e + 7;

		assert_int_equal(comp[1], USB_DT_SS_ENDPOINT_COMP);
		assert_int_equal(comp[2], 3);		/* bMaxBurst */
		assert_int_equal(comp[3], 2);		/* mult */
		assert_int_equal(usb_get_le16(comp + 4), 512 * 3 * 4);
	}
	gz_stop(&d);
}

static void test_sourcesink_source_pattern(void **state)
{
	for (unsigned pattern = 0; pattern < 2; pattern++) {
		static struct gz_dev d;
		struct usb_request *r;
		struct f_ss_stats st;
		const uint8_t *b;

		(void)state;
		gz_init(&d, false);
		d.ss.pattern = pattern;
		d.ss.bulk_buflen = 2000;	/* not a packet multiple */
		start(&d, USB_SPEED_HIGH);
		for (int round = 0; round < 3; round++) {
			r = gz_head(&d, d.in_addr);
			assert_non_null(r);
			assert_int_equal(r->length, 2000);
			b = r->buf;
			for (unsigned i = 0; i < r->length; i++)
				assert_int_equal(b[i], pattern ? mod63(i, 512) : 0);
			/* The host read it all (then a short part): requeued. */
			assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), 0,
						     round == 1 ? 700 : 2000));
			assert_int_equal(gz_ep(&d, d.in_addr)->queued, 1);
		}
		sourcesink_get_stats(d.func, &st);
		assert_int_equal(st.in_bytes, 2000 + 700 + 2000);
		assert_int_equal(st.cur_alt, 0);
		gz_stop(&d);
	}
}

/* Deliver @n bytes of the pattern (with byte @bad flipped if < n) to OUT. */
static void sink(struct gz_dev *d, unsigned pattern, unsigned n, unsigned bad)
{
	struct usb_request *r = gz_head(d, d->out_addr);
	uint8_t *b;

	assert_non_null(r);
	assert_true(n <= r->length);
	b = r->buf;
	for (unsigned i = 0; i < n; i++)
		b[i] = pattern == 1 ? mod63(i, 512) : (pattern == 0 ? 0 : (uint8_t)(i * 7));
	if (bad < n)
		b[bad] ^= 0x20;
	assert_true(fake_ep_complete(gz_ep(d, d->out_addr), 0, n));
}

static void test_sourcesink_sink_good_data(void **state)
{
	for (unsigned pattern = 0; pattern < 3; pattern++) {
		static struct gz_dev d;
		struct f_ss_stats st;

		(void)state;
		gz_init(&d, false);
		d.ss.pattern = pattern;
		start(&d, USB_SPEED_HIGH);
		sink(&d, pattern, 4096, ~0u);
		sink(&d, pattern, 1, ~0u);	/* a short transfer */
		sink(&d, pattern, 1500, ~0u);
		sourcesink_get_stats(d.func, &st);
		assert_int_equal(st.out_bytes, 4096 + 1 + 1500);
		assert_int_equal(st.bad_packets, 0);
		assert_false(usb_ep_is_halted(&gz_ep(&d, d.out_addr)->ep));
		assert_int_equal(gz_ep(&d, d.out_addr)->queued, 1);
		gz_stop(&d);
	}
}

static void test_sourcesink_sink_bad_data_stalls(void **state)
{
	static struct gz_dev d;
	struct f_ss_stats st;
	struct fake_ep *out;

	(void)state;
	for (unsigned pattern = 0; pattern < 2; pattern++) {
		gz_init(&d, false);
		d.ss.pattern = pattern;
		start(&d, USB_SPEED_HIGH);
		out = gz_ep(&d, d.out_addr);
		/* A wrong byte in the second packet. */
		sink(&d, pattern, 1024, 600);
		sourcesink_get_stats(d.func, &st);
		assert_int_equal(st.bad_packets, 1);
		assert_true(usb_ep_is_halted(&out->ep));
		assert_true(out->hw_halted);
		/* The request is queued again, waiting behind the halt. */
		assert_int_equal(out->queued, 1);
		/* The host clears the halt; good data then passes. */
		assert_int_equal(gz_clear_halt(&d, d.out_addr), 0);
		assert_false(usb_ep_is_halted(&out->ep));
		sink(&d, pattern, 1024, ~0u);
		sourcesink_get_stats(d.func, &st);
		assert_int_equal(st.bad_packets, 1);
		assert_false(usb_ep_is_halted(&out->ep));
		/* Stale bytes from the last transfer never pass as new data:
		 * the buffer is refilled with 0x55 after each check. */
		assert_int_equal(((uint8_t *)gz_head(&d, d.out_addr)->buf)[0], 0x55);
		gz_stop(&d);
	}
	/* Pattern 1 is per packet: the same data at full speed (64-byte
	 * packets) is wrong from byte 64 on. */
	gz_init(&d, false);
	d.ss.pattern = 1;
	start(&d, USB_SPEED_FULL);
	sink(&d, 1, 512, ~0u);		/* sink() writes 512-byte packets */
	sourcesink_get_stats(d.func, &st);
	assert_int_equal(st.bad_packets, 1);
	gz_stop(&d);
}

static int ctrl_out(struct gz_dev *d, uint8_t type, uint8_t req, uint16_t value,
		    uint16_t index, const void *data, uint16_t len)
{
	uint8_t s[8] = { type, req };

	usb_put_le16(s + 2, value);
	usb_put_le16(s + 4, index);
	usb_put_le16(s + 6, len);
	return fake_control(&d->udc, s, data, NULL, 0);
}

static void test_sourcesink_vendor_requests(void **state)
{
	static uint8_t data[USB_COMP_EP0_BUFSIZ], back[USB_COMP_EP0_BUFSIZ];
	static struct gz_dev d;
	struct f_ss_stats st;
	uint8_t dev[18];

	(void)state;
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 5);
	gz_init(&d, false);
	assert_int_equal(gz_start(&d, USB_SPEED_HIGH), 0);

	for (unsigned len = 0; len <= 4096; len += len < 64 ? 1 : 509) {
		memset(back, 0, sizeof(back));
		assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 0, data,
					  (uint16_t)len), (int)len);
		/* A standard request in between must not disturb the buffer. */
		assert_int_equal(gz_get_descriptor(&d, USB_DT_DEVICE, 0, dev, 18), 18);
		assert_int_equal(fake_ctrl(&d.udc, USB_DIR_IN | USB_TYPE_VENDOR, 0x5c, 0, 0,
					   (uint16_t)len, back, sizeof(back)), (int)len);
		if (len)
			assert_memory_equal(back, data, len);
	}
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 0, data, 4096),
			 4096);
	assert_int_equal(fake_ctrl(&d.udc, USB_DIR_IN | USB_TYPE_VENDOR, 0x5c, 0, 0, 4096, back,
				   sizeof(back)), 4096);
	assert_memory_equal(back, data, 4096);
	sourcesink_get_stats(d.func, &st);
	assert_true(st.ctrl_writes >= 20 && st.ctrl_reads >= 20);

	/* What Linux's f_sourcesink refuses, refused the same way. */
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 1, 0, data, 8),
			 FAKE_STALL);
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 1, data, 8),
			 FAKE_STALL);
	assert_int_equal(fake_ctrl(&d.udc, USB_DIR_IN | USB_TYPE_VENDOR, 0x5c, 0, 0, 4097, back,
				   sizeof(back)), FAKE_STALL);
	assert_int_equal(fake_ctrl(&d.udc, USB_DIR_IN | USB_TYPE_VENDOR, 0x5b, 0, 0, 8, back,
				   sizeof(back)), FAKE_STALL);
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5c, 0, 0, data, 8),
			 FAKE_STALL);
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_INTERFACE, 0x5b,
				  0, 0, data, 8), FAKE_STALL);
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5d, 0, 0, data, 8),
			 FAKE_STALL);
	/* Unconfigured: no function answers. */
	assert_int_equal(gz_set_config(&d, 0), 0);
	assert_int_equal(ctrl_out(&d, USB_DIR_OUT | USB_TYPE_VENDOR, 0x5b, 0, 0, data, 8),
			 FAKE_STALL);
	gz_stop(&d);
}

static void test_sourcesink_set_alt(void **state)
{
	static struct gz_dev d;
	struct f_ss_stats st;
	struct usb_request *r;

	(void)state;
	gz_init(&d, false);
	d.ss.pattern = 1;
	start(&d, USB_SPEED_HIGH);
	assert_int_equal(gz_ep(&d, d.iso_in_addr)->queued, 0);

	assert_int_equal(gz_set_interface(&d, 0, 1), 0);
	assert_int_equal(gz_get_interface(&d, 0), 1);
	sourcesink_get_stats(d.func, &st);
	assert_int_equal(st.cur_alt, 1);
	assert_true(st.has_iso);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 1);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 1);
	assert_int_equal(gz_ep(&d, d.iso_in_addr)->queued, GZERO_SS_ISO_QLEN);
	assert_int_equal(gz_ep(&d, d.iso_out_addr)->queued, GZERO_SS_ISO_QLEN);
	/* One service interval per request: maxpacket * (mult + 1). */
	r = gz_head(&d, d.iso_in_addr);
	assert_int_equal(r->length, 1024);
	assert_int_equal(((uint8_t *)r->buf)[100], mod63(100, 1024));
	assert_true(fake_ep_complete(gz_ep(&d, d.iso_in_addr), 0, 1024));
	assert_true(fake_ep_complete(gz_ep(&d, d.iso_out_addr), 0, 10));
	assert_int_equal(gz_ep(&d, d.iso_in_addr)->queued, GZERO_SS_ISO_QLEN);
	sourcesink_get_stats(d.func, &st);
	assert_int_equal(st.iso_in_bytes, 1024);
	assert_int_equal(st.iso_out_bytes, 10);

	/* Back to 0: the iso endpoints are stopped, their requests given back. */
	assert_int_equal(gz_set_interface(&d, 0, 0), 0);
	assert_int_equal(gz_get_interface(&d, 0), 0);
	assert_int_equal(gz_ep(&d, d.iso_in_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.iso_out_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 1);
	/* Alternates that do not exist stall. */
	assert_int_equal(gz_set_interface(&d, 0, 2), FAKE_STALL);
	assert_int_equal(gz_set_interface(&d, 1, 0), FAKE_STALL);
	gz_stop(&d);

	/* iso=0: only alternate 0. */
	gz_init(&d, false);
	d.ss.no_iso = true;
	start(&d, USB_SPEED_HIGH);
	assert_int_equal(d.num_alts, 1);
	assert_int_equal(gz_set_interface(&d, 0, 1), FAKE_STALL);
	assert_int_equal(gz_set_interface(&d, 0, 0), 0);
	gz_stop(&d);
}

static void test_sourcesink_disable_during_transfers(void **state)
{
	static struct gz_dev d;
	struct f_ss_stats st;
	long pooled;

	(void)state;
	gz_init(&d, false);
	d.ss.bulk_qlen = 6;
	start(&d, USB_SPEED_HIGH);
	assert_int_equal(gz_set_interface(&d, 0, 1), 0);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 6);
	assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), 0, 4096));

	/* SET_CONFIGURATION 0 with everything queued: all given back; the
	 * pools stay until unbind (ep0's request, 2 x 6 bulk, 2 x iso). */
	assert_int_equal(gz_set_config(&d, 0), 0);
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 0);
	assert_int_equal(gz_ep(&d, d.iso_in_addr)->queued, 0);
	pooled = d.udc.live_requests;
	assert_int_equal(pooled, 1 + 2 * 6 + 2 * GZERO_SS_ISO_QLEN);
	sourcesink_get_stats(d.func, &st);
	assert_int_equal(st.cur_alt, -1);

	/* Configured again: the same pool. A bus reset then disables it. */
	assert_int_equal(gz_set_config(&d, GZ_CONFIG_VALUE), 0);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 6);
	fake_udc_reset(&d.udc, USB_SPEED_HIGH);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 0);
	assert_int_equal(d.udc.live_requests, pooled);

	/* Unregister while configured with requests queued: nothing leaks. */
	assert_int_equal(fake_ctrl(&d.udc, USB_DIR_OUT, USB_REQ_SET_ADDRESS, 6, 0, 0, NULL, 0), 0);
	assert_int_equal(gz_set_config(&d, GZ_CONFIG_VALUE), 0);
	assert_int_equal(gz_set_interface(&d, 0, 1), 0);
	assert_int_equal(gz_ep(&d, d.iso_in_addr)->queued, GZERO_SS_ISO_QLEN);
	assert_int_equal(gz_head(&d, d.iso_in_addr)->length, 1024);
	/* Nothing was allocated after bind (heap or pool, requests included). */
	assert_int_equal(gz_allocs(&d), d.bound_allocs);
	gz_stop(&d);
	assert_int_equal(d.udc.live_requests, 0);
}

static void test_sourcesink_cancelled_requests_requeue(void **state)
{
	static struct gz_dev d;

	(void)state;
	gz_init(&d, false);
	d.ss.bulk_qlen = 2;
	start(&d, USB_SPEED_HIGH);
	/* A backend cancelling for a host-side unlink, an overflow, a short
	 * read: the endpoint stays fed. */
	assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), -USB_ECONNRESET, 0));
	assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), -USB_EOVERFLOW, 0));
	assert_true(fake_ep_complete(gz_ep(&d, d.out_addr), -USB_EREMOTEIO, 0));
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 2);
	assert_int_equal(gz_ep(&d, d.out_addr)->queued, 2);
	/* A shutdown completion leaves the request idle until disable. */
	assert_true(fake_ep_complete(gz_ep(&d, d.in_addr), -USB_ESHUTDOWN, 0));
	assert_int_equal(gz_ep(&d, d.in_addr)->queued, 1);
	gz_stop(&d);
	assert_int_equal(d.udc.live_requests, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sourcesink_opts_invalid, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_enumerate, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_descriptors_full_and_super, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_source_pattern, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_sink_good_data, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_sink_bad_data_stalls, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_vendor_requests, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_set_alt, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_disable_during_transfers, gz_teardown),
		cmocka_unit_test_teardown(test_sourcesink_cancelled_requests_requeue, gz_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
