/*
 * scheme_internal.h - the model of a loaded gadget scheme, shared by the
 * loader (scheme_load_posix.c: libconfig to model and instances), the
 * binder (scheme_bind_posix.c: model to composite device) and the
 * exporter (scheme_export_posix.c: instances and model to libconfig).
 * Private to src/scheme.
 */
#ifndef COMPOSITE_SCHEME_INTERNAL_H
#define COMPOSITE_SCHEME_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "composite/composite.h"
#include "composite/registry.h"
#include "composite/scheme.h"

#define SCHEME_MAX_LANGS	8
#define SCHEME_MAX_FUNCTIONS	32
#define SCHEME_MAX_CONFIGS	8
#define SCHEME_MAX_BINDINGS	16
#define SCHEME_MAX_OS_DESCS	4

/* Where a setting was written, for errors at bind time. */
struct scheme_where {
	char *file;
	int line;
};

/* One os_descs entry of a function: its k-th interface's compatible ID. */
struct scheme_os_desc {
	char *interface;
	char compat[16];	/* compatible ID then sub-compatible ID, NUL padded */
	struct usb_os_desc desc;
};

struct scheme_function {
	char *label;		/* as written, or made up for an inline one */
	char *type;
	char *instance;
	bool inline_def;	/* defined inside a configuration */
	unsigned nluns;		/* mass_storage: LUNs the scheme made */
	struct usb_function_instance *fi;
	struct scheme_os_desc os[SCHEME_MAX_OS_DESCS];
	unsigned n_os;
	struct scheme_where where;
};

struct scheme_binding {
	char *name;
	struct scheme_function *fn;
	struct usb_function *f;	/* while bound */
	struct usb_os_desc_table os_table[SCHEME_MAX_OS_DESCS];
	struct scheme_where where;
};

struct scheme_config_strings {
	uint16_t lang;
	char *configuration;
	struct usb_string str[2];
	struct usb_gadget_strings table;
};

struct scheme_config {
	struct usb_configuration c;
	struct gadget_scheme *s;
	unsigned id;
	char *name;
	struct scheme_config_strings strings[SCHEME_MAX_LANGS];
	struct usb_gadget_strings *tables[SCHEME_MAX_LANGS + 1];
	unsigned n_strings;
	struct scheme_binding bindings[SCHEME_MAX_BINDINGS];
	unsigned n_bindings;
	struct scheme_where where;
};

/* Device strings of one language: manufacturer, product, serialnumber. */
struct scheme_dev_strings {
	uint16_t lang;
	char *s[3];
	struct usb_string str[4];
	struct usb_gadget_strings table;
};

struct gadget_scheme {
	char *name;
	struct usb_device_descriptor desc;
	struct scheme_dev_strings strings[SCHEME_MAX_LANGS];
	struct usb_gadget_strings *tables[SCHEME_MAX_LANGS + 1];
	unsigned n_strings;
	struct scheme_function functions[SCHEME_MAX_FUNCTIONS];
	unsigned n_functions;
	struct scheme_config configs[SCHEME_MAX_CONFIGS];
	unsigned n_configs;
	/* os_descs */
	bool os_use;
	uint8_t os_vendor_code;
	char *os_qw_sign;	/* NULL: "MSFT100" */
	unsigned os_config_id;	/* 0: the first configuration */
	bool has_os_descs;
	struct usb_composite_driver driver;
	struct usb_composite_dev *cdev;	/* while bound */
	char udc_name[32];
	struct gadget_scheme_error *bind_err;
	bool bound;
};

/* The names of mass_storage's LUN attributes as a scheme writes them. */
#define SCHEME_MS_TYPE "mass_storage"

/* Fill @err (may be NULL) and return @code. */
int scheme__fail(struct gadget_scheme_error *err, const char *file, int line, int code,
		 const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

/* True for attributes a scheme writes as a bool (libusbgx's types). */
bool scheme__is_bool_attr(const char *type, const char *attr);

char *scheme__strdup(const char *s);

#endif /* COMPOSITE_SCHEME_INTERNAL_H */
