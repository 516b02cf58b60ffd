/*
 * test_core_ch9_macros.c - every macro of <linux/usb/ch9.h> is defined by
 * the library's ch9 with the same value (function-like ones on one
 * argument). The tables come from tests/unit/ch9_macros.cmake.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_core_ch9.h"

static void test_core_ch9_macros_match_linux(void **state)
{
	size_t i;
	int missing = 0, differ = 0;

	(void)state;
	for (i = 0; core_ch9_linux_macros[i].name; i++) {
		const struct ch9_macro *l = &core_ch9_linux_macros[i];
		const struct ch9_macro *o = &core_ch9_own_macros[i];

		assert_string_equal(l->name, o->name);
		if (!o->defined) {
			print_message("missing: %s\n", l->name);
			missing++;
		} else if (o->value != l->value) {
			print_message("%s: linux %lld, own %lld\n", l->name, l->value, o->value);
			differ++;
		}
	}
	assert_null(core_ch9_own_macros[i].name);
	assert_true(i > 250);	/* Linux 6.1 has 273 */
	assert_int_equal(missing, 0);
	assert_int_equal(differ, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_ch9_macros_match_linux),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
