/*
 * composite.h - the API for gadget drivers: a composite device made of
 * configurations, each made of functions. Names and shapes follow Linux's
 * <linux/usb/composite.h>, so a Linux gadget driver ports with its
 * kernel-only annotations removed. Function authors also include
 * composite/function.h; backend authors composite/udc.h.
 *
 * Thread model (docs/architecture.md has the whole picture)
 * - A backend delivers events for one gadget from one context at a time,
 *   its "event context" (a thread of the backend, or the caller of the
 *   in-process host). All of these run there, one at a time, and must not
 *   block: usb_configuration.setup, usb_function.set_alt, get_alt, disable,
 *   setup, req_match, suspend, resume, usb_composite_driver.disconnect,
 *   suspend, resume, and ep0 request completions.
 * - bind callbacks (driver, configuration, function) run inside
 *   usb_composite_probe(), usb_add_config() and usb_add_function(), in the
 *   caller's thread; unbind, free_func and driver unbind run inside
 *   usb_composite_unregister() (or usb_remove_function()), in the caller's
 *   thread, after the backend has stopped delivering events.
 * - Safe from any thread (a function's worker thread included): the
 *   usb_ep_*() calls of gadget.h, usb_composite_setup_continue(), kref
 *   get/put. Everything else: from bind
 *   callbacks, or from a thread that is not the event context while no
 *   other thread calls into the same composite device
 *   (usb_composite_unregister() in particular must not be called from the
 *   event context nor from a completion).
 *
 * Ownership
 * - Drivers, configurations, functions, descriptors and strings are owned
 *   by the caller who passes them in (usually static data) and are borrowed
 *   by the core until usb_composite_unregister() returns, except where a
 *   call says it copies (usb_assign_descriptors()). A function with
 *   free_func is handed to the core by usb_add_function() and freed by it.
 */
#ifndef COMPOSITE_COMPOSITE_H
#define COMPOSITE_COMPOSITE_H

#ifdef COMPOSITE_BACKEND_ONLY
#error "composite.h is not for backends: a backend sees the core only through composite/udc.h"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "composite/gadget.h"
#include "composite/kref.h"
#include "composite/os_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Returned by a setup callback (function or configuration) that will finish
 * the control request later with usb_composite_setup_continue(): the status
 * stage is held until then. Linux's value and name.
 */
#define USB_GADGET_DELAYED_STATUS 0x7fff

/* Size of the ep0 request buffer cdev->req->buf: Linux's 4096 unless the
 * build sets it (cmake COMPOSITE_EP0_BUFSIZ, a public definition, so the
 * library and its users agree; firmware builds choose 256 by default).
 * A descriptor the core would reply with (configuration, string, BOS, OS
 * descriptors) that does not fit is stalled; a function queueing cdev->req
 * keeps its data stages within it. */
#ifndef USB_COMP_EP0_BUFSIZ
#define USB_COMP_EP0_BUFSIZ 4096
#endif

/* Bytes of cdev->landing_page: the longest WebUSB URL unless the build
 * sets it (a public definition, as USB_COMP_EP0_BUFSIZ): the minimal
 * profile, which refuses WebUSB, keeps 1 (the empty string) and saves the
 * rest of the device's RAM. */
#ifndef USB_COMP_LANDING_PAGE_BYTES
#define USB_COMP_LANDING_PAGE_BYTES WEBUSB_URL_RAW_MAX_LENGTH
#endif

/* Interfaces per configuration, functions per configuration. */
#define MAX_CONFIG_INTERFACES 16

/* Language id of US English, the default string table's language. */
#define USB_LANGID_EN_US 0x0409

struct usb_composite_dev;
struct usb_configuration;
struct usb_function;

/**
 * struct usb_string - one string of a string table.
 * @id: the string's index, allocated with usb_string_id() or
 *	usb_string_ids_tab(); 0 means "not used".
 * @s: UTF-8 text, borrowed. Sent as UTF-16LE, cut at 126 UTF-16 units.
 */
struct usb_string {
	uint8_t id;
	const char *s;
};

/**
 * struct usb_gadget_strings - the strings of one language.
 * @language: LANGID (0x0409 US English...).
 * @strings: array ending with an entry whose @s is NULL.
 *
 * Tables are given as NULL-terminated arrays of pointers; string index 0
 * (the LANGID list) is built from every language the device, its
 * configurations and functions use.
 */
struct usb_gadget_strings {
	uint16_t language;
	struct usb_string *strings;
};

/**
 * struct usb_configuration - one configuration of a composite device.
 * @label: for diagnostics; also the iConfiguration string unless
 *	@iConfiguration is set by the driver.
 * @strings: optional string tables (NULL-terminated array).
 * @descriptors: optional descriptors placed before the functions' ones.
 * @bind: old-style bind, used when usb_add_config() gets a NULL bind.
 *	Context: inside usb_add_config().
 * @unbind: optional, when the driver is unregistered (caller's thread).
 * @setup: optional, class/vendor requests no function claims.
 *	Context: event context. Returns as usb_function.setup.
 * @bConfigurationValue: non-zero, unique within the device.
 * @iConfiguration: string index, or 0.
 * @bmAttributes: USB_CONFIG_ATT_SELFPOWER, _WAKEUP (ATT_ONE is added).
 * @MaxPower: in mA; 0 means the backend's default (CONFIG_USB_GADGET_VBUS_DRAW
 *	in Linux, 2 mA here).
 * @cdev: set by usb_add_config().
 *
 * The remaining fields are private to the core.
 */
struct usb_configuration {
	const char *label;
	struct usb_gadget_strings **strings;
	const struct usb_descriptor_header **descriptors;

	int (*bind)(struct usb_configuration *c);
	void (*unbind)(struct usb_configuration *c);
	int (*setup)(struct usb_configuration *c, const struct usb_ctrlrequest *ctrl);

	uint8_t bConfigurationValue;
	uint8_t iConfiguration;
	uint8_t bmAttributes;
	uint16_t MaxPower;

	struct usb_composite_dev *cdev;

	/* private */
	struct list_head COMPOSITE_PRIVATE(list);
	struct list_head COMPOSITE_PRIVATE(functions);
	uint8_t COMPOSITE_PRIVATE(next_interface_id);
	unsigned COMPOSITE_PRIVATE(superspeed) : 1;
	unsigned COMPOSITE_PRIVATE(highspeed) : 1;
	unsigned COMPOSITE_PRIVATE(fullspeed) : 1;
	struct usb_function *COMPOSITE_PRIVATE(interface)[MAX_CONFIG_INTERFACES];
	uint8_t COMPOSITE_PRIVATE(label_id);	/* string id given to @label, or 0 */
};

/**
 * struct usb_composite_driver - a gadget driver built of configurations.
 * @name: driver name, for diagnostics.
 * @dev: device descriptor template (bcdUSB, class, idVendor, idProduct,
 *	bcdDevice...). Borrowed; the core keeps a copy and fills in
 *	bMaxPacketSize0 and bNumConfigurations, and string indexes for
 *	@iManufacturer/@iProduct/@iSerialNumber.
 * @strings: optional device string tables (NULL-terminated array).
 * @max_speed: highest speed the driver supports (USB_SPEED_HIGH...);
 *	USB_SPEED_UNKNOWN means "whatever the functions support".
 * @needs_serial: warn at bind if no serial number string is given.
 * @iManufacturer, @iProduct, @iSerialNumber: optional UTF-8 strings; the
 *	core allocates their ids in language 0x0409 and sets the copy of the
 *	device descriptor. Borrowed.
 * @udc_name: bind to the UDC of this name; NULL binds the first free one.
 * @bind: mandatory: add configurations (usb_add_config()), allocate
 *	string ids. Context: inside usb_composite_probe(). Returns 0 or a
 *	negative error, which fails the probe (everything added is undone).
 * @unbind: optional, inside usb_composite_unregister() after the
 *	configurations and functions are unbound.
 * @disconnect: optional, event context, after the functions are disabled.
 * @suspend, @resume: optional, event context.
 * @cdev: private to the core: the device while bound (a driver gets it
 *	in @bind, or from its gadget with get_gadget_data()).
 */
struct usb_composite_driver {
	const char *name;
	const struct usb_device_descriptor *dev;
	struct usb_gadget_strings **strings;
	enum usb_device_speed max_speed;
	unsigned needs_serial : 1;
	const char *iManufacturer;
	const char *iProduct;
	const char *iSerialNumber;
	const char *udc_name;

	int (*bind)(struct usb_composite_dev *cdev);
	int (*unbind)(struct usb_composite_dev *cdev);
	void (*disconnect)(struct usb_composite_dev *cdev);
	void (*suspend)(struct usb_composite_dev *cdev);
	void (*resume)(struct usb_composite_dev *cdev);

	struct usb_composite_dev *COMPOSITE_PRIVATE(cdev);
};

/**
 * struct usb_composite_dev - a composite device bound to a gadget.
 * @gadget: the UDC it is bound to. Borrowed from the backend.
 * @req: the ep0 request, with a USB_COMP_EP0_BUFSIZ buffer, for function
 *	and configuration setup callbacks to fill and queue on
 *	@gadget->ep0 (as in Linux). The core resets its buf, length, zero,
 *	complete and context before each SETUP is dispatched, so OUT data
 *	left in the buffer lasts only until the next SETUP: copy it out in
 *	the completion.
 * @config: the current configuration, or NULL when unconfigured.
 * @desc: the device descriptor as sent.
 * @driver: the bound driver.
 * @suspended: the bus is suspended.
 * @priv: for the driver's use.
 * @use_os_string, @b_vendor_code, @qw_sign, @os_desc_config: MS OS 1.0
 *	descriptors, as Linux: when @use_os_string is set, string 0xEE
 *	(asked with LANGID 0) carries @qw_sign (all zero: "MSFT100") and
 *	@b_vendor_code, the vendor request of that code answers the extended
 *	compat ID and extended properties descriptors from the os_desc_table
 *	of the functions of @os_desc_config (NULL: the first configuration).
 * @use_ms_os_20, @b_ms_os_20_vendor_code, @dw_ms_os_20_windows_version:
 *	MS OS 2.0 descriptors (beyond Linux): a BOS platform capability
 *	announces a descriptor set, built from the same os_desc_tables for
 *	@os_desc_config and answered by the vendor request of that code
 *	(wIndex 7); the version is the capability's dwWindowsVersion (0:
 *	USB_MS_OS_20_WINDOWS_8_1).
 * @use_webusb, @bcd_webusb_version, @b_webusb_vendor_code, @landing_page:
 *	WebUSB, as Linux 6.4: a BOS platform capability with that version
 *	(0: 0x0100) and vendor code, and iLandingPage 1 when @landing_page
 *	(NUL-terminated, USB_COMP_LANDING_PAGE_BYTES at most; "https://"
 *	or "http://" becomes the URL descriptor's scheme) is not empty.
 *	A BOS capability raises the device's bcdUSB to at least 0x0201.
 *	Set all of these in the driver's bind; usb_composite_probe() fails
 *	with -USB_EINVAL for a landing page too long for its descriptor, and
 *	usb_add_config() for an os_desc_table naming an interface the
 *	function does not own or a property Windows would refuse.
 *
 * Allocated by usb_composite_probe(), freed by usb_composite_unregister().
 * The remaining fields are private to the core.
 */
struct usb_composite_dev {
	struct usb_gadget *gadget;
	struct usb_request *req;
	struct usb_configuration *config;
	struct usb_device_descriptor desc;
	struct usb_composite_driver *driver;
	unsigned suspended : 1;
	void *priv;

	unsigned use_os_string : 1;
	uint8_t b_vendor_code;
	uint8_t qw_sign[OS_STRING_QW_SIGN_LEN];
	struct usb_configuration *os_desc_config;

	unsigned use_ms_os_20 : 1;
	uint8_t b_ms_os_20_vendor_code;
	uint32_t dw_ms_os_20_windows_version;

	unsigned use_webusb : 1;
	uint16_t bcd_webusb_version;
	uint8_t b_webusb_vendor_code;
	char landing_page[USB_COMP_LANDING_PAGE_BYTES];

	/* private */
	struct list_head COMPOSITE_PRIVATE(configs);
	struct list_head COMPOSITE_PRIVATE(gstrings);
	uint8_t COMPOSITE_PRIVATE(next_string_id);
	atomic_uint COMPOSITE_PRIVATE(delayed_status);
	uint16_t COMPOSITE_PRIVATE(ep0_w_length);
	bool COMPOSITE_PRIVATE(ep0_in_data);
	uint8_t COMPOSITE_PRIVATE(manufacturer_id), COMPOSITE_PRIVATE(product_id), COMPOSITE_PRIVATE(serial_id);
	struct usb_string COMPOSITE_PRIVATE(driver_strings)[4];
	struct usb_gadget_strings COMPOSITE_PRIVATE(driver_gstrings);
	bool COMPOSITE_PRIVATE(test_mode_pending);
	uint8_t COMPOSITE_PRIVATE(test_selector);
	unsigned COMPOSITE_PRIVATE(deactivations);
	void *COMPOSITE_PRIVATE(ep0_buf);		/* the buffer allocated for @req */
	bool COMPOSITE_PRIVATE(address_pending);	/* SET_ADDRESS waiting for its status stage */
	uint8_t COMPOSITE_PRIVATE(pending_address);
	bool COMPOSITE_PRIVATE(started);		/* gadget ops->start succeeded */
};

/**
 * usb_composite_probe() - bind @driver to a registered UDC (by
 * @driver->udc_name, or the first free one) and call @driver->bind.
 * Context: any thread that is no backend's event context.
 * Return: 0; -USB_EINVAL for a driver without bind or dev; -USB_EBUSY if
 * @driver is already bound; -USB_ENODEV when no (free) UDC matches;
 * -USB_ENOMEM; or the error @driver->bind returned. On error nothing stays
 * bound and unbind callbacks of what was bound have run.
 */
int usb_composite_probe(struct usb_composite_driver *driver);

/* Linux 2.6's name for usb_composite_probe(): the same call. */
int usb_composite_register(struct usb_composite_driver *driver);

/**
 * usb_composite_unregister() - stop the gadget, disable and unbind every
 * function and configuration, call @driver->unbind, free the device.
 * Idempotent: a driver that is not bound is left alone.
 * Context: not the event context, not a completion (see "Thread model").
 */
void usb_composite_unregister(struct usb_composite_driver *driver);

/**
 * usb_add_config() - add configuration @config to @cdev and bind it.
 * @bind: adds the configuration's functions (usb_add_function()); if NULL,
 *	@config->bind is used. Runs inside this call.
 * Context: from the driver's bind.
 * Return: 0; -USB_EINVAL if @config->bConfigurationValue is 0 or
 * taken, or neither bind is given; -USB_ENOMEM; the error of @bind (the
 * configuration is then removed again and its functions unbound).
 */
int usb_add_config(struct usb_composite_dev *cdev,
		   struct usb_configuration *config,
		   int (*bind)(struct usb_configuration *));

/*
 * usb_add_config(cdev, config) with two arguments, as Linux 2.6 spelled it
 * (the bind is @config->bind), is the same call with a NULL @bind: the
 * macro counts the arguments. The function itself keeps its address.
 */
#define COMPOSITE_ADD_CONFIG_PICK(_1, _2, _3, name, ...) name
#define COMPOSITE_ADD_CONFIG_2(cdev, config) usb_add_config(cdev, config, NULL)
#define usb_add_config(...) \
	COMPOSITE_ADD_CONFIG_PICK(__VA_ARGS__, usb_add_config, \
				  COMPOSITE_ADD_CONFIG_2, )(__VA_ARGS__)

/* Add a configuration without binding functions yet (configfs style). */
int usb_add_config_only(struct usb_composite_dev *cdev,
			struct usb_configuration *config);

/* Unbind and remove one configuration. Context: as usb_composite_unregister(). */
void usb_remove_config(struct usb_composite_dev *cdev,
		       struct usb_configuration *config);

/**
 * usb_add_function() - add @function to @config and call its bind.
 * Context: from a configuration's bind.
 * Return: 0; -USB_EINVAL for a function without name, bind, set_alt or
 * disable (the mandatory ops), or already added; the error of its bind (then the
 * function is not added, and its free_func is not called: the caller
 * still owns it).
 */
int usb_add_function(struct usb_configuration *config,
		     struct usb_function *function);

/**
 * usb_remove_function() - disable (if active), unbind and drop @f from
 * @c; then free_func(f) if set. Context: as usb_composite_unregister().
 */
void usb_remove_function(struct usb_configuration *c, struct usb_function *f);

/**
 * usb_string_id() - allocate one string index in @cdev.
 * Return: the index (1..254), or -USB_ENODEV when all are used.
 */
int usb_string_id(struct usb_composite_dev *cdev);

/**
 * usb_string_ids_tab() - allocate an index for each entry of @str (up to
 * the entry whose @s is NULL) and store it in the entry's @id.
 * Return: 0, or -USB_ENODEV when out of indexes (no id is taken then).
 */
int usb_string_ids_tab(struct usb_composite_dev *cdev, struct usb_string *str);

/* Allocate @n consecutive ids. Return: the first, or -USB_ENODEV. */
int usb_string_ids_n(struct usb_composite_dev *cdev, unsigned n);

/**
 * usb_gstrings_attach() - ids for the strings of @sp, as Linux's: @sp is
 * a NULL-terminated array of tables, one per language, whose entry i is
 * the same string in each; the first @n_strings entries of every table
 * get ids (the same id for entry i in each). The device keeps a copy of
 * the tables (the strings themselves borrowed: they must outlive the
 * device) and answers GET_DESCRIPTOR(STRING) from it until
 * usb_composite_unregister(), so one @sp serves every function instance.
 * Context: a bind callback.
 * Return: the copy of the first table's strings, ids set (use
 * us[i].id in descriptors), or an error pointer (usb_is_err()):
 * -USB_EINVAL (no table, @n_strings 0, or a table with fewer strings),
 * -USB_ENOMEM, -USB_ENODEV (out of string ids).
 */
struct usb_string *usb_gstrings_attach(struct usb_composite_dev *cdev,
				       struct usb_gadget_strings **sp,
				       unsigned n_strings);

/**
 * usb_composite_setup_continue() - finish a control request whose setup
 * callback returned USB_GADGET_DELAYED_STATUS: the status stage is sent.
 * Safe from any thread. Extra calls (with no request delayed) are ignored
 * with a diagnostic.
 */
void usb_composite_setup_continue(struct usb_composite_dev *cdev);

/**
 * usb_composite_set_log_handler() - where the library's diagnostics go
 * (one line each, without newline: an extra setup_continue, a missing
 * serial string, a backing file the Mass Storage Function refuses or opens
 * read-only...). Default: stderr; NULL silences them. @ctx is passed back.
 * Call before probing; the handler may run in any thread.
 */
void usb_composite_set_log_handler(void (*handler)(void *ctx, const char *line),
				   void *ctx);

/*
 * usb_composite_log() - one printf-style line to the log handler (a
 * trailing newline is dropped), for drivers and functions: what
 * composite/linux.h's INFO(), ERROR(), pr_info()... call. Safe from any
 * thread the handler is safe from.
 */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
void usb_composite_log(const char *fmt, ...);

/* The composite device bound to @gadget, or NULL. */
struct usb_composite_dev *get_gadget_data(struct usb_gadget *gadget);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_COMPOSITE_H */
