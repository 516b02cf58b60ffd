/*
 * usbip_op_posix.c - the op phase of a USB/IP connection: exact reads and
 * writes that a kill or a stalled peer interrupts, and the answers to
 * OP_REQ_DEVLIST and OP_REQ_IMPORT (claiming the device on success).
 *
 * Touches the connection's socket and wake pipe (usbip_conn_posix.c owns
 * them), the server's device table and, through usbip__dev_describe() and
 * usbip__dev_claim(), the devices. Blocking by design: one request, one
 * reply, the whole of it bounded by the connection's op deadline (the
 * server's op_timeout_ms from the accept), however the bytes trickle in.
 * Leaves USBIP_OP_READING once the request is in (usbip__op_request_in).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "usbip_priv.h"

/* ---- op phase: exact blocking reads and writes, interruptible ---------- */

void usbip__conn_drain_wake(struct usbip__conn *c)
{
	char buf[64];
	ssize_t n;

	/* The pipe holds one byte (usbip__conn_wake()): one read takes it.
	 * Then a new wakeup may write again; the work it announces is done
	 * before its write, and the caller looks at the work after this. */
	n = read(c->wake[0], buf, sizeof(buf));
	(void)n;	/* EAGAIN is fine: nothing was there */
	atomic_store(&c->wake_pending, false);
}

/* Milliseconds left until @deadline (CLOCK_MONOTONIC), 0 when past. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/* Wait for @events on the socket, or a kill, until the op deadline.
 * Return 0, USB_ECONNABORTED, or USB_ETIMEDOUT. */
static int wait_fd(struct usbip__conn *c, short events)
{
	for (;;) {
		struct pollfd p[2] = { { c->fd, events, 0 }, { c->wake[0], POLLIN, 0 } };
		int n;

		int ms = ms_left(&c->op_deadline);

		if (atomic_load(&c->killed))
			return -USB_ECONNABORTED;
		if (ms == 0)
			return -USB_ETIMEDOUT;
		n = poll(p, 2, ms);
		if (n == 0)
			continue;	/* the deadline check says so */
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -USB_EIO;
		}
		if (p[1].revents)
			usbip__conn_drain_wake(c);
		if (atomic_load(&c->killed))
			return -USB_ECONNABORTED;
		if (p[0].revents)
			return 0;
	}
}

/* Read exactly @len bytes. Return 0; USB_ENOTCONN on EOF (before or
 * within the message); USB_ECONNRESET / USB_EIO on errors. */
int usbip__op_read(struct usbip__conn *c, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(c->fd, (uint8_t *)buf + got, len - got, 0);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -USB_ENOTCONN;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int rc = wait_fd(c, POLLIN);

			if (rc < 0)
				return rc;
			continue;
		}
		return errno == ECONNRESET ? -USB_ECONNRESET : -USB_EIO;
	}
	return 0;
}

static int write_exact(struct usbip__conn *c, const void *buf, size_t len)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t n = send(c->fd, (const uint8_t *)buf + sent, len - sent, MSG_NOSIGNAL);

		if (n >= 0) {
			sent += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int rc = wait_fd(c, POLLOUT);

			if (rc < 0)
				return rc;
			continue;
		}
		return -USB_EIO;
	}
	return 0;
}

int usbip__op_request_in(struct usbip__conn *c)
{
	int expected = USBIP_OP_READING;

	if (atomic_compare_exchange_strong(&c->op_state, &expected, USBIP_OP_SERVING))
		return 0;
	/* SERVING already: the accept loop found it whole in the socket. */
	return expected == USBIP_OP_SERVING ? 0 : -USB_ECONNABORTED;
}

int usbip__op_devlist(struct usbip__conn *c)
{
	struct usbip_server *srv = c->srv;
	/* Worst case: every configured device with USB_GADGET_MAX_INTERFACES
	 * interfaces (376 bytes each: 94 KiB for 256 devices, for the
	 * reply's lifetime only). */
	size_t cap = USBIP_OP_HEADER_SIZE + 4 +
		     (size_t)srv->ndev * (USBIP_DEVICE_SIZE + USB_GADGET_MAX_INTERFACES * USBIP_INTERFACE_SIZE);
	uint8_t *buf = malloc(cap);
	struct usbip_op_header oh = { USBIP_VERSION, USBIP_OP_REP_DEVLIST, USBIP_ST_OK };
	size_t off = USBIP_OP_HEADER_SIZE + 4;
	uint32_t ndev = 0;
	int rc = usbip__op_request_in(c);

	if (rc < 0 || !buf) {
		free(buf);
		return rc < 0 ? rc : -USB_ENOMEM;
	}
	usbip__encode_op_header(buf, cap, &oh);
	for (unsigned i = 0; i < srv->ndev; i++) {
		struct usbip_device_info info;
		struct usbip_interface_info intf[USB_GADGET_MAX_INTERFACES];
		int n = usbip__dev_describe(srv->devs[i], &info, intf, USB_GADGET_MAX_INTERFACES);

		if (n < 0)
			continue;	/* nothing bound: not offered */
		usbip__encode_device(buf + off, cap - off, &info);
		off += USBIP_DEVICE_SIZE;
		for (int k = 0; k < n; k++) {
			usbip__encode_interface(buf + off, cap - off, &intf[k]);
			off += USBIP_INTERFACE_SIZE;
		}
		ndev++;
	}
	usbip__put_be32(buf + USBIP_OP_HEADER_SIZE, ndev);
	rc = write_exact(c, buf, off);
	free(buf);
	return rc;
}

static struct usbip__dev *find_dev(struct usbip_server *srv, const char *busid)
{
	for (unsigned i = 0; i < srv->ndev; i++)
		if (strcmp(srv->devs[i]->busid, busid) == 0)
			return srv->devs[i];
	return NULL;
}

/* OP_REQ_IMPORT. Return 0 with c->dev claimed, 1 when refused (the reply
 * was sent), or a negative error. */
int usbip__op_import(struct usbip__conn *c)
{
	uint8_t body[USBIP_BUSID_SIZE];
	uint8_t out[USBIP_OP_HEADER_SIZE + USBIP_DEVICE_SIZE];
	struct usbip_op_header oh = { USBIP_VERSION, USBIP_OP_REP_IMPORT, USBIP_ST_OK };
	struct usbip_device_info info;
	struct usbip_interface_info intf[USB_GADGET_MAX_INTERFACES];
	char busid[USBIP_BUSID_SIZE];
	struct usbip__dev *dev;
	int rc;

	rc = usbip__op_read(c, body, sizeof(body));
	if (rc < 0)
		return rc == -USB_ENOTCONN ? usbip__conn_hostile(c, "truncated OP_REQ_IMPORT") : rc;
	if (usbip__decode_import_request(body, sizeof(body), busid) < 0)
		return usbip__conn_hostile(c, "OP_REQ_IMPORT busid not terminated");
	rc = usbip__op_request_in(c);
	if (rc < 0)
		return rc;
	dev = find_dev(c->srv, busid);
	if (!dev) {
		oh.status = USBIP_ST_NODEV;
	} else {
		rc = usbip__dev_claim(dev, c);
		if (rc == -USB_EBUSY)
			oh.status = USBIP_ST_DEV_BUSY;
		else if (rc < 0)
			oh.status = USBIP_ST_NODEV;
		else if (usbip__dev_describe(dev, &info, intf, USB_GADGET_MAX_INTERFACES) < 0) {
			usbip__dev_release(dev);
			oh.status = USBIP_ST_NODEV;
		}
	}
	usbip__encode_op_header(out, sizeof(out), &oh);
	if (oh.status != USBIP_ST_OK) {
		usbip__log(c->srv, "%s: import of \"%s\" refused: %s", c->peer, busid,
			   usbip__op_status_name(oh.status));
		rc = write_exact(c, out, USBIP_OP_HEADER_SIZE);
		return rc < 0 ? rc : 1;
	}
	usbip__encode_device(out + USBIP_OP_HEADER_SIZE, sizeof(out) - USBIP_OP_HEADER_SIZE, &info);
	rc = write_exact(c, out, sizeof(out));
	if (rc < 0) {
		usbip__dev_release(dev);
		return rc;
	}
	c->dev = dev;
	atomic_store(&c->op_state, USBIP_OP_IMPORTED);	/* no longer an op slot */
	return 0;
}
