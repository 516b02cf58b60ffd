/*
 * scheme_load_posix.c - the gadget scheme loader: libconfig parses the
 * text (syntax, @include), this file walks the settings into the model of
 * scheme_internal.h: the device's attrs and strings, the configurations
 * and their links, the OS descriptors; the functions are made by
 * scheme_functions_posix.c. Every fault names the file and line of the
 * setting. Owns nothing past the model it fills.
 */
#define _POSIX_C_SOURCE 200809L

#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/errors.h"
#include "scheme_internal.h"
#include "scheme_loader.h"


char *scheme__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

int scheme__fail(struct gadget_scheme_error *err, const char *file, int line, int code,
		 const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

bool scheme__is_bool_attr(const char *type, const char *attr)
{
	static const char *const ms[] = { "stall", "ro", "removable", "cdrom", "nofua", NULL };

	if (!strcmp(type, "hid"))
		return !strcmp(attr, "no_out_endpoint");
	if (strcmp(type, SCHEME_MS_TYPE))
		return false;
	for (unsigned i = 0; ms[i]; i++)
		if (!strcmp(attr, ms[i]))
			return true;
	return false;
}

const char *scheme__file_of(const struct loader *ld, const config_setting_t *st)
{
	const char *f = st ? config_setting_source_file(st) : NULL;

	return f ? f : ld->file;
}

int scheme__line_of(const config_setting_t *st)
{
	return st ? (int)config_setting_source_line(st) : 0;
}

int scheme__err(struct loader *ld, const config_setting_t *st, int code, const char *fmt, ...)
{
	char msg[sizeof(ld->err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return scheme__fail(ld->err, scheme__file_of(ld, st), scheme__line_of(st), code, "%s", msg);
}

const char *scheme__name_of(const config_setting_t *st)
{
	const char *n = config_setting_name(st);

	return n ? n : "(item)";
}

static bool is_int(const config_setting_t *st)
{
	int t = config_setting_type(st);

	return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

int scheme__get_uint(struct loader *ld, const config_setting_t *st, long long max, unsigned *out)
{
	long long v;

	if (!is_int(st))
		return scheme__err(ld, st, -USB_EINVAL, "%s: must be an integer", scheme__name_of(st));
	v = config_setting_get_int64(st);
	if (v < 0 || v > max)
		return scheme__err(ld, st, -USB_ERANGE, "%s: %lld is out of range (0..%lld)",
			    scheme__name_of(st), v, max);
	*out = (unsigned)v;
	return 0;
}

int scheme__get_string(struct loader *ld, const config_setting_t *st, char **out)
{
	const char *v = config_setting_get_string(st);

	if (!v)
		return scheme__err(ld, st, -USB_EINVAL, "%s: must be a string", scheme__name_of(st));
	free(*out);
	*out = scheme__strdup(v);
	return *out ? 0 : scheme__err(ld, st, -USB_ENOMEM, "out of memory");
}

int scheme__check_group(struct loader *ld, const config_setting_t *st)
{
	return config_setting_is_group(st) ? 0
		: scheme__err(ld, st, -USB_EINVAL, "%s: must be a group { ... }", scheme__name_of(st));
}

int scheme__check_list(struct loader *ld, const config_setting_t *st)
{
	return config_setting_is_list(st) ? 0
		: scheme__err(ld, st, -USB_EINVAL, "%s: must be a list ( ... )", scheme__name_of(st));
}

/* Every member of @group must be one of @known (NULL-terminated). */
int scheme__check_members(struct loader *ld, const config_setting_t *group,
			 const char *const *known, const char *what)
{
	int n = config_setting_length(group);

	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
		unsigned k = 0;

		while (known[k] && strcmp(known[k], scheme__name_of(m)))
			k++;
		if (!known[k])
			return scheme__err(ld, m, -USB_EINVAL, "unknown setting '%s' in %s",
				    scheme__name_of(m), what);
	}
	return 0;
}

/* @st is a group whose members are all among @known. */
int scheme__check_group_of(struct loader *ld, const config_setting_t *st,
			  const char *const *known, const char *what)
{
	int rc = scheme__check_group(ld, st);

	return rc ? rc : scheme__check_members(ld, st, known, what);
}

/* ---- device attrs and strings --------------------------------------------- */

static int load_device_attrs(struct loader *ld, const config_setting_t *group)
{
	static const struct { const char *name; unsigned max; } attrs[] = {
		{ "bcdUSB", 0xffff }, { "bDeviceClass", 0xff }, { "bDeviceSubClass", 0xff },
		{ "bDeviceProtocol", 0xff }, { "bMaxPacketSize0", 0xff },
		{ "idVendor", 0xffff }, { "idProduct", 0xffff }, { "bcdDevice", 0xffff },
	};
	struct usb_device_descriptor *d = &ld->s->desc;
	int n = config_setting_length(group);
	int rc = scheme__check_group(ld, group);

	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
		unsigned k = 0, v;

		while (k < sizeof(attrs) / sizeof(attrs[0]) && strcmp(attrs[k].name, scheme__name_of(m)))
			k++;
		if (k == sizeof(attrs) / sizeof(attrs[0]))
			return scheme__err(ld, m, -USB_EINVAL, "unknown device attribute '%s'", scheme__name_of(m));
		rc = scheme__get_uint(ld, m, attrs[k].max, &v);
		if (rc)
			return rc;
		switch (k) {
		case 0: d->bcdUSB = USB_CPU_TO_LE16((uint16_t)v); break;
		case 1: d->bDeviceClass = (uint8_t)v; break;
		case 2: d->bDeviceSubClass = (uint8_t)v; break;
		case 3: d->bDeviceProtocol = (uint8_t)v; break;
		case 4:
			if (v != 8 && v != 16 && v != 32 && v != 64)
				return scheme__err(ld, m, -USB_ERANGE,
					    "bMaxPacketSize0: %u is not 8, 16, 32 or 64", v);
			d->bMaxPacketSize0 = (uint8_t)v;
			break;
		case 5: d->idVendor = USB_CPU_TO_LE16((uint16_t)v); break;
		case 6: d->idProduct = USB_CPU_TO_LE16((uint16_t)v); break;
		default: d->bcdDevice = USB_CPU_TO_LE16((uint16_t)v); break;
		}
	}
	return 0;
}

/* The "lang" of a strings group: a LANGID, unique in its list. */
static int get_lang(struct loader *ld, const config_setting_t *group, const uint16_t *seen,
		    unsigned n_seen, uint16_t *lang)
{
	const config_setting_t *m = config_setting_get_member(group, "lang");
	unsigned v;
	int rc;

	if (!m)
		return scheme__err(ld, group, -USB_EINVAL, "strings: 'lang' is missing");
	rc = scheme__get_uint(ld, m, 0xffff, &v);
	if (rc)
		return rc;
	if (v == 0)
		return scheme__err(ld, m, -USB_ERANGE, "lang: 0 is no language");
	for (unsigned i = 0; i < n_seen; i++)
		if (seen[i] == v)
			return scheme__err(ld, m, -USB_EINVAL, "lang: 0x%04x given twice", v);
	*lang = (uint16_t)v;
	return 0;
}

static int load_device_strings(struct loader *ld, const config_setting_t *list)
{
	static const char *const known[] = { "lang", "manufacturer", "product", "serialnumber", NULL };
	uint16_t seen[SCHEME_MAX_LANGS];
	int n = config_setting_length(list), rc = scheme__check_list(ld, list);

	for (int i = 0; rc == 0 && i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
		struct scheme_dev_strings *ds = &ld->s->strings[ld->s->n_strings];

		if (ld->s->n_strings == SCHEME_MAX_LANGS)
			return scheme__err(ld, g, -USB_ENOSPC, "strings: more than %d languages",
				    SCHEME_MAX_LANGS);
		rc = scheme__check_group_of(ld, g, known, "strings");
		if (rc == 0)
			rc = get_lang(ld, g, seen, ld->s->n_strings, &ds->lang);
		for (unsigned k = 0; rc == 0 && k < 3; k++) {
			const config_setting_t *m = config_setting_get_member(g, known[k + 1]);

			if (m)
				rc = scheme__get_string(ld, m, &ds->s[k]);
		}
		if (rc == 0)
			seen[ld->s->n_strings++] = ds->lang;
	}
	return rc;
}

/* ---- configurations ------------------------------------------------------- */

static int load_binding(struct loader *ld, struct scheme_config *c, const config_setting_t *item)
{
	static const char *const known[] = { "name", "function", NULL };
	struct scheme_binding *b;
	const config_setting_t *fs = item, *name = NULL;
	struct scheme_function *fn = NULL;
	char label[64];
	int rc = 0;

	if (c->n_bindings == SCHEME_MAX_BINDINGS)
		return scheme__err(ld, item, -USB_ENOSPC, "configuration %u: more than %d functions",
			    c->id, SCHEME_MAX_BINDINGS);
	if (config_setting_is_group(item)) {
		rc = scheme__check_members(ld, item, known, "a configuration's function");
		if (rc)
			return rc;
		fs = config_setting_get_member(item, "function");
		name = config_setting_get_member(item, "name");
		if (!fs)
			return scheme__err(ld, item, -USB_EINVAL, "configuration %u: 'function' is missing",
				    c->id);
	}
	if (config_setting_type(fs) == CONFIG_TYPE_STRING) {
		fn = scheme__find_function(ld->s, config_setting_get_string(fs));
		if (!fn)
			return scheme__err(ld, fs, -USB_EINVAL, "configuration %u: no function labelled "
				    "'%s'", c->id, config_setting_get_string(fs));
	} else if (config_setting_is_group(fs)) {
		snprintf(label, sizeof(label), "inline_c%u_%u", c->id, c->n_bindings);
		rc = scheme__load_function(ld, fs, label, true, &fn);
	} else {
		return scheme__err(ld, fs, -USB_EINVAL, "configuration %u: a function must be a label "
			    "or a group", c->id);
	}
	for (unsigned i = 0; rc == 0 && i < c->n_bindings; i++)
		if (c->bindings[i].fn == fn)
			return scheme__err(ld, item, -USB_EINVAL, "configuration %u: function %s is "
				    "linked twice", c->id, fn->label);
	if (rc)
		return rc;
	b = &c->bindings[c->n_bindings++];
	b->fn = fn;
	b->where.line = scheme__line_of(item);
	b->where.file = scheme__strdup(scheme__file_of(ld, item));
	if (name)
		rc = scheme__get_string(ld, name, &b->name);
	else
		b->name = scheme__strdup(fn->label);
	if (rc == 0 && (!b->name || !b->where.file))
		rc = scheme__err(ld, item, -USB_ENOMEM, "out of memory");
	return rc;
}

static int load_config_attrs(struct loader *ld, struct scheme_config *c, const config_setting_t *g)
{
	static const char *const known[] = { "bmAttributes", "bMaxPower", NULL };
	const config_setting_t *m;
	unsigned v;
	int rc = scheme__check_group_of(ld, g, known, "a configuration's attrs");

	m = config_setting_get_member(g, "bmAttributes");
	if (rc == 0 && m) {
		rc = scheme__get_uint(ld, m, 0xff, &v);
		/* As configfs: bit 7 set, nothing but self-powered and wakeup. */
		if (rc == 0 && (!(v & USB_CONFIG_ATT_ONE) ||
				(v & ~(unsigned)(USB_CONFIG_ATT_ONE | USB_CONFIG_ATT_SELFPOWER |
						 USB_CONFIG_ATT_WAKEUP))))
			rc = scheme__err(ld, m, -USB_ERANGE, "bmAttributes: 0x%02x is out of range "
				  "(0x80 with 0x40 self-powered, 0x20 remote wakeup)", v);
		c->c.bmAttributes = (uint8_t)v;
	}
	m = config_setting_get_member(g, "bMaxPower");
	if (rc == 0 && m) {
		/* configfs's MaxPower, in mA (at most 0xff units of 8 mA). */
		rc = scheme__get_uint(ld, m, 2040, &v);
		c->c.MaxPower = (uint16_t)v;
	}
	return rc;
}

static int load_config_strings(struct loader *ld, struct scheme_config *c,
			       const config_setting_t *list)
{
	static const char *const known[] = { "lang", "configuration", NULL };
	uint16_t seen[SCHEME_MAX_LANGS];
	int n = config_setting_length(list), rc = scheme__check_list(ld, list);

	for (int i = 0; rc == 0 && i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
		struct scheme_config_strings *cs = &c->strings[c->n_strings];
		const config_setting_t *m;

		if (c->n_strings == SCHEME_MAX_LANGS)
			return scheme__err(ld, g, -USB_ENOSPC, "strings: more than %d languages",
				    SCHEME_MAX_LANGS);
		rc = scheme__check_group_of(ld, g, known, "a configuration's strings");
		if (rc == 0)
			rc = get_lang(ld, g, seen, c->n_strings, &cs->lang);
		m = rc ? NULL : config_setting_get_member(g, "configuration");
		if (m)
			rc = scheme__get_string(ld, m, &cs->configuration);
		if (rc == 0)
			seen[c->n_strings++] = cs->lang;
	}
	return rc;
}

static int load_config(struct loader *ld, const config_setting_t *g)
{
	static const char *const known[] = { "id", "name", "attrs", "strings", "functions", NULL };
	struct gadget_scheme *s = ld->s;
	struct scheme_config *c;
	const config_setting_t *m;
	int rc = scheme__check_group_of(ld, g, known, "a configuration");

	if (rc)
		return rc;
	if (s->n_configs == SCHEME_MAX_CONFIGS)
		return scheme__err(ld, g, -USB_ENOSPC, "more than %d configurations", SCHEME_MAX_CONFIGS);
	c = &s->configs[s->n_configs++];
	c->s = s;
	c->c.bmAttributes = USB_CONFIG_ATT_ONE;
	c->c.MaxPower = 2;	/* configfs's default: CONFIG_USB_GADGET_VBUS_DRAW */
	c->where.line = scheme__line_of(g);
	c->where.file = scheme__strdup(scheme__file_of(ld, g));
	if (!c->where.file)
		return scheme__err(ld, g, -USB_ENOMEM, "out of memory");
	m = config_setting_get_member(g, "id");
	if (!m)
		return scheme__err(ld, g, -USB_EINVAL, "configuration: 'id' is missing");
	rc = scheme__get_uint(ld, m, 255, &c->id);
	if (rc == 0 && c->id == 0)
		rc = scheme__err(ld, m, -USB_ERANGE, "id: 0 is no configuration value (1..255)");
	for (unsigned i = 0; rc == 0 && i + 1 < s->n_configs; i++)
		if (s->configs[i].id == c->id)
			rc = scheme__err(ld, m, -USB_EINVAL, "configuration %u is defined twice", c->id);
	if (rc)
		return rc;
	c->c.bConfigurationValue = (uint8_t)c->id;
	m = config_setting_get_member(g, "name");
	if (!m)
		return scheme__err(ld, g, -USB_EINVAL, "configuration %u: 'name' is missing", c->id);
	rc = scheme__get_string(ld, m, &c->name);
	m = config_setting_get_member(g, "attrs");
	if (rc == 0 && m)
		rc = load_config_attrs(ld, c, m);
	m = config_setting_get_member(g, "strings");
	if (rc == 0 && m)
		rc = load_config_strings(ld, c, m);
	m = config_setting_get_member(g, "functions");
	if (rc == 0 && m) {
		int n = config_setting_length(m);

		rc = scheme__check_list(ld, m);
		for (int i = 0; rc == 0 && i < n; i++)
			rc = load_binding(ld, c, config_setting_get_elem(m, (unsigned)i));
	}
	return rc;
}

static int load_configs(struct loader *ld, const config_setting_t *list)
{
	int n = config_setting_length(list), rc = scheme__check_list(ld, list);

	for (int i = 0; rc == 0 && i < n; i++)
		rc = load_config(ld, config_setting_get_elem(list, (unsigned)i));
	return rc;
}

/* The gadget's os_descs = { use; b_vendor_code; qw_sign; config_id }. */
static int load_os_descs(struct loader *ld, const config_setting_t *g)
{
	static const char *const known[] = { "use", "b_vendor_code", "qw_sign", "config_id", NULL };
	struct gadget_scheme *s = ld->s;
	const config_setting_t *m;
	unsigned v;
	int rc = scheme__check_group_of(ld, g, known, "os_descs");

	s->has_os_descs = true;
	m = rc ? NULL : config_setting_get_member(g, "use");
	if (m) {
		if (config_setting_type(m) == CONFIG_TYPE_BOOL)
			s->os_use = config_setting_get_bool(m);
		else if ((rc = scheme__get_uint(ld, m, 1, &v)) == 0)
			s->os_use = v;
	}
	m = rc ? NULL : config_setting_get_member(g, "b_vendor_code");
	if (m && (rc = scheme__get_uint(ld, m, 0xff, &v)) == 0)
		s->os_vendor_code = (uint8_t)v;
	m = rc ? NULL : config_setting_get_member(g, "qw_sign");
	if (m) {
		rc = scheme__get_string(ld, m, &s->os_qw_sign);
		if (rc == 0 && strlen(s->os_qw_sign) > OS_STRING_QW_SIGN_LEN / 2)
			rc = scheme__err(ld, m, -USB_ERANGE, "qw_sign: longer than %d characters",
				  OS_STRING_QW_SIGN_LEN / 2);
	}
	m = rc ? NULL : config_setting_get_member(g, "config_id");
	if (m && (rc = scheme__get_uint(ld, m, 255, &v)) == 0)
		s->os_config_id = v;
	return rc;
}

static int load_root(struct loader *ld, const config_setting_t *root)
{
	/* The sections in the order they load (functions before the
	 * configurations that name them); the names double as the list of
	 * known members. */
	static const char *const known[] = { "attrs", "strings", "functions", "configs",
					     "os_descs", NULL };
	static int (*const load[])(struct loader *, const config_setting_t *) = {
		load_device_attrs, load_device_strings, scheme__load_functions, load_configs,
		load_os_descs,
	};
	int rc = scheme__check_members(ld, root, known, "the gadget");

	for (size_t i = 0; rc == 0 && known[i]; i++) {
		const config_setting_t *m = config_setting_get_member(root, known[i]);

		if (m)
			rc = load[i](ld, m);
	}
	if (rc == 0 && ld->s->os_config_id) {
		unsigned i = 0;
		const config_setting_t *os = config_setting_get_member(root, "os_descs");

		while (i < ld->s->n_configs && ld->s->configs[i].id != ld->s->os_config_id)
			i++;
		if (i == ld->s->n_configs)
			rc = scheme__err(ld, config_setting_get_member(os, "config_id"), -USB_EINVAL,
				  "os_descs: no configuration %u", ld->s->os_config_id);
	}
	return rc;
}

static struct gadget_scheme *scheme_new(const char *name)
{
	struct gadget_scheme *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->name = scheme__strdup(name);
	if (!s->name) {
		free(s);
		return NULL;
	}
	/* configfs's defaults (bcdDevice aside: Linux puts its version there). */
	s->desc.bLength = USB_DT_DEVICE_SIZE;
	s->desc.bDescriptorType = USB_DT_DEVICE;
	s->desc.bcdUSB = USB_CPU_TO_LE16(0x0200);
	s->desc.bMaxPacketSize0 = 64;
	return s;
}

static int load(config_t *cfg, int read_ok, const char *name, struct gadget_scheme **out,
		struct gadget_scheme_error *err)
{
	struct loader ld = { .err = err, .file = name };
	int rc;

	if (read_ok != CONFIG_TRUE) {
		const char *f = config_error_file(cfg);

		if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
			return scheme__fail(err, f ? f : name, 0, -USB_ENOENT,
					    "cannot read the scheme");
		return scheme__fail(err, f ? f : name, config_error_line(cfg), -USB_EINVAL,
				    "syntax error: %s", config_error_text(cfg));
	}
	ld.s = scheme_new(name);
	if (!ld.s)
		return scheme__fail(err, name, 0, -USB_ENOMEM, "out of memory");
	rc = load_root(&ld, config_root_setting(cfg));
	if (rc) {
		gadget_scheme_free(ld.s);
		return rc;
	}
	*out = ld.s;
	return 0;
}

int gadget_scheme_load_file(const char *path, struct gadget_scheme **out,
			    struct gadget_scheme_error *err)
{
	config_t cfg;
	char *dir;
	char *slash;
	int rc;

	if (!path || !out)
		return scheme__fail(err, path, 0, -USB_EINVAL, "no scheme");
	dir = scheme__strdup(path);
	if (!dir)
		return scheme__fail(err, path, 0, -USB_ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	if (slash)
		slash[1] = '\0';
	config_init(&cfg);
	if (slash)	/* libconfig 1.5 takes no NULL here */
		config_set_include_dir(&cfg, dir);
	rc = load(&cfg, config_read_file(&cfg, path), path, out, err);
	config_destroy(&cfg);
	free(dir);
	return rc;
}

int gadget_scheme_load_string(const char *text, const char *name, const char *include_dir,
			      struct gadget_scheme **out, struct gadget_scheme_error *err)
{
	config_t cfg;
	int rc;

	if (!name)
		name = "(string)";
	if (!text || !out)
		return scheme__fail(err, name, 0, -USB_EINVAL, "no scheme");
	config_init(&cfg);
	if (include_dir)
		config_set_include_dir(&cfg, include_dir);
	rc = load(&cfg, config_read_string(&cfg, text), name, out, err);
	config_destroy(&cfg);
	return rc;
}

const char *gadget_scheme_name(const struct gadget_scheme *s)
{
	return s ? s->name : NULL;
}

void gadget_scheme_free(struct gadget_scheme *s)
{
	if (!s)
		return;
	gadget_scheme_unbind(s);
	for (unsigned i = 0; i < s->n_configs; i++) {
		struct scheme_config *c = &s->configs[i];

		for (unsigned k = 0; k < c->n_bindings; k++) {
			free(c->bindings[k].name);
			free(c->bindings[k].where.file);
		}
		for (unsigned k = 0; k < c->n_strings; k++)
			free(c->strings[k].configuration);
		free(c->name);
		free(c->where.file);
	}
	for (unsigned i = 0; i < s->n_functions; i++) {
		struct scheme_function *fn = &s->functions[i];

		if (fn->fi)
			usb_put_function_instance(fn->fi);
		/* Past n_os too: an entry that failed halfway holds its name. */
		for (unsigned k = 0; k < SCHEME_MAX_OS_DESCS; k++)
			free(fn->os[k].interface);
		free(fn->label);
		free(fn->type);
		free(fn->instance);
		free(fn->where.file);
	}
	for (unsigned i = 0; i < s->n_strings; i++)
		for (unsigned k = 0; k < 3; k++)
			free(s->strings[i].s[k]);
	free(s->os_qw_sign);
	free(s->name);
	free(s);
}
