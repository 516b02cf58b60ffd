/*
 * test_usbip_scale.c - the USB/IP server at its device limit (label
 * "integration"): one server with USBIP_MAX_DEVICES devices, each bound
 * to the test gadget with its own idProduct, listed whole over
 * OP_REQ_DEVLIST by the project's client, the last one imported and
 * moving data; and an accept loop out of descriptors that waits instead
 * of spinning, and serves again once descriptors come back.
 * The throughput and footprint of many gadgets are a bench
 * (bench/scale_bench.c), not a test.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "usbip_client.h"
#include "usbip_test_gadget.h"

/* idProduct of device @i: distinct, so the listing's order is checked. */
#define PID_BASE 0x4000u

static struct usbip_server *srv;
static unsigned port;
static struct tg *gadgets;	/* USBIP_MAX_DEVICES of them */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[4096];

static void on_log(void *ctx, const char *line)
{
	size_t n;

	(void)ctx;
	pthread_mutex_lock(&log_lock);
	n = strlen(log_text);
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", line);
	pthread_mutex_unlock(&log_lock);
}

static bool logged(const char *what)
{
	bool yes;

	pthread_mutex_lock(&log_lock);
	yes = strstr(log_text, what) != NULL;
	pthread_mutex_unlock(&log_lock);
	return yes;
}

static int setup(void **state)
{
	struct usbip_server_config cfg;

	(void)state;
	gadgets = calloc(USBIP_MAX_DEVICES, sizeof(*gadgets));
	if (!gadgets)
		return -1;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.num_devices = USBIP_MAX_DEVICES;
	cfg.log = on_log;
	if (usbip_server_create(&cfg, &srv) != 0)
		return -1;
	port = usbip_server_port(srv);
	for (unsigned i = 0; i < USBIP_MAX_DEVICES; i++)
		if (tg_probe(&gadgets[i], usbip_server_busid(srv, i), (uint16_t)(PID_BASE + i)) != 0)
			return -1;
	return usbip_server_start(srv);
}

static int teardown(void **state)
{
	(void)state;
	usbip_server_stop(srv);
	for (unsigned i = 0; i < USBIP_MAX_DEVICES; i++)
		tg_remove(&gadgets[i]);
	usbip_server_destroy(srv);
	free(gadgets);
	return 0;
}

/* Every device is listed, in busid order, with its own ids and a USB
 * address of its own. */
static void test_usbip_scale_devlist_lists_every_device(void **state)
{
	struct uc_devrec *devs = calloc(USBIP_MAX_DEVICES + 1, sizeof(*devs));
	char busid[16];

	(void)state;
	assert_non_null(devs);
	assert_int_equal(usbip_server_num_devices(srv), USBIP_MAX_DEVICES);
	assert_int_equal(uc_devlist(port, devs, USBIP_MAX_DEVICES + 1), USBIP_MAX_DEVICES);
	for (unsigned i = 0; i < USBIP_MAX_DEVICES; i++) {
		snprintf(busid, sizeof(busid), "1-%u", i + 1);
		assert_string_equal(devs[i].info.busid, busid);
		/* USB addresses are 1..127: 127 devices a bus. */
		assert_int_equal(devs[i].info.busnum, 1 + i / 127);
		assert_int_equal(devs[i].info.devnum, i % 127 + 1);
		assert_int_equal(devs[i].info.idProduct, PID_BASE + i);
		assert_int_equal(devs[i].info.bNumInterfaces, 1);
		assert_int_equal(devs[i].intf[0].bInterfaceClass, 0xff);
	}
	free(devs);
}

/* The last busid imports and carries control and bulk transfers; the
 * one past it does not exist. */
static void test_usbip_scale_last_device_imports(void **state)
{
	struct tg *last = &gadgets[USBIP_MAX_DEVICES - 1];
	struct usbip_device_info info;
	uint8_t dd[18], data[TG_BIG_LEN];
	char busid[16];
	uint32_t actual;
	struct uc c;

	(void)state;
	snprintf(busid, sizeof(busid), "1-%u", USBIP_MAX_DEVICES);
	assert_string_equal(usbip_server_busid(srv, USBIP_MAX_DEVICES - 1), busid);
	assert_int_equal(uc_import(&c, port, busid, &info), 0);
	assert_int_equal(info.busnum, 1 + (USBIP_MAX_DEVICES - 1) / 127);
	assert_int_equal(info.devnum, (USBIP_MAX_DEVICES - 1) % 127 + 1);
	assert_int_equal(c.devid, info.busnum << 16 | info.devnum);
	assert_int_equal(uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0,
				    sizeof(dd), dd, &actual), 0);
	assert_int_equal(actual, sizeof(dd));
	assert_int_equal(dd[10] | dd[11] << 8, PID_BASE + USBIP_MAX_DEVICES - 1);
	assert_int_equal(uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL, NULL), 0);
	memset(data, 0x3c, sizeof(data));
	assert_int_equal(uc_transfer(&c, tg_addr(last->sink) & 0xf, false, data, sizeof(data), 0,
				     &actual), 0);
	assert_int_equal(actual, sizeof(data));
	assert_int_equal(uc_transfer(&c, tg_addr(last->source) & 0xf, true, data, TG_BIG_LEN, 0,
				     &actual), 0);
	assert_int_equal(actual, TG_BIG_LEN);
	assert_int_equal(data[1], tg_pattern(1));
	uc_close(&c);

	snprintf(busid, sizeof(busid), "1-%u", USBIP_MAX_DEVICES + 1);
	assert_int_equal(uc_import(&c, port, busid, &info), USBIP_ST_NODEV);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Out of descriptors, a connection waits in the backlog: the accept loop
 * says why once and backs off (no spin on the readable listening
 * socket); once descriptors are back, it serves again. */
static void test_usbip_scale_accept_out_of_descriptors_backs_off(void **state)
{
	struct rlimit saved, low;
	int fds[64], n = 0, pending;
	struct timespec wait = { 0, 500 * 1000000L };
	struct uc_devrec *devs = calloc(USBIP_MAX_DEVICES, sizeof(*devs));
	double cpu;

	struct timespec reaped = { 1, 200 * 1000000L };

	(void)state;
	assert_non_null(devs);
	/* The server joins ended connections within a second (its accept
	 * loop's turn) and closes their descriptors then: let the earlier
	 * tests' go first, or they would come back during the wait. */
	nanosleep(&reaped, NULL);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	/* A limit a few descriptors above the highest open one; use up the rest. */
	fds[n++] = dup(0);
	assert_true(fds[0] >= 0);
	low = saved;
	low.rlim_cur = (rlim_t)fds[0] + 8;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < 64 && (fds[n] = dup(0)) >= 0)
		n++;
	assert_int_equal(errno, EMFILE);
	close(fds[--n]);
	pending = uc_connect(port);	/* takes the last descriptor */
	assert_true(pending >= 0);
	cpu = cpu_seconds();
	nanosleep(&wait, NULL);
	cpu = cpu_seconds() - cpu;
	assert_true(logged("cannot accept a connection"));
	/* A spinning accept loop would burn the whole half second. */
	assert_true(cpu < 0.15);
	while (n > 0)
		close(fds[--n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
	/* The waiting connection is taken; a new one is answered. */
	assert_int_equal(uc_devlist(port, devs, USBIP_MAX_DEVICES), USBIP_MAX_DEVICES);
	close(pending);
	free(devs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_scale_devlist_lists_every_device),
		cmocka_unit_test(test_usbip_scale_last_device_imports),
		cmocka_unit_test(test_usbip_scale_accept_out_of_descriptors_backs_off),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
