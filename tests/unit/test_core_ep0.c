/*
 * test_core_ep0.c - chapter 9 on ep0 as data: the transcripts of
 * test_core_ep0_table.h (8 SETUP bytes in; reply bytes, a zero-length
 * status or a stall out), each run on a fresh device on the fake backend
 * brought to the default, address or configured state at a given speed;
 * the after-status actions (SET_ADDRESS, TEST_MODE), the ZLP flag, and a
 * sweep of malformed packets in every state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_core_ep0_table.h"

static void bring_up(struct tdev *d, struct tfunc *f, enum dev_kind kind, enum dev_state st)
{
	enum usb_device_speed max = kind == FS ? USB_SPEED_FULL :
				    kind == SS ? USB_SPEED_SUPER : USB_SPEED_HIGH;
	enum usb_device_speed speed = kind == HS_AT_FS || kind == FS ? USB_SPEED_FULL : max;
	uint16_t bcd = kind == LPM ? 0x0201 : kind == SS ? 0x0300 : 0x0200;

	tfunc_init(f, "loop");
	tdev_init(d, max, bcd, f);
	if (kind == WAKE)
		d->cfg[0].bmAttributes = USB_CONFIG_ATT_WAKEUP;
	assert_int_equal(tdev_start(d), 0);
	fake_udc_reset(&d->udc, speed);
	if (st >= S_ADDRESS)
		assert_int_equal(fake_ctrl(&d->udc, 0, USB_REQ_SET_ADDRESS, 5, 0, 0, NULL, 0), 0);
	if (st >= S_CONFIGURED)
		assert_int_equal(fake_ctrl(&d->udc, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, 0), 0);
}

static void test_core_ep0_transcripts(void **state)
{
	static const uint8_t out_data[64] = { 1, 2, 3, 4, 5, 6 };
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < N_TRANSCRIPTS; i++) {
		const struct transcript *t = &transcripts[i];
		static struct tdev d;
		static struct tfunc f;
		unsigned s;

		bring_up(&d, &f, t->kind, t->state);
		for (s = 0; s < MAX_STEPS; s++) {
			const struct step *st = &t->steps[s];
			uint8_t reply[USB_COMP_EP0_BUFSIZ];
			int got;

			if (!step_used(t, s))
				break;
			memset(reply, 0xee, sizeof(reply));
			got = fake_control(&d.udc, st->setup, out_data, reply, sizeof(reply));
			if (got != st->expect) {
				print_message("%s, step %u: got %d, expected %d\n", t->name, s,
					      got, st->expect);
				failures++;
				break;
			}
			if (got > 0 && (st->setup[0] & USB_DIR_IN) && memcmp(reply, st->reply, (size_t)(got < 64 ? got : 64)) != 0) {
				int k;

				print_message("%s, step %u: reply differs:", t->name, s);
				for (k = 0; k < got && k < 64; k++)
					print_message(" %02x/%02x", reply[k], st->reply[k]);
				print_message("\n");
				failures++;
				break;
			}
		}
		tdev_stop(&d);
		assert_int_equal(d.udc.live_requests, 0);
	}
	assert_int_equal(failures, 0);
}

/* Every step also leaves no request queued after the status stage. */
static void test_core_ep0_set_address_calls_backend_after_status(void **state)
{
	static struct tdev d;
	static struct tfunc f;

	(void)state;
	bring_up(&d, &f, HS, S_DEFAULT);
	assert_int_equal(d.udc.gadget.state, USB_STATE_DEFAULT);
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0, 5, 42, 0, 0, 0, 0, 0 }), 0);
	/* Not before the status stage. */
	assert_int_equal(d.udc.set_address_calls, 0);
	assert_non_null(fake_ep0_req(&d.udc));
	assert_int_equal(fake_ep0_req(&d.udc)->length, 0);
	fake_ep0_complete(&d.udc, 0, 0);
	assert_int_equal(d.udc.set_address_calls, 1);
	assert_int_equal(d.udc.address, 42);
	assert_int_equal(d.udc.gadget.state, USB_STATE_ADDRESS);
	/* A failed status stage does not call it. */
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0, 5, 43, 0, 0, 0, 0, 0 }), 0);
	fake_ep0_complete(&d.udc, -USB_EPROTO, 0);
	assert_int_equal(d.udc.set_address_calls, 1);
	tdev_stop(&d);
}

static void test_core_ep0_test_mode_after_status(void **state)
{
	static struct tdev d;
	static struct tfunc f;

	(void)state;
	bring_up(&d, &f, HS, S_ADDRESS);
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0, 3, 2, 0, 0, 3, 0, 0 }), 0);
	assert_int_equal(d.udc.test_mode_calls, 0);
	fake_ep0_complete(&d.udc, 0, 0);
	assert_int_equal(d.udc.test_mode_calls, 1);
	assert_int_equal(d.udc.test_selector, USB_TEST_SE0_NAK);
	/* Without the op: stall. */
	d.udc.ops.test_mode = NULL;
	assert_int_equal(fake_ctrl(&d.udc, 0, 3, 2, 0x0300, 0, NULL, 0), FAKE_STALL);
	tdev_stop(&d);
}

static void test_core_ep0_zero_flag(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	struct usb_request *r;

	(void)state;
	bring_up(&d, &f, HS, S_ADDRESS);
	/* 18 < 64: short packet already, no ZLP. */
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0x80, 6, 0, 1, 0, 0, 64, 0 }), 0);
	r = fake_ep0_req(&d.udc);
	assert_int_equal(r->length, 18);
	assert_false(r->zero);
	fake_ep0_complete(&d.udc, 0, r->length);
	/* 32-byte config asked with 64 and ep0 maxpacket 32: ZLP needed. */
	usb_ep_set_maxpacket_limit(d.udc.gadget.ep0, 32);
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0x80, 6, 0, 2, 0, 0, 64, 0 }), 0);
	r = fake_ep0_req(&d.udc);
	assert_int_equal(r->length, 32);
	assert_true(r->zero);
	fake_ep0_complete(&d.udc, 0, r->length);
	/* Exactly wLength: no ZLP. */
	assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0x80, 6, 0, 2, 0, 0, 32, 0 }), 0);
	r = fake_ep0_req(&d.udc);
	assert_int_equal(r->length, 32);
	assert_false(r->zero);
	fake_ep0_complete(&d.udc, 0, r->length);
	/* bMaxPacketSize0 follows ep0. */
	{
		uint8_t dd[18];

		assert_int_equal(fake_ctrl(&d.udc, 0x80, 6, 0x0100, 0, 18, dd, sizeof(dd)), 18);
		assert_int_equal(dd[7], 32);
	}
	tdev_stop(&d);
}

static void test_core_ep0_no_driver_stalls(void **state)
{
	static struct fake_udc u;

	(void)state;
	fake_udc_init(&u, "fake.lonely", USB_SPEED_HIGH);
	assert_int_equal(usb_udc_register(&u.gadget), 0);
	fake_udc_reset(&u, USB_SPEED_HIGH);
	assert_int_equal(fake_ctrl(&u, 0x80, 6, 0x0100, 0, 18, NULL, 0), FAKE_STALL);
	usb_udc_unregister(&u.gadget);
}

/* Any 8 bytes in any state: no crash, and the EP0 contract holds (the
 * fake asserts length <= wLength and OUT length == wLength). */
static void test_core_ep0_malformed_exhaustive(void **state)
{
	static const uint8_t types[] = { 0x00, 0x01, 0x02, 0x03, 0x1f, 0x80, 0x81, 0x82, 0x83,
					 0x21, 0xa1, 0x41, 0xc1, 0xc2, 0xe0, 0x60 };
	static const uint16_t values[] = { 0x0000, 0x0001, 0x0002, 0x0100, 0x0200, 0x0201,
					   0x0300, 0x0301, 0x03ff, 0x0600, 0x0700, 0x0f00,
					   0xffff, 0x0080, 0x00ff };
	static const uint16_t indexes[] = { 0x0000, 0x0001, 0x0081, 0x0002, 0x0409, 0x00ff,
					    0xffff, 0x0400 };
	static const uint16_t lengths[] = { 0, 1, 2, 7, 64, 0xffff };
	unsigned st, a, b, c, e, r;
	static struct tdev d;
	static struct tfunc f;
	long n = 0;

	(void)state;
	for (st = S_DEFAULT; st <= S_CONFIGURED; st++) {
		bring_up(&d, &f, HS, (enum dev_state)st);
		for (a = 0; a < sizeof(types); a++)
			for (r = 0; r <= 0x32; r++)
				for (b = 0; b < sizeof(values) / 2; b++)
					for (c = 0; c < sizeof(indexes) / 2; c++)
						for (e = 0; e < sizeof(lengths) / 2; e++) {
							int got = fake_ctrl(&d.udc, types[a], (uint8_t)r,
									    values[b], indexes[c],
									    lengths[e], NULL, 0);

							assert_true(got >= 0 || got == FAKE_STALL ||
								    got == FAKE_PENDING);
							n++;
						}
		tdev_stop(&d);
		assert_int_equal(d.udc.live_requests, 0);
	}
	assert_true(n > 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_core_ep0_transcripts, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep0_set_address_calls_backend_after_status, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep0_test_mode_after_status, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep0_zero_flag, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep0_no_driver_stalls, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ep0_malformed_exhaustive, fake_udc_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
