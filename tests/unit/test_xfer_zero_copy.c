/*
 * test_xfer_zero_copy.c - the transfer engine's zero-copy paths
 * (src/udc/common/xfer.h), driven directly: an OUT transfer streamed
 * straight into the head request, an IN transfer gathered from request
 * buffers, and what happens to borrowed bytes when requests leave the
 * queue early (dequeue, disable). The packet rules themselves are run
 * through these paths by test_xfer's tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "udc/common/xfer.h"

struct zc {
	struct usb_ep gep;
	struct udcx_ep ep;
	struct udcx_done done;
	uint8_t rb[3][1024];
	uint8_t ub[2][1024];
	uint8_t src[1024];
	struct udcx_req r[3];
	struct udcx_urb u[2];
	struct udcx_seg segs[2][8];
};

static struct zc *zc_new(bool in, unsigned mp)
{
	struct zc *z = calloc(1, sizeof(*z));

	assert_non_null(z);
	udcx__ep_init(&z->ep, &z->gep, false, 0);
	udcx__done_init(&z->done);
	assert_int_equal(udcx__ep_enable(&z->ep, in, mp), 0);
	for (int i = 0; i < 3; i++) {
		udcx__req_init(&z->r[i]);
		z->r[i].req.buf = z->rb[i];
	}
	for (size_t k = 0; k < sizeof(z->src); k++)
		z->src[k] = (uint8_t)(k * 13u + 1u);
	return z;
}

/* The first window of @u (its pointer in *@dst), and its length. */
static size_t window(struct zc *z, struct udcx_urb *u, uint8_t **dst)
{
	struct udcx_window w;

	if (udcx__urb_rx_windows(&z->ep, u, &w, 1) == 0)
		return 0;
	*dst = w.p;
	return w.len;
}

static bool on_list(const struct list_head *head, const struct list_head *node)
{
	const struct list_head *pos;

	for (pos = head->next; pos != head; pos = pos->next)
		if (pos == node)
			return true;
	return false;
}

/* Deliver @n bytes of @u (from z->src at its arrival offset). */
static void arrive(struct zc *z, struct udcx_urb *u, size_t n)
{
	uint8_t *dst;
	size_t room = window(z, u, &dst);

	assert_true(n <= room);
	memcpy(dst, z->src + u->arrived, n);
	udcx__urb_rx_commit(&z->ep, u, n, &z->done);
}

static void test_xfer_stream_lands_in_request(void **state)
{
	struct zc *z = zc_new(false, 64);
	uint8_t *dst;

	(void)state;
	z->r[0].req.length = 256;
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 256, 0);
	assert_int_equal(udcx__urb_submit_stream(&z->ep, &z->u[0], &z->done), 0);
	/* The whole transfer fits the request: one window, in the request. */
	assert_int_equal(window(z, &z->u[0], &dst), 256);
	assert_ptr_equal(dst, z->rb[0]);
	arrive(z, &z->u[0], 100);	/* a packet and a part */
	assert_int_equal(z->r[0].req.actual, 64);
	assert_int_equal(window(z, &z->u[0], &dst), 156);
	assert_ptr_equal(dst, z->rb[0] + 100);
	arrive(z, &z->u[0], 156);
	assert_int_equal(z->u[0].status, 0);
	assert_int_equal(z->r[0].req.status, 0);
	assert_int_equal(z->r[0].req.actual, 256);
	assert_memory_equal(z->rb[0], z->src, 256);
	/* Nothing went through the transfer's own buffer. */
	for (int k = 0; k < 256; k++)
		assert_int_equal(z->ub[0][k], 0);
	assert_int_equal(window(z, &z->u[0], &dst), 0);
	free(z);
}

/* Deliver all of @u through scattered windows, @chunk bytes at a time. */
static void arrive_scattered(struct zc *z, struct udcx_urb *u, size_t chunk)
{
	struct udcx_window win[4];
	size_t nw;

	while ((nw = udcx__urb_rx_windows(&z->ep, u, win, 4)) > 0) {
		size_t put = 0;

		for (size_t k = 0; k < nw && put < chunk; k++) {
			size_t m = chunk - put < win[k].len ? chunk - put : win[k].len;

			memcpy(win[k].p, z->src + u->arrived + put, m);
			put += m;
		}
		udcx__urb_rx_commit(&z->ep, u, put, &z->done);
	}
}

static void test_xfer_stream_scatters_over_requests(void **state)
{
	struct zc *z = zc_new(false, 64);
	struct udcx_window win[4];

	(void)state;
	for (int i = 0; i < 3; i++) {
		z->r[i].req.length = 128;
		assert_int_equal(udcx__ep_queue(&z->ep, &z->r[i], &z->done), 0);
	}
	udcx__urb_init(&z->u[0], z->ub[0], 320, 0);
	assert_int_equal(udcx__urb_submit_stream(&z->ep, &z->u[0], &z->done), 0);
	/* Three requests filled exactly in turn: three windows, 128 + 128 + 64. */
	assert_int_equal(udcx__urb_rx_windows(&z->ep, &z->u[0], win, 4), 3);
	assert_ptr_equal(win[0].p, z->rb[0]);
	assert_ptr_equal(win[1].p, z->rb[1]);
	assert_ptr_equal(win[2].p, z->rb[2]);
	assert_int_equal(win[2].len, 64);
	arrive_scattered(z, &z->u[0], 100);
	assert_int_equal(z->u[0].status, 0);
	assert_memory_equal(z->rb[0], z->src, 128);
	assert_memory_equal(z->rb[1], z->src + 128, 128);
	assert_memory_equal(z->rb[2], z->src + 256, 64);
	for (int k = 0; k < 320; k++)
		assert_int_equal(z->ub[0][k], 0);
	free(z);
}

static void test_xfer_stream_overflow_stops_the_windows(void **state)
{
	struct zc *z = zc_new(false, 64);
	struct udcx_window win[4];

	(void)state;
	z->r[0].req.length = 74;	/* a packet and 10 bytes */
	z->r[1].req.length = 64;
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[1], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 192, 0);
	assert_int_equal(udcx__urb_submit_stream(&z->ep, &z->u[0], &z->done), 0);
	/* Packet 2 is r[0]'s and overflows it: no window reaches r[1]. */
	assert_int_equal(udcx__urb_rx_windows(&z->ep, &z->u[0], win, 4), 1);
	assert_int_equal(win[0].len, 64);
	arrive_scattered(z, &z->u[0], 192);
	assert_int_equal(z->r[0].req.status, -USB_EOVERFLOW);
	assert_int_equal(z->r[0].req.actual, 74);
	assert_memory_equal(z->rb[0], z->src, 74);
	assert_int_equal(z->r[1].req.actual, 64);
	assert_memory_equal(z->rb[1], z->src + 128, 64);	/* packet 3 */
	free(z);
}

static void test_xfer_stream_without_request_bounces(void **state)
{
	struct zc *z = zc_new(false, 64);
	uint8_t *dst;

	(void)state;
	udcx__urb_init(&z->u[0], z->ub[0], 200, 0);
	assert_int_equal(udcx__urb_submit_stream(&z->ep, &z->u[0], &z->done), 0);
	assert_int_equal(window(z, &z->u[0], &dst), 200);
	assert_ptr_equal(dst, z->ub[0]);
	arrive(z, &z->u[0], 70);
	/* A request now: the bytes waiting go first, through its buffer... */
	z->r[0].req.length = 512;
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	assert_int_equal(z->r[0].req.actual, 64);
	/* ... and the packet in progress keeps arriving where it began. */
	assert_int_equal(window(z, &z->u[0], &dst), 130);
	assert_ptr_equal(dst, z->ub[0] + 70);
	arrive(z, &z->u[0], 130);
	assert_int_equal(z->u[0].status, 0);
	assert_int_equal(z->r[0].req.actual, 200);
	assert_memory_equal(z->rb[0], z->src, 200);
	free(z);
}

static void test_xfer_stream_dequeue_mid_packet(void **state)
{
	struct zc *z = zc_new(false, 64);

	(void)state;
	z->r[0].req.length = 256;
	z->r[1].req.length = 256;
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 256, 0);
	assert_int_equal(udcx__urb_submit_stream(&z->ep, &z->u[0], &z->done), 0);
	arrive(z, &z->u[0], 100);	/* 36 bytes of packet 2 sit in r[0] */
	assert_int_equal(udcx__ep_dequeue(&z->ep, &z->r[0], &z->done), 0);
	assert_int_equal(z->r[0].req.status, -USB_ECONNRESET);
	assert_int_equal(z->r[0].req.actual, 64);
	/* r[0]'s buffer is the function's again: scribble over it. */
	memset(z->rb[0], 0xee, sizeof(z->rb[0]));
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[1], &z->done), 0);
	arrive(z, &z->u[0], 156);
	assert_int_equal(z->u[0].status, 0);
	assert_int_equal(z->r[1].req.actual, 192);
	assert_memory_equal(z->rb[1], z->src + 64, 192);
	free(z);
}

static void test_xfer_stream_halt_keeps_receiving(void **state)
{
	struct zc *z = zc_new(false, 64);
	uint8_t *dst;

	(void)state;
	z->r[0].req.length = 256;
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 256, 0);
	assert_int_equal(udcx__urb_submit_stream(&z->ep, &z->u[0], &z->done), 0);
	arrive(z, &z->u[0], 100);
	assert_int_equal(udcx__ep_set_halt(&z->ep, USB_EP_HALT_SET, &z->done), 0);
	assert_int_equal(z->u[0].status, -USB_EPIPE);
	/* The rest still has to come off the wire: into the own buffer. */
	assert_int_equal(window(z, &z->u[0], &dst), 156);
	assert_ptr_equal(dst, z->ub[0] + 100);
	arrive(z, &z->u[0], 156);
	assert_int_equal(z->r[0].req.actual, 64);
	assert_int_equal(z->r[0].req.status, -USB_EINPROGRESS);
	free(z);
}

static void test_xfer_gather_holds_until_release(void **state)
{
	struct zc *z = zc_new(true, 64);

	(void)state;
	z->r[0].req.length = 100;
	z->r[1].req.length = 64;
	memcpy(z->rb[0], z->src, 100);
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 512, 0);
	udcx__urb_set_gather(&z->u[0], z->segs[0], 8);
	assert_int_equal(udcx__urb_submit(&z->ep, &z->u[0], &z->done), 0);
	/* Ended by the short packet; its bytes are the request's own. */
	assert_int_equal(z->u[0].status, 0);
	assert_int_equal(z->u[0].actual, 100);
	assert_int_equal(z->u[0].seg_count, 1);
	assert_ptr_equal(z->u[0].segs[0].p, z->rb[0]);
	assert_true(z->u[0].segs[0].borrowed);
	/* Finished, but not given back until the bytes are sent. */
	assert_int_equal(z->r[0].req.status, 0);
	assert_false(on_list(&z->done.reqs, &z->r[0].node));
	udcx__urb_release(&z->u[0], &z->done);
	assert_true(on_list(&z->done.reqs, &z->r[0].node));
	free(z);
}

static void test_xfer_gather_disable_copies_borrowed(void **state)
{
	struct zc *z = zc_new(true, 64);
	struct udcx_done flushed;

	(void)state;
	udcx__done_init(&flushed);
	z->r[0].req.length = 192;
	memcpy(z->rb[0], z->src, 192);
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 128, 0);
	udcx__urb_set_gather(&z->u[0], z->segs[0], 8);
	assert_int_equal(udcx__urb_submit(&z->ep, &z->u[0], &z->done), 0);
	assert_int_equal(z->u[0].status, 0);
	assert_int_equal(z->r[0].req.actual, 128);	/* still queued */
	/* The endpoint goes away before the transfer's bytes were sent. */
	udcx__ep_disable(&z->ep, &flushed);
	assert_true(on_list(&flushed.reqs, &z->r[0].node));
	assert_int_equal(z->r[0].req.status, -USB_ESHUTDOWN);
	memset(z->rb[0], 0xee, sizeof(z->rb[0]));
	assert_false(z->u[0].segs[0].borrowed);
	assert_ptr_equal(z->u[0].segs[0].p, z->ub[0]);
	assert_memory_equal(z->ub[0], z->src, 128);
	udcx__urb_release(&z->u[0], &z->done);	/* nothing left to give */
	assert_true(list_empty(&z->done.reqs));
	free(z);
}

static void test_xfer_gather_dequeue_of_held_request(void **state)
{
	struct zc *z = zc_new(true, 64);

	(void)state;
	z->r[0].req.length = 64;
	z->r[1].req.length = 64;
	memcpy(z->rb[0], z->src, 64);
	memcpy(z->rb[1], z->src + 64, 64);
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[0], &z->done), 0);
	assert_int_equal(udcx__ep_queue(&z->ep, &z->r[1], &z->done), 0);
	udcx__urb_init(&z->u[0], z->ub[0], 128, 0);
	udcx__urb_set_gather(&z->u[0], z->segs[0], 8);
	assert_int_equal(udcx__urb_submit(&z->ep, &z->u[0], &z->done), 0);
	assert_int_equal(z->u[0].actual, 128);
	/* Both held; dequeue of one completes it with its status, copying
	 * the transfer's bytes first. */
	assert_int_equal(udcx__ep_dequeue(&z->ep, &z->r[1], &z->done), 0);
	assert_int_equal(z->r[1].req.status, 0);
	assert_true(on_list(&z->done.reqs, &z->r[0].node));
	assert_true(on_list(&z->done.reqs, &z->r[1].node));
	memset(z->rb[0], 0xee, 64);
	memset(z->rb[1], 0xee, 64);
	/* Two runs (two buffers), now both in the transfer's own buffer. */
	assert_int_equal(z->u[0].seg_count, 2);
	assert_ptr_equal(z->u[0].segs[1].p, z->ub[0] + 64);
	assert_memory_equal(z->ub[0], z->src, 128);
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xfer_stream_lands_in_request),
		cmocka_unit_test(test_xfer_stream_scatters_over_requests),
		cmocka_unit_test(test_xfer_stream_overflow_stops_the_windows),
		cmocka_unit_test(test_xfer_stream_without_request_bounces),
		cmocka_unit_test(test_xfer_stream_dequeue_mid_packet),
		cmocka_unit_test(test_xfer_stream_halt_keeps_receiving),
		cmocka_unit_test(test_xfer_gather_holds_until_release),
		cmocka_unit_test(test_xfer_gather_disable_copies_borrowed),
		cmocka_unit_test(test_xfer_gather_dequeue_of_held_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
