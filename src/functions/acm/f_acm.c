/*
 * f_acm.c - the CDC ACM function (include/composite/acm.h), as Linux's
 * f_acm: its descriptors (interface association, communication interface
 * with the CDC functional descriptors and an interrupt IN notify
 * endpoint, data interface with bulk IN and OUT), bind and unbind,
 * set_alt and disable, and the class requests. The byte stream behind the
 * data interface is acm_stream.c's.
 *
 * Portable C11 on the public function API. The callbacks run in the
 * backend's event context; the stream's state is shared with the user's
 * threads through atomics only (acm_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "acm_internal.h"

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

enum { ACM_CTRL_IDX, ACM_DATA_IDX, ACM_IAD_IDX, ACM_N_STRINGS };

static struct usb_string acm_string_defs[] = {
	[ACM_CTRL_IDX] = { 0, "CDC Abstract Control Model (ACM)" },
	[ACM_DATA_IDX] = { 0, "CDC ACM Data" },
	[ACM_IAD_IDX] = { 0, "CDC Serial" },
	{ 0, NULL }
};
static struct usb_gadget_strings acm_string_table = {
	.language = USB_LANGID_EN_US,
	.strings = acm_string_defs,
};
static struct usb_gadget_strings *acm_strings[] = { &acm_string_table, NULL };

/* Linux's GS_NOTIFY_INTERVAL_MS: 32 ms, as 2^(9-1) microframes at high speed. */
#define ACM_NOTIFY_INTERVAL_FS 32
#define ACM_NOTIFY_INTERVAL_HS 9

void f_acm_opts_init(struct f_acm_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
}

static bool buflen_ok(size_t n)
{
	return n == 0 || (n >= ACM_BUF_MIN && n <= ACM_BUF_MAX && (n & (n - 1)) == 0);
}

int f_acm_opts_check(const struct f_acm_opts *o)
{
	if (!o || o->port_num >= 256 || !buflen_ok(o->rx_buflen) || !buflen_ok(o->tx_buflen))
		return -USB_EINVAL;
	return 0;
}

/* ---- descriptors ------------------------------------------------------------- */

static void fill_static_descs(struct f_acm *acm)
{
	acm->iad = (struct usb_interface_assoc_descriptor){
		.bLength = sizeof(acm->iad), .bDescriptorType = USB_DT_INTERFACE_ASSOCIATION,
		.bInterfaceCount = 2, .bFunctionClass = USB_CLASS_COMM,
		.bFunctionSubClass = USB_CDC_SUBCLASS_ACM,
		.bFunctionProtocol = USB_CDC_ACM_PROTO_AT_V25TER,
	};
	acm->ctrl_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 1, .bInterfaceClass = USB_CLASS_COMM,
		.bInterfaceSubClass = USB_CDC_SUBCLASS_ACM,
		.bInterfaceProtocol = USB_CDC_ACM_PROTO_AT_V25TER,
	};
	acm->data_intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE, .bDescriptorType = USB_DT_INTERFACE,
		.bNumEndpoints = 2, .bInterfaceClass = USB_CLASS_CDC_DATA,
	};
	acm->header = (struct usb_cdc_header_desc){
		.bLength = sizeof(acm->header), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_HEADER_TYPE, .bcdCDC = USB_CPU_TO_LE16(0x0110),
	};
	acm->call_mgmt = (struct usb_cdc_call_mgmt_descriptor){
		.bLength = sizeof(acm->call_mgmt), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_CALL_MANAGEMENT_TYPE,
	};
	acm->acm_desc = (struct usb_cdc_acm_descriptor){
		.bLength = sizeof(acm->acm_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_ACM_TYPE,
		.bmCapabilities = USB_CDC_CAP_LINE,	/* as Linux's f_acm (SEND_BREAK is answered all the same) */
	};
	acm->union_desc = (struct usb_cdc_union_desc){
		.bLength = sizeof(acm->union_desc), .bDescriptorType = USB_DT_CS_INTERFACE,
		.bDescriptorSubType = USB_CDC_UNION_TYPE,
	};
	acm->fs_notify = (struct usb_endpoint_descriptor){
		.bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN, .bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = USB_CPU_TO_LE16(ACM_NOTIFY_MAXPACKET),
		.bInterval = ACM_NOTIFY_INTERVAL_FS,
	};
}

/* The list for @speed: IAD, control interface and its class descriptors,
 * notify endpoint (+ companion), data interface, bulk pair. */
static void build_list(struct f_acm *acm, enum usb_device_speed speed,
		       struct usb_descriptor_header **v)
{
	size_t n = 0;

	v[n++] = DH(&acm->iad);
	v[n++] = DH(&acm->ctrl_intf);
	v[n++] = DH(&acm->header);
	v[n++] = DH(&acm->call_mgmt);
	v[n++] = DH(&acm->acm_desc);
	v[n++] = DH(&acm->union_desc);
	if (speed == USB_SPEED_FULL) {
		v[n++] = DH(&acm->fs_notify);
	} else {
		v[n++] = DH(&acm->hs_notify);
		if (speed >= USB_SPEED_SUPER)
			v[n++] = DH(&acm->ss_notify_comp);
	}
	v[n++] = DH(&acm->data_intf);
	n += fn_bulk_pair_descs(&acm->pair, speed, v + n);
	v[n] = NULL;
}

static int acm_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_acm *acm = func_to_acm(f);
	struct usb_string *us;
	int id, ret;

	fill_static_descs(acm);
	us = usb_gstrings_attach(c->cdev, acm_strings, ACM_N_STRINGS);
	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	/* Linux attaches ARRAY_SIZE(acm_string_defs) strings: its table's
	 * terminator takes an id too (an empty string). Take it, so the ids
	 * after this function's are the kernel's. */
	id = usb_string_id(c->cdev);
	if (id < 0)
		return id;
	acm->ctrl_intf.iInterface = us[ACM_CTRL_IDX].id;
	acm->data_intf.iInterface = us[ACM_DATA_IDX].id;
	acm->iad.iFunction = us[ACM_IAD_IDX].id;

	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	acm->ctrl_id = (uint8_t)id;
	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	acm->data_id = (uint8_t)id;
	acm->iad.bFirstInterface = acm->ctrl_id;
	acm->ctrl_intf.bInterfaceNumber = acm->ctrl_id;
	acm->data_intf.bInterfaceNumber = acm->data_id;
	acm->call_mgmt.bDataInterface = acm->data_id;
	acm->union_desc.bMasterInterface0 = acm->ctrl_id;
	acm->union_desc.bSlaveInterface0 = acm->data_id;

	acm->notify_ep = usb_ep_autoconfig(c->cdev->gadget, &acm->fs_notify);
	if (!acm->notify_ep)
		return -USB_ENODEV;
	acm->hs_notify = acm->fs_notify;
	acm->hs_notify.bInterval = ACM_NOTIFY_INTERVAL_HS;
	acm->ss_notify_comp = (struct usb_ss_ep_comp_descriptor){
		.bLength = USB_DT_SS_EP_COMP_SIZE, .bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
		.wBytesPerInterval = USB_CPU_TO_LE16(ACM_NOTIFY_MAXPACKET),
	};
	ret = fn_bulk_pair_bind(&acm->pair, c->cdev->gadget, 0);
	if (ret)
		goto fail_notify;
	build_list(acm, USB_SPEED_FULL, acm->fs_list);
	build_list(acm, USB_SPEED_HIGH, acm->hs_list);
	build_list(acm, USB_SPEED_SUPER, acm->ss_list);
	ret = usb_assign_descriptors(f, acm->fs_list, acm->hs_list, acm->ss_list, acm->ss_list);
	if (ret)
		goto fail_pair;
	ret = acm__stream_alloc(acm);
	if (ret)
		goto fail_descs;
	return 0;

fail_descs:
	usb_free_all_descriptors(f);
fail_pair:
	fn_bulk_pair_release(&acm->pair);
fail_notify:
	usb_ep_autoconfig_release(acm->notify_ep);
	acm->notify_ep = NULL;
	return ret;
}

static void acm_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_acm *acm = func_to_acm(f);

	(void)c;
	if (acm->opts.ops && acm->opts.ops->unbind)
		acm->opts.ops->unbind(f, acm->opts.ctx);
	acm__data_disconnect(acm);
	acm__notify_disable(acm);
	acm__stream_free(acm);
	usb_free_all_descriptors(f);
}

/* ---- set_alt, disable ------------------------------------------------------ */

static int enable_ep(struct f_acm *acm, struct usb_ep *ep)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&acm->function);
	int ret;

	/* As Linux's f_acm: keep the descriptor an earlier set_alt chose. */
	if (!ep->desc) {
		ret = config_ep_by_speed(cdev->gadget, &acm->function, ep);
		if (ret)
			return ret;
	}
	ret = usb_ep_enable(ep);
	if (ret == 0)
		ep->driver_data = acm;
	return ret;
}

static int acm_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct f_acm *acm = func_to_acm(f);
	int ret;

	if (alt != 0)
		return -USB_EINVAL;
	if (interface == acm->ctrl_id) {
		acm__notify_disable(acm);
		ret = enable_ep(acm, acm->notify_ep);
		if (ret)
			return ret;
		acm__notify_enable(acm);
		return 0;
	}
	if (interface != acm->data_id)
		return -USB_EINVAL;
	acm__data_disconnect(acm);
	ret = enable_ep(acm, acm->pair.in);
	if (ret)
		return ret;
	ret = enable_ep(acm, acm->pair.out);
	if (ret) {
		(void)usb_ep_disable(acm->pair.in);
		return ret;
	}
	acm__data_connect(acm);
	return 0;
}

static void acm_disable(struct usb_function *f)
{
	struct f_acm *acm = func_to_acm(f);

	acm__data_disconnect(acm);
	acm__notify_disable(acm);
	acm__set_lines(acm, 0);
}

/* ---- class requests ------------------------------------------------------- */

static void set_line_coding_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_acm *acm = req->context;

	(void)ep;
	if (req->status == 0 && req->actual == sizeof(struct usb_cdc_line_coding))
		acm__set_line_coding(acm, req->buf);
}

static int acm_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct f_acm *acm = func_to_acm(f);
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	struct usb_request *req = cdev->req;
	uint16_t w_index = USB_LE16_TO_CPU(ctrl->wIndex);
	uint16_t w_value = USB_LE16_TO_CPU(ctrl->wValue);
	uint16_t w_length = USB_LE16_TO_CPU(ctrl->wLength);
	uint8_t type = ctrl->bRequestType;
	const uint8_t out = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	const uint8_t in = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	int length;

	if (w_index != acm->ctrl_id)
		return -USB_EOPNOTSUPP;
	switch (ctrl->bRequest) {
	case USB_CDC_REQ_SET_LINE_CODING:
		if (type != out || w_length != sizeof(struct usb_cdc_line_coding))
			return -USB_EOPNOTSUPP;
		length = w_length;
		req->complete = set_line_coding_complete;
		req->context = acm;
		break;
	case USB_CDC_REQ_GET_LINE_CODING:
		if (type != in || w_length == 0)
			return -USB_EOPNOTSUPP;
		length = w_length < sizeof(struct usb_cdc_line_coding) ?
			 w_length : (int)sizeof(struct usb_cdc_line_coding);
		acm_get_line_coding(f, req->buf);
		break;
	case USB_CDC_REQ_SET_CONTROL_LINE_STATE:
		if (type != out || w_length != 0)
			return -USB_EOPNOTSUPP;
		acm__set_lines(acm, w_value & (ACM_CTRL_DTR | ACM_CTRL_RTS));
		length = 0;
		break;
	case USB_CDC_REQ_SEND_BREAK:
		if (type != out || w_length != 0)
			return -USB_EOPNOTSUPP;
		if (acm->opts.ops && acm->opts.ops->send_break)
			acm->opts.ops->send_break(f, acm->opts.ctx, w_value);
		length = 0;
		break;
	default:
		return -USB_EOPNOTSUPP;
	}
	req->length = (unsigned)length;
	req->zero = 0;
	length = usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	return length < 0 ? length : 0;
}

/* ---- allocation -------------------------------------------------------------- */

static void acm_free_func(struct usb_function *f)
{
	acm__free(func_to_acm(f));
}

int acm_alloc(const struct f_acm_opts *opts, struct usb_function **out)
{
	struct f_acm *acm;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = f_acm_opts_check(opts);
	if (ret)
		return ret;
	ret = acm__alloc(opts, &acm);
	if (ret)
		return ret;
	acm->function.name = "acm";
	acm->function.bind = acm_bind;
	acm->function.unbind = acm_unbind;
	acm->function.free_func = acm_free_func;
	acm->function.set_alt = acm_set_alt;
	acm->function.disable = acm_disable;
	acm->function.setup = acm_setup;
	*out = &acm->function;
	return 0;
}

void acm_free(struct usb_function *f)
{
	if (acm_is(f))
		acm__free(func_to_acm(f));
}

bool acm_is(const struct usb_function *f)
{
	return f && f->bind == acm_bind;
}
