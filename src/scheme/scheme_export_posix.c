/*
 * scheme_export_posix.c - a gadget written back as a scheme, through
 * libconfig's writer: the model's device attrs, strings, configurations
 * and OS descriptors, and each function's attributes as its instance
 * shows them now (usb_function_instance_show()), typed as libusbgx writes
 * them (booleans for mass_storage's flags, a list of bytes for
 * report_desc, integers where the text is a number). Read-only and
 * write-only attributes are left out. Touches nothing but the model and
 * the registry's show calls.
 */
#define _POSIX_C_SOURCE 200809L

#include <libconfig.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "composite/errors.h"
#include "scheme_internal.h"

#define SHOW_MAX 8192

static bool add_int(config_setting_t *parent, const char *name, long long v, bool hex)
{
	bool small = v <= INT_MAX && v >= INT_MIN;
	config_setting_t *st = config_setting_add(parent, name,
						  small ? CONFIG_TYPE_INT : CONFIG_TYPE_INT64);

	if (!st)
		return false;
	if (hex)
		config_setting_set_format(st, CONFIG_FORMAT_HEX);
	return (small ? config_setting_set_int(st, (int)v)
		      : config_setting_set_int64(st, v)) == CONFIG_TRUE;
}

static bool add_string(config_setting_t *parent, const char *name, const char *v)
{
	config_setting_t *st = config_setting_add(parent, name, CONFIG_TYPE_STRING);

	return st && config_setting_set_string(st, v) == CONFIG_TRUE;
}

static bool add_bool(config_setting_t *parent, const char *name, bool v)
{
	config_setting_t *st = config_setting_add(parent, name, CONFIG_TYPE_BOOL);

	return st && config_setting_set_bool(st, v) == CONFIG_TRUE;
}

/* "05 01 09 06" as ( 0x05, 0x01, 0x09, 0x06 ). */
static bool add_bytes(config_setting_t *parent, const char *name, const char *hex)
{
	config_setting_t *list = config_setting_add(parent, name, CONFIG_TYPE_LIST);
	char *end;

	while (list && *hex) {
		unsigned long v = strtoul(hex, &end, 16);
		config_setting_t *b;

		if (end == hex)
			break;
		b = config_setting_add(list, NULL, CONFIG_TYPE_INT);
		if (!b || config_setting_set_format(b, CONFIG_FORMAT_HEX) != CONFIG_TRUE ||
		    config_setting_set_int(b, (int)(v & 0xff)) != CONFIG_TRUE)
			return false;
		hex = end;
	}
	return list != NULL;
}

/* One attribute's current value, typed. */
static bool add_value(config_setting_t *parent, const char *type, const char *attr,
		      const char *name, const char *text)
{
	char *end;
	long long v;

	if (scheme__is_bool_attr(type, attr))
		return add_bool(parent, name, strtol(text, NULL, 10) != 0);
	if (!strcmp(type, "hid") && !strcmp(attr, "report_desc"))
		return add_bytes(parent, name, text);
	v = strtoll(text, &end, 10);
	if (*text && *text != '-' && *text != '+' && *end == '\0' && text[0] != ' ')
		return add_int(parent, name, v, false);
	return add_string(parent, name, text);
}

/* @fi's @attr (with @index for "lun.#/..."), its newline dropped.
 * Return: 1 shown, 0 not readable, -1 out of memory. */
static int show(struct usb_function_instance *fi, const char *attr, char *buf)
{
	int n = usb_function_instance_show(fi, attr, buf, SHOW_MAX);

	if (n < 0 || n >= SHOW_MAX)
		return 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 1;
}

static bool export_luns(config_setting_t *attrs, struct scheme_function *fn, char *buf)
{
	config_setting_t *luns = config_setting_add(attrs, "luns", CONFIG_TYPE_LIST);

	for (unsigned i = 0; luns && i < fn->nluns; i++) {
		config_setting_t *lun = config_setting_add(luns, NULL, CONFIG_TYPE_GROUP);

		for (const struct usb_function_attribute *a = fn->fi->attrs;
		     lun && a && a->name; a++) {
			const char *leaf = a->name + strlen("lun.#/");
			char name[48];

			if (strncmp(a->name, "lun.#/", 6) || !a->show || !a->store)
				continue;
			snprintf(name, sizeof(name), "lun.%u/%s", i, leaf);
			if (show(fn->fi, name, buf) <= 0)
				continue;
			if (!add_value(lun, fn->type, leaf, !strcmp(leaf, "file") ? "filename" : leaf,
				       buf))
				return false;
		}
		if (!lun)
			return false;
	}
	return luns != NULL;
}

static bool export_function(config_setting_t *functions, struct scheme_function *fn, char *buf)
{
	config_setting_t *g = config_setting_add(functions, fn->label, CONFIG_TYPE_GROUP);
	config_setting_t *attrs;
	bool ms = !strcmp(fn->type, SCHEME_MS_TYPE);

	if (!g || !add_string(g, "instance", fn->instance) || !add_string(g, "type", fn->type))
		return false;
	attrs = config_setting_add(g, "attrs", CONFIG_TYPE_GROUP);
	for (const struct usb_function_attribute *a = fn->fi->attrs; attrs && a && a->name; a++) {
		if (strchr(a->name, '#') || !a->show || !a->store)
			continue;
		if (show(fn->fi, a->name, buf) > 0 && !add_value(attrs, fn->type, a->name,
								 a->name, buf))
			return false;
	}
	if (!attrs || (ms && !export_luns(attrs, fn, buf)))
		return false;
	if (fn->n_os) {
		config_setting_t *list = config_setting_add(g, "os_descs", CONFIG_TYPE_LIST);

		for (unsigned k = 0; list && k < fn->n_os; k++) {
			config_setting_t *o = config_setting_add(list, NULL, CONFIG_TYPE_GROUP);
			char id[9] = { 0 }, sub[9] = { 0 };

			memcpy(id, fn->os[k].compat, 8);
			memcpy(sub, fn->os[k].compat + 8, 8);
			if (!o || (fn->os[k].interface &&
				   !add_string(o, "interface", fn->os[k].interface)) ||
			    !add_string(o, "compatible_id", id) ||
			    !add_string(o, "sub_compatible_id", sub))
				return false;
		}
		if (!list)
			return false;
	}
	return true;
}

static bool export_config(config_setting_t *configs, struct scheme_config *c)
{
	config_setting_t *g = config_setting_add(configs, NULL, CONFIG_TYPE_GROUP);
	config_setting_t *attrs, *strings, *functions;

	if (!g || !add_int(g, "id", c->id, false) || !add_string(g, "name", c->name))
		return false;
	attrs = config_setting_add(g, "attrs", CONFIG_TYPE_GROUP);
	if (!attrs || !add_int(attrs, "bmAttributes", c->c.bmAttributes, true) ||
	    !add_int(attrs, "bMaxPower", c->c.MaxPower, false))
		return false;
	strings = config_setting_add(g, "strings", CONFIG_TYPE_LIST);
	for (unsigned i = 0; strings && i < c->n_strings; i++) {
		config_setting_t *s = config_setting_add(strings, NULL, CONFIG_TYPE_GROUP);

		if (!s || !add_int(s, "lang", c->strings[i].lang, true) ||
		    (c->strings[i].configuration &&
		     !add_string(s, "configuration", c->strings[i].configuration)))
			return false;
	}
	functions = config_setting_add(g, "functions", CONFIG_TYPE_LIST);
	for (unsigned i = 0; strings && functions && i < c->n_bindings; i++) {
		config_setting_t *b = config_setting_add(functions, NULL, CONFIG_TYPE_GROUP);

		if (!b || !add_string(b, "name", c->bindings[i].name) ||
		    !add_string(b, "function", c->bindings[i].fn->label))
			return false;
	}
	return strings && functions;
}

static bool export_device(config_setting_t *root, struct gadget_scheme *s)
{
	const struct usb_device_descriptor *d = &s->desc;
	config_setting_t *attrs = config_setting_add(root, "attrs", CONFIG_TYPE_GROUP);
	config_setting_t *strings;

	if (!attrs || !add_int(attrs, "bcdUSB", USB_LE16_TO_CPU(d->bcdUSB), true) ||
	    !add_int(attrs, "bDeviceClass", d->bDeviceClass, true) ||
	    !add_int(attrs, "bDeviceSubClass", d->bDeviceSubClass, true) ||
	    !add_int(attrs, "bDeviceProtocol", d->bDeviceProtocol, true) ||
	    !add_int(attrs, "bMaxPacketSize0", d->bMaxPacketSize0, true) ||
	    !add_int(attrs, "idVendor", USB_LE16_TO_CPU(d->idVendor), true) ||
	    !add_int(attrs, "idProduct", USB_LE16_TO_CPU(d->idProduct), true) ||
	    !add_int(attrs, "bcdDevice", USB_LE16_TO_CPU(d->bcdDevice), true))
		return false;
	strings = config_setting_add(root, "strings", CONFIG_TYPE_LIST);
	for (unsigned i = 0; strings && i < s->n_strings; i++) {
		static const char *const names[3] = { "manufacturer", "product", "serialnumber" };
		config_setting_t *g = config_setting_add(strings, NULL, CONFIG_TYPE_GROUP);

		if (!g || !add_int(g, "lang", s->strings[i].lang, true))
			return false;
		for (unsigned k = 0; k < 3; k++)
			if (s->strings[i].s[k] && !add_string(g, names[k], s->strings[i].s[k]))
				return false;
	}
	return strings != NULL;
}

static bool export_os_descs(config_setting_t *root, struct gadget_scheme *s)
{
	config_setting_t *g;

	if (!s->has_os_descs)
		return true;
	g = config_setting_add(root, "os_descs", CONFIG_TYPE_GROUP);
	return g && add_bool(g, "use", s->os_use) &&
	       add_int(g, "b_vendor_code", s->os_vendor_code, true) &&
	       add_string(g, "qw_sign", s->os_qw_sign ? s->os_qw_sign : "MSFT100") &&
	       (!s->os_config_id || add_int(g, "config_id", s->os_config_id, false));
}

int gadget_scheme_for_each_lun(struct gadget_scheme *s,
			       int (*fn)(void *ctx, const struct gadget_scheme_lun *lun),
			       void *ctx)
{
	char file[SHOW_MAX], flag[SHOW_MAX], attr[48];
	int rc = 0;

	for (unsigned i = 0; s && rc == 0 && i < s->n_functions; i++) {
		struct scheme_function *f = &s->functions[i];

		if (strcmp(f->type, SCHEME_MS_TYPE))
			continue;
		for (unsigned k = 0; rc == 0 && k < f->nluns; k++) {
			struct gadget_scheme_lun lun = { .label = f->label, .index = k, .file = file,
							 .scheme_file = f->where.file,
							 .line = f->where.line };

			snprintf(attr, sizeof(attr), "lun.%u/file", k);
			if (show(f->fi, attr, file) <= 0 || !file[0])
				continue;
			snprintf(attr, sizeof(attr), "lun.%u/ro", k);
			lun.ro = show(f->fi, attr, flag) > 0 && flag[0] == '1';
			snprintf(attr, sizeof(attr), "lun.%u/cdrom", k);
			lun.ro = lun.ro || (show(f->fi, attr, flag) > 0 && flag[0] == '1');
			rc = fn(ctx, &lun);
		}
	}
	return rc;
}

int gadget_scheme_export(struct gadget_scheme *s, FILE *stream)
{
	config_setting_t *root, *functions, *configs;
	char *buf = malloc(SHOW_MAX);
	bool ok;
	config_t cfg;

	if (!s || !stream) {
		free(buf);
		return -USB_EINVAL;
	}
	if (!buf)
		return -USB_ENOMEM;
	config_init(&cfg);
	config_set_tab_width(&cfg, 4);
	root = config_root_setting(&cfg);
	ok = export_device(root, s);
	functions = ok ? config_setting_add(root, "functions", CONFIG_TYPE_GROUP) : NULL;
	for (unsigned i = 0; functions && ok && i < s->n_functions; i++)
		ok = export_function(functions, &s->functions[i], buf);
	configs = ok && functions ? config_setting_add(root, "configs", CONFIG_TYPE_LIST) : NULL;
	for (unsigned i = 0; configs && ok && i < s->n_configs; i++)
		ok = export_config(configs, &s->configs[i]);
	ok = ok && configs && export_os_descs(root, s);
	free(buf);
	if (!ok) {
		config_destroy(&cfg);
		return -USB_ENOMEM;
	}
	config_write(&cfg, stream);
	config_destroy(&cfg);
	return fflush(stream) == 0 && !ferror(stream) ? 0 : -USB_EIO;
}
