/*
 * test_core_ch9.c - ch9_own.h against Linux's <linux/usb/ch9.h>: every
 * structure's size, every field's offset and every constant's value must
 * be the same (the two tables come from two translation units, one per
 * header), so code written against one runs with the other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "test_core_ch9.h"

static void test_core_ch9_layouts_match_linux(void **state)
{
	size_t i, n = 0;
	int bad = 0;

	(void)state;
	for (i = 0; core_ch9_linux[i].name; i++) {
		assert_non_null(core_ch9_own[i].name);
		assert_string_equal(core_ch9_linux[i].name, core_ch9_own[i].name);
		if (core_ch9_linux[i].value != core_ch9_own[i].value) {
			print_message("%s: linux %lld, own %lld\n", core_ch9_linux[i].name,
				      core_ch9_linux[i].value, core_ch9_own[i].value);
			bad++;
		}
		n++;
	}
	assert_null(core_ch9_own[i].name);
	assert_int_equal(bad, 0);
	assert_true(n > 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_ch9_layouts_match_linux),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
