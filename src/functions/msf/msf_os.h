/*
 * msf_os.h - the operating-system seam of the MSF: the one thread, two
 * locks and one condition variable the portable protocol code needs, the
 * SIGINT/SIGTERM watch, and busy-wait hints. worker_posix.c implements it
 * with pthreads and sigaction; worker_none.c (builds without POSIX) with
 * no thread, for polled common objects only (fsg_common_poll()), where
 * wait is never called (the protocol files bot.c, scsi.c, scsi_rw.c,
 * scsi_cdrom.c, lun.c, msf.c, common.c, params.c and backend_mem.c use
 * nothing else).
 */
#ifndef MSF_OS_H
#define MSF_OS_H

#include <stdbool.h>

struct msf_common;
struct msf__os;

/* Allocate the locks and condition. Return 0, USB_ENOMEM. */
int msf__os_create(struct msf__os **out);
/* Free them (the thread must have been joined or detached). */
void msf__os_destroy(struct msf__os *os);

/* The state lock and its condition (wait releases and retakes it). */
void msf__os_lock(struct msf__os *os);
void msf__os_unlock(struct msf__os *os);
void msf__os_wait(struct msf__os *os);
void msf__os_wake(struct msf__os *os);	/* wake every waiter */
/* Between polls of a busy wait: let a thread sharing this CPU run (the
 * one being waited for may be it). */
void msf__os_relax(struct msf__os *os);
/* Whether a busy wait may start now; if so, msf__os_poll_end() when it
 * ends. False with a single CPU, where the thread waited for cannot run
 * while we poll, and while as many workers of the process poll as there
 * are CPUs less one: with many gadgets (hundreds in one daemon) pollers
 * would otherwise take the CPUs from the threads they wait for. */
bool msf__os_poll_begin(struct msf__os *os);
void msf__os_poll_end(struct msf__os *os);

/* The LUN ("file") lock. */
void msf__os_file_lock(struct msf__os *os);
void msf__os_file_unlock(struct msf__os *os);

/* Start the worker: @fn(@arg) in a new thread. Return 0 or USB_EAGAIN. */
int msf__os_thread_start(struct msf__os *os, void (*fn)(void *), void *arg);
/* True when called from the worker thread itself. */
bool msf__os_in_thread(struct msf__os *os);
/* Wait for the worker to end, or let it end by itself. */
void msf__os_thread_join(struct msf__os *os);
void msf__os_thread_detach(struct msf__os *os);

/*
 * Watch SIGINT/SIGTERM for @common: on either signal call
 * msf__common_signal(common) from a helper thread (never from the signal
 * handler). Return 0, USB_EOPNOTSUPP (no signals), USB_EAGAIN.
 */
int msf__os_signal_watch(struct msf_common *common);
/* Stop watching; after it returns msf__common_signal() is not called. */
void msf__os_signal_unwatch(struct msf_common *common);

#endif /* MSF_OS_H */
