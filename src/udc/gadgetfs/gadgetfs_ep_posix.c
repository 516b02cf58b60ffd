/*
 * gadgetfs_ep_posix.c - the gadgetfs backend's endpoints: ep0's ops (the
 * answer to a SETUP is written by the event thread in
 * gadgetfs_udc_posix.c), the endpoint files (opened and configured with
 * tag 1 and the endpoint descriptor at enable, closed at disable), and the
 * data path: every request is one Linux AIO block (two for an IN request
 * that ends with a zero-length packet) on one AIO context whose
 * completions signal an eventfd the event thread polls; on dummy_udc,
 * small IN requests are plain write()s in a writer thread per endpoint
 * (see docs/gadgetfs.md, dummy_hcd). Owns the endpoint fds, the AIO
 * context, the writer threads and the transfers; touches the core only
 * through usb_gadget_giveback_request(), never with the lock held.
 * Linux only.
 *
 * What gadgetfs cannot do shapes disable() and dequeue(): io_cancel() on
 * a gadgetfs transfer completes it inside io_cancel's own lock (a kernel
 * deadlock), and an endpoint file with transfers in flight cannot be
 * released. So a request still in the kernel when the core takes it back
 * is given back at once and its transfer becomes an orphan: it owns its
 * own bounce buffer, the endpoint's next OUT request adopts it (the host's
 * next data lands in it), and an orphan nobody adopts is freed when the
 * kernel finishes it (at the host's next transfer, a disconnect or the
 * unbind at stop).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <linux/usb/gadgetfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gadgetfs_priv.h"

/* The library's error numbers are Linux's: -errno is a USB_E* value. */
_Static_assert(EIO == USB_EIO && ESHUTDOWN == USB_ESHUTDOWN && ENODEV == USB_ENODEV &&
		       ECONNRESET == USB_ECONNRESET && EOVERFLOW == USB_EOVERFLOW,
	       "USB_E* are Linux errno values");

/* How long disable() waits for the kernel to finish what is in flight
 * before it orphans it (a disconnect or stop finishes it at once). */
#define GFS_DRAIN_MS 30

/* ---- Linux AIO, through the system calls (no libaio needed) ---------- */

static long aio_setup(unsigned nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static long aio_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long aio_submit(aio_context_t ctx, long n, struct iocb **cbs)
{
	return syscall(SYS_io_submit, ctx, n, cbs);
}

static long aio_getevents(aio_context_t ctx, long min, long max, struct io_event *ev,
			  struct timespec *ts)
{
	return syscall(SYS_io_getevents, ctx, min, max, ev, ts);
}

int gfs__aio_init(struct usb_gadgetfs_udc *udc)
{
	udc->aio = 0;
	if (aio_setup(GFS_AIO_EVENTS, &udc->aio) < 0)
		return -errno;
	udc->aio_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (udc->aio_efd < 0) {
		int rc = -errno;

		aio_destroy(udc->aio);
		return rc;
	}
	return 0;
}

/* After the unbind: everything the kernel held is finished or freed with
 * the context. */
void gfs__aio_exit(struct usb_gadgetfs_udc *udc)
{
	if (udc->aio_efd >= 0)
		close(udc->aio_efd);
	udc->aio_efd = -1;
	if (udc->aio)
		aio_destroy(udc->aio);
	udc->aio = 0;
}

void gfs__kick(struct usb_gadgetfs_udc *udc)
{
	char c = 1;

	if (write(udc->wake[1], &c, 1) < 0 && errno != EAGAIN)
		gfs__log(udc, "gadgetfs: cannot wake the event thread: %s", strerror(errno));
}

/* ---- reaping ----------------------------------------------------------- */

static void xfer_free(struct gfs_xfer *x)
{
	if (x) {
		free(x->bounce);
		free(x);
	}
}

static void reaped_locked(struct io_event *ev, long n)
{
	for (long i = 0; i < n; i++) {
		struct gfs_xfer *x = (struct gfs_xfer *)(uintptr_t)ev[i].data;

		if (!x->r) {
			list_del(&x->onode);
			x->ep->orphans--;
			xfer_free(x);
			continue;
		}
		x->res = (long)ev[i].res;
		x->done = true;
	}
}

/* Collect finished transfers, waiting up to @ms for the first. One thread
 * reaps at a time; another waits for it. Lock held on entry and exit. */
static void reap_locked(struct usb_gadgetfs_udc *udc, int ms)
{
	struct io_event ev[32];
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	long n;

	if (udc->reaping) {
		struct timespec abs;

		clock_gettime(CLOCK_REALTIME, &abs);
		abs.tv_nsec += (long)(ms ? ms : 1) * 1000000L;
		abs.tv_sec += abs.tv_nsec / 1000000000L;
		abs.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&udc->reaped, &udc->lock, &abs);
		return;
	}
	udc->reaping = true;
	do {
		pthread_mutex_unlock(&udc->lock);
		n = aio_getevents(udc->aio, ms ? 1 : 0, 32, ev, &ts);
		pthread_mutex_lock(&udc->lock);
		if (n > 0)
			reaped_locked(ev, n);
		ms = 0;
		ts.tv_sec = 0;
		ts.tv_nsec = 0;
	} while (n == 32);
	udc->reaping = false;
	pthread_cond_broadcast(&udc->reaped);
}

static bool req_done(const struct gfs_req *r)
{
	for (unsigned k = 0; k < r->parts; k++)
		if (!r->x[k]->done)
			return false;
	return true;
}

/* A finished request's status and actual from its transfers; frees them. */
static void settle(struct gfs_req *r)
{
	struct gfs_xfer *x = r->x[0];
	long res = x->res;

	if (res >= 0) {
		/* More than asked for: an adopted orphan of a longer request. */
		r->req.actual = res > (long)r->req.length ? r->req.length : (unsigned)res;
		r->req.status = res > (long)r->req.length ? -USB_EOVERFLOW : 0;
		if (x->bounce && r->req.actual)
			memcpy(r->req.buf, x->bounce, r->req.actual);
		if (r->parts == 2 && r->x[1]->res < 0)
			r->req.status = (int)r->x[1]->res;
	} else {
		r->req.actual = 0;
		r->req.status = (int)res;
	}
	for (unsigned k = 0; k < r->parts; k++)
		xfer_free(r->x[k]);
	r->parts = 0;
}

/* @x onto @e's orphans, kept in submission order (the kernel's). */
static void orphan_xfer(struct gfs_ep *e, struct gfs_xfer *x)
{
	struct list_head *at = &e->orphaned;
	struct gfs_xfer *o;

	list_for_each_entry(o, &e->orphaned, onode)
		if (o->seq > x->seq) {
			at = &o->onode;
			break;
		}
	list_add_tail(&x->onode, at);	/* before @at */
	x->r = NULL;
	e->orphans++;
}

/* Orphan what of @r is still in the kernel, free the rest. */
static void orphan(struct gfs_ep *e, struct gfs_req *r, int status)
{
	for (unsigned k = 0; k < r->parts; k++) {
		struct gfs_xfer *x = r->x[k];

		if (x->done || (x->sync && !x->started))
			xfer_free(x);	/* finished, or never reached the kernel */
		else
			orphan_xfer(e, x);
	}
	r->parts = 0;
	r->req.actual = 0;
	r->req.status = status;
}

/* An OUT request @r queued where orphans are still in the kernel: the
 * kernel fills its transfers oldest first, so the oldest orphan takes the
 * host's next data. Requests keep their queue order: each one queued
 * behind the orphan's submission hands its transfer down to the next and
 * takes the older one; @r, the newest, ends with the newest transfer.
 * Lock held; @r not on the list yet. */
static void adopt_locked(struct gfs_ep *e, struct gfs_req *r)
{
	struct gfs_xfer *x = list_first_entry(&e->orphaned, struct gfs_xfer, onode);
	struct gfs_req *it;

	list_del_init(&x->onode);
	e->orphans--;
	list_for_each_entry(it, &e->inflight, node) {
		struct gfs_xfer *newer = it->x[0];

		if (it->dequeuing || it->parts != 1 || newer->done || newer->seq < x->seq)
			continue;
		it->x[0] = x;
		x->r = it;
		x = newer;
	}
	r->x[0] = x;
	r->x[1] = NULL;
	r->parts = 1;
	x->r = r;
	list_add_tail(&r->node, &e->inflight);
}

void gfs__free_orphans(struct gfs_ep *e)
{
	while (!list_empty(&e->orphaned)) {
		struct gfs_xfer *x = list_first_entry(&e->orphaned, struct gfs_xfer, onode);

		list_del(&x->onode);
		xfer_free(x);
	}
	e->orphans = 0;
}

static void give_back(struct list_head *done)
{
	while (!list_empty(done)) {
		struct gfs_req *r = list_first_entry(done, struct gfs_req, node);

		list_del_init(&r->node);
		usb_gadget_giveback_request(&r->ep->ep, &r->req);
	}
}

/* @e's finished requests at the head of its queue onto @done, settled,
 * in queue order. Lock held. */
static void collect_done_locked(struct gfs_ep *e, struct list_head *done)
{
	while (!e->closing && !list_empty(&e->inflight)) {
		struct gfs_req *r = list_first_entry(&e->inflight, struct gfs_req, node);

		if (r->dequeuing || !req_done(r))
			break;
		settle(r);
		list_move_tail(&r->node, done);
	}
}

void gfs__aio_run(struct usb_gadgetfs_udc *udc)
{
	uint64_t count;
	ssize_t got = read(udc->aio_efd, &count, sizeof(count));
	/* Every completion adds to the eventfd before it can be reaped, so
	 * a zero count (EAGAIN: only the wake pipe) leaves nothing to reap. */
	bool signaled = got > 0 || (got < 0 && errno != EAGAIN);
	USB_LIST_HEAD(done);

	if (got < 0 && errno != EAGAIN)
		gfs__log(udc, "gadgetfs: AIO eventfd: %s", strerror(errno));
	pthread_mutex_lock(&udc->lock);
	if (signaled)
		reap_locked(udc, 0);
	for (unsigned i = 0; i < udc->neps; i++)
		collect_done_locked(&udc->eps[i], &done);
	pthread_mutex_unlock(&udc->lock);
	give_back(&done);
}

/* ---- endpoint ops ------------------------------------------------------ */

/* open() the endpoint file; EBUSY while orphans of the last setting keep
 * the kernel's file open: wait for them a little. Lock held. */
static int open_ep_locked(struct usb_gadgetfs_udc *udc, struct gfs_ep *e, char *path)
{
	int fd = -1;

	for (int tries = 0; tries < 50; tries++) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || errno != EBUSY || !e->orphans)
			break;
		reap_locked(udc, 10);
	}
	return fd < 0 ? -errno : fd;
}

static int gfs_enable(struct usb_ep *ep, const struct usb_endpoint_descriptor *desc)
{
	struct gfs_ep *e = gfs_ep_of(ep);
	struct usb_gadgetfs_udc *udc = e->udc;
	unsigned char msg[4 + 2 * USB_DT_ENDPOINT_SIZE];
	uint32_t tag = 1;
	char path[320];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", udc->mount, e->name);
	/* gadgetfs takes the 7-byte form only (no audio extension): the
	 * same descriptor for both speed slots, the connected one counts. */
	memcpy(msg, &tag, 4);
	memcpy(msg + 4, desc, USB_DT_ENDPOINT_SIZE);
	msg[4] = USB_DT_ENDPOINT_SIZE;
	memcpy(msg + 4 + USB_DT_ENDPOINT_SIZE, msg + 4, USB_DT_ENDPOINT_SIZE);
	pthread_mutex_lock(&udc->lock);
	if (e->fd >= 0) {
		pthread_mutex_unlock(&udc->lock);
		return -USB_EBUSY;
	}
	if (e->parked_fd >= 0) {
		/* Orphans kept the file configured: the same descriptor (a
		 * SET_INTERFACE to the same setting) takes it back as it is. */
		if (!memcmp(e->parked_desc, msg + 4, USB_DT_ENDPOINT_SIZE)) {
			e->fd = e->parked_fd;
			e->parked_fd = -1;
			pthread_mutex_unlock(&udc->lock);
			return 0;
		}
		close(e->parked_fd);
		e->parked_fd = -1;
	}
	fd = open_ep_locked(udc, e, path);
	if (fd < 0) {
		pthread_mutex_unlock(&udc->lock);
		gfs__log(udc, "gadgetfs: cannot open %s: %s%s", path, strerror(-fd),
			 fd == -EBUSY ? " (transfers of the last setting still in the kernel)" : "");
		return fd;
	}
	if (write(fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		rc = -errno;
		close(fd);
		pthread_mutex_unlock(&udc->lock);
		gfs__log(udc, "gadgetfs: %s refused endpoint 0x%02x (type %u, maxpacket %u): %s",
			 e->name, desc->bEndpointAddress, desc->bmAttributes & 3u,
			 USB_LE16_TO_CPU(desc->wMaxPacketSize) & 0x7ffu, strerror(-rc));
		return rc ? rc : -USB_EIO;
	}
	e->fd = fd;
	memcpy(e->parked_desc, msg + 4, USB_DT_ENDPOINT_SIZE);
	e->in = (desc->bEndpointAddress & USB_DIR_IN) != 0;
	e->iso = (desc->bmAttributes & 3u) == USB_ENDPOINT_XFER_ISOC;
	pthread_mutex_unlock(&udc->lock);
	return 0;
}

static int gfs_disable(struct usb_ep *ep)
{
	struct gfs_ep *e = gfs_ep_of(ep);
	struct usb_gadgetfs_udc *udc = e->udc;
	USB_LIST_HEAD(done);
	struct gfs_req *r, *tmp;

	pthread_mutex_lock(&e->submit);	/* no submission in progress */
	pthread_mutex_lock(&udc->lock);
	e->closing = true;
	for (int waited = 0; waited < GFS_DRAIN_MS; waited += 10) {
		bool all = true;

		list_for_each_entry(r, &e->inflight, node)
			all = all && (r->dequeuing || req_done(r));
		if (all)
			break;
		reap_locked(udc, 10);
	}
	list_for_each_entry_safe(r, tmp, &e->inflight, node) {
		if (r->dequeuing)
			continue;	/* its dequeue() gives it back */
		/* Finished ones keep their status: data the host had
		 * acknowledged is not dropped. */
		if (req_done(r))
			settle(r);
		else
			orphan(e, r, -USB_ESHUTDOWN);
		list_move_tail(&r->node, &done);
	}
	/* With orphans in the kernel its file cannot be released (nor opened
	 * again): keep it for an enable with the same descriptor. */
	if (e->fd >= 0 && e->orphans)
		e->parked_fd = e->fd;
	else if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	e->closing = false;
	pthread_mutex_unlock(&udc->lock);
	pthread_mutex_unlock(&e->submit);
	give_back(&done);
	return 0;
}

static struct usb_request *gfs_alloc_request(struct usb_ep *ep)
{
	struct gfs_req *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->ep = gfs_ep_of(ep);
	INIT_LIST_HEAD(&r->node);
	return &r->req;
}

static void gfs_free_request(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	free(gfs_req_of(req));
}

static struct gfs_xfer *xfer_new(struct gfs_ep *e, struct gfs_req *r, void *buf, unsigned len)
{
	struct gfs_xfer *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (!e->in && len) {
		x->bounce = malloc(len);
		if (!x->bounce) {
			free(x);
			return NULL;
		}
		buf = x->bounce;
	}
	x->r = r;
	x->ep = e;
	x->seq = e->seq++;
	INIT_LIST_HEAD(&x->onode);
	x->cb.aio_data = (uint64_t)(uintptr_t)x;
	x->cb.aio_lio_opcode = e->in ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	x->cb.aio_fildes = (uint32_t)e->fd;
	x->cb.aio_buf = (uint64_t)(uintptr_t)buf;
	x->cb.aio_nbytes = len;
	x->cb.aio_flags = IOCB_FLAG_RESFD;
	x->cb.aio_resfd = (uint32_t)e->udc->aio_efd;
	return x;
}

/* dummy_hcd's FIFO: IN requests this small complete inside usb_ep_queue(). */
#define GFS_DUMMY_FIFO 64

/* The oldest sync transfer of @e not written yet, or NULL. Lock held. */
static struct gfs_xfer *next_sync_locked(struct gfs_ep *e)
{
	struct gfs_req *r;

	list_for_each_entry(r, &e->inflight, node)
		for (unsigned k = 0; k < r->parts; k++)
			if (r->x[k]->sync && !r->x[k]->started)
				return r->x[k];
	return NULL;
}

/* A sync transfer of @e not finished yet: later requests queue behind it
 * through the writer, so that none overtakes it. Lock held. */
static bool sync_pending_locked(const struct gfs_ep *e)
{
	const struct gfs_req *r;

	list_for_each_entry(r, &e->inflight, node)
		for (unsigned k = 0; k < r->parts; k++)
			if (r->x[k]->sync && !r->x[k]->done)
				return true;
	return false;
}

/* On dummy_udc, whether @r goes through the writer thread: every IN
 * transfer dummy_hcd may complete inside usb_ep_queue() must, and a ZLP
 * is one: after an AIO data transfer, the host can take the data (its
 * timer runs when ep_aio() drops the lock) before io_submit() queues the
 * ZLP on the now empty endpoint, which then completes inline and
 * deadlocks the kernel with interrupts off (docs/gadgetfs.md). Requests
 * behind a sync one follow it, so that none overtakes it. Lock held. */
static bool must_write_sync_locked(const struct gfs_ep *e, const struct gfs_req *r)
{
	return r->req.length <= GFS_DUMMY_FIFO || r->parts == 2 || sync_pending_locked(e);
}

/* The writer thread: write() each sync transfer in queue order, outside
 * the lock (it blocks until the host reads when the FIFO is full). A
 * transfer given back meanwhile (disable, dequeue) is an orphan: freed
 * here when its write() returns. Its requests are given back by the
 * event thread, never here. */
static void *writer_main(void *arg)
{
	struct gfs_ep *e = arg;
	struct usb_gadgetfs_udc *udc = e->udc;

	pthread_mutex_lock(&udc->lock);
	while (!e->writer_stop) {
		struct gfs_xfer *x = next_sync_locked(e);
		ssize_t n;
		int fd = e->fd;

		if (!x || fd < 0) {
			pthread_cond_wait(&e->writer_cond, &udc->lock);
			continue;
		}
		x->started = true;
		pthread_mutex_unlock(&udc->lock);
		n = write(fd, (void *)(uintptr_t)x->cb.aio_buf, x->cb.aio_nbytes);
		pthread_mutex_lock(&udc->lock);
		if (!x->r) {
			list_del(&x->onode);
			e->orphans--;
			xfer_free(x);
		} else {
			x->res = n < 0 ? -errno : (long)n;
			x->done = true;
		}
		gfs__kick(udc);
	}
	pthread_mutex_unlock(&udc->lock);
	return NULL;
}

/* Hand @r to @e's writer thread, started on first use. Lock held. */
static int write_sync_locked(struct gfs_ep *e, struct gfs_req *r)
{
	for (unsigned k = 0; k < r->parts; k++)
		r->x[k]->sync = true;
	if (!e->writer_running) {
		int rc = pthread_create(&e->writer, NULL, writer_main, e);

		if (rc)
			return -rc;
		e->writer_running = true;
	}
	list_add_tail(&r->node, &e->inflight);
	pthread_cond_signal(&e->writer_cond);
	return 0;
}

void gfs__stop_writer(struct gfs_ep *e)
{
	if (!e->writer_running)
		return;
	pthread_mutex_lock(&e->udc->lock);
	e->writer_stop = true;
	pthread_cond_signal(&e->writer_cond);
	pthread_mutex_unlock(&e->udc->lock);
	pthread_join(e->writer, NULL);
	e->writer_running = false;
}

static int queue_locked(struct usb_gadgetfs_udc *udc, struct gfs_ep *e, struct gfs_req *r);

static int gfs_queue(struct usb_ep *ep, struct usb_request *req)
{
	struct gfs_ep *e = gfs_ep_of(ep);
	struct gfs_req *r = gfs_req_of(req);
	struct usb_gadgetfs_udc *udc = e->udc;
	int rc;

	pthread_mutex_lock(&e->submit);
	rc = queue_locked(udc, e, r);
	pthread_mutex_unlock(&e->submit);
	return rc;
}

/* 0: submitted (or handed to the writer thread); < 0: refused. */
static int queue_locked(struct usb_gadgetfs_udc *udc, struct gfs_ep *e, struct gfs_req *r)
{
	struct usb_ep *ep = &e->ep;
	struct usb_request *req = &r->req;
	struct iocb *cbs[2];
	long n;
	int rc = 0;

	pthread_mutex_lock(&udc->lock);
	if (e->fd < 0 || e->closing) {
		rc = -USB_ESHUTDOWN;
		goto out;
	}
	r->dequeuing = false;
	if (!e->in && !list_empty(&e->orphaned)) {
		adopt_locked(e, r);
		goto out;
	}
	r->parts = 1;
	if (e->in && req->zero && req->length && ep->maxpacket &&
	    req->length % ep->maxpacket == 0)
		r->parts = 2;	/* gadgetfs has no zero flag: a ZLP of our own */
	r->x[0] = xfer_new(e, r, req->buf, req->length);
	r->x[1] = r->parts == 2 ? xfer_new(e, r, NULL, 0) : NULL;
	if (!r->x[0] || (r->parts == 2 && !r->x[1])) {
		rc = -USB_ENOMEM;
		goto fail;
	}
	r->dequeuing = false;
	if (udc->small_in_sync && e->in && must_write_sync_locked(e, r)) {
		rc = write_sync_locked(e, r);
		if (rc < 0)
			goto fail;
		goto out;
	}
	for (unsigned k = 0; k < r->parts; k++)
		cbs[k] = &r->x[k]->cb;
	n = aio_submit(udc->aio, (long)r->parts, cbs);
	if (n < 0) {
		rc = -errno;
		goto fail;
	}
	if (n < (long)r->parts) {
		/* The ZLP was refused: the data went; report it then. */
		r->x[1]->done = true;
		r->x[1]->res = -USB_EIO;
	}
	list_add_tail(&r->node, &e->inflight);
	goto out;
fail:
	xfer_free(r->x[0]);
	xfer_free(r->x[1]);
	r->parts = 0;
out:
	pthread_mutex_unlock(&udc->lock);
	return rc;
}

static int gfs_dequeue(struct usb_ep *ep, struct usb_request *req)
{
	struct gfs_ep *e = gfs_ep_of(ep);
	struct gfs_req *r = gfs_req_of(req), *it;
	struct usb_gadgetfs_udc *udc = e->udc;
	bool found = false;

	pthread_mutex_lock(&udc->lock);
	list_for_each_entry(it, &e->inflight, node)
		found = found || it == r;
	if (!found || r->dequeuing) {
		pthread_mutex_unlock(&udc->lock);
		return -USB_EINVAL;
	}
	r->dequeuing = true;
	reap_locked(udc, 0);
	if (req_done(r)) {
		settle(r);	/* it finished: its own status */
	} else {
		orphan(e, r, -USB_ECONNRESET);
	}
	list_del_init(&r->node);
	r->dequeuing = false;
	pthread_mutex_unlock(&udc->lock);
	usb_gadget_giveback_request(ep, req);
	gfs__kick(udc);	/* requests behind it may be done already */
	return 0;
}

/* gadgetfs halts an endpoint on an I/O call in the wrong direction and
 * clears it with an ioctl. */
static int gfs_set_halt(struct usb_ep *ep, enum usb_ep_halt_value value)
{
	struct gfs_ep *e = gfs_ep_of(ep);
	struct usb_gadgetfs_udc *udc = e->udc;
	unsigned char byte = 0;
	ssize_t n;
	int rc = 0;

	pthread_mutex_lock(&udc->lock);
	if (e->fd < 0) {
		rc = -USB_ESHUTDOWN;
	} else if (value == USB_EP_HALT_CLEAR) {
		if (ioctl(e->fd, GADGETFS_CLEAR_HALT) < 0)
			rc = -errno;
	} else if (e->iso) {
		rc = -USB_EINVAL;	/* isochronous endpoints do not halt */
	} else if (value == USB_EP_HALT_SET && e->in && !list_empty(&e->inflight)) {
		rc = -USB_EAGAIN;
	} else {
		n = e->in ? read(e->fd, &byte, 1) : write(e->fd, &byte, 1);
		rc = n < 0 && errno == EBADMSG ? 0 : n < 0 ? -errno : -USB_EIO;
	}
	pthread_mutex_unlock(&udc->lock);
	if (rc && rc != -USB_EAGAIN)
		gfs__log(udc, "gadgetfs: %s: %s halt: %s", e->name,
			 value == USB_EP_HALT_CLEAR ? "clearing" : "setting", usb_strerror(rc));
	return rc;
}

static int gfs_fifo_status(struct usb_ep *ep)
{
	struct gfs_ep *e = gfs_ep_of(ep);
	int rc;

	pthread_mutex_lock(&e->udc->lock);
	rc = e->fd < 0 ? -USB_ESHUTDOWN : ioctl(e->fd, GADGETFS_FIFO_STATUS);
	if (rc < 0 && e->fd >= 0)
		rc = -errno;
	pthread_mutex_unlock(&e->udc->lock);
	return rc;
}

static void gfs_fifo_flush(struct usb_ep *ep)
{
	struct gfs_ep *e = gfs_ep_of(ep);

	pthread_mutex_lock(&e->udc->lock);
	if (e->fd >= 0)
		(void)ioctl(e->fd, GADGETFS_FIFO_FLUSH);
	pthread_mutex_unlock(&e->udc->lock);
}

const struct usb_ep_ops gfs__ep_ops = {
	.enable = gfs_enable,
	.disable = gfs_disable,
	.alloc_request = gfs_alloc_request,
	.free_request = gfs_free_request,
	.queue = gfs_queue,
	.dequeue = gfs_dequeue,
	.set_halt = gfs_set_halt,
	.fifo_status = gfs_fifo_status,
	.fifo_flush = gfs_fifo_flush,
};

/* ---- ep0: the event thread answers the SETUP (gadgetfs_udc_posix.c) --- */

static int ep0_enable(struct usb_ep *ep, const struct usb_endpoint_descriptor *desc)
{
	(void)ep;
	(void)desc;
	return -USB_EINVAL;
}

static int ep0_disable(struct usb_ep *ep)
{
	(void)ep;
	return -USB_EINVAL;
}

static int ep0_queue(struct usb_ep *ep, struct usb_request *req)
{
	struct usb_gadgetfs_udc *udc = gfs_ep_of(ep)->udc;
	int rc = 0;

	pthread_mutex_lock(&udc->lock);
	if (udc->ep0_req)
		rc = -USB_EBUSY;
	else if (udc->ep0_state == GFS_EP0_IDLE)
		rc = -USB_ESHUTDOWN;	/* no control transfer to answer */
	else
		udc->ep0_req = gfs_req_of(req);
	pthread_mutex_unlock(&udc->lock);
	if (!rc && !(udc->thread_running && pthread_equal(pthread_self(), udc->thread)))
		gfs__kick(udc);	/* delayed status from another thread */
	return rc;
}

static int ep0_dequeue(struct usb_ep *ep, struct usb_request *req)
{
	struct usb_gadgetfs_udc *udc = gfs_ep_of(ep)->udc;
	bool mine;

	pthread_mutex_lock(&udc->lock);
	mine = udc->ep0_req == gfs_req_of(req);
	if (mine)
		udc->ep0_req = NULL;
	pthread_mutex_unlock(&udc->lock);
	if (!mine)
		return -USB_EINVAL;
	req->status = -USB_ECONNRESET;
	usb_gadget_giveback_request(ep, req);
	return 0;
}

static int ep0_set_halt(struct usb_ep *ep, enum usb_ep_halt_value value)
{
	struct usb_gadgetfs_udc *udc = gfs_ep_of(ep)->udc;

	if (value == USB_EP_HALT_CLEAR)
		return 0;
	pthread_mutex_lock(&udc->lock);
	udc->ep0_stall = true;
	pthread_mutex_unlock(&udc->lock);
	if (!(udc->thread_running && pthread_equal(pthread_self(), udc->thread)))
		gfs__kick(udc);
	return 0;
}

const struct usb_ep_ops gfs__ep0_ops = {
	.enable = ep0_enable,
	.disable = ep0_disable,
	.alloc_request = gfs_alloc_request,
	.free_request = gfs_free_request,
	.queue = ep0_queue,
	.dequeue = ep0_dequeue,
	.set_halt = ep0_set_halt,
};
