/*
 * core.h - private interfaces between the files of the core (src/core).
 * Nothing here is installed; every non-static symbol is prefixed
 * composite__. Prototypes are grouped by the file that defines them.
 * One is used outside the core: composite__warn(), the library's log,
 * which the Mass Storage Function's file backend writes to as well.
 * The core is portable C11: no POSIX header may be included by any file
 * of src/core (tests/unit/core.cmake checks it).
 */
#ifndef COMPOSITE_CORE_H
#define COMPOSITE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/function.h"
#include "composite/udc.h"

/* Guard added to cdev->delayed_status while a SETUP is being dispatched, so
 * that a usb_composite_setup_continue() racing with the callback that
 * returned USB_GADGET_DELAYED_STATUS cannot send the status stage early. */
#define COMPOSITE__DELAY_GUARD 0x10000u

/* Default bMaxPower when a configuration's MaxPower is 0 (mA). */
#define COMPOSITE__DEFAULT_MA 2u

/*
 * COMPOSITE_NO_SUPERSPEED (the minimal profile): full and high speed only.
 * The SuperSpeed branches test this, so they fold away at compile time;
 * probe refuses a device that could run at SuperSpeed, and functions'
 * SuperSpeed descriptor lists are not copied.
 */
#ifdef COMPOSITE_NO_SUPERSPEED
#define composite__super(speed) ((void)(speed), false)
#else
#define composite__super(speed) ((speed) >= USB_SPEED_SUPER)
#endif

/* ---- log.c ------------------------------------------------------------ */

/* A diagnostic line on stderr (compiled out with COMPOSITE_NO_STDIO).
 * The one exception to "core only": the functions log through it too. */
void composite__warn(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
#ifdef COMPOSITE_NO_STDIO
/*
 * Without stdio the call goes away with its arguments: sizeof does not
 * evaluate them, so neither the format strings nor usb_strerror() (1.6 KiB
 * of names) stay in an image, and the arguments still count as used.
 * composite__nowarn is declared only, never defined or called.
 */
int composite__nowarn(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
#define composite__warn(...) ((void)sizeof(composite__nowarn(__VA_ARGS__)))
#endif

/* ---- udc.c ------------------------------------------------------------ */

/* The registry lock (a C11 atomic_flag spinlock). */
void composite__registry_lock(void);
void composite__registry_unlock(void);

/* Reserve a free registered gadget for @cdev (by @name, or the first free
 * one when NULL). Return: the gadget, or NULL. */
struct usb_gadget *composite__udc_claim(const char *name, struct usb_composite_dev *cdev);

/* Give the gadget back to the registry (driver_data cleared). */
void composite__udc_release(struct usb_gadget *gadget);

/* ---- ep.c ------------------------------------------------------------- */

/* Host-side halt change (SET/CLEAR_FEATURE(ENDPOINT_HALT)); honours wedge.
 * Return: 0, or a backend error. */
int composite__ep_host_halt(struct usb_ep *ep, bool halt);

/* Release the endpoints recorded in @f->endpoints. */
void composite__ep_release_function(struct usb_gadget *g, struct usb_function *f);

/* ---- composite.c ------------------------------------------------------ */

/* Disable every function of the active configuration; cdev->config = NULL. */
void composite__disable_config(struct usb_composite_dev *cdev);

/* Queue cdev->req on ep0 as a reply of @length bytes (IN data stage,
 * truncated to wLength), or as the zero-length status stage.
 * Return: 0 or a queue error. */
int composite__ep0_queue(struct usb_composite_dev *cdev, unsigned length);

/* Reset cdev->req to the core's buffer and completion for a new SETUP. */
void composite__ep0_prepare(struct usb_composite_dev *cdev);

/* Bus events (usb_gadget_event) for a bound device. */
void composite__event(struct usb_composite_dev *cdev, enum usb_gadget_event event);

/* The configuration with @value, or NULL. */
struct usb_configuration *composite__find_config(struct usb_composite_dev *cdev, unsigned value);

/* Number of configurations. */
unsigned composite__count_configs(const struct usb_composite_dev *cdev);
/* The configuration at @index (0-based, list order), or NULL. */
struct usb_configuration *composite__config_at(struct usb_composite_dev *cdev, unsigned index);

/* ---- descriptors.c ---------------------------------------------------- */

/* The speed descriptors are built for: the connection's, or the
 * gadget's fastest when no speed was reported. */
enum usb_device_speed composite__speed(const struct usb_composite_dev *cdev);

/* True if the device offers both full and high speed (qualifier, other
 * speed configuration). */
bool composite__dualspeed(const struct usb_composite_dev *cdev);

/* @f's descriptor list for @speed (falling back to the next slower list
 * the function has, as Linux does), or NULL. */
struct usb_descriptor_header **composite__function_descs(const struct usb_function *f,
							 enum usb_device_speed speed);

/* Each builder writes into @buf (room @cap) and returns the length
 * (> 0) or a negative error (the request stalls). */
int composite__device_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap);
int composite__config_desc(struct usb_composite_dev *cdev, struct usb_configuration *c,
			   enum usb_device_speed speed, uint8_t type,
			   uint8_t *buf, size_t cap);
int composite__qualifier_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap);
int composite__bos_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap);

/* True if bcdUSB as sent allows a BOS read. */
bool composite__has_bos(const struct usb_composite_dev *cdev);

/* Does @f have, for @speed, an interface descriptor (@intf, @alt)? */
bool composite__has_alt(const struct usb_function *f, enum usb_device_speed speed,
			unsigned intf, unsigned alt);

/* Endpoint bitmap (dir_in << 4 | num) of every list of @f. */
uint32_t composite__endpoint_bits(const struct usb_function *f);

/* ---- strings.c -------------------------------------------------------- */

/* GET_DESCRIPTOR(STRING): @index 0 gives the LANGID list. Return as the
 * descriptor builders. */
int composite__string_desc(struct usb_composite_dev *cdev, uint16_t language,
			   uint8_t index, uint8_t *buf, size_t cap);

/* Free the tables usb_gstrings_attach() copied (at unregister). */
void composite__gstrings_free(struct usb_composite_dev *cdev);

/* UTF-8 @s to a UTF-16LE string descriptor in @buf (room @cap >= 2), at
 * most USB_MAX_STRING_LEN units. Return: the descriptor length. */
int composite__utf8_to_desc(const char *s, uint8_t *buf, size_t cap);

/* The code point at *@s (advanced past it), reading no further than @end
 * nor past a NUL; malformed input gives U+FFFD. Needs *@s < @end. */
uint32_t composite__utf8_next(const unsigned char **s, const unsigned char *end);

/* @cp as UTF-16 code units in @unit. Return: how many (1 or 2). */
unsigned composite__utf16_encode(uint32_t cp, uint16_t unit[2]);

/* ---- os_desc.c -------------------------------------------------------- */

/* String 0xEE (MS OS 1.0), as the descriptor builders. */
int composite__os_string_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap);

/* How many BOS platform capabilities (MS OS 2.0, WebUSB) the device has;
 * and their descriptors, as the descriptor builders. */
unsigned composite__os_bos_caps(const struct usb_composite_dev *cdev);
int composite__os_bos_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap);

/* A vendor request for the OS descriptors or the WebUSB landing page?
 * If so, true, with *@result the reply's length in cdev's ep0 buffer or
 * -USB_EPIPE (stall). False: not one of those, route it on. */
bool composite__os_vendor_request(struct usb_composite_dev *cdev,
				  const struct usb_ctrlrequest *ctrl, int *result);

/* After a configuration's bind / the driver's bind: 0, or -USB_EINVAL
 * (logged) for OS descriptor settings that cannot be sent. */
int composite__os_desc_check_config(struct usb_composite_dev *cdev, struct usb_configuration *c);
int composite__os_desc_check_device(struct usb_composite_dev *cdev);

/* ---- ep0.c ------------------------------------------------------------ */

/* Dispatch one SETUP for a bound device. Return as usb_gadget_setup(). */
int composite__setup(struct usb_composite_dev *cdev, const struct usb_ctrlrequest *ctrl);

#endif /* COMPOSITE_CORE_H */
