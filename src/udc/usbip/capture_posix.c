/*
 * capture_posix.c - the capture of a device's URBs to a pcap file of
 * Linux usbmon records (usbip_server_set_capture()), as the host's usbmon
 * would log them: an 'S' record when a URB is submitted (the setup
 * packet, OUT data), a 'C' record when it is answered (status, IN data).
 *
 * Owns struct usbip__capture (the FILE and its buffer) and the device's
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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "usbip_priv.h"
#include "usbmon_pcap.h"

/* stdio buffer of a capture: several 128 KiB URBs per write(2). */
#define CAP_BUFFER (1u << 20)
/* Most ISO packets per URB (usbip__submit_payload() caps them too). */
#define CAP_MAX_ISO 1024u

struct usbip__capture {
	FILE *f;
	char *buf;
	char *path;
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

static int cap_close(struct usbip__capture *cap)
{
	int rc = 0;

	if (!cap)
		return 0;
	if (fclose(cap->f) != 0)
		rc = map_errno(errno);
	free(cap->buf);
	free(cap->path);
	free(cap);
	return rc;
}

static int cap_open(const char *path, uint32_t snaplen, struct usbip__capture **out)
{
	uint8_t fh[USBMON_PCAP_FILE_HEADER_SIZE];
	struct usbip__capture *cap = calloc(1, sizeof(*cap));
	int fd, rc;

	if (!cap)
		return -USB_ENOMEM;
	cap->path = malloc(strlen(path) + 1);
	cap->buf = malloc(CAP_BUFFER);
	if (!cap->path || !cap->buf) {
		rc = -USB_ENOMEM;
		goto fail;
	}
	strcpy(cap->path, path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = map_errno(errno);
		goto fail;
	}
	cap->f = fdopen(fd, "wb");
	if (!cap->f) {
		rc = map_errno(errno);
		close(fd);
		goto fail;
	}
	setvbuf(cap->f, cap->buf, _IOFBF, CAP_BUFFER);
	usbmon__file_header(fh, snaplen);
	if (fwrite(fh, sizeof(fh), 1, cap->f) != 1 || fflush(cap->f) != 0) {
		rc = map_errno(errno);
		cap_close(cap);
		return rc;
	}
	*out = cap;
	return 0;

fail:
	free(cap->buf);
	free(cap->path);
	free(cap);
	return rc;
}

/* The largest record a device's URBs make: header, descriptors, data. */
static uint32_t snaplen_for(const struct usbip__dev *dev)
{
	uint64_t max = USBMON_HDR_SIZE + (uint64_t)CAP_MAX_ISO * USBMON_ISO_DESC_SIZE +
		       dev->server->cfg.max_urb_bytes;

	return max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

int usbip__cap_set(struct usbip__dev *dev, const char *path)
{
	struct usbip__capture *cap = NULL, *old;
	int rc;

	if (path) {
		rc = cap_open(path, snaplen_for(dev), &cap);
		if (rc < 0)
			return rc;
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
	cap_close(cap);
}

void usbip__cap_flush(struct usbip__dev *dev)
{
	pthread_mutex_lock(&dev->cap_lock);
	if (dev->cap && fflush(dev->cap->f) != 0)
		cap_fail(dev, errno);
	pthread_mutex_unlock(&dev->cap_lock);
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
 * the data as packed for the wire, 'C'; else as submitted). */
static int write_prefix(FILE *f, const struct usbmon_event *ev, const struct usbip__urb *urb,
			bool packed)
{
	uint8_t pre[USBMON_PCAP_PREFIX_SIZE];
	uint32_t off = 0;

	if (!usbmon__record(pre, ev))
		return EINVAL;
	if (fwrite(pre, sizeof(pre), 1, f) != 1)
		return errno;
	for (uint32_t i = 0; i < ev->ndesc; i++) {
		const struct usbip_iso_desc *d = &urb->iso[i];
		uint8_t b[USBMON_ISO_DESC_SIZE];

		if (packed) {
			usbmon__iso_desc(b, d->status, off, d->actual_length);
			off += d->actual_length;
		} else {
			usbmon__iso_desc(b, 0, d->offset, d->length);
		}
		if (fwrite(b, sizeof(b), 1, f) != 1)
			return errno;
	}
	return 0;
}

static int write_bytes(FILE *f, const void *p, size_t n)
{
	return n == 0 || fwrite(p, n, 1, f) == 1 ? 0 : errno;
}

void usbip__cap_submit(struct usbip__dev *dev, const struct usbip__urb *urb)
{
	struct usbmon_event ev;
	int e;

	if (!urb->captured)
		return;
	event_init(&ev, urb, 'S');
	ev.status = USBMON_STATUS_INPROGRESS;
	ev.length = urb->length;
	ev.data_len = urb->dir_in ? 0 : urb->length;
	if (urb->epnum == 0) {
		ev.has_setup = true;
		memcpy(ev.setup, &urb->x.setup, sizeof(ev.setup));
	}
	pthread_mutex_lock(&dev->cap_lock);
	if (dev->cap) {
		e = write_prefix(dev->cap->f, &ev, urb, false);
		if (e == 0)
			e = write_bytes(dev->cap->f, urb->buf, ev.data_len);
		if (e != 0)
			cap_fail(dev, e);
	}
	pthread_mutex_unlock(&dev->cap_lock);
}

/* A gathering URB's IN bytes, from the request buffers it holds. */
static int write_gathered(struct usbip__dev *dev, FILE *f, const struct usbip__urb *urb)
{
	int e = 0;

	pthread_mutex_lock(&dev->lock);
	for (size_t i = 0; i < urb->x.seg_count && e == 0; i++)
		e = write_bytes(f, urb->x.segs[i].p, urb->x.segs[i].len);
	pthread_mutex_unlock(&dev->lock);
	return e;
}

void usbip__cap_complete(struct usbip__dev *dev, const struct usbip__urb *urb, int status,
			 size_t actual)
{
	struct usbmon_event ev;
	uint32_t errors = 0;
	int e;

	if (!urb->captured)
		return;
	event_init(&ev, urb, 'C');
	ev.status = status;
	ev.length = (uint32_t)actual;
	ev.data_len = urb->dir_in ? (uint32_t)actual : 0;
	for (uint32_t i = 0; i < ev.ndesc; i++)
		errors += urb->iso[i].status != 0;
	ev.error_count = (int32_t)errors;
	pthread_mutex_lock(&dev->cap_lock);
	if (dev->cap) {
		e = write_prefix(dev->cap->f, &ev, urb, true);
		if (e == 0 && ev.data_len > 0)
			e = urb->gather ? write_gathered(dev, dev->cap->f, urb)
					: write_bytes(dev->cap->f, urb->buf, ev.data_len);
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
