/*
 * control_posix.c - composite-gadgetd's control socket (control.h): a
 * Unix stream socket created mode 0600, served by one thread that takes a
 * connection at a time, reads one request line (bounded in length and in
 * time), splits it into words, has the daemon's ops answer it and
 * closes. Owns the socket and its thread; touches nothing of the
 * gadgets itself. A bad request gets an error reply, never a dead daemon.
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

#define REQUEST_TIMEOUT_MS 2000

struct gadgetd_control {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;
	int stop_pipe[2];
	pthread_t thread;
	const struct gadgetd_control_ops *ops;
	void *ctx;
};

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

static void write_str(int fd, const char *s)
{
	write_all(fd, s, strlen(s));
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

/* The rows of a list reply, gathered to count them first. */
struct rows {
	char *text;
	size_t len, cap;
	unsigned n;
};

static int add_row(void *ctx, const char *busid, const char *peer, const char *scheme,
		   const char *ends)
{
	struct rows *r = ctx;
	size_t need = strlen(busid) + (peer ? strlen(peer) : 1) + strlen(scheme) +
		      strlen(ends) + 16;

	if (r->len + need > r->cap) {
		size_t cap = (r->cap ? 2 * r->cap : 1024) + need;
		char *text = realloc(r->text, cap);

		if (!text)
			return -USB_ENOMEM;
		r->text = text;
		r->cap = cap;
	}
	r->len += (size_t)snprintf(r->text + r->len, r->cap - r->len, "%s\t%s\t%s\t%s%s\n",
				   busid, peer ? "attached" : "detached", peer ? peer : "-", scheme,
				   ends);
	r->n++;
	return 0;
}

static void reply_list(struct gadgetd_control *c, int fd)
{
	struct rows r = { 0 };
	char head[32];

	if (c->ops->list(c->ctx, add_row, &r) < 0) {
		write_str(fd, "error out of memory\n");
	} else {
		snprintf(head, sizeof(head), "ok %u\n", r.n);
		write_str(fd, head);
		write_all(fd, r.text ? r.text : "", r.len);
	}
	free(r.text);
}

/* Split off the first word of *@rest (up to a space): NULL when none. */
static char *next_word(char **rest)
{
	char *w = *rest, *sp;

	if (!w || !*w)
		return NULL;
	sp = strchr(w, ' ');
	if (sp)
		*sp++ = '\0';
	*rest = sp;
	return w;
}

/* Run request @verb with its arguments @args (what follows "VERB "; NULL
 * when nothing does). Return the op's result; -USB_EINVAL with the usage
 * in @msg for missing words; 1 for an unknown verb. */
static int run_request(struct gadgetd_control *c, const char *verb, char *args, char *msg,
		       size_t size)
{
	const struct gadgetd_control_ops *o = c->ops;
	char *busid = NULL;

	if (!strcmp(verb, "add")) {
		if (!args || !*args)
			goto usage;
		return o->add(c->ctx, args, msg, size);
	}
	if (strcmp(verb, "set") && strcmp(verb, "remove") && strcmp(verb, "detach") &&
	    strcmp(verb, "capture"))
		return 1;
	busid = next_word(&args);
	if (!busid)
		goto usage;
	if (!strcmp(verb, "remove") || !strcmp(verb, "detach")) {
		if (args)
			goto usage;
		return (verb[0] == 'r' ? o->remove : o->detach)(c->ctx, busid, msg, size);
	}
	if (!strcmp(verb, "capture")) {
		if (!args || !*args)
			goto usage;
		return o->capture(c->ctx, busid, strcmp(args, "off") ? args : NULL, msg, size);
	}
	{
		char *function = next_word(&args), *attr = next_word(&args);

		if (!function || !attr)
			goto usage;
		return o->set(c->ctx, busid, function, attr, args ? args : "", msg, size);
	}
usage:
	snprintf(msg, size, "usage: %s", !strcmp(verb, "add") ? "add PATH"
				     : !strcmp(verb, "set") ? "set BUSID FUNCTION ATTR [VALUE]"
				     : !strcmp(verb, "capture") ? "capture BUSID PATH|off"
				     : verb[0] == 'r' ? "remove BUSID" : "detach BUSID");
	return -USB_EINVAL;
}

/* Printable, for echoing a bad request back. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static void serve_one(struct gadgetd_control *c, int fd)
{
	char line[GADGETD_CONTROL_LINE_MAX], msg[GADGETD_CONTROL_MSG_MAX];
	char reply[GADGETD_CONTROL_MSG_MAX + 16];
	char *args, *verb;
	int rc;

	if (read_line(fd, line, sizeof(line)) < 0) {
		write_str(fd, "error request too long, cut short or too slow\n");
		return;
	}
	if (!strcmp(line, "list")) {
		reply_list(c, fd);
		return;
	}
	args = line;
	verb = next_word(&args);
	msg[0] = '\0';
	rc = verb ? run_request(c, verb, args, msg, sizeof(msg)) : 1;
	if (rc == 1) {
		sanitize(line);
		snprintf(reply, sizeof(reply), "error unknown request '%.64s' (try: list, set, add, "
			 "remove, detach, capture)\n", line);
	} else if (rc == 0) {
		snprintf(reply, sizeof(reply), "ok%s%s\n", msg[0] ? " " : "", msg);
	} else {
		sanitize(msg);
		snprintf(reply, sizeof(reply), "error %s\n", msg[0] ? msg : usb_strerror(rc));
	}
	write_str(fd, reply);
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

int gadgetd_control_start(const char *path, const struct gadgetd_control_ops *ops, void *ctx,
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
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->ops = ops;
	c->ctx = ctx;
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
	free(c);
}
