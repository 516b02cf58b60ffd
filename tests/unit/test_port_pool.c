/*
 * test_port_pool.c - the static pool of COMPOSITE_NO_HEAP builds
 * (src/port/pool.c) on the host: bad regions refused, alignment, running
 * out, the top coming down over freed blocks in any order, bad frees
 * counted and harmless, objects never overlapping; and the public
 * usb_port_pool_*() answering -USB_EOPNOTSUPP in a build with the heap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "composite/errors.h"
#include "composite/port.h"
#include "port/pool.h"

#define ALIGN _Alignof(max_align_t)

static _Alignas(max_align_t) unsigned char region[4096 + ALIGN];

static void test_port_pool_init_refuses(void **state)
{
	struct composite__pool p;

	(void)state;
	assert_int_equal(composite__pool_init(&p, NULL, sizeof(region)), -USB_EINVAL);
	assert_int_equal(composite__pool_init(&p, region, 0), -USB_EINVAL);
	assert_int_equal(composite__pool_init(&p, region, composite__pool_block_bytes(1) - 1),
			 -USB_EINVAL);
	/* An odd start one short of a block after rounding up. */
	assert_int_equal(composite__pool_init(&p, region + 1,
					      composite__pool_block_bytes(1) - 1 + ALIGN - 1),
			 -USB_EINVAL);
	assert_int_equal(composite__pool_init(&p, region, composite__pool_block_bytes(1)), 0);
	assert_non_null(composite__pool_alloc(&p, 1));
	assert_null(composite__pool_alloc(&p, 1));
}

static void test_port_pool_alignment(void **state)
{
	struct composite__pool p;

	(void)state;
	/* Any start: every object is aligned for any type. */
	assert_int_equal(composite__pool_init(&p, region + 3, sizeof(region) - 3), 0);
	for (size_t n = 0; n < 40; n++) {
		unsigned char *o = composite__pool_alloc(&p, n);

		assert_non_null(o);
		assert_int_equal((uintptr_t)o % ALIGN, 0);
		assert_true(o >= region + 3 && o + n <= region + sizeof(region));
	}
}

static void test_port_pool_runs_out(void **state)
{
	struct composite__pool p;
	size_t block = composite__pool_block_bytes(100), fits;
	unsigned n = 0;

	(void)state;
	assert_int_equal(composite__pool_init(&p, region, 4096), 0);
	fits = p.size / block;
	while (composite__pool_alloc(&p, 100))
		n++;
	assert_int_equal(n, fits);
	assert_int_equal(p.allocs, fits);
	assert_int_equal(p.top, fits * block);
	assert_int_equal(p.peak, fits * block);
	/* More than the region, and a size that would overflow. */
	assert_int_equal(composite__pool_init(&p, region, 4096), 0);
	assert_null(composite__pool_alloc(&p, 4096));
	assert_null(composite__pool_alloc(&p, SIZE_MAX));
	assert_int_equal(p.top, 0);
	assert_int_equal(p.allocs, 0);
}

static void test_port_pool_free_lifo(void **state)
{
	struct composite__pool p;
	void *a, *b, *c, *again;

	(void)state;
	assert_int_equal(composite__pool_init(&p, region, sizeof(region)), 0);
	a = composite__pool_alloc(&p, 10);
	b = composite__pool_alloc(&p, 200);
	c = composite__pool_alloc(&p, 30);
	assert_true(a && b && c);
	/* Freed under a live block: kept until the one above goes. */
	composite__pool_free(&p, b);
	assert_int_equal(p.live, 2);
	assert_int_equal(p.top, composite__pool_block_bytes(10) + composite__pool_block_bytes(200) +
				composite__pool_block_bytes(30));
	composite__pool_free(&p, c);	/* the top comes down over b too */
	assert_int_equal(p.top, composite__pool_block_bytes(10));
	again = composite__pool_alloc(&p, 200);
	assert_ptr_equal(again, b);
	composite__pool_free(&p, again);
	composite__pool_free(&p, a);
	assert_int_equal(p.top, 0);
	assert_int_equal(p.live, 0);
	assert_int_equal(p.rejected, 0);
	assert_int_equal(p.peak, composite__pool_block_bytes(10) +
				 composite__pool_block_bytes(200) + composite__pool_block_bytes(30));
}

static void test_port_pool_bad_frees(void **state)
{
	struct composite__pool p;
	unsigned char *a, *b, outside[8];

	(void)state;
	assert_int_equal(composite__pool_init(&p, region, sizeof(region)), 0);
	a = composite__pool_alloc(&p, 64);
	b = composite__pool_alloc(&p, 64);
	composite__pool_free(&p, NULL);			/* ignored, not counted */
	composite__pool_free(&p, outside);
	composite__pool_free(&p, a + ALIGN);		/* inside an object */
	composite__pool_free(&p, b + 64);		/* past the top */
	assert_int_equal(p.rejected, 3);
	assert_int_equal(p.live, 2);
	composite__pool_free(&p, a);
	composite__pool_free(&p, a);			/* twice */
	assert_int_equal(p.rejected, 4);
	assert_int_equal(p.live, 1);
	composite__pool_free(&p, b);
	assert_int_equal(p.top, 0);
	composite__pool_free(&p, b);			/* gone with the top */
	assert_int_equal(p.rejected, 5);
}

/* Objects of several sizes, freed in a scrambled order while others are
 * written: no object ever overwrites another. */
static void test_port_pool_no_overlap(void **state)
{
	struct composite__pool p;
	unsigned char *obj[24];
	size_t len[24];
	unsigned seed = 1;

	(void)state;
	assert_int_equal(composite__pool_init(&p, region, sizeof(region)), 0);
	for (unsigned round = 0; round < 50; round++) {
		for (unsigned i = 0; i < 24; i++) {
			seed = seed * 1103515245u + 12345u;
			len[i] = (seed >> 16) % 120;
			obj[i] = composite__pool_alloc(&p, len[i]);
			assert_non_null(obj[i]);
			memset(obj[i], (int)i, len[i]);
		}
		for (unsigned k = 0; k < 24; k++) {
			unsigned i = (k * 7u + round) % 24u;

			for (size_t j = 0; j < len[i]; j++)
				assert_int_equal(obj[i][j], i);
			composite__pool_free(&p, obj[i]);
		}
		assert_int_equal(p.live, 0);
		assert_int_equal(p.top, 0);
	}
	assert_int_equal(p.rejected, 0);
}

static void test_port_pool_public_with_heap(void **state)
{
	struct usb_port_pool_stats st;

	(void)state;
	/* This build has the heap: the firmware's pool is not there. */
	assert_int_equal(usb_port_pool_init(region, sizeof(region)), -USB_EOPNOTSUPP);
	assert_int_equal(usb_port_pool_stats(&st), -USB_EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_pool_init_refuses),
		cmocka_unit_test(test_port_pool_alignment),
		cmocka_unit_test(test_port_pool_runs_out),
		cmocka_unit_test(test_port_pool_free_lifo),
		cmocka_unit_test(test_port_pool_bad_frees),
		cmocka_unit_test(test_port_pool_no_overlap),
		cmocka_unit_test(test_port_pool_public_with_heap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
