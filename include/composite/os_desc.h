/*
 * os_desc.h - descriptors for Windows and for browsers, per function and
 * per device:
 * - MS OS 1.0 descriptors as Linux's os_desc: string 0xEE, extended
 *   compat ID and extended properties, by Linux's names
 *   (struct usb_os_desc, usb_os_desc_table, usb_os_desc_ext_prop;
 *   cdev->use_os_string, b_vendor_code, qw_sign, os_desc_config);
 * - MS OS 2.0 descriptors (not in Linux): the same compatible IDs and
 *   registry properties sent as a descriptor set through a BOS platform
 *   capability and its vendor request (cdev->use_ms_os_20...);
 * - the WebUSB platform capability and its landing page, as Linux 6.4's
 *   (cdev->use_webusb, bcd_webusb_version, b_webusb_vendor_code,
 *   landing_page).
 * A function describes what Windows should load for each of its
 * interfaces once (usb_function.os_desc_table); the device chooses which
 * of the two Microsoft layouts carry it. Included by composite.h.
 * docs/os-descriptors.md has a worked example.
 */
#ifndef COMPOSITE_OS_DESC_H
#define COMPOSITE_OS_DESC_H

#include <stdint.h>

#include "composite/list.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- MS OS 1.0 (Microsoft OS Descriptors 1.0) ---------------------------- */

/* The OS string descriptor's index, and its signature's size in bytes. */
#define OS_STRING_IDX		0xEE
#define OS_STRING_QW_SIGN_LEN	14	/* "MSFT100" in UTF-16LE */

/* wIndex of the vendor requests for the feature descriptors. */
#define USB_OS_DESC_EXT_COMPAT_ID	0x0004
#define USB_OS_DESC_EXT_PROPERTIES	0x0005

/* A compatible ID and a sub-compatible ID, 8 bytes each, NUL padded. */
#define USB_OS_DESC_COMPAT_ID_LEN	8

/* Registry value types of extended properties (1.0 and 2.0): Linux's names
 * for REG_SZ, REG_EXPAND_SZ, REG_BINARY, REG_DWORD_LITTLE_ENDIAN,
 * REG_DWORD_BIG_ENDIAN, REG_LINK, REG_MULTI_SZ. */
#define USB_EXT_PROP_UNICODE		1
#define USB_EXT_PROP_UNICODE_ENV	2
#define USB_EXT_PROP_BINARY		3
#define USB_EXT_PROP_LE32		4
#define USB_EXT_PROP_BE32		5
#define USB_EXT_PROP_UNICODE_LINK	6
#define USB_EXT_PROP_UNICODE_MULTI	7

/**
 * struct usb_os_desc_ext_prop - one registry property of an interface.
 * @entry: in usb_os_desc.ext_prop.
 * @type: USB_EXT_PROP_*.
 * @name: the value's name, UTF-8, NUL-terminated (e.g.
 *	"DeviceInterfaceGUIDs"). Sent as UTF-16LE with its NUL.
 * @data, @data_len: the value. BINARY: @data_len raw bytes; LE32 and
 *	BE32: exactly 4 bytes, sent as given. UNICODE, UNICODE_ENV and
 *	UNICODE_LINK: UTF-8 read up to its first NUL or @data_len bytes;
 *	UNICODE_MULTI: UTF-8 strings, each ending with a NUL, the list ending
 *	with an empty one (or at @data_len bytes). Unicode values are sent as
 *	UTF-16LE with the terminating NULs Windows expects.
 * @name_len: kept so Linux code that fills it compiles; the core does not
 *	read it (it measures @name itself).
 *
 * Borrowed: owned by the function, which must keep it unchanged while the
 * function is bound.
 */
struct usb_os_desc_ext_prop {
	struct list_head entry;
	uint8_t type;
	int name_len;
	const char *name;
	int data_len;
	const char *data;
};

/**
 * struct usb_os_desc - what Windows should know about one interface.
 * @ext_compat_id: NULL, or 16 bytes: the compatible ID ("WINUSB",
 *	"RNDIS"...) then the sub-compatible ID, each NUL padded to 8 bytes.
 *	As Linux, an interface whose entry has @ext_compat_id (even all
 *	zero) gets a section in the extended compat ID descriptor.
 * @ext_prop: list of struct usb_os_desc_ext_prop (INIT_LIST_HEAD it, even
 *	when empty).
 * @ext_prop_len, @ext_prop_count: kept so Linux code that maintains them
 *	compiles; the core counts the list itself and does not read them.
 */
struct usb_os_desc {
	char *ext_compat_id;
	struct list_head ext_prop;
	int ext_prop_len;
	int ext_prop_count;
};

/**
 * struct usb_os_desc_table - binds an usb_os_desc to an interface.
 * @if_id: the interface number (from usb_interface_id() in bind).
 * @os_desc: borrowed; NULL entries are skipped.
 */
struct usb_os_desc_table {
	int if_id;
	struct usb_os_desc *os_desc;
};

/* ---- BOS platform capabilities -------------------------------------------- */

#define USB_PLAT_DEV_CAP_TYPE		0x05	/* bDevCapabilityType */

/* ---- MS OS 2.0 (Microsoft OS 2.0 Descriptors Specification) -------------- */

/* The platform capability's UUID {D8DD60DF-4589-4CC7-9CD2-659D9E648A9F},
 * as its 16 bytes go on the wire. */
#define USB_MS_OS_20_UUID \
	0xDF, 0x60, 0xDD, 0xD8, 0x89, 0x45, 0xC7, 0x4C, \
	0x9C, 0xD2, 0x65, 0x9D, 0x9E, 0x64, 0x8A, 0x9F
#define USB_MS_OS_20_CAP_SIZE		28
#define USB_MS_OS_20_DESCRIPTOR_INDEX	0x07	/* wIndex of the set request */
#define USB_MS_OS_20_SET_ALT_ENUMERATION 0x08	/* not offered: stalls */
/* Windows 8.1, the first to read MS OS 2.0 descriptors. */
#define USB_MS_OS_20_WINDOWS_8_1	0x06030000u

/* wDescriptorType of the descriptor set's parts. */
#define USB_MS_OS_20_SET_HEADER_DESCRIPTOR	0x00
#define USB_MS_OS_20_SUBSET_HEADER_CONFIGURATION 0x01
#define USB_MS_OS_20_SUBSET_HEADER_FUNCTION	0x02
#define USB_MS_OS_20_FEATURE_COMPATBLE_ID	0x03	/* the specification's spelling */
#define USB_MS_OS_20_FEATURE_REG_PROPERTY	0x04

/* ---- WebUSB (WebUSB API, section 4), Linux's names ------------------------- */

/* {3408b638-09a9-47a0-8bfd-a0768815b665}, as on the wire. */
#define WEBUSB_UUID \
	0x38, 0xB6, 0x08, 0x34, 0xA9, 0x09, 0xA0, 0x47, \
	0x8B, 0xFD, 0xA0, 0x76, 0x88, 0x15, 0xB6, 0x65
#define USB_WEBUSB_CAP_SIZE		24
#define USB_WEBUSB_GET_URL		0x02	/* wIndex of the URL request */
#define USB_DT_WEBUSB_URL		0x03
#define WEBUSB_URL_SCHEME_HTTP		0
#define WEBUSB_URL_SCHEME_HTTPS		1
#define WEBUSB_URL_SCHEME_NONE		255
#define WEBUSB_URL_DESCRIPTOR_HEADER_LENGTH 3
/* A landing page as given, scheme included: the descriptor holds 252 bytes
 * of URL after its header, "https://" is not sent. */
#define WEBUSB_URL_RAW_MAX_LENGTH	(255 - WEBUSB_URL_DESCRIPTOR_HEADER_LENGTH + 8)

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_OS_DESC_H */
