/*
 * scheme.h - gadget schemes: libusbgx's text format for a whole configfs
 * gadget (doc/gadget_schemes.txt of libusbgx, libconfig syntax), loaded
 * into a composite gadget built from the function registry
 * (composite/registry.h), bound to any UDC, and written back out.
 *
 * A scheme holds the device's attrs (bcdUSB, bDeviceClass...), its
 * strings in one or more languages, its functions (by configfs type and
 * instance, attributes by configfs names; mass_storage's luns list with
 * libusbgx's `filename` for lun.N/file), its configurations (id, name,
 * bmAttributes, bMaxPower in mA as configfs's MaxPower, strings, the
 * functions they link) and the MS OS descriptors (os_descs).
 * docs/gadgetd.md describes the format as supported.
 *
 * Parsed with libconfig (Debian's libconfig-dev): this module is built
 * only where libconfig is found (target composite::scheme), hosted code.
 *
 * Errors: every call that can fail fills a struct gadget_scheme_error
 * with the file and line of the setting at fault (line 0 when the fault
 * has no line: a file that cannot be opened) and a sentence, and returns
 * a negative USB_E* value.
 *
 * Threads: a scheme is used from one thread at a time; bind and unbind
 * follow usb_composite_probe()/usb_composite_unregister()'s contexts.
 */
#ifndef COMPOSITE_SCHEME_H
#define COMPOSITE_SCHEME_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gadget_scheme;
struct usb_composite_dev;

/**
 * struct gadget_scheme_error - where and why a scheme failed.
 * @file: the scheme file (or an @include'd one, or the name given to
 *	gadget_scheme_load_string()).
 * @line: 1-based line of the setting at fault; 0 when there is none.
 * @message: one sentence, no newline.
 */
struct gadget_scheme_error {
	char file[256];
	int line;
	char message[256];
};

/**
 * gadget_scheme_load_file() - parse @path and create the instances of its
 * functions with their attributes. Nothing is bound yet.
 * @path: the scheme; @include paths are relative to its folder.
 * @out: receives the scheme (free with gadget_scheme_free()).
 * @err: filled on failure (may be NULL).
 * Return: 0; -USB_ENOENT (the file cannot be read); -USB_EINVAL (syntax,
 * a wrong type, an unknown setting, function type or attribute, a label
 * that does not exist); -USB_ERANGE (a value out of range); -USB_ENOSPC
 * (more functions, configurations or languages than supported);
 * -USB_ENOMEM; or a function's error for an attribute.
 */
int gadget_scheme_load_file(const char *path, struct gadget_scheme **out,
			    struct gadget_scheme_error *err);

/**
 * gadget_scheme_load_string() - as gadget_scheme_load_file() for a scheme
 * in memory. @name names it in errors. @include_dir: where @include
 * paths are looked up (NULL: the current folder).
 */
int gadget_scheme_load_string(const char *text, const char *name, const char *include_dir,
			      struct gadget_scheme **out, struct gadget_scheme_error *err);

/**
 * gadget_scheme_bind() - make the composite device on the UDC called
 * @udc_name (usb_composite_probe()): every configuration and its
 * functions, the strings, the OS descriptors.
 * Return: 0; -USB_EBUSY (already bound); -USB_ENODEV (no such free UDC,
 * or a function that could not get its endpoints: @err names the
 * configuration and the function, with its line); or the error of a
 * function's bind.
 */
int gadget_scheme_bind(struct gadget_scheme *s, const char *udc_name,
		       struct gadget_scheme_error *err);

/* Undo gadget_scheme_bind() (usb_composite_unregister()). Not bound:
 * nothing happens. Context: as usb_composite_unregister(). */
void gadget_scheme_unbind(struct gadget_scheme *s);

/* The device while bound (borrowed), else NULL. */
struct usb_composite_dev *gadget_scheme_cdev(struct gadget_scheme *s);

/* The path or name it was loaded from (borrowed). */
const char *gadget_scheme_name(const struct gadget_scheme *s);

/**
 * gadget_scheme_export() - write the scheme of the gadget as it is now
 * to @stream: the device attrs and strings, every function with the
 * attributes its instance shows (read-only ones left out, as libusbgx
 * does; mass_storage as stall and a luns list), every configuration.
 * Loading the output gives the same descriptors.
 * Return: 0; -USB_ENOMEM; -USB_EIO (writing failed).
 */
int gadget_scheme_export(struct gadget_scheme *s, FILE *stream);

/**
 * struct gadget_scheme_lun - one mass storage LUN with a backing file.
 * @label: the function's label; @index: the LUN's number.
 * @file: the backing file as the instance holds it (lun.N/file).
 * @ro: read-only (ro or cdrom).
 * @scheme_file, @line: where the function is defined.
 * All borrowed for the callback's duration.
 */
struct gadget_scheme_lun {
	const char *label;
	unsigned index;
	const char *file;
	bool ro;
	const char *scheme_file;
	int line;
};

/**
 * gadget_scheme_for_each_lun() - call @fn for every LUN of every
 * mass_storage function of @s that has a backing file (to refuse two
 * gadgets writing one file). Stops at @fn's first non-zero return.
 * @fn runs in the calling thread, synchronously; @lun and its strings
 * are borrowed for the call only (copy what must outlive it).
 * Return: 0, or what @fn returned.
 */
int gadget_scheme_for_each_lun(struct gadget_scheme *s,
			       int (*fn)(void *ctx, const struct gadget_scheme_lun *lun),
			       void *ctx);

struct usb_function_instance;
struct usb_function;

/**
 * struct gadget_scheme_function - one function of a scheme, for a program
 * that gives it its data side (a pty for acm, a TAP interface for ecm...).
 * @label: its label (an inline one: as gadget_scheme_export() names it).
 * @type, @instance: configfs's TYPE.INSTANCE.
 * @fi: its instance, owned by the scheme: options that a function reads
 *	when it is made (an adapter's ops and ctx) are set here before
 *	gadget_scheme_bind().
 * @f: while bound, the function made of @fi for the first configuration
 *	linking it; NULL while unbound.
 * @made, @n_made: while bound, every function made of @fi, one per
 *	configuration linking it, in the scheme's order (@made[0] is @f):
 *	what an adapter is started on, since the host picks the
 *	configuration; NULL and 0 while unbound.
 * @links: how many configurations link it (0: none; it is never made).
 * @scheme_file, @line: where it is defined.
 * All borrowed for the callback's duration (@fi, @f and @made's
 * functions: the scheme's).
 */
struct gadget_scheme_function {
	const char *label;
	const char *type;
	const char *instance;
	struct usb_function_instance *fi;
	struct usb_function *f;
	struct usb_function *const *made;
	unsigned n_made;
	unsigned links;
	const char *scheme_file;
	int line;
};

/**
 * gadget_scheme_for_each_function() - call @fn for every function of @s,
 * in the order the scheme defines them. Stops at @fn's first non-zero
 * return. @fn runs in the calling thread, synchronously.
 * Return: 0, -USB_ENOMEM, or what @fn returned.
 */
int gadget_scheme_for_each_function(struct gadget_scheme *s,
				    int (*fn)(void *ctx, const struct gadget_scheme_function *f),
				    void *ctx);

/**
 * gadget_scheme_set_attr() - write attribute @attr of the function
 * labelled @label (an inline one: as gadget_scheme_export() names it), as
 * `echo VALUE > functions/.../ATTR` would, also while bound: "lun.0/file"
 * changes a LUN's medium ("" ejects), "lun.0/forced_eject" ejects even
 * when the host prevented removal. Context: any thread but the event
 * context, one at a time.
 * Return: 0; -USB_ENOENT (no such function or attribute); or the
 * attribute's error (usb_function_instance_set()).
 */
int gadget_scheme_set_attr(struct gadget_scheme *s, const char *label, const char *attr,
			   const char *value);

/* Read it (usb_function_instance_show()). Return as that, -USB_ENOENT for
 * no such function. */
int gadget_scheme_show_attr(struct gadget_scheme *s, const char *label, const char *attr,
			    char *buf, size_t size);

/* Unbind if bound, free the instances and the scheme. NULL is ignored. */
void gadget_scheme_free(struct gadget_scheme *s);

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_SCHEME_H */
