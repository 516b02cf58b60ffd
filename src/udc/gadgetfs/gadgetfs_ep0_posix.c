/*
 * gadgetfs_ep0_posix.c - the gadgetfs backend's event thread: it reads
 * gadgetfs's ep0 events (CONNECT, DISCONNECT, SETUP, SUSPEND) and turns
 * them into the seam's entry points (usb_gadget_event(),
 * usb_gadget_setup()), answers each SETUP with what the core queued on
 * ep0 (or stalls it), finishes the SETUPs gadgetfs hides behind an aborted
 * one, sees the controller go, and runs gfs__aio_run() when transfers
 * complete. Touches the ep0 file (opened by gadgetfs_udc_posix.c) and the
 * ep0 fields of struct usb_gadgetfs_udc; calls into the core only from
 * this thread, never with the lock held. Linux only.
 *
 * Keeping the core in step: gadgetfs answers GET_DESCRIPTOR and
 * GET_CONFIGURATION itself and the controller answers SET_ADDRESS (and,
 * on most controllers, GET_STATUS and the feature requests), so at
 * CONNECT the core gets a bus reset and a SET_ADDRESS of our own; every
 * request gadgetfs passes on, SET_CONFIGURATION and SET_INTERFACE
 * included, goes to usb_gadget_setup().
 */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/usb/gadgetfs.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gadgetfs_priv.h"

/* ---- the ep0 answer -------------------------------------------------------- */

/* How long an OUT request's data may take to arrive: USB 2.0 9.2.6.4's
 * limit for a control transfer's data stage. */
#define GFS_EP0_DATA_WAIT_NS 5000000000LL

/*
 * The data stage of the current OUT request (gadgetfs queued it at the
 * SETUP). The ep0 file is non-blocking (gadgetfs_udc_posix.c) and this
 * polls: a blocking read() waits for gadgetfs's setup_out_ready, which a
 * SETUP arriving between the data's completion and the reader waking
 * clears again (aborting the request), and the read then never returns:
 * the event thread, and ep0 with it, would be gone for good (seen in the
 * guest after usbtest 14/21). gadgetfs offers no poll event for the data
 * (its poll reports POLLOUT only for requests it can stall). Return:
 * read()'s result; -1 with EIDRM when a SETUP aborted it, ETIMEDOUT when
 * no data came.
 */
static ssize_t ep0_read_data(struct usb_gadgetfs_udc *udc, void *buf, size_t len)
{
	struct timespec nap = { 0, 20 * 1000 };
	long long waited = 0;
	ssize_t n;

	while ((n = read(udc->ep0_fd, buf, len)) < 0 && errno == EAGAIN) {
		if (waited >= GFS_EP0_DATA_WAIT_NS) {
			errno = ETIMEDOUT;
			return -1;
		}
		nanosleep(&nap, NULL);
		waited += nap.tv_nsec;
		if (nap.tv_nsec < 1000 * 1000)
			nap.tv_nsec *= 2;	/* 20 us, doubling to 1 ms */
	}
	return n;
}

static void give_back_ep0(struct usb_gadgetfs_udc *udc, struct gfs_req *r, int status,
			  unsigned actual)
{
	if (!r)
		return;
	r->req.status = status;
	r->req.actual = actual;
	usb_gadget_giveback_request(&udc->ep0.ep, &r->req);
}

/* Stall the current SETUP as gadgetfs does it: I/O in the wrong direction.
 * An OUT with data was read by gadgetfs already and cannot be stalled;
 * SET_CONFIGURATION cannot be either: both are acknowledged and said. */
static void ep0_stall_now(struct usb_gadgetfs_udc *udc, const struct usb_ctrlrequest *s)
{
	unsigned wlen = USB_LE16_TO_CPU(s->wLength);
	static uint8_t scratch[4096];
	uint8_t b = 0;

	if (s->bRequestType & USB_DIR_IN) {
		(void)read(udc->ep0_fd, &b, 0);
		return;
	}
	if (wlen) {
		(void)ep0_read_data(udc, scratch, wlen < sizeof(scratch) ? wlen : sizeof(scratch));
		gfs__log(udc, "gadgetfs: request %02x.%02x refused after its data stage: gadgetfs "
			 "cannot stall it, acknowledged", s->bRequestType, s->bRequest);
		return;
	}
	if (write(udc->ep0_fd, &b, 0) < 0 && errno == EL2HLT)
		return;
	(void)read(udc->ep0_fd, &b, 0);
	gfs__log(udc, "gadgetfs: request %02x.%02x refused, but gadgetfs cannot stall it: "
		 "acknowledged", s->bRequestType, s->bRequest);
}

/* End gadgetfs's SETUP state for a request finished on the wire already
 * (ep0_unseen): I/O in the wrong direction halts ep0 while no control
 * transfer is open, which the host's next SETUP clears (USB 2.0 8.5.3.4;
 * dummy_hcd clears it there too); the data stage of an OUT request is
 * read and dropped (gadgetfs acknowledged it itself). */
static void ep0_leave_setup(struct usb_gadgetfs_udc *udc, const struct usb_ctrlrequest *s)
{
	static uint8_t scratch[256];
	unsigned wlen = USB_LE16_TO_CPU(s->wLength);
	uint8_t b = 0;

	if (s->bRequestType & USB_DIR_IN)
		(void)read(udc->ep0_fd, &b, 0);
	else if (wlen)
		(void)ep0_read_data(udc, scratch, wlen < sizeof(scratch) ? wlen : sizeof(scratch));
	else
		(void)write(udc->ep0_fd, &b, 0);
}

/* ep0 back to idle: the current SETUP's request (or NULL), now the
 * caller's to give back. Lock held. */
static struct gfs_req *ep0_end_locked(struct usb_gadgetfs_udc *udc)
{
	struct gfs_req *r = udc->ep0_req;

	udc->ep0_req = NULL;
	udc->ep0_stall = false;
	udc->ep0_quiet_exit = false;
	udc->ep0_state = GFS_EP0_IDLE;
	return r;
}

/* Answer the current SETUP once the core queued its request or stalled. */
static void ep0_answer(struct usb_gadgetfs_udc *udc)
{
	struct gfs_req *r;
	struct usb_ctrlrequest s;
	enum gfs_ep0_state st;
	bool stall, quiet;
	unsigned wlen, len;
	ssize_t n;
	uint8_t b;

	pthread_mutex_lock(&udc->lock);
	st = udc->ep0_state;
	r = udc->ep0_req;
	stall = udc->ep0_stall;
	if (st == GFS_EP0_IDLE || (!r && !stall)) {
		pthread_mutex_unlock(&udc->lock);
		return;
	}
	s = udc->setup;
	quiet = udc->ep0_quiet_exit;
	ep0_end_locked(udc);
	pthread_mutex_unlock(&udc->lock);

	if (st == GFS_EP0_SYNTH) {
		give_back_ep0(udc, r, stall ? -USB_EPIPE : 0, 0);
		return;
	}
	if (quiet) {
		/* Acknowledged on the wire already (ep0_unseen). */
		ep0_leave_setup(udc, &s);
		give_back_ep0(udc, r, stall ? -USB_ECONNRESET : 0, 0);
		return;
	}
	if (stall) {
		ep0_stall_now(udc, &s);
		give_back_ep0(udc, r, -USB_ECONNRESET, 0);
		return;
	}
	wlen = USB_LE16_TO_CPU(s.wLength);
	len = r->req.length < wlen ? r->req.length : wlen;
	if (s.bRequestType & USB_DIR_IN)
		n = write(udc->ep0_fd, r->req.buf, len);
	else if (wlen)
		n = ep0_read_data(udc, r->req.buf, len);
	else
		n = read(udc->ep0_fd, &b, 0);
	if (n < 0) {
		int e = errno;

		give_back_ep0(udc, r, e == EIDRM || e == ECANCELED ? -USB_ECONNRESET : -e, 0);
		return;
	}
	give_back_ep0(udc, r, 0, (unsigned)n);
}

/* ---- events ------------------------------------------------------------- */

static void on_connect(struct usb_gadgetfs_udc *udc, enum usb_device_speed speed)
{
	static const struct usb_ctrlrequest set_address = {
		.bRequestType = 0, .bRequest = USB_REQ_SET_ADDRESS, .wValue = USB_CPU_TO_LE16(1),
	};

	if (speed != USB_SPEED_LOW && speed != USB_SPEED_FULL && speed != USB_SPEED_HIGH)
		speed = USB_SPEED_FULL;
	udc->gadget.speed = speed;
	usb_gadget_event(&udc->gadget, USB_GADGET_EVENT_RESET);
	pthread_mutex_lock(&udc->lock);
	udc->ep0_state = GFS_EP0_SYNTH;
	udc->setup = set_address;
	pthread_mutex_unlock(&udc->lock);
	if (usb_gadget_setup(&udc->gadget, &set_address) < 0) {
		pthread_mutex_lock(&udc->lock);
		udc->ep0_stall = true;
		pthread_mutex_unlock(&udc->lock);
	}
	ep0_answer(udc);
	udc->connected = true;
	udc->suspended = false;
	gfs__log(udc, "gadgetfs: connected (%s speed)",
		 speed == USB_SPEED_HIGH ? "high" : speed == USB_SPEED_FULL ? "full" : "low");
}

/* The current SETUP ends unanswered: its ep0 request goes back. */
void gfs__ep0_abort(struct usb_gadgetfs_udc *udc, int status)
{
	struct gfs_req *r;

	pthread_mutex_lock(&udc->lock);
	r = ep0_end_locked(udc);
	pthread_mutex_unlock(&udc->lock);
	give_back_ep0(udc, r, status, 0);
}

static void on_disconnect(struct usb_gadgetfs_udc *udc)
{
	gfs__ep0_abort(udc, -USB_ESHUTDOWN);
	udc->ep0_unseen = GFS_UNSEEN_NONE;
	if (!udc->connected)
		return;
	udc->connected = false;
	usb_gadget_event(&udc->gadget, USB_GADGET_EVENT_DISCONNECT);
	udc->gadget.speed = USB_SPEED_UNKNOWN;
	gfs__log(udc, "gadgetfs: disconnected");
}

static void on_setup(struct usb_gadgetfs_udc *udc, const struct usb_ctrlrequest *ctrl)
{
	if (!udc->connected)
		on_connect(udc, USB_SPEED_FULL);
	if (udc->suspended) {
		udc->suspended = false;
		usb_gadget_event(&udc->gadget, USB_GADGET_EVENT_RESUME);
	}
	gfs__ep0_abort(udc, -USB_ECONNRESET);	/* leftovers of an earlier SETUP */
	if (udc->ep0_unseen != GFS_UNSEEN_NONE) {
		enum gfs_unseen u = udc->ep0_unseen;

		udc->ep0_unseen = GFS_UNSEEN_NONE;
		if (u == GFS_UNSEEN_STALLED || (ctrl->bRequestType & USB_DIR_IN) ||
		    ctrl->wLength) {
			ep0_leave_setup(udc, ctrl);	/* the host saw it fail */
			return;
		}
		/* The host saw it succeed: the core follows, off the wire. */
		pthread_mutex_lock(&udc->lock);
		udc->ep0_quiet_exit = true;
		pthread_mutex_unlock(&udc->lock);
	}
	pthread_mutex_lock(&udc->lock);
	udc->ep0_state = GFS_EP0_SETUP;
	udc->setup = *ctrl;
	pthread_mutex_unlock(&udc->lock);
	if (usb_gadget_setup(&udc->gadget, ctrl) < 0) {
		pthread_mutex_lock(&udc->lock);
		udc->ep0_stall = true;
		pthread_mutex_unlock(&udc->lock);
	}
	if (ctrl->bRequestType == 0 && ctrl->bRequest == USB_REQ_SET_CONFIGURATION) {
		unsigned v = USB_LE16_TO_CPU(ctrl->wValue) & 0xffu;

		if (v)
			gfs__log(udc, "gadgetfs: configured (configuration %u)", v);
		else
			gfs__log(udc, "gadgetfs: unconfigured");
	}
	ep0_answer(udc);
}

static void on_event(struct usb_gadgetfs_udc *udc, const struct usb_gadgetfs_event *ev)
{
	switch (ev->type) {
	case GADGETFS_CONNECT:
		if (udc->connected)
			on_disconnect(udc);
		on_connect(udc, (enum usb_device_speed)ev->u.speed);
		break;
	case GADGETFS_DISCONNECT:
		on_disconnect(udc);
		break;
	case GADGETFS_SUSPEND:
		if (udc->connected && !udc->suspended) {
			udc->suspended = true;
			usb_gadget_event(&udc->gadget, USB_GADGET_EVENT_SUSPEND);
		}
		break;
	case GADGETFS_SETUP:
		on_setup(udc, (const struct usb_ctrlrequest *)&ev->u.setup);
		break;
	case GADGETFS_NOP:
	default:
		break;
	}
}

/* ---- the event thread ---------------------------------------------------- */

static void thread_fails(struct usb_gadgetfs_udc *udc, int rc, const char *why)
{
	udc->error = rc;
	gfs__log(udc, "gadgetfs: %s", why);
	on_disconnect(udc);
}

/* 0, or -1 when the thread must end (error set). */
static int read_events(struct usb_gadgetfs_udc *udc)
{
	struct usb_gadgetfs_event ev[8];
	ssize_t n = read(udc->ep0_fd, ev, sizeof(ev));
	char why[512];

	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN || errno == EIDRM)
			return 0;
		snprintf(why, sizeof(why), "reading %s: %s%s", udc->ep0_path, strerror(errno),
			 errno == ESRCH || errno == ENODEV ? " (the controller went away)" : "");
		thread_fails(udc, errno == ESRCH ? -USB_ENODEV : -errno, why);
		return -1;
	}
	for (size_t i = 0; i < (size_t)n / sizeof(ev[0]); i++)
		on_event(udc, &ev[i]);
	return 0;
}

/* The controller is still there: gadgetfs removes the endpoint files when
 * it loses the controller (module unloaded). */
static int still_bound(struct usb_gadgetfs_udc *udc)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%s", udc->mount, udc->probe_ep);
	if (access(path, F_OK) == 0)
		return 0;
	thread_fails(udc, -USB_ENODEV,
		     "the controller went away (its driver unloaded?): endpoint files gone");
	return -1;
}

/*
 * gadgetfs waits for the answer to a SETUP whose event we cannot read:
 * the host sent it while we were reading the data of the one before
 * (that read failed with EIDRM), and in its SETUP state gadgetfs hands
 * out no event, only the answer (poll: POLLOUT). Without an answer ep0
 * would stay deaf to every request gadgetfs passes on until a bus reset
 * (seen in the guest: docs/gadgetfs.md). Finish it on the wire unseen:
 * read() stalls an IN request at once (the host gets -EPIPE instead of
 * a timeout) and acknowledges an OUT one without data. A read that did
 * nothing (EIDRM: a newer SETUP aborted this one too) leaves it to the
 * next POLLOUT.
 *
 * Its event is then read at once and only used to follow the host
 * (on_setup): it was queued before gadgetfs reported POLLOUT, and the
 * host sends nothing new before it has seen the answer. With none queued
 * the request had no event left: gadgetfs's ep0_read() copies an event
 * out without its lock, and a SETUP arriving meanwhile discards the event
 * being read, queues its own and then loses it to the reader's count, so
 * the event we hold was that request (seen in the guest after usbtest
 * 14, the SETUP of 0x5c arriving while 0x5b's event was read), or
 * gadgetfs answered the request itself. The next event is then a new
 * request, for the core: skipping it stalled an unrelated string request.
 * Return 0, or -1 when the thread must end.
 */
static int ep0_unseen(struct usb_gadgetfs_udc *udc)
{
	uint8_t b = 0;
	ssize_t n = read(udc->ep0_fd, &b, 0);

	if (n < 0 && errno != EL2HLT)
		return 0;
	udc->ep0_unseen = n < 0 ? GFS_UNSEEN_STALLED : GFS_UNSEEN_ACKED;
	gfs__log(udc, "gadgetfs: a request that came while the one before was aborted was "
		 "%s before it could be read", udc->ep0_unseen == GFS_UNSEEN_STALLED
		 ? "stalled" : "acknowledged");
	if (read_events(udc) < 0)
		return -1;
	if (udc->ep0_unseen != GFS_UNSEEN_NONE) {
		udc->ep0_unseen = GFS_UNSEEN_NONE;
		gfs__log(udc, "gadgetfs: that request had no event of its own (gadgetfs lost it)");
	}
	return 0;
}

void *gfs__event_thread(void *arg)
{
	struct usb_gadgetfs_udc *udc = arg;
	struct pollfd pfd[3];
	char drain[64];

	for (;;) {
		bool stop, idle;
		int n;

		pthread_mutex_lock(&udc->lock);
		stop = udc->stopping;
		idle = udc->ep0_state == GFS_EP0_IDLE;
		pthread_mutex_unlock(&udc->lock);
		if (stop)
			break;
		/* POLLOUT while idle: a SETUP we cannot read (ep0_unseen). */
		pfd[0] = (struct pollfd){ udc->ep0_fd, (short)(idle ? POLLIN | POLLOUT : 0), 0 };
		pfd[1] = (struct pollfd){ udc->aio_efd, POLLIN, 0 };
		pfd[2] = (struct pollfd){ udc->wake[0], POLLIN, 0 };
		n = poll(pfd, 3, 1000);
		if (n < 0 && errno != EINTR) {
			thread_fails(udc, -errno, "poll failed");
			break;
		}
		if (n == 0 && still_bound(udc) < 0)
			break;
		if (pfd[2].revents & POLLIN)
			while (read(udc->wake[0], drain, sizeof(drain)) > 0)
				;
		/* AIO completions, or requests write_sync() or dequeue() left */
		if ((pfd[1].revents | pfd[2].revents) & POLLIN)
			gfs__aio_run(udc);
		if (pfd[0].revents & POLLHUP)
			gfs__ep0_abort(udc, -USB_ECONNRESET);	/* gadgetfs dropped the SETUP */
		if (pfd[0].revents & (POLLERR | POLLNVAL)) {
			thread_fails(udc, -USB_EIO, "the ep0 file failed");
			break;
		}
		ep0_answer(udc);
		if ((pfd[0].revents & (POLLOUT | POLLIN | POLLHUP)) == POLLOUT) {
			if (ep0_unseen(udc) < 0)
				break;
		} else if ((pfd[0].revents & POLLIN) && read_events(udc) < 0) {
			break;
		}
	}
	return NULL;
}
