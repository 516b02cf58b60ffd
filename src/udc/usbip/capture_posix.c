/*
 * capture_posix.c - the capture of a device's URBs to a pcap file of
 * Linux usbmon records (usbip_server_set_capture()), as the host's usbmon
 * would log them: an 'S' record when a URB is submitted (the setup
 * packet, OUT data), a 'C' record when it is answered (status, IN data).
 *
 * Owns struct usbip__capture and the device's cap / capturing fields,
 * under dev->cap_lock. Record bytes come from the pure encoder
 * (usbmon_pcap.c); the file and its writer thread are
 * capture_file_posix.c's, which takes a copy of each record and writes
 * it behind. Reads URBs the connection thread hands it; takes dev->lock
 * (under cap_lock, never the reverse) only to copy a gathering IN URB's
 * bytes from the request buffers it holds. A write that fails (disk
 * full, I/O error) is logged by the writer and stops the capture; the
 * device goes on serving.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "usbip_priv.h"
#include "usbmon_pcap.h"

/* Most ISO packets per URB (usbip__submit_payload() caps them too). */
#define CAP_MAX_ISO 1024u
/* ISO descriptors encoded per put. */
#define CAP_ISO_CHUNK 64u

struct usbip__capture {
	struct usbip__cap_file *file;
	uint32_t max_data;	/* data bytes kept per record; 0: all */
};

static int cap_close(struct usbip__capture *cap)
{
	int rc;

	if (!cap)
		return 0;
	rc = usbip__cap_file_close(cap->file);
	free(cap);
	return rc;
}

static int cap_open(struct usbip__dev *dev, const char *path, uint32_t snaplen,
		    uint32_t max_data, struct usbip__capture **out)
{
	uint8_t fh[USBMON_PCAP_FILE_HEADER_SIZE];
	struct usbip__capture *cap = calloc(1, sizeof(*cap));
	int rc;

	if (!cap)
		return -USB_ENOMEM;
	cap->max_data = max_data;
	usbmon__file_header(fh, snaplen);
	rc = usbip__cap_file_open(dev->server, dev->busid, path, fh, sizeof(fh), &cap->file);
	if (rc < 0) {
		free(cap);
		return rc;
	}
	*out = cap;
	return 0;
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
	uint32_t max_data = usbip__cap_max_data(cfg);
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
		rc = cap_open(dev, path, snaplen_for(dev), max_data, &cap);
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

/* The file failed (the writer said why in the log): stop; cap_lock held. */
static void cap_fail(struct usbip__dev *dev)
{
	struct usbip__capture *cap = dev->cap;

	dev->cap = NULL;
	atomic_store(&dev->capturing, false);
	cap_close(cap);
}

void usbip__cap_flush(struct usbip__dev *dev)
{
	pthread_mutex_lock(&dev->cap_lock);
	if (dev->cap && usbip__cap_file_flush(dev->cap->file) < 0)
		cap_fail(dev);
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
 * the data as packed for the wire, 'C'; else as submitted). Return 0 or
 * a negative error. */
static int put_prefix(struct usbip__capture *cap, const struct usbmon_event *ev,
		      const struct usbip__urb *urb, bool packed)
{
	uint8_t pre[USBMON_PCAP_PREFIX_SIZE];
	uint8_t b[CAP_ISO_CHUNK * USBMON_ISO_DESC_SIZE];
	uint32_t off = 0, k = 0;
	int rc;

	if (!usbmon__record(pre, ev))
		return -USB_EINVAL;
	rc = usbip__cap_file_put(cap->file, pre, sizeof(pre));
	for (uint32_t i = 0; i < ev->ndesc && rc == 0; i++) {
		const struct usbip_iso_desc *d = &urb->iso[i];
		uint8_t *p = b + k * USBMON_ISO_DESC_SIZE;

		if (packed) {
			usbmon__iso_desc(p, d->status, off, d->actual_length);
			off += d->actual_length;
		} else {
			usbmon__iso_desc(p, 0, d->offset, d->length);
		}
		if (++k == CAP_ISO_CHUNK || i + 1 == ev->ndesc) {
			rc = usbip__cap_file_put(cap->file, b, k * USBMON_ISO_DESC_SIZE);
			k = 0;
		}
	}
	return rc;
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
			e = usbip__cap_file_put(cap->file, urb->buf, ev.data_len);
		if (e != 0)
			cap_fail(dev);
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

		e = usbip__cap_file_put(cap->file, urb->x.segs[i].p, m);
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
					: usbip__cap_file_put(cap->file, urb->buf, ev.data_len);
		if (e != 0)
			cap_fail(dev);
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
