/*
 * net_fn.c - the shape ECM and NCM share (net_fn.h): descriptors, the MAC
 * address string, bind and unbind, the alternates of the data interface
 * and the link they open and close, the notifications they cause.
 * Portable C11 on the public function API.
 */
#include <string.h>

#include "net_fn.h"
#include "port/alloc.h"

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

#define NET_STATUS_INTERVAL_FS 32	/* ms, Linux's ECM_STATUS_INTERVAL_MS */
#define NET_STATUS_INTERVAL_HS 9	/* 2^(9-1) microframes: 32 ms */

/* ---- descriptors ------------------------------------------------------------- */

static void fill_static_descs(struct net_fn *n)
{
	uint8_t sub = n->kind->subclass;

	n->iad = (struct usb_interface_assoc_descriptor){
		.bLength = sizeof(n->iad), .bDescriptorType = USB_DT_INTERFACE_ASSOCIATION,
		.bInterfaceCount = 2, .bFunctionClass = USB_CLASS_COMM,
		.bFunctionSubClass = sub, .bFunctionProtocol = USB_CDC_PROTO_NONE,
	};
	n->ctrl_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 1, .bInterfaceClass = USB_CLASS_COMM,
		.bInterfaceSubClass = sub, .bInterfaceProtocol = USB_CDC_PROTO_NONE,
	};
	/* Alternate 0 of the data interface has no endpoints: the host
	 * chooses alternate 1 to open the link (ECM 1.2, 3.3; NCM 1.0, 5.3). */
	n->data_nop_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bInterfaceClass = USB_CLASS_CDC_DATA,
		.bInterfaceProtocol = n->kind->data_protocol,
	};
	n->data_intf = n->data_nop_intf;
	n->data_intf.bAlternateSetting = 1;
	n->data_intf.bNumEndpoints = 2;
	n->header = (struct usb_cdc_header_desc){
		.bLength = sizeof(n->header), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_HEADER_TYPE, .bcdCDC = USB_CPU_TO_LE16(0x0110),
	};
	n->union_desc = (struct usb_cdc_union_desc){
		.bLength = sizeof(n->union_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_UNION_TYPE,
	};
	n->ether_desc = (struct usb_cdc_ether_desc){
		.bLength = sizeof(n->ether_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_ETHERNET_TYPE,
		.bmEthernetStatistics = USB_CPU_TO_LE32(0),	/* no statistics */
		.wMaxSegmentSize = USB_CPU_TO_LE16(USB_NET_FRAME_MAX),
	};
	n->fs_notify = (struct usb_endpoint_descriptor){
		.bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN, .bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = USB_CPU_TO_LE16(NET_NOTIFY_BYTES),
		.bInterval = NET_STATUS_INTERVAL_FS,
	};
}

static void build_list(struct net_fn *n, enum usb_device_speed speed,
		       struct usb_descriptor_header **v)
{
	size_t i = 0;

	v[i++] = DH(&n->iad);
	v[i++] = DH(&n->ctrl_intf);
	v[i++] = DH(&n->header);
	v[i++] = DH(&n->union_desc);
	v[i++] = DH(&n->ether_desc);
	if (n->extra_desc)
		v[i++] = n->extra_desc;
	if (speed == USB_SPEED_FULL) {
		v[i++] = DH(&n->fs_notify);
	} else {
		v[i++] = DH(&n->hs_notify);
		if (speed >= USB_SPEED_SUPER)
			v[i++] = DH(&n->ss_notify_comp);
	}
	v[i++] = DH(&n->data_nop_intf);
	v[i++] = DH(&n->data_intf);
	i += fn_bulk_pair_descs(&n->pair, speed, v + i);
	v[i] = NULL;
}

static void set_strings(struct net_fn *n)
{
	static const char digits[] = "0123456789ABCDEF";
	unsigned i;

	for (i = 0; i < USB_NET_ALEN; i++) {
		n->ethaddr[2 * i] = digits[n->opts.host_addr[i] >> 4];
		n->ethaddr[2 * i + 1] = digits[n->opts.host_addr[i] & 15];
	}
	n->ethaddr[2 * USB_NET_ALEN] = '\0';
	memset(n->strings, 0, sizeof(n->strings));
	for (i = 0; i < NET_N_STRINGS; i++)
		n->strings[i].s = i == NET_MAC_IDX ? n->ethaddr : n->kind->strings[i];
	n->string_table.language = USB_LANGID_EN_US;
	n->string_table.strings = n->strings;
	n->string_tables[0] = &n->string_table;
	n->string_tables[1] = NULL;
}

/* ---- the IN requests' completion ------------------------------------------------ */

/* What the request carried goes on net_port's counters; the ring refills. */
static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct net_fn *n = req->context;
	int i = net_reqs_in_index(&n->reqs, req);
	unsigned frames;
	size_t bytes;

	(void)ep;
	if (i < 0)
		return;	/* not one of ours: nothing to release or count */
	frames = n->reqs.in_frames[i];
	bytes = n->reqs.in_bytes[i];
	net_reqs_release_in(&n->reqs, (unsigned)i);
	net_port_tx_done(&n->port, frames, bytes, req->status == 0);
}

/* ---- bind and unbind ------------------------------------------------------------ */

static int take_ids(struct usb_configuration *c, struct net_fn *n)
{
	struct usb_string *us = usb_gstrings_attach(c->cdev, n->string_tables, NET_N_STRINGS);
	int id;

	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	/* Linux attaches ARRAY_SIZE(ecm_string_defs) (ncm_string_defs)
	 * strings: the table's terminator takes an id too (an empty string).
	 * Take it, so the ids after this function's are the kernel's. */
	if ((id = usb_string_id(c->cdev)) < 0)
		return id;
	n->ctrl_intf.iInterface = us[NET_CTRL_IDX].id;
	n->ether_desc.iMACAddress = us[NET_MAC_IDX].id;
	n->data_intf.iInterface = us[NET_DATA_IDX].id;
	n->iad.iFunction = us[NET_IAD_IDX].id;
	if ((id = usb_interface_id(c, &n->function)) < 0)
		return id;
	n->ctrl_id = (uint8_t)id;
	if ((id = usb_interface_id(c, &n->function)) < 0)
		return id;
	n->data_id = (uint8_t)id;
	n->iad.bFirstInterface = n->ctrl_id;
	n->ctrl_intf.bInterfaceNumber = n->ctrl_id;
	n->data_nop_intf.bInterfaceNumber = n->data_intf.bInterfaceNumber = n->data_id;
	n->union_desc.bMasterInterface0 = n->ctrl_id;
	n->union_desc.bSlaveInterface0 = n->data_id;
	return 0;
}

static int net_fn_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct net_fn *n = net_fn_of(f);
	int ret;

	fill_static_descs(n);
	set_strings(n);
	ret = take_ids(c, n);
	if (ret)
		return ret;
	n->notify_ep = usb_ep_autoconfig(c->cdev->gadget, &n->fs_notify);
	if (!n->notify_ep)
		return -USB_ENODEV;
	n->hs_notify = n->fs_notify;
	n->hs_notify.bInterval = NET_STATUS_INTERVAL_HS;
	n->ss_notify_comp = (struct usb_ss_ep_comp_descriptor){
		.bLength = USB_DT_SS_EP_COMP_SIZE, .bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
		.wBytesPerInterval = USB_CPU_TO_LE16(NET_NOTIFY_BYTES),
	};
	ret = fn_bulk_pair_bind(&n->pair, c->cdev->gadget, 0);
	if (ret)
		goto fail_notify;
	build_list(n, USB_SPEED_FULL, n->fs_list);
	build_list(n, USB_SPEED_HIGH, n->hs_list);
	build_list(n, USB_SPEED_SUPER, n->ss_list);
	ret = usb_assign_descriptors(f, n->fs_list, n->hs_list, n->ss_list, n->ss_list);
	if (ret)
		goto fail_pair;
	ret = net_reqs_alloc(&n->reqs, n->pair.in, n->pair.out, 2 * n->opts.qmult,
			     n->kind->in_len, n->kind->out_len, n, in_complete,
			     n->kind->out_complete);
	if (ret == 0 && (ret = net_notify_alloc(&n->notify, n->notify_ep)) != 0)
		net_reqs_free(&n->reqs);
	if (ret)
		goto fail_descs;
	n->notify.speed_first = n->kind->speed_first;
	if (n->kind->data_alt)
		n->kind->data_alt(n, 0);
	return 0;

fail_descs:
	usb_free_all_descriptors(f);
fail_pair:
	fn_bulk_pair_release(&n->pair);
fail_notify:
	usb_ep_autoconfig_release(n->notify_ep);
	n->notify_ep = NULL;
	return ret;
}

static void net_fn_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct net_fn *n = net_fn_of(f);

	(void)c;
	if (n->opts.ops && n->opts.ops->unbind)
		n->opts.ops->unbind(f, n->opts.ctx);
	net_notify_free(&n->notify);
	net_reqs_free(&n->reqs);
	usb_free_all_descriptors(f);
}

/* ---- set_alt, disable -------------------------------------------------------------- */

static int enable_ep(struct net_fn *n, struct usb_ep *ep)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&n->function);
	int ret = config_ep_by_speed(cdev->gadget, &n->function, ep);

	if (ret == 0)
		ret = usb_ep_enable(ep);
	if (ret == 0)
		ep->driver_data = n;
	return ret;
}

static void data_off(struct net_fn *n)
{
	if (!n->data_on)
		return;
	n->data_on = false;
	net_port_link(&n->port, false);
	(void)usb_ep_disable(n->pair.in);
	(void)usb_ep_disable(n->pair.out);
}

static int data_on(struct net_fn *n)
{
	struct usb_gadget *g = usb_function_cdev(&n->function)->gadget;
	int ret = enable_ep(n, n->pair.in);

	if (ret)
		return ret;
	ret = enable_ep(n, n->pair.out);
	if (ret) {
		(void)usb_ep_disable(n->pair.in);
		return ret;
	}
	n->in_maxp = usb_endpoint_maxp(n->pair.in->desc);
	n->data_on = true;
	net_reqs_start(&n->reqs, g);
	net_port_link(&n->port, true);
	return 0;
}

static int notify_on(struct net_fn *n)
{
	int ret;

	if (n->notify.on)
		(void)usb_ep_disable(n->notify_ep);
	net_notify_enable(&n->notify, false);
	ret = enable_ep(n, n->notify_ep);
	if (ret)
		return ret;
	n->notify.intf = n->ctrl_id;
	net_notify_enable(&n->notify, true);
	return 0;
}

static int net_fn_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct net_fn *n = net_fn_of(f);
	int ret;

	if (interface == n->ctrl_id)
		return alt == 0 ? notify_on(n) : -USB_EINVAL;
	if (interface != n->data_id || alt > 1)
		return -USB_EINVAL;
	data_off(n);
	n->data_alt = (uint8_t)alt;
	if (n->kind->data_alt)
		n->kind->data_alt(n, alt);
	if (alt == 1 && (ret = data_on(n)) != 0) {
		n->data_alt = 0;
		return ret;
	}
	/* As Linux: the connection state and the speed, after every choice. */
	net_notify_link(&n->notify, n->data_on, net_bitrate(usb_function_cdev(f)->gadget));
	return 0;
}

static int net_fn_get_alt(struct usb_function *f, unsigned interface)
{
	struct net_fn *n = net_fn_of(f);

	if (interface == n->ctrl_id)
		return 0;
	return interface == n->data_id ? n->data_alt : -USB_EINVAL;
}

static void net_fn_disable(struct usb_function *f)
{
	struct net_fn *n = net_fn_of(f);

	data_off(n);
	n->data_alt = 0;
	if (n->kind->data_alt)
		n->kind->data_alt(n, 0);
	if (n->notify.on)
		(void)usb_ep_disable(n->notify_ep);
	net_notify_enable(&n->notify, false);
}

/* ---- allocation --------------------------------------------------------------------- */

void net_fn_free(struct usb_function *f)
{
	struct net_fn *n = net_fn_of(f);

	net_port_free(&n->port);
	composite__free(n);
}

int net_fn_alloc(size_t size, const struct net_fn_kind *kind, const struct usb_net_opts *opts,
		 struct net_fn **out)
{
	struct net_fn *n;
	int ret;

	*out = NULL;
	ret = usb_net_opts_check(opts);
	if (ret)
		return ret;
	n = composite__calloc(1, size);
	if (!n)
		return -USB_ENOMEM;
	n->kind = kind;
	n->opts = *opts;
	ret = net_port_init(&n->port, &n->function, opts->ops, opts->ctx, kind->fill);
	if (ret) {
		composite__free(n);
		return ret;
	}
	n->function.name = kind->name;
	n->function.bind = net_fn_bind;
	n->function.unbind = net_fn_unbind;
	n->function.free_func = net_fn_free;
	n->function.set_alt = net_fn_set_alt;
	n->function.get_alt = net_fn_get_alt;
	n->function.disable = net_fn_disable;
	n->function.setup = kind->setup;
	*out = n;
	return 0;
}

struct net_fn *net_fn_is(const struct usb_function *f, const struct net_fn_kind *kind)
{
	if (!f || f->bind != net_fn_bind)
		return NULL;
	return net_fn_of((struct usb_function *)f)->kind == kind ? net_fn_of((struct usb_function *)f)
								 : NULL;
}
