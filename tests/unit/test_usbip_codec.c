/*
 * test_usbip_codec.c - byte-exact tests of the USB/IP PDU codec
 * (src/udc/usbip/usbip_codec.c): every PDU against hand-written bytes from
 * the protocol's layout, and every malformed case the decoders refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "composite/errors.h"
#include "udc/usbip/usbip_codec.h"

static void test_usbip_codec_op_header_bytes(void **state)
{
	static const uint8_t want[] = { 0x01, 0x11, 0x80, 0x05, 0, 0, 0, 0 };
	struct usbip_op_header h = { USBIP_VERSION, USBIP_OP_REQ_DEVLIST, 0 }, d;
	uint8_t buf[8];

	(void)state;
	assert_int_equal(usbip__encode_op_header(buf, sizeof(buf), &h), 8);
	assert_memory_equal(buf, want, 8);
	assert_int_equal(usbip__decode_op_header(buf, 8, &d), 0);
	assert_int_equal(d.version, 0x0111);
	assert_int_equal(d.code, 0x8005);
	assert_int_equal(d.status, 0);
	assert_int_equal(usbip__encode_op_header(buf, 7, &h), -USB_ENOSPC);
}

static void test_usbip_codec_empty_devlist_is_12_bytes(void **state)
{
	static const uint8_t want[12] = { 0x01, 0x11, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct usbip_op_header h = { USBIP_VERSION, USBIP_OP_REP_DEVLIST, USBIP_ST_OK };
	uint8_t buf[12];

	(void)state;
	assert_int_equal(usbip__encode_op_header(buf, sizeof(buf), &h), 8);
	usbip__put_be32(buf + 8, 0);
	assert_memory_equal(buf, want, 12);
}

static void test_usbip_codec_op_header_rejects_bad_input(void **state)
{
	static const uint8_t v110[] = { 0x01, 0x10, 0x80, 0x05, 0, 0, 0, 0 };
	static const uint8_t ok[] = { 0x01, 0x11, 0x80, 0x03, 0, 0, 0, 2 };
	struct usbip_op_header d;

	(void)state;
	assert_int_equal(usbip__decode_op_header(ok, 7, &d), -USB_EBADMSG);
	assert_int_equal(usbip__decode_op_header(ok, 0, &d), -USB_EBADMSG);
	assert_int_equal(usbip__decode_op_header(v110, 8, &d), -USB_EPROTO);
	assert_int_equal(d.version, 0x0110);
	assert_int_equal(usbip__decode_op_header(ok, 8, &d), 0);
	assert_int_equal(d.code, USBIP_OP_REQ_IMPORT);
	assert_int_equal(d.status, 2);
}

static void test_usbip_codec_import_request(void **state)
{
	uint8_t buf[32], bad[32];
	char busid[32];

	(void)state;
	assert_int_equal(usbip__encode_import_request(buf, sizeof(buf), "1-1"), 32);
	assert_memory_equal(buf, "1-1\0\0\0\0\0", 8);
	for (unsigned i = 3; i < 32; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(usbip__decode_import_request(buf, 32, busid), 0);
	assert_string_equal(busid, "1-1");
	assert_int_equal(usbip__decode_import_request(buf, 31, busid), -USB_EBADMSG);
	memset(bad, 'x', sizeof(bad));	/* no terminator within 32 bytes */
	assert_int_equal(usbip__decode_import_request(bad, 32, busid), -USB_EBADMSG);
	assert_int_equal(usbip__encode_import_request(buf, sizeof(buf),
		"0123456789012345678901234567890123"), -USB_ENAMETOOLONG);
	assert_int_equal(usbip__encode_import_request(buf, 16, "1-1"), -USB_ENOSPC);
}

static void test_usbip_codec_device_record_bytes(void **state)
{
	struct usbip_device_info d, back;
	uint8_t buf[USBIP_DEVICE_SIZE];
	static const uint8_t tail[24] = {
		0, 0, 0, 1,		/* busnum */
		0, 0, 0, 2,		/* devnum */
		0, 0, 0, 3,		/* speed: high */
		0x05, 0x25, 0xa4, 0xa5,	/* idVendor, idProduct: big-endian */
		0x01, 0x23,		/* bcdDevice */
		0, 0, 0,		/* class, subclass, protocol */
		1, 1, 1			/* bConfigurationValue, bNumConfigurations, bNumInterfaces */
	};

	(void)state;
	memset(&d, 0, sizeof(d));
	strcpy(d.path, "/sys/devices/composite/usbip/1-1");
	strcpy(d.busid, "1-1");
	d.busnum = 1;
	d.devnum = 2;
	d.speed = 3;
	d.idVendor = 0x0525;
	d.idProduct = 0xa4a5;
	d.bcdDevice = 0x0123;
	d.bConfigurationValue = 1;
	d.bNumConfigurations = 1;
	d.bNumInterfaces = 1;
	assert_int_equal(usbip__encode_device(buf, sizeof(buf), &d), 312);
	assert_memory_equal(buf, d.path, strlen(d.path));
	for (size_t i = strlen(d.path); i < 256; i++)
		assert_int_equal(buf[i], 0);
	assert_memory_equal(buf + 256, "1-1", 4);
	for (size_t i = 256 + 3; i < 288; i++)
		assert_int_equal(buf[i], 0);
	assert_memory_equal(buf + 288, tail, sizeof(tail));
	assert_int_equal(usbip__decode_device(buf, sizeof(buf), &back), 0);
	assert_memory_equal(&back, &d, sizeof(d));
	assert_int_equal(usbip__decode_device(buf, 311, &back), -USB_EBADMSG);
	assert_int_equal(usbip__encode_device(buf, 311, &d), -USB_ENOSPC);
	memset(buf + 256, 'A', 32);	/* unterminated busid */
	assert_int_equal(usbip__decode_device(buf, sizeof(buf), &back), -USB_EBADMSG);
	memset(buf, 'A', 256);		/* unterminated path */
	assert_int_equal(usbip__decode_device(buf, sizeof(buf), &back), -USB_EBADMSG);
}

static void test_usbip_codec_interface_record(void **state)
{
	struct usbip_interface_info i = { 0x08, 0x06, 0x50 }, back;
	uint8_t buf[4] = { 0xff, 0xff, 0xff, 0xff };

	(void)state;
	assert_int_equal(usbip__encode_interface(buf, 4, &i), 4);
	assert_memory_equal(buf, "\x08\x06\x50\x00", 4);
	assert_int_equal(usbip__decode_interface(buf, 4, &back), 0);
	assert_int_equal(back.bInterfaceClass, 8);
	assert_int_equal(back.bInterfaceSubClass, 6);
	assert_int_equal(back.bInterfaceProtocol, 0x50);
	assert_int_equal(usbip__decode_interface(buf, 3, &back), -USB_EBADMSG);
	assert_int_equal(usbip__encode_interface(buf, 3, &i), -USB_ENOSPC);
}

/* CMD_SUBMIT of GET_DESCRIPTOR(DEVICE, 64) as vhci sends it. */
static const uint8_t cmd_submit_bytes[48] = {
	0, 0, 0, 1,		/* command */
	0, 0, 0, 5,		/* seqnum */
	0, 1, 0, 2,		/* devid */
	0, 0, 0, 1,		/* direction IN */
	0, 0, 0, 0,		/* ep 0 */
	0, 0, 0x02, 0x00,	/* transfer_flags URB_DIR_IN */
	0, 0, 0, 64,		/* transfer_buffer_length */
	0, 0, 0, 0,		/* start_frame */
	0, 0, 0, 0,		/* number_of_packets */
	0, 0, 0, 0,		/* interval */
	0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x40, 0x00	/* setup, little-endian */
};

static void test_usbip_codec_cmd_submit_bytes(void **state)
{
	struct usbip_header h, back;
	uint8_t buf[48];

	(void)state;
	assert_int_equal(usbip__decode_header(cmd_submit_bytes, 48, &h), 0);
	assert_int_equal(h.command, USBIP_CMD_SUBMIT);
	assert_int_equal(h.seqnum, 5);
	assert_int_equal(h.devid, 0x00010002);
	assert_int_equal(h.direction, USBIP_DIR_IN);
	assert_int_equal(h.ep, 0);
	assert_int_equal(h.u.cmd_submit.transfer_flags, USBIP_URB_DIR_IN);
	assert_int_equal(h.u.cmd_submit.transfer_buffer_length, 64);
	assert_int_equal(h.u.cmd_submit.number_of_packets, 0);
	assert_memory_equal(h.u.cmd_submit.setup, cmd_submit_bytes + 40, 8);
	assert_int_equal(usbip__encode_header(buf, sizeof(buf), &h), 48);
	assert_memory_equal(buf, cmd_submit_bytes, 48);
	assert_int_equal(usbip__decode_header(buf, 48, &back), 0);
	assert_memory_equal(&back, &h, sizeof(h));
}

static void test_usbip_codec_ret_submit_bytes(void **state)
{
	static const uint8_t want[48] = {
		0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xe0,	/* status -32 */
		0, 0, 0x10, 0x00,	/* actual_length 4096 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0
	};
	struct usbip_header h, back;
	uint8_t buf[64];

	(void)state;
	memset(&h, 0, sizeof(h));
	memset(buf, 0xaa, sizeof(buf));
	h.command = USBIP_RET_SUBMIT;
	h.seqnum = 9;
	h.u.ret_submit.status = USBIP_STATUS_EPIPE;
	h.u.ret_submit.actual_length = 4096;
	assert_int_equal(usbip__encode_header(buf, sizeof(buf), &h), 48);
	assert_memory_equal(buf, want, 48);
	assert_int_equal(buf[48], 0xaa);	/* nothing written past the PDU */
	assert_int_equal(usbip__decode_header(buf, 48, &back), 0);
	assert_int_equal(back.u.ret_submit.status, -32);
	assert_int_equal(back.u.ret_submit.actual_length, 4096);
}

static void test_usbip_codec_unlink_bytes(void **state)
{
	static const uint8_t cmd[48] = {
		0, 0, 0, 2, 0, 0, 0, 7, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1,
		0, 0, 0, 6,		/* unlink_seqnum */
	};
	static const uint8_t ret[48] = {
		0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0x98,	/* -104 */
	};
	struct usbip_header h;
	uint8_t buf[48];

	(void)state;
	assert_int_equal(usbip__decode_header(cmd, 48, &h), 0);
	assert_int_equal(h.command, USBIP_CMD_UNLINK);
	assert_int_equal(h.seqnum, 7);
	assert_int_equal(h.ep, 1);
	assert_int_equal(h.u.cmd_unlink.unlink_seqnum, 6);
	assert_int_equal(usbip__encode_header(buf, 48, &h), 48);
	assert_memory_equal(buf, cmd, 48);
	memset(&h, 0, sizeof(h));
	h.command = USBIP_RET_UNLINK;
	h.seqnum = 7;
	h.u.ret_unlink.status = USBIP_STATUS_ECONNRESET;
	assert_int_equal(usbip__encode_header(buf, 48, &h), 48);
	assert_memory_equal(buf, ret, 48);
}

static void test_usbip_codec_header_rejects_bad_input(void **state)
{
	struct usbip_header h;
	uint8_t buf[48];

	(void)state;
	memcpy(buf, cmd_submit_bytes, 48);
	assert_int_equal(usbip__decode_header(buf, 47, &h), -USB_EBADMSG);
	assert_int_equal(usbip__decode_header(buf, 0, &h), -USB_EBADMSG);
	buf[3] = 0;			/* command 0 */
	assert_int_equal(usbip__decode_header(buf, 48, &h), -USB_EPROTO);
	buf[3] = 5;			/* command 5 */
	assert_int_equal(usbip__decode_header(buf, 48, &h), -USB_EPROTO);
	buf[0] = 0x80;
	buf[3] = 1;			/* 0x80000001 */
	assert_int_equal(usbip__decode_header(buf, 48, &h), -USB_EPROTO);
	memcpy(buf, cmd_submit_bytes, 48);
	buf[15] = 2;			/* direction 2 */
	assert_int_equal(usbip__decode_header(buf, 48, &h), -USB_EPROTO);
	memcpy(buf, cmd_submit_bytes, 48);
	buf[19] = 16;			/* endpoint 16 */
	assert_int_equal(usbip__decode_header(buf, 48, &h), -USB_EPROTO);
	buf[19] = 0x81;			/* an address, not a number */
	assert_int_equal(usbip__decode_header(buf, 48, &h), -USB_EPROTO);
	buf[19] = 15;
	assert_int_equal(usbip__decode_header(buf, 48, &h), 0);
	memset(&h, 0, sizeof(h));
	h.command = 9;
	assert_int_equal(usbip__encode_header(buf, 48, &h), -USB_EINVAL);
	h.command = USBIP_RET_UNLINK;
	assert_int_equal(usbip__encode_header(buf, 47, &h), -USB_ENOSPC);
}

static void test_usbip_codec_iso_desc_bytes(void **state)
{
	static const uint8_t want[16] = {
		0, 0, 0x02, 0x00, 0, 0, 0x01, 0x00, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xee
	};
	struct usbip_iso_desc d = { 512, 256, 128, USBIP_STATUS_EXDEV }, back;
	uint8_t buf[16];

	(void)state;
	assert_int_equal(usbip__encode_iso_desc(buf, 16, &d), 16);
	assert_memory_equal(buf, want, 16);
	assert_int_equal(usbip__decode_iso_desc(buf, 16, &back), 0);
	assert_memory_equal(&back, &d, sizeof(d));
	assert_int_equal(usbip__decode_iso_desc(buf, 15, &back), -USB_EBADMSG);
	assert_int_equal(usbip__encode_iso_desc(buf, 15, &d), -USB_ENOSPC);
}

static void test_usbip_codec_submit_payload_lengths(void **state)
{
	struct usbip_header h;
	uint32_t data, iso;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.command = USBIP_CMD_SUBMIT;
	h.direction = USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_buffer_length = 4096;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), 0);
	assert_int_equal(data, 4096);
	assert_int_equal(iso, 0);
	/* IN: no payload follows the command. */
	h.direction = USBIP_DIR_IN;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), 0);
	assert_int_equal(data, 0);
	/* The cap holds whatever the peer claims. */
	h.u.cmd_submit.transfer_buffer_length = 0xffffffffu;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), -USB_EMSGSIZE);
	h.u.cmd_submit.transfer_buffer_length = 65537;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), -USB_EMSGSIZE);
	h.u.cmd_submit.transfer_buffer_length = 65536;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), 0);
	/* Non-ISO endpoint: 0 and 0xffffffff mean "no packets"; others are hostile. */
	h.u.cmd_submit.number_of_packets = 0xffffffffu;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), 0);
	assert_int_equal(iso, 0);
	h.u.cmd_submit.number_of_packets = 3;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), -USB_EPROTO);
	/* ISO endpoint: descriptors follow, for IN too; 1..1024 packets. */
	assert_int_equal(usbip__submit_payload(&h, 1, 65536, &data, &iso), 0);
	assert_int_equal(data, 0);
	assert_int_equal(iso, 48);
	h.direction = USBIP_DIR_OUT;
	h.u.cmd_submit.transfer_buffer_length = 3 * 192;
	assert_int_equal(usbip__submit_payload(&h, 1, 65536, &data, &iso), 0);
	assert_int_equal(data, 576);
	assert_int_equal(iso, 48);
	h.u.cmd_submit.number_of_packets = 1025;
	assert_int_equal(usbip__submit_payload(&h, 1, 65536, &data, &iso), -USB_EPROTO);
	h.u.cmd_submit.number_of_packets = 0;
	assert_int_equal(usbip__submit_payload(&h, 1, 65536, &data, &iso), -USB_EPROTO);
	h.command = USBIP_CMD_UNLINK;
	assert_int_equal(usbip__submit_payload(&h, 0, 65536, &data, &iso), -USB_EINVAL);
}

static void test_usbip_codec_names(void **state)
{
	(void)state;
	assert_string_equal(usbip__command_name(USBIP_RET_UNLINK), "RET_UNLINK");
	assert_string_equal(usbip__command_name(77), "unknown command");
	assert_string_equal(usbip__op_name(USBIP_OP_REQ_IMPORT), "OP_REQ_IMPORT");
	assert_string_equal(usbip__op_status_name(USBIP_ST_NODEV), "NODEV");
	assert_string_equal(usbip__op_status_name(99), "unknown status");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usbip_codec_op_header_bytes),
		cmocka_unit_test(test_usbip_codec_empty_devlist_is_12_bytes),
		cmocka_unit_test(test_usbip_codec_op_header_rejects_bad_input),
		cmocka_unit_test(test_usbip_codec_import_request),
		cmocka_unit_test(test_usbip_codec_device_record_bytes),
		cmocka_unit_test(test_usbip_codec_interface_record),
		cmocka_unit_test(test_usbip_codec_cmd_submit_bytes),
		cmocka_unit_test(test_usbip_codec_ret_submit_bytes),
		cmocka_unit_test(test_usbip_codec_unlink_bytes),
		cmocka_unit_test(test_usbip_codec_header_rejects_bad_input),
		cmocka_unit_test(test_usbip_codec_iso_desc_bytes),
		cmocka_unit_test(test_usbip_codec_submit_payload_lengths),
		cmocka_unit_test(test_usbip_codec_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
