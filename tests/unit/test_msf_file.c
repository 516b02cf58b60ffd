/*
 * test_msf_file.c - what the file backend (backend_file_posix.c) opens and
 * refuses: only regular files and block devices, without blocking on a
 * FIFO, and a message naming a refused file (through the library's log
 * handler); a file nobody may write opened read-only, also as root; a
 * file that shrank while served never grown back by a WRITE.
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

/* The same through fsg_common_create(): file= naming a FIFO fails the bind. */
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

/* A file of @size zero bytes under /tmp. */
static char *make_file(uint64_t size)
{
	char *path = strdup("/tmp/msf-file-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	close(fd);
	return path;
}

/* The access mode of the descriptor this process holds on @path (found
 * through /proc/self/fd), or -1 where there is no /proc. */
static int access_mode_of(const char *path)
{
	char link[64], target[4096];

	for (int fd = 3; fd < 1024; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, path) == 0)
			return fcntl(fd, F_GETFL) & O_ACCMODE;
	}
	return -1;
}

/*
 * A mode-444 image without ro=: opened read-only, by root too (whom
 * open(O_RDWR) would let write it), and said so; the LUN is write
 * protected (MODE SENSE WP, WRITE gives DATA PROTECT) and the file keeps
 * its bytes. As another user the read-write open fails with EACCES and the
 * fallback gives the same result, so the case is only sharp as root.
 */
static void test_msf_file_mode_444_opens_read_only(void **state)
{
	static const uint8_t mode_sense[6] = { 0x1a, 0, 0x3f, 0, 192, 0 };
	char *path = make_file(1u << 20);
	struct fsg_backend *be;
	uint8_t buf[512], reply[192];
	uint32_t sense;
	struct msf_fx *fx;
	int fd, x;

	(void)state;
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(fsg_backend_file_open(&be, path, false, false), 0);
	assert_true(be->ops->read_only(be));
	x = access_mode_of(path);
	if (x != -1 || access("/proc/self/fd", F_OK) == 0)
		assert_int_equal(x, O_RDONLY);
	memset(buf, 0x77, sizeof(buf));
	assert_int_equal(be->ops->write(be, 0, buf, 512), -USB_EROFS);
	be->ops->release(be);
	assert_non_null(strstr(logged, path));
	assert_non_null(strstr(logged, "read-only"));

	logged[0] = '\0';
	fx = msf_fx_new();
	fx->cfg.luns[0].filename = path;	/* ro not set */
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_non_null(strstr(logged, path));
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, mode_sense, 6, true, reply, sizeof(reply), &x, NULL),
			 0);
	assert_true(x >= 4);
	assert_int_equal(reply[2] & 0x80, 0x80);	/* WP */
	assert_int_equal(msf_fx_write10(fx, 0, 0, 1, buf, 512, 0), 1);
	sense = msf_fx_sense(fx, 0, NULL, NULL);
	assert_int_equal(sense, 0x072700);
	msf_fx_free(fx);

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, 512, 0), 512);
	for (unsigned i = 0; i < 512; i++)
		assert_int_equal(buf[i], 0);
	close(fd);
	/* A write bit for anyone: read-write as before (for the owner). */
	assert_int_equal(chmod(path, 0644), 0);
	logged[0] = '\0';
	assert_int_equal(fsg_backend_file_open(&be, path, false, false), 0);
	assert_false(be->ops->read_only(be));
	assert_null(strstr(logged, path));
	be->ops->release(be);
	unlink(path);
	free(path);
}

/*
 * An image truncated while served keeps the capacity the LUN opened it
 * with, but a WRITE past its new end must not grow it again: the blocks
 * inside are written, the rest is WRITE ERROR (03/0C/02) at the first LBA
 * past the end, as a READ there is UNRECOVERED READ ERROR.
 */
static void test_msf_file_shrunk_file_does_not_grow(void **state)
{
	char *path = make_file(1u << 20);	/* 2048 blocks */
	uint8_t buf[2 * 512], back[512];
	struct msf_fx *fx = msf_fx_new();
	struct stat st;
	uint32_t info;
	bool valid;
	int fd;

	(void)state;
	fx->cfg.luns[0].filename = path;
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(truncate(path, 512 * 1024), 0);	/* 1024 blocks left */
	memset(buf, 0x5c, sizeof(buf));

	assert_int_equal(msf_fx_write10(fx, 0, 1500, 2, buf, sizeof(buf), 0), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x030c02);
	assert_true(valid);
	assert_int_equal(info, 1500);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 512 * 1024);

	/* Across the new end: the block inside lands, the next one fails. */
	assert_int_equal(msf_fx_write10(fx, 0, 1023, 2, buf, sizeof(buf), 0x08), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, &valid), 0x030c02);
	assert_int_equal(info, 1024);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 512 * 1024);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, back, 512, 1023 * 512), 512);
	assert_memory_equal(back, buf, 512);
	close(fd);

	/* A READ past the end: the medium error it always was. */
	assert_int_equal(msf_fx_read10(fx, 0, 1500, 1, back, 512, 0), 1);
	assert_int_equal(msf_fx_sense(fx, 0, &info, NULL), 0x031100);
	assert_int_equal(info, 1500);
	/* Inside the file all is as before. */
	assert_int_equal(msf_fx_write10(fx, 0, 10, 2, buf, sizeof(buf), 0), 0);
	msf_fx_free(fx);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 512 * 1024);
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
		cmocka_unit_test_setup_teardown(test_msf_file_mode_444_opens_read_only,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_msf_file_shrunk_file_does_not_grow,
						setup_log, teardown_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
