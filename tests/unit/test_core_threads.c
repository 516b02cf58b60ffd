/*
 * test_core_threads.c - usb_composite_setup_continue() from another
 * thread (a function's worker), racing with the SETUP dispatch that got
 * USB_GADGET_DELAYED_STATUS: whichever finishes first, the status stage is
 * queued exactly once. The test uses POSIX threads; the core does not.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_core_fixture.h"

static pthread_t worker;
static unsigned spin;

static void *continue_later(void *arg)
{
	struct usb_composite_dev *cdev = arg;
	volatile unsigned i;

	for (i = 0; i < spin; i++)
		;
	usb_composite_setup_continue(cdev);
	return NULL;
}

static int threaded_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	(void)intf;
	(void)alt;
	if (pthread_create(&worker, NULL, continue_later, f->config->cdev) != 0)
		return -USB_ENOMEM;
	/* Give the worker a head start some of the time. */
	{
		volatile unsigned i;

		for (i = 0; i < (spin % 3) * 200u; i++)
			;
	}
	return USB_GADGET_DELAYED_STATUS;
}

static void test_core_threads_setup_continue_race(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	unsigned round;

	(void)state;
	tfunc_init(&f, "worker");
	f.func.set_alt = threaded_set_alt;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	for (round = 0; round < 2000; round++) {
		int before = atomic_load(&d.udc.ep0.queue_calls);

		spin = (round * 37u) % 2000u;
		assert_int_equal(fake_setup(&d.udc, (const uint8_t[8]){ 0, 9, 1, 0, 0, 0, 0, 0 }), 0);
		assert_int_equal(pthread_join(worker, NULL), 0);
		assert_int_equal(atomic_load(&d.udc.ep0.queue_calls), before + 1);
		assert_non_null(fake_ep0_req(&d.udc));
		assert_int_equal(fake_ep0_req(&d.udc)->length, 0);
		fake_ep0_complete(&d.udc, 0, 0);
	}
	tdev_stop(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_core_threads_setup_continue_race, fake_udc_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
