/*
 * worker_posix.c - the MSF's OS seam (msf_os.h) on POSIX: a pthread for
 * the worker, two mutexes and a condition variable, and the SIGINT/SIGTERM
 * watch for exit_on_signal.
 *
 * The signal handler only posts a semaphore (async-signal-safe); a helper
 * thread waits on it and raises the exit exception on every watched common
 * object, so no lock is ever taken in signal context. The previous
 * handlers come back when the last watched object goes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msf_internal.h"
#include "msf_os.h"

struct msf__os {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned max_pollers;	/* CPUs online at creation, less one */
	pthread_mutex_t file_lock;
	pthread_t thread;
	bool has_thread;
	void (*fn)(void *);
	void *arg;
};

int msf__os_create(struct msf__os **out)
{
	struct msf__os *os = calloc(1, sizeof(*os));

	if (!os)
		return -USB_ENOMEM;
	{
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		os->max_pollers = cpus > 1 ? (unsigned)cpus - 1u : 0u;
	}
	if (pthread_mutex_init(&os->lock, NULL))
		goto fail_os;
	if (pthread_cond_init(&os->cond, NULL))
		goto fail_lock;
	if (pthread_mutex_init(&os->file_lock, NULL))
		goto fail_cond;
	*out = os;
	return 0;

fail_cond:
	pthread_cond_destroy(&os->cond);
fail_lock:
	pthread_mutex_destroy(&os->lock);
fail_os:
	free(os);
	return -USB_ENOMEM;
}

void msf__os_destroy(struct msf__os *os)
{
	pthread_mutex_destroy(&os->file_lock);
	pthread_cond_destroy(&os->cond);
	pthread_mutex_destroy(&os->lock);
	free(os);
}

void msf__os_lock(struct msf__os *os)
{
	pthread_mutex_lock(&os->lock);
}

void msf__os_unlock(struct msf__os *os)
{
	pthread_mutex_unlock(&os->lock);
}

void msf__os_wait(struct msf__os *os)
{
	pthread_cond_wait(&os->cond, &os->lock);
}

void msf__os_wake(struct msf__os *os)
{
	pthread_cond_broadcast(&os->cond);
}

/* Workers of this process in a busy wait now (every common object). */
static atomic_uint pollers;

bool msf__os_poll_begin(struct msf__os *os)
{
	unsigned n = atomic_load(&pollers);

	do {
		if (n >= os->max_pollers)
			return false;
	} while (!atomic_compare_exchange_weak(&pollers, &n, n + 1));
	return true;
}

void msf__os_poll_end(struct msf__os *os)
{
	(void)os;
	atomic_fetch_sub(&pollers, 1);
}

void msf__os_relax(struct msf__os *os)
{
	(void)os;
	sched_yield();
}

void msf__os_file_lock(struct msf__os *os)
{
	pthread_mutex_lock(&os->file_lock);
}

void msf__os_file_unlock(struct msf__os *os)
{
	pthread_mutex_unlock(&os->file_lock);
}

static void *thread_main(void *p)
{
	struct msf__os *os = p;

	/* @os may be freed by fn (a detached worker frees its common). */
	os->fn(os->arg);
	return NULL;
}

int msf__os_thread_start(struct msf__os *os, void (*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	os->fn = fn;
	os->arg = arg;
	/* The worker never takes the process's signals: the watcher does. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&os->thread, NULL, thread_main, os);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -USB_EAGAIN;
	os->has_thread = true;
	return 0;
}

bool msf__os_in_thread(struct msf__os *os)
{
	return os->has_thread && pthread_equal(os->thread, pthread_self());
}

void msf__os_thread_join(struct msf__os *os)
{
	if (os->has_thread) {
		pthread_join(os->thread, NULL);
		os->has_thread = false;
	}
}

void msf__os_thread_detach(struct msf__os *os)
{
	if (os->has_thread) {
		pthread_detach(os->thread);
		os->has_thread = false;
	}
}

/* ---- SIGINT / SIGTERM ------------------------------------------------------ */

/* life: serialises watch/unwatch (held across the join); lock: the list. */
static pthread_mutex_t watch_life = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct msf_common *watched[64];
static unsigned nwatched;
static sem_t watch_sem;
static pthread_t watch_thread;
static bool watch_quit;
static struct sigaction old_int, old_term;

static void on_signal(int signo)
{
	int saved = errno;

	(void)signo;
	sem_post(&watch_sem);
	errno = saved;
}

static void *watch_main(void *arg)
{
	(void)arg;
	for (;;) {
		while (sem_wait(&watch_sem) != 0 && errno == EINTR)
			;
		pthread_mutex_lock(&watch_lock);
		if (watch_quit) {
			pthread_mutex_unlock(&watch_lock);
			return NULL;
		}
		for (unsigned i = 0; i < nwatched; i++)
			msf__common_signal(watched[i]);
		pthread_mutex_unlock(&watch_lock);
	}
}

int msf__os_signal_watch(struct msf_common *common)
{
	struct sigaction sa;
	sigset_t all, old;
	int rc = 0;

	pthread_mutex_lock(&watch_life);
	pthread_mutex_lock(&watch_lock);
	if (nwatched == sizeof(watched) / sizeof(watched[0])) {
		rc = -USB_ENOSPC;
		goto out;
	}
	if (nwatched == 0) {
		if (sem_init(&watch_sem, 0, 0)) {
			rc = -USB_EAGAIN;
			goto out;
		}
		watch_quit = false;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = pthread_create(&watch_thread, NULL, watch_main, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc) {
			sem_destroy(&watch_sem);
			rc = -USB_EAGAIN;
			goto out;
		}
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	}
	watched[nwatched++] = common;
out:
	pthread_mutex_unlock(&watch_lock);
	pthread_mutex_unlock(&watch_life);
	return rc;
}

void msf__os_signal_unwatch(struct msf_common *common)
{
	bool stop = false;

	pthread_mutex_lock(&watch_life);
	pthread_mutex_lock(&watch_lock);
	for (unsigned i = 0; i < nwatched; i++) {
		if (watched[i] == common) {
			watched[i] = watched[--nwatched];
			stop = nwatched == 0;
			break;
		}
	}
	if (stop) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		watch_quit = true;
		sem_post(&watch_sem);
	}
	pthread_mutex_unlock(&watch_lock);
	if (stop) {
		pthread_join(watch_thread, NULL);
		sem_destroy(&watch_sem);
	}
	pthread_mutex_unlock(&watch_life);
}
