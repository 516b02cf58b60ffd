/*
 * backend_mem.c - the memory block backend: a RAM disk on memory the
 * backend allocates or borrows (firmware: a static array, a ROM image).
 *
 * Portable C11; touches only its own object.
 */
#include <string.h>

#include "msf_internal.h"
#include "port/alloc.h"

struct mem_backend {
	struct fsg_backend be;
	uint8_t *mem;
	uint64_t size;
	uint32_t block_size;
	bool ro;
	bool owned;
};

static struct mem_backend *to_mem(struct fsg_backend *be)
{
	return usb_container_of(be, struct mem_backend, be);
}

/* Clip [offset, offset + len) to the medium; the count that fits. */
static uint32_t clip(const struct mem_backend *m, uint64_t offset, uint32_t len)
{
	if (offset >= m->size)
		return 0;
	if (len > m->size - offset)
		return (uint32_t)(m->size - offset);
	return len;
}

static int mem_read(struct fsg_backend *be, uint64_t offset, void *buf, uint32_t len)
{
	struct mem_backend *m = to_mem(be);
	uint32_t n = clip(m, offset, len);

	if (len > INT32_MAX)
		return -USB_EINVAL;
	memcpy(buf, m->mem + offset, n);
	return (int)n;
}

static int mem_write(struct fsg_backend *be, uint64_t offset, const void *buf, uint32_t len)
{
	struct mem_backend *m = to_mem(be);
	uint32_t n = clip(m, offset, len);

	if (m->ro)
		return -USB_EROFS;
	if (len > INT32_MAX)
		return -USB_EINVAL;
	memcpy(m->mem + offset, buf, n);
	return (int)n;
}

static uint64_t mem_capacity(struct fsg_backend *be)
{
	return to_mem(be)->size;
}

static uint32_t mem_block_size(struct fsg_backend *be)
{
	return to_mem(be)->block_size;
}

static bool mem_read_only(struct fsg_backend *be)
{
	return to_mem(be)->ro;
}

static void mem_release(struct fsg_backend *be)
{
	struct mem_backend *m = to_mem(be);

	if (m->owned)
		composite__free(m->mem);
	composite__free(m);
}

static const struct fsg_backend_ops mem_ops = {
	.read = mem_read,
	.write = mem_write,
	.capacity = mem_capacity,
	.block_size = mem_block_size,
	.read_only = mem_read_only,
	.release = mem_release,
};

int fsg_backend_mem_create(struct fsg_backend **out, void *mem, uint64_t size,
			   uint32_t block_size, bool ro)
{
	struct mem_backend *m;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	/* block_size is a power of two: a mask, not a 64-bit division. */
	if ((block_size != 512 && block_size != 1024 && block_size != 2048 &&
	     block_size != 4096) || size == 0 || (size & (block_size - 1u)) ||
	    size > (uint64_t)SIZE_MAX)
		return -USB_EINVAL;
	m = composite__calloc(1, sizeof(*m));
	if (!m)
		return -USB_ENOMEM;
	if (mem) {
		m->mem = mem;
	} else {
		m->mem = composite__calloc(1, (size_t)size);
		if (!m->mem) {
			composite__free(m);
			return -USB_ENOMEM;
		}
		m->owned = true;
	}
	m->size = size;
	m->block_size = block_size;
	m->ro = ro;
	m->be.ops = &mem_ops;
	m->be.priv = m;
	*out = &m->be;
	return 0;
}
