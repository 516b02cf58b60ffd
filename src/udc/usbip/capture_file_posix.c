/*
 * capture_file_posix.c - a capture's pcap file, written behind by a
 * thread of its own (struct usbip__cap_file): the connection thread
 * copies each record into a ring in memory and goes on; the writer
 * thread takes what gathered in large writes, off the data path.
 *
 * Why a thread: the file's write() costs the kernel about what the
 * loopback transfer of the same bytes does (the page cache's side of
 * it), and in the connection thread it sat between one URB's reply and
 * the next URB; a copy into the ring is a few microseconds per 128 KiB.
 * The writer sleeps until a batch (CAP_BATCH) gathered, a flush is asked
 * for, or the oldest pending byte has waited USBIP_CAP_FLUSH_NS: one
 * wakeup per batch, none while the device is idle.
 *
 * Owns the file descriptor, the ring and the writer thread; touches
 * nothing of the device. Its lock guards the ring's indices and state;
 * the ring's bytes in [tail, head) are the writer's to read without it,
 * the rest the producer's. One producer at a time (capture_posix.c
 * calls under dev->cap_lock); when the ring is full and the writer is not
 * writing, the producer writes the pending bytes itself (under the lock,
 * so the two never write at once). A write that fails is logged through
 * the server's log (from whichever thread wrote) and every later call
 * returns the error; what could not be written is dropped.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "usbip_priv.h"

/* The ring: what the writer may lag behind the data path. Its pages are
 * touched as the capture moves data, not before. */
#define CAP_RING (1024u * 1024u)
/* What gathers before the writer is woken (a quarter of the ring: the
 * producer never waits for room while the disk keeps up). */
#define CAP_BATCH (CAP_RING / 4u)

struct usbip__cap_file {
	struct usbip_server *srv;	/* for the log line of a failure */
	char busid[USBIP_BUSID_SIZE];	/* for the log line: BUSID and path */
	char *path;
	int fd;
	uint8_t *ring;
	pthread_mutex_t lock;
	pthread_cond_t more;		/* the writer: work, or stop */
	pthread_cond_t room;		/* the producer and flushers: tail moved */
	uint64_t head, tail;		/* bytes ever put / written (or dropped) */
	uint64_t flush_to;		/* a flusher waits for tail >= this */
	struct timespec due;		/* the oldest pending byte's deadline */
	bool due_set;
	enum { CAP_WRITER_BUSY, CAP_WRITER_TIMED, CAP_WRITER_IDLE } state;
	bool stop;
	bool started;
	bool writing;			/* the writer's write() is under way */
	int error;			/* the errno of a failed write, 0 */
	pthread_t writer;
};

int usbip__cap_map_errno(int e)
{
	switch (e) {
	case ENOENT: return -USB_ENOENT;
	case EACCES: case EPERM: return -USB_EACCES;
	case EROFS: return -USB_EROFS;
	case ENOSPC: case EFBIG: return -USB_ENOSPC;	/* the file cannot grow */
	case ENOMEM: case EAGAIN: return -USB_ENOMEM;
	case EISDIR: return -USB_EINVAL;
	case ENAMETOOLONG: return -USB_ENAMETOOLONG;
	default: return -USB_EIO;
	}
}

/* Write @n runs completely. Return 0 or the errno. */
static int write_iov(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w;

		if (iov->iov_len == 0) {	/* nothing to write is no EIO */
			iov++;
			n--;
			continue;
		}
		w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* The pending bytes [tail, head) as at most two runs of the ring. */
static int pending_iov(const struct usbip__cap_file *f, struct iovec iov[2])
{
	size_t pending = (size_t)(f->head - f->tail);
	size_t at = (size_t)(f->tail % CAP_RING);
	size_t first = CAP_RING - at < pending ? CAP_RING - at : pending;

	iov[0] = (struct iovec){ f->ring + at, first };
	if (first == pending)
		return 1;
	iov[1] = (struct iovec){ f->ring, pending - first };
	return 2;
}

static bool passed(const struct timespec *now, const struct timespec *t)
{
	return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

/* Whether the writer writes now (lock held). */
static bool writer_due(const struct usbip__cap_file *f, const struct timespec *now)
{
	uint64_t pending = f->head - f->tail;

	if (pending == 0)
		return false;
	return pending >= CAP_BATCH || f->stop || f->flush_to > f->tail ||
	       (f->due_set && passed(now, &f->due));
}

/* Sleep until there is work (lock held). A timed wait until the
 * deadline (set a second ahead when it starts) while bytes are pending
 * or came lately; the producer wakes it only for a batch. Once a
 * deadline passed with nothing pending, an untimed wait that the next
 * byte ends: an idle capture costs no wakeups. */
static void writer_wait(struct usbip__cap_file *f, const struct timespec *now)
{
	if (f->head == f->tail && f->due_set && passed(now, &f->due)) {
		f->state = CAP_WRITER_IDLE;
		pthread_cond_wait(&f->more, &f->lock);
		f->state = CAP_WRITER_BUSY;
		f->due_set = false;
		return;
	}
	if (!f->due_set) {
		f->due = *now;
		f->due.tv_sec += (time_t)(USBIP_CAP_FLUSH_NS / 1000000000LL);
		f->due_set = true;
	}
	f->state = CAP_WRITER_TIMED;
	pthread_cond_timedwait(&f->more, &f->lock, &f->due);
	f->state = CAP_WRITER_BUSY;
}

static void *writer_thread(void *arg)
{
	struct usbip__cap_file *f = arg;
	struct iovec iov[2];
	struct timespec now;
	uint64_t upto;
	int n, e = 0;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!writer_due(f, &now)) {
			if (f->stop)
				break;
			writer_wait(f, &now);
			continue;
		}
		n = pending_iov(f, iov);
		upto = f->head;
		f->due_set = false;
		f->writing = true;
		pthread_mutex_unlock(&f->lock);
		e = write_iov(f->fd, iov, n);
		pthread_mutex_lock(&f->lock);
		f->writing = false;
		f->tail = upto;
		pthread_cond_broadcast(&f->room);
		if (e) {
			f->error = e;
			f->tail = f->head;	/* dropped; later puts fail */
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (e)
		usbip__log(f->srv, "%s: capture to %s stopped: %s", f->busid, f->path,
			   usb_strerror(usbip__cap_map_errno(e)));
	return NULL;
}

/* The writer's deadlines are CLOCK_MONOTONIC: a clock step must not
 * hold records back or write them early. */
static int cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t a;
	int rc;

	if (pthread_condattr_init(&a) != 0)
		return -1;
	rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return rc == 0 ? 0 : -1;
}

int usbip__cap_file_open(struct usbip_server *srv, const char *busid, const char *path,
			 const void *header, size_t len, struct usbip__cap_file **out)
{
	struct usbip__cap_file *f = calloc(1, sizeof(*f));
	struct iovec iov = { (void *)header, len };
	int rc, e;

	if (!f)
		return -USB_ENOMEM;
	f->srv = srv;
	snprintf(f->busid, sizeof(f->busid), "%s", busid);
	f->path = malloc(strlen(path) + 1);
	f->ring = malloc(CAP_RING);
	if (!f->path || !f->ring) {
		rc = -USB_ENOMEM;
		goto fail_ring;
	}
	strcpy(f->path, path);
	if (pthread_mutex_init(&f->lock, NULL) != 0) {
		rc = -USB_ENOMEM;
		goto fail_lock;
	}
	if (cond_init_monotonic(&f->more) != 0) {
		rc = -USB_ENOMEM;
		goto fail_more;
	}
	if (pthread_cond_init(&f->room, NULL) != 0) {
		rc = -USB_ENOMEM;
		goto fail_room;
	}
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		rc = usbip__cap_map_errno(errno);
		goto fail_open;
	}
	/* The header at once: a file that cannot take it is refused here. */
	e = write_iov(f->fd, &iov, 1);
	if (e) {
		rc = usbip__cap_map_errno(e);
		goto fail_write;
	}
	*out = f;
	return 0;

fail_write:
	close(f->fd);
fail_open:
	pthread_cond_destroy(&f->room);
fail_room:
	pthread_cond_destroy(&f->more);
fail_more:
	pthread_mutex_destroy(&f->lock);
fail_lock:
	free(f->ring);
fail_ring:
	free(f->path);
	free(f);
	return rc;
}

/* The writer starts with the first record (a capture that never sees
 * a URB costs no thread). Lock held. Return 0 or -1. */
static int start_writer(struct usbip__cap_file *f)
{
	if (f->started)
		return 0;
	if (pthread_create(&f->writer, NULL, writer_thread, f) != 0)
		return -1;
	f->started = true;
	return 0;
}

/*
 * The ring is full and the writer is not writing (it waits for a core,
 * most often: the machine is busy): the producer writes what is pending
 * itself, with the lock held so that the writer cannot start meanwhile,
 * as the data path did before it had a writer. No hand-over to a thread
 * that cannot run. Return 0 or an errno (then the capture has failed).
 */
static int write_pending_here(struct usbip__cap_file *f)
{
	struct iovec iov[2];
	int n = pending_iov(f, iov);
	int e = write_iov(f->fd, iov, n);

	f->tail = f->head;	/* written, or dropped on error */
	if (e)
		f->error = e;
	pthread_cond_broadcast(&f->room);
	return e;
}

int usbip__cap_file_put(struct usbip__cap_file *f, const void *p, size_t n)
{
	const uint8_t *src = p;
	int e = 0, failed_here = 0;

	pthread_mutex_lock(&f->lock);
	if (!f->error && start_writer(f) != 0) {
		f->error = ENOMEM;
		usbip__log(f->srv, "%s: capture to %s stopped: no thread to write it", f->busid,
			   f->path);
	}
	while (n > 0 && !f->error) {
		size_t room = CAP_RING - (size_t)(f->head - f->tail);
		size_t at = (size_t)(f->head % CAP_RING);
		size_t m = n;

		if (room == 0) {
			/* The file is slower than the data: the data path
			 * waits for the writer's write, or writes itself. */
			if (f->writing)
				pthread_cond_wait(&f->room, &f->lock);
			else
				failed_here = write_pending_here(f);
			continue;
		}
		if (m > room)
			m = room;
		if (m > CAP_RING - at)
			m = CAP_RING - at;
		memcpy(f->ring + at, src, m);
		f->head += m;
		src += m;
		n -= m;
		/* Wake the writer only for what it acts on, once: it sets
		 * its state again when it next waits. */
		if (f->state == CAP_WRITER_IDLE ||
		    (f->state == CAP_WRITER_TIMED && f->head - f->tail >= CAP_BATCH)) {
			f->state = CAP_WRITER_BUSY;
			pthread_cond_signal(&f->more);
		}
	}
	if (f->error)
		e = usbip__cap_map_errno(f->error);
	pthread_mutex_unlock(&f->lock);
	if (failed_here)
		usbip__log(f->srv, "%s: capture to %s stopped: %s", f->busid, f->path,
			   usb_strerror(usbip__cap_map_errno(failed_here)));
	return e;
}

int usbip__cap_file_flush(struct usbip__cap_file *f)
{
	int e = 0;

	pthread_mutex_lock(&f->lock);
	f->flush_to = f->head;
	if (f->started) {
		pthread_cond_signal(&f->more);
		while (f->tail < f->flush_to && !f->error)
			pthread_cond_wait(&f->room, &f->lock);
	}
	if (f->error)
		e = usbip__cap_map_errno(f->error);
	pthread_mutex_unlock(&f->lock);
	return e;
}

int usbip__cap_file_close(struct usbip__cap_file *f)
{
	int rc;

	if (!f)
		return 0;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->more);
	pthread_mutex_unlock(&f->lock);
	if (f->started)
		pthread_join(f->writer, NULL);	/* it writes what is pending first */
	/* A write's failure was logged when it came. */
	rc = close(f->fd) != 0 && !f->error ? usbip__cap_map_errno(errno) : 0;
	pthread_cond_destroy(&f->room);
	pthread_cond_destroy(&f->more);
	pthread_mutex_destroy(&f->lock);
	free(f->ring);
	free(f->path);
	free(f);
	return rc;
}
