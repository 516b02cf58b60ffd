/*
 * test_msf_file.c - what the file backend (backend_file_posix.c) opens and
 * refuses: only regular files and block devices, without blocking on a
 * FIFO, and a message naming a refused file (through the library's log
 * handler).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_msf_fixture.h"

/* ---- the library's diagnostics, captured ------------------------------- */

static char logged[4096];

static void capture(void *ctx, const char *line)
{
	size_t used = strlen(logged);

	(void)ctx;
	snprintf(logged + used, sizeof(logged) - used, "%s\n", line);
}

static int setup_log(void **state)
{
	(void)state;
	logged[0] = '\0';
	usb_composite_set_log_handler(capture, NULL);
	return 0;
}

static int teardown_log(void **state)
{
	(void)state;
	usb_composite_set_log_handler(NULL, NULL);
	return 0;
}

/* A fresh name under /tmp (nothing created there). */
static char *temp_name(void)
{
	char *path = strdup("/tmp/msf-file-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(unlink(path), 0);
	return path;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * fsg_backend_file_open() with an alarm: an open() that blocks (a FIFO
 * without a writer) is interrupted after 2 s instead of hanging the test.
 */
static int open_with_alarm(struct fsg_backend **be, const char *path, bool ro)
{
	struct sigaction sa, old;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: open() fails with EINTR */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	alarm(2);
	rc = fsg_backend_file_open(be, path, ro, false);
	alarm(0);
	assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
	return rc;
}

/* file=FIFO, read-only or not: refused at once, naming the file. */
static void test_msf_file_fifo_refused_without_blocking(void **state)
{
	char *path = temp_name();
	struct fsg_backend *be = NULL;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	for (int ro = 1; ro >= 0; ro--) {
		logged[0] = '\0';
		assert_int_equal(open_with_alarm(&be, path, ro), -USB_EINVAL);
		assert_null(be);
		assert_non_null(strstr(logged, path));
		assert_non_null(strstr(logged, "not a regular file or block device"));
	}
	/* A directory and a character device: the same answer. */
	assert_int_equal(open_with_alarm(&be, "/tmp", false), -USB_EINVAL);
	assert_non_null(strstr(logged, "/tmp"));
	assert_int_equal(open_with_alarm(&be, "/dev/null", true), -USB_EINVAL);
	assert_non_null(strstr(logged, "/dev/null"));
	unlink(path);
	free(path);
}

/* The same through fsg_common_init(): file= naming a FIFO fails the bind. */
static void test_msf_file_fifo_lun_fails_init(void **state)
{
	char *path = temp_name();
	struct msf_fx *fx = msf_fx_new();
	struct sigaction sa, old;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	fx->cfg.luns[0].filename = path;
	fx->cfg.luns[0].ro = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	alarm(2);
	assert_true(msf_fx_probe(fx) < 0);
	alarm(0);
	assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
	assert_int_equal(fx->init_rc, -USB_EINVAL);
	assert_non_null(strstr(logged, path));
	msf_fx_free(fx);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_msf_file_fifo_refused_without_blocking,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_msf_file_fifo_lun_fails_init, setup_log,
						teardown_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
