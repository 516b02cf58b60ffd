/*
 * test_registry.c - the function registry (composite/registry.h): lookup
 * of every shipped function by its configfs name, registration of one's
 * own (DECLARE_USB_FUNCTION_INIT and usb_function_register), attributes
 * as text (defaults, good and bad values, unknown and read-only names,
 * -USB_EBUSY under a function) and their typed forms, mass storage's
 * lun.N attributes with one common object shared by two configurations,
 * and usb_gstrings_attach() answering string requests in two languages,
 * all through the in-process host.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/composite.h"
#include "composite/f_loopback.h"
#include "composite/inproc_host.h"
#include "inproc_string.h"
#include "composite/mass_storage.h"
#include "composite/registry.h"
#include "composite/sourcesink.h"

#define TMO 2000

/* ---- the log -------------------------------------------------------------- */

static char last_log[512];

static void capture_log(void *ctx, const char *line)
{
	(void)ctx;
	snprintf(last_log, sizeof(last_log), "%s", line);
}

static int setup_log(void **state)
{
	(void)state;
	last_log[0] = '\0';
	usb_composite_set_log_handler(capture_log, NULL);
	return 0;
}

/* ---- a function of the test's own, with usb_gstrings_attach() ------------- */

static struct usb_string en_strings[] = { { 0, "own function" }, { 0, "second" }, { 0, NULL } };
static struct usb_string de_strings[] = { { 0, "eigene Funktion" }, { 0, "zweite" }, { 0, NULL } };
static struct usb_gadget_strings en_tab = { .language = 0x0409, .strings = en_strings };
static struct usb_gadget_strings de_tab = { .language = 0x0407, .strings = de_strings };
static struct usb_gadget_strings *own_tabs[] = { &en_tab, &de_tab, NULL };

struct own_func {
	struct usb_function f;
	struct usb_interface_descriptor intf;
	struct usb_descriptor_header *descs[2];
	uint8_t string_id;
};

static unsigned own_freed, own_inst_freed;

static int own_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct own_func *o = usb_container_of(f, struct own_func, f);
	struct usb_string *us = usb_gstrings_attach(c->cdev, own_tabs, 2);
	int id;

	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	o->string_id = us[0].id;
	o->intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bInterfaceNumber = (uint8_t)id, .bInterfaceClass = USB_CLASS_VENDOR_SPEC,
		.iInterface = us[0].id,
	};
	o->descs[0] = (struct usb_descriptor_header *)&o->intf;
	o->descs[1] = NULL;
	return usb_assign_descriptors(f, o->descs, o->descs, NULL, NULL);
}

static int own_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	(void)f;
	(void)intf;
	return alt ? -USB_EINVAL : 0;
}

static void own_disable(struct usb_function *f)
{
	(void)f;
}

static void own_free(struct usb_function *f)
{
	own_freed++;
	free(usb_container_of(f, struct own_func, f));
}

static struct usb_function *own_alloc_func(struct usb_function_instance *fi)
{
	struct own_func *o = calloc(1, sizeof(*o));

	(void)fi;
	if (!o)
		return usb_err_ptr(-USB_ENOMEM);
	o->f.name = "own";
	o->f.bind = own_bind;
	o->f.set_alt = own_set_alt;
	o->f.disable = own_disable;
	o->f.free_func = own_free;
	return &o->f;
}

static void own_free_inst(struct usb_function_instance *fi)
{
	own_inst_freed++;
	free(fi);
}

static char own_inst_name[32];

static int own_set_name(struct usb_function_instance *fi, const char *name)
{
	(void)fi;
	if (strlen(name) >= sizeof(own_inst_name))
		return -USB_ENAMETOOLONG;
	strcpy(own_inst_name, name);
	return 0;
}

static struct usb_function_instance *own_alloc_inst(void)
{
	struct usb_function_instance *fi = calloc(1, sizeof(*fi));

	if (!fi)
		return usb_err_ptr(-USB_ENOMEM);
	fi->free_func_inst = own_free_inst;
	fi->set_inst_name = own_set_name;
	return fi;
}

/* Registered before main() by its constructor, as a module would be. */
DECLARE_USB_FUNCTION_INIT(own, own_alloc_inst, own_alloc_func);

/* ---- lookup and registration ------------------------------------------------ */

static void test_shipped_names(void **state)
{
	static const char *const names[] = { "mass_storage", "SourceSink", "Loopback", "acm",
					     "hid", "ecm", "ncm" };
	const unsigned n = sizeof(names) / sizeof(names[0]);

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		struct usb_function_instance *fi = usb_get_function_instance(names[i]);

		assert_false(usb_is_err(fi));
		assert_string_equal(fi->fd->name, names[i]);
		usb_put_function_instance(fi);
		assert_string_equal(usb_function_name(i), names[i]);
	}
	assert_string_equal(usb_function_name(n), "own");
	assert_null(usb_function_name(n + 1));
}

static void test_unknown_name(void **state)
{
	struct usb_function_instance *fi;

	(void)state;
	fi = usb_get_function_instance("sourcesink");	/* names are exact */
	assert_true(usb_is_err(fi));
	assert_int_equal(usb_ptr_err(fi), -USB_ENOENT);
	assert_non_null(strstr(last_log, "\"sourcesink\""));
	assert_non_null(strstr(last_log, "mass_storage, SourceSink, Loopback, acm, hid, ecm, ncm, own"));
	assert_int_equal(usb_ptr_err(usb_get_function_instance("SourceSink.")), -USB_ENOENT);
	assert_int_equal(usb_ptr_err(usb_get_function_instance(NULL)), -USB_EINVAL);
}

static void test_instance_names(void **state)
{
	struct usb_function_instance *fi;

	(void)state;
	fi = usb_get_function_instance("own.usb0");
	assert_false(usb_is_err(fi));
	assert_string_equal(own_inst_name, "usb0");
	assert_int_equal(usb_function_instance_set_name(fi, "gs1"), 0);
	assert_string_equal(own_inst_name, "gs1");
	usb_put_function_instance(fi);

	/* A failing set_inst_name frees the instance and says so. */
	own_inst_freed = 0;
	fi = usb_get_function_instance("own.a-name-far-too-long-for-the-buffer");
	assert_int_equal(usb_ptr_err(fi), -USB_ENAMETOOLONG);
	assert_int_equal(own_inst_freed, 1);
	assert_non_null(strstr(last_log, "own: instance name"));

	/* Functions without instance names take "NAME.INSTANCE" as well. */
	fi = usb_get_function_instance("SourceSink.0");
	assert_false(usb_is_err(fi));
	assert_int_equal(usb_function_instance_set_name(fi, "x"), -USB_EOPNOTSUPP);
	usb_put_function_instance(fi);
}

static void test_register(void **state)
{
	static struct usb_function_driver drivers[USB_FUNCTION_REGISTRY_MAX + 1];
	static char names[USB_FUNCTION_REGISTRY_MAX + 1][16];
	struct usb_function_driver dup = { "SourceSink", own_alloc_inst, own_alloc_func };
	struct usb_function_driver dotted = { "a.b", own_alloc_inst, own_alloc_func };
	struct usb_function_driver partial = { "partial", own_alloc_inst, NULL };
	unsigned n;

	(void)state;
	assert_int_equal(usb_function_register(&dup), -USB_EEXIST);
	dup.name = "own";
	assert_int_equal(usb_function_register(&dup), -USB_EEXIST);
	assert_int_equal(usb_function_register(&dotted), -USB_EINVAL);
	assert_int_equal(usb_function_register(&partial), -USB_EINVAL);
	assert_int_equal(usb_function_register(NULL), -USB_EINVAL);

	/* "own" holds one slot already. */
	for (n = 0; n < USB_FUNCTION_REGISTRY_MAX - 1; n++) {
		snprintf(names[n], sizeof(names[n]), "fn%u", n);
		drivers[n] = (struct usb_function_driver){ names[n], own_alloc_inst,
							   own_alloc_func };
		assert_int_equal(usb_function_register(&drivers[n]), 0);
	}
	snprintf(names[n], sizeof(names[n]), "fn%u", n);
	drivers[n] = (struct usb_function_driver){ names[n], own_alloc_inst, own_alloc_func };
	assert_int_equal(usb_function_register(&drivers[n]), -USB_ENOSPC);
	{
		struct usb_function_instance *fi = usb_get_function_instance("fn7");

		assert_false(usb_is_err(fi));
		assert_ptr_equal(fi->fd, &drivers[7]);
		usb_put_function_instance(fi);
	}
	for (n = 0; n < USB_FUNCTION_REGISTRY_MAX - 1; n++)
		usb_function_unregister(&drivers[n]);
	assert_int_equal(usb_ptr_err(usb_get_function_instance("fn7")), -USB_ENOENT);
	assert_null(usb_function_name(8));	/* seven shipped, then "own" */
}

/* ---- attributes ------------------------------------------------------------ */

static void expect_show(struct usb_function_instance *fi, const char *attr, const char *want)
{
	char buf[256];
	int n = usb_function_instance_show(fi, attr, buf, sizeof(buf));

	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(buf, want);
}

static void test_sourcesink_attrs(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("SourceSink");
	struct usb_function *f;
	char small[3];

	(void)state;
	assert_false(usb_is_err(fi));
	expect_show(fi, "pattern", "0\n");
	expect_show(fi, "bulk_buflen", "4096\n");
	expect_show(fi, "isoc_interval", "4\n");
	assert_int_equal(usb_function_instance_set(fi, "pattern", "1\n"), 0);
	expect_show(fi, "pattern", "1\n");
	assert_int_equal(usb_function_instance_set(fi, "bulk_buflen", "0x2000"), 0);
	expect_show(fi, "bulk_buflen", "8192\n");

	/* Out of the function's own range, or not a number: the value stays. */
	assert_int_equal(usb_function_instance_set(fi, "pattern", "3"), -USB_EINVAL);
	assert_non_null(strstr(last_log, "SourceSink: attribute pattern: 3"));
	assert_int_equal(usb_function_instance_set(fi, "isoc_interval", "17"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "bulk_qlen", "-1"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "bulk_qlen", ""), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "bulk_qlen", "12abc"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "bulk_qlen", "99999999999999"), -USB_EINVAL);
	expect_show(fi, "pattern", "1\n");
	expect_show(fi, "isoc_interval", "4\n");

	/* Unknown names list the attributes. */
	assert_int_equal(usb_function_instance_set(fi, "no_such", "1"), -USB_ENOENT);
	assert_non_null(strstr(last_log, "SourceSink: no attribute no_such"));
	assert_non_null(strstr(last_log, "pattern, isoc_interval"));
	assert_int_equal(usb_function_instance_show(fi, "Pattern", small, sizeof(small)),
			 -USB_ENOENT);

	/* A short buffer: truncated and terminated, the length needed returned. */
	assert_int_equal(usb_function_instance_show(fi, "bulk_buflen", small, sizeof(small)), 5);
	assert_string_equal(small, "81");

	/* The typed form is the same options. */
	f_ss_opts_from_instance(fi)->isoc_maxpacket = 512;
	expect_show(fi, "isoc_maxpacket", "512\n");
	assert_null(f_lb_opts_from_instance(fi));

	/* Options are fixed while a function made of them exists. */
	f = usb_get_function(fi);
	assert_false(usb_is_err(f));
	assert_ptr_equal(f->fi, fi);
	assert_true(sourcesink_is(f));
	assert_int_equal(usb_function_instance_set(fi, "pattern", "2"), -USB_EBUSY);
	assert_non_null(strstr(last_log, "SourceSink: attribute pattern: 2: EBUSY"));
	usb_put_function(f);
	assert_int_equal(usb_function_instance_set(fi, "pattern", "2"), 0);

	/* Typed options out of range fail when the function is made. */
	f_ss_opts_from_instance(fi)->bulk_qlen = 0;
	assert_int_equal(usb_ptr_err(usb_get_function(fi)), -USB_EINVAL);
	usb_put_function_instance(fi);
}

static void test_loopback_attrs(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("Loopback");
	struct usb_function *f;

	(void)state;
	assert_false(usb_is_err(fi));
	expect_show(fi, "qlen", "32\n");
	expect_show(fi, "bulk_buflen", "4096\n");
	assert_int_equal(usb_function_instance_set(fi, "qlen", "8"), 0);
	assert_int_equal(usb_function_instance_set(fi, "qlen", "0"), -USB_EINVAL);
	assert_int_equal(f_lb_opts_from_instance(fi)->qlen, 8);
	assert_null(f_ss_opts_from_instance(fi));
	assert_int_equal(usb_function_instance_set(fi, "pattern", "1"), -USB_ENOENT);
	f = usb_get_function(fi);
	assert_true(loopback_is(f));
	usb_put_function(f);
	usb_put_function_instance(fi);
	usb_put_function(NULL);
	usb_put_function_instance(NULL);
	assert_int_equal(usb_ptr_err(usb_get_function(NULL)), -USB_EINVAL);
}

/* ---- mass storage ------------------------------------------------------------ */

static char img_path[64];

static int make_image(void **state)
{
	int fd;

	(void)state;
	setup_log(state);
	snprintf(img_path, sizeof(img_path), "/tmp/test_registry_XXXXXX");
	fd = mkstemp(img_path);
	if (fd < 0 || ftruncate(fd, 1024 * 1024) != 0)
		return -1;
	close(fd);
	return 0;
}

static int remove_image(void **state)
{
	(void)state;
	unlink(img_path);
	return 0;
}

static void test_msf_attrs(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("mass_storage");
	struct fsg_opts *opts;
	char want[80];

	(void)state;
	assert_false(usb_is_err(fi));
	opts = fsg_opts_from_func_inst(fi);
	assert_non_null(opts);
	assert_null(opts->common);
	assert_null(fsg_opts_from_func_inst(usb_get_function_instance("nope")));
	expect_show(fi, "stall", "1\n");
	expect_show(fi, "lun.0/removable", "1\n");
	expect_show(fi, "lun.0/file", "\n");
	expect_show(fi, "num_buffers", "4\n");

	assert_int_equal(usb_function_instance_set(fi, "lun.0/file", img_path), 0);
	assert_int_equal(usb_function_instance_set(fi, "lun.0/removable", "0"), 0);
	assert_int_equal(usb_function_instance_set(fi, "lun.1/ro", "y\n"), 0);
	assert_int_equal(usb_function_instance_set(fi, "lun.1/inquiry_string",
						   "Vendor  Product         0001"), 0);
	snprintf(want, sizeof(want), "%s\n", img_path);
	expect_show(fi, "lun.0/file", want);
	expect_show(fi, "lun.1/ro", "1\n");
	assert_int_equal(usb_function_instance_set(fi, "num_buffers", "1"), -USB_EINVAL);
	assert_int_equal(usb_function_instance_set(fi, "num_buffers", "8"), 0);
	assert_int_equal(usb_function_instance_set(fi, "stall", "maybe"), -USB_EINVAL);
	assert_non_null(strstr(last_log, "mass_storage: attribute stall: maybe"));
	assert_int_equal(usb_function_instance_set(fi, "lun.1/inquiry_string",
						   "this one is longer than 28 bytes"), -USB_EINVAL);

	/* lun.N: N in 0..15 here, no leading zeroes. */
	assert_int_equal(usb_function_instance_set(fi, "lun.16/ro", "1"), -USB_ERANGE);
	assert_int_equal(usb_function_instance_set(fi, "lun.01/ro", "1"), -USB_ENOENT);
	assert_int_equal(usb_function_instance_set(fi, "lun.255/ro", "1"), -USB_ENOENT);
	assert_int_equal(usb_function_instance_set(fi, "lun./ro", "1"), -USB_ENOENT);
	assert_int_equal(usb_function_instance_show(fi, "lun.0/forced_eject", want, sizeof(want)),
			 -USB_EACCES);
	assert_non_null(strstr(last_log, "write-only"));
	usb_put_function_instance(fi);
}

static void test_msf_common_shared(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("mass_storage");
	struct usb_function *f1, *f2;
	struct fsg_opts *opts = fsg_opts_from_func_inst(fi);

	(void)state;
	assert_int_equal(usb_function_instance_set(fi, "lun.0/file", img_path), 0);
	assert_int_equal(usb_function_instance_set(fi, "lun.0/removable", "n"), 0);
	assert_int_equal(usb_function_instance_set(fi, "lun.1/cdrom", "1"), 0);
	f1 = usb_get_function(fi);
	assert_false(usb_is_err(f1));
	assert_non_null(opts->common);
	assert_int_equal(fsg_common_nluns(opts->common), 2);
	assert_true(fsg_common_lun_is_open(opts->common, 0));
	assert_false(fsg_common_lun_is_open(opts->common, 1));
	f2 = usb_get_function(fi);
	assert_false(usb_is_err(f2));
	assert_ptr_not_equal(f1, f2);

	/* Now only the medium can change, and at once. */
	assert_int_equal(usb_function_instance_set(fi, "lun.1/ro", "1"), -USB_EBUSY);
	assert_int_equal(usb_function_instance_set(fi, "stall", "0"), -USB_EBUSY);
	assert_int_equal(usb_function_instance_set(fi, "lun.2/file", img_path), -USB_ERANGE);
	assert_int_equal(usb_function_instance_set(fi, "lun.1/file", img_path), 0);
	assert_true(fsg_common_lun_is_open(opts->common, 1));
	assert_int_equal(usb_function_instance_set(fi, "lun.1/file", "\n"), 0);
	assert_false(fsg_common_lun_is_open(opts->common, 1));
	assert_int_equal(usb_function_instance_set(fi, "lun.1/file", "/nonexistent/x.img"),
			 -USB_ENOENT);
	assert_non_null(strstr(last_log, "lun.1/file"));
	expect_show(fi, "lun.1/file", "\n");
	/* LUN 0 is not removable: the host may not lose its medium. */
	assert_int_equal(usb_function_instance_set(fi, "lun.0/file", ""), -USB_EPERM);
	assert_int_equal(fsg_opts_set_config(opts, &(struct fsg_config){ .nluns = 1 }),
			 -USB_EBUSY);
	usb_put_function(f1);
	usb_put_function(f2);
	usb_put_function_instance(fi);
}

static void test_msf_bad_file(void **state)
{
	struct usb_function_instance *fi = usb_get_function_instance("mass_storage");

	(void)state;
	assert_int_equal(usb_function_instance_set(fi, "lun.0/file", "/nonexistent/x.img"), 0);
	assert_int_equal(usb_ptr_err(usb_get_function(fi)), -USB_ENOENT);
	assert_non_null(strstr(last_log, "/nonexistent/x.img"));
	assert_null(fsg_opts_from_func_inst(fi)->common);
	usb_put_function_instance(fi);
}

/* ---- through a device ------------------------------------------------------------ */

static struct usb_function_instance *fi_msg, *fi_own, *fi_ss;
static struct usb_function *f_msg1, *f_msg2, *f_own, *f_ss;

static int add(struct usb_configuration *c, struct usb_function_instance *fi,
	       struct usb_function **out)
{
	*out = usb_get_function(fi);
	if (usb_is_err(*out))
		return (int)usb_ptr_err(*out);
	return usb_add_function(c, *out);
}

static int cfg1_bind(struct usb_configuration *c)
{
	int rc = add(c, fi_msg, &f_msg1);

	return rc ? rc : add(c, fi_own, &f_own);
}

static int cfg2_bind(struct usb_configuration *c)
{
	int rc = add(c, fi_msg, &f_msg2);

	return rc ? rc : add(c, fi_ss, &f_ss);
}

static struct usb_configuration cfg1 = { .label = "storage+own", .bConfigurationValue = 1,
					 .bmAttributes = USB_CONFIG_ATT_SELFPOWER };
static struct usb_configuration cfg2 = { .label = "storage+sourcesink",
					 .bConfigurationValue = 2,
					 .bmAttributes = USB_CONFIG_ATT_SELFPOWER };

static int reg_bind(struct usb_composite_dev *cdev)
{
	int rc = usb_add_config(cdev, &cfg1, cfg1_bind);

	usb_ep_autoconfig_reset(cdev->gadget);
	return rc ? rc : usb_add_config(cdev, &cfg2, cfg2_bind);
}

static const struct usb_device_descriptor reg_dd = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x1d6b), .idProduct = USB_CPU_TO_LE16(0x0104),
};

static struct usb_composite_driver reg_driver = {
	.name = "registry-test", .dev = &reg_dd, .max_speed = USB_SPEED_HIGH,
	.udc_name = "registry.0", .bind = reg_bind,
};

/* The interface classes of a configuration, in order, and the iInterface of
 * the vendor-specific one. */
static unsigned intf_classes(const uint8_t *cfg, int len, uint8_t *classes, uint8_t *vendor_str)
{
	unsigned n = 0;

	for (int off = 0; off + 2 <= len && cfg[off] >= 2; off += cfg[off])
		if (cfg[off + 1] == USB_DT_INTERFACE && n < 4) {
			classes[n++] = cfg[off + 5];
			if (cfg[off + 5] == USB_CLASS_VENDOR_SPEC && cfg[off + 6] == 0)
				*vendor_str = cfg[off + 8];
		}
	return n;
}

static void test_device(void **state)
{
	struct usb_inproc_host_config hc = { .udc_name = "registry.0",
					     .max_speed = USB_SPEED_HIGH };
	struct usb_inproc_host *h;
	uint8_t cfg[256], classes[4], str_id = 0;
	char s[64];
	int len;

	(void)state;
	fi_msg = usb_get_function_instance("mass_storage");
	fi_own = usb_get_function_instance("own");
	fi_ss = usb_get_function_instance("SourceSink");
	assert_int_equal(usb_function_instance_set(fi_msg, "lun.0/file", img_path), 0);
	assert_int_equal(usb_inproc_host_create(&hc, &h), 0);
	assert_int_equal(usb_composite_probe(&reg_driver), 0);

	len = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, NULL, cfg, sizeof(cfg), TMO);
	assert_true(len > 9);
	assert_int_equal(intf_classes(cfg, len, classes, &str_id), 2);
	assert_int_equal(classes[0], USB_CLASS_MASS_STORAGE);
	assert_int_equal(classes[1], USB_CLASS_VENDOR_SPEC);
	assert_int_not_equal(str_id, 0);
	assert_true(inproc_get_string(h, str_id, 0x0409, s, sizeof(s)) > 0);
	assert_string_equal(s, "own function");
	assert_true(inproc_get_string(h, str_id, 0x0407, s, sizeof(s)) > 0);
	assert_string_equal(s, "eigene Funktion");
	assert_true(inproc_get_string(h, (uint8_t)(str_id + 1), 0x0407, s, sizeof(s)) > 0);
	assert_string_equal(s, "zweite");
	len = inproc_get_string(h, 0, 0, s, sizeof(s));	/* the LANGID list */
	assert_true(len >= 6);

	len = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 2, NULL, cfg, sizeof(cfg), TMO);
	assert_true(len > 9);
	assert_int_equal(intf_classes(cfg, len, classes, &str_id), 3);	/* SS has alt 1 */
	assert_int_equal(classes[0], USB_CLASS_MASS_STORAGE);
	assert_int_equal(classes[1], USB_CLASS_VENDOR_SPEC);

	/* One common object behind both configurations' mass storage. */
	assert_int_equal(fsg_common_nluns(fsg_opts_from_func_inst(fi_msg)->common), 1);

	own_freed = 0;
	usb_composite_unregister(&reg_driver);
	assert_int_equal(own_freed, 0);	/* the core leaves them to usb_put_function() */
	usb_put_function(f_msg1);
	usb_put_function(f_msg2);
	usb_put_function(f_own);
	usb_put_function(f_ss);
	assert_int_equal(own_freed, 1);
	usb_put_function_instance(fi_msg);
	usb_put_function_instance(fi_own);
	usb_put_function_instance(fi_ss);
	usb_inproc_host_destroy(h);
}

static void test_gstrings_attach_errors(void **state)
{
	struct usb_string short_strings[] = { { 0, "only" }, { 0, NULL } };
	struct usb_gadget_strings short_tab = { 0x0409, short_strings };
	struct usb_gadget_strings *tabs[] = { &en_tab, &short_tab, NULL };
	struct usb_gadget_strings *none[] = { NULL };

	(void)state;
	/* Argument checks come before the device is touched. */
	assert_int_equal(usb_ptr_err(usb_gstrings_attach(NULL, own_tabs, 2)), -USB_EINVAL);
	assert_int_equal(usb_ptr_err(usb_gstrings_attach((struct usb_composite_dev *)1, none, 1)),
			 -USB_EINVAL);
	assert_int_equal(usb_ptr_err(usb_gstrings_attach((struct usb_composite_dev *)1, own_tabs, 0)),
			 -USB_EINVAL);
	assert_int_equal(usb_ptr_err(usb_gstrings_attach((struct usb_composite_dev *)1, tabs, 2)),
			 -USB_EINVAL);
}

static void test_attr_parsers(void **state)
{
	unsigned v;
	bool b;

	(void)state;
	assert_int_equal(usb_attr_parse_uint("42\n", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(usb_attr_parse_uint("0x1F", 0, 100, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(usb_attr_parse_uint("101", 0, 100, &v), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_uint("4", 5, 100, &v), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_uint("0x", 0, 100, &v), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_uint("\n", 0, 100, &v), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_uint(" 1", 0, 100, &v), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_bool("Yes\n", &b), 0);
	assert_true(b);
	assert_int_equal(usb_attr_parse_bool("OFF", &b), 0);
	assert_false(b);
	assert_int_equal(usb_attr_parse_bool("2", &b), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_bool("truest", &b), -USB_EINVAL);
	assert_int_equal(usb_attr_parse_bool("", &b), -USB_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_shipped_names, setup_log),
		cmocka_unit_test_setup(test_unknown_name, setup_log),
		cmocka_unit_test_setup(test_instance_names, setup_log),
		cmocka_unit_test_setup(test_register, setup_log),
		cmocka_unit_test_setup(test_sourcesink_attrs, setup_log),
		cmocka_unit_test_setup(test_loopback_attrs, setup_log),
		cmocka_unit_test_setup_teardown(test_msf_attrs, make_image, remove_image),
		cmocka_unit_test_setup_teardown(test_msf_common_shared, make_image, remove_image),
		cmocka_unit_test_setup(test_msf_bad_file, setup_log),
		cmocka_unit_test_setup_teardown(test_device, make_image, remove_image),
		cmocka_unit_test(test_gstrings_attach_errors),
		cmocka_unit_test(test_attr_parsers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
