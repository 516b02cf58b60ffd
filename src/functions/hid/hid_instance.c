/*
 * hid_instance.c - HID in the function registry ("hid", as Linux's
 * configfs): a plain instance holding a struct f_hid_opts and room for
 * its report descriptor, the attributes by Linux's names (report_desc as
 * hex text), and the instance's minor, the lowest free one (read-only
 * dev). Portable C11 on the public function API.
 */
#include <stdio.h>
#include <string.h>

#include "composite/hid.h"
#include "../common/fn_instance.h"
#include "../registry/builtin.h"

#define HID_MINORS 16

struct hid_inst_opts {
	struct f_hid_opts opts;
	uint8_t desc[HID_REPORT_DESC_MAX];
};

static bool minor_used[HID_MINORS];	/* the registry's thread only */

static struct hid_inst_opts *inst_opts(struct usb_function_instance *fi)
{
	return fn_instance_of(fi)->opts;
}

static struct f_hid_opts *hid_opts(struct usb_function_instance *fi)
{
	return &inst_opts(fi)->opts;
}

/* Parse a store of @min..@max, refused while functions of @fi exist. */
static int store_uint(struct usb_function_instance *fi, const char *value, unsigned min,
		      unsigned max, unsigned *v)
{
	if (fn_instance_of(fi)->refcnt)
		return -USB_EBUSY;
	return usb_attr_parse_uint(value, min, max, v);
}

#define HID_UINT_ATTR(field, min, max)							\
	static int field##_show(struct usb_function_instance *fi, unsigned index,	\
				char *buf, size_t size)					\
	{										\
		(void)index;								\
		return snprintf(buf, size, "%u\n", (unsigned)hid_opts(fi)->field);	\
	}										\
	static int field##_store(struct usb_function_instance *fi, unsigned index,	\
				 const char *value)					\
	{										\
		unsigned v;								\
		int rc = store_uint(fi, value, min, max, &v);				\
											\
		(void)index;								\
		if (rc == 0)								\
			hid_opts(fi)->field = v;					\
		return rc;								\
	}

HID_UINT_ATTR(subclass, 0, 255)
HID_UINT_ATTR(protocol, 0, 255)
HID_UINT_ATTR(report_length, 1, HID_REPORT_LENGTH_MAX)
HID_UINT_ATTR(no_out_endpoint, 0, 1)

static int dev_show(struct usb_function_instance *fi, unsigned index, char *buf, size_t size)
{
	(void)index;
	return snprintf(buf, size, "hidg:%u\n", hid_opts(fi)->minor);
}

static int report_desc_show(struct usb_function_instance *fi, unsigned index, char *buf,
			    size_t size)
{
	const struct f_hid_opts *o = hid_opts(fi);
	size_t need = 0;

	(void)index;
	for (size_t i = 0; i < o->report_desc_length; i++) {
		char two[4];

		snprintf(two, sizeof(two), "%02x%s", o->report_desc[i],
			 i + 1 < o->report_desc_length ? " " : "");
		if (need + strlen(two) < size)
			memcpy(buf + need, two, strlen(two) + 1);
		need += strlen(two);
	}
	if (need + 1 < size)
		memcpy(buf + need, "\n", 2);
	return (int)(need + 1);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "05 01 09 06...": pairs of hex digits, blanks between pairs. */
static int report_desc_store(struct usb_function_instance *fi, unsigned index,
			     const char *value)
{
	struct hid_inst_opts *o = inst_opts(fi);
	uint8_t bytes[HID_REPORT_DESC_MAX];
	size_t n = 0;

	(void)index;
	if (fn_instance_of(fi)->refcnt)
		return -USB_EBUSY;
	while (*value) {
		int hi, lo;

		if (*value == ' ' || *value == '\n' || *value == '\t') {
			value++;
			continue;
		}
		hi = hex_digit(value[0]);
		lo = hi < 0 ? -1 : hex_digit(value[1]);
		if (lo < 0 || n == sizeof(bytes))
			return -USB_EINVAL;
		bytes[n++] = (uint8_t)(hi << 4 | lo);
		value += 2;
	}
	if (n == 0)
		return -USB_EINVAL;
	memcpy(o->desc, bytes, n);
	o->opts.report_desc_length = n;
	return 0;
}

static const struct usb_function_attribute hid_attrs[] = {
	{ "subclass", subclass_show, subclass_store },
	{ "protocol", protocol_show, protocol_store },
	{ "report_length", report_length_show, report_length_store },
	{ "report_desc", report_desc_show, report_desc_store },
	{ "no_out_endpoint", no_out_endpoint_show, no_out_endpoint_store },
	{ "dev", dev_show, NULL },
	{ NULL, NULL, NULL }
};

static void hid_init(void *opts)
{
	struct hid_inst_opts *o = opts;

	f_hid_opts_init(&o->opts);
	o->opts.report_desc = o->desc;
}

static int hid_alloc_plain(const void *opts, struct usb_function **out)
{
	return hid_alloc(opts, out);
}

static const struct fn_plain_ops hid_plain = {
	.opts_size = sizeof(struct hid_inst_opts),
	.init = hid_init,
	.alloc = hid_alloc_plain,
	.free = hid_free,
	.attrs = hid_attrs,
};

static void hid_free_inst(struct usb_function_instance *fi)
{
	minor_used[hid_opts(fi)->minor] = false;
	fn_plain_free_inst(fi);
}

static struct usb_function_instance *hid_alloc_inst(void)
{
	int minor = fn_number_take(minor_used, HID_MINORS);
	struct usb_function_instance *fi;

	if (minor < 0)
		return usb_err_ptr(minor);
	fi = fn_plain_alloc_inst(&hid_plain);
	if (usb_is_err(fi)) {
		minor_used[minor] = false;
		return fi;
	}
	hid_opts(fi)->minor = (unsigned)minor;
	fi->free_func_inst = hid_free_inst;
	return fi;
}

struct f_hid_opts *f_hid_opts_from_instance(struct usb_function_instance *fi)
{
	return fi && !usb_is_err(fi) && fi->fd == &fn_driver_hid ? hid_opts(fi) : NULL;
}

const struct usb_function_driver fn_driver_hid = {
	.name = "hid",
	.alloc_inst = hid_alloc_inst,
	.alloc_func = fn_plain_alloc_func,
};
