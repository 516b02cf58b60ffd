/*
 * busy_disk.c - see busy_disk.h. Touches only its own struct and memory.
 */
#include <string.h>

#include "busy_disk.h"

static struct busy_disk *disk_of(struct fsg_backend *be)
{
	return be->priv;
}

/* True (and counted) when this call must answer -USB_EAGAIN. */
static bool busy_now(struct busy_disk *d)
{
	if (d->stuck || d->busy) {
		if (d->busy)
			d->busy--;
		d->busy_answers++;
		return true;
	}
	d->busy = d->busy_per_call;	/* the next call waits again */
	return false;
}

static int bd_read(struct fsg_backend *be, uint64_t offset, void *buf, uint32_t len)
{
	struct busy_disk *d = disk_of(be);

	if (busy_now(d))
		return -USB_EAGAIN;
	memcpy(buf, d->mem + offset, len);
	return (int)len;
}

static int bd_write(struct fsg_backend *be, uint64_t offset, const void *buf, uint32_t len)
{
	struct busy_disk *d = disk_of(be);

	if (busy_now(d))
		return -USB_EAGAIN;
	memcpy(d->mem + offset, buf, len);
	return (int)len;
}

static uint64_t bd_capacity(struct fsg_backend *be)
{
	return disk_of(be)->size;
}

static const struct fsg_backend_ops busy_disk_ops = {
	.read = bd_read,
	.write = bd_write,
	.capacity = bd_capacity,
};

void busy_disk_init(struct busy_disk *d, void *mem, uint64_t size)
{
	memset(d, 0, sizeof(*d));
	d->be.ops = &busy_disk_ops;
	d->be.priv = d;
	d->mem = mem;
	d->size = size;
}
