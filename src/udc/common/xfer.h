/*
 * xfer.h - the transfer engine shared by the software backends (USB/IP,
 * in-process host): it plays the part of a device controller's packet engine on
 * one endpoint, matching the host's transfers ("URBs") with the gadget's
 * usb_requests, packet by packet, as real hardware would.
 *
 * Portable C11: no POSIX, no locks, no allocation. The caller (a backend)
 * owns every structure, holds its own lock around each udcx__* call, and
 * afterwards, with the lock dropped, processes what the call finished:
 * the requests in done->reqs are given back (udcx__done_giveback()) FIRST,
 * then the host transfers in done->urbs are answered. The order matters for
 * control transfers: the function's completion of an OUT data stage runs
 * before the host sees the status stage.
 *
 * Packet rules (per endpoint, maxpacket "mp"):
 * - IN: a host transfer is filled from one or more requests, oldest first.
 *   It ends when full, on a short packet (a request ending in a partial
 *   packet) or on a zero-length packet (a request of length 0, or with
 *   zero=1 and a length that is a multiple of mp). A request bigger than
 *   the transfer keeps its place and offset; the next transfer continues
 *   it. A packet bigger than the room left (only possible when the host's
 *   length is not a multiple of mp) is babble: the transfer ends with
 *   USB_EOVERFLOW holding what fitted, and the packet counts as sent. IN
 *   transfers wait for data; they are never ended early with zero bytes.
 *   UDCX_URB_SHORT_NOT_OK: a transfer ending short gets USB_EREMOTEIO.
 * - OUT: host data is cut into mp packets (plus a zero-length packet for
 *   a length of 0, or with UDCX_URB_ZERO_PACKET and a multiple of mp). A
 *   request ends when full or on a short packet (USB_EREMOTEIO instead of
 *   0 if it asked short_not_ok and is not full); a packet bigger than the
 *   room left ends it with USB_EOVERFLOW (the excess is lost, as babble on
 *   a controller). One transfer may fill several requests; a request may
 *   take several transfers. The transfer completes once all its packets
 *   have been taken by requests; until then it waits (NAK).
 * - Halt: host transfers on a halted endpoint complete with USB_EPIPE
 *   (those pending when the halt is set too); requests are not touched.
 * - Control (ep0): transfers carry a SETUP; see udcx__ctrl_*().
 *
 * Errors and statuses are negated USB_E* values (-USB_EPIPE...), as
 * everywhere in the library's API (errors.h).
 *
 * Zero copy (the USB/IP backend's bulk and interrupt transfers): an IN
 * transfer may gather instead of copy (udcx__urb_set_gather()): it records
 * where its bytes lie in the requests' buffers, and the requests it
 * finishes are held (not put on done) until the caller has sent the bytes
 * and calls udcx__urb_release(). An OUT transfer may be streamed
 * (udcx__urb_submit_stream()): submitted before its bytes arrive, which
 * the caller then writes where udcx__urb_rx_windows() says, straight into
 * the head request's buffer when the packets fit it. Whenever requests
 * leave the queue any other way (dequeue, flush, disable), the bytes
 * still borrowed from them are first copied into the transfers' own
 * buffers, so no transfer ever points into a request given back.
 *
 * Pacing (pace.c): an interrupt endpoint given a service interval
 * (udcx__ep_set_pacing()) moves at most one transaction per interval, as
 * a host controller polls it: see "pacing" below. Bulk, isochronous and
 * control endpoints are never paced.
 *
 * Lists: while queued, a request is linked through udcx_req.node and a
 * host transfer through udcx_urb.node; once finished they are moved onto
 * the caller's udcx_done lists through the same node, which belongs to the
 * caller from then on.
 */
#ifndef UDCX_XFER_H
#define UDCX_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/udc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host transfer flags (the values of Linux's URB_* and of USB/IP). */
#define UDCX_URB_SHORT_NOT_OK 0x0001u	/* IN: ending short is an error */
#define UDCX_URB_ZERO_PACKET 0x0040u	/* OUT: end a multiple of mp with a ZLP */

struct udcx_ep;

/**
 * struct udcx_clock - a monotonic time source for pacing, supplied by the
 * backend (udcx__clock_monotonic in clock_posix.c, or a test's own).
 * @now_ns: mandatory: the time in nanoseconds, never going back. Called
 *	with the backend's lock held: must not block or call the engine.
 * @ctx: passed to @now_ns.
 */
struct udcx_clock {
	uint64_t (*now_ns)(void *ctx);
	void *ctx;
};

/**
 * struct udcx_pacer - the paced endpoints of one device (one backend
 * lock): which of them hold a transfer until its next service interval,
 * so the backend knows when to run them again (udcx__pacer_next(),
 * udcx__pacer_run()). Fields private.
 */
struct udcx_pacer {
	const struct udcx_clock *clock;	/* borrowed */
	struct list_head held;		/* struct udcx_ep, through pace_node */
};

/**
 * struct udcx_req - a usb_request with the engine's per-request state.
 * Backends allocate these in ops->alloc_request (possibly embedded in a
 * bigger structure), call udcx__req_init() and return &r->req.
 */
struct udcx_req {
	struct usb_request req;
	/* engine private while queued */
	struct list_head node;
	struct udcx_ep *ep;	/* where it is queued / was completed */
	/* control OUT: the data stage's last request; once given back, the
	 * endpoint's status hook runs (udcx__ctrl_set_status_hook()) */
	bool status_after;
};

/**
 * struct udcx_iso_packet - one packet of an isochronous host transfer.
 * @offset, @length: where the packet lies in the transfer's buffer; for
 *	OUT the bytes the host sends, for IN the room it offers.
 * @actual, @status: set by the engine: bytes moved; 0, or -USB_EOVERFLOW
 *	for an IN request longer than the packet's room (what fitted is kept).
 */
struct udcx_iso_packet {
	size_t offset;
	size_t length;
	size_t actual;
	int status;
};

/**
 * struct udcx_seg - where a run of a gathering IN transfer's bytes lies:
 * in a request's buffer (@borrowed) or in the transfer's own buffer.
 */
struct udcx_seg {
	const uint8_t *p;
	size_t len;
	bool borrowed;
};

/**
 * struct udcx_window - where a streamed OUT transfer's next bytes go: a
 * head request's buffer (@direct) or the transfer's own buffer.
 */
struct udcx_window {
	uint8_t *p;
	size_t len;
	bool direct;
};

/**
 * struct udcx_urb - one host transfer.
 * @buf: host buffer: data to send (OUT) or room to receive (IN). Borrowed.
 * @length: bytes to send, or room in @buf.
 * @flags: UDCX_URB_* flags.
 * @setup: the SETUP packet, for control transfers (udcx__ctrl_submit()).
 * @context: the caller's.
 * @actual: bytes transferred so far (set by the engine).
 * @status: USB_EINPROGRESS while pending; then 0 or a negative USB_E*.
 */
struct udcx_urb {
	void *buf;
	size_t length;
	unsigned flags;
	struct usb_ctrlrequest setup;
	void *context;
	size_t actual;
	int status;
	/* engine private */
	struct list_head node;
	struct udcx_ep *ep;
	size_t limit;		/* data bytes the transfer may carry */
	bool pending;
	bool zlp_done;		/* OUT: the terminating ZLP was taken */
	struct udcx_iso_packet *iso;	/* udcx__urb_set_iso(), or NULL */
	size_t iso_count;
	size_t iso_next;	/* the next packet to serve */
	/* gather (IN): the bytes, in order, as seg_count runs of segs */
	struct udcx_seg *segs;	/* udcx__urb_set_gather(), or NULL */
	size_t seg_max, seg_count;
	struct list_head held;	/* finished requests whose bytes segs use */
	struct list_head lend_node;	/* on ep->lenders while it borrows */
	bool lending;
	/* stream (OUT): bytes [0, arrived) are in; [actual, direct_end) of
	 * them sit in the head request's buffer already, at its actual */
	bool stream;
	size_t arrived;
	size_t direct_end;
};

/* What a call finished: requests to give back, host transfers to answer. */
struct udcx_done {
	struct list_head reqs;	/* struct udcx_req, through node */
	struct list_head urbs;	/* struct udcx_urb, through node */
};

/**
 * struct udcx_ep - the engine's state for one endpoint.
 * @usb_ep: the gadget endpoint (for giveback). Borrowed.
 * All other fields are private; read them through the accessors.
 */
struct udcx_ep {
	struct usb_ep *usb_ep;
	struct list_head reqs;
	struct list_head urbs;
	struct list_head lenders;	/* gathering transfers borrowing bytes */
	unsigned maxpacket;
	bool is_in;
	bool enabled;
	bool halted;
	bool control;
	/* Bytes the current run may still copy (udcx__ep_run_some()), and
	 * whether it stopped there with data left to move. */
	size_t budget_left;
	bool run_cut;
	/* control only: the transfer whose SETUP was delivered, or NULL */
	struct udcx_urb *ctrl_cur;
	bool ctrl_in;
	/* control only: ctrl_cur's OUT data stage ended and its status
	 * stage waits for the request's completion (the hook, set or NULL) */
	bool ctrl_status_due;
	void (*ctrl_status_hook)(struct udcx_ep *ep);
	/* Pacing (interrupt endpoints; pacer NULL when unpaced): one
	 * transaction of up to pace_packets packets per pace_interval ns,
	 * the next not before pace_next; pace_left: packets the slot being
	 * served may still carry (SIZE_MAX when unpaced). Held: on
	 * pacer->held, data ready but the slot not yet come. */
	struct udcx_pacer *pacer;
	uint64_t pace_interval;
	uint64_t pace_next;
	bool pace_started;		/* a transaction since pacing began */
	bool pace_held;
	size_t pace_packets;
	size_t pace_left;
	struct list_head pace_node;
};

/* ---- setup ------------------------------------------------------------ */

void udcx__done_init(struct udcx_done *done);

/* True when @done holds nothing. */
bool udcx__done_empty(const struct udcx_done *done);

/* Move everything from @src to the end of @dst (order kept). */
void udcx__done_splice(struct udcx_done *dst, struct udcx_done *src);

/*
 * Move the finished-but-not-given-back requests of @ep from @src->reqs to
 * @dst (a backend's disable: such requests must complete before disable
 * returns). Order kept.
 */
void udcx__done_take_ep(struct udcx_done *src, struct udcx_ep *ep,
			struct list_head *dst);

/* Move @req from @src->reqs to @dst if it is there. Return: true if moved. */
bool udcx__done_take_req(struct udcx_done *src, struct udcx_req *req,
			 struct list_head *dst);

/*
 * Give back every request on @reqs (unlinking each first, so a completion
 * may queue it again) through usb_gadget_giveback_request(). Call without
 * the backend's lock, in the event context (or in disable/dequeue).
 */
void udcx__giveback_list(struct list_head *reqs);

/* As udcx__giveback_list(&done->reqs). */
void udcx__done_giveback(struct udcx_done *done);

/*
 * Initialise @ep for gadget endpoint @usb_ep (borrowed). @control: ep0,
 * which is always enabled and takes control transfers. @maxpacket: the
 * initial packet size (ep0: from the speed; others: set at enable).
 */
void udcx__ep_init(struct udcx_ep *ep, struct usb_ep *usb_ep, bool control,
		   unsigned maxpacket);

/* Change the packet size (ep0 after a bus reset). Must be > 0. */
void udcx__ep_set_maxpacket(struct udcx_ep *ep, unsigned maxpacket);

/*
 * Enable a non-control endpoint: direction and packet size (> 0); halt
 * cleared. Host transfers already pending keep waiting and are served.
 * Return: 0, USB_EINVAL for maxpacket 0 or a control endpoint.
 */
int udcx__ep_enable(struct udcx_ep *ep, bool is_in, unsigned maxpacket);

/*
 * Disable: every queued request is finished with USB_ESHUTDOWN (into
 * @done); halt cleared. Host transfers stay pending (as on a bus, where
 * the host's tokens go unanswered): flush them with udcx__ep_flush_urbs()
 * if the device goes away.
 */
void udcx__ep_disable(struct udcx_ep *ep, struct udcx_done *done);

void udcx__req_init(struct udcx_req *r);

/*
 * ops->alloc_request / ops->free_request from the heap (req_heap.c), for
 * backends whose requests are plain struct udcx_req. Any thread.
 */
struct usb_request *udcx__alloc_request(struct usb_ep *ep);
void udcx__free_request(struct usb_ep *ep, struct usb_request *req);

/* The udcx_req around @req (which must come from a udcx backend). */
static inline struct udcx_req *udcx__req_of(struct usb_request *req)
{
	return usb_container_of(req, struct udcx_req, req);
}

/*
 * Queue @r on @ep and move data against pending host transfers.
 * Return: 0; USB_ESHUTDOWN if @ep is not enabled; USB_EINVAL for a
 * request with length > 0 and no buffer, or already queued on an engine
 * endpoint. On error nothing is queued and nothing lands in @done.
 */
int udcx__ep_queue(struct udcx_ep *ep, struct udcx_req *r, struct udcx_done *done);

/*
 * Queue @r without moving data yet (errors as udcx__ep_queue()); a later
 * udcx__ep_run() moves it. For a backend whose host side moves the bytes
 * in its own thread, as a controller's DMA would.
 */
int udcx__ep_queue_only(struct udcx_ep *ep, struct udcx_req *r);

/* Move data between @ep's queued requests and pending host transfers. */
void udcx__ep_run(struct udcx_ep *ep, struct udcx_done *done);

/*
 * As udcx__ep_run(), but stop once about @budget bytes (whole packets,
 * at least one) were copied, so that a backend holding a lock across the
 * run can let others at it between chunks. Isochronous and control
 * transfers are not cut. Return: true if it stopped with data left to
 * move (call again), false if it moved all it could.
 */
bool udcx__ep_run_some(struct udcx_ep *ep, struct udcx_done *done, size_t budget);


/*
 * Remove @r from @ep's queue and finish it with USB_ECONNRESET (actual
 * keeps what was transferred) into @done.
 * Return: 0, or USB_EINVAL if @r is not queued on @ep.
 */
int udcx__ep_dequeue(struct udcx_ep *ep, struct udcx_req *r, struct udcx_done *done);

/*
 * Halt or resume @ep (@value as for ops->set_halt). Halting fails the
 * pending host transfers with -USB_EPIPE into @done; queued requests stay
 * (a request partly sent keeps its offset). On a control endpoint, halting stalls the
 * current control transfer only (the next SETUP clears it).
 * Return: 0; -USB_EAGAIN for USB_EP_HALT_SET on a non-control IN endpoint
 * that has requests queued (nothing changes then).
 */
int udcx__ep_set_halt(struct udcx_ep *ep, enum usb_ep_halt_value value,
		      struct udcx_done *done);

/* Finish every queued request with @status (negative) into @done. */
void udcx__ep_flush_reqs(struct udcx_ep *ep, int status, struct udcx_done *done);

/* Finish every pending host transfer with @status (negative) into @done. */
void udcx__ep_flush_urbs(struct udcx_ep *ep, int status, struct udcx_done *done);

bool udcx__ep_is_halted(const struct udcx_ep *ep);
bool udcx__ep_is_enabled(const struct udcx_ep *ep);
/* Requests currently queued on @ep. */
size_t udcx__ep_queued(const struct udcx_ep *ep);
/* Host transfers pending on @ep. */
size_t udcx__ep_pending(const struct udcx_ep *ep);

/* ---- host transfers --------------------------------------------------- */

/* Fill in @u for a transfer of @length bytes at @buf with @flags. */
void udcx__urb_init(struct udcx_urb *u, void *buf, size_t length, unsigned flags);

/*
 * Is @packets (@count of them) a layout a transfer of @length bytes can
 * take: each packet starts at or after the end of the one before it and
 * ends inside the buffer (gaps and empty packets allowed, as Linux's
 * drivers lay them out)? Then their lengths add up to at most @length,
 * and nothing the engine does with them reaches past the buffer.
 */
bool udcx__iso_layout_valid(const struct udcx_iso_packet *packets, size_t count, size_t length);

/*
 * Make @u (after udcx__urb_init()) an isochronous transfer of @count
 * packets (borrowed, a layout udcx__iso_layout_valid() accepts). Each packet pairs with one
 * request, oldest first, one service interval each: IN: the request's data
 * up to the packet's room; OUT: the packet's bytes into the request (a
 * packet bigger than the request ends it with -USB_EOVERFLOW). No short
 * packet or ZLP rules apply. The transfer waits for requests as bulk does
 * (a software bus has no frame clock to miss); it finishes with status 0
 * once every packet is served, @actual being the sum of the packets'.
 */
void udcx__urb_set_iso(struct udcx_urb *u, struct udcx_iso_packet *packets, size_t count);

/*
 * Submit host transfer @u on non-control endpoint @ep (its direction is
 * @ep's) and move data. On a halted endpoint @u finishes at once with
 * USB_EPIPE (into @done).
 * Return: 0 (@u belongs to the engine until it lands in @done->urbs);
 * USB_EINVAL for a control endpoint, a length > 0 without buffer, an
 * isochronous layout udcx__iso_layout_valid() refuses, or @u already
 * pending.
 */
int udcx__urb_submit(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done);

/* As udcx__urb_submit() without moving data yet: a later run moves it. */
int udcx__urb_submit_only(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done);

/*
 * Unlink @u from @ep. Return: 0 if it was pending: it is removed, with
 * status USB_ECONNRESET and actual as far as it got, and NOT put on any
 * done list (the caller answers it); USB_EALREADY if it is not pending on
 * @ep (already finished, or never submitted there).
 */
int udcx__urb_unlink(struct udcx_ep *ep, struct udcx_urb *u);

/* ---- zero copy ----------------------------------------------------------- */

/*
 * Make IN transfer @u (after udcx__urb_init(), before submit) gather: up
 * to @max runs (@segs, borrowed by @u until released) describe its bytes;
 * past the last run but one they are copied into @u->buf, which must
 * still have room for @u->length bytes. Requests @u finishes are held on
 * @u->held, with their status, until udcx__urb_release(); but once @u
 * has to wait for more requests, it copies what it borrowed and holds
 * nothing (a function may need its requests back to queue the rest).
 * Not for control or isochronous transfers.
 */
void udcx__urb_set_gather(struct udcx_urb *u, struct udcx_seg *segs, size_t max);

/*
 * The caller is done with @u's bytes (sent, or dropped with @u): the
 * requests it held go onto @done->reqs, and @u borrows nothing any more.
 * For a transfer that never gathered, nothing happens. Call it before
 * freeing any gathering transfer the engine has seen, pending or not.
 */
void udcx__urb_release(struct udcx_urb *u, struct udcx_done *done);

/*
 * Copy every byte the transfers on @ep borrow from its requests into the
 * transfers' own buffers and give up what they hold (onto @done->reqs):
 * IN, every gathering transfer not yet released; OUT, the streamed
 * transfer's bytes received into the head request but not yet taken.
 * The engine calls it before requests leave the queue other than by
 * finishing (dequeue, flush, disable); a backend may call it too.
 */
void udcx__ep_unborrow(struct udcx_ep *ep, struct udcx_done *done);

/*
 * Submit OUT transfer @u (non-control, not isochronous) before its bytes
 * arrive: the caller delivers them in order through udcx__urb_rx_windows()
 * and udcx__urb_rx_commit(). Until all have arrived @u cannot complete
 * except by a halt, a flush or an unlink; a caller still receiving its
 * bytes then goes on writing them where the window says (its own buffer).
 * Return and errors as udcx__urb_submit(), plus USB_EINVAL for an IN or
 * isochronous transfer.
 */
int udcx__urb_submit_stream(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done);

/*
 * Where the next bytes of streamed transfer @u go, as up to @max windows
 * in order (@win, the caller's), and how many (the return; 0 once all
 * have arrived). Straight into the head request's buffer while @u is the
 * oldest transfer on @ep and its next packets fit that request whole,
 * and on into the next queued requests wherever a window fills its
 * request exactly (a scattered read); else one window into @u->buf at
 * the arrival offset. @u need not be pending (a submit that failed, or
 * a transfer that ended early): its bytes then go to @u->buf. The
 * windows are valid until the lock the caller holds is dropped.
 */
size_t udcx__urb_rx_windows(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_window *win,
			    size_t max);

/*
 * Is streamed transfer @u waiting for a request: the oldest on @ep, all
 * its bytes so far taken, none queued to take the next (on a bus the
 * host would be NAKed)? A backend may hold the bytes back a while, so
 * that they land in the request the function is about to queue.
 */
bool udcx__urb_rx_starved(const struct udcx_ep *ep, const struct udcx_urb *u);

/* @n bytes (at most the windows') were written at the windows, in order:
 * move them. */
void udcx__urb_rx_commit(struct udcx_ep *ep, struct udcx_urb *u, size_t n,
			 struct udcx_done *done);

/* ---- pacing (pace.c) ---------------------------------------------------
 * On a bus the host polls an interrupt endpoint once per service interval
 * and a device moves at most one transaction per poll; a software host
 * (vhci-hcd, the in-process host) hands every transfer over at once. A
 * paced endpoint keeps that schedule itself, per endpoint:
 * - a transaction (up to pace_packets packets: wMaxPacketSize x mult)
 *   happens no sooner than one interval after the previous one; a
 *   transfer bigger than that takes several intervals;
 * - a transfer waiting for data (IN: a request; OUT: a request to take
 *   it) moves at once when the data comes if its slot has come already;
 * - slots do not drift: the next slot is the previous one plus one
 *   interval, not the time served plus one (a backend's timer late, or a
 *   transfer or its data coming a little after its slot, does not add
 *   up), unless the endpoint was idle longer than an interval past its
 *   slot: then the schedule starts again from the time served, and the
 *   slots missed are not made up in a burst. So the k-th transaction
 *   after the schedule (re)starts comes no sooner than k intervals on.
 * While the slot has not come the transfer and its requests stay put
 * and the endpoint is held on its pacer: the backend sleeps until
 * udcx__pacer_next() and then calls udcx__pacer_run().
 */

/*
 * The service interval in ns of endpoint @desc at @speed: bInterval ms at
 * full and low speed, 2^(bInterval-1) x 125 us from high speed up; 0 for
 * anything but an interrupt endpoint. Values out of range are fixed up as
 * Linux's host does (full/low speed 0: 10 ms; faster: the nearest valid
 * exponent for a full-speed-style value, 0: 8 ms).
 */
uint64_t udcx__interval_ns(const struct usb_endpoint_descriptor *desc,
			   enum usb_device_speed speed);

/*
 * Packets per service interval of @desc at @speed: 1 at full/low speed;
 * at high speed wMaxPacketSize's mult + 1; from SuperSpeed @comp's
 * bMaxBurst + 1 (@comp may be NULL: 1). At most 3.
 */
unsigned udcx__interval_packets(const struct usb_endpoint_descriptor *desc,
				const struct usb_ss_ep_comp_descriptor *comp,
				enum usb_device_speed speed);

/* CLOCK_MONOTONIC (clock_posix.c: POSIX builds only). */
extern const struct udcx_clock udcx__clock_monotonic;

/* Set up @p with @clock (borrowed; lives as long as @p). */
void udcx__pacer_init(struct udcx_pacer *p, const struct udcx_clock *clock);

/*
 * Pace non-control endpoint @ep (after udcx__ep_enable(), which, as
 * udcx__ep_disable(), turns pacing off) on @p: one transaction of up to
 * @packets (>= 1) packets per @interval_ns. @interval_ns 0, or @p NULL:
 * unpaced. The schedule starts afresh: the first transaction may come at
 * once.
 */
void udcx__ep_set_pacing(struct udcx_ep *ep, struct udcx_pacer *p, uint64_t interval_ns,
			 unsigned packets);

/*
 * As udcx__ep_set_pacing() with the interval and packets of @desc (and
 * @comp) at @speed: paced only if @desc is an interrupt endpoint.
 * Return: true if @ep is paced now.
 */
bool udcx__ep_pace_desc(struct udcx_ep *ep, struct udcx_pacer *p,
			const struct usb_endpoint_descriptor *desc,
			const struct usb_ss_ep_comp_descriptor *comp, enum usb_device_speed speed);

/* Is @ep paced? */
bool udcx__ep_is_paced(const struct udcx_ep *ep);

/*
 * The earliest time (the clock's ns) at which an endpoint held on @p may
 * move its next transaction, into *@due. Return: false if none is held
 * (nothing to wake up for).
 */
bool udcx__pacer_next(const struct udcx_pacer *p, uint64_t *due);

/*
 * Run every endpoint held on @p whose slot has come (what finishes lands
 * in @done, as for udcx__ep_run()). Return: how many endpoints ran.
 */
unsigned udcx__pacer_run(struct udcx_pacer *p, struct udcx_done *done);

/* ---- control transfers (ep0) ------------------------------------------
 * A backend drives ep0 like this, all under its lock except the setup call:
 *   udcx__ctrl_submit(ep0, u, done);          host sent a control transfer
 *   while ((u = udcx__ctrl_next_setup(ep0, done))) {
 *       unlock; give back done->reqs (leftovers, USB_ECONNRESET);
 *       rc = usb_gadget_setup(gadget, &u->setup);
 *       lock; udcx__ctrl_setup_done(ep0, u, rc, done);
 *       ... once u is in done->urbs, the next one may start
 *   }
 * The data stage moves as IN/OUT packets against the one request the core
 * queues; the transfer completes after the status stage: IN once the data
 * stage ended, OUT once all data was taken, no-data once the zero-length
 * request was queued. What is left of a request when the host moves to
 * the status stage completes with status 0. A stall (udcx__ep_set_halt()
 * or rc < 0) completes the transfer with USB_EPIPE.
 *
 * Status after the completion: a controller sends an OUT transfer's status
 * stage only after the data stage's completion ran, so a function that
 * halts ep0 there (Linux's f_ncm on a bad SET_NTB_INPUT_SIZE) stalls the
 * status stage. A backend gets that by setting a status hook: the
 * transfer then stays current after its data stage; udcx__giveback_list()
 * runs the request's completion, then the hook (no lock held), which takes
 * the lock and calls udcx__ctrl_status(). Without a hook the transfer
 * ends with its data stage.
 */

/*
 * Set (or clear, NULL) @ep's status hook. Context: lock held, no control
 * transfer in progress (set it when the endpoint is set up).
 */
void udcx__ctrl_set_status_hook(struct udcx_ep *ep, void (*hook)(struct udcx_ep *ep));

/*
 * End the control transfer whose status stage waits (see above) with
 * status 0 into @done. Nothing when none waits: the completion halted
 * ep0 (the transfer has ended with USB_EPIPE), or it was unlinked.
 * Context: lock held.
 */
void udcx__ctrl_status(struct udcx_ep *ep, struct udcx_done *done);

/*
 * Queue control transfer @u (@u->setup set; @u->length the host's buffer,
 * normally wLength) on control endpoint @ep.
 * Return: 0; USB_EINVAL if @ep is not a control endpoint, @u is pending, or
 * a length > 0 without buffer.
 */
int udcx__ctrl_submit(struct udcx_ep *ep, struct udcx_urb *u, struct udcx_done *done);

/*
 * If no control transfer is in progress and one is queued, start it: the
 * requests still queued on ep0 are finished with USB_ECONNRESET into
 * @done, the halt is cleared, and the transfer whose SETUP the caller
 * must now deliver is returned. Otherwise NULL.
 */
struct udcx_urb *udcx__ctrl_next_setup(struct udcx_ep *ep, struct udcx_done *done);

/*
 * Report what usb_gadget_setup() returned for @u: negative stalls the
 * transfer (unless it already finished or was unlinked); otherwise data
 * moves against queued requests.
 */
void udcx__ctrl_setup_done(struct udcx_ep *ep, struct udcx_urb *u, int rc,
			   struct udcx_done *done);

/* The control transfer in progress on @ep, or NULL. */
struct udcx_urb *udcx__ctrl_current(const struct udcx_ep *ep);

#ifdef __cplusplus
}
#endif

#endif /* UDCX_XFER_H */
