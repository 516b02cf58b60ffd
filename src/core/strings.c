/*
 * strings.c - string ids and string descriptors: allocation of indexes
 * (usb_string_id*), the LANGID list (index 0) built from every table the
 * device, its configurations and functions carry, lookup of a string by
 * language and index, and UTF-8 to UTF-16LE conversion. It reads the
 * string tables (borrowed) and writes only cdev->next_string_id and the
 * ids in tables handed to usb_string_ids_tab(); it owns the copies
 * usb_gstrings_attach() makes (cdev->gstrings, freed at unregister).
 */
#include <string.h>

#include "core.h"
#include "port/alloc.h"

#define MAX_STRING_ID 254
#define MAX_LANGS 32

int usb_string_id(struct usb_composite_dev *cdev)
{
	if (!cdev)
		return -USB_EINVAL;
	if (cdev->next_string_id >= MAX_STRING_ID)
		return -USB_ENODEV;
	return ++cdev->next_string_id;
}

int usb_string_ids_tab(struct usb_composite_dev *cdev, struct usb_string *str)
{
	unsigned n = 0, i;

	if (!cdev || !str)
		return -USB_EINVAL;
	while (str[n].s)
		n++;
	if (n > (unsigned)(MAX_STRING_ID - cdev->next_string_id))
		return -USB_ENODEV;
	for (i = 0; i < n; i++)
		str[i].id = ++cdev->next_string_id;
	return 0;
}

int usb_string_ids_n(struct usb_composite_dev *cdev, unsigned n)
{
	unsigned first;

	if (!cdev)
		return -USB_EINVAL;
	if (n > (unsigned)(MAX_STRING_ID - cdev->next_string_id))
		return -USB_ENODEV;
	first = cdev->next_string_id + 1u;
	cdev->next_string_id = (uint8_t)(cdev->next_string_id + n);
	return (int)first;
}

/* ---- usb_gstrings_attach() ------------------------------------------------- */

/* One call's copy of the tables, in one allocation: this head, the
 * NULL-terminated table pointers, the tables, their string arrays. */
struct gstrings_copy {
	struct list_head list;
	struct usb_gadget_strings **tabs;
};

static unsigned count_strings(const struct usb_gadget_strings *t)
{
	unsigned n = 0;

	while (t->strings && t->strings[n].s)
		n++;
	return n;
}

static struct gstrings_copy *copy_tables(struct usb_gadget_strings **sp, unsigned n_tabs,
					 unsigned n_strings)
{
	struct usb_gadget_strings *tab;
	struct gstrings_copy *c;
	struct usb_string *str;

	c = composite__calloc(1, sizeof(*c) + (n_tabs + 1) * sizeof(*c->tabs) + n_tabs * sizeof(*tab) +
			      (size_t)n_tabs * (n_strings + 1) * sizeof(*str));
	if (!c)
		return NULL;
	c->tabs = (struct usb_gadget_strings **)(c + 1);
	tab = (struct usb_gadget_strings *)(c->tabs + n_tabs + 1);
	str = (struct usb_string *)(tab + n_tabs);
	for (unsigned t = 0; t < n_tabs; t++, str += n_strings + 1) {
		tab[t].language = sp[t]->language;
		tab[t].strings = str;
		for (unsigned i = 0; i < n_strings; i++)
			str[i].s = sp[t]->strings[i].s;
		c->tabs[t] = &tab[t];
	}
	return c;
}

struct usb_string *usb_gstrings_attach(struct usb_composite_dev *cdev,
				       struct usb_gadget_strings **sp,
				       unsigned n_strings)
{
	struct gstrings_copy *c;
	unsigned n_tabs = 0;
	int first;

	if (!cdev || !sp || !sp[0] || n_strings == 0)
		return usb_err_ptr(-USB_EINVAL);
	for (; sp[n_tabs]; n_tabs++)
		if (count_strings(sp[n_tabs]) < n_strings)
			return usb_err_ptr(-USB_EINVAL);
	c = copy_tables(sp, n_tabs, n_strings);
	if (!c)
		return usb_err_ptr(-USB_ENOMEM);
	first = usb_string_ids_n(cdev, n_strings);
	if (first < 0) {
		composite__free(c);
		return usb_err_ptr(first);
	}
	for (unsigned t = 0; t < n_tabs; t++)
		for (unsigned i = 0; i < n_strings; i++)
			c->tabs[t]->strings[i].id = (uint8_t)(first + (int)i);
	list_add_tail(&c->list, &cdev->gstrings);
	return c->tabs[0]->strings;
}

void composite__gstrings_free(struct usb_composite_dev *cdev)
{
	while (!list_empty(&cdev->gstrings)) {
		struct gstrings_copy *c = list_first_entry(&cdev->gstrings,
							   struct gstrings_copy, list);

		list_del(&c->list);
		composite__free(c);
	}
}

/* ---- walking every table ------------------------------------------------ */

/* Calls @fn for each table; stops when it returns true. */
typedef bool (*table_fn)(const struct usb_gadget_strings *t, void *arg);

static bool walk_array(struct usb_gadget_strings **tabs, table_fn fn, void *arg)
{
	for (; tabs && *tabs; tabs++)
		if (fn(*tabs, arg))
			return true;
	return false;
}

static bool walk(struct usb_composite_dev *cdev, table_fn fn, void *arg)
{
	struct gstrings_copy *gc;
	struct usb_configuration *c;
	struct usb_function *f;

	if (cdev->driver_strings[0].s && fn(&cdev->driver_gstrings, arg))
		return true;
	if (walk_array(cdev->driver->strings, fn, arg))
		return true;
	list_for_each_entry_t(gc, &cdev->gstrings, struct gstrings_copy, list)
		if (walk_array(gc->tabs, fn, arg))
			return true;
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list) {
		if (walk_array(c->strings, fn, arg))
			return true;
		list_for_each_entry_t(f, &c->functions, struct usb_function, list)
			if (walk_array(f->strings, fn, arg))
				return true;
	}
	return false;
}

struct langs {
	uint16_t id[MAX_LANGS];
	unsigned n;
};

static void add_lang(struct langs *l, uint16_t lang)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		if (l->id[i] == lang)
			return;
	if (l->n < MAX_LANGS)
		l->id[l->n++] = lang;
}

/* A language counts once a table of it holds a string with an id. */
static bool collect_lang(const struct usb_gadget_strings *t, void *arg)
{
	const struct usb_string *s;

	for (s = t->strings; s && s->s; s++) {
		if (s->id) {
			add_lang(arg, t->language);
			break;
		}
	}
	return false;
}

struct lookup {
	uint16_t language;
	uint8_t index;
	bool language_seen;
	const char *found;
};

static bool find_string(const struct usb_gadget_strings *t, void *arg)
{
	struct lookup *q = arg;
	const struct usb_string *s;

	if (t->language != q->language)
		return false;
	q->language_seen = true;
	for (s = t->strings; s && s->s; s++) {
		if (s->id == q->index) {
			q->found = s->s;
			return true;
		}
	}
	return false;
}

/* ---- UTF-8 to UTF-16LE --------------------------------------------------- */

uint32_t composite__utf8_next(const unsigned char **s, const unsigned char *end)
{
	const unsigned char *p = *s;
	uint32_t cp, min;
	unsigned extra, i;

	if (p[0] < 0x80) {
		*s = p + 1;
		return p[0];
	}
	if ((p[0] & 0xe0) == 0xc0) {
		extra = 1; cp = p[0] & 0x1fu; min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		extra = 2; cp = p[0] & 0x0fu; min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		extra = 3; cp = p[0] & 0x07u; min = 0x10000;
	} else {
		*s = p + 1;
		return 0xfffd;
	}
	for (i = 1; i <= extra; i++) {
		/* Also stops at the NUL and at @end. */
		if (p + i >= end || (p[i] & 0xc0) != 0x80) {
			*s = p + i;
			return 0xfffd;
		}
		cp = (cp << 6) | (p[i] & 0x3fu);
	}
	*s = p + extra + 1;
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0xfffd;
	return cp;
}

unsigned composite__utf16_encode(uint32_t cp, uint16_t unit[2])
{
	if (cp < 0x10000) {
		unit[0] = (uint16_t)cp;
		return 1;
	}
	cp -= 0x10000;
	unit[0] = (uint16_t)(0xd800 | (cp >> 10));
	unit[1] = (uint16_t)(0xdc00 | (cp & 0x3ff));
	return 2;
}

int composite__utf8_to_desc(const char *str, uint8_t *buf, size_t cap)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *end = s + strlen(str);
	size_t max_units = (cap - 2) / 2, units = 0;

	if (max_units > USB_MAX_STRING_LEN)
		max_units = USB_MAX_STRING_LEN;
	while (s < end) {
		uint16_t u[2];
		unsigned n = composite__utf16_encode(composite__utf8_next(&s, end), u), i;

		/* A pair is never split by the length cut. */
		if (units + n > max_units)
			break;
		for (i = 0; i < n; i++)
			usb_put_le16(buf + 2 + 2 * (units + i), u[i]);
		units += n;
	}
	buf[0] = (uint8_t)(2 + 2 * units);
	buf[1] = USB_DT_STRING;
	return (int)(2 + 2 * units);
}

static bool label_lookup(struct usb_composite_dev *cdev, uint8_t index, const char **out)
{
	struct usb_configuration *c;

	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list) {
		if (c->label_id && c->label_id == index) {
			*out = c->label;
			return true;
		}
	}
	return false;
}

static bool has_labels(struct usb_composite_dev *cdev)
{
	struct usb_configuration *c;

	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (c->label_id)
			return true;
	return false;
}

int composite__string_desc(struct usb_composite_dev *cdev, uint16_t language,
			   uint8_t index, uint8_t *buf, size_t cap)
{
	struct lookup q;

	if (cap < 2 + 2 * USB_MAX_STRING_LEN)
		return -USB_ENOSPC;
	if (index == 0) {
		struct langs l;
		unsigned i;

		l.n = 0;
		/* Configuration labels are US English. */
		if (has_labels(cdev))
			add_lang(&l, USB_LANGID_EN_US);
		(void)walk(cdev, collect_lang, &l);
		if (l.n == 0)
			return -USB_EPIPE;	/* no strings at all */
		buf[0] = (uint8_t)(2 + 2 * l.n);
		buf[1] = USB_DT_STRING;
		for (i = 0; i < l.n; i++)
			usb_put_le16(buf + 2 + 2 * i, l.id[i]);
		return buf[0];
	}
	memset(&q, 0, sizeof(q));
	q.language = language;
	q.index = index;
	if (!walk(cdev, find_string, &q)) {
		const char *label;

		if (language == USB_LANGID_EN_US && label_lookup(cdev, index, &label))
			return composite__utf8_to_desc(label, buf, cap);
		return -USB_EPIPE;	/* unknown index or language */
	}
	return composite__utf8_to_desc(q.found, buf, cap);
}
