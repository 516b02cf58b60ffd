/*
 * test_core_kref.c - kref semantics, and the lifecycle they exist for:
 * state shared by the instances of a function in two configurations (as
 * fsg_common is) lives until the last instance is freed at unregister.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "test_core_fixture.h"

struct common {
	struct kref ref;
	int users;
};

static int releases;

static void common_release(struct kref *k)
{
	struct common *c = usb_container_of(k, struct common, ref);

	releases++;
	free(c);
}

static void test_core_kref_get_put(void **state)
{
	struct common *c = malloc(sizeof(*c));

	(void)state;
	releases = 0;
	kref_init(&c->ref);
	assert_int_equal(kref_read(&c->ref), 1);
	kref_get(&c->ref);
	kref_get(&c->ref);
	assert_int_equal(kref_read(&c->ref), 3);
	assert_int_equal(kref_put(&c->ref, common_release), 0);
	assert_int_equal(kref_put(&c->ref, common_release), 0);
	assert_int_equal(releases, 0);
	assert_int_equal(kref_put(&c->ref, common_release), 1);
	assert_int_equal(releases, 1);
}

/* A function instance holding a reference to the common state. */
struct shared_func {
	struct tfunc t;
	struct common *common;
};

static void shared_free(struct usb_function *f)
{
	struct shared_func *s = usb_container_of(f, struct shared_func, t.func);

	s->t.free_calls++;
	kref_put(&s->common->ref, common_release);
	s->common = NULL;
}

static void test_core_kref_shared_across_configs(void **state)
{
	static struct tdev d;
	static struct shared_func a, b;
	struct common *c;
	unsigned cycle;

	(void)state;
	for (cycle = 0; cycle < 3; cycle++) {
		releases = 0;
		c = malloc(sizeof(*c));
		assert_non_null(c);
		kref_init(&c->ref);	/* the driver's reference */
		tfunc_init(&a.t, "shared-a");
		tfunc_init(&b.t, "shared-b");
		a.t.func.free_func = shared_free;
		b.t.func.free_func = shared_free;
		a.common = b.common = c;
		kref_get(&c->ref);
		kref_get(&c->ref);
		tdev_init(&d, USB_SPEED_HIGH, 0x0200, &a.t);
		d.n_cfg = 2;
		d.funcs[1][0] = &b.t;
		assert_int_equal(tdev_start(&d), 0);
		/* The driver drops its reference after bind, as drivers do. */
		assert_int_equal(kref_put(&c->ref, common_release), 0);
		assert_int_equal(kref_read(&c->ref), 2);
		assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 2), 0);
		tdev_stop(&d);
		/* Both instances freed: the common state went with the last. */
		assert_int_equal(a.t.free_calls, 1);
		assert_int_equal(b.t.free_calls, 1);
		assert_int_equal(releases, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_kref_get_put),
		cmocka_unit_test_teardown(test_core_kref_shared_across_configs, fake_udc_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
