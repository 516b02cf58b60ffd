/*
 * test_gadgetd_gadgetfs.c - composite-gadgetd --udc gadgetfs[:NAME]: what
 * it refuses before touching a controller (one scheme of one
 * configuration, no remote wakeup, no USB/IP option), with --check and
 * when serving. Serving on a controller needs gadgetfs: the linux-host
 * guest's gadgetfs case runs it (tests/linux-host/cases/gadgetfs.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_gadgetd.h"

/* The daemon's status with @args, its stderr in @errs. */
static int refused(const char *const *args, char *errs, size_t size)
{
	char err_file[128];
	int rc;

	snprintf(err_file, sizeof(err_file), "%s/stderr", tmpdir);
	rc = run_to_end(args, err_file, NULL, 0);
	read_text(err_file, errs, size);
	return rc;
}

#define REFUSED(errs, ...) refused((const char *const[]){ __VA_ARGS__, NULL }, errs, sizeof(errs))

static void write_text(const char *name, const char *text)
{
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* --check --udc gadgetfs: the in-process host reads the gadget, then
 * gadgetfs's limits are checked: one configuration, no remote wakeup. */
static void test_gadgetd_gadgetfs_check(void **state)
{
	char ms[256], hid[256], out[1024], errs[1024];

	(void)state;
	scheme_path(ms, sizeof(ms), "mass_storage.scheme");
	scheme_path(hid, sizeof(hid), "hid.scheme");
	assert_int_equal(run_to_end((const char *const[]){ ms, "--udc", "gadgetfs", "--check",
							   NULL }, NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "OK"));
	assert_int_equal(run_to_end((const char *const[]){ ms, "--udc", "gadgetfs:dummy_udc",
							   "--check", NULL }, NULL, NULL, 0), 0);
	/* --export names the controller, not a busid. */
	assert_int_equal(run_to_end((const char *const[]){ ms, "--udc", "gadgetfs:dummy_udc",
							   "--export", NULL }, NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "# gadgetfs controller dummy_udc: "));
	assert_null(strstr(out, "busid"));
	/* hid.scheme asks for remote wakeup (bmAttributes 0xa0). */
	assert_int_equal(REFUSED(errs, hid, "--udc", "gadgetfs", "--check"), 2);
	assert_non_null(strstr(errs, "remote wakeup, which gadgetfs refuses"));
	write_text("two.scheme",
		   "functions = { ms = { instance = \"0\"; type = \"mass_storage\";\n"
		   "  attrs = { luns = ( { filename = \"disk.img\"; } ); }; }; };\n"
		   "configs = ( { id = 1; name = \"a\"; functions = ( \"ms\" ); },\n"
		   "            { id = 2; name = \"b\"; functions = ( \"ms\" ); } );\n");
	assert_int_equal(REFUSED(errs, "two.scheme", "--udc", "gadgetfs", "--check"), 2);
	assert_non_null(strstr(errs, "two.scheme: 2 configurations; gadgetfs serves exactly one"));
	/* The same scheme is fine over USB/IP. */
	assert_int_equal(REFUSED(errs, "two.scheme", "--check"), 0);
}

/* Refused before any controller is looked for: exit 2, the reason said. */
static void test_gadgetd_gadgetfs_arguments(void **state)
{
	char ms[256], errs[1024];

	(void)state;
	scheme_path(ms, sizeof(ms), "mass_storage.scheme");
	assert_int_equal(REFUSED(errs, ms, ms, "--udc", "gadgetfs"), 2);
	assert_non_null(strstr(errs, "2 schemes; gadgetfs serves one gadget on its controller"));
	assert_int_equal(REFUSED(errs, ms, ms, "--udc", "gadgetfs", "--check"), 2);
	assert_non_null(strstr(errs, "2 schemes; gadgetfs serves one gadget"));
	assert_int_equal(REFUSED(errs, ms, "--udc", "gadgetfs", "--capture", "."), 2);
	assert_non_null(strstr(errs, "--capture is USB/IP's"));
	assert_int_equal(REFUSED(errs, ms, "--port", "0", "--udc", "gadgetfs"), 2);
	assert_non_null(strstr(errs, "--port is USB/IP's"));
	assert_int_equal(REFUSED(errs, ms, "--udc", "gadgetfs", "--max-gadgets", "2"), 2);
	assert_non_null(strstr(errs, "--max-gadgets is USB/IP's"));
	assert_int_equal(REFUSED(errs, ms, "--udc", "dwc2"), 2);
	assert_non_null(strstr(errs, "--udc dwc2: not usbip or gadgetfs[:NAME]"));
	/* --udc usbip is the default, named. */
	assert_int_equal(REFUSED(errs, ms, "--udc", "usbip", "--check"), 0);
}

int gadgetd_gadgetfs_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gadgetd_gadgetfs_check, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_gadgetd_gadgetfs_arguments, make_dir,
						remove_dir),
	};

	return cmocka_run_group_tests_name("gadgetd --udc gadgetfs", tests, NULL, NULL);
}
