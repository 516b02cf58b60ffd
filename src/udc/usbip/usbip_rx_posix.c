/*
 * usbip_rx_posix.c - a connection's receive side in the URB phase: the
 * PDU stream read from the socket (CMD_SUBMIT with its payload and ISO
 * descriptors, CMD_UNLINK), checked against the caps and handed to the
 * device (urb_posix.c).
 *
 * Owns conn's receive state (stage, header, rx_urb, iso_buf, the
 * read-ahead buffer rxb, the hold of a starved streamed payload) and the
 * early-unlink list. Runs in the connection thread only. A streamed OUT
 * payload is read straight into the requests' windows under dev->lock
 * (urb_posix.c's rx_begin / rx_end); replies go through the transmit
 * queue (usbip_tx_posix.c). Hostile PDUs end the connection
 * (usbip__conn_hostile()); nothing is allocated before a claimed size
 * has passed the caps.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "usbip_priv.h"

/* Seqnums come from one counter per vhci: compare in serial arithmetic. */
static bool seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static int handle_unlink(struct usbip__conn *c, const struct usbip_header *h)
{
	uint32_t target = h->u.cmd_unlink.unlink_seqnum;
	struct usbip__urb *urb = usbip__urb_table_find(&c->urbs, target);
	int rc;

	/*
	 * vhci takes an unlink's seqnum from the same counter after the URB's,
	 * so a target at or after the unlink's own seqnum cannot come from a
	 * real host. An older target we do not hold is legitimate: the URB
	 * completed already, or vhci dequeued it before its CMD_SUBMIT was
	 * ever sent (vhci_urb_dequeue still sends the CMD_UNLINK); Linux's
	 * own server answers those with status 0, and so do we.
	 */
	if (!urb && !seq_after(h->seqnum, target))
		return usbip__conn_hostile(c, "CMD_UNLINK of a URB not submitted before it");
	if (!urb && (!c->any_submit || seq_after(target, c->last_submit))) {
		/* Its CMD_SUBMIT is still to come (submits come in seqnum
		 * order): answered when it does (take_early_unlinks()). If
		 * full, the oldest is answered now, as best we can. */
		if (c->n_early_unlinks == USBIP_EARLY_UNLINKS) {
			rc = usbip__tx_ret_unlink(c, c->early_unlinks[0].seqnum, USBIP_STATUS_ECONNRESET);
			memmove(c->early_unlinks, c->early_unlinks + 1,
				sizeof(c->early_unlinks) - sizeof(c->early_unlinks[0]));
			c->n_early_unlinks--;
			if (rc < 0)
				return rc;
		}
		c->early_unlinks[c->n_early_unlinks].target = target;
		c->early_unlinks[c->n_early_unlinks].seqnum = h->seqnum;
		c->n_early_unlinks++;
		return 0;
	}
	if (urb && usbip__urb_unlink(c->dev, urb)) {
		usbip__cap_complete(c->dev, urb, USBIP_STATUS_ECONNRESET, 0);
		usbip__urb_table_remove(&c->urbs, urb);
		usbip__tx_uncharge(c, urb);
		usbip__urb_free(c->dev, urb);
		return usbip__tx_ret_unlink(c, h->seqnum, USBIP_STATUS_ECONNRESET);
	}
	/* Already finished: its RET_SUBMIT goes first, then status 0. */
	rc = usbip__tx_answer_done(c);
	if (rc < 0)
		return rc;
	return usbip__tx_ret_unlink(c, h->seqnum, 0);
}

/*
 * The CMD_SUBMIT of @seqnum came: answer the CMD_UNLINKs that were
 * waiting for it, and those of older targets (their submits will never
 * come). *@unlinked tells whether @seqnum itself was one of them.
 */
static int take_early_unlinks(struct usbip__conn *c, uint32_t seqnum, bool *unlinked)
{
	unsigned kept = 0;
	int rc = 0;

	*unlinked = false;
	for (unsigned i = 0; i < c->n_early_unlinks; i++) {
		struct usbip__early_unlink e = c->early_unlinks[i];

		if (seq_after(e.target, seqnum)) {
			c->early_unlinks[kept++] = e;
			continue;
		}
		*unlinked = *unlinked || e.target == seqnum;
		if (rc == 0)
			rc = usbip__tx_ret_unlink(c, e.seqnum, USBIP_STATUS_ECONNRESET);
	}
	c->n_early_unlinks = kept;
	return rc;
}

/* A CMD_SUBMIT header arrived: check it and prepare to receive its payload. */
static int begin_submit(struct usbip__conn *c)
{
	const struct usbip_header *h = &c->h;
	struct usbip_server_config *cfg = &c->srv->cfg;
	uint8_t type = usbip__dev_ep_type(c->dev, h->ep, h->direction == USBIP_DIR_IN);
	bool is_iso = type == USB_ENDPOINT_XFER_ISOC;
	uint32_t data, iso;
	char msg[96];
	bool unlinked;
	int rc;

	if (usbip__urb_table_find(&c->urbs, h->seqnum))
		return usbip__conn_hostile(c, "CMD_SUBMIT with the seqnum of a pending URB");
	if (!c->any_submit || seq_after(h->seqnum, c->last_submit))
		c->last_submit = h->seqnum;
	c->any_submit = true;
	rc = usbip__submit_payload(h, is_iso, (uint32_t)cfg->max_urb_bytes, &data, &iso);
	if (rc == -USB_EMSGSIZE) {
		snprintf(msg, sizeof(msg), "transfer_buffer_length %u over the cap of %zu",
			 h->u.cmd_submit.transfer_buffer_length, cfg->max_urb_bytes);
		return usbip__conn_hostile(c, msg);
	}
	if (rc < 0)
		return usbip__conn_hostile(c, is_iso ? "bad ISO packet count" :
					   "ISO packet descriptors on a non-ISO endpoint");
	if (c->pending_bytes + h->u.cmd_submit.transfer_buffer_length > cfg->max_pending_bytes)
		return usbip__conn_hostile(c, "too much URB data pending");
	if (c->pending_urbs >= cfg->max_pending_urbs) {
		snprintf(msg, sizeof(msg), "more than %zu URBs pending", cfg->max_pending_urbs);
		return usbip__conn_hostile(c, msg);
	}
	c->rx_urb = usbip__urb_new(h, is_iso);
	if (!c->rx_urb)
		return usbip__conn_hostile(c, "out of memory for a URB");
	c->rx_urb->xfer = type;
	c->rx_urb->captured = atomic_load_explicit(&c->dev->capturing, memory_order_relaxed);
	c->rx_data = data;
	c->rx_iso = iso;
	if (iso) {
		c->iso_buf = malloc(iso);
		if (!c->iso_buf)
			return usbip__conn_hostile(c, "out of memory for ISO descriptors");
	}
	rc = take_early_unlinks(c, h->seqnum, &unlinked);
	if (rc < 0)
		return rc;
	c->rx_urb->dropped = unlinked;	/* answered by its RET_UNLINK */
	/* Bulk or interrupt OUT: into the engine now, so that the payload
	 * can land in the requests. If that fails, the usual path at the
	 * end gives the answer. */
	c->rx_waiting = c->rx_waited = false;
	if (!unlinked && !is_iso && h->ep != 0 && h->direction == USBIP_DIR_OUT && data > 0)
		(void)usbip__urb_submit_stream(c->dev, c->rx_urb);
	return 0;
}

/* The whole CMD_SUBMIT is in: hand it to the device. */
static int finish_submit(struct usbip__conn *c)
{
	struct usbip__urb *urb = c->rx_urb;
	uint16_t wlength;
	int rc;

	c->rx_urb = NULL;
	if (urb->is_iso) {
		rc = usbip__urb_take_iso(urb, c->iso_buf);
		free(c->iso_buf);
		c->iso_buf = NULL;
		if (rc < 0) {
			usbip__urb_free(c->dev, urb);
			return usbip__conn_hostile(c, "ISO packets out of order, overlapping or "
						   "outside the transfer buffer");
		}
	}
	if (urb->dropped) {
		usbip__urb_free(c->dev, urb);
		return 0;
	}
	usbip__urb_table_add(&c->urbs, urb);
	usbip__tx_charge(c, urb);
	usbip__cap_submit(c->dev, urb);
	if (urb->streaming)
		return urb->early_done ? usbip__tx_ret_submit(c, urb) : usbip__tx_answer_done(c);
	/* A control URB whose direction contradicts its SETUP is stalled:
	 * the engine would read an IN buffer as OUT data. */
	wlength = (uint16_t)(urb->x.setup.wLength);
	wlength = USB_LE16_TO_CPU(wlength);
	if (urb->epnum == 0 && wlength > 0 &&
	    ((urb->x.setup.bRequestType & USB_DIR_IN) != 0) != urb->dir_in) {
		urb->x.status = USBIP_STATUS_EPIPE;
		return usbip__tx_ret_submit(c, urb);
	}
	rc = usbip__urb_submit(c->dev, urb);
	if (rc < 0) {
		urb->x.status = rc;
		urb->x.actual = 0;
		return usbip__tx_ret_submit(c, urb);
	}
	return usbip__tx_answer_done(c);
}

/* A full header is in. */
static int on_header(struct usbip__conn *c)
{
	char msg[64];
	int rc = usbip__decode_header(c->hdr, sizeof(c->hdr), &c->h);

	if (rc < 0) {
		snprintf(msg, sizeof(msg), "malformed URB header (command 0x%08x)",
			 usbip__get_be32(c->hdr));
		return usbip__conn_hostile(c, msg);
	}
	/* A devid it did not export ends the connection, as Linux's
	 * usbip-host (stub_rx.c, valid_request()) ends it. */
	if ((c->h.command == USBIP_CMD_SUBMIT || c->h.command == USBIP_CMD_UNLINK) &&
	    c->h.devid != c->devid) {
		snprintf(msg, sizeof(msg), "%s for devid 0x%08x, not the imported 0x%08x",
			 usbip__command_name(c->h.command), c->h.devid, c->devid);
		return usbip__conn_hostile(c, msg);
	}
	switch (c->h.command) {
	case USBIP_CMD_UNLINK:
		return handle_unlink(c, &c->h);
	case USBIP_CMD_SUBMIT:
		rc = begin_submit(c);
		if (rc < 0)
			return rc;
		if (c->rx_data == 0 && c->rx_iso == 0)
			return finish_submit(c);
		c->stage = c->rx_data ? USBIP_RX_DATA : USBIP_RX_ISO;
		return 0;
	default:
		snprintf(msg, sizeof(msg), "unexpected %s from the host",
			 usbip__command_name(c->h.command));
		return usbip__conn_hostile(c, msg);
	}
}

/* Where the current stage's bytes go, and how many it still wants. */
static void rx_target(struct usbip__conn *c, uint8_t **dst, size_t *want)
{
	switch (c->stage) {
	case USBIP_RX_HEADER:
		*dst = c->hdr + c->got;
		*want = sizeof(c->hdr) - c->got;
		break;
	case USBIP_RX_DATA:
		*dst = c->rx_urb->buf + c->got;
		*want = c->rx_data - c->got;
		break;
	default:
		*dst = c->iso_buf + c->got;
		*want = c->rx_iso - c->got;
		break;
	}
}

/* The current stage has all its bytes: act on them. */
static int rx_stage_done(struct usbip__conn *c)
{
	c->got = 0;
	switch (c->stage) {
	case USBIP_RX_HEADER:
		return on_header(c);
	case USBIP_RX_DATA:
		if (c->rx_iso) {
			c->stage = USBIP_RX_ISO;
			return 0;
		}
		c->stage = USBIP_RX_HEADER;
		return finish_submit(c);
	default:
		c->stage = USBIP_RX_HEADER;
		return finish_submit(c);
	}
}

/* What rx_read() found. */
enum rx_result { RX_GOT, RX_EMPTY, RX_EOF };

/* Windows a streamed URB's payload is read into at once. */
#define RX_WINDOWS 8

/* Copy up to @want bytes of c->rxb into @iov in order; return how many. */
static size_t rx_from_buffer(struct usbip__conn *c, const struct iovec *iov, int niov, size_t want)
{
	size_t n = 0;

	for (int i = 0; i < niov && n < want && c->rxb_off < c->rxb_len; i++) {
		size_t m = iov[i].iov_len < want - n ? iov[i].iov_len : want - n;

		if (m > c->rxb_len - c->rxb_off)
			m = c->rxb_len - c->rxb_off;
		memcpy(iov[i].iov_base, c->rxb + c->rxb_off, m);
		c->rxb_off += m;
		n += m;
	}
	return n;
}

/*
 * Up to @want bytes for the current stage, into @iov (@niov entries and
 * room for one more): from c->rxb first, else from the socket, straight
 * into @iov when @want is at least the size of c->rxb (else c->rxb is
 * refilled and *@n is 0). With @ahead (@want ends the stage), what
 * follows is read into c->rxb by the same call: the next header, most
 * often. A read that returns less than asked means the socket is empty:
 * the next call says RX_EMPTY rather than ask again for an EAGAIN. System
 * calls are what this path costs, so it makes as few as it can. Return
 * an rx_result, or a negative error.
 */
static int rx_read(struct usbip__conn *c, struct iovec *iov, int niov, size_t want, bool ahead,
		   size_t *n)
{
	*n = 0;
	if (c->rxb_off < c->rxb_len) {
		*n = rx_from_buffer(c, iov, niov, want);
		return RX_GOT;
	}
	if (c->rx_empty)
		return RX_EMPTY;	/* until poll() says there is more */
	for (;;) {
		bool direct = want >= sizeof(c->rxb);
		struct msghdr m;
		ssize_t r;

		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		m.msg_iovlen = (size_t)niov;
		if (ahead)
			iov[m.msg_iovlen++] = (struct iovec){ c->rxb, sizeof(c->rxb) };
		r = direct ? recvmsg(c->fd, &m, 0) : recv(c->fd, c->rxb, sizeof(c->rxb), 0);
		if (r == 0)
			return RX_EOF;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return RX_EMPTY;
			return errno == ECONNRESET ? -USB_ECONNRESET : -USB_EIO;
		}
		if (!direct) {
			c->rxb_off = 0;
			c->rxb_len = (size_t)r;
			c->rx_empty = (size_t)r < sizeof(c->rxb);
			return RX_GOT;
		}
		*n = (size_t)r < want ? (size_t)r : want;
		c->rx_empty = (size_t)r < want + (ahead ? sizeof(c->rxb) : 0);
		if (ahead) {
			c->rxb_off = 0;
			c->rxb_len = (size_t)r - *n;
		}
		return RX_GOT;
	}
}

/*
 * Where the current stage's next @left bytes go (@iov; the count is
 * returned, their sum in *@want): @dst, the stage's own buffer, or for a
 * streamed URB's payload the engine's windows, straight into the
 * requests. For a streamed URB this takes dev->lock (usbip__rx_some() drops it).
 */
static int rx_windows(struct usbip__conn *c, uint8_t *dst, size_t left, struct iovec *iov,
		      size_t *want, bool *starved)
{
	struct udcx_window win[RX_WINDOWS];
	size_t nw = 0;
	int n = 0;

	*want = 0;
	*starved = false;
	if (c->stage == USBIP_RX_DATA && c->rx_urb->streaming)
		nw = usbip__urb_rx_begin(c->dev, c->rx_urb, win, RX_WINDOWS, starved);
	for (size_t i = 0; i < nw && *want < left; i++) {
		size_t m = win[i].len < left - *want ? win[i].len : left - *want;

		iov[n++] = (struct iovec){ win[i].p, m };
		*want += m;
	}
	if (n == 0) {	/* not streamed (a streamed URB always has a window) */
		iov[n++] = (struct iovec){ dst, left };
		*want = left;
	}
	return n;
}

/*
 * How long a streamed URB's payload waits for its function to queue a
 * request, rather than go to the URB's own buffer and be copied later: a
 * NAK on a bus, bounded here because the socket carries every endpoint's
 * traffic in order (a function may wait for a PDU behind this payload).
 * The Mass Storage function queues its buffer for a WRITE once the
 * worker has read the CBW, a little after the payload's header is in.
 */
#define RX_WAIT_NS 2000000L

static long rx_waited_ns(const struct usbip__conn *c)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - c->rx_wait_start.tv_sec) * 1000000000L +
	       (now.tv_nsec - c->rx_wait_start.tv_nsec);
}

/* The URB is starved: hold its payload back (true), or no longer. */
static bool rx_hold(struct usbip__conn *c)
{
	if (c->rx_waited)
		return false;
	if (!c->rx_waiting) {
		c->rx_waiting = true;
		clock_gettime(CLOCK_MONOTONIC, &c->rx_wait_start);
		return true;
	}
	if (rx_waited_ns(c) < RX_WAIT_NS)
		return true;
	c->rx_waiting = false;
	c->rx_waited = true;	/* this URB's bytes go wherever they can */
	return false;
}

/* While holding back: poll()'s timeout, in ms (at least 1). */
int usbip__rx_hold_ms(const struct usbip__conn *c)
{
	long left = RX_WAIT_NS - rx_waited_ns(c);

	return left <= 0 ? 1 : (int)((left + 999999L) / 1000000L);
}

/* Of @n payload bytes read at offset c->got of a captured streamed URB,
 * those its 'S' record keeps (usbip__cap_max_data()): the rest need no
 * copy. */
static size_t rx_kept(const struct usbip__conn *c, size_t n)
{
	size_t max = usbip__cap_max_data(&c->dev->server->cfg);

	if (max == 0)
		return n;
	if (c->got >= max)
		return 0;
	return n < max - c->got ? n : max - c->got;
}

/* A captured streamed URB: the @n payload bytes just read into the
 * requests' windows @iov also go to its own buffer at @dst, for its 'S'
 * record (usbip__cap_submit()). */
static void rx_keep_copy(const struct iovec *iov, int niov, uint8_t *dst, size_t n)
{
	for (int i = 0; i < niov && n > 0; i++) {
		size_t m = iov[i].iov_len < n ? iov[i].iov_len : n;

		if (iov[i].iov_base != dst)
			memcpy(dst, iov[i].iov_base, m);
		dst += m;
		n -= m;
	}
}

/*
 * Read what is there and act on each complete PDU. Headers and short
 * payloads come through c->rxb, several per recv; a payload of at least
 * its size is received straight into the URB, and a streamed URB's
 * straight into the requests where the engine's windows say (under
 * dev->lock, so no request leaves meanwhile). Return 0 to go on, 1 on
 * EOF, or a negative error.
 */
int usbip__rx_some(struct usbip__conn *c)
{
	/* Bounded work per wakeup so that replies keep flowing; what is
	 * left in c->rxb is taken at the next turn (serve_urbs). */
	for (int rounds = 0; rounds < 64; rounds++) {
		bool stream = c->stage == USBIP_RX_DATA && c->rx_urb->streaming;
		struct iovec iov[RX_WINDOWS + 1];
		uint8_t *dst;
		size_t left, want, n;
		bool starved;
		int niov, rc;

		rx_target(c, &dst, &left);
		niov = rx_windows(c, dst, left, iov, &want, &starved);
		if (starved && rx_hold(c)) {
			usbip__urb_rx_end(c->dev, c->rx_urb, 0);
			return 0;	/* until ops->queue wakes us, or the time is up */
		}
		c->rx_waiting = false;
		rc = rx_read(c, iov, niov, want, want == left, &n);
		if (stream && rc == RX_GOT && c->rx_urb->captured)
			rx_keep_copy(iov, niov, dst, rx_kept(c, n));	/* before the requests go */
		if (stream)
			usbip__urb_rx_end(c->dev, c->rx_urb, rc == RX_GOT ? n : 0);
		if (rc == RX_EMPTY)
			return 0;
		if (rc == RX_EOF) {
			if (c->stage != USBIP_RX_HEADER || c->got != 0)
				return usbip__conn_hostile(c, "connection closed in the middle of a PDU");
			return 1;
		}
		if (rc < 0)
			return rc;
		c->got += n;
		if (n < left)
			continue;
		rc = rx_stage_done(c);
		if (rc < 0)
			return rc;
	}
	return 0;
}
