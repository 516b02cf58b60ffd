/*
 * ch9_own.h - the library's own chapter 9 definitions, used on every build
 * host. Do not include directly: include composite/ch9.h, which skips this
 * file when <linux/usb/ch9.h> was included first.
 *
 * Names, values and layouts follow the USB 2.0 and 3.2 specifications and
 * match the Linux UAPI spelling, so code written for one compiles with the
 * other; tests/unit/test_core_ch9* check every name, value and layout
 * against Linux's header where it exists.
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

/* ---- the rest of Linux's <linux/usb/ch9.h> names --------------------- */
/* Rarely used by gadgets, but ported code and host tools name them, so
 * they are here with Linux's names and values (USB 2.0, USB 3.2, OTG and
 * EH 2.0, Power Delivery 3.0 and the withdrawn Wireless USB 1.0). */

/* Wireless USB and USB 3.2 requests (bRequest). */
#define USB_REQ_SET_ENCRYPTION		0x0D
#define USB_REQ_GET_ENCRYPTION		0x0E
#define USB_REQ_RPIPE_ABORT		0x0E
#define USB_REQ_SET_HANDSHAKE		0x0F
#define USB_REQ_RPIPE_RESET		0x0F
#define USB_REQ_GET_HANDSHAKE		0x10
#define USB_REQ_SET_CONNECTION		0x11
#define USB_REQ_SET_SECURITY_DATA	0x12
#define USB_REQ_GET_SECURITY_DATA	0x13
#define USB_REQ_SET_WUSB_DATA		0x14
#define USB_REQ_LOOPBACK_DATA_WRITE	0x15
#define USB_REQ_LOOPBACK_DATA_READ	0x16
#define USB_REQ_SET_INTERFACE_DS	0x17

/* Power Delivery requests (bRequest). */
#define USB_REQ_GET_PARTNER_PDO		20
#define USB_REQ_GET_BATTERY_STATUS	21
#define USB_REQ_SET_PDO			22
#define USB_REQ_GET_VDM			23
#define USB_REQ_SEND_VDM		24

/* Power Delivery device features (wValue of SET/CLEAR_FEATURE). */
#define USB_DEVICE_BATTERY_WAKE_MASK	40
#define USB_DEVICE_OS_IS_PD_AWARE	41
#define USB_DEVICE_POLICY_MODE		42
#define USB_DEVICE_CHARGING_POLICY	54

/* Power Delivery port features. */
#define USB_PORT_PR_SWAP		43
#define USB_PORT_GOTO_MIN		44
#define USB_PORT_RETURN_POWER		45
#define USB_PORT_ACCEPT_PD_REQUEST	46
#define USB_PORT_REJECT_PD_REQUEST	47
#define USB_PORT_PORT_PD_RESET		48
#define USB_PORT_C_PORT_PD_CHANGE	49
#define USB_PORT_CABLE_PD_RESET		50

/* OTG status selector (wIndex of GET_STATUS) and the status types of
 * USB 3.1 GET_STATUS. */
#define OTG_STS_SELECTOR		0xF000
#define USB_STATUS_TYPE_STANDARD	0
#define USB_STATUS_TYPE_PTM		1

/* Self-powered device drawing from VBUS at most this, in mA. */
#define USB_SELF_POWER_VBUS_MAX_DRAW	100

/* SET_SEL/U1/U2 limits (USB 3.2 9.4.12, 10.14.2.10). */
#define USB3_LPM_DISABLED		0x00
#define USB3_LPM_U1_MAX_TIMEOUT		0x7F
#define USB3_LPM_U2_MAX_TIMEOUT		0xFE
#define USB3_LPM_DEVICE_INITIATED	0xFF
#define USB3_LPM_MAX_U1_SEL_PEL		0xFF
#define USB3_LPM_MAX_U2_SEL_PEL		0xFFFF

struct usb_set_sel_req {
	uint8_t u1_sel;
	uint8_t u1_pel;
	uint16_t u2_sel;
	uint16_t u2_pel;
} COMPOSITE_PACKED;

/* SuperSpeedPlus isochronous endpoint companion (USB 3.2 9.6.8). */
struct usb_ssp_isoc_ep_comp_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t wReseved;	/* sic: Linux's spelling */
	uint32_t dwBytesPerInterval;
} COMPOSITE_PACKED;
#define USB_DT_SSP_ISOC_EP_COMP_SIZE	8
/* bmAttributes of the SuperSpeed companion: Mult and the SSP flag. */
#define USB_SS_MULT(p)			(1 + ((p) & 0x3))
#define USB_SS_SSP_ISOC_COMP(p)		((p) & (1 << 7))

/* OTG descriptor bmAttributes, and the OTG 2.0 descriptor. */
#define USB_OTG_SRP			(1 << 0)
#define USB_OTG_HNP			(1 << 1)
#define USB_OTG_ADP			(1 << 2)
struct usb_otg20_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bmAttributes;
	uint16_t bcdOTG;
} COMPOSITE_PACKED;

/* Debug device descriptor (USB 2.0 debug port). */
struct usb_debug_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDebugInEndpoint;
	uint8_t bDebugOutEndpoint;
} COMPOSITE_PACKED;

/* Wireless USB security: descriptors, keys, the handshake. */
struct usb_security_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint16_t wTotalLength;
	uint8_t bNumEncryptionTypes;
} COMPOSITE_PACKED;

struct usb_key_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t tTKID[3];
	uint8_t bReserved;
	uint8_t bKeyData[];
} COMPOSITE_PACKED;

struct usb_encryption_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bEncryptionType;
	uint8_t bEncryptionValue;
	uint8_t bAuthKeyIndex;
} COMPOSITE_PACKED;
#define USB_ENC_TYPE_UNSECURE		0
#define USB_ENC_TYPE_WIRED		1
#define USB_ENC_TYPE_CCM_1		2
#define USB_ENC_TYPE_RSA_1		3

struct usb_handshake {
	uint8_t bMessageNumber;
	uint8_t bStatus;
	uint8_t tTKID[3];
	uint8_t bReserved;
	uint8_t CDID[16];
	uint8_t nonce[16];
	uint8_t MIC[8];
} COMPOSITE_PACKED;

struct usb_connection_context {
	uint8_t CHID[16];
	uint8_t CDID[16];
	uint8_t CK[16];
} COMPOSITE_PACKED;

/* Wireless USB endpoint companion. */
struct usb_wireless_ep_comp_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bMaxBurst;
	uint8_t bMaxSequence;
	uint16_t wMaxStreamDelay;
	uint16_t wOverTheAirPacketSize;
	uint8_t bOverTheAirInterval;
	uint8_t bmCompAttributes;
} COMPOSITE_PACKED;
#define USB_ENDPOINT_SWITCH_MASK	0x03
#define USB_ENDPOINT_SWITCH_NO		0
#define USB_ENDPOINT_SWITCH_SWITCH	1
#define USB_ENDPOINT_SWITCH_SCALE	2

/* Device capability: Wireless USB. */
#define USB_CAP_TYPE_WIRELESS_USB	1
struct usb_wireless_cap_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bmAttributes;
	uint16_t wPHYRates;
	uint8_t bmTFITXPowerInfo;
	uint8_t bmFFITXPowerInfo;
	uint16_t bmBandGroup;
	uint8_t bReserved;
} COMPOSITE_PACKED;
#define USB_DT_USB_WIRELESS_CAP_SIZE	11
#define USB_WIRELESS_P2P_DRD		(1 << 1)
#define USB_WIRELESS_BEACON_MASK	(3 << 2)
#define USB_WIRELESS_BEACON_SELF	(1 << 2)
#define USB_WIRELESS_BEACON_DIRECTED	(2 << 2)
#define USB_WIRELESS_BEACON_NONE	(3 << 2)
#define USB_WIRELESS_PHY_53		(1 << 0)
#define USB_WIRELESS_PHY_80		(1 << 1)
#define USB_WIRELESS_PHY_107		(1 << 2)
#define USB_WIRELESS_PHY_160		(1 << 3)
#define USB_WIRELESS_PHY_200		(1 << 4)
#define USB_WIRELESS_PHY_320		(1 << 5)
#define USB_WIRELESS_PHY_400		(1 << 6)
#define USB_WIRELESS_PHY_480		(1 << 7)

/* USB 2.0 extension: BESL fields of bmAttributes (LPM errata). */
#define USB_BESL_BASELINE_VALID		(1 << 3)
#define USB_BESL_DEEP_VALID		(1 << 4)
#define USB_SET_BESL_BASELINE(p)	(((p) & 0xf) << 8)
#define USB_SET_BESL_DEEP(p)		(((p) & 0xf) << 12)
#define USB_GET_BESL_BASELINE(p)	(((p) & (0xf << 8)) >> 8)
#define USB_GET_BESL_DEEP(p)		(((p) & (0xf << 12)) >> 12)

/* Device capability: Container ID. */
#define CONTAINER_ID_TYPE		4
struct usb_ss_container_id_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bReserved;
	uint8_t ContainerID[16];
} COMPOSITE_PACKED;
#define USB_DT_USB_SS_CONTN_ID_SIZE	20

/* Device capability: SuperSpeedPlus (one or more sublink attributes). */
#define USB_SSP_CAP_TYPE		0xa
struct usb_ssp_cap_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bReserved;
	uint32_t bmAttributes;
	uint16_t wFunctionalitySupport;
	uint16_t wReserved;
	uint32_t bmSublinkSpeedAttr[1];
} COMPOSITE_PACKED;
/* Size with @ssac + 1 sublink speed attributes (ssac: bmAttributes & 0x1f). */
#define USB_DT_USB_SSP_CAP_SIZE(ssac)	(12 + ((ssac) + 1) * 4)
#define USB_SSP_SUBLINK_SPEED_ATTRIBS	(0x1f << 0)
#define USB_SSP_SUBLINK_SPEED_IDS	(0xf << 5)
#define USB_SSP_MIN_SUBLINK_SPEED_ATTRIBUTE_ID	(0xf)
#define USB_SSP_MIN_RX_LANE_COUNT	(0xf << 8)
#define USB_SSP_MIN_TX_LANE_COUNT	(0xf << 12)
#define USB_SSP_SUBLINK_SPEED_SSID	(0xf)
#define USB_SSP_SUBLINK_SPEED_LSE	(0x3 << 4)
#define USB_SSP_SUBLINK_SPEED_LSE_BPS	0
#define USB_SSP_SUBLINK_SPEED_LSE_KBPS	1
#define USB_SSP_SUBLINK_SPEED_LSE_MBPS	2
#define USB_SSP_SUBLINK_SPEED_LSE_GBPS	3
#define USB_SSP_SUBLINK_SPEED_ST	(0x3 << 6)
#define USB_SSP_SUBLINK_SPEED_ST_SYM_RX	0
#define USB_SSP_SUBLINK_SPEED_ST_ASYM_RX	1
#define USB_SSP_SUBLINK_SPEED_ST_SYM_TX	2
#define USB_SSP_SUBLINK_SPEED_ST_ASYM_TX	3
#define USB_SSP_SUBLINK_SPEED_RSVD	(0x3f << 8)
#define USB_SSP_SUBLINK_SPEED_LP	(0x3 << 14)
#define USB_SSP_SUBLINK_SPEED_LP_SS	0
#define USB_SSP_SUBLINK_SPEED_LP_SSP	1
#define USB_SSP_SUBLINK_SPEED_LSM	(0xff << 16)

/* Device capability: Precision Time Measurement. */
#define USB_PTM_CAP_TYPE		0xb
struct usb_ptm_cap_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
} COMPOSITE_PACKED;
#define USB_DT_USB_PTM_ID_SIZE		3

/* Device capabilities: Power Delivery (USB PD 3.0 9.2). */
#define USB_PD_POWER_DELIVERY_CAPABILITY	0x06
#define USB_PD_BATTERY_INFO_CAPABILITY		0x07
#define USB_PD_PD_CONSUMER_PORT_CAPABILITY	0x08
#define USB_PD_PD_PROVIDER_PORT_CAPABILITY	0x09

struct usb_pd_cap_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bReserved;
	uint32_t bmAttributes;
	uint16_t bmProviderPorts;
	uint16_t bmConsumerPorts;
	uint16_t bcdBCVersion;
	uint16_t bcdPDVersion;
	uint16_t bcdUSBTypeCVersion;
} COMPOSITE_PACKED;
#define USB_PD_CAP_BATTERY_CHARGING	(1 << 1)
#define USB_PD_CAP_USB_PD		(1 << 2)
#define USB_PD_CAP_PROVIDER		(1 << 3)
#define USB_PD_CAP_CONSUMER		(1 << 4)
#define USB_PD_CAP_CHARGING_POLICY	(1 << 5)
#define USB_PD_CAP_TYPE_C_CURRENT	(1 << 6)
#define USB_PD_CAP_PWR_AC		(1 << 8)
#define USB_PD_CAP_PWR_BAT		(1 << 9)
#define USB_PD_CAP_PWR_USE_V_BUS	(1 << 14)

struct usb_pd_cap_battery_info_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t iBattery;
	uint8_t iSerial;
	uint8_t iManufacturer;
	uint8_t bBatteryId;
	uint8_t bReserved;
	uint32_t dwChargedThreshold;		/* mWh */
	uint32_t dwWeakThreshold;		/* mWh */
	uint32_t dwBatteryDesignCapacity;	/* mWh */
	uint32_t dwBatteryLastFullchargeCapacity;	/* mWh */
} COMPOSITE_PACKED;

struct usb_pd_cap_consumer_port_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bReserved;
	uint8_t bmCapabilities;
	uint16_t wMinVoltage;		/* 50 mV units */
	uint16_t wMaxVoltage;		/* 50 mV units */
	uint16_t wReserved;
	uint32_t dwMaxOperatingPower;	/* 10 mW units */
	uint32_t dwMaxPeakPower;	/* 10 mW units */
	uint32_t dwMaxPeakPowerTime;	/* 100 ms units */
} COMPOSITE_PACKED;
#define USB_PD_CAP_CONSUMER_BC		(1 << 0)
#define USB_PD_CAP_CONSUMER_PD		(1 << 1)
#define USB_PD_CAP_CONSUMER_TYPE_C	(1 << 2)
#define USB_PD_CAP_CONSUMER_UNKNOWN_PEAK_POWER_TIME	0xffff

struct usb_pd_cap_provider_port_descriptor {
	uint8_t bLength;
	uint8_t bDescriptorType;
	uint8_t bDevCapabilityType;
	uint8_t bReserved1;
	uint8_t bmCapabilities;
	uint8_t bNumOfPDObjects;
	uint8_t bReserved2;
	uint32_t wPowerDataObject[];
} COMPOSITE_PACKED;
#define USB_PD_CAP_PROVIDER_BC		(1 << 0)
#define USB_PD_CAP_PROVIDER_PD		(1 << 1)
#define USB_PD_CAP_PROVIDER_TYPE_C	(1 << 2)


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
