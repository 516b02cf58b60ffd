/*
 * bench_time.h - the clocks the benches read (header only, POSIX): wall
 * time for rates and the process's CPU time for what a run cost. Owns
 * nothing.
 */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <sys/resource.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of every thread of this process so far. */
static inline double bench_process_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

#endif /* BENCH_TIME_H */
