/*
 * usbtest_run.c - one case of the kernel's usbtest driver, started from the
 * guest the way tools/usb/testusb.c starts it (an ioctl on the device's
 * usbfs node, routed to the usbtest driver bound to interface IFNO):
 *
 *	usbtest_run DEVNODE IFNO TEST ITERATIONS LENGTH VARY SGLEN
 *
 * Prints "test N: ok, S.SS s" or the error. Exit 0 when the case passed,
 * 3 when usbtest says the device lacks what it needs (EOPNOTSUPP), 1 on
 * any other failure. The request layout is usbtest's (64-bit form).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

struct usbtest_param_64 {
	uint32_t test_num;
	uint32_t iterations;
	uint32_t length;
	uint32_t vary;
	uint32_t sglen;
	int64_t duration_sec;
	int64_t duration_usec;
};

#define USBTEST_REQUEST_64 _IOWR('U', 100, struct usbtest_param_64)

static int number(const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || end == s || *end || *out > 0xffffffffUL ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct usbtest_param_64 p;
	struct usbdevfs_ioctl wrap;
	unsigned long v[6];
	int fd, rc;

	if (argc != 8) {
		fprintf(stderr, "usage: usbtest_run DEVNODE IFNO TEST ITERATIONS LENGTH VARY SGLEN\n");
		return 1;
	}
	for (int i = 0; i < 6; i++)
		if (number(argv[i + 2], &v[i])) {
			fprintf(stderr, "usbtest_run: %s: not a number\n", argv[i + 2]);
			return 1;
		}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "usbtest_run: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&p, 0, sizeof(p));
	p.test_num = (uint32_t)v[1];
	p.iterations = (uint32_t)v[2];
	p.length = (uint32_t)v[3];
	p.vary = (uint32_t)v[4];
	p.sglen = (uint32_t)v[5];
	wrap.ifno = (int)v[0];
	wrap.ioctl_code = (int)(unsigned)USBTEST_REQUEST_64;
	wrap.data = &p;
	rc = ioctl(fd, USBDEVFS_IOCTL, &wrap);
	if (rc < 0) {
		int e = errno;

		close(fd);
		printf("test %lu: %s\n", v[1], e == EOPNOTSUPP ? "n/a (EOPNOTSUPP)" : strerror(e));
		return e == EOPNOTSUPP ? 3 : 1;
	}
	close(fd);
	printf("test %lu: ok, %lld.%02lld s\n", v[1], (long long)p.duration_sec,
	       (long long)(p.duration_usec / 10000));
	return 0;
}
