/*
 * test_usbip_limits.c - integration tests of the USB/IP server's defences
 * (security issue #21) over real sockets on 127.0.0.1: what the server
 * says about the address it is given, and that a host gets its device
 * while others hold or flood connections.
 *
 * One server for the run (busid 1-1 bound to the test gadget, a short op
 * deadline so the tests take seconds); the address cases create servers
 * of their own on bus 5.
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
#include <time.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "usbip_client.h"
#include "usbip_test_gadget.h"

/* ---- log capture ---------------------------------------------------------- */

#define LOG_LINES 64

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_lines[LOG_LINES][256];
static unsigned nlog;

static void on_log(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "[server] %s\n", line);
	pthread_mutex_lock(&log_lock);
	snprintf(log_lines[nlog % LOG_LINES], sizeof(log_lines[0]), "%s", line);
	nlog++;
	pthread_mutex_unlock(&log_lock);
}

static void log_clear(void)
{
	pthread_mutex_lock(&log_lock);
	nlog = 0;
	pthread_mutex_unlock(&log_lock);
}

/* Does a line logged since log_clear() contain @a and @b? */
static bool logged(const char *a, const char *b)
{
	bool found = false;

	pthread_mutex_lock(&log_lock);
	for (unsigned i = 0; i < nlog && i < LOG_LINES && !found; i++)
		found = strstr(log_lines[i], a) && (!b || strstr(log_lines[i], b));
	pthread_mutex_unlock(&log_lock);
	return found;
}

/* ---- fixture --------------------------------------------------------------- */

static struct usbip_server *srv;
static unsigned port;
static struct tg gadget;

static int group_setup(void **state)
{
	(void)state;
	struct usbip_server_config cfg;

	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.log = on_log;
	if (usbip_server_create(&cfg, &srv) != 0)
		return -1;
	port = usbip_server_port(srv);
	if (tg_probe(&gadget, "1-1", 0x0104) != 0)
		return -1;
	return usbip_server_start(srv);
}

static int group_teardown(void **state)
{
	(void)state;
	usbip_server_stop(srv);
	tg_remove(&gadget);
	usbip_server_destroy(srv);
	return 0;
}

/* ---- the address ----------------------------------------------------------- */

static void test_usbip_limits_unresolvable_address_is_named(void **state)
{
	struct usbip_server_config cfg;
	struct usbip_server *s = NULL;
	int rc;

	(void)state;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.busnum = 5;
	cfg.log = on_log;
	cfg.address = "no-such-host.invalid";	/* RFC 6761: never resolves */
	log_clear();
	rc = usbip_server_create(&cfg, &s);
	/* Not "invalid argument": the resolver's verdict (EAGAIN where no
	 * resolver can be reached at all). */
	assert_true(rc == -USB_EADDRNOTAVAIL || rc == -USB_EAGAIN);
	assert_null(s);
	assert_true(logged("no-such-host.invalid", "resolve"));
}

static void test_usbip_limits_non_loopback_address_warns(void **state)
{
	struct usbip_server_config cfg;
	struct usbip_server *s = NULL;

	(void)state;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.busnum = 5;
	cfg.log = on_log;
	cfg.address = "127.0.0.1";
	log_clear();
	assert_int_equal(usbip_server_create(&cfg, &s), 0);
	assert_false(logged("warning", NULL));
	usbip_server_destroy(s);

	cfg.address = "0.0.0.0";
	log_clear();
	assert_int_equal(usbip_server_create(&cfg, &s), 0);
	assert_true(logged("warning", "0.0.0.0"));
	assert_true(logged("no authentication", NULL));
	usbip_server_destroy(s);
}

/* ---- reconnect ------------------------------------------------------------- */

/* A host that detaches and attaches again at once (a re-plug, a script)
 * finds the device free: the import waits for the teardown of the
 * previous connection rather than answering "device busy". */
static void test_usbip_limits_reconnect_right_after_disconnect(void **state)
{
	struct usbip_device_info info;
	struct uc c;

	(void)state;
	for (unsigned i = 0; i < 50; i++) {
		assert_int_equal(uc_import(&c, port, "1-1", &info), 0);
		assert_int_equal(uc_control(&c, 0x00, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL,
					    NULL), 0);
		uc_close(&c);
	}
	/* A device really in use is still refused. */
	struct uc other;

	assert_int_equal(uc_import(&c, port, "1-1", &info), 0);
	assert_int_equal(uc_import(&other, port, "1-1", &info), USBIP_ST_DEV_BUSY);
	uc_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_limits_unresolvable_address_is_named),
		cmocka_unit_test(test_usbip_limits_non_loopback_address_warns),
		cmocka_unit_test(test_usbip_limits_reconnect_right_after_disconnect),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
