/*
 * test_msf_signal.c - the worker's end: with exit_on_signal, SIGTERM and
 * SIGINT stop the worker, which closes every backing file and calls
 * thread_exits; thread_exits may unregister the driver (the seed
 * article's msg_thread_exits), dropping the last reference from the worker
 * itself. The article's msg_do_config is compiled here as written, in
 * both forms: the library's storage with ops->thread_exits, and Linux
 * 2.6.35's (caller storage, fsg_common_init() returning the handle,
 * config.thread_exits, two-argument usb_add_config()), where unregistering
 * from the worker must leave the caller's handle alone and reusable. The
 * previous signal handlers come back when the last common object goes.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "composite/inproc_host.h"
#include "composite/mass_storage.h"
#include "test_msf_fixture.h"

/* Descriptors of this process open on @path (through /proc/self/fd). */
static int fds_on(const char *path)
{
	char real[PATH_MAX], link[PATH_MAX], name[320];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d || !realpath(path, real)) {
		if (d)
			closedir(d);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "/proc/self/fd/%s", e->d_name);
		len = readlink(name, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (!strcmp(link, real))
			n++;
	}
	closedir(d);
	return n;
}

static char *make_file(void)
{
	char *path = strdup("/tmp/msf-sig-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	return path;
}

static void wait_flag(atomic_int *flag)
{
	for (int i = 0; i < 3000 && !atomic_load(flag); i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	assert_true(atomic_load(flag));
}

/* ---- the seed article's gadget, as written ---------------------------- */

static struct fsg_module_parameters mod_data;
static struct usb_composite_driver msg_driver;
static atomic_int msg_registered;
static atomic_int cleaned_up;
static int files_open_at_exit = -1;
static const char *msg_file;

static void msg_cleanup(void)
{
	files_open_at_exit = fds_on(msg_file);
	if (atomic_exchange(&msg_registered, 0))
		usb_composite_unregister(&msg_driver);
	atomic_store(&cleaned_up, 1);
}

static int msg_thread_exits(struct fsg_common *common) { msg_cleanup(); return 0; }
static int msg_do_config(struct usb_configuration *c) { static const struct fsg_operations ops = { .thread_exits = msg_thread_exits }; struct fsg_common *common; struct fsg_config config; int ret; fsg_config_from_params(&config, &mod_data); config.ops = &ops; ret = fsg_common_create(&common, c->cdev, &config); if (ret) return ret; ret = fsg_add(c->cdev, c, common); fsg_common_put(common); return ret; }

static struct usb_configuration msg_config = {
	.label = "Linux File-Backed Storage",
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int msg_bind(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &msg_config, msg_do_config);
}

static const struct usb_device_descriptor msg_device_desc = {
	.bLength = USB_DT_DEVICE_SIZE,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(0x0525),
	.idProduct = USB_CPU_TO_LE16(0xa4a5),
};

/* The bulk endpoint addresses of a configuration descriptor set. */
static void find_bulk_eps(struct msf_fx *fx, const uint8_t *desc, int len)
{
	for (int off = 0; off + 2 <= len && desc[off] >= 2; off += desc[off])
		if (desc[off + 1] == USB_DT_ENDPOINT) {
			if (desc[off + 2] & USB_DIR_IN)
				fx->ep_in = desc[off + 2];
			else
				fx->ep_out = desc[off + 2];
		}
}

static void run_article_gadget(int signo)
{
	static const uint8_t tur[6] = { 0 };
	struct usb_inproc_host *h;
	char *path = make_file();
	char arg_file[300], arg_rem[] = "removable=1", arg_other[] = "address=127.0.0.1";
	char *argv[] = { arg_file, arg_rem, arg_other };
	char err[128];
	struct msf_fx fx;
	uint8_t desc[256];
	int len;
	struct sigaction sa;

	snprintf(arg_file, sizeof(arg_file), "file=%s", path);
	msg_file = path;
	fsg_module_parameters_init(&mod_data);
	assert_int_equal(fsg_module_parameters_parse(&mod_data, 3, argv, err, sizeof(err)), 1);
	assert_string_equal(argv[0], "address=127.0.0.1");
	mod_data.exit_on_signal = true;

	assert_int_equal(usb_inproc_host_create(NULL, &h), 0);
	memset(&msg_driver, 0, sizeof(msg_driver));
	msg_driver.name = "g_mass_storage";
	msg_driver.dev = &msg_device_desc;
	msg_driver.max_speed = USB_SPEED_HIGH;
	msg_driver.bind = msg_bind;
	atomic_store(&cleaned_up, 0);
	files_open_at_exit = -1;
	assert_int_equal(usb_composite_probe(&msg_driver), 0);
	atomic_store(&msg_registered, 1);
	assert_int_equal(fds_on(path), 1);

	/* The gadget works: enumerate, TEST UNIT READY (a unit attention first). */
	memset(&fx, 0, sizeof(fx));
	fx.h = h;
	len = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, NULL, desc, sizeof(desc), MSF_TMO);
	assert_true(len > 0);
	find_bulk_eps(&fx, desc, len);
	assert_int_equal(msf_fx_cmd(&fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	assert_int_equal(msf_fx_cmd(&fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);

	/* The signal: the worker closes the file and the driver unregisters. */
	assert_int_equal(kill(getpid(), signo), 0);
	wait_flag(&cleaned_up);
	assert_int_equal(files_open_at_exit, 0);
	assert_int_equal(atomic_load(&msg_registered), 0);
	assert_int_equal(fds_on(path), 0);

	/* The last common object is gone: the default handler is back. */
	assert_int_equal(sigaction(signo, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);

	usb_inproc_host_destroy(h);
	unlink(path);
	free(path);
}

static void test_msf_signal_sigterm_closes_files_and_calls_thread_exits(void **state)
{
	(void)state;
	run_article_gadget(SIGTERM);
}

/* ---- Linux 2.6.35's form: caller storage, config.thread_exits --------- */

static struct fsg_common msg_fsg_common;	/* caller storage, never freed */

static int msg_thread_exits_235(struct fsg_common *common)
{
	assert_ptr_equal(common, &msg_fsg_common);
	msg_cleanup();
	return 0;
}

static int msg_do_config_235(struct usb_configuration *c)
{
	struct fsg_common *retp;
	struct fsg_config config;
	int ret;

	fsg_config_from_params(&config, &mod_data);
	config.thread_exits = msg_thread_exits_235;
	retp = fsg_common_init(&msg_fsg_common, c->cdev, &config);
	if (usb_is_err(retp))
		return (int)usb_ptr_err(retp);
	ret = fsg_add(c->cdev, c, &msg_fsg_common);
	fsg_common_put(&msg_fsg_common);
	return ret;
}

static struct usb_configuration msg_config_235 = {
	.label = "Linux File-Backed Storage",
	.bind = msg_do_config_235,
	.bConfigurationValue = 1,
	.bmAttributes = USB_CONFIG_ATT_SELFPOWER,
};

static int msg_bind_235(struct usb_composite_dev *cdev)
{
	return usb_add_config(cdev, &msg_config_235);
}

/* bNumConfigurations and bMaxPacketSize0 left 0: the core fills them. */
static struct usb_device_descriptor msg_dev_desc_235 = {
	.bLength = sizeof msg_dev_desc_235,
	.bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = USB_CPU_TO_LE16(0x0200),
	.idVendor = USB_CPU_TO_LE16(FSG_VENDOR_ID),
	.idProduct = USB_CPU_TO_LE16(FSG_PRODUCT_ID),
};

/* One life of the 2.6.35 gadget: probe, a TEST UNIT READY, SIGTERM. */
static void run_235_once(const char *path)
{
	static const uint8_t tur[6] = { 0 };
	struct usb_inproc_host *h;
	struct usb_device_descriptor dev;
	uint8_t desc[256];
	struct msf_fx fx;
	int len;

	assert_int_equal(usb_inproc_host_create(NULL, &h), 0);
	memset(&msg_driver, 0, sizeof(msg_driver));
	msg_driver.name = "g_my_mass_storage";
	msg_driver.dev = &msg_dev_desc_235;
	msg_driver.bind = msg_bind_235;
	atomic_store(&cleaned_up, 0);
	files_open_at_exit = -1;
	assert_int_equal(usb_composite_register(&msg_driver), 0);
	atomic_store(&msg_registered, 1);
	assert_non_null(msg_fsg_common.priv);
	assert_int_equal(fds_on(path), 1);

	memset(&fx, 0, sizeof(fx));
	fx.h = h;
	len = usb_inproc_host_enumerate(h, USB_SPEED_HIGH, 1, &dev, desc, sizeof(desc), MSF_TMO);
	assert_true(len > 0);
	assert_int_equal(dev.bMaxPacketSize0, 64);	/* filled at high speed */
	assert_int_equal(dev.bNumConfigurations, 1);
	find_bulk_eps(&fx, desc, len);
	assert_int_equal(msf_fx_cmd(&fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);

	assert_int_equal(kill(getpid(), SIGTERM), 0);
	wait_flag(&cleaned_up);
	assert_int_equal(files_open_at_exit, 0);
	assert_int_equal(atomic_load(&msg_registered), 0);
	assert_int_equal(fds_on(path), 0);
	/* Detached, not freed (ASan and valgrind see a free of static storage). */
	assert_null(msg_fsg_common.priv);
	usb_inproc_host_destroy(h);
}

static void test_msf_signal_caller_storage_unregistered_from_worker(void **state)
{
	char *path = make_file();
	char arg_file[300];
	char *argv[] = { arg_file };
	char err[128];

	(void)state;
	snprintf(arg_file, sizeof(arg_file), "file=%s", path);
	msg_file = path;
	memset(&mod_data, 0, sizeof(mod_data));
	mod_data.stall = 1;
	assert_int_equal(fsg_module_parameters_parse(&mod_data, 1, argv, err, sizeof(err)), 0);
	mod_data.exit_on_signal = true;
	run_235_once(path);
	run_235_once(path);	/* the same caller storage, initialised anew */
	unlink(path);
	free(path);
}

static void test_msf_signal_sigint_too(void **state)
{
	(void)state;
	run_article_gadget(SIGINT);
}

/* ---- without thread_exits: the owner tears down later ----------------- */

static void test_msf_signal_without_callback_then_normal_teardown(void **state)
{
	static const uint8_t tur[6] = { 0 };
	char *path = make_file();
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].filename = path;
	fx->cfg.exit_on_signal = true;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(fds_on(path), 1);
	assert_int_equal(kill(getpid(), SIGTERM), 0);
	for (int i = 0; i < 3000 && fds_on(path) != 0; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	assert_int_equal(fds_on(path), 0);
	assert_false(fsg_common_lun_is_open(fx->common, 0));
	/* The device no longer answers commands; a new configuration is refused. */
	assert_true(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL) < 0);
	assert_int_equal(msf_fx_set_config(fx, 1), -USB_EPIPE);
	msf_fx_free(fx);
	unlink(path);
	free(path);
}

static void test_msf_signal_not_watched_without_opt_in(void **state)
{
	struct sigaction sa;
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.luns[0].backend = msf_fx_mem(64, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	msf_fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msf_signal_sigterm_closes_files_and_calls_thread_exits),
		cmocka_unit_test(test_msf_signal_sigint_too),
		cmocka_unit_test(test_msf_signal_caller_storage_unregistered_from_worker),
		cmocka_unit_test(test_msf_signal_without_callback_then_normal_teardown),
		cmocka_unit_test(test_msf_signal_not_watched_without_opt_in),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
