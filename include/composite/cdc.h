/*
 * cdc.h - USB Communications Device Class wire types (CDC 1.2, PSTN 1.2
 * for ACM) with Linux's <linux/usb/cdc.h> names, layouts and values: the
 * functional descriptors, line coding, notifications and the class
 * requests the library's CDC functions use. A file may include this header
 * and <linux/usb/cdc.h> in either order: whichever comes second is skipped
 * (Linux's include guard), and the identical types of the first serve.
 */
#ifndef COMPOSITE_CDC_H
#define COMPOSITE_CDC_H

#include "composite/ch9.h"

#ifndef __UAPI_LINUX_USB_CDC_H
#define __UAPI_LINUX_USB_CDC_H
#if defined(_MSC_VER)
#pragma pack(push, 1)
#define COMPOSITE_PACKED
#else
#define COMPOSITE_PACKED __attribute__((packed))
#endif

#define USB_CDC_SUBCLASS_ACM		0x02
#define USB_CDC_SUBCLASS_ETHERNET	0x06
#define USB_CDC_SUBCLASS_NCM		0x0d

#define USB_CDC_PROTO_NONE		0
#define USB_CDC_ACM_PROTO_AT_V25TER	1

/* Functional descriptor subtypes (bDescriptorSubType, CS_INTERFACE). */
#define USB_CDC_HEADER_TYPE		0x00
#define USB_CDC_CALL_MANAGEMENT_TYPE	0x01
#define USB_CDC_ACM_TYPE		0x02
#define USB_CDC_UNION_TYPE		0x06
#define USB_CDC_ETHERNET_TYPE		0x0f
#define USB_CDC_NCM_TYPE		0x1a

struct usb_cdc_header_desc {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDescriptorSubType;
	uint16_t bcdCDC;
} COMPOSITE_PACKED;

/* Call management (PSTN 5.3.1). */
struct usb_cdc_call_mgmt_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDescriptorSubType;
	uint8_t bmCapabilities;
#define USB_CDC_CALL_MGMT_CAP_CALL_MGMT	0x01
#define USB_CDC_CALL_MGMT_CAP_DATA_INTF	0x02
	uint8_t bDataInterface;
} COMPOSITE_PACKED;

/* Abstract control management (PSTN 5.3.2). */
struct usb_cdc_acm_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDescriptorSubType;
	uint8_t bmCapabilities;
} COMPOSITE_PACKED;

#define USB_CDC_COMM_FEATURE	0x01
#define USB_CDC_CAP_LINE	0x02	/* line coding, control line state, serial state */
#define USB_CDC_CAP_BRK		0x04	/* SEND_BREAK */
#define USB_CDC_CAP_NOTIFY	0x08

struct usb_cdc_union_desc {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDescriptorSubType;
	uint8_t bMasterInterface0;
	uint8_t bSlaveInterface0;
} COMPOSITE_PACKED;

/* Ethernet networking functional descriptor (ECM 1.2, 5.4). */
struct usb_cdc_ether_desc {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDescriptorSubType;
	uint8_t iMACAddress;		/* a string of 12 hex digits */
	uint32_t bmEthernetStatistics;
	uint16_t wMaxSegmentSize;
	uint16_t wNumberMCFilters;
	uint8_t bNumberPowerFilters;
} COMPOSITE_PACKED;

/* Class requests (bRequest). */
#define USB_CDC_SEND_ENCAPSULATED_COMMAND	0x00
#define USB_CDC_GET_ENCAPSULATED_RESPONSE	0x01
#define USB_CDC_REQ_SET_LINE_CODING		0x20
#define USB_CDC_REQ_GET_LINE_CODING		0x21
#define USB_CDC_REQ_SET_CONTROL_LINE_STATE	0x22
#define USB_CDC_REQ_SEND_BREAK			0x23
#define USB_CDC_SET_ETHERNET_MULTICAST_FILTERS	0x40
#define USB_CDC_SET_ETHERNET_PM_PATTERN_FILTER	0x41
#define USB_CDC_GET_ETHERNET_PM_PATTERN_FILTER	0x42
#define USB_CDC_SET_ETHERNET_PACKET_FILTER	0x43
#define USB_CDC_GET_ETHERNET_STATISTIC		0x44

/* SET_ETHERNET_PACKET_FILTER wValue bits (ECM 1.2, 6.2.4). */
#define USB_CDC_PACKET_TYPE_PROMISCUOUS		(1 << 0)
#define USB_CDC_PACKET_TYPE_ALL_MULTICAST	(1 << 1)
#define USB_CDC_PACKET_TYPE_DIRECTED		(1 << 2)
#define USB_CDC_PACKET_TYPE_BROADCAST		(1 << 3)
#define USB_CDC_PACKET_TYPE_MULTICAST		(1 << 4)

/* SET_LINE_CODING / GET_LINE_CODING data (PSTN 6.3.11). */
struct usb_cdc_line_coding {
	uint32_t dwDTERate;	/* bits per second, little-endian */
	uint8_t bCharFormat;
#define USB_CDC_1_STOP_BITS			0
#define USB_CDC_1_5_STOP_BITS			1
#define USB_CDC_2_STOP_BITS			2
	uint8_t bParityType;
#define USB_CDC_NO_PARITY			0
#define USB_CDC_ODD_PARITY			1
#define USB_CDC_EVEN_PARITY			2
#define USB_CDC_MARK_PARITY			3
#define USB_CDC_SPACE_PARITY			4
	uint8_t bDataBits;	/* 5, 6, 7, 8 or 16 */
} COMPOSITE_PACKED;

/* Notifications on the interrupt IN endpoint (the 8-byte header). */
struct usb_cdc_notification {
	uint8_t bmRequestType;
	uint8_t bNotificationType;
	uint16_t wValue;
	uint16_t wIndex;
	uint16_t wLength;
} COMPOSITE_PACKED;

#define USB_CDC_NOTIFY_NETWORK_CONNECTION	0x00
#define USB_CDC_NOTIFY_RESPONSE_AVAILABLE	0x01
#define USB_CDC_NOTIFY_SERIAL_STATE		0x20
#define USB_CDC_NOTIFY_SPEED_CHANGE		0x2a

/* CONNECTION_SPEED_CHANGE's 8 data bytes (CDC 1.2, 6.3.3). */
struct usb_cdc_speed_change {
	uint32_t DLBitRRate;	/* downstream bit rate, little-endian (Linux's spelling) */
	uint32_t ULBitRate;
} COMPOSITE_PACKED;

/* SERIAL_STATE bits (PSTN 6.5.4), the 2 data bytes of the notification. */
#define USB_CDC_SERIAL_STATE_DCD		(1 << 0)
#define USB_CDC_SERIAL_STATE_DSR		(1 << 1)
#define USB_CDC_SERIAL_STATE_BREAK		(1 << 2)
#define USB_CDC_SERIAL_STATE_RING_SIGNAL	(1 << 3)
#define USB_CDC_SERIAL_STATE_FRAMING		(1 << 4)
#define USB_CDC_SERIAL_STATE_PARITY		(1 << 5)
#define USB_CDC_SERIAL_STATE_OVERRUN		(1 << 6)

#if defined(_MSC_VER)
#pragma pack(pop)
#endif
#undef COMPOSITE_PACKED
#endif /* __UAPI_LINUX_USB_CDC_H */

COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_header_desc) == 5, "cdc header");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_call_mgmt_descriptor) == 5, "call mgmt");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_acm_descriptor) == 4, "acm");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_union_desc) == 5, "union");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_line_coding) == 7, "line coding");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_notification) == 8, "notification");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_ether_desc) == 13, "ether");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_cdc_speed_change) == 8, "speed change");

#endif /* COMPOSITE_CDC_H */
