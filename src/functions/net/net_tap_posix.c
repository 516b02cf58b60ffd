/*
 * net_tap_posix.c - the TAP bridge of composite/net_tap.h: a Linux TAP
 * interface (IFF_TAP | IFF_NO_PI) whose frames a thread hands to
 * usb_net_send(), waiting on the function's writable callback when the
 * queue is full; the host's frames are written to the interface from the
 * event context (non-blocking: a full interface drops, counted). The
 * carrier follows the link (TUNSETCARRIER) of the current function
 * (fn_set.h: one per configuration linking the instance). POSIX adapter
 * (Linux).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if.h>
#include <linux/if_tun.h>

#include "composite/net_tap.h"
#include "functions/common/fn_set.h"

#ifndef TUNSETCARRIER
#define TUNSETCARRIER _IOW('T', 226, int)
#endif

/* Frames read from the interface per wake-up. */
#define TAP_READ_BURST 64

struct net_tap {
	int fd;
	int wake[2];		/* writable / stop: a byte wakes the thread */
	char name[USB_NET_IFNAMSIZ];
	struct fn_set fs;	/* the functions started on, one per configuration */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	atomic_ullong to_host, from_host, dropped;
};

static void wake(struct net_tap *t)
{
	char b = 1;

	(void)!write(t->wake[1], &b, 1);
}

/* ---- the function's callbacks (event context, except unbind) -------------- */

static void tap_rx(struct usb_function *f, void *ctx, const void *frame, size_t len)
{
	struct net_tap *t = ctx;

	(void)f;
	if (write(t->fd, frame, len) == (ssize_t)len)
		atomic_fetch_add(&t->from_host, 1);
	else
		atomic_fetch_add(&t->dropped, 1);	/* the interface is down or full */
}

/* The carrier is the current function's link: a configuration the host
 * leaves closes its link before the one it chooses opens its own. */
static void tap_link(struct usb_function *f, void *ctx, bool up)
{
	struct net_tap *t = ctx;
	int on = up;

	if (up ? !fn_set_follow(&t->fs, f) : !fn_set_is_current(&t->fs, f))
		return;
	(void)ioctl(t->fd, TUNSETCARRIER, &on);
	usb_composite_log("%s: host %s the link", t->name, up ? "opened" : "closed");
}

static void tap_writable(struct usb_function *f, void *ctx)
{
	(void)f;
	wake(ctx);
}

static void stop_thread(struct net_tap *t)
{
	if (!t->started)
		return;
	atomic_store(&t->stop, true);
	wake(t);
	pthread_join(t->thread, NULL);
	t->started = false;
}

static void tap_unbind(struct usb_function *f, void *ctx)
{
	(void)f;
	stop_thread(ctx);
}

static const struct usb_net_ops tap_ops = {
	.rx = tap_rx, .link = tap_link, .writable = tap_writable, .unbind = tap_unbind,
};

/* ---- the thread: interface -> host ---------------------------------------- */

static void drain_wake(struct net_tap *t)
{
	char b[64];

	while (read(t->wake[0], b, sizeof(b)) > 0)
		;
}

static long send_to(struct usb_function *f, void *arg)
{
	const struct fn_set_bytes *fr = arg;

	return usb_net_send(f, fr->data, fr->len);
}

/* Send one frame, waiting while the queue is full. False: stop. */
static bool send_frame(struct net_tap *t, const uint8_t *frame, size_t len)
{
	struct fn_set_bytes fr = { frame, len };

	for (;;) {
		struct pollfd w = { .fd = t->wake[0], .events = POLLIN };
		long rc = fn_set_try(&t->fs, send_to, &fr);

		if (rc == 0) {
			atomic_fetch_add(&t->to_host, 1);
			return true;
		}
		if (rc != -USB_EAGAIN) {
			atomic_fetch_add(&t->dropped, 1);	/* link closed, or not a frame */
			return true;
		}
		/* Bounded: a writable callback may race the full queue. */
		(void)poll(&w, 1, 10);
		drain_wake(t);
		if (atomic_load(&t->stop))
			return false;
	}
}

static void *tap_thread(void *arg)
{
	struct net_tap *t = arg;
	uint8_t frame[USB_NET_FRAME_MAX + 4];

	while (!atomic_load(&t->stop)) {
		struct pollfd fds[2] = {
			{ .fd = t->fd, .events = POLLIN }, { .fd = t->wake[0], .events = POLLIN },
		};
		ssize_t n;

		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			drain_wake(t);
		if (!(fds[0].revents & POLLIN))
			continue;
		/* What the interface holds, without a poll per frame (the fd
		 * is non-blocking); bounded, so a stop is seen. */
		for (int k = 0; k < TAP_READ_BURST; k++) {
			n = read(t->fd, frame, sizeof(frame));
			if (n <= 0)
				break;
			if (!send_frame(t, frame, (size_t)n))
				return NULL;
		}
	}
	return NULL;
}

/* ---- setup ---------------------------------------------------------------------- */

/* @name, cut to IFNAMSIZ - 1 bytes, into @ifr (zeroed). */
static void set_ifr_name(struct ifreq *ifr, const char *name)
{
	size_t n = strnlen(name, IFNAMSIZ - 1);

	memcpy(ifr->ifr_name, name, n);
	ifr->ifr_name[n] = '\0';
}

/* The MAC address and MTU, through a socket's interface ioctls. */
static int configure(const char *name, const uint8_t addr[USB_NET_ALEN])
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	set_ifr_name(&ifr, name);
	ifr.ifr_hwaddr.sa_family = 1;	/* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, addr, USB_NET_ALEN);
	if (ioctl(s, SIOCSIFHWADDR, &ifr) < 0)
		rc = -errno;
	ifr.ifr_mtu = USB_NET_MTU;
	if (rc == 0 && ioctl(s, SIOCSIFMTU, &ifr) < 0)
		rc = -errno;
	close(s);
	return rc;
}

static int open_tap(struct net_tap *t, const char *ifname)
{
	struct ifreq ifr;
	int off = 0;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	set_ifr_name(&ifr, ifname);
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0)
		return -errno;
	memcpy(t->name, ifr.ifr_name, IFNAMSIZ);
	t->name[IFNAMSIZ - 1] = '\0';
	/* No host yet: no carrier. Kernels before 5.0 lack it; harmless. */
	(void)ioctl(t->fd, TUNSETCARRIER, &off);
	return 0;
}

int net_tap_create(struct net_tap **out, char ifname[USB_NET_IFNAMSIZ],
		   const uint8_t dev_addr[USB_NET_ALEN], const struct usb_net_ops **ops,
		   void **ctx)
{
	struct net_tap *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return -USB_ENOMEM;
	t->fd = -1;
	fn_set_init(&t->fs);
	if (pipe2(t->wake, O_NONBLOCK | O_CLOEXEC) < 0) {
		rc = -errno;
		free(t);
		return rc;
	}
	rc = open_tap(t, ifname);
	if (rc == 0)
		rc = configure(t->name, dev_addr);
	if (rc) {
		net_tap_destroy(t);
		return rc;
	}
	memcpy(ifname, t->name, USB_NET_IFNAMSIZ);
	*ops = &tap_ops;
	*ctx = t;
	*out = t;
	return 0;
}

const char *net_tap_name(const struct net_tap *t)
{
	return t->name;
}

int net_tap_start(struct net_tap *t, struct usb_function *f)
{
	int rc = fn_set_add(&t->fs, f);

	if (rc < 0 || t->started)
		return rc;
	atomic_store(&t->stop, false);
	if (pthread_create(&t->thread, NULL, tap_thread, t)) {
		fn_set_init(&t->fs);
		return -USB_EAGAIN;
	}
	t->started = true;
	return 0;
}

void net_tap_counts(const struct net_tap *t, unsigned long long *to_host,
		    unsigned long long *from_host, unsigned long long *dropped)
{
	struct net_tap *m = (struct net_tap *)t;

	*to_host = atomic_load(&m->to_host);
	*from_host = atomic_load(&m->from_host);
	*dropped = atomic_load(&m->dropped);
}

void net_tap_destroy(struct net_tap *t)
{
	if (!t)
		return;
	stop_thread(t);
	if (t->fd >= 0)
		close(t->fd);
	close(t->wake[0]);
	close(t->wake[1]);
	free(t);
}
