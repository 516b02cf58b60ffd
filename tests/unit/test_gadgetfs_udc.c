/*
 * test_gadgetfs_udc.c - the gadgetfs backend (composite/gadgetfs_udc.h)
 * where there is no controller to serve: bad arguments are refused, and a
 * mount point without gadgetfs on it (where the kernel has no gadgetfs,
 * no free UDC, or we may not mount) fails with a negative error and says
 * why through the log callback, leaving nothing registered. Touches only a
 * temporary directory of its own.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "composite/gadgetfs_udc.h"

struct log_buf {
	char text[2048];
	unsigned lines;
};

static void on_log(void *ctx, const char *line)
{
	struct log_buf *b = ctx;
	size_t used = strlen(b->text);

	snprintf(b->text + used, sizeof(b->text) - used, "%s\n", line);
	b->lines++;
}

static void test_bad_arguments(void **state)
{
	(void)state;
	assert_int_equal(usb_gadgetfs_udc_create(NULL, NULL), -USB_EINVAL);
	assert_int_equal(usb_gadgetfs_udc_error(NULL), -USB_EINVAL);
	assert_null(usb_gadgetfs_udc_gadget(NULL));
	assert_null(usb_gadgetfs_udc_mount_point(NULL));
	usb_gadgetfs_udc_destroy(NULL);
}

static void test_no_gadgetfs_here(void **state)
{
	char dir[] = "/tmp/test_gadgetfs_XXXXXX";
	struct usb_gadgetfs_udc_config cfg = { 0 };
	struct usb_gadgetfs_udc *udc = (void *)1;
	struct log_buf log = { { 0 }, 0 };
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	cfg.mount_point = dir;
	cfg.udc = "no_such_udc.0";
	cfg.log = on_log;
	cfg.log_ctx = &log;
	rc = usb_gadgetfs_udc_create(&cfg, &udc);
	/* Where gadgetfs and a free UDC exist and we are root, the mount
	 * works, but no controller is called no_such_udc.0. */
	umount(dir);
	rmdir(dir);
	assert_true(rc == -USB_ENODEV || rc == -USB_EPERM || rc == -USB_EACCES);
	assert_null(udc);
	assert_true(log.lines >= 1);
	assert_non_null(strstr(log.text, "gadgetfs"));
	print_message("refused: %s", log.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_no_gadgetfs_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
