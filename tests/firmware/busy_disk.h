/*
 * busy_disk.h - a RAM disk behind the fsg_backend seam that can be busy,
 * as a flash being programmed: while busy_disk.busy > 0 (or .stuck), every
 * read and write answers -USB_EAGAIN (the non-blocking form) and counts
 * it; with .busy_per_call each call is busy that many times first. Shared
 * by the firmware scenario and fuzz_msf_polled. Portable C11, no heap.
 */
#ifndef FW_BUSY_DISK_H
#define FW_BUSY_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "composite/mass_storage.h"

struct busy_disk {
	struct fsg_backend be;		/* hand &be to a LUN (no release) */
	uint8_t *mem;
	uint64_t size;
	unsigned busy;			/* calls still answered -USB_EAGAIN */
	unsigned busy_per_call;		/* busy again before each next call */
	bool stuck;			/* busy until cleared */
	unsigned long busy_answers;
};

/* Set up @d on @size bytes at @mem (a multiple of 512), not busy. */
void busy_disk_init(struct busy_disk *d, void *mem, uint64_t size);

#endif /* FW_BUSY_DISK_H */
