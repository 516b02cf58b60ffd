/*
 * params.c - the kernel module's parameters (file=, ro=, removable=,
 * cdrom=, nofua=, luns=, stall=, inquiry_string=, plus num_buffers= and
 * buflen=) parsed from "key=value" arguments, and the fsg_config they
 * describe. Bad values are refused with a message naming the parameter;
 * unknown arguments are left for the caller.
 *
 * Portable C11; touches only the structures it is given.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msf_internal.h"

void fsg_module_parameters_init(struct fsg_module_parameters *params)
{
	memset(params, 0, sizeof(*params));
	params->stall = true;
}

static int fail(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return -USB_EINVAL;
}

/* Parse a boolean of @n characters. 0, or -USB_EINVAL. */
static int parse_bool(const char *s, size_t n, bool *out)
{
	char word[8];

	if (n >= sizeof(word))
		return -USB_EINVAL;
	memcpy(word, s, n);
	word[n] = '\0';
	return usb_attr_parse_bool(word, out);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -USB_EINVAL;
	v = strtoul(s, &end, 0);
	if (*end || v > max)
		return -USB_EINVAL;
	*out = v;
	return 0;
}

/* Split @val at commas; call one element at a time. */
struct list_iter {
	const char *p;
	bool done;
};

static bool next_elem(struct list_iter *it, const char **start, size_t *len)
{
	const char *comma;

	if (it->done)
		return false;
	*start = it->p;
	comma = strchr(it->p, ',');
	if (comma) {
		*len = (size_t)(comma - it->p);
		it->p = comma + 1;
	} else {
		*len = strlen(it->p);
		it->done = true;
	}
	return true;
}

static int parse_bool_array(const char *key, const char *val, bool *arr,
			    unsigned *count, char *errbuf, size_t errlen)
{
	struct list_iter it = { val, false };
	const char *s;
	size_t n;
	unsigned i = 0;

	while (next_elem(&it, &s, &n)) {
		if (i >= FSG_MAX_LUNS)
			return fail(errbuf, errlen, "%s: more than %d values", key, FSG_MAX_LUNS);
		if (parse_bool(s, n, &arr[i]))
			return fail(errbuf, errlen,
				    "%s: value '%.*s' of LUN %u is not a boolean "
				    "(1/0, y/n, yes/no, on/off, true/false)",
				    key, (int)(n > 40 ? 40 : n), s, i);
		i++;
	}
	for (unsigned k = i; k < FSG_MAX_LUNS; k++)
		arr[k] = false;	/* a key given again replaces the whole list */
	*count = i;
	return 0;
}

/* Split @val at its commas in place: each LUN's value points into it. */
static int parse_string_array(const char *key, char *val, const char **arr,
			      size_t max_len, unsigned *count, bool printable_only,
			      char *errbuf, size_t errlen)
{
	char *s = val;
	unsigned i = 0;

	for (;;) {
		char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);

		if (i >= FSG_MAX_LUNS)
			return fail(errbuf, errlen, "%s: more than %d values", key, FSG_MAX_LUNS);
		if (n > max_len)
			return fail(errbuf, errlen, "%s: value of LUN %u is longer than %zu characters",
				    key, i, max_len);
		for (size_t k = 0; printable_only && k < n; k++)
			if ((unsigned char)s[k] < 0x20 || (unsigned char)s[k] > 0x7e)
				return fail(errbuf, errlen,
					    "%s: value of LUN %u has a non-printable character",
					    key, i);
		arr[i++] = s;
		if (!comma)
			break;
		*comma = '\0';
		s = comma + 1;
	}
	/* A key given again replaces the whole list: no value of the last
	 * one may stay behind its end. */
	for (unsigned k = i; k < FSG_MAX_LUNS; k++)
		arr[k] = NULL;
	*count = i;
	return 0;
}

/* Parse one known parameter. 1 if @key is not one of ours. */
static int parse_one(struct fsg_module_parameters *p, const char *key, size_t klen,
		     char *val, char *errbuf, size_t errlen)
{
	unsigned long v;
	char name[20];

	if (klen >= sizeof(name))
		return 1;
	memcpy(name, key, klen);
	name[klen] = '\0';

	if (!strcmp(name, "file"))
		return parse_string_array(name, val, p->file, FSG_PARAM_PATH_MAX,
					  &p->file_count, false, errbuf, errlen);
	if (!strcmp(name, "inquiry_string"))
		return parse_string_array(name, val, p->inquiry_string,
					  FSG_INQUIRY_STRING_LEN,
					  &p->inquiry_string_count, true, errbuf, errlen);
	if (!strcmp(name, "ro"))
		return parse_bool_array(name, val, p->ro, &p->ro_count, errbuf, errlen);
	if (!strcmp(name, "removable"))
		return parse_bool_array(name, val, p->removable, &p->removable_count,
					errbuf, errlen);
	if (!strcmp(name, "cdrom"))
		return parse_bool_array(name, val, p->cdrom, &p->cdrom_count, errbuf, errlen);
	if (!strcmp(name, "nofua"))
		return parse_bool_array(name, val, p->nofua, &p->nofua_count, errbuf, errlen);
	if (!strcmp(name, "stall")) {
		if (parse_bool(val, strlen(val), &p->stall))
			return fail(errbuf, errlen, "stall: '%.40s' is not a boolean", val);
		return 0;
	}
	if (!strcmp(name, "luns")) {
		if (parse_uint(val, FSG_MAX_LUNS, &v) || v < 1)
			return fail(errbuf, errlen, "luns: '%.40s' is not a number from 1 to %d",
				    val, FSG_MAX_LUNS);
		p->luns = (unsigned)v;
		return 0;
	}
	if (!strcmp(name, "num_buffers")) {
		if (parse_uint(val, FSG_NUM_BUFFERS_MAX, &v) || v < FSG_NUM_BUFFERS_MIN)
			return fail(errbuf, errlen,
				    "num_buffers: '%.40s' is not a number from %u to %u",
				    val, FSG_NUM_BUFFERS_MIN, FSG_NUM_BUFFERS_MAX);
		p->num_buffers = (unsigned)v;
		return 0;
	}
	if (!strcmp(name, "buflen")) {
		if (parse_uint(val, FSG_BUFLEN_MAX, &v) || v < FSG_BUFLEN_MIN || v % 512)
			return fail(errbuf, errlen,
				    "buflen: '%.40s' is not a multiple of 512 from %u to %u",
				    val, FSG_BUFLEN_MIN, FSG_BUFLEN_MAX);
		p->buflen = (unsigned)v;
		return 0;
	}
	return 1;
}

int fsg_module_parameters_parse(struct fsg_module_parameters *params,
				int argc, char **argv, char *errbuf, size_t errlen)
{
	int kept = 0;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!params || argc < 0 || (argc > 0 && !argv))
		return fail(errbuf, errlen, "bad arguments");

	for (int i = 0; i < argc; i++) {
		char *arg = argv[i];
		char *eq = arg ? strchr(arg, '=') : NULL;
		int rc = 1;

		if (eq && eq != arg)
			rc = parse_one(params, arg, (size_t)(eq - arg), eq + 1, errbuf, errlen);
		if (rc < 0)
			return rc;
		if (rc == 1)
			argv[kept++] = arg;	/* not ours: keep, in order */
	}
	/* More LUN values than LUNs is a contradiction the module refuses too. */
	if (params->luns) {
		const struct { const char *name; unsigned n; } counts[] = {
			{ "file", params->file_count }, { "ro", params->ro_count },
			{ "removable", params->removable_count },
			{ "cdrom", params->cdrom_count }, { "nofua", params->nofua_count },
			{ "inquiry_string", params->inquiry_string_count },
		};
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
			if (counts[k].n > params->luns)
				return fail(errbuf, errlen, "%s: %u values for luns=%u",
					    counts[k].name, counts[k].n, params->luns);
	}
	return kept;
}

void fsg_config_from_params(struct fsg_config *cfg,
			    const struct fsg_module_parameters *params)
{
	unsigned n;

	memset(cfg, 0, sizeof(*cfg));
	n = params->luns ? params->luns : (params->file_count ? params->file_count : 1);
	if (n > FSG_MAX_LUNS)
		n = FSG_MAX_LUNS;
	cfg->nluns = n;
	for (unsigned i = 0; i < n; i++) {
		struct fsg_lun_config *l = &cfg->luns[i];

		l->ro = i < params->ro_count && params->ro[i];
		l->removable = i < params->removable_count && params->removable[i];
		l->cdrom = i < params->cdrom_count && params->cdrom[i];
		l->nofua = i < params->nofua_count && params->nofua[i];
		l->filename = i < params->file_count && params->file[i] &&
			      params->file[i][0] ? params->file[i] : NULL;
		l->inquiry_string = i < params->inquiry_string_count &&
				    params->inquiry_string[i] && params->inquiry_string[i][0] ?
				    params->inquiry_string[i] : NULL;
	}
	cfg->can_stall = params->stall;
	cfg->fsg_num_buffers = params->num_buffers;
	cfg->buflen = params->buflen;
	cfg->exit_on_signal = params->exit_on_signal;
}

int fsg_common_from_params(struct fsg_common **out, struct usb_composite_dev *cdev,
			   const struct fsg_module_parameters *params)
{
	struct fsg_config cfg;

	if (!params) {
		if (out)
			*out = NULL;
		return -USB_EINVAL;
	}
	fsg_config_from_params(&cfg, params);
	return fsg_common_create(out, cdev, &cfg);
}
