/*
 * fn_random_posix.c - fn_random_bytes() from /dev/urandom, with the time
 * and the process id mixed in as a fallback when it cannot be read.
 * POSIX adapter of src/functions/common.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "fn_random.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

void fn_random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t got = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	while (fd >= 0 && got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	if (got < n) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_REALTIME, &ts);
		x = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid());
		for (; got < n; got++) {
			x = mix(x + 0x9e3779b97f4a7c15ull);
			p[got] = (unsigned char)x;
		}
	}
}
