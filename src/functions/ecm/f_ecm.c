/*
 * f_ecm.c - the CDC ECM function (include/composite/ether.h), as Linux's
 * f_ecm: the shape shared with NCM (net_fn.c: IAD, CDC header, union and
 * Ethernet networking descriptors, notify endpoint, data interface with
 * an empty alternate 0, NETWORK_CONNECTION then CONNECTION_SPEED_CHANGE
 * after each choice), SET_ETHERNET_PACKET_FILTER, and its frame path: one
 * frame per bulk request each way, through net_port.
 *
 * Portable C11 on the public function API. Callbacks run in the backend's
 * event context; the IN path is also filled from the sender's thread.
 */
#include <string.h>

#include "composite/ether.h"
#include "functions/net/net_fn.h"

/* OUT requests take a whole frame and the byte usbnet pads a frame of a
 * packet multiple with; more than a frame is dropped as too long. */
#define ECM_RX_LEN (USB_NET_FRAME_MAX + 64)

/* net_port's fill: queued frames into idle IN requests, one each. */
static void ecm_fill(struct net_port *p)
{
	struct net_fn *ecm = net_fn_of_port(p);
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

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct net_fn *ecm = req->context;

	(void)ep;
	net_port_rx(&ecm->port, req->buf, req->actual, req->status);
	net_reqs_requeue_out(&ecm->reqs, req, ecm->data_on);
}

static int ecm_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct net_fn *ecm = net_fn_of(f);
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

static const struct net_fn_kind ecm_kind = {
	.name = "ecm",
	.subclass = USB_CDC_SUBCLASS_ETHERNET,
	.data_protocol = 0,
	.strings = {
		[NET_CTRL_IDX] = "CDC Ethernet Control Model (ECM)",
		[NET_DATA_IDX] = "CDC Ethernet Data",
		[NET_IAD_IDX] = "CDC ECM",
	},
	.in_len = USB_NET_FRAME_MAX,
	.out_len = ECM_RX_LEN,
	.speed_first = false,	/* connection first, as Linux's f_ecm */
	.fill = ecm_fill,
	.out_complete = out_complete,
	.setup = ecm_setup,
};

int ecm_alloc(const struct usb_net_opts *opts, struct usb_function **out)
{
	struct net_fn *n;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = net_fn_alloc(sizeof(*n), &ecm_kind, opts, &n);
	if (ret == 0)
		*out = &n->function;
	return ret;
}

void ecm_free(struct usb_function *f)
{
	if (ecm_is(f))
		net_fn_free(f);
}

bool ecm_is(const struct usb_function *f)
{
	return net_fn_is(f, &ecm_kind) != NULL;
}

struct net_port *ecm__port(struct usb_function *f)
{
	struct net_fn *n = net_fn_is(f, &ecm_kind);

	return n ? &n->port : NULL;
}
