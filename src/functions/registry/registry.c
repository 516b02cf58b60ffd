/*
 * registry.c - functions by name: the table of the shipped functions'
 * drivers (referring to each is what keeps them in a program linked
 * against the static library), the drivers registered at run time, the
 * instance and function life cycle, and the attribute dispatch with its
 * error lines. Portable C11; owns no heap itself (the drivers allocate).
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

static const struct usb_function_driver *const builtin[] = {
	&fn_driver_mass_storage,
	&fn_driver_sourcesink,
	&fn_driver_loopback,
	&fn_driver_acm,
	&fn_driver_hid,
	&fn_driver_ecm,
	&fn_driver_ncm,
};
#define N_BUILTIN (sizeof(builtin) / sizeof(builtin[0]))

static struct usb_function_driver *registered[USB_FUNCTION_REGISTRY_MAX];

const char *usb_function_name(unsigned i)
{
	if (i < N_BUILTIN)
		return builtin[i]->name;
	for (unsigned r = 0; r < USB_FUNCTION_REGISTRY_MAX; r++)
		if (registered[r] && i-- == N_BUILTIN)
			return registered[r]->name;
	return NULL;
}

static bool name_is(const struct usb_function_driver *fd, const char *name, size_t len)
{
	return strlen(fd->name) == len && memcmp(fd->name, name, len) == 0;
}

/* The driver whose name is the first @len bytes of @name. */
static const struct usb_function_driver *find(const char *name, size_t len)
{
	for (unsigned i = 0; i < N_BUILTIN; i++)
		if (name_is(builtin[i], name, len))
			return builtin[i];
	for (unsigned r = 0; r < USB_FUNCTION_REGISTRY_MAX; r++)
		if (registered[r] && name_is(registered[r], name, len))
			return registered[r];
	return NULL;
}

int usb_function_register(struct usb_function_driver *fd)
{
	unsigned r, slot = USB_FUNCTION_REGISTRY_MAX;

	if (!fd || !fd->name || !fd->name[0] || strchr(fd->name, '.') ||
	    !fd->alloc_inst || !fd->alloc_func)
		return -USB_EINVAL;
	if (find(fd->name, strlen(fd->name)))
		return -USB_EEXIST;
	for (r = 0; r < USB_FUNCTION_REGISTRY_MAX; r++)
		if (!registered[r] && slot == USB_FUNCTION_REGISTRY_MAX)
			slot = r;
	if (slot == USB_FUNCTION_REGISTRY_MAX)
		return -USB_ENOSPC;
	registered[slot] = fd;
	return 0;
}

void usb_function_unregister(struct usb_function_driver *fd)
{
	for (unsigned r = 0; r < USB_FUNCTION_REGISTRY_MAX; r++)
		if (registered[r] == fd)
			registered[r] = NULL;
}

/* "a, b, c" of every known name, for the error line. */
static void list_names(char *buf, size_t size)
{
	const char *n;
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; (n = usb_function_name(i)) != NULL && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", n);
}

struct usb_function_instance *usb_get_function_instance(const char *name)
{
	const struct usb_function_driver *fd;
	struct usb_function_instance *fi;
	const char *dot;
	char names[256];
	int rc;

	if (!name)
		return usb_err_ptr(-USB_EINVAL);
	dot = strchr(name, '.');
	fd = find(name, dot ? (size_t)(dot - name) : strlen(name));
	if (!fd || (dot && !dot[1])) {
		list_names(names, sizeof(names));
		usb_composite_log("no function called \"%s\" (known: %s)", name, names);
		return usb_err_ptr(-USB_ENOENT);
	}
	fi = fd->alloc_inst();
	if (usb_is_err(fi))
		return fi;
	if (!fi)
		return usb_err_ptr(-USB_ENOMEM);
	fi->fd = fd;
	if (dot && fi->set_inst_name) {
		rc = fi->set_inst_name(fi, dot + 1);
		if (rc) {
			usb_composite_log("%s: instance name \"%s\": %s", fd->name, dot + 1,
					  usb_strerror(rc));
			fi->free_func_inst(fi);
			return usb_err_ptr(rc);
		}
	}
	return fi;
}

void usb_put_function_instance(struct usb_function_instance *fi)
{
	if (fi && !usb_is_err(fi) && fi->free_func_inst)
		fi->free_func_inst(fi);
}

int usb_function_instance_set_name(struct usb_function_instance *fi, const char *name)
{
	if (!fi || usb_is_err(fi) || !name)
		return -USB_EINVAL;
	if (!fi->set_inst_name)
		return -USB_EOPNOTSUPP;
	return fi->set_inst_name(fi, name);
}

struct usb_function *usb_get_function(struct usb_function_instance *fi)
{
	struct usb_function *f;

	if (!fi || usb_is_err(fi) || !fi->fd)
		return usb_err_ptr(-USB_EINVAL);
	f = fi->fd->alloc_func(fi);
	if (usb_is_err(f))
		return f;
	if (!f)
		return usb_err_ptr(-USB_ENOMEM);
	f->fi = fi;
	return f;
}

void usb_put_function(struct usb_function *f)
{
	if (f && !usb_is_err(f) && f->free_func)
		f->free_func(f);
}

/* ---- attributes ------------------------------------------------------------ */

/* Does @name match @pattern ('#' is a decimal index 0..254)? */
static bool attr_match(const char *pattern, const char *name, unsigned *index)
{
	*index = 0;
	while (*pattern) {
		if (*pattern == '#') {
			const char *digits = name;
			unsigned v = 0;

			while (*name >= '0' && *name <= '9' && name - digits < 4)
				v = v * 10u + (unsigned)(*name++ - '0');
			/* 0..254, and no leading zero: Linux names LUNs lun.0, never lun.00. */
			if (name == digits || v > 254 || (digits[0] == '0' && name - digits > 1))
				return false;
			*index = v;
			pattern++;
			continue;
		}
		if (*pattern++ != *name++)
			return false;
	}
	return *name == '\0';
}

static const struct usb_function_attribute *
attr_find(struct usb_function_instance *fi, const char *name, unsigned *index)
{
	for (const struct usb_function_attribute *a = fi->attrs; a && a->name; a++)
		if (attr_match(a->name, name, index))
			return a;
	return NULL;
}

static const char *fi_name(const struct usb_function_instance *fi)
{
	return fi->fd && fi->fd->name ? fi->fd->name : "function";
}

/* The error line for @attr, listing the attributes when it has none. */
static int attr_error(struct usb_function_instance *fi, const char *attr,
		      const char *what, int rc)
{
	char names[256];
	size_t used = 0;

	if (rc != -USB_ENOENT) {
		usb_composite_log("%s: attribute %s: %s: %s", fi_name(fi), attr, what,
				  usb_strerror(rc));
		return rc;
	}
	names[0] = '\0';
	for (const struct usb_function_attribute *a = fi->attrs;
	     a && a->name && used < sizeof(names); a++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 a == fi->attrs ? "" : ", ", a->name);
	usb_composite_log("%s: no attribute %s (attributes: %s)", fi_name(fi), attr, names);
	return rc;
}

int usb_function_instance_set(struct usb_function_instance *fi,
			      const char *attr, const char *value)
{
	const struct usb_function_attribute *a;
	unsigned index;
	int rc;

	if (!fi || usb_is_err(fi) || !attr || !value)
		return -USB_EINVAL;
	a = attr_find(fi, attr, &index);
	if (!a)
		return attr_error(fi, attr, "set", -USB_ENOENT);
	if (!a->store)
		return attr_error(fi, attr, "read-only", -USB_EACCES);
	rc = a->store(fi, index, value);
	return rc ? attr_error(fi, attr, value, rc) : 0;
}

int usb_function_instance_show(struct usb_function_instance *fi,
			       const char *attr, char *buf, size_t size)
{
	const struct usb_function_attribute *a;
	unsigned index;
	int rc;

	if (!fi || usb_is_err(fi) || !attr || (!buf && size))
		return -USB_EINVAL;
	if (size)
		buf[0] = '\0';
	a = attr_find(fi, attr, &index);
	if (!a)
		return attr_error(fi, attr, "show", -USB_ENOENT);
	if (!a->show)
		return attr_error(fi, attr, "write-only", -USB_EACCES);
	rc = a->show(fi, index, buf, size);
	if (rc < 0) {
		if (size)
			buf[0] = '\0';
		return attr_error(fi, attr, "show", rc);
	}
	return rc;
}
