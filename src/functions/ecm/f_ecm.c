/*
 * f_ecm.c - the CDC ECM function (include/composite/ether.h), as Linux's
 * f_ecm: its descriptors (interface association, communication interface
 * with the CDC header, union and Ethernet networking descriptors and an
 * interrupt IN notify endpoint; data interface with an empty alternate 0
 * and the bulk pair at alternate 1), the MAC address string,
 * NETWORK_CONNECTION and CONNECTION_SPEED_CHANGE notifications,
 * SET_ETHERNET_PACKET_FILTER, and the frame path: one frame per bulk
 * request each way, through net_port (src/functions/net).
 *
 * Portable C11 on the public function API. Callbacks run in the backend's
 * event context; the IN path is also filled from the sender's thread, so
 * the IN requests' busy flags are atomics.
 */
#include <stdlib.h>
#include <string.h>

#include "composite/ether.h"
#include "functions/common/bulk_pair.h"
#include "functions/net/net_notify.h"
#include "functions/net/net_reqs.h"
#include "functions/net/net_port.h"

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

/* OUT requests take a whole frame and the byte usbnet pads a frame of a
 * packet multiple with; more than a frame is dropped as too long. */
#define ECM_RX_LEN (USB_NET_FRAME_MAX + 64)
#define ECM_STATUS_BYTECOUNT NET_NOTIFY_BYTES
#define ECM_STATUS_INTERVAL_FS 32	/* ms, Linux's ECM_STATUS_INTERVAL_MS */
#define ECM_STATUS_INTERVAL_HS 9	/* 2^(9-1) microframes: 32 ms */

enum { ECM_CTRL_IDX, ECM_MAC_IDX, ECM_DATA_IDX, ECM_IAD_IDX, ECM_N_STRINGS };

struct f_ecm {
	struct usb_function function;
	struct usb_net_opts opts;
	struct net_port port;
	uint8_t ctrl_id, data_id, data_alt;
	char ethaddr[2 * USB_NET_ALEN + 1];	/* the host's address, the iMACAddress string */
	struct usb_string strings[ECM_N_STRINGS + 1];
	struct usb_gadget_strings string_table;
	struct usb_gadget_strings *string_tables[2];

	struct usb_ep *notify_ep;
	struct fn_bulk_pair pair;
	struct usb_interface_assoc_descriptor iad;
	struct usb_interface_descriptor ctrl_intf, data_nop_intf, data_intf;
	struct usb_cdc_header_desc header;
	struct usb_cdc_union_desc union_desc;
	struct usb_cdc_ether_desc ether_desc;
	struct usb_endpoint_descriptor fs_notify, hs_notify;
	struct usb_ss_ep_comp_descriptor ss_notify_comp;
	struct usb_descriptor_header *fs_list[14], *hs_list[14], *ss_list[18];

	struct net_reqs reqs;
	unsigned in_maxp;
	bool data_on;
	struct net_notify notify;
};

static struct f_ecm *func_to_ecm(struct usb_function *f)
{
	return usb_container_of(f, struct f_ecm, function);
}

static struct f_ecm *port_to_ecm(struct net_port *p)
{
	return usb_container_of(p, struct f_ecm, port);
}

/* ---- descriptors ------------------------------------------------------------- */

static void fill_static_descs(struct f_ecm *ecm)
{
	ecm->iad = (struct usb_interface_assoc_descriptor){
		.bLength = sizeof(ecm->iad), .bDescriptorType = USB_DT_INTERFACE_ASSOCIATION,
		.bInterfaceCount = 2, .bFunctionClass = USB_CLASS_COMM,
		.bFunctionSubClass = USB_CDC_SUBCLASS_ETHERNET,
		.bFunctionProtocol = USB_CDC_PROTO_NONE,
	};
	ecm->ctrl_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 1, .bInterfaceClass = USB_CLASS_COMM,
		.bInterfaceSubClass = USB_CDC_SUBCLASS_ETHERNET,
		.bInterfaceProtocol = USB_CDC_PROTO_NONE,
	};
	/* Alternate 0 of the data interface has no endpoints: the host
	 * chooses alternate 1 to open the link (ECM 1.2, 3.3). */
	ecm->data_nop_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bAlternateSetting = 0, .bNumEndpoints = 0,
		.bInterfaceClass = USB_CLASS_CDC_DATA,
	};
	ecm->data_intf = ecm->data_nop_intf;
	ecm->data_intf.bAlternateSetting = 1;
	ecm->data_intf.bNumEndpoints = 2;
	ecm->header = (struct usb_cdc_header_desc){
		.bLength = sizeof(ecm->header), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_HEADER_TYPE, .bcdCDC = USB_CPU_TO_LE16(0x0110),
	};
	ecm->union_desc = (struct usb_cdc_union_desc){
		.bLength = sizeof(ecm->union_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_UNION_TYPE,
	};
	ecm->ether_desc = (struct usb_cdc_ether_desc){
		.bLength = sizeof(ecm->ether_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_ETHERNET_TYPE,
		.bmEthernetStatistics = USB_CPU_TO_LE32(0),	/* no statistics */
		.wMaxSegmentSize = USB_CPU_TO_LE16(USB_NET_FRAME_MAX),
	};
	ecm->fs_notify = (struct usb_endpoint_descriptor){
		.bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN, .bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = USB_CPU_TO_LE16(ECM_STATUS_BYTECOUNT),
		.bInterval = ECM_STATUS_INTERVAL_FS,
	};
}

static void build_list(struct f_ecm *ecm, enum usb_device_speed speed,
		       struct usb_descriptor_header **v)
{
	size_t n = 0;

	v[n++] = DH(&ecm->iad);
	v[n++] = DH(&ecm->ctrl_intf);
	v[n++] = DH(&ecm->header);
	v[n++] = DH(&ecm->union_desc);
	v[n++] = DH(&ecm->ether_desc);
	if (speed == USB_SPEED_FULL) {
		v[n++] = DH(&ecm->fs_notify);
	} else {
		v[n++] = DH(&ecm->hs_notify);
		if (speed >= USB_SPEED_SUPER)
			v[n++] = DH(&ecm->ss_notify_comp);
	}
	v[n++] = DH(&ecm->data_nop_intf);
	v[n++] = DH(&ecm->data_intf);
	n += fn_bulk_pair_descs(&ecm->pair, speed, v + n);
	v[n] = NULL;
}

static void set_strings(struct f_ecm *ecm)
{
	static const char digits[] = "0123456789ABCDEF";
	unsigned i;

	for (i = 0; i < USB_NET_ALEN; i++) {
		ecm->ethaddr[2 * i] = digits[ecm->opts.host_addr[i] >> 4];
		ecm->ethaddr[2 * i + 1] = digits[ecm->opts.host_addr[i] & 15];
	}
	ecm->ethaddr[2 * USB_NET_ALEN] = '\0';
	memset(ecm->strings, 0, sizeof(ecm->strings));
	ecm->strings[ECM_CTRL_IDX].s = "CDC Ethernet Control Model (ECM)";
	ecm->strings[ECM_MAC_IDX].s = ecm->ethaddr;
	ecm->strings[ECM_DATA_IDX].s = "CDC Ethernet Data";
	ecm->strings[ECM_IAD_IDX].s = "CDC ECM";
	ecm->string_table.language = USB_LANGID_EN_US;
	ecm->string_table.strings = ecm->strings;
	ecm->string_tables[0] = &ecm->string_table;
	ecm->string_tables[1] = NULL;
}

/* ---- requests ----------------------------------------------------------------- */

static void in_complete(struct usb_ep *ep, struct usb_request *req);
static void out_complete(struct usb_ep *ep, struct usb_request *req);

/* ---- the frame path ------------------------------------------------------------- */

/* net_port's fill: queued frames into idle IN requests, one each. */
static void ecm_fill(struct net_port *p)
{
	struct f_ecm *ecm = port_to_ecm(p);
	struct usb_request *req;
	const uint8_t *frame;
	unsigned i;
	size_t len;

	while ((frame = net_port_peek(p, &len)) != NULL &&
	       (req = net_reqs_claim_in(&ecm->reqs, &i)) != NULL) {
		memcpy(req->buf, frame, len);
		req->length = (unsigned)len;
		/* A frame filling its last packet ends with a zero-length one. */
		req->zero = ecm->in_maxp && len % ecm->in_maxp == 0;
		ecm->reqs.in_frames[i] = 1;
		ecm->reqs.in_bytes[i] = len;
		net_port_pop(p);
		if (usb_ep_queue(ecm->pair.in, req, USB_GFP_ATOMIC)) {
			net_reqs_release_in(&ecm->reqs, i);
			net_port_tx_done(p, 1, len, false);
			return;
		}
	}
}

static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_ecm *ecm = req->context;
	unsigned i = net_reqs_in_index(&ecm->reqs, req);
	unsigned frames = ecm->reqs.in_frames[i];
	size_t bytes = ecm->reqs.in_bytes[i];

	(void)ep;
	net_reqs_release_in(&ecm->reqs, i);
	net_port_tx_done(&ecm->port, frames, bytes, req->status == 0);
}

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_ecm *ecm = req->context;

	(void)ep;
	net_port_rx(&ecm->port, req->buf, req->actual, req->status);
	net_reqs_requeue_out(&ecm->reqs, req, ecm->data_on);
}

/* ---- bind, set_alt, disable ----------------------------------------------------- */

static int ecm_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_ecm *ecm = func_to_ecm(f);
	struct usb_string *us;
	int id, ret;

	fill_static_descs(ecm);
	set_strings(ecm);
	us = usb_gstrings_attach(c->cdev, ecm->string_tables, ECM_N_STRINGS);
	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	ecm->ctrl_intf.iInterface = us[ECM_CTRL_IDX].id;
	ecm->ether_desc.iMACAddress = us[ECM_MAC_IDX].id;
	ecm->data_intf.iInterface = us[ECM_DATA_IDX].id;
	ecm->iad.iFunction = us[ECM_IAD_IDX].id;

	if ((id = usb_interface_id(c, f)) < 0)
		return id;
	ecm->ctrl_id = (uint8_t)id;
	if ((id = usb_interface_id(c, f)) < 0)
		return id;
	ecm->data_id = (uint8_t)id;
	ecm->iad.bFirstInterface = ecm->ctrl_id;
	ecm->ctrl_intf.bInterfaceNumber = ecm->ctrl_id;
	ecm->data_nop_intf.bInterfaceNumber = ecm->data_intf.bInterfaceNumber = ecm->data_id;
	ecm->union_desc.bMasterInterface0 = ecm->ctrl_id;
	ecm->union_desc.bSlaveInterface0 = ecm->data_id;

	ecm->notify_ep = usb_ep_autoconfig(c->cdev->gadget, &ecm->fs_notify);
	if (!ecm->notify_ep)
		return -USB_ENODEV;
	ecm->hs_notify = ecm->fs_notify;
	ecm->hs_notify.bInterval = ECM_STATUS_INTERVAL_HS;
	ecm->ss_notify_comp = (struct usb_ss_ep_comp_descriptor){
		.bLength = USB_DT_SS_EP_COMP_SIZE, .bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
		.wBytesPerInterval = USB_CPU_TO_LE16(ECM_STATUS_BYTECOUNT),
	};
	ret = fn_bulk_pair_bind(&ecm->pair, c->cdev->gadget, 0);
	if (ret)
		goto fail_notify;
	build_list(ecm, USB_SPEED_FULL, ecm->fs_list);
	build_list(ecm, USB_SPEED_HIGH, ecm->hs_list);
	build_list(ecm, USB_SPEED_SUPER, ecm->ss_list);
	ret = usb_assign_descriptors(f, ecm->fs_list, ecm->hs_list, ecm->ss_list, ecm->ss_list);
	if (ret)
		goto fail_pair;
	ret = net_reqs_alloc(&ecm->reqs, ecm->pair.in, ecm->pair.out, 2 * ecm->opts.qmult,
			     USB_NET_FRAME_MAX, ECM_RX_LEN, ecm, in_complete, out_complete);
	if (ret == 0 && (ret = net_notify_alloc(&ecm->notify, ecm->notify_ep)) != 0)
		net_reqs_free(&ecm->reqs);
	if (ret)
		goto fail_descs;
	return 0;

fail_descs:
	usb_free_all_descriptors(f);
fail_pair:
	fn_bulk_pair_release(&ecm->pair);
fail_notify:
	usb_ep_autoconfig_release(ecm->notify_ep);
	ecm->notify_ep = NULL;
	return ret;
}

static int enable_ep(struct f_ecm *ecm, struct usb_ep *ep)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&ecm->function);
	int ret = config_ep_by_speed(cdev->gadget, &ecm->function, ep);

	if (ret == 0)
		ret = usb_ep_enable(ep);
	if (ret == 0)
		ep->driver_data = ecm;
	return ret;
}

static void data_off(struct f_ecm *ecm)
{
	if (!ecm->data_on)
		return;
	ecm->data_on = false;
	net_port_link(&ecm->port, false);
	(void)usb_ep_disable(ecm->pair.in);
	(void)usb_ep_disable(ecm->pair.out);
}

static int data_on(struct f_ecm *ecm)
{
	struct usb_gadget *g = usb_function_cdev(&ecm->function)->gadget;
	int ret = enable_ep(ecm, ecm->pair.in);

	if (ret)
		return ret;
	ret = enable_ep(ecm, ecm->pair.out);
	if (ret) {
		(void)usb_ep_disable(ecm->pair.in);
		return ret;
	}
	ecm->in_maxp = usb_endpoint_maxp(ecm->pair.in->desc);
	ecm->data_on = true;
	net_reqs_start(&ecm->reqs, g);
	net_port_link(&ecm->port, true);
	return 0;
}

static int ecm_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct f_ecm *ecm = func_to_ecm(f);
	int ret;

	if (interface == ecm->ctrl_id) {
		if (alt != 0)
			return -USB_EINVAL;
		if (ecm->notify.on)
			(void)usb_ep_disable(ecm->notify_ep);
		net_notify_enable(&ecm->notify, false);
		ret = enable_ep(ecm, ecm->notify_ep);
		if (ret)
			return ret;
		ecm->notify.intf = ecm->ctrl_id;
		net_notify_enable(&ecm->notify, true);
		return 0;
	}
	if (interface != ecm->data_id || alt > 1)
		return -USB_EINVAL;
	data_off(ecm);
	ecm->data_alt = (uint8_t)alt;
	if (alt == 1 && (ret = data_on(ecm)) != 0) {
		ecm->data_alt = 0;
		return ret;
	}
	/* As Linux: the connection state, always followed by the speed. */
	net_notify_link(&ecm->notify, ecm->data_on,
			net_bitrate(usb_function_cdev(f)->gadget));
	return 0;
}

static int ecm_get_alt(struct usb_function *f, unsigned interface)
{
	struct f_ecm *ecm = func_to_ecm(f);

	if (interface == ecm->ctrl_id)
		return 0;
	return interface == ecm->data_id ? ecm->data_alt : -USB_EINVAL;
}

static void ecm_disable(struct usb_function *f)
{
	struct f_ecm *ecm = func_to_ecm(f);

	data_off(ecm);
	ecm->data_alt = 0;
	if (ecm->notify.on)
		(void)usb_ep_disable(ecm->notify_ep);
	net_notify_enable(&ecm->notify, false);
}

static void ecm_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_ecm *ecm = func_to_ecm(f);

	(void)c;
	if (ecm->opts.ops && ecm->opts.ops->unbind)
		ecm->opts.ops->unbind(f, ecm->opts.ctx);
	net_notify_free(&ecm->notify);
	net_reqs_free(&ecm->reqs);
	usb_free_all_descriptors(f);
}

/* ---- class requests ------------------------------------------------------------ */

static int ecm_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct f_ecm *ecm = func_to_ecm(f);
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	int ret;

	/* Only the packet filter, as Linux: multicast and power filters and
	 * statistics are optional (none announced). */
	if (ctrl->bRequestType != (USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE) ||
	    ctrl->bRequest != USB_CDC_SET_ETHERNET_PACKET_FILTER ||
	    USB_LE16_TO_CPU(ctrl->wIndex) != ecm->ctrl_id || ctrl->wLength != 0)
		return -USB_EOPNOTSUPP;
	atomic_store(&ecm->port.filter, USB_LE16_TO_CPU(ctrl->wValue));
	cdev->req->length = 0;
	cdev->req->zero = 0;
	ret = usb_ep_queue(cdev->gadget->ep0, cdev->req, USB_GFP_ATOMIC);
	return ret < 0 ? ret : 0;
}

/* ---- allocation and the public calls --------------------------------------------- */

static void ecm_free_func(struct usb_function *f)
{
	struct f_ecm *ecm = func_to_ecm(f);

	net_port_free(&ecm->port);
	free(ecm);
}

int ecm_alloc(const struct usb_net_opts *opts, struct usb_function **out)
{
	struct f_ecm *ecm;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = usb_net_opts_check(opts);
	if (ret)
		return ret;
	ecm = calloc(1, sizeof(*ecm));
	if (!ecm)
		return -USB_ENOMEM;
	ecm->opts = *opts;
	ret = net_port_init(&ecm->port, &ecm->function, opts->ops, opts->ctx, ecm_fill);
	if (ret) {
		free(ecm);
		return ret;
	}
	ecm->function.name = "ecm";
	ecm->function.bind = ecm_bind;
	ecm->function.unbind = ecm_unbind;
	ecm->function.free_func = ecm_free_func;
	ecm->function.set_alt = ecm_set_alt;
	ecm->function.get_alt = ecm_get_alt;
	ecm->function.disable = ecm_disable;
	ecm->function.setup = ecm_setup;
	*out = &ecm->function;
	return 0;
}

void ecm_free(struct usb_function *f)
{
	if (ecm_is(f))
		ecm_free_func(f);
}

bool ecm_is(const struct usb_function *f)
{
	return f && f->bind == ecm_bind;
}

struct net_port *ecm__port(struct usb_function *f)
{
	return ecm_is(f) ? &func_to_ecm(f)->port : NULL;
}
