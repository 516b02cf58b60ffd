/*
 * test_gadgetd.h - what test_gadgetd.c's cases share with the other files
 * of the test_gadgetd program (test_gadgetd_control.c, test_gadgetd_ends.c): the daemon under
 * test started and stopped in a folder of its own, the CLI, a host's view
 * of a gadget. Defined in test_gadgetd.c; cmocka asserts inside.
 */
#ifndef TEST_GADGETD_H
#define TEST_GADGETD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "usbip_client.h"

/* The shipped schemes' folder; the test's folder (the daemon's cwd). */
extern const char *schemes_dir;
extern char tmpdir[64];

struct daemon {
	pid_t pid;
	FILE *out;		/* its stdout, from after "listening on" */
	unsigned port;
};

struct host_view {
	uint8_t dev[18];
	uint8_t cfg[512];
	uint32_t cfg_len;
	char product[64];
};

/* Setup and teardown: a fresh test folder with a 1 MiB disk.img; remove it
 * (and kill a daemon a failed test left). */
int make_dir(void **state);
int remove_dir(void **state);

/* @name in the shipped schemes' folder unless absolute. */
void scheme_path(char *buf, size_t size, const char *name);

/* Start the daemon with @args (NULL-ended, "--port 0" among them; after
 * "--run-dir run"), its stderr to @err_file (or inherited). */
void start_args(struct daemon *d, const char *const *args, const char *err_file);

/* SIGTERM: exit 0 with "stopped". */
void stop(struct daemon *d);

/* SIGHUP, the log up to "reloaded" into @log. */
void sighup(struct daemon *d, char *log, size_t size);

void read_text(const char *path, char *buf, size_t size);

/* Run the daemon with @args (NULL-ended) to its end, its stderr to
 * @err_file (or inherited), its stdout into @out (may be NULL).
 * Return its exit status. */
int run_to_end(const char *const *args, const char *err_file, char *out, size_t size);
void read_host_view(struct uc *c, struct host_view *v);
void make_image(const char *name);

/* composite-gadgetctl: list (text or --json) into @out; WORDS into @out
 * and @errs. Return its exit status. */
int ctl_list(const char *sock, bool json, char *out, size_t size);
int ctl(const char *sock, const char *const *words, char *out, size_t size, char *errs,
	size_t esize);
#define CTL(sock, out, errs, ...) \
	ctl(sock, (const char *const[]){ __VA_ARGS__, NULL }, out, sizeof(out), errs, sizeof(errs))

/* Wait (bounded) until list shows @text. */
bool list_shows(const char *sock, const char *text);

/* Start serving @a and @b (with a control socket at @control, or none);
 * wait for the port. */
void start_with(struct daemon *d, const char *a, const char *b, const char *control);

/* A mass_storage scheme NAME in the test's folder whose LUN is @file
 * (read-only with @ro). */
void write_scheme_file(const char *name, bool ro, const char *file);

/* Whether process @pid has a file called @name open. */
bool has_open(pid_t pid, const char *name);

/* One raw request on the control socket; the reply into @out. */
void raw_request(const char *sock, const char *req, size_t len, char *out, size_t size);

/* test_gadgetd_control.c's, test_gadgetd_ends.c's and
 * test_gadgetd_gadgetfs.c's groups. Return cmocka's status. */
int gadgetd_control_tests(void);
int gadgetd_ends_tests(void);
int gadgetd_gadgetfs_tests(void);

#endif /* TEST_GADGETD_H */
