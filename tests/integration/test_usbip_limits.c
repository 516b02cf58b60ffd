/*
 * test_usbip_limits.c - integration tests of the USB/IP server's defences
 * (security issue #21) over real sockets on 127.0.0.1: what the server
 * says about the address it is given, the op-phase limits (one deadline
 * for the whole request; a host gets its device while a peer on its own
 * address floods or trickles connections), and a reconnect right after a
 * disconnect.
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
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

/* The fixture's op deadline: short, so slow connections end in the test. */
#define OP_TIMEOUT_MS 1000

static struct usbip_server *srv;
static unsigned port;
static struct tg gadget;

static void sleep_ms(unsigned ms)
{
	struct timespec t = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int group_setup(void **state)
{
	(void)state;
	struct usbip_server_config cfg;

	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.log = on_log;
	cfg.op_timeout_ms = OP_TIMEOUT_MS;	/* slots as by default */
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

static void test_usbip_limits_bad_limits_rejected(void **state)
{
	struct usbip_server_config cfg;
	struct usbip_server *s = NULL;

	(void)state;
	usbip_server_config_init(&cfg);
	assert_int_equal(cfg.op_timeout_ms, 10000);
	assert_int_equal(cfg.max_op_connections, 32);
	assert_int_equal(cfg.max_op_connections_per_peer, 8);
	cfg.busnum = 5;
	cfg.port = 0;
	cfg.op_timeout_ms = 0;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	cfg.op_timeout_ms = 10;
	cfg.max_op_connections = 0;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	cfg.max_op_connections = 4;
	cfg.max_op_connections_per_peer = 5;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	cfg.max_op_connections_per_peer = 0;
	assert_int_equal(usbip_server_create(&cfg, &s), -USB_EINVAL);
	assert_null(s);
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

/* ---- op-phase slots ---------------------------------------------------------- */

/* What a real host does, @rounds times: list, import 1-1, read the device
 * descriptor, detach. Return the seconds it took, or -1 on a failure. */
static double host_rounds(unsigned rounds)
{
	double t0 = now_s();

	for (unsigned i = 0; i < rounds; i++) {
		struct uc_devrec devs[2];
		struct usbip_device_info info;
		uint8_t desc[18];
		uint32_t actual = 0;
		struct uc c;

		if (uc_devlist(port, devs, 2) != 1) {
			fprintf(stderr, "round %u: devlist failed\n", i);
			return -1;
		}
		if (uc_import(&c, port, "1-1", &info) != 0) {
			fprintf(stderr, "round %u: import failed\n", i);
			return -1;
		}
		if (uc_control(&c, 0x80, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0,
			       sizeof(desc), desc, &actual) != 0 || actual != sizeof(desc)) {
			fprintf(stderr, "round %u: GET_DESCRIPTOR failed\n", i);
			uc_close(&c);
			return -1;
		}
		uc_close(&c);
	}
	return now_s() - t0;
}

/* An attacker on the host's own address (all tests run from 127.0.0.1). */
struct attacker {
	pthread_t thread;
	unsigned want;			/* connections to open */
	unsigned drip_ms;		/* 0: open and hold; else a byte each */
	int fds[1000];
	_Atomic unsigned opened;	/* connections opened so far */
	atomic_bool stop;
};

/* Open @want connections and hold them (send nothing). */
static void *flood(void *arg)
{
	struct attacker *a = arg;

	for (unsigned i = 0; i < a->want && !atomic_load(&a->stop); i++) {
		a->fds[i] = uc_connect(port);
		atomic_fetch_add(&a->opened, 1);
	}
	return NULL;
}

/* Keep @want connections sending an OP_REQ_IMPORT one byte at a time,
 * reconnecting those the server closes. */
static void *drip(void *arg)
{
	struct attacker *a = arg;
	uint8_t req[USBIP_OP_HEADER_SIZE + USBIP_BUSID_SIZE] = { 0x01, 0x11, 0x80, 0x03 };
	unsigned sent[1000] = { 0 };

	memcpy(req + USBIP_OP_HEADER_SIZE, "1-1", 4);
	for (unsigned i = 0; i < a->want; i++) {
		a->fds[i] = uc_connect(port);
		atomic_fetch_add(&a->opened, 1);
	}
	while (!atomic_load(&a->stop)) {
		for (unsigned i = 0; i < a->want; i++) {
			/* Never the last byte: the request must stay incomplete. */
			if (a->fds[i] < 0 || sent[i] + 1 >= sizeof(req) ||
			    send(a->fds[i], req + sent[i], 1, MSG_NOSIGNAL) != 1) {
				if (a->fds[i] >= 0)
					close(a->fds[i]);
				a->fds[i] = uc_connect(port);
				sent[i] = 0;
				continue;
			}
			sent[i]++;
		}
		sleep_ms(a->drip_ms);
	}
	return NULL;
}

static void attacker_start(struct attacker *a, unsigned want, unsigned drip_ms)
{
	memset(a, 0, sizeof(*a));
	a->want = want;
	a->drip_ms = drip_ms;
	for (unsigned i = 0; i < want; i++)
		a->fds[i] = -1;
	assert_int_equal(pthread_create(&a->thread, NULL, drip_ms ? drip : flood, a), 0);
}

static void attacker_stop(struct attacker *a)
{
	atomic_store(&a->stop, true);
	pthread_join(a->thread, NULL);
	for (unsigned i = 0; i < a->want; i++)
		if (a->fds[i] >= 0)
			close(a->fds[i]);
}

/* Room for the flood's sockets (and the server's) where the soft limit is
 * the common 1024. Return how many connections the flood may hold. */
static unsigned flood_size(void)
{
	struct rlimit rl;
	unsigned n = 1000;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1200) {
		rl.rlim_cur = rl.rlim_max < 1200 ? rl.rlim_max : 1200;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < 1200)
			n = rl.rlim_cur > 200 ? (unsigned)rl.rlim_cur - 200 : 1;
	}
	return getenv("COMPOSITE_UNDER_VALGRIND") && n > 200 ? 200 : n;
}

/* The whole op request has one deadline: a byte now and then does not
 * keep a connection (it held a thread and a slot for ever before). */
static void test_usbip_limits_op_deadline_is_for_the_whole_request(void **state)
{
	uint8_t req[USBIP_OP_HEADER_SIZE + USBIP_BUSID_SIZE] = { 0x01, 0x11, 0x80, 0x03 };
	int fd = uc_connect(port);
	double t0 = now_s(), closed_at = 0;
	size_t sent = 0;

	(void)state;
	memcpy(req + USBIP_OP_HEADER_SIZE, "1-1", 4);
	assert_true(fd >= 0);
	/* 40 bytes at one per 100 ms would take 4 s; the deadline is 1 s. */
	while (sent < sizeof(req) && closed_at == 0) {
		if (send(fd, req + sent, 1, MSG_NOSIGNAL) != 1)
			break;
		sent++;
		sleep_ms(100);
		{
			struct pollfd p = { fd, POLLIN, 0 };

			if (poll(&p, 1, 0) == 1 && uc_peer_closed(fd))
				closed_at = now_s() - t0;
		}
	}
	close(fd);
	fprintf(stderr, "dripping connection closed after %.2f s, %zu bytes sent\n", closed_at,
		sent);
	assert_true(closed_at > 0);
	assert_true(closed_at < OP_TIMEOUT_MS / 1000.0 + 0.5);
	assert_true(sent < sizeof(req));
}

/* 1000 connections opened and held by a peer on the host's own address:
 * the host lists and imports all the same, and quickly. */
static void test_usbip_limits_flood_does_not_lock_out_a_host(void **state)
{
	static struct attacker a;
	unsigned n = flood_size();
	double t;

	(void)state;
	attacker_start(&a, n, 0);
	while (atomic_load(&a.opened) < n / 4)
		sleep_ms(1);
	t = host_rounds(5);	/* while the flood goes on */
	while (atomic_load(&a.opened) < n)
		sleep_ms(1);
	{
		double t2 = host_rounds(5);	/* all of it held */

		fprintf(stderr, "flood of %u: 5 host rounds during it %.3f s, after it %.3f s\n",
			n, t, t2);
		attacker_stop(&a);
		assert_true(t >= 0 && t2 >= 0);
		assert_true(t < 5.0 && t2 < 5.0);
	}
}

/* 64 connections trickling their requests a byte at a time (and coming
 * back when closed): the host gets through at once. */
static void test_usbip_limits_slow_connections_do_not_lock_out_a_host(void **state)
{
	static struct attacker a;
	double t;

	(void)state;
	attacker_start(&a, 64, 20);
	while (atomic_load(&a.opened) < 64)
		sleep_ms(1);
	sleep_ms(200);	/* every drip has a few bytes in */
	t = host_rounds(5);
	fprintf(stderr, "64 slow connections: 5 host rounds %.3f s\n", t);
	attacker_stop(&a);
	assert_true(t >= 0);
	assert_true(t < 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_limits_unresolvable_address_is_named),
		cmocka_unit_test(test_usbip_limits_non_loopback_address_warns),
		cmocka_unit_test(test_usbip_limits_bad_limits_rejected),
		cmocka_unit_test(test_usbip_limits_reconnect_right_after_disconnect),
		cmocka_unit_test(test_usbip_limits_op_deadline_is_for_the_whole_request),
		cmocka_unit_test(test_usbip_limits_flood_does_not_lock_out_a_host),
		cmocka_unit_test(test_usbip_limits_slow_connections_do_not_lock_out_a_host),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
