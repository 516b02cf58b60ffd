/*
 * fuzz_usbip_pdu.c - libFuzzer target for the USB/IP PDU decoders
 * (src/udc/usbip/usbip_codec.c). The input is read as a server would: an
 * op header with its body, or a stream of URB headers each followed by the
 * payload usbip__submit_payload() says follows (skipped, bounded by the
 * input). Whatever decodes must re-encode to the same bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "udc/usbip/usbip_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_header_roundtrip(const uint8_t *p)
{
	struct usbip_header h;
	uint8_t again[USBIP_URB_HEADER_SIZE];

	if (usbip__decode_header(p, USBIP_URB_HEADER_SIZE, &h) != 0)
		return;
	if (usbip__encode_header(again, sizeof(again), &h) != (int)USBIP_URB_HEADER_SIZE)
		__builtin_trap();
	/* Unused tail bytes of UNLINK/RET PDUs are not kept: compare 0..used. */
	size_t used = h.command == USBIP_CMD_SUBMIT ? 48 : h.command == USBIP_RET_SUBMIT ? 40 : 24;
	if (memcmp(again, p, used) != 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usbip_op_header op;
	struct usbip_device_info dev;
	struct usbip_interface_info intf;
	struct usbip_iso_desc iso;
	char busid[USBIP_BUSID_SIZE];
	size_t off = 0;
	int is_iso;

	if (size < 1)
		return 0;
	is_iso = data[0] & 1;
	data++;
	size--;
	if (usbip__decode_op_header(data, size, &op) == 0) {
		(void)usbip__op_name(op.code);
		(void)usbip__op_status_name(op.status);
		(void)usbip__decode_import_request(data + 8, size - 8, busid);
		if (usbip__decode_device(data + 8, size - 8, &dev) == 0) {
			uint8_t again[USBIP_DEVICE_SIZE];
			if (usbip__encode_device(again, sizeof(again), &dev) != (int)USBIP_DEVICE_SIZE)
				__builtin_trap();
		}
		(void)usbip__decode_interface(data + 8, size - 8, &intf);
	}
	while (size - off >= USBIP_URB_HEADER_SIZE) {
		struct usbip_header h;
		uint32_t payload, isolen;

		check_header_roundtrip(data + off);
		if (usbip__decode_header(data + off, size - off, &h) != 0)
			break;
		(void)usbip__command_name(h.command);
		off += USBIP_URB_HEADER_SIZE;
		if (h.command != USBIP_CMD_SUBMIT)
			continue;
		if (usbip__submit_payload(&h, is_iso, 1u << 20, &payload, &isolen) != 0)
			break;
		if (payload > size - off)
			break;
		off += payload;
		for (uint32_t i = 0; i < isolen / USBIP_ISO_DESC_SIZE; i++) {
			if (usbip__decode_iso_desc(data + off, size - off, &iso) != 0)
				return 0;
			off += USBIP_ISO_DESC_SIZE;
		}
	}
	return 0;
}
