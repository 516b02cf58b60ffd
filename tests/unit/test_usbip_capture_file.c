/*
 * test_usbip_capture_file.c - a capture's file written behind by its
 * writer thread (src/udc/usbip/capture_file_posix.c): every byte put
 * reaches the file in order (puts of every size, more than the ring at
 * once, the ring wrapping), a flush waits until they are in, bytes left
 * pending go out within the deadline while nothing else comes, a write
 * that fails is logged once and returned by every later call, and the
 * file's open errors.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "composite/usbip.h"
#include "udc/usbip/usbip_priv.h"

static struct usbip_server *srv;
static char dir[64];
static char path[128];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[4096];
static int log_lines;

static void on_log(void *ctx, const char *line)
{
	(void)ctx;
	pthread_mutex_lock(&log_lock);
	strncat(log_text, line, sizeof(log_text) - strlen(log_text) - 2);
	strcat(log_text, "\n");
	log_lines++;
	pthread_mutex_unlock(&log_lock);
}

static int setup(void **state)
{
	struct usbip_server_config cfg;

	(void)state;
	usbip_server_config_init(&cfg);
	cfg.port = 0;
	cfg.log = on_log;
	snprintf(dir, sizeof(dir), "%s", "/tmp/capture-file-XXXXXX");
	if (!mkdtemp(dir) || usbip_server_create(&cfg, &srv) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/f.pcap", dir);
	log_text[0] = 0;
	log_lines = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	usbip_server_destroy(srv);
	unlink(path);
	rmdir(dir);
	return 0;
}

static long long size_of(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

/* Byte @i of the test stream: no period that a ring's size divides. */
static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 131u + i / 251u);
}

/* The file holds @header and then the first @n bytes of the stream. */
static void assert_file_holds(const char *header, size_t n)
{
	size_t hl = strlen(header);
	FILE *f = fopen(path, "rb");
	uint8_t *got = malloc(hl + n + 1);

	assert_non_null(f);
	assert_non_null(got);
	assert_int_equal(fread(got, 1, hl + n + 1, f), hl + n);
	assert_memory_equal(got, header, hl);
	for (size_t i = 0; i < n; i++)
		if (got[hl + i] != pattern(i))
			fail_msg("byte %zu of the stream differs", i);
	fclose(f);
	free(got);
}

/* Puts of 1 byte to 3 MiB (over the ring's size), 10 MiB in all so that
 * the ring wraps at odd offsets; a flush at the end of each round. */
static void test_capture_file_keeps_every_byte_in_order(void **state)
{
	static const size_t sizes[] = { 1, 80, 7, 4096, 131072 + 80, 100000, 3u << 20, 13, 65536 };
	struct usbip__cap_file *f;
	size_t total = 0, cap = 12u << 20;
	uint8_t *stream = malloc(cap);

	(void)state;
	assert_non_null(stream);
	for (size_t i = 0; i < cap; i++)
		stream[i] = pattern(i);
	assert_int_equal(usbip__cap_file_open(srv, "1-1", path, "HDR", 3, &f), 0);
	assert_int_equal(size_of(path), 3);	/* the header at once */
	for (int round = 0; round < 3; round++) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];

			if (total + n > cap)
				break;
			assert_int_equal(usbip__cap_file_put(f, stream + total, n), 0);
			total += n;
		}
		assert_int_equal(usbip__cap_file_flush(f), 0);
		assert_int_equal(size_of(path), (long long)(3 + total));
	}
	assert_true(total > (9u << 20));
	assert_int_equal(usbip__cap_file_put(f, stream + total, 5), 0);
	total += 5;
	assert_int_equal(usbip__cap_file_close(f), 0);	/* writes the 5 first */
	assert_file_holds("HDR", total);
	assert_int_equal(log_lines, 0);
	free(stream);
}

/* A few bytes and then nothing: in the file within the deadline
 * (USBIP_CAP_FLUSH_NS, 1 s), without a flush or more data. */
static void test_capture_file_idle_bytes_reach_the_file(void **state)
{
	struct usbip__cap_file *f;
	uint8_t b[100];
	int waited_ms = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = pattern(i);
	assert_int_equal(usbip__cap_file_open(srv, "1-1", path, "H", 1, &f), 0);
	assert_int_equal(usbip__cap_file_put(f, b, sizeof(b)), 0);
	while (size_of(path) == 1 && waited_ms < 5000) {
		struct timespec ts = { 0, 10 * 1000000L };

		nanosleep(&ts, NULL);
		waited_ms += 10;
	}
	assert_int_equal(size_of(path), 1 + (long long)sizeof(b));
	assert_int_equal(usbip__cap_file_close(f), 0);
	assert_file_holds("H", sizeof(b));
}

/* Over RLIMIT_FSIZE: the writer's write fails, one log line says so,
 * and the flush and every later put return the cause; close is clean. */
static void test_capture_file_write_failure(void **state)
{
	struct usbip__cap_file *f;
	struct rlimit old, small;
	size_t n = 1u << 20;
	uint8_t *b = calloc(1, n);

	(void)state;
	assert_non_null(b);
	assert_int_equal(usbip__cap_file_open(srv, "1-7", path, "H", 1, &f), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 64 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	assert_int_equal(usbip__cap_file_put(f, b, n), 0);	/* the ring takes it */
	assert_int_equal(usbip__cap_file_flush(f), -USB_ENOSPC);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(usbip__cap_file_put(f, b, 10), -USB_ENOSPC);
	assert_int_equal(usbip__cap_file_flush(f), -USB_ENOSPC);
	assert_int_equal(usbip__cap_file_close(f), 0);
	assert_true(size_of(path) <= 64 * 1024);
	assert_int_equal(log_lines, 1);
	assert_non_null(strstr(log_text, "1-7: capture to "));
	assert_non_null(strstr(log_text, "stopped"));
	/* More than the ring in one put: the put itself sees the failure
	 * (whichever thread wrote), and it is logged once. */
	assert_int_equal(usbip__cap_file_open(srv, "1-8", path, "H", 1, &f), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	b = realloc(b, 4 * n);
	assert_non_null(b);
	assert_int_equal(usbip__cap_file_put(f, b, 4 * n), -USB_ENOSPC);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(usbip__cap_file_close(f), 0);
	assert_true(size_of(path) <= 64 * 1024);
	assert_int_equal(log_lines, 2);
	assert_non_null(strstr(log_text, "1-8: capture to "));
	free(b);
}

static void test_capture_file_open_errors(void **state)
{
	struct usbip__cap_file *f = NULL;

	(void)state;
	assert_int_equal(usbip__cap_file_open(srv, "1-1", "/nonexistent/dir/x.pcap", "H", 1, &f),
			 -USB_ENOENT);
	assert_null(f);
	if (size_of("/dev/full") >= 0)
		assert_int_equal(usbip__cap_file_open(srv, "1-1", "/dev/full", "H", 1, &f),
				 -USB_ENOSPC);
	assert_null(f);
	/* Opened and closed with nothing put: no writer ever ran. */
	assert_int_equal(usbip__cap_file_open(srv, "1-1", path, "HDR", 3, &f), 0);
	assert_int_equal(usbip__cap_file_flush(f), 0);
	assert_int_equal(usbip__cap_file_close(f), 0);
	assert_int_equal(size_of(path), 3);
	assert_int_equal(usbip__cap_file_close(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_capture_file_keeps_every_byte_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_capture_file_idle_bytes_reach_the_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_capture_file_write_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capture_file_open_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
