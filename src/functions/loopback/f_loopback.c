/*
 * f_loopback.c - the Loopback function (include/composite/f_loopback.h).
 *
 * Owns one instance's descriptors, its two bulk endpoints and qlen pairs of
 * requests that share one buffer: the OUT request receives into it, its IN
 * partner sends the same bytes back, then the OUT request is queued again.
 * Written only against the public function API.
 *
 * Every callback runs in the backend's event context, one at a time, so the
 * state needs no lock; the counters are atomic for loopback_get_stats().
 * The pairs are allocated at bind and freed at unbind (nothing is
 * allocated after bind), only after usb_ep_disable() has given every
 * request back.
 */
#include <stdatomic.h>
#include <string.h>

#include "composite/f_loopback.h"
#include "functions/common/bulk_pair.h"
#include "port/alloc.h"

#define LB_DEFAULT_BUFLEN	4096u
#define LB_DEFAULT_QLEN		32u
#define LB_MAX_BUFLEN		(1024u * 1024u)
#define LB_MAX_QLEN		256u

struct f_loopback;

/* One buffer: received by @out, echoed by @in. */
struct lb_pair {
	struct f_loopback *loop;
	struct usb_request *out;
	struct usb_request *in;
};

struct f_loopback {
	struct usb_function function;
	struct f_lb_opts opts;

	struct usb_ep *in_ep, *out_ep;
	struct lb_pair *pairs;
	unsigned npairs;
	bool enabled;		/* requeue on completion */

	struct usb_interface_descriptor intf;
	struct fn_bulk_pair pair;	/* in_ep/out_ep and their descriptors */
	struct usb_descriptor_header *fs_descs[4], *hs_descs[4], *ss_descs[6];

	struct usb_string strings[2];
	struct usb_gadget_strings stringtab;
	struct usb_gadget_strings *stringtabs[2];

	atomic_uint_least64_t in_bytes, out_bytes;
	atomic_bool stat_enabled;
};

static struct f_loopback *func_to_loop(struct usb_function *f)
{
	return usb_container_of(f, struct f_loopback, function);
}

void f_lb_opts_init(struct f_lb_opts *opts)
{
	opts->bulk_buflen = LB_DEFAULT_BUFLEN;
	opts->qlen = LB_DEFAULT_QLEN;
}

int f_lb_opts_check(const struct f_lb_opts *o)
{
	if (!o || o->bulk_buflen < 1 || o->bulk_buflen > LB_MAX_BUFLEN ||
	    o->qlen < 1 || o->qlen > LB_MAX_QLEN)
		return -USB_EINVAL;
	return 0;
}

/* ---- data path ------------------------------------------------------------ */

static void lb_out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct lb_pair *p = req->context;
	struct f_loopback *loop = p->loop;

	(void)ep;
	switch (req->status) {
	case 0:
		break;
	case -USB_ESHUTDOWN:
	case -USB_ECONNABORTED:
		return;		/* disabled: the pair rests until freed */
	default:
		/* Cancelled or failed without data worth echoing: wait for
		 * the next transfer. */
		if (loop->enabled)
			(void)usb_ep_queue(loop->out_ep, req, USB_GFP_ATOMIC);
		return;
	}
	atomic_fetch_add(&loop->out_bytes, req->actual);
	if (!loop->enabled)
		return;
	/* Echo exactly what came: a short-terminated transfer ends short on
	 * IN too (a zero-length packet if it is packet-aligned). */
	p->in->length = req->actual;
	p->in->zero = req->actual < req->length;
	if (usb_ep_queue(loop->in_ep, p->in, USB_GFP_ATOMIC) != 0)
		(void)usb_ep_queue(loop->out_ep, req, USB_GFP_ATOMIC);
}

static void lb_in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct lb_pair *p = req->context;
	struct f_loopback *loop = p->loop;

	(void)ep;
	if (req->status == -USB_ESHUTDOWN || req->status == -USB_ECONNABORTED)
		return;
	if (req->status == 0)
		atomic_fetch_add(&loop->in_bytes, req->actual);
	/* Sent (or cancelled by a host unlink): the buffer is free again. */
	if (loop->enabled)
		(void)usb_ep_queue(loop->out_ep, p->out, USB_GFP_ATOMIC);
}

/* usb_ep_disable() gives every queued request back before it returns; the
 * pairs then rest for the next start. */
static void lb_stop(struct f_loopback *loop)
{
	bool was = loop->enabled;

	loop->enabled = false;
	atomic_store(&loop->stat_enabled, false);
	if (loop->in_ep && (was || loop->in_ep->enabled))
		(void)usb_ep_disable(loop->in_ep);
	if (loop->out_ep && (was || loop->out_ep->enabled))
		(void)usb_ep_disable(loop->out_ep);
}

/* Unbind (or a failed bind): the endpoints are disabled; give the pairs back. */
static void lb_free_pairs(struct f_loopback *loop)
{
	for (unsigned i = 0; i < loop->npairs; i++) {
		struct lb_pair *p = &loop->pairs[i];

		if (p->out) {
			composite__free(p->out->buf);
			usb_ep_free_request(loop->out_ep, p->out);
		}
		if (p->in)
			usb_ep_free_request(loop->in_ep, p->in);
	}
	composite__free(loop->pairs);
	loop->pairs = NULL;
	loop->npairs = 0;
}

/* The qlen pairs, allocated at bind and kept until unbind, so nothing is
 * allocated after bind. On failure the caller frees what was taken. */
static int lb_alloc_pairs(struct f_loopback *loop)
{
	unsigned qlen = loop->opts.qlen, len = loop->opts.bulk_buflen;

	loop->pairs = composite__calloc(qlen, sizeof(*loop->pairs));
	if (!loop->pairs)
		return -USB_ENOMEM;
	for (unsigned i = 0; i < qlen; i++) {
		struct lb_pair *p = &loop->pairs[i];

		loop->npairs = i + 1;
		p->loop = loop;
		p->out = usb_ep_alloc_request(loop->out_ep, USB_GFP_KERNEL);
		p->in = usb_ep_alloc_request(loop->in_ep, USB_GFP_KERNEL);
		if (!p->out || !p->in)
			return -USB_ENOMEM;
		p->out->buf = composite__malloc(len);
		if (!p->out->buf)
			return -USB_ENOMEM;
		p->out->complete = lb_out_complete;
		p->out->context = p;
		p->in->buf = p->out->buf;
		p->in->complete = lb_in_complete;
		p->in->context = p;
	}
	return 0;
}

static int lb_enable_ep(struct f_loopback *loop, struct usb_ep *ep)
{
	struct usb_composite_dev *cdev = usb_function_cdev(&loop->function);
	int ret;

	ret = config_ep_by_speed(cdev->gadget, &loop->function, ep);
	if (ret)
		return ret;
	ret = usb_ep_enable(ep);
	if (ret)
		return ret;
	ep->driver_data = loop;
	return 0;
}

static int lb_start(struct f_loopback *loop)
{
	int ret;

	ret = lb_enable_ep(loop, loop->in_ep);
	if (ret)
		return ret;
	ret = lb_enable_ep(loop, loop->out_ep);
	if (ret) {
		(void)usb_ep_disable(loop->in_ep);
		return ret;
	}
	loop->enabled = true;
	for (unsigned i = 0; i < loop->npairs; i++) {
		loop->pairs[i].out->length = loop->opts.bulk_buflen;
		ret = usb_ep_queue(loop->out_ep, loop->pairs[i].out, USB_GFP_ATOMIC);
		if (ret) {
			lb_stop(loop);
			return ret;
		}
	}
	atomic_store(&loop->stat_enabled, true);
	return 0;
}

/* ---- usb_function callbacks ---------------------------------------------- */

static int lb_set_alt(struct usb_function *f, unsigned interface, unsigned alt)
{
	struct f_loopback *loop = func_to_loop(f);

	(void)interface;
	if (alt != 0)
		return -USB_EINVAL;
	lb_stop(loop);
	return lb_start(loop);
}

static void lb_disable(struct usb_function *f)
{
	lb_stop(func_to_loop(f));
}

#define DH(d) ((struct usb_descriptor_header *)(void *)(d))

static int lb_bind(struct usb_configuration *c, struct usb_function *f)
{
	struct f_loopback *loop = func_to_loop(f);
	int id, ret;

	memset(&loop->intf, 0, sizeof(loop->intf));
	loop->intf.bLength = USB_DT_INTERFACE_SIZE;
	loop->intf.bDescriptorType = USB_DT_INTERFACE;
	loop->intf.bNumEndpoints = 2;
	loop->intf.bInterfaceClass = USB_CLASS_VENDOR_SPEC;

	id = usb_interface_id(c, f);
	if (id < 0)
		return id;
	loop->intf.bInterfaceNumber = (uint8_t)id;
	ret = usb_string_ids_tab(c->cdev, loop->strings);
	if (ret < 0)
		return ret;
	loop->intf.iInterface = loop->strings[0].id;

	ret = fn_bulk_pair_bind(&loop->pair, c->cdev->gadget, 0);
	if (ret)
		return ret;
	loop->in_ep = loop->pair.in;
	loop->out_ep = loop->pair.out;

	loop->fs_descs[0] = loop->hs_descs[0] = loop->ss_descs[0] = DH(&loop->intf);
	loop->fs_descs[1 + fn_bulk_pair_descs(&loop->pair, USB_SPEED_FULL, loop->fs_descs + 1)] = NULL;
	loop->hs_descs[1 + fn_bulk_pair_descs(&loop->pair, USB_SPEED_HIGH, loop->hs_descs + 1)] = NULL;
	loop->ss_descs[1 + fn_bulk_pair_descs(&loop->pair, USB_SPEED_SUPER, loop->ss_descs + 1)] = NULL;
	ret = usb_assign_descriptors(f, loop->fs_descs, loop->hs_descs,
				     loop->ss_descs, loop->ss_descs);
	if (ret == 0) {
		ret = lb_alloc_pairs(loop);
		if (ret) {
			lb_free_pairs(loop);
			usb_free_all_descriptors(f);
		}
	}
	if (ret) {
		fn_bulk_pair_release(&loop->pair);
		loop->in_ep = loop->out_ep = NULL;
	}
	return ret;
}

static void lb_unbind(struct usb_configuration *c, struct usb_function *f)
{
	(void)c;
	lb_stop(func_to_loop(f));
	lb_free_pairs(func_to_loop(f));
	usb_free_all_descriptors(f);
}

static void lb_free_func(struct usb_function *f)
{
	composite__free(func_to_loop(f));
}

/* ---- public calls -------------------------------------------------------- */

int loopback_alloc(const struct f_lb_opts *opts, struct usb_function **out)
{
	struct f_loopback *loop;
	int ret;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	ret = f_lb_opts_check(opts);
	if (ret)
		return ret;
	loop = composite__calloc(1, sizeof(*loop));
	if (!loop)
		return -USB_ENOMEM;
	loop->opts = *opts;
	atomic_init(&loop->stat_enabled, false);
	loop->strings[0].s = "loop input to output";
	loop->stringtab.language = USB_LANGID_EN_US;
	loop->stringtab.strings = loop->strings;
	loop->stringtabs[0] = &loop->stringtab;

	loop->function.name = "loopback";
	loop->function.strings = loop->stringtabs;
	loop->function.bind = lb_bind;
	loop->function.unbind = lb_unbind;
	loop->function.free_func = lb_free_func;
	loop->function.set_alt = lb_set_alt;
	loop->function.disable = lb_disable;
	*out = &loop->function;
	return 0;
}

void loopback_free(struct usb_function *f)
{
	if (f && loopback_is(f))
		composite__free(func_to_loop(f));
}

bool loopback_is(const struct usb_function *f)
{
	return f && f->bind == lb_bind;
}

void loopback_get_stats(struct usb_function *f, struct f_lb_stats *st)
{
	struct f_loopback *loop = func_to_loop(f);

	st->out_bytes = atomic_load(&loop->out_bytes);
	st->in_bytes = atomic_load(&loop->in_bytes);
	st->enabled = atomic_load(&loop->stat_enabled);
}
