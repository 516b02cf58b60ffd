/*
 * usbip_conn_posix.c - one USB/IP connection's lifecycle, in a thread of
 * its own: the op phase (OP_REQ_DEVLIST, OP_REQ_IMPORT, answered by
 * usbip_op_posix.c) and, after an import, the URB phase's loop until the
 * host goes, then the unplug.
 *
 * Owns the connection object, its socket and wake pipe, and the thread.
 * In the URB phase the thread is the gadget's event context: a poll loop
 * that always reads the socket (vhci's sender must never block on us;
 * usbip_rx_posix.c), drains the wake pipe written by ep ops from any
 * thread, answers what the transfer engine finished and writes replies
 * without blocking (usbip_tx_posix.c). At the unplug it frees every URB
 * the host submitted and has not yet been answered.
 *
 * Hostile input (wrong version, unknown op or command, oversized or
 * inconsistent lengths, duplicate or unknown seqnums) ends this connection
 * with a log line and a USBIP_EVENT_PROTOCOL_ERROR (usbip__conn_hostile()).
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
	atomic_init(&c->wake_pending, false);
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
	/* One byte in the pipe at a time: the wakeups that come before the
	 * thread ran cost no system call (usbip__conn_drain_wake()). */
	if (atomic_exchange(&conn->wake_pending, true))
		return;
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
		if (holding && (timeout < 0 || timeout > usbip__rx_hold_ms(c) * 1000000LL))
			timeout = usbip__rx_hold_ms(c) * 1000000LL;
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
			rc = usbip__rx_some(c);
		if (rc == 0)
			rc = usbip__tx_answer_done(c);
		if (rc == 0)
			rc = usbip__tx_flush(c, &released);
		/* Sent replies gave their requests back: complete them now
		 * (their functions queue more), and send what that finished. */
		if (rc == 0 && released)
			rc = usbip__tx_answer_done(c);
		if (rc == 0 && released)
			rc = usbip__tx_flush(c, &released);
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
	usbip__tx_drop_all(c);
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
