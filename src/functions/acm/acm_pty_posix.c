/*
 * acm_pty_posix.c - the pseudo-terminal bridge of an ACM port
 * (composite/acm_pty.h): a pty master, one thread that moves bytes
 * between it and the port's stream, the callbacks that wake the thread,
 * and the symlink. The port may be one function per configuration
 * linking the instance (fn_set.h): bytes go through the one the host
 * uses. POSIX (posix_openpt, poll, pthreads).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "composite/acm_pty.h"
#include "functions/common/fn_set.h"

#define CHUNK 16384
#define RETRY_MS 50	/* while the port is not configured */

struct acm_pty {
	int master, slave;	/* the slave stays open: no EIO while nobody has it */
	int wake[2];
	char path[64];
	char *link;
	unsigned port;
	struct fn_set fs;	/* the functions started on, one per configuration */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	atomic_ullong to_host, from_host;
	/* host -> pty bytes read from the port, not yet written */
	uint8_t down[CHUNK];
	size_t down_len, down_off;
	/* pty -> host bytes read from the pty, not yet taken by the port */
	uint8_t up[CHUNK];
	size_t up_len, up_off;
};

static void wake(struct acm_pty *p)
{
	char c = 1;

	/* A full pipe already holds a wake-up. */
	(void)!write(p->wake[1], &c, 1);
}

/* ---- callbacks (event context) -------------------------------------------- */

static void on_readable(struct usb_function *f, void *ctx)
{
	struct acm_pty *p = ctx;

	(void)fn_set_follow(&p->fs, f);
	wake(p);
}

static void on_writable(struct usb_function *f, void *ctx)
{
	(void)f;
	wake(ctx);
}

static void on_open(struct usb_function *f, void *ctx)
{
	struct acm_pty *p = ctx;

	(void)fn_set_follow(&p->fs, f);
	usb_composite_log("ttyGS%u: host opened the port (DTR up)", p->port);
	wake(p);
}

static void on_close(struct usb_function *f, void *ctx)
{
	struct acm_pty *p = ctx;

	(void)f;
	usb_composite_log("ttyGS%u: host closed the port (DTR down)", p->port);
}

static void on_line_coding(struct usb_function *f, void *ctx,
			   const struct usb_cdc_line_coding *lc)
{
	static const char parity[] = "NOEMS";
	struct acm_pty *p = ctx;

	(void)f;
	usb_composite_log("ttyGS%u: line coding %u %u%c%s", p->port,
			  (unsigned)USB_LE32_TO_CPU(lc->dwDTERate), lc->bDataBits,
			  lc->bParityType < 5 ? parity[lc->bParityType] : '?',
			  lc->bCharFormat == USB_CDC_2_STOP_BITS ? "2" :
			  lc->bCharFormat == USB_CDC_1_5_STOP_BITS ? "1.5" : "1");
}

static void on_break(struct usb_function *f, void *ctx, unsigned ms)
{
	struct acm_pty *p = ctx;

	(void)f;
	usb_composite_log("ttyGS%u: break %u ms", p->port, ms);
	if (ms)
		(void)tcsendbreak(p->master, 0);
}

static void on_unbind(struct usb_function *f, void *ctx)
{
	struct acm_pty *p = ctx;

	(void)f;
	if (!p->started)
		return;
	atomic_store(&p->stop, true);
	wake(p);
	pthread_join(p->thread, NULL);
	p->started = false;
}

static const struct acm_port_ops pty_ops = {
	.open = on_open,
	.close = on_close,
	.line_coding = on_line_coding,
	.send_break = on_break,
	.readable = on_readable,
	.writable = on_writable,
	.unbind = on_unbind,
};

/* ---- the thread ------------------------------------------------------------------ */

/* Host -> pty: refill from the port, write what the pty takes. */
static void move_down(struct acm_pty *p)
{
	for (;;) {
		ssize_t n;

		if (p->down_off == p->down_len) {
			struct usb_function *f = fn_set_current(&p->fs);
			long got = f ? acm_read(f, p->down, sizeof(p->down)) : 0;

			if (got <= 0)
				return;
			p->down_len = (size_t)got;
			p->down_off = 0;
		}
		n = write(p->master, p->down + p->down_off, p->down_len - p->down_off);
		if (n <= 0)
			return;		/* EAGAIN: the program reads slower */
		p->down_off += (size_t)n;
		atomic_fetch_add(&p->from_host, (unsigned long long)n);
	}
}

static long write_to(struct usb_function *f, void *arg)
{
	const struct fn_set_bytes *c = arg;

	return acm_write(f, c->data, c->len);
}

/* Pty -> host: hand over what is held; Return: false while not configured. */
static bool move_up(struct acm_pty *p, bool readable)
{
	for (;;) {
		long n;

		if (p->up_off == p->up_len) {
			ssize_t got;

			if (!readable)
				return true;
			got = read(p->master, p->up, sizeof(p->up));
			if (got <= 0)
				return true;
			p->up_len = (size_t)got;
			p->up_off = 0;
			readable = false;	/* poll again before the next read */
		}
		n = fn_set_try(&p->fs, write_to,
			       &(struct fn_set_bytes){ p->up + p->up_off, p->up_len - p->up_off });
		if (n < 0)
			return false;		/* held until the host configures us */
		if (n == 0)
			return true;		/* full: ops->writable wakes us */
		p->up_off += (size_t)n;
		atomic_fetch_add(&p->to_host, (unsigned long long)n);
	}
}

static void *bridge(void *arg)
{
	struct acm_pty *p = arg;
	bool configured = true;

	while (!atomic_load(&p->stop)) {
		struct pollfd fds[2] = {
			{ .fd = p->wake[0], .events = POLLIN },
			{ .fd = p->master, .events = 0 },
		};
		char drain[64];

		/* Read the pty only when its bytes can go somewhere. */
		if (p->up_off == p->up_len)
			fds[1].events |= POLLIN;
		if (p->down_off < p->down_len)
			fds[1].events |= POLLOUT;
		if (poll(fds, 2, configured ? -1 : RETRY_MS) < 0 && errno != EINTR)
			break;
		if (fds[0].revents & POLLIN)
			while (read(p->wake[0], drain, sizeof(drain)) == (ssize_t)sizeof(drain))
				;
		move_down(p);
		configured = move_up(p, fds[1].revents & POLLIN);
	}
	return NULL;
}

/* ---- life cycle -------------------------------------------------------------------- */

static int open_pty(struct acm_pty *p)
{
	struct termios t;
	const char *name;

	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master))
		return -USB_EIO;
	name = ptsname(p->master);
	if (!name || strlen(name) >= sizeof(p->path))
		return -USB_EIO;
	strcpy(p->path, name);
	p->slave = open(p->path, O_RDWR | O_NOCTTY);
	if (p->slave < 0 || tcgetattr(p->slave, &t))
		return -USB_EIO;
	/* Raw, as cfmakeraw() (not POSIX) makes it. */
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	return tcsetattr(p->slave, TCSANOW, &t) ? -USB_EIO : 0;
}

static int make_link(struct acm_pty *p, const char *link)
{
	struct stat st;

	if (lstat(link, &st) == 0) {
		if (!S_ISLNK(st.st_mode))
			return -USB_EEXIST;
		(void)unlink(link);
	}
	if (symlink(p->path, link) != 0)
		return -errno;
	p->link = strdup(link);
	return p->link ? 0 : -USB_ENOMEM;
}

int acm_pty_create(struct acm_pty **out, struct f_acm_opts *opts, const char *link)
{
	struct acm_pty *p;
	int rc;

	if (!out || !opts)
		return -USB_EINVAL;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -USB_ENOMEM;
	p->master = p->slave = p->wake[0] = p->wake[1] = -1;
	fn_set_init(&p->fs);
	p->port = opts->port_num;
	rc = open_pty(p);
	if (rc == 0 && pipe(p->wake) != 0)
		rc = -USB_EIO;
	if (rc == 0) {
		(void)fcntl(p->wake[0], F_SETFL, O_NONBLOCK);
		(void)fcntl(p->wake[1], F_SETFL, O_NONBLOCK);
		if (link)
			rc = make_link(p, link);
	}
	if (rc) {
		acm_pty_destroy(p);
		return rc;
	}
	opts->ops = &pty_ops;
	opts->ctx = p;
	*out = p;
	return 0;
}

const char *acm_pty_path(const struct acm_pty *p)
{
	return p->path;
}

int acm_pty_start(struct acm_pty *p, struct usb_function *f)
{
	int rc;

	if (!p || !acm_is(f))
		return -USB_EINVAL;
	rc = fn_set_add(&p->fs, f);
	if (rc < 0 || p->started)
		return rc;
	atomic_store(&p->stop, false);
	if (pthread_create(&p->thread, NULL, bridge, p) != 0) {
		fn_set_init(&p->fs);
		return -USB_EAGAIN;
	}
	p->started = true;
	return 0;
}

void acm_pty_counts(const struct acm_pty *p, unsigned long long *to_host,
		    unsigned long long *from_host)
{
	*to_host = atomic_load(&((struct acm_pty *)p)->to_host);
	*from_host = atomic_load(&((struct acm_pty *)p)->from_host);
}

void acm_pty_destroy(struct acm_pty *p)
{
	if (!p)
		return;
	on_unbind(NULL, p);
	{
	if (p->link) {
		(void)unlink(p->link);
		free(p->link);
	}
	const int fds[] = { p->master, p->slave, p->wake[0], p->wake[1] };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	}
	free(p);
}
