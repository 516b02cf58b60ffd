/*
 * test_xfer.c - unit tests of the transfer engine
 * (src/udc/common/xfer.c), driven directly, without core or backend:
 * tables of IN and OUT cases at maxpacket 64 and 512, each run with the
 * requests queued before and after the host transfers, plus halt, unlink,
 * dequeue, flush and the control-transfer stages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "udc/common/xfer.h"

#define MAXN 6
#define WAIT 1	/* expected status: still queued / pending */
#define Z 1u	/* request flag: zero */
#define SNOK 2u	/* request flag: short_not_ok */

struct rspec {
	unsigned len;
	unsigned flags;
};

struct uspec {
	size_t len;
	unsigned flags;
};

struct want {
	size_t actual;
	int status;
};

struct xcase {
	const char *name;
	bool in;
	bool lossy;	/* babble/overflow: data streams need not match */
	unsigned nr;
	struct rspec r[MAXN];
	unsigned nu;
	struct uspec u[MAXN];
	struct want rw[MAXN];
	struct want uw[MAXN];
};

#define R(...) { __VA_ARGS__ }
#define EOVF (-USB_EOVERFLOW)
#define ERIO (-USB_EREMOTEIO)
#define SNO UDCX_URB_SHORT_NOT_OK
#define ZP UDCX_URB_ZERO_PACKET

/* IN cases, M = maxpacket. */
#define IN_CASES(M) \
	{ "exact", true, false, 1, R({ M, 0 }), 1, R({ M, 0 }), R({ M, 0 }), R({ M, 0 }) }, \
	{ "exact 4 packets", true, false, 1, R({ 4 * M, 0 }), 1, R({ 4 * M, 0 }), \
	  R({ 4 * M, 0 }), R({ 4 * M, 0 }) }, \
	{ "short", true, false, 1, R({ 10, 0 }), 1, R({ M, 0 }), R({ 10, 0 }), R({ 10, 0 }) }, \
	{ "short after packets", true, false, 1, R({ 2 * M + 10, 0 }), 1, R({ 4 * M, 0 }), \
	  R({ 2 * M + 10, 0 }), R({ 2 * M + 10, 0 }) }, \
	{ "short, host short_not_ok", true, false, 1, R({ 10, 0 }), 1, R({ M, SNO }), \
	  R({ 10, 0 }), R({ 10, ERIO }) }, \
	{ "full, host short_not_ok", true, false, 1, R({ M, 0 }), 1, R({ M, SNO }), \
	  R({ M, 0 }), R({ M, 0 }) }, \
	{ "zlp ends transfer", true, false, 1, R({ M, Z }), 1, R({ 4 * M, 0 }), \
	  R({ M, 0 }), R({ M, 0 }) }, \
	{ "no zlp: transfer continues", true, false, 2, R({ M, 0 }, { 10, 0 }), 1, \
	  R({ 4 * M, 0 }), R({ M, 0 }, { 10, 0 }), R({ M + 10, 0 }) }, \
	{ "no zlp: transfer waits", true, false, 1, R({ 2 * M, 0 }), 1, R({ 4 * M, 0 }), \
	  R({ 2 * M, 0 }), R({ 2 * M, WAIT }) }, \
	{ "zero-length request", true, false, 1, R({ 0, 0 }), 1, R({ M, 0 }), \
	  R({ 0, 0 }), R({ 0, 0 }) }, \
	{ "zero flag, partial packet: no extra zlp", true, false, 1, R({ 10, Z }), 2, \
	  R({ M, 0 }, { M, 0 }), R({ 10, 0 }), R({ 10, 0 }, { 0, WAIT }) }, \
	{ "zlp left for next transfer", true, false, 1, R({ M, Z }), 2, \
	  R({ M, 0 }, { M, 0 }), R({ M, 0 }), R({ M, 0 }, { 0, 0 }) }, \
	{ "several requests, one transfer", true, false, 3, \
	  R({ M, 0 }, { M, 0 }, { 10, 0 }), 1, R({ 4 * M, 0 }), \
	  R({ M, 0 }, { M, 0 }, { 10, 0 }), R({ 2 * M + 10, 0 }) }, \
	{ "request spans transfers", true, false, 1, R({ 3 * M, 0 }), 3, \
	  R({ M, 0 }, { M, 0 }, { M, 0 }), R({ 3 * M, 0 }), \
	  R({ M, 0 }, { M, 0 }, { M, 0 }) }, \
	{ "request spans, short tail", true, false, 1, R({ 2 * M + 5, 0 }), 3, \
	  R({ M, 0 }, { M, 0 }, { M, 0 }), R({ 2 * M + 5, 0 }), \
	  R({ M, 0 }, { M, 0 }, { 5, 0 }) }, \
	{ "request spans, tail in bigger transfer", true, false, 2, \
	  R({ 3 * M, 0 }, { 7, 0 }), 2, R({ 2 * M, 0 }, { 4 * M, 0 }), \
	  R({ 3 * M, 0 }, { 7, 0 }), R({ 2 * M, 0 }, { M + 7, 0 }) }, \
	{ "babble", true, true, 1, R({ 2 * M, 0 }), 1, R({ M + 10, 0 }), \
	  R({ 2 * M, 0 }), R({ M + 10, EOVF }) }, \
	{ "babble, first packet", true, true, 1, R({ M, 0 }), 1, R({ 10, 0 }), \
	  R({ M, 0 }), R({ 10, EOVF }) }, \
	{ "odd length, packets fit", true, false, 2, R({ M, 0 }, { 5, 0 }), 1, \
	  R({ M + 10, 0 }), R({ M, 0 }, { 5, 0 }), R({ M + 5, 0 }) }, \
	{ "odd length, exactly full", true, false, 2, R({ M, 0 }, { 10, 0 }), 1, \
	  R({ M + 10, 0 }), R({ M, 0 }, { 10, 0 }), R({ M + 10, 0 }) }, \
	{ "transfer waits for data", true, false, 0, R({ 0, 0 }), 1, R({ M, 0 }), \
	  R({ 0, 0 }), R({ 0, WAIT }) }, \
	{ "zero-length transfer, zlp", true, false, 1, R({ 0, 0 }), 1, R({ 0, 0 }), \
	  R({ 0, 0 }), R({ 0, 0 }) }, \
	{ "zero-length transfer, data: babble", true, true, 1, R({ 10, 0 }), 1, \
	  R({ 0, 0 }), R({ 10, 0 }), R({ 0, EOVF }) }, \
	{ "two zlps, two transfers", true, false, 2, R({ 0, 0 }, { 0, Z }), 2, \
	  R({ M, 0 }, { M, 0 }), R({ 0, 0 }, { 0, 0 }), R({ 0, 0 }, { 0, 0 }) }, \
	{ "requests wait for transfers", true, false, 2, R({ M, 0 }, { M, 0 }), 1, \
	  R({ M, 0 }), R({ M, 0 }, { 0, WAIT }), R({ M, 0 }) }

/* OUT cases, M = maxpacket. */
#define OUT_CASES(M) \
	{ "exact", false, false, 1, R({ M, 0 }), 1, R({ M, 0 }), R({ M, 0 }), R({ M, 0 }) }, \
	{ "exact 4 packets", false, false, 1, R({ 4 * M, 0 }), 1, R({ 4 * M, 0 }), \
	  R({ 4 * M, 0 }), R({ 4 * M, 0 }) }, \
	{ "short", false, false, 1, R({ M, 0 }), 1, R({ 10, 0 }), R({ 10, 0 }), R({ 10, 0 }) }, \
	{ "short, short_not_ok", false, false, 1, R({ M, SNOK }), 1, R({ 10, 0 }), \
	  R({ 10, ERIO }), R({ 10, 0 }) }, \
	{ "short fills request, short_not_ok", false, false, 1, R({ 10, SNOK }), 1, \
	  R({ 10, 0 }), R({ 10, 0 }), R({ 10, 0 }) }, \
	{ "transfer fills several requests", false, false, 3, \
	  R({ M, 0 }, { M, 0 }, { M, 0 }), 1, R({ 3 * M, 0 }), \
	  R({ M, 0 }, { M, 0 }, { M, 0 }), R({ 3 * M, 0 }) }, \
	{ "request takes several transfers", false, false, 1, R({ 3 * M, 0 }), 3, \
	  R({ M, 0 }, { M, 0 }, { M, 0 }), R({ 3 * M, 0 }), \
	  R({ M, 0 }, { M, 0 }, { M, 0 }) }, \
	{ "short packet in second transfer", false, false, 1, R({ 4 * M, 0 }), 2, \
	  R({ M, 0 }, { 10, 0 }), R({ M + 10, 0 }), R({ M, 0 }, { 10, 0 }) }, \
	{ "zlp ends request", false, false, 1, R({ 4 * M, 0 }), 1, R({ M, ZP }), \
	  R({ M, 0 }), R({ M, 0 }) }, \
	{ "zero-length transfer", false, false, 1, R({ 4 * M, 0 }), 1, R({ 0, 0 }), \
	  R({ 0, 0 }), R({ 0, 0 }) }, \
	{ "zero-length transfer, short_not_ok", false, false, 1, R({ M, SNOK }), 1, \
	  R({ 0, 0 }), R({ 0, ERIO }), R({ 0, 0 }) }, \
	{ "overflow", false, true, 1, R({ M + 10, 0 }), 1, R({ 2 * M, 0 }), \
	  R({ M + 10, EOVF }), R({ 2 * M, 0 }) }, \
	{ "overflow, next request gets the rest", false, true, 2, R({ 10, 0 }, { M, 0 }), 1, \
	  R({ 2 * M, 0 }), R({ 10, EOVF }, { M, 0 }), R({ 2 * M, 0 }) }, \
	{ "overflow mid-transfer, next request gets the rest", false, true, 3, \
	  R({ M + 10, 0 }, { M, 0 }, { M, 0 }), 1, R({ 3 * M, 0 }), \
	  R({ M + 10, EOVF }, { M, 0 }, { 0, WAIT }), R({ 3 * M, 0 }) }, \
	{ "transfer waits for a request", false, false, 0, R({ 0, 0 }), 1, R({ M, 0 }), \
	  R({ 0, 0 }), R({ 0, WAIT }) }, \
	{ "transfer waits for second request", false, false, 1, R({ M, 0 }), 1, \
	  R({ 2 * M, 0 }), R({ M, 0 }), R({ M, WAIT }) }, \
	{ "short after packets", false, false, 1, R({ 4 * M, 0 }), 1, R({ 2 * M + 10, 0 }), \
	  R({ 2 * M + 10, 0 }), R({ 2 * M + 10, 0 }) }, \
	{ "zero-length request takes zlp", false, false, 1, R({ 0, 0 }), 1, R({ 0, 0 }), \
	  R({ 0, 0 }), R({ 0, 0 }) }, \
	{ "zero-length request, data: overflow", false, true, 1, R({ 0, 0 }), 1, \
	  R({ M, 0 }), R({ 0, EOVF }), R({ M, 0 }) }, \
	{ "zero_packet flag, partial: no zlp", false, false, 2, R({ M, 0 }, { M, 0 }), 1, \
	  R({ 10, ZP }), R({ 10, 0 }, { 0, WAIT }), R({ 10, 0 }) }, \
	{ "zlp goes to the next request", false, false, 2, R({ M, 0 }, { M, 0 }), 1, \
	  R({ M, ZP }), R({ M, 0 }, { 0, 0 }), R({ M, 0 }) }, \
	{ "request waits for data", false, false, 2, R({ M, 0 }, { M, 0 }), 1, \
	  R({ M, 0 }), R({ M, 0 }, { 0, WAIT }), R({ M, 0 }) }

static const struct xcase cases64[] = { IN_CASES(64), OUT_CASES(64) };
static const struct xcase cases512[] = { IN_CASES(512), OUT_CASES(512) };

struct world {
	struct usb_ep gep;
	struct udcx_ep ep;
	struct udcx_done done;
	struct udcx_req req[MAXN];
	struct udcx_urb urb[MAXN];
	uint8_t *rbuf[MAXN];
	uint8_t *ubuf[MAXN];
	/* pacing drives: a clock the test moves */
	struct udcx_pacer pacer;
	struct udcx_clock clock;
	uint64_t now;
};

/* A clock that stands still until the test moves *ctx. */
static uint64_t fake_now(void *ctx)
{
	return *(const uint64_t *)ctx;
}

static uint8_t pattern(size_t k)
{
	return (uint8_t)(k * 7u + 3u + k / 251u);
}

static void world_setup(struct world *w, const struct xcase *c, unsigned mp)
{
	size_t off = 0;
	unsigned i;

	memset(w, 0, sizeof(*w));
	udcx__ep_init(&w->ep, &w->gep, false, 0);
	udcx__done_init(&w->done);
	assert_int_equal(udcx__ep_enable(&w->ep, c->in, mp), 0);
	for (i = 0; i < c->nr; i++) {
		size_t n = c->r[i].len;

		w->rbuf[i] = calloc(1, n + 1);
		assert_non_null(w->rbuf[i]);
		if (c->in) {
			for (size_t k = 0; k < n; k++)
				w->rbuf[i][k] = pattern(off + k);
			off += n;
		}
		udcx__req_init(&w->req[i]);
		w->req[i].req.buf = w->rbuf[i];
		w->req[i].req.length = (unsigned)n;
		w->req[i].req.zero = (c->r[i].flags & Z) != 0;
		w->req[i].req.short_not_ok = (c->r[i].flags & SNOK) != 0;
	}
	off = 0;
	for (i = 0; i < c->nu; i++) {
		size_t n = c->u[i].len;

		w->ubuf[i] = calloc(1, n + 1);
		assert_non_null(w->ubuf[i]);
		if (!c->in) {
			for (size_t k = 0; k < n; k++)
				w->ubuf[i][k] = pattern(off + k);
			off += n;
		}
		udcx__urb_init(&w->urb[i], w->ubuf[i], n, c->u[i].flags);
	}
}

static void world_free(struct world *w)
{
	for (unsigned i = 0; i < MAXN; i++) {
		free(w->rbuf[i]);
		free(w->ubuf[i]);
	}
}

static bool on_list(const struct list_head *head, const struct list_head *node)
{
	const struct list_head *pos;

	for (pos = head->next; pos != head; pos = pos->next)
		if (pos == node)
			return true;
	return false;
}

/* Concatenate the bytes moved into @bufs per @actuals. */
static size_t concat(uint8_t *dst, uint8_t *const *bufs, const size_t *actuals, unsigned n)
{
	size_t off = 0;

	for (unsigned i = 0; i < n; i++) {
		memcpy(dst + off, bufs[i], actuals[i]);
		off += actuals[i];
	}
	return off;
}

/*
 * How a case is driven: requests queued first, transfers submitted first
 * (the engine runs on each call), or everything queued without running
 * and then moved by udcx__ep_run_some() one packet's budget at a time.
 */
enum drive { REQS_FIRST, URBS_FIRST, CHUNKED, GATHER, GATHER_TIGHT, STREAM, STREAM_LATE,
	     PACED, PACED_HB };

static const char *const drive_name[] = {
	"requests first", "transfers first", "chunked", "gather", "gather, 2 runs",
	"streamed", "streamed, requests late", "paced, 1 packet a slot",
	"paced, 3 packets a slot, transfers first"
};

#define PACE_NS 1000u

/*
 * Paced (an interrupt endpoint): requests and transfers as REQS_FIRST or
 * URBS_FIRST, then the clock is moved to each slot the pacer asks for
 * until nothing is held. The outcome must be the unpaced one: pacing
 * changes when packets move, never what they carry or how they end.
 */
static void drive_paced(struct world *w, const struct xcase *c, enum drive drive)
{
	unsigned i, slots = 0;
	uint64_t due, last = 0;

	w->clock = (struct udcx_clock){ fake_now, &w->now };
	w->now = 5u * PACE_NS;
	udcx__pacer_init(&w->pacer, &w->clock);
	udcx__ep_set_pacing(&w->ep, &w->pacer, PACE_NS, drive == PACED ? 1 : 3);
	assert_true(udcx__ep_is_paced(&w->ep));
	if (drive == PACED)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	for (i = 0; i < c->nu; i++)
		assert_int_equal(udcx__urb_submit(&w->ep, &w->urb[i], &w->done), 0);
	if (drive != PACED)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	while (udcx__pacer_next(&w->pacer, &due)) {
		/* Slots one interval apart: the clock only moves to them. */
		assert_true(due > w->now);
		assert_true(last == 0 || due >= last + PACE_NS);
		w->now = last = due;
		assert_int_equal(udcx__pacer_run(&w->pacer, &w->done), 1);
		if (++slots > 1000)
			fail_msg("%s: the pacer never lets go", c->name);
	}
}

#define NSEG 16

/* A gathering transfer's bytes, into its own buffer (where its copied
 * runs already are). */
static void gather_materialize(struct udcx_urb *u)
{
	size_t off = 0;

	for (size_t k = 0; k < u->seg_count; k++) {
		memmove((uint8_t *)u->buf + off, u->segs[k].p, u->segs[k].len);
		off += u->segs[k].len;
	}
	assert_int_equal(off, u->actual);
}

/* IN, gathering: requests first (GATHER) or transfers first
 * (GATHER_TIGHT, two runs only: the rest is copied). Then the finished
 * transfers are "sent" and released in order, and whatever still
 * borrows (a pending transfer) gives its bytes up. */
static void drive_gather(struct world *w, const struct xcase *c, enum drive drive,
			 struct udcx_seg (*segs)[NSEG])
{
	unsigned i;

	for (i = 0; i < c->nu; i++)
		udcx__urb_set_gather(&w->urb[i], segs[i], drive == GATHER ? NSEG : 2);
	if (drive == GATHER)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	for (i = 0; i < c->nu; i++)
		assert_int_equal(udcx__urb_submit(&w->ep, &w->urb[i], &w->done), 0);
	if (drive != GATHER)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	for (i = 0; i < c->nu; i++) {
		if (w->urb[i].pending)
			continue;
		gather_materialize(&w->urb[i]);
		udcx__urb_release(&w->urb[i], &w->done);
	}
	udcx__ep_unborrow(&w->ep, &w->done);
	for (i = 0; i < c->nu; i++)
		if (w->urb[i].pending)
			gather_materialize(&w->urb[i]);
}

/* OUT, streamed: each transfer's bytes arrive in chunks of odd sizes
 * through the window; STREAM_LATE queues the requests after the first
 * chunk. The transfers' own buffers start zeroed, so bytes that do not
 * go where the window said are lost and the data check fails. */
static void drive_stream(struct world *w, const struct xcase *c, enum drive drive, unsigned mp)
{
	static const size_t chunks[] = { 1, 0, 3, 1, 0, 7, 2, 5 };	/* 0: mp - 1 */
	uint8_t *src[MAXN];
	size_t next = 0;
	unsigned i;

	for (i = 0; i < c->nu; i++) {
		src[i] = malloc(c->u[i].len + 1);
		assert_non_null(src[i]);
		memcpy(src[i], w->ubuf[i], c->u[i].len);
		memset(w->ubuf[i], 0, c->u[i].len);
	}
	if (drive == STREAM)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	for (i = 0; i < c->nu; i++)
		assert_int_equal(udcx__urb_submit_stream(&w->ep, &w->urb[i], &w->done), 0);
	for (i = 0; i < c->nu; i++) {
		struct udcx_urb *u = &w->urb[i];
		struct udcx_window win[4];
		size_t nw;

		/* STREAM scatters over up to 4 windows, STREAM_LATE uses one. */
		while ((nw = udcx__urb_rx_windows(&w->ep, u, win, drive == STREAM ? 4 : 1)) > 0) {
			size_t want = chunks[next++ % 8];
			size_t n = want ? want * (next % 3 + 1) * (next % 5 == 0 ? mp : 1) : mp - 1;
			size_t put = 0;

			for (size_t k = 0; k < nw && put < n; k++) {
				size_t m = n - put < win[k].len ? n - put : win[k].len;

				memcpy(win[k].p, src[i] + u->arrived + put, m);
				put += m;
			}
			n = put;
			udcx__urb_rx_commit(&w->ep, u, n, &w->done);
			if (drive == STREAM_LATE && i == 0 && u->arrived == n)
				for (unsigned k = 0; k < c->nr; k++)
					assert_int_equal(udcx__ep_queue(&w->ep, &w->req[k], &w->done), 0);
		}
	}
	if (drive == STREAM_LATE && c->nu == 0)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	/* A zero-length transfer had no chunk: queue them now. */
	if (drive == STREAM_LATE && c->nu > 0 && c->u[0].len == 0)
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue(&w->ep, &w->req[i], &w->done), 0);
	for (i = 0; i < c->nu; i++) {
		memcpy(w->ubuf[i], src[i], c->u[i].len);	/* for the data check */
		free(src[i]);
	}
}

/* Run @ep in budgets of @budget bytes until nothing is left to move. */
static void run_in_chunks(struct udcx_ep *ep, struct udcx_done *done, size_t budget)
{
	for (unsigned runs = 0; udcx__ep_run_some(ep, done, budget); runs++)
		if (runs > 100000)
			fail_msg("udcx__ep_run_some() never finishes (budget %zu)", budget);
}

static void check_case(const struct xcase *c, unsigned mp, enum drive drive)
{
	struct world w;
	unsigned i;
	char what[200];
	bool reqs_first = drive != URBS_FIRST;
	struct udcx_seg segs[MAXN][NSEG];

	world_setup(&w, c, mp);
	if (drive == GATHER || drive == GATHER_TIGHT) {
		drive_gather(&w, c, drive, segs);
	} else if (drive == PACED || drive == PACED_HB) {
		drive_paced(&w, c, drive);
	} else if (drive == STREAM || drive == STREAM_LATE) {
		drive_stream(&w, c, drive, mp);
	} else if (drive == CHUNKED) {
		for (i = 0; i < c->nr; i++)
			assert_int_equal(udcx__ep_queue_only(&w.ep, &w.req[i]), 0);
		for (i = 0; i < c->nu; i++)
			assert_int_equal(udcx__urb_submit_only(&w.ep, &w.urb[i], &w.done), 0);
		/* Below one packet: it must still move a packet a run. */
		run_in_chunks(&w.ep, &w.done, mp / 2);
	} else {
		if (reqs_first) {
			for (i = 0; i < c->nr; i++)
				assert_int_equal(udcx__ep_queue(&w.ep, &w.req[i], &w.done), 0);
		}
		for (i = 0; i < c->nu; i++)
			assert_int_equal(udcx__urb_submit(&w.ep, &w.urb[i], &w.done), 0);
		if (!reqs_first) {
			for (i = 0; i < c->nr; i++)
				assert_int_equal(udcx__ep_queue(&w.ep, &w.req[i], &w.done), 0);
		}
	}

	for (i = 0; i < c->nr; i++) {
		struct udcx_req *r = &w.req[i];

		snprintf(what, sizeof(what), "mp %u %s (%s): request %u actual %u status %d",
			 mp, c->name, drive_name[drive], i, r->req.actual, r->req.status);
		if (c->rw[i].status == WAIT) {
			if (r->req.status != -USB_EINPROGRESS || !on_list(&w.ep.reqs, &r->node))
				fail_msg("%s: expected still queued", what);
		} else if (r->req.status != c->rw[i].status || !on_list(&w.done.reqs, &r->node)) {
			fail_msg("%s: expected done with %d", what, c->rw[i].status);
		}
		if (r->req.actual != c->rw[i].actual)
			fail_msg("%s: expected actual %zu", what, c->rw[i].actual);
	}
	for (i = 0; i < c->nu; i++) {
		struct udcx_urb *u = &w.urb[i];

		snprintf(what, sizeof(what), "mp %u %s (%s): transfer %u actual %zu status %d",
			 mp, c->name, drive_name[drive], i, u->actual, u->status);
		if (c->uw[i].status == WAIT) {
			if (u->status != -USB_EINPROGRESS || !u->pending || !on_list(&w.ep.urbs, &u->node))
				fail_msg("%s: expected pending", what);
		} else if (u->status != c->uw[i].status || u->pending ||
			   !on_list(&w.done.urbs, &u->node)) {
			fail_msg("%s: expected done with %d", what, c->uw[i].status);
		}
		if (u->actual != c->uw[i].actual)
			fail_msg("%s: expected actual %zu", what, c->uw[i].actual);
	}
	/* Completion order: requests and transfers finish in queue order. */
	{
		const struct list_head *pos;
		int last = -1;

		list_for_each(pos, &w.done.reqs) {
			int idx = (int)(list_entry(pos, struct udcx_req, node) - w.req);

			assert_true(idx > last);
			last = idx;
		}
		last = -1;
		list_for_each(pos, &w.done.urbs) {
			int idx = (int)(list_entry(pos, struct udcx_urb, node) - w.urb);

			assert_true(idx > last);
			last = idx;
		}
	}
	if (!c->lossy) {
		size_t ra[MAXN], ua[MAXN], total_r = 0, total_u = 0, nr, nu;
		uint8_t *a, *b;

		for (i = 0; i < c->nr; i++)
			total_r += ra[i] = w.req[i].req.actual;
		for (i = 0; i < c->nu; i++)
			total_u += ua[i] = w.urb[i].actual;
		assert_int_equal(total_r, total_u);
		a = malloc(total_r + 1);
		b = malloc(total_u + 1);
		assert_non_null(a);
		assert_non_null(b);
		nr = concat(a, w.rbuf, ra, c->nr);
		nu = concat(b, w.ubuf, ua, c->nu);
		assert_int_equal(nr, nu);
		if (memcmp(a, b, nr) != 0)
			fail_msg("mp %u %s: data differs", mp, c->name);
		for (size_t k = 0; k < nr; k++)
			assert_int_equal(a[k], pattern(k));
		free(a);
		free(b);
	}
	world_free(&w);
}

static void run_table(const struct xcase *t, size_t n, unsigned mp)
{
	for (size_t i = 0; i < n; i++) {
		check_case(&t[i], mp, REQS_FIRST);
		check_case(&t[i], mp, URBS_FIRST);
		check_case(&t[i], mp, CHUNKED);
		check_case(&t[i], mp, PACED);
		check_case(&t[i], mp, PACED_HB);
		if (t[i].in) {
			check_case(&t[i], mp, GATHER);
			check_case(&t[i], mp, GATHER_TIGHT);
		} else {
			check_case(&t[i], mp, STREAM);
			check_case(&t[i], mp, STREAM_LATE);
		}
	}
}

static void test_xfer_table_mp64(void **state)
{
	(void)state;
	run_table(cases64, sizeof(cases64) / sizeof(cases64[0]), 64);
}

static void test_xfer_table_mp512(void **state)
{
	(void)state;
	run_table(cases512, sizeof(cases512) / sizeof(cases512[0]), 512);
}

/* ---- hand-written cases ------------------------------------------------ */

struct one {
	struct usb_ep gep;
	struct udcx_ep ep;
	struct udcx_done done;
	uint8_t rb[4][2048];
	uint8_t ub[4][2048];
	struct udcx_req r[4];
	struct udcx_urb u[4];
};

static struct one *one_new(bool in, unsigned mp)
{
	struct one *o = calloc(1, sizeof(*o));

	assert_non_null(o);
	udcx__ep_init(&o->ep, &o->gep, false, 0);
	udcx__done_init(&o->done);
	assert_int_equal(udcx__ep_enable(&o->ep, in, mp), 0);
	for (int i = 0; i < 4; i++) {
		udcx__req_init(&o->r[i]);
		o->r[i].req.buf = o->rb[i];
		udcx__urb_init(&o->u[i], o->ub[i], 0, 0);
	}
	return o;
}

static void set_req(struct one *o, int i, unsigned len)
{
	o->r[i].req.length = len;
}

static void set_urb(struct one *o, int i, size_t len, unsigned flags)
{
	udcx__urb_init(&o->u[i], o->ub[i], len, flags);
}

static void test_xfer_halt(void **state)
{
	struct one *o = one_new(true, 64);

	(void)state;
	/* IN with a request queued: refused, nothing changes. */
	set_req(o, 0, 10);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), 0);
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_SET, &o->done), -USB_EAGAIN);
	assert_false(udcx__ep_is_halted(&o->ep));
	/* The host's SET_FEATURE(HALT) is not refused; the request keeps its
	 * data for after the clear. */
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_HOST, &o->done), 0);
	assert_true(udcx__ep_is_halted(&o->ep));
	assert_int_equal(o->r[0].req.status, -USB_EINPROGRESS);
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_CLEAR, &o->done), 0);
	assert_int_equal(udcx__ep_dequeue(&o->ep, &o->r[0], &o->done), 0);
	udcx__done_init(&o->done);

	/* Pending transfers fail with a stall when the halt is set. */
	set_urb(o, 0, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), 0);
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_SET, &o->done), 0);
	assert_true(udcx__ep_is_halted(&o->ep));
	assert_int_equal(o->u[0].status, -USB_EPIPE);
	assert_true(on_list(&o->done.urbs, &o->u[0].node));

	/* New transfers fail at once; requests are not touched. */
	set_req(o, 1, 10);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[1], &o->done), 0);
	set_urb(o, 1, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_int_equal(o->u[1].status, -USB_EPIPE);
	assert_int_equal(o->u[1].actual, 0);
	assert_int_equal(o->r[1].req.status, -USB_EINPROGRESS);
	assert_int_equal(o->r[1].req.actual, 0);
	assert_int_equal(udcx__ep_queued(&o->ep), 1);

	/* Clear: the next transfer gets the request's data. */
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_CLEAR, &o->done), 0);
	set_urb(o, 2, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[2], &o->done), 0);
	assert_int_equal(o->u[2].status, 0);
	assert_int_equal(o->u[2].actual, 10);
	assert_int_equal(o->r[1].req.status, 0);
	free(o);
}

static void test_xfer_halt_out_keeps_requests(void **state)
{
	struct one *o = one_new(false, 512);

	(void)state;
	set_req(o, 0, 512);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), 0);
	/* OUT may halt with requests queued. */
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_SET, &o->done), 0);
	set_urb(o, 0, 512, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), 0);
	assert_int_equal(o->u[0].status, -USB_EPIPE);
	assert_int_equal(o->r[0].req.status, -USB_EINPROGRESS);
	assert_int_equal(udcx__ep_set_halt(&o->ep, USB_EP_HALT_CLEAR, &o->done), 0);
	set_urb(o, 1, 512, 0);
	memset(o->ub[1], 0xa5, 512);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_int_equal(o->u[1].status, 0);
	assert_int_equal(o->r[0].req.actual, 512);
	assert_int_equal(o->rb[0][511], 0xa5);
	free(o);
}

static void test_xfer_unlink(void **state)
{
	struct one *o = one_new(true, 64);

	(void)state;
	/* A pending, partly filled transfer: unlinked with what it got. */
	set_urb(o, 0, 256, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), 0);
	set_req(o, 0, 100);
	for (int k = 0; k < 100; k++)
		o->rb[0][k] = (uint8_t)k;
	set_req(o, 1, 64);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[1 - 1], &o->done), 0);
	/* 100 bytes = 64 + 36: the short packet ended it. */
	assert_int_equal(o->u[0].status, 0);
	assert_int_equal(o->u[0].actual, 100);
	/* Unlinking a finished transfer reports it. */
	assert_int_equal(udcx__urb_unlink(&o->ep, &o->u[0]), -USB_EALREADY);

	set_urb(o, 1, 256, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[1], &o->done), 0);
	assert_true(o->u[1].pending);
	assert_int_equal(o->u[1].actual, 64);
	assert_int_equal(udcx__urb_unlink(&o->ep, &o->u[1]), 0);
	assert_int_equal(o->u[1].status, -USB_ECONNRESET);
	assert_int_equal(o->u[1].actual, 64);
	assert_false(o->u[1].pending);
	assert_false(on_list(&o->done.urbs, &o->u[1].node));
	assert_int_equal(udcx__ep_pending(&o->ep), 0);
	assert_int_equal(udcx__urb_unlink(&o->ep, &o->u[1]), -USB_EALREADY);
	/* Never submitted. */
	set_urb(o, 2, 64, 0);
	assert_int_equal(udcx__urb_unlink(&o->ep, &o->u[2]), -USB_EALREADY);
	free(o);
}

static void test_xfer_unlink_keeps_request_offset(void **state)
{
	struct one *o = one_new(true, 64);

	(void)state;
	set_req(o, 0, 192);
	for (int k = 0; k < 192; k++)
		o->rb[0][k] = (uint8_t)k;
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), 0);
	set_urb(o, 0, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), 0);
	assert_int_equal(o->u[0].actual, 64);
	/* The second transfer continues the request. */
	set_urb(o, 1, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_int_equal(o->ub[1][0], 64);
	assert_int_equal(o->ub[1][63], 127);
	assert_int_equal(o->r[0].req.actual, 128);
	assert_int_equal(o->r[0].req.status, -USB_EINPROGRESS);
	free(o);
}

static void test_xfer_dequeue(void **state)
{
	struct one *o = one_new(false, 64);

	(void)state;
	set_req(o, 0, 256);
	set_req(o, 1, 256);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), 0);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[1], &o->done), 0);
	/* Already queued: refused. */
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), -USB_EINVAL);
	set_urb(o, 0, 128, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), 0);
	assert_int_equal(o->r[0].req.actual, 128);
	/* Dequeue keeps what arrived. */
	assert_int_equal(udcx__ep_dequeue(&o->ep, &o->r[0], &o->done), 0);
	assert_int_equal(o->r[0].req.status, -USB_ECONNRESET);
	assert_int_equal(o->r[0].req.actual, 128);
	assert_true(on_list(&o->done.reqs, &o->r[0].node));
	assert_int_equal(udcx__ep_dequeue(&o->ep, &o->r[0], &o->done), -USB_EINVAL);
	/* A transfer waiting for a request goes to the next one. */
	set_urb(o, 1, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_int_equal(o->r[1].req.actual, 64);
	assert_int_equal(o->u[1].status, 0);
	free(o);
}

static void test_xfer_flush(void **state)
{
	struct one *o = one_new(true, 64);
	struct list_head mine;

	(void)state;
	INIT_LIST_HEAD(&mine);
	set_req(o, 0, 64);
	set_req(o, 1, 64);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), 0);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[1], &o->done), 0);
	set_urb(o, 0, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), 0);
	assert_int_equal(o->r[0].req.status, 0);
	/* r0 finished but not given back: take it as a disable would. */
	udcx__done_take_ep(&o->done, &o->ep, &mine);
	assert_true(on_list(&mine, &o->r[0].node));
	assert_true(list_empty(&o->done.reqs));

	set_urb(o, 1, 64, 0);
	set_urb(o, 2, 64, 0);
	udcx__ep_disable(&o->ep, &o->done);
	assert_int_equal(o->r[1].req.status, -USB_ESHUTDOWN);
	assert_false(udcx__ep_is_enabled(&o->ep));
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[2], &o->done), -USB_ESHUTDOWN);
	/* Transfers wait on a disabled endpoint until flushed. */
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_true(o->u[1].pending);
	udcx__ep_flush_urbs(&o->ep, -USB_ESHUTDOWN, &o->done);
	assert_int_equal(o->u[1].status, -USB_ESHUTDOWN);
	assert_int_equal(udcx__ep_pending(&o->ep), 0);
	/* Re-enabled with another packet size, a pending transfer is served. */
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[2], &o->done), 0);
	assert_int_equal(udcx__ep_enable(&o->ep, true, 8), 0);
	set_req(o, 3, 20);
	set_urb(o, 3, 0, 0);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[3], &o->done), 0);
	assert_int_equal(o->u[2].actual, 20);
	assert_int_equal(o->u[2].status, 0);
	/* done_take_req finds one request. */
	assert_true(udcx__done_take_req(&o->done, &o->r[3], &mine));
	assert_false(udcx__done_take_req(&o->done, &o->r[3], &mine));
	free(o);
}

static void test_xfer_bad_arguments(void **state)
{
	struct one *o = one_new(true, 64);
	struct udcx_ep ep0;
	struct usb_ep g0;

	(void)state;
	o->r[0].req.buf = NULL;
	set_req(o, 0, 10);
	assert_int_equal(udcx__ep_queue(&o->ep, &o->r[0], &o->done), -USB_EINVAL);
	udcx__urb_init(&o->u[0], NULL, 10, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[0], &o->done), -USB_EINVAL);
	set_urb(o, 1, 64, 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), 0);
	assert_int_equal(udcx__urb_submit(&o->ep, &o->u[1], &o->done), -USB_EINVAL);
	assert_int_equal(udcx__ep_enable(&o->ep, true, 0), -USB_EINVAL);
	udcx__ep_init(&ep0, &g0, true, 64);
	assert_int_equal(udcx__urb_submit(&ep0, &o->u[2], &o->done), -USB_EINVAL);
	assert_int_equal(udcx__ctrl_submit(&o->ep, &o->u[2], &o->done), -USB_EINVAL);
	assert_int_equal(udcx__ep_enable(&ep0, true, 64), -USB_EINVAL);
	assert_true(udcx__done_empty(&o->done));
	free(o);
}

/* ---- control ------------------------------------------------------------ */

struct ctl {
	struct usb_ep g0;
	struct udcx_ep ep0;
	struct udcx_done done;
	struct udcx_req r[3];
	uint8_t rb[3][1024];
	struct udcx_urb u[3];
	uint8_t ub[3][1024];
};

static struct ctl *ctl_new(unsigned mp)
{
	struct ctl *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	udcx__ep_init(&c->ep0, &c->g0, true, mp);
	udcx__done_init(&c->done);
	for (int i = 0; i < 3; i++) {
		udcx__req_init(&c->r[i]);
		c->r[i].req.buf = c->rb[i];
	}
	return c;
}

static struct udcx_urb *ctl_submit(struct ctl *c, int i, uint8_t type, uint16_t wlength,
				   size_t buflen)
{
	struct udcx_urb *u = &c->u[i];

	udcx__urb_init(u, c->ub[i], buflen, 0);
	u->setup.bRequestType = type;
	u->setup.bRequest = 0x42;
	u->setup.wLength = USB_CPU_TO_LE16(wlength);
	assert_int_equal(udcx__ctrl_submit(&c->ep0, u, &c->done), 0);
	return u;
}

static void test_xfer_ctrl_in(void **state)
{
	struct ctl *c = ctl_new(64);
	struct udcx_urb *u = ctl_submit(c, 0, USB_DIR_IN | USB_TYPE_VENDOR, 64, 64);

	(void)state;
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	/* Only one at a time. */
	assert_null(udcx__ctrl_next_setup(&c->ep0, &c->done));
	c->r[0].req.length = 18;
	memset(c->rb[0], 0x12, 18);
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[0], &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(u->status, 0);
	assert_int_equal(u->actual, 18);
	assert_int_equal(c->ub[0][17], 0x12);
	assert_int_equal(c->r[0].req.status, 0);
	assert_null(udcx__ctrl_current(&c->ep0));

	/* wLength reached with a ZLP still due: the status stage ends the
	 * request. */
	u = ctl_submit(c, 1, USB_DIR_IN | USB_TYPE_VENDOR, 64, 64);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	c->r[1].req.length = 64;
	c->r[1].req.zero = 1;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[1], &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(u->status, 0);
	assert_int_equal(u->actual, 64);
	assert_int_equal(c->r[1].req.status, 0);
	assert_int_equal(c->r[1].req.actual, 64);
	assert_int_equal(udcx__ep_queued(&c->ep0), 0);

	/* More than wLength: the host takes wLength (a multiple of mp). */
	u = ctl_submit(c, 2, USB_DIR_IN | USB_TYPE_VENDOR, 128, 1024);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	c->r[2].req.length = 300;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[2], &c->done), 0);
	assert_int_equal(u->status, 0);
	assert_int_equal(u->actual, 128);
	assert_int_equal(c->r[2].req.status, 0);
	free(c);
}

static void test_xfer_ctrl_out_and_nodata(void **state)
{
	struct ctl *c = ctl_new(8);
	struct udcx_urb *u = ctl_submit(c, 0, USB_DIR_OUT | USB_TYPE_VENDOR, 20, 20);

	(void)state;
	for (int k = 0; k < 20; k++)
		c->ub[0][k] = (uint8_t)(k + 1);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	/* Waiting for the data request (e.g. queued by another thread). */
	assert_ptr_equal(udcx__ctrl_current(&c->ep0), u);
	c->r[0].req.length = 20;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[0], &c->done), 0);
	assert_int_equal(c->r[0].req.status, 0);
	assert_int_equal(c->r[0].req.actual, 20);
	assert_int_equal(c->rb[0][19], 20);
	assert_int_equal(u->status, 0);
	assert_int_equal(u->actual, 20);
	/* The request is ahead of the transfer: given back first. */
	assert_true(on_list(&c->done.reqs, &c->r[0].node));

	/* The host's buffer is shorter than wLength: the data stage ends
	 * there and the request completes with what came. */
	u = ctl_submit(c, 2, USB_DIR_OUT | USB_TYPE_VENDOR, 20, 4);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	c->r[2].req.length = 20;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[2], &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(c->r[2].req.status, 0);
	assert_int_equal(c->r[2].req.actual, 4);
	assert_int_equal(u->status, 0);
	assert_int_equal(u->actual, 4);

	/* No data stage, delayed status: the zero-length request comes late. */
	u = ctl_submit(c, 1, USB_DIR_OUT, 0, 0);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_true(u->pending);
	c->r[1].req.length = 0;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[1], &c->done), 0);
	assert_int_equal(u->status, 0);
	assert_int_equal(c->r[1].req.status, 0);
	free(c);
}

static void status_hook(struct udcx_ep *ep)
{
	(void)ep;	/* the engine only stores it: giveback.c calls it */
}

/* With a status hook an OUT transfer waits, after its data stage, for
 * udcx__ctrl_status(); a halt in between (the completion's) stalls it. */
static void test_xfer_ctrl_out_status_after(void **state)
{
	struct ctl *c = ctl_new(8);
	struct udcx_urb *u = ctl_submit(c, 0, USB_DIR_OUT | USB_TYPE_CLASS, 12, 12);

	(void)state;
	udcx__ctrl_set_status_hook(&c->ep0, status_hook);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	c->r[0].req.length = 12;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[0], &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(c->r[0].req.actual, 12);
	assert_true(on_list(&c->done.reqs, &c->r[0].node));
	assert_true(c->r[0].status_after);
	assert_true(u->pending);
	assert_ptr_equal(udcx__ctrl_current(&c->ep0), u);
	/* No new SETUP and no data move meanwhile. */
	ctl_submit(c, 1, USB_DIR_IN, 8, 8);
	assert_null(udcx__ctrl_next_setup(&c->ep0, &c->done));
	udcx__ctrl_status(&c->ep0, &c->done);
	assert_false(u->pending);
	assert_int_equal(u->status, 0);
	assert_int_equal(u->actual, 12);
	assert_true(on_list(&c->done.urbs, &u->node));

	/* The completion halts ep0: the transfer ends stalled, and the
	 * status call that follows finds nothing to do. */
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), &c->u[1]);
	udcx__ctrl_setup_done(&c->ep0, &c->u[1], -USB_EOPNOTSUPP, &c->done);
	u = ctl_submit(c, 2, USB_DIR_OUT | USB_TYPE_CLASS, 4, 4);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	c->r[1].req.length = 2;	/* the host's 4-byte packet overflows it */
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[1], &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(c->r[1].req.status, -USB_EOVERFLOW);
	assert_true(c->r[1].status_after);
	assert_true(u->pending);
	assert_int_equal(udcx__ep_set_halt(&c->ep0, USB_EP_HALT_SET, &c->done), 0);
	assert_false(u->pending);
	assert_int_equal(u->status, -USB_EPIPE);
	udcx__ctrl_status(&c->ep0, &c->done);
	assert_int_equal(u->status, -USB_EPIPE);
	assert_null(udcx__ctrl_current(&c->ep0));
	free(c);
}

static void test_xfer_ctrl_stall(void **state)
{
	struct ctl *c = ctl_new(64);
	struct udcx_urb *u = ctl_submit(c, 0, USB_DIR_IN, 8, 8);

	(void)state;
	/* setup() failed: stall. */
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	udcx__ctrl_setup_done(&c->ep0, u, -USB_EOPNOTSUPP, &c->done);
	assert_int_equal(u->status, -USB_EPIPE);

	/* The core halts ep0 instead of queueing. */
	u = ctl_submit(c, 1, USB_DIR_OUT, 0, 0);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	assert_int_equal(udcx__ep_set_halt(&c->ep0, USB_EP_HALT_SET, &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(u->status, -USB_EPIPE);

	/* A leftover request completes with ECONNRESET at the next SETUP. */
	c->r[0].req.length = 4;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[0], &c->done), 0);
	assert_int_equal(c->r[0].req.status, -USB_EINPROGRESS);
	u = ctl_submit(c, 2, USB_DIR_IN, 4, 4);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), u);
	assert_int_equal(c->r[0].req.status, -USB_ECONNRESET);
	/* Unlink of the transfer in progress frees ep0 for the next one. */
	assert_int_equal(udcx__urb_unlink(&c->ep0, u), 0);
	assert_null(udcx__ctrl_current(&c->ep0));
	udcx__ctrl_setup_done(&c->ep0, u, 0, &c->done);
	assert_int_equal(u->status, -USB_ECONNRESET);
	assert_null(udcx__ctrl_next_setup(&c->ep0, &c->done));
	free(c);
}

static void test_xfer_ctrl_queued_in_order(void **state)
{
	struct ctl *c = ctl_new(64);
	struct udcx_urb *a = ctl_submit(c, 0, USB_DIR_IN, 2, 2);
	struct udcx_urb *b = ctl_submit(c, 1, USB_DIR_IN, 2, 2);

	(void)state;
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), a);
	c->r[0].req.length = 2;
	assert_int_equal(udcx__ep_queue(&c->ep0, &c->r[0], &c->done), 0);
	udcx__ctrl_setup_done(&c->ep0, a, 0, &c->done);
	assert_int_equal(a->status, 0);
	assert_true(b->pending);
	assert_ptr_equal(udcx__ctrl_next_setup(&c->ep0, &c->done), b);
	free(c);
}

/* ---- randomised interleavings ------------------------------------------ */

#define RN 40

static uint32_t rng_state;

static uint32_t rng(void)
{
	/* xorshift32: deterministic, seeded per round */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/*
 * Random request and transfer sizes (no babble or overflow possible:
 * transfers and OUT requests are multiples of mp), queued and submitted
 * in a random interleaving. Invariants: every request finishes exactly
 * once and in order, every transfer too, and the byte stream arrives
 * intact and in order.
 */
static void random_round(bool in, unsigned mp, uint32_t seed)
{
	struct usb_ep gep;
	struct udcx_ep ep;
	struct udcx_done done;
	static struct udcx_req r[RN];
	static struct udcx_urb u[RN];
	static uint8_t rbuf[RN][2048], ubuf[RN][4096];
	size_t sent = 0, got = 0, rtotal = 0;
	unsigned nr = 0, nu = 0, finished_r = 0, finished_u = 0;
	static uint8_t a[RN * 4096], b[RN * 4096];
	const struct list_head *pos;
	int last;

	rng_state = seed;
	udcx__ep_init(&ep, &gep, false, 0);
	udcx__done_init(&done);
	assert_int_equal(udcx__ep_enable(&ep, in, mp), 0);
	while (nr < RN || nu < RN) {
		bool do_req = nu == RN || (nr < RN && (rng() & 1));

		if (do_req) {
			unsigned len = in ? rng() % 2048 : (rng() % 4 + 1) * mp;

			if (!in && len > 2048)
				len = 2048 / mp * mp;
			udcx__req_init(&r[nr]);
			r[nr].req.buf = rbuf[nr];
			r[nr].req.length = len;
			r[nr].req.zero = in && (rng() & 1);
			if (in)
				for (unsigned k = 0; k < len; k++)
					rbuf[nr][k] = pattern(rtotal + k);
			rtotal += len;
			assert_int_equal(udcx__ep_queue(&ep, &r[nr], &done), 0);
			nr++;
		} else {
			size_t len = in ? (rng() % 8 + 1) * (size_t)mp : rng() % 4096;

			if (len > 4096)
				len = 4096 / mp * mp;
			udcx__urb_init(&u[nu], ubuf[nu], len,
				       !in && (rng() & 1) ? UDCX_URB_ZERO_PACKET : 0);
			if (!in)
				for (size_t k = 0; k < len; k++)
					ubuf[nu][k] = pattern(sent + k);
			sent += len;
			assert_int_equal(udcx__urb_submit(&ep, &u[nu], &done), 0);
			nu++;
		}
	}
	/* Order and exactly-once: each finished item is on done once. */
	last = -1;
	list_for_each(pos, &done.reqs) {
		int idx = (int)(list_entry(pos, struct udcx_req, node) - r);

		assert_true(idx > last);
		if (r[idx].req.status != 0)
			fail_msg("seed %u mp %u %s: request %d status %d", (unsigned)seed, mp,
				 in ? "IN" : "OUT", idx, r[idx].req.status);
		last = idx;
		finished_r++;
	}
	last = -1;
	list_for_each(pos, &done.urbs) {
		int idx = (int)(list_entry(pos, struct udcx_urb, node) - u);

		assert_true(idx > last);
		assert_int_equal(u[idx].status, 0);
		last = idx;
		finished_u++;
	}
	assert_int_equal(finished_r + udcx__ep_queued(&ep), nr);
	assert_int_equal(finished_u + udcx__ep_pending(&ep), nu);
	/* The streams: what left one side arrived on the other, in order. */
	{
		size_t na = 0, nb = 0;

		for (unsigned i = 0; i < nr; i++) {
			memcpy(a + na, rbuf[i], r[i].req.actual);
			na += r[i].req.actual;
		}
		for (unsigned i = 0; i < nu; i++) {
			memcpy(b + nb, ubuf[i], u[i].actual);
			nb += u[i].actual;
		}
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na ? na : 0);
		for (size_t k = 0; k < na; k++)
			if (a[k] != pattern(k))
				fail_msg("seed %u mp %u %s: byte %zu out of order", (unsigned)seed, mp,
					 in ? "IN" : "OUT", k);
		got = na;
	}
	/* Disable: the rest finish with ESHUTDOWN, transfers are flushed. */
	udcx__ep_disable(&ep, &done);
	udcx__ep_flush_urbs(&ep, -USB_ESHUTDOWN, &done);
	assert_int_equal(udcx__ep_queued(&ep), 0);
	assert_int_equal(udcx__ep_pending(&ep), 0);
	finished_r = 0;
	list_for_each(pos, &done.reqs)
		finished_r++;
	assert_int_equal(finished_r, nr);
	(void)got;
}

static void test_xfer_random_interleavings(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 200; seed++) {
		random_round(true, 64, seed);
		random_round(false, 64, seed * 7919u);
		random_round(true, 512, seed * 104729u);
		random_round(false, 512, seed * 15485863u);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xfer_table_mp64),
		cmocka_unit_test(test_xfer_table_mp512),
		cmocka_unit_test(test_xfer_halt),
		cmocka_unit_test(test_xfer_halt_out_keeps_requests),
		cmocka_unit_test(test_xfer_unlink),
		cmocka_unit_test(test_xfer_unlink_keeps_request_offset),
		cmocka_unit_test(test_xfer_dequeue),
		cmocka_unit_test(test_xfer_flush),
		cmocka_unit_test(test_xfer_bad_arguments),
		cmocka_unit_test(test_xfer_ctrl_in),
		cmocka_unit_test(test_xfer_ctrl_out_and_nodata),
		cmocka_unit_test(test_xfer_ctrl_out_status_after),
		cmocka_unit_test(test_xfer_ctrl_stall),
		cmocka_unit_test(test_xfer_ctrl_queued_in_order),
		cmocka_unit_test(test_xfer_random_interleavings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
