/*
 * hidg_posix.c - the named-pipe bridge of a HID function
 * (composite/hidg.h): the FIFOs, one thread that turns the input pipe's
 * bytes into reports (and repeats the last one at the idle period), and
 * the callbacks that write output reports and wake the thread. POSIX
 * (mkfifo, poll, clock_gettime, pthreads). The reports go through the
 * function of the configuration the host uses, of those started on (one
 * per configuration linking the instance: fn_set.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "composite/hidg.h"
#include "functions/common/fn_set.h"

#define RETRY_MS 50	/* while the host has not configured us */

struct hidg {
	int in_fd, out_fd, wake[2];
	char *in_path, *out_path;	/* the FIFOs this bridge made (to remove) */
	struct fn_set fs;	/* the functions started on, one per configuration */
	size_t report_length;
	pthread_t thread;
	bool started;
	atomic_bool stop, dropped_once;
	atomic_ullong in_reports, out_reports, out_dropped;
	uint8_t pending[HID_REPORT_LENGTH_MAX];	/* a report being read */
	size_t have;
	uint8_t last[HID_REPORT_LENGTH_MAX];
	bool has_last;
	long long last_ms;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wake(struct hidg *g)
{
	char c = 1;

	(void)!write(g->wake[1], &c, 1);	/* a full pipe already holds a wake-up */
}

/* ---- callbacks (event context, or unbind's thread) ------------------------ */

static void on_out_report(struct usb_function *f, void *ctx, const uint8_t *data, size_t len,
			  bool set_report)
{
	struct hidg *g = ctx;

	(void)fn_set_follow(&g->fs, f);
	(void)set_report;
	/* Whole or nothing: a pipe write of at most PIPE_BUF bytes is atomic. */
	if (g->out_fd >= 0 && write(g->out_fd, data, len) == (ssize_t)len) {
		atomic_fetch_add(&g->out_reports, 1);
		return;
	}
	atomic_fetch_add(&g->out_dropped, 1);
	if (!atomic_exchange(&g->dropped_once, true))
		usb_composite_log("hidg: output report dropped: nobody reads the output pipe");
}

static void on_writable(struct usb_function *f, void *ctx)
{
	(void)f;
	wake(ctx);
}

static void on_idle(struct usb_function *f, void *ctx, unsigned ms)
{
	struct hidg *g = ctx;

	(void)ms;
	(void)fn_set_follow(&g->fs, f);
	wake(g);	/* poll() again with the new period */
}

static void on_unbind(struct usb_function *f, void *ctx)
{
	struct hidg *g = ctx;

	(void)f;
	if (!g->started)
		return;
	atomic_store(&g->stop, true);
	wake(g);
	pthread_join(g->thread, NULL);
	g->started = false;
}

static const struct hid_ops hidg_ops = {
	.out_report = on_out_report,
	.writable = on_writable,
	.idle = on_idle,
	.unbind = on_unbind,
};

/* ---- the thread ------------------------------------------------------------------ */

static long send_to(struct usb_function *f, void *arg)
{
	const struct fn_set_bytes *r = arg;

	return hid_send_report(f, r->data, r->len);
}

/* Send @report; Return: 0, -USB_EAGAIN (wait for writable), -USB_ENOTCONN. */
static int send(struct hidg *g, const uint8_t *report)
{
	int rc = (int)fn_set_try(&g->fs, send_to, &(struct fn_set_bytes){ report, g->report_length });

	if (rc == 0) {
		atomic_fetch_add(&g->in_reports, 1);
		memcpy(g->last, report, g->report_length);
		g->has_last = true;
		g->last_ms = now_ms();
	}
	return rc;
}

/* The current function's SET_IDLE period, 0 for none. */
static unsigned idle_ms(struct hidg *g)
{
	struct usb_function *f = fn_set_current(&g->fs);

	return f ? hid_get_idle_ms(f) : 0;
}

/* How long poll() may wait: until the idle period ends, or a retry. */
static int wait_ms(struct hidg *g, int last_rc)
{
	unsigned idle = idle_ms(g);
	long long left;

	if (last_rc == -USB_ENOTCONN)
		return RETRY_MS;
	if (!idle || !g->has_last)
		return -1;
	left = g->last_ms + idle - now_ms();
	return left > 0 ? (int)left : 0;
}

static void *bridge(void *arg)
{
	struct hidg *g = arg;
	int rc = 0;

	while (!atomic_load(&g->stop)) {
		bool full = g->have == g->report_length;
		struct pollfd fds[2] = {
			{ .fd = g->wake[0], .events = POLLIN },
			{ .fd = g->in_fd, .events = full ? 0 : POLLIN },
		};
		char drain[64];
		ssize_t n;

		if (poll(fds, 2, wait_ms(g, rc)) < 0 && errno != EINTR)
			break;
		if (fds[0].revents & POLLIN)
			while (read(g->wake[0], drain, sizeof(drain)) == (ssize_t)sizeof(drain))
				;
		if (!full && (fds[1].revents & POLLIN)) {
			n = read(g->in_fd, g->pending + g->have, g->report_length - g->have);
			if (n > 0)
				g->have += (size_t)n;
		}
		if (g->have == g->report_length) {
			rc = send(g, g->pending);
			if (rc == 0)
				g->have = 0;
		} else if (g->has_last && idle_ms(g) && now_ms() - g->last_ms >= idle_ms(g)) {
			rc = send(g, g->last);	/* the idle period passed: repeat */
		}
	}
	return NULL;
}

/* ---- life cycle --------------------------------------------------------------------- */

/* Open the FIFO at @path, making it if missing (then *@made is set). */
static int open_fifo(const char *path, char **made)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0) {
		if (!S_ISFIFO(st.st_mode))
			return -USB_EEXIST;
	} else if (mkfifo(path, 0600) != 0) {
		return -errno;
	} else if (!(*made = strdup(path))) {
		(void)unlink(path);
		return -USB_ENOMEM;
	}
	/* Read-write: no EOF when writers come and go, no wait for a reader. */
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

int hidg_create(struct hidg **out, struct f_hid_opts *opts, const char *in_path,
		const char *out_path)
{
	struct hidg *g;

	if (!out || !opts || !in_path || opts->report_length < 1 ||
	    opts->report_length > HID_REPORT_LENGTH_MAX)
		return -USB_EINVAL;
	*out = NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -USB_ENOMEM;
	g->out_fd = g->wake[0] = g->wake[1] = -1;
	fn_set_init(&g->fs);
	g->report_length = opts->report_length;
	g->in_fd = open_fifo(in_path, &g->in_path);
	if (g->in_fd >= 0 && out_path)
		g->out_fd = open_fifo(out_path, &g->out_path);
	if (g->in_fd < 0 || g->out_fd < -1 || pipe(g->wake) != 0) {
		int rc = g->in_fd < 0 ? g->in_fd : g->out_fd < -1 ? g->out_fd : -USB_EIO;

		if (g->in_fd < 0)
			g->in_fd = -1;
		if (g->out_fd < 0)
			g->out_fd = -1;
		hidg_destroy(g);
		return rc;
	}
	(void)fcntl(g->wake[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(g->wake[1], F_SETFL, O_NONBLOCK);
	opts->ops = &hidg_ops;
	opts->ctx = g;
	*out = g;
	return 0;
}

int hidg_start(struct hidg *g, struct usb_function *f)
{
	int rc;

	if (!g || !hid_is(f))
		return -USB_EINVAL;
	rc = fn_set_add(&g->fs, f);
	if (rc < 0 || g->started)
		return rc;
	atomic_store(&g->stop, false);
	if (pthread_create(&g->thread, NULL, bridge, g) != 0) {
		fn_set_init(&g->fs);
		return -USB_EAGAIN;
	}
	g->started = true;
	return 0;
}

void hidg_counts(const struct hidg *g, unsigned long long *in_reports,
		 unsigned long long *out_reports, unsigned long long *out_dropped)
{
	struct hidg *m = (struct hidg *)g;

	*in_reports = atomic_load(&m->in_reports);
	*out_reports = atomic_load(&m->out_reports);
	*out_dropped = atomic_load(&m->out_dropped);
}

void hidg_destroy(struct hidg *g)
{
	const int *fds;

	if (!g)
		return;
	on_unbind(NULL, g);
	fds = (const int[]){ g->in_fd, g->out_fd, g->wake[0], g->wake[1] };
	for (unsigned i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (char **p = (char *[]){ g->in_path, g->out_path, NULL }; *p; p++) {
		(void)unlink(*p);
		free(*p);
	}
	free(g);
}
