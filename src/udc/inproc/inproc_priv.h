/*
 * inproc_priv.h - private state of the in-process backend, shared by
 * inproc_udc_posix.c (controller side: create/destroy, gadget and endpoint
 * ops) and inproc_host_posix.c (host side: the usb_inproc_host_*() calls).
 * Prototypes are grouped by the file that defines them.
 *
 * Locking: `lock` guards everything below it; `cond` is broadcast on every
 * change a waiter may care about (a transfer finished, a request to give
 * back, an entry-point call returned). `host_mutex` serialises host calls
 * and is taken before `lock`. Entry points and completions are called
 * with neither held... except host_mutex, which only host calls take.
 */
#ifndef INPROC_PRIV_H
#define INPROC_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "composite/inproc_host.h"
#include "composite/udc.h"
#include "udc/common/xfer.h"

struct ih_ep {
	struct usb_ep ep;
	struct udcx_ep x;
	struct usb_inproc_host *h;
	char name[16];
	uint8_t hw_address;	/* number | USB_DIR_IN, fixed by the hardware */
	uint8_t host_address;	/* bEndpointAddress while enabled */
	bool run_deferred;	/* requests queued for the host thread to move */
};

struct usb_inproc_xfer {
	struct udcx_urb u;
	struct ih_ep *lep;
};

struct usb_inproc_host {
	struct usb_gadget gadget;
	char name[32];
	enum usb_device_speed max_speed;
	unsigned ep0_mp;	/* at full/high speed */

	pthread_mutex_t host_mutex;
	bool host_busy;		/* a host call holds host_mutex */
	pthread_t host_owner;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Bumped (lock held) with every broadcast of cond: a waiter polls it
	 * with the lock dropped before sleeping (inproc_host_posix.c). */
	atomic_uint changes;
	/* Threads waiting for the lock: a host thread moving data in
	 * chunks lets them in between two chunks. */
	atomic_uint lock_waiters;
	long spin_ns;		/* polling budget (host thread only) */
	bool multi_cpu;		/* polling a lock only helps with another CPU */
	struct ih_ep ep0;
	struct ih_ep *eps;
	size_t neps;
	/* Interrupt endpoints keep their service interval (xfer.h, pacing):
	 * held ones move again when the host thread runs the pacer, from
	 * ih__run_completions(), which waits no longer than their slot. */
	struct udcx_pacer pacer;
	/* Requests finished outside the event context, to give back there. */
	struct udcx_done pending;
	bool registered;
	bool started;
	bool pullup;
	bool connected;
	bool unplug_pending;	/* pullup went off while connected */
	bool deferred;		/* some ih_ep has run_deferred set */
	unsigned in_event;	/* entry-point calls running */
	unsigned long given_back;	/* requests given back by the host thread */
	struct usb_inproc_host_info info;
};

/* ---- inproc_udc_posix.c ---------------------------------------------- */

/*
 * Bytes the host thread copies under the lock in one go: a 64 KiB buffer
 * takes 3-5 us to copy, during which the device side, queueing its next
 * buffer, would wait on the lock (bench_msf).
 */
#define IH_RUN_BUDGET (16u * 1024u)

/* Leave the rest of @lep's data to the host thread. Lock held. */
void ih__defer(struct usb_inproc_host *h, struct ih_ep *lep);

/*
 * Take h->lock (every taker of it goes through here), polling it briefly
 * before sleeping on it when another CPU can let go of it: its holders let
 * go within microseconds (the longest holds are the device side's copy of
 * an IN buffer into a waiting transfer and the host's 16 KiB chunks),
 * and sleeping on it costs two context switches.
 */
void ih__lock(struct usb_inproc_host *h);

/* Wake whoever waits on h->cond, and count the change. Lock held. */
void ih__kick(struct usb_inproc_host *h);

/*
 * Put what an engine call finished where it belongs: requests onto
 * h->pending (for the event context), host transfers off their lists
 * (their waiters see !pending); wake waiters. Lock held.
 */
void ih__settle(struct usb_inproc_host *h, struct udcx_done *done);

/*
 * Call an entry point from the host thread: false if the gadget is not
 * started (do not call). Lock held on entry; dropped between ih__enter()
 * and ih__leave(), which takes it again.
 */
bool ih__enter(struct usb_inproc_host *h);
void ih__leave(struct usb_inproc_host *h);

/* In the host thread: move the data ih_queue() deferred and that of the
 * paced endpoints whose slot has come, give back h->pending, until
 * neither is left. Lock held (dropped meanwhile).
 * Return: how many requests were given back. */
int ih__run_completions(struct usb_inproc_host *h);

/* Finish every queued request with @req_status and every pending host
 * transfer with @urb_status, ep0 included, into @done. Lock held. */
void ih__flush_all(struct usb_inproc_host *h, int req_status, int urb_status,
		   struct udcx_done *done);

#endif /* INPROC_PRIV_H */
