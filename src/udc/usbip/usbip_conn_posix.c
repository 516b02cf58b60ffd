/*
 * usbip_conn_posix.c - one USB/IP connection, in a thread of its own: the
 * op phase (OP_REQ_DEVLIST, OP_REQ_IMPORT) and, after an import, the URB
 * stream of that device.
 *
 * Owns the socket, a wake pipe, the receive state, the transmit queue and
 * every URB the host submitted and has not yet been answered (the op
 * phase's requests are answered by usbip_op_posix.c). In the URB
 * phase the thread is the gadget's event context: a poll loop that always
 * reads the socket (vhci's sender must never block on us), drains the
 * wake pipe written by ep ops from any thread, answers what the transfer
 * engine finished and writes replies without blocking.
 *
 * Hostile input (wrong version, unknown op or command, oversized or
 * inconsistent lengths, duplicate or unknown seqnums) ends this connection
 * with a log line and a USBIP_EVENT_PROTOCOL_ERROR; nothing is allocated
 * before a claimed size has passed the caps.
 */
#ifdef COMPOSITE_HAVE_PPOLL
#define _GNU_SOURCE	/* ppoll(): timeouts finer than poll()'s milliseconds */
#else
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "usbip_priv.h"

/* One reply on the transmit queue: a header, then optional data bytes
 * (an IN URB's buffer, owned through @urb, or for a gathering URB the
 * runs of request buffers it holds) and optional ISO descriptors. */
struct tx_item {
	struct list_head link;
	uint8_t hdr[USBIP_URB_HEADER_SIZE];
	struct usbip__urb *urb;	/* freed once sent, or NULL */
	const uint8_t *data;
	size_t data_len;
	uint8_t *iso;		/* owned */
	size_t iso_len;
	size_t sent;
};

struct usbip__conn *usbip__conn_new(struct usbip_server *srv, int fd, const char *peer)
{
	struct usbip__conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (pipe(c->wake) != 0) {
		free(c);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(c->wake[i], F_SETFL, fcntl(c->wake[i], F_GETFL) | O_NONBLOCK);
		fcntl(c->wake[i], F_SETFD, FD_CLOEXEC);
	}
	c->srv = srv;
	c->fd = fd;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	atomic_init(&c->killed, false);
	atomic_init(&c->kicked, false);
	atomic_init(&c->running, false);
	atomic_init(&c->finished, false);
	INIT_LIST_HEAD(&c->txq);
	INIT_LIST_HEAD(&c->srv_link);
	return c;
}

struct list_head *usbip__conn_srv_link(struct usbip__conn *conn)
{
	return &conn->srv_link;
}

struct usbip__conn *usbip__conn_from_srv_link(struct list_head *link)
{
	return usb_container_of(link, struct usbip__conn, srv_link);
}

void usbip__conn_wake(struct usbip__conn *conn)
{
	char b = 1;
	ssize_t n;

	/* From its own thread (a completion queueing more): no syscalls,
	 * the loop just does not sleep before it looks again. */
	if (atomic_load(&conn->running) && pthread_equal(conn->self, pthread_self())) {
		atomic_store(&conn->kicked, true);
		return;
	}
	n = write(conn->wake[1], &b, 1);
	(void)n;	/* a full pipe means a wakeup is already pending */
}

void usbip__conn_kill(struct usbip__conn *conn)
{
	atomic_store(&conn->killed, true);
	usbip__conn_wake(conn);
}

int usbip__conn_start(struct usbip__conn *conn)
{
	return pthread_create(&conn->thread, NULL, usbip__conn_thread, conn) == 0 ? 0 : -USB_ENOMEM;
}

void usbip__conn_free_unstarted(struct usbip__conn *conn)
{
	close(conn->fd);
	close(conn->wake[0]);
	close(conn->wake[1]);
	free(conn);
}

bool usbip__conn_finished(struct usbip__conn *conn)
{
	return atomic_load(&conn->finished);
}

void usbip__conn_join_free(struct usbip__conn *conn)
{
	pthread_join(conn->thread, NULL);
	close(conn->wake[0]);
	close(conn->wake[1]);
	free(conn);
}

/* A protocol violation: log it, tell the program, end the connection. */
int usbip__conn_hostile(struct usbip__conn *c, const char *what)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "closing connection from %s: %s", c->peer, what);
	usbip__log(c->srv, "%s", msg);
	usbip__emit(c->srv, USBIP_EVENT_PROTOCOL_ERROR, c->dev, c->peer, 0, msg);
	return -USB_EPROTO;
}

/* ---- URB phase: transmit queue ----------------------------------------- */

/* Replies the host has not read yet, at most: past this it is not
 * reading at all, and the connection is closed rather than grow. */
#define MAX_TX_ITEMS 65536u

/* What @urb costs the connection, from its CMD_SUBMIT until its reply is
 * sent or it is unlinked: its bytes and one URB (zero-length ones too). */
static void charge(struct usbip__conn *c, const struct usbip__urb *urb)
{
	c->pending_bytes += urb->length;
	c->pending_urbs++;
}

static void uncharge(struct usbip__conn *c, const struct usbip__urb *urb)
{
	c->pending_bytes -= urb->length;
	c->pending_urbs--;
}

static void tx_free(struct usbip__conn *c, struct tx_item *t)
{
	if (t->urb)
		uncharge(c, t->urb);
	usbip__urb_free(c->dev, t->urb);
	free(t->iso);
	free(t);
}

static int queue_ret_unlink(struct usbip__conn *c, uint32_t seqnum, int status)
{
	struct tx_item *t;
	struct usbip_header h;

	if (c->tx_items >= MAX_TX_ITEMS)
		return usbip__conn_hostile(c, "the host does not read its replies");
	t = calloc(1, sizeof(*t));
	if (!t)
		return -USB_ENOMEM;
	memset(&h, 0, sizeof(h));
	h.command = USBIP_RET_UNLINK;
	h.seqnum = seqnum;
	h.u.ret_unlink.status = status;
	usbip__encode_header(t->hdr, sizeof(t->hdr), &h);
	list_add_tail(&t->link, &c->txq);
	c->tx_items++;
	return 0;
}

/* Answer @urb (which leaves c->urbs and is freed once sent). */
static int queue_ret_submit(struct usbip__conn *c, struct usbip__urb *urb)
{
	struct tx_item *t = NULL;
	struct usbip_header h;
	int status = urb->x.status;

	if (c->tx_items < MAX_TX_ITEMS)
		t = calloc(1, sizeof(*t));
	if (!usbip__urb_table_remove(&c->urbs, urb))
		charge(c, urb);		/* never counted: tx_free() uncharges */
	if (!t) {
		uncharge(c, urb);
		usbip__urb_free(c->dev, urb);
		return c->tx_items >= MAX_TX_ITEMS ? usbip__conn_hostile(c, "the host does not read its replies")
						   : -USB_ENOMEM;
	}
	if (urb->is_iso)
		usbip__urb_iso_finish(urb);	/* actual becomes the packed length */
	memset(&h, 0, sizeof(h));
	h.command = USBIP_RET_SUBMIT;
	h.seqnum = urb->seqnum;
	h.u.ret_submit.status = status;
	h.u.ret_submit.actual_length = (uint32_t)urb->x.actual;
	h.u.ret_submit.start_frame = urb->is_iso ? urb->start_frame : 0;
	h.u.ret_submit.number_of_packets = urb->is_iso ? urb->number_of_packets : 0;
	usbip__encode_header(t->hdr, sizeof(t->hdr), &h);
	t->urb = urb;
	if (urb->dir_in && urb->x.actual > 0) {
		t->data = urb->gather ? NULL : urb->buf;	/* gather: urb->x.segs */
		t->data_len = urb->x.actual;
	}
	if (urb->is_iso) {
		uint32_t errors = 0;

		t->iso_len = (size_t)urb->number_of_packets * USBIP_ISO_DESC_SIZE;
		t->iso = malloc(t->iso_len);
		if (!t->iso) {
			tx_free(c, t);
			return -USB_ENOMEM;
		}
		for (uint32_t i = 0; i < urb->number_of_packets; i++) {
			usbip__encode_iso_desc(t->iso + i * USBIP_ISO_DESC_SIZE,
					       USBIP_ISO_DESC_SIZE, &urb->iso[i]);
			errors += urb->iso[i].status != 0;
		}
		usbip__put_be32(t->hdr + 36, errors);	/* error_count */
	}
	list_add_tail(&t->link, &c->txq);
	c->tx_items++;
	return 0;
}

/* The byte runs of @t in wire order, from byte @skip on, into @iov.
 * Return their count. A gathering URB's runs may point into request
 * buffers: build and send them under dev->lock. */
static int tx_iov(const struct tx_item *t, size_t skip, struct iovec *iov)
{
	struct iovec part[USBIP_URB_SEGS + 2];
	int np = 0, n = 0;

	part[np++] = (struct iovec){ (void *)t->hdr, USBIP_URB_HEADER_SIZE };
	if (t->data_len && t->urb && t->urb->gather) {
		for (size_t i = 0; i < t->urb->x.seg_count; i++)
			part[np++] = (struct iovec){ (void *)t->urb->x.segs[i].p, t->urb->x.segs[i].len };
	} else if (t->data_len) {
		part[np++] = (struct iovec){ (void *)t->data, t->data_len };
	}
	if (t->iso_len)
		part[np++] = (struct iovec){ t->iso, t->iso_len };
	for (int i = 0; i < np; i++) {
		if (skip >= part[i].iov_len) {
			skip -= part[i].iov_len;
			continue;
		}
		iov[n].iov_base = (uint8_t *)part[i].iov_base + skip;
		iov[n].iov_len = part[i].iov_len - skip;
		skip = 0;
		n++;
	}
	return n;
}

/* Write what the socket takes now; *@released tells whether a sent reply
 * gave requests back to dev->done. Return 0, or a negative error. */
static int tx_flush(struct usbip__conn *c, bool *released)
{
	*released = false;
	while (!list_empty(&c->txq)) {
		struct tx_item *t = list_first_entry(&c->txq, struct tx_item, link);
		struct iovec iov[USBIP_URB_SEGS + 2];
		size_t total = USBIP_URB_HEADER_SIZE + t->data_len + t->iso_len;
		bool borrowed = t->urb && t->urb->gather && t->data_len;
		struct msghdr m;
		ssize_t w;

		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		if (borrowed)
			pthread_mutex_lock(&c->dev->lock);
		m.msg_iovlen = (size_t)tx_iov(t, t->sent, iov);
		w = sendmsg(c->fd, &m, MSG_NOSIGNAL);
		if (borrowed)
			pthread_mutex_unlock(&c->dev->lock);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return errno == EPIPE || errno == ECONNRESET ? -USB_ECONNRESET : -USB_EIO;
		}
		t->sent += (size_t)w;
		if (t->sent < total)
			return 0;
		list_del(&t->link);
		c->tx_items--;
		*released = *released || (t->urb && t->urb->gather);
		/* Its 'C' record once the host has it, as the host's usbmon
		 * logs it, and off the reply's way (its bytes are the URB's
		 * until tx_free()). */
		if (t->urb)
			usbip__cap_complete(c->dev, t->urb, t->urb->x.status, t->urb->x.actual);
		tx_free(c, t);
	}
	return 0;
}

/* Answer every URB the engine has finished. */
static int answer_done(struct usbip__conn *c)
{
	USB_LIST_HEAD(done);
	int rc = 0;

	usbip__dev_process(c->dev, &done);
	while (!list_empty(&done)) {
		struct udcx_urb *u = list_first_entry(&done, struct udcx_urb, node);
		struct usbip__urb *urb = u->context;

		list_del_init(&u->node);
		if (urb == c->rx_urb)
			urb->early_done = true;	/* answered once its payload is in */
		else if (rc == 0)
			rc = queue_ret_submit(c, urb);
		else
			usbip__urb_free(c->dev, urb);
	}
	return rc;
}

/* ---- URB phase: receiving ---------------------------------------------- */

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
			rc = queue_ret_unlink(c, c->early_unlinks[0].seqnum, USBIP_STATUS_ECONNRESET);
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
		uncharge(c, urb);
		usbip__urb_free(c->dev, urb);
		return queue_ret_unlink(c, h->seqnum, USBIP_STATUS_ECONNRESET);
	}
	/* Already finished: its RET_SUBMIT goes first, then status 0. */
	rc = answer_done(c);
	if (rc < 0)
		return rc;
	return queue_ret_unlink(c, h->seqnum, 0);
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
			rc = queue_ret_unlink(c, e.seqnum, USBIP_STATUS_ECONNRESET);
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
	charge(c, urb);
	usbip__cap_submit(c->dev, urb);
	if (urb->streaming)
		return urb->early_done ? queue_ret_submit(c, urb) : answer_done(c);
	/* A control URB whose direction contradicts its SETUP is stalled:
	 * the engine would read an IN buffer as OUT data. */
	wlength = (uint16_t)(urb->x.setup.wLength);
	wlength = USB_LE16_TO_CPU(wlength);
	if (urb->epnum == 0 && wlength > 0 &&
	    ((urb->x.setup.bRequestType & USB_DIR_IN) != 0) != urb->dir_in) {
		urb->x.status = USBIP_STATUS_EPIPE;
		return queue_ret_submit(c, urb);
	}
	rc = usbip__urb_submit(c->dev, urb);
	if (rc < 0) {
		urb->x.status = rc;
		urb->x.actual = 0;
		return queue_ret_submit(c, urb);
	}
	return answer_done(c);
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
 * requests. For a streamed URB this takes dev->lock (rx_some() drops it).
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
static int rx_hold_ms(const struct usbip__conn *c)
{
	long left = RX_WAIT_NS - rx_waited_ns(c);

	return left <= 0 ? 1 : (int)((left + 999999L) / 1000000L);
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
static int rx_some(struct usbip__conn *c)
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
			rx_keep_copy(iov, niov, dst, n);	/* before the requests go */
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

/*
 * poll() for at most @timeout_ns (< 0: no limit). A paced interrupt
 * endpoint's service interval can be 125 us: with ppoll() the wait ends
 * at its slot; poll() alone rounds up to whole milliseconds (the rate
 * then falls short of intervals under a few ms).
 */
static int wait_fds(struct pollfd *p, nfds_t n, long long timeout_ns)
{
#ifdef COMPOSITE_HAVE_PPOLL
	struct timespec ts = { (time_t)(timeout_ns / 1000000000LL),
			       (long)(timeout_ns % 1000000000LL) };

	return ppoll(p, n, timeout_ns < 0 ? NULL : &ts, NULL);
#else
	return poll(p, n, timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999LL) / 1000000LL));
#endif
}

static void serve_urbs(struct usbip__conn *c)
{
	bool released;
	int rc = 0;

	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	while (rc == 0) {
		bool holding = c->rx_waiting;	/* the socket is not read now */
		struct pollfd p[2] = {
			{ c->fd, (short)((holding ? 0 : POLLIN) | (list_empty(&c->txq) ? 0 : POLLOUT)), 0 },
			{ c->wake[0], POLLIN, 0 }
		};
		bool buffered = !holding && c->rxb_off < c->rxb_len;
		bool kicked = atomic_exchange(&c->kicked, false);
		/* Paced interrupt endpoints: their slots that have come, and
		 * the time until the next one (-1: none). */
		long long timeout = usbip__dev_pace(c->dev);

		if (atomic_load(&c->killed))
			break;
		if (holding && (timeout < 0 || timeout > rx_hold_ms(c) * 1000000LL))
			timeout = rx_hold_ms(c) * 1000000LL;
		/* A capture's buffered records reach the file within a
		 * second, also while the host is quiet. */
		if (atomic_load_explicit(&c->dev->capturing, memory_order_relaxed)) {
			long long due = usbip__cap_due(c->dev);

			if (due >= 0 && (timeout < 0 || timeout > due))
				timeout = due;
		}
		/* Work at hand (bytes read ahead, or a completion here queued
		 * more): no poll, whose system call costs more than the read
		 * that tells an empty socket (or none, rx_read()). */
		if (!buffered && !kicked && timeout != 0 && wait_fds(p, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			usbip__conn_drain_wake(c);
		if (p[0].revents)
			c->rx_empty = false;
		if (atomic_load(&c->killed))
			break;
		if (buffered || holding || (kicked && !c->rx_empty) ||
		    (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			rc = rx_some(c);
		if (rc == 0)
			rc = answer_done(c);
		if (rc == 0)
			rc = tx_flush(c, &released);
		/* Sent replies gave their requests back: complete them now
		 * (their functions queue more), and send what that finished. */
		if (rc == 0 && released)
			rc = answer_done(c);
		if (rc == 0 && released)
			rc = tx_flush(c, &released);
	}
	if (rc == 1)
		usbip__log(c->srv, "%s: host closed the connection of %s", c->peer, c->dev->busid);
	else if (rc == -USB_ECONNRESET || rc == -USB_EIO)
		usbip__log(c->srv, "%s: connection of %s lost (%s)", c->peer, c->dev->busid,
			   usb_strerror(rc));
}

/* Unplug: the device forgets every URB; replies not yet sent are dropped. */
static void teardown_urbs(struct usbip__conn *c)
{
	USB_LIST_HEAD(done);

	usbip__dev_detach(c->dev, &done);
	while (!list_empty(&done)) {
		struct udcx_urb *u = list_first_entry(&done, struct udcx_urb, node);

		list_del_init(&u->node);
		if (u->context != c->rx_urb)	/* a streamed one: freed below */
			usbip__urb_free(c->dev, u->context);	/* conn_link points into freed memory: */
	}
	/* ... so the table is simply forgotten: every URB in it was pending
	 * in the engine and came back through detach. */
	usbip__urb_table_forget(&c->urbs);
	while (!list_empty(&c->txq)) {
		struct tx_item *t = list_first_entry(&c->txq, struct tx_item, link);

		list_del(&t->link);
		tx_free(c, t);
	}
	c->pending_bytes = 0;
	c->pending_urbs = 0;
	usbip__urb_free(c->dev, c->rx_urb);
	c->rx_urb = NULL;
	free(c->iso_buf);
	c->iso_buf = NULL;
	/* Requests the dropped replies held (if the functions did not
	 * disable their endpoints first) complete now. */
	usbip__dev_process(c->dev, &done);
	while (!list_empty(&done)) {
		struct udcx_urb *u = list_first_entry(&done, struct udcx_urb, node);

		list_del_init(&u->node);
		usbip__urb_free(c->dev, u->context);
	}
}

/* A secret for the URB table's hash, unknown to the client. */
static uint32_t hash_key(const struct usbip__conn *c)
{
	uint32_t key = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	struct timespec ts;

	if (fd >= 0) {
		if (read(fd, &key, sizeof(key)) != (ssize_t)sizeof(key))
			key = 0;
		close(fd);
	}
	if (key == 0) {
		/* No urandom (a sandbox): the clock and an address. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		key = (uint32_t)ts.tv_nsec ^ (uint32_t)(uintptr_t)c ^ 0x9e3779b9u;
	}
	return key;
}

/* After an import: serve the host's URBs until it goes, then unplug. */
static void urb_phase(struct usbip__conn *c)
{
	char msg[160];
	bool connected;
	int rc;

	usbip__log(c->srv, "%s imported %s", c->peer, c->dev->busid);
	c->devid = usbip__dev_devid(c->dev);
	rc = usbip__urb_table_init(&c->urbs, c->srv->cfg.max_pending_urbs, hash_key(c));
	if (rc < 0)
		usbip__log(c->srv, "%s: no memory for the URB table", c->dev->busid);
	/* ops->stop or the server's stop may have come first: no attach. */
	connected = rc == 0 && !atomic_load(&c->killed);
	if (connected) {
		rc = usbip__dev_attach(c->dev, usbip__dev_devnum(c->dev));
		if (rc < 0)
			usbip__log(c->srv, "%s: SET_ADDRESS failed (%s)", c->dev->busid,
				   usb_strerror(rc));
		snprintf(msg, sizeof(msg), "host %s connected to %s", c->peer, c->dev->busid);
		usbip__emit(c->srv, USBIP_EVENT_HOST_CONNECTED, c->dev, c->peer, 0, msg);
		serve_urbs(c);
	}
	teardown_urbs(c);
	usbip__cap_flush(c->dev);
	usbip__urb_table_fini(&c->urbs);
	usbip__dev_release(c->dev);
	if (connected) {
		snprintf(msg, sizeof(msg), "host %s disconnected from %s", c->peer, c->dev->busid);
		usbip__emit(c->srv, USBIP_EVENT_HOST_DISCONNECTED, c->dev, c->peer, 0, msg);
	}
}

void *usbip__conn_thread(void *arg)
{
	struct usbip__conn *c = arg;
	uint8_t ohb[USBIP_OP_HEADER_SIZE];
	struct usbip_op_header oh;
	char msg[160];
	int rc;

	c->self = pthread_self();
	atomic_store(&c->running, true);
	rc = usbip__op_read(c, ohb, sizeof(ohb));
	if (rc < 0) {
		if (rc == -USB_ENOTCONN)
			usbip__conn_hostile(c, "closed before a complete op header");
		else if (rc == -USB_ETIMEDOUT)
			usbip__conn_hostile(c, "no op request in time");
		goto out;
	}
	rc = usbip__decode_op_header(ohb, sizeof(ohb), &oh);
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "unsupported protocol version 0x%04x", oh.version);
		usbip__conn_hostile(c, msg);
		goto out;
	}
	switch (oh.code) {
	case USBIP_OP_REQ_DEVLIST:
		rc = usbip__op_devlist(c);
		break;
	case USBIP_OP_REQ_IMPORT:
		rc = usbip__op_import(c);
		if (rc != 0)
			break;
		urb_phase(c);
		break;
	default:
		snprintf(msg, sizeof(msg), "unknown op code 0x%04x", oh.code);
		usbip__conn_hostile(c, msg);
		break;
	}
out:
	shutdown(c->fd, SHUT_RDWR);
	close(c->fd);
	c->fd = -1;
	atomic_store(&c->finished, true);
	return NULL;
}
