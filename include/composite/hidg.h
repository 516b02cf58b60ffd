/*
 * hidg.h - a HID function's reports through named pipes, like Linux's
 * /dev/hidg0 (POSIX builds). Every report_length bytes written to the
 * input pipe become one input report to the host (a partial report waits
 * for its remaining bytes; it is never sent alone); each output report
 * from the host (interrupt OUT or SET_REPORT) is written to the output
 * pipe whole. While the host does not read, the input pipe is not read
 * either, so writers block once it is full; an output report that finds
 * the output pipe full (nobody reads it) is dropped and counted, and the
 * first drop is logged. The idle period the host sets (SET_IDLE) is
 * honoured: the last input report is sent again when that long passes
 * without a new one.
 *
 * Use: hidg_create() fills the callbacks of the function's options, the
 * function is made of them, then hidg_start(); hidg_destroy() after the
 * function is unbound. The bridge's thread stops at unbind.
 */
#ifndef COMPOSITE_HIDG_H
#define COMPOSITE_HIDG_H

#include "composite/hid.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hidg;

/**
 * hidg_create() - make the pipes (FIFOs, mode 0600; an existing FIFO is
 * used as it is, anything else refused) and set @opts->ops and ctx.
 * @in_path: the input report pipe (what is written there goes to the host).
 * @out_path: the output report pipe, or NULL for none (output reports are
 *	then counted only).
 * Return: 0 and *@out; -USB_EEXIST (a path exists and is no FIFO);
 * -USB_ENOMEM; the errno of mkfifo()/open() negated.
 */
int hidg_create(struct hidg **out, struct f_hid_opts *opts, const char *in_path,
		const char *out_path);

/**
 * hidg_start() - start moving reports for @f, a function made of the
 * options hidg_create() filled. Call it again for each other function
 * made of them (one per configuration linking the instance): reports go
 * through the function of the configuration the host chose. Context: one
 * thread at a time, before the functions are unbound.
 * Return: 0; -USB_EINVAL (@f is no HID function); -USB_EBUSY (started on
 * @f already); -USB_ENOSPC (more than 8 functions); -USB_EAGAIN (no
 * thread).
 */
int hidg_start(struct hidg *g, struct usb_function *f);

/* Reports moved: to the host, from the host, and dropped from the host. */
void hidg_counts(const struct hidg *g, unsigned long long *in_reports,
		 unsigned long long *out_reports, unsigned long long *out_dropped);

/* Close and remove the pipes this call made. After unbind; NULL ignored. */
void hidg_destroy(struct hidg *g);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_HIDG_H */
