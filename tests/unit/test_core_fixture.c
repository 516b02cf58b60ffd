/*
 * test_core_fixture.c - the test functions and driver of
 * test_core_fixture.h.
 */
#include "test_core_fixture.h"

#include <string.h>

static struct tfunc *tf(struct usb_function *f)
{
	return usb_container_of(f, struct tfunc, func);
}

static void ep_desc(struct usb_endpoint_descriptor *d, uint8_t dir, uint16_t mps)
{
	memset(d, 0, sizeof(*d));
	d->bLength = USB_DT_ENDPOINT_SIZE;
	d->bDescriptorType = USB_DT_ENDPOINT;
	d->bEndpointAddress = dir;
	d->bmAttributes = USB_ENDPOINT_XFER_BULK;
	d->wMaxPacketSize = USB_CPU_TO_LE16(mps);
}

static void intf_desc(struct usb_interface_descriptor *d, uint8_t alt, uint8_t n_eps)
{
	memset(d, 0, sizeof(*d));
	d->bLength = USB_DT_INTERFACE_SIZE;
	d->bDescriptorType = USB_DT_INTERFACE;
	d->bAlternateSetting = alt;
	d->bNumEndpoints = n_eps;
	d->bInterfaceClass = USB_CLASS_VENDOR_SPEC;
}

static void comp_desc(struct usb_ss_ep_comp_descriptor *c)
{
	memset(c, 0, sizeof(*c));
	c->bLength = USB_DT_SS_EP_COMP_SIZE;
	c->bDescriptorType = USB_DT_SS_ENDPOINT_COMP;
	c->bMaxBurst = 3;
}

/* Build the per-speed lists. */
static void build_lists(struct tfunc *t)
{
	unsigned n;

#define H(x) ((struct usb_descriptor_header *)(void *)&(x))
	n = 0;
	t->fs[n++] = H(t->intf0);
	t->fs[n++] = H(t->fs_in);
	t->fs[n++] = H(t->fs_out);
	if (t->two_alts) {
		t->fs[n++] = H(t->intf0_alt1);
		t->fs[n++] = H(t->fs_in);
		t->fs[n++] = H(t->fs_out);
	}
	if (t->n_intf > 1)
		t->fs[n++] = H(t->intf1);
	t->fs[n] = NULL;
	n = 0;
	t->hs[n++] = H(t->intf0);
	t->hs[n++] = H(t->hs_in);
	t->hs[n++] = H(t->hs_out);
	if (t->two_alts) {
		t->hs[n++] = H(t->intf0_alt1);
		t->hs[n++] = H(t->hs_in);
		t->hs[n++] = H(t->hs_out);
	}
	if (t->n_intf > 1)
		t->hs[n++] = H(t->intf1);
	t->hs[n] = NULL;
	n = 0;
	t->ss[n++] = H(t->intf0);
	t->ss[n++] = H(t->ss_in);
	t->ss[n++] = H(t->ss_comp_in);
	t->ss[n++] = H(t->ss_out);
	t->ss[n++] = H(t->ss_comp_out);
	if (t->n_intf > 1)
		t->ss[n++] = H(t->intf1);
	t->ss[n] = NULL;
#undef H
}

static int t_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct tfunc *t = tf(f);
	struct usb_composite_dev *cdev = c->cdev;
	int id, ret;

	t->bind_calls++;
	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	t->intf_id[0] = id;
	t->intf0.bInterfaceNumber = t->intf0_alt1.bInterfaceNumber = (uint8_t)id;
	if (t->n_intf > 1) {
		id = usb_interface_id(c, f);
		if (id < 0)
			return id;
		t->intf_id[1] = id;
		t->intf1.bInterfaceNumber = (uint8_t)id;
	}
	t->in = usb_ep_autoconfig(cdev->gadget, &t->fs_in);
	if (!t->in)
		return -USB_ENODEV;
	t->out = usb_ep_autoconfig(cdev->gadget, &t->fs_out);
	if (!t->out) {
		usb_ep_autoconfig_release(t->in);
		return -USB_ENODEV;
	}
	t->hs_in.bEndpointAddress = t->ss_in.bEndpointAddress = t->fs_in.bEndpointAddress;
	t->hs_out.bEndpointAddress = t->ss_out.bEndpointAddress = t->fs_out.bEndpointAddress;
	if (t->str[0].s && !t->str[0].id) {
		ret = usb_string_ids_tab(cdev, t->str);
		if (ret)
			return ret;
	}
	t->intf0.iInterface = t->str[0].id;
	if (t->bind_ret) {
		usb_ep_autoconfig_release(t->in);
		usb_ep_autoconfig_release(t->out);
		return t->bind_ret;
	}
	build_lists(t);
	if (t->no_assign) {
		f->fs_descriptors = t->fs;
		f->hs_descriptors = t->hs;
		f->ss_descriptors = t->ss;
		return 0;
	}
	return usb_assign_descriptors(f, t->fs, t->hs, t->ss, NULL);
}

static void t_unbind(struct usb_configuration *c, struct usb_function *f)
{
	(void)c;
	tf(f)->unbind_calls++;
	if (!tf(f)->free_on_unbind)
		usb_free_all_descriptors(f);
}

static void t_free(struct usb_function *f)
{
	tf(f)->free_calls++;
}

static void disable_eps(struct tfunc *t)
{
	if (t->in->enabled)
		usb_ep_disable(t->in);
	if (t->out->enabled)
		usb_ep_disable(t->out);
}

static int pick_desc(struct tfunc *t, struct usb_gadget *g, struct usb_ep *ep)
{
	if (t->lazy_ep_config && ep->desc)
		return 0;
	return config_ep_by_speed(g, &t->func, ep);
}

static int t_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	struct tfunc *t = tf(f);
	struct usb_gadget *g = f->config->cdev->gadget;
	int ret;

	t->set_alt_calls++;
	t->last_set_alt_intf = intf;
	t->last_set_alt_alt = alt;
	if (t->set_alt_ret < 0)
		return t->set_alt_ret;
	if (intf == (unsigned)t->intf_id[0]) {
		disable_eps(t);
		ret = pick_desc(t, g, t->in);
		if (!ret)
			ret = usb_ep_enable(t->in);
		if (!ret)
			ret = pick_desc(t, g, t->out);
		if (!ret)
			ret = usb_ep_enable(t->out);
		if (ret)
			return ret;
		t->alt[0] = alt;
	} else {
		t->alt[1] = alt;
	}
	return t->set_alt_ret;
}

static int t_get_alt(struct usb_function *f, unsigned intf)
{
	struct tfunc *t = tf(f);

	t->get_alt_calls++;
	return (int)(intf == (unsigned)t->intf_id[0] ? t->alt[0] : t->alt[1]);
}

static void t_disable(struct usb_function *f)
{
	struct tfunc *t = tf(f);

	t->disable_calls++;
	disable_eps(t);
}

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct tfunc *t = req->context;
	unsigned n = req->actual < sizeof(t->received) ? req->actual : sizeof(t->received);

	(void)ep;
	if (req->status == 0) {
		memcpy(t->received, req->buf, n);
		t->received_len = n;
	}
}

static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	(void)req;
}

static int t_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct tfunc *t = tf(f);
	struct usb_composite_dev *cdev = f->config->cdev;
	struct usb_request *req = cdev->req;
	const uint8_t *raw = (const void *)ctrl;
	uint16_t value = usb_get_le16(raw + 2), length = usb_get_le16(raw + 6);
	uint8_t type = raw[0] & USB_TYPE_MASK;
	unsigned i, n;

	t->setup_calls++;
	if (type == USB_TYPE_VENDOR && raw[1] == TF_VENDOR_IN && (raw[0] & USB_DIR_IN)) {
		n = value < length ? value : length;
		if (n > USB_COMP_EP0_BUFSIZ)
			return -USB_EINVAL;
		for (i = 0; i < n; i++)
			((uint8_t *)req->buf)[i] = (uint8_t)i;
		req->length = n;
		req->zero = n < length;
		req->complete = in_complete;
		return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	}
	if (type == USB_TYPE_VENDOR && raw[1] == TF_VENDOR_OUT && !(raw[0] & USB_DIR_IN) &&
	    length && length <= sizeof(t->received)) {
		req->length = length;
		req->complete = out_complete;
		req->context = t;
		return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	}
	if (type == USB_TYPE_CLASS && raw[1] == TF_CLASS_DELAY && length == 0)
		return USB_GADGET_DELAYED_STATUS;
	if (raw[1] == TF_MATCH_REQ && (raw[0] & USB_DIR_IN) && length) {
		((uint8_t *)req->buf)[0] = 0x5a;
		req->length = 1;
		req->complete = in_complete;
		return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	}
	return -USB_EOPNOTSUPP;
}

static bool t_req_match(struct usb_function *f, const struct usb_ctrlrequest *ctrl,
			bool config0)
{
	const uint8_t *raw = (const void *)ctrl;

	(void)config0;
	return tf(f)->match && raw[1] == TF_MATCH_REQ &&
	       (raw[0] & USB_TYPE_MASK) == USB_TYPE_VENDOR;
}

static void t_suspend(struct usb_function *f)
{
	tf(f)->suspend_calls++;
}

static void t_resume(struct usb_function *f)
{
	tf(f)->resume_calls++;
}

void tfunc_init(struct tfunc *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->func.name = name;
	t->func.bind = t_bind;
	t->func.unbind = t_unbind;
	t->func.free_func = t_free;
	t->func.set_alt = t_set_alt;
	t->func.get_alt = t_get_alt;
	t->func.disable = t_disable;
	t->func.setup = t_setup;
	t->func.req_match = t_req_match;
	t->func.suspend = t_suspend;
	t->func.resume = t_resume;
	t->n_intf = 1;
	intf_desc(&t->intf0, 0, 2);
	intf_desc(&t->intf0_alt1, 1, 2);
	intf_desc(&t->intf1, 0, 0);
	ep_desc(&t->fs_in, USB_DIR_IN, 64);
	ep_desc(&t->fs_out, USB_DIR_OUT, 64);
	ep_desc(&t->hs_in, USB_DIR_IN, 512);
	ep_desc(&t->hs_out, USB_DIR_OUT, 512);
	ep_desc(&t->ss_in, USB_DIR_IN, 1024);
	ep_desc(&t->ss_out, USB_DIR_OUT, 1024);
	comp_desc(&t->ss_comp_in);
	comp_desc(&t->ss_comp_out);
	t->str[0].s = name;
	t->gstr.language = USB_LANGID_EN_US;
	t->gstr.strings = t->str;
	t->gstrs[0] = &t->gstr;
	t->func.strings = t->gstrs;
}

/* ---- the driver ------------------------------------------------------- */

static struct tdev *td(struct usb_composite_dev *cdev)
{
	return usb_container_of(cdev->driver, struct tdev, driver);
}

static int cfg_bind(struct usb_configuration *c)
{
	struct tdev *d = td(c->cdev);
	unsigned ci = (unsigned)(c - d->cfg), i;
	int ret;

	for (i = 0; i < 3; i++) {
		if (!d->funcs[ci][i])
			continue;
		ret = usb_add_function(c, &d->funcs[ci][i]->func);
		if (ret)
			return ret;
	}
	return 0;
}

static void cfg_unbind(struct usb_configuration *c)
{
	td(c->cdev)->cfg_unbind_calls++;
}

static int drv_bind(struct usb_composite_dev *cdev)
{
	struct tdev *d = td(cdev);
	unsigned i;
	int ret;

	d->bind_calls++;
	d->cdev = cdev;
	ret = usb_string_ids_tab(cdev, d->dev_str);
	if (ret)
		return ret;
	cdev->desc.iManufacturer = d->dev_str[0].id;
	cdev->desc.iProduct = d->dev_str[1].id;
	for (i = 0; i < d->n_cfg; i++) {
		ret = usb_add_config(cdev, &d->cfg[i], cfg_bind);
		if (ret)
			return ret;
	}
	return d->bind_ret;
}

static int drv_unbind(struct usb_composite_dev *cdev)
{
	td(cdev)->unbind_calls++;
	return 0;
}

static void drv_disconnect(struct usb_composite_dev *cdev)
{
	td(cdev)->disconnect_calls++;
}

static void drv_suspend(struct usb_composite_dev *cdev)
{
	td(cdev)->suspend_calls++;
}

static void drv_resume(struct usb_composite_dev *cdev)
{
	td(cdev)->resume_calls++;
}

void tdev_init(struct tdev *d, enum usb_device_speed max_speed, uint16_t bcd,
	       struct tfunc *f)
{
	unsigned i;

	memset(d, 0, sizeof(*d));
	fake_udc_init(&d->udc, "fake.0", max_speed);
	d->dd.bLength = USB_DT_DEVICE_SIZE;
	d->dd.bDescriptorType = USB_DT_DEVICE;
	d->dd.bcdUSB = USB_CPU_TO_LE16(bcd);
	d->dd.idVendor = USB_CPU_TO_LE16(0x1d6b);
	d->dd.idProduct = USB_CPU_TO_LE16(0x0104);
	d->dd.bcdDevice = USB_CPU_TO_LE16(0x0100);
	d->driver.name = "tdev";
	d->driver.dev = &d->dd;
	d->driver.bind = drv_bind;
	d->driver.unbind = drv_unbind;
	d->driver.disconnect = drv_disconnect;
	d->driver.suspend = drv_suspend;
	d->driver.resume = drv_resume;
	d->dev_str[0].s = "Maker";
	d->dev_str[1].s = "Thing";
	d->dev_gstr.language = USB_LANGID_EN_US;
	d->dev_gstr.strings = d->dev_str;
	d->dev_gstrs[0] = &d->dev_gstr;
	d->driver.strings = d->dev_gstrs;
	for (i = 0; i < 2; i++) {
		d->cfg[i].label = NULL;
		d->cfg[i].bConfigurationValue = (uint8_t)(i + 1);
		d->cfg[i].bmAttributes = 0;
		d->cfg[i].MaxPower = 100;
		d->cfg[i].unbind = cfg_unbind;
	}
	d->n_cfg = 1;
	d->funcs[0][0] = f;
}

int tdev_start(struct tdev *d)
{
	int ret = usb_udc_register(&d->udc.gadget);

	if (ret)
		return ret;
	ret = usb_composite_probe(&d->driver);
	if (ret)
		usb_udc_unregister(&d->udc.gadget);
	return ret;
}

void tdev_stop(struct tdev *d)
{
	usb_composite_unregister(&d->driver);
	usb_udc_unregister(&d->udc.gadget);
}

int tdev_enumerate(struct tdev *d, enum usb_device_speed speed, unsigned config)
{
	fake_udc_reset(&d->udc, speed);
	if (fake_ctrl(&d->udc, 0x00, USB_REQ_SET_ADDRESS, 5, 0, 0, NULL, 0) != 0)
		return -1;
	if (config && fake_ctrl(&d->udc, 0x00, USB_REQ_SET_CONFIGURATION,
				(uint16_t)config, 0, 0, NULL, 0) != 0)
		return -1;
	return 0;
}
