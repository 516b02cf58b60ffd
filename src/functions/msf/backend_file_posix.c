/*
 * backend_file_posix.c - the file block backend on POSIX: a regular file
 * or a block device, read and written with pread/pwrite, flushed with
 * fdatasync. Anything else (a FIFO, a directory, a character device) is
 * refused, without blocking in open(), with a line naming the file in the
 * library's log (composite__warn, usb_composite_set_log_handler()). A
 * file whose mode has no write bit is opened read-only, also by root; a
 * read-write open refused with EROFS or EACCES falls back to read-only,
 * as Linux's fsg_lun_open does; both are logged. A write never extends
 * a file that shrank while served. With sync_fua the file is opened O_DSYNC:
 * every write is durable when pwrite returns, as Linux's file is once its
 * first FUA write has set O_SYNC on it.
 *
 * Touches only its own object and file descriptor, and the log.
 */
#define _GNU_SOURCE	/* O_CLOEXEC with older libcs, BLKGETSIZE64 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#include <sys/ioctl.h>
#endif

#include "core/core.h"	/* composite__warn(): the library's one log */
#include "msf_internal.h"

#ifndef O_DSYNC
#define O_DSYNC O_SYNC	/* systems without the data-only variant */
#endif

struct file_backend {
	struct fsg_backend be;
	int fd;
	uint64_t size;
	uint32_t block_size;
	bool ro;
	bool regular;	/* a regular file (may shrink under us), not a device */
};

static struct file_backend *to_file(struct fsg_backend *be)
{
	return usb_container_of(be, struct file_backend, be);
}

/* The host's errno as a library error (never returned raw). */
static int map_errno(int e)
{
	switch (e) {
	case ENOENT: return -USB_ENOENT;
	case EACCES: return -USB_EACCES;
	case EPERM: return -USB_EPERM;
	case EROFS: return -USB_EROFS;
	case ENOMEM: return -USB_ENOMEM;
	case ENOSPC: return -USB_ENOSPC;
	case EINVAL: return -USB_EINVAL;
	case EISDIR: return -USB_EINVAL;
	case ENAMETOOLONG: return -USB_ENAMETOOLONG;
	case EBUSY: return -USB_EBUSY;
	case ENXIO: return -USB_ENXIO;
	case ENODEV: return -USB_ENODEV;
	default: return -USB_EIO;
	}
}

static int file_read(struct fsg_backend *be, uint64_t offset, void *buf, uint32_t len)
{
	struct file_backend *f = to_file(be);
	uint32_t done = 0;

	if (len > INT32_MAX)
		return -USB_EINVAL;
	while (done < len) {
		ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(offset + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return done ? (int)done : map_errno(errno);
		}
		if (n == 0)
			break;	/* end of file: a short count */
		done += (uint32_t)n;
	}
	return (int)done;
}

static int file_write(struct fsg_backend *be, uint64_t offset, const void *buf, uint32_t len)
{
	struct file_backend *f = to_file(be);
	uint32_t done = 0;

	if (f->ro)
		return -USB_EROFS;
	if (len > INT32_MAX)
		return -USB_EINVAL;
	/*
	 * A file truncated while served must not grow back: pwrite() past
	 * its end would extend it. Only the whole blocks still inside it are
	 * written; the short count becomes WRITE ERROR at the next LBA, as
	 * a read there is a read error. One fstat() per call (of up to a
	 * buffer or window), against a pwrite() of as many bytes.
	 */
	if (f->regular) {
		struct stat st;

		if (fstat(f->fd, &st) < 0)
			return map_errno(errno);
		if ((uint64_t)st.st_size < offset + len) {
			uint64_t inside = (uint64_t)st.st_size > offset ?
					  (uint64_t)st.st_size - offset : 0;

			len = (uint32_t)inside & ~(f->block_size - 1);
			if (len == 0)
				return -USB_EIO;
		}
	}
	while (done < len) {
		ssize_t n = pwrite(f->fd, (const char *)buf + done, len - done,
				   (off_t)(offset + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return done ? (int)done : map_errno(errno);
		}
		if (n == 0)
			break;
		done += (uint32_t)n;
	}
	return (int)done;
}

static int file_flush(struct fsg_backend *be)
{
	struct file_backend *f = to_file(be);

	if (f->ro)
		return 0;
	if (fdatasync(f->fd) < 0)
		return map_errno(errno);
	return 0;
}

static uint64_t file_capacity(struct fsg_backend *be)
{
	return to_file(be)->size;
}

static uint32_t file_block_size(struct fsg_backend *be)
{
	return to_file(be)->block_size;
}

static bool file_read_only(struct fsg_backend *be)
{
	return to_file(be)->ro;
}

static void file_release(struct fsg_backend *be)
{
	struct file_backend *f = to_file(be);

	close(f->fd);
	free(f);
}

static const struct fsg_backend_ops file_ops = {
	.read = file_read,
	.write = file_write,
	.flush = file_flush,
	.capacity = file_capacity,
	.block_size = file_block_size,
	.read_only = file_read_only,
	.release = file_release,
};

/*
 * Open @path with @flags, O_NONBLOCK added so that a FIFO (or a device
 * waiting for a carrier) cannot block here; @st gets its fstat(). Return
 * the descriptor or a negative error (errno kept for the caller).
 */
static int open_nonblock(const char *path, int flags, struct stat *st)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return map_errno(errno);
	if (fstat(fd, st) < 0) {
		int rc = map_errno(errno);

		close(fd);
		return rc;
	}
	return fd;
}

int fsg_backend_file_open(struct fsg_backend **out, const char *path, bool ro,
			  bool sync_fua)
{
	struct file_backend *f;
	struct stat st;
	int fd = -1, fl, rc;

	if (!out)
		return -USB_EINVAL;
	*out = NULL;
	if (!path || !path[0])
		return -USB_EINVAL;

	/* Read-only first: the type and mode are known before any write open. */
	fd = open_nonblock(path, O_RDONLY, &st);
	if (fd < 0)
		return fd;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		composite__warn("mass storage: %s: not a regular file or block device, refused",
				path);
		rc = -USB_EINVAL;
		goto fail_fd;
	}
	/* Nobody may write it: not root either (who open() would let). */
	if (!ro && !(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH))) {
		composite__warn("mass storage: %s: mode %03o has no write permission, "
				"opened read-only", path, (unsigned)(st.st_mode & 0777));
		ro = true;
	}
	if (!ro) {
		struct stat rw_st;
		int rw = open_nonblock(path, O_RDWR | (sync_fua ? O_DSYNC : 0), &rw_st);

		if (rw == -USB_EROFS || rw == -USB_EACCES) {
			/* Fall back, as Linux does. */
			composite__warn("mass storage: %s: %s for writing, opened read-only", path,
					rw == -USB_EROFS ? "read-only file system" : "no permission");
			ro = true;
		} else if (rw < 0) {
			rc = rw;
			goto fail_fd;
		} else if (rw_st.st_dev != st.st_dev || rw_st.st_ino != st.st_ino) {
			/* Replaced between the two opens: what was checked is gone. */
			close(rw);
			rc = -USB_EAGAIN;
			goto fail_fd;
		} else {
			close(fd);
			fd = rw;
			st = rw_st;
		}
	}
	/* Blocking I/O from here on (O_NONBLOCK only guarded the open). */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		rc = map_errno(errno);
		goto fail_fd;
	}

	f = calloc(1, sizeof(*f));
	if (!f) {
		rc = -USB_ENOMEM;
		goto fail_fd;
	}
	f->fd = fd;
	f->ro = ro;
	f->block_size = 512;
	if (S_ISREG(st.st_mode)) {
		f->regular = true;
		f->size = (uint64_t)st.st_size;
	} else {
#if defined(__linux__) && defined(BLKGETSIZE64) && defined(BLKSSZGET)
		uint64_t bytes = 0;
		int ssz = 0;

		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			rc = map_errno(errno);
			goto fail_f;
		}
		if (ioctl(fd, BLKSSZGET, &ssz) == 0 && ssz >= 512 && ssz <= 4096)
			f->block_size = (uint32_t)ssz;
		f->size = bytes;
#else
		off_t end = lseek(fd, 0, SEEK_END);

		if (end < 0) {
			rc = map_errno(errno);
			goto fail_f;
		}
		f->size = (uint64_t)end;
#endif
	}
	if (f->size < f->block_size) {
		rc = -USB_EINVAL;	/* not even one block */
		goto fail_f;
	}
	f->be.ops = &file_ops;
	f->be.priv = f;
	*out = &f->be;
	return 0;

fail_f:
	free(f);
fail_fd:
	close(fd);
	return rc;
}
