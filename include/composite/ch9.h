/*
 * ch9.h - USB 2.0/3.x chapter 9 wire types: setup packets, descriptors and
 * their constants, plus little-endian helpers.
 *
 * The definitions are the library's own (ch9_own.h), the same on every build
 * host: written from the USB specifications with Linux's names, layouts and
 * values (tests/unit/test_core_ch9* compare them with <linux/usb/ch9.h>).
 * A file may include this header and <linux/usb/ch9.h> in either order:
 * whichever comes second is skipped (Linux's include guard), and the
 * layout-identical types of the first serve both.
 * Multi-byte fields are little-endian on the wire: use USB_CPU_TO_LE16() and
 * USB_LE16_TO_CPU() (or cpu_to_le16() from composite/linux/types.h).
 */
#ifndef COMPOSITE_CH9_H
#define COMPOSITE_CH9_H

#include <stddef.h>
#include <stdint.h>

/* ---- byte order ------------------------------------------------------- */

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define USB_CPU_TO_LE16(x) \
	((uint16_t)((((uint16_t)(x) & 0xffu) << 8) | (((uint16_t)(x) >> 8) & 0xffu)))
#define USB_CPU_TO_LE32(x) \
	((uint32_t)((((uint32_t)(x) & 0xffu) << 24) | \
		    (((uint32_t)(x) & 0xff00u) << 8) | \
		    (((uint32_t)(x) >> 8) & 0xff00u) | \
		    (((uint32_t)(x) >> 24) & 0xffu)))
#else
/* Little-endian CPUs (and any compiler that does not say): identity. */
#define USB_CPU_TO_LE16(x) ((uint16_t)(x))
#define USB_CPU_TO_LE32(x) ((uint32_t)(x))
#endif
#define USB_LE16_TO_CPU(x) USB_CPU_TO_LE16(x)
#define USB_LE32_TO_CPU(x) USB_CPU_TO_LE32(x)

#ifdef __LINUX_USB_CH9_H
/* <linux/usb/ch9.h> came first: its types, identical in layout, serve. */
#define COMPOSITE_CH9_FROM_LINUX 1
#else
#include "composite/ch9_own.h"
/* Skip a later <linux/usb/ch9.h>, which would redefine every type, but
 * keep the kernel type names (__u8, __le16...) it would have brought. */
#define __LINUX_USB_CH9_H 1
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/types.h>)
#include <linux/types.h>
#endif
#endif
#endif

/* Helpers for reading a wire buffer byte by byte (no alignment needed). */
static inline uint16_t usb_get_le16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline void usb_put_le16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline uint32_t usb_get_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) |
	       ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static inline void usb_put_le32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/* Layouts the library relies on, whichever header supplied them. */
#if defined(__cplusplus)
#define COMPOSITE_STATIC_ASSERT static_assert
#else
#define COMPOSITE_STATIC_ASSERT _Static_assert
#endif
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_ctrlrequest) == 8, "setup packet");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_device_descriptor) == 18, "device");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_config_descriptor) == 9, "config");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_interface_descriptor) == 9, "intf");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_endpoint_descriptor) == 9, "ep (audio size)");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_qualifier_descriptor) == 10, "qualifier");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_ss_ep_comp_descriptor) == 6, "ss comp");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_bos_descriptor) == 5, "bos");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_ext_cap_descriptor) == 7, "usb2 ext");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_ss_cap_descriptor) == 10, "ss cap");
COMPOSITE_STATIC_ASSERT(sizeof(struct usb_interface_assoc_descriptor) == 8, "iad");

#endif /* COMPOSITE_CH9_H */
