/*
 * test_core_inproc.c - the chapter 9 transcripts of test_core_ep0_table.h
 * again, through the in-process host (src/udc/inproc), a backend with a
 * real controller's packet rules, instead of the fake: the core must
 * answer the same on both. Built only where the in-process backend is (POSIX).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "composite/inproc_host.h"
#include "test_core_ep0_table.h"

/* The fake's endpoint layout, so that addresses come out the same. */
static const struct usb_inproc_ep_config lb_eps[] = {
	{ .address = 0x81, .bulk = 1, .intr = 1 }, { .address = 0x02, .bulk = 1, .intr = 1 },
	{ .address = 0x83, .bulk = 1, .intr = 1 }, { .address = 0x04, .bulk = 1, .intr = 1 },
	{ .address = 0x85, .intr = 1 }, { .address = 0x06, .intr = 1 },
	{ .address = 0x87, .bulk = 1, .intr = 1, .iso = 1 },
	{ .address = 0x08, .bulk = 1, .intr = 1, .iso = 1 },
};

static int control(struct usb_inproc_host *h, const uint8_t setup[8], void *data)
{
	struct usb_ctrlrequest c;
	int ret;

	memcpy(&c, setup, sizeof(c));
	ret = usb_inproc_host_control(h, &c, usb_get_le16(setup + 6) ? data : NULL, 50);
	if (ret == -USB_EPIPE)
		return FAKE_STALL;
	if (ret == -USB_ETIMEDOUT)
		return FAKE_PENDING;
	return ret;
}

static void test_core_inproc_transcripts(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < N_TRANSCRIPTS; i++) {
		const struct transcript *t = &transcripts[i];
		enum usb_device_speed max = t->kind == FS ? USB_SPEED_FULL :
					    t->kind == SS ? USB_SPEED_SUPER : USB_SPEED_HIGH;
		enum usb_device_speed speed = t->kind == HS_AT_FS || t->kind == FS ?
					      USB_SPEED_FULL : max;
		struct usb_inproc_host_config cfg = {
			.udc_name = "core.lb", .max_speed = max, .ep0_maxpacket = 64,
			.endpoints = lb_eps, .num_endpoints = sizeof(lb_eps) / sizeof(lb_eps[0]),
		};
		struct usb_inproc_host *h;
		uint8_t buf[USB_COMP_EP0_BUFSIZ];
		unsigned s;

		tfunc_init(&f, "loop");
		tdev_init(&d, max, t->kind == LPM ? 0x0201 : t->kind == SS ? 0x0300 : 0x0200, &f);
		if (t->kind == WAKE)
			d.cfg[0].bmAttributes = USB_CONFIG_ATT_WAKEUP;
		d.driver.udc_name = "core.lb";
		assert_int_equal(usb_inproc_host_create(&cfg, &h), 0);
		assert_int_equal(usb_composite_probe(&d.driver), 0);
		assert_int_equal(usb_inproc_host_connect(h, speed), 0);
		if (t->state >= S_ADDRESS)
			assert_int_equal(control(h, (const uint8_t[8]){ 0, 5, 5, 0, 0, 0, 0, 0 }, NULL), 0);
		if (t->state >= S_CONFIGURED)
			assert_int_equal(control(h, (const uint8_t[8]){ 0, 9, 1, 0, 0, 0, 0, 0 }, NULL), 0);
		for (s = 0; s < MAX_STEPS && step_used(t, s); s++) {
			const struct step *st = &t->steps[s];
			int got;

			memset(buf, 0, sizeof(buf));
			buf[0] = 1;	/* OUT data for the requests that take some */
			got = control(h, st->setup, buf);
			if (got != st->expect) {
				print_message("%s, step %u: got %d, expected %d\n", t->name, s,
					      got, st->expect);
				failures++;
				break;
			}
			if (got > 0 && (st->setup[0] & USB_DIR_IN) &&
			    memcmp(buf, st->reply, (size_t)(got < 64 ? got : 64)) != 0) {
				print_message("%s, step %u: reply differs\n", t->name, s);
				failures++;
				break;
			}
		}
		usb_inproc_host_destroy(h);	/* unbinds the driver */
		assert_null(get_gadget_data(&d.udc.gadget));
		assert_int_equal(f.free_calls, 1);
	}
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_inproc_transcripts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
