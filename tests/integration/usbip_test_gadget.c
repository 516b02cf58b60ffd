/*
 * usbip_test_gadget.c - the test gadget of usbip_test_gadget.h, written
 * against the public function API only, as a gadget author would.
 */
#include "usbip_test_gadget.h"

#include <stdlib.h>
#include <string.h>

uint8_t tg_addr(const struct usb_ep *ep)
{
	return ep->address;
}

static struct tg *func_tg(struct usb_function *f)
{
	return usb_container_of(f, struct tg, func);
}

/* ---- data endpoints ------------------------------------------------------ */

static void loop_in_done(struct usb_ep *ep, struct usb_request *req);

static void loop_out_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = ep->driver_data;
	unsigned k = (unsigned)(uintptr_t)req->context;
	struct usb_request *in = g->li[k];

	(void)ep;
	if (req->status != 0 || !atomic_load(&g->active))
		return;
	memcpy(in->buf, req->buf, req->actual);
	in->length = req->actual;
	/* A whole-packet echo needs no ZLP: the next echo continues the URB,
	 * exactly as one long transfer would. */
	in->zero = 0;
	if (usb_ep_queue(g->loop_in, in, USB_GFP_ATOMIC) != 0)
		(void)usb_ep_queue(g->loop_out, req, USB_GFP_ATOMIC);
}

static void loop_in_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = ep->driver_data;
	unsigned k = (unsigned)(uintptr_t)req->context;

	if (req->status != 0 || !atomic_load(&g->active))
		return;
	(void)usb_ep_queue(g->loop_out, g->lo[k], USB_GFP_ATOMIC);
}

static void fill_source(struct tg *g, struct usb_request *req)
{
	uint8_t *p = req->buf;
	unsigned long long base = atomic_fetch_add(&g->sourced, req->length);

	for (unsigned i = 0; i < req->length; i++)
		p[i] = tg_pattern(base + i);
}

static void source_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = ep->driver_data;

	if (req->status != 0 || !atomic_load(&g->active))
		return;
	if (!g->no_refill)
		fill_source(g, req);
	(void)usb_ep_queue(ep, req, USB_GFP_ATOMIC);
}

static void sink_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = ep->driver_data;

	if (req->status != 0 || !atomic_load(&g->active))
		return;
	atomic_fetch_add(&g->sunk, req->actual);
	(void)usb_ep_queue(ep, req, USB_GFP_ATOMIC);
}

static void isrc_fill(struct usb_request *req)
{
	uint8_t *p = req->buf;
	unsigned n = (unsigned)(uintptr_t)req->context;

	for (unsigned k = 0; k < req->length; k++)
		p[k] = (uint8_t)(n + k);
}

static void isrc_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = ep->driver_data;

	if (req->status != 0 || !atomic_load(&g->active))
		return;
	atomic_fetch_add(&g->iso_in_reqs, 1);
	(void)usb_ep_queue(ep, req, USB_GFP_ATOMIC);
}

static void isink_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = ep->driver_data;

	if (req->status != 0 || !atomic_load(&g->active))
		return;
	atomic_fetch_add(&g->iso_out_reqs, 1);
	atomic_fetch_add(&g->iso_out_bytes, req->actual);
	(void)usb_ep_queue(ep, req, USB_GFP_ATOMIC);
}

static void intr_done(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	(void)req;
}

static struct usb_request *new_req(struct usb_ep *ep, unsigned len,
				   void (*done)(struct usb_ep *, struct usb_request *), unsigned k)
{
	struct usb_request *r = usb_ep_alloc_request(ep, USB_GFP_KERNEL);

	if (!r)
		return NULL;
	r->buf = malloc(len);
	if (!r->buf) {
		usb_ep_free_request(ep, r);
		return NULL;
	}
	r->length = len;
	r->complete = done;
	r->context = (void *)(uintptr_t)k;
	return r;
}

static void free_req(struct usb_ep *ep, struct usb_request *r)
{
	if (!r)
		return;
	free(r->buf);
	usb_ep_free_request(ep, r);
}

static void disable_all(struct tg *g)
{
	struct usb_ep *eps[TG_NEPS] = { g->loop_out, g->loop_in, g->sink, g->source, g->intr,
					 g->isrc, g->isink };

	atomic_store(&g->active, 0);
	for (int i = 0; i < TG_NEPS; i++)
		if (eps[i]->enabled)
			usb_ep_disable(eps[i]);
}

static int tg_set_alt(struct usb_function *f, unsigned intf, unsigned alt)
{
	struct tg *g = func_tg(f);
	struct usb_ep *eps[TG_NEPS] = { g->loop_out, g->loop_in, g->sink, g->source, g->intr,
					 g->isrc, g->isink };
	int rc;

	if (intf != 0 || alt != 0)
		return -USB_EINVAL;
	atomic_fetch_add(&g->set_alts, 1);
	disable_all(g);
	for (int i = 0; i < TG_NEPS; i++) {
		rc = config_ep_by_speed(f->config->cdev->gadget, f, eps[i]);
		if (rc == 0)
			rc = usb_ep_enable(eps[i]);
		if (rc < 0)
			goto fail;
		eps[i]->driver_data = g;
	}
	atomic_store(&g->active, 1);
	for (unsigned k = 0; k < TG_LOOP_N; k++) {
		g->lo[k]->length = TG_LOOP_LEN;
		if ((rc = usb_ep_queue(g->loop_out, g->lo[k], USB_GFP_ATOMIC)) < 0)
			goto fail;
	}
	for (unsigned k = 0; k < 4; k++) {
		isrc_fill(g->isrc_req[k]);
		if ((rc = usb_ep_queue(g->isrc, g->isrc_req[k], USB_GFP_ATOMIC)) < 0 ||
		    (rc = usb_ep_queue(g->isink, g->isink_req[k], USB_GFP_ATOMIC)) < 0)
			goto fail;
	}
	for (unsigned k = 0; k < g->big_n; k++) {
		if ((rc = usb_ep_queue(g->sink, g->sink_req[k], USB_GFP_ATOMIC)) < 0)
			goto fail;
		fill_source(g, g->src_req[k]);
		if ((rc = usb_ep_queue(g->source, g->src_req[k], USB_GFP_ATOMIC)) < 0)
			goto fail;
	}
	return 0;
fail:
	disable_all(g);
	return rc;
}

static void tg_disable(struct usb_function *f)
{
	struct tg *g = func_tg(f);

	atomic_fetch_add(&g->disables, 1);
	disable_all(g);
}

/* ---- control ------------------------------------------------------------- */

static void ctl_store_done(struct usb_ep *ep, struct usb_request *req)
{
	struct tg *g = req->context;

	(void)ep;
	if (req->status == 0) {
		memcpy(g->ctl_buf, req->buf, req->actual);
		g->ctl_len = req->actual;
	}
}

static void ctl_plain_done(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	(void)req;
}

static struct usb_ep *ep_by_addr(struct tg *g, unsigned addr)
{
	struct usb_ep *eps[TG_NEPS] = { g->loop_out, g->loop_in, g->sink, g->source, g->intr,
					 g->isrc, g->isink };

	for (int i = 0; i < TG_NEPS; i++)
		if (eps[i]->address == addr)
			return eps[i];
	return NULL;
}

static int tg_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct tg *g = func_tg(f);
	struct usb_composite_dev *cdev = f->config->cdev;
	struct usb_request *req = cdev->req;
	unsigned w_value = USB_LE16_TO_CPU(ctrl->wValue);
	unsigned w_length = USB_LE16_TO_CPU(ctrl->wLength);
	struct usb_ep *ep;
	int rc;

	if ((ctrl->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR)
		return -USB_EOPNOTSUPP;
	req->zero = 0;
	req->context = g;
	req->complete = ctl_plain_done;
	switch (ctrl->bRequest) {
	case 0x5b:
		if (ctrl->bRequestType & USB_DIR_IN || w_length > TG_CTL_LEN)
			return -USB_EOPNOTSUPP;
		req->length = w_length;
		req->complete = ctl_store_done;
		break;
	case 0x5c:
		if (!(ctrl->bRequestType & USB_DIR_IN))
			return -USB_EOPNOTSUPP;
		req->length = w_length < g->ctl_len ? w_length : g->ctl_len;
		memcpy(req->buf, g->ctl_buf, req->length);
		break;
	case 0x01:
		ep = ep_by_addr(g, w_value);
		if (!ep || w_length)
			return -USB_EOPNOTSUPP;
		rc = usb_ep_set_halt(ep);
		if (rc < 0)
			return rc;
		req->length = 0;
		break;
	case 0x02:
		if (w_value > 64 || w_length)
			return -USB_EOPNOTSUPP;
		g->intr_req->length = w_value;
		memset(g->intr_req->buf, 0xa5, w_value);
		rc = usb_ep_queue(g->intr, g->intr_req, USB_GFP_ATOMIC);
		if (rc < 0)
			return rc;
		req->length = 0;
		break;
	default:
		return -USB_EOPNOTSUPP;
	}
	return usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
}

/* ---- bind ---------------------------------------------------------------- */

static void ep_desc(struct usb_endpoint_descriptor *d, uint8_t dir, uint8_t type, uint16_t mps)
{
	memset(d, 0, sizeof(*d));
	d->bLength = USB_DT_ENDPOINT_SIZE;
	d->bDescriptorType = USB_DT_ENDPOINT;
	d->bEndpointAddress = dir;
	d->bmAttributes = type;
	d->wMaxPacketSize = USB_CPU_TO_LE16(mps);
	d->bInterval = type == USB_ENDPOINT_XFER_INT ? 4 : type == USB_ENDPOINT_XFER_ISOC ? 1 : 0;
}

static int tg_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct tg *g = func_tg(f);
	struct usb_gadget *gadget = c->cdev->gadget;
	struct usb_ep **eps[TG_NEPS] = { &g->loop_out, &g->loop_in, &g->sink, &g->source, &g->intr,
					 &g->isrc, &g->isink };
	static const uint8_t dirs[TG_NEPS] = { USB_DIR_OUT, USB_DIR_IN, USB_DIR_OUT, USB_DIR_IN,
					       USB_DIR_IN, USB_DIR_IN, USB_DIR_OUT };
	int id = usb_interface_id(c, f);

	if (id < 0)
		return id;
	memset(&g->intf, 0, sizeof(g->intf));
	g->intf.bLength = USB_DT_INTERFACE_SIZE;
	g->intf.bDescriptorType = USB_DT_INTERFACE;
	g->intf.bInterfaceNumber = (uint8_t)id;
	g->intf.bNumEndpoints = TG_NEPS;
	g->intf.bInterfaceClass = USB_CLASS_VENDOR_SPEC;
	g->intf.bInterfaceSubClass = 0x42;
	g->intf.bInterfaceProtocol = 0x07;
	g->fs[0] = g->hs[0] = (struct usb_descriptor_header *)&g->intf;
	for (int i = 0; i < TG_NEPS; i++) {
		uint8_t type = i == 4 ? USB_ENDPOINT_XFER_INT :
			       i >= 5 ? USB_ENDPOINT_XFER_ISOC : USB_ENDPOINT_XFER_BULK;
		uint16_t hs_mps = i == 4 ? 64 : i >= 5 ? 1024 : 512;

		ep_desc(&g->fs_ep[i], dirs[i], type, i >= 5 ? 1023 : 64);
		*eps[i] = usb_ep_autoconfig(gadget, &g->fs_ep[i]);
		if (!*eps[i])
			return -USB_ENODEV;
		ep_desc(&g->hs_ep[i], g->fs_ep[i].bEndpointAddress, type, hs_mps);
		g->fs[i + 1] = (struct usb_descriptor_header *)&g->fs_ep[i];
		g->hs[i + 1] = (struct usb_descriptor_header *)&g->hs_ep[i];
	}
	g->fs[TG_NEPS + 1] = g->hs[TG_NEPS + 1] = NULL;
	for (unsigned k = 0; k < 4; k++) {
		g->isrc_req[k] = new_req(g->isrc, TG_ISO_LEN, isrc_done, k);
		g->isink_req[k] = new_req(g->isink, 1024, isink_done, k);
		if (!g->isrc_req[k] || !g->isink_req[k])
			return -USB_ENOMEM;
	}
	for (unsigned k = 0; k < TG_LOOP_N; k++) {
		g->lo[k] = new_req(g->loop_out, TG_LOOP_LEN, loop_out_done, k);
		g->li[k] = new_req(g->loop_in, TG_LOOP_LEN, loop_in_done, k);
		if (!g->lo[k] || !g->li[k])
			return -USB_ENOMEM;
	}
	for (unsigned k = 0; k < g->big_n; k++) {
		g->sink_req[k] = new_req(g->sink, g->big_len, sink_done, k);
		g->src_req[k] = new_req(g->source, g->big_len, source_done, k);
		if (!g->sink_req[k] || !g->src_req[k])
			return -USB_ENOMEM;
	}
	g->intr_req = new_req(g->intr, 64, intr_done, 0);
	if (!g->intr_req)
		return -USB_ENOMEM;
	return usb_assign_descriptors(f, g->fs, g->hs, NULL, NULL);
}

static void tg_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct tg *g = func_tg(f);

	(void)c;
	for (unsigned k = 0; k < TG_LOOP_N; k++) {
		free_req(g->loop_out, g->lo[k]);
		free_req(g->loop_in, g->li[k]);
		g->lo[k] = g->li[k] = NULL;
	}
	for (unsigned k = 0; k < g->big_n; k++) {
		free_req(g->sink, g->sink_req[k]);
		free_req(g->source, g->src_req[k]);
		g->sink_req[k] = g->src_req[k] = NULL;
	}
	free_req(g->intr, g->intr_req);
	g->intr_req = NULL;
	for (unsigned k = 0; k < 4; k++) {
		free_req(g->isrc, g->isrc_req[k]);
		free_req(g->isink, g->isink_req[k]);
		g->isrc_req[k] = g->isink_req[k] = NULL;
	}
	usb_free_all_descriptors(f);
}

static int tg_config_bind(struct usb_configuration *c)
{
	struct tg *g = usb_container_of(c, struct tg, config);

	return usb_add_function(c, &g->func);
}

static int tg_driver_bind(struct usb_composite_dev *cdev)
{
	struct tg *g = usb_container_of(cdev->driver, struct tg, driver);

	return usb_add_config(cdev, &g->config, tg_config_bind);
}

int tg_probe(struct tg *g, const char *udc, uint16_t pid)
{
	return tg_probe_bulk(g, udc, pid, TG_BIG_LEN, 2);
}

int tg_probe_bulk(struct tg *g, const char *udc, uint16_t pid, unsigned len, unsigned n)
{
	memset(g, 0, sizeof(*g));
	if (n == 0 || n > TG_BIG_MAX || len == 0)
		return -USB_EINVAL;
	g->big_len = len;
	g->big_n = n;
	strncpy(g->udc, udc, sizeof(g->udc) - 1);
	g->dev_desc.bLength = USB_DT_DEVICE_SIZE;
	g->dev_desc.bDescriptorType = USB_DT_DEVICE;
	g->dev_desc.bcdUSB = USB_CPU_TO_LE16(0x0200);
	g->dev_desc.idVendor = USB_CPU_TO_LE16(0x1d6b);
	g->dev_desc.idProduct = USB_CPU_TO_LE16(pid);
	g->dev_desc.bcdDevice = USB_CPU_TO_LE16(0x0123);
	g->driver.name = "usbip-test";
	g->driver.dev = &g->dev_desc;
	g->driver.max_speed = USB_SPEED_HIGH;
	g->driver.iManufacturer = "libcomposite tests";
	g->driver.iProduct = "usbip test gadget";
	g->driver.iSerialNumber = "0001";
	g->driver.udc_name = g->udc;
	g->driver.bind = tg_driver_bind;
	g->config.label = "test";
	g->config.bConfigurationValue = 1;
	g->config.bmAttributes = USB_CONFIG_ATT_SELFPOWER;
	g->config.MaxPower = 100;
	g->func.name = "usbip-test-fn";
	g->func.bind = tg_bind;
	g->func.unbind = tg_unbind;
	g->func.set_alt = tg_set_alt;
	g->func.disable = tg_disable;
	g->func.setup = tg_setup;
	return usb_composite_probe(&g->driver);
}

void tg_remove(struct tg *g)
{
	usb_composite_unregister(&g->driver);
}
