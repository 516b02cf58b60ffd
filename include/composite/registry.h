/*
 * registry.h - functions by name, in Linux's shape: a function driver
 * ("mass_storage", "acm", "SourceSink"...) makes instances
 * (struct usb_function_instance, what a configfs directory
 * functions/NAME.INSTANCE is), an instance holds the options its
 * attributes set, and usb_get_function() makes a struct usb_function of
 * it for usb_add_function(). Names and attributes are Linux's configfs
 * ones; docs/functions.md lists them per function.
 *
 * Every function the library ships is found by name without any
 * registration: the registry's lookup refers to each of them, so linking
 * a program that calls usb_get_function_instance() pulls them out of the
 * static library. A function of one's own is registered with
 * usb_function_register(), or declared with DECLARE_USB_FUNCTION_INIT()
 * in a file of the program (its constructor runs before main(); in a
 * static library nobody refers to, the linker would drop it, so call
 * usb_function_register() from code that is linked instead).
 *
 * Threads: register, unregister and look up from one thread at a time
 * (usually at start-up). An instance's attributes are set from one thread
 * at a time, not concurrently with usb_get_function() on it.
 */
#ifndef COMPOSITE_REGISTRY_H
#define COMPOSITE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "composite/function.h"

#ifdef __cplusplus
extern "C" {
#endif

struct usb_function_instance;

/**
 * struct usb_function_attribute - one attribute of an instance, as a file
 * of its configfs directory.
 * @name: "stall", or with '#' for a decimal index: "lun.#/file" matches
 *	"lun.0/file" ... "lun.254/file" and passes the number as @index.
 * @show: write the value and a '\n' into @buf (@size bytes, NUL
 *	terminated when it fits). Return the length it needs without the
 *	NUL (as snprintf), or a negative error. NULL: write-only.
 * @store: parse @value (a trailing '\n' is ignored, as configfs's echo
 *	leaves one). Return 0 or a negative error: -USB_EINVAL for a bad
 *	value, -USB_EBUSY when functions made of the instance exist and the
 *	attribute cannot change under them, -USB_ERANGE for an index out
 *	of range. NULL: read-only.
 */
struct usb_function_attribute {
	const char *name;
	int (*show)(struct usb_function_instance *fi, unsigned index,
		    char *buf, size_t size);
	int (*store)(struct usb_function_instance *fi, unsigned index,
		     const char *value);
};

/**
 * struct usb_function_driver - what makes instances and functions of one
 * name (Linux's usb_function_driver).
 * @name: the configfs name ("acm"), matched exactly.
 * @alloc_inst: a new instance with default options, or an error pointer
 *	(usb_err_ptr(); ERR_PTR() in composite/linux.h). It sets
 *	@free_func_inst and usually @attrs.
 * @alloc_func: a new function of @fi's options, or an error pointer
 *	(-USB_EINVAL when the options do not make a function). Its
 *	free_func frees it (usb_put_function()).
 */
struct usb_function_driver {
	const char *name;
	struct usb_function_instance *(*alloc_inst)(void);
	struct usb_function *(*alloc_func)(struct usb_function_instance *fi);
};

/* How many drivers usb_function_register() takes besides the shipped ones. */
#define USB_FUNCTION_REGISTRY_MAX 32

/**
 * struct usb_function_instance - options of one function, shared by
 * every function usb_get_function() makes of it (one per configuration,
 * as Linux's configfs links one function directory into several
 * configurations).
 * @fd: the driver that made it (set by usb_get_function_instance()).
 * @attrs: the attributes, ended by one with a NULL name; may be NULL.
 * @set_inst_name: optional: the INSTANCE part of "NAME.INSTANCE"
 *	(usb_function_instance_set_name()). Return 0 or a negative error.
 * @free_func_inst: mandatory: free the instance (usb_put_function_instance()).
 */
struct usb_function_instance {
	const struct usb_function_driver *fd;
	const struct usb_function_attribute *attrs;
	int (*set_inst_name)(struct usb_function_instance *fi, const char *name);
	void (*free_func_inst)(struct usb_function_instance *fi);
};

/**
 * usb_function_register() - make @fd's name known to
 * usb_get_function_instance(). @fd is borrowed until unregistered.
 * Return: 0; -USB_EINVAL (no name or callbacks); -USB_EEXIST (a driver of
 * that name is registered or shipped); -USB_ENOSPC (USB_FUNCTION_REGISTRY_MAX
 * are registered).
 */
int usb_function_register(struct usb_function_driver *fd);

/* Forget @fd (its instances stay valid). Unknown drivers are ignored. */
void usb_function_unregister(struct usb_function_driver *fd);

/**
 * usb_get_function_instance() - a new instance of the function called
 * @name: a shipped one or a registered one. Linux's configfs directory
 * names are accepted too: "acm.usb0" makes an "acm" instance and passes
 * "usb0" to its set_inst_name.
 * Return: the instance (free with usb_put_function_instance()), or an
 * error pointer: -USB_ENOENT (no such function; the log lists the
 * known names), -USB_ENOMEM, or the driver's error.
 */
struct usb_function_instance *usb_get_function_instance(const char *name);

/* Free @fi; every function made of it must be put first. NULL and error
 * pointers are ignored. */
void usb_put_function_instance(struct usb_function_instance *fi);

/**
 * usb_get_function() - a new function of @fi's options, with @f->fi set,
 * for usb_add_function(). The core never frees it (it calls no free_func
 * for a function with @fi set): after the configuration is gone
 * (usb_composite_unregister(), usb_remove_function()), free it with
 * usb_put_function(), as in Linux.
 * Return: the function or an error pointer (-USB_EINVAL for a NULL or
 * error @fi, or the driver's error).
 */
struct usb_function *usb_get_function(struct usb_function_instance *fi);

/* Free a function from usb_get_function(). NULL and error pointers are
 * ignored. */
void usb_put_function(struct usb_function *f);

/**
 * usb_function_instance_set() - write attribute @attr of @fi, as
 * `echo VALUE > functions/NAME.INSTANCE/ATTR` would.
 * Return: 0; -USB_ENOENT (no such attribute); -USB_EACCES (read-only);
 * or the attribute's error (-USB_EINVAL, -USB_EBUSY, -USB_ERANGE...).
 * Every error is also logged as one line naming the function, the
 * attribute and the reason (usb_composite_set_log_handler()).
 */
int usb_function_instance_set(struct usb_function_instance *fi,
			      const char *attr, const char *value);

/**
 * usb_function_instance_show() - read attribute @attr of @fi into @buf
 * (@size bytes, always NUL terminated when @size > 0), as `cat` would:
 * the value and a '\n'.
 * Return: the length of the value without the NUL (>= @size: truncated);
 * -USB_ENOENT; -USB_EACCES (write-only); or the attribute's error.
 */
int usb_function_instance_show(struct usb_function_instance *fi,
			       const char *attr, char *buf, size_t size);

/* The INSTANCE part of a name: calls @fi->set_inst_name. Return 0, or
 * -USB_EOPNOTSUPP when the function takes no instance names, or its error. */
int usb_function_instance_set_name(struct usb_function_instance *fi, const char *name);

/**
 * usb_function_name() - the known function names: the @i-th (0-based),
 * shipped ones first, then the registered ones; NULL past the last.
 */
const char *usb_function_name(unsigned i);

/*
 * Parsers for attribute stores, as the kernel's kstrto*() (a trailing
 * '\n' allowed). Return 0, or -USB_EINVAL (not a number, out of
 * [min, max], or not a boolean: 1/0, y/n, yes/no, on/off, true/false).
 */
int usb_attr_parse_uint(const char *value, unsigned min, unsigned max,
			unsigned *out);
int usb_attr_parse_bool(const char *value, bool *out);

/*
 * DECLARE_USB_FUNCTION(name, alloc_inst, alloc_func): a static driver
 * called name##usb_func, as Linux's. DECLARE_USB_FUNCTION_INIT()
 * also registers it before main() (a constructor: GCC and Clang), where
 * Linux's registers it at module load.
 */
#define DECLARE_USB_FUNCTION(_name, _inst_alloc, _func_alloc)		\
	static struct usb_function_driver _name##usb_func = {		\
		.name = #_name,						\
		.alloc_inst = _inst_alloc,				\
		.alloc_func = _func_alloc,				\
	}

#if defined(__GNUC__) || defined(__clang__)
#define DECLARE_USB_FUNCTION_INIT(_name, _inst_alloc, _func_alloc)	\
	DECLARE_USB_FUNCTION(_name, _inst_alloc, _func_alloc);		\
	__attribute__((constructor)) static void _name##mod_init(void)	\
	{								\
		if (usb_function_register(&_name##usb_func))		\
			usb_composite_log("%s: function not registered", #_name); \
	}								\
	__attribute__((destructor)) static void _name##mod_exit(void)	\
	{								\
		usb_function_unregister(&_name##usb_func);		\
	}								\
	extern int _name##usb_func_declared_once__
#else
#define DECLARE_USB_FUNCTION_INIT(_name, _inst_alloc, _func_alloc)	\
	_Static_assert(0, "DECLARE_USB_FUNCTION_INIT needs constructors: "	\
		       "use DECLARE_USB_FUNCTION and usb_function_register()")
#endif

#ifdef __cplusplus
}
#endif

#endif /* COMPOSITE_REGISTRY_H */
