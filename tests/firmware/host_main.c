/*
 * host_main.c - the firmware scenario (scenario.h) as a host program:
 * the same single-threaded, polled run as in the Cortex-M4 image, with
 * ASan watching in the asan preset. Exit status 0: passed. The library's
 * allocation count (port/alloc.h, the heap's here) checks that nothing is
 * allocated after bind, as the image does with its pool.
 */
#include <stdio.h>

#include "port/alloc.h"
#include "scenario.h"

static void say(const char *line)
{
	printf("firmware scenario: %s\n", line);
}

int main(void)
{
	int rc = fw_scenario_run(say, composite__alloc_count);

	say(rc ? "FAILED" : "passed");
	return rc ? 1 : 0;
}
