/*
 * scheme_functions_posix.c - the gadget scheme loader's functions: each
 * definition (type, instance, attrs, os_descs) made an instance of the
 * registry with its attributes set by configfs names (values as configfs
 * text; mass_storage's luns list, libusbgx's filename as lun.N/file;
 * read-only attributes ignored), and labels resolved for the
 * configurations. Called by scheme_load_posix.c; touches the registry
 * only through composite/registry.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite/errors.h"
#include "scheme_internal.h"
#include "scheme_loader.h"

/* ---- functions --------------------------------------------------------------- */

/* @st as the text configfs would take: integers in decimal, booleans 1/0,
 * strings as they are, a list of bytes as hex ("05 01 09 06"). */
static char *value_text(struct loader *ld, const config_setting_t *st, int *rc)
{
	char *text = NULL;
	int n;

	*rc = 0;
	switch (config_setting_type(st)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		text = malloc(24);
		if (text)
			snprintf(text, 24, "%lld", config_setting_get_int64(st));
		break;
	case CONFIG_TYPE_BOOL:
		text = scheme__strdup(config_setting_get_bool(st) ? "1" : "0");
		break;
	case CONFIG_TYPE_STRING:
		text = scheme__strdup(config_setting_get_string(st));
		break;
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		n = config_setting_length(st);
		text = malloc((size_t)n * 3 + 1);
		if (text)
			text[0] = '\0';
		for (int i = 0; text && i < n; i++) {
			const config_setting_t *b = config_setting_get_elem(st, (unsigned)i);
			unsigned v;

			*rc = scheme__get_uint(ld, b, 0xff, &v);
			if (*rc) {
				free(text);
				return NULL;
			}
			snprintf(text + i * 3, 4, i + 1 < n ? "%02x " : "%02x", v);
		}
		break;
	default:
		*rc = scheme__err(ld, st, -USB_EINVAL, "%s: must be a number, a boolean, a string or "
			   "a list of bytes", scheme__name_of(st));
		return NULL;
	}
	if (!text)
		*rc = scheme__err(ld, st, -USB_ENOMEM, "out of memory");
	return text;
}

/* Set @attr of @fn to @st's value; read-only attributes are ignored, as
 * libusbgx ignores them. */
static int set_attr(struct loader *ld, struct scheme_function *fn, const char *attr,
		    const config_setting_t *st)
{
	int rc;
	char *text = value_text(ld, st, &rc);

	if (!text)
		return rc;
	rc = usb_function_instance_set(fn->fi, attr, text);
	free(text);
	switch (rc) {
	case 0:
	case -USB_EACCES:
		return 0;
	case -USB_ENOENT:
		return scheme__err(ld, st, -USB_EINVAL, "function %s (%s): unknown attribute '%s'",
			    fn->label, fn->type, attr);
	case -USB_EINVAL:
	case -USB_ERANGE:
		return scheme__err(ld, st, -USB_ERANGE, "function %s (%s): %s: value out of range or "
			    "invalid", fn->label, fn->type, attr);
	default:
		return scheme__err(ld, st, rc, "function %s (%s): %s: %s", fn->label, fn->type, attr,
			    usb_strerror(rc));
	}
}

/* mass_storage's luns = ( { cdrom, ro, nofua, removable, filename }, ... ). */
static int load_luns(struct loader *ld, struct scheme_function *fn, const config_setting_t *list)
{
	static const char *const known[] = { "cdrom", "ro", "nofua", "removable", "filename",
					     "file", "inquiry_string", NULL };
	int n = config_setting_length(list), rc = scheme__check_list(ld, list);

	if (rc == 0 && n > 16)
		return scheme__err(ld, list, -USB_ERANGE, "luns: %d LUNs, at most 16", n);
	for (int i = 0; rc == 0 && i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
		int m = config_setting_length(g);

		rc = scheme__check_group_of(ld, g, known, "a LUN");
		/* libusbgx's defaults, stated: removable, no medium. */
		if (rc == 0) {
			char attr[32];

			snprintf(attr, sizeof(attr), "lun.%d/removable", i);
			rc = usb_function_instance_set(fn->fi, attr, "1");
		}
		for (int k = 0; rc == 0 && k < m; k++) {
			const config_setting_t *a = config_setting_get_elem(g, (unsigned)k);
			const char *an = scheme__name_of(a);
			char attr[48];

			if (!strcmp(an, "filename"))
				an = "file";
			snprintf(attr, sizeof(attr), "lun.%d/%s", i, an);
			rc = set_attr(ld, fn, attr, a);
		}
	}
	if (rc == 0)
		fn->nluns = n > 0 ? (unsigned)n : 1;
	return rc;
}

static int load_function_attrs(struct loader *ld, struct scheme_function *fn,
			       const config_setting_t *group)
{
	int n = config_setting_length(group), rc = scheme__check_group(ld, group);

	for (int i = 0; rc == 0 && i < n; i++) {
		const config_setting_t *a = config_setting_get_elem(group, (unsigned)i);

		if (!strcmp(fn->type, SCHEME_MS_TYPE) && !strcmp(scheme__name_of(a), "luns"))
			rc = load_luns(ld, fn, a);
		else
			rc = set_attr(ld, fn, scheme__name_of(a), a);
	}
	return rc;
}

/* A function's os_descs = ( { interface, compatible_id, sub_compatible_id } ). */
static int load_function_os_descs(struct loader *ld, struct scheme_function *fn,
				  const config_setting_t *list)
{
	static const char *const known[] = { "interface", "compatible_id", "sub_compatible_id",
					     NULL };
	int n = config_setting_length(list), rc = scheme__check_list(ld, list);

	for (int i = 0; rc == 0 && i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
		struct scheme_os_desc *od = &fn->os[fn->n_os];

		if (fn->n_os == SCHEME_MAX_OS_DESCS)
			return scheme__err(ld, g, -USB_ENOSPC, "os_descs: more than %d interfaces",
				    SCHEME_MAX_OS_DESCS);
		rc = scheme__check_group_of(ld, g, known, "os_descs");
		for (unsigned k = 0; rc == 0 && k < 3; k++) {
			const config_setting_t *m = config_setting_get_member(g, known[k]);
			char *v = NULL;

			if (!m)
				continue;
			rc = scheme__get_string(ld, m, &v);
			if (rc == 0 && k == 0)
				od->interface = v;
			else if (rc == 0 && strlen(v) > USB_OS_DESC_COMPAT_ID_LEN)
				rc = scheme__err(ld, m, -USB_ERANGE, "%s: longer than %d bytes",
					  known[k], USB_OS_DESC_COMPAT_ID_LEN);
			else if (rc == 0)
				memcpy(od->compat + (k - 1) * 8, v, strlen(v));
			if (k)
				free(v);
		}
		if (rc == 0) {
			od->desc.ext_compat_id = od->compat;
			INIT_LIST_HEAD(&od->desc.ext_prop);
			fn->n_os++;
		}
	}
	return rc;
}

/* A function definition: { instance; type; attrs; os_descs }. */
int scheme__load_function(struct loader *ld, const config_setting_t *g, const char *label,
			 bool inline_def, struct scheme_function **out)
{
	static const char *const known[] = { "instance", "type", "attrs", "os_descs", NULL };
	struct gadget_scheme *s = ld->s;
	struct scheme_function *fn;
	const config_setting_t *m;
	int rc = scheme__check_group_of(ld, g, known, "a function");

	if (rc)
		return rc;
	if (s->n_functions == SCHEME_MAX_FUNCTIONS)
		return scheme__err(ld, g, -USB_ENOSPC, "more than %d functions", SCHEME_MAX_FUNCTIONS);
	fn = &s->functions[s->n_functions++];
	fn->inline_def = inline_def;
	fn->where.line = scheme__line_of(g);
	fn->where.file = scheme__strdup(scheme__file_of(ld, g));
	fn->label = scheme__strdup(label);
	if (!fn->where.file || !fn->label)
		return scheme__err(ld, g, -USB_ENOMEM, "out of memory");
	m = config_setting_get_member(g, "type");
	if (!m)
		return scheme__err(ld, g, -USB_EINVAL, "function %s: 'type' is missing", label);
	rc = scheme__get_string(ld, m, &fn->type);
	if (rc)
		return rc;
	m = config_setting_get_member(g, "instance");
	if (!m)
		return scheme__err(ld, g, -USB_EINVAL, "function %s: 'instance' is missing", label);
	rc = scheme__get_string(ld, m, &fn->instance);
	if (rc)
		return rc;
	for (unsigned i = 0; i + 1 < s->n_functions; i++)
		if (!strcmp(s->functions[i].type, fn->type) &&
		    !strcmp(s->functions[i].instance, fn->instance))
			return scheme__err(ld, g, -USB_EINVAL, "function %s: %s.%s is defined twice "
				    "(also line %d)", label, fn->type, fn->instance,
				    s->functions[i].where.line);
	fn->fi = usb_get_function_instance(fn->type);
	if (usb_is_err(fn->fi)) {
		rc = usb_ptr_err(fn->fi);
		fn->fi = NULL;
		m = config_setting_get_member(g, "type");
		if (rc == -USB_ENOENT)
			return scheme__err(ld, m, -USB_EINVAL, "function %s: unknown type '%s'",
				    label, fn->type);
		return scheme__err(ld, m, rc, "function %s: %s", label, usb_strerror(rc));
	}
	rc = usb_function_instance_set_name(fn->fi, fn->instance);
	if (rc && rc != -USB_EOPNOTSUPP)
		return scheme__err(ld, config_setting_get_member(g, "instance"), rc,
			    "function %s: instance '%s': %s", label, fn->instance,
			    usb_strerror(rc));
	fn->nluns = 1;
	m = config_setting_get_member(g, "attrs");
	rc = m ? load_function_attrs(ld, fn, m) : 0;
	m = config_setting_get_member(g, "os_descs");
	if (rc == 0 && m)
		rc = load_function_os_descs(ld, fn, m);
	if (rc == 0)
		*out = fn;
	return rc;
}

int scheme__load_functions(struct loader *ld, const config_setting_t *group)
{
	int n = config_setting_length(group), rc = scheme__check_group(ld, group);
	struct scheme_function *fn;

	for (int i = 0; rc == 0 && i < n; i++) {
		const config_setting_t *g = config_setting_get_elem(group, (unsigned)i);

		rc = scheme__load_function(ld, g, scheme__name_of(g), false, &fn);
	}
	return rc;
}

/* A label, or libusbgx's convention TYPE_INSTANCE for an unlabelled one. */
struct scheme_function *scheme__find_function(struct gadget_scheme *s, const char *label)
{
	for (unsigned i = 0; i < s->n_functions; i++)
		if (!s->functions[i].inline_def && !strcmp(s->functions[i].label, label))
			return &s->functions[i];
	for (unsigned i = 0; i < s->n_functions; i++) {
		size_t t = strlen(s->functions[i].type);

		if (!strncmp(label, s->functions[i].type, t) && label[t] == '_' &&
		    !strcmp(label + t + 1, s->functions[i].instance))
			return &s->functions[i];
	}
	return NULL;
}
