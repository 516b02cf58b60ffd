/*
 * capture_posix.c - the capture of a device's URBs to a pcap file of
 * Linux usbmon records (usbip_server_set_capture()), as the host's usbmon
 * would log them: an 'S' record when a URB is submitted (the setup
 * packet, OUT data), a 'C' record when it is answered (status, IN data).
 *
 * Owns struct usbip__capture (the file, a buffer of small records) and the device's
 * cap / capturing fields, under dev->cap_lock. Record bytes come from the
 * pure encoder (usbmon_pcap.c). Reads URBs the connection thread hands
 * it; takes dev->lock (under cap_lock, never the reverse) only to read a
 * gathering IN URB's bytes from the request buffers it holds. A write
 * that fails (disk full, I/O error) logs through the server's log and
 * stops the capture; the device goes on serving.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "usbip_priv.h"
#include "usbmon_pcap.h"

/* Small records gather in a buffer of this size; a data run of at
 * least CAP_DIRECT bytes goes to the file straight from the URB or the
 * requests (one writev() with what was buffered), never copied. */
#define CAP_BUFFER (64u * 1024u)
#define CAP_DIRECT (16u * 1024u)
/* Most ISO packets per URB (usbip__submit_payload() caps them too). */
#define CAP_MAX_ISO 1024u

struct usbip__capture {
	int fd;
	char *path;
	uint8_t *buf;		/* CAP_BUFFER bytes, len of them pending */
	size_t len;
	long long since;	/* CLOCK_MONOTONIC ns of the oldest pending byte */
	uint32_t max_data;	/* data bytes kept per record; 0: all */
};

static int map_errno(int e)
{
	switch (e) {
	case ENOENT: return -USB_ENOENT;
	case EACCES: case EPERM: return -USB_EACCES;
	case EROFS: return -USB_EROFS;
	case ENOSPC: case EFBIG: return -USB_ENOSPC;	/* the file cannot grow */
	case ENOMEM: return -USB_ENOMEM;
	case EISDIR: return -USB_EINVAL;
	case ENAMETOOLONG: return -USB_ENAMETOOLONG;
	default: return -USB_EIO;
	}
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write @n runs completely. Return 0 or the errno. */
static int write_iov(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

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

/* The buffer and then @n bytes at @p (@n may be 0) to the file. */
static int cap_write_out(struct usbip__capture *cap, const void *p, size_t n)
{
	struct iovec iov[2];
	int k = 0, e;

	if (cap->len)
		iov[k++] = (struct iovec){ cap->buf, cap->len };
	if (n)
		iov[k++] = (struct iovec){ (void *)p, n };
	e = write_iov(cap->fd, iov, k);
	cap->len = 0;
	return e;
}

/* Append @n bytes: buffered when small, else written out at once. */
static int cap_put(struct usbip__capture *cap, const void *p, size_t n)
{
	if (n >= CAP_DIRECT || n > CAP_BUFFER - cap->len) {
		if (n < CAP_DIRECT) {
			int e = cap_write_out(cap, NULL, 0);

			if (e)
				return e;
		} else {
			return cap_write_out(cap, p, n);
		}
	}
	if (cap->len == 0)
		cap->since = mono_ns();
	memcpy(cap->buf + cap->len, p, n);
	cap->len += n;
	return 0;
}

static int cap_close(struct usbip__capture *cap)
{
	int rc = 0, e;

	if (!cap)
		return 0;
	e = cap_write_out(cap, NULL, 0);
	if (e)
		rc = map_errno(e);
	if (close(cap->fd) != 0 && rc == 0)
		rc = map_errno(errno);
	free(cap->buf);
	free(cap->path);
	free(cap);
	return rc;
}

static int cap_open(const char *path, uint32_t snaplen, uint32_t max_data,
		    struct usbip__capture **out)
{
	uint8_t fh[USBMON_PCAP_FILE_HEADER_SIZE];
	struct usbip__capture *cap = calloc(1, sizeof(*cap));
	int e, rc;

	if (!cap)
		return -USB_ENOMEM;
	cap->path = malloc(strlen(path) + 1);
	cap->buf = malloc(CAP_BUFFER);
	if (!cap->path || !cap->buf) {
		rc = -USB_ENOMEM;
		goto fail;
	}
	strcpy(cap->path, path);
	cap->max_data = max_data;
	cap->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cap->fd < 0) {
		rc = map_errno(errno);
		goto fail;
	}
	usbmon__file_header(fh, snaplen);
	e = cap_write_out(cap, fh, sizeof(fh));
	if (e) {
		cap_close(cap);
		return map_errno(e);
	}
	*out = cap;
	return 0;

fail:
	free(cap->buf);
	free(cap->path);
	free(cap);
	return rc;
}

/* The data bytes a record keeps under cfg.capture_max_data (0: all). */
static uint32_t kept(const struct usbip__capture *cap, uint32_t n)
{
	return cap->max_data && n > cap->max_data ? cap->max_data : n;
}

/* The largest record a device's URBs make: header, descriptors, data. */
static uint32_t snaplen_for(const struct usbip__dev *dev)
{
	const struct usbip_server_config *cfg = &dev->server->cfg;
	uint64_t data = cfg->capture_max_data && cfg->capture_max_data < cfg->max_urb_bytes
				? cfg->capture_max_data : cfg->max_urb_bytes;
	uint64_t max = USBMON_HDR_SIZE + (uint64_t)CAP_MAX_ISO * USBMON_ISO_DESC_SIZE + data;

	return max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

int usbip__cap_set(struct usbip__dev *dev, const char *path)
{
	const struct usbip_server_config *cfg = &dev->server->cfg;
	struct usbip__capture *cap = NULL, *old;
	uint32_t max_data = cfg->capture_max_data > UINT32_MAX ? 0 : (uint32_t)cfg->capture_max_data;
	char name[4096];
	struct stat st;
	int rc, n;

	if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		n = snprintf(name, sizeof(name), "%s/usbip-%s.pcap", path, dev->busid);
		if (n < 0 || (size_t)n >= sizeof(name))
			return -USB_ENAMETOOLONG;
		path = name;
	}
	if (path) {
		rc = cap_open(path, snaplen_for(dev), max_data, &cap);
		if (rc < 0)
			return rc;
		usbip__log(dev->server, "%s: capturing to %s", dev->busid, path);
	}
	pthread_mutex_lock(&dev->cap_lock);
	old = dev->cap;
	dev->cap = cap;
	atomic_store(&dev->capturing, cap != NULL);
	pthread_mutex_unlock(&dev->cap_lock);
	rc = cap_close(old);
	if (rc < 0)
		usbip__log(dev->server, "%s: capture: closing the previous file: %s", dev->busid,
			   usb_strerror(rc));
	return 0;
}

/* A write failed (errno @e): say so and stop; cap_lock held. */
static void cap_fail(struct usbip__dev *dev, int e)
{
	struct usbip__capture *cap = dev->cap;

	usbip__log(dev->server, "%s: capture to %s stopped: %s", dev->busid, cap->path,
		   usb_strerror(map_errno(e)));
	dev->cap = NULL;
	atomic_store(&dev->capturing, false);
	cap->len = 0;	/* what could not be written is dropped */
	cap_close(cap);
}

void usbip__cap_flush(struct usbip__dev *dev)
{
	int e;

	pthread_mutex_lock(&dev->cap_lock);
	if (dev->cap) {
		e = cap_write_out(dev->cap, NULL, 0);
		if (e)
			cap_fail(dev, e);
	}
	pthread_mutex_unlock(&dev->cap_lock);
}

long long usbip__cap_due(struct usbip__dev *dev)
{
	long long left = -1, waited;
	int e;

	pthread_mutex_lock(&dev->cap_lock);
	if (dev->cap && dev->cap->len) {
		waited = mono_ns() - dev->cap->since;
		left = USBIP_CAP_FLUSH_NS - waited;
		if (left <= 0) {
			left = -1;
			e = cap_write_out(dev->cap, NULL, 0);
			if (e)
				cap_fail(dev, e);
		}
	}
	pthread_mutex_unlock(&dev->cap_lock);
	return left;
}

static enum usbmon_xfer xfer_of(uint8_t ep_type)
{
	switch (ep_type) {
	case USB_ENDPOINT_XFER_CONTROL: return USBMON_XFER_CTRL;
	case USB_ENDPOINT_XFER_ISOC: return USBMON_XFER_ISO;
	case USB_ENDPOINT_XFER_INT: return USBMON_XFER_INT;
	default: return USBMON_XFER_BULK;
	}
}

/* What the 'S' and 'C' records of @urb share. */
static void event_init(struct usbmon_event *ev, const struct usbip__urb *urb, char type)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	memset(ev, 0, sizeof(*ev));
	ev->id = (uint64_t)urb->devid << 32 | urb->seqnum;
	ev->type = type;
	ev->xfer = xfer_of(urb->xfer);
	ev->epnum = (uint8_t)urb->epnum;
	ev->dir_in = urb->dir_in;
	ev->devnum = (uint8_t)(urb->devid & 0xffu);
	ev->busnum = (uint16_t)(urb->devid >> 16);
	ev->ts_sec = (int64_t)ts.tv_sec;
	ev->ts_usec = (int32_t)(ts.tv_nsec / 1000);
	ev->xfer_flags = urb->xfer_flags;
	if (ev->xfer == USBMON_XFER_INT || ev->xfer == USBMON_XFER_ISO)
		ev->interval = (int32_t)urb->interval;
	if (ev->xfer == USBMON_XFER_ISO) {
		ev->start_frame = (int32_t)urb->start_frame;
		ev->numdesc = (int32_t)urb->number_of_packets;
		ev->ndesc = urb->number_of_packets;
	}
}

/* The record prefix and @urb's ISO descriptors (@packed: the offsets of
 * the data as packed for the wire, 'C'; else as submitted). Return 0 or
 * an errno. */
static int put_prefix(struct usbip__capture *cap, const struct usbmon_event *ev,
		      const struct usbip__urb *urb, bool packed)
{
	uint8_t pre[USBMON_PCAP_PREFIX_SIZE];
	uint32_t off = 0;
	int e;

	if (!usbmon__record(pre, ev))
		return EINVAL;
	e = cap_put(cap, pre, sizeof(pre));
	for (uint32_t i = 0; i < ev->ndesc && e == 0; i++) {
		const struct usbip_iso_desc *d = &urb->iso[i];
		uint8_t b[USBMON_ISO_DESC_SIZE];

		if (packed) {
			usbmon__iso_desc(b, d->status, off, d->actual_length);
			off += d->actual_length;
		} else {
			usbmon__iso_desc(b, 0, d->offset, d->length);
		}
		e = cap_put(cap, b, sizeof(b));
	}
	return e;
}

void usbip__cap_submit(struct usbip__dev *dev, const struct usbip__urb *urb)
{
	struct usbip__capture *cap;
	struct usbmon_event ev;
	int e;

	if (!urb->captured)
		return;
	event_init(&ev, urb, 'S');
	ev.status = USBMON_STATUS_INPROGRESS;
	ev.length = urb->length;
	if (urb->epnum == 0) {
		ev.has_setup = true;
		memcpy(ev.setup, &urb->x.setup, sizeof(ev.setup));
	}
	pthread_mutex_lock(&dev->cap_lock);
	cap = dev->cap;
	if (cap) {
		ev.data_len = urb->dir_in ? 0 : kept(cap, urb->length);
		e = put_prefix(cap, &ev, urb, false);
		if (e == 0 && ev.data_len)
			e = cap_put(cap, urb->buf, ev.data_len);
		if (e != 0)
			cap_fail(dev, e);
	}
	pthread_mutex_unlock(&dev->cap_lock);
}

/* The first @n IN bytes of a gathering URB, from the request buffers it
 * holds (under dev->lock: they are the requests' until it is sent). */
static int put_gathered(struct usbip__dev *dev, struct usbip__capture *cap,
			const struct usbip__urb *urb, size_t n)
{
	int e = 0;

	pthread_mutex_lock(&dev->lock);
	for (size_t i = 0; i < urb->x.seg_count && n > 0 && e == 0; i++) {
		size_t m = urb->x.segs[i].len < n ? urb->x.segs[i].len : n;

		e = cap_put(cap, urb->x.segs[i].p, m);
		n -= m;
	}
	pthread_mutex_unlock(&dev->lock);
	return e;
}

void usbip__cap_complete(struct usbip__dev *dev, const struct usbip__urb *urb, int status,
			 size_t actual)
{
	struct usbip__capture *cap;
	struct usbmon_event ev;
	uint32_t errors = 0;
	int e;

	if (!urb->captured)
		return;
	event_init(&ev, urb, 'C');
	ev.status = status;
	ev.length = (uint32_t)actual;
	for (uint32_t i = 0; i < ev.ndesc; i++)
		errors += urb->iso[i].status != 0;
	ev.error_count = (int32_t)errors;
	pthread_mutex_lock(&dev->cap_lock);
	cap = dev->cap;
	if (cap) {
		ev.data_len = urb->dir_in ? kept(cap, (uint32_t)actual) : 0;
		e = put_prefix(cap, &ev, urb, true);
		if (e == 0 && ev.data_len > 0)
			e = urb->gather ? put_gathered(dev, cap, urb, ev.data_len)
					: cap_put(cap, urb->buf, ev.data_len);
		if (e != 0)
			cap_fail(dev, e);
	}
	pthread_mutex_unlock(&dev->cap_lock);
}

void usbip__cap_fini(struct usbip__dev *dev)
{
	int rc;

	pthread_mutex_lock(&dev->cap_lock);
	rc = cap_close(dev->cap);
	dev->cap = NULL;
	atomic_store(&dev->capturing, false);
	pthread_mutex_unlock(&dev->cap_lock);
	if (rc < 0)
		usbip__log(dev->server, "%s: capture: closing the file: %s", dev->busid,
			   usb_strerror(rc));
}
