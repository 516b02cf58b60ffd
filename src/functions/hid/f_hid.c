/*
 * f_hid.c - the HID function (include/composite/hid.h), as Linux's f_hid:
 * its interface, HID class descriptor and interrupt endpoints, the
 * standard and class requests of the interface, the queue of input
 * reports (a single-producer ring of fixed slots: a length and the bytes)
 * and the output reports given to the gadget side.
 *
 * Portable C11 on the public function API. Callbacks run in the event
 * context; hid_send_report() shares the queue with them through atomics
 * (functions/common: byte_ring.h, fn_kick.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "composite/hid.h"
#include "functions/common/byte_ring.h"
#include "functions/common/fn_kick.h"
#include "functions/common/fn_request.h"
#include "port/alloc.h"

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))
#define HID_OUT_REQS 4
/* bRequestType << 8 | bRequest of the interface's requests. */
#define STD_IN ((unsigned)(USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_INTERFACE) << 8)
#define CLS_IN ((unsigned)(USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE) << 8)
#define CLS_OUT ((unsigned)(USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE) << 8)

/* The HID descriptor (HID 1.11 6.2.1) with one class descriptor, the
 * report descriptor: bLength, type, bcdHID 1.01 (what Linux's f_hid
 * announces), country 0, 1 descriptor, its type and wDescriptorLength
 * (little-endian). */
#define HID_DESC_SIZE 9

/* The interface string, Linux's f_hid's. */
enum { HID_STRING_INTF, HID_N_STRINGS };
static struct usb_string hid_string_defs[] = {
	[HID_STRING_INTF] = { 0, "HID Interface" },
	{ 0, NULL },
};
static struct usb_gadget_strings hid_string_table = {
	.language = USB_LANGID_EN_US,
	.strings = hid_string_defs,
};
static struct usb_gadget_strings *hid_strings[] = { &hid_string_table, NULL };

const uint8_t hid_boot_keyboard_report_desc[63] = {
	0x05, 0x01, 0x09, 0x06, 0xa1, 0x01,	/* Generic Desktop, Keyboard, Application */
	0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7,	/* Key Codes 224..231: the modifiers */
	0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02,	/* 8 bits, Input */
	0x95, 0x01, 0x75, 0x08, 0x81, 0x03,	/* a reserved byte, Input (Constant) */
	0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05,	/* 5 LEDs */
	0x91, 0x02,				/* Output */
	0x95, 0x01, 0x75, 0x03, 0x91, 0x03,	/* 3 bits of padding, Output (Constant) */
	0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x25, 0x65,	/* six key codes 0..101 */
	0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00,	/* Input (Array) */
	0xc0,					/* End Collection */
};

struct f_hidg {
	struct usb_function function;
	struct f_hid_opts opts;
	uint8_t *report_desc;		/* the copy opts.report_desc points to */

	struct usb_interface_descriptor intf;
	uint8_t hid_desc[HID_DESC_SIZE];
	struct usb_endpoint_descriptor fs_in, fs_out, hs_in, hs_out;
	struct usb_ss_ep_comp_descriptor ss_in_comp, ss_out_comp;
	struct usb_descriptor_header *fs_list[5], *hs_list[5], *ss_list[7];
	struct usb_ep *in_ep, *out_ep;
	struct usb_request *in_req, *out_req[HID_OUT_REQS];

	struct fn_ring queue;		/* slots: 2-byte length, report_length bytes */
	uint8_t *queue_buf;
	size_t slot;
	atomic_bool in_busy, connected, want_writable;
	atomic_uint kicks;
	uint8_t *last_report;		/* event context only: GET_REPORT */
	size_t last_len;
	atomic_uint idle;		/* SET_IDLE duration, 4 ms units */
	atomic_uint protocol;
	atomic_uint_least64_t in_reports, out_reports, get_reports;
};

static struct f_hidg *func_to_hidg(struct usb_function *f)
{
	return usb_container_of(f, struct f_hidg, function);
}

void f_hid_opts_init(struct f_hid_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
}

int f_hid_opts_check(const struct f_hid_opts *o)
{
	if (!o || !o->report_desc || o->report_desc_length < 1 ||
	    o->report_desc_length > HID_REPORT_DESC_MAX || o->report_length < 1 ||
	    o->report_length > HID_REPORT_LENGTH_MAX)
		return -USB_EINVAL;
	return 0;
}

/* ---- input reports ------------------------------------------------------------ */

/* HID_REPORT_QUEUE slots at most (the ring's power-of-two size may hold more). */
static bool queue_has_room(struct f_hidg *h)
{
	return fn_ring_used(&h->queue) < HID_REPORT_QUEUE * h->slot &&
	       fn_ring_room(&h->queue) >= h->slot;
}

static void in_fill(void *arg)
{
	struct f_hidg *h = arg;
	uint8_t len[2];
	struct usb_request *req = h->in_req;

	if (!atomic_load(&h->connected)) {
		(void)fn_ring_take(&h->queue, NULL, fn_ring_used(&h->queue));
		return;
	}
	if (atomic_load(&h->in_busy) || fn_ring_used(&h->queue) < h->slot)
		return;
	(void)fn_ring_take(&h->queue, len, 2);
	(void)fn_ring_take(&h->queue, req->buf, h->slot - 2);
	req->length = (unsigned)len[0] | (unsigned)len[1] << 8;
	req->zero = 0;
	atomic_store(&h->in_busy, true);
	if (usb_ep_queue(h->in_ep, req, USB_GFP_ATOMIC) != 0)
		atomic_store(&h->in_busy, false);
}

static void in_kick(struct f_hidg *h)
{
	fn_kick(&h->kicks, in_fill, h);
}

static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_hidg *h = ep->driver_data;

	if (req->status == 0) {
		atomic_fetch_add(&h->in_reports, 1);
		memcpy(h->last_report, req->buf, req->actual);
		h->last_len = req->actual;
	}
	atomic_store(&h->in_busy, false);
	in_kick(h);
	if (queue_has_room(h) && atomic_exchange(&h->want_writable, false) &&
	    h->opts.ops && h->opts.ops->writable)
		h->opts.ops->writable(&h->function, h->opts.ctx);
}

int hid_send_report(struct usb_function *f, const void *report, size_t len)
{
	struct f_hidg *h = func_to_hidg(f);
	uint8_t slot[2 + HID_REPORT_LENGTH_MAX];

	if (len < 1 || len > h->opts.report_length)
		return -USB_EINVAL;
	if (!atomic_load(&h->connected))
		return -USB_ENOTCONN;
	if (!queue_has_room(h)) {
		atomic_store(&h->want_writable, true);
		/* Room may have come before the flag was up. */
		if (!queue_has_room(h))
			return -USB_EAGAIN;
		atomic_store(&h->want_writable, false);
	}
	slot[0] = (uint8_t)len;
	slot[1] = (uint8_t)(len >> 8);
	memcpy(slot + 2, report, len);
	memset(slot + 2 + len, 0, h->slot - 2 - len);
	(void)fn_ring_put(&h->queue, slot, h->slot);
	in_kick(h);
	return 0;
}

unsigned hid_reports_pending(struct usb_function *f)
{
	struct f_hidg *h = func_to_hidg(f);

	return (unsigned)(fn_ring_used(&h->queue) / h->slot) + atomic_load(&h->in_busy);
}

/* ---- output reports ------------------------------------------------------------- */

static void give_out(struct f_hidg *h, const uint8_t *data, size_t len, bool set_report)
{
	atomic_fetch_add(&h->out_reports, 1);
	if (h->opts.ops && h->opts.ops->out_report)
		h->opts.ops->out_report(&h->function, h->opts.ctx, data, len, set_report);
}

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_hidg *h = ep->driver_data;

	if (req->status == 0 && req->actual)
		give_out(h, req->buf, req->actual, false);
	if (req->status != -USB_ESHUTDOWN && atomic_load(&h->connected))
		(void)usb_ep_queue(h->out_ep, req, USB_GFP_ATOMIC);
}

static void set_report_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_hidg *h = req->context;

	(void)ep;
	if (req->status == 0 && req->actual)
		give_out(h, req->buf, req->actual, true);
}

/* ---- requests -------------------------------------------------------------------- */

/* The reply of a request to the interface at @data (@len bytes), or a
 * negative error to stall. */
static int hid_request(struct f_hidg *h, const struct usb_ctrlrequest *ctrl, uint8_t *data)
{
	uint16_t value = USB_LE16_TO_CPU(ctrl->wValue);
	uint16_t length = USB_LE16_TO_CPU(ctrl->wLength);
	size_t n;

	switch ((unsigned)ctrl->bRequestType << 8 | ctrl->bRequest) {
	case STD_IN | USB_REQ_GET_DESCRIPTOR:
		if ((value >> 8) == HID_DT_HID) {
			n = sizeof(h->hid_desc);
			memcpy(data, h->hid_desc, n);
		} else if ((value >> 8) == HID_DT_REPORT) {
			n = h->opts.report_desc_length;
			memcpy(data, h->report_desc, n);
		} else {
			return -USB_EOPNOTSUPP;
		}
		return (int)(n < length ? n : length);
	case CLS_IN | HID_REQ_GET_REPORT:
		atomic_fetch_add(&h->get_reports, 1);
		n = h->last_len ? h->last_len : h->opts.report_length;
		memcpy(data, h->last_report, n);	/* zeros before the first */
		return (int)(n < length ? n : length);
	case CLS_IN | HID_REQ_GET_IDLE:
		data[0] = (uint8_t)atomic_load(&h->idle);
		return length ? 1 : 0;
	case CLS_IN | HID_REQ_GET_PROTOCOL:
		data[0] = (uint8_t)atomic_load(&h->protocol);
		return length ? 1 : 0;
	case CLS_OUT | HID_REQ_SET_IDLE:
		if (length)
			return -USB_EOPNOTSUPP;
		atomic_store(&h->idle, value >> 8);
		if (h->opts.ops && h->opts.ops->idle)
			h->opts.ops->idle(&h->function, h->opts.ctx, (value >> 8) * 4u);
		return 0;
	case CLS_OUT | HID_REQ_SET_PROTOCOL:
		if (length || value > HID_REPORT_PROTOCOL)
			return -USB_EOPNOTSUPP;
		atomic_store(&h->protocol, value);
		return 0;
	default:
		return -USB_EOPNOTSUPP;
	}
}

static int hid_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct f_hidg *h = func_to_hidg(f);
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	struct usb_request *req = cdev->req;
	uint16_t length = USB_LE16_TO_CPU(ctrl->wLength);
	int n;

	if ((USB_LE16_TO_CPU(ctrl->wIndex) & 0xff) != h->intf.bInterfaceNumber)
		return -USB_EOPNOTSUPP;
	if (ctrl->bRequestType == (USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE) &&
	    ctrl->bRequest == HID_REQ_SET_REPORT) {
		/* An output report: no longer than the function's reports. */
		if (length < 1 || length > h->opts.report_length)
			return -USB_EOPNOTSUPP;
		n = length;
		req->complete = set_report_complete;
		req->context = h;
	} else {
		n = hid_request(h, ctrl, req->buf);
		if (n < 0)
			return n;
	}
	req->length = (unsigned)n;
	req->zero = (ctrl->bRequestType & USB_DIR_IN) && n < length;
	n = usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	return n < 0 ? n : 0;
}

/* ---- set_alt, disable -------------------------------------------------------------- */

static int enable(struct f_hidg *h, struct usb_ep *ep)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&h->function);
	int rc = config_ep_by_speed(cdev->gadget, &h->function, ep);

	if (rc == 0)
		rc = usb_ep_enable(ep);
	if (rc == 0)
		ep->driver_data = h;
	return rc;
}

static void hid_disable(struct usb_function *f)
{
	struct f_hidg *h = func_to_hidg(f);

	if (!atomic_exchange(&h->connected, false))
		return;
	(void)usb_ep_disable(h->in_ep);
	if (h->out_ep)
		(void)usb_ep_disable(h->out_ep);
	in_kick(h);	/* empties the queue: no host to read it */
}

static int hid_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct f_hidg *h = func_to_hidg(f);
	int rc;

	(void)interface;
	if (alt != 0)
		return -USB_EINVAL;
	hid_disable(f);
	rc = enable(h, h->in_ep);
	if (rc == 0 && h->out_ep && (rc = enable(h, h->out_ep)) != 0)
		(void)usb_ep_disable(h->in_ep);
	if (rc)
		return rc;
	atomic_store(&h->protocol, HID_REPORT_PROTOCOL);
	atomic_store(&h->connected, true);
	for (unsigned i = 0; h->out_ep && i < HID_OUT_REQS; i++) {
		h->out_req[i]->length = h->opts.report_length;
		(void)usb_ep_queue(h->out_ep, h->out_req[i], USB_GFP_ATOMIC);
	}
	in_kick(h);
	return 0;
}

/* ---- bind ---------------------------------------------------------------------------- */

static void free_reqs(struct f_hidg *h)
{
	fn_request_free(h->in_ep, &h->in_req);
	for (unsigned i = 0; i < HID_OUT_REQS; i++)
		fn_request_free(h->out_ep, &h->out_req[i]);
}

static int alloc_reqs(struct f_hidg *h)
{
	h->in_req = fn_request_alloc(h->in_ep, h->opts.report_length, h, in_complete);
	if (!h->in_req)
		return -USB_ENOMEM;
	for (unsigned i = 0; h->out_ep && i < HID_OUT_REQS; i++) {
		h->out_req[i] = fn_request_alloc(h->out_ep, h->opts.report_length, h, out_complete);
		if (!h->out_req[i]) {
			free_reqs(h);
			return -USB_ENOMEM;
		}
	}
	return 0;
}

static void fill_ep(struct usb_endpoint_descriptor *d, uint8_t dir, uint16_t maxp,
		    uint8_t interval)
{
	*d = (struct usb_endpoint_descriptor){
		.bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = dir, .bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = USB_CPU_TO_LE16(maxp), .bInterval = interval,
	};
}

static int claim_eps(struct f_hidg *h, struct usb_gadget *g)
{
	uint16_t fs_maxp = h->opts.report_length < 64 ? h->opts.report_length : 64;

	/* As Linux: 10 ms at full speed, 2^(4-1) microframes (1 ms) above. */
	fill_ep(&h->fs_in, USB_DIR_IN, fs_maxp, 10);
	fill_ep(&h->fs_out, USB_DIR_OUT, fs_maxp, 10);
	h->in_ep = usb_ep_autoconfig(g, &h->fs_in);
	if (!h->in_ep)
		return -USB_ENODEV;
	if (!h->opts.no_out_endpoint) {
		h->out_ep = usb_ep_autoconfig(g, &h->fs_out);
		if (!h->out_ep) {
			usb_ep_autoconfig_release(h->in_ep);
			h->in_ep = NULL;
			return -USB_ENODEV;
		}
	}
	fill_ep(&h->hs_in, h->fs_in.bEndpointAddress, h->opts.report_length, 4);
	fill_ep(&h->hs_out, h->fs_out.bEndpointAddress, h->opts.report_length, 4);
	h->ss_in_comp = (struct usb_ss_ep_comp_descriptor){
		.bLength = USB_DT_SS_EP_COMP_SIZE, .bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
		.wBytesPerInterval = USB_CPU_TO_LE16(h->opts.report_length),
	};
	h->ss_out_comp = h->ss_in_comp;
	return 0;
}

static void build_lists(struct f_hidg *h)
{
	unsigned fs = 0, hs = 0, ss = 0;

	h->fs_list[fs++] = h->hs_list[hs++] = h->ss_list[ss++] = DH(&h->intf);
	h->fs_list[fs++] = h->hs_list[hs++] = h->ss_list[ss++] = DH(h->hid_desc);
	h->fs_list[fs++] = DH(&h->fs_in);
	h->hs_list[hs++] = h->ss_list[ss++] = DH(&h->hs_in);
	h->ss_list[ss++] = DH(&h->ss_in_comp);
	if (h->out_ep) {
		h->fs_list[fs++] = DH(&h->fs_out);
		h->hs_list[hs++] = h->ss_list[ss++] = DH(&h->hs_out);
		h->ss_list[ss++] = DH(&h->ss_out_comp);
	}
	h->fs_list[fs] = h->hs_list[hs] = h->ss_list[ss] = NULL;
}

static int hid_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_hidg *h = func_to_hidg(f);
	struct usb_string *us = usb_gstrings_attach(c->cdev, hid_strings, HID_N_STRINGS);
	int id, rc;

	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	/* Linux attaches ARRAY_SIZE(ct_func_string_defs) strings: its table's
	 * terminator takes an id too (an empty string). Take it, so the ids
	 * after this function's are the kernel's. */
	id = usb_string_id(c->cdev);
	if (id < 0)
		return id;
	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	rc = claim_eps(h, c->cdev->gadget);
	if (rc)
		return rc;
	h->intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bInterfaceNumber = (uint8_t)id, .bNumEndpoints = h->out_ep ? 2 : 1,
		.bInterfaceClass = USB_CLASS_HID, .bInterfaceSubClass = h->opts.subclass,
		.bInterfaceProtocol = h->opts.protocol,
		.iInterface = us[HID_STRING_INTF].id,
	};
	{
		const uint8_t d[HID_DESC_SIZE] = {
			HID_DESC_SIZE, HID_DT_HID, 0x01, 0x01, 0, 1, HID_DT_REPORT,
			(uint8_t)h->opts.report_desc_length,
			(uint8_t)(h->opts.report_desc_length >> 8),
		};

		memcpy(h->hid_desc, d, sizeof(d));
	}
	build_lists(h);
	rc = usb_assign_descriptors(f, h->fs_list, h->hs_list, h->ss_list, h->ss_list);
	if (rc == 0 && (rc = alloc_reqs(h)) != 0)
		usb_free_all_descriptors(f);
	if (rc) {
		usb_ep_autoconfig_release(h->in_ep);
		if (h->out_ep)
			usb_ep_autoconfig_release(h->out_ep);
		h->in_ep = h->out_ep = NULL;
	}
	return rc;
}

static void hid_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_hidg *h = func_to_hidg(f);

	(void)c;
	if (h->opts.ops && h->opts.ops->unbind)
		h->opts.ops->unbind(f, h->opts.ctx);
	hid_disable(f);
	free_reqs(h);
	usb_free_all_descriptors(f);
}

/* ---- allocation ------------------------------------------------------------------------ */

static void hid_free_func(struct usb_function *f)
{
	struct f_hidg *h = func_to_hidg(f);

	composite__free(h->report_desc);
	composite__free(h->queue_buf);
	composite__free(h->last_report);
	composite__free(h);
}

int hid_alloc(const struct f_hid_opts *opts, struct usb_function **out)
{
	struct f_hidg *h;
	int rc = f_hid_opts_check(opts);

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	if (rc)
		return rc;
	h = composite__calloc(1, sizeof(*h));
	if (!h)
		return -USB_ENOMEM;
	h->opts = *opts;
	h->slot = 2u + opts->report_length;
	h->report_desc = composite__malloc(opts->report_desc_length);
	h->last_report = composite__calloc(1, opts->report_length);
	/* The ring wants a power of two: round the slots' room up. */
	{
		size_t size = 1;

		while (size < HID_REPORT_QUEUE * h->slot)
			size <<= 1;
		h->queue_buf = composite__malloc(size);
		fn_ring_init(&h->queue, h->queue_buf, size);
	}
	if (!h->report_desc || !h->last_report || !h->queue_buf) {
		hid_free_func(&h->function);
		return -USB_ENOMEM;
	}
	memcpy(h->report_desc, opts->report_desc, opts->report_desc_length);
	h->opts.report_desc = h->report_desc;
	atomic_init(&h->protocol, HID_REPORT_PROTOCOL);
	h->function.name = "hid";
	h->function.bind = hid_bind;
	h->function.unbind = hid_unbind;
	h->function.free_func = hid_free_func;
	h->function.set_alt = hid_set_alt;
	h->function.disable = hid_disable;
	h->function.setup = hid_setup;
	*out = &h->function;
	return 0;
}

void hid_free(struct usb_function *f)
{
	if (hid_is(f))
		hid_free_func(f);
}

bool hid_is(const struct usb_function *f)
{
	return f && f->bind == hid_bind;
}

unsigned hid_get_idle_ms(struct usb_function *f)
{
	return atomic_load(&func_to_hidg(f)->idle) * 4u;
}

unsigned hid_get_protocol(struct usb_function *f)
{
	return atomic_load(&func_to_hidg(f)->protocol);
}

void hid_get_stats(struct usb_function *f, struct f_hid_stats *st)
{
	struct f_hidg *h = func_to_hidg(f);

	st->in_reports = atomic_load(&h->in_reports);
	st->out_reports = atomic_load(&h->out_reports);
	st->get_reports = atomic_load(&h->get_reports);
	st->connected = atomic_load(&h->connected);
}
