/*
 * msf.c - the usb_function glue of the mass storage function: one instance
 * per configuration (struct fsg_dev), its descriptors (interface 08/06/50,
 * bulk IN and OUT, 64 bytes at full speed, 512 at high speed, 1024 at
 * SuperSpeed), bind and
 * unbind, set_alt/disable (handed to the worker as exceptions), the class
 * requests (Bulk-Only Mass Storage Reset, Get Max LUN) and the bulk
 * completions.
 *
 * Portable C11. Everything but bind/unbind/free_func runs in the event
 * context and only takes the state lock briefly.
 */
#include <string.h>

#include "msf_internal.h"
#include "msf_os.h"
#include "port/alloc.h"

static struct fsg_dev *fsg_from_func(struct usb_function *f)
{
	return usb_container_of(f, struct fsg_dev, function);
}

/* ---- completions (event context) ------------------------------------------ */

void msf__bulk_in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct msf__buffhd *bh = req->context;
	struct msf_common *common = bh->common;

	(void)ep;
	msf__os_lock(common->os);
	bh->inreq_busy = false;
	bh->state = MSF_BUF_EMPTY;
	msf__wake_for(common, bh);
	msf__os_unlock(common->os);
}

void msf__bulk_out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct msf__buffhd *bh = req->context;
	struct msf_common *common = bh->common;

	(void)ep;
	msf__os_lock(common->os);
	bh->outreq_busy = false;
	bh->state = MSF_BUF_FULL;
	msf__wake_for(common, bh);
	msf__os_unlock(common->os);
}

static void ep0_complete(struct usb_ep *ep, struct usb_request *req)
{
	(void)ep;
	(void)req;
}

/* ---- usb_function callbacks -------------------------------------------------- */

/* The ring's requests of this instance (NULL ones are skipped). */
static void free_requests(struct fsg_dev *fsg)
{
	for (unsigned i = 0; i < fsg->nreqs; i++) {
		if (fsg->inreqs[i])
			usb_ep_free_request(fsg->bulk_in, fsg->inreqs[i]);
		if (fsg->outreqs[i])
			usb_ep_free_request(fsg->bulk_out, fsg->outreqs[i]);
		fsg->inreqs[i] = fsg->outreqs[i] = NULL;
	}
}

static int alloc_requests(struct fsg_dev *fsg)
{
	for (unsigned i = 0; i < fsg->nreqs; i++) {
		fsg->inreqs[i] = usb_ep_alloc_request(fsg->bulk_in, USB_GFP_KERNEL);
		fsg->outreqs[i] = usb_ep_alloc_request(fsg->bulk_out, USB_GFP_KERNEL);
		if (!fsg->inreqs[i] || !fsg->outreqs[i]) {
			free_requests(fsg);
			return -USB_ENOMEM;
		}
	}
	return 0;
}

static int fsg_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct fsg_dev *fsg = fsg_from_func(f);
	struct usb_gadget *gadget = c->cdev->gadget;
	enum usb_device_speed drv = c->cdev->driver->max_speed;
	struct {	/* templates: usb_assign_descriptors() copies them */
		struct usb_interface_descriptor intf;
		struct fn_bulk_pair pair;	/* claims bulk_in and bulk_out */
		struct usb_descriptor_header *fs[4], *hs[4], *ss[6];
	} t;
	int rc;

	/* A SuperSpeed bulk packet (1024) must fit in one buffer of the ring:
	 * a smaller buflen could not run at SuperSpeed, so it is refused here
	 * rather than at SET_CONFIGURATION. */
	if (gadget_is_superspeed(gadget) && (drv == USB_SPEED_UNKNOWN || drv >= USB_SPEED_SUPER) &&
	    fsg->common->buflen < FSG_BUFLEN_MIN_SUPER)
		return -USB_EINVAL;
	/* A registry instance's common is created before any device exists. */
	msf__os_lock(fsg->common->os);
	fsg->common->cdev = c->cdev;
	msf__os_unlock(fsg->common->os);
	rc = usb_interface_id(c, f);
	if (rc < 0)
		return rc;
	fsg->interface_number = (uint8_t)rc;

	/* Full speed: 64-byte packets; high speed 512, SuperSpeed 1024. */
	rc = fn_bulk_pair_bind(&t.pair, gadget, 64);
	if (rc)
		return rc;
	fsg->bulk_in = t.pair.in;
	fsg->bulk_out = t.pair.out;
	fsg->bulk_in->driver_data = fsg->common;
	fsg->bulk_out->driver_data = fsg->common;

	fsg->strings[0].s = "Mass Storage";
	fsg->strings[1].s = NULL;
	fsg->stringtab.language = USB_LANGID_EN_US;
	fsg->stringtab.strings = fsg->strings;
	fsg->stringtabs[0] = &fsg->stringtab;
	fsg->stringtabs[1] = NULL;
	rc = usb_string_ids_tab(c->cdev, fsg->strings);
	/* Linux attaches ARRAY_SIZE(fsg_strings) strings: the table's
	 * terminator takes an id too (an empty string). Take it, so the ids
	 * after this function's are the kernel's. */
	if (rc == 0 && (rc = usb_string_id(c->cdev)) > 0)
		rc = 0;
	if (rc)
		goto fail_out;
	f->strings = fsg->stringtabs;

	t.intf = (struct usb_interface_descriptor){
		.bLength = USB_DT_INTERFACE_SIZE,
		.bDescriptorType = USB_DT_INTERFACE,
		.bInterfaceNumber = fsg->interface_number,
		.bNumEndpoints = 2,
		.bInterfaceClass = USB_CLASS_MASS_STORAGE,
		.bInterfaceSubClass = 0x06,	/* SCSI transparent */
		.bInterfaceProtocol = 0x50,	/* Bulk-Only */
		.iInterface = fsg->strings[0].id,
	};
	/* As Linux's fsg_hs_bulk_out_desc: "NAK every 1 uframe". */
	t.pair.hs_out.bInterval = 1;
	t.fs[0] = t.hs[0] = t.ss[0] = (struct usb_descriptor_header *)&t.intf;
	t.fs[1 + fn_bulk_pair_descs(&t.pair, USB_SPEED_FULL, t.fs + 1)] = NULL;
	t.hs[1 + fn_bulk_pair_descs(&t.pair, USB_SPEED_HIGH, t.hs + 1)] = NULL;
#ifdef COMPOSITE_NO_SUPERSPEED
	rc = usb_assign_descriptors(f, t.fs, t.hs, NULL, NULL);
#else
	t.ss[1 + fn_bulk_pair_descs(&t.pair, USB_SPEED_SUPER, t.ss + 1)] = NULL;
	rc = usb_assign_descriptors(f, t.fs, t.hs, t.ss, NULL);
#endif
	if (rc)
		goto fail_out;
	rc = alloc_requests(fsg);
	if (rc)
		goto fail_descs;
	return 0;

fail_descs:
	usb_free_all_descriptors(f);
fail_out:
	fn_bulk_pair_release(&t.pair);
	fsg->bulk_in = fsg->bulk_out = NULL;
	return rc;
}

/* Polled fsg_unbind(): the instance being unbound (one at a time: unbind
 * runs in the one context that drives the polled worker). */
static struct fsg_dev *unbind_fsg;

static bool fsg_released(struct msf_common *common)
{
	return common->fsg != unbind_fsg || common->worker_done;
}

static void fsg_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct fsg_dev *fsg = fsg_from_func(f);
	struct msf_common *common = fsg->common;

	(void)c;
	/*
	 * The worker must let go of this instance's endpoints before it is
	 * freed. From the worker itself (thread_exits) it already has.
	 */
	msf__os_lock(common->os);
	if (common->new_fsg == fsg)
		common->new_fsg = NULL;
	if (common->polled) {
		/* No thread to wait for: run the worker here until it let go. */
		if (common->fsg == fsg && common->state < MSF_STATE_CONFIG_CHANGE)
			common->state = MSF_STATE_CONFIG_CHANGE;
		msf__os_unlock(common->os);
		unbind_fsg = fsg;
		msf__worker_run_until(common, fsg_released);
		unbind_fsg = NULL;
		msf__os_lock(common->os);
	} else if (!msf__os_in_thread(common->os)) {
		while (common->fsg == fsg && !common->worker_done) {
			if (common->state < MSF_STATE_CONFIG_CHANGE)
				common->state = MSF_STATE_CONFIG_CHANGE;
			msf__os_wake(common->os);
			msf__os_wait(common->os);
		}
	}
	msf__os_unlock(common->os);
	free_requests(fsg);
	usb_free_all_descriptors(f);
}

static void fsg_free_func(struct usb_function *f)
{
	struct fsg_dev *fsg = fsg_from_func(f);
	struct msf_common *common = fsg->common;

	composite__free(fsg);
	msf__common_put(common);
}

static int fsg_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct fsg_dev *fsg = fsg_from_func(f);
	struct msf_common *common = fsg->common;
	int rc = USB_GADGET_DELAYED_STATUS;

	(void)interface;
	if (alt != 0)
		return -USB_EINVAL;
	msf__os_lock(common->os);
	if (common->state >= MSF_STATE_EXIT || common->worker_done) {
		rc = -USB_ESHUTDOWN;	/* the worker is gone: refuse */
	} else {
		common->new_fsg = fsg;
		common->ep0_delayed = true;
		common->state = MSF_STATE_CONFIG_CHANGE;
		msf__os_wake(common->os);
	}
	msf__os_unlock(common->os);
	return rc;
}

static int fsg_get_alt(struct usb_function *f, unsigned interface)
{
	(void)f;
	(void)interface;
	return 0;
}

static void fsg_disable(struct usb_function *f)
{
	struct fsg_dev *fsg = fsg_from_func(f);
	struct msf_common *common = fsg->common;

	/* As Linux's fsg_disable(): the endpoints go now, so that another
	 * configuration's functions can enable them before the worker runs. */
	msf__disable_eps(fsg);
	msf__os_lock(common->os);
	common->new_fsg = NULL;
	common->ep0_delayed = false;
	if (common->state < MSF_STATE_CONFIG_CHANGE)
		common->state = MSF_STATE_CONFIG_CHANGE;
	msf__os_wake(common->os);
	msf__os_unlock(common->os);
}

static int fsg_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct fsg_dev *fsg = fsg_from_func(f);
	struct msf_common *common = fsg->common;
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	uint16_t w_index = USB_LE16_TO_CPU(ctrl->wIndex);
	uint16_t w_value = USB_LE16_TO_CPU(ctrl->wValue);
	uint16_t w_length = USB_LE16_TO_CPU(ctrl->wLength);
	struct usb_request *req;
	int rc;

	if ((ctrl->bRequestType & USB_TYPE_MASK) != USB_TYPE_CLASS || !cdev)
		return -USB_EOPNOTSUPP;

	switch (ctrl->bRequest) {
	case MSF_REQ_RESET:
		if (ctrl->bRequestType != (USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE))
			return -USB_EOPNOTSUPP;
		if (w_index != fsg->interface_number || w_value != 0 || w_length != 0)
			return -USB_EDOM;
		/* Reset Recovery runs in the worker; the status stage waits for it. */
		msf__os_lock(common->os);
		if (common->state >= MSF_STATE_EXIT || common->worker_done) {
			rc = -USB_ESHUTDOWN;
		} else {
			common->ep0_delayed = true;
			if (common->state < MSF_STATE_PROTOCOL_RESET)
				common->state = MSF_STATE_PROTOCOL_RESET;
			msf__os_wake(common->os);
			rc = USB_GADGET_DELAYED_STATUS;
		}
		msf__os_unlock(common->os);
		return rc;

	case MSF_REQ_GET_MAX_LUN:
		if (ctrl->bRequestType != (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE))
			return -USB_EOPNOTSUPP;
		if (w_index != fsg->interface_number || w_value != 0 || w_length != 1)
			return -USB_EDOM;
		req = cdev->req;
		((uint8_t *)req->buf)[0] = (uint8_t)(common->nluns - 1);
		req->length = 1;
		req->zero = 0;
		req->complete = ep0_complete;
		rc = usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
		return rc < 0 ? rc : 0;

	default:
		return -USB_EOPNOTSUPP;
	}
}

struct usb_function *msf__alloc_function(struct msf_common *common)
{
	unsigned n = common->fsg_num_buffers;
	struct fsg_dev *fsg = composite__calloc(1, sizeof(*fsg) + 2u * n * sizeof(fsg->reqs[0]));

	if (!fsg)
		return NULL;
	fsg->common = common;
	fsg->nreqs = n;
	fsg->inreqs = fsg->reqs;
	fsg->outreqs = fsg->reqs + n;
	fsg->function.name = "mass_storage";
	fsg->function.bind = fsg_bind;
	fsg->function.unbind = fsg_unbind;
	fsg->function.free_func = fsg_free_func;
	fsg->function.set_alt = fsg_set_alt;
	fsg->function.get_alt = fsg_get_alt;
	fsg->function.disable = fsg_disable;
	fsg->function.setup = fsg_setup;
	msf__common_get(common);
	return &fsg->function;
}

int msf__add(struct usb_composite_dev *cdev, struct usb_configuration *c,
	    struct msf_common *common)
{
	struct usb_function *f;
	int rc;

	if (!cdev || !c || !common || (c->cdev && c->cdev != cdev))
		return -USB_EINVAL;
	f = msf__alloc_function(common);
	if (!f)
		return -USB_ENOMEM;
	rc = usb_add_function(c, f);
	if (rc)
		fsg_free_func(f);
	return rc;
}
