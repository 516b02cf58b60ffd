/*
 * clock_posix.c - the pacing clock of the POSIX backends (xfer.h,
 * struct udcx_clock): CLOCK_MONOTONIC in nanoseconds, the clock their
 * timed waits (poll timeouts, condition variables) use too.
 */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include "udc/common/xfer.h"

static uint64_t monotonic_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const struct udcx_clock udcx__clock_monotonic = { monotonic_ns, NULL };
