/*
 * usbip_codec.c - encode and decode USB/IP PDUs (see usbip_codec.h).
 *
 * Pure functions over caller buffers: no allocation, no I/O, no global
 * state, so the fuzzer can drive the decoders directly. Field offsets are
 * those of Linux's include/uapi/linux/usbip.h and the usb_device record of
 * tools/usb/usbip; all integers big-endian.
 */
#include "usbip_codec.h"

#include <string.h>

#include "composite/errors.h"

uint16_t usbip__get_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

uint32_t usbip__get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void usbip__put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void usbip__put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int usbip__encode_op_header(uint8_t *buf, size_t len, const struct usbip_op_header *h)
{
	if (len < USBIP_OP_HEADER_SIZE)
		return -USB_ENOSPC;
	usbip__put_be16(buf, h->version);
	usbip__put_be16(buf + 2, h->code);
	usbip__put_be32(buf + 4, h->status);
	return (int)USBIP_OP_HEADER_SIZE;
}

int usbip__decode_op_header(const uint8_t *buf, size_t len, struct usbip_op_header *h)
{
	if (len < USBIP_OP_HEADER_SIZE)
		return -USB_EBADMSG;
	h->version = usbip__get_be16(buf);
	h->code = usbip__get_be16(buf + 2);
	h->status = usbip__get_be32(buf + 4);
	if (h->version != USBIP_VERSION)
		return -USB_EPROTO;
	return 0;
}

/* Copy a NUL-terminated string into a fixed field, NUL-filling the rest. */
static int put_fixed_string(uint8_t *dst, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size)
		return -USB_ENAMETOOLONG;
	memset(dst, 0, size);
	memcpy(dst, s, n);
	return 0;
}

/* A fixed string field must hold its NUL: a peer must not make us read on. */
static int get_fixed_string(char *dst, size_t size, const uint8_t *src)
{
	if (!memchr(src, 0, size))
		return -USB_EBADMSG;
	memcpy(dst, src, size);
	return 0;
}

int usbip__encode_import_request(uint8_t *buf, size_t len, const char *busid)
{
	int rc;

	if (len < USBIP_BUSID_SIZE)
		return -USB_ENOSPC;
	rc = put_fixed_string(buf, USBIP_BUSID_SIZE, busid);
	return rc < 0 ? rc : (int)USBIP_BUSID_SIZE;
}

int usbip__decode_import_request(const uint8_t *buf, size_t len,
				 char busid[USBIP_BUSID_SIZE])
{
	if (len < USBIP_BUSID_SIZE)
		return -USB_EBADMSG;
	return get_fixed_string(busid, USBIP_BUSID_SIZE, buf);
}

int usbip__encode_device(uint8_t *buf, size_t len, const struct usbip_device_info *d)
{
	uint8_t *p = buf + USBIP_PATH_SIZE + USBIP_BUSID_SIZE;

	if (len < USBIP_DEVICE_SIZE)
		return -USB_ENOSPC;
	if (!memchr(d->path, 0, sizeof(d->path)) || !memchr(d->busid, 0, sizeof(d->busid)))
		return -USB_ENAMETOOLONG;
	put_fixed_string(buf, USBIP_PATH_SIZE, d->path);
	put_fixed_string(buf + USBIP_PATH_SIZE, USBIP_BUSID_SIZE, d->busid);
	usbip__put_be32(p, d->busnum);
	usbip__put_be32(p + 4, d->devnum);
	usbip__put_be32(p + 8, d->speed);
	usbip__put_be16(p + 12, d->idVendor);
	usbip__put_be16(p + 14, d->idProduct);
	usbip__put_be16(p + 16, d->bcdDevice);
	p[18] = d->bDeviceClass;
	p[19] = d->bDeviceSubClass;
	p[20] = d->bDeviceProtocol;
	p[21] = d->bConfigurationValue;
	p[22] = d->bNumConfigurations;
	p[23] = d->bNumInterfaces;
	return (int)USBIP_DEVICE_SIZE;
}

int usbip__decode_device(const uint8_t *buf, size_t len, struct usbip_device_info *d)
{
	const uint8_t *p = buf + USBIP_PATH_SIZE + USBIP_BUSID_SIZE;

	if (len < USBIP_DEVICE_SIZE)
		return -USB_EBADMSG;
	if (get_fixed_string(d->path, USBIP_PATH_SIZE, buf) < 0 ||
	    get_fixed_string(d->busid, USBIP_BUSID_SIZE, buf + USBIP_PATH_SIZE) < 0)
		return -USB_EBADMSG;
	d->busnum = usbip__get_be32(p);
	d->devnum = usbip__get_be32(p + 4);
	d->speed = usbip__get_be32(p + 8);
	d->idVendor = usbip__get_be16(p + 12);
	d->idProduct = usbip__get_be16(p + 14);
	d->bcdDevice = usbip__get_be16(p + 16);
	d->bDeviceClass = p[18];
	d->bDeviceSubClass = p[19];
	d->bDeviceProtocol = p[20];
	d->bConfigurationValue = p[21];
	d->bNumConfigurations = p[22];
	d->bNumInterfaces = p[23];
	return 0;
}

int usbip__encode_interface(uint8_t *buf, size_t len,
			    const struct usbip_interface_info *i)
{
	if (len < USBIP_INTERFACE_SIZE)
		return -USB_ENOSPC;
	buf[0] = i->bInterfaceClass;
	buf[1] = i->bInterfaceSubClass;
	buf[2] = i->bInterfaceProtocol;
	buf[3] = 0;
	return (int)USBIP_INTERFACE_SIZE;
}

int usbip__decode_interface(const uint8_t *buf, size_t len,
			    struct usbip_interface_info *i)
{
	if (len < USBIP_INTERFACE_SIZE)
		return -USB_EBADMSG;
	i->bInterfaceClass = buf[0];
	i->bInterfaceSubClass = buf[1];
	i->bInterfaceProtocol = buf[2];
	return 0;
}

int usbip__encode_header(uint8_t *buf, size_t len, const struct usbip_header *h)
{
	uint8_t *p = buf + 20;

	if (len < USBIP_URB_HEADER_SIZE)
		return -USB_ENOSPC;
	memset(buf, 0, USBIP_URB_HEADER_SIZE);
	usbip__put_be32(buf, h->command);
	usbip__put_be32(buf + 4, h->seqnum);
	usbip__put_be32(buf + 8, h->devid);
	usbip__put_be32(buf + 12, h->direction);
	usbip__put_be32(buf + 16, h->ep);
	switch (h->command) {
	case USBIP_CMD_SUBMIT:
		usbip__put_be32(p, h->u.cmd_submit.transfer_flags);
		usbip__put_be32(p + 4, h->u.cmd_submit.transfer_buffer_length);
		usbip__put_be32(p + 8, h->u.cmd_submit.start_frame);
		usbip__put_be32(p + 12, h->u.cmd_submit.number_of_packets);
		usbip__put_be32(p + 16, h->u.cmd_submit.interval);
		memcpy(p + 20, h->u.cmd_submit.setup, 8);
		break;
	case USBIP_RET_SUBMIT:
		usbip__put_be32(p, (uint32_t)h->u.ret_submit.status);
		usbip__put_be32(p + 4, h->u.ret_submit.actual_length);
		usbip__put_be32(p + 8, h->u.ret_submit.start_frame);
		usbip__put_be32(p + 12, h->u.ret_submit.number_of_packets);
		usbip__put_be32(p + 16, h->u.ret_submit.error_count);
		break;
	case USBIP_CMD_UNLINK:
		usbip__put_be32(p, h->u.cmd_unlink.unlink_seqnum);
		break;
	case USBIP_RET_UNLINK:
		usbip__put_be32(p, (uint32_t)h->u.ret_unlink.status);
		break;
	default:
		return -USB_EINVAL;
	}
	return (int)USBIP_URB_HEADER_SIZE;
}

int usbip__decode_header(const uint8_t *buf, size_t len, struct usbip_header *h)
{
	const uint8_t *p = buf + 20;

	if (len < USBIP_URB_HEADER_SIZE)
		return -USB_EBADMSG;
	memset(h, 0, sizeof(*h));
	h->command = usbip__get_be32(buf);
	h->seqnum = usbip__get_be32(buf + 4);
	h->devid = usbip__get_be32(buf + 8);
	h->direction = usbip__get_be32(buf + 12);
	h->ep = usbip__get_be32(buf + 16);
	switch (h->command) {
	case USBIP_CMD_SUBMIT:
		h->u.cmd_submit.transfer_flags = usbip__get_be32(p);
		h->u.cmd_submit.transfer_buffer_length = usbip__get_be32(p + 4);
		h->u.cmd_submit.start_frame = usbip__get_be32(p + 8);
		h->u.cmd_submit.number_of_packets = usbip__get_be32(p + 12);
		h->u.cmd_submit.interval = usbip__get_be32(p + 16);
		memcpy(h->u.cmd_submit.setup, p + 20, 8);
		break;
	case USBIP_RET_SUBMIT:
		h->u.ret_submit.status = (int32_t)usbip__get_be32(p);
		h->u.ret_submit.actual_length = usbip__get_be32(p + 4);
		h->u.ret_submit.start_frame = usbip__get_be32(p + 8);
		h->u.ret_submit.number_of_packets = usbip__get_be32(p + 12);
		h->u.ret_submit.error_count = usbip__get_be32(p + 16);
		break;
	case USBIP_CMD_UNLINK:
		h->u.cmd_unlink.unlink_seqnum = usbip__get_be32(p);
		break;
	case USBIP_RET_UNLINK:
		h->u.ret_unlink.status = (int32_t)usbip__get_be32(p);
		break;
	default:
		return -USB_EPROTO;
	}
	/* RET_* may carry 0 in direction/ep; only commands must be in range. */
	if (h->direction > USBIP_DIR_IN || h->ep > USBIP_MAX_ENDPOINT)
		return -USB_EPROTO;
	return 0;
}

int usbip__encode_iso_desc(uint8_t *buf, size_t len, const struct usbip_iso_desc *d)
{
	if (len < USBIP_ISO_DESC_SIZE)
		return -USB_ENOSPC;
	usbip__put_be32(buf, d->offset);
	usbip__put_be32(buf + 4, d->length);
	usbip__put_be32(buf + 8, d->actual_length);
	usbip__put_be32(buf + 12, (uint32_t)d->status);
	return (int)USBIP_ISO_DESC_SIZE;
}

int usbip__decode_iso_desc(const uint8_t *buf, size_t len, struct usbip_iso_desc *d)
{
	if (len < USBIP_ISO_DESC_SIZE)
		return -USB_EBADMSG;
	d->offset = usbip__get_be32(buf);
	d->length = usbip__get_be32(buf + 4);
	d->actual_length = usbip__get_be32(buf + 8);
	d->status = (int32_t)usbip__get_be32(buf + 12);
	return 0;
}

int usbip__submit_payload(const struct usbip_header *h, int is_iso, uint32_t max_data,
			  uint32_t *data, uint32_t *iso)
{
	const struct usbip_cmd_submit *c = &h->u.cmd_submit;
	uint32_t npackets = c->number_of_packets;

	*data = 0;
	*iso = 0;
	if (h->command != USBIP_CMD_SUBMIT)
		return -USB_EINVAL;
	if (c->transfer_buffer_length > max_data)
		return -USB_EMSGSIZE;
	if (!is_iso) {
		/* Linux sends 0, the protocol document says 0xffffffff. */
		if (npackets != 0 && npackets != 0xffffffffu)
			return -USB_EPROTO;
	} else {
		if (npackets == 0 || npackets > USBIP_MAX_ISO_PACKETS)
			return -USB_EPROTO;
		*iso = npackets * USBIP_ISO_DESC_SIZE;
	}
	if (h->direction == USBIP_DIR_OUT)
		*data = c->transfer_buffer_length;
	return 0;
}

const char *usbip__command_name(uint32_t command)
{
	switch (command) {
	case USBIP_CMD_SUBMIT: return "CMD_SUBMIT";
	case USBIP_CMD_UNLINK: return "CMD_UNLINK";
	case USBIP_RET_SUBMIT: return "RET_SUBMIT";
	case USBIP_RET_UNLINK: return "RET_UNLINK";
	default: return "unknown command";
	}
}

const char *usbip__op_name(uint16_t code)
{
	switch (code) {
	case USBIP_OP_REQ_DEVLIST: return "OP_REQ_DEVLIST";
	case USBIP_OP_REP_DEVLIST: return "OP_REP_DEVLIST";
	case USBIP_OP_REQ_IMPORT: return "OP_REQ_IMPORT";
	case USBIP_OP_REP_IMPORT: return "OP_REP_IMPORT";
	default: return "unknown op";
	}
}

const char *usbip__op_status_name(uint32_t status)
{
	switch (status) {
	case USBIP_ST_OK: return "OK";
	case USBIP_ST_NA: return "NA";
	case USBIP_ST_DEV_BUSY: return "DEV_BUSY";
	case USBIP_ST_DEV_ERR: return "DEV_ERR";
	case USBIP_ST_NODEV: return "NODEV";
	case USBIP_ST_ERROR: return "ERROR";
	default: return "unknown status";
	}
}
