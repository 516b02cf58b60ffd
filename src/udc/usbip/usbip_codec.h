/*
 * usbip_codec.h - the USB/IP wire format (protocol 0x0111): constants, the
 * decoded forms of op and URB PDUs, and pure encode/decode functions.
 *
 * Owns nothing but byte layouts: no sockets, no allocation, no gadget
 * state. Portable C11; used by the server (usbip_server_posix.c,
 * usbip_conn_posix.c), by the test client in tests/integration and by the
 * fuzzer. Every integer on the wire is big-endian except the 8-byte SETUP
 * packet, which is copied as is (it is little-endian USB data).
 *
 * Decoders are strict: a buffer shorter than the PDU, a wrong version, an
 * unknown command or a field out of range is an error (USB_EBADMSG,
 * USB_EPROTO), never a partial result. Encoders write exactly the PDU's
 * size and return it, or USB_ENOSPC when the buffer is too small.
 */
#ifndef USBIP_CODEC_H
#define USBIP_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define USBIP_VERSION 0x0111u
#define USBIP_DEFAULT_PORT 3240u

#define USBIP_OP_HEADER_SIZE 8u
#define USBIP_URB_HEADER_SIZE 48u
#define USBIP_DEVICE_SIZE 312u
#define USBIP_INTERFACE_SIZE 4u
#define USBIP_PATH_SIZE 256u
#define USBIP_BUSID_SIZE 32u
#define USBIP_ISO_DESC_SIZE 16u
#define USBIP_MAX_ISO_PACKETS 1024u
#define USBIP_MAX_ENDPOINT 15u

/* Op codes (the high bit marks a request). */
enum usbip_op_code {
	USBIP_OP_REQ_DEVLIST = 0x8005,
	USBIP_OP_REP_DEVLIST = 0x0005,
	USBIP_OP_REQ_IMPORT = 0x8003,
	USBIP_OP_REP_IMPORT = 0x0003
};

/* Op reply status values. */
enum usbip_op_status {
	USBIP_ST_OK = 0,
	USBIP_ST_NA = 1,
	USBIP_ST_DEV_BUSY = 2,
	USBIP_ST_DEV_ERR = 3,
	USBIP_ST_NODEV = 4,
	USBIP_ST_ERROR = 5
};

/* URB phase commands. */
enum usbip_command {
	USBIP_CMD_SUBMIT = 1,
	USBIP_CMD_UNLINK = 2,
	USBIP_RET_SUBMIT = 3,
	USBIP_RET_UNLINK = 4
};

#define USBIP_DIR_OUT 0u
#define USBIP_DIR_IN 1u

/* URB transfer_flags bits the server looks at (Linux URB_* values). */
#define USBIP_URB_SHORT_NOT_OK 0x0001u
#define USBIP_URB_ISO_ASAP 0x0002u
#define USBIP_URB_ZERO_PACKET 0x0040u
#define USBIP_URB_NO_INTERRUPT 0x0080u
#define USBIP_URB_DIR_IN 0x0200u

/* Linux errno values as URB status on the wire, on every OS. */
#define USBIP_STATUS_OK 0
#define USBIP_STATUS_ENOENT (-2)
#define USBIP_STATUS_EXDEV (-18)
#define USBIP_STATUS_ENODEV (-19)
#define USBIP_STATUS_EPIPE (-32)
#define USBIP_STATUS_EPROTO (-71)
#define USBIP_STATUS_EOVERFLOW (-75)
#define USBIP_STATUS_ECONNRESET (-104)
#define USBIP_STATUS_ESHUTDOWN (-108)
#define USBIP_STATUS_EREMOTEIO (-121)

struct usbip_op_header {
	uint16_t version;
	uint16_t code;
	uint32_t status;
};

/* The 312-byte device record of OP_REP_DEVLIST / OP_REP_IMPORT. */
struct usbip_device_info {
	char path[USBIP_PATH_SIZE];	/* NUL-filled on the wire */
	char busid[USBIP_BUSID_SIZE];	/* NUL-filled on the wire */
	uint32_t busnum;
	uint32_t devnum;
	uint32_t speed;			/* 1 low, 2 full, 3 high, 5 super */
	uint16_t idVendor;
	uint16_t idProduct;
	uint16_t bcdDevice;
	uint8_t bDeviceClass;
	uint8_t bDeviceSubClass;
	uint8_t bDeviceProtocol;
	uint8_t bConfigurationValue;
	uint8_t bNumConfigurations;
	uint8_t bNumInterfaces;
};

struct usbip_interface_info {
	uint8_t bInterfaceClass;
	uint8_t bInterfaceSubClass;
	uint8_t bInterfaceProtocol;
};

struct usbip_cmd_submit {
	uint32_t transfer_flags;
	uint32_t transfer_buffer_length;
	uint32_t start_frame;
	uint32_t number_of_packets;
	uint32_t interval;
	uint8_t setup[8];
};

struct usbip_ret_submit {
	int32_t status;
	uint32_t actual_length;
	uint32_t start_frame;
	uint32_t number_of_packets;
	uint32_t error_count;
};

struct usbip_cmd_unlink {
	uint32_t unlink_seqnum;
};

struct usbip_ret_unlink {
	int32_t status;
};

/* One 48-byte URB PDU header, any of the four commands. */
struct usbip_header {
	uint32_t command;
	uint32_t seqnum;
	uint32_t devid;
	uint32_t direction;
	uint32_t ep;
	union {
		struct usbip_cmd_submit cmd_submit;
		struct usbip_ret_submit ret_submit;
		struct usbip_cmd_unlink cmd_unlink;
		struct usbip_ret_unlink ret_unlink;
	} u;
};

/* One isochronous packet descriptor (16 bytes on the wire). */
struct usbip_iso_desc {
	uint32_t offset;
	uint32_t length;
	uint32_t actual_length;
	int32_t status;
};

/* Big-endian field access, exposed for the client and tests. */
uint16_t usbip__get_be16(const uint8_t *p);
uint32_t usbip__get_be32(const uint8_t *p);
void usbip__put_be16(uint8_t *p, uint16_t v);
void usbip__put_be32(uint8_t *p, uint32_t v);

/*
 * Op header. decode: USB_EBADMSG if @len < 8, USB_EPROTO if the version is
 * not 0x0111 (the header is still filled in, for the log). Return 0.
 */
int usbip__encode_op_header(uint8_t *buf, size_t len, const struct usbip_op_header *h);
int usbip__decode_op_header(const uint8_t *buf, size_t len, struct usbip_op_header *h);

/*
 * OP_REQ_IMPORT body: a 32-byte busid. decode: USB_EBADMSG if @len < 32 or
 * the busid is not NUL-terminated within 32 bytes; copies it into @busid
 * (32 bytes).
 */
int usbip__encode_import_request(uint8_t *buf, size_t len, const char *busid);
int usbip__decode_import_request(const uint8_t *buf, size_t len,
				 char busid[USBIP_BUSID_SIZE]);

/* 312-byte device record. decode: USB_EBADMSG if short or path/busid
 * unterminated. */
int usbip__encode_device(uint8_t *buf, size_t len, const struct usbip_device_info *d);
int usbip__decode_device(const uint8_t *buf, size_t len, struct usbip_device_info *d);

/* 4-byte interface record. */
int usbip__encode_interface(uint8_t *buf, size_t len,
			    const struct usbip_interface_info *i);
int usbip__decode_interface(const uint8_t *buf, size_t len,
			    struct usbip_interface_info *i);

/*
 * 48-byte URB header. encode: the union member of h->command is written,
 * the unused tail zero. decode: USB_EBADMSG if @len < 48; USB_EPROTO for an
 * unknown command, a direction other than 0/1 or an endpoint > 15.
 * Return 48 / 0.
 */
int usbip__encode_header(uint8_t *buf, size_t len, const struct usbip_header *h);
int usbip__decode_header(const uint8_t *buf, size_t len, struct usbip_header *h);

/* 16-byte ISO packet descriptor. */
int usbip__encode_iso_desc(uint8_t *buf, size_t len, const struct usbip_iso_desc *d);
int usbip__decode_iso_desc(const uint8_t *buf, size_t len, struct usbip_iso_desc *d);

/*
 * usbip__submit_payload() - how many bytes follow a decoded CMD_SUBMIT
 * header: the OUT data, then the ISO descriptors.
 * @is_iso: the server's own endpoint descriptor says isochronous.
 * @max_data: the per-connection cap on one URB's transfer_buffer_length.
 * @data, @iso: out: data bytes and ISO descriptor bytes that follow.
 * Return: 0; USB_EMSGSIZE if transfer_buffer_length exceeds @max_data;
 * USB_EPROTO for ISO packet counts on a non-ISO endpoint (other than the
 * 0 Linux sends and the 0xffffffff of the protocol document), more than
 * 1024 packets, or an ISO URB without packets.
 */
int usbip__submit_payload(const struct usbip_header *h, int is_iso, uint32_t max_data,
			  uint32_t *data, uint32_t *iso);

/* Names for logs: "CMD_SUBMIT", "OP_REQ_IMPORT", "DEV_BUSY"... */
const char *usbip__command_name(uint32_t command);
const char *usbip__op_name(uint16_t code);
const char *usbip__op_status_name(uint32_t status);

#endif /* USBIP_CODEC_H */
