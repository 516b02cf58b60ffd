/*
 * errors.h - the library's error numbers and their names.
 *
 * Every call that can fail returns an int: 0 on success, a documented
 * positive length or count where a function says so, or one of these
 * negative values. They are the Linux errno numbers, fixed here rather than
 * taken from the host's <errno.h>, so a status means the same on every
 * system, in firmware and on the USB/IP wire (where request and URB status
 * values are Linux numbers by definition).
 */
#ifndef COMPOSITE_ERRORS_H
#define COMPOSITE_ERRORS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum usb_error {
	USB_EPERM = 1,
	USB_ENOENT = 2,		/* no such object; URB unlinked synchronously */
	USB_EINTR = 4,
	USB_EIO = 5,		/* backing store or transport I/O error */
	USB_ENXIO = 6,
	USB_E2BIG = 7,
	USB_EBADF = 9,
	USB_EAGAIN = 11,	/* try again: e.g. halt with IN data queued */
	USB_ENOMEM = 12,
	USB_EACCES = 13,
	USB_EFAULT = 14,
	USB_EBUSY = 16,		/* resource in use: UDC bound, ep claimed */
	USB_EEXIST = 17,
	USB_EXDEV = 18,		/* isochronous packet error */
	USB_ENODEV = 19,	/* no such device, or no UDC to bind to */
	USB_EINVAL = 22,
	USB_ENOSPC = 28,	/* out of ids, endpoints or medium space */
	USB_EROFS = 30,
	USB_EPIPE = 32,		/* endpoint stalled / request stalled */
	USB_EDOM = 33,
	USB_ERANGE = 34,
	USB_ENAMETOOLONG = 36,
	USB_ENOSYS = 38,
	USB_ENODATA = 61,
	USB_ETIME = 62,
	USB_ENOLINK = 67,
	USB_EPROTO = 71,	/* protocol error on the bus or wire */
	USB_EBADMSG = 74,	/* malformed message (USB/IP PDU, CBW) */
	USB_EOVERFLOW = 75,	/* babble: more data than the buffer takes */
	USB_EILSEQ = 84,
	USB_EMSGSIZE = 90,
	USB_EOPNOTSUPP = 95,	/* operation not supported */
	USB_EADDRINUSE = 98,
	USB_EADDRNOTAVAIL = 99,	/* name does not resolve / address not local */
	USB_ECONNABORTED = 103,
	USB_ECONNRESET = 104,	/* request dequeued / URB unlinked */
	USB_ENOBUFS = 105,
	USB_EISCONN = 106,
	USB_ENOTCONN = 107,
	USB_ESHUTDOWN = 108,	/* endpoint disabled or device disconnected */
	USB_ETIMEDOUT = 110,
	USB_ECONNREFUSED = 111,
	USB_EALREADY = 114,
	USB_EINPROGRESS = 115,
	USB_EREMOTEIO = 121,
	USB_ENOMEDIUM = 123,
	USB_ECANCELED = 125
};

/**
 * usb_strerror() - name and describe an error number.
 * @err: a value from enum usb_error, negative (as returned) or positive.
 *
 * Return: a static string such as "EPIPE (broken pipe / stall)"; unknown
 * numbers give "unknown error". Never NULL. Safe from any thread. A build
 * with COMPOSITE_NO_ERROR_STRINGS (cmake option of that name, on for
 * bare-metal targets) has no names: "success" for 0, "error" otherwise.
 */
const char *usb_strerror(int err);

/*
 * An error carried in a pointer, as Linux's ERR_PTR(): the last 4095
 * addresses are never valid objects. Calls documented to return "a
 * pointer or an error pointer" use these; composite/linux.h spells them
 * ERR_PTR(), IS_ERR(), PTR_ERR().
 */
#define USB_MAX_ERRNO 4095
static inline void *usb_err_ptr(long err)
{
	return (void *)(intptr_t)err;
}

static inline long usb_ptr_err(const void *ptr)
{
	return (long)(intptr_t)ptr;
}

static inline int usb_is_err(const void *ptr)
{
	return (uintptr_t)ptr >= (uintptr_t)-USB_MAX_ERRNO;
}

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_ERRORS_H */
