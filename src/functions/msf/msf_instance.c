/*
 * msf_instance.c - mass storage in the function registry ("mass_storage",
 * as Linux's configfs): struct fsg_opts, its attributes (stall,
 * num_buffers, lun.N/...) held as text until the first function creates
 * the common object of them, live medium changes after that, and the
 * functions made of the instance, all sharing one fsg_common. Portable
 * C11 on the MSF's public calls (heap).
 */
#include <stdio.h>
#include <string.h>

#include "msf_internal.h"
#include "../registry/builtin.h"
#include "port/alloc.h"

struct msf_lun_opts {
	char *file;		/* NULL or "": no medium */
	char *inquiry_string;
	bool ro, removable, cdrom, nofua;
};

struct msf_opts {
	struct fsg_opts opts;
	unsigned nluns;		/* LUNs named so far (at least 1 is made) */
	bool stall;
	unsigned num_buffers;	/* 0: the default */
	struct msf_lun_opts lun[FSG_MAX_LUNS];
};

static struct msf_opts *msf_opts_of(struct usb_function_instance *fi)
{
	return usb_container_of(fi, struct fsg_opts, func_inst)->priv;
}

struct fsg_opts *fsg_opts_from_func_inst(struct usb_function_instance *fi)
{
	if (!fi || usb_is_err(fi) || fi->fd != &fn_driver_mass_storage)
		return NULL;
	return &msf_opts_of(fi)->opts;
}

/* @value without its trailing newline, copied; NULL without memory. */
static char *value_dup(const char *value)
{
	size_t n = strlen(value);
	char *s;

	if (n && value[n - 1] == '\n')
		n--;
	s = composite__malloc(n + 1);
	if (s) {
		memcpy(s, value, n);
		s[n] = '\0';
	}
	return s;
}

static int replace_string(char **slot, const char *value)
{
	char *s = value_dup(value);

	if (!s)
		return -USB_ENOMEM;
	composite__free(*slot);
	*slot = s;
	return 0;
}

/* LUN @index for a store that needs the common object not to exist yet. */
static struct msf_lun_opts *lun_for_store(struct msf_opts *o, unsigned index, int *rc)
{
	*rc = o->opts.common ? -USB_EBUSY : index >= FSG_MAX_LUNS ? -USB_ERANGE : 0;
	if (*rc)
		return NULL;
	if (o->nluns <= index)
		o->nluns = index + 1;
	return &o->lun[index];
}

/* LUN @index for a show: every LUN up to FSG_MAX_LUNS reads its defaults. */
static int lun_for_show(unsigned index)
{
	return index < FSG_MAX_LUNS ? 0 : -USB_ERANGE;
}

/* ---- attributes -------------------------------------------------------------- */

static int stall_show(struct usb_function_instance *fi, unsigned index, char *buf, size_t size)
{
	(void)index;
	return snprintf(buf, size, "%d\n", msf_opts_of(fi)->stall);
}

static int stall_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	struct msf_opts *o = msf_opts_of(fi);

	(void)index;
	return o->opts.common ? -USB_EBUSY : usb_attr_parse_bool(value, &o->stall);
}

static int num_buffers_show(struct usb_function_instance *fi, unsigned index, char *buf,
			    size_t size)
{
	struct msf_opts *o = msf_opts_of(fi);

	(void)index;
	return snprintf(buf, size, "%u\n", o->num_buffers ? o->num_buffers : FSG_NUM_BUFFERS_DEFAULT);
}

static int num_buffers_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	struct msf_opts *o = msf_opts_of(fi);

	(void)index;
	if (o->opts.common)
		return -USB_EBUSY;
	return usb_attr_parse_uint(value, FSG_NUM_BUFFERS_MIN, FSG_NUM_BUFFERS_MAX, &o->num_buffers);
}

#define MSF_LUN_BOOL(field)								\
	static int lun_##field##_show(struct usb_function_instance *fi, unsigned index,	\
				      char *buf, size_t size)				\
	{										\
		struct msf_opts *o = msf_opts_of(fi);					\
		int rc = lun_for_show(index);					\
											\
		return rc ? rc : snprintf(buf, size, "%d\n", o->lun[index].field);	\
	}										\
	static int lun_##field##_store(struct usb_function_instance *fi, unsigned index,	\
				       const char *value)				\
	{										\
		struct msf_opts *o = msf_opts_of(fi);					\
		bool v;									\
		int rc = usb_attr_parse_bool(value, &v);				\
		struct msf_lun_opts *lun = rc ? NULL : lun_for_store(o, index, &rc);	\
											\
		if (lun)								\
			lun->field = v;							\
		return rc;								\
	}

MSF_LUN_BOOL(ro)
MSF_LUN_BOOL(removable)
MSF_LUN_BOOL(cdrom)
MSF_LUN_BOOL(nofua)

static int lun_file_show(struct usb_function_instance *fi, unsigned index, char *buf, size_t size)
{
	struct msf_opts *o = msf_opts_of(fi);
	int rc = lun_for_show(index);

	if (rc)
		return rc;
	return snprintf(buf, size, "%s\n", o->lun[index].file ? o->lun[index].file : "");
}

static int lun_file_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	struct msf_opts *o = msf_opts_of(fi);
	struct msf_lun_opts *lun;
	char *path;
	int rc;

	if (!o->opts.common) {
		lun = lun_for_store(o, index, &rc);
		return lun ? replace_string(&lun->file, value) : rc;
	}
	/* Live: a medium change the host sees (Linux's lun.N/file). */
	if (index >= fsg_common_nluns(o->opts.common))
		return -USB_ERANGE;
	path = value_dup(value);
	if (!path)
		return -USB_ENOMEM;
	rc = fsg_common_set_lun_file(o->opts.common, index, path[0] ? path : NULL);
	if (rc == 0) {
		composite__free(o->lun[index].file);
		o->lun[index].file = path;
	} else {
		composite__free(path);
	}
	return rc;
}

static int lun_inquiry_show(struct usb_function_instance *fi, unsigned index, char *buf,
			    size_t size)
{
	struct msf_opts *o = msf_opts_of(fi);
	int rc = lun_for_show(index);
	const char *s = o->lun[index < FSG_MAX_LUNS ? index : 0].inquiry_string;

	return rc ? rc : snprintf(buf, size, "%s\n", s ? s : "");
}

static int lun_inquiry_store(struct usb_function_instance *fi, unsigned index, const char *value)
{
	struct msf_opts *o = msf_opts_of(fi);
	size_t n = strlen(value);
	struct msf_lun_opts *lun;
	int rc;

	if (n && value[n - 1] == '\n')
		n--;
	if (n > FSG_INQUIRY_STRING_LEN)
		return -USB_EINVAL;
	lun = lun_for_store(o, index, &rc);
	return lun ? replace_string(&lun->inquiry_string, value) : rc;
}

static int lun_forced_eject_store(struct usb_function_instance *fi, unsigned index,
				  const char *value)
{
	struct msf_opts *o = msf_opts_of(fi);
	struct msf_lun_opts *lun;
	int rc;

	(void)value;	/* any write ejects, as Linux's */
	if (o->opts.common) {
		if (index >= fsg_common_nluns(o->opts.common))
			return -USB_ERANGE;
		rc = fsg_common_forced_eject(o->opts.common, index);
		if (rc == 0) {
			composite__free(o->lun[index].file);
			o->lun[index].file = NULL;
		}
		return rc;
	}
	lun = lun_for_store(o, index, &rc);
	if (lun) {
		composite__free(lun->file);
		lun->file = NULL;
	}
	return rc;
}

static const struct usb_function_attribute msf_attrs[] = {
	{ "stall", stall_show, stall_store },
	{ "num_buffers", num_buffers_show, num_buffers_store },
	{ "lun.#/file", lun_file_show, lun_file_store },
	{ "lun.#/ro", lun_ro_show, lun_ro_store },
	{ "lun.#/removable", lun_removable_show, lun_removable_store },
	{ "lun.#/cdrom", lun_cdrom_show, lun_cdrom_store },
	{ "lun.#/nofua", lun_nofua_show, lun_nofua_store },
	{ "lun.#/inquiry_string", lun_inquiry_show, lun_inquiry_store },
	{ "lun.#/forced_eject", NULL, lun_forced_eject_store },
	{ NULL, NULL, NULL }
};

/* ---- instance and functions -------------------------------------------------- */

int fsg_opts_set_config(struct fsg_opts *opts, const struct fsg_config *cfg)
{
	struct fsg_common *common;

	if (!opts || !cfg)
		return -USB_EINVAL;
	if (opts->common)
		return -USB_EBUSY;
	common = fsg_common_init(NULL, NULL, cfg);
	if (usb_is_err(common))
		return (int)usb_ptr_err(common);
	opts->common = common;
	return 0;
}

/* The common object of the attributes, at the first usb_get_function(). */
static int create_common(struct msf_opts *o)
{
	struct fsg_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nluns = o->nluns ? o->nluns : 1;
	for (unsigned i = 0; i < cfg.nluns; i++) {
		const struct msf_lun_opts *lun = &o->lun[i];

		cfg.luns[i].filename = lun->file && lun->file[0] ? lun->file : NULL;
		cfg.luns[i].ro = lun->ro;
		cfg.luns[i].removable = lun->removable;
		cfg.luns[i].cdrom = lun->cdrom;
		cfg.luns[i].nofua = lun->nofua;
		cfg.luns[i].inquiry_string = lun->inquiry_string && lun->inquiry_string[0] ?
					     lun->inquiry_string : NULL;
	}
	cfg.can_stall = o->stall;
	cfg.fsg_num_buffers = o->num_buffers;
	return fsg_opts_set_config(&o->opts, &cfg);
}

static struct usb_function *msf_alloc_func(struct usb_function_instance *fi)
{
	struct msf_opts *o = msf_opts_of(fi);
	struct usb_function *f;
	int rc;

	if (!o->opts.common) {
		rc = create_common(o);
		if (rc)
			return usb_err_ptr(rc);
	}
	f = msf__alloc_function(o->opts.common->priv);
	if (!f)
		return usb_err_ptr(-USB_ENOMEM);
	return f;
}

static void msf_free_inst(struct usb_function_instance *fi)
{
	struct msf_opts *o = msf_opts_of(fi);

	fsg_common_put(o->opts.common);
	for (unsigned i = 0; i < FSG_MAX_LUNS; i++) {
		composite__free(o->lun[i].file);
		composite__free(o->lun[i].inquiry_string);
	}
	composite__free(o);
}

static struct usb_function_instance *msf_alloc_inst(void)
{
	struct msf_opts *o = composite__calloc(1, sizeof(*o));

	if (!o)
		return usb_err_ptr(-USB_ENOMEM);
	o->opts.priv = o;
	o->stall = true;
	for (unsigned i = 0; i < FSG_MAX_LUNS; i++)
		o->lun[i].removable = true;	/* as Linux's lun.0 */
	o->opts.func_inst.attrs = msf_attrs;
	o->opts.func_inst.free_func_inst = msf_free_inst;
	return &o->opts.func_inst;
}

const struct usb_function_driver fn_driver_mass_storage = {
	.name = "mass_storage",
	.alloc_inst = msf_alloc_inst,
	.alloc_func = msf_alloc_func,
};
