/*
 * usbip_client.c - the test client (usbip_client.h): blocking sockets,
 * exact reads, the library's codec for every PDU.
 */
#define _POSIX_C_SOURCE 200809L

#include "usbip_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

int uc_connect(unsigned port)
{
	struct sockaddr_in sa;
	struct timeval tv = { 10, 0 };
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

int uc_write_all(int fd, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, (const uint8_t *)buf + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* Header and payload in one send, as vhci's tx thread sends a PDU (one
 * kernel_sendmsg() of an iovec): the server sees them arrive together. */
static int write_pdu(int fd, const uint8_t *hdr, size_t hlen, const void *data, size_t len)
{
	size_t off = 0, total = hlen + len;

	while (off < total) {
		struct iovec iov[2];
		struct msghdr m;
		int n = 0;
		ssize_t w;

		if (off < hlen)
			iov[n++] = (struct iovec){ (void *)(hdr + off), hlen - off };
		if (len)
			iov[n++] = (struct iovec){ (uint8_t *)data + (off > hlen ? off - hlen : 0),
						   off > hlen ? len - (off - hlen) : len };
		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		m.msg_iovlen = (size_t)n;
		w = sendmsg(fd, &m, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int uc_read_all(int fd, void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = recv(fd, (uint8_t *)buf + off, len - off, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

bool uc_peer_closed(int fd)
{
	uint8_t b;
	ssize_t n;

	do
		n = recv(fd, &b, 1, 0);
	while (n < 0 && errno == EINTR);
	/* EOF or reset; a timeout (EAGAIN) means still open. */
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

static int send_op(int fd, uint16_t code)
{
	struct usbip_op_header h = { USBIP_VERSION, code, 0 };
	uint8_t b[USBIP_OP_HEADER_SIZE];

	usbip__encode_op_header(b, sizeof(b), &h);
	return uc_write_all(fd, b, sizeof(b));
}

static int recv_op(int fd, uint16_t code, uint32_t *status)
{
	uint8_t b[USBIP_OP_HEADER_SIZE];
	struct usbip_op_header h;

	if (uc_read_all(fd, b, sizeof(b)) < 0 || usbip__decode_op_header(b, sizeof(b), &h) < 0 ||
	    h.code != code)
		return -1;
	*status = h.status;
	return 0;
}

int uc_devlist(unsigned port, struct uc_devrec *devs, unsigned max)
{
	uint8_t b[USBIP_DEVICE_SIZE];
	uint32_t status, n;
	int fd = uc_connect(port), rc = -1;

	if (fd < 0)
		return -1;
	if (send_op(fd, USBIP_OP_REQ_DEVLIST) < 0 || recv_op(fd, USBIP_OP_REP_DEVLIST, &status) < 0 ||
	    status != 0 || uc_read_all(fd, b, 4) < 0)
		goto out;
	n = usbip__get_be32(b);
	if (n > max)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		if (uc_read_all(fd, b, USBIP_DEVICE_SIZE) < 0 ||
		    usbip__decode_device(b, USBIP_DEVICE_SIZE, &devs[i].info) < 0 ||
		    devs[i].info.bNumInterfaces > UC_MAX_INTF)
			goto out;
		for (unsigned k = 0; k < devs[i].info.bNumInterfaces; k++) {
			if (uc_read_all(fd, b, USBIP_INTERFACE_SIZE) < 0)
				goto out;
			usbip__decode_interface(b, USBIP_INTERFACE_SIZE, &devs[i].intf[k]);
		}
	}
	/* The server closes a DEVLIST connection after the reply. */
	rc = uc_peer_closed(fd) ? (int)n : -1;
out:
	close(fd);
	return rc;
}

int uc_import(struct uc *c, unsigned port, const char *busid, struct usbip_device_info *info)
{
	uint8_t b[USBIP_DEVICE_SIZE];
	uint32_t status;

	memset(c, 0, sizeof(*c));
	c->next_seq = 1;
	c->fd = uc_connect(port);
	if (c->fd < 0)
		return -1;
	if (send_op(c->fd, USBIP_OP_REQ_IMPORT) < 0 ||
	    usbip__encode_import_request(b, sizeof(b), busid) < 0 ||
	    uc_write_all(c->fd, b, USBIP_BUSID_SIZE) < 0 ||
	    recv_op(c->fd, USBIP_OP_REP_IMPORT, &status) < 0)
		goto fail;
	if (status != 0) {
		uc_close(c);
		return (int)status;
	}
	if (uc_read_all(c->fd, b, USBIP_DEVICE_SIZE) < 0 ||
	    usbip__decode_device(b, USBIP_DEVICE_SIZE, info) < 0 || strcmp(info->busid, busid) != 0)
		goto fail;
	c->devid = info->busnum << 16 | info->devnum;
	return 0;
fail:
	uc_close(c);
	return -1;
}

void uc_close(struct uc *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void remember(struct uc *c, uint32_t seq, bool in, uint32_t npackets)
{
	for (unsigned i = 0; i < UC_MAX_OUTSTANDING; i++) {
		if (!c->out[i].used) {
			c->out[i].used = true;
			c->out[i].seq = seq;
			c->out[i].in = in;
			c->out[i].npackets = npackets;
			return;
		}
	}
}

/* Return 1 IN, 0 OUT, -1 unknown (and forget it). */
static int forget(struct uc *c, uint32_t seq, uint32_t *npackets)
{
	for (unsigned i = 0; i < UC_MAX_OUTSTANDING; i++) {
		if (c->out[i].used && c->out[i].seq == seq) {
			c->out[i].used = false;
			*npackets = c->out[i].npackets;
			return c->out[i].in;
		}
	}
	return -1;
}

uint32_t uc_submit(struct uc *c, unsigned ep, bool in, const uint8_t *setup,
		   const void *data, uint32_t len, uint32_t flags)
{
	struct usbip_header h;
	uint8_t b[USBIP_URB_HEADER_SIZE];

	memset(&h, 0, sizeof(h));
	/* Gaps, as vhci's per-hub counter leaves them. */
	c->next_seq += 2;
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = c->next_seq;
	h.devid = c->devid;
	h.direction = in ? USBIP_DIR_IN : USBIP_DIR_OUT;
	h.ep = ep;
	h.u.cmd_submit.transfer_flags = flags | (in ? USBIP_URB_DIR_IN : 0);
	h.u.cmd_submit.transfer_buffer_length = len;
	if (setup)
		memcpy(h.u.cmd_submit.setup, setup, 8);
	usbip__encode_header(b, sizeof(b), &h);
	if (write_pdu(c->fd, b, sizeof(b), data, in ? 0 : len) < 0)
		return 0;
	remember(c, h.seqnum, in, 0);
	return h.seqnum;
}

uint32_t uc_submit_iso(struct uc *c, unsigned ep, bool in, const void *data, uint32_t len,
		       const struct usbip_iso_desc *iso, uint32_t n)
{
	struct usbip_header h;
	uint8_t b[USBIP_URB_HEADER_SIZE];

	if (n > UC_MAX_ISO)
		return 0;
	memset(&h, 0, sizeof(h));
	c->next_seq += 2;
	h.command = USBIP_CMD_SUBMIT;
	h.seqnum = c->next_seq;
	h.devid = c->devid;
	h.direction = in ? USBIP_DIR_IN : USBIP_DIR_OUT;
	h.ep = ep;
	h.u.cmd_submit.transfer_flags = USBIP_URB_ISO_ASAP | (in ? USBIP_URB_DIR_IN : 0);
	h.u.cmd_submit.transfer_buffer_length = len;
	h.u.cmd_submit.number_of_packets = n;
	h.u.cmd_submit.interval = 1;
	usbip__encode_header(b, sizeof(b), &h);
	if (uc_write_all(c->fd, b, sizeof(b)) < 0)
		return 0;
	if (!in && len && uc_write_all(c->fd, data, len) < 0)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t d[USBIP_ISO_DESC_SIZE];

		usbip__encode_iso_desc(d, sizeof(d), &iso[i]);
		if (uc_write_all(c->fd, d, sizeof(d)) < 0)
			return 0;
	}
	remember(c, h.seqnum, in, n);
	return h.seqnum;
}

uint32_t uc_unlink(struct uc *c, uint32_t target)
{
	struct usbip_header h;
	uint8_t b[USBIP_URB_HEADER_SIZE];

	memset(&h, 0, sizeof(h));
	c->next_seq += 1;
	h.command = USBIP_CMD_UNLINK;
	h.seqnum = c->next_seq;
	h.devid = c->devid;
	h.u.cmd_unlink.unlink_seqnum = target;
	usbip__encode_header(b, sizeof(b), &h);
	return uc_write_all(c->fd, b, sizeof(b)) < 0 ? 0 : h.seqnum;
}

int uc_recv(struct uc *c, struct uc_reply *r, void *buf, size_t cap)
{
	uint8_t b[USBIP_URB_HEADER_SIZE];
	uint32_t npackets = 0;
	int in;

	memset(r, 0, sizeof(*r));
	if (uc_read_all(c->fd, b, sizeof(b)) < 0 || usbip__decode_header(b, sizeof(b), &r->h) < 0)
		return -1;
	if (r->h.command == USBIP_RET_UNLINK)
		return 0;
	if (r->h.command != USBIP_RET_SUBMIT)
		return -1;
	in = forget(c, r->h.seqnum, &npackets);
	if (in < 0)
		return -1;	/* a RET_SUBMIT for a seqnum we do not hold */
	if (in && r->h.u.ret_submit.actual_length) {
		if (r->h.u.ret_submit.actual_length > cap)
			return -1;
		if (uc_read_all(c->fd, buf, r->h.u.ret_submit.actual_length) < 0)
			return -1;
		r->data_len = r->h.u.ret_submit.actual_length;
	}
	if (npackets) {
		/* An ISO reply carries as many descriptors as were sent. */
		if (r->h.u.ret_submit.number_of_packets != npackets)
			return -1;
		for (uint32_t i = 0; i < npackets; i++) {
			uint8_t d[USBIP_ISO_DESC_SIZE];

			if (uc_read_all(c->fd, d, sizeof(d)) < 0)
				return -1;
			usbip__decode_iso_desc(d, sizeof(d), &r->iso[i]);
		}
		r->npackets = npackets;
	}
	return 0;
}

int uc_control(struct uc *c, uint8_t bRequestType, uint8_t bRequest, uint16_t wValue,
	       uint16_t wIndex, uint16_t wLength, void *data, uint32_t *actual)
{
	uint8_t setup[8] = {
		bRequestType, bRequest, (uint8_t)wValue, (uint8_t)(wValue >> 8),
		(uint8_t)wIndex, (uint8_t)(wIndex >> 8), (uint8_t)wLength, (uint8_t)(wLength >> 8)
	};
	bool in = (bRequestType & 0x80) != 0;
	struct uc_reply r;
	uint32_t seq = uc_submit(c, 0, in, setup, data, wLength, 0);

	if (!seq || uc_recv(c, &r, data, wLength) < 0 || r.h.command != USBIP_RET_SUBMIT ||
	    r.h.seqnum != seq)
		return -1000;
	if (actual)
		*actual = r.h.u.ret_submit.actual_length;
	return r.h.u.ret_submit.status;
}

int uc_transfer(struct uc *c, unsigned ep, bool in, void *data, uint32_t len,
		uint32_t flags, uint32_t *actual)
{
	struct uc_reply r;
	uint32_t seq = uc_submit(c, ep, in, NULL, data, len, flags);

	if (!seq || uc_recv(c, &r, data, len) < 0 || r.h.command != USBIP_RET_SUBMIT ||
	    r.h.seqnum != seq)
		return -1000;
	if (actual)
		*actual = r.h.u.ret_submit.actual_length;
	return r.h.u.ret_submit.status;
}
