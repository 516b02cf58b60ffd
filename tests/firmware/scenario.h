/*
 * scenario.h - the firmware scenario: the core, the null UDC and a polled
 * (thread-free) mass storage function on a RAM disk, driven by a USB host
 * simulated in the same program with no thread, no stdio and no OS. The
 * same file runs on the host (ctest firmware.host, under ASan in the asan
 * preset) and in a Cortex-M4 image under qemu (firmware.qemu).
 */
#ifndef FW_SCENARIO_H
#define FW_SCENARIO_H

/*
 * Run every step; @say prints one line (progress and the failing check).
 * @allocs: optional: how many heap allocations the program made so far;
 * with it the scenario checks that none happens after bind (resets and
 * reconfigurations included).
 * Return 0 when everything passed, otherwise the source line of the first
 * check that failed.
 */
int fw_scenario_run(void (*say)(const char *line), unsigned long (*allocs)(void));

/* Print "@what<decimal @v>" through the last run's @say (no printf). */
void fw_say_num(const char *what, unsigned long v);

#endif /* FW_SCENARIO_H */
