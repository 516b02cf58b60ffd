/*
 * f_ncm.c - the CDC NCM 1.0 function (include/composite/ether.h), as
 * Linux's f_ncm: its descriptors (interface association, communication
 * interface with the CDC header, union, Ethernet networking and NCM
 * descriptors and an interrupt IN notify endpoint; data interface with an
 * empty alternate 0 and the bulk pair at alternate 1), the NCM requests
 * (GET_NTB_PARAMETERS, GET/SET_NTB_INPUT_SIZE, GET/SET_NTB_FORMAT,
 * GET/SET_CRC_MODE without CRCs, SET_ETHERNET_PACKET_FILTER), and the
 * frame path: NTBs (ntb.c) each way through net_port. The shape shared
 * with ECM (bind, alternates, notifications) is net_fn.c's.
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
#include "functions/net/net_fn.h"
#include "ntb.h"

/* Linux's NTB_DEFAULT_IN_SIZE and NTB_OUT_SIZE, and its alignments. */
#define NCM_NTB_IN_MAX		16384u
#define NCM_NTB_OUT_MAX		16384u
/* Frames queued that go without waiting for the NTB in flight (ncm_fill). */
#define NCM_CORK_FRAMES		8u
#define NCM_NDP_ALIGN		4u
/* As Linux: packet filters and GET/SET_CRC_MODE. */
#define NCM_NCAPS (USB_CDC_NCM_NCAP_ETH_FILTER | USB_CDC_NCM_NCAP_CRC_MODE)

struct f_ncm {
	struct net_fn net;		/* first: the shared shape */
	struct usb_cdc_ncm_desc ncm_desc;

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
	return usb_container_of(net_fn_of(f), struct f_ncm, net);
}

static struct f_ncm *port_to_ncm(struct net_port *p)
{
	return usb_container_of(net_fn_of_port(p), struct f_ncm, net);
}

static struct f_ncm *net_to_ncm(struct net_fn *n)
{
	return usb_container_of(n, struct f_ncm, net);
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
	ncm->net.reqs.in_frames[index] = 0;
	ncm->net.reqs.in_bytes[index] = 0;
	while ((frame = net_port_peek(&ncm->net.port, &len)) != NULL) {
		int rc = ncm_ntb_builder_add(&b, frame, len);

		if (rc == -USB_ENOSPC)
			break;
		net_port_pop(&ncm->net.port);
		if (rc) {
			net_port_tx_done(&ncm->net.port, 1, len, false);
			continue;
		}
		ncm->net.reqs.in_frames[index]++;
		ncm->net.reqs.in_bytes[index] += len;
	}
	return ncm->net.reqs.in_frames[index] ? ncm_ntb_builder_finish(&b) : -USB_ENODATA;
}

/* net_port's fill: each idle IN request takes an NTB of what is queued.
 * While an NTB is on its way, a few frames wait for the next one rather
 * than each going in an NTB of its own (Linux's f_ncm waits for a timer
 * instead): a TCP receiver's ACKs then share NTBs, which costs the host
 * one transfer for many. Its completion refills, so nothing waits longer
 * than one transfer; NCM_CORK_FRAMES queued go at once. */
static void ncm_fill(struct net_port *p)
{
	struct f_ncm *ncm = port_to_ncm(p);
	struct usb_request *req;
	size_t len;
	unsigned i;

	if (net_reqs_in_flight(&ncm->net.reqs) > 0 && net_port_queued(p) < NCM_CORK_FRAMES)
		return;
	while (net_port_peek(p, &len) && (req = net_reqs_claim_in(&ncm->net.reqs, &i)) != NULL) {
		int n = build_ntb(ncm, req, i);

		if (n < 0) {
			net_reqs_release_in(&ncm->net.reqs, i);
			return;
		}
		req->length = (unsigned)n;
		/* Short of the host's NTB size and on a packet boundary: a ZLP ends it. */
		req->zero = ncm->net.in_maxp && (unsigned)n % ncm->net.in_maxp == 0 &&
			    (uint32_t)n < ncm->ntb_in_size;
		if (usb_ep_queue(ncm->net.pair.in, req, USB_GFP_ATOMIC)) {
			net_port_tx_done(p, ncm->net.reqs.in_frames[i], ncm->net.reqs.in_bytes[i], false);
			net_reqs_release_in(&ncm->net.reqs, i);
			return;
		}
	}
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
	struct f_ncm *ncm = net_to_ncm(req->context);

	(void)ep;
	if (req->status == 0 && req->actual)
		(void)ncm_ntb_parse_transfer(&ncm->parser, req->buf, req->actual, deliver,
					     &ncm->net.port);
	else if (req->status)
		net_port_rx(&ncm->net.port, NULL, 0, req->status);
	atomic_store(&ncm->ntbs_dropped, ncm->drops_before + parser_drops(&ncm->parser));
	net_reqs_requeue_out(&ncm->net.reqs, req, ncm->net.data_on);
}

/* ---- the data interface's alternates -------------------------------------------- */

/* Alternate 0 resets what was negotiated, as Linux; alternate 1 parses
 * with the format chosen meanwhile. */
static void ncm_data_alt(struct net_fn *n, unsigned alt)
{
	struct f_ncm *ncm = net_to_ncm(n);

	if (alt == 0)
		reset_negotiation(ncm);
	else
		ncm->parser.format = ncm->format;
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
		atomic_store(&ncm->net.port.filter, w_value);
		return 0;
	case USB_CDC_SET_NTB_FORMAT:
		/* Only while the data interface is at alternate 0 (NCM 6.2.5). */
		if (ncm->net.data_alt || w_value > 1)
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
	    USB_LE16_TO_CPU(ctrl->wIndex) != ncm->net.ctrl_id)
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

static const struct net_fn_kind ncm_kind = {
	.name = "ncm",
	.subclass = USB_CDC_SUBCLASS_NCM,
	.data_protocol = USB_CDC_NCM_PROTO_NTB,
	.strings = {
		[NET_CTRL_IDX] = "CDC Network Control Model (NCM)",
		[NET_DATA_IDX] = "CDC Network Data",
		[NET_IAD_IDX] = "CDC NCM",
	},
	.in_len = NCM_NTB_IN_MAX,
	.out_len = NCM_NTB_OUT_MAX,
	.speed_first = true,	/* as Linux's f_ncm */
	.fill = ncm_fill,
	.out_complete = out_complete,
	.data_alt = ncm_data_alt,
	.setup = ncm_setup,
};

int ncm_alloc(const struct usb_net_opts *opts, struct usb_function **out)
{
	struct net_fn *n;
	struct f_ncm *ncm;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = net_fn_alloc(sizeof(*ncm), &ncm_kind, opts, &n);
	if (ret)
		return ret;
	ncm = net_to_ncm(n);
	ncm->ncm_desc = (struct usb_cdc_ncm_desc){
		.bLength = sizeof(ncm->ncm_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_NCM_TYPE, .bcdNcmVersion = USB_CPU_TO_LE16(0x0100),
		.bmNetworkCapabilities = NCM_NCAPS,
	};
	n->extra_desc = (struct usb_descriptor_header *)(void *)&ncm->ncm_desc;
	atomic_init(&ncm->ntbs_dropped, 0);
	*out = &n->function;
	return 0;
}

void ncm_free(struct usb_function *f)
{
	if (ncm_is(f))
		net_fn_free(f);
}

bool ncm_is(const struct usb_function *f)
{
	return net_fn_is(f, &ncm_kind) != NULL;
}

struct net_port *ncm__port(struct usb_function *f)
{
	struct net_fn *n = net_fn_is(f, &ncm_kind);

	return n ? &n->port : NULL;
}

uint64_t ncm__ntbs_dropped(struct usb_function *f)
{
	return ncm_is(f) ? atomic_load(&func_to_ncm(f)->ntbs_dropped) : 0;
}
