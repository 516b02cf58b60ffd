/*
 * test_fn_set.c - fn_set.h: adding functions (once each, at most
 * FN_SET_MAX), the current one following the host, and fn_set_try()
 * moving on from functions whose configuration is not the host's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "composite/function.h"
#include "functions/common/fn_set.h"

static struct usb_function fns[FN_SET_MAX + 1];
static struct usb_function *connected;	/* the one whose op takes data */
static unsigned calls;

static long take(struct usb_function *f, void *arg)
{
	calls++;
	if (f != connected)
		return -USB_ENOTCONN;
	return *(long *)arg;
}

static void test_fn_set_add(void **state)
{
	struct fn_set s;

	(void)state;
	fn_set_init(&s);
	assert_null(fn_set_current(&s));
	for (unsigned i = 0; i < FN_SET_MAX; i++)
		assert_int_equal(fn_set_add(&s, &fns[i]), 0);
	assert_int_equal(fn_set_add(&s, &fns[3]), -USB_EBUSY);
	assert_int_equal(fn_set_add(&s, &fns[FN_SET_MAX]), -USB_ENOSPC);
	assert_int_equal(fn_set_count(&s), FN_SET_MAX);
	assert_ptr_equal(fn_set_current(&s), &fns[0]);
	assert_ptr_equal(fn_set_at(&s, 5), &fns[5]);
}

static void test_fn_set_follow(void **state)
{
	struct fn_set s;

	(void)state;
	fn_set_init(&s);
	assert_false(fn_set_follow(&s, &fns[0]));
	assert_false(fn_set_is_current(&s, &fns[0]));
	assert_int_equal(fn_set_add(&s, &fns[0]), 0);
	assert_int_equal(fn_set_add(&s, &fns[1]), 0);
	assert_true(fn_set_is_current(&s, &fns[0]));
	assert_true(fn_set_follow(&s, &fns[1]));
	assert_true(fn_set_is_current(&s, &fns[1]));
	assert_false(fn_set_follow(&s, &fns[2]));	/* not started on it */
	assert_ptr_equal(fn_set_current(&s), &fns[1]);
}

static void test_fn_set_try(void **state)
{
	struct fn_set s;
	long value = 7;

	(void)state;
	fn_set_init(&s);
	connected = &fns[0];
	assert_int_equal(fn_set_try(&s, take, &value), -USB_ENOTCONN);	/* empty */
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(fn_set_add(&s, &fns[i]), 0);

	calls = 0;
	connected = &fns[2];
	assert_int_equal(fn_set_try(&s, take, &value), 7);
	assert_int_equal(calls, 3);
	assert_ptr_equal(fn_set_current(&s), &fns[2]);
	calls = 0;
	assert_int_equal(fn_set_try(&s, take, &value), 7);
	assert_int_equal(calls, 1);	/* the current one first */

	/* A result other than -USB_ENOTCONN (full: -USB_EAGAIN) is the answer. */
	value = -USB_EAGAIN;
	connected = &fns[1];
	calls = 0;
	assert_int_equal(fn_set_try(&s, take, &value), -USB_EAGAIN);
	assert_int_equal(calls, 3);	/* 2, then around to 0 and 1 */
	assert_ptr_equal(fn_set_current(&s), &fns[1]);

	connected = NULL;
	calls = 0;
	assert_int_equal(fn_set_try(&s, take, &value), -USB_ENOTCONN);
	assert_int_equal(calls, 3);
	assert_ptr_equal(fn_set_current(&s), &fns[1]);	/* unchanged */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fn_set_add),
		cmocka_unit_test(test_fn_set_follow),
		cmocka_unit_test(test_fn_set_try),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
