/*
 * ch9_own.h - the library's own chapter 9 definitions, used where
 * <linux/usb/ch9.h> is not available. Do not include directly: include
 * composite/ch9.h, which picks Linux's header when the system has it.
 *
 * Names, values and layouts follow the USB 2.0 and 3.2 specifications and
 * match the Linux UAPI spelling, so code written for one compiles with the
 * other; tests/unit/test_ch9.c checks every layout against Linux's header.
 */
#ifndef COMPOSITE_CH9_OWN_H
#define COMPOSITE_CH9_OWN_H

#ifndef COMPOSITE_CH9_H
#error "include composite/ch9.h, not composite/ch9_own.h"
#endif

#include <stdint.h>


/* bmRequestType */
#define USB_DIR_OUT			0
#define USB_DIR_IN			0x80
#define USB_TYPE_MASK			(0x03 << 5)
#define USB_TYPE_STANDARD		(0x00 << 5)
#define USB_TYPE_CLASS			(0x01 << 5)
#define USB_TYPE_VENDOR			(0x02 << 5)
#define USB_TYPE_RESERVED		(0x03 << 5)
#define USB_RECIP_MASK			0x1f
#define USB_RECIP_DEVICE		0x00
#define USB_RECIP_INTERFACE		0x01
#define USB_RECIP_ENDPOINT		0x02
#define USB_RECIP_OTHER			0x03
#define USB_RECIP_PORT			0x04
#define USB_RECIP_RPIPE			0x05

/* Standard requests (bRequest) */
#define USB_REQ_GET_STATUS		0x00
#define USB_REQ_CLEAR_FEATURE		0x01
#define USB_REQ_SET_FEATURE		0x03
#define USB_REQ_SET_ADDRESS		0x05
#define USB_REQ_GET_DESCRIPTOR		0x06
#define USB_REQ_SET_DESCRIPTOR		0x07
#define USB_REQ_GET_CONFIGURATION	0x08
#define USB_REQ_SET_CONFIGURATION	0x09
#define USB_REQ_GET_INTERFACE		0x0A
#define USB_REQ_SET_INTERFACE		0x0B
#define USB_REQ_SYNCH_FRAME		0x0C
#define USB_REQ_SET_SEL			0x30
#define USB_REQ_SET_ISOCH_DELAY		0x31

/* Feature selectors */
#define USB_DEVICE_SELF_POWERED		0
#define USB_DEVICE_REMOTE_WAKEUP	1
#define USB_DEVICE_TEST_MODE		2
#define USB_DEVICE_BATTERY		2
#define USB_DEVICE_B_HNP_ENABLE		3
#define USB_DEVICE_WUSB_DEVICE		3
#define USB_DEVICE_A_HNP_SUPPORT	4
#define USB_DEVICE_A_ALT_HNP_SUPPORT	5
#define USB_DEVICE_DEBUG_MODE		6

#define USB_TEST_J			1
#define USB_TEST_K			2
#define USB_TEST_SE0_NAK		3
#define USB_TEST_PACKET			4
#define USB_TEST_FORCE_ENABLE		5

#define USB_DEVICE_U1_ENABLE		48
#define USB_DEVICE_U2_ENABLE		49
#define USB_DEVICE_LTM_ENABLE		50
#define USB_INTRF_FUNC_SUSPEND		0
#define USB_INTR_FUNC_SUSPEND_OPT_MASK	0xFF00
#define USB_INTRF_FUNC_SUSPEND_LP	(1 << (8 + 0))
#define USB_INTRF_FUNC_SUSPEND_RW	(1 << (8 + 1))
#define USB_INTRF_STAT_FUNC_RW_CAP	1
#define USB_INTRF_STAT_FUNC_RW		2
#define USB_ENDPOINT_HALT		0
#define USB_DEV_STAT_U1_ENABLED		2
#define USB_DEV_STAT_U2_ENABLED		3
#define USB_DEV_STAT_LTM_ENABLED	4

#if defined(_MSC_VER)
#pragma pack(push, 1)
#define COMPOSITE_PACKED
#else
#define COMPOSITE_PACKED __attribute__((packed))
#endif

struct usb_ctrlrequest {
	uint8_t bRequestType;
	uint8_t bRequest;
	uint16_t wValue;
	uint16_t wIndex;
	uint16_t wLength;
} COMPOSITE_PACKED;

/* Descriptor types */
#define USB_DT_DEVICE			0x01
#define USB_DT_CONFIG			0x02
#define USB_DT_STRING			0x03
#define USB_DT_INTERFACE		0x04
#define USB_DT_ENDPOINT			0x05
#define USB_DT_DEVICE_QUALIFIER		0x06
#define USB_DT_OTHER_SPEED_CONFIG	0x07
#define USB_DT_INTERFACE_POWER		0x08
#define USB_DT_OTG			0x09
#define USB_DT_DEBUG			0x0a
#define USB_DT_INTERFACE_ASSOCIATION	0x0b
#define USB_DT_SECURITY			0x0c
#define USB_DT_KEY			0x0d
#define USB_DT_ENCRYPTION_TYPE		0x0e
#define USB_DT_BOS			0x0f
#define USB_DT_DEVICE_CAPABILITY	0x10
#define USB_DT_WIRELESS_ENDPOINT_COMP	0x11
#define USB_DT_WIRE_ADAPTER		0x21
#define USB_DT_RPIPE			0x22
#define USB_DT_CS_RADIO_CONTROL		0x23
#define USB_DT_PIPE_USAGE		0x24
#define USB_DT_SS_ENDPOINT_COMP		0x30
#define USB_DT_SSP_ISOC_ENDPOINT_COMP	0x31
#define USB_DT_CS_DEVICE		(USB_TYPE_CLASS | USB_DT_DEVICE)
#define USB_DT_CS_CONFIG		(USB_TYPE_CLASS | USB_DT_CONFIG)
#define USB_DT_CS_STRING		(USB_TYPE_CLASS | USB_DT_STRING)
#define USB_DT_CS_INTERFACE		(USB_TYPE_CLASS | USB_DT_INTERFACE)
#define USB_DT_CS_ENDPOINT		(USB_TYPE_CLASS | USB_DT_ENDPOINT)

struct usb_descriptor_header {
	uint8_t bLength;
	uint8_t bDescriptorType;
} COMPOSITE_PACKED;

struct usb_device_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t bcdUSB;
	uint8_t bDeviceClass;
	uint8_t bDeviceSubClass;
	uint8_t bDeviceProtocol;
	uint8_t bMaxPacketSize0;
	uint16_t idVendor;
	uint16_t idProduct;
	uint16_t bcdDevice;
	uint8_t iManufacturer;
	uint8_t iProduct;
	uint8_t iSerialNumber;
	uint8_t bNumConfigurations;
} COMPOSITE_PACKED;
#define USB_DT_DEVICE_SIZE		18

/* Device and interface classes */
#define USB_CLASS_PER_INTERFACE		0
#define USB_CLASS_AUDIO			1
#define USB_CLASS_COMM			2
#define USB_CLASS_HID			3
#define USB_CLASS_PHYSICAL		5
#define USB_CLASS_STILL_IMAGE		6
#define USB_CLASS_PRINTER		7
#define USB_CLASS_MASS_STORAGE		8
#define USB_CLASS_HUB			9
#define USB_CLASS_CDC_DATA		0x0a
#define USB_CLASS_CSCID			0x0b
#define USB_CLASS_CONTENT_SEC		0x0d
#define USB_CLASS_VIDEO			0x0e
#define USB_CLASS_WIRELESS_CONTROLLER	0xe0
#define USB_CLASS_PERSONAL_HEALTHCARE	0x0f
#define USB_CLASS_AUDIO_VIDEO		0x10
#define USB_CLASS_BILLBOARD		0x11
#define USB_CLASS_USB_TYPE_C_BRIDGE	0x12
#define USB_CLASS_MISC			0xef
#define USB_CLASS_APP_SPEC		0xfe
#define USB_CLASS_VENDOR_SPEC		0xff
#define USB_SUBCLASS_VENDOR_SPEC	0xff

struct usb_config_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t wTotalLength;
	uint8_t bNumInterfaces;
	uint8_t bConfigurationValue;
	uint8_t iConfiguration;
	uint8_t bmAttributes;
	uint8_t bMaxPower;
} COMPOSITE_PACKED;
#define USB_DT_CONFIG_SIZE		9

#define USB_CONFIG_ATT_ONE		(1 << 7)
#define USB_CONFIG_ATT_SELFPOWER	(1 << 6)
#define USB_CONFIG_ATT_WAKEUP		(1 << 5)
#define USB_CONFIG_ATT_BATTERY		(1 << 4)

#define USB_MAX_STRING_LEN		126

struct usb_string_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t wData[1];
} COMPOSITE_PACKED;

struct usb_interface_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bInterfaceNumber;
	uint8_t bAlternateSetting;
	uint8_t bNumEndpoints;
	uint8_t bInterfaceClass;
	uint8_t bInterfaceSubClass;
	uint8_t bInterfaceProtocol;
	uint8_t iInterface;
} COMPOSITE_PACKED;
#define USB_DT_INTERFACE_SIZE		9

struct usb_endpoint_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bEndpointAddress;
	uint8_t bmAttributes;
	uint16_t wMaxPacketSize;
	uint8_t bInterval;
	/* audio endpoints only (USB_DT_ENDPOINT_AUDIO_SIZE) */
	uint8_t bRefresh;
	uint8_t bSynchAddress;
} COMPOSITE_PACKED;
#define USB_DT_ENDPOINT_SIZE		7
#define USB_DT_ENDPOINT_AUDIO_SIZE	9

#define USB_ENDPOINT_NUMBER_MASK	0x0f
#define USB_ENDPOINT_DIR_MASK		0x80
#define USB_ENDPOINT_XFERTYPE_MASK	0x03
#define USB_ENDPOINT_XFER_CONTROL	0
#define USB_ENDPOINT_XFER_ISOC		1
#define USB_ENDPOINT_XFER_BULK		2
#define USB_ENDPOINT_XFER_INT		3
#define USB_ENDPOINT_MAX_ADJUSTABLE	0x80
#define USB_ENDPOINT_MAXP_MASK		0x07ff
#define USB_EP_MAXP_MULT_SHIFT		11
#define USB_EP_MAXP_MULT_MASK		(3 << USB_EP_MAXP_MULT_SHIFT)
#define USB_EP_MAXP_MULT(m) \
	(((m) & USB_EP_MAXP_MULT_MASK) >> USB_EP_MAXP_MULT_SHIFT)
#define USB_ENDPOINT_INTRTYPE		0x30
#define USB_ENDPOINT_INTR_PERIODIC	(0 << 4)
#define USB_ENDPOINT_INTR_NOTIFICATION	(1 << 4)
#define USB_ENDPOINT_SYNCTYPE		0x0c
#define USB_ENDPOINT_SYNC_NONE		(0 << 2)
#define USB_ENDPOINT_SYNC_ASYNC		(1 << 2)
#define USB_ENDPOINT_SYNC_ADAPTIVE	(2 << 2)
#define USB_ENDPOINT_SYNC_SYNC		(3 << 2)
#define USB_ENDPOINT_USAGE_MASK		0x30
#define USB_ENDPOINT_USAGE_DATA		0x00
#define USB_ENDPOINT_USAGE_FEEDBACK	0x10
#define USB_ENDPOINT_USAGE_IMPLICIT_FB	0x20

static inline int usb_endpoint_num(const struct usb_endpoint_descriptor *epd)
{
	return epd->bEndpointAddress & USB_ENDPOINT_NUMBER_MASK;
}

static inline int usb_endpoint_type(const struct usb_endpoint_descriptor *epd)
{
	return epd->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK;
}

static inline int usb_endpoint_dir_in(const struct usb_endpoint_descriptor *epd)
{
	return (epd->bEndpointAddress & USB_ENDPOINT_DIR_MASK) == USB_DIR_IN;
}

static inline int usb_endpoint_dir_out(const struct usb_endpoint_descriptor *epd)
{
	return (epd->bEndpointAddress & USB_ENDPOINT_DIR_MASK) == USB_DIR_OUT;
}

static inline int usb_endpoint_xfer_bulk(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_type(epd) == USB_ENDPOINT_XFER_BULK;
}

static inline int usb_endpoint_xfer_control(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_type(epd) == USB_ENDPOINT_XFER_CONTROL;
}

static inline int usb_endpoint_xfer_int(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_type(epd) == USB_ENDPOINT_XFER_INT;
}

static inline int usb_endpoint_xfer_isoc(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_type(epd) == USB_ENDPOINT_XFER_ISOC;
}

static inline int usb_endpoint_is_bulk_in(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_xfer_bulk(epd) && usb_endpoint_dir_in(epd);
}

static inline int usb_endpoint_is_bulk_out(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_xfer_bulk(epd) && usb_endpoint_dir_out(epd);
}

static inline int usb_endpoint_is_int_in(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_xfer_int(epd) && usb_endpoint_dir_in(epd);
}

static inline int usb_endpoint_is_int_out(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_xfer_int(epd) && usb_endpoint_dir_out(epd);
}

static inline int usb_endpoint_is_isoc_in(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_xfer_isoc(epd) && usb_endpoint_dir_in(epd);
}

static inline int usb_endpoint_is_isoc_out(const struct usb_endpoint_descriptor *epd)
{
	return usb_endpoint_xfer_isoc(epd) && usb_endpoint_dir_out(epd);
}

static inline int usb_endpoint_maxp(const struct usb_endpoint_descriptor *epd)
{
	/* wMaxPacketSize is little-endian (ch9.h defines the macro first). */
	return USB_LE16_TO_CPU(epd->wMaxPacketSize) & USB_ENDPOINT_MAXP_MASK;
}

static inline int usb_endpoint_maxp_mult(const struct usb_endpoint_descriptor *epd)
{
	return USB_EP_MAXP_MULT(USB_LE16_TO_CPU(epd->wMaxPacketSize)) + 1;
}

struct usb_ss_ep_comp_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bMaxBurst;
	uint8_t bmAttributes;
	uint16_t wBytesPerInterval;
} COMPOSITE_PACKED;
#define USB_DT_SS_EP_COMP_SIZE		6

struct usb_qualifier_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t bcdUSB;
	uint8_t bDeviceClass;
	uint8_t bDeviceSubClass;
	uint8_t bDeviceProtocol;
	uint8_t bMaxPacketSize0;
	uint8_t bNumConfigurations;
	uint8_t bRESERVED;
} COMPOSITE_PACKED;

struct usb_otg_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bmAttributes;
} COMPOSITE_PACKED;

struct usb_interface_assoc_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bFirstInterface;
	uint8_t bInterfaceCount;
	uint8_t bFunctionClass;
	uint8_t bFunctionSubClass;
	uint8_t bFunctionProtocol;
	uint8_t iFunction;
} COMPOSITE_PACKED;
#define USB_DT_INTERFACE_ASSOCIATION_SIZE	8

struct usb_bos_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t wTotalLength;
	uint8_t bNumDeviceCaps;
} COMPOSITE_PACKED;
#define USB_DT_BOS_SIZE			5

struct usb_dev_cap_header {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
} COMPOSITE_PACKED;

#define USB_CAP_TYPE_EXT		2
struct usb_ext_cap_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint32_t bmAttributes;
} COMPOSITE_PACKED;
#define USB_LPM_SUPPORT			(1 << 1)
#define USB_BESL_SUPPORT		(1 << 2)
#define USB_DT_USB_EXT_CAP_SIZE		7

#define USB_SS_CAP_TYPE			3
struct usb_ss_cap_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bmAttributes;
	uint16_t wSpeedSupported;
	uint8_t bFunctionalitySupport;
	uint8_t bU1devExitLat;
	uint16_t bU2DevExitLat;
} COMPOSITE_PACKED;
#define USB_LTM_SUPPORT			(1 << 1)
#define USB_LOW_SPEED_OPERATION		(1)
#define USB_FULL_SPEED_OPERATION	(1 << 1)
#define USB_HIGH_SPEED_OPERATION	(1 << 2)
#define USB_5GBPS_OPERATION		(1 << 3)
#define USB_DT_USB_SS_CAP_SIZE		10

#if defined(_MSC_VER)
#pragma pack(pop)
#endif
#undef COMPOSITE_PACKED

enum usb_device_speed {
	USB_SPEED_UNKNOWN = 0,
	USB_SPEED_LOW, USB_SPEED_FULL,
	USB_SPEED_HIGH,
	USB_SPEED_WIRELESS,
	USB_SPEED_SUPER,
	USB_SPEED_SUPER_PLUS
};

enum usb_device_state {
	USB_STATE_NOTATTACHED = 0,
	USB_STATE_ATTACHED,
	USB_STATE_POWERED,
	USB_STATE_RECONNECTING,
	USB_STATE_UNAUTHENTICATED,
	USB_STATE_DEFAULT,
	USB_STATE_ADDRESS,
	USB_STATE_CONFIGURED,
	USB_STATE_SUSPENDED
};

#endif /* COMPOSITE_CH9_OWN_H */
