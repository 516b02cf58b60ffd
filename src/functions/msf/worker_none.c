/*
 * worker_none.c - the OS seam (msf_os.h) of builds without POSIX: no
 * thread, so only polled common objects (fsg_config.polled), which
 * fsg_common_poll() drives from the firmware's main loop or an RTOS task.
 * The lock is the port's critical section (composite/port.h) with
 * COMPOSITE_IRQ_HOOKS, since USB completions come from the interrupt;
 * without the hooks (single context) it is nothing. The file lock is
 * nothing: media calls and LUN changes run in the polling context.
 * No heap: the seam's object is one static, shared by every common object.
 */
#include <stddef.h>

#include "composite/errors.h"
#include "msf_os.h"
#ifdef COMPOSITE_IRQ_HOOKS
#include "composite/port.h"
#endif

struct msf__os {
	unsigned long irq_flags;	/* what unlock restores */
};

static struct msf__os the_os;

int msf__os_create(struct msf__os **out)
{
	*out = &the_os;
	return 0;
}

void msf__os_destroy(struct msf__os *os)
{
	(void)os;
}

void msf__os_lock(struct msf__os *os)
{
#ifdef COMPOSITE_IRQ_HOOKS
	unsigned long flags = usb_port_irq_save();

	os->irq_flags = flags;
#else
	(void)os;
#endif
}

void msf__os_unlock(struct msf__os *os)
{
#ifdef COMPOSITE_IRQ_HOOKS
	usb_port_irq_restore(os->irq_flags);
#else
	(void)os;
#endif
}

/* A polled worker never waits (bot.c returns -USB_EAGAIN instead). */
void msf__os_wait(struct msf__os *os)
{
	(void)os;
}

void msf__os_wake(struct msf__os *os)
{
	(void)os;
}

void msf__os_relax(struct msf__os *os)
{
	(void)os;
}

bool msf__os_poll_begin(struct msf__os *os)
{
	(void)os;
	return false;
}

void msf__os_poll_end(struct msf__os *os)
{
	(void)os;
}

void msf__os_file_lock(struct msf__os *os)
{
	(void)os;
}

void msf__os_file_unlock(struct msf__os *os)
{
	(void)os;
}

/* No threads: a common object that is not polled is refused. */
int msf__os_thread_start(struct msf__os *os, void (*fn)(void *), void *arg)
{
	(void)os;
	(void)fn;
	(void)arg;
	return -USB_EOPNOTSUPP;
}

bool msf__os_in_thread(struct msf__os *os)
{
	(void)os;
	return false;
}

void msf__os_thread_join(struct msf__os *os)
{
	(void)os;
}

void msf__os_thread_detach(struct msf__os *os)
{
	(void)os;
}

int msf__os_signal_watch(struct msf_common *common)
{
	(void)common;
	return -USB_EOPNOTSUPP;
}

void msf__os_signal_unwatch(struct msf_common *common)
{
	(void)common;
}
