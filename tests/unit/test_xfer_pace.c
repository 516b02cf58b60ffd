/*
 * test_xfer_pace.c - unit tests of the pacing of interrupt endpoints
 * (src/udc/common/pace.c and xfer.c): the service interval read from
 * descriptors, and the per-endpoint schedule driven by a clock the test
 * moves by hand (so nothing here depends on real time): one transaction
 * a slot, slots that do not drift (also when data comes a little late),
 * no delay for data coming after its slot, a fresh start after an idle
 * interval, multi-packet transfers over several slots, and endpoints that
 * stay unpaced (bulk, isochronous).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "udc/common/xfer.h"

#define US 1000u
#define MS 1000000u
#define N 8

struct bench {
	struct usb_ep gep;
	struct udcx_ep ep;
	struct udcx_done done;
	struct udcx_pacer pacer;
	struct udcx_clock clock;
	uint64_t now;
	unsigned reads;		/* clock reads */
	uint8_t rb[N][1024];
	uint8_t ub[N][1024];
	struct udcx_req r[N];
	struct udcx_urb u[N];
	struct udcx_seg segs[N][4];
};

static uint64_t clock_read(void *ctx)
{
	struct bench *b = ctx;

	b->reads++;
	return b->now;
}

/* An enabled endpoint, paced at @interval ns with @packets a slot (0: not paced). */
static struct bench *bench_new(bool in, unsigned mp, uint64_t interval, unsigned packets)
{
	struct bench *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->clock = (struct udcx_clock){ clock_read, b };
	b->now = 1000u * MS;	/* an arbitrary start */
	udcx__pacer_init(&b->pacer, &b->clock);
	udcx__ep_init(&b->ep, &b->gep, false, 0);
	udcx__done_init(&b->done);
	assert_int_equal(udcx__ep_enable(&b->ep, in, mp), 0);
	if (interval)
		udcx__ep_set_pacing(&b->ep, &b->pacer, interval, packets);
	for (int i = 0; i < N; i++) {
		udcx__req_init(&b->r[i]);
		b->r[i].req.buf = b->rb[i];
		udcx__urb_init(&b->u[i], b->ub[i], 0, 0);
	}
	return b;
}

static void submit(struct bench *b, int i, size_t len)
{
	udcx__urb_init(&b->u[i], b->ub[i], len, 0);
	assert_int_equal(udcx__urb_submit(&b->ep, &b->u[i], &b->done), 0);
}

static void queue(struct bench *b, int i, unsigned len)
{
	b->r[i].req.length = len;
	assert_int_equal(udcx__ep_queue(&b->ep, &b->r[i], &b->done), 0);
}

static bool finished(const struct bench *b, int i)
{
	return !b->u[i].pending && b->u[i].status == 0;
}

/* The slot the pacer waits for (fails if it waits for none). */
static uint64_t due(const struct bench *b)
{
	uint64_t t = 0;

	assert_true(udcx__pacer_next(&b->pacer, &t));
	return t;
}

static void at(struct bench *b, uint64_t t)
{
	b->now = t;
	(void)udcx__pacer_run(&b->pacer, &b->done);
}

static void test_xfer_pace_intervals(void **state)
{
	struct usb_endpoint_descriptor d = { .bLength = USB_DT_ENDPOINT_SIZE,
					     .bDescriptorType = USB_DT_ENDPOINT,
					     .bEndpointAddress = USB_DIR_IN | 1,
					     .bmAttributes = USB_ENDPOINT_XFER_INT,
					     .wMaxPacketSize = USB_CPU_TO_LE16(64) };
	struct usb_ss_ep_comp_descriptor comp = { .bLength = USB_DT_SS_EP_COMP_SIZE,
						  .bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
						  .bMaxBurst = 2 };
	static const struct {
		enum usb_device_speed speed;
		uint8_t b;
		uint64_t ns;
	} t[] = {
		{ USB_SPEED_FULL, 1, 1 * MS },	{ USB_SPEED_FULL, 4, 4 * MS },
		{ USB_SPEED_FULL, 10, 10 * MS },	{ USB_SPEED_FULL, 255, 255 * MS },
		{ USB_SPEED_LOW, 10, 10 * MS },	{ USB_SPEED_FULL, 0, 10 * MS },
		{ USB_SPEED_HIGH, 1, 125 * US },	{ USB_SPEED_HIGH, 4, 1 * MS },
		{ USB_SPEED_HIGH, 16, 4096 * MS },	{ USB_SPEED_HIGH, 0, 8 * MS },
		{ USB_SPEED_HIGH, 32, 32 * MS },	{ USB_SPEED_SUPER, 4, 1 * MS },
		{ USB_SPEED_SUPER_PLUS, 1, 125 * US },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		d.bInterval = t[i].b;
		if (udcx__interval_ns(&d, t[i].speed) != t[i].ns)
			fail_msg("speed %d bInterval %u: %llu ns, expected %llu", (int)t[i].speed,
				 t[i].b, (unsigned long long)udcx__interval_ns(&d, t[i].speed),
				 (unsigned long long)t[i].ns);
	}
	/* Packets a slot: 1 at full speed; high-bandwidth mult; SS burst. */
	d.wMaxPacketSize = USB_CPU_TO_LE16(1024 | 2u << 11);
	assert_int_equal(udcx__interval_packets(&d, NULL, USB_SPEED_FULL), 1);
	assert_int_equal(udcx__interval_packets(&d, NULL, USB_SPEED_HIGH), 3);
	assert_int_equal(udcx__interval_packets(&d, &comp, USB_SPEED_SUPER), 3);
	assert_int_equal(udcx__interval_packets(&d, NULL, USB_SPEED_SUPER), 1);
	/* Only interrupt endpoints have one. */
	d.bInterval = 1;
	d.bmAttributes = USB_ENDPOINT_XFER_BULK;
	assert_int_equal(udcx__interval_ns(&d, USB_SPEED_HIGH), 0);
	d.bmAttributes = USB_ENDPOINT_XFER_ISOC;
	assert_int_equal(udcx__interval_ns(&d, USB_SPEED_HIGH), 0);
	assert_int_equal(udcx__interval_ns(NULL, USB_SPEED_HIGH), 0);
}

/* Only an interrupt descriptor paces; an enable or disable turns it off. */
static void test_xfer_pace_desc(void **state)
{
	struct bench *b = bench_new(true, 64, 0, 0);
	struct usb_endpoint_descriptor d = { .bLength = USB_DT_ENDPOINT_SIZE,
					     .bDescriptorType = USB_DT_ENDPOINT,
					     .bEndpointAddress = USB_DIR_IN | 1,
					     .wMaxPacketSize = USB_CPU_TO_LE16(64),
					     .bInterval = 4 };

	(void)state;
	d.bmAttributes = USB_ENDPOINT_XFER_BULK;
	assert_false(udcx__ep_pace_desc(&b->ep, &b->pacer, &d, NULL, USB_SPEED_HIGH));
	d.bmAttributes = USB_ENDPOINT_XFER_ISOC;
	assert_false(udcx__ep_pace_desc(&b->ep, &b->pacer, &d, NULL, USB_SPEED_HIGH));
	d.bmAttributes = USB_ENDPOINT_XFER_INT;
	assert_true(udcx__ep_pace_desc(&b->ep, &b->pacer, &d, NULL, USB_SPEED_HIGH));
	assert_false(udcx__ep_pace_desc(&b->ep, NULL, &d, NULL, USB_SPEED_HIGH));
	assert_true(udcx__ep_pace_desc(&b->ep, &b->pacer, &d, NULL, USB_SPEED_HIGH));
	udcx__ep_disable(&b->ep, &b->done);
	assert_false(udcx__ep_is_paced(&b->ep));
	assert_int_equal(udcx__ep_enable(&b->ep, true, 64), 0);
	assert_false(udcx__ep_is_paced(&b->ep));
	free(b);
}

/*
 * The schedule: the first transfer at once; the next one interval later,
 * not before; a late slot does not move the grid (previous slot +
 * interval); after an idle spell longer than an interval, at once again.
 */
static void test_xfer_pace_schedule(void **state)
{
	struct bench *b = bench_new(true, 64, 4 * MS, 1);
	uint64_t t0 = b->now;

	(void)state;
	submit(b, 0, 64);
	queue(b, 0, 8);
	assert_true(finished(b, 0));	/* idle endpoint: no wait */
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));

	submit(b, 1, 64);
	queue(b, 1, 8);
	assert_true(b->u[1].pending);
	assert_true(b->r[1].req.status == -USB_EINPROGRESS && b->r[1].req.actual == 0);
	assert_true(due(b) == t0 + 4 * MS);
	at(b, t0 + 4 * MS - 1);
	assert_true(b->u[1].pending);
	at(b, t0 + 4 * MS + 3 * MS);	/* served late, by 3 ms */
	assert_true(finished(b, 1));
	assert_int_equal(b->r[1].req.status, 0);
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));

	/* The grid holds: the next slot is at 8 ms, 1 ms away, not 4. */
	submit(b, 2, 64);
	queue(b, 2, 8);
	assert_true(b->u[2].pending);
	assert_true(due(b) == t0 + 8 * MS);
	at(b, t0 + 8 * MS);
	assert_true(finished(b, 2));

	/* Waiting for data past its slot (12 ms): moves the moment data
	 * comes, and the grid holds (next slot 16 ms). */
	submit(b, 3, 64);
	b->now = t0 + 13 * MS;
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));	/* nothing to move */
	queue(b, 3, 8);
	assert_true(finished(b, 3));
	submit(b, 6, 64);
	queue(b, 6, 8);
	assert_true(due(b) == t0 + 16 * MS);
	at(b, t0 + 16 * MS);
	assert_true(finished(b, 6));

	/* Idle a whole interval past its slot (20 ms): at once, and the
	 * schedule starts again from there. */
	submit(b, 7, 64);
	b->now = t0 + 24 * MS + 500 * US;
	queue(b, 7, 8);
	assert_true(finished(b, 7));
	t0 += 24 * MS + 500 * US - 13 * MS;	/* the cases below as from 13 ms */
	submit(b, 4, 64);
	queue(b, 4, 8);
	assert_true(due(b) == t0 + 17 * MS);

	/* Data comes within its interval: it waits the rest of it only. */
	at(b, t0 + 17 * MS);
	assert_true(finished(b, 4));
	submit(b, 5, 64);
	b->now = t0 + 19 * MS;
	queue(b, 5, 8);
	assert_true(b->u[5].pending);
	assert_true(due(b) == t0 + 21 * MS);
	at(b, t0 + 21 * MS);
	assert_true(finished(b, 5));
	free(b);
}

/* n transfers queued at once take n - 1 intervals, exactly, and the
 * requests complete with their transactions. */
static void test_xfer_pace_burst(void **state)
{
	struct bench *b = bench_new(true, 64, 125 * US, 1);
	uint64_t t0 = b->now, last = 0;
	int served = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		submit(b, i, 64);
		queue(b, i, 8);
	}
	assert_true(finished(b, 0));
	while (udcx__pacer_next(&b->pacer, &last)) {
		served++;
		assert_true(last == t0 + (uint64_t)served * 125 * US);
		at(b, last);
		for (int i = 0; i < N; i++) {
			assert_int_equal(finished(b, i), i <= served);
			assert_int_equal(b->r[i].req.status == 0, i <= served);
		}
	}
	assert_int_equal(served, N - 1);
	free(b);
}

/* A backend waking up intervals late serves one transaction, not the
 * slots it missed in a burst; the schedule goes on from then. */
static void test_xfer_pace_no_catch_up(void **state)
{
	struct bench *b = bench_new(true, 64, 1 * MS, 1);
	uint64_t t0 = b->now;

	(void)state;
	for (int i = 0; i < 4; i++) {
		submit(b, i, 64);
		queue(b, i, 8);
	}
	assert_true(finished(b, 0) && b->u[1].pending);
	at(b, t0 + 10 * MS);
	assert_true(finished(b, 1) && b->u[2].pending);
	assert_true(due(b) == t0 + 11 * MS);
	at(b, t0 + 11 * MS + 100 * US);	/* late a little: the grid holds */
	assert_true(finished(b, 2) && b->u[3].pending);
	assert_true(due(b) == t0 + 12 * MS);
	free(b);
}

/* A transfer of 3 packets takes 3 slots at 1 packet a slot, one with a
 * high-bandwidth endpoint's 3; a short packet ends the transaction. */
static void test_xfer_pace_packets(void **state)
{
	struct bench *b = bench_new(true, 64, 1 * MS, 1);
	uint64_t t0 = b->now;

	(void)state;
	for (int i = 0; i < 192; i++)
		b->rb[0][i] = (uint8_t)i;
	submit(b, 0, 192);
	queue(b, 0, 192);
	assert_int_equal(b->u[0].actual, 64);
	assert_true(b->u[0].pending && b->r[0].req.status == -USB_EINPROGRESS);
	at(b, t0 + 1 * MS);
	assert_int_equal(b->u[0].actual, 128);
	at(b, t0 + 2 * MS);
	assert_true(finished(b, 0));
	assert_int_equal(b->u[0].actual, 192);
	assert_int_equal(b->r[0].req.status, 0);
	assert_memory_equal(b->ub[0], b->rb[0], 192);
	free(b);

	b = bench_new(true, 64, 1 * MS, 3);
	t0 = b->now;
	submit(b, 0, 192);
	queue(b, 0, 192);
	assert_true(finished(b, 0));
	/* 3 packets a slot, but the short one ends the transaction. */
	submit(b, 1, 192);
	queue(b, 1, 10);
	submit(b, 2, 192);
	queue(b, 2, 10);
	assert_true(b->u[1].pending);
	at(b, t0 + 1 * MS);
	assert_true(finished(b, 1) && b->u[2].pending);
	at(b, t0 + 2 * MS);
	assert_true(finished(b, 2));
	free(b);
}

/* Interrupt OUT: one transaction a slot too; the request that takes it
 * completes then. */
static void test_xfer_pace_out(void **state)
{
	struct bench *b = bench_new(false, 8, 10 * MS, 1);
	uint64_t t0 = b->now;

	(void)state;
	for (int i = 0; i < 3; i++) {
		memset(b->ub[i], 'a' + i, 8);
		submit(b, i, 8);
		queue(b, i, 8);
	}
	assert_true(finished(b, 0));
	assert_true(b->u[1].pending && b->r[1].req.status == -USB_EINPROGRESS);
	at(b, t0 + 10 * MS);
	assert_true(finished(b, 1) && b->r[1].req.status == 0 && b->u[2].pending);
	assert_memory_equal(b->rb[1], "bbbbbbbb", 8);
	at(b, t0 + 20 * MS);
	assert_true(finished(b, 2));
	free(b);
}

/* A gathering IN transfer cut at its slot gives back the request it
 * finished (the function needs it to queue the rest), with the bytes. */
static void test_xfer_pace_gather_cut(void **state)
{
	struct bench *b = bench_new(true, 64, 1 * MS, 1);

	(void)state;
	memset(b->rb[0], 0x5a, 64);
	udcx__urb_init(&b->u[0], b->ub[0], 256, 0);
	udcx__urb_set_gather(&b->u[0], b->segs[0], 4);
	assert_int_equal(udcx__urb_submit(&b->ep, &b->u[0], &b->done), 0);
	queue(b, 0, 64);	/* one full packet: the transfer goes on */
	assert_int_equal(b->r[0].req.status, 0);
	assert_true(list_empty(&b->u[0].held));
	queue(b, 1, 10);
	assert_true(b->u[0].pending);	/* its next packet waits a slot */
	at(b, due(b));
	assert_true(finished(b, 0));
	assert_int_equal(b->u[0].actual, 74);
	udcx__urb_release(&b->u[0], &b->done);
	free(b);
}

/* Going away while held: off the pacer (no stale entry, no wakeup). */
static void test_xfer_pace_release(void **state)
{
	struct bench *b = bench_new(true, 64, 1 * MS, 1);

	(void)state;
	submit(b, 0, 64);
	queue(b, 0, 8);
	submit(b, 1, 64);
	queue(b, 1, 8);
	(void)due(b);
	assert_int_equal(udcx__urb_unlink(&b->ep, &b->u[1]), 0);
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));
	submit(b, 2, 64);
	(void)due(b);
	assert_int_equal(udcx__ep_set_halt(&b->ep, USB_EP_HALT_HOST, &b->done), 0);
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));
	assert_int_equal(udcx__ep_set_halt(&b->ep, USB_EP_HALT_CLEAR, &b->done), 0);
	submit(b, 3, 64);
	(void)due(b);
	udcx__ep_disable(&b->ep, &b->done);
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));
	free(b);
}

/* Bulk (and any endpoint not paced) never reads the clock or waits. */
static void test_xfer_pace_bulk_unpaced(void **state)
{
	struct bench *b = bench_new(true, 512, 0, 0);

	(void)state;
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < N; i++) {
			submit(b, i, 512);
			queue(b, i, 512);
			assert_true(finished(b, i));
			list_del_init(&b->r[i].node);	/* off done, to queue again */
		}
		udcx__done_init(&b->done);
	}
	assert_int_equal(b->reads, 0);
	assert_false(udcx__pacer_next(&b->pacer, &(uint64_t){ 0 }));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xfer_pace_intervals),
		cmocka_unit_test(test_xfer_pace_desc),
		cmocka_unit_test(test_xfer_pace_schedule),
		cmocka_unit_test(test_xfer_pace_burst),
		cmocka_unit_test(test_xfer_pace_no_catch_up),
		cmocka_unit_test(test_xfer_pace_packets),
		cmocka_unit_test(test_xfer_pace_out),
		cmocka_unit_test(test_xfer_pace_gather_cut),
		cmocka_unit_test(test_xfer_pace_release),
		cmocka_unit_test(test_xfer_pace_bulk_unpaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
