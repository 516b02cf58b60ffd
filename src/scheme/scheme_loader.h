/*
 * scheme_loader.h - what the two halves of the scheme loader share
 * (scheme_load_posix.c: the walk of libconfig's settings, device,
 * configurations, OS descriptors; scheme_functions_posix.c: functions
 * and their attributes): the loader's state and its checked getters,
 * each of which fills the error with the setting's file and line and
 * returns a negative USB_E* value on a fault. Private to src/scheme.
 */
#ifndef COMPOSITE_SCHEME_LOADER_H
#define COMPOSITE_SCHEME_LOADER_H

#include <libconfig.h>

#include "scheme_internal.h"

struct loader {
	struct gadget_scheme *s;
	struct gadget_scheme_error *err;
	const char *file;	/* the scheme's own name, for settings without one */
};

/* Where @st was written (@st may be NULL: the scheme itself, line 0). */
const char *scheme__file_of(const struct loader *ld, const config_setting_t *st);
int scheme__line_of(const config_setting_t *st);
/* @st's name, or "(item)" for a list element. */
const char *scheme__name_of(const config_setting_t *st);

/* Fill the error at @st's file and line; return @code. */
int scheme__err(struct loader *ld, const config_setting_t *st, int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* An integer 0..@max (-USB_EINVAL not one, -USB_ERANGE out of range). */
int scheme__get_uint(struct loader *ld, const config_setting_t *st, long long max,
		     unsigned *out);
/* A string, copied into *@out (the old one freed). */
int scheme__get_string(struct loader *ld, const config_setting_t *st, char **out);
int scheme__check_group(struct loader *ld, const config_setting_t *st);
int scheme__check_list(struct loader *ld, const config_setting_t *st);
/* Every member of @group is one of @known (NULL-terminated). */
int scheme__check_members(struct loader *ld, const config_setting_t *group,
			  const char *const *known, const char *what);
/* A group whose members are all among @known. */
int scheme__check_group_of(struct loader *ld, const config_setting_t *st,
			   const char *const *known, const char *what);

/* ---- scheme_functions_posix.c ---------------------------------------------- */

/* The gadget's functions = { LABEL = { ... }; ... }. */
int scheme__load_functions(struct loader *ld, const config_setting_t *group);
/* One definition @g called @label (@inline_def: inside a configuration);
 * *@out is the model's entry. */
int scheme__load_function(struct loader *ld, const config_setting_t *g, const char *label,
			  bool inline_def, struct scheme_function **out);
/* The function labelled @label, or libusbgx's TYPE_INSTANCE; NULL if none. */
struct scheme_function *scheme__find_function(struct gadget_scheme *s, const char *label);

#endif /* COMPOSITE_SCHEME_LOADER_H */
