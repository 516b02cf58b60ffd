/*
 * test_usbmon_pcap.c - the usbmon record encoder (src/udc/usbip/
 * usbmon_pcap.c): the pcap file header and records compared with bytes
 * written out by hand from the layout of Linux's struct usbmon_packet
 * (Documentation/usb/usbmon.rst) and the pcap file format, all
 * little-endian; and the records it refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "udc/usbip/usbmon_pcap.h"

static void test_usbmon_pcap_file_header(void **state)
{
	static const uint8_t want[24] = {
		0xd4, 0xc3, 0xb2, 0xa1,	/* magic, little-endian, microseconds */
		0x02, 0x00, 0x04, 0x00,	/* version 2.4 */
		0, 0, 0, 0,		/* thiszone */
		0, 0, 0, 0,		/* sigfigs */
		0x40, 0x40, 0x40, 0x00,	/* snaplen 0x404040 */
		220, 0, 0, 0,		/* LINKTYPE_USB_LINUX_MMAPPED */
	};
	uint8_t got[24];

	(void)state;
	memset(got, 0xee, sizeof(got));
	usbmon__file_header(got, 0x404040);
	assert_memory_equal(got, want, sizeof(want));
}

/* GET_DESCRIPTOR(device) submitted on ep0 IN: setup present, no data. */
static void test_usbmon_pcap_control_submit(void **state)
{
	static const uint8_t want[80] = {
		/* pcap record: ts_sec, ts_usec, incl_len 64, orig_len 64 */
		0x78, 0x56, 0x34, 0x12,  0x40, 0xe2, 0x01, 0x00,
		0x40, 0, 0, 0,  0x40, 0, 0, 0,
		/* usbmon: id */
		0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00,
		'S', 2 /* control */, 0x80 /* ep 0 IN */, 3 /* devnum */,
		0x02, 0x00 /* busnum 2 */, 0 /* setup present */, '<' /* no data: IN submit */,
		0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0,	/* ts_sec (s64) */
		0x40, 0xe2, 0x01, 0x00,			/* ts_usec 123456 */
		0x8d, 0xff, 0xff, 0xff,			/* status -115 */
		0x12, 0, 0, 0,				/* length 18 */
		0, 0, 0, 0,				/* len_cap 0 */
		0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x12, 0x00,	/* setup */
		0, 0, 0, 0,				/* interval */
		0, 0, 0, 0,				/* start_frame */
		0x00, 0x02, 0, 0,			/* xfer_flags URB_DIR_IN */
		0, 0, 0, 0,				/* ndesc */
	};
	struct usbmon_event ev = {
		.id = 0x0002000100000007ull, .type = 'S', .xfer = USBMON_XFER_CTRL,
		.epnum = 0, .dir_in = true, .devnum = 3, .busnum = 2, .has_setup = true,
		.setup = { 0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x12, 0x00 },
		.ts_sec = 0x12345678, .ts_usec = 123456, .status = USBMON_STATUS_INPROGRESS,
		.length = 18, .xfer_flags = 0x200,
	};
	uint8_t got[80];

	(void)state;
	assert_true(usbmon__record(got, &ev));
	assert_memory_equal(got, want, sizeof(want));
}

/* A bulk OUT completion (no data: '>'), and a bulk IN completion with
 * 13 bytes of data and a negative status. */
static void test_usbmon_pcap_bulk_complete(void **state)
{
	static const uint8_t want_out[80] = {
		1, 0, 0, 0,  2, 0, 0, 0,  0x40, 0, 0, 0,  0x40, 0, 0, 0,
		0x09, 0, 0, 0, 0, 0, 0, 0,
		'C', 3 /* bulk */, 0x02 /* ep 2 OUT */, 1,
		0x01, 0x00, '-', '>',
		1, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0,
		0, 0, 0, 0,			/* status 0 */
		0x00, 0x00, 0x02, 0x00,		/* length 128 KiB (actual) */
		0, 0, 0, 0,			/* len_cap */
		0, 0, 0, 0, 0, 0, 0, 0,		/* no setup */
		0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,
	};
	static const uint8_t want_in[80] = {
		1, 0, 0, 0,  2, 0, 0, 0,  0x4d, 0, 0, 0,  0x4d, 0, 0, 0,	/* 64 + 13 */
		0x0a, 0, 0, 0, 0, 0, 0, 0,
		'C', 3, 0x81 /* ep 1 IN */, 1,
		0x01, 0x00, '-', 0 /* data present */,
		1, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0,
		0x8f, 0xff, 0xff, 0xff,		/* status -113 (-EREMOTEIO: short) */
		0x0d, 0, 0, 0,			/* length 13 */
		0x0d, 0, 0, 0,			/* len_cap 13 */
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0,  0, 0, 0, 0,  0x01, 0x02, 0, 0,  0, 0, 0, 0,
	};
	struct usbmon_event ev = {
		.id = 9, .type = 'C', .xfer = USBMON_XFER_BULK, .epnum = 2, .devnum = 1,
		.busnum = 1, .ts_sec = 1, .ts_usec = 2, .length = 128 * 1024,
	};
	uint8_t got[80];

	(void)state;
	assert_true(usbmon__record(got, &ev));
	assert_memory_equal(got, want_out, sizeof(want_out));
	ev.id = 10;
	ev.epnum = 1;
	ev.dir_in = true;
	ev.status = -113;
	ev.length = ev.data_len = 13;
	ev.xfer_flags = 0x201;
	assert_true(usbmon__record(got, &ev));
	assert_memory_equal(got, want_in, sizeof(want_in));
}

/* An interrupt OUT submission with data, and an ISO IN completion with
 * two descriptors: the ISO fields in place of the setup bytes. */
static void test_usbmon_pcap_int_and_iso(void **state)
{
	static const uint8_t want_int[80] = {
		0, 0, 0, 0,  0, 0, 0, 0,  0x48, 0, 0, 0,  0x48, 0, 0, 0,	/* 64 + 8 */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		'S', 1 /* interrupt */, 0x03, 127,
		0xff, 0x00, '-', 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0,
		0x8d, 0xff, 0xff, 0xff,
		8, 0, 0, 0,  8, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		4, 0, 0, 0,			/* interval 4 */
		0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,
	};
	static const uint8_t want_iso[80] = {
		0, 0, 0, 0,  0, 0, 0, 0,  0x70, 0, 0, 0,  0x70, 0, 0, 0,	/* 64 + 32 + 16 */
		0x01, 0, 0, 0, 0, 0, 0, 0,
		'C', 0 /* iso */, 0x85, 5,
		0x01, 0x00, '-', 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0,
		0, 0, 0, 0,
		16, 0, 0, 0,  48, 0, 0, 0,	/* length 16, len_cap 32 + 16 */
		1, 0, 0, 0,  2, 0, 0, 0,	/* error_count 1, numdesc 2 */
		1, 0, 0, 0,			/* interval */
		0xfe, 0xff, 0xff, 0xff,		/* start_frame -2 */
		0x02, 0x02, 0, 0,		/* URB_ISO_ASAP | URB_DIR_IN */
		2, 0, 0, 0,			/* ndesc */
	};
	static const uint8_t want_desc[16] = {
		0xee, 0xff, 0xff, 0xff,  0x10, 0, 0, 0,  0x08, 0, 0, 0,  0, 0, 0, 0,
	};
	struct usbmon_event ev = {
		.id = UINT64_MAX, .type = 'S', .xfer = USBMON_XFER_INT, .epnum = 3,
		.devnum = 127, .busnum = 255, .status = USBMON_STATUS_INPROGRESS,
		.length = 8, .data_len = 8, .interval = 4,
	};
	uint8_t got[80], desc[16];

	(void)state;
	assert_true(usbmon__record(got, &ev));
	assert_memory_equal(got, want_int, sizeof(want_int));
	memset(&ev, 0, sizeof(ev));
	ev = (struct usbmon_event){
		.id = 1, .type = 'C', .xfer = USBMON_XFER_ISO, .epnum = 5, .dir_in = true,
		.devnum = 5, .busnum = 1, .length = 16, .data_len = 16, .error_count = 1,
		.numdesc = 2, .interval = 1, .start_frame = -2, .xfer_flags = 0x202, .ndesc = 2,
	};
	assert_true(usbmon__record(got, &ev));
	assert_memory_equal(got, want_iso, sizeof(want_iso));
	usbmon__iso_desc(desc, -18, 16, 8);	/* -EXDEV at offset 16, 8 bytes */
	assert_memory_equal(desc, want_desc, sizeof(want_desc));
}

/* What no usbmon record can be: refused, @out untouched. */
static void test_usbmon_pcap_refuses_bad_records(void **state)
{
	struct usbmon_event ok = { .type = 'C', .xfer = USBMON_XFER_BULK, .epnum = 1 };
	struct usbmon_event ev;
	uint8_t got[80], untouched[80];

	(void)state;
	memset(untouched, 0x5a, sizeof(untouched));
	ev = ok;
	ev.type = 'X';
	memcpy(got, untouched, sizeof(got));
	assert_false(usbmon__record(got, &ev));
	assert_memory_equal(got, untouched, sizeof(got));
	ev = ok;
	ev.epnum = 16;
	assert_false(usbmon__record(got, &ev));
	ev = ok;
	ev.ts_usec = 1000000;
	assert_false(usbmon__record(got, &ev));
	ev = ok;
	ev.ts_usec = -1;
	assert_false(usbmon__record(got, &ev));
	ev = ok;
	ev.data_len = UINT32_MAX - 63;	/* 64 + data over 4 GiB */
	assert_false(usbmon__record(got, &ev));
	ev.data_len = UINT32_MAX - 64;	/* exactly the largest */
	assert_true(usbmon__record(got, &ev));
	ev = ok;
	ev.type = 'E';
	ev.status = -19;
	assert_true(usbmon__record(got, &ev));
	assert_int_equal(got[16 + 8], 'E');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbmon_pcap_file_header),
		cmocka_unit_test(test_usbmon_pcap_control_submit),
		cmocka_unit_test(test_usbmon_pcap_bulk_complete),
		cmocka_unit_test(test_usbmon_pcap_int_and_iso),
		cmocka_unit_test(test_usbmon_pcap_refuses_bad_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
