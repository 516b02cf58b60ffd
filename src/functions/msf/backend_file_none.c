/*
 * backend_file_none.c - fsg_backend_file_open() for builds without POSIX
 * files (COMPOSITE_POSIX off): there is no file system to open, so it
 * refuses with USB_EOPNOTSUPP as mass_storage.h documents. Firmware hands
 * its media to the LUNs as fsg_backend callbacks or memory backends.
 */
#include "msf_internal.h"

int fsg_backend_file_open(struct fsg_backend **out, const char *path, bool ro,
			  bool sync_fua)
{
	(void)path;
	(void)ro;
	(void)sync_fua;
	if (out)
		*out = NULL;
	return -USB_EOPNOTSUPP;
}
