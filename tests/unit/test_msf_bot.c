/*
 * test_msf_bot.c - Bulk-Only Transport through the in-process host: the 13
 * host/device cases of BOT 6.7 (status, residue, stalls), invalid and
 * not meaningful CBWs (both bulk endpoints wedged until Reset Recovery),
 * Reset Recovery in the middle of a READ and of a WRITE, disconnect in the
 * middle of a transfer, no stalls with can_stall off, two configurations
 * sharing one common object, full speed.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_msf_fixture.h"

#define BLOCKS 2048u

static struct msf_fx *up(void)
{
	struct msf_fx *fx = msf_fx_new();

	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	return fx;
}

static const uint8_t tur[10] = { 0x00 };	/* sent with 6 or 10 (case table) */
static const uint8_t read1[10] = { 0x28, 0, 0, 0, 0, 7, 0, 0, 1, 0 };	/* LBA 7, 1 block */
static const uint8_t read2[10] = { 0x28, 0, 0, 0, 0, 7, 0, 0, 2, 0 };
static const uint8_t write1[10] = { 0x2a, 0, 0, 0, 0, 9, 0, 0, 1, 0 };	/* LBA 9 */
static const uint8_t write2[10] = { 0x2a, 0, 0, 0, 0, 9, 0, 0, 2, 0 };

struct bot_case {
	const char *name;
	const uint8_t *cdb;
	bool in;
	uint32_t len;
	uint8_t status;
	uint32_t residue;
	int xfer;	/* data phase result: bytes, or -USB_EPIPE */
	bool in_stall;	/* bulk-IN stalled after the data (the CSW read met it) */
};

static void run_case(struct msf_fx *fx, const struct bot_case *c)
{
	uint8_t *buf = calloc(1, 4096);
	uint32_t residue = 0xdeadbeef;
	int x = 12345, st;

	assert_non_null(buf);
	for (unsigned i = 0; i < 4096; i++)
		buf[i] = (uint8_t)(i ^ 0xa5);
	st = msf_fx_cmd(fx, 0, c->cdb, 10, c->in, buf, c->len, &x, &residue);
	print_message("%s: status %d residue %u xfer %d\n", c->name, st, residue, x);
	assert_int_equal(st, c->status);
	assert_int_equal(residue, c->residue);
	if (c->len)
		assert_int_equal(x, c->xfer);
	assert_int_equal(fx->csw_stalled, c->in_stall);
	if (st == 2)	/* a phase error needs Reset Recovery (BOT 5.3.4) */
		assert_int_equal(msf_fx_reset_recovery(fx), 0);
	/* The device is usable afterwards. */
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
	free(buf);
}

static void test_msf_bot_thirteen_cases(void **state)
{
	static const struct bot_case cases[] = {
		{ "1 Hn=Dn", tur, false, 0, 0, 0, 0, false },
		{ "2 Hn<Di", read1, true, 0, 2, 0, 0, false },
		{ "3 Hn<Do", write1, false, 0, 2, 0, 0, false },
		{ "4 Hi>Dn", tur, true, 512, 0, 512, 0, true },
		{ "5 Hi>Di", read1, true, 1024, 0, 512, 512, true },
		{ "6 Hi=Di", read1, true, 512, 0, 0, 512, false },
		{ "7 Hi<Di", read2, true, 512, 2, 0, 512, false },
		{ "8 Hi<>Do", write1, true, 512, 2, 512, 0, true },
		{ "9 Ho>Dn", tur, false, 512, 0, 512, 512, false },
		{ "10 Ho<>Di", read1, false, 512, 2, 512, -USB_EPIPE, false },
		{ "11 Ho>Do", write1, false, 1024, 0, 512, 1024, false },
		{ "12 Ho=Do", write1, false, 512, 0, 0, 512, false },
		{ "13 Ho<Do", write2, false, 512, 2, 0, 512, false },
	};
	struct msf_fx *fx = up();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(fx, &cases[i]);
	msf_fx_free(fx);
}

static void test_msf_bot_case_data_reaches_medium(void **state)
{
	uint8_t buf[1024], back[512];
	struct msf_fx *fx = up();

	(void)state;
	/* Case 11: the first block lands, the excess is dropped. */
	memset(buf, 0x11, 512);
	memset(buf + 512, 0x22, 512);
	assert_int_equal(msf_fx_cmd(fx, 0, write1, 10, false, buf, 1024, NULL, NULL), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 9, 1, back, 512, 0), 0);
	assert_memory_equal(back, buf, 512);
	assert_int_equal(msf_fx_read10(fx, 0, 10, 1, back, 512, 0), 0);
	assert_int_equal(back[0], msf_fx_pat(10 * 512));
	/* Case 13: only what the host sent is written. */
	memset(buf, 0x33, 512);
	assert_int_equal(msf_fx_cmd(fx, 0, write2, 10, false, buf, 512, NULL, NULL), 2);
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 9, 1, back, 512, 0), 0);
	assert_memory_equal(back, buf, 512);
	assert_int_equal(msf_fx_read10(fx, 0, 10, 1, back, 512, 0), 0);
	assert_int_equal(back[0], msf_fx_pat(10 * 512));
	msf_fx_free(fx);
}

/* After an invalid CBW both endpoints stay halted through CLEAR_FEATURE. */
static void expect_wedged(struct msf_fx *fx)
{
	uint8_t buf[64];

	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_in, buf, 64, 0, MSF_TMO),
			 -USB_EPIPE);
	assert_int_equal(usb_inproc_host_clear_halt(fx->h, fx->ep_in, MSF_TMO), 0);
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_in, buf, 64, 0, MSF_TMO),
			 -USB_EPIPE);
	assert_int_equal(msf_fx_cbw(fx, 0, tur, 6, false, 0), -USB_EPIPE);
	assert_int_equal(usb_inproc_host_clear_halt(fx->h, fx->ep_out, MSF_TMO), 0);
	assert_int_equal(msf_fx_cbw(fx, 0, tur, 6, false, 0), -USB_EPIPE);
	/* Reset Recovery ends it. */
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
}

static void send_raw_cbw(struct msf_fx *fx, const uint8_t *cbw, size_t len)
{
	uint8_t tmp[64];

	memcpy(tmp, cbw, len);
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_out, tmp, len, 0, MSF_TMO),
			 (int)len);
}

static void make_cbw(uint8_t *cbw, uint8_t flags, uint8_t lun, uint8_t cblen)
{
	memset(cbw, 0, 31);
	usb_put_le32(cbw, 0x43425355u);
	usb_put_le32(cbw + 4, 77);
	cbw[12] = flags;
	cbw[13] = lun;
	cbw[14] = cblen;
}

static void test_msf_bot_invalid_cbw_wedges_until_reset_recovery(void **state)
{
	uint8_t cbw[64];
	struct msf_fx *fx = up();

	(void)state;
	/* Too short. */
	make_cbw(cbw, 0, 0, 6);
	send_raw_cbw(fx, cbw, 30);
	expect_wedged(fx);
	/* Too long (32 bytes in one transfer). */
	make_cbw(cbw, 0, 0, 6);
	cbw[31] = 0;
	send_raw_cbw(fx, cbw, 32);
	expect_wedged(fx);
	/* Wrong signature. */
	make_cbw(cbw, 0, 0, 6);
	cbw[0] = 'X';
	send_raw_cbw(fx, cbw, 31);
	expect_wedged(fx);
	msf_fx_free(fx);
}

static void test_msf_bot_not_meaningful_cbw(void **state)
{
	static const struct { uint8_t flags, lun, cblen; } bad[] = {
		{ 0x00, 0, 0 },		/* no CDB */
		{ 0x00, 0, 17 },	/* CDB longer than 16 */
		{ 0x00, 0x10, 6 },	/* LUN beyond 15 */
		{ 0x40, 0, 6 },		/* reserved flag bit */
		{ 0x00, 0, 0x26 },	/* reserved bits of bCBWCBLength */
	};
	uint8_t cbw[31];
	struct msf_fx *fx = up();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_cbw(cbw, bad[i].flags, bad[i].lun, bad[i].cblen);
		send_raw_cbw(fx, cbw, 31);
		expect_wedged(fx);
	}
	msf_fx_free(fx);
}

static void test_msf_bot_reset_in_the_middle_of_a_read(void **state)
{
	uint8_t cdb[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0 };	/* 256 blocks */
	uint8_t *buf = malloc(128 * 1024);
	struct usb_inproc_xfer *x;
	int rc;
	struct msf_fx *fx = up();

	(void)state;
	assert_non_null(buf);
	assert_int_equal(msf_fx_cbw(fx, 0, cdb, 10, true, 128 * 1024), 31);
	/* Take 16 KiB of the 128 KiB, then reset the transport. */
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_in, buf, 16384, 0, MSF_TMO),
			 16384);
	for (unsigned i = 0; i < 16384; i++)
		assert_int_equal(buf[i], msf_fx_pat(i));
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	/* Nothing of the old command comes out: the next CSW is the new tag's. */
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
	cdb[8] = 8;
	cdb[7] = 0;
	assert_int_equal(msf_fx_cmd(fx, 0, cdb, 10, true, buf, 4096, NULL, NULL), 0);
	for (unsigned i = 0; i < 4096; i++)
		assert_int_equal(buf[i], msf_fx_pat(i));

	/* Reset while the host waits for the rest, with a transfer pending. */
	cdb[7] = 1;
	cdb[8] = 0;
	assert_int_equal(msf_fx_cbw(fx, 0, cdb, 10, true, 128 * 1024), 31);
	assert_int_equal(usb_inproc_host_submit(fx->h, fx->ep_in, buf, 4096, 0, &x), 0);
	rc = usb_inproc_host_wait(fx->h, x, MSF_TMO);
	assert_int_equal(rc, 4096);
	usb_inproc_host_free(fx->h, x);
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
	free(buf);
	msf_fx_free(fx);
}

static void test_msf_bot_reset_in_the_middle_of_a_write(void **state)
{
	uint8_t cdb[10] = { 0x2a, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0 };	/* 256 blocks */
	uint8_t *buf = malloc(128 * 1024);
	struct msf_fx *fx = up();

	(void)state;
	assert_non_null(buf);
	memset(buf, 0x77, 128 * 1024);
	assert_int_equal(msf_fx_cbw(fx, 0, cdb, 10, false, 128 * 1024), 31);
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_out, buf, 8192, 0, MSF_TMO),
			 8192);
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	/* The next CBW is taken as a CBW, not as write data. */
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 1000, 1, buf, 512, 0), 0);
	assert_int_equal(buf[0], msf_fx_pat(1000 * 512));
	free(buf);
	msf_fx_free(fx);
}

static void test_msf_bot_disconnect_in_the_middle_and_reconnect(void **state)
{
	uint8_t cdb[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0 };
	uint8_t *buf = malloc(128 * 1024);
	struct msf_fx *fx = up();

	(void)state;
	assert_non_null(buf);
	assert_int_equal(msf_fx_cbw(fx, 0, cdb, 10, true, 128 * 1024), 31);
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_in, buf, 4096, 0, MSF_TMO),
			 4096);
	assert_int_equal(usb_inproc_host_disconnect(fx->h), 0);
	/* Plug in again: enumeration and SET_CONFIGURATION work, then a UA. */
	assert_true(usb_inproc_host_enumerate(fx->h, USB_SPEED_HIGH, 1, NULL, NULL, 0,
						 MSF_TMO) > 0);
	fx->tag = 100;
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, NULL, NULL), 0x062900);
	assert_int_equal(msf_fx_read10(fx, 0, 3, 8, buf, 4096, 0), 0);
	assert_int_equal(buf[100], msf_fx_pat(3 * 512 + 100));
	free(buf);
	msf_fx_free(fx);
}

static void test_msf_bot_no_stall_when_can_stall_is_off(void **state)
{
	uint8_t inq[6] = { 0x12, 0, 0, 0, 255, 0 };
	uint8_t buf[255], csw[13];
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->cfg.can_stall = 0;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	/* Case 5 without a stall: the short packet ends the data, CSW next. */
	assert_int_equal(msf_fx_cbw(fx, 0, inq, 6, true, 255), 31);
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_in, buf, 255, 0, MSF_TMO), 36);
	assert_int_equal(usb_inproc_host_transfer(fx->h, fx->ep_in, csw, 13, 0, MSF_TMO), 13);
	assert_int_equal(usb_get_le32(csw + 8), 255 - 36);
	assert_int_equal(csw[12], 0);
	msf_fx_free(fx);
}

static void test_msf_bot_full_speed(void **state)
{
	uint8_t *buf = malloc(64 * 512);
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	assert_non_null(buf);
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_FULL);
	assert_int_equal(fx->maxpacket, 64);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 0, 64, buf, 64 * 512, 0), 0);
	for (unsigned i = 0; i < 64 * 512; i++)
		assert_int_equal(buf[i], msf_fx_pat(i));
	memset(buf, 0x42, 64 * 512);
	assert_int_equal(msf_fx_write10(fx, 0, 0, 64, buf, 64 * 512, 0), 0);
	memset(buf, 0, 64 * 512);
	assert_int_equal(msf_fx_read10(fx, 0, 63, 1, buf, 512, 0), 0);
	assert_int_equal(buf[511], 0x42);
	free(buf);
	msf_fx_free(fx);
}

static void test_msf_bot_super_speed(void **state)
{
	uint8_t *buf = malloc(130 * 512);
	struct msf_fx *fx = msf_fx_new_max(USB_SPEED_SUPER);
	int x;
	uint32_t residue;
	uint8_t wr[10] = { 0x2a, 0, 0, 0, 0, 0, 0, 0, 130, 0 };

	(void)state;
	assert_non_null(buf);
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.buflen = 4608;	/* not a multiple of 1024: OUT requests are cut */
	msf_fx_up(fx, USB_SPEED_SUPER);
	assert_int_equal(fx->maxpacket, 1024);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	for (unsigned i = 0; i < 130 * 512; i++)
		buf[i] = (uint8_t)(i * 11u);
	assert_int_equal(msf_fx_cmd(fx, 0, wr, 10, false, buf, 130 * 512, &x, &residue), 0);
	assert_int_equal(residue, 0);
	memset(buf, 0, 130 * 512);
	assert_int_equal(msf_fx_read10(fx, 0, 0, 130, buf, 130 * 512, 0), 0);
	for (unsigned i = 0; i < 130 * 512; i++)
		assert_int_equal(buf[i], (uint8_t)(i * 11u));
	/* Case 5 at 1024-byte packets: 512 bytes (short), stall, residue. */
	assert_int_equal(msf_fx_cmd(fx, 0, read1, 10, true, buf, 2048, &x, &residue), 0);
	assert_int_equal(x, 512);
	assert_int_equal(residue, 1536);
	assert_true(fx->csw_stalled);
	free(buf);
	msf_fx_free(fx);
}

/* A 512-byte ring (firmware's smallest, 2 buffers): READ and WRITE far
 * longer than the ring go through it one buffer at a time, at high speed
 * (one packet a buffer) and at full speed (8 packets a buffer); the BOT
 * cases keep their residues. */
static void test_msf_bot_small_ring(void **state)
{
	static const enum usb_device_speed speeds[] = { USB_SPEED_HIGH, USB_SPEED_FULL };
	static const uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	uint8_t *buf = malloc(130 * 512);
	uint8_t wr[10] = { 0x2a, 0, 0, 0, 0, 0, 0, 0, 130, 0 };

	(void)state;
	assert_non_null(buf);
	for (unsigned k = 0; k < 2; k++) {
		struct msf_fx *fx = msf_fx_new();
		uint32_t residue = 1;
		int x = 0;

		fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
		fx->cfg.fsg_num_buffers = 2;
		fx->cfg.buflen = FSG_BUFLEN_MIN;
		assert_int_equal(FSG_BUFLEN_MIN, 512);
		msf_fx_up(fx, speeds[k]);
		assert_int_equal(fx->maxpacket, k == 0 ? 512 : 64);
		assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
		for (unsigned i = 0; i < 130 * 512; i++)
			buf[i] = (uint8_t)(i * 13u + k);
		assert_int_equal(msf_fx_cmd(fx, 0, wr, 10, false, buf, 130 * 512, &x, &residue), 0);
		assert_int_equal(x, 130 * 512);
		assert_int_equal(residue, 0);
		memset(buf, 0, 130 * 512);
		assert_int_equal(msf_fx_read10(fx, 0, 0, 130, buf, 130 * 512, 0), 0);
		for (unsigned i = 0; i < 130 * 512; i++)
			assert_int_equal(buf[i], (uint8_t)(i * 13u + k));
		/* Case 5: 36 bytes of 1000 asked, the stall, residue 964. */
		assert_int_equal(msf_fx_cmd(fx, 0, inq, 6, true, buf, 1000, &x, &residue), 0);
		assert_int_equal(x, 36);
		assert_int_equal(residue, 964);
		/* Case 7 (Hi < Di): 3 blocks of READ with 2 blocks' length. */
		assert_int_equal(msf_fx_cmd(fx, 0, (const uint8_t[10]){ 0x28, 0, 0, 0, 0, 0, 0, 0, 3, 0 },
					    10, true, buf, 1024, &x, &residue), 2);
		assert_int_equal(msf_fx_reset_recovery(fx), 0);
		assert_int_equal(msf_fx_read10(fx, 0, 129, 1, buf, 512, 0), 0);
		for (unsigned i = 0; i < 512; i++)
			assert_int_equal(buf[i], (uint8_t)((129 * 512 + i) * 13u + k));
		msf_fx_free(fx);
	}
	free(buf);
}

/* A device that can run at SuperSpeed needs a buffer of at least one
 * 1024-byte packet: 512 is refused at bind, 1024 works. */
static void test_msf_bot_small_ring_super_speed(void **state)
{
	struct msf_fx *fx = msf_fx_new_max(USB_SPEED_SUPER);
	uint8_t buf[4096];

	(void)state;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.fsg_num_buffers = 2;
	fx->cfg.buflen = 512;
	assert_int_equal(msf_fx_probe(fx), -USB_EINVAL);
	msf_fx_free(fx);

	fx = msf_fx_new_max(USB_SPEED_SUPER);
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	fx->cfg.fsg_num_buffers = 2;
	fx->cfg.buflen = FSG_BUFLEN_MIN_SUPER;
	assert_int_equal(FSG_BUFLEN_MIN_SUPER, 1024);
	msf_fx_up(fx, USB_SPEED_SUPER);
	assert_int_equal(fx->maxpacket, 1024);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 5u);
	assert_int_equal(msf_fx_write10(fx, 0, 8, 8, buf, sizeof(buf), 0), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(msf_fx_read10(fx, 0, 8, 8, buf, sizeof(buf), 0), 0);
	for (unsigned i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], (uint8_t)(i * 5u));
	msf_fx_free(fx);
}

static void test_msf_bot_two_configurations_share_common(void **state)
{
	uint8_t buf[512];
	struct msf_fx *fx = msf_fx_new();

	(void)state;
	fx->two_configs = true;
	fx->cfg.luns[0].backend = msf_fx_mem(BLOCKS, 512);
	msf_fx_up(fx, USB_SPEED_HIGH);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	memset(buf, 0x5c, sizeof(buf));
	assert_int_equal(msf_fx_write10(fx, 0, 20, 1, buf, 512, 0), 0);
	/* Configuration 2: the same LUN and medium behind another instance. */
	assert_int_equal(msf_fx_set_config(fx, 2), 0);
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, NULL, NULL), 0x062900);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(msf_fx_read10(fx, 0, 20, 1, buf, 512, 0), 0);
	assert_int_equal(buf[0], 0x5c);
	/* Unconfigured, then back to 1. */
	assert_int_equal(msf_fx_set_config(fx, 0), 0);
	assert_int_equal(msf_fx_set_config(fx, 1), 0);
	assert_int_equal(msf_fx_clear_ua(fx, 0), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 20, 1, buf, 512, 0), 0);
	assert_int_equal(buf[511], 0x5c);
	msf_fx_free(fx);
}

static void test_msf_bot_set_interface_resets_the_function(void **state)
{
	uint8_t buf[512];
	struct msf_fx *fx = up();

	(void)state;
	assert_int_equal(usb_inproc_host_set_interface(fx->h, fx->intf, 0, MSF_TMO), 0);
	/* The worker re-enabled the endpoints before the status stage. */
	assert_int_equal(msf_fx_cmd(fx, 0, tur, 6, false, NULL, 0, NULL, NULL), 1);
	assert_int_equal(msf_fx_sense(fx, 0, NULL, NULL), 0x062900);
	assert_int_equal(msf_fx_read10(fx, 0, 2, 1, buf, 512, 0), 0);
	assert_int_equal(buf[3], msf_fx_pat(2 * 512 + 3));
	/* There is no alternate setting 1. */
	assert_int_equal(usb_inproc_host_set_interface(fx->h, fx->intf, 1, MSF_TMO),
			 -USB_EPIPE);
	/* Class requests with bad fields stall; a good reset still works. */
	assert_int_equal(msf_fx_class(fx, false, 0xff, 1, 0, NULL), -USB_EPIPE);
	assert_int_equal(msf_fx_reset_recovery(fx), 0);
	assert_int_equal(msf_fx_read10(fx, 0, 2, 1, buf, 512, 0), 0);
	msf_fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msf_bot_thirteen_cases),
		cmocka_unit_test(test_msf_bot_case_data_reaches_medium),
		cmocka_unit_test(test_msf_bot_invalid_cbw_wedges_until_reset_recovery),
		cmocka_unit_test(test_msf_bot_not_meaningful_cbw),
		cmocka_unit_test(test_msf_bot_reset_in_the_middle_of_a_read),
		cmocka_unit_test(test_msf_bot_reset_in_the_middle_of_a_write),
		cmocka_unit_test(test_msf_bot_disconnect_in_the_middle_and_reconnect),
		cmocka_unit_test(test_msf_bot_no_stall_when_can_stall_is_off),
		cmocka_unit_test(test_msf_bot_full_speed),
		cmocka_unit_test(test_msf_bot_super_speed),
		cmocka_unit_test(test_msf_bot_small_ring),
		cmocka_unit_test(test_msf_bot_small_ring_super_speed),
		cmocka_unit_test(test_msf_bot_two_configurations_share_common),
		cmocka_unit_test(test_msf_bot_set_interface_resets_the_function),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
