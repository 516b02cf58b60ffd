/*
 * f_ncm.c - the CDC NCM 1.0 function (include/composite/ether.h), as
 * Linux's f_ncm: its descriptors (interface association, communication
 * interface with the CDC header, union, Ethernet networking and NCM
 * descriptors and an interrupt IN notify endpoint; data interface with an
 * empty alternate 0 and the bulk pair at alternate 1), the NCM requests
 * (GET_NTB_PARAMETERS, GET/SET_NTB_INPUT_SIZE, GET/SET_NTB_FORMAT,
 * GET/SET_CRC_MODE without CRCs, SET_ETHERNET_PACKET_FILTER), and the
 * frame path: NTBs (ntb.c) each way through net_port.
 *
 * IN: an NTB carries every frame queued when an IN request comes free, so
 * frames wait only while all IN requests are in flight (no timer: under
 * load NTBs fill up, an idle link sends each frame at once).
 * OUT: each transfer is parsed with every bound checked; a malformed NTB
 * is dropped whole and counted.
 *
 * Portable C11 on the public function API. Callbacks run in the backend's
 * event context; the IN path is also filled from the sender's thread.
 */
#include <stdlib.h>
#include <string.h>

#include "composite/ether.h"
#include "functions/common/bulk_pair.h"
#include "functions/net/net_notify.h"
#include "functions/net/net_port.h"
#include "functions/net/net_reqs.h"
#include "ntb.h"

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

/* Linux's NTB_DEFAULT_IN_SIZE and NTB_OUT_SIZE, and its alignments. */
#define NCM_NTB_IN_MAX		16384u
#define NCM_NTB_OUT_MAX		16384u
#define NCM_NDP_ALIGN		4u
#define NCM_STATUS_INTERVAL_FS	32	/* ms */
#define NCM_STATUS_INTERVAL_HS	9	/* 2^(9-1) microframes: 32 ms */
/* As Linux: packet filters and GET/SET_CRC_MODE. */
#define NCM_NCAPS (USB_CDC_NCM_NCAP_ETH_FILTER | USB_CDC_NCM_NCAP_CRC_MODE)

enum { NCM_CTRL_IDX, NCM_MAC_IDX, NCM_DATA_IDX, NCM_IAD_IDX, NCM_N_STRINGS };

struct f_ncm {
	struct usb_function function;
	struct usb_net_opts opts;
	struct net_port port;
	uint8_t ctrl_id, data_id, data_alt;
	char ethaddr[2 * USB_NET_ALEN + 1];
	struct usb_string strings[NCM_N_STRINGS + 1];
	struct usb_gadget_strings string_table;
	struct usb_gadget_strings *string_tables[2];

	struct usb_ep *notify_ep;
	struct fn_bulk_pair pair;
	struct usb_interface_assoc_descriptor iad;
	struct usb_interface_descriptor ctrl_intf, data_nop_intf, data_intf;
	struct usb_cdc_header_desc header;
	struct usb_cdc_union_desc union_desc;
	struct usb_cdc_ether_desc ether_desc;
	struct usb_cdc_ncm_desc ncm_desc;
	struct usb_endpoint_descriptor fs_notify, hs_notify;
	struct usb_ss_ep_comp_descriptor ss_notify_comp;
	struct usb_descriptor_header *fs_list[16], *hs_list[16], *ss_list[20];

	struct net_reqs reqs;
	struct net_notify notify;
	unsigned in_maxp;
	bool data_on;

	/* negotiated while the data interface is at alternate 0 */
	enum ncm_ntb_format format;
	uint32_t ntb_in_size;		/* SET_NTB_INPUT_SIZE's dwNtbInMaxSize */
	uint16_t ntb_in_datagrams;	/* and wNtbInMaxDatagrams (0: no limit) */
	uint16_t sequence;		/* the next IN NTB's wSequence (fill only) */
	struct ncm_ntb_parser parser;	/* event context only */
	uint64_t drops_before;		/* by parsers reset since (event context) */
	atomic_uint_least64_t ntbs_dropped;
};

static const struct ncm_ntb_in_params ncm_in_params = {
	.ntb_in_max = NCM_NTB_IN_MAX, .ndp_in_divisor = 4,
	.ndp_in_payload_remainder = 0, .ndp_in_alignment = NCM_NDP_ALIGN,
};

static const struct ncm_ntb_out_params ncm_out_params = {
	.ntb_out_max = NCM_NTB_OUT_MAX, .ndp_out_divisor = 4,
	.ndp_out_payload_remainder = 0, .ndp_out_alignment = NCM_NDP_ALIGN,
};

static struct f_ncm *func_to_ncm(struct usb_function *f)
{
	return usb_container_of(f, struct f_ncm, function);
}

static struct f_ncm *port_to_ncm(struct net_port *p)
{
	return usb_container_of(p, struct f_ncm, port);
}

/* ---- descriptors ------------------------------------------------------------- */

static void fill_static_descs(struct f_ncm *ncm)
{
	ncm->iad = (struct usb_interface_assoc_descriptor){
		.bLength = sizeof(ncm->iad), .bDescriptorType = USB_DT_INTERFACE_ASSOCIATION,
		.bInterfaceCount = 2, .bFunctionClass = USB_CLASS_COMM,
		.bFunctionSubClass = USB_CDC_SUBCLASS_NCM, .bFunctionProtocol = USB_CDC_PROTO_NONE,
	};
	ncm->ctrl_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 1, .bInterfaceClass = USB_CLASS_COMM,
		.bInterfaceSubClass = USB_CDC_SUBCLASS_NCM, .bInterfaceProtocol = USB_CDC_PROTO_NONE,
	};
	ncm->data_nop_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bInterfaceClass = USB_CLASS_CDC_DATA, .bInterfaceProtocol = USB_CDC_NCM_PROTO_NTB,
	};
	ncm->data_intf = ncm->data_nop_intf;
	ncm->data_intf.bAlternateSetting = 1;
	ncm->data_intf.bNumEndpoints = 2;
	ncm->header = (struct usb_cdc_header_desc){
		.bLength = sizeof(ncm->header), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_HEADER_TYPE, .bcdCDC = USB_CPU_TO_LE16(0x0110),
	};
	ncm->union_desc = (struct usb_cdc_union_desc){
		.bLength = sizeof(ncm->union_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_UNION_TYPE,
	};
	ncm->ether_desc = (struct usb_cdc_ether_desc){
		.bLength = sizeof(ncm->ether_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_ETHERNET_TYPE,
		.wMaxSegmentSize = USB_CPU_TO_LE16(USB_NET_FRAME_MAX),
	};
	ncm->ncm_desc = (struct usb_cdc_ncm_desc){
		.bLength = sizeof(ncm->ncm_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_NCM_TYPE, .bcdNcmVersion = USB_CPU_TO_LE16(0x0100),
		.bmNetworkCapabilities = NCM_NCAPS,
	};
	ncm->fs_notify = (struct usb_endpoint_descriptor){
		.bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN, .bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = USB_CPU_TO_LE16(NET_NOTIFY_BYTES),
		.bInterval = NCM_STATUS_INTERVAL_FS,
	};
}

static void build_list(struct f_ncm *ncm, enum usb_device_speed speed,
		       struct usb_descriptor_header **v)
{
	size_t n = 0;

	v[n++] = DH(&ncm->iad);
	v[n++] = DH(&ncm->ctrl_intf);
	v[n++] = DH(&ncm->header);
	v[n++] = DH(&ncm->union_desc);
	v[n++] = DH(&ncm->ether_desc);
	v[n++] = DH(&ncm->ncm_desc);
	if (speed == USB_SPEED_FULL) {
		v[n++] = DH(&ncm->fs_notify);
	} else {
		v[n++] = DH(&ncm->hs_notify);
		if (speed >= USB_SPEED_SUPER)
			v[n++] = DH(&ncm->ss_notify_comp);
	}
	v[n++] = DH(&ncm->data_nop_intf);
	v[n++] = DH(&ncm->data_intf);
	n += fn_bulk_pair_descs(&ncm->pair, speed, v + n);
	v[n] = NULL;
}

static void set_strings(struct f_ncm *ncm)
{
	static const char digits[] = "0123456789ABCDEF";
	unsigned i;

	for (i = 0; i < USB_NET_ALEN; i++) {
		ncm->ethaddr[2 * i] = digits[ncm->opts.host_addr[i] >> 4];
		ncm->ethaddr[2 * i + 1] = digits[ncm->opts.host_addr[i] & 15];
	}
	ncm->ethaddr[2 * USB_NET_ALEN] = '\0';
	memset(ncm->strings, 0, sizeof(ncm->strings));
	ncm->strings[NCM_CTRL_IDX].s = "CDC Network Control Model (NCM)";
	ncm->strings[NCM_MAC_IDX].s = ncm->ethaddr;
	ncm->strings[NCM_DATA_IDX].s = "CDC Network Data";
	ncm->strings[NCM_IAD_IDX].s = "CDC NCM";
	ncm->string_table.language = USB_LANGID_EN_US;
	ncm->string_table.strings = ncm->strings;
	ncm->string_tables[0] = &ncm->string_table;
	ncm->string_tables[1] = NULL;
}

/* What a new link starts with (and alternate 0 returns to), as Linux. */
static uint64_t parser_drops(const struct ncm_ntb_parser *p);

static void reset_negotiation(struct f_ncm *ncm)
{
	/* The parser's counters start again; the function's total does not. */
	ncm->drops_before += parser_drops(&ncm->parser);
	ncm->format = NCM_NTB16;
	ncm->ntb_in_size = NCM_NTB_IN_MAX;
	ncm->ntb_in_datagrams = 0;
	(void)ncm_ntb_parser_init(&ncm->parser, NCM_NTB16, NCM_NTB_OUT_MAX);
}

/* ---- the frame path ------------------------------------------------------------- */

/* The queued frames that fit into one NTB in @req. Return: its length. */
static int build_ntb(struct f_ncm *ncm, struct usb_request *req, unsigned index)
{
	struct ncm_ntb_builder b;
	const uint8_t *frame;
	size_t len;

	if (ncm_ntb_builder_init(&b, req->buf, ncm->ntb_in_size, ncm->format, &ncm_in_params,
				 ncm->sequence++))
		return -USB_EINVAL;
	b.max_datagrams = ncm->ntb_in_datagrams;
	ncm->reqs.in_frames[index] = 0;
	ncm->reqs.in_bytes[index] = 0;
	while ((frame = net_port_peek(&ncm->port, &len)) != NULL) {
		int rc = ncm_ntb_builder_add(&b, frame, len);

		if (rc == -USB_ENOSPC)
			break;
		net_port_pop(&ncm->port);
		if (rc) {
			net_port_tx_done(&ncm->port, 1, len, false);
			continue;
		}
		ncm->reqs.in_frames[index]++;
		ncm->reqs.in_bytes[index] += len;
	}
	return ncm->reqs.in_frames[index] ? ncm_ntb_builder_finish(&b) : -USB_ENODATA;
}

/* net_port's fill: each idle IN request takes an NTB of what is queued. */
static void ncm_fill(struct net_port *p)
{
	struct f_ncm *ncm = port_to_ncm(p);
	struct usb_request *req;
	size_t len;
	unsigned i;

	while (net_port_peek(p, &len) && (req = net_reqs_claim_in(&ncm->reqs, &i)) != NULL) {
		int n = build_ntb(ncm, req, i);

		if (n < 0) {
			net_reqs_release_in(&ncm->reqs, i);
			return;
		}
		req->length = (unsigned)n;
		/* Short of the host's NTB size and on a packet boundary: a ZLP ends it. */
		req->zero = ncm->in_maxp && (unsigned)n % ncm->in_maxp == 0 &&
			    (uint32_t)n < ncm->ntb_in_size;
		if (usb_ep_queue(ncm->pair.in, req, USB_GFP_ATOMIC)) {
			net_port_tx_done(p, ncm->reqs.in_frames[i], ncm->reqs.in_bytes[i], false);
			net_reqs_release_in(&ncm->reqs, i);
			return;
		}
	}
}

static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_ncm *ncm = req->context;
	unsigned i = net_reqs_in_index(&ncm->reqs, req);
	unsigned frames = ncm->reqs.in_frames[i];
	size_t bytes = ncm->reqs.in_bytes[i];

	(void)ep;
	net_reqs_release_in(&ncm->reqs, i);
	net_port_tx_done(&ncm->port, frames, bytes, req->status == 0);
}

static void deliver(void *ctx, const uint8_t *data, size_t len)
{
	net_port_rx(ctx, data, len, 0);
}

static uint64_t parser_drops(const struct ncm_ntb_parser *p)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < NCM_NTB_DROP_REASONS; i++)
		n += p->stats.dropped[i];
	return n;
}

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_ncm *ncm = req->context;

	(void)ep;
	if (req->status == 0 && req->actual)
		(void)ncm_ntb_parse_transfer(&ncm->parser, req->buf, req->actual, deliver,
					     &ncm->port);
	else if (req->status)
		net_port_rx(&ncm->port, NULL, 0, req->status);
	atomic_store(&ncm->ntbs_dropped, ncm->drops_before + parser_drops(&ncm->parser));
	net_reqs_requeue_out(&ncm->reqs, req, ncm->data_on);
}

/* ---- bind, set_alt, disable ----------------------------------------------------- */

static int ncm_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_ncm *ncm = func_to_ncm(f);
	struct usb_string *us;
	int id, ret;

	fill_static_descs(ncm);
	set_strings(ncm);
	us = usb_gstrings_attach(c->cdev, ncm->string_tables, NCM_N_STRINGS);
	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	ncm->ctrl_intf.iInterface = us[NCM_CTRL_IDX].id;
	ncm->ether_desc.iMACAddress = us[NCM_MAC_IDX].id;
	ncm->data_intf.iInterface = us[NCM_DATA_IDX].id;
	ncm->iad.iFunction = us[NCM_IAD_IDX].id;

	if ((id = usb_interface_id(c, f)) < 0)
		return id;
	ncm->ctrl_id = (uint8_t)id;
	if ((id = usb_interface_id(c, f)) < 0)
		return id;
	ncm->data_id = (uint8_t)id;
	ncm->iad.bFirstInterface = ncm->ctrl_id;
	ncm->ctrl_intf.bInterfaceNumber = ncm->ctrl_id;
	ncm->data_nop_intf.bInterfaceNumber = ncm->data_intf.bInterfaceNumber = ncm->data_id;
	ncm->union_desc.bMasterInterface0 = ncm->ctrl_id;
	ncm->union_desc.bSlaveInterface0 = ncm->data_id;

	ncm->notify_ep = usb_ep_autoconfig(c->cdev->gadget, &ncm->fs_notify);
	if (!ncm->notify_ep)
		return -USB_ENODEV;
	ncm->hs_notify = ncm->fs_notify;
	ncm->hs_notify.bInterval = NCM_STATUS_INTERVAL_HS;
	ncm->ss_notify_comp = (struct usb_ss_ep_comp_descriptor){
		.bLength = USB_DT_SS_EP_COMP_SIZE, .bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
		.wBytesPerInterval = USB_CPU_TO_LE16(NET_NOTIFY_BYTES),
	};
	ret = fn_bulk_pair_bind(&ncm->pair, c->cdev->gadget, 0);
	if (ret)
		goto fail_notify;
	build_list(ncm, USB_SPEED_FULL, ncm->fs_list);
	build_list(ncm, USB_SPEED_HIGH, ncm->hs_list);
	build_list(ncm, USB_SPEED_SUPER, ncm->ss_list);
	ret = usb_assign_descriptors(f, ncm->fs_list, ncm->hs_list, ncm->ss_list, ncm->ss_list);
	if (ret)
		goto fail_pair;
	ret = net_reqs_alloc(&ncm->reqs, ncm->pair.in, ncm->pair.out, 2 * ncm->opts.qmult,
			     NCM_NTB_IN_MAX, NCM_NTB_OUT_MAX, ncm, in_complete, out_complete);
	if (ret == 0 && (ret = net_notify_alloc(&ncm->notify, ncm->notify_ep)) != 0)
		net_reqs_free(&ncm->reqs);
	if (ret)
		goto fail_descs;
	ncm->notify.speed_first = true;	/* as Linux's f_ncm */
	reset_negotiation(ncm);
	return 0;

fail_descs:
	usb_free_all_descriptors(f);
fail_pair:
	fn_bulk_pair_release(&ncm->pair);
fail_notify:
	usb_ep_autoconfig_release(ncm->notify_ep);
	ncm->notify_ep = NULL;
	return ret;
}

static int enable_ep(struct f_ncm *ncm, struct usb_ep *ep)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&ncm->function);
	int ret = config_ep_by_speed(cdev->gadget, &ncm->function, ep);

	if (ret == 0)
		ret = usb_ep_enable(ep);
	if (ret == 0)
		ep->driver_data = ncm;
	return ret;
}

static void data_off(struct f_ncm *ncm)
{
	if (!ncm->data_on)
		return;
	ncm->data_on = false;
	net_port_link(&ncm->port, false);
	(void)usb_ep_disable(ncm->pair.in);
	(void)usb_ep_disable(ncm->pair.out);
}

static int data_on(struct f_ncm *ncm)
{
	struct usb_gadget *g = usb_function_cdev(&ncm->function)->gadget;
	int ret = enable_ep(ncm, ncm->pair.in);

	if (ret)
		return ret;
	ret = enable_ep(ncm, ncm->pair.out);
	if (ret) {
		(void)usb_ep_disable(ncm->pair.in);
		return ret;
	}
	ncm->in_maxp = usb_endpoint_maxp(ncm->pair.in->desc);
	ncm->parser.format = ncm->format;
	ncm->data_on = true;
	net_reqs_start(&ncm->reqs, g);
	net_port_link(&ncm->port, true);
	return 0;
}

static int ncm_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct f_ncm *ncm = func_to_ncm(f);
	int ret;

	if (interface == ncm->ctrl_id) {
		if (alt != 0)
			return -USB_EINVAL;
		if (ncm->notify.on)
			(void)usb_ep_disable(ncm->notify_ep);
		net_notify_enable(&ncm->notify, false);
		ret = enable_ep(ncm, ncm->notify_ep);
		if (ret)
			return ret;
		ncm->notify.intf = ncm->ctrl_id;
		net_notify_enable(&ncm->notify, true);
		return 0;
	}
	if (interface != ncm->data_id || alt > 1)
		return -USB_EINVAL;
	data_off(ncm);
	ncm->data_alt = (uint8_t)alt;
	if (alt == 0)
		reset_negotiation(ncm);
	else if ((ret = data_on(ncm)) != 0) {
		ncm->data_alt = 0;
		return ret;
	}
	net_notify_link(&ncm->notify, ncm->data_on, net_bitrate(usb_function_cdev(f)->gadget));
	return 0;
}

static int ncm_get_alt(struct usb_function *f, unsigned interface)
{
	struct f_ncm *ncm = func_to_ncm(f);

	if (interface == ncm->ctrl_id)
		return 0;
	return interface == ncm->data_id ? ncm->data_alt : -USB_EINVAL;
}

static void ncm_disable(struct usb_function *f)
{
	struct f_ncm *ncm = func_to_ncm(f);

	data_off(ncm);
	ncm->data_alt = 0;
	reset_negotiation(ncm);
	if (ncm->notify.on)
		(void)usb_ep_disable(ncm->notify_ep);
	net_notify_enable(&ncm->notify, false);
}

static void ncm_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_ncm *ncm = func_to_ncm(f);

	(void)c;
	if (ncm->opts.ops && ncm->opts.ops->unbind)
		ncm->opts.ops->unbind(f, ncm->opts.ctx);
	net_notify_free(&ncm->notify);
	net_reqs_free(&ncm->reqs);
	usb_free_all_descriptors(f);
}

/* ---- class requests ------------------------------------------------------------ */

/* SET_NTB_INPUT_SIZE's data, checked once it came: a size out of range is
 * not taken, and ep0 halts as Linux's f_ncm does (a controller that has
 * not yet sent the status stage stalls it). */
static void input_size_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_ncm *ncm = req->context;
	uint32_t size = req->actual >= 4 ? usb_get_le32(req->buf) : 0;

	if (req->status || req->actual != req->length || size < USB_CDC_NCM_NTB_MIN_IN_SIZE ||
	    size > NCM_NTB_IN_MAX) {
		(void)usb_ep_set_halt(ep);
		return;
	}
	ncm->ntb_in_size = size;
	ncm->ntb_in_datagrams = req->actual == 8 ? usb_get_le16((uint8_t *)req->buf + 4) : 0;
}

/* Replies of the IN requests; -USB_EOPNOTSUPP for what stalls. */
static int ncm_get(struct f_ncm *ncm, uint8_t request, uint16_t w_value, uint8_t *buf)
{
	if (w_value)
		return -USB_EOPNOTSUPP;
	switch (request) {
	case USB_CDC_GET_NTB_PARAMETERS:
		return ncm_ntb_parameters(&ncm_in_params, &ncm_out_params, buf,
					  USB_COMP_EP0_BUFSIZ);
	case USB_CDC_GET_NTB_INPUT_SIZE:
		usb_put_le32(buf, ncm->ntb_in_size);
		return 4;
	case USB_CDC_GET_NTB_FORMAT:
		usb_put_le16(buf, ncm->format == NCM_NTB32 ? 1 : 0);
		return 2;
	case USB_CDC_GET_CRC_MODE:
		usb_put_le16(buf, USB_CDC_NCM_CRC_NOT_APPENDED);
		return 2;
	default:
		return -USB_EOPNOTSUPP;
	}
}

/* The OUT requests without data; -USB_EOPNOTSUPP for what stalls. */
static int ncm_set(struct f_ncm *ncm, uint8_t request, uint16_t w_value)
{
	switch (request) {
	case USB_CDC_SET_ETHERNET_PACKET_FILTER:
		atomic_store(&ncm->port.filter, w_value);
		return 0;
	case USB_CDC_SET_NTB_FORMAT:
		/* Only while the data interface is at alternate 0 (NCM 6.2.5). */
		if (ncm->data_alt || w_value > 1)
			return -USB_EOPNOTSUPP;
		ncm->format = w_value ? NCM_NTB32 : NCM_NTB16;
		return 0;
	case USB_CDC_SET_CRC_MODE:
		return w_value == USB_CDC_NCM_CRC_NOT_APPENDED ? 0 : -USB_EOPNOTSUPP;
	default:
		return -USB_EOPNOTSUPP;
	}
}

static int ncm_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct f_ncm *ncm = func_to_ncm(f);
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	struct usb_request *req = cdev->req;
	uint16_t w_value = USB_LE16_TO_CPU(ctrl->wValue);
	uint16_t w_length = USB_LE16_TO_CPU(ctrl->wLength);
	bool in = (ctrl->bRequestType & USB_DIR_IN) != 0;
	int n, ret;

	if ((ctrl->bRequestType & ~USB_DIR_IN) != (USB_TYPE_CLASS | USB_RECIP_INTERFACE) ||
	    USB_LE16_TO_CPU(ctrl->wIndex) != ncm->ctrl_id)
		return -USB_EOPNOTSUPP;
	if (in) {
		n = w_length ? ncm_get(ncm, ctrl->bRequest, w_value, req->buf) : -USB_EOPNOTSUPP;
		if (n < 0)
			return n;
		req->length = (unsigned)(n < w_length ? n : w_length);
	} else if (ctrl->bRequest == USB_CDC_SET_NTB_INPUT_SIZE) {
		if (w_value || (w_length != 4 && w_length != 8))
			return -USB_EOPNOTSUPP;
		req->length = w_length;
		req->complete = input_size_complete;
		req->context = ncm;
	} else {
		if (w_length || (n = ncm_set(ncm, ctrl->bRequest, w_value)) < 0)
			return -USB_EOPNOTSUPP;
		req->length = 0;
	}
	req->zero = 0;
	ret = usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	return ret < 0 ? ret : 0;
}

/* ---- allocation and the public calls --------------------------------------------- */

static void ncm_free_func(struct usb_function *f)
{
	struct f_ncm *ncm = func_to_ncm(f);

	net_port_free(&ncm->port);
	free(ncm);
}

int ncm_alloc(const struct usb_net_opts *opts, struct usb_function **out)
{
	struct f_ncm *ncm;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = usb_net_opts_check(opts);
	if (ret)
		return ret;
	ncm = calloc(1, sizeof(*ncm));
	if (!ncm)
		return -USB_ENOMEM;
	ncm->opts = *opts;
	ret = net_port_init(&ncm->port, &ncm->function, opts->ops, opts->ctx, ncm_fill);
	if (ret) {
		free(ncm);
		return ret;
	}
	atomic_init(&ncm->ntbs_dropped, 0);
	ncm->function.name = "ncm";
	ncm->function.bind = ncm_bind;
	ncm->function.unbind = ncm_unbind;
	ncm->function.free_func = ncm_free_func;
	ncm->function.set_alt = ncm_set_alt;
	ncm->function.get_alt = ncm_get_alt;
	ncm->function.disable = ncm_disable;
	ncm->function.setup = ncm_setup;
	*out = &ncm->function;
	return 0;
}

void ncm_free(struct usb_function *f)
{
	if (ncm_is(f))
		ncm_free_func(f);
}

bool ncm_is(const struct usb_function *f)
{
	return f && f->bind == ncm_bind;
}

struct net_port *ncm__port(struct usb_function *f)
{
	return ncm_is(f) ? &func_to_ncm(f)->port : NULL;
}

uint64_t ncm__ntbs_dropped(struct usb_function *f)
{
	return ncm_is(f) ? atomic_load(&func_to_ncm(f)->ntbs_dropped) : 0;
}
