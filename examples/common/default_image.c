/*
 * default_image.c - the storage examples' defaults (default_image.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "default_image.h"

/* A 64 MiB file of zeros (sparse), unless it exists. */
static int ensure_default_image(const char *path, const char *prog)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	if (ftruncate(fd, 64L << 20) < 0) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	printf("%s: created %s (64 MiB)\n", prog, path);
	return 0;
}

int example_storage_defaults(struct fsg_module_parameters *p, const char *prog)
{
	if (p->removable_count == 0) {
		for (unsigned i = 0; i < FSG_MAX_LUNS; i++)
			p->removable[i] = true;
		p->removable_count = FSG_MAX_LUNS;
	}
	if (p->file_count == 0) {
		if (ensure_default_image("disk.img", prog) < 0) {
			int err = -errno;

			fprintf(stderr, "%s: disk.img: %s\n", prog, strerror(-err));
			return err;
		}
		p->file[0] = "disk.img";
		p->file_count = 1;
	}
	return 0;
}
