/*
 * os_desc.c - descriptors for Windows and browsers: MS OS 1.0 (string
 * 0xEE, extended compat ID, extended properties), MS OS 2.0 (the BOS
 * platform capability and the descriptor set) and WebUSB (the platform
 * capability and the landing page's URL descriptor), with the checks made
 * when a configuration or the device is bound. Reads the device's os_desc
 * fields and the functions' os_desc_tables; writes only into the buffer
 * it is given. The minimal build profile (COMPOSITE_NO_OS_DESC) keeps only
 * the "none" answers and refuses a device that asks for any of them.
 */
#include <string.h>

#include "core.h"

#ifdef COMPOSITE_NO_OS_DESC
int composite__os_string_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	(void)cdev;
	(void)buf;
	(void)cap;
	return -USB_EOPNOTSUPP;	/* use_os_string is refused at bind */
}

unsigned composite__os_bos_caps(const struct usb_composite_dev *cdev)
{
	(void)cdev;
	return 0;
}

int composite__os_bos_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	(void)cdev;
	(void)buf;
	(void)cap;
	return 0;
}

bool composite__os_vendor_request(struct usb_composite_dev *cdev,
				  const struct usb_ctrlrequest *ctrl, int *result)
{
	(void)cdev;
	(void)ctrl;
	(void)result;
	return false;
}

int composite__os_desc_check_config(struct usb_composite_dev *cdev, struct usb_configuration *c)
{
	(void)cdev;
	(void)c;
	return 0;
}

int composite__os_desc_check_device(struct usb_composite_dev *cdev)
{
	if (cdev->use_os_string || cdev->use_ms_os_20 || cdev->use_webusb)
		return -USB_EOPNOTSUPP;
	return 0;
}
#else

/* ---- a bounded writer; with no buffer it only measures ------------------ */

struct out {
	uint8_t *buf;
	size_t cap, len;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->buf && o->len + n <= o->cap) {
		if (p)
			memcpy(o->buf + o->len, p, n);
		else
			memset(o->buf + o->len, 0, n);
	}
	o->len += n;
}

static void put8(struct out *o, uint8_t v) { put(o, &v, 1); }

static void put16(struct out *o, uint16_t v)
{
	uint8_t b[2];

	usb_put_le16(b, v);
	put(o, b, 2);
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t b[4];

	usb_put_le32(b, v);
	put(o, b, 4);
}

/* Patch a length written earlier (a measuring writer has nowhere to). */
static void patch16(struct out *o, size_t at, size_t v)
{
	if (o->buf && at + 2 <= o->cap)
		usb_put_le16(o->buf + at, (uint16_t)v);
}

static void patch32(struct out *o, size_t at, size_t v)
{
	if (o->buf && at + 4 <= o->cap)
		usb_put_le32(o->buf + at, (uint32_t)v);
}

/* UTF-8 [@s, @end) as UTF-16LE code units. */
static void put_utf16(struct out *o, const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s, *e = (const unsigned char *)end;

	while (p < e && *p) {
		uint16_t u[2];
		unsigned n = composite__utf16_encode(composite__utf8_next(&p, e), u), i;

		for (i = 0; i < n; i++)
			put16(o, u[i]);
	}
}

/* ---- which interfaces say what ------------------------------------------- */

static bool is_unicode(uint8_t type)
{
	return type == USB_EXT_PROP_UNICODE || type == USB_EXT_PROP_UNICODE_ENV ||
	       type == USB_EXT_PROP_UNICODE_LINK || type == USB_EXT_PROP_UNICODE_MULTI;
}

/* The configuration the OS descriptors describe. */
static struct usb_configuration *os_config(struct usb_composite_dev *cdev)
{
	struct usb_configuration *c;

	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (!cdev->os_desc_config || c == cdev->os_desc_config)
			return c;
	return NULL;
}

static unsigned config_index(struct usb_composite_dev *cdev, const struct usb_configuration *want)
{
	struct usb_configuration *c;
	unsigned i = 0;

	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list) {
		if (c == want)
			return i;
		i++;
	}
	return 0;
}

/* The usb_os_desc for interface @intf of @c, or NULL. */
static const struct usb_os_desc *intf_desc(const struct usb_configuration *c, unsigned intf)
{
	const struct usb_function *f;
	unsigned j;

	if (intf >= MAX_CONFIG_INTERFACES || !(f = c->interface[intf]) || !f->os_desc_table)
		return NULL;
	for (j = 0; j < f->os_desc_n; j++)
		if (f->os_desc_table[j].if_id == (int)intf && f->os_desc_table[j].os_desc)
			return f->os_desc_table[j].os_desc;
	return NULL;
}

static bool has_compat_id(const struct usb_os_desc *d)
{
	return d && d->ext_compat_id;
}

static bool has_props(const struct usb_os_desc *d)
{
	return d && !list_empty(&d->ext_prop);
}

/* ---- a property's name and value, measured or written ------------------ */

static size_t name_bytes(const struct usb_os_desc_ext_prop *p)
{
	struct out m = { NULL, 0, 0 };

	put_utf16(&m, p->name, p->name + strlen(p->name));
	return m.len + 2;
}

/* The value as sent: unicode types in UTF-16LE with their NULs. */
static void put_value(struct out *o, const struct usb_os_desc_ext_prop *p)
{
	const char *s = p->data, *end = p->data + (p->data_len > 0 ? p->data_len : 0);

	if (!is_unicode(p->type)) {
		put(o, p->data, (size_t)(end - s));
		return;
	}
	if (p->type != USB_EXT_PROP_UNICODE_MULTI) {
		put_utf16(o, s, end);
		put16(o, 0);
		return;
	}
	/* REG_MULTI_SZ: each string with its NUL, then the list's NUL. */
	while (s && s < end && *s) {
		const char *z = memchr(s, '\0', (size_t)(end - s));

		if (!z)
			z = end;
		put_utf16(o, s, z);
		put16(o, 0);
		s = z + 1;
	}
	if (!p->data || p->data_len <= 0 || !*p->data)
		put16(o, 0);	/* an empty list is one empty string */
	put16(o, 0);
}

static size_t value_bytes(const struct usb_os_desc_ext_prop *p)
{
	struct out m = { NULL, 0, 0 };

	put_value(&m, p);
	return m.len;
}

/* ---- MS OS 1.0 ---------------------------------------------------------- */

int composite__os_string_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	static const uint8_t msft100[OS_STRING_QW_SIGN_LEN] = {
		'M', 0, 'S', 0, 'F', 0, 'T', 0, '1', 0, '0', 0, '0', 0 };
	static const uint8_t zero[OS_STRING_QW_SIGN_LEN];
	bool unset = memcmp(cdev->qw_sign, zero, sizeof(zero)) == 0;

	if (cap < 18)
		return -USB_ENOSPC;
	buf[0] = 18;
	buf[1] = USB_DT_STRING;
	memcpy(buf + 2, unset ? msft100 : cdev->qw_sign, OS_STRING_QW_SIGN_LEN);
	buf[16] = cdev->b_vendor_code;
	buf[17] = 0;	/* bPad */
	return 18;
}

static void ext_compat_id(const struct usb_configuration *c, struct out *o)
{
	unsigned i, count = 0;

	put32(o, 0);		/* dwLength, below */
	put16(o, 0x0100);	/* bcdVersion */
	put16(o, USB_OS_DESC_EXT_COMPAT_ID);
	put8(o, 0);		/* bCount, below */
	put(o, NULL, 7);
	for (i = 0; i < MAX_CONFIG_INTERFACES; i++) {
		const struct usb_os_desc *d = intf_desc(c, i);

		if (!has_compat_id(d))
			continue;
		put8(o, (uint8_t)i);	/* bFirstInterfaceNumber */
		put8(o, 0x01);		/* reserved: 1, as the specification says */
		put(o, d->ext_compat_id, 2 * USB_OS_DESC_COMPAT_ID_LEN);
		put(o, NULL, 6);
		count++;
	}
	patch32(o, 0, o->len);
	if (o->buf && o->cap > 8)
		o->buf[8] = (uint8_t)count;
}

static void ext_props_10(const struct usb_os_desc *d, struct out *o)
{
	const struct usb_os_desc_ext_prop *p;
	unsigned count = 0;

	put32(o, 0);		/* dwLength, below */
	put16(o, 0x0100);	/* bcdVersion */
	put16(o, USB_OS_DESC_EXT_PROPERTIES);
	put16(o, 0);		/* wCount, below */
	if (d)
		list_for_each_entry_t(p, &d->ext_prop, struct usb_os_desc_ext_prop, entry) {
			size_t nb = name_bytes(p), vb = value_bytes(p);

			put32(o, (uint32_t)(14 + nb + vb));	/* dwSize */
			put32(o, p->type);
			put16(o, (uint16_t)nb);
			put_utf16(o, p->name, p->name + strlen(p->name));
			put16(o, 0);
			put32(o, (uint32_t)vb);
			put_value(o, p);
			count++;
		}
	patch32(o, 0, o->len);
	patch16(o, 8, count);
}

/* ---- MS OS 2.0 ------------------------------------------------------------ */

static void features_20(const struct usb_os_desc *d, struct out *o)
{
	const struct usb_os_desc_ext_prop *p;

	if (has_compat_id(d)) {
		put16(o, 20);
		put16(o, USB_MS_OS_20_FEATURE_COMPATBLE_ID);
		put(o, d->ext_compat_id, 2 * USB_OS_DESC_COMPAT_ID_LEN);
	}
	if (d)
		list_for_each_entry_t(p, &d->ext_prop, struct usb_os_desc_ext_prop, entry) {
			size_t nb = name_bytes(p), vb = value_bytes(p);

			put16(o, (uint16_t)(10 + nb + vb));
			put16(o, USB_MS_OS_20_FEATURE_REG_PROPERTY);
			put16(o, p->type);
			put16(o, (uint16_t)nb);
			put_utf16(o, p->name, p->name + strlen(p->name));
			put16(o, 0);
			put16(o, (uint16_t)vb);
			put_value(o, p);
		}
}

static uint32_t windows_version(const struct usb_composite_dev *cdev)
{
	return cdev->dw_ms_os_20_windows_version ? cdev->dw_ms_os_20_windows_version
						 : USB_MS_OS_20_WINDOWS_8_1;
}

/* The set: a single-interface, single-configuration device carries its
 * features right after the header; otherwise they go in a configuration
 * subset for the described configuration, and in a composite device
 * (several interfaces) in one function subset per interface that has
 * something to say. */
static void ms_os_20_set(struct usb_composite_dev *cdev, const struct usb_configuration *c,
			 struct out *o)
{
	unsigned i, n_intf = 0;
	size_t subset;

	put16(o, 10);
	put16(o, USB_MS_OS_20_SET_HEADER_DESCRIPTOR);
	put32(o, windows_version(cdev));
	put16(o, 0);	/* wTotalLength, below */
	if (!c)
		goto done;
	for (i = 0; i < MAX_CONFIG_INTERFACES; i++)
		if (c->interface[i])
			n_intf++;
	if (n_intf <= 1 && composite__count_configs(cdev) == 1) {
		features_20(intf_desc(c, 0), o);
		goto done;
	}
	subset = o->len;
	put16(o, 8);
	put16(o, USB_MS_OS_20_SUBSET_HEADER_CONFIGURATION);
	put8(o, (uint8_t)config_index(cdev, c));	/* the index, as Windows reads it */
	put8(o, 0);
	put16(o, 0);	/* wTotalLength of the subset, below */
	if (n_intf <= 1)
		features_20(intf_desc(c, 0), o);
	for (i = 0; n_intf > 1 && i < MAX_CONFIG_INTERFACES; i++) {
		const struct usb_os_desc *d = intf_desc(c, i);
		size_t fn;

		if (!has_compat_id(d) && !has_props(d))
			continue;
		fn = o->len;
		put16(o, 8);
		put16(o, USB_MS_OS_20_SUBSET_HEADER_FUNCTION);
		put8(o, (uint8_t)i);	/* bFirstInterface */
		put8(o, 0);
		put16(o, 0);	/* wSubsetLength, below */
		features_20(d, o);
		patch16(o, fn + 6, o->len - fn);
	}
	patch16(o, subset + 6, o->len - subset);
done:
	patch16(o, 8, o->len);
}

/* ---- WebUSB ----------------------------------------------------------------- */

/* The landing page without its scheme, its length, and the scheme's code.
 * As Linux, a page filling the whole array needs no NUL. */
static const char *landing_url(const struct usb_composite_dev *cdev, size_t *len,
			       uint8_t *scheme)
{
	const char *url = cdev->landing_page;
	const char *nul = memchr(url, '\0', sizeof(cdev->landing_page));
	size_t n = nul ? (size_t)(nul - url) : sizeof(cdev->landing_page), skip = 0;

	*scheme = WEBUSB_URL_SCHEME_NONE;
	if (n >= 8 && strncmp(url, "https://", 8) == 0) {
		*scheme = WEBUSB_URL_SCHEME_HTTPS;
		skip = 8;
	} else if (n >= 7 && strncmp(url, "http://", 7) == 0) {
		*scheme = WEBUSB_URL_SCHEME_HTTP;
		skip = 7;
	}
	*len = n - skip;
	return url + skip;
}

static bool has_landing_page(const struct usb_composite_dev *cdev)
{
	return cdev->landing_page[0] != '\0';
}

static bool landing_fits(const struct usb_composite_dev *cdev)
{
	uint8_t scheme;
	size_t n;

	(void)landing_url(cdev, &n, &scheme);
	return n + WEBUSB_URL_DESCRIPTOR_HEADER_LENGTH <= 255;
}

static int url_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	uint8_t scheme;
	size_t n;
	const char *url = landing_url(cdev, &n, &scheme);

	if (!landing_fits(cdev) || cap < 255)
		return -USB_EPIPE;	/* refused at probe; never sent cut */
	buf[0] = (uint8_t)(WEBUSB_URL_DESCRIPTOR_HEADER_LENGTH + n);
	buf[1] = USB_DT_WEBUSB_URL;
	buf[2] = scheme;
	memcpy(buf + 3, url, n);
	return buf[0];
}

/* ---- the BOS capabilities --------------------------------------------------- */

unsigned composite__os_bos_caps(const struct usb_composite_dev *cdev)
{
	return (cdev->use_ms_os_20 ? 1u : 0u) + (cdev->use_webusb ? 1u : 0u);
}

int composite__os_bos_desc(struct usb_composite_dev *cdev, uint8_t *buf, size_t cap)
{
	static const uint8_t ms_os_20_uuid[16] = { USB_MS_OS_20_UUID };
	static const uint8_t webusb_uuid[16] = { WEBUSB_UUID };
	struct out o = { buf, cap, 0 };

	if (cdev->use_ms_os_20) {
		struct out m = { NULL, 0, 0 };

		ms_os_20_set(cdev, os_config(cdev), &m);
		put8(&o, USB_MS_OS_20_CAP_SIZE);
		put8(&o, USB_DT_DEVICE_CAPABILITY);
		put8(&o, USB_PLAT_DEV_CAP_TYPE);
		put8(&o, 0);
		put(&o, ms_os_20_uuid, sizeof(ms_os_20_uuid));
		put32(&o, windows_version(cdev));
		put16(&o, (uint16_t)m.len);	/* wMSOSDescriptorSetTotalLength */
		put8(&o, cdev->b_ms_os_20_vendor_code);
		put8(&o, 0);			/* bAltEnumCode: none */
	}
	if (cdev->use_webusb) {
		put8(&o, USB_WEBUSB_CAP_SIZE);
		put8(&o, USB_DT_DEVICE_CAPABILITY);
		put8(&o, USB_PLAT_DEV_CAP_TYPE);
		put8(&o, 0);
		put(&o, webusb_uuid, sizeof(webusb_uuid));
		put16(&o, cdev->bcd_webusb_version ? cdev->bcd_webusb_version : 0x0100);
		put8(&o, cdev->b_webusb_vendor_code);
		put8(&o, has_landing_page(cdev) ? 1 : 0);	/* iLandingPage */
	}
	return o.len > cap ? -USB_ENOSPC : (int)o.len;
}

/* ---- the vendor requests ----------------------------------------------------- */

static int reply(struct out *o)
{
	return o->len > o->cap ? -USB_EPIPE : (int)o->len;
}

bool composite__os_vendor_request(struct usb_composite_dev *cdev,
				  const struct usb_ctrlrequest *ctrl, int *result)
{
	const uint8_t *raw = (const uint8_t *)ctrl;
	uint8_t recip = raw[0] & USB_RECIP_MASK, code = raw[1];
	uint16_t value = usb_get_le16(raw + 2), index = usb_get_le16(raw + 4);
	struct out o = { cdev->ep0_buf, USB_COMP_EP0_BUFSIZ, 0 };
	bool in = (raw[0] & USB_DIR_IN) != 0;
	struct usb_configuration *c = os_config(cdev);

	if ((raw[0] & USB_TYPE_MASK) != USB_TYPE_VENDOR || !in)
		return false;
	if (cdev->use_webusb && code == cdev->b_webusb_vendor_code &&
	    index == USB_WEBUSB_GET_URL && recip == USB_RECIP_DEVICE) {
		*result = value == 1 && has_landing_page(cdev)
			? url_desc(cdev, o.buf, o.cap) : -USB_EPIPE;
		return true;
	}
	if (cdev->use_ms_os_20 && code == cdev->b_ms_os_20_vendor_code &&
	    index == USB_MS_OS_20_DESCRIPTOR_INDEX && recip == USB_RECIP_DEVICE) {
		if (value != 0)
			*result = -USB_EPIPE;
		else {
			ms_os_20_set(cdev, c, &o);
			*result = reply(&o);
		}
		return true;
	}
	if (!cdev->use_os_string || code != cdev->b_vendor_code || !c)
		return false;
	/* wValue's high byte is a page number: everything fits in page 0. */
	if (index == USB_OS_DESC_EXT_COMPAT_ID && recip == USB_RECIP_DEVICE) {
		if (value >> 8)
			*result = -USB_EPIPE;
		else {
			ext_compat_id(c, &o);
			*result = reply(&o);
		}
		return true;
	}
	if (index == USB_OS_DESC_EXT_PROPERTIES &&
	    (recip == USB_RECIP_INTERFACE || recip == USB_RECIP_DEVICE)) {
		unsigned intf = value & 0xffu;

		if ((value >> 8) || intf >= MAX_CONFIG_INTERFACES || !c->interface[intf])
			*result = -USB_EPIPE;
		else {
			ext_props_10(intf_desc(c, intf), &o);
			*result = reply(&o);
		}
		return true;
	}
	return false;
}

/* ---- checks at bind ----------------------------------------------------------- */

static int check_prop(const struct usb_function *f, const struct usb_os_desc_ext_prop *p)
{
	const char *why = NULL;

	if (!p->name || !p->name[0])
		why = "a property without a name";
	else if (p->type < USB_EXT_PROP_UNICODE || p->type > USB_EXT_PROP_UNICODE_MULTI)
		why = "an unknown property type";
	else if (p->data_len < 0 || (p->data_len > 0 && !p->data))
		why = "a property without its data";
	else if ((p->type == USB_EXT_PROP_LE32 || p->type == USB_EXT_PROP_BE32) &&
		 p->data_len != 4)
		why = "a 32-bit property whose data is not 4 bytes";
	else if (10 + name_bytes(p) + value_bytes(p) > 0xffff)
		why = "a property longer than MS OS 2.0 allows";
	if (!why)
		return 0;
	composite__warn("%s: os_desc_table has %s (%s)", f->name ? f->name : "function", why,
			p->name ? p->name : "?");
	return -USB_EINVAL;
}

static int check_table(const struct usb_configuration *c, const struct usb_function *f)
{
	const struct usb_os_desc_ext_prop *p;
	unsigned j;
	int ret;

	if (f->os_desc_n && !f->os_desc_table) {
		composite__warn("%s: os_desc_n without os_desc_table", f->name);
		return -USB_EINVAL;
	}
	for (j = 0; j < f->os_desc_n; j++) {
		const struct usb_os_desc_table *t = &f->os_desc_table[j];

		if (!t->os_desc)
			continue;
		if (t->if_id < 0 || t->if_id >= MAX_CONFIG_INTERFACES ||
		    c->interface[t->if_id] != f) {
			composite__warn("%s: os_desc_table names interface %d, not the function's",
					f->name, t->if_id);
			return -USB_EINVAL;
		}
		list_for_each_entry_t(p, &t->os_desc->ext_prop, struct usb_os_desc_ext_prop, entry)
			if ((ret = check_prop(f, p)) != 0)
				return ret;
	}
	return 0;
}

int composite__os_desc_check_config(struct usb_composite_dev *cdev, struct usb_configuration *c)
{
	struct usb_function *f;
	struct out m = { NULL, 0, 0 };
	unsigned i;
	int ret;

	list_for_each_entry_t(f, &c->functions, struct usb_function, list)
		if ((ret = check_table(c, f)) != 0)
			return ret;
	/* Every reply must fit the ep0 buffer: measured as sent. */
	ms_os_20_set(cdev, c, &m);
	if (m.len > USB_COMP_EP0_BUFSIZ)
		goto too_long;
	for (i = 0; i < MAX_CONFIG_INTERFACES; i++) {
		m.len = 0;
		ext_props_10(intf_desc(c, i), &m);
		if (m.len > USB_COMP_EP0_BUFSIZ)
			goto too_long;
	}
	return 0;
too_long:
	composite__warn("configuration %u: OS descriptors longer than ep0's %u-byte buffer",
			c->bConfigurationValue, (unsigned)USB_COMP_EP0_BUFSIZ);
	return -USB_EINVAL;
}

int composite__os_desc_check_device(struct usb_composite_dev *cdev)
{
	struct usb_configuration *c;
	bool found = !cdev->os_desc_config;

	if (cdev->use_webusb && !landing_fits(cdev)) {
		composite__warn("WebUSB landing page longer than its descriptor allows");
		return -USB_EINVAL;
	}
	list_for_each_entry_t(c, &cdev->configs, struct usb_configuration, list)
		if (c == cdev->os_desc_config)
			found = true;
	if (!found) {
		composite__warn("os_desc_config is not one of the device's configurations");
		return -USB_EINVAL;
	}
	return 0;
}
#endif /* COMPOSITE_NO_OS_DESC */
