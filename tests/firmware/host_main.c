/*
 * host_main.c - the firmware scenario (scenario.h) as a host program:
 * the same single-threaded, polled run as in the Cortex-M4 image, with
 * ASan watching in the asan preset. Exit status 0: passed.
 */
#include <stdio.h>

#include "scenario.h"

static void say(const char *line)
{
	printf("firmware scenario: %s\n", line);
}

int main(void)
{
	int rc = fw_scenario_run(say, NULL);

	say(rc ? "FAILED" : "passed");
	return rc ? 1 : 0;
}
