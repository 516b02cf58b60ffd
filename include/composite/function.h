/*
 * function.h - the API for function authors: struct usb_function and the
 * helpers a function's bind and set_alt use (interface and endpoint
 * allocation, descriptors per speed, string ids). Linux's names and
 * semantics. See docs/writing-a-function.md for a worked example.
 *
 * Callback contexts are given on each member of struct usb_function; the
 * overall model is in composite.h ("Thread model").
 */
#ifndef COMPOSITE_FUNCTION_H
#define COMPOSITE_FUNCTION_H

#ifdef COMPOSITE_BACKEND_ONLY
#error "function.h is not for backends: a backend sees the core only through composite/udc.h"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "composite/composite.h"

#ifdef __cplusplus
extern "C" {
#endif

struct usb_function_instance;	/* composite/registry.h */

/**
 * struct usb_function - one function (a set of interfaces) of a configuration.
 * @name: mandatory, for diagnostics.
 * @strings: optional string tables (NULL-terminated array).
 * @fs_descriptors, @hs_descriptors, @ss_descriptors, @ssp_descriptors:
 *	NULL-terminated descriptor lists per speed (interfaces, endpoints,
 *	class descriptors, in the order sent). Usually set by
 *	usb_assign_descriptors() in bind. At a speed without a list the
 *	next slower list the function has is sent (SuperSpeedPlus -> Super
 *	-> high -> full, as Linux does); give every speed the device may
 *	run at its own list.
 * @config: set by usb_add_function().
 * @bind: mandatory: allocate interfaces (usb_interface_id()), endpoints
 *	(usb_ep_autoconfig()), string ids, and assign descriptors.
 *	Context: inside usb_add_function(). Return 0 or a negative error.
 * @unbind: optional: undo bind. Context: usb_composite_unregister() or
 *	usb_remove_function(), after disable.
 * @free_func: optional: free the function itself. The core calls it
 *	after unbind for a function not made by usb_get_function(); one made
 *	by it (@fi set) is freed by usb_put_function() only, as in Linux.
 * @fi: the instance usb_get_function() made the function of, or NULL.
 * @set_alt: mandatory: SET_CONFIGURATION (alt 0 of each interface) or
 *	SET_INTERFACE chose alternate @alt of @interface (the interface
 *	number in the configuration). Enable endpoints here
 *	(config_ep_by_speed(), usb_ep_enable()). Context: event context.
 *	Return 0, USB_GADGET_DELAYED_STATUS (finish with
 *	usb_composite_setup_continue()), or a negative error (stall).
 * @get_alt: optional: the current alternate of @interface (>= 0), or a
 *	negative error (stall). Without it, alternate 0 is reported.
 * @disable: mandatory: the configuration went away (SET_CONFIGURATION 0
 *	or another, reset, disconnect): disable endpoints. Their queued
 *	requests complete with -USB_ESHUTDOWN. Context: event context.
 * @setup: optional: a class or vendor request for one of the function's
 *	interfaces or endpoints (or claimed by @req_match). Fill
 *	cdev->req (buf, length, zero, complete) and queue it on
 *	cdev->gadget->ep0, then return a value >= 0; or return
 *	USB_GADGET_DELAYED_STATUS; or a negative error to stall.
 *	Context: event context; wLength etc. are little-endian.
 * @req_match: optional: claim a request not addressed by recipient;
 *	@config0 is true when the device is not configured.
 * @suspend, @resume: optional, event context.
 * @os_desc_table, @os_desc_n: optional: what Windows should load for
 *	the function's interfaces (composite/os_desc.h), sent when the
 *	device uses MS OS 1.0 or 2.0 descriptors. Set in bind, after the
 *	interface ids are allocated; borrowed.
 *
 * The remaining fields are private to the core.
 */
struct usb_function {
	const char *name;
	struct usb_gadget_strings **strings;
	struct usb_descriptor_header **fs_descriptors;
	struct usb_descriptor_header **hs_descriptors;
	struct usb_descriptor_header **ss_descriptors;
	struct usb_descriptor_header **ssp_descriptors;

	struct usb_configuration *config;

	int (*bind)(struct usb_configuration *c, struct usb_function *f);
	void (*unbind)(struct usb_configuration *c, struct usb_function *f);
	void (*free_func)(struct usb_function *f);
	struct usb_function_instance *fi;

	int (*set_alt)(struct usb_function *f, unsigned interface, unsigned alt);
	int (*get_alt)(struct usb_function *f, unsigned interface);
	void (*disable)(struct usb_function *f);
	int (*setup)(struct usb_function *f, const struct usb_ctrlrequest *ctrl);
	bool (*req_match)(struct usb_function *f,
			  const struct usb_ctrlrequest *ctrl, bool config0);
	void (*suspend)(struct usb_function *f);
	void (*resume)(struct usb_function *f);

	struct usb_os_desc_table *os_desc_table;
	unsigned os_desc_n;

	/* private */
	struct list_head COMPOSITE_PRIVATE(list);
	uint32_t COMPOSITE_PRIVATE(endpoints);	/* bit (dir_in << 4 | num): endpoints it owns */
	bool COMPOSITE_PRIVATE(descriptors_owned);	/* set by usb_assign_descriptors() */
};

/**
 * usb_interface_id() - allocate the next interface number of @config
 * for @function.
 * Context: the function's bind.
 * Return: the number (0..MAX_CONFIG_INTERFACES-1), or -USB_ENODEV when
 * the configuration is full.
 */
int usb_interface_id(struct usb_configuration *config,
		     struct usb_function *function);

/**
 * usb_ep_autoconfig() - claim a free endpoint of @gadget that can serve
 * @desc (transfer type, direction, wMaxPacketSize), and write its address
 * into @desc->bEndpointAddress. If @desc->wMaxPacketSize is 0 it is set to
 * the endpoint's limit for full speed (64 for bulk, at most 1023 iso,
 * 64 interrupt).
 * Context: a function's bind.
 * Return: the endpoint (borrowed from the backend; released when the
 * functions unbind), or NULL when none fits.
 */
struct usb_ep *usb_ep_autoconfig(struct usb_gadget *gadget,
				 struct usb_endpoint_descriptor *desc);

/* As usb_ep_autoconfig(), also using a SuperSpeed companion (may be NULL). */
struct usb_ep *usb_ep_autoconfig_ss(struct usb_gadget *gadget,
				    struct usb_endpoint_descriptor *desc,
				    struct usb_ss_ep_comp_descriptor *comp);

/* Release @ep claimed by usb_ep_autoconfig() (on a failing bind). */
void usb_ep_autoconfig_release(struct usb_ep *ep);

/*
 * Release every endpoint claim of @gadget. The core does it after each
 * configuration's bind and at unregister; a driver's bind may call it
 * between configurations too, so that each can claim the same endpoints.
 */
void usb_ep_autoconfig_reset(struct usb_gadget *gadget);

/**
 * usb_assign_descriptors() - copy the descriptor lists (descriptors and
 * arrays) into memory owned by @f, one list per speed; a NULL list
 * leaves that speed unsupported. Copies, so static templates can be shared
 * by several instances after their endpoint addresses are set.
 * Return: 0, or -USB_ENOMEM (nothing assigned then).
 */
int usb_assign_descriptors(struct usb_function *f,
			   struct usb_descriptor_header **fs,
			   struct usb_descriptor_header **hs,
			   struct usb_descriptor_header **ss,
			   struct usb_descriptor_header **ssp);

/* Free what usb_assign_descriptors() copied. Safe to call twice. */
void usb_free_all_descriptors(struct usb_function *f);

/* Copy a NULL-terminated descriptor list. Return: the copy, or NULL. */
struct usb_descriptor_header **usb_copy_descriptors(struct usb_descriptor_header **src);

/* Free a list made by usb_copy_descriptors(). */
void usb_free_descriptors(struct usb_descriptor_header **v);

/**
 * config_ep_by_speed() - point @ep->desc (and comp_desc) at @f's endpoint
 * descriptor for @g's current speed that has @ep's address.
 * Return: 0, or -USB_EINVAL if @f has no such descriptor.
 */
int config_ep_by_speed(struct usb_gadget *g, struct usb_function *f,
		       struct usb_ep *ep);

/**
 * usb_function_deactivate() / usb_function_activate() - keep the device
 * invisible to the host (pullup off) until every deactivated function has
 * been activated again (a function waiting for its user space, say).
 * Return: 0, or a backend error.
 */
int usb_function_deactivate(struct usb_function *f);
int usb_function_activate(struct usb_function *f);

/* The composite device a function is bound to. */
static inline struct usb_composite_dev *usb_function_cdev(const struct usb_function *f)
{
	return f->config ? f->config->cdev : NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_FUNCTION_H */
