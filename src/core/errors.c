/*
 * errors.c - usb_strerror(): names for the library's fixed error numbers
 * (include/composite/errors.h). Pure data, no state. COMPOSITE_NO_ERROR_STRINGS
 * (the firmware profile's default) leaves the names out.
 */
#include "composite/errors.h"

#include <stddef.h>

#ifdef COMPOSITE_NO_ERROR_STRINGS
/* Firmware profile: no table (1.6 KiB); callers print the number. */
const char *usb_strerror(int err)
{
	return err == 0 ? "success" : "error";
}
#else
struct error_name {
	int err;
	const char *text;
};

static const struct error_name error_names[] = {
	{ USB_EPERM, "EPERM (operation not permitted)" },
	{ USB_ENOENT, "ENOENT (no such entry)" },
	{ USB_EINTR, "EINTR (interrupted)" },
	{ USB_EIO, "EIO (input/output error)" },
	{ USB_ENXIO, "ENXIO (no such device or address)" },
	{ USB_E2BIG, "E2BIG (argument list too long)" },
	{ USB_EBADF, "EBADF (bad file descriptor)" },
	{ USB_EAGAIN, "EAGAIN (try again)" },
	{ USB_ENOMEM, "ENOMEM (out of memory)" },
	{ USB_EACCES, "EACCES (permission denied)" },
	{ USB_EFAULT, "EFAULT (bad address)" },
	{ USB_EBUSY, "EBUSY (busy)" },
	{ USB_EEXIST, "EEXIST (exists)" },
	{ USB_EXDEV, "EXDEV (isochronous packet error)" },
	{ USB_ENODEV, "ENODEV (no such device)" },
	{ USB_EINVAL, "EINVAL (invalid argument)" },
	{ USB_ENOSPC, "ENOSPC (no space left)" },
	{ USB_EROFS, "EROFS (read-only)" },
	{ USB_EPIPE, "EPIPE (stall)" },
	{ USB_EDOM, "EDOM (argument out of domain)" },
	{ USB_ERANGE, "ERANGE (out of range)" },
	{ USB_ENAMETOOLONG, "ENAMETOOLONG (name too long)" },
	{ USB_ENOSYS, "ENOSYS (not implemented)" },
	{ USB_ENODATA, "ENODATA (no data)" },
	{ USB_ETIME, "ETIME (timer expired)" },
	{ USB_ENOLINK, "ENOLINK (link severed)" },
	{ USB_EPROTO, "EPROTO (protocol error)" },
	{ USB_EBADMSG, "EBADMSG (malformed message)" },
	{ USB_EOVERFLOW, "EOVERFLOW (babble: more data than room)" },
	{ USB_EILSEQ, "EILSEQ (illegal byte sequence)" },
	{ USB_EMSGSIZE, "EMSGSIZE (message too long)" },
	{ USB_EOPNOTSUPP, "EOPNOTSUPP (operation not supported)" },
	{ USB_EADDRINUSE, "EADDRINUSE (address in use)" },
	{ USB_EADDRNOTAVAIL, "EADDRNOTAVAIL (address not available)" },
	{ USB_ECONNABORTED, "ECONNABORTED (connection aborted)" },
	{ USB_ECONNRESET, "ECONNRESET (cancelled / connection reset)" },
	{ USB_ENOBUFS, "ENOBUFS (no buffer space)" },
	{ USB_EISCONN, "EISCONN (already connected)" },
	{ USB_ENOTCONN, "ENOTCONN (not connected)" },
	{ USB_ESHUTDOWN, "ESHUTDOWN (endpoint shut down)" },
	{ USB_ETIMEDOUT, "ETIMEDOUT (timed out)" },
	{ USB_ECONNREFUSED, "ECONNREFUSED (connection refused)" },
	{ USB_EALREADY, "EALREADY (already in progress)" },
	{ USB_EINPROGRESS, "EINPROGRESS (in progress)" },
	{ USB_EREMOTEIO, "EREMOTEIO (short transfer)" },
	{ USB_ENOMEDIUM, "ENOMEDIUM (no medium)" },
	{ USB_ECANCELED, "ECANCELED (cancelled)" },
};

const char *usb_strerror(int err)
{
	size_t i;

	if (err == 0)
		return "success";
	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(error_names) / sizeof(error_names[0]); i++)
		if (error_names[i].err == err)
			return error_names[i].text;
	return "unknown error";
}
#endif /* COMPOSITE_NO_ERROR_STRINGS */
