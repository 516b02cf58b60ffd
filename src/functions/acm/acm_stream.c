/*
 * acm_stream.c - the ACM port's byte stream and notifications
 * (acm_internal.h): the receive and transmit rings, the bulk requests
 * that move them (OUT requests are queued only while the receive ring has
 * room for all of them, so a slow reader holds the host's writes back
 * instead of losing bytes), SERIAL_STATE notifications, line coding and
 * control lines. Portable C11: atomics, no lock.
 */
#include <string.h>

#include "acm_internal.h"
#include "functions/common/fn_kick.h"
#include "functions/common/fn_request.h"
#include "port/alloc.h"

static const struct acm_port_ops *ops_of(struct f_acm *acm)
{
	return acm->opts.ops;
}

/* ---- transmit: tx ring -> bulk IN ---------------------------------------------- */

static void tx_fill(void *arg)
{
	struct f_acm *acm = arg;

	if (!atomic_load(&acm->connected)) {
		/* The only consumer drops what no host will read. */
		size_t n = fn_ring_take(&acm->tx, NULL, fn_ring_used(&acm->tx));

		atomic_fetch_add(&acm->tx_discarded, n);
		return;
	}
	for (unsigned i = 0; i < ACM_REQS && fn_ring_used(&acm->tx); i++) {
		struct usb_request *req = acm->in_req[i];

		if (atomic_load(&acm->in_busy[i]))
			continue;
		req->length = (unsigned)fn_ring_take(&acm->tx, req->buf, ACM_REQ_LEN);
		/* End the host's transfer when nothing follows right away. */
		req->zero = fn_ring_used(&acm->tx) == 0;
		atomic_store(&acm->in_busy[i], true);
		if (usb_ep_queue(acm->pair.in, req, USB_GFP_ATOMIC) != 0) {
			atomic_fetch_add(&acm->tx_discarded, req->length);
			atomic_store(&acm->in_busy[i], false);
			return;
		}
	}
}

static void tx_kick(struct f_acm *acm)
{
	fn_kick(&acm->tx_kicks, tx_fill, acm);
}

static void in_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_acm *acm = ep->driver_data;
	unsigned i = (unsigned)(uintptr_t)req->context;

	atomic_fetch_add(&acm->tx_bytes, req->actual);
	/* A host that closed its tty cancels its reads: count what is lost. */
	if (req->status != 0 && req->actual < req->length)
		atomic_fetch_add(&acm->tx_discarded, req->length - req->actual);
	atomic_store(&acm->in_busy[i], false);
	tx_kick(acm);
	if (fn_ring_room(&acm->tx) && atomic_exchange(&acm->want_writable, false) &&
	    ops_of(acm) && ops_of(acm)->writable)
		ops_of(acm)->writable(&acm->function, acm->opts.ctx);
}

long acm_write(struct usb_function *f, const void *buf, size_t len)
{
	struct f_acm *acm = func_to_acm(f);
	size_t n;

	if (!atomic_load(&acm->connected))
		return -USB_ENOTCONN;
	n = fn_ring_put(&acm->tx, buf, len);
	if (n < len)
		atomic_store(&acm->want_writable, true);
	tx_kick(acm);
	/* Room may have come between the put and the flag. */
	if (n < len && fn_ring_room(&acm->tx) && atomic_exchange(&acm->want_writable, false)) {
		size_t more = fn_ring_put(&acm->tx, (const uint8_t *)buf + n, len - n);

		n += more;
		if (n < len)
			atomic_store(&acm->want_writable, true);
		tx_kick(acm);
	}
	return (long)n;
}

size_t acm_write_pending(struct usb_function *f)
{
	return fn_ring_used(&func_to_acm(f)->tx);
}

/* ---- receive: bulk OUT -> rx ring ------------------------------------------------ */

static void rx_fill(void *arg)
{
	struct f_acm *acm = arg;

	for (unsigned i = 0; i < ACM_OUT_REQS && atomic_load(&acm->connected); i++) {
		struct usb_request *req = acm->out_req[i];

		if (atomic_load(&acm->out_busy[i]))
			continue;
		/* Queue only what the ring can take whole. */
		if (fn_ring_room(&acm->rx) < atomic_load(&acm->rx_reserved) + acm->out_len)
			return;
		atomic_fetch_add(&acm->rx_reserved, acm->out_len);
		atomic_store(&acm->out_busy[i], true);
		req->length = acm->out_len;
		if (usb_ep_queue(acm->pair.out, req, USB_GFP_ATOMIC) != 0) {
			atomic_fetch_sub(&acm->rx_reserved, acm->out_len);
			atomic_store(&acm->out_busy[i], false);
			return;
		}
	}
}

static void rx_kick(struct f_acm *acm)
{
	fn_kick(&acm->rx_kicks, rx_fill, acm);
}

static void out_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_acm *acm = ep->driver_data;
	unsigned i = (unsigned)(uintptr_t)req->context;
	size_t n = 0;

	if (req->status == 0 || req->actual) {
		n = fn_ring_put(&acm->rx, req->buf, req->actual);	/* room was reserved */
		atomic_fetch_add(&acm->rx_bytes, n);
	}
	atomic_fetch_sub(&acm->rx_reserved, req->length);
	atomic_store(&acm->out_busy[i], false);
	if (n && ops_of(acm) && ops_of(acm)->readable)
		ops_of(acm)->readable(&acm->function, acm->opts.ctx);
	rx_kick(acm);
}

long acm_read(struct usb_function *f, void *buf, size_t len)
{
	struct f_acm *acm = func_to_acm(f);
	size_t n = fn_ring_take(&acm->rx, buf, len);

	if (n)
		rx_kick(acm);
	return (long)n;
}

/* ---- connect, disconnect -------------------------------------------------------- */

void acm__data_connect(struct f_acm *acm)
{
	unsigned mp = acm->pair.out->desc ? usb_endpoint_maxp(acm->pair.out->desc) : 0;

	acm->out_len = mp && mp <= ACM_OUT_LEN_MAX ? mp : 64;
	atomic_store(&acm->connected, true);
	rx_kick(acm);
	tx_kick(acm);
}

void acm__data_disconnect(struct f_acm *acm)
{
	if (!atomic_exchange(&acm->connected, false))
		return;
	/* Disabling gives every request back (-USB_ESHUTDOWN); none is
	 * queued again, and the transmit ring is emptied by its runner. */
	(void)usb_ep_disable(acm->pair.in);
	(void)usb_ep_disable(acm->pair.out);
	atomic_store(&acm->want_writable, false);
	tx_kick(acm);
}

/* ---- notifications ---------------------------------------------------------------- */

static void notify_fill(void *arg)
{
	struct f_acm *acm = arg;
	struct usb_request *req = acm->notify_req;
	uint8_t *p = req->buf;
	unsigned state;

	if (!atomic_load(&acm->notify_on) || atomic_load(&acm->notify_busy) ||
	    !atomic_exchange(&acm->notify_pending, false))
		return;
	state = atomic_load(&acm->serial_state);
	p[0] = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	p[1] = USB_CDC_NOTIFY_SERIAL_STATE;
	p[2] = p[3] = 0;			/* wValue */
	p[4] = acm->ctrl_id;			/* wIndex */
	p[5] = 0;
	p[6] = 2;				/* wLength */
	p[7] = 0;
	p[8] = (uint8_t)state;
	p[9] = (uint8_t)(state >> 8);
	req->length = ACM_NOTIFY_MAXPACKET;
	atomic_store(&acm->notify_busy, true);
	if (usb_ep_queue(acm->notify_ep, req, USB_GFP_ATOMIC) != 0) {
		atomic_store(&acm->notify_busy, false);
		atomic_store(&acm->notify_pending, true);	/* sent at the next enable */
	}
}

static void notify_kick(struct f_acm *acm)
{
	fn_kick(&acm->notify_kicks, notify_fill, acm);
}

static void notify_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct f_acm *acm = ep->driver_data;

	if (req->status == 0)
		atomic_fetch_add(&acm->notifications, 1);
	atomic_store(&acm->notify_busy, false);
	notify_kick(acm);
}

void acm__notify_enable(struct f_acm *acm)
{
	atomic_store(&acm->notify_on, true);
	/* As Linux's acm_connect(): the gadget side is there. */
	(void)atomic_fetch_or(&acm->serial_state, USB_CDC_SERIAL_STATE_DCD | USB_CDC_SERIAL_STATE_DSR);
	atomic_store(&acm->notify_pending, true);
	notify_kick(acm);
}

void acm__notify_disable(struct f_acm *acm)
{
	if (atomic_exchange(&acm->notify_on, false))
		(void)usb_ep_disable(acm->notify_ep);
}

int acm_notify_serial_state(struct usb_function *f, unsigned state)
{
	struct f_acm *acm = func_to_acm(f);

	if (!atomic_load(&acm->notify_on))
		return -USB_ENOTCONN;
	atomic_store(&acm->serial_state, state & 0x7fu);
	atomic_store(&acm->notify_pending, true);
	notify_kick(acm);
	return 0;
}

/* ---- line coding, control lines ------------------------------------------------- */

static uint64_t pack_coding(const uint8_t *b)
{
	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	       (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 |
	       (uint64_t)b[6] << 48;
}

void acm_get_line_coding(struct usb_function *f, struct usb_cdc_line_coding *out)
{
	uint64_t v = atomic_load(&func_to_acm(f)->coding);
	uint8_t b[7];

	for (unsigned i = 0; i < 7; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	memcpy(out, b, sizeof(b));
}

void acm__set_line_coding(struct f_acm *acm, const void *coding7)
{
	struct usb_cdc_line_coding lc;

	atomic_store(&acm->coding, pack_coding(coding7));
	atomic_fetch_add(&acm->line_codings, 1);
	memcpy(&lc, coding7, sizeof(lc));
	if (ops_of(acm) && ops_of(acm)->line_coding)
		ops_of(acm)->line_coding(&acm->function, acm->opts.ctx, &lc);
}

void acm__set_lines(struct f_acm *acm, unsigned lines)
{
	unsigned was = atomic_exchange(&acm->lines, lines);
	const struct acm_port_ops *ops = ops_of(acm);

	if (!ops)
		return;
	if (ops->control_lines && (lines || was))
		ops->control_lines(&acm->function, acm->opts.ctx, lines);
	if ((lines & ACM_CTRL_DTR) && !(was & ACM_CTRL_DTR) && ops->open)
		ops->open(&acm->function, acm->opts.ctx);
	if (!(lines & ACM_CTRL_DTR) && (was & ACM_CTRL_DTR) && ops->close)
		ops->close(&acm->function, acm->opts.ctx);
}

unsigned acm_get_control_lines(struct usb_function *f)
{
	return atomic_load(&func_to_acm(f)->lines);
}

void acm_get_stats(struct usb_function *f, struct f_acm_stats *st)
{
	struct f_acm *acm = func_to_acm(f);

	st->rx_bytes = atomic_load(&acm->rx_bytes);
	st->tx_bytes = atomic_load(&acm->tx_bytes);
	st->tx_discarded = atomic_load(&acm->tx_discarded);
	st->notifications = atomic_load(&acm->notifications);
	st->line_codings = atomic_load(&acm->line_codings);
	st->connected = atomic_load(&acm->connected);
}

/* ---- allocation ------------------------------------------------------------------- */

int acm__alloc(const struct f_acm_opts *opts, struct f_acm **out)
{
	/* 9600 8N1 until the host says otherwise. */
	static const uint8_t default_coding[7] = { 0x80, 0x25, 0, 0, USB_CDC_1_STOP_BITS,
						   USB_CDC_NO_PARITY, 8 };
	struct f_acm *acm = composite__calloc(1, sizeof(*acm));
	size_t rxn = opts->rx_buflen ? opts->rx_buflen : ACM_BUF_DEFAULT;
	size_t txn = opts->tx_buflen ? opts->tx_buflen : ACM_BUF_DEFAULT;

	if (!acm)
		return -USB_ENOMEM;
	acm->opts = *opts;
	acm->rx_buf = composite__malloc(rxn);
	acm->tx_buf = composite__malloc(txn);
	if (!acm->rx_buf || !acm->tx_buf) {
		acm__free(acm);
		return -USB_ENOMEM;
	}
	fn_ring_init(&acm->rx, acm->rx_buf, rxn);
	fn_ring_init(&acm->tx, acm->tx_buf, txn);
	atomic_init(&acm->coding, pack_coding(default_coding));
	*out = acm;
	return 0;
}

void acm__free(struct f_acm *acm)
{
	composite__free(acm->rx_buf);
	composite__free(acm->tx_buf);
	composite__free(acm);
}

int acm__stream_alloc(struct f_acm *acm)
{
	for (unsigned i = 0; i < ACM_REQS; i++) {
		acm->in_req[i] = fn_request_alloc(acm->pair.in, ACM_REQ_LEN, (void *)(uintptr_t)i, in_complete);
		if (!acm->in_req[i])
			goto fail;
	}
	for (unsigned i = 0; i < ACM_OUT_REQS; i++) {
		acm->out_req[i] = fn_request_alloc(acm->pair.out, ACM_OUT_LEN_MAX, (void *)(uintptr_t)i, out_complete);
		if (!acm->out_req[i])
			goto fail;
	}
	acm->notify_req = fn_request_alloc(acm->notify_ep, ACM_NOTIFY_MAXPACKET, NULL, notify_complete);
	if (acm->notify_req)
		return 0;
fail:
	acm__stream_free(acm);
	return -USB_ENOMEM;
}

void acm__stream_free(struct f_acm *acm)
{
	for (unsigned i = 0; i < ACM_REQS; i++)
		fn_request_free(acm->pair.in, &acm->in_req[i]);
	for (unsigned i = 0; i < ACM_OUT_REQS; i++)
		fn_request_free(acm->pair.out, &acm->out_req[i]);
	fn_request_free(acm->notify_ep, &acm->notify_req);
}
