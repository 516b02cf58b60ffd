/*
 * fn_random_portable.c - fn_random_bytes() for builds without POSIX: a
 * counter, the clock and an address mixed (unique per call within a run,
 * not random: firmware should give its own addresses). Portable C11.
 */
#include <stdint.h>
#include <time.h>

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
	static uint64_t counter;
	unsigned char *p = buf;
	uint64_t x = mix((uint64_t)clock() ^ (uint64_t)(uintptr_t)&counter ^ ++counter);
	size_t i;

	for (i = 0; i < n; i++) {
		x = mix(x + 0x9e3779b97f4a7c15ull);
		p[i] = (unsigned char)x;
	}
}
