/*
 * test_core_ids.c - id allocation and strings: interface numbers per
 * configuration (and their exhaustion), string ids (single, table, n,
 * exhaustion without partial allocation), the LANGID list over several
 * languages, UTF-8 to UTF-16LE (multi-byte, surrogate pairs, malformed
 * input, the 126-unit cut), descriptor copies and config_ep_by_speed().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "test_core_fixture.h"

static void test_core_ids_interfaces_exhaust(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	struct usb_configuration *c;
	int i;

	(void)state;
	tfunc_init(&f, "i");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	c = &d.cfg[0];
	/* f took 0: the next numbers run from 1. */
	for (i = 1; i < MAX_CONFIG_INTERFACES; i++)
		assert_int_equal(usb_interface_id(c, &f.func), i);
	assert_int_equal(usb_interface_id(c, &f.func), -USB_ENODEV);
	assert_int_equal(usb_interface_id(c, &f.func), -USB_ENODEV);
	tdev_stop(&d);
}

/* A function whose bind fails gives its interface numbers back. */
static void test_core_ids_failed_bind_returns_interfaces(void **state)
{
	static struct tdev d;
	static struct tfunc f1, f2, f3;

	(void)state;
	tfunc_init(&f1, "f1");
	tfunc_init(&f2, "f2");
	tfunc_init(&f3, "f3");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f1);
	assert_int_equal(tdev_start(&d), 0);
	f2.n_intf = 2;
	f2.bind_ret = -USB_EIO;
	assert_int_equal(usb_add_function(&d.cfg[0], &f2.func), -USB_EIO);
	{
		/* Through the describe seam: one interface left, numbered 0. */
		struct usb_gadget_config_info ci;
		uint8_t buf[256];

		assert_int_equal(usb_gadget_config_descriptor(&d.udc.gadget, 0, USB_SPEED_HIGH,
							      buf, sizeof(buf)) > 0, 1);
		assert_int_equal(buf[4], 1);	/* bNumInterfaces */
		assert_int_equal(usb_gadget_interface_classes(&d.udc.gadget, 0, USB_SPEED_HIGH,
							      &ci), 1);
		assert_int_equal(ci.intf[0].bInterfaceNumber, 0);
		assert_int_equal(ci.bConfigurationValue, d.cfg[0].bConfigurationValue);
	}
	assert_int_equal(usb_add_function(&d.cfg[0], &f3.func), 0);
	assert_int_equal(f3.intf_id[0], 1);
	tdev_stop(&d);
	assert_int_equal(f2.free_calls, 0);
	assert_int_equal(f3.free_calls, 1);
}

static void test_core_ids_strings_exhaust(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	struct usb_composite_dev *cdev;
	struct usb_string tab[4] = { { 0, "a" }, { 0, "b" }, { 0, "c" }, { 0, NULL } };
	int first, i;

	(void)state;
	tfunc_init(&f, "s");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	assert_int_equal(tdev_start(&d), 0);
	cdev = d.cdev;
	/* Maker 1, Thing 2, s 3. */
	assert_int_equal(usb_string_id(cdev), 4);
	first = usb_string_ids_n(cdev, 10);
	assert_int_equal(first, 5);
	assert_int_equal(usb_string_id(cdev), 15);
	assert_int_equal(usb_string_ids_tab(cdev, tab), 0);
	assert_int_equal(tab[0].id, 16);
	assert_int_equal(tab[2].id, 18);
	/* Up to 254 ids. */
	for (i = 19; i <= 252; i++)
		assert_int_equal(usb_string_id(cdev), i);
	/* Three more do not fit: none is taken. */
	tab[0].id = tab[1].id = tab[2].id = 0;
	assert_int_equal(usb_string_ids_tab(cdev, tab), -USB_ENODEV);
	assert_int_equal(tab[0].id, 0);
	assert_int_equal(usb_string_ids_n(cdev, 3), -USB_ENODEV);
	assert_int_equal(usb_string_ids_n(cdev, 2), 253);
	assert_int_equal(usb_string_id(cdev), -USB_ENODEV);
	tdev_stop(&d);
}

static void test_core_ids_languages(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	static struct usb_string de[] = { { 1, "Hersteller" }, { 0, NULL } };
	static struct usb_gadget_strings de_tab = { 0x0407, de };
	uint8_t buf[256];

	(void)state;
	tfunc_init(&f, "lang");
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	d.dev_gstrs[1] = &de_tab;	/* device strings in en-US and de-DE */
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 6, 0x0300, 0, 255, buf, sizeof(buf)), 6);
	{
		const uint8_t want[6] = { 6, 3, 0x09, 0x04, 0x07, 0x04 };

		assert_memory_equal(buf, want, 6);
	}
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 6, 0x0301, 0x0407, 255, buf, sizeof(buf)), 22);
	assert_int_equal(buf[2], 'H');
	/* String 2 exists only in en-US. */
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 6, 0x0302, 0x0407, 255, buf, sizeof(buf)),
			 FAKE_STALL);
	tdev_stop(&d);
}

static void test_core_ids_no_strings_stalls_langid(void **state)
{
	static struct tdev d;
	static struct tfunc f;
	uint8_t buf[16];

	(void)state;
	tfunc_init(&f, "n");
	f.str[0].s = NULL;
	tdev_init(&d, USB_SPEED_HIGH, 0x0200, &f);
	d.dev_str[0].s = NULL;
	assert_int_equal(tdev_start(&d), 0);
	assert_int_equal(tdev_enumerate(&d, USB_SPEED_HIGH, 0), 0);
	assert_int_equal(fake_ctrl(&d.udc, 0x80, 6, 0x0300, 0, 255, buf, sizeof(buf)), FAKE_STALL);
	tdev_stop(&d);
}

struct utf_case {
	const char *in;
	unsigned units;
	uint16_t first[4];
};

static void test_core_ids_utf8_to_utf16(void **state)
{
	static const struct utf_case cases[] = {
		{ "", 0, { 0 } },
		{ "A", 1, { 'A' } },
		{ "\xc3\xa9t\xc3\xa9", 3, { 0xe9, 't', 0xe9 } },
		{ "\xe2\x82\xac", 1, { 0x20ac } },			/* euro sign */
		{ "\xf0\x9f\x98\x80", 2, { 0xd83d, 0xde00 } },		/* U+1F600 */
		{ "\xff" "A", 2, { 0xfffd, 'A' } },			/* invalid lead */
		{ "\xc3", 1, { 0xfffd } },				/* truncated */
		{ "\xc0\xaf", 1, { 0xfffd } },				/* overlong */
		{ "\xed\xa0\x80", 1, { 0xfffd } },			/* a surrogate */
		{ "\xe2\x82" "A", 2, { 0xfffd, 'A' } },
	};
	uint8_t buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = composite__utf8_to_desc(cases[i].in, buf, sizeof(buf));
		unsigned k;

		assert_int_equal(n, 2 + 2 * (int)cases[i].units);
		assert_int_equal(buf[0], n);
		assert_int_equal(buf[1], USB_DT_STRING);
		for (k = 0; k < cases[i].units && k < 4; k++)
			assert_int_equal(usb_get_le16(buf + 2 + 2 * k), cases[i].first[k]);
	}
}

static void test_core_ids_utf16_cut_at_126(void **state)
{
	char s[400];
	uint8_t buf[256];
	int n;

	(void)state;
	memset(s, 'x', 300);
	s[300] = 0;
	n = composite__utf8_to_desc(s, buf, sizeof(buf));
	assert_int_equal(n, 254);
	/* 125 'x' then an emoji: the pair does not fit in unit 126. */
	memset(s, 'x', 125);
	memcpy(s + 125, "\xf0\x9f\x98\x80", 5);
	n = composite__utf8_to_desc(s, buf, sizeof(buf));
	assert_int_equal(n, 2 + 2 * 125);
	/* 124 'x' then the emoji: exactly 126. */
	memset(s, 'x', 124);
	memcpy(s + 124, "\xf0\x9f\x98\x80", 5);
	n = composite__utf8_to_desc(s, buf, sizeof(buf));
	assert_int_equal(n, 254);
	assert_int_equal(usb_get_le16(buf + 2 + 2 * 125), 0xde00);
}

static void test_core_ids_copy_descriptors(void **state)
{
	static struct tfunc f;
	struct usb_descriptor_header **v;

	(void)state;
	tfunc_init(&f, "c");
	f.fs[0] = (struct usb_descriptor_header *)(void *)&f.intf0;
	f.fs[1] = (struct usb_descriptor_header *)(void *)&f.fs_in;
	f.fs[2] = NULL;
	v = usb_copy_descriptors(f.fs);
	assert_non_null(v);
	assert_ptr_not_equal(v[0], f.fs[0]);
	assert_memory_equal(v[0], &f.intf0, USB_DT_INTERFACE_SIZE);
	assert_memory_equal(v[1], &f.fs_in, USB_DT_ENDPOINT_SIZE);
	assert_null(v[2]);
	usb_free_descriptors(v);
	assert_null(usb_copy_descriptors(NULL));
	/* Assign: copies per speed; a NULL list leaves the speed out. */
	assert_int_equal(usb_assign_descriptors(&f.func, f.fs, NULL, f.fs, NULL), 0);
	assert_non_null(f.func.fs_descriptors);
	assert_null(f.func.hs_descriptors);
	assert_non_null(f.func.ss_descriptors);
	usb_free_all_descriptors(&f.func);
	usb_free_all_descriptors(&f.func);	/* twice is fine */
	assert_null(f.func.fs_descriptors);
}

static void test_core_ids_config_ep_by_speed(void **state)
{
	static struct tdev d;
	static struct tfunc f;

	(void)state;
	tfunc_init(&f, "sp");
	tdev_init(&d, USB_SPEED_SUPER, 0x0300, &f);
	assert_int_equal(tdev_start(&d), 0);
	d.udc.gadget.speed = USB_SPEED_HIGH;
	assert_int_equal(config_ep_by_speed(&d.udc.gadget, &f.func, f.in), 0);
	assert_int_equal(USB_LE16_TO_CPU(f.in->desc->wMaxPacketSize), 512);
	assert_null(f.in->comp_desc);
	d.udc.gadget.speed = USB_SPEED_FULL;
	assert_int_equal(config_ep_by_speed(&d.udc.gadget, &f.func, f.in), 0);
	assert_int_equal(USB_LE16_TO_CPU(f.in->desc->wMaxPacketSize), 64);
	d.udc.gadget.speed = USB_SPEED_SUPER;
	assert_int_equal(config_ep_by_speed(&d.udc.gadget, &f.func, f.out), 0);
	assert_int_equal(USB_LE16_TO_CPU(f.out->desc->wMaxPacketSize), 1024);
	assert_non_null(f.out->comp_desc);
	assert_int_equal(f.out->maxburst, 3);
	/* SuperSpeedPlus falls back to the SuperSpeed list. */
	d.udc.gadget.speed = USB_SPEED_SUPER_PLUS;
	assert_int_equal(config_ep_by_speed(&d.udc.gadget, &f.func, f.out), 0);
	assert_int_equal(USB_LE16_TO_CPU(f.out->desc->wMaxPacketSize), 1024);
	/* An endpoint the function does not have. */
	assert_int_equal(config_ep_by_speed(&d.udc.gadget, &f.func, &d.udc.eps[4].ep), -USB_EINVAL);
	tdev_stop(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_core_ids_interfaces_exhaust, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ids_failed_bind_returns_interfaces, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ids_strings_exhaust, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ids_languages, fake_udc_cleanup),
		cmocka_unit_test_teardown(test_core_ids_no_strings_stalls_langid, fake_udc_cleanup),
		cmocka_unit_test(test_core_ids_utf8_to_utf16),
		cmocka_unit_test(test_core_ids_utf16_cut_at_126),
		cmocka_unit_test(test_core_ids_copy_descriptors),
		cmocka_unit_test_teardown(test_core_ids_config_ep_by_speed, fake_udc_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
