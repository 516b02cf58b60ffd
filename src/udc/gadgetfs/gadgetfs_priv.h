/*
 * gadgetfs_priv.h - state shared by the gadgetfs backend's files:
 * gadgetfs_udc_posix.c (mount, probe, gadget ops), gadgetfs_ep0_posix.c
 * (the ep0 event thread) and gadgetfs_ep_posix.c (endpoint files, Linux
 * AIO, requests). Linux only.
 *
 * Locking: one mutex (usb_gadgetfs_udc.lock) guards every field marked "lock"; it
 * is never held across a call into the core. The event thread is the
 * event context: it alone calls usb_gadget_setup() and
 * usb_gadget_event(), and it gives back completed requests, except those
 * that disable/dequeue give back themselves before they return.
 */
#ifndef GADGETFS_PRIV_H
#define GADGETFS_PRIV_H

#include <linux/aio_abi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "composite/gadgetfs_udc.h"

#define GFS_MAX_EPS 30
#define GFS_AIO_EVENTS 256

struct usb_gadgetfs_udc;

/* One Linux AIO block in the kernel. Backend-owned, so that a request
 * given back before the kernel finished it (disable, dequeue: gadgetfs
 * cannot cancel one transfer, see docs/gadgetfs.md) leaves the kernel
 * nothing of the function's: an OUT transfer reads into @bounce. Such an
 * orphan stays on its endpoint's @orphaned list; the endpoint's next OUT
 * request adopts it, so data the host sends into it is not lost. */
struct gfs_xfer {
	struct iocb cb;
	struct gfs_req *r;		/* NULL: orphaned (lock) */
	struct gfs_ep *ep;
	void *bounce;			/* OUT: the kernel's destination */
	uint64_t seq;			/* submission order on its endpoint */
	struct list_head onode;		/* on gfs_ep.orphaned while orphaned (lock) */
	long res;			/* bytes or -errno (lock) */
	bool done;			/* lock */
	bool sync;			/* written by the endpoint's writer thread */
	bool started;			/* sync: its write() began (lock) */
};

/* A request: the public one and the transfers that carry it (the data,
 * and a zero-length packet after it when req->zero asks for one). */
struct gfs_req {
	struct usb_request req;
	struct list_head node;		/* on gfs_ep.inflight (lock) */
	struct gfs_ep *ep;
	struct gfs_xfer *x[2];
	unsigned parts;
	bool dequeuing;			/* a dequeue() owns its giveback (lock) */
};

struct gfs_ep {
	struct usb_ep ep;
	struct usb_gadgetfs_udc *udc;
	char name[24];			/* the gadgetfs file name, e.g. "ep1in-bulk" */
	int fd;				/* -1 when disabled (lock) */
	bool in;
	bool iso;
	bool closing;			/* disable() owns the givebacks (lock) */
	unsigned orphans;		/* transfers given back, still in the kernel */
	struct list_head orphaned;	/* those transfers, oldest first (lock) */
	uint64_t seq;			/* transfers submitted (lock) */
	int parked_fd;			/* kept open at disable for orphans, or -1 */
	uint8_t parked_desc[USB_DT_ENDPOINT_SIZE];	/* what it was configured with */
	struct list_head inflight;	/* struct gfs_req, oldest first (lock) */
	pthread_mutex_t submit;		/* orders submissions; taken before lock */
	/* dummy_udc: small IN requests go through plain write() in a thread
	 * of the endpoint's own (it blocks until the host reads, and must
	 * not block the caller, often the event thread). */
	pthread_t writer;
	bool writer_running;
	bool writer_stop;		/* lock */
	pthread_cond_t writer_cond;	/* a sync transfer queued, or stop (lock) */
};

/* ep0 between a SETUP and its answer. */
enum gfs_ep0_state {
	GFS_EP0_IDLE,
	GFS_EP0_SETUP,		/* gadgetfs waits for our data or status stage */
	GFS_EP0_SYNTH		/* a SETUP of our own (SET_ADDRESS): no file I/O */
};

struct usb_gadgetfs_udc {
	struct usb_gadget gadget;
	struct usb_gadgetfs_udc_config cfg;
	char name[64];			/* the ep0 file name (gadget name) */
	char mount[256];
	char ep0_path[320];
	char probe_ep[24];		/* one endpoint file, to see the UDC go */
	struct gfs_ep ep0;
	struct gfs_ep eps[GFS_MAX_EPS];
	unsigned neps;

	pthread_mutex_t lock;
	pthread_cond_t reaped;		/* a reap finished (lock) */
	bool reaping;			/* one thread in io_getevents (lock) */
	aio_context_t aio;
	int aio_efd;			/* eventfd the AIO completions signal */
	int wake[2];			/* pipe: wake the event thread */

	int ep0_fd;
	pthread_t thread;
	bool thread_running;
	bool stopping;			/* lock */
	bool registered;
	bool connected;			/* event thread only */
	bool suspended;			/* event thread only */

	/* ep0 (lock) */
	enum gfs_ep0_state ep0_state;
	struct usb_ctrlrequest setup;
	struct gfs_req *ep0_req;	/* queued for the current SETUP */
	bool ep0_stall;			/* set_halt(ep0) for the current SETUP */
	/* A SETUP gadgetfs hid behind an aborted one was finished on the
	 * wire before we could read it (gadgetfs_ep0_posix.c, ep0_unseen):
	 * its event, when read, only ends gadgetfs's SETUP state. Event
	 * thread only. */
	enum gfs_unseen { GFS_UNSEEN_NONE, GFS_UNSEEN_STALLED, GFS_UNSEEN_ACKED } ep0_unseen;
	bool ep0_quiet_exit;		/* answer the current SETUP off the wire (lock) */

	int error;			/* written once by the thread */
	/* dummy_hcd completes IN requests of up to 64 bytes inside
	 * usb_ep_queue(), where gadgetfs's AIO path deadlocks: write those
	 * synchronously (docs/gadgetfs.md). */
	bool small_in_sync;
};

/* gadgetfs_ep_posix.c */
extern const struct usb_ep_ops gfs__ep_ops;
extern const struct usb_ep_ops gfs__ep0_ops;
int gfs__aio_init(struct usb_gadgetfs_udc *udc);
void gfs__aio_exit(struct usb_gadgetfs_udc *udc);
/* Event thread: reap what is done and give back each endpoint's done
 * head requests, in order. */
void gfs__aio_run(struct usb_gadgetfs_udc *udc);
void gfs__kick(struct usb_gadgetfs_udc *udc);
/* After the unbind (nothing blocks in the kernel): end @e's writer thread. */
void gfs__stop_writer(struct gfs_ep *e);
/* After gfs__aio_exit(): free the transfers the kernel no longer holds. */
void gfs__free_orphans(struct gfs_ep *e);

/* gadgetfs_udc_posix.c */
void gfs__log(struct usb_gadgetfs_udc *udc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* gadgetfs_ep0_posix.c */
/* The event thread (pthread start routine; @arg is the udc). */
void *gfs__event_thread(void *arg);
/* The current SETUP ends unanswered: the core's ep0 request goes back
 * with @status. Event thread, or after it ended (stop). */
void gfs__ep0_abort(struct usb_gadgetfs_udc *udc, int status);

static inline struct usb_gadgetfs_udc *gfs_udc_of(struct usb_gadget *g)
{
	return usb_container_of(g, struct usb_gadgetfs_udc, gadget);
}

static inline struct gfs_ep *gfs_ep_of(struct usb_ep *ep)
{
	return usb_container_of(ep, struct gfs_ep, ep);
}

static inline struct gfs_req *gfs_req_of(struct usb_request *req)
{
	return usb_container_of(req, struct gfs_req, req);
}

#endif /* GADGETFS_PRIV_H */
