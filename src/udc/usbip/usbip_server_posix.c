/*
 * usbip_server_posix.c - the USB/IP server: listening socket (and what it
 * says about the address), accept loop with the op-phase slots (caps in
 * all and per peer address, eviction of the oldest connection still
 * reading its request), connection threads, stop through a self-pipe,
 * logging and events, and the device records of OP_REP_DEVLIST /
 * OP_REP_IMPORT.
 *
 * Owns struct usbip_server, its devices (usbip_udc_posix.c) and the list of
 * connections (usbip_conn_posix.c), which it joins; sets a connection's
 * op-phase fields before its thread starts and only CASes op_state after
 * (usbip_priv.h). Reads a bound composite device's descriptors (under the
 * device's lock, while it is started) to describe it; touches nothing else
 * of the core.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "usbip_priv.h"

void usbip_server_config_init(struct usbip_server_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->address = "127.0.0.1";
	cfg->port = USBIP_PORT_DEFAULT;
	cfg->num_devices = 1;
	cfg->busnum = 1;
	cfg->speed = USB_SPEED_HIGH;
	cfg->op_timeout_ms = 10000;
	cfg->max_op_connections = 32;
	cfg->max_op_connections_per_peer = 8;
	cfg->max_urb_bytes = 4u << 20;
	cfg->max_pending_bytes = 64u << 20;
	cfg->max_pending_urbs = 4096;
}

void usbip__log(struct usbip_server *srv, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (srv->cfg.log)
		srv->cfg.log(srv->cfg.ctx, line);
	else
		fprintf(stderr, "usbip: %s\n", line);
}

void usbip__emit(struct usbip_server *srv, enum usbip_event_type type,
		 const struct usbip__dev *dev, const char *peer, unsigned config,
		 const char *message)
{
	struct usbip_event ev;

	if (!srv->cfg.event)
		return;
	ev.type = type;
	ev.device = dev ? (int)dev->index : -1;
	ev.busid = dev ? dev->busid : "";
	ev.peer = peer ? peer : "";
	ev.config = config;
	ev.message = message ? message : "";
	srv->cfg.event(srv->cfg.ctx, &ev);
}

/* ---- device records ------------------------------------------------------ */

/* Which configuration a listing shows: the one the host selected (as the
 * connection thread last reported it, so the core's active configuration
 * is not read across threads), else the first. */
static unsigned shown_index(struct usb_gadget *gadget, unsigned value)
{
	int i = value ? usb_gadget_config_index(gadget, value) : -USB_ENOENT;

	return i >= 0 ? (unsigned)i : 0;
}

int usbip__dev_describe(struct usbip__dev *dev, struct usbip_device_info *info,
			struct usbip_interface_info *intf, unsigned max)
{
	struct usb_device_descriptor d;
	struct usb_gadget_config_info ci;
	enum usb_device_speed speed;
	int n, count;

	pthread_mutex_lock(&dev->lock);
	if (!dev->started || usb_gadget_device_descriptor(&dev->gadget, &d) < 0) {
		pthread_mutex_unlock(&dev->lock);
		return -USB_ENODEV;
	}
	memset(info, 0, sizeof(*info));
	snprintf(info->path, sizeof(info->path), "/libcomposite/usbip/%s", dev->busid);
	snprintf(info->busid, sizeof(info->busid), "%s", dev->busid);
	info->busnum = usbip__dev_busnum(dev);
	info->devnum = usbip__dev_devnum(dev);
	speed = usbip__dev_speed(dev);
	info->speed = (uint32_t)speed;
	info->idVendor = USB_LE16_TO_CPU(d.idVendor);
	info->idProduct = USB_LE16_TO_CPU(d.idProduct);
	info->bcdDevice = USB_LE16_TO_CPU(d.bcdDevice);
	info->bDeviceClass = d.bDeviceClass;
	info->bDeviceSubClass = d.bDeviceSubClass;
	info->bDeviceProtocol = d.bDeviceProtocol;
	info->bNumConfigurations = d.bNumConfigurations;
	count = usb_gadget_interface_classes(&dev->gadget,
					     shown_index(&dev->gadget, dev->last_config), speed, &ci);
	n = 0;
	if (count >= 0) {
		info->bConfigurationValue = ci.bConfigurationValue;
		for (; n < count && (unsigned)n < max; n++) {
			intf[n].bInterfaceClass = ci.intf[n].bInterfaceClass;
			intf[n].bInterfaceSubClass = ci.intf[n].bInterfaceSubClass;
			intf[n].bInterfaceProtocol = ci.intf[n].bInterfaceProtocol;
		}
	}
	info->bNumInterfaces = (uint8_t)n;
	pthread_mutex_unlock(&dev->lock);
	return n;
}

/* ---- creation ------------------------------------------------------------ */

static int set_cloexec_nonblock(int fd)
{
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* The resolver's failure as an error number (its text goes to the log). */
static int gai_error(int err)
{
	switch (err) {
	case EAI_AGAIN:
		return -USB_EAGAIN;
	case EAI_MEMORY:
		return -USB_ENOMEM;
	case EAI_SYSTEM:
		return -USB_EIO;
	default:	/* EAI_NONAME, EAI_FAIL, EAI_NODATA, EAI_FAMILY... */
		return -USB_EADDRNOTAVAIL;
	}
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		return (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)ss;
		const uint8_t *a = sin6->sin6_addr.s6_addr;

		return IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr) && a[12] == 127);
	}
	return false;
}

static int open_listener(struct usbip_server *srv)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct sockaddr_storage ss;
	char portstr[16];
	int rc = -USB_EADDRNOTAVAIL, fd = -1, gai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(portstr, sizeof(portstr), "%u", srv->cfg.port);
	gai = getaddrinfo(srv->address, portstr, &hints, &res);
	if (gai != 0) {
		usbip__log(srv, "cannot resolve address \"%s\": %s", srv->address,
			   gai == EAI_SYSTEM ? strerror(errno) : gai_strerror(gai));
		return gai_error(gai);
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1;
		socklen_t len = sizeof(ss);

		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0) {
			rc = -USB_EIO;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			rc = errno == EADDRINUSE ? -USB_EADDRINUSE :
			     errno == EADDRNOTAVAIL ? -USB_EADDRNOTAVAIL : -USB_EIO;
			close(fd);
			fd = -1;
			continue;
		}
		/* A deep backlog: a flood must not push a real host's SYN out
		 * while the accept loop catches up (it drains it each turn). */
		if (listen(fd, SOMAXCONN) < 0 || set_cloexec_nonblock(fd) < 0 ||
		    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
			rc = -USB_EIO;
			close(fd);
			fd = -1;
			continue;
		}
		srv->port = ntohs(ss.ss_family == AF_INET6 ?
					  ((struct sockaddr_in6 *)&ss)->sin6_port :
					  ((struct sockaddr_in *)&ss)->sin_port);
		rc = 0;
		break;
	}
	freeaddrinfo(res);
	if (rc < 0) {
		usbip__log(srv, "cannot listen on %s port %u: %s", srv->address, srv->cfg.port,
			   usb_strerror(rc));
		return rc;
	}
	srv->listen_fd = fd;
	if (!is_loopback(&ss))
		usbip__log(srv, "warning: listening on %s, not a loopback address: every host "
			   "that reaches port %u can list and import the devices, with no "
			   "authentication", srv->address, srv->port);
	return 0;
}

/* cfg.capture_dir: the device's file there, from the start. */
static int capture_to_dir(struct usbip_server *srv, struct usbip__dev *dev)
{
	int rc;

	if (!srv->cfg.capture_dir)
		return 0;
	rc = usbip__cap_set(dev, srv->cfg.capture_dir);
	if (rc < 0)
		usbip__log(srv, "%s: cannot capture to %s/usbip-%s.pcap: %s", dev->busid,
			   srv->cfg.capture_dir, dev->busid, usb_strerror(rc));
	return rc;
}

int usbip_server_set_capture(struct usbip_server *server, unsigned index, const char *path)
{
	if (!server || index >= server->ndev)
		return -USB_EINVAL;
	return usbip__cap_set(server->devs[index], path);
}

int usbip_server_detach(struct usbip_server *server, unsigned index)
{
	struct usbip__dev *dev;
	bool attached;

	if (!server || index >= server->ndev)
		return -USB_EINVAL;
	dev = server->devs[index];
	pthread_mutex_lock(&dev->lock);
	attached = dev->conn && !dev->unplugging;
	if (attached)
		usbip__conn_kill(dev->conn);	/* as g_stop(): dev->conn lives while set */
	pthread_mutex_unlock(&dev->lock);
	return attached ? 0 : -USB_ENOTCONN;
}

int usbip_server_create(const struct usbip_server_config *cfg, struct usbip_server **out)
{
	struct usbip_server *srv;
	int rc;

	if (!cfg || !out || cfg->num_devices < 1 || cfg->num_devices > USBIP_MAX_DEVICES ||
	    cfg->busnum < 1 || cfg->busnum + (cfg->num_devices - 1) / USBIP_DEVS_PER_BUS > 255 ||
	    cfg->port > 65535 ||
	    (cfg->speed != USB_SPEED_FULL && cfg->speed != USB_SPEED_HIGH &&
	     cfg->speed != USB_SPEED_SUPER) ||
	    cfg->op_timeout_ms == 0 || cfg->max_op_connections == 0 ||
	    cfg->max_op_connections_per_peer == 0 ||
	    cfg->max_op_connections_per_peer > cfg->max_op_connections ||
	    cfg->max_urb_bytes == 0 || cfg->max_urb_bytes > 0xffffffffu ||
	    cfg->max_pending_bytes < cfg->max_urb_bytes || cfg->max_pending_urbs == 0)
		return -USB_EINVAL;
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -USB_ENOMEM;
	srv->cfg = *cfg;
	srv->devs = calloc(cfg->num_devices, sizeof(*srv->devs));
	if (!srv->devs) {
		rc = -USB_ENOMEM;
		goto fail_free;
	}
	snprintf(srv->address, sizeof(srv->address), "%s", cfg->address ? cfg->address : "127.0.0.1");
	srv->cfg.address = srv->address;
	srv->listen_fd = -1;
	INIT_LIST_HEAD(&srv->conns);
	if (pthread_mutex_init(&srv->lock, NULL) != 0) {
		rc = -USB_ENOMEM;
		goto fail_free;
	}
	if (pipe(srv->stop_pipe) != 0) {
		rc = -USB_EIO;
		goto fail_mutex;
	}
	set_cloexec_nonblock(srv->stop_pipe[0]);
	set_cloexec_nonblock(srv->stop_pipe[1]);
	rc = open_listener(srv);
	if (rc < 0)
		goto fail_pipe;
	for (unsigned i = 0; i < cfg->num_devices; i++) {
		rc = usbip__dev_create(srv, i, &srv->devs[i]);
		if (rc < 0)
			goto fail_devs;
		srv->ndev++;
		rc = capture_to_dir(srv, srv->devs[i]);
		if (rc < 0)
			goto fail_devs;
	}
	srv->cfg.capture_dir = NULL;	/* borrowed: used up */
	*out = srv;
	return 0;

fail_devs:
	while (srv->ndev > 0)
		usbip__dev_destroy(srv->devs[--srv->ndev]);
	close(srv->listen_fd);
fail_pipe:
	close(srv->stop_pipe[0]);
	close(srv->stop_pipe[1]);
fail_mutex:
	pthread_mutex_destroy(&srv->lock);
fail_free:
	free(srv->devs);
	free(srv);
	return rc;
}

unsigned usbip_server_port(const struct usbip_server *server)
{
	return server->port;
}

unsigned usbip_server_num_devices(const struct usbip_server *server)
{
	return server->ndev;
}

struct usb_gadget *usbip_server_gadget(struct usbip_server *server, unsigned index)
{
	return index < server->ndev ? &server->devs[index]->gadget : NULL;
}

const char *usbip_server_busid(const struct usbip_server *server, unsigned index)
{
	return index < server->ndev ? server->devs[index]->busid : NULL;
}

/* ---- serving ------------------------------------------------------------- */

/* Join connections whose thread has ended (all of them with @all). */
static void reap(struct usbip_server *srv, bool all)
{
	struct list_head *pos, *tmp;
	USB_LIST_HEAD(dead);

	pthread_mutex_lock(&srv->lock);
	list_for_each_safe(pos, tmp, &srv->conns) {
		struct usbip__conn *c = usbip__conn_from_srv_link(pos);

		if (all || usbip__conn_finished(c))
			list_move_tail(pos, &dead);
	}
	pthread_mutex_unlock(&srv->lock);
	while (!list_empty(&dead)) {
		struct list_head *l = dead.next;

		list_del_init(l);
		usbip__conn_join_free(usbip__conn_from_srv_link(l));
	}
}

/* "ADDRESS:PORT" into @out, the address alone into @addr. */
static void format_peer(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t size,
			char *addr, size_t addr_size)
{
	char host[64], serv[16];

	if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		snprintf(out, size, "?");
		snprintf(addr, addr_size, "?");
	} else {
		snprintf(out, size, "%s:%s", host, serv);
		snprintf(addr, addr_size, "%s", host);
	}
}

/*
 * Op-phase slots. Each connection has a thread; those in the op phase
 * (READING or SERVING, see enum usbip__op_state) are bounded in all and
 * per peer address, imported ones by the device count. A new connection
 * never waits for a slot: past a cap it takes the slot of the oldest
 * connection still READING, of its own address when that address is at
 * its cap, else of the address holding the most. So neither idle sockets
 * nor slow drips (op_timeout_ms bounds them anyway) nor a flood keep a
 * host out, even one on the attacker's own address: a host's request
 * comes with or right after its connection, and once it is read the
 * connection is no longer evictable. A new connection is refused only
 * when every slot it could take is SERVING (answers take milliseconds).
 */
static bool op_slot(struct usbip__conn *c)
{
	int st = atomic_load(&c->op_state);

	return !usbip__conn_finished(c) && (st == USBIP_OP_READING || st == USBIP_OP_SERVING);
}

static unsigned count_addr(struct usbip_server *srv, const char *addr, bool reading_only)
{
	struct list_head *pos;
	unsigned n = 0;

	list_for_each(pos, &srv->conns) {
		struct usbip__conn *c = usbip__conn_from_srv_link(pos);

		if (op_slot(c) && strcmp(c->peer_addr, addr) == 0 &&
		    (!reading_only || atomic_load(&c->op_state) == USBIP_OP_READING))
			n++;
	}
	return n;
}

/* srv->lock held. The oldest READING connection of @addr (NULL: of the
 * address with the most READING ones). */
static struct usbip__conn *oldest_reading(struct usbip_server *srv, const char *addr)
{
	struct usbip__conn *best = NULL;
	unsigned best_n = 0;
	struct list_head *pos;

	list_for_each(pos, &srv->conns) {
		struct usbip__conn *c = usbip__conn_from_srv_link(pos);
		unsigned n;

		if (!op_slot(c) || atomic_load(&c->op_state) != USBIP_OP_READING)
			continue;
		if (addr) {
			if (strcmp(c->peer_addr, addr) == 0)
				return c;	/* the list is in accept order */
			continue;
		}
		n = count_addr(srv, c->peer_addr, true);
		if (n > best_n) {
			best = c;
			best_n = n;
		}
	}
	return best;
}

/*
 * srv->lock held. Make room for a connection from @addr: 0 when there is
 * room, with the evicted connection (off the list, killed, for the caller
 * to join) in *@victim; USB_EBUSY when no slot can be taken.
 */
static int make_room(struct usbip_server *srv, const char *addr, struct usbip__conn **victim)
{
	*victim = NULL;
	for (int tries = 0; tries < 8; tries++) {
		struct list_head *pos;
		unsigned total = 0;
		struct usbip__conn *v;
		int expected = USBIP_OP_READING;

		list_for_each(pos, &srv->conns)
			total += op_slot(usbip__conn_from_srv_link(pos));
		if (count_addr(srv, addr, false) >= srv->cfg.max_op_connections_per_peer)
			v = oldest_reading(srv, addr);
		else if (total >= srv->cfg.max_op_connections)
			v = oldest_reading(srv, NULL);
		else
			return 0;
		if (!v)
			return -USB_EBUSY;
		/* It may have just read its request: then it keeps its slot. */
		if (atomic_compare_exchange_strong(&v->op_state, &expected, USBIP_OP_EVICTED)) {
			list_del_init(usbip__conn_srv_link(v));
			usbip__conn_kill(v);
			*victim = v;
			return 0;
		}
	}
	return -USB_EBUSY;
}

/* Is a whole op request already waiting on @fd? (Then the connection is
 * SERVING from the start and never evictable.) */
static bool request_waiting(int fd)
{
	uint8_t b[USBIP_OP_HEADER_SIZE + USBIP_BUSID_SIZE];
	ssize_t n = recv(fd, b, sizeof(b), MSG_PEEK);
	size_t need;

	if (n < (ssize_t)USBIP_OP_HEADER_SIZE)
		return false;
	need = usbip__get_be16(b + 2) == USBIP_OP_REQ_IMPORT ? sizeof(b) : USBIP_OP_HEADER_SIZE;
	return (size_t)n >= need;
}

/* Evictions, logged at most once a second (a flood would flood the log). */
static void log_eviction(struct usbip_server *srv, const char *peer)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	srv->evictions++;
	if (srv->evictions_logged && now.tv_sec < srv->eviction_log_time + 1)
		return;
	usbip__log(srv, "op-phase slots full: closed %s, the oldest connection still "
		   "reading its request (%lu so far)", peer, srv->evictions);
	srv->evictions_logged = true;
	srv->eviction_log_time = now.tv_sec;
}

static void set_deadline(struct timespec *t, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += (time_t)(ms / 1000u);
	t->tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* What accept_one() did. */
enum accept_result {
	ACCEPT_NONE,		/* nothing waiting (or the peer gave up first) */
	ACCEPT_DONE,		/* a connection was taken (served or refused) */
	ACCEPT_STARVED		/* out of descriptors or memory: back off */
};

/* Out of descriptors (or kernel memory): the connection stays in the
 * backlog and the listening socket stays readable, so the accept loop
 * must wait instead of polling it again at once (a spin). Logged at most
 * once a second. */
static void log_starved(struct usbip_server *srv, int err)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (srv->starved_logged && now.tv_sec < srv->starved_log_time + 1)
		return;
	usbip__log(srv, "cannot accept a connection: %s (%s); retrying every %d ms",
		   strerror(err), err == EMFILE ? "raise the process's RLIMIT_NOFILE" :
				  err == ENFILE ? "the system's file table is full" : "out of memory",
		   USBIP_ACCEPT_BACKOFF_MS);
	srv->starved_logged = true;
	srv->starved_log_time = now.tv_sec;
}

/* Accept one connection. */
static enum accept_result accept_one(struct usbip_server *srv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char peer[80], addr[64];
	struct usbip__conn *c, *victim;
	int one = 1, rc;
	int fd = accept(srv->listen_fd, (struct sockaddr *)&ss, &len);

	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			log_starved(srv, errno);
			return ACCEPT_STARVED;
		}
		return ACCEPT_NONE;	/* EAGAIN, ECONNABORTED...: try again later */
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	format_peer(&ss, len, peer, sizeof(peer), addr, sizeof(addr));
	reap(srv, false);
	c = usbip__conn_new(srv, fd, peer);
	if (!c) {
		usbip__log(srv, "%s: out of memory, connection refused", peer);
		close(fd);
		return ACCEPT_DONE;
	}
	snprintf(c->peer_addr, sizeof(c->peer_addr), "%s", addr);
	set_deadline(&c->op_deadline, srv->cfg.op_timeout_ms);
	atomic_store(&c->op_state, request_waiting(fd) ? USBIP_OP_SERVING : USBIP_OP_READING);
	pthread_mutex_lock(&srv->lock);
	rc = make_room(srv, addr, &victim);
	if (rc == 0)
		list_add_tail(usbip__conn_srv_link(c), &srv->conns);
	pthread_mutex_unlock(&srv->lock);
	if (victim) {
		/* It was READING: it ends at once. Joined here, so evicted
		 * threads never pile up however fast connections come. */
		log_eviction(srv, victim->peer);
		usbip__conn_join_free(victim);
	}
	if (rc < 0) {
		usbip__log(srv, "%s: refused, every op-phase slot it could take is answering",
			   peer);
		usbip__conn_free_unstarted(c);
		return ACCEPT_DONE;
	}
	if (usbip__conn_start(c) != 0) {
		usbip__log(srv, "%s: no thread for the connection", peer);
		pthread_mutex_lock(&srv->lock);
		list_del_init(usbip__conn_srv_link(c));
		pthread_mutex_unlock(&srv->lock);
		usbip__conn_free_unstarted(c);
	}
	return ACCEPT_DONE;
}

int usbip_server_run(struct usbip_server *srv)
{
	int rc = 0;

	pthread_mutex_lock(&srv->lock);
	if (srv->running) {
		pthread_mutex_unlock(&srv->lock);
		return -USB_EBUSY;
	}
	srv->running = true;
	pthread_mutex_unlock(&srv->lock);

	for (bool starved = false;;) {
		struct pollfd p[2] = { { srv->stop_pipe[0], POLLIN, 0 }, { srv->listen_fd, POLLIN, 0 } };
		enum accept_result got = ACCEPT_NONE;

		/* The timeout only paces the reaping of finished connections;
		 * out of descriptors, only the stop pipe is watched for a
		 * while (a reaped connection may give some back). */
		if (poll(p, starved ? 1 : 2, starved ? USBIP_ACCEPT_BACKOFF_MS : 1000) < 0) {
			if (errno == EINTR)
				continue;
			rc = -USB_EIO;
			break;
		}
		if (p[0].revents)
			break;
		if (starved || (p[1].revents & POLLIN)) {
			/* Drain the backlog (bounded, to reap and see a stop). */
			for (int i = 0; i < 64 && (got = accept_one(srv)) == ACCEPT_DONE; i++)
				;
		} else if (p[1].revents & (POLLERR | POLLNVAL)) {
			rc = -USB_EIO;
			break;
		}
		starved = got == ACCEPT_STARVED;
		reap(srv, false);
	}

	/* Unplug every host; their threads end and are joined. */
	pthread_mutex_lock(&srv->lock);
	{
		struct list_head *pos;

		list_for_each(pos, &srv->conns)
			usbip__conn_kill(usbip__conn_from_srv_link(pos));
	}
	pthread_mutex_unlock(&srv->lock);
	reap(srv, true);
	{
		char buf[16];

		while (read(srv->stop_pipe[0], buf, sizeof(buf)) > 0)
			;
	}
	pthread_mutex_lock(&srv->lock);
	srv->running = false;
	pthread_mutex_unlock(&srv->lock);
	return rc;
}

static void *server_thread(void *arg)
{
	int rc = usbip_server_run(arg);

	if (rc < 0)
		usbip__log(arg, "server stopped: %s", usb_strerror(rc));
	return NULL;
}

int usbip_server_start(struct usbip_server *srv)
{
	if (srv->thread_started)
		return -USB_EBUSY;
	if (pthread_create(&srv->thread, NULL, server_thread, srv) != 0)
		return -USB_ENOMEM;
	srv->thread_started = true;
	return 0;
}

void usbip_server_stop(struct usbip_server *srv)
{
	char b = 1;
	ssize_t n;

	/* write() is async-signal-safe; a full pipe already says "stop". */
	n = write(srv->stop_pipe[1], &b, 1);
	(void)n;
}

void usbip_server_destroy(struct usbip_server *srv)
{
	if (!srv)
		return;
	if (srv->thread_started) {
		usbip_server_stop(srv);
		pthread_join(srv->thread, NULL);
		srv->thread_started = false;
	}
	/* Unregistering unbinds drivers: ops->stop unplugs any host left. */
	while (srv->ndev > 0)
		usbip__dev_destroy(srv->devs[--srv->ndev]);
	reap(srv, true);
	close(srv->listen_fd);
	close(srv->stop_pipe[0]);
	close(srv->stop_pipe[1]);
	pthread_mutex_destroy(&srv->lock);
	free(srv->devs);
	free(srv);
}
