/*
 * f_sourcesink.c - the SourceSink function (include/composite/sourcesink.h).
 *
 * Owns one instance's descriptors, endpoints, requests and buffers, its
 * vendor-request buffer and its counters. Written only against the public
 * function API (composite/function.h, gadget.h): it touches nothing of the
 * core's but what those headers document, and nothing of the backend's.
 *
 * All callbacks run in the backend's event context, one at a time
 * (composite.h "Thread model"), so the instance's state needs no lock; only
 * the counters are atomic, because sourcesink_get_stats() may be called from
 * any thread.
 *
 * Requests: each endpoint has a pool of qlen requests and buffers,
 * allocated at bind (sized for the fastest speed the gadget can run) and
 * freed at unbind, so nothing is allocated after bind; set_alt queues the
 * pool, usb_ep_disable() gives every request back (with USB_ESHUTDOWN),
 * and no request is ever freed inside its completion.
 */
#include <stdatomic.h>
#include <string.h>

#include "composite/sourcesink.h"
#include "functions/common/bulk_pair.h"
#include "port/alloc.h"

#define SS_MAX_BUFLEN	(1024u * 1024u)
#define SS_MAX_QLEN	256u
#define SS_STALE_BYTE	0x55	/* OUT buffers are refilled with this */

struct f_sourcesink;

/* One endpoint and its request pool. */
struct ss_ep {
	struct f_sourcesink *ss;
	struct usb_ep *ep;
	struct usb_request **reqs;
	unsigned nreqs;
	bool is_in;
	bool is_iso;
	bool enabled;		/* between enable and disable: requeue */
	atomic_uint_least64_t *bytes;
};

struct f_sourcesink {
	struct usb_function function;
	struct f_ss_opts opts;

	struct ss_ep bulk_in, bulk_out, iso_in, iso_out;
	bool has_iso;
	int cur_alt;		/* -1: disabled */

	/* Descriptor templates, filled in bind; usb_assign_descriptors()
	 * copies them, so each instance may keep its own. */
	struct usb_interface_descriptor intf_alt0, intf_alt1;
	struct fn_bulk_pair pair;	/* bulk_in.ep/bulk_out.ep and their descriptors */
	struct usb_endpoint_descriptor fs_iso_in, fs_iso_out;
	struct usb_endpoint_descriptor hs_iso_in, hs_iso_out;
	struct usb_endpoint_descriptor ss_iso_in, ss_iso_out;
	struct usb_ss_ep_comp_descriptor ss_iso_in_comp, ss_iso_out_comp;
	struct usb_descriptor_header *fs_descs[9];
	struct usb_descriptor_header *hs_descs[9];
	struct usb_descriptor_header *ss_descs[15];

	struct usb_string strings[2];
	struct usb_gadget_strings stringtab;
	struct usb_gadget_strings *stringtabs[2];

	/* Vendor requests 0x5b/0x5c: a copy of the data, so that requests
	 * the core answers in between (descriptors...) cannot clobber it. */
	uint8_t ctrl_buf[USB_COMP_EP0_BUFSIZ];
	bool ctrl_write_pending;

	atomic_uint_least64_t in_bytes, out_bytes, iso_in_bytes, iso_out_bytes;
	atomic_uint_least64_t bad_packets, ctrl_writes, ctrl_reads;
	atomic_int stat_alt;
};

static struct f_sourcesink *func_to_ss(struct usb_function *f)
{
	return usb_container_of(f, struct f_sourcesink, function);
}

/* ---- options ------------------------------------------------------------ */

void f_ss_opts_init(struct f_ss_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->pattern = SS_PATTERN_ZERO;
	opts->isoc_interval = GZERO_ISOC_INTERVAL;
	opts->isoc_maxpacket = GZERO_ISOC_MAXPACKET;
	opts->bulk_buflen = GZERO_BULK_BUFLEN;
	opts->bulk_qlen = GZERO_SS_BULK_QLEN;
	opts->iso_qlen = GZERO_SS_ISO_QLEN;
}

int f_ss_opts_check(const struct f_ss_opts *o)
{
	if (!o || o->pattern > SS_PATTERN_NONE)
		return -USB_EINVAL;
	if (o->isoc_interval < 1 || o->isoc_interval > 16)
		return -USB_EINVAL;
	if (o->isoc_maxpacket > 1024 || o->isoc_mult > 2 || o->isoc_maxburst > 15)
		return -USB_EINVAL;
	if (o->bulk_buflen < 1 || o->bulk_buflen > SS_MAX_BUFLEN)
		return -USB_EINVAL;
	if (o->bulk_qlen < 1 || o->bulk_qlen > SS_MAX_QLEN ||
	    o->iso_qlen < 1 || o->iso_qlen > SS_MAX_QLEN)
		return -USB_EINVAL;
	return 0;
}

/* ---- data patterns ------------------------------------------------------- */

/* The pattern restarts at every packet, so it survives any split of a
 * transfer into requests on packet boundaries (as Linux's does). */
static unsigned ep_maxpacket(const struct usb_ep *ep)
{
	unsigned mp = ep->desc ? (USB_LE16_TO_CPU(ep->desc->wMaxPacketSize) & 0x7ffu) : 0;

	return mp ? mp : 64u;
}

static void fill_in_data(const struct f_sourcesink *ss, struct usb_ep *ep,
			 struct usb_request *req)
{
	uint8_t *buf = req->buf;
	unsigned mp = ep_maxpacket(ep);

	switch (ss->opts.pattern) {
	case SS_PATTERN_ZERO:
		memset(buf, 0, req->length);
		break;
	case SS_PATTERN_MOD63:
		for (unsigned i = 0; i < req->length; i++)
			buf[i] = (uint8_t)((i % mp) % 63u);
		break;
	default:
		break;
	}
}

/* Return: true if the received bytes follow the pattern. */
static bool check_out_data(const struct f_sourcesink *ss, struct usb_ep *ep,
			   const struct usb_request *req)
{
	const uint8_t *buf = req->buf;
	unsigned mp = ep_maxpacket(ep);

	switch (ss->opts.pattern) {
	case SS_PATTERN_ZERO:
		for (unsigned i = 0; i < req->actual; i++)
			if (buf[i] != 0)
				return false;
		return true;
	case SS_PATTERN_MOD63:
		for (unsigned i = 0; i < req->actual; i++)
			if (buf[i] != (uint8_t)((i % mp) % 63u))
				return false;
		return true;
	default:
		return true;
	}
}

/* ---- endpoints and their requests ---------------------------------------- */

static void ss_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct ss_ep *sep = req->context;
	struct f_sourcesink *ss = sep->ss;

	switch (req->status) {
	case 0:
		atomic_fetch_add(sep->bytes, req->actual);
		if (sep == &ss->bulk_out && ss->opts.pattern != SS_PATTERN_NONE) {
			if (!check_out_data(ss, ep, req)) {
				/* As Linux: the host sees a stall on its next
				 * OUT transfer and must clear the halt. */
				atomic_fetch_add(&ss->bad_packets, 1);
				(void)usb_ep_set_halt(ep);
			}
			memset(req->buf, SS_STALE_BYTE, req->length);
		}
		break;
	case -USB_ESHUTDOWN:
	case -USB_ECONNABORTED:
		/* Endpoint disabled or device gone: the request rests in the
		 * pool until the disable frees it. */
		return;
	default:
		/* Short read (USB_EREMOTEIO), overflow, a request cancelled by
		 * the backend for a host-side unlink (USB_ECONNRESET): keep
		 * the endpoint fed. */
		break;
	}
	if (!sep->enabled)
		return;
	/* On failure the device is going away (USB_ESHUTDOWN): leave the
	 * request idle; the next set_alt queues the pool again. */
	(void)usb_ep_queue(ep, req, USB_GFP_ATOMIC);
}

/* The endpoint's pool, allocated at bind: @qlen requests of @size bytes
 * (the most any speed of the gadget needs), kept until unbind. */
static int ss_ep_alloc(struct ss_ep *sep, unsigned qlen, unsigned size)
{
	sep->reqs = composite__calloc(qlen, sizeof(*sep->reqs));
	if (!sep->reqs)
		return -USB_ENOMEM;
	for (unsigned i = 0; i < qlen; i++) {
		struct usb_request *req = usb_ep_alloc_request(sep->ep, USB_GFP_KERNEL);

		if (!req)
			return -USB_ENOMEM;
		sep->reqs[i] = req;
		sep->nreqs = i + 1;
		req->buf = composite__malloc(size ? size : 1);
		if (!req->buf)
			return -USB_ENOMEM;
		req->complete = ss_complete;
		req->context = sep;
	}
	return 0;
}

/* Unbind (or a failed bind): the endpoint is disabled, so no request is
 * queued; give the pool back. */
static void ss_ep_free(struct ss_ep *sep)
{
	for (unsigned i = 0; i < sep->nreqs; i++) {
		composite__free(sep->reqs[i]->buf);
		usb_ep_free_request(sep->ep, sep->reqs[i]);
	}
	composite__free(sep->reqs);
	sep->reqs = NULL;
	sep->nreqs = 0;
}

/* usb_ep_disable() gives every queued request back (USB_ESHUTDOWN) before
 * it returns; the requests then rest in the pool for the next start. */
static void ss_ep_stop(struct ss_ep *sep)
{
	if (!sep->ep)
		return;
	if (sep->enabled || sep->ep->enabled) {
		sep->enabled = false;
		(void)usb_ep_disable(sep->ep);
	}
}

/* Enable the endpoint for the current speed and queue its whole pool,
 * @size bytes per request (at most what ss_ep_alloc() gave). */
static int ss_ep_start(struct f_sourcesink *ss, struct ss_ep *sep, unsigned size)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&ss->function);
	int ret;

	ret = config_ep_by_speed(cdev->gadget, &ss->function, sep->ep);
	if (ret)
		return ret;
	ret = usb_ep_enable(sep->ep);
	if (ret)
		return ret;
	sep->ep->driver_data = ss;
	sep->enabled = true;
	for (unsigned i = 0; i < sep->nreqs; i++) {
		struct usb_request *req = sep->reqs[i];

		req->length = size;
		if (sep->is_in)
			fill_in_data(ss, sep->ep, req);
		else if (ss->opts.pattern != SS_PATTERN_NONE)
			memset(req->buf, SS_STALE_BYTE, size);
		ret = usb_ep_queue(sep->ep, req, USB_GFP_ATOMIC);
		if (ret) {
			ss_ep_stop(sep);
			return ret;
		}
	}
	return 0;
}

/* Bytes per iso request: one service interval's worth, as Linux. */
static unsigned iso_request_size(const struct f_sourcesink *ss, enum usb_device_speed speed)
{
	const struct f_ss_opts *o = &ss->opts;

	switch (speed) {
	case USB_SPEED_SUPER_PLUS:
	case USB_SPEED_SUPER:
		return o->isoc_maxpacket * (o->isoc_mult + 1) * (o->isoc_maxburst + 1);
	case USB_SPEED_HIGH:
		return o->isoc_maxpacket * (o->isoc_mult + 1);
	default:
		return o->isoc_maxpacket > 1023 ? 1023 : o->isoc_maxpacket;
	}
}

static void ss_stop_all(struct f_sourcesink *ss)
{
	ss_ep_stop(&ss->bulk_in);
	ss_ep_stop(&ss->bulk_out);
	ss_ep_stop(&ss->iso_in);
	ss_ep_stop(&ss->iso_out);
	ss->cur_alt = -1;
	atomic_store(&ss->stat_alt, -1);
}

static int ss_start(struct f_sourcesink *ss, unsigned alt)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&ss->function);
	const struct f_ss_opts *o = &ss->opts;
	unsigned iso_size;
	int ret;

	ret = ss_ep_start(ss, &ss->bulk_in, o->bulk_buflen);
	if (ret)
		goto fail;
	ret = ss_ep_start(ss, &ss->bulk_out, o->bulk_buflen);
	if (ret)
		goto fail;
	if (alt == 1) {
		iso_size = iso_request_size(ss, cdev->gadget->speed);
		ret = ss_ep_start(ss, &ss->iso_in, iso_size);
		if (ret)
			goto fail;
		ret = ss_ep_start(ss, &ss->iso_out, iso_size);
		if (ret)
			goto fail;
	}
	ss->cur_alt = (int)alt;
	atomic_store(&ss->stat_alt, (int)alt);
	return 0;

fail:
	ss_stop_all(ss);
	return ret;
}

/* ---- usb_function callbacks ---------------------------------------------- */

static int ss_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct f_sourcesink *ss = func_to_ss(f);

	(void)interface;
	if (alt > 1 || (alt == 1 && !ss->has_iso))
		return -USB_EINVAL;
	/* SET_INTERFACE to the current alternate resets it too (and resyncs
	 * the mod63 pattern), as on Linux. */
	ss_stop_all(ss);
	return ss_start(ss, alt);
}

static int ss_get_alt(struct usb_function *f, unsigned interface)
{
	struct f_sourcesink *ss = func_to_ss(f);

	(void)interface;
	return ss->cur_alt < 0 ? 0 : ss->cur_alt;
}

static void ss_disable(struct usb_function *f)
{
	ss_stop_all(func_to_ss(f));
}

static void ss_ctrl_write_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_sourcesink *ss = req->context;

	(void)ep;
	if (!ss->ctrl_write_pending)
		return;
	ss->ctrl_write_pending = false;
	if (req->status == 0 && req->actual <= sizeof(ss->ctrl_buf)) {
		memcpy(ss->ctrl_buf, req->buf, req->actual);
		atomic_fetch_add(&ss->ctrl_writes, 1);
	}
}

static void ss_ctrl_read_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_sourcesink *ss = req->context;

	(void)ep;
	if (req->status == 0)
		atomic_fetch_add(&ss->ctrl_reads, 1);
}

/* Recipient device: the core asks every function of the configuration. */
static bool ss_req_match(struct usb_function *f, const struct usb_ctrlrequest *ctrl,
			 bool config0)
{
	(void)f;
	if (config0 || (ctrl->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR)
		return false;
	return ctrl->bRequest == GZERO_REQ_CTRL_WRITE ||
	       ctrl->bRequest == GZERO_REQ_CTRL_READ;
}

/*
 * 0x5b / 0x5c as Linux's f_sourcesink answers them: the exact
 * bRequestType (vendor, recipient device), wValue and wIndex 0, wLength up
 * to the ep0 buffer (4096); anything else stalls.
 */
static int ss_setup(struct usb_function *f, const struct usb_ctrlrequest *ctrl)
{
	struct f_sourcesink *ss = func_to_ss(f);
	struct usb_composite_dev *cdev = usb_function_cdev(f);
	struct usb_request *req = cdev->req;
	uint16_t w_value = USB_LE16_TO_CPU(ctrl->wValue);
	uint16_t w_index = USB_LE16_TO_CPU(ctrl->wIndex);
	uint16_t w_length = USB_LE16_TO_CPU(ctrl->wLength);
	int ret;

	if (w_value || w_index || w_length > USB_COMP_EP0_BUFSIZ)
		return -USB_EOPNOTSUPP;
	switch (ctrl->bRequest) {
	case GZERO_REQ_CTRL_WRITE:
		if (ctrl->bRequestType != (USB_DIR_OUT | USB_TYPE_VENDOR))
			return -USB_EOPNOTSUPP;
		req->complete = ss_ctrl_write_complete;
		ss->ctrl_write_pending = true;
		break;
	case GZERO_REQ_CTRL_READ:
		if (ctrl->bRequestType != (USB_DIR_IN | USB_TYPE_VENDOR))
			return -USB_EOPNOTSUPP;
		memcpy(req->buf, ss->ctrl_buf, w_length);
		req->complete = ss_ctrl_read_complete;
		break;
	default:
		return -USB_EOPNOTSUPP;
	}
	req->context = ss;
	req->length = w_length;
	req->zero = 0;
	ret = usb_ep_queue(cdev->gadget->ep0, req, USB_GFP_ATOMIC);
	if (ret < 0) {
		ss->ctrl_write_pending = false;
		return ret;
	}
	return w_length;
}

static void ss_init_descriptors(struct f_sourcesink *ss)
{
	static const struct usb_interface_descriptor intf = {
		.bLength = USB_DT_INTERFACE_SIZE,
		.bDescriptorType = USB_DT_INTERFACE,
		.bInterfaceClass = USB_CLASS_VENDOR_SPEC,
	};
	static const struct usb_endpoint_descriptor ep = {
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
	};
	static const struct usb_ss_ep_comp_descriptor comp = {
		.bLength = USB_DT_SS_EP_COMP_SIZE,
		.bDescriptorType = USB_DT_SS_ENDPOINT_COMP,
	};
	struct usb_endpoint_descriptor *all[] = {
		&ss->fs_iso_in, &ss->fs_iso_out, &ss->hs_iso_in, &ss->hs_iso_out,
		&ss->ss_iso_in, &ss->ss_iso_out,
	};

	ss->intf_alt0 = intf;
	ss->intf_alt0.bNumEndpoints = 2;
	ss->intf_alt1 = intf;
	ss->intf_alt1.bAlternateSetting = 1;
	ss->intf_alt1.bNumEndpoints = 4;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		*all[i] = ep;
	ss->fs_iso_in.bEndpointAddress = USB_DIR_IN;
	ss->fs_iso_out.bEndpointAddress = USB_DIR_OUT;
	ss->fs_iso_in.bmAttributes = ss->fs_iso_out.bmAttributes = USB_ENDPOINT_XFER_ISOC;
	ss->ss_iso_in_comp = ss->ss_iso_out_comp = comp;
}

/* The per-speed copies of the full-speed iso descriptors autoconfig
 * filled (the bulk pair has its own, bulk_pair.c). */
static void ss_fill_speeds(struct f_sourcesink *ss)
{
	const struct f_ss_opts *o = &ss->opts;
	uint16_t hs_iso_mp = (uint16_t)(o->isoc_maxpacket | (o->isoc_mult << 11));
	uint16_t bpi = (uint16_t)(o->isoc_maxpacket * (o->isoc_mult + 1) *
				  (o->isoc_maxburst + 1));

	ss->hs_iso_in = ss->fs_iso_in;
	ss->hs_iso_out = ss->fs_iso_out;
	ss->hs_iso_in.wMaxPacketSize = ss->hs_iso_out.wMaxPacketSize = USB_CPU_TO_LE16(hs_iso_mp);
	ss->ss_iso_in = ss->fs_iso_in;
	ss->ss_iso_out = ss->fs_iso_out;
	ss->ss_iso_in.wMaxPacketSize = ss->ss_iso_out.wMaxPacketSize =
		USB_CPU_TO_LE16((uint16_t)o->isoc_maxpacket);
	ss->ss_iso_in_comp.bmAttributes = ss->ss_iso_out_comp.bmAttributes =
		(uint8_t)o->isoc_mult;
	ss->ss_iso_in_comp.bMaxBurst = ss->ss_iso_out_comp.bMaxBurst =
		(uint8_t)o->isoc_maxburst;
	ss->ss_iso_in_comp.wBytesPerInterval = ss->ss_iso_out_comp.wBytesPerInterval =
		USB_CPU_TO_LE16(bpi);
}

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

/* Alternate 0: the bulk pair; alternate 1 (with iso): the pair again and
 * the iso pair. */
static void ss_build_list(struct f_sourcesink *ss, enum usb_device_speed speed,
			  struct usb_descriptor_header **v)
{
	*v++ = DH(&ss->intf_alt0);
	v += fn_bulk_pair_descs(&ss->pair, speed, v);
	if (ss->has_iso) {
		*v++ = DH(&ss->intf_alt1);
		v += fn_bulk_pair_descs(&ss->pair, speed, v);
		if (speed >= USB_SPEED_SUPER) {
			*v++ = DH(&ss->ss_iso_in); *v++ = DH(&ss->ss_iso_in_comp);
			*v++ = DH(&ss->ss_iso_out); *v++ = DH(&ss->ss_iso_out_comp);
		} else if (speed == USB_SPEED_HIGH) {
			*v++ = DH(&ss->hs_iso_in); *v++ = DH(&ss->hs_iso_out);
		} else {
			*v++ = DH(&ss->fs_iso_in); *v++ = DH(&ss->fs_iso_out);
		}
	}
	*v = NULL;
}

static void ss_build_lists(struct f_sourcesink *ss)
{
	ss_build_list(ss, USB_SPEED_FULL, ss->fs_descs);
	ss_build_list(ss, USB_SPEED_HIGH, ss->hs_descs);
	ss_build_list(ss, USB_SPEED_SUPER, ss->ss_descs);
}

static void ss_free_pools(struct f_sourcesink *ss)
{
	ss_ep_free(&ss->bulk_in);
	ss_ep_free(&ss->bulk_out);
	ss_ep_free(&ss->iso_in);
	ss_ep_free(&ss->iso_out);
}

/* Every pool at bind, the iso ones sized for the fastest speed @gadget
 * can run (iso_request_size() grows with the speed). On failure the
 * caller frees what was taken (ss_free_pools()). */
static int ss_alloc_pools(struct f_sourcesink *ss, const struct usb_gadget *gadget)
{
	const struct f_ss_opts *o = &ss->opts;
	enum usb_device_speed top = gadget_is_superspeed(gadget) ? USB_SPEED_SUPER
				    : gadget_is_dualspeed(gadget) ? USB_SPEED_HIGH
				    : USB_SPEED_FULL;
	unsigned iso_size = iso_request_size(ss, top);
	int ret;

	ret = ss_ep_alloc(&ss->bulk_in, o->bulk_qlen, o->bulk_buflen);
	if (ret == 0)
		ret = ss_ep_alloc(&ss->bulk_out, o->bulk_qlen, o->bulk_buflen);
	if (ret == 0 && ss->has_iso)
		ret = ss_ep_alloc(&ss->iso_in, o->iso_qlen, iso_size);
	if (ret == 0 && ss->has_iso)
		ret = ss_ep_alloc(&ss->iso_out, o->iso_qlen, iso_size);
	return ret;
}

static int ss_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_sourcesink *ss = func_to_ss(f);
	struct usb_gadget *gadget = c->cdev->gadget;
	const struct f_ss_opts *o = &ss->opts;
	int id, ret;

	ss_init_descriptors(ss);
	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	ss->intf_alt0.bInterfaceNumber = ss->intf_alt1.bInterfaceNumber = (uint8_t)id;

	ret = usb_string_ids_tab(c->cdev, ss->strings);
	if (ret < 0)
		return ret;
	ss->intf_alt0.iInterface = ss->intf_alt1.iInterface = ss->strings[0].id;

	ret = fn_bulk_pair_bind(&ss->pair, gadget, 0);
	if (ret)
		return ret;
	ss->bulk_in.ep = ss->pair.in;
	ss->bulk_out.ep = ss->pair.out;

	/* Alternate setting 1 only where the backend has two iso endpoints;
	 * without them the function still works with alternate 0 (Linux). */
	ss->has_iso = false;
	if (!o->no_iso) {
		uint16_t fs_mp = (uint16_t)(o->isoc_maxpacket > 1023 ? 1023 : o->isoc_maxpacket);

		ss->fs_iso_in.wMaxPacketSize = ss->fs_iso_out.wMaxPacketSize = USB_CPU_TO_LE16(fs_mp);
		ss->fs_iso_in.bInterval = ss->fs_iso_out.bInterval = (uint8_t)o->isoc_interval;
		ss->iso_in.ep = usb_ep_autoconfig(gadget, &ss->fs_iso_in);
		if (ss->iso_in.ep) {
			ss->iso_out.ep = usb_ep_autoconfig(gadget, &ss->fs_iso_out);
			if (!ss->iso_out.ep) {
				usb_ep_autoconfig_release(ss->iso_in.ep);
				ss->iso_in.ep = NULL;
			}
		}
		ss->has_iso = ss->iso_in.ep && ss->iso_out.ep;
	}

	ss_fill_speeds(ss);
	ss_build_lists(ss);
	ret = usb_assign_descriptors(f, ss->fs_descs, ss->hs_descs, ss->ss_descs,
				     ss->ss_descs);
	if (ret)
		goto release_all;
	ret = ss_alloc_pools(ss, gadget);
	if (ret)
		goto free_all;
	return 0;

free_all:
	ss_free_pools(ss);
	usb_free_all_descriptors(f);
release_all:
	if (ss->has_iso) {
		usb_ep_autoconfig_release(ss->iso_out.ep);
		usb_ep_autoconfig_release(ss->iso_in.ep);
	}
	ss->iso_in.ep = ss->iso_out.ep = NULL;
	ss->has_iso = false;
	fn_bulk_pair_release(&ss->pair);
	ss->bulk_in.ep = ss->bulk_out.ep = NULL;
	return ret;
}

static void ss_unbind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_sourcesink *ss = func_to_ss(f);

	(void)c;
	ss_stop_all(ss);	/* normally done by disable already */
	ss_free_pools(ss);
	usb_free_all_descriptors(f);
}

static void ss_free_func(struct usb_function *f)
{
	composite__free(func_to_ss(f));
}

/* ---- public calls -------------------------------------------------------- */

int sourcesink_alloc(const struct f_ss_opts *opts, struct usb_function **out)
{
	struct f_sourcesink *ss;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = f_ss_opts_check(opts);
	if (ret)
		return ret;
	ss = composite__calloc(1, sizeof(*ss));
	if (!ss)
		return -USB_ENOMEM;
	ss->opts = *opts;
	ss->cur_alt = -1;
	atomic_init(&ss->stat_alt, -1);
	ss->bulk_in = (struct ss_ep){ .ss = ss, .is_in = true, .bytes = &ss->in_bytes };
	ss->bulk_out = (struct ss_ep){ .ss = ss, .bytes = &ss->out_bytes };
	ss->iso_in = (struct ss_ep){ .ss = ss, .is_in = true, .is_iso = true,
				     .bytes = &ss->iso_in_bytes };
	ss->iso_out = (struct ss_ep){ .ss = ss, .is_iso = true, .bytes = &ss->iso_out_bytes };

	ss->strings[0].s = "source and sink data";
	ss->stringtab.language = USB_LANGID_EN_US;
	ss->stringtab.strings = ss->strings;
	ss->stringtabs[0] = &ss->stringtab;

	ss->function.name = "source/sink";
	ss->function.strings = ss->stringtabs;
	ss->function.bind = ss_bind;
	ss->function.unbind = ss_unbind;
	ss->function.free_func = ss_free_func;
	ss->function.set_alt = ss_set_alt;
	ss->function.get_alt = ss_get_alt;
	ss->function.disable = ss_disable;
	ss->function.setup = ss_setup;
	ss->function.req_match = ss_req_match;
	*out = &ss->function;
	return 0;
}

void sourcesink_free(struct usb_function *f)
{
	if (f && sourcesink_is(f))
		composite__free(func_to_ss(f));
}

bool sourcesink_is(const struct usb_function *f)
{
	return f && f->bind == ss_bind;
}

void sourcesink_get_stats(struct usb_function *f, struct f_ss_stats *st)
{
	struct f_sourcesink *ss = func_to_ss(f);

	st->in_bytes = atomic_load(&ss->in_bytes);
	st->out_bytes = atomic_load(&ss->out_bytes);
	st->iso_in_bytes = atomic_load(&ss->iso_in_bytes);
	st->iso_out_bytes = atomic_load(&ss->iso_out_bytes);
	st->bad_packets = atomic_load(&ss->bad_packets);
	st->ctrl_writes = atomic_load(&ss->ctrl_writes);
	st->ctrl_reads = atomic_load(&ss->ctrl_reads);
	st->cur_alt = atomic_load(&ss->stat_alt);
	st->has_iso = ss->has_iso;
}
