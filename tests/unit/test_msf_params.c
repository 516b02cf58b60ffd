/*
 * test_msf_params.c - the module parameters: every key, per-LUN lists,
 * booleans in every spelling, unknown arguments left in order for the
 * caller, errors that name the parameter, and the fsg_config they give.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "composite/mass_storage.h"

static int parse(struct fsg_module_parameters *p, char *err, size_t errlen, int argc, ...)
{
	static char store[16][256];
	static char *argv[16];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++) {
		strncpy(store[i], va_arg(ap, const char *), sizeof(store[i]) - 1);
		store[i][sizeof(store[i]) - 1] = '\0';
		argv[i] = store[i];
	}
	va_end(ap);
	return fsg_module_parameters_parse(p, argc, argv, err, errlen);
}

static void test_msf_params_every_key(void **state)
{
	struct fsg_module_parameters p;
	struct fsg_config cfg;
	char err[160];

	(void)state;
	fsg_module_parameters_init(&p);
	assert_true(p.stall);
	assert_int_equal(parse(&p, err, sizeof(err), 9,
			       "file=/a.img,,/c.iso", "ro=0,1,Y", "removable=yes,no,on",
			       "cdrom=off,false,TRUE", "nofua=1", "luns=3", "stall=n",
			       "inquiry_string=ACME    Disk            0001",
			       "num_buffers=8"), 0);
	assert_int_equal(p.file_count, 3);
	assert_string_equal(p.file[0], "/a.img");
	assert_string_equal(p.file[1], "");
	assert_string_equal(p.file[2], "/c.iso");
	assert_int_equal(p.ro_count, 3);
	assert_false(p.ro[0]);
	assert_true(p.ro[1]);
	assert_true(p.ro[2]);
	assert_true(p.removable[0]);
	assert_false(p.removable[1]);
	assert_true(p.removable[2]);
	assert_true(p.cdrom[2]);
	assert_int_equal(p.nofua_count, 1);
	assert_int_equal(p.luns, 3);
	assert_false(p.stall);
	assert_int_equal(p.inquiry_string_count, 1);
	assert_int_equal(p.num_buffers, 8);

	fsg_config_from_params(&cfg, &p);
	assert_int_equal(cfg.nluns, 3);
	assert_string_equal(cfg.luns[0].filename, "/a.img");
	assert_null(cfg.luns[1].filename);
	assert_string_equal(cfg.luns[2].filename, "/c.iso");
	assert_int_equal(cfg.luns[1].ro, 1);
	assert_int_equal(cfg.luns[2].cdrom, 1);
	assert_int_equal(cfg.luns[0].nofua, 1);
	assert_int_equal(cfg.luns[1].nofua, 0);
	assert_string_equal(cfg.luns[0].inquiry_string, "ACME    Disk            0001");
	assert_null(cfg.luns[1].inquiry_string);
	assert_int_equal(cfg.can_stall, 0);
	assert_int_equal(cfg.fsg_num_buffers, 8);
	assert_null(cfg.ops);
	assert_false(cfg.exit_on_signal);
}

static void test_msf_params_unknown_left_in_order(void **state)
{
	struct fsg_module_parameters p;
	char a0[] = "prog", a1[] = "address=0.0.0.0", a2[] = "file=x.img", a3[] = "port=3241",
	     a4[] = "-v", a5[] = "=odd", a6[] = "buflen=131072";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6 };
	char err[160];

	(void)state;
	fsg_module_parameters_init(&p);
	assert_int_equal(fsg_module_parameters_parse(&p, 7, argv, err, sizeof(err)), 5);
	assert_string_equal(argv[0], "prog");
	assert_string_equal(argv[1], "address=0.0.0.0");
	assert_string_equal(argv[2], "port=3241");
	assert_string_equal(argv[3], "-v");
	assert_string_equal(argv[4], "=odd");
	assert_string_equal(p.file[0], "x.img");
	assert_int_equal(p.buflen, 131072);
	assert_int_equal(fsg_module_parameters_parse(&p, 0, NULL, err, sizeof(err)), 0);
}

static void test_msf_params_defaults(void **state)
{
	struct fsg_module_parameters p;
	struct fsg_config cfg;

	(void)state;
	fsg_module_parameters_init(&p);
	fsg_config_from_params(&cfg, &p);
	assert_int_equal(cfg.nluns, 1);
	assert_null(cfg.luns[0].filename);
	assert_int_equal(cfg.can_stall, 1);
	assert_int_equal(cfg.fsg_num_buffers, 0);
	/* The number of files gives the number of LUNs. */
	assert_int_equal(parse(&p, NULL, 0, 1, "file=a,b"), 0);
	fsg_config_from_params(&cfg, &p);
	assert_int_equal(cfg.nluns, 2);
	/* The last of a repeated key counts. */
	assert_int_equal(parse(&p, NULL, 0, 2, "ro=1,1", "ro=0"), 0);
	assert_int_equal(p.ro_count, 1);
}

struct bad {
	const char *arg;
	const char *msg;
};

static void test_msf_params_errors_name_the_parameter(void **state)
{
	static const struct bad bad[] = {
		{ "ro=2", "ro: value '2' of LUN 0 is not a boolean" },
		{ "removable=1,maybe", "removable: value 'maybe' of LUN 1 is not a boolean" },
		{ "cdrom=", "cdrom: value '' of LUN 0 is not a boolean" },
		{ "nofua=1,,0", "nofua: value '' of LUN 1 is not a boolean" },
		{ "stall=sometimes", "stall: 'sometimes' is not a boolean" },
		{ "luns=0", "luns: '0' is not a number from 1 to 16" },
		{ "luns=17", "luns: '17' is not a number from 1 to 16" },
		{ "luns=2x", "luns: '2x' is not a number from 1 to 16" },
		{ "luns=-1", "luns: '-1' is not a number from 1 to 16" },
		{ "num_buffers=1", "num_buffers: '1' is not a number from 2 to 32" },
		{ "buflen=1000", "buflen: '1000' is not a multiple of 512 from 512 to 1048576" },
		{ "ro=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "ro: more than 16 values" },
		{ "inquiry_string=12345678901234567890123456789",
		  "inquiry_string: value of LUN 0 is longer than 28 characters" },
	};
	struct fsg_module_parameters p;
	char err[160];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fsg_module_parameters_init(&p);
		memset(err, 0, sizeof(err));
		assert_int_equal(parse(&p, err, sizeof(err), 1, bad[i].arg), -USB_EINVAL);
		assert_non_null(strstr(err, bad[i].msg));
	}
	/* More values than luns=. */
	fsg_module_parameters_init(&p);
	assert_int_equal(parse(&p, err, sizeof(err), 2, "luns=1", "file=a,b"), -USB_EINVAL);
	assert_string_equal(err, "file: 2 values for luns=1");
	/* A tiny error buffer is cut, never overrun; NULL is fine. */
	assert_int_equal(parse(&p, err, 4, 1, "ro=x"), -USB_EINVAL);
	assert_string_equal(err, "ro:");
	assert_int_equal(parse(&p, NULL, 0, 1, "ro=x"), -USB_EINVAL);
	{
		char longpath[1100];

		memset(longpath, 'a', sizeof(longpath));
		memcpy(longpath, "file=", 5);
		longpath[sizeof(longpath) - 1] = '\0';
		{
			char *argv[] = { longpath };

			assert_int_equal(fsg_module_parameters_parse(&p, 1, argv, err, sizeof(err)),
					 -USB_EINVAL);
			assert_non_null(strstr(err, "file: value of LUN 0 is longer than 1023"));
		}
	}
}

static void test_msf_params_common_from_params(void **state)
{
	struct fsg_module_parameters p;
	struct fsg_common *common = (struct fsg_common *)&p;

	(void)state;
	fsg_module_parameters_init(&p);
	/* One non-removable LUN without a file: refused. */
	assert_int_equal(fsg_common_from_params(&common, NULL, &p), -USB_EINVAL);
	assert_null(common);
	assert_int_equal(parse(&p, NULL, 0, 1, "removable=1"), 0);
	assert_int_equal(fsg_common_from_params(&common, NULL, &p), 0);
	assert_non_null(common);
	assert_int_equal(fsg_common_nluns(common), 1);
	assert_false(fsg_common_lun_is_open(common, 0));
	assert_null(fsg_common_private_data(common));
	fsg_common_get(common);
	fsg_common_put(common);
	fsg_common_put(common);
	fsg_common_put(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msf_params_every_key),
		cmocka_unit_test(test_msf_params_unknown_left_in_order),
		cmocka_unit_test(test_msf_params_defaults),
		cmocka_unit_test(test_msf_params_errors_name_the_parameter),
		cmocka_unit_test(test_msf_params_common_from_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
