/*
 * usbip_tx_posix.c - a connection's transmit side in the URB phase: the
 * queue of RET_SUBMIT / RET_UNLINK replies, written to the socket without
 * blocking, and the accounting of what the host has pending (conn's
 * pending_bytes / pending_urbs).
 *
 * Owns conn->txq and conn->tx_items, and the URBs on the queue (freed
 * once their reply is sent). Runs in the connection thread only. Takes
 * dev->lock while a gathering IN URB's reply is built from and sent out
 * of the request buffers it holds; hands each sent URB to the capture
 * for its 'C' record (capture_posix.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

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

/* Replies the host has not read yet, at most: past this it is not
 * reading at all, and the connection is closed rather than grow. */
#define MAX_TX_ITEMS 65536u

/* What @urb costs the connection, from its CMD_SUBMIT until its reply is
 * sent or it is unlinked: its bytes and one URB (zero-length ones too). */
void usbip__tx_charge(struct usbip__conn *c, const struct usbip__urb *urb)
{
	c->pending_bytes += urb->length;
	c->pending_urbs++;
}

void usbip__tx_uncharge(struct usbip__conn *c, const struct usbip__urb *urb)
{
	c->pending_bytes -= urb->length;
	c->pending_urbs--;
}

static void tx_free(struct usbip__conn *c, struct tx_item *t)
{
	if (t->urb)
		usbip__tx_uncharge(c, t->urb);
	usbip__urb_free(c->dev, t->urb);
	free(t->iso);
	free(t);
}

int usbip__tx_ret_unlink(struct usbip__conn *c, uint32_t seqnum, int status)
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
int usbip__tx_ret_submit(struct usbip__conn *c, struct usbip__urb *urb)
{
	struct tx_item *t = NULL;
	struct usbip_header h;
	int status = urb->x.status;

	if (c->tx_items < MAX_TX_ITEMS)
		t = calloc(1, sizeof(*t));
	if (!usbip__urb_table_remove(&c->urbs, urb))
		usbip__tx_charge(c, urb);		/* never counted: tx_free() uncharges */
	if (!t) {
		usbip__tx_uncharge(c, urb);
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
int usbip__tx_flush(struct usbip__conn *c, bool *released)
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
int usbip__tx_answer_done(struct usbip__conn *c)
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
			rc = usbip__tx_ret_submit(c, urb);
		else
			usbip__urb_free(c->dev, urb);
	}
	return rc;
}

void usbip__tx_drop_all(struct usbip__conn *c)
{
	while (!list_empty(&c->txq)) {
		struct tx_item *t = list_first_entry(&c->txq, struct tx_item, link);

		list_del(&t->link);
		c->tx_items--;
		tx_free(c, t);
	}
}
