/*
 * net_reqs.c - the data interface's request pools of the network
 * functions (net_reqs.h). Portable C11.
 */

#include "net_reqs.h"
#include "functions/common/fn_request.h"
#include "port/alloc.h"

void net_reqs_free(struct net_reqs *r)
{
	unsigned i;

	for (i = 0; r->in_req && i < r->n; i++)
		fn_request_free(r->in, &r->in_req[i]);
	for (i = 0; r->out_req && i < r->n; i++)
		fn_request_free(r->out, &r->out_req[i]);
	composite__free(r->in_req);
	composite__free(r->out_req);
	composite__free(r->in_busy);
	composite__free(r->in_frames);
	composite__free(r->in_bytes);
	r->in_req = r->out_req = NULL;
	r->in_busy = NULL;
	r->in_frames = NULL;
	r->in_bytes = NULL;
}

int net_reqs_alloc(struct net_reqs *r, struct usb_ep *in, struct usb_ep *out, unsigned n,
		   size_t in_len, size_t out_len, void *ctx,
		   void (*in_complete)(struct usb_ep *, struct usb_request *),
		   void (*out_complete)(struct usb_ep *, struct usb_request *))
{
	unsigned i;

	r->in = in;
	r->out = out;
	r->n = n;
	r->qlen = 0;
	r->out_len = out_len;
	r->in_req = composite__calloc(n, sizeof(*r->in_req));
	r->out_req = composite__calloc(n, sizeof(*r->out_req));
	r->in_busy = composite__calloc(n, sizeof(*r->in_busy));
	r->in_frames = composite__calloc(n, sizeof(*r->in_frames));
	r->in_bytes = composite__calloc(n, sizeof(*r->in_bytes));
	if (!r->in_req || !r->out_req || !r->in_busy || !r->in_frames || !r->in_bytes)
		goto fail;
	for (i = 0; i < n; i++) {
		atomic_init(&r->in_busy[i], false);
		r->in_req[i] = fn_request_alloc(in, in_len, ctx, in_complete);
		r->out_req[i] = fn_request_alloc(out, out_len, ctx, out_complete);
		if (!r->in_req[i] || !r->out_req[i])
			goto fail;
	}
	return 0;
fail:
	net_reqs_free(r);
	return -USB_ENOMEM;
}

void net_reqs_start(struct net_reqs *r, const struct usb_gadget *g)
{
	unsigned i;

	r->qlen = g->speed >= USB_SPEED_HIGH ? r->n : (r->n < 2 ? r->n : 2);
	for (i = 0; i < r->qlen; i++) {
		r->out_req[i]->length = (unsigned)r->out_len;
		(void)usb_ep_queue(r->out, r->out_req[i], USB_GFP_ATOMIC);
	}
}

struct usb_request *net_reqs_claim_in(struct net_reqs *r, unsigned *index)
{
	unsigned i;

	for (i = 0; i < r->qlen; i++) {
		bool idle = false;

		if (atomic_compare_exchange_strong(&r->in_busy[i], &idle, true)) {
			*index = i;
			return r->in_req[i];
		}
	}
	return NULL;
}

unsigned net_reqs_in_flight(struct net_reqs *r)
{
	unsigned i, n = 0;

	for (i = 0; i < r->qlen; i++)
		n += atomic_load(&r->in_busy[i]) ? 1u : 0u;
	return n;
}

void net_reqs_release_in(struct net_reqs *r, unsigned index)
{
	atomic_store(&r->in_busy[index], false);
}

int net_reqs_in_index(const struct net_reqs *r, const struct usb_request *req)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		if (r->in_req[i] == req)
			return (int)i;
	return -USB_ENOENT;
}

void net_reqs_requeue_out(struct net_reqs *r, struct usb_request *req, bool link_open)
{
	if (req->status == -USB_ESHUTDOWN || req->status == -USB_ECONNRESET || !link_open)
		return;
	req->length = (unsigned)r->out_len;
	(void)usb_ep_queue(r->out, req, USB_GFP_ATOMIC);
}
