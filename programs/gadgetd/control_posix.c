/*
 * control_posix.c - composite-gadgetd's control socket (control.h): a
 * Unix stream socket created mode 0600, served by one thread that takes a
 * connection at a time, reads one request line (bounded in length and in
 * time), answers and closes. Owns the socket, its thread and a copy of
 * the attach state; touches nothing of the gadgets. A bad request gets an
 * error reply, never a dead daemon.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "composite/errors.h"
#include "control.h"

#define PEER_MAX 64
#define REQUEST_TIMEOUT_MS 2000

struct gadget_state {
	const char *busid;
	const char *scheme;
	char peer[PEER_MAX];	/* "" while detached */
};

struct gadgetd_control {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;
	int stop_pipe[2];
	pthread_t thread;
	pthread_mutex_t lock;
	unsigned n;
	struct gadget_state *g;
	gadgetd_control_set_fn set;
	void *ctx;
};

void gadgetd_control_set_attached(struct gadgetd_control *c, unsigned index, const char *peer)
{
	if (!c || index >= c->n)
		return;
	pthread_mutex_lock(&c->lock);
	snprintf(c->g[index].peer, sizeof(c->g[index].peer), "%s", peer ? peer : "");
	pthread_mutex_unlock(&c->lock);
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* One request line into @line; 0, or -1 (too long, timeout, EOF first). */
static int read_line(int fd, char *line, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, REQUEST_TIMEOUT_MS) <= 0)
			return -1;
		r = recv(fd, line + n, 1, 0);
		if (r <= 0)
			return -1;
		if (line[n] == '\n') {
			line[n] = '\0';
			if (n && line[n - 1] == '\r')
				line[n - 1] = '\0';
			return 0;
		}
		n++;
	}
	return -1;
}

static void reply_list(struct gadgetd_control *c, int fd)
{
	char buf[64 + PEER_MAX + 4096];
	int len;

	len = snprintf(buf, sizeof(buf), "ok %u\n", c->n);
	write_all(fd, buf, (size_t)len);
	for (unsigned i = 0; i < c->n; i++) {
		pthread_mutex_lock(&c->lock);
		len = snprintf(buf, sizeof(buf), "%s\t%s\t%s\t%s\n", c->g[i].busid,
			       c->g[i].peer[0] ? "attached" : "detached",
			       c->g[i].peer[0] ? c->g[i].peer : "-", c->g[i].scheme);
		pthread_mutex_unlock(&c->lock);
		if (len > 0)
			write_all(fd, buf, (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf) - 1);
	}
}

/* "set BUSID FUNCTION ATTR [VALUE]": @args is what follows "set ". */
static void reply_set(struct gadgetd_control *c, int fd, char *args)
{
	char *word[3], msg[GADGETD_CONTROL_LINE_MAX + 64], reply[sizeof(msg) + 16];
	const char *value = "";
	unsigned index = c->n;
	int len, rc;

	for (unsigned k = 0; k < 3; k++) {
		word[k] = args;
		args = strchr(args, ' ');
		if (!args && k < 2) {
			static const char e[] = "error usage: set BUSID FUNCTION ATTR [VALUE]\n";

			write_all(fd, e, sizeof(e) - 1);
			return;
		}
		if (args)
			*args++ = '\0';
	}
	if (args)
		value = args;
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->g[i].busid, word[0]))
			index = i;
	msg[0] = '\0';
	if (index == c->n) {
		len = snprintf(reply, sizeof(reply), "error no gadget %.32s\n", word[0]);
		write_all(fd, reply, (size_t)len);
		return;
	}
	rc = c->set ? c->set(c->ctx, index, word[1], word[2], value, msg, sizeof(msg)) : -1;
	if (rc == 0)
		len = snprintf(reply, sizeof(reply), "ok\n");
	else
		len = snprintf(reply, sizeof(reply), "error %s\n", msg[0] ? msg : "refused");
	write_all(fd, reply, (size_t)len < sizeof(reply) ? (size_t)len : sizeof(reply) - 1);
}

static void serve_one(struct gadgetd_control *c, int fd)
{
	char line[GADGETD_CONTROL_LINE_MAX], msg[GADGETD_CONTROL_LINE_MAX + 64];
	int len;

	if (read_line(fd, line, sizeof(line)) < 0) {
		static const char e[] = "error request too long, cut short or too slow\n";

		write_all(fd, e, sizeof(e) - 1);
		return;
	}
	if (!strcmp(line, "list")) {
		reply_list(c, fd);
		return;
	}
	if (!strncmp(line, "set ", 4)) {
		reply_set(c, fd, line + 4);
		return;
	}
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	len = snprintf(msg, sizeof(msg), "error unknown request '%.64s' (try: list, set)\n",
		       line);
	write_all(fd, msg, (size_t)len);
}

static void *control_thread(void *arg)
{
	struct gadgetd_control *c = arg;

	for (;;) {
		struct pollfd p[2] = { { .fd = c->fd, .events = POLLIN },
				       { .fd = c->stop_pipe[0], .events = POLLIN } };
		int fd;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		fd = accept(c->fd, NULL, NULL);
		if (fd < 0)
			continue;
		serve_one(c, fd);
		close(fd);
	}
	return NULL;
}

/* A daemon answers on @path already. */
static bool socket_alive(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return false;
	alive = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return alive;
}

static int listen_on(struct gadgetd_control *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int rc;

	memcpy(sa.sun_path, c->path, sizeof(sa.sun_path));
	if (lstat(c->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode) || socket_alive(&sa))
			return -USB_EADDRINUSE;
		unlink(c->path);	/* a stale socket of a daemon that died */
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -USB_EIO;
	old = umask(0177);	/* the socket is made 0600 */
	rc = bind(c->fd, (const struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || listen(c->fd, 8) < 0) {
		rc = errno == EADDRINUSE ? -USB_EADDRINUSE : -USB_EIO;
		close(c->fd);
		c->fd = -1;
		return rc;
	}
	return 0;
}

int gadgetd_control_start(const char *path, unsigned n, const char *const *busids,
			  const char *const *schemes, gadgetd_control_set_fn set, void *ctx,
			  struct gadgetd_control **out)
{
	struct gadgetd_control *c;
	int rc;

	if (strlen(path) >= sizeof(c->path))
		return -USB_ENAMETOOLONG;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -USB_ENOMEM;
	c->fd = -1;
	c->g = calloc(n ? n : 1, sizeof(*c->g));
	if (!c->g) {
		free(c);
		return -USB_ENOMEM;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->n = n;
	c->set = set;
	c->ctx = ctx;
	for (unsigned i = 0; i < n; i++) {
		c->g[i].busid = busids[i];
		c->g[i].scheme = schemes[i];
	}
	pthread_mutex_init(&c->lock, NULL);
	rc = listen_on(c);
	if (rc == 0 && pipe(c->stop_pipe) < 0)
		rc = -USB_EIO;
	if (rc == 0 && pthread_create(&c->thread, NULL, control_thread, c) != 0) {
		close(c->stop_pipe[0]);
		close(c->stop_pipe[1]);
		rc = -USB_EIO;
	}
	if (rc < 0) {
		if (c->fd >= 0) {
			close(c->fd);
			unlink(c->path);
		}
		pthread_mutex_destroy(&c->lock);
		free(c->g);
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void gadgetd_control_stop(struct gadgetd_control *c)
{
	if (!c)
		return;
	while (write(c->stop_pipe[1], "x", 1) < 0 && errno == EINTR)
		;
	pthread_join(c->thread, NULL);
	close(c->stop_pipe[0]);
	close(c->stop_pipe[1]);
	close(c->fd);
	unlink(c->path);
	pthread_mutex_destroy(&c->lock);
	free(c->g);
	free(c);
}
