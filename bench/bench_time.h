/*
 * bench_time.h - the clocks the benches read (header only, POSIX): wall
 * time for rates and the process's CPU time for what a run cost; and
 * the CPU idle-latency request that keeps wakeups out of the figures.
 * Owns the request's file descriptor, held until the process exits.
 */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

/*
 * Ask the kernel (PM QoS, /dev/cpu_dma_latency) for an idle-exit latency
 * of 0 us until the process exits, as latency benchmarks do: an idle CPU
 * then polls instead of halting. Why: a loopback transfer is a chain of
 * wakeups between threads, and on a VM a halted vCPU takes tens of
 * microseconds to wake, so the figures depended on whether the other
 * core happened to be busy (a run with the capture's writer thread went
 * faster than one without it). Needs root; return whether it is held.
 */
static inline bool bench_hold_cpu_latency(void)
{
	static int fd = -1;
	int32_t zero = 0;

	if (fd >= 0)
		return true;
	fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		close(fd);
		fd = -1;
		return false;
	}
	return true;	/* fd stays open: the request lasts while it is */
}

#endif /* BENCH_TIME_H */
