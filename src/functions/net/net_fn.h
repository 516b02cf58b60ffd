/*
 * net_fn.h - what the CDC network functions (ECM, NCM) have in common, as
 * Linux's f_ecm and f_ncm share their shape: the interface association of
 * a communication interface (CDC header, union, Ethernet networking
 * descriptor, and the function's own descriptor after it) with an
 * interrupt IN notify endpoint, and a data interface whose alternate 0 is
 * empty and alternate 1 holds the bulk pair; bind, set_alt, get_alt,
 * disable, unbind and free for both. A function gives its kind (codes,
 * strings, buffer sizes, its frame path) and its setup. Event context for
 * the callbacks, as any function's. Private to src/functions.
 */
#ifndef COMPOSITE_NET_FN_H
#define COMPOSITE_NET_FN_H

#include "composite/ether.h"
#include "functions/common/bulk_pair.h"
#include "net_notify.h"
#include "net_port.h"
#include "net_reqs.h"

enum { NET_CTRL_IDX, NET_MAC_IDX, NET_DATA_IDX, NET_IAD_IDX, NET_N_STRINGS };

struct net_fn;

/*
 * What makes a network function ECM or NCM. Borrowed (static data).
 * Contexts: @fill as net_port's (the sender's thread or the event
 * context, one runner at a time); @out_complete, @data_alt and @setup in
 * the event context; @out_complete gets the request with its context the
 * struct net_fn. IN completions are net_fn.c's own (they only count what
 * the request carried).
 */
struct net_fn_kind {
	const char *name;
	uint8_t subclass;		/* USB_CDC_SUBCLASS_ETHERNET / _NCM */
	uint8_t data_protocol;		/* the data interface's bInterfaceProtocol */
	const char *strings[NET_N_STRINGS];	/* NET_MAC_IDX's is the address */
	size_t in_len, out_len;		/* bytes of each IN / OUT request */
	bool speed_first;		/* notification order */
	void (*fill)(struct net_port *p);
	void (*out_complete)(struct usb_ep *ep, struct usb_request *req);
	/* optional: the data interface goes to @alt (before the link opens) */
	void (*data_alt)(struct net_fn *n, unsigned alt);
	int (*setup)(struct usb_function *f, const struct usb_ctrlrequest *ctrl);
};

struct net_fn {
	struct usb_function function;
	const struct net_fn_kind *kind;
	struct usb_net_opts opts;
	struct net_port port;
	uint8_t ctrl_id, data_id, data_alt;
	char ethaddr[2 * USB_NET_ALEN + 1];	/* the host's address, the iMACAddress string */
	struct usb_string strings[NET_N_STRINGS + 1];
	struct usb_gadget_strings string_table;
	struct usb_gadget_strings *string_tables[2];

	struct usb_ep *notify_ep;
	struct fn_bulk_pair pair;
	struct usb_interface_assoc_descriptor iad;
	struct usb_interface_descriptor ctrl_intf, data_nop_intf, data_intf;
	struct usb_cdc_header_desc header;
	struct usb_cdc_union_desc union_desc;
	struct usb_cdc_ether_desc ether_desc;
	struct usb_descriptor_header *extra_desc;	/* after ether_desc, or NULL */
	struct usb_endpoint_descriptor fs_notify, hs_notify;
	struct usb_ss_ep_comp_descriptor ss_notify_comp;
	struct usb_descriptor_header *fs_list[16], *hs_list[16], *ss_list[20];

	struct net_reqs reqs;
	struct net_notify notify;
	unsigned in_maxp;
	bool data_on;
};

static inline struct net_fn *net_fn_of(struct usb_function *f)
{
	return usb_container_of(f, struct net_fn, function);
}

static inline struct net_fn *net_fn_of_port(struct net_port *p)
{
	return usb_container_of(p, struct net_fn, port);
}

/*
 * Set up *@n (the first member of a @size-byte object on the heap) as a
 * function of @kind. Return: 0 and *@out; -USB_EINVAL for bad @opts;
 * -USB_ENOMEM.
 */
int net_fn_alloc(size_t size, const struct net_fn_kind *kind, const struct usb_net_opts *opts,
		 struct net_fn **out);

/* The network function of @kind that @f is, or NULL. */
struct net_fn *net_fn_is(const struct usb_function *f, const struct net_fn_kind *kind);

/* Free a function never added (or after unbind: its free_func). */
void net_fn_free(struct usb_function *f);

#endif
