/*
 * ch9.h - USB 2.0/3.x chapter 9 wire types: setup packets, descriptors and
 * their constants, plus little-endian helpers.
 *
 * Where the system has <linux/usb/ch9.h> these ARE that header's types, so a
 * file may include both in any order. Elsewhere (bare metal, macOS, Windows),
 * or when COMPOSITE_OWN_CH9 is defined, this header supplies definitions with
 * the same names, layouts and values, written from the USB specification.
 * Multi-byte fields are little-endian on the wire: use cpu_to_le16() and
 * le16_to_cpu() (or the usb_ prefixed forms) to read and write them.
 */
#ifndef COMPOSITE_CH9_H
#define COMPOSITE_CH9_H

#include <stddef.h>
#include <stdint.h>

#if !defined(COMPOSITE_OWN_CH9) && defined(__has_include)
#if __has_include(<linux/usb/ch9.h>)
#define COMPOSITE_HAVE_LINUX_CH9 1
#endif
#endif

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

#ifdef COMPOSITE_HAVE_LINUX_CH9
#include <linux/usb/ch9.h>
#else
#include "composite/ch9_own.h"
#endif

/*
 * The kernel spellings, so ported gadget code keeps its static initialisers
 * (".idVendor = cpu_to_le16(0x0525)"). Constant expressions. Not defined if
 * the including program already has its own.
 */
#ifndef cpu_to_le16
#define cpu_to_le16(x) USB_CPU_TO_LE16(x)
#endif
#ifndef le16_to_cpu
#define le16_to_cpu(x) USB_LE16_TO_CPU(x)
#endif
#ifndef cpu_to_le32
#define cpu_to_le32(x) USB_CPU_TO_LE32(x)
#endif
#ifndef le32_to_cpu
#define le32_to_cpu(x) USB_LE32_TO_CPU(x)
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
