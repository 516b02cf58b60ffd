/*
 * scheme_bind_posix.c - a loaded gadget scheme made a composite device,
 * in the order Linux's configfs binds a gadget (configfs_composite_bind):
 * the device strings first (manufacturer, product, serialnumber: one id
 * each in every language), the MS OS descriptors, then per configuration
 * its string and its functions in the order the scheme links them, so
 * string indexes and interface numbers come out as the kernel's. Owns the
 * usb_function of each binding while bound, and lists the functions with
 * them for a program's adapters (gadget_scheme_for_each_function()).
 * Touches the core only through composite.h and the registry.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/errors.h"
#include "scheme_internal.h"

static int attach_device_strings(struct gadget_scheme *s, struct usb_composite_dev *cdev)
{
	struct usb_string *us;

	if (!s->n_strings)
		return 0;
	for (unsigned i = 0; i < s->n_strings; i++) {
		struct scheme_dev_strings *ds = &s->strings[i];

		for (unsigned k = 0; k < 3; k++)
			ds->str[k].s = ds->s[k] ? ds->s[k] : "";
		ds->str[3].s = NULL;
		ds->table.language = ds->lang;
		ds->table.strings = ds->str;
		s->tables[i] = &ds->table;
	}
	s->tables[s->n_strings] = NULL;
	us = usb_gstrings_attach(cdev, s->tables, 3);
	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	cdev->desc.iManufacturer = us[0].id;
	cdev->desc.iProduct = us[1].id;
	cdev->desc.iSerialNumber = us[2].id;
	return 0;
}

static int attach_config_string(struct scheme_config *c)
{
	struct usb_string *us;

	if (!c->n_strings)
		return 0;
	for (unsigned i = 0; i < c->n_strings; i++) {
		struct scheme_config_strings *cs = &c->strings[i];

		cs->str[0].s = cs->configuration ? cs->configuration : "";
		cs->str[1].s = NULL;
		cs->table.language = cs->lang;
		cs->table.strings = cs->str;
		c->tables[i] = &cs->table;
	}
	c->tables[c->n_strings] = NULL;
	us = usb_gstrings_attach(c->c.cdev, c->tables, 1);
	if (usb_is_err(us))
		return (int)usb_ptr_err(us);
	c->c.iConfiguration = us[0].id;
	return 0;
}

/* The k-th interface (alternate 0) a bound function owns, or -1. */
static int function_interface(const struct usb_function *f, unsigned k)
{
	struct usb_descriptor_header **d = f->hs_descriptors ? f->hs_descriptors
				       : f->fs_descriptors;

	for (; d && *d; d++) {
		const struct usb_interface_descriptor *id = (const void *)*d;

		if (id->bDescriptorType != USB_DT_INTERFACE || id->bAlternateSetting)
			continue;
		if (k-- == 0)
			return id->bInterfaceNumber;
	}
	return -1;
}

static int bind_os_descs(struct scheme_config *c, struct scheme_binding *b)
{
	struct scheme_function *fn = b->fn;

	for (unsigned k = 0; k < fn->n_os; k++) {
		int intf = function_interface(b->f, k);

		if (intf < 0)
			return scheme__fail(c->s->bind_err, fn->where.file, fn->where.line,
					    -USB_EINVAL, "function %s: os_descs names %u "
					    "interfaces, it has fewer", fn->label, fn->n_os);
		b->os_table[k].if_id = intf;
		b->os_table[k].os_desc = &fn->os[k].desc;
	}
	if (fn->n_os) {
		b->f->os_desc_table = b->os_table;
		b->f->os_desc_n = fn->n_os;
	}
	return 0;
}

static int bind_function(struct scheme_config *c, struct scheme_binding *b)
{
	struct gadget_scheme_error *err = c->s->bind_err;
	struct usb_function *f = usb_get_function(b->fn->fi);
	int rc;

	if (usb_is_err(f))
		return scheme__fail(err, b->where.file, b->where.line, (int)usb_ptr_err(f),
				    "configuration %u: function %s (%s): %s", c->id,
				    b->fn->label, b->fn->type, usb_strerror((int)usb_ptr_err(f)));
	rc = usb_add_function(&c->c, f);
	if (rc == -USB_ENODEV)
		rc = scheme__fail(err, b->where.file, b->where.line, rc,
				  "configuration %u ('%s') runs out of endpoints: function %s "
				  "(%s) could not get one", c->id, c->name, b->fn->label,
				  b->fn->type);
	else if (rc < 0)
		rc = scheme__fail(err, b->where.file, b->where.line, rc,
				  "configuration %u: function %s (%s) failed to bind: %s", c->id,
				  b->fn->label, b->fn->type, usb_strerror(rc));
	if (rc < 0) {
		usb_put_function(f);
		return rc;
	}
	b->f = f;
	return bind_os_descs(c, b);
}

static int config_bind(struct usb_configuration *uc)
{
	struct scheme_config *c = usb_container_of(uc, struct scheme_config, c);
	int rc = attach_config_string(c);

	if (rc < 0)
		return scheme__fail(c->s->bind_err, c->where.file, c->where.line, rc,
				    "configuration %u: strings: %s", c->id, usb_strerror(rc));
	for (unsigned i = 0; rc == 0 && i < c->n_bindings; i++)
		rc = bind_function(c, &c->bindings[i]);
	return rc;
}

static void put_functions(struct gadget_scheme *s)
{
	for (unsigned i = 0; i < s->n_configs; i++)
		for (unsigned k = 0; k < s->configs[i].n_bindings; k++) {
			struct scheme_binding *b = &s->configs[i].bindings[k];

			usb_put_function(b->f);
			b->f = NULL;
		}
}

static void set_os_descs(struct gadget_scheme *s, struct usb_composite_dev *cdev)
{
	const char *sign = s->os_qw_sign ? s->os_qw_sign : "MSFT100";

	if (!s->os_use)
		return;
	cdev->use_os_string = 1;
	cdev->b_vendor_code = s->os_vendor_code;
	memset(cdev->qw_sign, 0, sizeof(cdev->qw_sign));
	for (unsigned i = 0; sign[i] && i < OS_STRING_QW_SIGN_LEN / 2; i++)
		cdev->qw_sign[2 * i] = (uint8_t)sign[i];	/* UTF-16LE of ASCII */
	for (unsigned i = 0; i < s->n_configs; i++)
		if (s->configs[i].id == s->os_config_id)
			cdev->os_desc_config = &s->configs[i].c;
}

static int driver_bind(struct usb_composite_dev *cdev)
{
	struct gadget_scheme *s = usb_container_of(cdev->driver, struct gadget_scheme, driver);
	int rc = attach_device_strings(s, cdev);

	s->cdev = cdev;
	if (rc < 0)
		return scheme__fail(s->bind_err, s->name, 0, rc, "device strings: %s",
				    usb_strerror(rc));
	set_os_descs(s, cdev);
	for (unsigned i = 0; i < s->n_configs; i++) {
		struct scheme_config *c = &s->configs[i];

		/* No configuration string: iConfiguration 0, as configfs. */
		c->c.label = c->n_strings ? c->name : NULL;
		c->c.iConfiguration = 0;
		c->c.bind = config_bind;
		rc = usb_add_config(cdev, &c->c, config_bind);
		if (rc < 0) {
			if (s->bind_err && !s->bind_err->message[0])
				scheme__fail(s->bind_err, c->where.file, c->where.line, rc,
					     "configuration %u: %s", c->id, usb_strerror(rc));
			return rc;
		}
	}
	return 0;
}

int gadget_scheme_bind(struct gadget_scheme *s, const char *udc_name,
		       struct gadget_scheme_error *err)
{
	struct gadget_scheme_error local;
	int rc;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!s)
		return scheme__fail(err, "", 0, -USB_EINVAL, "no scheme");
	if (s->bound)
		return scheme__fail(err, s->name, 0, -USB_EBUSY, "already bound");
	snprintf(s->udc_name, sizeof(s->udc_name), "%s", udc_name ? udc_name : "");
	memset(&s->driver, 0, sizeof(s->driver));
	s->driver.name = s->name;
	s->driver.dev = &s->desc;
	s->driver.max_speed = USB_SPEED_UNKNOWN;
	s->driver.udc_name = udc_name ? s->udc_name : NULL;
	s->driver.bind = driver_bind;
	s->bind_err = err;
	rc = usb_composite_probe(&s->driver);
	s->bind_err = NULL;
	if (rc < 0) {
		put_functions(s);
		if (!err->message[0])
			scheme__fail(err, s->name, 0, rc, "%s: %s",
				     rc == -USB_ENODEV ? "no free UDC of that name" : "bind failed",
				     usb_strerror(rc));
		return rc;
	}
	s->bound = true;
	return 0;
}

void gadget_scheme_unbind(struct gadget_scheme *s)
{
	if (!s || !s->bound)
		return;
	usb_composite_unregister(&s->driver);
	put_functions(s);
	s->cdev = NULL;
	s->bound = false;
}

static struct usb_function_instance *instance_of(struct gadget_scheme *s, const char *label)
{
	for (unsigned i = 0; s && label && i < s->n_functions; i++)
		if (!strcmp(s->functions[i].label, label))
			return s->functions[i].fi;
	return NULL;
}

int gadget_scheme_set_attr(struct gadget_scheme *s, const char *label, const char *attr,
			   const char *value)
{
	struct usb_function_instance *fi = instance_of(s, label);

	return fi ? usb_function_instance_set(fi, attr, value) : -USB_ENOENT;
}

int gadget_scheme_show_attr(struct gadget_scheme *s, const char *label, const char *attr,
			    char *buf, size_t size)
{
	struct usb_function_instance *fi = instance_of(s, label);

	return fi ? usb_function_instance_show(fi, attr, buf, size) : -USB_ENOENT;
}

struct usb_composite_dev *gadget_scheme_cdev(struct gadget_scheme *s)
{
	return s && s->bound ? s->cdev : NULL;
}

/* How many configurations link @fn; while bound, the functions made of
 * it go to @made (room for @cap), in configuration order. */
static unsigned bindings_of(const struct gadget_scheme *s, const struct scheme_function *fn,
			    struct usb_function **made, unsigned cap)
{
	unsigned links = 0;

	for (unsigned i = 0; i < s->n_configs; i++)
		for (unsigned k = 0; k < s->configs[i].n_bindings; k++) {
			const struct scheme_binding *b = &s->configs[i].bindings[k];

			if (b->fn != fn)
				continue;
			if (s->bound && links < cap)
				made[links] = b->f;
			links++;
		}
	return links;
}

int gadget_scheme_for_each_function(struct gadget_scheme *s,
				    int (*fn)(void *ctx, const struct gadget_scheme_function *f),
				    void *ctx)
{
	int rc = 0;

	for (unsigned i = 0; s && rc == 0 && i < s->n_functions; i++) {
		const struct scheme_function *sf = &s->functions[i];
		struct gadget_scheme_function f = { .label = sf->label, .type = sf->type,
						    .instance = sf->instance, .fi = sf->fi,
						    .scheme_file = sf->where.file,
						    .line = sf->where.line };
		struct usb_function **made = NULL;

		f.links = bindings_of(s, sf, NULL, 0);
		if (s->bound && f.links) {
			made = calloc(f.links, sizeof(*made));
			if (!made)
				return -USB_ENOMEM;
			(void)bindings_of(s, sf, made, f.links);
			f.f = made[0];
			f.made = made;
			f.n_made = f.links;
		}
		rc = fn(ctx, &f);
		free(made);
	}
	return rc;
}
