/*
 * test_usbip_xfer_iso.c - the transfer engine's isochronous transfers
 * (udcx__urb_set_iso(), src/udc/common/xfer.c), which the USB/IP backend
 * maps ISO URBs onto: one request per packet, IN babble per packet, OUT
 * overflow per request, waiting for requests, unlink, bad descriptors and
 * layouts; and the backend's packing of finished IN packets
 * (usbip__urb_iso_finish()), which must stay inside the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "udc/common/xfer.h"
#include "udc/usbip/usbip_priv.h"

struct fixture {
	struct usb_ep uep;
	struct udcx_ep ep;
	struct udcx_done done;
	struct udcx_req r[4];
	uint8_t rbuf[4][1024];
};

static void setup_ep(struct fixture *f, bool in)
{
	memset(f, 0, sizeof(*f));
	udcx__ep_init(&f->ep, &f->uep, false, 0);
	assert_int_equal(udcx__ep_enable(&f->ep, in, 1024), 0);
	udcx__done_init(&f->done);
	for (int i = 0; i < 4; i++) {
		udcx__req_init(&f->r[i]);
		f->r[i].req.buf = f->rbuf[i];
	}
}

static size_t count(const struct list_head *h)
{
	size_t n = 0;

	for (const struct list_head *p = h->next; p != h; p = p->next)
		n++;
	return n;
}

static void test_usbip_xfer_iso_in_one_request_per_packet(void **state)
{
	static struct fixture f;
	struct udcx_iso_packet pk[3] = { { 0, 512, 0, 0 }, { 512, 512, 0, 0 }, { 1024, 100, 0, 0 } };
	uint8_t buf[1124];
	struct udcx_urb u;

	(void)state;
	setup_ep(&f, true);
	for (int i = 0; i < 3; i++) {
		memset(f.rbuf[i], 0x10 + i, sizeof(f.rbuf[i]));
		f.r[i].req.length = i == 2 ? 200 : 300;	/* the third babbles */
		assert_int_equal(udcx__ep_queue(&f.ep, &f.r[i], &f.done), 0);
	}
	udcx__urb_init(&u, buf, sizeof(buf), 0);
	udcx__urb_set_iso(&u, pk, 3);
	assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), 0);
	assert_int_equal(count(&f.done.urbs), 1);
	assert_int_equal(count(&f.done.reqs), 3);
	assert_int_equal(u.status, 0);
	assert_int_equal(pk[0].actual, 300);
	assert_int_equal(pk[1].actual, 300);
	assert_int_equal(pk[2].actual, 100);
	assert_int_equal(pk[0].status, 0);
	assert_int_equal(pk[2].status, -USB_EOVERFLOW);
	assert_int_equal(u.actual, 700);
	assert_int_equal(buf[0], 0x10);
	assert_int_equal(buf[512 + 299], 0x11);
	assert_int_equal(buf[1024 + 99], 0x12);
	/* Each request went out whole in its interval. */
	assert_int_equal(f.r[2].req.actual, 200);
	assert_int_equal(f.r[2].req.status, 0);
}

static void test_usbip_xfer_iso_in_waits_for_requests(void **state)
{
	static struct fixture f;
	struct udcx_iso_packet pk[2] = { { 0, 64, 0, 0 }, { 64, 64, 0, 0 } };
	uint8_t buf[128];
	struct udcx_urb u;

	(void)state;
	setup_ep(&f, true);
	udcx__urb_init(&u, buf, sizeof(buf), 0);
	udcx__urb_set_iso(&u, pk, 2);
	assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), 0);
	assert_true(udcx__done_empty(&f.done));
	f.r[0].req.length = 10;
	assert_int_equal(udcx__ep_queue(&f.ep, &f.r[0], &f.done), 0);
	assert_int_equal(count(&f.done.urbs), 0);	/* one packet served, one to go */
	assert_int_equal(count(&f.done.reqs), 1);
	f.r[1].req.length = 0;				/* a zero-length packet */
	assert_int_equal(udcx__ep_queue(&f.ep, &f.r[1], &f.done), 0);
	assert_int_equal(count(&f.done.urbs), 1);
	assert_int_equal(u.actual, 10);
	assert_int_equal(pk[1].actual, 0);
	assert_int_equal(pk[1].status, 0);
}

static void test_usbip_xfer_iso_out_packets_to_requests(void **state)
{
	static struct fixture f;
	struct udcx_iso_packet pk[3] = { { 0, 100, 0, 0 }, { 100, 200, 0, 0 }, { 300, 50, 0, 0 } };
	uint8_t buf[350];
	struct udcx_urb u;

	(void)state;
	setup_ep(&f, false);
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	f.r[0].req.length = 1024;
	f.r[1].req.length = 150;			/* too small for packet 1 */
	f.r[2].req.length = 1024;
	for (int i = 0; i < 3; i++)
		assert_int_equal(udcx__ep_queue(&f.ep, &f.r[i], &f.done), 0);
	udcx__urb_init(&u, buf, sizeof(buf), 0);
	udcx__urb_set_iso(&u, pk, 3);
	assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), 0);
	assert_int_equal(count(&f.done.urbs), 1);
	assert_int_equal(u.actual, 350);
	assert_int_equal(f.r[0].req.actual, 100);
	assert_int_equal(f.r[0].req.status, 0);
	assert_int_equal(f.r[1].req.actual, 150);
	assert_int_equal(f.r[1].req.status, -USB_EOVERFLOW);
	assert_int_equal(f.r[2].req.actual, 50);
	assert_memory_equal(f.rbuf[1], buf + 100, 150);
	assert_memory_equal(f.rbuf[2], buf + 300, 50);
}

static void test_usbip_xfer_iso_rejects_packets_outside_buffer(void **state)
{
	static struct fixture f;
	struct udcx_iso_packet pk[2] = { { 0, 64, 0, 0 }, { 64, 65, 0, 0 } };
	uint8_t buf[128];
	struct udcx_urb u;

	(void)state;
	setup_ep(&f, true);
	udcx__urb_init(&u, buf, sizeof(buf), 0);
	udcx__urb_set_iso(&u, pk, 2);
	assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), -USB_EINVAL);
	pk[1] = (struct udcx_iso_packet){ 200, 0, 0, 0 };
	assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), -USB_EINVAL);
	pk[1] = (struct udcx_iso_packet){ 128, 0, 0, 0 };	/* empty, at the end: fine */
	assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), 0);
	/* Unlinked half-way: no completion, the served packet is kept. */
	f.r[0].req.length = 8;
	assert_int_equal(udcx__ep_queue(&f.ep, &f.r[0], &f.done), 0);
	assert_int_equal(udcx__urb_unlink(&f.ep, &u), 0);
	assert_int_equal(u.status, -USB_ECONNRESET);
	assert_int_equal(u.actual, 8);
	assert_int_equal(count(&f.done.urbs), 0);
}

/* Packets in order, apart, inside: the layouts Linux's drivers make. */
static void test_usbip_xfer_iso_layouts(void **state)
{
	static const struct {
		struct udcx_iso_packet pk[3];
		size_t n, length;
		bool valid;
	} cases[] = {
		{ { { 0, 512, 0, 0 }, { 512, 512, 0, 0 } }, 2, 1024, true },	/* contiguous */
		{ { { 0, 100, 0, 0 }, { 200, 100, 0, 0 } }, 2, 300, true },	/* a gap */
		{ { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 8, 0, 0 } }, 3, 8, true },	/* empty ones */
		{ { { 8, 0, 0, 0 } }, 1, 8, true },				/* empty, at the end */
		{ { { 0, 0, 0, 0 } }, 0, 0, true },				/* no packets */
		{ { { 0, 1024, 0, 0 }, { 0, 1024, 0, 0 } }, 2, 1024, false },	/* the same twice */
		{ { { 0, 600, 0, 0 }, { 500, 524, 0, 0 } }, 2, 1024, false },	/* overlapping */
		{ { { 512, 512, 0, 0 }, { 0, 512, 0, 0 } }, 2, 1024, false },	/* backwards */
		{ { { 0, 0, 0, 0 }, { 9, 0, 0, 0 } }, 2, 8, false },		/* past the end */
		{ { { 4, SIZE_MAX - 2, 0, 0 } }, 1, 8, false },			/* wraps */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (udcx__iso_layout_valid(cases[i].pk, cases[i].n, cases[i].length) != cases[i].valid)
			fail_msg("layout %zu: expected %s", i, cases[i].valid ? "valid" : "invalid");
	}
}

static void test_usbip_xfer_iso_rejects_overlapping_packets(void **state)
{
	static struct fixture f;
	struct udcx_iso_packet pk[4];
	uint8_t buf[1024];
	struct udcx_urb u;

	(void)state;
	for (int dir = 0; dir < 2; dir++) {
		setup_ep(&f, dir == 1);
		for (int i = 0; i < 4; i++)
			pk[i] = (struct udcx_iso_packet){ 0, sizeof(buf), 0, 0 };
		udcx__urb_init(&u, buf, sizeof(buf), 0);
		udcx__urb_set_iso(&u, pk, 4);
		assert_int_equal(udcx__urb_submit(&f.ep, &u, &f.done), -USB_EINVAL);
		assert_int_equal(u.actual, 0);
	}
}

/* Whatever the packets say, the packed IN data and the actual lengths
 * reported stay within the URB's buffer (the layout check comes first;
 * this holds without it). */
static void test_usbip_xfer_iso_packing_stays_in_buffer(void **state)
{
	struct usbip_header h;
	struct usbip__urb *urb;
	size_t sum = 0;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.direction = USBIP_DIR_IN;
	h.u.cmd_submit.transfer_buffer_length = 1024;
	h.u.cmd_submit.number_of_packets = 5;
	urb = usbip__urb_new(&h, true);
	assert_non_null(urb);
	for (int i = 0; i < 5; i++)
		urb->pk[i] = (struct udcx_iso_packet){ i == 4 ? 4096 : 0, 1024, 1024, 0 };
	usbip__urb_iso_finish(urb);
	assert_true(urb->x.actual <= 1024);
	for (int i = 0; i < 5; i++)
		sum += urb->iso[i].actual_length;
	assert_int_equal(sum, urb->x.actual);
	usbip__urb_free(NULL, urb);	/* ISO: never gathers, no device needed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_xfer_iso_in_one_request_per_packet),
		cmocka_unit_test(test_usbip_xfer_iso_in_waits_for_requests),
		cmocka_unit_test(test_usbip_xfer_iso_out_packets_to_requests),
		cmocka_unit_test(test_usbip_xfer_iso_rejects_packets_outside_buffer),
		cmocka_unit_test(test_usbip_xfer_iso_layouts),
		cmocka_unit_test(test_usbip_xfer_iso_rejects_overlapping_packets),
		cmocka_unit_test(test_usbip_xfer_iso_packing_stays_in_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
